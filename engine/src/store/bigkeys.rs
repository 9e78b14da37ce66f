//! The biggest keys of one shard, kept as sizes change (the Memory page's "big keys").
//!
//! A shard keeps its `CAP` biggest keys seen, and `floor`: a bound on the size of every live
//! key it does not keep. A key that grows above the floor joins; the smallest kept key drops
//! out when there are too many (and the floor rises to its size); a kept key that shrinks or
//! is deleted is updated or dropped. So the kept keys at or above the floor are exactly the
//! shard's biggest. When deletions leave fewer than the `TOP` a reader wants above the floor,
//! the reader rebuilds the list from a walk of the shard (`Shard::rebuild_big_keys`), under
//! the lock it holds to read: writes never walk.
//!
//! On a write the common case is two comparisons: the key was not kept (its old size is
//! below the smallest kept size) and it is not above the floor.

/// Keys kept per shard: twice what the view shows, so a few deletions need no rebuild.
pub const CAP: usize = 40;
/// Keys the view shows.
pub const TOP: usize = 20;

/// One kept key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BigKey {
    pub key: Box<[u8]>,
    /// Accounted bytes.
    pub size: usize,
    /// `Value::type_index`.
    pub type_index: u8,
}

/// A cheap fingerprint of a key (its length and last 8 bytes, where ids usually differ),
/// compared before the key itself when looking it up among the kept ones.
fn fingerprint(key: &[u8]) -> u64 {
    let n = key.len();
    let mut tail = [0u8; 8];
    let take = n.min(8);
    tail[..take].copy_from_slice(&key[n - take..]);
    u64::from_le_bytes(tail) ^ (n as u64).rotate_left(48)
}

#[derive(Debug)]
pub struct BigKeys {
    kept: Vec<BigKey>,
    /// `kept`'s hashes, in the same order: searched first (a tight loop over words).
    hashes: Vec<u64>,
    /// Every live key not in `kept` has at most this size.
    floor: usize,
    /// The smallest size in `kept` (`usize::MAX` when empty): a key whose old size is below
    /// it cannot be kept, so its change needs no search.
    min_kept: usize,
    /// How many kept keys have size `min_kept` (so one of them growing rarely means a walk).
    at_min: usize,
}

impl BigKeys {
    /// A key's size went from `old` to `new` (0: the key is new, or gone).
    #[inline]
    pub fn update(&mut self, key: &[u8], type_index: usize, old: usize, new: usize) {
        if old < self.min_kept && new <= self.floor {
            return;
        }
        self.update_slow(key, type_index, old, new);
    }

    #[cold]
    fn update_slow(&mut self, key: &[u8], type_index: usize, old: usize, new: usize) {
        let hash = fingerprint(key);
        let found = if old >= self.min_kept { self.position(hash, key, old) } else { None };
        match (found, new) {
            (Some(i), 0) => {
                self.kept.swap_remove(i);
                self.hashes.swap_remove(i);
                self.left_min(old);
            }
            (Some(i), _) => {
                self.kept[i].size = new;
                self.kept[i].type_index = type_index as u8;
                if new < self.min_kept {
                    (self.min_kept, self.at_min) = (new, 1);
                } else if new == self.min_kept && old != new {
                    self.at_min += 1;
                } else if new > old {
                    self.left_min(old);
                }
            }
            (None, 0) => {}
            (None, _) if new > self.floor && self.kept.len() >= CAP && new <= self.min_kept => {
                // It would be the one to drop out again: raise the floor instead (as a
                // dropped key would), without taking it in. So when many keys grow to the
                // same size, only the first few pay for more than the fast path.
                self.floor = new;
            }
            (None, _) if new > self.floor => {
                self.kept.push(BigKey { key: key.into(), size: new, type_index: type_index as u8 });
                self.hashes.push(hash);
                if self.kept.len() > CAP {
                    let smallest = self.smallest();
                    let gone = self.kept.swap_remove(smallest);
                    self.hashes.swap_remove(smallest);
                    self.floor = self.floor.max(gone.size);
                }
                self.recompute_min();
            }
            (None, _) => {}
        }
    }

    /// Where `key` (hashing to `hash`, of size `size`) is kept.
    fn position(&self, hash: u64, key: &[u8], size: usize) -> Option<usize> {
        let mut from = 0;
        while let Some(i) = self.hashes[from..].iter().position(|&h| h == hash) {
            let at = from + i;
            let b = &self.kept[at];
            if b.size == size && *b.key == *key {
                return Some(at);
            }
            from = at + 1;
        }
        None
    }

    fn recompute_min(&mut self) {
        self.min_kept = self.kept.iter().map(|b| b.size).min().unwrap_or(usize::MAX);
        self.at_min = self.kept.iter().filter(|b| b.size == self.min_kept).count();
    }

    /// A kept key of size `old` grew or left: the minimum moves only with the last at it.
    fn left_min(&mut self, old: usize) {
        if old == self.min_kept {
            self.at_min -= 1;
            if self.at_min == 0 {
                self.recompute_min();
            }
        }
    }

    fn smallest(&self) -> usize {
        self.kept.iter().enumerate().min_by_key(|(_, b)| b.size).map_or(0, |(i, _)| i)
    }

    /// Whether the kept keys known to be the shard's biggest are fewer than `TOP` (or than
    /// the shard's keys): then a reader rebuilds.
    pub fn needs_rebuild(&self, shard_len: usize) -> bool {
        self.exact().count() < TOP.min(shard_len)
    }

    /// The kept keys known to be the shard's biggest.
    pub fn exact(&self) -> impl Iterator<Item = &BigKey> {
        self.kept.iter().filter(move |b| b.size >= self.floor)
    }

    /// Forgets everything.
    #[cfg(test)]
    pub fn clear(&mut self) {
        *self = BigKeys::default();
    }

    /// Heap bytes held (for the ledger's report of its own bound).
    pub fn heap_bytes(&self) -> usize {
        self.kept.capacity() * std::mem::size_of::<BigKey>()
            + self.hashes.capacity() * 8
            + self.kept.iter().map(|b| b.key.len()).sum::<usize>()
    }
}

impl Default for BigKeys {
    fn default() -> BigKeys {
        BigKeys { kept: Vec::new(), hashes: Vec::new(), floor: 0, min_kept: usize::MAX, at_min: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The exact top of a model keyspace, sizes only (ties make key identity ambiguous).
    fn top_sizes(model: &HashMap<Vec<u8>, usize>, n: usize) -> Vec<usize> {
        let mut sizes: Vec<usize> = model.values().copied().collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.truncate(n);
        sizes
    }

    #[test]
    fn follows_growth_shrinking_and_deletion_against_a_model() {
        let mut big = BigKeys::default();
        let mut model: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut x = 12345u64;
        for step in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = format!("k{}", (x >> 33) % 300).into_bytes();
            let old = model.get(&key).copied().unwrap_or(0);
            let new = if (x >> 20).is_multiple_of(5) { 0 } else { 1 + ((x >> 40) % 10_000) as usize };
            big.update(&key, 0, old, new);
            if new == 0 {
                model.remove(&key);
            } else {
                model.insert(key, new);
            }
            if big.needs_rebuild(model.len()) {
                big.clear();
                for (k, &s) in &model {
                    big.update(k, 0, 0, s);
                }
            }
            let min = big.kept.iter().map(|b| b.size).min().unwrap_or(usize::MAX);
            assert_eq!(
                (big.min_kept, big.at_min),
                (min, big.kept.iter().filter(|b| b.size == min).count()),
                "step {step}"
            );
            assert_eq!(big.hashes, big.kept.iter().map(|b| fingerprint(&b.key)).collect::<Vec<_>>());
            let mut got: Vec<usize> = big.exact().map(|b| b.size).collect();
            got.sort_unstable_by(|a, b| b.cmp(a));
            got.truncate(TOP);
            assert_eq!(got, top_sizes(&model, TOP), "step {step}");
            for b in big.exact() {
                assert_eq!(model.get(&*b.key), Some(&b.size), "kept key has its live size");
            }
        }
    }
}
