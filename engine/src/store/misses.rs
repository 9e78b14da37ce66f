//! Why a read missed: a ghost record of the keys that left the keyspace by eviction or by
//! expiry, consulted on a read miss to split `keyspace_misses` into "never seen", "expired"
//! and "evicted". It answers "is this miss the cache's fault?": a high evicted share says
//! maxmemory is too small for the working set.
//!
//! It must stay right when the whole keyspace turns over every second (the docker demo evicts
//! about 50,000 keys a second from 8 MB), so it is sized to the keyspace, not fixed: it keeps
//! [`PER_LIVE_KEY`] fingerprints per live key (at least [`FLOOR_ENTRIES`]) and grows, by
//! doubling, as the keyspace grows. A fingerprint is 4 bytes: 31 bits of the key's hash and
//! one bit for the cause. They sit in buckets of [`BUCKET`], each a FIFO: a departure goes
//! to the front of its bucket and pushes the oldest out, so the record remembers about
//! `capacity()` departures back (its horizon), whatever their rate.
//!
//! Lookups and inserts are relaxed loads and stores on the bucket's words, take no lock, and
//! never move memory: growth adds a segment (the table is a list of segments that double in
//! size, each allocated once), and a lookup after growth also checks the buckets the key had
//! under the previous sizes, until a capacity's worth of departures has gone by, so nothing
//! is lost when the table grows. Two departures racing
//! into one bucket may drop one of them; the record is approximate by design.
//!
//! Its memory ([`MissRecord::bytes`]) is not counted in `used_memory` and so not against
//! maxmemory: like Redis's own overheads (the replication backlog, client buffers), it is
//! bookkeeping beside the data, bounded (at most [`MAX_BYTES`]) and reported on its own.
//!
//! A key deleted with `DEL` after once being evicted still reads as evicted until its
//! fingerprint is pushed out, and two keys whose 31-bit fingerprints collide in one bucket
//! (about one lookup in 2^27) are confused.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use parking_lot::Mutex;
use serde::Serialize;

/// Fingerprints per bucket (one 32-byte line).
pub const BUCKET: usize = 8;
/// The smallest record: 16,384 fingerprints (64 KiB).
pub const FLOOR_ENTRIES: usize = 16_384;
/// Fingerprints kept per live key: the record remembers about four departures per key in the
/// keyspace, enough to see a key evicted a few times over since it was last read.
pub const PER_LIVE_KEY: usize = 4;
const FLOOR_BUCKETS: usize = FLOOR_ENTRIES / BUCKET;
/// Doublings past the floor: at most 2^12 x 64 KiB = 256 MiB, for 16 million live keys.
const MAX_LEVEL: usize = 12;
/// The most memory the record ever takes.
pub const MAX_BYTES: usize = (FLOOR_ENTRIES * 4) << MAX_LEVEL;

type Bucket = [AtomicU32; BUCKET];

/// Why a read found no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MissCause {
    /// Not among the keys that expired or were evicted within the horizon: never written,
    /// deleted, or gone longer ago than the record remembers.
    NeverSeen,
    /// The key expired within the horizon.
    Expired,
    /// The key was evicted within the horizon to make room under maxmemory.
    Evicted,
}

/// The ghost record of evicted and expired key fingerprints.
pub struct MissRecord {
    /// Segment 0 has `FLOOR_BUCKETS` buckets, segment `j > 0` has `FLOOR_BUCKETS << (j - 1)`:
    /// at level `l` the first `l + 1` segments make one table of `FLOOR_BUCKETS << l`.
    segments: [OnceLock<Box<[Bucket]>>; MAX_LEVEL + 1],
    /// How many doublings are in use (every segment up to it is allocated).
    level: AtomicUsize,
    /// The smallest size (level) whose buckets may still hold remembered departures: a lookup
    /// checks the key's bucket at every level from `level` down to it.
    low: AtomicUsize,
    /// Calls of `fit` (about one per 1,024 departures), and the call that last grew it.
    ticks: AtomicU64,
    grown_at: AtomicU64,
    /// Seeds `keyhash::key_hash` (the same on every target, so the browser playground
    /// classifies misses exactly as the server does).
    seed: u64,
    /// (departures so far, ms) once a second as the record is inspected, to turn its horizon
    /// in departures into time.
    checkpoints: Mutex<VecDeque<(u64, u64)>>,
}

const EXPIRED_BIT: u32 = 0;
const EVICTED_BIT: u32 = 1;
/// Checkpoints kept: an hour at one a second.
const CHECKPOINTS: usize = 3600;

/// How far back the record remembers, and what it costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Horizon {
    /// Fingerprints it can hold (about how many departures back it remembers).
    pub capacity: u64,
    /// Bytes it holds (never counted in used_memory or against maxmemory).
    pub bytes: u64,
    /// Departures it remembers now: all of them until it fills, then `capacity`.
    pub departures: u64,
    /// How long ago the oldest remembered departure happened, when known: `None` while
    /// everything since the start (or `CONFIG RESETSTAT`) is remembered, or before two
    /// inspections a second apart.
    pub ms: Option<u64>,
}

impl MissRecord {
    /// An empty record of the floor size; `seed` keys its hash so clients cannot aim keys at
    /// one bucket.
    pub fn new(seed: u64) -> MissRecord {
        let record = MissRecord {
            segments: Default::default(),
            level: AtomicUsize::new(0),
            low: AtomicUsize::new(0),
            ticks: AtomicU64::new(0),
            grown_at: AtomicU64::new(0),
            seed,
            checkpoints: Mutex::new(VecDeque::new()),
        };
        record.segments[0].get_or_init(|| new_segment(FLOOR_BUCKETS));
        record
    }

    /// Fingerprints the record holds.
    pub fn capacity(&self) -> usize {
        (FLOOR_BUCKETS << self.level.load(Relaxed)) * BUCKET
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.capacity() * 4
    }

    /// Grows the record (by doubling) until it holds `PER_LIVE_KEY` fingerprints per live key,
    /// up to `MAX_BYTES`. It never shrinks: a keyspace that was once that large may be again.
    /// Called by the store about once in 1,024 departures (see `remember`), which is also how
    /// it tells when the buckets of the sizes before the last growth hold nothing the
    /// horizon still covers, so lookups stop checking them.
    pub fn fit(&self, live_keys: usize) {
        let tick = self.ticks.fetch_add(1, Relaxed) + 1;
        let want = live_keys.saturating_mul(PER_LIVE_KEY);
        let mut grew = false;
        loop {
            let level = self.level.load(Relaxed);
            if level >= MAX_LEVEL || self.capacity() >= want {
                break;
            }
            let next = level + 1;
            self.segments[next].get_or_init(|| new_segment(FLOOR_BUCKETS << level));
            // Racing growers both set the same level; the segment exists before the level
            // says so, so a reader never indexes a missing one.
            let _ = self.level.compare_exchange(level, next, Relaxed, Relaxed);
            grew = true;
        }
        if grew {
            self.grown_at.store(tick, Relaxed);
        } else if (tick - self.grown_at.load(Relaxed)) * 1024 > self.capacity() as u64 {
            // A whole capacity of departures since the last growth: the older sizes'
            // buckets hold only what the current one has pushed out.
            self.low.store(self.level.load(Relaxed), Relaxed);
        }
    }

    fn bucket(&self, i: usize) -> Option<&Bucket> {
        let (seg, at) = if i < FLOOR_BUCKETS {
            (0, i)
        } else {
            let j = (usize::BITS - 1 - (i / FLOOR_BUCKETS).leading_zeros()) as usize + 1;
            (j, i - (FLOOR_BUCKETS << (j - 1)))
        };
        self.segments.get(seg)?.get()?.get(at)
    }

    /// The key's hash (the database in its seed, so `k` evicted from one database says
    /// nothing about `k` in another): its fingerprint with the cause bit clear (never 0, which
    /// marks an empty word) and the hash whose low bits pick its bucket at each size.
    fn locate(&self, db: usize, key: &[u8]) -> (u32, usize) {
        let h = super::keyhash::key_hash(self.seed ^ (db as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15), key);
        (((h >> 32) as u32 & !1).max(2), h as usize)
    }

    fn index(h: usize, level: usize) -> usize {
        h & ((FLOOR_BUCKETS << level) - 1)
    }

    /// Remembers that `key` (of database `db`) just left the keyspace by `cause` (`Expired`
    /// or `Evicted`; `NeverSeen` is ignored). Returns true about once in 1,024 departures
    /// (by the key's bucket), when the caller should `fit` the record to the keyspace.
    pub fn remember(&self, db: usize, key: &[u8], cause: MissCause) -> bool {
        let bit = match cause {
            MissCause::Expired => EXPIRED_BIT,
            MissCause::Evicted => EVICTED_BIT,
            MissCause::NeverSeen => return false,
        };
        let (tag, h) = self.locate(db, key);
        let now = Self::index(h, self.level.load(Relaxed));
        let Some(bucket) = self.bucket(now) else { return false };
        let word = tag | bit;
        // Already there (under either cause): the latest cause wins, in place. Otherwise the
        // new word goes in front and the oldest falls off the end.
        let end = bucket.iter().position(|w| w.load(Relaxed) & !1 == tag).unwrap_or(BUCKET - 1);
        for i in (1..=end).rev() {
            bucket[i].store(bucket[i - 1].load(Relaxed), Relaxed);
        }
        bucket[0].store(word, Relaxed);
        now % 1024 == 0
    }

    /// Why a read of `key` in database `db` missed.
    pub fn classify(&self, db: usize, key: &[u8]) -> MissCause {
        let (tag, h) = self.locate(db, key);
        let level = self.level.load(Relaxed);
        let low = self.low.load(Relaxed).min(level);
        let mut last = usize::MAX;
        for l in (low..=level).rev() {
            let i = Self::index(h, l);
            if i == last {
                continue;
            }
            last = i;
            let found = self.bucket(i).and_then(|b| b.iter().map(|w| w.load(Relaxed)).find(|v| v & !1 == tag));
            if let Some(v) = found {
                return if v & 1 == EVICTED_BIT { MissCause::Evicted } else { MissCause::Expired };
            }
        }
        MissCause::NeverSeen
    }

    /// The horizon at `now_ms`, given `departures` (evictions plus expirations counted so far):
    /// also records a checkpoint, at most one a second, to turn departures into time.
    pub fn horizon(&self, now_ms: u64, departures: u64) -> Horizon {
        let capacity = self.capacity() as u64;
        let mut marks = self.checkpoints.lock();
        if marks.back().is_some_and(|&(d, _)| d > departures) {
            marks.clear(); // CONFIG RESETSTAT zeroed the counters.
        }
        if marks.back().is_none_or(|&(_, at)| now_ms >= at + 1000) {
            if marks.len() >= CHECKPOINTS {
                marks.pop_front();
            }
            marks.push_back((departures, now_ms));
        }
        let ms = if departures <= capacity {
            None
        } else {
            // The newest checkpoint from before the oldest remembered departure, or else the
            // oldest one there is (the horizon is at least that long).
            let oldest_kept = departures - capacity;
            let mark = marks.iter().rev().find(|&&(d, _)| d <= oldest_kept).or(marks.front());
            mark.map(|&(_, at)| now_ms.saturating_sub(at)).filter(|&ms| ms > 0)
        };
        Horizon { capacity, bytes: self.bytes() as u64, departures: departures.min(capacity), ms }
    }

    /// Forgets everything.
    #[cfg(test)]
    pub fn clear(&self) {
        for seg in self.segments.iter().filter_map(|s| s.get()) {
            for w in seg.iter().flatten() {
                w.store(0, Relaxed);
            }
        }
    }
}

fn new_segment(buckets: usize) -> Box<[Bucket]> {
    (0..buckets).map(|_| Default::default()).collect()
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

    fn known(r: &MissRecord, range: std::ops::Range<usize>) -> usize {
        range.filter(|i| r.classify(0, format!("key:{i}").as_bytes()) == MissCause::Evicted).count()
    }

    #[test]
    fn it_is_bounded_and_remembers_about_its_capacity() {
        let r = MissRecord::new(7);
        let cap = r.capacity();
        assert_eq!(cap, FLOOR_ENTRIES);
        let n = cap * 4;
        for i in 0..n {
            r.remember(0, format!("key:{i}").as_bytes(), MissCause::Evicted);
        }
        // The newest half of a capacity's worth are almost all remembered, the oldest
        // forgotten.
        let recent = known(&r, n - cap / 2..n);
        assert!(recent > cap / 2 * 95 / 100, "recent {recent} of {}", cap / 2);
        assert!(known(&r, 0..1000) < 10, "old");
        // And keys never remembered are never claimed.
        let strangers = (0..20_000).filter(|i| r.classify(0, format!("other:{i}").as_bytes()) != MissCause::NeverSeen);
        assert_eq!(strangers.count(), 0);
        assert_eq!(r.bytes(), cap * 4);
    }

    #[test]
    fn it_grows_with_the_keyspace_and_keeps_what_it_knew() {
        let r = MissRecord::new(7);
        for i in 0..5000 {
            r.remember(0, format!("key:{i}").as_bytes(), MissCause::Evicted);
        }
        r.fit(100_000);
        assert!(r.capacity() >= 400_000, "capacity {}", r.capacity());
        assert!(r.capacity() < 1_000_000);
        // What went in before growing is still found (in its old bucket).
        assert!(known(&r, 0..5000) > 4900);
        // And the larger record remembers a larger horizon.
        let n = 300_000;
        for i in 5000..5000 + n {
            r.remember(0, format!("key:{i}").as_bytes(), MissCause::Evicted);
        }
        assert!(known(&r, 5000..5000 + n) > n * 9 / 10);
        assert_eq!(MAX_BYTES, 256 << 20);
    }

    #[test]
    fn the_horizon_is_reported_in_departures_and_time() {
        let r = MissRecord::new(7);
        let cap = r.capacity() as u64;
        let h = r.horizon(1_000, 10);
        assert_eq!((h.departures, h.ms, h.capacity, h.bytes), (10, None, cap, cap * 4));
        // cap departures a second: after five seconds the horizon is about one second.
        for s in 1..=5 {
            r.horizon(1_000 + s * 1000, 10 + s * cap);
        }
        let h = r.horizon(6_000, 10 + 5 * cap);
        assert_eq!(h.departures, cap);
        assert_eq!(h.ms, Some(1000));
        // RESETSTAT: the counters start again.
        assert_eq!(r.horizon(7_000, 3).ms, None);
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
