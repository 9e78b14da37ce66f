//! Eviction: Redis's policies over sampled keys, with a pool of the best candidates carried
//! across rounds (as Redis's `evictionPoolPopulate`), and the LFU logarithmic counter.
//!
//! Every key of every database is equally likely to be sampled: a stripe is picked in
//! proportion to its keys, a database of it in proportion to its keys, then a key of that
//! shard uniformly (`Table::sample`). Picking a stripe or a database uniformly instead would
//! favour the keys of small ones (a small database's keys would go first).

use std::sync::atomic::Ordering::Relaxed;

use super::entry::Entry;
use super::limits::Policy;
use super::node::Stamps;
use super::{key, misses, weighted_db, EventKind, Shard, Store};

/// Redis's initial LFU counter for new keys, so they are not evicted before they can
/// accumulate hits.
pub const LFU_INIT_VAL: u8 = 5;
/// How many candidates the pool keeps between evictions (Redis: EVPOOL_SIZE).
pub const POOL_SIZE: usize = 16;

/// A key that sampling found worth evicting; higher `score` goes first.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub key: super::key::Key,
    pub stripe: usize,
    pub db: usize,
    pub score: u64,
}

/// The best candidates seen so far, sorted by ascending score (the best is last).
#[derive(Default)]
pub struct Pool {
    items: Vec<Candidate>,
}

impl Pool {
    /// Offers a sampled key; kept when the pool has room or it beats the worst kept.
    pub fn offer(&mut self, cand: Candidate) {
        if self.items.iter().any(|c| c.stripe == cand.stripe && c.db == cand.db && c.key == cand.key) {
            return;
        }
        if self.items.len() >= POOL_SIZE {
            if self.items[0].score >= cand.score {
                return;
            }
            self.items.remove(0);
        }
        let at = self.items.partition_point(|c| c.score <= cand.score);
        self.items.insert(at, cand);
    }

    /// Takes the best candidate.
    pub fn pop(&mut self) -> Option<Candidate> {
        self.items.pop()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.items.len()
    }
}

impl Store {
    /// Evicts one key chosen by the current policy. Returns false when no key qualifies.
    pub fn evict_one(&self, now_ms: u64) -> bool {
        let policy = self.limits().policy();
        match policy {
            Policy::NoEviction => false,
            Policy::AllkeysRandom | Policy::VolatileRandom => self.evict_random(policy, now_ms),
            _ => self.evict_from_pool(policy, now_ms),
        }
    }

    fn evict_random(&self, policy: Policy, now_ms: u64) -> bool {
        let volatile = policy.volatile_only();
        // The counts can be a step behind the shards (another thread between its change and
        // its count): retry a few times rather than give up on a stripe found empty.
        for _ in 0..16 {
            let Some(i) = self.common.weighted_stripe(volatile) else { return false };
            let mut stripe = self.stripes[i].lock();
            let Some(db) = weighted_db(&stripe, volatile, self.common.random()) else { continue };
            let Some(pos) = stripe[db].sample(volatile) else { continue };
            return self.evict_at(&mut stripe[db], pos, now_ms);
        }
        false
    }

    fn evict_at(&self, shard: &mut Shard, pos: usize, now_ms: u64) -> bool {
        let Some(node) = shard.remove_at(pos) else { return false };
        let (db, key) = (shard.db(), node.key());
        self.common.counters.evicted_keys.fetch_add(1, Relaxed);
        self.watches.touch(db, key);
        self.common.remember_departure(db, key, misses::MissCause::Evicted);
        self.common.removals.removed(db, key);
        self.common.events.raise(super::events::class::EVICTED, "evicted", db, key);
        self.common.record(self.common.event(EventKind::Evicted, db, key, &Entry::of(&node), now_ms));
        true
    }

    fn score(&self, policy: Policy, entry: &Entry, now_ms: u64) -> u64 {
        match policy {
            Policy::AllkeysLfu | Policy::VolatileLfu => {
                // Least frequent first; among equals, least recently used first.
                let freq = lfu_decay(entry, now_ms, self.limits().lfu_decay_time());
                ((255 - freq as u64) << 32) | self.common.lru_rank(entry)
            }
            Policy::VolatileTtl => u64::MAX - entry.expire_at,
            _ => self.common.lru_rank(entry),
        }
    }

    /// Samples `maxmemory-samples` keys of a random stripe (across its databases) into the
    /// pool, then evicts the pool's best candidate that still exists (Redis's
    /// `performEvictions` loop).
    fn evict_from_pool(&self, policy: Policy, now_ms: u64) -> bool {
        let volatile = policy.volatile_only();
        let samples = self.limits().samples();
        let mut pool = self.pool.lock();
        for _ in 0..8 {
            let Some(i) = self.common.weighted_stripe(volatile) else {
                pool.clear();
                return false;
            };
            {
                let stripe = self.stripes[i].lock();
                for _ in 0..samples {
                    let Some(db) = weighted_db(&stripe, volatile, self.common.random()) else { break };
                    let shard = &stripe[db];
                    if let Some((key, entry)) = shard.sample(volatile).and_then(|pos| shard.at(pos)) {
                        let score = self.score(policy, &entry, now_ms);
                        pool.offer(Candidate { key: key::Key::new(key), stripe: i, db, score });
                    }
                }
            }
            while let Some(cand) = pool.pop() {
                let mut stripe = self.stripes[cand.stripe].lock();
                let Some(shard) = stripe.get_mut(cand.db) else { continue };
                let Some(pos) = shard.position(&cand.key) else { continue };
                if volatile && !shard.at(pos).is_some_and(|(_, e)| e.has_ttl()) {
                    continue;
                }
                return self.evict_at(shard, pos, now_ms);
            }
        }
        false
    }
}

/// Minutes clock (mod 2^16) that LFU decay counts in, as Redis's `LFUGetTimeInMinutes`.
pub fn lfu_minutes(now_ms: u64) -> u16 {
    ((now_ms / 60_000) & 0xffff) as u16
}

/// The LFU counter after applying decay for the minutes since it was last decremented
/// (Redis's `LFUDecrAndReturn`), without storing it.
pub fn lfu_decay(entry: &Entry<'_>, now_ms: u64, decay_time: u32) -> u8 {
    decay(entry.lfu, entry.lfu_ldt, now_ms, decay_time)
}

fn decay(lfu: u8, ldt: u16, now_ms: u64, decay_time: u32) -> u8 {
    if decay_time == 0 {
        return lfu;
    }
    let now = lfu_minutes(now_ms);
    let elapsed = if now >= ldt { (now - ldt) as u32 } else { 65535 - ldt as u32 + now as u32 };
    let periods = elapsed / decay_time;
    lfu.saturating_sub(periods.min(255) as u8)
}

/// Applies decay then a logarithmic increment (Redis's `updateLFU` with `LFULogIncr`):
/// the counter grows with probability 1 / ((counter - 5) * log_factor + 1).
/// `random` is a uniformly random 64-bit number.
pub fn lfu_increment(stamps: &mut Stamps, now_ms: u64, log_factor: u32, decay_time: u32, random: u64) {
    let mut counter = decay(stamps.lfu, stamps.lfu_ldt, now_ms, decay_time);
    if counter < 255 {
        let r = (random >> 11) as f64 / (1u64 << 53) as f64;
        let base = counter.saturating_sub(LFU_INIT_VAL) as f64;
        let p = 1.0 / (base * log_factor as f64 + 1.0);
        if r < p {
            counter += 1;
        }
    }
    stamps.lfu = counter;
    stamps.lfu_ldt = lfu_minutes(now_ms);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::entry::ValueRef;

    fn entry(s: Stamps) -> Entry<'static> {
        let (seq, atime, lfu, lfu_ldt) = (s.seq, s.atime, s.lfu, s.lfu_ldt);
        Entry { value: ValueRef::Str(&[]), expire_at: 0, seq, atime, lfu, lfu_ldt, size: 0 }
    }

    #[test]
    fn pool_keeps_the_best_sixteen() {
        let mut pool = Pool::default();
        for score in 0..40u64 {
            pool.offer(Candidate {
                key: crate::store::key::Key::new(score.to_string().as_bytes()),
                stripe: 0,
                db: 0,
                score,
            });
        }
        assert_eq!(pool.len(), POOL_SIZE);
        assert_eq!(pool.pop().map(|c| c.score), Some(39));
        assert_eq!(pool.pop().map(|c| c.score), Some(38));
    }

    #[test]
    fn lfu_counter_is_logarithmic_and_decays() {
        let mut e = Stamps { lfu: LFU_INIT_VAL, ..Stamps::default() };
        let mut seed = 0x1234_5678_u64;
        for _ in 0..100_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lfu_increment(&mut e, 0, 10, 1, seed);
        }
        // Redis's table: with factor 10, 100k hits give a counter around 142-ish (<255).
        assert!(e.lfu > 100 && e.lfu < 255, "counter {}", e.lfu);
        // Ten minutes later, decay by one per minute.
        assert_eq!(lfu_decay(&entry(e), 10 * 60_000, 1), e.lfu - 10);
    }
}
