//! What command durations feed, beside INFO commandstats' `usec` (a [`PerCommand`] counter in
//! `Stats`): the slow log (SLOWLOG), the latency monitor's events (LATENCY LATEST/HISTORY),
//! per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats) and the error
//! counts by code (INFO errorstats). Dispatch measures each command once with the host's
//! [`Clock`] and reports here; the thresholds are the caller's (config) to pass.
//!
//! [`PerCommand`]: crate::stats::PerCommand

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use hdrhistogram::Histogram;
use parking_lot::Mutex;
use serde::Serialize;
use ts_rs::TS;

use crate::clock::Clock;
use crate::counter::{stripe, STRIPES};

/// Arguments a slow log entry keeps, and bytes per argument (Redis's
/// `SLOWLOG_ENTRY_MAX_ARGC` and `SLOWLOG_ENTRY_MAX_STRING`).
pub const SLOWLOG_MAX_ARGC: usize = 32;
pub const SLOWLOG_MAX_STRING: usize = 128;

/// Samples the latency monitor keeps per event (Redis's `LATENCY_TS_LEN`).
pub const LATENCY_SAMPLES: usize = 160;

/// Histogram bounds: 1 µs to 1 s with two significant digits, as Redis's (which counts
/// nanoseconds from 1 ns; the host's clock is in µs, so finer buckets would stay empty).
const HIST_MAX_US: u64 = 1_000_000;
const HIST_SIGFIG: u8 = 2;

/// Distinct error codes INFO errorstats counts (Redis stops tracking new ones past 128).
const MAX_ERROR_CODES: usize = 128;

/// One slow log entry, as SLOWLOG GET shows it.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct SlowEntry {
    pub id: u64,
    /// Unix seconds when the command ran.
    pub time: u64,
    pub duration_us: u64,
    /// The arguments, cut as Redis cuts them (binary arguments shown lossily in JSON).
    #[serde(serialize_with = "lossy")]
    #[ts(type = "string[]")]
    pub argv: Vec<Vec<u8>>,
    pub client_addr: String,
    pub client_name: String,
}

fn lossy<S: serde::Serializer>(argv: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(argv.iter().map(|a| String::from_utf8_lossy(a)))
}

/// One latency event's samples: (unix seconds, ms) oldest first, and the all-time max.
#[derive(Debug, Clone, Default)]
pub struct LatencySeries {
    samples: VecDeque<(u64, u64)>,
    pub max: u64,
}

impl LatencySeries {
    pub fn samples(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.samples.iter().copied()
    }

    pub fn latest(&self) -> (u64, u64) {
        self.samples.back().copied().unwrap_or((0, 0))
    }

    /// Adds a sample; one per second, the higher one kept (Redis's `latencyAddSample`).
    fn add(&mut self, now_s: u64, ms: u64) {
        self.max = self.max.max(ms);
        if let Some(last) = self.samples.back_mut().filter(|s| s.0 == now_s) {
            last.1 = last.1.max(ms);
            return;
        }
        if self.samples.len() == LATENCY_SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back((now_s, ms));
    }
}

type Hist = Histogram<u32>;
/// A command's histogram on one stripe, allocated on its first call there.
type Slot = Mutex<Option<Box<Hist>>>;

/// Per-command histograms, striped per thread like the counters (one lock per stripe and
/// row, so threads timing the same command never meet), each allocated on first use.
struct Histograms {
    stripes: Box<[Box<[Slot]>]>,
}

impl Histograms {
    fn new(commands: usize) -> Histograms {
        let stripe = || (0..commands).map(|_| Mutex::new(None)).collect();
        Histograms { stripes: (0..STRIPES).map(|_| stripe()).collect() }
    }

    /// Records `n` durations of `us` (clamped to the histogram's bounds).
    fn record_n(&self, command: usize, us: u64, n: u64) {
        let Some(slot) = self.stripes[stripe()].get(command) else { return };
        let mut slot = slot.lock();
        let h = slot.get_or_insert_with(|| Box::new(new_hist()));
        h.saturating_record_n(clamp_us(us), u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// The command's stripes merged, `None` if it was never timed.
    fn merged(&self, command: usize) -> Option<Hist> {
        let mut out: Option<Hist> = None;
        for s in self.stripes.iter() {
            if let Some(h) = s.get(command).and_then(|slot| slot.lock().clone()) {
                match &mut out {
                    Some(o) => {
                        let _ = o.add(&*h);
                    }
                    None => out = Some(*h),
                }
            }
        }
        out
    }

    fn reset(&self) {
        for s in self.stripes.iter() {
            for slot in s.iter() {
                *slot.lock() = None;
            }
        }
    }
}

/// A duration as the histograms hold it: 1 µs to `HIST_MAX_US`.
fn clamp_us(us: u64) -> u64 {
    us.clamp(1, HIST_MAX_US)
}

fn new_hist() -> Hist {
    // The bounds are constants known to be valid.
    Histogram::new_with_bounds(1, HIST_MAX_US, HIST_SIGFIG)
        .unwrap_or_else(|_| Histogram::new(HIST_SIGFIG).expect("sigfig 2"))
}

/// A command's latency distribution: calls, and cumulative counts at doubling bucket bounds
/// (µs), as LATENCY HISTOGRAM gives them.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct LatencyHistogram {
    pub calls: u64,
    /// (bucket's upper bound in µs, calls at or under it), only where the count grows.
    pub buckets: Vec<(u64, u64)>,
}

/// The slow log, the latency monitor, the histograms and the error counts.
pub struct Timing {
    clock: OnceLock<Arc<dyn Clock>>,
    slowlog: Mutex<VecDeque<SlowEntry>>,
    next_slow_id: AtomicU64,
    events: Mutex<Vec<(String, LatencySeries)>>,
    histograms: Histograms,
    errors: Mutex<BTreeMap<String, u64>>,
}

/// What to record a command's duration with (the config's settings at the time).
pub struct SlowLogSettings {
    /// µs; negative: off.
    pub slower_than: i64,
    pub max_len: usize,
}

impl Timing {
    pub fn new(commands: usize) -> Timing {
        Timing {
            clock: OnceLock::new(),
            slowlog: Mutex::new(VecDeque::new()),
            next_slow_id: AtomicU64::new(0),
            events: Mutex::new(Vec::new()),
            histograms: Histograms::new(commands),
            errors: Mutex::new(BTreeMap::new()),
        }
    }

    /// Sets the host's clock (the first one set stays).
    pub fn set_clock(&self, clock: Arc<dyn Clock>) {
        let _ = self.clock.set(clock);
    }

    /// Whether durations are measured (a clock was set).
    pub fn enabled(&self) -> bool {
        self.clock.get().is_some()
    }

    /// The host's clock, for what must read it outside dispatch (a script's VM hook, a
    /// FUNCTION LOAD's time limit).
    #[cfg_attr(not(feature = "scripting"), allow(dead_code))]
    pub(crate) fn clock(&self) -> Option<Arc<dyn Clock>> {
        self.clock.get().cloned()
    }

    /// The clock's reading, 0 without one.
    #[inline]
    pub fn now_us(&self) -> u64 {
        self.clock.get().map_or(0, |c| c.now_us())
    }

    /// Logs a command if it took at least `slower_than` µs, then trims to `max_len`.
    pub fn slowlog_push(
        &self,
        settings: &SlowLogSettings,
        argv: &[&[u8]],
        duration_us: u64,
        now_ms: u64,
        client: (&str, &str),
    ) {
        if settings.slower_than < 0 {
            return;
        }
        let mut log = self.slowlog.lock();
        if duration_us >= settings.slower_than as u64 {
            log.push_front(SlowEntry {
                id: self.next_slow_id.fetch_add(1, Relaxed),
                time: now_ms / 1000,
                duration_us,
                argv: slowlog_argv(argv),
                client_addr: client.0.to_string(),
                client_name: client.1.to_string(),
            });
        }
        log.truncate(settings.max_len);
    }

    /// The newest `count` entries, newest first.
    pub fn slowlog(&self, count: usize) -> Vec<SlowEntry> {
        self.slowlog.lock().iter().take(count).cloned().collect()
    }

    pub fn slowlog_len(&self) -> usize {
        self.slowlog.lock().len()
    }

    pub fn slowlog_reset(&self) {
        self.slowlog.lock().clear();
    }

    /// Adds a latency sample (ms) to `event`, at unix second `now_s`.
    pub fn latency_add(&self, event: &str, now_s: u64, ms: u64) {
        let mut events = self.events.lock();
        match events.iter_mut().find(|(name, _)| name == event) {
            Some((_, series)) => series.add(now_s, ms),
            None => {
                let mut series = LatencySeries::default();
                series.add(now_s, ms);
                events.push((event.to_string(), series));
            }
        }
    }

    /// Every event with its samples, in the order they were first seen.
    pub fn latency_events(&self) -> Vec<(String, LatencySeries)> {
        self.events.lock().clone()
    }

    pub fn latency_event(&self, event: &str) -> Option<LatencySeries> {
        self.events.lock().iter().find(|(name, _)| name == event).map(|(_, s)| s.clone())
    }

    /// Forgets the events named (ignoring case; all with `None`); how many were forgotten.
    pub fn latency_reset(&self, event: Option<&[u8]>) -> usize {
        let mut events = self.events.lock();
        let before = events.len();
        events.retain(|(name, _)| event.is_some_and(|e| !name.as_bytes().eq_ignore_ascii_case(e)));
        before - events.len()
    }

    /// Adds `n` calls of the command at row `command` that took `duration_us` each to its
    /// histogram (dispatch hands over runs of equal durations: see [`CallTally`]).
    pub fn record_histogram_n(&self, command: usize, duration_us: u64, n: u64) {
        self.histograms.record_n(command, duration_us, n);
    }

    /// The command's histogram, `None` if it was never timed.
    pub fn histogram(&self, command: usize) -> Option<LatencyHistogram> {
        let h = self.histograms.merged(command)?;
        let mut buckets = Vec::new();
        let mut cumulative = 0;
        for v in h.iter_log(1, 2.0) {
            let before = cumulative;
            cumulative += v.count_since_last_iteration();
            if cumulative > before {
                buckets.push((h.highest_equivalent(v.value_iterated_to()), cumulative));
            }
        }
        Some(LatencyHistogram { calls: h.len(), buckets })
    }

    /// The command's latency at each percentile (µs), `None` if it was never timed.
    pub fn percentiles(&self, command: usize, percentiles: &[f64]) -> Option<Vec<(f64, u64)>> {
        let h = self.histograms.merged(command)?;
        Some(percentiles.iter().map(|&p| (p, h.value_at_percentile(p))).collect())
    }

    /// Counts an error reply by its code (the text up to the first space, within 32 bytes;
    /// `ERR` otherwise, as Redis's `afterErrorReply`).
    pub fn count_error(&self, text: &str) {
        let head = &text.as_bytes()[..text.len().min(32)];
        let code = match head.iter().position(|&b| b == b' ') {
            Some(at) if at > 0 => &text[..at],
            _ => "ERR",
        };
        let mut errors = self.errors.lock();
        if let Some(n) = errors.get_mut(code) {
            *n += 1;
        } else if errors.len() < MAX_ERROR_CODES {
            errors.insert(code.to_string(), 1);
        }
    }

    /// Error counts by code, in code order (as Redis's rax iterates them).
    pub fn errors(&self) -> Vec<(String, u64)> {
        self.errors.lock().iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    /// `CONFIG RESETSTAT`: the histograms and error counts (the slow log and the latency
    /// events have their own RESET, as in Redis).
    pub fn reset_stats(&self) {
        self.histograms.reset();
        self.errors.lock().clear();
    }
}

/// Whether argument `j` is a secret Redis keeps out of the slow log (`redactClientCommandArgument`):
/// every argument of ACL SETUSER after the subcommand (passwords are rules).
fn redacted(argv: &[&[u8]], j: usize) -> bool {
    j >= 2
        && argv[0].eq_ignore_ascii_case(b"ACL")
        && argv.get(1).is_some_and(|sub| sub.eq_ignore_ascii_case(b"SETUSER"))
}

/// The arguments a slow log entry keeps: at most 32 (the last one then says how many more
/// there were), each cut at 128 bytes with how many more there were, secrets redacted.
fn slowlog_argv(argv: &[&[u8]]) -> Vec<Vec<u8>> {
    let kept = argv.len().min(SLOWLOG_MAX_ARGC);
    (0..kept)
        .map(|j| {
            if redacted(argv, j) {
                b"(redacted)".to_vec()
            } else if kept != argv.len() && j == kept - 1 {
                format!("... ({} more arguments)", argv.len() - kept + 1).into_bytes()
            } else if argv[j].len() > SLOWLOG_MAX_STRING {
                let mut a = argv[j][..SLOWLOG_MAX_STRING].to_vec();
                a.extend_from_slice(format!("... ({} more bytes)", argv[j].len() - SLOWLOG_MAX_STRING).as_bytes());
                a
            } else {
                argv[j].to_vec()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowlog_arguments_are_cut_as_redis_cuts_them() {
        let long = [b'x'; 200];
        let args: Vec<&[u8]> = std::iter::once(&b"RPUSH"[..]).chain(std::iter::repeat_n(&long[..], 40)).collect();
        let cut = slowlog_argv(&args);
        assert_eq!(cut.len(), 32);
        assert_eq!(cut[0], b"RPUSH");
        let mut want = vec![b'x'; 128];
        want.extend_from_slice(b"... (72 more bytes)");
        assert_eq!(cut[1], want);
        assert_eq!(cut[31], b"... (10 more arguments)");
        assert_eq!(slowlog_argv(&[b"GET", b"k"]), vec![b"GET".to_vec(), b"k".to_vec()]);
        let setuser = slowlog_argv(&[b"acl", b"setuser", b"bob", b">secret"]);
        assert_eq!(
            setuser,
            [&b"acl"[..], b"setuser", b"(redacted)", b"(redacted)"],
            "ACL SETUSER's rules hold passwords"
        );
    }

    #[test]
    fn latency_series_keeps_one_sample_a_second_and_160_at_most() {
        let t = Timing::new(1);
        t.latency_add("command", 100, 5);
        t.latency_add("command", 100, 3);
        t.latency_add("command", 100, 9);
        let s = t.latency_event("command").unwrap();
        assert_eq!(s.samples().collect::<Vec<_>>(), vec![(100, 9)]);
        for i in 0..200 {
            t.latency_add("command", 101 + i, 1);
        }
        let s = t.latency_event("command").unwrap();
        assert_eq!(s.samples().count(), LATENCY_SAMPLES);
        assert_eq!((s.max, s.latest()), (9, (300, 1)));
        assert_eq!(t.latency_reset(Some(b"COMMAND")), 1);
        assert_eq!(t.latency_reset(None), 0);
    }

    #[test]
    fn error_codes_are_the_first_word_or_err() {
        let t = Timing::new(1);
        t.count_error("WRONGTYPE Operation against a key holding the wrong kind of value");
        t.count_error("ERR syntax error");
        t.count_error("ERR x");
        t.count_error("nospace");
        assert_eq!(t.errors(), vec![("ERR".into(), 3), ("WRONGTYPE".into(), 1)]);
    }

    #[test]
    fn histograms_merge_every_threads_calls() {
        let t = Timing::new(2);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    for us in [1, 3, 100, 5000] {
                        t.record_histogram_n(1, us, 1);
                    }
                });
            }
        });
        let h = t.histogram(1).unwrap();
        assert_eq!(h.calls, 12);
        assert_eq!(h.buckets.last().map(|b| b.1), Some(12));
        assert!(h.buckets.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        assert!(t.histogram(0).is_none());
        let p = t.percentiles(1, &[50.0, 100.0]).unwrap();
        assert!(p[0].1 <= 4 && p[1].1 >= 4950, "{p:?}");
        t.reset_stats();
        assert!(t.histogram(1).is_none());
    }
}

/// One connection's calls not yet added to the shared counters: INFO commandstats' `calls`
/// and `usec`, the latency histograms, `total_commands_processed`. A pipelined batch is
/// mostly one command over and over (16 GETs), and each shared update costs an atomic
/// read-modify-write (a striped counter, a histogram's lock): five of them per command
/// were a tenth of a GET's time at pipeline 16. So dispatch adds to this tally while the
/// command stays the same, and `Engine::flush_calls` adds it to the shared figures when
/// the command changes, when `feed` returns, and before a command that may read them (any
/// command without keys: INFO, LATENCY, COMMAND, CONFIG RESETSTAT). Other connections see a
/// batch's calls when the batch ends, as they would see them a few µs later anyway.
#[derive(Debug, Default)]
pub struct CallTally {
    /// The command's row; `calls` == 0 means the tally is empty.
    pub(crate) command: usize,
    pub(crate) calls: u64,
    pub(crate) usec: u64,
    /// A run of `hist_n` equal durations (µs, clamped) not yet in the histogram.
    hist_us: u64,
    hist_n: u64,
    /// Commands dispatched (known or not), for `total_commands_processed`.
    pub(crate) processed: u64,
}

impl CallTally {
    /// Adds one duration to the histogram run; a different duration first hands the run
    /// to `flush` (timed commands at pipeline 16 take 0-1 µs, so runs are long).
    pub(crate) fn add_duration(&mut self, timing: &Timing, us: u64) {
        let us = clamp_us(us);
        if self.hist_n > 0 && self.hist_us != us {
            self.flush_histogram(timing);
        }
        self.hist_us = us;
        self.hist_n += 1;
    }

    pub(crate) fn flush_histogram(&mut self, timing: &Timing) {
        if self.hist_n > 0 {
            timing.record_histogram_n(self.command, self.hist_us, self.hist_n);
            self.hist_n = 0;
        }
    }
}
