//! Redis's RDB value encoding: the bytes of one value as DUMP carries it and as an RDB file
//! (snapshots, the AOF's preamble, and later replication) stores each key. Written from the
//! format's description (rdb.h's types, listpack.md, the intset, ziplist and stream layouts);
//! no Redis code is copied.
//!
//! The module has two directions around one neutral, owned form of a value ([`Value`]):
//! - reading ([`decode`]): bytes of any type code Redis 2.x to 7.2 writes → [`Value`], with
//!   Redis's deep sanitization (headers, counts, duplicates, NaN scores, stream ID order), never
//!   a panic, and never an allocation the remaining bytes cannot justify; [`build`] then turns
//!   a [`Value`] into a store value with the same calls commands make, so memory accounting is
//!   the same as for a key built by commands;
//! - writing ([`encode`]): a store value → its type code and bytes, in the encodings Redis 7.0
//!   picks for it (RDB version 10), so redis-server 7.0 and later read what Vitrine writes.
//!
//! [`payload`] frames a value as DUMP does (value, RDB version, CRC64), and [`codec`] holds the
//! CRC64 and LZF that every RDB consumer shares.

pub mod build;
pub mod codec;
pub mod decode;
pub mod encode;
pub mod intset;
pub mod listpack;
pub mod payload;
pub mod primitives;
pub mod stream;
pub mod ziplist;

/// The RDB version Vitrine writes: Redis 7.0's.
pub const RDB_VERSION: u16 = 10;
/// The newest RDB version read: Redis 7.4's (its other types are 7.2's; it adds hashes with
/// field TTLs, which Vitrine has too).
pub const RDB_VERSION_MAX: u16 = 12;
/// The version of a payload with a hash whose fields have TTLs (types 24 and 25 are Redis
/// 7.4's: older servers refuse it by its version, rather than drop the TTLs unseen).
pub const RDB_VERSION_FIELD_TTLS: u16 = 12;

/// Value type codes (rdb.h).
pub mod types {
    pub const STRING: u8 = 0;
    pub const LIST: u8 = 1;
    pub const SET: u8 = 2;
    pub const ZSET: u8 = 3;
    pub const HASH: u8 = 4;
    pub const ZSET_2: u8 = 5;
    pub const MODULE_PRE_GA: u8 = 6;
    pub const MODULE_2: u8 = 7;
    pub const HASH_ZIPMAP: u8 = 9;
    pub const LIST_ZIPLIST: u8 = 10;
    pub const SET_INTSET: u8 = 11;
    pub const ZSET_ZIPLIST: u8 = 12;
    pub const HASH_ZIPLIST: u8 = 13;
    pub const LIST_QUICKLIST: u8 = 14;
    pub const STREAM_LISTPACKS: u8 = 15;
    pub const HASH_LISTPACK: u8 = 16;
    pub const ZSET_LISTPACK: u8 = 17;
    pub const LIST_QUICKLIST_2: u8 = 18;
    pub const STREAM_LISTPACKS_2: u8 = 19;
    pub const SET_LISTPACK: u8 = 20;
    pub const STREAM_LISTPACKS_3: u8 = 21;
    pub const HASH_METADATA: u8 = 24;
    pub const HASH_LISTPACK_EX: u8 = 25;
}

/// Why bytes are not a value. Redis answers every one of them with `Bad data format`; the
/// reason and offset are for logs and the RDB loader's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub offset: usize,
    pub why: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.why, self.offset)
    }
}

/// One value, decoded: the elements in the order the bytes hold them.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(Vec<u8>),
    List(Vec<Vec<u8>>),
    /// Distinct members.
    Set(Vec<Vec<u8>>),
    /// Distinct members with their scores (never NaN).
    ZSet(Vec<(Vec<u8>, f64)>),
    /// Distinct fields with their values.
    Hash(Vec<(Vec<u8>, Vec<u8>)>),
    /// A hash whose fields may have TTLs: field, value, expiry (unix ms; 0 = none).
    HashTtl(Vec<(Vec<u8>, Vec<u8>, u64)>),
    Stream(Box<stream::StreamData>),
}

impl Value {
    /// The type's name, as TYPE answers.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::ZSet(_) => "zset",
            Value::Hash(_) | Value::HashTtl(_) => "hash",
            Value::Stream(_) => "stream",
        }
    }
}
