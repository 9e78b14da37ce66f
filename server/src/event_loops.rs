//! The RESP connections' event loops: one single-threaded tokio runtime per thread, each
//! serving the connections the accept loop hands it in turn.
//!
//! Why not tokio's multi-thread runtime, which the rest of the server uses: its work
//! stealing wakes an idle worker (a futex wake and a context switch) for nearly every
//! request that arrives while the other worker is busy. Measured on this project's 2-core
//! machine with `redis-benchmark -P 1` (server CPU per request from /proc): 11.0 µs on the
//! multi-thread runtime with 2 workers, 8.9 µs with 1. A connection pinned to one loop keeps
//! its reads, its writes and its wake-ups on one thread, as the event loops of Redis and
//! Pogocache do, and the loops together still use every core.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use tokio::sync::mpsc;
use tracing::error;

/// Work to run inside a loop's runtime (it may `tokio::spawn` onto that loop).
type Job = Box<dyn FnOnce() + Send>;

/// A handle to the loops; cheap to clone. Besides the loops connections take in turn there
/// is a spare one, idle until a script is busy: a script runs on its connection's loop and
/// holds that thread, so the connections that come while it is busy (the `SCRIPT KILL`,
/// `SHUTDOWN NOSAVE`, a dashboard's redis-cli) go to the spare loop and are served (BUSY for
/// most commands), even when there is only one loop.
#[derive(Clone)]
pub struct EventLoops {
    loops: Arc<[mpsc::UnboundedSender<Job>]>,
    next: Arc<AtomicUsize>,
}

impl EventLoops {
    /// Starts `threads` loops (at least one), each on its own named thread. A thread ends,
    /// dropping the connections still on it, once the last handle is dropped, so the caller
    /// keeps one until its shutdown signal has drained the connections.
    pub fn start(threads: usize) -> std::io::Result<EventLoops> {
        // The last one is the spare.
        let mut loops = Vec::with_capacity(threads.max(1) + 1);
        for i in 0..threads.max(1) + 1 {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
            let name = if i == threads.max(1) { "vitrine-loop-spare".to_string() } else { format!("vitrine-loop-{i}") };
            std::thread::Builder::new().name(name).spawn(move || {
                runtime.block_on(async move {
                    while let Some(job) = rx.recv().await {
                        job();
                    }
                });
            })?;
            loops.push(tx);
        }
        Ok(EventLoops { loops: loops.into(), next: Arc::new(AtomicUsize::new(0)) })
    }

    /// Runs `job` on the next loop in turn. Returns false when that loop has stopped (its
    /// thread panicked), after logging it.
    pub fn run_on_next(&self, job: impl FnOnce() + Send + 'static) -> bool {
        let i = self.next.fetch_add(1, Relaxed) % (self.loops.len() - 1);
        self.run_on(i, job)
    }

    /// Runs `job` on the spare loop (see above).
    pub fn run_on_spare(&self, job: impl FnOnce() + Send + 'static) -> bool {
        self.run_on(self.loops.len() - 1, job)
    }

    fn run_on(&self, i: usize, job: impl FnOnce() + Send + 'static) -> bool {
        if self.loops[i].send(Box::new(job)).is_err() {
            error!("event loop {i} has stopped; connection dropped");
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_in_turn_on_every_loop_inside_its_runtime() {
        let loops = EventLoops::start(2).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..4 {
            let tx = tx.clone();
            assert!(loops.run_on_next(move || {
                // Inside a loop's runtime: spawning works and runs on that loop's thread.
                tokio::spawn(async move {
                    let name = std::thread::current().name().unwrap_or_default().to_string();
                    tx.send(name).unwrap();
                });
            }));
        }
        let mut names: Vec<String> =
            (0..4).map(|_| rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap()).collect();
        names.sort();
        assert_eq!(names, ["vitrine-loop-0", "vitrine-loop-0", "vitrine-loop-1", "vitrine-loop-1"]);
        let tx = tx.clone();
        assert!(loops.run_on_spare(move || {
            tx.send(std::thread::current().name().unwrap_or_default().to_string()).unwrap();
        }));
        assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(5)).unwrap(), "vitrine-loop-spare");
    }
}
