//! What-if memory: an online miss-ratio curve, the hit ratio the current workload would get
//! at other memory limits, by spatial sampling of reuse distances (SHARDS, Waldspurger et
//! al., FAST '15).
//!
//! A read of a key at LRU stack distance `d` (the bytes of the distinct keys touched since
//! its previous access, plus its own) hits in any LRU cache of at least `d` bytes, so a
//! histogram of the distances of all reads gives the hit ratio at every size at once. Only
//! keys whose hash falls under a threshold are tracked (1 in 64 at most, fewer once more
//! than [`MAX_SAMPLED_KEYS`] are, by lowering the threshold), and distances among them are
//! scaled by the sampling rate: the estimate is of a cache of `d / rate` bytes.
//!
//! On the hot path a non-sampled access costs the key's hash and one compare; a sampled one
//! takes this module's mutex and does O(log n) work in a Fenwick tree indexed by access
//! time, whose entries are the sizes of the sampled keys at their latest access.
//!
//! Reads (GET and the other read lookups, those that count keyspace hits and misses) are
//! references, recorded in the histogram; writes only move the key to the top of the stack
//! with its new size, as a write allocates in the cache without being a hit or a miss. It
//! models exact LRU of accounted bytes (`used_memory`'s units); the cache evicts by sampled
//! LRU (or LFU, or TTL), so it is an estimate, whose error the `mrc_accuracy` example
//! measures. TTLs and deletes are not modelled.
//!
//! Which keys fall in the sample matters on a skewed workload: one hot key in or out of it
//! moves the share of short distances by points. So, as SHARDS_adj, the curve compares the
//! sampled reads with the number expected (all reads, from the keyspace counters, times the
//! rate) and adds the difference to the shortest distances.
//!
//! The histogram halves every [`DECAY_READS`] sampled reads, so the curve follows the
//! workload of the last few million reads rather than all time.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use parking_lot::Mutex;

use super::keyhash::key_hash;

/// Hashes are compared on their top 24 bits: the threshold is out of 2^24.
const RATE_BITS: u32 = 24;
const FULL: u64 = 1 << RATE_BITS;
/// The highest sampling rate, 1/64: at most one access in 64 takes the lock.
const START_THRESHOLD: u64 = FULL / 64;
/// Most keys tracked at once (about 100 bytes each); past it the rate drops.
pub const MAX_SAMPLED_KEYS: usize = 8192;
/// Distance buckets per doubling.
const PER_OCTAVE: f64 = 16.0;
/// Distances from 2^6 bytes to 2^46 bytes (64 TiB).
const MIN_LOG2: f64 = 6.0;
const BUCKETS: usize = 40 * 16;
/// Sampled reads between halvings of the histogram.
pub const DECAY_READS: f64 = 65_536.0;

/// The online miss-ratio curve.
pub struct Mrc {
    seed: u64,
    /// Accesses whose hash's top bits are below this are sampled.
    threshold: AtomicU64,
    state: Mutex<State>,
}

struct Sampled {
    /// Index of its latest access in the Fenwick tree.
    at: usize,
    size: u64,
    /// Its sampled reads (decayed with the histogram), for the spread of the sample's count.
    reads: f64,
}

#[derive(Default)]
struct State {
    keys: HashMap<u64, Sampled>,
    /// Fenwick tree over access times: the size of the key whose latest access was then.
    tree: Vec<u64>,
    /// The key hash accessed at each time (0: none, or accessed again since).
    owner: Vec<u64>,
    next: usize,
    /// Sampled reads by scaled reuse distance (see `bucket_of`).
    hist: Vec<f64>,
    /// Sampled reads of keys not seen before (misses at any size).
    cold: f64,
    reads: f64,
    since_decay: f64,
    /// All reads (sampled or not) counted by the keyspace counters at the last sampled read,
    /// and where the current stretch of expected reads starts (see `expected`).
    last_total: u64,
    mark: Option<u64>,
    /// Sampled reads expected before `mark`, decayed as the histogram is.
    expected_before: f64,
}

/// One point of the curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub bytes: u64,
    pub hit_ratio: f64,
}

/// What the sampler holds now.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MrcFacts {
    /// Accesses sampled, as a fraction (1/64 at most).
    pub rate: f64,
    pub sampled_keys: u64,
    /// Sampled reads the histogram holds (decayed).
    pub sampled_reads: f64,
    /// Bytes the sampler takes (not counted in used_memory or against maxmemory).
    pub bytes: u64,
    /// The hit ratio without a memory limit (only first reads miss).
    pub unlimited: Option<f64>,
}

fn bucket_of(distance: f64) -> usize {
    let b = (distance.max(1.0).log2() - MIN_LOG2) * PER_OCTAVE;
    (b.max(0.0) as usize).min(BUCKETS - 1)
}

/// The upper edge of bucket `b` in bytes.
fn bucket_top(b: usize) -> f64 {
    ((b + 1) as f64 / PER_OCTAVE + MIN_LOG2).exp2()
}

impl Mrc {
    pub fn new(seed: u64) -> Mrc {
        Mrc { seed, threshold: AtomicU64::new(START_THRESHOLD), state: Mutex::new(State::default()) }
    }

    #[inline(always)]
    fn sampled(&self, db: usize, key: &[u8]) -> Option<u64> {
        let h = key_hash(self.seed ^ db as u64, key);
        ((h >> (64 - RATE_BITS)) < self.threshold.load(Relaxed)).then_some(h | 1)
    }

    /// A read of `key` in `db`: `size` is its accounted bytes when it was found, `None` on a
    /// miss. `reads` is how many reads there have been in all (the keyspace hits and misses),
    /// asked only when this one is sampled.
    #[inline]
    pub fn read(&self, db: usize, key: &[u8], size: Option<usize>, reads: impl FnOnce() -> u64) {
        if let Some(h) = self.sampled(db, key) {
            self.access(h, size, Some(reads()));
        }
    }

    /// A write of `key` in `db`, which now takes `size` accounted bytes.
    #[inline]
    pub fn write(&self, db: usize, key: &[u8], size: usize) {
        if let Some(h) = self.sampled(db, key) {
            self.access(h, Some(size), None);
        }
    }

    /// A sampled access: a read when `total_reads` is given.
    #[cold]
    fn access(&self, h: u64, size: Option<usize>, total_reads: Option<u64>) {
        let read = total_reads.is_some();
        let rate = self.threshold.load(Relaxed) as f64 / FULL as f64;
        let mut s = self.state.lock();
        if let Some(total) = total_reads {
            // The counters went back (CONFIG RESETSTAT): start the stretch again.
            if s.mark.is_none_or(|m| total < m) {
                s.mark = Some(total);
            }
            s.last_total = total;
        }
        if s.hist.is_empty() {
            s.hist = vec![0.0; BUCKETS];
        }
        let previous = s.keys.remove(&h);
        let size = size.map(|n| n as u64).or(previous.as_ref().map(|p| p.size));
        let key_reads = previous.as_ref().map_or(0.0, |p| p.reads) + if read { 1.0 } else { 0.0 };
        if let Some(p) = &previous {
            // Bytes of the distinct sampled keys touched since, scaled to the whole keyspace,
            // plus the key itself.
            let after = s.sum_from(p.at + 1);
            s.add(p.at, -(p.size as i64));
            s.owner[p.at] = 0;
            if read {
                let d = after as f64 / rate + size.unwrap_or(p.size) as f64;
                let b = bucket_of(d);
                s.hist[b] += 1.0;
            }
        } else if read {
            s.cold += 1.0;
        }
        if read {
            s.reads += 1.0;
            s.since_decay += 1.0;
            if s.since_decay >= DECAY_READS {
                s.decay(rate);
            }
        }
        // A read miss of a key never sampled leaves nothing to track: its size is unknown
        // until it is written.
        let Some(size) = size else { return };
        if s.next == s.tree.len() {
            s.compact();
        }
        let at = s.next;
        s.next += 1;
        s.add(at, size as i64);
        s.owner[at] = h;
        s.keys.insert(h, Sampled { at, size, reads: key_reads });
        if s.keys.len() > MAX_SAMPLED_KEYS {
            self.lower_rate(&mut s);
        }
    }

    /// Samples a quarter fewer keys: drops those whose hash is now above the threshold.
    fn lower_rate(&self, s: &mut State) {
        let old = self.threshold.load(Relaxed);
        s.close_stretch(old as f64 / FULL as f64);
        let threshold = (old * 3 / 4).max(1);
        self.threshold.store(threshold, Relaxed);
        let dropped: Vec<u64> = s.keys.keys().copied().filter(|h| (h >> (64 - RATE_BITS)) >= threshold).collect();
        for h in dropped {
            if let Some(p) = s.keys.remove(&h) {
                s.add(p.at, -(p.size as i64));
                s.owner[p.at] = 0;
            }
        }
    }

    /// The estimated hit ratio of an LRU cache of each of `sizes` bytes, for the reads
    /// sampled lately; `None` before any.
    pub fn curve(&self, sizes: &[u64]) -> Option<Vec<CurvePoint>> {
        let rate = self.threshold.load(Relaxed) as f64 / FULL as f64;
        let s = self.state.lock();
        if s.reads <= 0.0 {
            return None;
        }
        let (hist, reads) = s.adjusted(rate);
        let mut cumulative = Vec::with_capacity(hist.len());
        let mut sum = 0.0;
        for n in &hist {
            sum += n;
            cumulative.push(sum);
        }
        let hits_within = |bytes: f64| -> f64 {
            if bytes <= 0.0 {
                return 0.0;
            }
            let b = bucket_of(bytes);
            let below = if b == 0 { 0.0 } else { cumulative[b - 1] };
            // Interpolate within the bucket, on the log scale its edges are spaced on.
            let lo = if b == 0 { 0.0 } else { bucket_top(b - 1).log2() };
            let frac = ((bytes.log2() - lo) * PER_OCTAVE).clamp(0.0, 1.0);
            below + frac * hist[b]
        };
        Some(sizes.iter().map(|&bytes| CurvePoint { bytes, hit_ratio: hits_within(bytes as f64) / reads }).collect())
    }

    pub fn facts(&self) -> MrcFacts {
        let rate = self.threshold.load(Relaxed) as f64 / FULL as f64;
        let s = self.state.lock();
        let bytes = s.keys.capacity() * (size_of::<(u64, Sampled)>() + 1)
            + (s.tree.capacity() + s.owner.capacity() + s.hist.capacity()) * 8;
        MrcFacts {
            rate,
            sampled_keys: s.keys.len() as u64,
            sampled_reads: s.reads,
            bytes: bytes as u64,
            unlimited: (s.reads > 0.0).then(|| 1.0 - s.cold / s.adjusted(rate).1),
        }
    }

    /// Forgets every sample.
    #[cfg(test)]
    pub fn reset(&self) {
        *self.state.lock() = State::default();
        self.threshold.store(START_THRESHOLD, Relaxed);
    }
}

impl State {
    fn add(&mut self, at: usize, delta: i64) {
        let mut i = at + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1].wrapping_add(delta as u64);
            i += i & i.wrapping_neg();
        }
    }

    /// The sum of entries `0..end`.
    fn prefix(&self, end: usize) -> u64 {
        let mut i = end.min(self.tree.len());
        let mut sum = 0u64;
        while i > 0 {
            sum = sum.wrapping_add(self.tree[i - 1]);
            i &= i - 1;
        }
        sum
    }

    fn sum_from(&self, at: usize) -> u64 {
        self.prefix(self.next).wrapping_sub(self.prefix(at))
    }

    /// Renumbers the live accesses from 0, in order, into a tree four times their number, so
    /// times never run out and the tree stays proportional to the keys sampled.
    fn compact(&mut self) {
        let live: Vec<u64> = self.owner[..self.next].iter().copied().filter(|&h| h != 0).collect();
        let len = (live.len() * 4).max(1024);
        self.tree = vec![0; len];
        self.owner = vec![0; len];
        self.next = 0;
        for h in live {
            let size = match self.keys.get_mut(&h) {
                Some(k) => {
                    k.at = self.next;
                    k.size
                }
                None => continue,
            };
            let at = self.next;
            self.next += 1;
            self.owner[at] = h;
            self.add(at, size as i64);
        }
    }

    /// Sampled reads expected so far: all reads since the first sampled one, times the rate
    /// each was sampled at (decayed with the histogram).
    fn expected(&self, rate: f64) -> f64 {
        self.expected_before + self.mark.map_or(0.0, |m| self.last_total.saturating_sub(m) as f64 * rate)
    }

    /// Folds the reads expected since `mark` at `rate` into `expected_before` (the rate is
    /// about to change, or the histogram to decay).
    fn close_stretch(&mut self, rate: f64) {
        self.expected_before = self.expected(rate);
        if self.mark.is_some() {
            self.mark = Some(self.last_total);
        }
    }

    /// The histogram with the difference between the expected and the sampled reads added to
    /// its shortest distances (SHARDS_adj), and the reads it then stands for.
    fn adjusted(&self, rate: f64) -> (Vec<f64>, f64) {
        let mut hist = self.hist.clone();
        let expected = self.expected(rate);
        // Too few reads yet to trust the expectation either way.
        if expected < 100.0 || hist.is_empty() {
            return (hist, self.reads);
        }
        let mut diff = expected - self.reads;
        // Keys are sampled, not reads, so the sample's count of reads varies by the squares of
        // the keys' counts (first reads of keys never written count one each). A difference
        // within three standard deviations of that is chance, spread over every distance, not
        // a hot key in or out of the sample: a uniform workload, or one of misses, is left as
        // sampled. An excess is judged without the heavy keys (ten times the mean count or
        // more), which are what it would come from.
        let n = (self.keys.len() as f64 + self.cold).max(1.0);
        let mean = (self.keys.values().map(|k| k.reads).sum::<f64>() + self.cold) / n;
        let heavy = |k: &&Sampled| diff < 0.0 && k.reads > 10.0 * mean.max(1.0);
        let spread: f64 = self.keys.values().filter(|k| !heavy(k)).map(|k| k.reads * k.reads).sum::<f64>() + self.cold;
        if diff.abs() <= 3.0 * spread.max(expected).sqrt() {
            return (hist, self.reads);
        }
        if diff >= 0.0 {
            hist[0] += diff;
        } else {
            for n in hist.iter_mut() {
                let take = n.min(-diff);
                *n -= take;
                diff += take;
                if diff >= 0.0 {
                    break;
                }
            }
        }
        (hist, expected.max(self.cold).max(1.0))
    }

    fn decay(&mut self, rate: f64) {
        self.close_stretch(rate);
        self.expected_before /= 2.0;
        for k in self.keys.values_mut() {
            k.reads /= 2.0;
        }
        for n in &mut self.hist {
            *n /= 2.0;
        }
        self.cold /= 2.0;
        self.reads /= 2.0;
        self.since_decay = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> Vec<u8> {
        format!("key:{i}").into_bytes()
    }

    /// A deterministic generator (splitmix64).
    fn rng(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn a_uniform_load_hits_in_proportion_to_the_memory() {
        // 20,000 keys of 1,000 bytes read uniformly (look-aside: a miss writes the key): an
        // LRU cache of M bytes holds M / 1000 of them and hits that fraction of reads.
        let m = Mrc::new(3);
        let mut r = 1;
        let mut present = std::collections::HashSet::new();
        for n in 0..2_000_000 {
            let k = rng(&mut r) % 20_000;
            let hit = present.contains(&k);
            m.read(0, &key(k), hit.then_some(1000), || n);
            if !hit {
                m.write(0, &key(k), 1000);
                present.insert(k);
            }
        }
        let c = m.curve(&[5_000_000, 10_000_000, 30_000_000]).unwrap();
        assert!((c[0].hit_ratio - 0.25).abs() < 0.05, "{c:?}");
        assert!((c[1].hit_ratio - 0.5).abs() < 0.05, "{c:?}");
        assert!(c[2].hit_ratio > 0.95, "{c:?}");
        let f = m.facts();
        assert!(f.rate <= 1.0 / 64.0);
        assert!(f.sampled_keys > 200 && f.sampled_keys < 500, "{f:?}");
        assert!(f.unlimited.unwrap() > 0.95);
    }

    #[test]
    fn a_large_keyspace_lowers_the_rate_and_stays_bounded() {
        let m = Mrc::new(3);
        for i in 0..(MAX_SAMPLED_KEYS as u64 * 64 * 3) {
            m.write(0, &key(i), 100);
        }
        let f = m.facts();
        assert!(f.rate < 1.0 / 64.0 / 2.0, "{f:?}");
        assert!(f.sampled_keys <= MAX_SAMPLED_KEYS as u64);
        assert!(f.bytes < 2 << 20, "{f:?}");
        // No reads, no curve.
        assert_eq!(m.curve(&[1]), None);
    }

    #[test]
    fn a_key_reread_at_once_hits_in_any_cache_that_holds_it() {
        let m = Mrc::new(3);
        // Find sampled keys, then read each right after writing it.
        let sampled: Vec<u64> = (0..100_000).filter(|&i| m.sampled(0, &key(i)).is_some()).take(50).collect();
        assert!(sampled.len() == 50);
        for &i in &sampled {
            m.read(0, &key(i), None, || 0);
            m.write(0, &key(i), 500);
            m.read(0, &key(i), Some(500), || 0);
        }
        let c = m.curve(&[400, 600, 1 << 30]).unwrap();
        // Half the reads were first reads (cold), half hit at their own size.
        assert_eq!(c[0].hit_ratio, 0.0);
        assert!((c[1].hit_ratio - 0.5).abs() < 0.01, "{c:?}");
        assert!((c[2].hit_ratio - 0.5).abs() < 0.01, "{c:?}");
        m.reset();
        assert_eq!(m.curve(&[1]), None);
    }

    #[test]
    fn a_hot_key_in_the_sample_is_weighed_by_the_reads_expected() {
        // A hot sampled key read 1,000 times among 1,000 reads of sampled keys never seen
        // again, while all reads number only 64 x 1,500: the sample holds 500 more reads than
        // expected, the hot key's, taken from the shortest distances (1/3 hit, not 1/2).
        let m = Mrc::new(3);
        let mut sampled = (0..1_000_000).filter(|&i| m.sampled(0, &key(i)).is_some());
        let hot = sampled.next().unwrap();
        let cold: Vec<u64> = sampled.take(1000).collect();
        m.write(0, &key(hot), 100);
        for (n, &c) in cold.iter().enumerate() {
            let total = n as u64 * 2 * 48;
            m.read(0, &key(hot), Some(100), || total);
            m.read(0, &key(c), None, || total + 48);
        }
        let c = m.curve(&[1 << 20]).unwrap();
        assert!((c[0].hit_ratio - 1.0 / 3.0).abs() < 0.02, "{c:?}");
        assert!((m.facts().unlimited.unwrap() - 1.0 / 3.0).abs() < 0.02);
    }
}
