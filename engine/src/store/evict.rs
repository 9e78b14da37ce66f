//! Eviction: Redis's policies over sampled keys, with a pool of the best candidates carried
//! across rounds (as Redis's `evictionPoolPopulate`), and the LFU logarithmic counter.

use super::entry::Entry;
use super::node::Stamps;

/// Redis's initial LFU counter for new keys, so they are not evicted before they can
/// accumulate hits.
pub const LFU_INIT_VAL: u8 = 5;
/// How many candidates the pool keeps between evictions (Redis: EVPOOL_SIZE).
pub const POOL_SIZE: usize = 16;

/// A key that sampling found worth evicting; higher `score` goes first.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub key: super::key::Key,
    pub shard: usize,
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
        if self.items.iter().any(|c| c.shard == cand.shard && c.key == cand.key) {
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
            pool.offer(Candidate { key: crate::store::key::Key::new(score.to_string().as_bytes()), shard: 0, score });
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
