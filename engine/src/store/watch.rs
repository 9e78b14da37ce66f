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

#[derive(Default)]
pub struct Watches {
    /// How many (key, session) pairs are registered, so that writes skip the registry's lock
    /// entirely while nobody watches anything (the common case).
    count: AtomicUsize,
    map: Mutex<HashMap<Box<[u8]>, Watchers>>,
}

impl Watches {
    /// Whether anybody watches any key.
    pub fn any(&self) -> bool {
        self.count.load(Relaxed) > 0
    }

    /// Registers `watcher` on `key` (a session watching a key twice is registered once).
    pub fn watch(&self, key: &[u8], watcher: Watcher) {
        let mut map = self.map.lock();
        let list = map.entry(key.into()).or_default();
        if list.iter().all(|w| w.id != watcher.id) {
            list.push(watcher);
            self.count.fetch_add(1, Relaxed);
        }
    }

    /// Removes session `id` from `key`'s watchers.
    pub fn unwatch(&self, key: &[u8], id: u64) {
        let mut map = self.map.lock();
        let Some(list) = map.get_mut(key) else { return };
        let before = list.len();
        list.retain(|w| w.id != id);
        self.count.fetch_sub(before - list.len(), Relaxed);
        if list.is_empty() {
            map.remove(key);
        }
    }

    /// Whether anybody watches `key`.
    pub fn is_watched(&self, key: &[u8]) -> bool {
        self.any() && self.map.lock().contains_key(key)
    }

    /// `key` was modified: every session watching it gets a dirty transaction.
    pub fn touch(&self, key: &[u8]) {
        if !self.any() {
            return;
        }
        if let Some(list) = self.map.lock().get(key) {
            for w in list {
                w.dirty.store(true, Relaxed);
            }
        }
    }

    /// Every watched key (for FLUSHALL, which touches those that exist).
    pub fn keys(&self) -> Vec<Box<[u8]>> {
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
        w.watch(b"k", Watcher { id: 1, dirty: a.clone() });
        w.watch(b"k", Watcher { id: 1, dirty: a.clone() });
        w.watch(b"j", Watcher { id: 2, dirty: b.clone() });
        assert!(w.is_watched(b"k") && w.is_watched(b"j") && !w.is_watched(b"x"));
        w.touch(b"k");
        assert!(a.load(Relaxed) && !b.load(Relaxed));
        w.unwatch(b"k", 1);
        w.unwatch(b"j", 2);
        assert!(!w.any() && w.keys().is_empty());
    }
}
