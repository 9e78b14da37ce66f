//! LMPOP and BLMPOP: pops up to COUNT elements from the first non-empty list among
//! `numkeys` keys (BLMPOP waiting, as BLPOP does, when all are empty).

use crate::args::Args;
use crate::blocking::BlockOp;
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::reply::Reply;
use crate::store::Locked;

use super::blocking::{block, side, timeout_deadline};
use super::modify;
use crate::cmd::collection::mpop_args;

/// LMPOP: pops up to `count` (default 1) elements from the head (LEFT) or tail of the first
/// non-empty list among the keys, answering `[key, [element ...]]`, or nil when all are empty.
///
/// ```text
/// LMPOP numkeys key [key ...] <LEFT | RIGHT> [COUNT count]
/// ```
pub fn lmpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let (keys, left, count) = mpop_args(args.rest(), side)?;
    let now = ctx.now;
    for &key in keys {
        if let Some(reply) = pop_some(ctx.engine, &mut ctx.db, key, left, count, now)? {
            return Ok(reply);
        }
    }
    Ok(Reply::NilArray)
}

/// BLMPOP: as LMPOP; when every list is empty, waits up to `timeout` seconds (0 = for ever)
/// for one to receive data, then answers nil. Inside MULTI it does not wait.
///
/// ```text
/// BLMPOP timeout numkeys key [key ...] <LEFT | RIGHT> [COUNT count]
/// ```
pub fn blmpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let timeout = args.bytes()?;
    let (keys, left, count) = mpop_args(args.rest(), side)?;
    // Redis reads the timeout after the other arguments.
    let deadline = timeout_deadline(timeout, ctx.now)?;
    let now = ctx.now;
    for &key in keys {
        if let Some(reply) = pop_some(ctx.engine, &mut ctx.db, key, left, count, now)? {
            return Ok(reply);
        }
    }
    block(ctx, keys, deadline, BlockOp::MPop { left, count });
    Ok(Reply::NilArray)
}

/// Pops up to `count` elements from one list: `[key, [element ...]]`, or `None` when there is
/// no list (WRONGTYPE for another type).
pub(super) fn pop_some(
    engine: &Engine,
    db: &mut Locked<'_>,
    key: &[u8],
    left: bool,
    count: usize,
    now: u64,
) -> Result<Option<Reply>, CmdError> {
    let popped = modify(db, key, now, |l| {
        let n = count.min(l.len());
        (0..n)
            .filter_map(|_| if left { l.pop_front() } else { l.pop_back() })
            .map(|e| Reply::Bulk(e.into_vec()))
            .collect()
    })?;
    if popped.is_some() {
        super::notify_popped(engine, db, key, left, now);
    }
    Ok(popped.map(|elems| Reply::Array(vec![Reply::bulk(key), Reply::Array(elems)])))
}
