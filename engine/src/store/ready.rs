//! Keys that became lists or sorted sets while clients were blocked waiting for data (BLPOP,
//! BLMOVE, BZPOPMIN, ...), as Redis's `signalKeyAsReady`. A shard records a key here when it
//! creates a list or sorted set under it; after the command, the engine serves the clients
//! blocked on those keys (see `crate::blocking`). A leaf lock: nothing else is locked while it
//! is held.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use parking_lot::Mutex;

#[derive(Default)]
pub struct ReadyKeys {
    /// Clients blocked right now. While it is zero (the common case) creating a list costs
    /// one atomic load here and nothing else.
    waiting: AtomicUsize,
    /// Whether `keys` holds anything, so the check after every command is one atomic load.
    pending: AtomicBool,
    keys: Mutex<Vec<(usize, Vec<u8>)>>,
}

impl ReadyKeys {
    /// A list or sorted set was created under `key` (a push or ZADD to a missing key, RENAME,
    /// a move, ...).
    ///
    /// Called with the key's shard locked. A client blocks (and counts in `waiting`) only
    /// after its command found every key missing, and it then looks at its keys once more,
    /// so a list created before the count went up is found by that look, and one created
    /// after it is recorded here: no wake-up is lost.
    pub fn signal(&self, db: usize, key: &[u8]) {
        if self.waiting.load(Relaxed) == 0 {
            return;
        }
        let mut keys = self.keys.lock();
        if !keys.iter().any(|(d, k)| *d == db && k == key) {
            keys.push((db, key.to_vec()));
        }
        self.pending.store(true, Relaxed);
    }

    /// Whether any client is blocked.
    pub fn any_waiting(&self) -> bool {
        self.waiting.load(Relaxed) > 0
    }

    /// Whether keys were signalled and not yet taken.
    pub fn has_pending(&self) -> bool {
        self.pending.load(Relaxed)
    }

    /// Takes the keys signalled so far (with their databases), oldest first.
    pub fn take(&self) -> Vec<(usize, Vec<u8>)> {
        let mut keys = self.keys.lock();
        self.pending.store(false, Relaxed);
        std::mem::take(&mut *keys)
    }

    pub fn add_waiting(&self) {
        self.waiting.fetch_add(1, Relaxed);
    }

    pub fn remove_waiting(&self) {
        self.waiting.fetch_sub(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_recorded_only_while_someone_waits() {
        let ready = ReadyKeys::default();
        ready.signal(0, b"a");
        assert!(ready.take().is_empty());
        ready.add_waiting();
        ready.signal(0, b"a");
        ready.signal(0, b"b");
        ready.signal(0, b"a");
        ready.signal(3, b"a");
        assert!(ready.has_pending());
        assert_eq!(ready.take(), vec![(0, b"a".to_vec()), (0, b"b".to_vec()), (3, b"a".to_vec())]);
        assert!(ready.take().is_empty());
        assert!(!ready.has_pending());
        ready.remove_waiting();
        assert!(!ready.any_waiting());
    }
}
