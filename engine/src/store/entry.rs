//! One keyspace entry: its typed value, expiry, access stamps for LRU/LFU, and the memory
//! accounting that says how many bytes the allocator holds for it.

use super::hash::HashValue;
use super::list::ListValue;
use super::set::SetValue;
use super::zset::ZSetValue;

/// A key's value. Collections are boxed so the common case, a string, keeps entries small.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(Vec<u8>),
    List(Box<ListValue>),
    Set(Box<SetValue>),
    ZSet(Box<ZSetValue>),
    Hash(Box<HashValue>),
}

impl Value {
    /// How many value types there are; `type_index` is below this.
    pub const TYPES: usize = 5;
    /// `TYPE` names, indexed by `type_index`.
    pub const TYPE_NAMES: [&'static str; Value::TYPES] = ["string", "list", "set", "zset", "hash"];

    /// A small number per type, for per-type key counts kept by each shard.
    pub fn type_index(&self) -> usize {
        match self {
            Value::Str(_) => 0,
            Value::List(_) => 1,
            Value::Set(_) => 2,
            Value::ZSet(_) => 3,
            Value::Hash(_) => 4,
        }
    }

    /// Bytes of a string, elements of a collection (what STRLEN/LLEN/SCARD/ZCARD/HLEN say).
    pub fn len(&self) -> usize {
        match self {
            Value::Str(s) => s.len(),
            Value::List(l) => l.len(),
            Value::Set(s) => s.len(),
            Value::ZSet(z) => z.len(),
            Value::Hash(h) => h.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A collection with no elements, which Redis never keeps: the key is deleted instead.
    /// (An empty string is a value like any other.)
    pub fn is_empty_collection(&self) -> bool {
        !matches!(self, Value::Str(_)) && self.is_empty()
    }

    /// The name `TYPE` answers with.
    pub fn type_name(&self) -> &'static str {
        Value::TYPE_NAMES[self.type_index()]
    }

    /// The name `OBJECT ENCODING` answers with, derived from the content as Redis would
    /// choose it for a freshly written value.
    pub fn encoding(&self) -> &'static str {
        match self {
            Value::Str(s) => {
                if s.len() <= 20 && crate::args::parse_i64(s).is_some() {
                    "int"
                } else if s.len() <= 44 {
                    "embstr"
                } else {
                    "raw"
                }
            }
            Value::List(l) => l.encoding(),
            Value::Set(s) => s.encoding(),
            Value::ZSet(z) => z.encoding(),
            Value::Hash(h) => h.encoding(),
        }
    }

    /// Heap bytes the allocator holds for this value (capacity, rounded as malloc rounds).
    pub fn heap_size(&self) -> usize {
        match self {
            Value::Str(s) => alloc_size(s.capacity()),
            // The box itself plus what the collection holds (kept in O(1) by each type).
            Value::List(l) => alloc_size(std::mem::size_of::<ListValue>()) + l.heap_size(),
            Value::Set(s) => alloc_size(std::mem::size_of::<SetValue>()) + s.heap_size(),
            Value::ZSet(z) => alloc_size(std::mem::size_of::<ZSetValue>()) + z.heap_size(),
            Value::Hash(h) => alloc_size(std::mem::size_of::<HashValue>()) + h.heap_size(),
        }
    }
}

/// What a keyspace entry holds besides its key.
#[derive(Debug, Clone)]
pub struct Entry {
    pub value: Value,
    /// Absolute expiry in unix milliseconds; 0 means no TTL.
    pub expire_at: u64,
    /// Logical access stamp (low 32 bits of the store's access clock) for LRU ranking. A
    /// counter rather than a coarse time, so LRU stays exact however many requests arrive per
    /// millisecond (Redis's 1-second LRU clock degrades toward random in small, busy caches).
    pub seq: u32,
    /// Last access in milliseconds since the store's base time (for `OBJECT IDLETIME`).
    pub atime: u32,
    /// LFU: logarithmic access counter (Redis's 8-bit Morris counter).
    pub lfu: u8,
    /// LFU: minutes (mod 2^16) when the counter was last decremented, as Redis keeps it.
    pub lfu_ldt: u16,
}

impl Entry {
    pub fn has_ttl(&self) -> bool {
        self.expire_at != 0
    }

    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expire_at != 0 && self.expire_at <= now_ms
    }
}

/// `size_of::<Entry>()` and `size_of::<Key>()` on a 64-bit target. Memory is accounted as
/// the 64-bit server lays it out wherever the engine runs, so the browser playground (wasm32,
/// where a `Vec` is 12 bytes rather than 24) reports the same sizes and evicts the same keys.
const ENTRY_SIZE: usize = 48;
const KEY_SIZE: usize = 24;
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Entry>() == ENTRY_SIZE && std::mem::size_of::<super::key::Key>() == KEY_SIZE);

/// Fixed bytes per entry beyond the key's and value's heap: the index map's bucket (hash,
/// inline-or-boxed `Key`, `Entry`), its share of the hash index, and load-factor slack.
pub const ENTRY_OVERHEAD: usize = ENTRY_SIZE + 8 + KEY_SIZE + 16;
/// Extra bytes when the key also sits in the shard's set of keys with a TTL.
pub const TTL_OVERHEAD: usize = 8 + KEY_SIZE + 16;

/// Bytes malloc really hands out for a request of `n` bytes (glibc: 8-byte header, 16-byte
/// granularity, 32-byte minimum chunk). Counting this rather than `n` keeps `used_memory`
/// close to what the allocator holds for many small keys.
pub fn alloc_size(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        ((n + 8 + 15) & !15).max(32)
    }
}

/// Heap bytes a key of `len` bytes needs (short keys are stored inline, see `Key`).
pub fn key_heap_size(len: usize) -> usize {
    if len <= super::key::INLINE_MAX {
        0
    } else {
        alloc_size(len)
    }
}

/// Accounted size of an entry: overhead, key allocation, value heap, and the TTL index.
pub fn entry_size(key_len: usize, entry: &Entry) -> usize {
    let mut size = ENTRY_OVERHEAD + key_heap_size(key_len) + entry.value.heap_size();
    if entry.has_ttl() {
        size += TTL_OVERHEAD + key_heap_size(key_len);
    }
    size
}

/// Size an entry for `key_len` and a string of `val_len` bytes would have: the estimate a
/// write uses to make room before it runs.
pub fn estimate_string_entry(key_len: usize, val_len: usize) -> usize {
    ENTRY_OVERHEAD + TTL_OVERHEAD + 2 * key_heap_size(key_len) + alloc_size(val_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_size_rounds_like_malloc() {
        assert_eq!(alloc_size(0), 0);
        assert_eq!(alloc_size(1), 32);
        assert_eq!(alloc_size(24), 32);
        assert_eq!(alloc_size(25), 48);
        assert_eq!(alloc_size(1024), 1040);
    }

    #[test]
    fn string_encodings() {
        assert_eq!(Value::Str(b"123".to_vec()).encoding(), "int");
        assert_eq!(Value::Str(b"0123".to_vec()).encoding(), "embstr");
        assert_eq!(Value::Str(vec![b'a'; 45]).encoding(), "raw");
    }
}
