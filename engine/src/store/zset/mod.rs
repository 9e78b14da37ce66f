//! A sorted set: unique members ordered by (score, member), with O(log n) rank and range
//! queries, the encoding Redis 7.0 would report for it, and a running count of its bytes.
//!
//! Rule for every collection type: `heap_size` is O(1). The type keeps a running byte count
//! updated by each mutation, because `Shard::update` re-measures the value after every write.
//!
//! Two structures share the elements. A hash map (`IndexMap`, member -> tree node) answers
//! membership and scores in O(1) and gives ZSCAN positions to walk. An order-statistics tree
//! keeps the order: a weight-balanced binary search tree (Adams' tree with Hirai and
//! Yamamoto's parameters ⟨3, 2⟩) whose nodes live in an arena `Vec` linked by `u32` indices
//! and know their subtree's size, so rank, element-at-rank and the rank of a score or lex
//! bound are all O(log n) descents, and a range of k elements is walked in O(log n + k).
//! A member's bytes are held once, as the map's key; a node names its map position.
//!
//! The order is Redis's: scores compare as numbers (so -0 and 0 tie), ties by member bytes.
//!
//! This file holds the set's API and its encoding rules; `tree` the order-statistics tree
//! (balancing, rank descents, in-order walks, compaction).

#[cfg(test)]
mod tests;
mod tree;

use std::mem::size_of;

use foldhash::fast::RandomState;
use indexmap::IndexMap;

use super::encodings;
use super::entry::alloc_size;
use tree::{Node, NIL, SENTINEL};

/// Bytes per member beyond its own allocation: its tree node, the map's entry (hash, member,
/// node index), its slot in the map's index table, and an allowance for free slots.
pub const ELEMENT_OVERHEAD: usize = size_of::<Node>() + size_of::<(u64, Box<[u8]>, u32)>() + size_of::<usize>() + 8;

/// Accounted bytes of one member.
fn element_size(member: &[u8]) -> usize {
    alloc_size(member.len()) + ELEMENT_OVERHEAD
}

/// One end of a score range: `(5` excludes 5, `5` includes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreBound {
    pub value: f64,
    pub exclusive: bool,
}

/// One end of a lex range: `-`, `+`, `[member` or `(member`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LexBound {
    /// `-`: below every member.
    Min,
    /// `+`: above every member.
    Max,
    Inclusive(Vec<u8>),
    Exclusive(Vec<u8>),
}

/// What `ZSetValue::insert` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insert {
    Added,
    /// The member was there with another score.
    Updated,
    /// The member was there with an equal score: nothing changed.
    Unchanged,
}

/// A sorted set.
#[derive(Debug, Clone)]
pub struct ZSetValue {
    /// Member -> its tree node. A random hasher per set, so no client can pick members that
    /// collide.
    map: IndexMap<Box<[u8]>, u32, RandomState>,
    /// The tree's arena; slot 0 is the sentinel.
    nodes: Vec<Node>,
    root: u32,
    /// Head of the free slots, linked through `left`.
    free: u32,
    /// Accounted heap bytes of the elements (kept up to date by every mutation).
    bytes: usize,
    /// Converted to Redis's `skiplist` encoding; like Redis, it never converts back.
    big: bool,
}

impl Default for ZSetValue {
    fn default() -> ZSetValue {
        ZSetValue { map: IndexMap::default(), nodes: vec![SENTINEL], root: NIL, free: NIL, bytes: 0, big: false }
    }
}

impl PartialEq for ZSetValue {
    /// The same members with the same scores (in the same order, then).
    fn eq(&self, other: &ZSetValue) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a.0 == b.0 && a.1 == b.1)
    }
}

impl ZSetValue {
    pub fn new() -> ZSetValue {
        ZSetValue::default()
    }

    /// A set of these distinct members, built in O(n log n): how ZUNIONSTORE and ZINTERSTORE
    /// store their result. Encoded as Redis 7.0 leaves such a result: `listpack` when it is
    /// small enough, else `skiplist`.
    pub fn from_distinct(members: Vec<(Box<[u8]>, f64)>) -> ZSetValue {
        let mut z = ZSetValue::new();
        let t = encodings::current();
        z.big = members.len() > t.zset_max_listpack_entries
            || members.iter().any(|(m, _)| m.len() > t.zset_max_listpack_value);
        let mut order: Vec<(f64, u32)> = Vec::with_capacity(members.len());
        z.map.reserve(members.len());
        for (member, score) in members {
            z.bytes += element_size(&member);
            let entry = z.map.len() as u32;
            let (_, old) = z.map.insert_full(member, 0);
            debug_assert!(old.is_none(), "members must be distinct");
            order.push((z.stored(score), entry));
        }
        order.sort_by(|a, b| z.cmp_keys(a.0, z.key(a.1), b.0, z.key(b.1)));
        z.rebuild_from(&order);
        z
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Heap bytes held, in O(1).
    pub fn heap_size(&self) -> usize {
        self.bytes
    }

    /// Whether Redis would hold this set as a `skiplist` (else a `listpack`).
    pub fn is_big(&self) -> bool {
        self.big
    }

    /// What `OBJECT ENCODING` answers (listpack / skiplist, by Redis 7.0's rules).
    pub fn encoding(&self) -> &'static str {
        if self.big {
            "skiplist"
        } else {
            "listpack"
        }
    }

    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.map.get(member).map(|&n| self.nodes[n as usize].score)
    }

    /// The 0-based rank of a member in ascending order.
    pub fn rank(&self, member: &[u8]) -> Option<usize> {
        self.map.get(member).map(|&n| self.rank_of(n))
    }

    /// Redis 7.2's `zsetTypeCreate` and `zsetTypeMaybeConvert` before ZADD writes `count`
    /// elements, the first `first_len` bytes long: a skiplist at once when that many could not
    /// be a listpack (or, for a new set, when its first member is too long).
    pub fn expect_members(&mut self, count: usize, first_len: usize) {
        let t = encodings::current();
        if count > t.zset_max_listpack_entries || (self.map.is_empty() && first_len > t.zset_max_listpack_value) {
            self.big = true;
        }
    }

    /// Adds a member or changes its score. An equal score (even -0 for 0) changes nothing.
    pub fn insert(&mut self, member: &[u8], score: f64) -> Insert {
        debug_assert!(!score.is_nan());
        if let Some(&node) = self.map.get(member) {
            if self.nodes[node as usize].score == score {
                return Insert::Unchanged;
            }
            self.root = self.remove_at(self.root, node);
            let n = &mut self.nodes[node as usize];
            n.score = if self.big { score } else { normalize_zero(score) };
            (n.left, n.right, n.size) = (NIL, NIL, 1);
            self.root = self.insert_at(self.root, node);
            return Insert::Updated;
        }
        // Redis 7.0 converts before adding the member that would not fit a listpack.
        let t = encodings::current();
        if self.map.len() >= t.zset_max_listpack_entries || member.len() > t.zset_max_listpack_value {
            self.big = true;
        }
        let entry = u32::try_from(self.map.len()).expect("a sorted set holds fewer than 2^32 members");
        let node = self.alloc(Node { score: self.stored(score), entry, left: NIL, right: NIL, size: 1 });
        self.map.insert(member.into(), node);
        self.bytes += element_size(member);
        self.root = self.insert_at(self.root, node);
        Insert::Added
    }

    /// Removes a member; false when it was not there.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        let Some(&node) = self.map.get(member) else { return false };
        self.remove_node(node);
        self.shrink_if_sparse();
        true
    }

    /// Removes the elements at ranks `range` (ascending order); returns how many.
    pub fn remove_ranks(&mut self, range: std::ops::Range<usize>) -> usize {
        let range = range.start..range.end.min(self.len());
        if range.is_empty() {
            return 0;
        }
        let doomed: Vec<u32> = self.rank_nodes(range.start, range.end - range.start, false).collect();
        for &node in &doomed {
            self.remove_node(node);
        }
        self.shrink_if_sparse();
        doomed.len()
    }

    /// Removes and returns up to `count` elements from the low end (or the high end when
    /// `max`), in the order they are popped.
    pub fn pop(&mut self, count: usize, max: bool) -> Vec<(Box<[u8]>, f64)> {
        let count = count.min(self.len());
        let start = if max { self.len() - count } else { 0 };
        let doomed: Vec<u32> = self.rank_nodes(start, count, max).collect();
        let popped = doomed.into_iter().map(|node| self.remove_node(node)).collect();
        self.shrink_if_sparse();
        popped
    }

    /// Every element in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], f64)> + '_ {
        self.range(0, self.len(), false)
    }

    /// `count` elements starting at rank `start`: ascending from there, or when `rev`,
    /// descending from rank `start + count - 1`. O(log n + count).
    pub fn range(&self, start: usize, count: usize, rev: bool) -> impl Iterator<Item = (&[u8], f64)> + '_ {
        self.rank_nodes(start, count, rev).map(|n| (self.member(n), self.nodes[n as usize].score))
    }

    /// The ranks of the elements whose scores lie between `min` and `max`.
    pub fn score_ranks(&self, min: ScoreBound, max: ScoreBound) -> std::ops::Range<usize> {
        let start = if min.exclusive {
            self.count_prefix(|n| n.score <= min.value)
        } else {
            self.count_prefix(|n| n.score < min.value)
        };
        let end = if max.exclusive {
            self.count_prefix(|n| n.score < max.value)
        } else {
            self.count_prefix(|n| n.score <= max.value)
        };
        start..end.max(start)
    }

    /// The ranks of the elements whose members lie between `min` and `max`. Meaningful, as in
    /// Redis, when all scores are equal (so the members are in lex order); otherwise this is
    /// a binary search over an order it does not hold, which Redis leaves undefined too.
    pub fn lex_ranks(&self, min: &LexBound, max: &LexBound) -> std::ops::Range<usize> {
        let start = match min {
            LexBound::Min => 0,
            LexBound::Max => self.len(),
            LexBound::Inclusive(m) => self.count_lex(|x| x < m.as_slice()),
            LexBound::Exclusive(m) => self.count_lex(|x| x <= m.as_slice()),
        };
        let end = match max {
            LexBound::Min => 0,
            LexBound::Max => self.len(),
            LexBound::Inclusive(m) => self.count_lex(|x| x <= m.as_slice()),
            LexBound::Exclusive(m) => self.count_lex(|x| x < m.as_slice()),
        };
        start..end.max(start)
    }

    /// The member and score at map position `pos` (ZSCAN walks these).
    pub fn get_index(&self, pos: usize) -> Option<(&[u8], f64)> {
        self.map.get_index(pos).map(|(m, &n)| (&**m, self.nodes[n as usize].score))
    }

    /// One ZSCAN step over a big set from `cursor`; returns the next cursor (0 when done).
    /// Walks map positions from the end down, about `count` per call: a removal moves the
    /// last member into the hole, and the last member was already visited, so every member
    /// that stays for the whole iteration is returned at least once.
    pub fn scan(&self, cursor: u64, count: usize, mut visit: impl FnMut(&[u8], f64)) -> u64 {
        let len = self.len() as u64;
        let mut pos = if cursor == 0 { len } else { cursor.min(len) };
        let mut visited = 0;
        while pos > 0 && visited < count.max(1) {
            pos -= 1;
            visited += 1;
            if let Some((m, s)) = self.get_index(pos as usize) {
                visit(m, s);
            }
        }
        pos
    }

    // --- Internals ---------------------------------------------------------------------------

    /// The score as stored: a `listpack` keeps scores as text, where -0 reads back as 0.
    fn stored(&self, score: f64) -> f64 {
        if self.big {
            score
        } else {
            normalize_zero(score)
        }
    }
}

/// -0 as 0: what a score reads back as after a trip through a `listpack`'s text.
fn normalize_zero(score: f64) -> f64 {
    if score == 0.0 {
        0.0
    } else {
        score
    }
}
