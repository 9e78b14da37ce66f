//! The keyspace counters the store bumps itself: hits, misses by cause, evictions and
//! expirations. They live here, not in `stats` (which sits above the store and reads them,
//! sharing this through an `Arc`), so the store imports nothing above it.

use std::sync::atomic::Ordering::Relaxed;

use super::misses::MissCause;
use crate::counter::Counter;

#[derive(Default)]
pub struct KeyspaceCounters {
    pub hits: Counter,
    pub misses: Counter,
    /// `misses` split by cause (they add up to `misses`).
    pub misses_never_seen: Counter,
    pub misses_expired: Counter,
    pub misses_evicted: Counter,
    pub expired_keys: Counter,
    pub evicted_keys: Counter,
}

impl KeyspaceCounters {
    /// Counts a keyspace miss, in the total and under its cause.
    pub fn count_miss(&self, cause: MissCause) {
        self.misses.fetch_add(1, Relaxed);
        let by_cause = match cause {
            MissCause::NeverSeen => &self.misses_never_seen,
            MissCause::Expired => &self.misses_expired,
            MissCause::Evicted => &self.misses_evicted,
        };
        by_cause.fetch_add(1, Relaxed);
    }

    /// Read lookups so far: hits and misses.
    pub fn reads(&self) -> u64 {
        self.hits.load(Relaxed).wrapping_add(self.misses.load(Relaxed))
    }

    /// `CONFIG RESETSTAT`: zero them all.
    pub fn reset(&self) {
        for c in [
            &self.hits,
            &self.misses,
            &self.misses_never_seen,
            &self.misses_expired,
            &self.misses_evicted,
            &self.expired_keys,
            &self.evicted_keys,
        ] {
            c.reset();
        }
    }
}
