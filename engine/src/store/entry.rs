//! One keyspace entry: its typed value, expiry, access stamps for LRU/LFU, and the memory
//! accounting that says how many bytes the allocator holds for it.

use super::hash::HashValue;
use super::list::ListValue;
use super::node::Node;
use super::set::SetValue;
use super::stream::Stream;
use super::zset::ZSetValue;

/// A key's value. Collections are boxed so the common case, a string, keeps entries small.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(Vec<u8>),
    List(Box<ListValue>),
    Set(Box<SetValue>),
    ZSet(Box<ZSetValue>),
    Hash(Box<HashValue>),
    Stream(Box<Stream>),
}

impl Value {
    /// How many value types there are; `type_index` is below this.
    pub const TYPES: usize = 6;
    /// `TYPE` names, indexed by `type_index`.
    pub const TYPE_NAMES: [&'static str; Value::TYPES] = ["string", "list", "set", "zset", "hash", "stream"];

    /// A small number per type, for per-type key counts kept by each shard.
    pub fn type_index(&self) -> usize {
        self.as_ref().type_index()
    }

    /// Bytes of a string, elements of a collection (what STRLEN/LLEN/SCARD/ZCARD/HLEN say).
    pub fn len(&self) -> usize {
        self.as_ref().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A collection with no elements, which Redis never keeps: the key is deleted instead.
    /// (An empty string is a value like any other, and so is an empty stream: XDEL and XTRIM
    /// leave the key, with its last ID and groups.)
    pub fn is_empty_collection(&self) -> bool {
        !matches!(self, Value::Str(_) | Value::Stream(_)) && self.is_empty()
    }

    /// The name `TYPE` answers with.
    pub fn type_name(&self) -> &'static str {
        Value::TYPE_NAMES[self.type_index()]
    }

    /// The name `OBJECT ENCODING` answers with (see `ValueRef::encoding`).
    pub fn encoding(&self) -> &'static str {
        self.as_ref().encoding()
    }

    /// Heap bytes the allocator holds for this value (capacity, rounded as malloc rounds).
    pub fn heap_size(&self) -> usize {
        match self {
            Value::Str(s) => alloc_size(s.capacity()),
            other => other.as_ref().heap_size(),
        }
    }
}

/// A borrowed view of a key's value, as the keyspace lends it (strings are stored inside
/// their entry's node, so there is no `Vec` to lend).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueRef<'a> {
    Str(&'a [u8]),
    List(&'a ListValue),
    Set(&'a SetValue),
    ZSet(&'a ZSetValue),
    Hash(&'a HashValue),
    Stream(&'a Stream),
}

impl<'a> From<&'a Value> for ValueRef<'a> {
    fn from(v: &'a Value) -> ValueRef<'a> {
        v.as_ref()
    }
}

impl<'a> From<&ValueRef<'a>> for ValueRef<'a> {
    fn from(v: &ValueRef<'a>) -> ValueRef<'a> {
        *v
    }
}

impl ValueRef<'_> {
    /// An owned, deep copy (COPY): the copy shares nothing with the original.
    pub fn to_value(self) -> Value {
        match self {
            ValueRef::Str(s) => Value::Str(s.to_vec()),
            ValueRef::List(l) => Value::List(Box::new(l.clone())),
            ValueRef::Set(s) => Value::Set(Box::new(s.clone())),
            ValueRef::ZSet(z) => Value::ZSet(Box::new(z.clone())),
            ValueRef::Hash(h) => Value::Hash(Box::new(h.clone())),
            ValueRef::Stream(s) => Value::Stream(Box::new(s.clone())),
        }
    }
}

impl Value {
    /// A borrowed view.
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Str(s) => ValueRef::Str(s),
            Value::List(l) => ValueRef::List(l),
            Value::Set(s) => ValueRef::Set(s),
            Value::ZSet(z) => ValueRef::ZSet(z),
            Value::Hash(h) => ValueRef::Hash(h),
            Value::Stream(s) => ValueRef::Stream(s),
        }
    }
}

impl<'a> ValueRef<'a> {
    /// See `Value::type_index`.
    pub fn type_index(&self) -> usize {
        match self {
            ValueRef::Str(_) => 0,
            ValueRef::List(_) => 1,
            ValueRef::Set(_) => 2,
            ValueRef::ZSet(_) => 3,
            ValueRef::Hash(_) => 4,
            ValueRef::Stream(_) => 5,
        }
    }

    /// Bytes of a string, elements of a collection.
    pub fn len(&self) -> usize {
        match self {
            ValueRef::Str(s) => s.len(),
            ValueRef::List(l) => l.len(),
            ValueRef::Set(s) => s.len(),
            ValueRef::ZSet(z) => z.len(),
            ValueRef::Hash(h) => h.len(),
            ValueRef::Stream(s) => s.len() as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name `TYPE` answers with.
    pub fn type_name(&self) -> &'static str {
        Value::TYPE_NAMES[self.type_index()]
    }

    /// The name `OBJECT ENCODING` answers with, derived from the content as Redis would
    /// choose it for a freshly written value.
    pub fn encoding(&self) -> &'static str {
        match self {
            ValueRef::Str(s) => {
                if s.len() <= 20 && crate::num::parse_i64(s).is_some() {
                    "int"
                } else if s.len() <= 44 {
                    "embstr"
                } else {
                    "raw"
                }
            }
            ValueRef::List(l) => l.encoding(),
            ValueRef::Set(s) => s.encoding(),
            ValueRef::ZSet(z) => z.encoding(),
            ValueRef::Hash(h) => h.encoding(),
            ValueRef::Stream(_) => "stream",
        }
    }

    /// Heap bytes a collection holds outside its entry: its box and what it holds (kept in
    /// O(1) by each type). A string's bytes are the node's (see `Node::mem_size`).
    pub fn heap_size(&self) -> usize {
        match self {
            ValueRef::Str(_) => 0,
            ValueRef::List(l) => alloc_size(std::mem::size_of::<ListValue>()) + l.heap_size(),
            ValueRef::Set(s) => alloc_size(std::mem::size_of::<SetValue>()) + s.heap_size(),
            ValueRef::ZSet(z) => alloc_size(std::mem::size_of::<ZSetValue>()) + z.heap_size(),
            ValueRef::Hash(h) => alloc_size(std::mem::size_of::<HashValue>()) + h.heap_size(),
            ValueRef::Stream(s) => alloc_size(std::mem::size_of::<Stream>()) + s.heap_size(),
        }
    }
}

/// A view of one keyspace entry: its value, expiry, access stamps and accounted size, read
/// from its node.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    pub value: ValueRef<'a>,
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
    /// Accounted bytes: what the entry adds to `used_memory` (`MEMORY USAGE`).
    pub size: usize,
}

impl<'a> Entry<'a> {
    /// The view of a node.
    pub fn of(node: &'a Node) -> Entry<'a> {
        let s = node.stamps();
        Entry {
            value: node.value(),
            expire_at: node.expire_at(),
            seq: s.seq,
            atime: s.atime,
            lfu: s.lfu,
            lfu_ldt: s.lfu_ldt,
            size: node_size(node),
        }
    }

    pub fn has_ttl(&self) -> bool {
        self.expire_at != 0
    }

    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expire_at != 0 && self.expire_at <= now_ms
    }
}

/// Bytes per entry for its slot in the shard's table: an 8-byte pointer and a 1-byte probe
/// distance per slot, at the table's average load (it grows by half at 90% full).
pub const SLOT_OVERHEAD: usize = 12;
/// Extra bytes per entry with a TTL, besides the node's 12-byte expiry block: its place in
/// the shard's list of keys with a TTL (16 bytes, and that vector's growth slack).
pub const TTL_OVERHEAD: usize = 20;

/// A bound on the bytes an entry takes beyond `alloc_size` of its key and of its value, for
/// a write's estimate before it runs: its slot, the node's header and pointer words, and the
/// size-class rounding of a node holding the key (a value that would round worse embedded is
/// kept in its own allocation). Holds for keys up to 1 KiB; `Engine::estimate_growth` adds
/// a quarter of the key's length for longer ones.
pub const ENTRY_OVERHEAD: usize = SLOT_OVERHEAD + 192;

/// Accounted size of a node in the keyspace: its allocation, its value's heap, its table
/// slot and TTL-list place.
pub fn node_size(node: &Node) -> usize {
    SLOT_OVERHEAD + node.mem_size() + if node.has_ttl() { TTL_OVERHEAD } else { 0 }
}

/// Blocks of at least this many bytes come from the system allocator on the server (glibc:
/// mmap, grown by mremap without a copy), smaller ones from jemalloc (see server/src/alloc.rs).
pub const LARGE_ALLOC: usize = 1 << 20;

/// Bytes the allocator really hands out for a request of `n` bytes. Below `LARGE_ALLOC` the
/// server uses jemalloc, which keeps no per-object header and rounds to its size classes:
/// multiples of 16 up to 128 (8 for the smallest), then four classes per doubling (160, 192,
/// 224, 256, 320, ...). Above it, glibc's mmap: a 16-byte header, whole 4 KiB pages.
/// Counting this rather than `n` keeps `used_memory` close to what the allocator holds.
/// Wherever the engine runs (the wasm playground too) it accounts this way, so both evict
/// the same keys.
pub fn alloc_size(n: usize) -> usize {
    match n {
        0 => 0,
        1..=8 => 8,
        9..=128 => (n + 15) & !15,
        LARGE_ALLOC.. => (n + 16 + 4095) & !4095,
        _ => {
            let k = usize::BITS - 1 - (n - 1).leading_zeros(); // 2^k < n <= 2^(k+1)
            let step = 1usize << (k - 2);
            (n + step - 1) & !(step - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_size_rounds_like_jemalloc() {
        let classes = [(0, 0), (1, 8), (8, 8), (9, 16), (24, 32), (64, 64), (65, 80), (128, 128), (129, 160)];
        for (n, size) in classes {
            assert_eq!(alloc_size(n), size, "{n}");
        }
        let more = [(256, 256), (257, 320), (1024, 1024), (1025, 1280), (4097, 5120), (1 << 20, (1 << 20) + 4096)];
        for (n, size) in more {
            assert_eq!(alloc_size(n), size, "{n}");
        }
    }

    #[test]
    fn string_encodings() {
        assert_eq!(Value::Str(b"123".to_vec()).encoding(), "int");
        assert_eq!(Value::Str(b"0123".to_vec()).encoding(), "embstr");
        assert_eq!(Value::Str(vec![b'a'; 45]).encoding(), "raw");
    }
}
