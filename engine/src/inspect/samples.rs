//! The stats snapshot and per-second samples: a [`Sample`] is one second of the engine's life
//! with rates against the previous sample, and a [`SampleRing`] keeps the newest ones. The ring
//! has no clock: the host decides when a second has passed (the server's timer, the
//! playground's `setInterval`) and pushes a snapshot taken then.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::Serialize;
use ts_rs::TS;

use super::{Refusal, Status};
use crate::stats::{KeysByType, StatsSnapshot};
use crate::Engine;

/// Samples a host keeps: one hour at one per second.
pub const HISTORY_SECONDS: usize = 3600;
/// What a history request returns without `seconds`: 15 minutes.
pub const DEFAULT_HISTORY_SECONDS: usize = 900;
/// Milliseconds between samples, as the history body says.
pub const SAMPLE_INTERVAL_MS: u64 = 1000;

/// Everything at this moment (`GET /api/stats` without the server's `persistence`).
pub fn snapshot(engine: &Engine, now_ms: u64) -> StatsSnapshot {
    // Both hosts sample once a second: the ghost record's horizon is timed from these marks.
    super::whatif::mark_horizon(engine, now_ms);
    engine.snapshot(now_ms)
}

/// One second of the engine's life: gauges, running totals, and per-second rates computed
/// against the previous sample.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct Sample {
    pub t_ms: u64,
    pub uptime_s: u64,
    pub used_memory: u64,
    pub maxmemory: u64,
    pub rss_bytes: u64,
    pub allocator_bytes: u64,
    pub keys: u64,
    pub keys_with_ttl: u64,
    pub keys_by_type: KeysByType,
    pub connected_clients: u64,
    pub ops_per_sec: f64,
    pub net_input_per_sec: f64,
    pub net_output_per_sec: f64,
    pub commands_processed: u64,
    pub hits: u64,
    pub misses: u64,
    pub misses_never_seen: u64,
    pub misses_expired: u64,
    pub misses_evicted: u64,
    pub evicted_keys: u64,
    pub expired_keys: u64,
    /// hits / (hits + misses) since start (or `CONFIG RESETSTAT`).
    pub hit_ratio: f64,
    pub hits_per_sec: f64,
    pub misses_per_sec: f64,
    pub misses_never_seen_per_sec: f64,
    pub misses_expired_per_sec: f64,
    pub misses_evicted_per_sec: f64,
    pub evicted_per_sec: f64,
    pub expired_per_sec: f64,
    /// hits / lookups within this second; `null` when there were none.
    pub hit_ratio_interval: Option<f64>,
    /// Client-side caching: clients tracking, keys in the tracking table, invalidation
    /// messages sent (since start) and per second.
    pub tracking_clients: u64,
    pub tracking_keys: u64,
    pub invalidations: u64,
    pub invalidations_per_sec: f64,
}

impl Sample {
    /// A sample from a snapshot, with rates against `prev` (zero for the first).
    pub fn new(s: &StatsSnapshot, prev: Option<&Sample>) -> Sample {
        let secs = prev.map(|p| s.now_ms.saturating_sub(p.t_ms) as f64 / 1000.0).filter(|&d| d > 0.0);
        // Counters can go down (CONFIG RESETSTAT): a rate is then 0, not a huge number.
        let rate = |now: u64, before: fn(&Sample) -> u64| match (prev, secs) {
            (Some(p), Some(d)) => now.saturating_sub(before(p)) as f64 / d,
            _ => 0.0,
        };
        let hits_per_sec = rate(s.hits, |p| p.hits);
        let misses_per_sec = rate(s.misses, |p| p.misses);
        Sample {
            t_ms: s.now_ms,
            uptime_s: s.uptime_s,
            used_memory: s.used_memory,
            maxmemory: s.maxmemory,
            rss_bytes: s.host.rss_bytes,
            allocator_bytes: s.host.allocator_bytes,
            keys: s.keys,
            keys_with_ttl: s.keys_with_ttl,
            keys_by_type: s.keys_by_type.clone(),
            connected_clients: s.connected_clients,
            ops_per_sec: s.ops_per_sec,
            net_input_per_sec: s.net_input_per_sec,
            net_output_per_sec: s.net_output_per_sec,
            commands_processed: s.commands_processed,
            hits: s.hits,
            misses: s.misses,
            misses_never_seen: s.misses_never_seen,
            misses_expired: s.misses_expired,
            misses_evicted: s.misses_evicted,
            evicted_keys: s.evicted_keys,
            expired_keys: s.expired_keys,
            hit_ratio: s.hit_ratio,
            hits_per_sec,
            misses_per_sec,
            misses_never_seen_per_sec: rate(s.misses_never_seen, |p| p.misses_never_seen),
            misses_expired_per_sec: rate(s.misses_expired, |p| p.misses_expired),
            misses_evicted_per_sec: rate(s.misses_evicted, |p| p.misses_evicted),
            evicted_per_sec: rate(s.evicted_keys, |p| p.evicted_keys),
            expired_per_sec: rate(s.expired_keys, |p| p.expired_keys),
            hit_ratio_interval: (hits_per_sec + misses_per_sec > 0.0)
                .then(|| hits_per_sec / (hits_per_sec + misses_per_sec)),
            tracking_clients: s.tracking.clients,
            tracking_keys: s.tracking.keys,
            invalidations: s.tracking.invalidations,
            invalidations_per_sec: rate(s.tracking.invalidations, |p| p.invalidations),
        }
    }
}

/// The newest samples, oldest first, at most `capacity` of them. Samples are shared (`Arc`)
/// so a host can also hand each one to live streams without copying it.
#[derive(Debug, Clone)]
pub struct SampleRing {
    samples: VecDeque<Arc<Sample>>,
    capacity: usize,
}

impl SampleRing {
    pub fn new(capacity: usize) -> SampleRing {
        let capacity = capacity.max(1);
        SampleRing { samples: VecDeque::with_capacity(capacity), capacity }
    }

    /// Takes a sample of `snapshot` (rates against the newest kept) and keeps it.
    pub fn push(&mut self, snapshot: &StatsSnapshot) -> Arc<Sample> {
        let sample = Arc::new(Sample::new(snapshot, self.samples.back().map(|s| &**s)));
        if self.samples.len() >= self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(sample.clone());
        sample
    }

    /// The newest `n` samples, oldest first.
    pub fn last(&self, n: usize) -> Vec<Arc<Sample>> {
        self.samples.iter().skip(self.samples.len().saturating_sub(n)).cloned().collect()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

/// `GET /api/stats/history`: samples a second apart, oldest first.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
#[ts(rename = "History")]
pub struct HistoryView {
    pub interval_ms: u64,
    pub samples: Vec<Sample>,
}

/// The last `seconds` samples of `ring` (default 15 minutes); refused outside 1..=capacity.
pub fn history(ring: &SampleRing, seconds: Option<usize>) -> Result<HistoryView, Refusal> {
    let n = seconds.unwrap_or(DEFAULT_HISTORY_SECONDS.min(ring.capacity));
    if n == 0 || n > ring.capacity {
        return Err(Refusal::new(
            Status::BadRequest,
            "bad_parameter",
            format!("seconds must be between 1 and {}", ring.capacity),
        ));
    }
    let samples = ring.last(n).iter().map(|s| (**s).clone()).collect();
    Ok(HistoryView { interval_ms: SAMPLE_INTERVAL_MS, samples })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    const T0: u64 = TestEngine::START_MS;

    #[test]
    fn rates_are_against_the_previous_sample_and_the_ring_is_bounded() {
        let mut t = TestEngine::default();
        let mut ring = SampleRing::new(3);
        let first = ring.push(&t.engine.snapshot(T0));
        assert_eq!(first.hits_per_sec, 0.0);
        assert_eq!(first.hit_ratio_interval, None);
        t.run(&["SET", "k", "v"]);
        t.run(&["GET", "k"]);
        t.run(&["GET", "k"]);
        t.run(&["GET", "nope"]);
        let e = &t.engine;
        let second = ring.push(&e.snapshot(T0 + 2000));
        assert_eq!(second.hits_per_sec, 1.0);
        assert_eq!(second.misses_per_sec, 0.5);
        assert_eq!(second.hit_ratio_interval, Some(2.0 / 3.0));
        ring.push(&e.snapshot(T0 + 3000));
        ring.push(&e.snapshot(T0 + 4000));
        let kept: Vec<u64> = ring.last(10).iter().map(|s| s.t_ms).collect();
        assert_eq!(kept, [T0 + 2000, T0 + 3000, T0 + 4000]);
        assert_eq!(history(&ring, Some(2)).unwrap().samples.len(), 2);
        assert_eq!(history(&ring, None).unwrap().samples.len(), 3);
        assert_eq!(history(&ring, Some(4)).unwrap_err().message, "seconds must be between 1 and 3");
        assert_eq!(history(&ring, Some(0)).unwrap_err().status, Status::BadRequest);
    }
}
