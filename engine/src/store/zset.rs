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

use std::cmp::Ordering;
use std::mem::size_of;

use foldhash::fast::RandomState;
use indexmap::IndexMap;

use super::entry::alloc_size;

/// Redis's `zset-max-listpack-entries`: more members than this and a set is a `skiplist`.
pub const MAX_LISTPACK_ENTRIES: usize = 128;
/// Redis's `zset-max-listpack-value`: a member longer than this makes it a `skiplist`.
pub const MAX_LISTPACK_VALUE: usize = 64;

/// A tree link that points nowhere: the arena's slot 0, a sentinel of size 0 never changed.
const NIL: u32 = 0;
/// Weight-balance parameters (weights are sizes + 1): a subtree may weigh at most `DELTA`
/// times its sibling; a rebalance rotates once when the inner grandchild weighs less than
/// `GAMMA` times the outer one, twice otherwise.
const DELTA: u64 = 3;
const GAMMA: u64 = 2;

/// One element's place in the order.
#[derive(Debug, Clone, Copy)]
struct Node {
    score: f64,
    /// Position of the member in `ZSetValue::map`.
    entry: u32,
    left: u32,
    right: u32,
    /// Elements in this subtree (0 marks the sentinel and free slots).
    size: u32,
}

const SENTINEL: Node = Node { score: 0.0, entry: 0, left: NIL, right: NIL, size: 0 };

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
        z.big = members.len() > MAX_LISTPACK_ENTRIES || members.iter().any(|(m, _)| m.len() > MAX_LISTPACK_VALUE);
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
        if self.map.len() >= MAX_LISTPACK_ENTRIES || member.len() > MAX_LISTPACK_VALUE {
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

    fn key(&self, entry: u32) -> &[u8] {
        self.map.get_index(entry as usize).map_or(&[][..], |(m, _)| &**m)
    }

    fn member(&self, node: u32) -> &[u8] {
        self.key(self.nodes[node as usize].entry)
    }

    fn size(&self, node: u32) -> u64 {
        u64::from(self.nodes[node as usize].size)
    }

    fn left(&self, node: u32) -> u32 {
        self.nodes[node as usize].left
    }

    fn right(&self, node: u32) -> u32 {
        self.nodes[node as usize].right
    }

    fn cmp_keys(&self, a_score: f64, a: &[u8], b_score: f64, b: &[u8]) -> Ordering {
        match a_score.partial_cmp(&b_score) {
            Some(Ordering::Equal) | None => a.cmp(b),
            Some(o) => o,
        }
    }

    fn cmp_nodes(&self, a: u32, b: u32) -> Ordering {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        self.cmp_keys(na.score, self.key(na.entry), nb.score, self.key(nb.entry))
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if self.free != NIL {
            let slot = self.free;
            self.free = self.nodes[slot as usize].left;
            self.nodes[slot as usize] = node;
            slot
        } else {
            let slot = u32::try_from(self.nodes.len()).expect("a sorted set holds fewer than 2^32 members");
            self.nodes.push(node);
            slot
        }
    }

    /// Takes a node out of the tree and the map, returning its member and score.
    fn remove_node(&mut self, node: u32) -> (Box<[u8]>, f64) {
        self.root = self.remove_at(self.root, node);
        let Node { entry, score, .. } = self.nodes[node as usize];
        let entry = entry as usize;
        let (member, _) = self.map.swap_remove_index(entry).expect("a node names a live entry");
        // The last entry moved into the hole: its node must learn its new position.
        if let Some(&moved) = self.map.get_index(entry).map(|(_, n)| n) {
            self.nodes[moved as usize].entry = entry as u32;
        }
        self.nodes[node as usize] = Node { left: self.free, ..SENTINEL };
        self.free = node;
        self.bytes -= element_size(&member);
        (member, score)
    }

    fn fix(&mut self, t: u32) {
        let size = self.size(self.left(t)) + self.size(self.right(t)) + 1;
        self.nodes[t as usize].size = size as u32;
    }

    fn rotate_left(&mut self, t: u32) -> u32 {
        let r = self.right(t);
        self.nodes[t as usize].right = self.left(r);
        self.nodes[r as usize].left = t;
        self.fix(t);
        self.fix(r);
        r
    }

    fn rotate_right(&mut self, t: u32) -> u32 {
        let l = self.left(t);
        self.nodes[t as usize].left = self.right(l);
        self.nodes[l as usize].right = t;
        self.fix(t);
        self.fix(l);
        l
    }

    /// Restores the weight balance at `t` after one insertion or removal below it (one
    /// single or double rotation suffices) and recomputes its size; returns the new root.
    fn balance(&mut self, t: u32) -> u32 {
        let (l, r) = (self.left(t), self.right(t));
        let (wl, wr) = (self.size(l) + 1, self.size(r) + 1);
        if wr > DELTA * wl {
            if self.size(self.left(r)) + 1 >= GAMMA * (self.size(self.right(r)) + 1) {
                let r = self.rotate_right(r);
                self.nodes[t as usize].right = r;
            }
            self.rotate_left(t)
        } else if wl > DELTA * wr {
            if self.size(self.right(l)) + 1 >= GAMMA * (self.size(self.left(l)) + 1) {
                let l = self.rotate_left(l);
                self.nodes[t as usize].left = l;
            }
            self.rotate_right(t)
        } else {
            self.fix(t);
            t
        }
    }

    /// Inserts the detached node `node` into the subtree at `t`; returns the new root.
    fn insert_at(&mut self, t: u32, node: u32) -> u32 {
        if t == NIL {
            return node;
        }
        if self.cmp_nodes(node, t) == Ordering::Less {
            let l = self.insert_at(self.left(t), node);
            self.nodes[t as usize].left = l;
        } else {
            let r = self.insert_at(self.right(t), node);
            self.nodes[t as usize].right = r;
        }
        self.balance(t)
    }

    /// Detaches `node` from the subtree at `t`; returns the new root.
    fn remove_at(&mut self, t: u32, node: u32) -> u32 {
        if t == NIL {
            debug_assert!(false, "node {node} not in the tree");
            return NIL;
        }
        if t == node {
            return self.glue(self.left(t), self.right(t));
        }
        if self.cmp_nodes(node, t) == Ordering::Less {
            let l = self.remove_at(self.left(t), node);
            self.nodes[t as usize].left = l;
        } else {
            let r = self.remove_at(self.right(t), node);
            self.nodes[t as usize].right = r;
        }
        self.balance(t)
    }

    /// Joins two balanced siblings whose parent was removed: the heavier side gives up its
    /// extreme node as the new root.
    fn glue(&mut self, l: u32, r: u32) -> u32 {
        if l == NIL {
            return r;
        }
        if r == NIL {
            return l;
        }
        let root = if self.size(l) > self.size(r) {
            let (rest, max) = self.detach_max(l);
            self.nodes[max as usize].left = rest;
            self.nodes[max as usize].right = r;
            max
        } else {
            let (rest, min) = self.detach_min(r);
            self.nodes[min as usize].left = l;
            self.nodes[min as usize].right = rest;
            min
        };
        self.balance(root)
    }

    fn detach_min(&mut self, t: u32) -> (u32, u32) {
        let l = self.left(t);
        if l == NIL {
            return (self.right(t), t);
        }
        let (rest, min) = self.detach_min(l);
        self.nodes[t as usize].left = rest;
        (self.balance(t), min)
    }

    fn detach_max(&mut self, t: u32) -> (u32, u32) {
        let r = self.right(t);
        if r == NIL {
            return (self.left(t), t);
        }
        let (rest, max) = self.detach_max(r);
        self.nodes[t as usize].right = rest;
        (self.balance(t), max)
    }

    /// How many elements order before `node`.
    fn rank_of(&self, node: u32) -> usize {
        let (mut t, mut rank) = (self.root, 0);
        while t != NIL {
            if t == node {
                return rank + self.size(self.left(t)) as usize;
            }
            if self.cmp_nodes(node, t) == Ordering::Less {
                t = self.left(t);
            } else {
                rank += self.size(self.left(t)) as usize + 1;
                t = self.right(t);
            }
        }
        debug_assert!(false, "node {node} not in the tree");
        rank
    }

    /// How many elements satisfy `below`, which must hold for a prefix of the order.
    fn count_prefix(&self, below: impl Fn(&Node) -> bool) -> usize {
        let (mut t, mut n) = (self.root, 0);
        while t != NIL {
            if below(&self.nodes[t as usize]) {
                n += self.size(self.left(t)) as usize + 1;
                t = self.right(t);
            } else {
                t = self.left(t);
            }
        }
        n
    }

    fn count_lex(&self, below: impl Fn(&[u8]) -> bool) -> usize {
        self.count_prefix(|n| below(self.key(n.entry)))
    }

    /// The nodes of `count` elements from rank `start`, ascending; or, when `rev`, from rank
    /// `start + count - 1` descending.
    fn rank_nodes(&self, start: usize, count: usize, rev: bool) -> RankIter<'_> {
        let count = count.min(self.len().saturating_sub(start));
        let mut it = RankIter { z: self, stack: Vec::new(), left: count, rev };
        if count == 0 {
            return it;
        }
        // Seek the first node to yield, keeping the ancestors still to come on the stack.
        let mut k = if rev { (start + count - 1) as u64 } else { start as u64 };
        let mut t = self.root;
        while t != NIL {
            let ls = self.size(self.left(t));
            match k.cmp(&ls) {
                Ordering::Less => {
                    if !rev {
                        it.stack.push(t);
                    }
                    t = self.left(t);
                }
                Ordering::Equal => {
                    it.stack.push(t);
                    break;
                }
                Ordering::Greater => {
                    if rev {
                        it.stack.push(t);
                    }
                    k -= ls + 1;
                    t = self.right(t);
                }
            }
        }
        it
    }

    /// Drops free arena slots and spare map capacity once the set has shrunk to a quarter of
    /// what it held, so memory follows the set down (amortized O(1) per removal).
    fn shrink_if_sparse(&mut self) {
        let live = self.len();
        if self.nodes.capacity() > 64 && live * 4 < self.nodes.capacity() {
            let order: Vec<(f64, u32)> = self
                .rank_nodes(0, live, false)
                .map(|n| (self.nodes[n as usize].score, self.nodes[n as usize].entry))
                .collect();
            self.rebuild_from(&order);
        }
        if self.map.capacity() > 64 && live * 4 < self.map.capacity() {
            self.map.shrink_to(live * 2);
        }
    }

    /// Replaces the tree with a perfectly balanced one over `order` ((score, map position)
    /// in ascending order), in a fresh arena.
    fn rebuild_from(&mut self, order: &[(f64, u32)]) {
        let mut nodes = Vec::with_capacity(order.len() + 1);
        nodes.push(SENTINEL);
        for (i, &(score, entry)) in order.iter().enumerate() {
            nodes.push(Node { score, entry, left: NIL, right: NIL, size: 1 });
            if let Some((_, n)) = self.map.get_index_mut(entry as usize) {
                *n = i as u32 + 1;
            }
        }
        self.nodes = nodes;
        self.free = NIL;
        self.root = self.build(1, order.len() as u32 + 1);
    }

    fn build(&mut self, lo: u32, hi: u32) -> u32 {
        if lo >= hi {
            return NIL;
        }
        let mid = lo + (hi - lo) / 2;
        let l = self.build(lo, mid);
        let r = self.build(mid + 1, hi);
        self.nodes[mid as usize].left = l;
        self.nodes[mid as usize].right = r;
        self.fix(mid);
        mid
    }

    /// Checks the tree's invariants (order, sizes, weight balance, map links); for tests.
    #[cfg(test)]
    fn check(&self) {
        fn walk(z: &ZSetValue, t: u32, out: &mut Vec<u32>) -> u64 {
            if t == NIL {
                return 0;
            }
            let l = walk(z, z.left(t), out);
            out.push(t);
            let r = walk(z, z.right(t), out);
            assert_eq!(z.size(t), l + r + 1, "size of node {t}");
            // Weights (size + 1) within a factor DELTA of each other.
            assert!(l < DELTA * (r + 1) && r < DELTA * (l + 1), "balance at node {t}: {l} / {r}");
            l + r + 1
        }
        let mut order = Vec::new();
        assert_eq!(walk(self, self.root, &mut order) as usize, self.len());
        for pair in order.windows(2) {
            assert_eq!(self.cmp_nodes(pair[0], pair[1]), Ordering::Less);
        }
        for (pos, (_, &n)) in self.map.iter().enumerate() {
            assert_eq!(self.nodes[n as usize].entry as usize, pos);
        }
        let bytes: usize = self.map.keys().map(|m| element_size(m)).sum();
        assert_eq!(self.bytes, bytes);
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

/// An in-order walk from a sought position, with the ancestors still to come on a stack.
struct RankIter<'a> {
    z: &'a ZSetValue,
    stack: Vec<u32>,
    left: usize,
    rev: bool,
}

impl Iterator for RankIter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        let node = self.stack.pop()?;
        self.left -= 1;
        if self.left > 0 {
            let z = self.z;
            let mut t = if self.rev { z.left(node) } else { z.right(node) };
            while t != NIL {
                self.stack.push(t);
                t = if self.rev { z.right(t) } else { z.left(t) };
            }
        }
        Some(node)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn zset(pairs: &[(&str, f64)]) -> ZSetValue {
        let mut z = ZSetValue::new();
        for (m, s) in pairs {
            z.insert(m.as_bytes(), *s);
        }
        z.check();
        z
    }

    fn members(it: impl Iterator<Item = (impl AsRef<[u8]>, f64)>) -> Vec<String> {
        it.map(|(m, _)| String::from_utf8_lossy(m.as_ref()).into_owned()).collect()
    }

    #[test]
    fn orders_by_score_then_member() {
        let z = zset(&[("b", 1.0), ("a", 1.0), ("c", 0.5), ("d", f64::INFINITY), ("e", f64::NEG_INFINITY)]);
        assert_eq!(members(z.iter()), ["e", "c", "a", "b", "d"]);
        assert_eq!(z.rank(b"a"), Some(2));
        assert_eq!(z.rank(b"zz"), None);
        assert_eq!(z.score(b"d"), Some(f64::INFINITY));
        assert_eq!(members(z.range(1, 3, true)), ["b", "a", "c"]);
        assert_eq!(members(z.range(3, 10, false)), ["b", "d"]);
        assert_eq!(members(z.range(5, 1, false)), Vec::<String>::new());
    }

    #[test]
    fn insert_reports_what_changed() {
        let mut z = ZSetValue::new();
        assert_eq!(z.insert(b"a", 1.0), Insert::Added);
        assert_eq!(z.insert(b"a", 1.0), Insert::Unchanged);
        assert_eq!(z.insert(b"a", 2.0), Insert::Updated);
        assert_eq!(z.score(b"a"), Some(2.0));
        assert!(z.remove(b"a"));
        assert!(!z.remove(b"a"));
        assert!(z.is_empty());
        assert_eq!(z.heap_size(), 0);
    }

    #[test]
    fn negative_zero_reads_back_as_zero_while_small() {
        let mut z = ZSetValue::new();
        z.insert(b"a", -0.0);
        assert!(z.score(b"a").unwrap().is_sign_positive());
        z.insert(&[b'x'; 65], -0.0);
        assert!(z.is_big());
        assert!(z.score(&[b'x'; 65]).unwrap().is_sign_negative());
    }

    #[test]
    fn encoding_turns_big_and_stays_big() {
        let mut z = ZSetValue::new();
        for i in 0..MAX_LISTPACK_ENTRIES {
            z.insert(i.to_string().as_bytes(), i as f64);
        }
        assert_eq!(z.encoding(), "listpack");
        z.insert(b"one more", 0.0);
        assert_eq!(z.encoding(), "skiplist");
        loop {
            let Some(first) = z.iter().next().map(|(m, _)| m.to_vec()) else { break };
            z.remove(&first);
            z.check();
        }
        assert_eq!(z.encoding(), "skiplist");
        assert_eq!(z.heap_size(), 0);
        let mut z = ZSetValue::new();
        z.insert(&[b'x'; 64], 0.0);
        assert_eq!(z.encoding(), "listpack");
        z.insert(&[b'x'; 65], 0.0);
        assert_eq!(z.encoding(), "skiplist");
    }

    #[test]
    fn bounds_by_score_and_lex() {
        let z = zset(&[("a", 1.0), ("b", 2.0), ("c", 2.0), ("d", 3.0)]);
        let b = |value, exclusive| ScoreBound { value, exclusive };
        assert_eq!(z.score_ranks(b(2.0, false), b(2.0, false)), 1..3);
        assert_eq!(z.score_ranks(b(2.0, true), b(f64::INFINITY, false)), 3..4);
        assert_eq!(z.score_ranks(b(f64::NEG_INFINITY, false), b(2.0, true)), 0..1);
        assert_eq!(z.score_ranks(b(3.0, false), b(1.0, false)), 3..3);
        assert_eq!(z.score_ranks(b(2.0, true), b(2.0, false)), 3..3);
        let z = zset(&[("a", 0.0), ("b", 0.0), ("c", 0.0), ("d", 0.0)]);
        let (i, e) = (|s: &str| LexBound::Inclusive(s.into()), |s: &str| LexBound::Exclusive(s.into()));
        assert_eq!(z.lex_ranks(&LexBound::Min, &LexBound::Max), 0..4);
        assert_eq!(z.lex_ranks(&i("b"), &e("d")), 1..3);
        assert_eq!(z.lex_ranks(&e("b"), &i("bb")), 2..2);
        assert_eq!(z.lex_ranks(&LexBound::Max, &LexBound::Min), 4..4);
        assert_eq!(z.lex_ranks(&i(""), &i("c")), 0..3);
    }

    #[test]
    fn pops_and_rank_removals() {
        let mut z = zset(&[("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0), ("e", 5.0)]);
        assert_eq!(members(z.pop(2, true).into_iter()), ["e", "d"]);
        assert_eq!(members(z.pop(1, false).into_iter()), ["a"]);
        assert_eq!(z.remove_ranks(1..10), 1);
        assert_eq!(members(z.iter()), ["b"]);
        assert_eq!(members(z.pop(10, false).into_iter()), ["b"]);
        assert!(z.is_empty() && z.heap_size() == 0);
    }

    #[test]
    fn scan_visits_every_member_that_stays() {
        let mut z = ZSetValue::new();
        for i in 0..500 {
            z.insert(format!("m{i}").as_bytes(), i as f64);
        }
        let mut seen = std::collections::HashSet::new();
        let mut cursor = 0;
        let mut removed = 0;
        loop {
            cursor = z.scan(cursor, 7, |m, _| {
                seen.insert(m.to_vec());
            });
            // Remove members as we go: those that stay must still all be seen.
            if removed < 200 {
                z.remove(format!("m{}", removed * 2).as_bytes());
                removed += 1;
            }
            if cursor == 0 {
                break;
            }
        }
        for (m, _) in z.iter() {
            assert!(seen.contains(m), "{:?} missed", String::from_utf8_lossy(m));
        }
    }

    #[test]
    fn from_distinct_builds_a_balanced_tree() {
        let pairs: Vec<(Box<[u8]>, f64)> =
            (0..300).map(|i| (format!("m{i}").into_bytes().into(), (i % 7) as f64)).collect();
        let z = ZSetValue::from_distinct(pairs);
        z.check();
        assert_eq!(z.len(), 300);
        assert!(z.is_big());
        assert_eq!(z.rank(b"m0"), Some(0));
        let small = ZSetValue::from_distinct(vec![(b"a".to_vec().into(), -0.0)]);
        assert_eq!(small.encoding(), "listpack");
        assert!(small.score(b"a").unwrap().is_sign_positive());
    }

    #[test]
    fn memory_shrinks_with_the_set() {
        let mut z = ZSetValue::new();
        for i in 0..10_000 {
            z.insert(format!("member:{i}").as_bytes(), i as f64);
        }
        let big_cap = z.nodes.capacity();
        for i in 0..9_990 {
            z.remove(format!("member:{i}").as_bytes());
        }
        z.check();
        assert!(z.nodes.capacity() < big_cap / 100, "arena stayed at {}", z.nodes.capacity());
        assert!(z.map.capacity() < 1000);
        assert_eq!(members(z.range(0, 2, false)), ["member:9990", "member:9991"]);
    }

    /// One step of the model test.
    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, i8),
        Remove(u8),
        Pop(u8, bool),
        RemoveRanks(u8, u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (any::<u8>(), -8i8..8).prop_map(|(m, s)| Op::Insert(m, s)),
            3 => any::<u8>().prop_map(Op::Remove),
            1 => (0u8..4, any::<bool>()).prop_map(|(n, max)| Op::Pop(n, max)),
            1 => (any::<u8>(), 0u8..6).prop_map(|(a, n)| Op::RemoveRanks(a, n)),
        ]
    }

    fn name(m: u8) -> Vec<u8> {
        // Short and long members, some sharing prefixes, so ties by member matter.
        if m.is_multiple_of(5) {
            format!("long-member-{m:03}-{}", "x".repeat(60)).into_bytes()
        } else {
            format!("m{}", m % 64).into_bytes()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The tree against a sorted Vec: contents, order, ranks, score and lex bounds.
        #[test]
        fn matches_a_sorted_vec(ops in proptest::collection::vec(op(), 1..300), probe in -9i8..9) {
            let mut z = ZSetValue::new();
            let mut model: Vec<(f64, Vec<u8>)> = Vec::new();
            let sort = |m: &mut Vec<(f64, Vec<u8>)>| m.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1)));
            for op in ops {
                match op {
                    Op::Insert(m, s) => {
                        let (m, s) = (name(m), f64::from(s) / 2.0);
                        z.insert(&m, s);
                        model.retain(|(_, x)| *x != m);
                        model.push((s, m));
                        sort(&mut model);
                    }
                    Op::Remove(m) => {
                        let m = name(m);
                        let had = model.iter().any(|(_, x)| *x == m);
                        prop_assert_eq!(z.remove(&m), had);
                        model.retain(|(_, x)| *x != m);
                    }
                    Op::Pop(n, max) => {
                        let got: Vec<Vec<u8>> = z.pop(n as usize, max).into_iter().map(|(m, _)| m.into()).collect();
                        let k = (n as usize).min(model.len());
                        let want: Vec<Vec<u8>> = if max {
                            model.drain(model.len() - k..).rev().map(|(_, m)| m).collect()
                        } else {
                            model.drain(..k).map(|(_, m)| m).collect()
                        };
                        prop_assert_eq!(got, want);
                    }
                    Op::RemoveRanks(a, n) => {
                        let a = a as usize % (model.len() + 1);
                        let end = (a + n as usize).min(model.len());
                        prop_assert_eq!(z.remove_ranks(a..a + n as usize), end - a);
                        model.drain(a..end);
                    }
                }
                z.check();
            }
            let got: Vec<(f64, Vec<u8>)> = z.iter().map(|(m, s)| (s, m.to_vec())).collect();
            prop_assert_eq!(&got, &model);
            for (i, (s, m)) in model.iter().enumerate() {
                prop_assert_eq!(z.rank(m), Some(i));
                prop_assert_eq!(z.score(m), Some(*s));
                let at: Vec<Vec<u8>> = z.range(i, 1, false).map(|(m, _)| m.to_vec()).collect();
                prop_assert_eq!(at, vec![m.clone()]);
            }
            let x = f64::from(probe) / 2.0;
            let below = model.iter().filter(|(s, _)| *s < x).count();
            let at_most = model.iter().filter(|(s, _)| *s <= x).count();
            let inf = ScoreBound { value: f64::INFINITY, exclusive: false };
            prop_assert_eq!(z.score_ranks(ScoreBound { value: x, exclusive: false }, inf), below..model.len());
            prop_assert_eq!(z.score_ranks(ScoreBound { value: x, exclusive: true }, inf), at_most..model.len());
            let neg = ScoreBound { value: f64::NEG_INFINITY, exclusive: false };
            prop_assert_eq!(z.score_ranks(neg, ScoreBound { value: x, exclusive: true }), 0..below);
            let rev: Vec<Vec<u8>> = z.range(0, model.len(), true).map(|(m, _)| m.to_vec()).collect();
            let want: Vec<Vec<u8>> = model.iter().rev().map(|(_, m)| m.clone()).collect();
            prop_assert_eq!(rev, want);
            // Lex bounds over a set of equal scores built from the same members.
            let flat = ZSetValue::from_distinct(model.iter().map(|(_, m)| (m.clone().into_boxed_slice(), 0.0)).collect());
            flat.check();
            let mut names: Vec<Vec<u8>> = model.iter().map(|(_, m)| m.clone()).collect();
            names.sort();
            let pivot = name(probe as u8);
            let lt = names.iter().filter(|m| **m < pivot).count();
            let le = names.iter().filter(|m| **m <= pivot).count();
            prop_assert_eq!(flat.lex_ranks(&LexBound::Inclusive(pivot.clone()), &LexBound::Max), lt..names.len());
            prop_assert_eq!(flat.lex_ranks(&LexBound::Exclusive(pivot.clone()), &LexBound::Max), le..names.len());
            prop_assert_eq!(flat.lex_ranks(&LexBound::Min, &LexBound::Exclusive(pivot)), 0..lt);
        }
    }
}
