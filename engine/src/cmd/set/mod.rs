//! Set commands: SADD/SREM and membership, SPOP and SRANDMEMBER, the algebra (SINTER, SUNION,
//! SDIFF, their STORE forms, SINTERCARD), SMOVE and SSCAN. A set that loses its last member
//! is deleted, as in Redis.
//!
//! Multi-key commands rely on dispatch having locked the shards of all their keys (the key
//! spec in the table). They visit one set at a time, so no two shards are borrowed at once.
//!
//! `member` holds membership (SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SMOVE, SSCAN);
//! `algebra` SINTER/SUNION/SDIFF, their STORE forms and SINTERCARD; `random` SPOP and
//! SRANDMEMBER. The typed access the sub-families share lives here.

mod algebra;
mod member;
mod random;
#[cfg(test)]
mod tests;

pub use algebra::{sdiff, sdiffstore, sinter, sintercard, sinterstore, sunion, sunionstore};
pub use member::{members_growth, sadd, scard, sismember, smembers, smismember, smove, srem, sscan};
pub use random::{spop, srandmember};

use crate::cmd::collection;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::store::entry::{Entry, ValueRef};
use crate::store::set::SetValue;

// --- Shared by the set commands -------------------------------------------------------------

/// The set at a key for reading (a keyspace hit or miss), `None` if there is none, or
/// WRONGTYPE.
pub(super) fn read_set<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a SetValue>, CmdError> {
    collection::read(ctx, key)
}

/// `f` of the set at a key, without touching it or counting a hit (for a second look at a
/// key the command already looked up); `None` if there is no set there.
pub(super) fn peek_set<R>(ctx: &mut Ctx<'_>, key: &[u8], f: impl FnOnce(&SetValue) -> R) -> Option<R> {
    let now = ctx.now;
    match ctx.db.peek(key, now) {
        Some(Entry { value: ValueRef::Set(s), .. }) => Some(f(s)),
        _ => None,
    }
}

/// Runs `f` on the set at a key, creating it when there is none, in the encoding Redis
/// picks for `first` and `size_hint` members (it is stored only if `f` left it non-empty,
/// with the default TTL). WRONGTYPE for any other value.
pub(super) fn upsert<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    first: &[u8],
    size_hint: usize,
    mut f: impl FnMut(&mut SetValue) -> R,
) -> Result<R, CmdError> {
    collection::upsert(ctx, key, || SetValue::for_members(first, size_hint), |s| Ok(f(s)))
}

/// Runs `f` on an existing set (`None` if there is none); `Shard::update` deletes the key
/// if `f` emptied it. WRONGTYPE for any other value.
pub(super) fn modify<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    f: impl FnOnce(&mut SetValue) -> R,
) -> Result<Option<R>, CmdError> {
    collection::modify(&mut ctx.db, key, ctx.now, f)
}
