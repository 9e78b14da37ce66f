//! A run's request: what `POST /api/bench` accepts, its bounds, and its validation into
//! [`BenchParams`].

use serde::{Deserialize, Serialize};

/// Bounds on a run's parameters.
mod limits {
    pub(super) const CLIENTS: (u32, u32) = (1, 512);
    pub(super) const PIPELINE: (u32, u32) = (1, 1000);
    /// clients x pipeline: requests in flight at once.
    pub(super) const IN_FLIGHT: u64 = 20_000;
    pub(super) const VALUE_SIZE: (usize, usize) = (1, 1024 * 1024);
    /// clients x pipeline x value size: bytes of values in flight at once.
    pub(super) const IN_FLIGHT_BYTES: u64 = 256 * 1024 * 1024;
    pub(super) const KEY_SPACE: (u64, u64) = (1, 1_000_000_000_000);
    pub(super) const DURATION_S: (u64, u64) = (1, 3600);
    pub(super) const REQUESTS: (u64, u64) = (1, 1_000_000_000);
    /// Each side of the SET:GET ratio.
    pub(super) const RATIO_PART: u32 = 1000;
}

/// What `POST /api/bench` accepts; every field optional (defaults as redis-benchmark's
/// where it has one).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BenchRequest {
    clients: Option<u32>,
    pipeline: Option<u32>,
    /// `"SET:GET"`, e.g. `"1:10"` (memtier's `--ratio`).
    ratio: Option<String>,
    value_size: Option<usize>,
    key_space: Option<u64>,
    /// Run for this many seconds...
    duration_s: Option<u64>,
    /// ...or until this many requests are answered (give one of the two).
    requests: Option<u64>,
}

/// A run's validated parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BenchParams {
    pub(super) clients: u32,
    pub(super) pipeline: u32,
    pub(super) ratio: String,
    pub(super) value_size: usize,
    pub(super) key_space: u64,
    pub(super) duration_s: Option<u64>,
    pub(super) requests: Option<u64>,
}

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(name: &str, v: T, (lo, hi): (T, T)) -> Result<T, String> {
    if v < lo || v > hi {
        Err(format!("{name} must be between {lo} and {hi}"))
    } else {
        Ok(v)
    }
}

/// Parses `"SET:GET"` into its two parts.
pub(super) fn parse_ratio(ratio: &str) -> Result<(u32, u32), String> {
    let bad = || format!("ratio must be SET:GET with whole numbers up to {}, e.g. \"1:10\"", limits::RATIO_PART);
    let (s, g) = ratio.split_once(':').ok_or_else(bad)?;
    let s: u32 = s.trim().parse().map_err(|_| bad())?;
    let g: u32 = g.trim().parse().map_err(|_| bad())?;
    if s > limits::RATIO_PART || g > limits::RATIO_PART || s + g == 0 {
        return Err(bad());
    }
    Ok((s, g))
}

impl BenchRequest {
    /// Fills defaults and checks bounds; the error names the offending field.
    pub(crate) fn validate(self) -> Result<BenchParams, String> {
        let clients = in_range("clients", self.clients.unwrap_or(50), limits::CLIENTS)?;
        let pipeline = in_range("pipeline", self.pipeline.unwrap_or(1), limits::PIPELINE)?;
        let ratio = self.ratio.unwrap_or_else(|| "1:10".to_string());
        let (s, g) = parse_ratio(&ratio)?;
        let value_size = in_range("value_size", self.value_size.unwrap_or(64), limits::VALUE_SIZE)?;
        let key_space = in_range("key_space", self.key_space.unwrap_or(100_000), limits::KEY_SPACE)?;
        let (duration_s, requests) = match (self.duration_s, self.requests) {
            (Some(_), Some(_)) => return Err("give duration_s or requests, not both".into()),
            (None, None) => (Some(10), None),
            (Some(d), None) => (Some(in_range("duration_s", d, limits::DURATION_S)?), None),
            (None, Some(r)) => (None, Some(in_range("requests", r, limits::REQUESTS)?)),
        };
        let in_flight = u64::from(clients) * u64::from(pipeline);
        if in_flight > limits::IN_FLIGHT {
            return Err(format!("clients x pipeline must be at most {}", limits::IN_FLIGHT));
        }
        if in_flight.saturating_mul(value_size as u64) > limits::IN_FLIGHT_BYTES {
            return Err(format!("clients x pipeline x value_size must be at most {} bytes", limits::IN_FLIGHT_BYTES));
        }
        Ok(BenchParams { clients, pipeline, ratio: format!("{s}:{g}"), value_size, key_space, duration_s, requests })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_validated_with_defaults() {
        let p = BenchRequest::default().validate().unwrap();
        assert_eq!(p.clients, 50);
        assert_eq!(p.pipeline, 1);
        assert_eq!(p.ratio, "1:10");
        assert_eq!(p.duration_s, Some(10));
        assert_eq!(p.requests, None);
        let bad = |r: BenchRequest| r.validate().unwrap_err();
        assert!(bad(BenchRequest { clients: Some(0), ..Default::default() }).contains("clients"));
        assert!(bad(BenchRequest { clients: Some(10_000), ..Default::default() }).contains("clients"));
        assert!(bad(BenchRequest { pipeline: Some(0), ..Default::default() }).contains("pipeline"));
        assert!(bad(BenchRequest { ratio: Some("x".into()), ..Default::default() }).contains("ratio"));
        assert!(bad(BenchRequest { ratio: Some("0:0".into()), ..Default::default() }).contains("ratio"));
        assert!(bad(BenchRequest { value_size: Some(0), ..Default::default() }).contains("value_size"));
        assert!(bad(BenchRequest { duration_s: Some(1), requests: Some(1), ..Default::default() }).contains("not both"));
        assert!(bad(BenchRequest { duration_s: Some(0), ..Default::default() }).contains("duration_s"));
        assert!(bad(BenchRequest { clients: Some(500), pipeline: Some(1000), ..Default::default() })
            .contains("clients x pipeline"));
        let p =
            BenchRequest { requests: Some(5), ratio: Some(" 3 : 1 ".into()), ..Default::default() }.validate().unwrap();
        assert_eq!((p.duration_s, p.requests, p.ratio.as_str()), (None, Some(5), "3:1"));
    }
}
