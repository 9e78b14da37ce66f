//! The multi-key string commands: MGET, MSET and MSETNX.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;
use crate::table::Command;

use super::{default_expiry, store, str_of};

/// MGET: the strings at several keys; nil for a missing key or one that is not a string.
///
/// ```text
/// MGET key [key ...]
/// ```
pub fn mget(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let now = ctx.now;
    let replies = args
        .rest()
        .iter()
        .map(|key| match ctx.db.read(key, now) {
            Some(entry) => str_of(entry).map_or(Reply::Nil, Reply::bulk),
            None => Reply::Nil,
        })
        .collect();
    Ok(Reply::Array(replies))
}

/// MSET: stores several strings at once, replacing whatever the keys held and their TTLs.
///
/// ```text
/// MSET key value [key value ...]
/// ```
pub fn mset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let pairs = pairs(args, ctx.cmd)?;
    set_pairs(ctx, pairs);
    Ok(Reply::Ok)
}

/// MSETNX: stores several strings only if none of the keys exists; 1 if set, 0 if not.
///
/// ```text
/// MSETNX key value [key value ...]
/// ```
pub fn msetnx(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let pairs = pairs(args, ctx.cmd)?;
    let now = ctx.now;
    for pair in pairs.chunks_exact(2) {
        if ctx.db.lookup(pair[0], now).is_some() {
            return Ok(Reply::Int(0));
        }
    }
    // A key named twice simply takes its last value, as in Redis 7.
    set_pairs(ctx, pairs);
    Ok(Reply::Int(1))
}

/// The key/value arguments of MSET and MSETNX; an odd count is an arity error.
fn pairs<'a>(args: &mut Args<'a>, cmd: &Command) -> Result<&'a [&'a [u8]], CmdError> {
    let pairs = args.rest();
    if pairs.len() % 2 == 1 {
        return Err(CmdError::WrongArity(cmd.full_name()));
    }
    Ok(pairs)
}

fn set_pairs(ctx: &mut Ctx<'_>, pairs: &[&[u8]]) {
    let expire_at = default_expiry(ctx);
    for pair in pairs.chunks_exact(2) {
        store(ctx, pair[0], pair[1], expire_at);
        ctx.notify(class::STRING, "set", pair[0]);
    }
}
