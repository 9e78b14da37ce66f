//! A set of unique members, with the encoding Redis 7.2 would report for it and a running
//! count of the heap bytes it holds.
//!
//! Rule for every collection type: `heap_size` is O(1). The type keeps a running byte count
//! updated by each mutation, because `Shard::update` re-measures the value after every write.
//!
//! Members live in an insertion-ordered set (`IndexSet`): O(1) membership, uniform random
//! picks by position (SPOP, SRANDMEMBER) and a cursor that walks positions (SSCAN). The order
//! mirrors Redis's small encodings, so small sets list their members as Redis does: an
//! `intset` keeps its integers sorted, a `listpack` keeps insertion order (deletions keep the
//! order of the rest). A `hashtable` set deletes by swapping the last member into the hole.

use std::mem::size_of;

use foldhash::fast::RandomState;
use indexmap::IndexSet;

use super::encodings;
use super::entry::alloc_size;
use crate::num::parse_i64;

/// Bytes per member beyond its own allocation: the set's entry (hash, member), its slot in
/// the index table, and an allowance for the table's free slots.
pub const ELEMENT_OVERHEAD: usize = size_of::<(u64, Box<[u8]>)>() + size_of::<usize>() + 8;

/// How Redis 7.2 would hold the set. Like Redis, a set only ever moves down this list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SetEncoding {
    /// Only integers, at most 512 of them, kept sorted.
    #[default]
    IntSet,
    /// At most 128 members of at most 64 bytes, in insertion order.
    ListPack,
    HashTable,
}

/// A set of unique members.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SetValue {
    /// A random hasher per set, so no client can pick members that collide.
    set: IndexSet<Box<[u8]>, RandomState>,
    /// Accounted heap bytes of the elements (kept up to date by every mutation).
    bytes: usize,
    enc: SetEncoding,
}

fn element_size(member: &[u8]) -> usize {
    alloc_size(member.len()) + ELEMENT_OVERHEAD
}

impl SetValue {
    /// An empty set that starts as an `intset`, as the sets SINTERSTORE and friends build.
    pub fn new() -> SetValue {
        SetValue::default()
    }

    /// An empty set in the encoding Redis 7.2's `setTypeCreate` picks for a set about to
    /// receive `first` and `size_hint` members in all (SADD passes its member count).
    pub fn for_members(first: &[u8], size_hint: usize) -> SetValue {
        let t = encodings::current();
        let enc = if parse_i64(first).is_some() && size_hint <= t.set_max_intset_entries {
            SetEncoding::IntSet
        } else if size_hint <= t.set_max_listpack_entries {
            SetEncoding::ListPack
        } else {
            SetEncoding::HashTable
        };
        SetValue { enc, ..SetValue::default() }
    }

    /// Redis 7.2's `setTypeMaybeConvert` before SADD adds `count` members to a set: a
    /// `hashtable` at once when that many would not fit its encoding.
    pub fn expect_members(&mut self, count: usize) {
        let t = encodings::current();
        let limit = match self.enc {
            SetEncoding::IntSet => t.set_max_intset_entries,
            SetEncoding::ListPack => t.set_max_listpack_entries,
            SetEncoding::HashTable => return,
        };
        if count > limit {
            self.enc = SetEncoding::HashTable;
        }
    }

    pub fn len(&self) -> usize {
        self.set.len()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Heap bytes held, in O(1).
    pub fn heap_size(&self) -> usize {
        self.bytes
    }

    /// What `OBJECT ENCODING` answers (intset / listpack / hashtable, by Redis 7.2's rules).
    pub fn encoding(&self) -> &'static str {
        match self.enc {
            SetEncoding::IntSet => "intset",
            SetEncoding::ListPack => "listpack",
            SetEncoding::HashTable => "hashtable",
        }
    }

    pub fn contains(&self, member: &[u8]) -> bool {
        self.set.contains(member)
    }

    /// Adds a member; true when it is new. Converts as Redis 7.2's `setTypeAdd` does.
    pub fn add(&mut self, member: &[u8]) -> bool {
        if self.set.contains(member) {
            return false;
        }
        let t = encodings::current();
        match self.enc {
            SetEncoding::IntSet => match parse_i64(member) {
                Some(v) => {
                    // Sorted, as an intset is: SMEMBERS of a small integer set is ordered.
                    let at = self.set.partition_point(|m| parse_i64(m).is_some_and(|x| x < v));
                    self.bytes += element_size(member);
                    self.set.shift_insert(at, member.into());
                    if self.set.len() > t.set_max_intset_entries {
                        self.enc = SetEncoding::HashTable;
                    }
                    return true;
                }
                None => {
                    // The intset is sorted: its widest integers are at the ends (Redis
                    // measures the digits of its minimum and maximum).
                    let widest = match (self.set.first(), self.set.last()) {
                        (Some(lo), Some(hi)) => lo.len().max(hi.len()),
                        _ => 0,
                    };
                    // Redis compares strictly here, unlike when adding to a listpack.
                    self.enc = if self.set.len() < t.set_max_listpack_entries
                        && member.len() < t.set_max_listpack_value
                        && widest < t.set_max_listpack_value
                    {
                        SetEncoding::ListPack
                    } else {
                        SetEncoding::HashTable
                    };
                }
            },
            SetEncoding::ListPack => {
                if self.set.len() >= t.set_max_listpack_entries || member.len() > t.set_max_listpack_value {
                    self.enc = SetEncoding::HashTable;
                }
            }
            SetEncoding::HashTable => {}
        }
        self.bytes += element_size(member);
        self.set.insert(member.into());
        true
    }

    /// Removes a member; true when it was there.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        let removed = match self.enc {
            SetEncoding::HashTable => self.set.swap_remove_full(member).map(|(_, m)| m),
            _ => self.set.shift_remove_full(member).map(|(_, m)| m),
        };
        match removed {
            Some(m) => {
                self.bytes -= element_size(&m);
                self.maybe_shrink();
                true
            }
            None => false,
        }
    }

    /// Gives memory back once the set is mostly empty (as Redis resizes a sparse dict), so
    /// what the allocator holds stays close to what is accounted per member. Amortized O(1).
    fn maybe_shrink(&mut self) {
        if self.set.capacity() > 64 && self.set.len() * 4 < self.set.capacity() {
            self.set.shrink_to_fit();
        }
    }

    /// Removes and returns the member at a position (`0..len`).
    pub fn remove_index(&mut self, idx: usize) -> Option<Box<[u8]>> {
        let m = match self.enc {
            SetEncoding::HashTable => self.set.swap_remove_index(idx),
            _ => self.set.shift_remove_index(idx),
        }?;
        self.bytes -= element_size(&m);
        self.maybe_shrink();
        Some(m)
    }

    /// Members in the set's order (sorted for an intset, insertion order for a listpack).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.set.iter().map(|m| &**m)
    }

    /// The member at a position (`0..len`), for random picks.
    pub fn get_index(&self, idx: usize) -> Option<&[u8]> {
        self.set.get_index(idx).map(|m| &**m)
    }

    /// Redis 7.2's SPOP, when it keeps only a few members of a `hashtable` set, builds a new
    /// set from them: the encoding is chosen afresh (integers only: `intset`; few and short:
    /// `listpack`). A set that is already small keeps its encoding.
    pub fn reencode(&mut self) {
        if self.enc != SetEncoding::HashTable || self.set.is_empty() {
            return;
        }
        let members = std::mem::take(&mut self.set);
        let first_is_int = members.first().is_some_and(|m| parse_i64(m).is_some());
        let mut fresh = SetValue {
            enc: if first_is_int { SetEncoding::IntSet } else { SetEncoding::ListPack },
            ..SetValue::default()
        };
        for m in members {
            fresh.add(&m);
        }
        *self = fresh;
    }

    /// One SSCAN step from `cursor`; returns the next cursor (0 when done). A small set is
    /// returned whole whatever the cursor, as Redis does for an intset or listpack. A big one
    /// is walked by position from the end down, about `count` members per call, so every
    /// member that stays for the whole iteration is returned at least once (see
    /// `HashValue::scan`).
    pub fn scan(&self, cursor: u64, count: usize, mut visit: impl FnMut(&[u8])) -> u64 {
        if self.enc != SetEncoding::HashTable {
            self.iter().for_each(&mut visit);
            return 0;
        }
        let len = self.set.len() as u64;
        let mut pos = if cursor == 0 { len } else { cursor.min(len) };
        let mut visited = 0;
        while pos > 0 && visited < count.max(1) {
            pos -= 1;
            visited += 1;
            if let Some(m) = self.get_index(pos as usize) {
                visit(m);
            }
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_of(members: &[&str]) -> SetValue {
        let mut s = SetValue::for_members(members[0].as_bytes(), members.len());
        for m in members {
            s.add(m.as_bytes());
        }
        s
    }

    fn members(s: &SetValue) -> Vec<String> {
        s.iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect()
    }

    #[test]
    fn bytes_follow_every_change_and_return_to_zero() {
        let mut s = SetValue::new();
        assert!(s.add(b"1"));
        assert!(!s.add(b"1"));
        assert!(s.add(b"some text"));
        assert!(s.add(b""));
        assert_eq!(s.heap_size(), element_size(b"1") + element_size(b"some text") + ELEMENT_OVERHEAD);
        assert!(s.remove(b"1"));
        assert!(!s.remove(b"1"));
        assert!(s.remove_index(0).is_some());
        assert!(s.remove(b""));
        assert_eq!(s.heap_size(), 0);
    }

    #[test]
    fn intsets_stay_sorted() {
        let s = set_of(&["5", "-3", "100", "0", "-9223372036854775808", "7"]);
        assert_eq!(s.encoding(), "intset");
        assert_eq!(members(&s), ["-9223372036854775808", "-3", "0", "5", "7", "100"]);
    }

    #[test]
    fn encodings_follow_redis_7_2() {
        // Not integers in canonical form: a listpack.
        assert_eq!(set_of(&["a"]).encoding(), "listpack");
        assert_eq!(set_of(&["01"]).encoding(), "listpack");
        // An intset takes a string: listpack while small and short.
        let mut s = set_of(&["1", "2"]);
        s.add(b"x");
        assert_eq!(s.encoding(), "listpack");
        assert_eq!(members(&s), ["1", "2", "x"]);
        let mut s = set_of(&["1"]);
        s.add(&[b'x'; 64]);
        assert_eq!(s.encoding(), "hashtable");
        // A listpack takes up to 64 bytes and up to 128 members.
        let mut s = set_of(&["a"]);
        s.add(&[b'x'; 64]);
        assert_eq!(s.encoding(), "listpack");
        s.add(&[b'x'; 65]);
        assert_eq!(s.encoding(), "hashtable");
        let mut s = SetValue::new();
        for i in 0..encodings::Thresholds::DEFAULT.set_max_listpack_entries {
            s.add(format!("m{i}").as_bytes());
        }
        assert_eq!(s.encoding(), "listpack");
        s.add(b"one more");
        assert_eq!(s.encoding(), "hashtable");
        // An intset of up to 512 integers.
        let mut s = SetValue::new();
        for i in 0..encodings::Thresholds::DEFAULT.set_max_intset_entries {
            s.add(i.to_string().as_bytes());
        }
        assert_eq!(s.encoding(), "intset");
        s.add(b"512");
        assert_eq!(s.encoding(), "hashtable");
        // A big SADD on a new key goes straight to what its size needs.
        assert_eq!(SetValue::for_members(b"1", 513).encoding(), "hashtable");
        assert_eq!(SetValue::for_members(b"a", 129).encoding(), "hashtable");
        assert_eq!(SetValue::for_members(b"1", 200).encoding(), "intset");
    }

    #[test]
    fn reencode_picks_a_small_encoding_for_what_is_left() {
        let mut s = SetValue::new();
        for i in 0..600 {
            s.add(i.to_string().as_bytes());
        }
        assert_eq!(s.encoding(), "hashtable");
        while s.len() > 10 {
            s.remove_index(0);
        }
        s.reencode();
        assert_eq!(s.encoding(), "intset");
        let mut sorted = members(&s);
        sorted.sort_by_key(|m| m.parse::<i64>().unwrap_or(0));
        assert_eq!(members(&s), sorted);
    }
}
