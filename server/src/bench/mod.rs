//! The built-in benchmark runner: a real load generator inside the server process, driven by
//! the admin API (`crate::http::bench_api`). Only one run at a time. A run's request is
//! validated in [`request`], its clients are [`load`], what it measured is [`results`], and
//! finished and imported runs are kept in the [`history`]. The keys a run writes stay in the
//! cache afterwards, as with redis-benchmark.

mod history;
mod load;
mod request;
mod results;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value as Json;
use tokio::sync::watch;
use tracing::{info, warn};
use vitrine_engine::Engine;

use crate::now_ms;
use history::ImportSummary;
use load::drive;
use request::BenchParams;
use results::{Live, Run, Source, Status};

pub(crate) use history::ImportError;
pub use history::{HISTORY_FILE, MAX_HISTORY_BYTES};
pub(crate) use request::BenchRequest;

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
        history::trim(&mut self.runs);
    }
}

/// Why a run could not start.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum StartError {
    /// Another run (this id) is going.
    Busy(u64),
}

/// Why a run could not be cancelled.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CancelError {
    NotFound,
    Finished(Status),
}

/// The runner and its history.
pub(crate) struct Bench {
    book: Mutex<Book>,
    /// Held while the history file is written, so writes never interleave.
    file_lock: Mutex<()>,
    path: PathBuf,
    target: SocketAddr,
    engine: Arc<Engine>,
    shutdown: watch::Receiver<bool>,
}

impl Bench {
    /// Reads the history from `<dir>/vitrine-bench.json` (see [`history::read`]).
    pub(crate) fn load(dir: &Path, target: SocketAddr, engine: Arc<Engine>, shutdown: watch::Receiver<bool>) -> Bench {
        let path = dir.join(HISTORY_FILE);
        let runs = history::read(&path);
        let next_id = runs.iter().map(|r| r.id).max().unwrap_or(0);
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
            history::to_text(runs)?
        };
        let written = history::write(&self.path, &text);
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
    pub(crate) fn start(self: &Arc<Self>, params: BenchParams) -> Result<Run, StartError> {
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
    pub(crate) fn list(&self) -> Vec<Run> {
        let book = self.book.lock();
        let mut runs: Vec<Run> = book.active.iter().map(|a| a.view().summary()).collect();
        runs.extend(book.runs.iter().rev().map(Run::summary));
        runs
    }

    /// One run with its timeline (live figures while it runs).
    pub(crate) fn get(&self, id: u64) -> Option<Run> {
        let book = self.book.lock();
        if let Some(active) = book.active.as_ref().filter(|a| a.run.id == id) {
            return Some(active.view());
        }
        book.runs.iter().find(|r| r.id == id).cloned()
    }

    /// Whether run `id` is the one going now.
    pub(crate) fn is_running(&self, id: u64) -> bool {
        self.book.lock().active.as_ref().is_some_and(|a| a.run.id == id)
    }

    /// Asks run `id` to stop; its clients finish their current batch and it is recorded as
    /// cancelled.
    pub(crate) fn cancel(&self, id: u64) -> Result<(), CancelError> {
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
    pub(crate) fn cancel_active(&self) {
        if let Some(active) = &self.book.lock().active {
            active.cancel.send_replace(true);
        }
    }

    /// Adds the runs in `scripts/bench`'s JSON (read by [`history::parse_import`]); entries
    /// already imported are skipped.
    pub(crate) async fn import(self: &Arc<Self>, doc: Json) -> Result<ImportSummary, ImportError> {
        let parsed = history::parse_import(doc)?;
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
            history::trim(&mut book.runs);
            summary
        };
        if summary.imported > 0 {
            self.persist_in_background(None).await;
        }
        Ok(summary)
    }
}
