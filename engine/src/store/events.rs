//! Keyspace notification classes (Redis's `NOTIFY_*` bits) and the events the store raises
//! on its own: `expired` (lazy and active expiry), `evicted`, `hexpired` (hash fields), `new`
//! (a key created) and `keymiss` (a read that found nothing). The store sits below pub/sub,
//! so it only queues them; the engine drains the queue and publishes (`crate::notify`),
//! before a command's own events and after the active expiry cycle.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU32};
use std::sync::Arc;

use parking_lot::Mutex;

/// Redis's `NOTIFY_*` flags, as `notify-keyspace-events` sets them.
pub mod class {
    pub const KEYSPACE: u32 = 1;
    pub const KEYEVENT: u32 = 1 << 1;
    pub const GENERIC: u32 = 1 << 2;
    pub const STRING: u32 = 1 << 3;
    pub const LIST: u32 = 1 << 4;
    pub const SET: u32 = 1 << 5;
    pub const HASH: u32 = 1 << 6;
    pub const ZSET: u32 = 1 << 7;
    pub const EXPIRED: u32 = 1 << 8;
    pub const EVICTED: u32 = 1 << 9;
    pub const STREAM: u32 = 1 << 10;
    pub const KEY_MISS: u32 = 1 << 11;
    pub const MODULE: u32 = 1 << 13;
    pub const NEW: u32 = 1 << 14;
}

/// Whether flags `flags` publish an event of class `class`: the class is on and at least
/// one of the two channel kinds (K, E) is.
#[inline]
pub fn wanted(flags: u32, class: u32) -> bool {
    flags & class != 0 && flags & (class::KEYSPACE | class::KEYEVENT) != 0
}

/// One event waiting to be published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub class: u32,
    pub event: &'static str,
    pub db: usize,
    pub key: Box<[u8]>,
}

/// The flags (shared with the config, which `CONFIG SET` writes) and the queue of events the
/// store raised and the engine has not published yet.
#[derive(Default)]
pub struct StoreEvents {
    flags: Arc<AtomicU32>,
    queue: Mutex<Vec<Pending>>,
    queued: AtomicBool,
}

impl StoreEvents {
    pub fn new(flags: Arc<AtomicU32>) -> StoreEvents {
        StoreEvents { flags, ..StoreEvents::default() }
    }

    /// The live flags: one relaxed load.
    #[inline]
    pub fn flags(&self) -> u32 {
        self.flags.load(Relaxed)
    }

    /// Queues an event when its class is on (else costs one relaxed load).
    #[inline]
    pub fn raise(&self, class: u32, event: &'static str, db: usize, key: &[u8]) {
        if wanted(self.flags(), class) {
            self.queue.lock().push(Pending { class, event, db, key: key.into() });
            self.queued.store(true, Relaxed);
        }
    }

    /// Whether anything is queued (one relaxed load).
    #[inline]
    pub fn any(&self) -> bool {
        self.queued.load(Relaxed)
    }

    /// Takes what is queued; `None`, at the cost of one relaxed load, when nothing is.
    #[inline]
    pub fn take(&self) -> Option<Vec<Pending>> {
        if !self.queued.load(Relaxed) {
            return None;
        }
        let mut queue = self.queue.lock();
        self.queued.store(false, Relaxed);
        Some(std::mem::take(&mut *queue))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_only_wanted_classes() {
        let flags = Arc::new(AtomicU32::new(0));
        let events = StoreEvents::new(flags.clone());
        events.raise(class::EXPIRED, "expired", 0, b"k");
        assert_eq!(events.take(), None);
        flags.store(class::EXPIRED, Relaxed);
        events.raise(class::EXPIRED, "expired", 0, b"k");
        assert_eq!(events.take(), None, "no channel kind (K or E) is on");
        flags.store(class::EXPIRED | class::KEYEVENT, Relaxed);
        events.raise(class::EXPIRED, "expired", 3, b"k");
        events.raise(class::EVICTED, "evicted", 3, b"k");
        let taken = events.take().unwrap_or_default();
        assert_eq!(taken, vec![Pending { class: class::EXPIRED, event: "expired", db: 3, key: b"k"[..].into() }]);
        assert_eq!(events.take(), None);
    }
}
