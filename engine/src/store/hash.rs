//! A hash: field -> value, with the encoding Redis would report for it and a running count
//! of the heap bytes it holds.
//!
//! Rule for every collection type: `heap_size` is O(1). The type keeps a running byte count
//! updated by each mutation, because `Shard::update` re-measures the value after every write.
//!
//! Fields live in an insertion-ordered map (`IndexMap`): O(1) lookup, uniform random picks by
//! position (HRANDFIELD) and a cursor that walks positions (HSCAN). While the hash is small
//! (Redis's `listpack`) a deletion keeps the order of the rest, so HGETALL answers in the
//! same order as Redis; once it is big (`hashtable`) deletions swap the last field into the
//! hole, in O(1), which is also what keeps HSCAN's guarantee (see [`HashValue::scan`]).
//!
//! Fields may have their own expiry (HEXPIRE and friends, Redis 7.4). Those times live in a
//! side table that only hashes with such fields allocate (`ttls: None` otherwise), so a plain
//! hash pays one pointer-sized word and nothing per field. The store removes expired fields
//! (`take_expired`) before any command sees the hash, so the rest of this type and every
//! hash command deal with live fields only.

use std::collections::{BTreeSet, HashMap};
use std::mem::size_of;

use foldhash::fast::RandomState;
use indexmap::IndexMap;

use super::encodings;
use super::entry::alloc_size;

/// Bytes per field beyond its field and value allocations: the map's entry (hash, field,
/// value), its slot in the index table, and an allowance for the table's free slots.
pub const ELEMENT_OVERHEAD: usize = size_of::<(u64, Box<[u8]>, Box<[u8]>)>() + size_of::<usize>() + 8;

/// Bytes per field with a TTL beyond its two copies of the field name: its entry in the
/// field -> time map (with a slot's share of control bytes and free room) and its entry in
/// the time-ordered set (with a share of the B-tree node).
pub const TTL_OVERHEAD: usize = size_of::<(Box<[u8]>, u64)>() + 16 + size_of::<(u64, Box<[u8]>)>() + 16;

/// A hash: field -> value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HashValue {
    /// A random hasher per hash, so no client can pick fields that collide.
    map: IndexMap<Box<[u8]>, Box<[u8]>, RandomState>,
    /// Accounted heap bytes of the elements (kept up to date by every mutation).
    bytes: usize,
    /// Converted to Redis's `hashtable` encoding; like Redis, it never converts back.
    big: bool,
    /// A field got a TTL while the hash was small: Redis 7.4 then reports `listpackex`, and
    /// keeps doing so after the TTLs are gone (it does not convert back either).
    ex: bool,
    /// The fields that have a TTL; `None` for a hash that has none (the common case).
    ttls: Option<Box<FieldTtls>>,
}

/// The expiry times of a hash's fields, by field and in time order (the earliest first, so
/// the expired ones come off the front).
#[derive(Debug, Clone, Default, PartialEq)]
struct FieldTtls {
    at: HashMap<Box<[u8]>, u64, RandomState>,
    order: BTreeSet<(u64, Box<[u8]>)>,
}

/// Bytes of the side table a hash allocates when its first field gets a TTL.
pub const TTL_TABLE_SIZE: usize = size_of::<FieldTtls>();

/// Accounted bytes of one field's TTL.
fn ttl_size(field: &[u8]) -> usize {
    2 * alloc_size(field.len()) + TTL_OVERHEAD
}

/// Accounted bytes of one field and its value.
fn element_size(field: &[u8], value: &[u8]) -> usize {
    alloc_size(field.len()) + alloc_size(value.len()) + ELEMENT_OVERHEAD
}

impl HashValue {
    pub fn new() -> HashValue {
        HashValue::default()
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

    /// Whether Redis would hold this hash as a `hashtable` (rather than a `listpack`).
    pub fn is_big(&self) -> bool {
        self.big
    }

    /// What `OBJECT ENCODING` answers: `listpack` while small (`listpackex` once a field
    /// has had a TTL, as Redis 7.4), `hashtable` once big.
    pub fn encoding(&self) -> &'static str {
        if self.big {
            "hashtable"
        } else if self.ex {
            "listpackex"
        } else {
            "listpack"
        }
    }

    pub fn get(&self, field: &[u8]) -> Option<&[u8]> {
        self.map.get(field).map(|v| &**v)
    }

    pub fn contains(&self, field: &[u8]) -> bool {
        self.map.contains_key(field)
    }

    /// Sets a field; true when it is new. Overwriting a field drops its TTL, as HSET does in
    /// Redis. Converts to `hashtable` as Redis does: a field or value longer than
    /// `hash-max-listpack-value`, or more fields than `hash-max-listpack-entries` (read live,
    /// see [`encodings`]).
    pub fn set(&mut self, field: &[u8], value: &[u8]) -> bool {
        if self.ttls.is_some() {
            self.persist(field);
        }
        self.set_keep_ttl(field, value)
    }

    /// Sets a field and keeps the TTL it has (HINCRBY, HINCRBYFLOAT, HSETEX KEEPTTL).
    pub fn set_keep_ttl(&mut self, field: &[u8], value: &[u8]) -> bool {
        let limits = encodings::current();
        if field.len() > limits.hash_max_listpack_value || value.len() > limits.hash_max_listpack_value {
            self.big = true;
        }
        let new = match self.map.get_mut(field) {
            Some(slot) => {
                self.bytes -= alloc_size(slot.len());
                self.bytes += alloc_size(value.len());
                *slot = value.into();
                false
            }
            None => {
                self.bytes += element_size(field, value);
                self.map.insert(field.into(), value.into());
                true
            }
        };
        if self.map.len() > limits.hash_max_listpack_entries {
            self.big = true;
        }
        new
    }

    /// Redis's `hashTypeTryConversion` before HSET writes `fields` pairs: more pairs than
    /// `hash-max-listpack-entries` make it a `hashtable` at once, even when some repeat a field.
    pub fn expect_fields(&mut self, fields: usize) {
        if fields > encodings::current().hash_max_listpack_entries {
            self.big = true;
        }
    }

    /// Removes a field (and its TTL); true when it was there.
    pub fn remove(&mut self, field: &[u8]) -> bool {
        if self.ttls.is_some() {
            self.persist(field);
        }
        let removed = if self.big { self.map.swap_remove_entry(field) } else { self.map.shift_remove_entry(field) };
        match removed {
            Some((f, v)) => {
                self.bytes -= element_size(&f, &v);
                self.maybe_shrink();
                true
            }
            None => false,
        }
    }

    /// Whether any field has a TTL.
    pub fn has_field_ttls(&self) -> bool {
        self.ttls.is_some()
    }

    /// When a field expires (unix ms), `None` when it has no TTL (or does not exist).
    pub fn field_expiry(&self, field: &[u8]) -> Option<u64> {
        self.ttls.as_ref()?.at.get(field).copied()
    }

    /// The earliest expiry of any field, `None` when no field has a TTL.
    pub fn next_field_expiry(&self) -> Option<u64> {
        self.ttls.as_ref()?.order.first().map(|(at, _)| *at)
    }

    /// Every field with a TTL and its expiry (unix ms), in no particular order.
    pub fn field_expiries(&self) -> impl Iterator<Item = (&[u8], u64)> + '_ {
        self.ttls.iter().flat_map(|t| t.at.iter().map(|(f, at)| (&**f, *at)))
    }

    /// Gives an existing field a TTL (replacing any it had); false when there is no such
    /// field. The caller checks that `at` is in the future.
    pub fn set_field_expiry(&mut self, field: &[u8], at: u64) -> bool {
        if !self.map.contains_key(field) {
            return false;
        }
        if !self.big {
            self.ex = true;
        }
        let ttls = match &mut self.ttls {
            Some(t) => t,
            None => {
                self.bytes += alloc_size(size_of::<FieldTtls>());
                self.ttls.insert(Box::default())
            }
        };
        match ttls.at.get_mut(field) {
            Some(old) => {
                let key = (*old, Box::<[u8]>::from(field));
                ttls.order.remove(&key);
                *old = at;
                ttls.order.insert((at, key.1));
            }
            None => {
                ttls.at.insert(field.into(), at);
                ttls.order.insert((at, field.into()));
                self.bytes += ttl_size(field);
            }
        }
        true
    }

    /// Drops a field's TTL; true when it had one. The side table goes once it is empty.
    pub fn persist(&mut self, field: &[u8]) -> bool {
        let Some(ttls) = &mut self.ttls else { return false };
        let Some(at) = ttls.at.remove(field) else { return false };
        ttls.order.remove(&(at, Box::<[u8]>::from(field)));
        self.bytes -= ttl_size(field);
        if ttls.at.is_empty() {
            self.ttls = None;
            self.bytes -= alloc_size(size_of::<FieldTtls>());
        }
        true
    }

    /// Removes every field whose expiry is at or before `now_ms` and returns their names,
    /// earliest first. Costs O(log n) per expired field, nothing when none is due.
    pub fn take_expired(&mut self, now_ms: u64) -> Vec<Box<[u8]>> {
        let mut gone = Vec::new();
        while let Some((at, field)) = self.ttls.as_ref().and_then(|t| t.order.first()) {
            if *at > now_ms {
                break;
            }
            let field = field.clone();
            self.remove(&field);
            gone.push(field);
        }
        gone
    }

    /// The accounted bytes counted again from scratch, for tests of the running count.
    #[cfg(test)]
    pub(crate) fn recount(&self) -> usize {
        let fields: usize = self.map.iter().map(|(f, v)| element_size(f, v)).sum();
        let ttls = self.ttls.as_ref().map_or(0, |t| {
            assert_eq!(t.at.len(), t.order.len(), "the two views of the TTLs agree");
            alloc_size(size_of::<FieldTtls>()) + t.at.keys().map(|f| ttl_size(f)).sum::<usize>()
        });
        fields + ttls
    }

    /// Gives memory back once the map is mostly empty (as Redis resizes a sparse dict), so
    /// what the allocator holds stays close to what is accounted per field. Amortized O(1).
    fn maybe_shrink(&mut self) {
        if self.map.capacity() > 64 && self.map.len() * 4 < self.map.capacity() {
            self.map.shrink_to_fit();
        }
    }

    /// Fields and values in the hash's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&[u8], &[u8])> + '_ {
        self.map.iter().map(|(f, v)| (&**f, &**v))
    }

    /// The field and value at a position (`0..len`), for random picks.
    pub fn get_index(&self, idx: usize) -> Option<(&[u8], &[u8])> {
        self.map.get_index(idx).map(|(f, v)| (&**f, &**v))
    }

    /// One HSCAN step from `cursor`; returns the next cursor (0 when done). A small hash is
    /// returned whole whatever the cursor, as Redis does for a listpack. A big one is walked
    /// by position from the end down, about `count` fields per call: deletions move the
    /// last field (already visited) into the hole, so every field that stays for the whole
    /// iteration is returned at least once (fields added meanwhile may or may not be).
    pub fn scan(&self, cursor: u64, count: usize, mut visit: impl FnMut(&[u8], &[u8])) -> u64 {
        if !self.big {
            self.iter().for_each(|(f, v)| visit(f, v));
            return 0;
        }
        let len = self.map.len() as u64;
        let mut pos = if cursor == 0 { len } else { cursor.min(len) };
        let mut visited = 0;
        while pos > 0 && visited < count.max(1) {
            pos -= 1;
            visited += 1;
            if let Some((f, v)) = self.get_index(pos as usize) {
                visit(f, v);
            }
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_follow_every_change_and_return_to_zero() {
        let mut h = HashValue::new();
        assert!(h.set(b"f", b"v"));
        assert_eq!(h.heap_size(), element_size(b"f", b"v"));
        assert!(!h.set(b"f", &[b'x'; 40]));
        assert_eq!(h.heap_size(), element_size(b"f", &[b'x'; 40]));
        assert!(h.set(b"", b""));
        assert_eq!(h.heap_size(), element_size(b"f", &[b'x'; 40]) + ELEMENT_OVERHEAD);
        assert!(h.remove(b"f"));
        assert!(!h.remove(b"f"));
        assert!(h.remove(b""));
        assert_eq!(h.heap_size(), 0);
        assert!(h.is_empty());
    }

    #[test]
    fn converts_to_hashtable_once_and_for_good() {
        let mut h = HashValue::new();
        let limits = encodings::Thresholds::DEFAULT;
        for i in 0..limits.hash_max_listpack_entries {
            h.set(i.to_string().as_bytes(), &vec![b'v'; limits.hash_max_listpack_value]);
        }
        assert_eq!(h.encoding(), "listpack");
        h.set(b"one more", b"v");
        assert_eq!(h.encoding(), "hashtable");
        h.remove(b"one more");
        assert_eq!(h.encoding(), "hashtable");
        let mut h = HashValue::new();
        h.set(&vec![b'f'; limits.hash_max_listpack_value + 1], b"v");
        assert_eq!(h.encoding(), "hashtable");
    }

    #[test]
    fn small_hashes_keep_their_order_on_delete() {
        let mut h = HashValue::new();
        for f in ["a", "b", "c", "d"] {
            h.set(f.as_bytes(), b"1");
        }
        h.remove(b"a");
        let fields: Vec<&[u8]> = h.iter().map(|(f, _)| f).collect();
        assert_eq!(fields, vec![&b"b"[..], b"c", b"d"]);
    }

    #[test]
    fn scan_of_a_big_hash_returns_every_field_that_stays() {
        let mut h = HashValue::new();
        for i in 0..1000 {
            h.set(format!("f{i}").as_bytes(), b"v");
        }
        assert!(h.is_big());
        let mut seen = std::collections::HashSet::new();
        let mut cursor = 0;
        let mut round = 0;
        loop {
            cursor = h.scan(cursor, 10, |f, _| {
                seen.insert(f.to_vec());
            });
            // Delete some fields between steps: the ones that stay must all be seen.
            round += 1;
            h.remove(format!("f{}", round * 7).as_bytes());
            if cursor == 0 {
                break;
            }
        }
        for (f, _) in h.iter() {
            assert!(seen.contains(f), "{}", String::from_utf8_lossy(f));
        }
    }
}
