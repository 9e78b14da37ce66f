//! `Node`: one keyspace entry in a single heap allocation (access stamps, lengths, the expiry
//! only when a TTL is set, the key bytes and, for a string, its bytes), behind a thin pointer.
//! A 16-byte key with a 32-byte value takes one 64-byte allocation, where a map of `Key`
//! and `Entry` structs with a `Vec` value took some 150 bytes in three places.
//!
//! This is the engine's only unsafe code (the workspace forbids it elsewhere). Its safe API:
//! `Node::new` takes an owned `Value`, `value()` lends a `ValueRef`, `update` lends the value
//! as an owned `Value` and stores what the closure leaves. Everything that parses the header
//! works on byte slices in safe code; the unsafe blocks only allocate, free, form the slice
//! over the allocation and move the pointers of boxed values in and out of their slot.
//!
//! Layout (`Shape`), little-endian, allocation aligned to `usize`:
//!
//! ```text
//! 0   seq u32 | 4 atime u32 | 8 lfu_ldt u16 | 10 lfu u8 | 11 flags u8
//! 12  narrow: key_len u8, val_len u24        (header 16 bytes)
//!     wide:   key_len u32, val_len u32, pad  (header 24 bytes; long keys, raw strings)
//!     pointer words: 0 (embedded string), 1 (Box of a collection), 3 (raw string: Vec parts)
//!     if TTL: expire_at u64, ttl_index u32   (12 bytes)
//!     key bytes, then an embedded string's bytes
//! ```
#![allow(unsafe_code)]

use std::alloc::{self, Layout};
use std::mem::{size_of, ManuallyDrop};
use std::ptr::NonNull;

use super::entry::{alloc_size, Value, ValueRef};
use super::hash::HashValue;
use super::list::ListValue;
use super::set::SetValue;
use super::stream::Stream;
use super::zset::ZSetValue;

/// The kinds of value a node holds, in the flags' low three bits.
const EMBED: u8 = 0;
const RAW: u8 = 1;
const LIST: u8 = 2;
const SET: u8 = 3;
const ZSET: u8 = 4;
const HASH: u8 = 5;
const STREAM: u8 = 6;
const KIND_MASK: u8 = 0b111;
const F_TTL: u8 = 1 << 3;
const F_WIDE: u8 = 1 << 4;

const FLAGS_AT: usize = 11;
const NARROW: usize = 16;
const WIDE: usize = 24;
const TTL_BLOCK: usize = 12;
const WORD: usize = size_of::<usize>();
/// Memory is accounted as the 64-bit server lays nodes out, wherever the engine runs.
const MODEL_WORD: usize = 8;

/// Strings a write command (APPEND, SETRANGE, INCR...) leaves longer than this keep their
/// `Vec`, so repeated appends stay amortized O(1); shorter ones are embedded again. A plain
/// write (SET) always embeds. (Redis does the same with its embstr and raw encodings.)
pub const EMBED_MAX: usize = 64;

/// A node's access stamps for LRU, IDLETIME and LFU (see `Common::touch`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamps {
    /// Logical access stamp (low 32 bits of the store's access clock), for exact LRU.
    pub seq: u32,
    /// Last access in milliseconds since the store's base time (`OBJECT IDLETIME`).
    pub atime: u32,
    /// LFU: Redis's logarithmic 8-bit counter.
    pub lfu: u8,
    /// LFU: minutes (mod 2^16) when the counter was last decremented.
    pub lfu_ldt: u16,
}

/// Where each part of a node lies, from its flags and lengths.
#[derive(Debug, Clone, Copy)]
struct Shape {
    flags: u8,
    key_len: usize,
    val_len: usize,
}

impl Shape {
    fn kind(&self) -> u8 {
        self.flags & KIND_MASK
    }
    fn has_ttl(&self) -> bool {
        self.flags & F_TTL != 0
    }
    fn header(&self) -> usize {
        if self.flags & F_WIDE != 0 {
            WIDE
        } else {
            NARROW
        }
    }
    fn words(&self) -> usize {
        match self.kind() {
            EMBED => 0,
            RAW => 3,
            _ => 1,
        }
    }
    fn ttl_at(&self, word: usize) -> usize {
        self.header() + self.words() * word
    }
    fn key_at_with(&self, word: usize) -> usize {
        self.ttl_at(word) + if self.has_ttl() { TTL_BLOCK } else { 0 }
    }
    fn size_with(&self, word: usize) -> usize {
        self.key_at_with(word) + self.key_len + if self.kind() == EMBED { self.val_len } else { 0 }
    }
    fn key_at(&self) -> usize {
        self.key_at_with(WORD)
    }
    fn size(&self) -> usize {
        self.size_with(WORD)
    }
    fn layout(&self) -> Layout {
        // Never fails: the size is far below isize::MAX and the alignment a power of two.
        Layout::from_size_align(self.size(), WORD).expect("node layout")
    }
}

/// One keyspace entry, owning its allocation and (for collections and raw strings) the heap
/// value it points to. Eight bytes: the shard's table holds these directly.
pub struct Node(NonNull<u8>);

// SAFETY: a Node owns its allocation and boxed value exclusively, like a Box<(header, Value)>;
// every part it owns (bytes, Vec<u8>, the collection types) is itself Send and Sync.
unsafe impl Send for Node {}
// SAFETY: as above; shared access only reads.
unsafe impl Sync for Node {}

impl Node {
    /// A node for `key` holding `value`, with an expiry (0 = none) and access stamps. Strings
    /// are embedded when at most `embed_max` bytes long and no dearer so (see `embeds`), else
    /// kept as a `Vec` ("raw").
    pub fn new(key: &[u8], value: Value, expire_at: u64, stamps: Stamps, embed_max: usize) -> Node {
        let key_len = u32::try_from(key.len()).expect("keys are limited to 512 MB") as usize;
        let (kind, embedded): (u8, &[u8]) = match &value {
            Value::Str(s) if embeds(key_len, s.len(), expire_at != 0, embed_max) => (EMBED, s),
            Value::Str(_) => (RAW, &[]),
            Value::List(_) => (LIST, &[]),
            Value::Set(_) => (SET, &[]),
            Value::ZSet(_) => (ZSET, &[]),
            Value::Hash(_) => (HASH, &[]),
            Value::Stream(_) => (STREAM, &[]),
        };
        let mut node = Node::build(key, kind, embedded, expire_at, stamps);
        node.store_boxed(value);
        node
    }

    /// A node for `key` holding a copy of the string `value` (what SET stores): the bytes go
    /// straight into the node when they embed, with no `Vec` made and freed on the way.
    pub fn new_str(key: &[u8], value: &[u8], expire_at: u64, stamps: Stamps) -> Node {
        if embeds(key.len(), value.len(), expire_at != 0, usize::MAX) {
            Node::build(key, EMBED, value, expire_at, stamps)
        } else {
            Node::new(key, Value::Str(value.to_vec()), expire_at, stamps, usize::MAX)
        }
    }

    /// Allocates a node of `kind` and writes its header, key, `embedded` string bytes (empty
    /// unless `kind` is `EMBED`), stamps and expiry; a boxed value's words stay zero for
    /// `store_boxed`.
    fn build(key: &[u8], kind: u8, embedded: &[u8], expire_at: u64, stamps: Stamps) -> Node {
        let key_len = u32::try_from(key.len()).expect("keys are limited to 512 MB") as usize;
        let val_len = embedded.len();
        let wide = kind == RAW || key_len > u8::MAX as usize || val_len >= 1 << 24;
        let flags = kind | if wide { F_WIDE } else { 0 } | if expire_at != 0 { F_TTL } else { 0 };
        let shape = Shape { flags, key_len, val_len };
        let layout = shape.layout();
        // SAFETY: the layout has a non-zero size (at least the 16-byte header).
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else { alloc::handle_alloc_error(layout) };
        let mut node = Node(ptr);
        {
            let bytes = node.bytes_mut_with(shape);
            bytes[FLAGS_AT] = flags;
            if wide {
                bytes[12..16].copy_from_slice(&(key_len as u32).to_le_bytes());
                bytes[16..20].copy_from_slice(&(val_len as u32).to_le_bytes());
            } else {
                bytes[12] = key_len as u8;
                bytes[13..16].copy_from_slice(&(val_len as u32).to_le_bytes()[..3]);
            }
            let key_at = shape.key_at();
            bytes[key_at..key_at + key_len].copy_from_slice(key);
            bytes[key_at + key_len..key_at + key_len + val_len].copy_from_slice(embedded);
        }
        node.set_stamps(stamps);
        if expire_at != 0 {
            node.ttl_mut().expect("has a TTL block")[..8].copy_from_slice(&expire_at.to_le_bytes());
            node.set_ttl_index(u32::MAX);
        }
        node
    }

    /// Moves the heap part of `value` into the node's pointer words (nothing for an embedded
    /// string, whose bytes were copied). The node's kind must match the value's.
    fn store_boxed(&mut self, value: Value) {
        let (ptr, len, cap): (*mut u8, usize, usize) = match value {
            Value::Str(s) => {
                if self.shape().kind() == EMBED {
                    return;
                }
                let mut s = ManuallyDrop::new(s);
                (s.as_mut_ptr(), s.len(), s.capacity())
            }
            Value::List(b) => (Box::into_raw(b).cast(), 0, 0),
            Value::Set(b) => (Box::into_raw(b).cast(), 0, 0),
            Value::ZSet(b) => (Box::into_raw(b).cast(), 0, 0),
            Value::Hash(b) => (Box::into_raw(b).cast(), 0, 0),
            Value::Stream(b) => (Box::into_raw(b).cast(), 0, 0),
        };
        let shape = self.shape();
        debug_assert!(shape.words() > 0);
        let base = self.words_ptr(shape);
        // SAFETY: the node has `shape.words()` aligned, writable words at `base` (3 for a raw
        // string, else 1). Word 0 is written as a pointer so it keeps its provenance.
        unsafe {
            base.cast::<*mut u8>().write(ptr);
            if shape.words() == 3 {
                base.add(1).write(len);
                base.add(2).write(cap);
            }
        }
    }

    fn words_ptr(&self, shape: Shape) -> *mut usize {
        // SAFETY: the header lies inside the allocation; the words follow it (when present).
        unsafe { self.0.as_ptr().add(shape.header()).cast::<usize>() }
    }

    /// Word `i` of the pointer words, as a pointer (word 0) or a length (words 1, 2).
    fn word_ptr(&self, shape: Shape) -> *mut u8 {
        debug_assert!(shape.words() > 0);
        // SAFETY: word 0 exists for every kind but EMBED, is aligned and was written by
        // `store_boxed` (or zeroed, a null pointer, by `take`).
        unsafe { self.words_ptr(shape).cast::<*mut u8>().read() }
    }

    fn word(&self, shape: Shape, i: usize) -> usize {
        debug_assert!(i < shape.words());
        // SAFETY: as `word_ptr`, for word `i` of `shape.words()`.
        unsafe { self.words_ptr(shape).add(i).read() }
    }

    fn head(&self) -> &[u8] {
        // SAFETY: every node is at least NARROW bytes long.
        unsafe { std::slice::from_raw_parts(self.0.as_ptr(), NARROW) }
    }

    fn shape(&self) -> Shape {
        let h = self.head();
        let flags = h[FLAGS_AT];
        let (key_len, val_len) = if flags & F_WIDE != 0 {
            // SAFETY: a wide node is at least WIDE bytes long.
            let w = unsafe { std::slice::from_raw_parts(self.0.as_ptr(), WIDE) };
            (u32_at(w, 12) as usize, u32_at(w, 16) as usize)
        } else {
            (h[12] as usize, (u32_at(h, 12) >> 8) as usize)
        };
        Shape { flags, key_len, val_len }
    }

    fn bytes(&self) -> &[u8] {
        let size = self.shape().size();
        // SAFETY: the allocation is `size` bytes, all initialized (allocated zeroed).
        unsafe { std::slice::from_raw_parts(self.0.as_ptr(), size) }
    }

    fn bytes_mut_with(&mut self, shape: Shape) -> &mut [u8] {
        // SAFETY: as `bytes`; `&mut self` makes the borrow exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_ptr(), shape.size()) }
    }

    pub fn key(&self) -> &[u8] {
        let s = self.shape();
        let at = s.key_at();
        &self.bytes()[at..at + s.key_len]
    }

    /// `Value::type_index` of the value, from the flags alone (cheaper than `value()`, for
    /// the memory ledger on every write).
    pub fn type_index(&self) -> usize {
        // EMBED and RAW are strings (0); LIST..STREAM follow `Value::type_index`'s order.
        self.shape().kind().saturating_sub(1) as usize
    }

    /// A view of the value.
    pub fn value(&self) -> ValueRef<'_> {
        let shape = self.shape();
        if shape.kind() == EMBED {
            let at = shape.key_at() + shape.key_len;
            return ValueRef::Str(&self.bytes()[at..at + shape.val_len]);
        }
        let p = self.word_ptr(shape);
        if p.is_null() {
            // Only after a panic inside `update` left the value taken.
            return ValueRef::Str(&[]);
        }
        // SAFETY: a non-null word 0 is the pointer `store_boxed` took from a Box or Vec of
        // the node's kind, owned by the node and alive until `take` or drop; `&self` keeps it
        // from being changed while borrowed.
        unsafe {
            match shape.kind() {
                RAW => ValueRef::Str(std::slice::from_raw_parts(p, self.word(shape, 1))),
                LIST => ValueRef::List(&*p.cast::<ListValue>()),
                SET => ValueRef::Set(&*p.cast::<SetValue>()),
                ZSET => ValueRef::ZSet(&*p.cast::<ZSetValue>()),
                HASH => ValueRef::Hash(&*p.cast::<HashValue>()),
                _ => ValueRef::Stream(&*p.cast::<Stream>()),
            }
        }
    }

    /// Takes the value out as an owned `Value` (copying an embedded string), leaving the
    /// node empty-valued (a null pointer word) until `store_boxed` or drop.
    fn take(&mut self) -> Value {
        let shape = self.shape();
        if shape.kind() == EMBED {
            let at = shape.key_at() + shape.key_len;
            return Value::Str(self.bytes()[at..at + shape.val_len].to_vec());
        }
        let p = self.word_ptr(shape);
        if p.is_null() {
            return Value::Str(Vec::new());
        }
        let (len, cap) = if shape.kind() == RAW { (self.word(shape, 1), self.word(shape, 2)) } else { (0, 0) };
        // SAFETY: word 0 is aligned and writable; nulling it first hands ownership of the
        // pointee to the value built below, so nothing frees it twice.
        unsafe { self.words_ptr(shape).cast::<*mut u8>().write(std::ptr::null_mut()) };
        // SAFETY: `p` came from `Box::into_raw` of the kind's type, or from a Vec<u8> with
        // this length and capacity (`store_boxed`), and nothing else owns it now.
        unsafe {
            match shape.kind() {
                RAW => Value::Str(Vec::from_raw_parts(p, len, cap)),
                LIST => Value::List(Box::from_raw(p.cast::<ListValue>())),
                SET => Value::Set(Box::from_raw(p.cast::<SetValue>())),
                ZSET => Value::ZSet(Box::from_raw(p.cast::<ZSetValue>())),
                HASH => Value::Hash(Box::from_raw(p.cast::<HashValue>())),
                _ => Value::Stream(Box::from_raw(p.cast::<Stream>())),
            }
        }
    }

    /// The owned value (the node is freed).
    pub fn into_value(mut self) -> Value {
        self.take()
    }

    /// Runs `f` on the value as an owned `Value` and stores what it leaves. A collection of
    /// the same type goes back in place; anything else rebuilds the node (strings up to
    /// `EMBED_MAX` bytes embedded, longer ones raw). Returns `f`'s result.
    pub fn update<R>(&mut self, f: impl FnOnce(&mut Value) -> R) -> R {
        let old_kind = self.shape().kind();
        let mut value = self.take();
        let r = f(&mut value);
        let same = matches!(
            (old_kind, &value),
            (LIST, Value::List(_))
                | (SET, Value::Set(_))
                | (ZSET, Value::ZSet(_))
                | (HASH, Value::Hash(_))
                | (STREAM, Value::Stream(_))
        );
        if same {
            self.store_boxed(value);
        } else if let (EMBED, Value::Str(s)) = (old_kind, &value) {
            if s.len() == self.shape().val_len {
                let shape = self.shape();
                let at = shape.key_at() + shape.key_len;
                self.bytes_mut_with(shape)[at..].copy_from_slice(s);
            } else {
                self.rebuild(value);
            }
        } else {
            self.rebuild(value);
        }
        r
    }

    fn rebuild(&mut self, value: Value) {
        let (expire_at, ttl_index) = (self.expire_at(), self.ttl_index());
        let mut node = Node::new(self.key(), value, expire_at, self.stamps(), EMBED_MAX);
        if let Some(i) = ttl_index {
            node.set_ttl_index(i);
        }
        *self = node;
    }

    /// The same entry with another expiry (0 = none). Reallocates only when a TTL appears
    /// or goes; the TTL index is the caller's to set on a node that gains one.
    pub fn set_expire_at(&mut self, expire_at: u64) {
        match self.ttl_mut() {
            Some(ttl) if expire_at != 0 => ttl[..8].copy_from_slice(&expire_at.to_le_bytes()),
            None if expire_at == 0 => {}
            _ => {
                let value = self.take();
                let embed = if matches!(self.shape().kind(), EMBED) { usize::MAX } else { EMBED_MAX };
                let node = Node::new(self.key(), value, expire_at, self.stamps(), embed);
                *self = node;
            }
        }
    }

    fn ttl(&self) -> Option<&[u8]> {
        let s = self.shape();
        let at = s.ttl_at(WORD);
        s.has_ttl().then(|| &self.bytes()[at..at + TTL_BLOCK])
    }

    fn ttl_mut(&mut self) -> Option<&mut [u8]> {
        let s = self.shape();
        let at = s.ttl_at(WORD);
        s.has_ttl().then(|| &mut self.bytes_mut_with(s)[at..at + TTL_BLOCK])
    }

    /// Absolute expiry in unix milliseconds; 0 when there is no TTL.
    pub fn expire_at(&self) -> u64 {
        self.ttl().map_or(0, |t| u64::from_le_bytes(t[..8].try_into().expect("8 bytes")))
    }

    pub fn has_ttl(&self) -> bool {
        self.shape().has_ttl()
    }

    /// Where the shard's list of keys with a TTL holds this node (`None` without a TTL).
    pub fn ttl_index(&self) -> Option<u32> {
        self.ttl().map(|t| u32_at(t, 8))
    }

    pub fn set_ttl_index(&mut self, index: u32) {
        if let Some(t) = self.ttl_mut() {
            t[8..12].copy_from_slice(&index.to_le_bytes());
        }
    }

    pub fn stamps(&self) -> Stamps {
        let h = self.head();
        Stamps { seq: u32_at(h, 0), atime: u32_at(h, 4), lfu_ldt: u16::from_le_bytes([h[8], h[9]]), lfu: h[10] }
    }

    pub fn set_stamps(&mut self, s: Stamps) {
        let shape = self.shape();
        let h = self.bytes_mut_with(shape);
        h[0..4].copy_from_slice(&s.seq.to_le_bytes());
        h[4..8].copy_from_slice(&s.atime.to_le_bytes());
        h[8..10].copy_from_slice(&s.lfu_ldt.to_le_bytes());
        h[10] = s.lfu;
    }

    /// Bytes the allocator holds for this entry: the node (as laid out on a 64-bit target)
    /// and its value's heap.
    pub fn mem_size(&self) -> usize {
        let shape = self.shape();
        let heap = match shape.kind() {
            EMBED => 0,
            RAW => alloc_size(self.word(shape, 2)),
            _ => self.value().heap_size(),
        };
        alloc_size(shape.size_with(MODEL_WORD)) + heap
    }

    /// The node's address: an identity for the shard's TTL list, never dereferenced.
    pub fn addr(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

/// Asks the CPU to start loading the cache line at `addr` into its caches: a hint for a
/// lookup that will follow (see `Store::prefetch_slot`). Reads nothing, never faults, and
/// is harmless for any address, even a freed one; a no-op where no prefetch instruction is
/// wired up (wasm32).
#[inline]
pub fn prefetch(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint: it does not access memory architecturally and cannot
    // fault, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(addr as *const i8)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

/// Accounted size of a node that would hold `key_len` bytes of key and an embedded string of
/// `val_len` bytes, with a TTL or not.
pub fn embedded_size(key_len: usize, val_len: usize, ttl: bool) -> usize {
    let wide = key_len > u8::MAX as usize || val_len >= 1 << 24;
    let flags = EMBED | if wide { F_WIDE } else { 0 } | if ttl { F_TTL } else { 0 };
    alloc_size(Shape { flags, key_len, val_len }.size_with(MODEL_WORD))
}

/// Accounted size of a node holding a raw string (a `Vec` of `cap` bytes) instead.
fn raw_size(key_len: usize, cap: usize, ttl: bool) -> usize {
    let flags = RAW | F_WIDE | if ttl { F_TTL } else { 0 };
    alloc_size(Shape { flags, key_len, val_len: 0 }.size_with(MODEL_WORD)) + alloc_size(cap)
}

/// Whether a string of `val_len` bytes is embedded: when it fits in `embed_max` and does not
/// cost more than its own allocation would (allocator size classes grow coarser with size,
/// so a large value is cheaper apart).
fn embeds(key_len: usize, val_len: usize, ttl: bool, embed_max: usize) -> bool {
    val_len <= embed_max
        && u32::try_from(val_len).is_ok()
        && embedded_size(key_len, val_len, ttl) <= raw_size(key_len, val_len, ttl)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl Drop for Node {
    fn drop(&mut self) {
        let shape = self.shape();
        if shape.kind() != EMBED {
            drop(self.take());
        }
        // SAFETY: the pointer came from `alloc_zeroed` with this same layout (the shape is
        // fixed at allocation), and the node is not used again.
        unsafe { alloc::dealloc(self.0.as_ptr(), shape.layout()) };
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("key", &String::from_utf8_lossy(self.key()))
            .field("value", &self.value())
            .field("expire_at", &self.expire_at())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamps() -> Stamps {
        Stamps { seq: 7, atime: 9, lfu: 5, lfu_ldt: 300 }
    }

    #[test]
    fn embedded_string_round_trips_in_one_small_allocation() {
        let n = Node::new(b"0123456789abcdef", Value::Str(vec![b'v'; 32]), 0, stamps(), EMBED_MAX);
        assert_eq!(n.key(), b"0123456789abcdef");
        assert_eq!(n.value(), ValueRef::Str(&[b'v'; 32]));
        assert_eq!(n.expire_at(), 0);
        assert_eq!(n.ttl_index(), None);
        assert_eq!(n.stamps(), stamps());
        assert_eq!(n.mem_size(), alloc_size(64));
        assert_eq!(n.mem_size(), embedded_size(16, 32, false));
    }

    #[test]
    fn ttl_block_appears_and_goes() {
        let mut n = Node::new(b"k", Value::Str(b"v".to_vec()), 0, stamps(), EMBED_MAX);
        n.set_expire_at(123);
        n.set_ttl_index(4);
        assert_eq!((n.expire_at(), n.ttl_index()), (123, Some(4)));
        assert_eq!(n.mem_size(), embedded_size(1, 1, true));
        n.set_expire_at(456);
        assert_eq!((n.expire_at(), n.ttl_index()), (456, Some(4)));
        n.set_expire_at(0);
        assert_eq!((n.expire_at(), n.ttl_index(), n.key(), n.value()), (0, None, &b"k"[..], ValueRef::Str(b"v")));
        assert_eq!(n.stamps(), stamps());
    }

    #[test]
    fn long_keys_and_values_use_the_wide_header() {
        let key = vec![b'k'; 300];
        let n = Node::new(&key, Value::Str(vec![b'x'; 1 << 24]), 99, stamps(), usize::MAX);
        assert_eq!(n.key(), &key[..]);
        assert_eq!(n.value().len(), 1 << 24);
        assert_eq!(n.expire_at(), 99);
    }

    #[test]
    fn updates_grow_strings_into_raw_and_back() {
        let mut n = Node::new(b"k", Value::Str(b"12".to_vec()), 5, stamps(), EMBED_MAX);
        n.set_ttl_index(1);
        n.update(|v| *v = Value::Str(b"13".to_vec()));
        assert_eq!(n.value(), ValueRef::Str(b"13"));
        for _ in 0..100 {
            n.update(|v| {
                if let Value::Str(s) = v {
                    s.extend_from_slice(b"abc")
                }
            });
        }
        assert_eq!(n.value().len(), 302);
        let cap = match n.update(|v| v.clone()) {
            Value::Str(s) => s.capacity(),
            _ => unreachable!(),
        };
        assert!(n.mem_size() >= alloc_size(cap));
        assert_eq!((n.expire_at(), n.ttl_index(), n.stamps()), (5, Some(1), stamps()));
        n.update(|v| *v = Value::Str(b"short".to_vec()));
        assert_eq!(n.value(), ValueRef::Str(b"short"));
        assert_eq!(n.mem_size(), embedded_size(1, 5, true));
    }

    #[test]
    fn collections_stay_boxed_and_can_change_type() {
        let mut list = ListValue::default();
        list.push_back(b"a");
        let mut n = Node::new(b"l", Value::List(Box::new(list)), 0, stamps(), EMBED_MAX);
        assert_eq!(n.value().type_name(), "list");
        assert_eq!(n.value().len(), 1);
        n.update(|v| {
            if let Value::List(l) = v {
                l.push_back(b"b")
            }
        });
        assert_eq!(n.value().len(), 2);
        assert!(n.mem_size() > alloc_size(std::mem::size_of::<ListValue>()));
        n.update(|v| *v = Value::Set(Box::default()));
        assert_eq!(n.value().type_name(), "set");
        assert!(matches!(n.into_value(), Value::Set(_)));
    }

    #[test]
    fn node_is_one_pointer() {
        assert_eq!(size_of::<Node>(), WORD);
        assert_eq!(size_of::<Option<Node>>(), WORD);
    }
}
