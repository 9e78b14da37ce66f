//! The slow log and latency views (the dashboard's "Slow log" and "Latency" pages): what
//! SLOWLOG GET and LATENCY HISTOGRAM/LATEST answer, with the settings that shape them.

use serde::Serialize;
use ts_rs::TS;

use crate::engine::Engine;
use crate::table;
pub use crate::timing::SlowEntry;

/// The slow log, newest first, with its settings.
#[derive(Debug, Clone, Serialize, TS)]
pub struct SlowLogView {
    pub entries: Vec<SlowEntry>,
    /// Entries in the log (`entries` may be fewer: the view's count).
    pub len: u64,
    /// `slowlog-log-slower-than` (µs; -1: off, 0: every command).
    pub slower_than_us: i64,
    /// `slowlog-max-len`.
    pub max_len: u64,
    /// Whether the host lends the engine a clock (without one no command is timed).
    pub timed: bool,
}

/// The newest `count` slow log entries (`None`: all).
pub fn slowlog(engine: &Engine, count: Option<usize>) -> SlowLogView {
    let timing = engine.timing();
    let config = engine.config();
    SlowLogView {
        entries: timing.slowlog(count.unwrap_or(usize::MAX)),
        len: timing.slowlog_len() as u64,
        slower_than_us: config.slowlog_log_slower_than(),
        max_len: config.slowlog_max_len() as u64,
        timed: timing.enabled(),
    }
}

/// SLOWLOG RESET.
pub fn slowlog_reset(engine: &Engine) {
    engine.timing().slowlog_reset();
}

/// One command's latency: calls, p50/p99/p99.9 and its histogram.
#[derive(Debug, Clone, Serialize, TS)]
pub struct CommandLatency {
    /// Full lower-case name (`get`, `client|list`), as INFO names it.
    pub name: String,
    pub calls: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    /// (bucket's upper bound in µs, calls at or under it), cumulative, as LATENCY HISTOGRAM.
    pub buckets: Vec<(u64, u64)>,
}

/// One latency monitor event (LATENCY LATEST and HISTORY).
#[derive(Debug, Clone, Serialize, TS)]
pub struct LatencyEvent {
    pub name: String,
    /// (unix seconds, ms), oldest first.
    pub samples: Vec<(u64, u64)>,
    pub max_ms: u64,
}

/// Per-command latency distributions and the latency monitor's events.
#[derive(Debug, Clone, Serialize, TS)]
pub struct LatencyView {
    /// `latency-tracking`.
    pub tracking: bool,
    /// `latency-monitor-threshold` (ms; 0: the monitor is off).
    pub monitor_threshold_ms: u64,
    pub timed: bool,
    /// Every command timed since the last CONFIG RESETSTAT, most called first.
    pub commands: Vec<CommandLatency>,
    pub events: Vec<LatencyEvent>,
}

pub fn latency(engine: &Engine) -> LatencyView {
    let timing = engine.timing();
    let mut commands: Vec<CommandLatency> = table::rows()
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let h = timing.histogram(i)?;
            let p = timing.percentiles(i, &[50.0, 99.0, 99.9])?;
            Some(CommandLatency {
                name: row.name.to_ascii_lowercase(),
                calls: h.calls,
                p50_us: p[0].1,
                p99_us: p[1].1,
                p999_us: p[2].1,
                buckets: h.buckets,
            })
        })
        .collect();
    commands.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    let events = timing
        .latency_events()
        .into_iter()
        .map(|(name, s)| LatencyEvent { name, samples: s.samples().collect(), max_ms: s.max })
        .collect();
    LatencyView {
        tracking: engine.config().latency_tracking(),
        monitor_threshold_ms: engine.config().latency_monitor_threshold(),
        timed: timing.enabled(),
        commands,
        events,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestEngine;

    #[test]
    fn views_show_the_slow_log_and_each_commands_latency() {
        let mut t = TestEngine::default();
        t.clock.set_step(20_000);
        t.run(&["SET", "k", "v"]);
        t.run(&["GET", "k"]);
        t.run(&["GET", "k"]);
        let view = slowlog(&t.engine, Some(2));
        assert_eq!((view.len, view.entries.len(), view.slower_than_us, view.max_len), (3, 2, 10_000, 128));
        assert_eq!(view.entries[0].argv, vec![b"GET".to_vec(), b"k".to_vec()]);
        let json = serde_json::to_value(&view.entries[0]).unwrap();
        assert_eq!(json["argv"], serde_json::json!(["GET", "k"]));
        slowlog_reset(&t.engine);
        assert_eq!(slowlog(&t.engine, None).len, 0);
        let view = latency(&t.engine);
        let names: Vec<&str> = view.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["get", "set"]);
        // Two significant digits: the bucket's highest value, as Redis's hdr_value_at_percentile.
        assert_eq!(view.commands[0].calls, 2);
        assert!((20_000..20_200).contains(&view.commands[0].p99_us), "{:?}", view.commands[0]);
        assert_eq!(view.commands[0].buckets.last().map(|b| b.1), Some(2));
    }
}
