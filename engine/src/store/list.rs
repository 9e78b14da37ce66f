//! A list: a double-ended queue of byte strings, with O(1) pushes and pops at both ends and
//! O(1) access by index.
//!
//! Rule for every collection type: `heap_size` is O(1). The list keeps a running count of
//! its elements' allocations and measures its slot buffer from the deque's capacity, because
//! `Shard::update` re-measures the value after every write.
//!
//! `OBJECT ENCODING` answers as Redis 7.2 would: "listpack" while the list would fit in one
//! listpack of `list-max-listpack-size` (read live, see `encodings`: -2 = 8 KB, Redis's
//! default; a positive size counts elements), "quicklist" once it grows past that, and back to
//! "listpack" only after shrinking to half of it (Redis's hysteresis, so a list at the limit
//! does not flip on every push and pop). For that the list keeps the exact size its listpack
//! would have.

use std::collections::VecDeque;

use crate::num::parse_i64;

use super::encodings;
use super::entry::alloc_size;

/// Redis's `SIZE_SAFETY_LIMIT`: under a count limit (`list-max-listpack-size` > 0) a listpack
/// still converts past 8 KB.
const SIZE_SAFETY_LIMIT: usize = 8192;
/// A listpack's header (total bytes, element count) and end marker.
const LISTPACK_OVERHEAD: usize = 6 + 1;

/// A list of elements.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListValue {
    items: VecDeque<Box<[u8]>>,
    /// Accounted heap bytes of the elements (kept up to date by every mutation); the slot
    /// buffer is measured from the deque's capacity.
    elem_bytes: usize,
    /// Bytes of the elements as listpack entries (without the listpack's own overhead).
    lp_bytes: usize,
    /// Whether Redis would hold this list as a quicklist (see the module docs).
    quicklist: bool,
}

impl ListValue {
    /// A list of `elems`, in order.
    pub fn from_elems<E: AsRef<[u8]>>(elems: &[E]) -> ListValue {
        let mut list = ListValue::default();
        list.push_many(false, elems);
        list
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Heap bytes held, in O(1).
    pub fn heap_size(&self) -> usize {
        self.elem_bytes + alloc_size(self.items.capacity() * std::mem::size_of::<Box<[u8]>>())
    }

    /// What `OBJECT ENCODING` answers (see the module docs).
    pub fn encoding(&self) -> &'static str {
        if self.quicklist {
            "quicklist"
        } else {
            "listpack"
        }
    }

    /// The element at `index` (0 is the head), if any.
    pub fn get(&self, index: usize) -> Option<&[u8]> {
        self.items.get(index).map(|e| &e[..])
    }

    pub fn front(&self) -> Option<&[u8]> {
        self.items.front().map(|e| &e[..])
    }

    pub fn back(&self) -> Option<&[u8]> {
        self.items.back().map(|e| &e[..])
    }

    /// Elements from the head.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &[u8]> + ExactSizeIterator + '_ {
        self.items.iter().map(|e| &e[..])
    }

    /// Elements `start..=end` (valid positions), from the head.
    pub fn range(&self, start: usize, end: usize) -> impl DoubleEndedIterator<Item = &[u8]> + '_ {
        self.items.range(start..=end).map(|e| &e[..])
    }

    /// Pushes each element in turn at the head (`front`) or the tail: `LPUSH k a b` leaves
    /// `b a` at the head.
    pub fn push_many<E: AsRef<[u8]>>(&mut self, front: bool, elems: &[E]) {
        // As Redis 7.2: one growth check for the whole command, counting the new elements'
        // raw lengths.
        self.grow(elems.iter().map(|e| e.as_ref().len()).sum(), elems.len());
        self.items.reserve(elems.len());
        for e in elems {
            let e = self.adopt(e.as_ref());
            if front {
                self.items.push_front(e);
            } else {
                self.items.push_back(e);
            }
        }
    }

    pub fn push_front(&mut self, elem: &[u8]) {
        self.push_many(true, &[elem]);
    }

    pub fn push_back(&mut self, elem: &[u8]) {
        self.push_many(false, &[elem]);
    }

    pub fn pop_front(&mut self) -> Option<Box<[u8]>> {
        let e = self.items.pop_front()?;
        self.release(&e);
        self.shrunk();
        Some(e)
    }

    pub fn pop_back(&mut self) -> Option<Box<[u8]>> {
        let e = self.items.pop_back()?;
        self.release(&e);
        self.shrunk();
        Some(e)
    }

    /// Replaces the element at `index`; false when there is none.
    pub fn set(&mut self, index: usize, elem: &[u8]) -> bool {
        if index >= self.items.len() {
            return false;
        }
        self.grow_check(elem.len());
        let new = self.adopt(elem);
        let old = std::mem::replace(&mut self.items[index], new);
        self.release(&old);
        self.shrunk();
        true
    }

    /// Inserts `elem` so it ends up at `index` (`index == len` appends).
    pub fn insert(&mut self, index: usize, elem: &[u8]) {
        let e = self.adopt(elem);
        self.items.insert(index, e);
    }

    /// Redis 7.2 checks for growth before LINSERT looks for its pivot (so even an insert
    /// that finds no pivot can change the encoding); this is that check.
    pub fn grow_check(&mut self, add_bytes: usize) {
        self.grow(add_bytes, 1);
    }

    /// Redis 7.2's `listTypeTryConvertListpack`: a quicklist once the listpack with `add_bytes`
    /// more bytes in `add_count` more elements would break `list-max-listpack-size`.
    fn grow(&mut self, add_bytes: usize, add_count: usize) {
        if self.quicklist {
            return;
        }
        let (max_bytes, max_count) = encodings::current().list_limits();
        let bytes = LISTPACK_OVERHEAD + self.lp_bytes + add_bytes;
        let over = if max_bytes != usize::MAX {
            bytes > max_bytes
        } else {
            bytes > SIZE_SAFETY_LIMIT || self.items.len() + add_count > max_count
        };
        if over {
            self.quicklist = true;
        }
    }

    /// Removes the elements equal to `elem`: at most `count` of them (0 = all), from the tail
    /// when `from_tail`. Returns how many were removed.
    pub fn remove_matching(&mut self, elem: &[u8], count: usize, from_tail: bool) -> usize {
        let n = self.items.len();
        let mut hits = Vec::new();
        let mut visit = |i: usize| {
            if &self.items[i][..] == elem {
                hits.push(i);
            }
            count != 0 && hits.len() == count
        };
        if from_tail {
            for i in (0..n).rev() {
                if visit(i) {
                    break;
                }
            }
        } else {
            for i in 0..n {
                if visit(i) {
                    break;
                }
            }
        }
        if hits.is_empty() {
            return 0;
        }
        let removed = hits.len();
        hits.sort_unstable();
        let mut hit = hits.into_iter().peekable();
        let mut i = 0;
        let mut dropped = Vec::with_capacity(removed);
        self.items.retain_mut(|e| {
            let drop = hit.peek() == Some(&i);
            if drop {
                hit.next();
                dropped.push(std::mem::take(e));
            }
            i += 1;
            !drop
        });
        for e in &dropped {
            self.release(e);
        }
        self.shrunk();
        removed
    }

    /// Keeps only positions `start..=end` (an empty range when `start > end`).
    pub fn retain_range(&mut self, start: usize, end: usize) {
        let n = self.items.len();
        let (keep_from, keep_to) = if start > end || start >= n { (n, n) } else { (start, end.min(n - 1) + 1) };
        for _ in keep_to..n {
            if let Some(e) = self.items.pop_back() {
                self.release(&e);
            }
        }
        for _ in 0..keep_from.min(self.items.len()) {
            if let Some(e) = self.items.pop_front() {
                self.release(&e);
            }
        }
        self.shrunk();
    }

    /// Moves the tail element to the head or the head to the tail (LMOVE on one key).
    pub fn rotate(&mut self, tail_to_head: bool) {
        if self.items.len() > 1 {
            if tail_to_head {
                self.items.rotate_right(1);
            } else {
                self.items.rotate_left(1);
            }
        }
    }

    /// Takes a copy of `elem` into the list's accounting.
    fn adopt(&mut self, elem: &[u8]) -> Box<[u8]> {
        self.elem_bytes += alloc_size(elem.len());
        self.lp_bytes += listpack_entry_size(elem);
        elem.into()
    }

    /// Takes an element that left the list out of the accounting.
    fn release(&mut self, elem: &[u8]) {
        self.elem_bytes -= alloc_size(elem.len());
        self.lp_bytes -= listpack_entry_size(elem);
    }

    /// After removals: back to listpack at half the limit, and the slot buffer given back
    /// once it is mostly empty (VecDeque never shrinks by itself).
    fn shrunk(&mut self) {
        if self.quicklist {
            // Redis's `listTypeTryConvertQuicklist` when shrinking: half of either limit.
            let (max_bytes, max_count) = encodings::current().list_limits();
            if LISTPACK_OVERHEAD + self.lp_bytes <= max_bytes / 2 && self.items.len() <= max_count / 2 {
                self.quicklist = false;
            }
        }
        let (len, cap) = (self.items.len(), self.items.capacity());
        if cap > 16 && len * 4 <= cap {
            self.items.shrink_to(len * 2);
        }
    }
}

/// Bytes one element takes in a listpack: its encoding (a small integer when the text is
/// one, as Redis stores it) and the back-length that lets the listpack be walked backwards.
fn listpack_entry_size(elem: &[u8]) -> usize {
    let encoded = match parse_i64(elem) {
        Some(v) if (0..=127).contains(&v) => 1,
        Some(v) if (-4096..=4095).contains(&v) => 2,
        Some(v) if i16::try_from(v).is_ok() => 3,
        Some(v) if (-(1 << 23)..(1 << 23)).contains(&v) => 4,
        Some(v) if i32::try_from(v).is_ok() => 5,
        Some(_) => 9,
        None if elem.len() < 64 => 1 + elem.len(),
        None if elem.len() < 4096 => 2 + elem.len(),
        None => 5 + elem.len(),
    };
    let backlen = match encoded {
        0..=127 => 1,
        128..=16382 => 2,
        16383..=2097150 => 3,
        2097151..=268435454 => 4,
        _ => 5,
    };
    encoded + backlen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elems(l: &ListValue) -> Vec<&[u8]> {
        l.iter().collect()
    }

    /// The heap size recomputed from scratch, to check the running count against.
    fn measured(l: &ListValue) -> usize {
        l.items.iter().map(|e| alloc_size(e.len())).sum::<usize>()
            + alloc_size(l.items.capacity() * std::mem::size_of::<Box<[u8]>>())
    }

    #[test]
    fn pushes_and_pops_at_both_ends() {
        let mut l = ListValue::default();
        l.push_many(true, &["a", "b"]);
        l.push_many(false, &["c"]);
        assert_eq!(elems(&l), vec![&b"b"[..], b"a", b"c"]);
        assert_eq!(l.pop_front().as_deref(), Some(&b"b"[..]));
        assert_eq!(l.pop_back().as_deref(), Some(&b"c"[..]));
        assert_eq!(l.len(), 1);
        assert_eq!(l.heap_size(), measured(&l));
    }

    #[test]
    fn the_running_size_matches_a_recount_after_every_kind_of_change() {
        let mut l = ListValue::default();
        for i in 0..200 {
            l.push_back(format!("element-{i}-{}", "x".repeat(i % 40)).as_bytes());
            assert_eq!(l.heap_size(), measured(&l));
        }
        l.set(3, b"replaced with something longer than before");
        assert_eq!(l.heap_size(), measured(&l));
        l.insert(5, b"inserted");
        assert_eq!(l.heap_size(), measured(&l));
        l.remove_matching(b"inserted", 0, false);
        assert_eq!(l.heap_size(), measured(&l));
        l.retain_range(10, 20);
        assert_eq!(l.len(), 11);
        assert_eq!(l.heap_size(), measured(&l));
        while l.pop_front().is_some() {
            assert_eq!(l.heap_size(), measured(&l));
        }
        assert_eq!(l.elem_bytes, 0);
        assert_eq!(l.lp_bytes, 0);
    }

    #[test]
    fn remove_matching_counts_from_either_end() {
        let mut l = ListValue::from_elems(&["a", "b", "a", "c", "a"]);
        assert_eq!(l.remove_matching(b"a", 1, true), 1);
        assert_eq!(elems(&l), vec![&b"a"[..], b"b", b"a", b"c"]);
        assert_eq!(l.remove_matching(b"a", 1, false), 1);
        assert_eq!(elems(&l), vec![&b"b"[..], b"a", b"c"]);
        assert_eq!(l.remove_matching(b"zz", 0, false), 0);
        assert_eq!(l.remove_matching(b"a", 0, false), 1);
        assert_eq!(elems(&l), vec![&b"b"[..], b"c"]);
    }

    #[test]
    fn listpack_entry_sizes_follow_redis() {
        assert_eq!(listpack_entry_size(b"7"), 2);
        assert_eq!(listpack_entry_size(b"-1"), 3);
        assert_eq!(listpack_entry_size(b"1000"), 3);
        assert_eq!(listpack_entry_size(b"100000"), 5);
        assert_eq!(listpack_entry_size(b"9223372036854775807"), 10);
        assert_eq!(listpack_entry_size(b"007"), 5);
        assert_eq!(listpack_entry_size(b""), 2);
        assert_eq!(listpack_entry_size(&[b'x'; 63]), 65);
        assert_eq!(listpack_entry_size(&[b'x'; 64]), 67);
        assert_eq!(listpack_entry_size(&[b'x'; 200]), 204);
    }

    #[test]
    fn encoding_turns_quicklist_past_8kb_and_back_at_half() {
        let mut l = ListValue::default();
        let big = [b'x'; 100];
        while l.encoding() == "listpack" {
            l.push_back(&big);
        }
        // 79 entries of 103 bytes and the header fit in 8 KB; pushing the 80th converts.
        assert_eq!(l.len(), 80);
        while LISTPACK_OVERHEAD + l.lp_bytes > 8192 / 2 {
            assert_eq!(l.encoding(), "quicklist");
            l.pop_back();
        }
        assert_eq!(l.encoding(), "listpack");
        // One element larger than the limit makes a quicklist at once.
        assert_eq!(ListValue::from_elems(&[vec![b'y'; 9000]]).encoding(), "quicklist");
    }
}
