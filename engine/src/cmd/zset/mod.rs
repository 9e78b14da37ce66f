//! Sorted set commands: ZADD (NX/XX/GT/LT/CH/INCR) and ZINCRBY, ZREM, scores and ranks,
//! the ZRANGE family (by rank, score or lex, REV, LIMIT, WITHSCORES) and ZRANGESTORE, counts, pops, range
//! removals, ZUNION/ZINTER/ZDIFF and their STORE forms, ZINTERCARD, ZRANDMEMBER and ZSCAN, with Redis 7.0's replies and errors.
//!
//! Numbers are read as Redis reads them: scores and weights with `strtod` and nothing left
//! over (no leading space, no NaN, no overflow), range bounds with `strtod` as a C string
//! (leading spaces, an empty string as 0, overflow to infinity). Scores are answered as
//! `Reply::Double`: `%.17g` in a RESP2 bulk string, a RESP3 double.
//!
//! `member` holds ZADD, ZINCRBY and the per-member reads; `parse` the number and bound
//! parsing; `range` the ZRANGE family, counts and range removals; `pop` ZPOPMIN/ZPOPMAX;
//! `algebra` ZUNION/ZINTER/ZDIFF(STORE) and ZINTERCARD; `random` ZRANDMEMBER; `scan` ZSCAN. Access and creation helpers live here.

mod algebra;
mod member;
mod parse;
mod pop;
mod random;
mod range;
mod scan;
#[cfg(test)]
mod tests;

pub use algebra::{zdiff, zdiffstore, zinter, zintercard, zinterstore, zunion, zunionstore};
pub use member::{zadd, zcard, zincrby, zmscore, zrank, zrem, zrevrank, zscore};
pub(crate) use parse::{parse_score, strtod};
pub(crate) use pop::serve_blocked;
pub use pop::{bzmpop, bzpopmax, bzpopmin, zmpop, zpopmax, zpopmin};
pub use random::zrandmember;
pub use range::{
    zcount, zlexcount, zrange, zrangebylex, zrangebyscore, zrangestore, zremrangebylex, zremrangebyrank,
    zremrangebyscore, zrevrange, zrevrangebylex, zrevrangebyscore,
};
pub use scan::zscan;

use crate::engine::Ctx;
use crate::error::CmdError;
use crate::store::zset::ZSetValue;

// --- Access and creation ---------------------------------------------------------------------

/// The sorted set at `key` for a read command (counts a keyspace hit or miss).
pub(super) fn read<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a ZSetValue>, CmdError> {
    crate::cmd::collection::read(ctx, key)
}

/// Runs `f` on the sorted set at `key` for a write: `Shard::update` re-measures the entry
/// afterwards and deletes it when `f` leaves it empty. `None` when there is no such key.
pub(super) fn write<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    f: impl FnOnce(&mut ZSetValue) -> R,
) -> Result<Option<R>, CmdError> {
    crate::cmd::collection::modify(&mut ctx.db, key, ctx.now, f)
}

/// Stores a new sorted set at `key` (replacing whatever was there), with the configured
/// default TTL if any.
pub(super) fn create(ctx: &mut Ctx<'_>, key: &[u8], z: ZSetValue) {
    crate::cmd::collection::create(ctx.engine, &mut ctx.db, key, z, ctx.now);
}
