//! A shard: one lock's worth of the keyspace. Every mutation goes through these methods so
//! memory accounting, the TTL index and expiry counters can never drift from the data.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use indexmap::{IndexMap, IndexSet};

use super::entry::{entry_size, Entry, Value};
use super::evict::lfu_decay;
use super::Common;

pub use super::key::Key;
type Hasher = foldhash::fast::FixedState;

/// How an access touches an entry's LRU/LFU stamps.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// A normal read or write: updates LRU/LFU as Redis does.
    Yes,
    /// Inspection that must not count as use (`TTL`, `OBJECT`, `TYPE`, `SCAN`'s type filter).
    No,
}

pub struct Shard {
    /// Keys in insertion order with O(1) access by index, so eviction and RANDOMKEY can
    /// sample uniformly and SCAN can walk positions.
    pub(crate) map: IndexMap<Key, Entry, Hasher>,
    /// The keys that have a TTL, sampled by the active expiry cycle and volatile-* eviction.
    pub(crate) expires: IndexSet<Key, Hasher>,
    /// Accounted bytes held by this shard (its share of `used_memory`).
    pub(crate) used: usize,
    /// Live count of keys per value type (`Value::type_index`), so stats never walk the keyspace.
    pub(crate) types: [usize; Value::TYPES],
    common: Arc<Common>,
}

impl Shard {
    pub(crate) fn new(common: Arc<Common>, seed: u64) -> Shard {
        Shard {
            map: IndexMap::with_hasher(Hasher::with_seed(seed)),
            expires: IndexSet::with_hasher(Hasher::with_seed(seed ^ 0x9e37_79b9_7f4a_7c15)),
            used: 0,
            types: [0; Value::TYPES],
            common,
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn volatile_len(&self) -> usize {
        self.expires.len()
    }

    fn account(&mut self, old: usize, new: usize) {
        if new >= old {
            self.used += new - old;
            self.common.used.fetch_add(new - old, Relaxed);
        } else {
            self.used -= old - new;
            self.common.used.fetch_sub(old - new, Relaxed);
        }
    }

    /// Looks a key up, deleting it first if it has expired (lazy expiry), and updates its
    /// access stamps when `touch` says so. Hit/miss counting is the caller's (read paths only).
    pub fn lookup(&mut self, key: &[u8], now_ms: u64, touch: Touch) -> Option<&mut Entry> {
        let idx = self.map.get_index_of(key)?;
        if self.map[idx].is_expired(now_ms) {
            self.expire_at_index(idx, now_ms);
            return None;
        }
        let entry = &mut self.map[idx];
        if touch == Touch::Yes {
            self.common.touch(entry, now_ms);
        }
        Some(entry)
    }

    /// Whether a live (unexpired) key exists, without touching it.
    pub fn contains(&mut self, key: &[u8], now_ms: u64) -> bool {
        self.lookup(key, now_ms, Touch::No).is_some()
    }

    fn expire_at_index(&mut self, idx: usize, now_ms: u64) {
        if let Some((key, entry)) = self.remove_index(idx) {
            self.common.stats.expired_keys.fetch_add(1, Relaxed);
            self.common.record_expired(&key, &entry, now_ms);
        }
    }

    /// Inserts or replaces a key's entry with a fresh value and the given expiry (0 = none).
    /// Access stamps start new, as for a key Redis just created.
    pub fn insert(&mut self, key: &[u8], value: Value, expire_at: u64, now_ms: u64) {
        let mut entry = Entry { value, expire_at, seq: 0, atime: 0, lfu: 0, lfu_ldt: 0 };
        self.common.init_stamps(&mut entry, now_ms);
        let new = entry_size(key.len(), &entry);
        self.types[entry.value.type_index()] += 1;
        if matches!(entry.value, Value::List(_)) {
            // Clients blocked on this key (BLPOP, ...) may now be served.
            self.common.ready.signal(key);
        }
        let old = match self.map.get_full_mut(key) {
            Some((_, _, slot)) => {
                let old_size = entry_size(key.len(), slot);
                self.types[slot.value.type_index()] -= 1;
                let had_ttl = slot.has_ttl();
                *slot = entry;
                if had_ttl && expire_at == 0 {
                    self.expires.swap_remove(key);
                } else if !had_ttl && expire_at != 0 {
                    self.expires.insert(Key::new(key));
                }
                old_size
            }
            None => {
                self.map.insert(Key::new(key), entry);
                if expire_at != 0 {
                    self.expires.insert(Key::new(key));
                }
                0
            }
        };
        self.account(old, new);
    }

    /// Changes a live key's value in place through `f` and re-measures it afterwards. A
    /// collection that `f` leaves empty is deleted, as Redis never keeps one.
    /// Returns `None` when the key does not exist.
    pub fn update<R>(&mut self, key: &[u8], now_ms: u64, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let key_len = key.len();
        let entry = self.lookup(key, now_ms, Touch::Yes)?;
        let old = entry_size(key_len, entry);
        let old_type = entry.value.type_index();
        let r = f(&mut entry.value);
        let new = entry_size(key_len, entry);
        let new_type = entry.value.type_index();
        let became_list = new_type != old_type && matches!(entry.value, Value::List(_));
        let emptied = entry.value.is_empty_collection();
        self.types[old_type] -= 1;
        self.types[new_type] += 1;
        if became_list {
            // Clients blocked on this key (BLPOP, ...) may now be served.
            self.common.ready.signal(key);
        }
        self.account(old, new);
        if emptied {
            self.remove(key);
        }
        Some(r)
    }

    /// Sets or clears (0) a live key's expiry. Returns false when the key does not exist.
    pub fn set_expire(&mut self, key: &[u8], expire_at: u64, now_ms: u64) -> bool {
        let Some(entry) = self.lookup(key, now_ms, Touch::No) else {
            return false;
        };
        let had_ttl = entry.has_ttl();
        let old = entry_size(key.len(), entry);
        entry.expire_at = expire_at;
        let new = entry_size(key.len(), entry);
        if had_ttl && expire_at == 0 {
            self.expires.swap_remove(key);
        } else if !had_ttl && expire_at != 0 {
            self.expires.insert(Key::new(key));
        }
        self.account(old, new);
        true
    }

    /// Removes a key, expired or not, returning its entry.
    pub fn remove(&mut self, key: &[u8]) -> Option<Entry> {
        let idx = self.map.get_index_of(key)?;
        self.remove_index(idx).map(|(_, e)| e)
    }

    pub(crate) fn remove_index(&mut self, idx: usize) -> Option<(Key, Entry)> {
        let (key, entry) = self.map.swap_remove_index(idx)?;
        self.types[entry.value.type_index()] -= 1;
        if entry.has_ttl() {
            self.expires.swap_remove(&key);
        }
        let size = entry_size(key.len(), &entry);
        self.account(size, 0);
        Some((key, entry))
    }

    /// Drops every key (FLUSHDB), returning how many there were.
    pub fn clear(&mut self) -> usize {
        let n = self.map.len();
        self.map = IndexMap::with_hasher(*self.map.hasher());
        self.expires = IndexSet::with_hasher(*self.expires.hasher());
        self.types = [0; Value::TYPES];
        let used = self.used;
        self.account(used, 0);
        n
    }

    /// Accounted size of a key's entry (`MEMORY USAGE`), without touching it.
    pub fn size_of(&mut self, key: &[u8], now_ms: u64) -> Option<usize> {
        let entry = self.lookup(key, now_ms, Touch::No)?;
        Some(entry_size(key.len(), entry))
    }

    /// The key and entry at a position (for sampling and SCAN).
    pub fn get_index(&self, idx: usize) -> Option<(&Key, &Entry)> {
        self.map.get_index(idx)
    }

    /// LFU counter after decay, as `OBJECT FREQ` reports it.
    pub fn lfu_counter(&self, entry: &Entry, now_ms: u64) -> u8 {
        lfu_decay(entry, now_ms, self.common.config.lfu_decay_time())
    }

    /// Active expiry: samples up to `count` keys with a TTL and deletes the stale ones.
    /// Returns (sampled, expired).
    pub fn expire_sample(&mut self, count: usize, now_ms: u64) -> (usize, usize) {
        let mut sampled = 0;
        let mut expired = 0;
        for _ in 0..count {
            let n = self.expires.len();
            if n == 0 {
                break;
            }
            sampled += 1;
            let pick = (self.common.random() % n as u64) as usize;
            let Some(key) = self.expires.get_index(pick) else { break };
            let Some(idx) = self.map.get_index_of(&**key) else {
                // Cannot happen while the two indexes are kept in step; heal rather than loop.
                self.expires.swap_remove_index(pick);
                continue;
            };
            if self.map[idx].is_expired(now_ms) {
                self.expire_at_index(idx, now_ms);
                expired += 1;
            }
        }
        (sampled, expired)
    }
}
