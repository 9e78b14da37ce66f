//! WATCH's registry: which sessions watch which keys, so that a write to a key (or its
//! eviction, or a flush) can mark the watching sessions' transactions dirty and their EXEC
//! answers nil. A leaf lock: nothing else is locked while it is held.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;
use smallvec::SmallVec;

/// One session watching a key: its id and the flag its EXEC checks.
#[derive(Clone)]
pub struct Watcher {
    pub id: u64,
    pub dirty: Arc<AtomicBool>,
}

/// The sessions watching one key (usually one).
type Watchers = SmallVec<[Watcher; 1]>;

/// A watched key: its database and name.
type WatchedKey = (usize, Box<[u8]>);

#[derive(Default)]
pub struct Watches {
    /// How many (key, session) pairs are registered, so that writes skip the registry's lock
    /// entirely while nobody watches anything (the common case).
    count: AtomicUsize,
    /// Keyed by database, then key.
    map: Mutex<HashMap<WatchedKey, Watchers>>,
}

impl Watches {
    /// Whether anybody watches any key.
    pub fn any(&self) -> bool {
        self.count.load(Relaxed) > 0
    }

    /// Registers `watcher` on `key` of database `db` (a session watching a key twice is
    /// registered once).
    pub fn watch(&self, db: usize, key: &[u8], watcher: Watcher) {
        let mut map = self.map.lock();
        let list = map.entry((db, key.into())).or_default();
        if list.iter().all(|w| w.id != watcher.id) {
            list.push(watcher);
            self.count.fetch_add(1, Relaxed);
        }
    }

    /// Removes session `id` from the watchers of `key` in `db`.
    pub fn unwatch(&self, db: usize, key: &[u8], id: u64) {
        let mut map = self.map.lock();
        let entry = (db, Box::<[u8]>::from(key));
        let Some(list) = map.get_mut(&entry) else { return };
        let before = list.len();
        list.retain(|w| w.id != id);
        self.count.fetch_sub(before - list.len(), Relaxed);
        if list.is_empty() {
            map.remove(&entry);
        }
    }

    /// Whether anybody watches `key` of database `db`.
    pub fn is_watched(&self, db: usize, key: &[u8]) -> bool {
        self.any() && self.map.lock().contains_key(&(db, Box::<[u8]>::from(key)))
    }

    /// `key` of `db` was modified: every session watching it gets a dirty transaction.
    /// (Only called while somebody watches something: building the map's key copies it.)
    pub fn touch(&self, db: usize, key: &[u8]) {
        if !self.any() {
            return;
        }
        if let Some(list) = self.map.lock().get(&(db, Box::<[u8]>::from(key))) {
            for w in list {
                w.dirty.store(true, Relaxed);
            }
        }
    }

    /// Every watched key with its database (for FLUSHALL and SWAPDB, which touch those that
    /// exist).
    pub fn keys(&self) -> Vec<WatchedKey> {
        if !self.any() {
            return Vec::new();
        }
        self.map.lock().keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touch_marks_only_the_watchers_of_that_key() {
        let w = Watches::default();
        let (a, b) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        assert!(!w.any());
        w.watch(0, b"k", Watcher { id: 1, dirty: a.clone() });
        w.watch(0, b"k", Watcher { id: 1, dirty: a.clone() });
        w.watch(1, b"j", Watcher { id: 2, dirty: b.clone() });
        assert!(w.is_watched(0, b"k") && w.is_watched(1, b"j") && !w.is_watched(0, b"x"));
        assert!(!w.is_watched(0, b"j"), "another database's key");
        w.touch(0, b"j");
        assert!(!b.load(Relaxed));
        w.touch(0, b"k");
        assert!(a.load(Relaxed) && !b.load(Relaxed));
        w.unwatch(0, b"k", 1);
        w.unwatch(1, b"j", 2);
        assert!(!w.any() && w.keys().is_empty());
    }
}
