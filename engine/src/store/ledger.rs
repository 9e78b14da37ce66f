//! The memory ledger: accounted bytes and key counts by key prefix (two levels, split on a
//! one-byte delimiter, `:` by default), by value type and by whether a key has a TTL, kept by
//! each shard at the points where it accounts an entry's memory (see `Shard`), under the lock
//! the write already holds; merged across shards when read. No write walks the keyspace.
//!
//! Every byte of a shard's `used` is in exactly one place: an entry's accounted size under its
//! type (and TTL state) and under its prefix, and the hash-field-TTL index under `index_bytes`.
//! So the parts add up to the data part of `used_memory` (INFO's `used_memory_dataset`).
//!
//! Memory is bounded: at most [`L1_CAP`] first-level and [`L2_CAP`] second-level names per
//! shard, each at most [`NAME_MAX`] bytes; the rest is folded into "(other)". A name is given
//! a place only while its level's "(other)" holds no key, so a name that has no place has all
//! its keys in "(other)", and subtracting a key always finds the part it was added to. A
//! name's place is freed when its last key goes.
//!
//! Names: a key's first-level name is the key up to and including the first delimiter
//! (`user:`), or empty when it has none; its second-level name goes up to the second
//! delimiter (`user:42:`), or is the first-level name itself for keys with only one
//! (`user:42` is counted under `user:` at both levels, "directly under `user:`").

use std::collections::HashMap;
use std::mem::size_of;

use foldhash::fast::RandomState;

use super::bigkeys::BigKeys;
use super::entry::{node_size, Value};
use super::node::Node;
use super::{Shard, Store};

/// First-level names kept per shard.
pub const L1_CAP: usize = 256;
/// Second-level names kept per shard.
pub const L2_CAP: usize = 1024;
/// Longest name kept; a longer prefix is counted in "(other)".
pub const NAME_MAX: usize = 128;
/// The delimiter until `vitrine-ledger-delimiter` says otherwise.
pub const DEFAULT_DELIMITER: u8 = b':';

/// Keys and their accounted bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Part {
    pub keys: u64,
    pub bytes: u64,
}

impl Part {
    #[inline]
    fn apply(&mut self, keys: i64, bytes: i64) {
        self.keys = self.keys.wrapping_add(keys as u64);
        self.bytes = self.bytes.wrapping_add(bytes as u64);
    }

    pub fn merge(&mut self, other: &Part) {
        self.keys += other.keys;
        self.bytes += other.bytes;
    }
}

/// A first-level prefix: all its keys, those with a TTL, and each type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrefixParts {
    pub all: Part,
    pub volatile: Part,
    pub by_type: [Part; Value::TYPES],
}

impl PrefixParts {
    #[inline]
    fn apply(&mut self, type_index: usize, ttl: bool, keys: i64, bytes: i64) {
        self.all.apply(keys, bytes);
        if ttl {
            self.volatile.apply(keys, bytes);
        }
        self.by_type[type_index].apply(keys, bytes);
    }

    pub fn merge(&mut self, other: &PrefixParts) {
        self.all.merge(&other.all);
        self.volatile.merge(&other.volatile);
        for (a, b) in self.by_type.iter_mut().zip(&other.by_type) {
            a.merge(b);
        }
    }
}

/// What the ledger needs to know of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// Accounted bytes (`node_size`).
    pub size: usize,
    pub type_index: usize,
    pub ttl: bool,
}

impl Facts {
    #[inline]
    pub fn of(node: &Node) -> Facts {
        Facts { size: node_size(node), type_index: node.type_index(), ttl: node.has_ttl() }
    }
}

/// Where a key is counted at one level.
enum Name<'a> {
    Named(&'a [u8]),
    /// Too long to keep: "(other)".
    Other,
    /// Not counted at this level (a key without a delimiter has no second level).
    None,
}

/// A key's first- and second-level names.
#[inline]
fn names(key: &[u8], delimiter: u8) -> (Name<'_>, Name<'_>) {
    let Some(i) = key.iter().position(|&b| b == delimiter) else {
        return (Name::Named(&[]), Name::None);
    };
    if i >= NAME_MAX {
        return (Name::Other, Name::Other);
    }
    let first = &key[..=i];
    let second = match key[i + 1..].iter().position(|&b| b == delimiter) {
        Some(j) if i + 1 + j < NAME_MAX => Name::Named(&key[..=i + 1 + j]),
        Some(_) => Name::Other,
        None => Name::Named(first),
    };
    (Name::Named(first), second)
}

/// One level's named parts: a vector indexed by a hash map, so the name used last (writes to
/// a shard often share a prefix) is found again with one comparison instead of a hash lookup.
#[derive(Debug)]
pub(crate) struct Names<P> {
    parts: Vec<(Box<[u8]>, P)>,
    index: HashMap<Box<[u8]>, u32, RandomState>,
    /// The position found last (may be stale after a removal: then it is just a miss).
    last: usize,
}

impl<P> Default for Names<P> {
    fn default() -> Names<P> {
        Names { parts: Vec::new(), index: HashMap::default(), last: 0 }
    }
}

impl<P> Names<P> {
    #[inline]
    fn find(&mut self, name: &[u8]) -> Option<usize> {
        if self.parts.get(self.last).is_some_and(|(n, _)| **n == *name) {
            return Some(self.last);
        }
        let i = *self.index.get(name)? as usize;
        self.last = i;
        Some(i)
    }

    fn insert(&mut self, name: &[u8], part: P) {
        self.last = self.parts.len();
        self.index.insert(name.into(), self.last as u32);
        self.parts.push((name.into(), part));
    }

    fn remove_at(&mut self, i: usize) {
        let (name, _) = self.parts.swap_remove(i);
        self.index.remove(&name);
        if let Some((moved, _)) = self.parts.get(i) {
            if let Some(slot) = self.index.get_mut(moved) {
                *slot = i as u32;
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.parts.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u8], &P)> {
        self.parts.iter().map(|(n, p)| (&**n, p))
    }

    #[cfg(test)]
    fn get(&self, name: &[u8]) -> Option<&P> {
        self.index.get(name).and_then(|&i| self.parts.get(i as usize)).map(|(_, p)| p)
    }

    /// Heap bytes held: each name twice (vector and index) and the slots.
    fn heap_bytes(&self) -> usize {
        let names: usize = self.parts.iter().map(|(n, _)| n.len()).sum();
        let slot = size_of::<(Box<[u8]>, P)>();
        2 * names + self.parts.capacity() * slot + self.index.capacity() * (size_of::<(Box<[u8]>, u32)>() + 1)
    }
}

/// Applies a change of `keys` keys to `name`'s part of one level, or to its "(other)" when
/// the name has no place; gives the name a place only while "(other)" holds no key (see the
/// module docs), and frees it with its last key.
#[inline]
fn tally<P: Default>(
    map: &mut Names<P>,
    other: &mut P,
    cap: usize,
    name: Name<'_>,
    keys: i64,
    apply: impl Fn(&mut P),
    count: impl Fn(&P) -> u64,
) {
    let name = match name {
        Name::Named(name) => name,
        Name::Other => return apply(other),
        Name::None => return,
    };
    if let Some(i) = map.find(name) {
        let p = &mut map.parts[i].1;
        apply(p);
        if keys < 0 && count(p) == 0 {
            map.remove_at(i);
        }
    } else if keys > 0 && count(other) == 0 && map.len() < cap {
        let mut p = P::default();
        apply(&mut p);
        map.insert(name, p);
    } else {
        apply(other);
    }
}

/// One shard's ledger.
#[derive(Debug)]
pub struct Ledger {
    delimiter: u8,
    /// Indexed by [has a TTL][type].
    by_type: [[Part; Value::TYPES]; 2],
    first: Names<PrefixParts>,
    first_other: PrefixParts,
    second: Names<Part>,
    second_other: Part,
    /// Bytes of the shard's index of hashes with field TTLs (not any one key's).
    pub(crate) index_bytes: usize,
    /// The shard's biggest keys.
    pub(crate) big: BigKeys,
}

impl Ledger {
    pub fn new(delimiter: u8) -> Ledger {
        Ledger {
            delimiter,
            by_type: [[Part::default(); Value::TYPES]; 2],
            first: Names::default(),
            first_other: PrefixParts::default(),
            second: Names::default(),
            second_other: Part::default(),
            index_bytes: 0,
            big: BigKeys::default(),
        }
    }

    /// A key came in with `f`.
    #[inline]
    pub fn add(&mut self, key: &[u8], f: Facts) {
        self.big.update(key, f.type_index, 0, f.size);
        self.count(key, f.type_index, f.ttl, 1, f.size as i64);
    }

    /// A key that had `f` went.
    #[inline]
    pub fn remove(&mut self, key: &[u8], f: Facts) {
        self.big.update(key, f.type_index, f.size, 0);
        self.count(key, f.type_index, f.ttl, -1, -(f.size as i64));
    }

    /// A key stayed and went from `old` to `new` (a free check when nothing changed: most
    /// cache overwrites).
    #[inline]
    pub fn change(&mut self, key: &[u8], old: Facts, new: Facts) {
        if old == new {
            return;
        }
        self.big.update(key, new.type_index, old.size, new.size);
        if old.type_index == new.type_index && old.ttl == new.ttl {
            self.count(key, new.type_index, new.ttl, 0, new.size as i64 - old.size as i64);
        } else {
            self.count(key, old.type_index, old.ttl, -1, -(old.size as i64));
            self.count(key, new.type_index, new.ttl, 1, new.size as i64);
        }
    }

    fn count(&mut self, key: &[u8], type_index: usize, ttl: bool, keys: i64, bytes: i64) {
        self.by_type[ttl as usize][type_index].apply(keys, bytes);
        let (first, second) = names(key, self.delimiter);
        let apply = |p: &mut PrefixParts| p.apply(type_index, ttl, keys, bytes);
        tally(&mut self.first, &mut self.first_other, L1_CAP, first, keys, apply, |p| p.all.keys);
        tally(&mut self.second, &mut self.second_other, L2_CAP, second, keys, |p| p.apply(keys, bytes), |p| p.keys);
    }

    /// Forgets every key (FLUSHDB), keeping the delimiter.
    pub fn clear(&mut self) {
        *self = Ledger::new(self.delimiter);
    }

    /// Bytes the ledger holds itself (its bound is reported beside it).
    pub fn heap_bytes(&self) -> usize {
        self.first.heap_bytes() + self.second.heap_bytes() + self.big.heap_bytes() + size_of::<Ledger>()
    }

    /// Every accounted byte this ledger knows of: its keys' and the index's.
    #[cfg(test)]
    pub fn total_bytes(&self) -> u64 {
        self.by_type.iter().flatten().map(|p| p.bytes).sum::<u64>() + self.index_bytes as u64
    }

    /// Whether the prefix parts (and "(other)") add up to the type parts, for tests.
    #[cfg(test)]
    pub fn consistent(&self) -> bool {
        let mut sum = self.first_other.all;
        self.first.iter().for_each(|(_, p)| sum.merge(&p.all));
        let mut types = Part::default();
        self.by_type.iter().flatten().for_each(|p| types.merge(p));
        sum == types && self.first.iter().all(|(_, p)| p.all.keys > 0)
    }
}

/// Keys with a TTL looked at per shard for the TTL histogram: every one up to this many,
/// else a random sample of this many, scaled up.
pub const TTL_SAMPLE: usize = 512;
/// Upper bounds (ms) of the TTL histogram's buckets; the last bucket is everything above.
pub const TTL_BUCKETS_MS: [u64; 6] = [1_000, 10_000, 60_000, 600_000, 3_600_000, 86_400_000];
/// "Expiring within" windows (ms) of the expiry rate ahead.
pub const AHEAD_MS: [u64; 3] = [1_000, 10_000, 60_000];

/// Remaining TTLs, counted or estimated (see [`TTL_SAMPLE`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TtlCounts {
    /// Keys per bucket of [`TTL_BUCKETS_MS`], then above the last (a key already due counts
    /// in the first).
    pub buckets: [f64; TTL_BUCKETS_MS.len() + 1],
    /// Keys expiring within each window of [`AHEAD_MS`].
    pub ahead: [f64; AHEAD_MS.len()],
    pub no_ttl: u64,
    pub volatile: u64,
    /// Keys whose TTL was read.
    pub looked: u64,
}

impl TtlCounts {
    /// Whether every key with a TTL was read (no estimate).
    pub fn exact(&self) -> bool {
        self.looked == self.volatile
    }
}

/// The ledgers of a set of shards merged, with their biggest keys and TTLs.
#[derive(Debug, Default)]
pub struct Merged {
    pub delimiter: u8,
    pub by_type: [[Part; Value::TYPES]; 2],
    pub index_bytes: u64,
    pub first: HashMap<Box<[u8]>, PrefixParts, RandomState>,
    pub first_other: PrefixParts,
    pub second: HashMap<Box<[u8]>, Part, RandomState>,
    pub second_other: Part,
    /// The biggest keys, biggest first, with their database.
    pub big: Vec<(usize, super::bigkeys::BigKey)>,
    /// Bytes the ledgers hold themselves (not counted in `used_memory`).
    pub ledger_bytes: u64,
    pub shards: usize,
    pub ttl: TtlCounts,
}

impl Merged {
    fn add(&mut self, shard: &Shard, now_ms: u64) {
        let l = &shard.ledger;
        for (a, b) in self.by_type.iter_mut().flatten().zip(l.by_type.iter().flatten()) {
            a.merge(b);
        }
        self.index_bytes += l.index_bytes as u64;
        for (name, p) in l.first.iter() {
            self.first.entry(name.into()).or_default().merge(p);
        }
        self.first_other.merge(&l.first_other);
        for (name, p) in l.second.iter() {
            self.second.entry(name.into()).or_default().merge(p);
        }
        self.second_other.merge(&l.second_other);
        self.big.extend(l.big.exact().map(|b| (shard.db(), b.clone())));
        self.ledger_bytes += l.heap_bytes() as u64;
        self.shards += 1;
        let volatile = shard.volatile_len();
        let ttl = &mut self.ttl;
        ttl.volatile += volatile as u64;
        ttl.no_ttl += (shard.len() - volatile) as u64;
        let mut seen = Vec::with_capacity(volatile.min(TTL_SAMPLE));
        shard.sample_expiries(TTL_SAMPLE, |at| seen.push(at.saturating_sub(now_ms)));
        ttl.looked += seen.len() as u64;
        let weight = if seen.is_empty() { 0.0 } else { volatile as f64 / seen.len() as f64 };
        for left in seen {
            let bucket = TTL_BUCKETS_MS.iter().position(|&b| left < b).unwrap_or(TTL_BUCKETS_MS.len());
            ttl.buckets[bucket] += weight;
            for (a, &w) in ttl.ahead.iter_mut().zip(&AHEAD_MS) {
                if left <= w {
                    *a += weight;
                }
            }
        }
    }

    /// Accounted bytes of everything merged: with every database, `used_memory_dataset`.
    pub fn total_bytes(&self) -> u64 {
        self.by_type.iter().flatten().map(|p| p.bytes).sum::<u64>() + self.index_bytes
    }
}

impl Shard {
    /// Brings this shard's ledger up to date for a reader: rebuilt from a walk of the shard
    /// when the delimiter changed or deletions left too few big keys known (see `bigkeys`).
    fn refresh_ledger(&mut self, delimiter: u8) {
        if self.ledger.delimiter == delimiter && !self.ledger.big.needs_rebuild(self.len()) {
            return;
        }
        let mut ledger = Ledger::new(delimiter);
        ledger.index_bytes = self.ledger.index_bytes;
        for node in self.table.iter() {
            ledger.add(node.key(), Facts::of(node));
        }
        *self.ledger = ledger;
    }
}

impl Store {
    /// The memory ledger of database `db` (every database when `None`), merged from each
    /// shard's under its stripe's lock, one stripe at a time.
    pub fn ledger(&self, db: Option<usize>, now_ms: u64) -> Merged {
        let delimiter = self.limits().ledger_delimiter();
        let mut merged = Merged { delimiter, ..Merged::default() };
        for stripe in self.stripes.iter() {
            let mut stripe = stripe.lock();
            for shard in stripe.iter_mut().filter(|s| db.is_none_or(|d| d == s.db())) {
                shard.refresh_ledger(delimiter);
                merged.add(shard, now_ms);
            }
        }
        merged.big.sort_by(|a, b| b.1.size.cmp(&a.1.size).then_with(|| a.1.key.cmp(&b.1.key)));
        merged.big.truncate(super::bigkeys::TOP);
        merged
    }
}

#[cfg(test)]
impl Store {
    /// Whether every shard's ledger adds up to its `used` and its parts agree (tests).
    pub(crate) fn check_ledgers(&self) -> Result<(), String> {
        for (i, stripe) in self.stripes.iter().enumerate() {
            for shard in stripe.lock().iter() {
                let l = &shard.ledger;
                if l.total_bytes() != shard.used as u64 {
                    return Err(format!(
                        "stripe {i} db {}: ledger {} != used {}",
                        shard.db(),
                        l.total_bytes(),
                        shard.used
                    ));
                }
                if let Some(node) = shard.table.iter().find(|n| n.type_index() != n.value().type_index()) {
                    return Err(format!(
                        "node type {} but value type {}",
                        node.type_index(),
                        node.value().type_index()
                    ));
                }
                let keys: u64 = l.by_type.iter().flatten().map(|p| p.keys).sum();
                if keys != shard.len() as u64 || !l.consistent() {
                    return Err(format!(
                        "stripe {i} db {}: {keys} keys in the ledger, {} in the shard",
                        shard.db(),
                        shard.len()
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod model;

#[cfg(test)]
mod tests {
    use super::*;

    fn f(size: usize, type_index: usize, ttl: bool) -> Facts {
        Facts { size, type_index, ttl }
    }

    fn named<'a>(n: Name<'a>) -> Option<&'a [u8]> {
        match n {
            Name::Named(x) => Some(x),
            _ => None,
        }
    }

    #[test]
    fn names_split_on_the_delimiter() {
        let (a, b) = names(b"user:42:name", b':');
        assert_eq!((named(a), named(b)), (Some(&b"user:"[..]), Some(&b"user:42:"[..])));
        let (a, b) = names(b"user:42", b':');
        assert_eq!((named(a), named(b)), (Some(&b"user:"[..]), Some(&b"user:"[..])));
        let (a, b) = names(b"plain", b':');
        assert_eq!(named(a), Some(&b""[..]));
        assert!(matches!(b, Name::None));
        let long = [b"x".repeat(200), b":y".to_vec()].concat();
        assert!(matches!(names(&long, b':'), (Name::Other, Name::Other)));
        let (a, _) = names(b"a/b", b'/');
        assert_eq!(named(a), Some(&b"a/"[..]));
    }

    #[test]
    fn folds_past_the_cap_and_frees_places() {
        let mut l = Ledger::new(b':');
        for i in 0..L1_CAP + 10 {
            l.add(format!("p{i}:x").as_bytes(), f(100, 0, false));
        }
        assert_eq!(l.first.len(), L1_CAP);
        assert_eq!(l.first_other.all, Part { keys: 10, bytes: 1000 });
        // A freed place is not given while "(other)" holds keys: they may be that name's.
        l.remove(b"p0:x", f(100, 0, false));
        l.add(format!("p{}:x", L1_CAP + 3).as_bytes(), f(100, 0, false));
        assert_eq!(l.first_other.all.keys, 11);
        assert!(l.consistent());
        for i in 0..L1_CAP + 10 {
            let key = format!("p{i}:x");
            if i != 0 {
                l.remove(key.as_bytes(), f(100, 0, false));
            }
        }
        l.remove(format!("p{}:x", L1_CAP + 3).as_bytes(), f(100, 0, false));
        assert_eq!(l.total_bytes(), 0);
        assert!(l.first.len() == 0 && l.second.len() == 0);
        assert_eq!(l.first_other, PrefixParts::default());
    }

    #[test]
    fn a_change_moves_bytes_between_types_and_ttl_states() {
        let mut l = Ledger::new(b':');
        l.add(b"a:1", f(100, 0, false));
        l.change(b"a:1", f(100, 0, false), f(150, 1, true));
        assert_eq!(l.by_type[1][1], Part { keys: 1, bytes: 150 });
        assert_eq!(l.by_type[0][0], Part::default());
        let p = l.first.get(&b"a:"[..]).copied().unwrap_or_default();
        assert_eq!(p.volatile, Part { keys: 1, bytes: 150 });
        assert_eq!(p.by_type[1], Part { keys: 1, bytes: 150 });
        assert_eq!(l.total_bytes(), 150);
    }
}
