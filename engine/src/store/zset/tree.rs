//! The sorted set's order: a weight-balanced order-statistics tree in an arena, its
//! rotations, insert and remove, rank descents, in-order walks and compaction.

use std::cmp::Ordering;

use super::{element_size, ZSetValue};

/// A tree link that points nowhere: the arena's slot 0, a sentinel of size 0 never changed.
pub(super) const NIL: u32 = 0;
/// Weight-balance parameters (weights are sizes + 1): a subtree may weigh at most `DELTA`
/// times its sibling; a rebalance rotates once when the inner grandchild weighs less than
/// `GAMMA` times the outer one, twice otherwise.
const DELTA: u64 = 3;
const GAMMA: u64 = 2;

/// One element's place in the order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    pub(super) score: f64,
    /// Position of the member in `ZSetValue::map`.
    pub(super) entry: u32,
    pub(super) left: u32,
    pub(super) right: u32,
    /// Elements in this subtree (0 marks the sentinel and free slots).
    pub(super) size: u32,
}

pub(super) const SENTINEL: Node = Node { score: 0.0, entry: 0, left: NIL, right: NIL, size: 0 };

impl ZSetValue {
    pub(super) fn key(&self, entry: u32) -> &[u8] {
        self.map.get_index(entry as usize).map_or(&[][..], |(m, _)| &**m)
    }

    pub(super) fn member(&self, node: u32) -> &[u8] {
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

    pub(super) fn cmp_keys(&self, a_score: f64, a: &[u8], b_score: f64, b: &[u8]) -> Ordering {
        match a_score.partial_cmp(&b_score) {
            Some(Ordering::Equal) | None => a.cmp(b),
            Some(o) => o,
        }
    }

    fn cmp_nodes(&self, a: u32, b: u32) -> Ordering {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        self.cmp_keys(na.score, self.key(na.entry), nb.score, self.key(nb.entry))
    }

    pub(super) fn alloc(&mut self, node: Node) -> u32 {
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
    pub(super) fn remove_node(&mut self, node: u32) -> (Box<[u8]>, f64) {
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
    pub(super) fn insert_at(&mut self, t: u32, node: u32) -> u32 {
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
    pub(super) fn remove_at(&mut self, t: u32, node: u32) -> u32 {
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
    pub(super) fn rank_of(&self, node: u32) -> usize {
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
    pub(super) fn count_prefix(&self, below: impl Fn(&Node) -> bool) -> usize {
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

    pub(super) fn count_lex(&self, below: impl Fn(&[u8]) -> bool) -> usize {
        self.count_prefix(|n| below(self.key(n.entry)))
    }

    /// The nodes of `count` elements from rank `start`, ascending; or, when `rev`, from rank
    /// `start + count - 1` descending.
    pub(super) fn rank_nodes(&self, start: usize, count: usize, rev: bool) -> RankIter<'_> {
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
    pub(super) fn shrink_if_sparse(&mut self) {
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
    pub(super) fn rebuild_from(&mut self, order: &[(f64, u32)]) {
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
    pub(super) fn check(&self) {
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

/// An in-order walk from a sought position, with the ancestors still to come on a stack.
pub(super) struct RankIter<'a> {
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
