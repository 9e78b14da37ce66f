//! The shard's index: an open-addressing table of `Node`s (one 8-byte pointer a slot) with a
//! byte of probe distance beside each slot, in Robin Hood order, so an entry costs its node
//! plus about 12 bytes of table where a hash map of structs cost some 100.
//!
//! Robin Hood order keeps every entry at or after its home slot and the entries sorted by
//! home; homes are `hash * capacity >> 32`, so they are also sorted by hash. That gives:
//! lookups that compare keys only for entries with the same home (the distance byte says
//! which), deletion by shifting the rest of the run back (no tombstones), any capacity (it
//! grows by half at 90% full, so the table stays 60-90% full), and a SCAN cursor that is a
//! hash value rather than a position, so keys that stay for a whole scan are returned even
//! when the table grows or shrinks in between. Sampling (eviction, RANDOMKEY) picks random
//! slots until one holds an entry, so every entry is equally likely.
//!
//! Homes use `keyhash::key_hash`, the same on every target, so the playground (wasm32) lays
//! out, lists and samples keys exactly as the server does.

use super::keyhash::key_hash;
use super::node::{prefetch, Node};

/// Grow when more than `MAX_LOAD_PCT` of the home range is in use.
const MAX_LOAD_PCT: usize = 90;
/// Shrink when less than this share of it is (deleting keys gives memory back).
const MIN_LOAD_PCT: usize = 20;
const MIN_CAP: usize = 8;
/// Slots past the home range, so a run never wraps around (at most this many).
const TAIL: usize = 64;
/// Random slots `sample` tries before it settles for the next entry after one.
const SAMPLE_TRIES: usize = 64;
/// Distances are stored plus one (0 marks an empty slot) in a byte.
const MAX_STORED_DIST: u8 = u8::MAX;

pub struct Table {
    slots: Vec<Option<Node>>,
    /// Per slot: 0 when empty, else 1 + how far the entry sits past its home slot.
    dist: Vec<u8>,
    /// The home range: homes are in `0..cap`, slots in `0..cap + tail`.
    cap: usize,
    len: usize,
    seed: u64,
}

impl Table {
    pub fn new(seed: u64) -> Table {
        Table { slots: Vec::new(), dist: Vec::new(), cap: 0, len: 0, seed }
    }

    fn with_cap(seed: u64, cap: usize) -> Table {
        let n = cap + TAIL.min(cap);
        let mut slots = Vec::with_capacity(n);
        slots.resize_with(n, || None);
        Table { slots, dist: vec![0; n], cap, len: 0, seed }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slots allocated (for tests and accounting checks).
    #[cfg(test)]
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The 32-bit hash that places a key.
    pub fn hash(&self, key: &[u8]) -> u32 {
        (key_hash(self.seed, key) >> 32) as u32
    }

    fn home(&self, h: u32) -> usize {
        ((h as u64 * self.cap as u64) >> 32) as usize
    }

    /// The smallest hash whose home is `home` or later (a SCAN cursor).
    fn first_hash_of(&self, home: usize) -> u64 {
        (((home as u128) << 32).div_ceil(self.cap as u128)) as u64
    }

    /// The slot holding `key`.
    pub fn find(&self, key: &[u8]) -> Option<usize> {
        self.find_by(self.hash(key), |n| n.key() == key)
    }

    /// The slot holding the node at `addr`, whose key hashes to `hash`.
    pub fn find_addr(&self, hash: u32, addr: usize) -> Option<usize> {
        self.find_by(hash, |n| n.addr() == addr)
    }

    fn find_by(&self, h: u32, eq: impl Fn(&Node) -> bool) -> Option<usize> {
        if self.cap == 0 {
            return None;
        }
        let mut pos = self.home(h);
        let mut d = 1;
        while pos < self.slots.len() {
            let m = self.dist[pos] as usize;
            if m < d {
                // Empty, or an entry whose home is later than ours: ours would sit before it.
                return None;
            }
            if m == d && self.slots[pos].as_ref().is_some_and(&eq) {
                return Some(pos);
            }
            pos += 1;
            d += 1;
        }
        None
    }

    /// Warms the cache for a coming lookup of a key hashing to `h`: its home slot's distance
    /// byte and pointer (stage one of `Store::prefetch_slot`).
    pub fn prefetch_home(&self, h: u32) {
        if self.cap == 0 {
            return;
        }
        let home = self.home(h);
        prefetch(self.dist.as_ptr() as usize + home);
        prefetch(self.slots.as_ptr() as usize + home * std::mem::size_of::<Option<Node>>());
    }

    /// Warms the cache for the nodes in `h`'s home slot and the next, where a key usually
    /// sits (stage two, once `prefetch_home` has brought the slots in).
    pub fn prefetch_nodes(&self, h: u32) {
        if self.cap == 0 {
            return;
        }
        let home = self.home(h);
        for node in self.slots[home..(home + 2).min(self.slots.len())].iter().flatten() {
            prefetch(node.addr());
        }
    }

    pub fn get(&self, pos: usize) -> Option<&Node> {
        self.slots.get(pos)?.as_ref()
    }

    pub fn get_mut(&mut self, pos: usize) -> Option<&mut Node> {
        self.slots.get_mut(pos)?.as_mut()
    }

    /// Puts `node` in the occupied slot `pos` (same key), returning the node it replaces.
    pub fn replace(&mut self, pos: usize, node: Node) -> Option<Node> {
        debug_assert!(self.get(pos).is_some_and(|n| n.key() == node.key()));
        self.slots.get_mut(pos)?.replace(node)
    }

    /// Inserts a node whose key is not in the table; returns its slot.
    pub fn insert(&mut self, node: Node) -> usize {
        if (self.len + 1) * 100 > self.cap * MAX_LOAD_PCT {
            self.resize(self.cap + self.cap / 2);
        }
        let h = self.hash(node.key());
        loop {
            if let Some(pos) = self.make_room(h) {
                self.slots[pos] = Some(node);
                self.len += 1;
                return pos;
            }
            self.resize(self.cap + self.cap / 2);
        }
    }

    /// Opens the slot where an entry of hash `h` belongs (after the entries of the same or
    /// earlier homes), shifting the rest of its run one slot on, and returns it. `None`, with
    /// nothing changed, when the run would pass the last slot or a distance its byte.
    fn make_room(&mut self, h: u32) -> Option<usize> {
        if self.cap == 0 {
            return None;
        }
        let mut pos = self.home(h);
        let mut d = 1usize;
        while pos < self.slots.len() && self.dist[pos] as usize >= d {
            pos += 1;
            d += 1;
        }
        let mut end = pos;
        while end < self.slots.len() && self.dist[end] != 0 {
            if self.dist[end] == MAX_STORED_DIST {
                return None;
            }
            end += 1;
        }
        if end == self.slots.len() || d > MAX_STORED_DIST as usize {
            return None;
        }
        self.slots[pos..=end].rotate_right(1);
        self.dist[pos..=end].rotate_right(1);
        for m in &mut self.dist[pos + 1..=end] {
            *m += 1;
        }
        self.dist[pos] = d as u8;
        Some(pos)
    }

    /// Takes the node out of slot `pos`, closing the gap.
    pub fn remove(&mut self, pos: usize) -> Option<Node> {
        let node = self.slots.get_mut(pos)?.take()?;
        let mut end = pos + 1;
        while end < self.slots.len() && self.dist[end] > 1 {
            end += 1;
        }
        self.slots[pos..end].rotate_left(1);
        self.dist[pos..end].rotate_left(1);
        for m in &mut self.dist[pos..end - 1] {
            *m -= 1;
        }
        self.dist[end - 1] = 0;
        self.len -= 1;
        if self.cap > MIN_CAP && self.len * 100 < self.cap * MIN_LOAD_PCT {
            self.resize(self.len * 2);
        }
        Some(node)
    }

    /// Rebuilds the table with a home range of `cap` slots (or more, if the entries do not
    /// fit in it with distances under a byte).
    fn resize(&mut self, cap: usize) {
        let mut cap = cap.max(MIN_CAP);
        let mut nodes: Vec<Node> = std::mem::take(&mut self.slots).into_iter().flatten().collect();
        'attempt: loop {
            let mut t = Table::with_cap(self.seed, cap);
            let mut rest = nodes.into_iter();
            while let Some(node) = rest.next() {
                match t.make_room(t.hash(node.key())) {
                    Some(pos) => t.slots[pos] = Some(node),
                    None => {
                        nodes = t.slots.into_iter().flatten().chain(std::iter::once(node)).chain(rest).collect();
                        cap += cap / 2;
                        continue 'attempt;
                    }
                }
            }
            t.len = self.len;
            *self = t;
            return;
        }
    }

    /// Drops every entry and the table's memory.
    pub fn clear(&mut self) {
        *self = Table::new(self.seed);
    }

    /// A slot holding an entry, every entry equally likely: random slots until one is
    /// occupied (rejection sampling). Taking the next entry after a random slot instead would
    /// favour the entry after each run of empty slots, and Robin Hood keeps runs long where
    /// hashes cluster, so those entries were picked several times as often. The table is at
    /// least a fifth full, so this takes a few tries; only a nearly empty table (a handful of
    /// entries in the minimum slots) may run out of tries and take the next entry after the
    /// last slot tried.
    pub fn sample(&self, mut random: impl FnMut() -> u64) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        // Entries past the home range are the overflow of the last run, so they sit right
        // after it, without holes: draw from the home range and that overflow only.
        let n = self.cap + self.dist[self.cap..].iter().take_while(|&&d| d != 0).count();
        let mut start = 0;
        for _ in 0..SAMPLE_TRIES {
            start = (random() % n as u64) as usize;
            if self.dist[start] != 0 {
                return Some(start);
            }
        }
        (start..n).chain(0..start).find(|&i| self.dist[i] != 0)
    }

    /// Every entry, in slot (hash) order.
    pub fn iter(&self) -> impl Iterator<Item = &Node> + '_ {
        self.slots.iter().flatten()
    }

    /// One SCAN step: visits entries whose hash is at least `from` (a cursor: 0 to start),
    /// about `budget` of them, ending between two homes. Returns the next cursor and the
    /// entries it looked at, or `None` as the cursor when the table is done. An entry present
    /// for the whole walk is visited at least once, however the table resizes in between.
    pub fn scan(&self, from: u64, budget: usize, mut visit: impl FnMut(&Node)) -> (Option<u64>, usize) {
        if self.cap == 0 || from > u32::MAX as u64 {
            return (None, 0);
        }
        let start = self.home(from as u32);
        let mut seen = 0;
        let mut last_home = None;
        for pos in start..self.slots.len() {
            let m = self.dist[pos] as usize;
            let Some(node) = self.slots[pos].as_ref().filter(|_| m > 0) else { continue };
            let home = pos + 1 - m;
            if home < start {
                continue; // displaced from an earlier home: before the cursor
            }
            if seen >= budget && Some(home) != last_home {
                // A boundary: every entry of an earlier home is behind `pos`.
                return (Some(self.first_hash_of(home)), seen);
            }
            seen += 1;
            last_home = Some(home);
            visit(node);
        }
        (None, seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::entry::{Value, ValueRef};
    use crate::store::node::{Stamps, EMBED_MAX};
    use std::collections::BTreeSet;

    fn node(key: &str) -> Node {
        Node::new(key.as_bytes(), Value::Str(key.as_bytes().to_vec()), 0, Stamps::default(), EMBED_MAX)
    }

    fn check(t: &Table) {
        // Every entry is found where it is, homes never decrease, runs have no holes.
        let mut prev_home = 0;
        for pos in 0..t.slots.len() {
            match (&t.slots[pos], t.dist[pos]) {
                (None, 0) => {}
                (Some(n), d) if d > 0 => {
                    let home = pos + 1 - d as usize;
                    assert_eq!(home, t.home(t.hash(n.key())), "slot {pos}");
                    assert!(home >= prev_home);
                    prev_home = home;
                    assert_eq!(t.find(n.key()), Some(pos));
                }
                _ => panic!("slot {pos} and its distance disagree"),
            }
        }
        assert_eq!(t.iter().count(), t.len());
    }

    #[test]
    fn insert_lookup_remove_grow_and_shrink() {
        let mut t = Table::new(7);
        for i in 0..5000 {
            t.insert(node(&format!("key:{i}")));
        }
        check(&t);
        assert_eq!(t.len(), 5000);
        assert!(t.slot_count() * 100 <= 5000 * 100 * 100 / 55, "load stays high: {} slots", t.slot_count());
        for i in 0..5000 {
            let pos = t.find(format!("key:{i}").as_bytes()).expect("present");
            assert_eq!(t.get(pos).map(|n| n.value()), Some(ValueRef::Str(format!("key:{i}").as_bytes())));
        }
        assert_eq!(t.find(b"nope"), None);
        for i in (0..5000).filter(|i| i % 7 != 0) {
            let pos = t.find(format!("key:{i}").as_bytes()).expect("present");
            assert_eq!(t.remove(pos).map(|n| n.key().to_vec()), Some(format!("key:{i}").into_bytes()));
        }
        check(&t);
        assert_eq!(t.len(), 715);
        assert!(t.slot_count() < 4000, "shrank: {} slots", t.slot_count());
        let pos = t.find(b"key:14").unwrap();
        assert!(t.replace(pos, node("key:14")).is_some());
        t.clear();
        assert_eq!((t.len(), t.slot_count(), t.find(b"key:0")), (0, 0, None));
    }

    #[test]
    fn find_by_address() {
        let mut t = Table::new(1);
        for i in 0..100 {
            t.insert(node(&i.to_string()));
        }
        let pos = t.find(b"42").unwrap();
        let addr = t.get(pos).unwrap().addr();
        assert_eq!(t.find_addr(t.hash(b"42"), addr), Some(pos));
        assert_eq!(t.find_addr(t.hash(b"42"), addr + 8), None);
    }

    #[test]
    fn samples_reach_every_entry() {
        let mut t = Table::new(3);
        for i in 0..50 {
            t.insert(node(&i.to_string()));
        }
        let mut seen = BTreeSet::new();
        let mut r = 0x1234_5678u64;
        for _ in 0..5000 {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seen.insert(t.get(t.sample(|| r >> 11).unwrap()).unwrap().key().to_vec());
        }
        assert_eq!(seen.len(), 50);
        assert_eq!(Table::new(0).sample(|| 5), None);
    }

    /// A deterministic random source for the sampling tests (64-bit LCG, high bits).
    fn lcg(seed: u64) -> impl FnMut() -> u64 {
        let mut r = seed;
        move || {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            r >> 11
        }
    }

    /// Chi-square of how often `sample` picks each entry against the uniform expectation.
    fn pick_chi_square(t: &Table, draws: usize, mut pick: impl FnMut(&Table) -> usize) -> (f64, usize) {
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            *counts.entry(pick(t)).or_insert(0usize) += 1;
        }
        let expected = draws as f64 / t.len() as f64;
        let missing = t.len() - counts.len();
        let chi: f64 =
            counts.values().map(|&c| (c as f64 - expected).powi(2) / expected).sum::<f64>() + missing as f64 * expected;
        (chi, t.len() - 1)
    }

    #[test]
    fn samples_reach_entries_that_overflow_past_the_home_range() {
        // Keys homed in the last few slots run over into the tail.
        let mut t = Table::new(11);
        let keys: Vec<String> =
            (0..).map(|i| format!("end{i}")).filter(|k| t.hash(k.as_bytes()) > u32::MAX - (1 << 27)).take(12).collect();
        for k in &keys {
            t.insert(node(k));
        }
        check(&t);
        assert!(t.dist[t.cap] != 0, "the test needs an entry past the home range");
        let mut random = lcg(0x7a11);
        let mut seen = BTreeSet::new();
        for _ in 0..5000 {
            seen.insert(t.get(t.sample(&mut random).unwrap()).unwrap().key().to_vec());
        }
        assert_eq!(seen.len(), keys.len());
    }

    #[test]
    fn samples_every_entry_equally_often_even_where_hashes_cluster() {
        // Most keys hash into the first quarter (one long run of full slots), a few spread
        // over the rest (each after a gap): the layout that biased "next entry after a
        // random slot" towards the spread ones.
        let mut t = Table::new(7);
        let (mut clustered, mut spread) = (0, 0);
        for i in 0.. {
            let key = format!("k{i}");
            let low = t.hash(key.as_bytes()) < 1 << 30;
            if low && clustered < 150 {
                clustered += 1;
            } else if !low && spread < 30 {
                spread += 1;
            } else if clustered == 150 && spread == 30 {
                break;
            } else {
                continue;
            }
            t.insert(node(&key));
        }
        check(&t);
        let draws = 180 * 200;
        let mut random = lcg(0x5eed);
        let (chi, df) = pick_chi_square(&t, draws, |t| t.sample(&mut random).unwrap());
        // Mean df, standard deviation sqrt(2 df): six deviations is a bound a uniform
        // sampler stays under with this seed (and any other, all but never).
        let bound = df as f64 + 6.0 * (2.0 * df as f64).sqrt();
        assert!(chi < bound, "chi-square {chi:.0} over {df} degrees of freedom (bound {bound:.0})");
        // The old method (next entry after one random slot) fails the same bound.
        let mut random = lcg(0x5eed);
        let (old, _) = pick_chi_square(&t, draws, |t| {
            let n = t.slots.len();
            let start = (random() % n as u64) as usize;
            (start..n).chain(0..start).find(|&i| t.dist[i] != 0).unwrap()
        });
        assert!(old > bound, "old method: chi-square {old:.0} (bound {bound:.0})");
    }

    #[test]
    fn scan_returns_keys_that_stay_across_resizes() {
        let mut t = Table::new(9);
        for i in 0..2000 {
            t.insert(node(&format!("stay:{i}")));
        }
        let mut seen = BTreeSet::new();
        let mut cursor = Some(0);
        let mut step = 0;
        while let Some(from) = cursor {
            let (next, looked) = t.scan(from, 10, |n| {
                seen.insert(n.key().to_vec());
            });
            assert!(looked >= 10 || next.is_none(), "{looked} {next:?}");
            cursor = next;
            step += 1;
            // Grow and shrink the table while the scan runs.
            if step % 3 == 0 {
                for j in 0..200 {
                    t.insert(node(&format!("churn:{step}:{j}")));
                }
            } else if step % 3 == 1 {
                let doomed: Vec<Vec<u8>> =
                    t.iter().map(|n| n.key().to_vec()).filter(|k| k.starts_with(b"churn")).take(300).collect();
                for k in doomed {
                    let pos = t.find(&k).unwrap();
                    t.remove(pos);
                }
            }
        }
        check(&t);
        for i in 0..2000 {
            assert!(seen.contains(format!("stay:{i}").as_bytes()), "stay:{i} missed");
        }
    }
}
