//! The built-in benchmark runner: a real load generator inside the server process. Each client
//! is a tokio task with its own TCP connection to the server's RESP port over loopback, so a
//! run measures the whole network path (syscalls, framing, dispatch) as redis-benchmark does,
//! not just the engine.
//!
//! A client sends `pipeline` commands at once (SET or GET chosen by the SET:GET ratio, keys
//! `bench:<12 digits>` drawn uniformly from the key space, values of `value_size` bytes of
//! `x`), then reads as many replies; each reply's latency is the time from sending its batch
//! to parsing it (redis-benchmark's and memtier's definition). Latencies go into HDR
//! histograms (microseconds, 3 significant digits), one per second of the run, so results
//! give both p50/p90/p99/p99.9/max overall and a per-second timeline.
//!
//! Only one run at a time. Finished runs, and runs imported from `scripts/bench`'s JSON, are
//! kept in `<dir>/vitrine-bench.json` so the history survives a restart. The history is
//! bounded in runs ([`MAX_HISTORY`]) and in bytes of JSON ([`MAX_HISTORY_BYTES`], in memory
//! and on disk alike), the oldest runs dropped first. The keys a run
//! writes stay in the cache afterwards, as with redis-benchmark.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use hdrhistogram::Histogram;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::{info, warn};
use vitrine_engine::Engine;

use crate::config::write_atomically;
use crate::now_ms;

/// The history file's name inside `--dir`.
pub const HISTORY_FILE: &str = "vitrine-bench.json";
/// Runs kept in the history (oldest dropped first).
pub const MAX_HISTORY: usize = 500;
/// Bytes of JSON the kept runs may take together (oldest dropped first); the history file is
/// this and a few bytes of framing. An hour-long built-in run takes about 0.5 MB; imports of
/// `scripts/bench` results a few KB a run. An import larger than this alone is refused.
pub const MAX_HISTORY_BYTES: usize = 4 * 1024 * 1024;
/// Most entries one import may add.
pub const MAX_IMPORT: usize = 10_000;
/// Longest a client waits for the server on one read or write before the run fails.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Key names: this prefix and 12 digits, as redis-benchmark's `key:__rand_int__`.
const KEY_PREFIX: &[u8] = b"bench:";
const KEY_DIGITS: usize = 12;
/// Seconds of the timeline kept as histograms before being summarized; clients report each
/// second when their next batch ends, so a second is complete a little after it passes.
const OPEN_SECONDS: u64 = 3;

/// Bounds on a run's parameters.
pub mod limits {
    pub const CLIENTS: (u32, u32) = (1, 512);
    pub const PIPELINE: (u32, u32) = (1, 1000);
    /// clients x pipeline: requests in flight at once.
    pub const IN_FLIGHT: u64 = 20_000;
    pub const VALUE_SIZE: (usize, usize) = (1, 1024 * 1024);
    /// clients x pipeline x value size: bytes of values in flight at once.
    pub const IN_FLIGHT_BYTES: u64 = 256 * 1024 * 1024;
    pub const KEY_SPACE: (u64, u64) = (1, 1_000_000_000_000);
    pub const DURATION_S: (u64, u64) = (1, 3600);
    pub const REQUESTS: (u64, u64) = (1, 1_000_000_000);
    /// Each side of the SET:GET ratio.
    pub const RATIO_PART: u32 = 1000;
}

/// What `POST /api/bench` accepts; every field optional (defaults as redis-benchmark's
/// where it has one).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchRequest {
    pub clients: Option<u32>,
    pub pipeline: Option<u32>,
    /// `"SET:GET"`, e.g. `"1:10"` (memtier's `--ratio`).
    pub ratio: Option<String>,
    pub value_size: Option<usize>,
    pub key_space: Option<u64>,
    /// Run for this many seconds...
    pub duration_s: Option<u64>,
    /// ...or until this many requests are answered (give one of the two).
    pub requests: Option<u64>,
}

/// A run's validated parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchParams {
    pub clients: u32,
    pub pipeline: u32,
    pub ratio: String,
    pub value_size: usize,
    pub key_space: u64,
    pub duration_s: Option<u64>,
    pub requests: Option<u64>,
}

fn in_range<T: PartialOrd + std::fmt::Display + Copy>(name: &str, v: T, (lo, hi): (T, T)) -> Result<T, String> {
    if v < lo || v > hi {
        Err(format!("{name} must be between {lo} and {hi}"))
    } else {
        Ok(v)
    }
}

/// Parses `"SET:GET"` into its two parts.
pub fn parse_ratio(ratio: &str) -> Result<(u32, u32), String> {
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
    pub fn validate(self) -> Result<BenchParams, String> {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Running,
    Completed,
    Cancelled,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Run by this server's runner.
    Builtin,
    /// Imported from `scripts/bench` output.
    Imported,
}

/// Latency summary in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
    pub mean: f64,
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
pub struct Second {
    /// Seconds since the run started (this entry covers `t_s` to `t_s + 1`).
    pub t_s: u64,
    pub ops: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// What a run measured (so far, while it runs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// Replies received.
    pub requests: u64,
    /// Replies that were errors (e.g. OOM under noeviction).
    pub errors: u64,
    pub sets: u64,
    pub gets: u64,
    pub elapsed_s: f64,
    pub ops_per_sec: f64,
    pub latency_ms: Latency,
    pub timeline: Vec<Second>,
}

/// A run imported from `scripts/bench` (fields as it writes them; everything else in `extra`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Imported {
    pub server: Option<String>,
    pub load: Option<String>,
    pub test: Option<String>,
    pub ops_per_sec: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p90_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub cpu_us_per_op: Option<f64>,
    #[serde(default)]
    pub extra: Map<String, Json>,
    /// Identifies the entry, so importing the same file twice adds nothing.
    pub fingerprint: String,
}

/// One benchmark run, running, finished or imported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: u64,
    pub source: Source,
    pub status: Status,
    pub started_at_ms: u64,
    #[serde(default)]
    pub finished_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<BenchParams>,
    /// 0 to 1 while running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Results>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<Imported>,
}

impl Run {
    /// The run without its per-second timeline (for listings).
    pub fn summary(&self) -> Run {
        let mut run = self.clone();
        if let Some(r) = &mut run.results {
            r.timeline.clear();
        }
        run
    }
}

fn new_histogram() -> Histogram<u32> {
    // 1 us to 60 s at 3 significant digits; constant bounds, so this cannot fail.
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

/// Per-second histograms as clients report them: recent seconds stay open (a client may
/// still report into them), older ones are summarized into `closed` and merged into `total`.
struct Timeline {
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
    fn close_before(&mut self, t_s: u64) {
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
struct Live {
    started: Instant,
    done: AtomicU64,
    errors: AtomicU64,
    sets: AtomicU64,
    gets: AtomicU64,
    timeline: Mutex<Timeline>,
}

impl Live {
    fn new() -> Live {
        Live {
            started: Instant::now(),
            done: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            sets: AtomicU64::new(0),
            gets: AtomicU64::new(0),
            timeline: Mutex::new(Timeline::new()),
        }
    }

    fn report(&self, t_s: u64, h: &mut Histogram<u32>) {
        if !h.is_empty() {
            self.timeline.lock().add(t_s, h);
            h.reset();
        }
    }

    fn results(&self, elapsed: Duration) -> Results {
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

/// The run in progress.
struct Active {
    run: Run,
    live: Arc<Live>,
    cancel: watch::Sender<bool>,
}

impl Active {
    fn view(&self) -> Run {
        let mut run = self.run.clone();
        let results = self.live.results(self.live.started.elapsed());
        let params = run.params.as_ref();
        let progress = match (params.and_then(|p| p.duration_s), params.and_then(|p| p.requests)) {
            (Some(d), _) => results.elapsed_s / d as f64,
            (None, Some(n)) => results.requests as f64 / n as f64,
            _ => 0.0,
        };
        run.progress = Some(progress.clamp(0.0, 1.0));
        run.results = Some(results);
        run
    }
}

#[derive(Default)]
struct Book {
    /// Finished and imported runs, oldest first.
    runs: Vec<Run>,
    next_id: u64,
    active: Option<Active>,
}

impl Book {
    fn take_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn push(&mut self, run: Run) {
        self.runs.push(run);
        trim(&mut self.runs);
    }
}

/// Drops the oldest runs until at most [`MAX_HISTORY`] remain and their JSON takes at most
/// [`MAX_HISTORY_BYTES`].
fn trim(runs: &mut Vec<Run>) {
    let mut bytes = 0;
    let mut keep = 0;
    for run in runs.iter().rev() {
        // The comma between runs in the file.
        let size = json_len(run) + 1;
        if keep == MAX_HISTORY || bytes + size > MAX_HISTORY_BYTES {
            break;
        }
        bytes += size;
        keep += 1;
    }
    let excess = runs.len() - keep;
    runs.drain(..excess);
}

/// The length of `value` as compact JSON, counted without building the text.
fn json_len<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing plain data into a writer that cannot fail cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The file's shape.
#[derive(Serialize, Deserialize)]
struct HistoryFile {
    version: u32,
    runs: Vec<Run>,
}

/// Why a run could not start.
#[derive(Debug, PartialEq, Eq)]
pub enum StartError {
    /// Another run (this id) is going.
    Busy(u64),
}

/// Why an import was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum ImportError {
    /// The document is not `scripts/bench`'s JSON; says what is wrong.
    Invalid(String),
    /// Its runs alone would take more than [`MAX_HISTORY_BYTES`].
    TooLarge,
}

/// Why a run could not be cancelled.
#[derive(Debug, PartialEq, Eq)]
pub enum CancelError {
    NotFound,
    Finished(Status),
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub struct ImportSummary {
    pub imported: usize,
    pub duplicates: usize,
    pub ids: Vec<u64>,
}

/// The runner and its history.
pub struct Bench {
    book: Mutex<Book>,
    /// Held while the history file is written, so writes never interleave.
    file_lock: Mutex<()>,
    path: PathBuf,
    target: SocketAddr,
    engine: Arc<Engine>,
    shutdown: watch::Receiver<bool>,
}

impl Bench {
    /// Reads the history from `<dir>/vitrine-bench.json`. A missing file is an empty
    /// history; one that cannot be read is moved aside (`.corrupt-<ms>`) with a warning so
    /// the next save does not destroy it.
    pub fn load(dir: &Path, target: SocketAddr, engine: Arc<Engine>, shutdown: watch::Receiver<bool>) -> Bench {
        let path = dir.join(HISTORY_FILE);
        let mut runs = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<HistoryFile>(&bytes) {
                Ok(file) => file.runs,
                Err(e) => {
                    let aside = path.with_extension(format!("json.corrupt-{}", now_ms()));
                    warn!("cannot read benchmark history {}: {e}; moving it to {}", path.display(), aside.display());
                    if let Err(e) = std::fs::rename(&path, &aside) {
                        warn!("cannot move {}: {e}", path.display());
                    }
                    Vec::new()
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                warn!("cannot read benchmark history {}: {e}", path.display());
                Vec::new()
            }
        };
        let next_id = runs.iter().map(|r| r.id).max().unwrap_or(0);
        // A file from before the bounds, or edited by hand, is cut down on the next save.
        trim(&mut runs);
        Bench {
            book: Mutex::new(Book { runs, next_id, active: None }),
            file_lock: Mutex::new(()),
            path,
            target,
            engine,
            shutdown,
        }
    }

    /// Writes the history file, with `finished` added to the history first when given (so a
    /// run reads as finished only once it is on disk). Blocking: call from `spawn_blocking`.
    fn persist(&self, finished: Option<Run>) -> anyhow::Result<()> {
        // Held through the write and the update below, so a concurrent save (an import)
        // always sees the finished run.
        let _writing = self.file_lock.lock();
        let text = {
            let book = self.book.lock();
            let mut runs = book.runs.clone();
            runs.extend(finished.iter().cloned());
            trim(&mut runs);
            // Compact, so the file is as large as the bound counts.
            serde_json::to_string(&HistoryFile { version: 1, runs })?
        };
        let written = (|| {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            write_atomically(&self.path, &text)
        })();
        if let Some(run) = finished {
            let mut book = self.book.lock();
            book.active = None;
            book.push(run);
        }
        written
    }

    /// `persist` off the async threads; a failure to write is logged (the history stays in
    /// memory).
    async fn persist_in_background(self: &Arc<Self>, finished: Option<Run>) {
        let bench = self.clone();
        match tokio::task::spawn_blocking(move || bench.persist(finished)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => warn!("cannot save benchmark history to {}: {e:#}", self.path.display()),
            Err(e) => {
                warn!("cannot save benchmark history: {e}");
                // Never leave the runner looking busy forever.
                self.book.lock().active = None;
            }
        }
    }

    /// Starts a run unless one is going. Answers the new run.
    pub fn start(self: &Arc<Self>, params: BenchParams) -> Result<Run, StartError> {
        let mut book = self.book.lock();
        if let Some(active) = &book.active {
            return Err(StartError::Busy(active.run.id));
        }
        let id = book.take_id();
        let run = Run {
            id,
            source: Source::Builtin,
            status: Status::Running,
            started_at_ms: now_ms(),
            finished_at_ms: None,
            params: Some(params.clone()),
            progress: Some(0.0),
            results: None,
            error: None,
            imported: None,
        };
        let live = Arc::new(Live::new());
        let (cancel, cancel_rx) = watch::channel(false);
        book.active = Some(Active { run: run.clone(), live: live.clone(), cancel });
        drop(book);
        info!(id, ?params, "benchmark run started");
        let bench = self.clone();
        tokio::spawn(async move { bench.execute(id, params, live, cancel_rx).await });
        Ok(run)
    }

    async fn execute(self: Arc<Self>, id: u64, params: BenchParams, live: Arc<Live>, cancel: watch::Receiver<bool>) {
        let password = self.engine.config().requirepass();
        let outcome = drive(self.target, &params, live.clone(), cancel.clone(), self.shutdown.clone(), password).await;
        let elapsed = live.started.elapsed();
        live.timeline.lock().close_before(u64::MAX);
        let results = live.results(elapsed);
        let cancelled = *cancel.borrow() || *self.shutdown.borrow();
        let (status, error) = match outcome {
            Err(e) if !cancelled => (Status::Failed, Some(e)),
            _ if cancelled => (Status::Cancelled, None),
            _ => (Status::Completed, None),
        };
        info!(id, ?status, ops_per_sec = results.ops_per_sec as u64, "benchmark run finished");
        let Some(started) = self.book.lock().active.as_ref().map(|a| a.run.clone()) else { return };
        let run =
            Run { status, finished_at_ms: Some(now_ms()), progress: None, results: Some(results), error, ..started };
        self.persist_in_background(Some(run)).await;
    }

    /// Every run, newest first (the running one, if any, first), without timelines.
    pub fn list(&self) -> Vec<Run> {
        let book = self.book.lock();
        let mut runs: Vec<Run> = book.active.iter().map(|a| a.view().summary()).collect();
        runs.extend(book.runs.iter().rev().map(Run::summary));
        runs
    }

    /// One run with its timeline (live figures while it runs).
    pub fn get(&self, id: u64) -> Option<Run> {
        let book = self.book.lock();
        if let Some(active) = book.active.as_ref().filter(|a| a.run.id == id) {
            return Some(active.view());
        }
        book.runs.iter().find(|r| r.id == id).cloned()
    }

    /// Whether run `id` is the one going now.
    pub fn is_running(&self, id: u64) -> bool {
        self.book.lock().active.as_ref().is_some_and(|a| a.run.id == id)
    }

    /// Asks run `id` to stop; its clients finish their current batch and it is recorded as
    /// cancelled.
    pub fn cancel(&self, id: u64) -> Result<(), CancelError> {
        let book = self.book.lock();
        match &book.active {
            Some(active) if active.run.id == id => {
                active.cancel.send_replace(true);
                Ok(())
            }
            _ => match book.runs.iter().find(|r| r.id == id) {
                Some(run) => Err(CancelError::Finished(run.status)),
                None => Err(CancelError::NotFound),
            },
        }
    }

    /// Stops the run in progress, if any (at shutdown).
    pub fn cancel_active(&self) {
        if let Some(active) = &self.book.lock().active {
            active.cancel.send_replace(true);
        }
    }

    /// Adds the runs in `scripts/bench`'s JSON: a list of objects, or an object holding one
    /// under `runs` or `results`. Known fields (`server`, `load`, `test`, `ops_per_sec`,
    /// `p50_ms`, `p90_ms`, `p99_ms`, `p999_ms`, `max_ms`, `cpu_us_per_op`) are read leniently
    /// (numbers may be strings); the rest is kept in `extra`. Entries already imported are
    /// skipped. The error says what is wrong with the document, or that its runs alone are
    /// more than the history keeps.
    pub async fn import(self: &Arc<Self>, doc: Json) -> Result<ImportSummary, ImportError> {
        // scripts/bench writes {"schema", "id", "started_at", "git", ..., "runs": [...]}: each
        // run is kept with the document's id, time and commit so runs from different
        // harness runs stay apart.
        let mut context = Map::new();
        let items = match doc {
            Json::Array(items) => items,
            Json::Object(mut map) => match map.remove("runs").or_else(|| map.remove("results")) {
                Some(Json::Array(items)) => {
                    for (from, to) in [("id", "bench_id"), ("started_at", "started_at"), ("schema", "schema")] {
                        if let Some(v) = map.get(from).filter(|v| v.is_string()) {
                            context.insert(to.to_string(), v.clone());
                        }
                    }
                    if let Some(commit) = map.get("git").and_then(|g| g.get("commit")).filter(|c| c.is_string()) {
                        context.insert("git_commit".to_string(), commit.clone());
                    }
                    items
                }
                _ => return Err(invalid("expected a list of runs, or an object with a \"runs\" list")),
            },
            _ => return Err(invalid("expected a list of runs, or an object with a \"runs\" list")),
        };
        if items.is_empty() {
            return Err(invalid("there are no runs to import"));
        }
        if items.len() > MAX_IMPORT {
            return Err(invalid(format!("at most {MAX_IMPORT} runs can be imported at once")));
        }
        let mut parsed = Vec::with_capacity(items.len());
        // Counted as each run is made: the document's context is copied into every run, so
        // a small body could otherwise grow into gigabytes before anything was measured.
        let mut bytes = 0;
        for (i, item) in items.into_iter().enumerate() {
            let Json::Object(mut map) = item else { return Err(invalid(format!("run {i} is not an object"))) };
            for (k, v) in &context {
                map.entry(k.clone()).or_insert_with(|| v.clone());
            }
            let (imported, at_ms) = imported_from(map);
            bytes += json_len(&imported) + IMPORTED_RUN_FRAME;
            if bytes > MAX_HISTORY_BYTES {
                return Err(ImportError::TooLarge);
            }
            parsed.push((imported, at_ms));
        }
        let now = now_ms();
        let summary = {
            let mut book = self.book.lock();
            let mut summary = ImportSummary { imported: 0, duplicates: 0, ids: Vec::new() };
            for (imported, at_ms) in parsed {
                let known = book
                    .runs
                    .iter()
                    .any(|r| r.imported.as_ref().is_some_and(|x| x.fingerprint == imported.fingerprint));
                if known {
                    summary.duplicates += 1;
                    continue;
                }
                let id = book.take_id();
                // Trimmed once after the loop: `push` would measure the history every time.
                book.runs.push(Run {
                    id,
                    source: Source::Imported,
                    status: Status::Completed,
                    started_at_ms: at_ms.unwrap_or(now),
                    finished_at_ms: Some(at_ms.unwrap_or(now)),
                    params: None,
                    progress: None,
                    results: None,
                    error: None,
                    imported: Some(imported),
                });
                summary.imported += 1;
                summary.ids.push(id);
            }
            trim(&mut book.runs);
            summary
        };
        if summary.imported > 0 {
            self.persist_in_background(None).await;
        }
        Ok(summary)
    }
}

fn invalid(message: impl Into<String>) -> ImportError {
    ImportError::Invalid(message.into())
}

/// What an imported run's JSON adds to its `imported` part in the history (id, source,
/// status, times): an upper bound, so an accepted import always fits.
const IMPORTED_RUN_FRAME: usize = 160;

/// An imported entry's fields, and its time if it names one (`timestamp_ms`, `started_at_ms`,
/// unix seconds in `timestamp`, or an ISO 8601 UTC `started_at`).
fn imported_from(mut map: Map<String, Json>) -> (Imported, Option<u64>) {
    let fingerprint = format!("{:016x}", fnv1a(serde_json::to_string(&map).unwrap_or_default().as_bytes()));
    let mut text = |name: &str| match map.remove(name) {
        Some(Json::String(s)) => Some(s),
        Some(Json::Number(n)) => Some(n.to_string()),
        Some(other) if !other.is_null() => Some(other.to_string()),
        _ => None,
    };
    let (server, load, test) = (text("server"), text("load"), text("test"));
    let mut num = |name: &str| -> Option<f64> {
        let v = match map.get(name)? {
            Json::Number(n) => n.as_f64(),
            Json::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        // Keep what could not be read as a number among the extras rather than lose it.
        if v.is_some() {
            map.remove(name);
        }
        v.filter(|x| x.is_finite())
    };
    let imported = Imported {
        server,
        load,
        test,
        ops_per_sec: num("ops_per_sec"),
        p50_ms: num("p50_ms"),
        p90_ms: num("p90_ms"),
        p99_ms: num("p99_ms"),
        p999_ms: num("p999_ms"),
        max_ms: num("max_ms"),
        cpu_us_per_op: num("cpu_us_per_op"),
        extra: Map::new(),
        fingerprint,
    };
    let ms = |v: Option<&Json>, scale: f64| v.and_then(Json::as_f64).filter(|x| *x > 0.0).map(|x| (x * scale) as u64);
    let at_ms = ms(map.get("timestamp_ms"), 1.0)
        .or_else(|| ms(map.get("started_at_ms"), 1.0))
        .or_else(|| ms(map.get("timestamp"), 1000.0))
        .or_else(|| map.get("started_at").and_then(Json::as_str).and_then(parse_utc));
    (Imported { extra: map, ..imported }, at_ms)
}

/// Unix milliseconds of an ISO 8601 UTC time such as `2025-01-02T03:04:05Z` (fractional
/// seconds and a `+00:00` offset accepted; other offsets are not UTC and give `None`).
fn parse_utc(text: &str) -> Option<u64> {
    let text = text.strip_suffix('Z').or_else(|| text.strip_suffix("+00:00"))?;
    let (date, time) = text.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut t = hms.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (h, min, sec) = (t.next()??, t.next()??, t.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || h > 23 || min > 59 || sec > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let yy = if m <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let millis: i64 = format!("{:0<3}", &frac[..frac.len().min(3)]).parse().unwrap_or(0);
    let ms = ((days * 24 + h) * 60 + min) * 60 + sec;
    u64::try_from(ms * 1000 + millis).ok()
}

/// FNV-1a, a stable 64-bit hash (the same across builds, unlike std's hashers).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Runs the clients until the duration passes, the requests are answered, or the run is
/// cancelled; the first client error fails the run.
async fn drive(
    target: SocketAddr,
    params: &BenchParams,
    live: Arc<Live>,
    cancel: watch::Receiver<bool>,
    mut shutdown: watch::Receiver<bool>,
    password: Option<Vec<u8>>,
) -> Result<(), String> {
    let plan = Arc::new(Plan::new(params, password));
    let budget = params.requests.map(|n| Arc::new(AtomicU64::new(n)));
    let deadline = params.duration_s.map(|d| live.started + Duration::from_secs(d));
    let mut clients = JoinSet::new();
    for i in 0..params.clients {
        let client = Client {
            index: i,
            plan: plan.clone(),
            live: live.clone(),
            cancel: cancel.clone(),
            budget: budget.clone(),
            deadline,
        };
        clients.spawn(client.run(target));
    }
    let mut first_error = None;
    loop {
        tokio::select! {
            joined = clients.join_next() => match joined {
                None => break,
                Some(Ok(Ok(()))) => {}
                Some(failed) => {
                    let e = match failed {
                        Ok(Err(e)) => e,
                        Err(e) => format!("a client task failed: {e}"),
                        Ok(Ok(())) => continue,
                    };
                    if first_error.is_none() {
                        first_error = Some(e);
                        // One client failing means the figures are wrong: stop the others.
                        clients.abort_all();
                    }
                }
            },
            _ = async { let _ = shutdown.wait_for(|&stop| stop).await; } => {
                clients.abort_all();
                while clients.join_next().await.is_some() {}
                break;
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What every client sends: the command mix and the value.
struct Plan {
    pipeline: usize,
    sets: u64,
    total: u64,
    key_space: u64,
    value: Vec<u8>,
    password: Option<Vec<u8>>,
}

impl Plan {
    fn new(params: &BenchParams, password: Option<Vec<u8>>) -> Plan {
        let (sets, gets) = parse_ratio(&params.ratio).unwrap_or((1, 10));
        Plan {
            pipeline: params.pipeline as usize,
            sets: u64::from(sets),
            total: u64::from(sets) + u64::from(gets),
            key_space: params.key_space,
            value: vec![b'x'; params.value_size],
            password,
        }
    }
}

struct Client {
    index: u32,
    plan: Arc<Plan>,
    live: Arc<Live>,
    cancel: watch::Receiver<bool>,
    budget: Option<Arc<AtomicU64>>,
    deadline: Option<Instant>,
}

/// A RESP command as a multibulk array, appended to `out` (no allocation: the load
/// generator shares the machine with the server it measures).
fn encode(out: &mut Vec<u8>, args: &[&[u8]]) {
    out.push(b'*');
    push_digits(out, args.len() as u64, 0);
    out.extend_from_slice(b"\r\n");
    for a in args {
        out.push(b'$');
        push_digits(out, a.len() as u64, 0);
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(a);
        out.extend_from_slice(b"\r\n");
    }
}

/// Appends `n` in decimal, zero-padded to `width` digits.
fn push_digits(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let start = i.min(buf.len() - width.min(buf.len()));
    out.extend_from_slice(&buf[start..]);
}

/// One complete reply at the start of `buf`: how many bytes it takes and whether it is an
/// error. `Ok(None)` when more bytes are needed.
pub fn parse_reply(buf: &[u8]) -> Result<Option<(usize, bool)>, String> {
    let Some(&kind) = buf.first() else { return Ok(None) };
    let Some(eol) = buf.windows(2).position(|w| w == b"\r\n") else { return Ok(None) };
    let line = &buf[1..eol];
    let after = eol + 2;
    let len = || -> Result<i64, String> {
        std::str::from_utf8(line)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| format!("bad length in reply: {:?}", String::from_utf8_lossy(line)))
    };
    match kind {
        b'+' | b':' | b'_' | b',' | b'#' | b'(' => Ok(Some((after, false))),
        b'-' => Ok(Some((after, true))),
        b'$' | b'=' | b'!' => {
            let n = len()?;
            if n < 0 {
                return Ok(Some((after, false)));
            }
            let end = usize::try_from(n).ok().and_then(|n| after.checked_add(n)?.checked_add(2));
            match end {
                Some(end) if buf.len() >= end => Ok(Some((end, kind == b'!'))),
                Some(_) => Ok(None),
                None => Err("reply length overflows".into()),
            }
        }
        b'*' | b'~' | b'%' | b'>' => {
            let n = len()?;
            let count = if kind == b'%' { n.saturating_mul(2) } else { n };
            let mut pos = after;
            for _ in 0..count.max(0) {
                match parse_reply(&buf[pos..])? {
                    Some((used, _)) => pos += used,
                    None => return Ok(None),
                }
            }
            Ok(Some((pos, false)))
        }
        other => Err(format!("unexpected reply type byte 0x{other:02x}")),
    }
}

impl Client {
    async fn run(mut self, target: SocketAddr) -> Result<(), String> {
        let mut stream = tokio::time::timeout(IO_TIMEOUT, TcpStream::connect(target))
            .await
            .map_err(|_| format!("connecting to {target} timed out"))?
            .map_err(|e| format!("cannot connect to {target}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let mut input = Vec::with_capacity(64 * 1024);
        let mut out = Vec::with_capacity(64 * 1024);
        if let Some(pass) = self.plan.password.clone() {
            encode(&mut out, &[b"AUTH", &pass]);
        }
        encode(&mut out, &[b"CLIENT", b"SETNAME", b"vitrine-bench"]);
        let setup_replies = if self.plan.password.is_some() { 2 } else { 1 };
        let (errors, _) = self.exchange(&mut stream, &out, setup_replies, &mut input, &mut |_| {}).await?;
        if errors > 0 && self.plan.password.is_some() {
            return Err("the server refused the benchmark client's AUTH".into());
        }

        let mut rng = Rng::new(u64::from(self.index) + 1);
        let mut hist = new_histogram();
        let mut hist_s = 0u64;
        let mut latencies = Vec::with_capacity(self.plan.pipeline);
        let mut key = Vec::with_capacity(KEY_PREFIX.len() + KEY_DIGITS);
        loop {
            if *self.cancel.borrow() || self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let n = match &self.budget {
                Some(budget) => claim(budget, self.plan.pipeline as u64) as usize,
                None => self.plan.pipeline,
            };
            if n == 0 {
                break;
            }
            out.clear();
            let mut sets = 0u64;
            for _ in 0..n {
                key.clear();
                key.extend_from_slice(KEY_PREFIX);
                push_digits(&mut key, rng.next() % self.plan.key_space, KEY_DIGITS);
                if rng.next() % self.plan.total < self.plan.sets {
                    encode(&mut out, &[b"SET", &key, &self.plan.value]);
                    sets += 1;
                } else {
                    encode(&mut out, &[b"GET", &key]);
                }
            }
            let sent = Instant::now();
            latencies.clear();
            let (errors, got) = self
                .exchange(&mut stream, &out, n, &mut input, &mut |at: Instant| {
                    latencies.push(at.duration_since(sent).as_micros() as u64);
                })
                .await?;
            let t_s = self.live.started.elapsed().as_secs();
            if t_s != hist_s {
                self.live.report(hist_s, &mut hist);
                hist_s = t_s;
            }
            for &us in &latencies {
                hist.saturating_record(us.max(1));
            }
            if got < n {
                // Cancelled mid-batch: which replies arrived is unknown, so count none of the
                // batch's mix, only its replies.
                self.live.done.fetch_add(got as u64, Relaxed);
                break;
            }
            self.live.sets.fetch_add(sets, Relaxed);
            self.live.gets.fetch_add(n as u64 - sets, Relaxed);
            self.live.errors.fetch_add(errors, Relaxed);
            self.live.done.fetch_add(n as u64, Relaxed);
        }
        self.live.report(hist_s, &mut hist);
        Ok(())
    }

    /// Writes `request` and reads `replies` replies, calling `each` with each reply's arrival
    /// time. Answers how many were errors and how many arrived (fewer only when cancelled).
    /// Fails when the server is silent for `IO_TIMEOUT` or sends something that is not RESP.
    async fn exchange(
        &mut self,
        stream: &mut TcpStream,
        request: &[u8],
        replies: usize,
        input: &mut Vec<u8>,
        each: &mut impl FnMut(Instant),
    ) -> Result<(u64, usize), String> {
        let cancelled = |rx: &mut watch::Receiver<bool>| {
            let mut rx = rx.clone();
            async move {
                let _ = rx.wait_for(|&c| c).await;
            }
        };
        tokio::select! {
            r = tokio::time::timeout(IO_TIMEOUT, stream.write_all(request)) => match r {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(format!("write failed: {e}")),
                Err(_) => return Err("the server did not take the request in time".into()),
            },
            _ = cancelled(&mut self.cancel) => return Ok((0, 0)),
        }
        let mut got = 0;
        let mut errors = 0;
        let mut pos = 0;
        while got < replies {
            while got < replies {
                match parse_reply(&input[pos..])? {
                    Some((used, is_error)) => {
                        pos += used;
                        errors += u64::from(is_error);
                        each(Instant::now());
                        got += 1;
                    }
                    None => break,
                }
            }
            if got == replies {
                break;
            }
            input.drain(..pos);
            pos = 0;
            input.reserve(16 * 1024);
            tokio::select! {
                r = tokio::time::timeout(IO_TIMEOUT, stream.read_buf(input)) => match r {
                    Ok(Ok(0)) => return Err("the server closed the connection".into()),
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => return Err(format!("read failed: {e}")),
                    Err(_) => return Err(format!("no reply within {IO_TIMEOUT:?}")),
                },
                _ = cancelled(&mut self.cancel) => return Ok((errors, got)),
            }
        }
        input.drain(..pos);
        Ok((errors, got))
    }
}

/// Takes up to `want` requests from the shared budget; 0 when it is spent.
fn claim(budget: &AtomicU64, want: u64) -> u64 {
    let mut left = budget.load(Relaxed);
    loop {
        let take = left.min(want);
        if take == 0 {
            return 0;
        }
        match budget.compare_exchange_weak(left, left - take, Relaxed, Relaxed) {
            Ok(_) => return take,
            Err(now) => left = now,
        }
    }
}

/// xorshift64*: fast, per client, and plenty for picking keys.
struct Rng(u64);

impl Rng {
    fn new(stream: u64) -> Rng {
        let seed = now_ms() ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
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

    #[test]
    fn replies_are_framed() {
        assert_eq!(parse_reply(b"+OK\r\n"), Ok(Some((5, false))));
        assert_eq!(parse_reply(b"-ERR x\r\n+OK"), Ok(Some((8, true))));
        assert_eq!(parse_reply(b"$3\r\nabc\r\n"), Ok(Some((9, false))));
        assert_eq!(parse_reply(b"$3\r\nab"), Ok(None));
        assert_eq!(parse_reply(b"$-1\r\n"), Ok(Some((5, false))));
        assert_eq!(parse_reply(b"*2\r\n:1\r\n$1\r\nx\r\n"), Ok(Some((15, false))));
        assert_eq!(parse_reply(b"*2\r\n:1\r\n"), Ok(None));
        assert_eq!(parse_reply(b"%1\r\n+a\r\n:1\r\n"), Ok(Some((12, false))));
        assert_eq!(parse_reply(b""), Ok(None));
        assert_eq!(parse_reply(b"+OK"), Ok(None));
        assert!(parse_reply(b"?\r\n").is_err());
        assert!(parse_reply(b"$x\r\n").is_err());
    }

    #[test]
    fn commands_are_encoded_without_allocating() {
        let mut out = Vec::new();
        encode(&mut out, &[b"GET", b"k"]);
        assert_eq!(out, b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
        let mut key = Vec::new();
        push_digits(&mut key, 42, KEY_DIGITS);
        assert_eq!(key, b"000000000042");
        key.clear();
        push_digits(&mut key, 1234, 0);
        assert_eq!(key, b"1234");
    }

    #[test]
    fn the_budget_is_shared_exactly() {
        let budget = AtomicU64::new(10);
        assert_eq!(claim(&budget, 4), 4);
        assert_eq!(claim(&budget, 4), 4);
        assert_eq!(claim(&budget, 4), 2);
        assert_eq!(claim(&budget, 4), 0);
    }

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

    #[test]
    fn utc_times_parse() {
        assert_eq!(parse_utc("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_utc("2023-11-14T22:13:20Z"), Some(1_700_000_000_000));
        assert_eq!(parse_utc("2023-11-14T22:13:20.5+00:00"), Some(1_700_000_000_500));
        assert_eq!(parse_utc("2024-02-29T12:00:00Z"), Some(1_709_208_000_000));
        assert_eq!(parse_utc("2023-11-14T22:13:20+02:00"), None);
        assert_eq!(parse_utc("2023-13-01T00:00:00Z"), None);
        assert_eq!(parse_utc("yesterday"), None);
    }

    #[test]
    fn imports_are_lenient_and_keep_the_rest() {
        let entry = serde_json::json!({
            "server": "vitrine", "load": "redis-benchmark P16", "test": "SET",
            "ops_per_sec": "123456.5", "p50_ms": 0.1, "p99_ms": null, "cpu_us_per_op": 1.2,
            "clients": 50, "timestamp": 1_700_000_000,
        });
        let Json::Object(map) = entry else { unreachable!() };
        let (imp, at) = imported_from(map.clone());
        assert_eq!(imp.server.as_deref(), Some("vitrine"));
        assert_eq!(imp.ops_per_sec, Some(123456.5));
        assert_eq!(imp.p50_ms, Some(0.1));
        assert_eq!(imp.p99_ms, None);
        assert_eq!(imp.extra.get("clients"), Some(&serde_json::json!(50)));
        assert_eq!(at, Some(1_700_000_000_000));
        assert_eq!(imported_from(map).0.fingerprint, imp.fingerprint);
    }
}
