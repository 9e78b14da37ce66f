//! Hash commands: HSET and friends, reads of fields, keys and values, HINCRBY/HINCRBYFLOAT
//! (INCRBYFLOAT's long double arithmetic), HRANDFIELD and HSCAN. A hash that loses its last
//! field is deleted, as in Redis.
//!
//! `field` holds writes and reads of fields (HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HEXISTS,
//! HLEN, HSTRLEN, HKEYS, HVALS, HGETALL); `numeric` HINCRBY and HINCRBYFLOAT; `random`
//! HRANDFIELD and HSCAN; `expire` the field expiry commands (HEXPIRE and friends, HTTL and
//! friends, HPERSIST) and `getex` HGETEX, HSETEX and HGETDEL. The typed access the
//! sub-families share lives here.
//!
//! Expired fields: the store removes them when a command looks the hash up (and in the
//! active cycle), so every command here sees live fields only. That includes HLEN and HDEL,
//! where Redis counts fields that expired but were not yet deleted (its own tests pin that
//! with active expiry turned off); Vitrine answers as HGETALL would list the hash.

mod expire;
#[cfg(test)]
mod expire_tests;
mod field;
mod getex;
mod numeric;
mod random;
#[cfg(test)]
mod tests;

pub use expire::{
    hexpire, hexpireat, hexpiretime, hpersist, hpexpire, hpexpireat, hpexpiretime, hpttl, httl, ttl_growth,
};
pub use field::{
    field_growth, hdel, hexists, hget, hgetall, hkeys, hlen, hmget, hmset, hset, hsetnx, hstrlen, hvals, pairs_growth,
};
pub use getex::{hgetdel, hgetex, hsetex, hsetex_growth};
pub use numeric::{hincrby, hincrbyfloat};
pub use random::{hrandfield, hscan};

use crate::cmd::collection;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::store::hash::HashValue;

// --- Shared by the hash commands ------------------------------------------------------------

/// The hash at a key for reading (a keyspace hit or miss), `None` if there is none, or
/// WRONGTYPE.
pub(super) fn read_hash<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a HashValue>, CmdError> {
    collection::read(ctx, key)
}

/// Runs `f` on the hash at a key, creating the hash when there is none (it is stored only
/// if `f` left it non-empty, with the default TTL). WRONGTYPE for any other value.
pub(super) fn upsert<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    f: impl FnMut(&mut HashValue) -> Result<R, CmdError>,
) -> Result<R, CmdError> {
    collection::upsert(ctx, key, HashValue::new, f)
}

/// Runs `f` on an existing hash (`None` if there is none); `Shard::update` deletes the key
/// if `f` emptied it. WRONGTYPE for any other value.
pub(super) fn modify<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    f: impl FnOnce(&mut HashValue) -> R,
) -> Result<Option<R>, CmdError> {
    collection::modify(&mut ctx.db, key, ctx.now, f)
}
