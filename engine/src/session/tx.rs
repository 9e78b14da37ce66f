//! A session's transaction state: the MULTI queue, the WATCHed keys and their dirty flag,
//! whether a command was refused while queuing. The commands that drive it (MULTI, EXEC,
//! WATCH, ...) are `cmd::tx`; dispatch runs the queue (`Engine::exec_queued`).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One command queued by MULTI.
pub struct Queued {
    /// Its row in the command table (dispatch looks the command up by it; this layer sits
    /// below the table), also the index of its stats.
    pub index: usize,
    pub argv: Vec<Vec<u8>>,
}

/// A session's transaction state: the MULTI queue and the watched keys.
#[derive(Default)]
pub struct Transaction {
    /// Commands queued since MULTI; `None` outside a transaction.
    pub(crate) queue: Option<Vec<Queued>>,
    /// A command was refused while queuing: EXEC discards the transaction.
    pub(crate) refused: bool,
    /// Keys WATCHed, each with the time it expires if it was alive with a TTL at WATCH time
    /// (0 otherwise): EXEC fails once that time has passed, deleted by expiry or not.
    pub(crate) watched: Vec<(usize, Vec<u8>, u64)>,
    /// Set by anyone who modifies a watched key (shared with the engine's registry).
    pub(crate) dirty: Arc<AtomicBool>,
    /// EXEC is running the queue (a blocking command then answers at once, as in Redis).
    pub(crate) executing: bool,
}

impl Transaction {
    /// Between MULTI and EXEC/DISCARD.
    pub fn in_multi(&self) -> bool {
        self.queue.is_some()
    }

    /// Inside EXEC, running the queued commands.
    pub fn executing(&self) -> bool {
        self.executing
    }

    /// Marks the transaction as refused (a command failed its checks while queuing).
    pub fn refuse(&mut self) {
        if self.in_multi() {
            self.refused = true;
        }
    }

    pub fn watching(&self) -> bool {
        !self.watched.is_empty()
    }
}
