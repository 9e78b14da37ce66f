//! Random members: SPOP and SRANDMEMBER, with Redis's strategies for large counts.

use std::mem::size_of;

use crate::args::Args;
use crate::cmd::collection::{rand_count, random_positions};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;

use super::{modify, read_set};

/// Redis's SPOP_MOVE_STRATEGY_MUL: when what is left is this many times smaller than what
/// is popped, Redis builds a new set from what is left (and picks its encoding afresh).
const SPOP_MOVE_STRATEGY_MUL: usize = 5;

/// SPOP: removes and answers a random member (nil if no such key), or with a count, up to
/// that many distinct members (a RESP3 set). Deletes the set when it is empty.
///
/// ```text
/// SPOP key [count]
/// ```
pub fn spop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let engine = ctx.engine;
    let random = move || engine.store().common.random();
    let count = match args.rest() {
        [] => None,
        [count] => Some(
            parse_i64(count)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| CmdError::err("value is out of range, must be positive"))?,
        ),
        _ => return Err(CmdError::Syntax),
    };
    let Some(count) = count else {
        let popped = modify(ctx, key, |s| s.remove_index((random() % s.len() as u64) as usize))?;
        if popped.is_some() {
            ctx.notify_removal(class::SET, "spop", key);
        }
        return Ok(Reply::opt_bulk(popped.flatten()));
    };
    let popped = modify(ctx, key, |s| {
        if count >= s.len() {
            return std::mem::take(s).iter().map(Reply::bulk).collect();
        }
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            let pick = (random() % s.len() as u64) as usize;
            out.extend(s.remove_index(pick).map(Reply::bulk));
        }
        if s.len() * SPOP_MOVE_STRATEGY_MUL <= count {
            s.reencode();
        }
        out
    })?;
    if popped.is_some() && count > 0 {
        ctx.notify_removal(class::SET, "spop", key);
    }
    Ok(Reply::Set(popped.unwrap_or_default()))
}

/// SRANDMEMBER: a random member (nil if no such key), or with a positive count up to that
/// many distinct members, or with a negative count that many picks that may repeat.
///
/// ```text
/// SRANDMEMBER key [count]
/// ```
pub fn srandmember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let engine = ctx.engine;
    let random = move || engine.store().common.random();
    let count = match args.rest() {
        [] => None,
        [count] => Some(rand_count(count)?),
        _ => return Err(CmdError::Syntax),
    };
    let Some(count) = count else {
        let Some(s) = read_set(ctx, key)? else {
            return Ok(Reply::Nil);
        };
        return Ok(Reply::opt_bulk(s.get_index((random() % s.len() as u64) as usize)));
    };
    let limit = engine.config().proto_max_bulk_len();
    let Some(s) = read_set(ctx, key)? else {
        return Ok(Reply::Array(vec![]));
    };
    let per_pick = s.heap_size() / s.len() + size_of::<Reply>();
    let positions = random_positions(s.len(), count, per_pick, limit, random)?;
    Ok(Reply::Array(positions.into_iter().filter_map(|p| s.get_index(p)).map(Reply::bulk).collect()))
}
