//! Why a read missed: a small, fixed-size memory of the keys that recently left the keyspace
//! by eviction or by expiry, consulted on a read miss to split `keyspace_misses` into "never
//! seen", "expired" and "evicted". It answers "is this miss the cache's fault?": a high
//! evicted share says maxmemory is too small for the working set.
//!
//! The record holds 64-bit key hashes, not keys, in a table of [`SLOTS`] atomic words with
//! two candidate slots per hash (as in cuckoo hashing, without the kicking): lookups and
//! inserts are a couple of relaxed loads and stores, take no lock, and the memory is fixed
//! (64 KiB) however many keys come and go. The lowest bit of a stored word holds the cause,
//! so a key that expired, came back and was then evicted is remembered by its latest cause.
//!
//! It is approximate by design: once both of a hash's slots are taken by newer departures
//! the older one is forgotten (its misses then count as never seen), a key deleted with `DEL`
//! after once being evicted still reads as evicted until its slot is reused, and two keys
//! whose 63-bit hashes collide (about one chance in 2^60 per lookup) are confused.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use serde::Serialize;

/// Words in the table: the record remembers about this many recent departures.
pub const SLOTS: usize = 8192;
const MASK: u64 = SLOTS as u64 - 1;

/// Why a read found no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MissCause {
    /// Not among the keys that recently expired or were evicted: never written, deleted, or
    /// gone long enough ago that the record forgot it.
    NeverSeen,
    /// The key expired recently.
    Expired,
    /// The key was evicted recently to make room under maxmemory.
    Evicted,
}

/// The bounded record of recently evicted and expired key hashes.
pub struct MissRecord {
    slots: Box<[AtomicU64]>,
    /// Seeds `keyhash::key_hash` (the same on every target, so the browser playground
    /// classifies misses exactly as the server does).
    seed: u64,
    /// Picks which of two full slots a new hash replaces, so neither is always the victim.
    turn: AtomicU64,
}

const EXPIRED_BIT: u64 = 0;
const EVICTED_BIT: u64 = 1;

impl MissRecord {
    /// An empty record; `seed` keys its hash so clients cannot aim keys at one slot.
    pub fn new(seed: u64) -> MissRecord {
        MissRecord { slots: (0..SLOTS).map(|_| AtomicU64::new(0)).collect(), seed, turn: AtomicU64::new(0) }
    }

    /// The key's hash with the cause bit cleared, never 0 (0 marks an empty slot), and its two
    /// slots (taken from different bits of the hash so they rarely coincide).
    fn locate(&self, db: usize, key: &[u8]) -> (u64, usize, usize) {
        // The database goes into the seed, so `k` evicted from one database says nothing
        // about `k` in another.
        let h = super::keyhash::key_hash(self.seed ^ (db as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15), key);
        let tag = (h & !1).max(2);
        (tag, (h & MASK) as usize, ((h >> 32) & MASK) as usize)
    }

    /// Remembers that `key` (of database `db`) just left the keyspace by `cause` (`Expired`
    /// or `Evicted`; `NeverSeen` is ignored).
    pub fn remember(&self, db: usize, key: &[u8], cause: MissCause) {
        let bit = match cause {
            MissCause::Expired => EXPIRED_BIT,
            MissCause::Evicted => EVICTED_BIT,
            MissCause::NeverSeen => return,
        };
        let (tag, a, b) = self.locate(db, key);
        let word = tag | bit;
        let (sa, sb) = (&self.slots[a], &self.slots[b]);
        let (va, vb) = (sa.load(Relaxed), sb.load(Relaxed));
        // Already known (under either cause): overwrite in place so the latest cause wins.
        let slot = if va & !1 == tag || va == 0 {
            sa
        } else if vb & !1 == tag || vb == 0 {
            sb
        } else if self.turn.fetch_add(1, Relaxed) & 1 == 0 {
            sa
        } else {
            sb
        };
        slot.store(word, Relaxed);
    }

    /// Why a read of `key` in database `db` missed.
    pub fn classify(&self, db: usize, key: &[u8]) -> MissCause {
        let (tag, a, b) = self.locate(db, key);
        for i in [a, b] {
            let v = self.slots[i].load(Relaxed);
            if v & !1 == tag {
                return if v & 1 == EVICTED_BIT { MissCause::Evicted } else { MissCause::Expired };
            }
        }
        MissCause::NeverSeen
    }

    /// Forgets everything.
    #[cfg(test)]
    pub fn clear(&self) {
        for s in self.slots.iter() {
            s.store(0, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_cause_of_recent_departures() {
        let r = MissRecord::new(7);
        assert_eq!(r.classify(0, b"a"), MissCause::NeverSeen);
        r.remember(0, b"a", MissCause::Evicted);
        r.remember(0, b"b", MissCause::Expired);
        r.remember(0, b"c", MissCause::NeverSeen);
        assert_eq!(r.classify(0, b"a"), MissCause::Evicted);
        assert_eq!(r.classify(0, b"b"), MissCause::Expired);
        assert_eq!(r.classify(0, b"c"), MissCause::NeverSeen);
        assert_eq!(r.classify(0, b"d"), MissCause::NeverSeen);
        // Another database's `a` was not evicted.
        assert_eq!(r.classify(1, b"a"), MissCause::NeverSeen);
    }

    #[test]
    fn the_latest_cause_wins() {
        let r = MissRecord::new(7);
        r.remember(0, b"k", MissCause::Expired);
        r.remember(0, b"k", MissCause::Evicted);
        assert_eq!(r.classify(0, b"k"), MissCause::Evicted);
        r.remember(0, b"k", MissCause::Expired);
        assert_eq!(r.classify(0, b"k"), MissCause::Expired);
        r.clear();
        assert_eq!(r.classify(0, b"k"), MissCause::NeverSeen);
    }

    #[test]
    fn it_is_bounded_and_keeps_the_most_recent() {
        let r = MissRecord::new(7);
        let n = SLOTS * 8;
        for i in 0..n {
            r.remember(0, format!("key:{i}").as_bytes(), MissCause::Evicted);
        }
        let known = |range: std::ops::Range<usize>| {
            range.filter(|i| r.classify(0, format!("key:{i}").as_bytes()) == MissCause::Evicted).count()
        };
        // The newest few hundred are almost all remembered, the oldest mostly forgotten.
        let recent = known(n - 500..n);
        let old = known(0..500);
        assert!(recent > 450, "recent {recent}");
        assert!(old < 50, "old {old}");
        // And keys never remembered are never claimed.
        let strangers = (0..10_000).filter(|i| r.classify(0, format!("other:{i}").as_bytes()) != MissCause::NeverSeen);
        assert_eq!(strangers.count(), 0);
    }
}

#[cfg(test)]
mod engine_tests {
    use crate::testing::TestEngine;
    use crate::Config;

    #[test]
    fn snapshot_splits_misses_by_cause() {
        let config = Config::default();
        config.set("maxmemory", "200kb").unwrap();
        config.set("maxmemory-policy", "allkeys-lru").unwrap();
        let mut t = TestEngine::new(config);
        for i in 0..3000 {
            t.run(&["SET", &format!("k{i}"), &"x".repeat(100)]);
        }
        t.run(&["SET", "short", "v", "PX", "100"]);
        t.advance(200);
        t.run(&["GET", "short"]); // expired (lazily, on this read)
        t.run(&["GET", "short"]); // still remembered as expired
        t.run(&["GET", "never"]);
        t.run(&["GET", "k0"]); // the oldest key, evicted long ago by LRU
        let snap = t.engine.snapshot(t.now);
        assert!(snap.evicted_keys > 100, "evicted {}", snap.evicted_keys);
        assert_eq!(snap.misses, 4);
        assert_eq!(snap.misses_expired, 2);
        assert_eq!(snap.misses_never_seen, 1);
        assert_eq!(snap.misses_evicted, 1);
        assert_eq!(snap.misses, snap.misses_never_seen + snap.misses_expired + snap.misses_evicted);
    }
}
