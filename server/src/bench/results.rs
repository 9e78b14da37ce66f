//! What a run measured and how it is recorded. Latencies go into HDR histograms
//! (microseconds, 3 significant digits), one per second of the run, so results give both
//! p50/p90/p99/p99.9/max overall and a per-second timeline; [`Live`] holds the counters and
//! timeline clients report to while it runs, and [`Run`] is the record the API answers and the
//! history keeps.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

use super::request::BenchParams;

/// Seconds of the timeline kept as histograms before being summarized; clients report each
/// second when their next batch ends, so a second is complete a little after it passes.
const OPEN_SECONDS: u64 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Running,
    Completed,
    Cancelled,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Source {
    /// Run by this server's runner.
    Builtin,
    /// Imported from `scripts/bench` output.
    Imported,
}

/// Latency summary in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Latency {
    p50: f64,
    p90: f64,
    p99: f64,
    p999: f64,
    max: f64,
    mean: f64,
}

impl Latency {
    fn of(h: &Histogram<u32>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        Latency {
            p50: ms(h.value_at_quantile(0.5)),
            p90: ms(h.value_at_quantile(0.9)),
            p99: ms(h.value_at_quantile(0.99)),
            p999: ms(h.value_at_quantile(0.999)),
            max: ms(h.max()),
            mean: h.mean() / 1000.0,
        }
    }
}

/// One second of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Second {
    /// Seconds since the run started (this entry covers `t_s` to `t_s + 1`).
    t_s: u64,
    ops: u64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

/// What a run measured (so far, while it runs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Results {
    /// Replies received.
    pub(super) requests: u64,
    /// Replies that were errors (e.g. OOM under noeviction).
    errors: u64,
    sets: u64,
    gets: u64,
    pub(super) elapsed_s: f64,
    pub(super) ops_per_sec: f64,
    latency_ms: Latency,
    timeline: Vec<Second>,
}

/// A run imported from `scripts/bench` (fields as it writes them; everything else in `extra`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Imported {
    pub(super) server: Option<String>,
    pub(super) load: Option<String>,
    pub(super) test: Option<String>,
    pub(super) ops_per_sec: Option<f64>,
    pub(super) p50_ms: Option<f64>,
    pub(super) p90_ms: Option<f64>,
    pub(super) p99_ms: Option<f64>,
    pub(super) p999_ms: Option<f64>,
    pub(super) max_ms: Option<f64>,
    pub(super) cpu_us_per_op: Option<f64>,
    #[serde(default)]
    pub(super) extra: Map<String, Json>,
    /// Identifies the entry, so importing the same file twice adds nothing.
    pub(super) fingerprint: String,
}

/// One benchmark run, running, finished or imported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Run {
    pub(crate) id: u64,
    pub(super) source: Source,
    pub(super) status: Status,
    pub(super) started_at_ms: u64,
    #[serde(default)]
    pub(super) finished_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) params: Option<BenchParams>,
    /// 0 to 1 while running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) progress: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) results: Option<Results>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) imported: Option<Imported>,
}

impl Run {
    /// The run without its per-second timeline (for listings).
    pub(super) fn summary(&self) -> Run {
        let mut run = self.clone();
        if let Some(r) = &mut run.results {
            r.timeline.clear();
        }
        run
    }
}

pub(super) fn new_histogram() -> Histogram<u32> {
    // 1 us to 60 s at 3 significant digits; constant bounds, so this cannot fail.
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// Per-second histograms as clients report them: recent seconds stay open (a client may
/// still report into them), older ones are summarized into `closed` and merged into `total`.
pub(super) struct Timeline {
    open: BTreeMap<u64, Histogram<u32>>,
    closed: Vec<Second>,
    total: Histogram<u32>,
}

impl Timeline {
    fn new() -> Timeline {
        Timeline { open: BTreeMap::new(), closed: Vec::new(), total: new_histogram() }
    }

    fn add(&mut self, t_s: u64, h: &Histogram<u32>) {
        if (t_s as usize) < self.closed.len() {
            // Reported late, after its second was summarized: counts, but only in totals.
            let _ = self.total.add(h);
            self.closed[t_s as usize].ops += h.len();
        } else {
            let slot = self.open.entry(t_s).or_insert_with(new_histogram);
            let _ = slot.add(h);
        }
        let newest = self.open.keys().next_back().copied().unwrap_or(0);
        self.close_before(newest.saturating_sub(OPEN_SECONDS));
    }

    /// Summarizes every open second before `t_s` (and any empty seconds between).
    pub(super) fn close_before(&mut self, t_s: u64) {
        while let Some((&s, _)) = self.open.first_key_value() {
            if s >= t_s {
                break;
            }
            let Some(h) = self.open.remove(&s) else { break };
            while (self.closed.len() as u64) < s {
                let gap = self.closed.len() as u64;
                self.closed.push(Second { t_s: gap, ..Second::default() });
            }
            let lat = Latency::of(&h);
            self.closed.push(Second { t_s: s, ops: h.len(), p50_ms: lat.p50, p99_ms: lat.p99, max_ms: lat.max });
            let _ = self.total.add(&h);
        }
    }

    /// Overall latency and the per-second timeline, open seconds included.
    fn view(&self) -> (Latency, Vec<Second>) {
        let mut total = self.total.clone();
        let mut timeline = self.closed.clone();
        for (&s, h) in &self.open {
            let _ = total.add(h);
            let lat = Latency::of(h);
            while (timeline.len() as u64) < s {
                let gap = timeline.len() as u64;
                timeline.push(Second { t_s: gap, ..Second::default() });
            }
            timeline.push(Second { t_s: s, ops: h.len(), p50_ms: lat.p50, p99_ms: lat.p99, max_ms: lat.max });
        }
        (Latency::of(&total), timeline)
    }
}

/// A run's shared, live state: counters the clients bump and the timeline they report to.
pub(super) struct Live {
    pub(super) started: Instant,
    pub(super) done: AtomicU64,
    pub(super) errors: AtomicU64,
    pub(super) sets: AtomicU64,
    pub(super) gets: AtomicU64,
    pub(super) timeline: Mutex<Timeline>,
}

impl Live {
    pub(super) fn new() -> Live {
        Live {
            started: Instant::now(),
            done: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            sets: AtomicU64::new(0),
            gets: AtomicU64::new(0),
            timeline: Mutex::new(Timeline::new()),
        }
    }

    pub(super) fn report(&self, t_s: u64, h: &mut Histogram<u32>) {
        if !h.is_empty() {
            self.timeline.lock().add(t_s, h);
            h.reset();
        }
    }

    pub(super) fn results(&self, elapsed: Duration) -> Results {
        let (latency_ms, timeline) = self.timeline.lock().view();
        let requests = self.done.load(Relaxed);
        let elapsed_s = elapsed.as_secs_f64();
        Results {
            requests,
            errors: self.errors.load(Relaxed),
            sets: self.sets.load(Relaxed),
            gets: self.gets.load(Relaxed),
            elapsed_s,
            ops_per_sec: if elapsed_s > 0.0 { requests as f64 / elapsed_s } else { 0.0 },
            latency_ms,
            timeline,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeline_summarizes_seconds_and_totals() {
        let mut t = Timeline::new();
        let mut h = new_histogram();
        for us in [100, 200, 300] {
            h.saturating_record(us);
        }
        t.add(0, &h);
        t.add(2, &h);
        t.add(7, &h); // closes seconds before 4
        assert_eq!(t.closed.len(), 3, "0, an empty 1, and 2");
        assert_eq!(t.closed[1].ops, 0);
        t.add(0, &h); // late: counted in the total and the closed second's ops
        assert_eq!(t.closed[0].ops, 6);
        let (lat, timeline) = t.view();
        assert_eq!(timeline.len(), 8);
        assert_eq!(timeline.iter().map(|s| s.ops).sum::<u64>(), 12);
        assert!((lat.p50 - 0.2).abs() < 0.01, "{lat:?}");
        assert!((lat.max - 0.3).abs() < 0.01, "{lat:?}");
    }
}
