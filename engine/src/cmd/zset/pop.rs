//! ZPOPMIN and ZPOPMAX, ZMPOP, and the blocking BZPOPMIN, BZPOPMAX and BZMPOP (which wait
//! through `crate::blocking` as BLPOP does).

use crate::args::Args;
use crate::blocking::BlockOp;
use crate::cmd::collection::{self, mpop_args};
use crate::cmd::list::{block, timeout_deadline};
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::ValueRef;
use crate::store::zset::ZSetValue;
use crate::store::Locked;

use super::range::scored_reply;
use super::write;

/// Removes and answers the members with the lowest scores (one without a count).
///
/// ```text
/// ZPOPMIN key [count]
/// ```
pub fn zpopmin(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    pop_generic(ctx, args, false)
}

/// Removes and answers the members with the highest scores (one without a count).
///
/// ```text
/// ZPOPMAX key [count]
/// ```
pub fn zpopmax(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    pop_generic(ctx, args, true)
}

fn pop_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, max: bool) -> Result<Reply, CmdError> {
    let resp3 = ctx.session.resp3;
    let key = args.key()?;
    if args.len() > 1 {
        return Err(CmdError::Syntax);
    }
    let count = match args.peek() {
        None => None,
        Some(arg) => match parse_i64(arg) {
            Some(n) if n >= 0 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => return Err(CmdError::err("value is out of range, must be positive")),
        },
    };
    let Some(popped) = write(ctx, key, |z| z.pop(count.unwrap_or(1), max))? else {
        return Ok(Reply::Array(Vec::new()));
    };
    if !popped.is_empty() {
        ctx.notify_removal(class::ZSET, if max { "zpopmax" } else { "zpopmin" }, key);
    }
    // One element without a count is a flat [member, score] in RESP3 too, as in Redis 7.0.
    let items = popped.iter().map(|(m, s)| (&**m, *s));
    Ok(scored_reply(items, true, resp3 && count.is_some()))
}

// --- Multi-key and blocking pops --------------------------------------------------------------

/// ZMPOP: pops up to `count` (default 1) of the lowest (MIN) or highest (MAX) scored
/// members of the first non-empty sorted set among the keys, answering
/// `[key, [[member, score] ...]]`, or nil when all are empty.
///
/// ```text
/// ZMPOP numkeys key [key ...] <MIN | MAX> [COUNT count]
/// ```
pub fn zmpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let (keys, min, count) = mpop_args(args.rest(), min_or_max)?;
    Ok(first_pop(ctx, keys, !min, count, Shape::Nested)?.unwrap_or(Reply::NilArray))
}

/// BZMPOP: as ZMPOP; when every sorted set is empty, waits up to `timeout` seconds (0 = for
/// ever) for one to receive members, then answers nil. Inside MULTI it does not wait.
///
/// ```text
/// BZMPOP timeout numkeys key [key ...] <MIN | MAX> [COUNT count]
/// ```
pub fn bzmpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let timeout = args.bytes()?;
    let (keys, min, count) = mpop_args(args.rest(), min_or_max)?;
    // Redis reads the timeout after the other arguments.
    let deadline = timeout_deadline(timeout, ctx.now)?;
    blocking_pop(ctx, keys, deadline, !min, count, Shape::Nested)
}

/// BZPOPMIN: pops the lowest scored member of the first non-empty sorted set among the
/// keys, answering `[key, member, score]`; when all are empty, waits up to `timeout`
/// seconds (0 = for ever), then answers nil. Inside MULTI it does not wait.
///
/// ```text
/// BZPOPMIN key [key ...] timeout
/// ```
pub fn bzpopmin(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    bzpop(ctx, args, false)
}

/// BZPOPMAX: as BZPOPMIN, popping the highest scored member.
///
/// ```text
/// BZPOPMAX key [key ...] timeout
/// ```
pub fn bzpopmax(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    bzpop(ctx, args, true)
}

fn bzpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>, max: bool) -> Result<Reply, CmdError> {
    let all = args.rest();
    let (keys, timeout) = all.split_at(all.len().saturating_sub(1));
    let deadline = timeout_deadline(timeout.first().copied().unwrap_or_default(), ctx.now)?;
    blocking_pop(ctx, keys, deadline, max, 1, Shape::Flat)
}

fn blocking_pop(
    ctx: &mut Ctx<'_>,
    keys: &[&[u8]],
    deadline: Option<u64>,
    max: bool,
    count: usize,
    shape: Shape,
) -> Result<Reply, CmdError> {
    if let Some(reply) = first_pop(ctx, keys, max, count, shape)? {
        return Ok(reply);
    }
    block(ctx, keys, deadline, BlockOp::ZPop { max, count, flat: shape == Shape::Flat });
    Ok(Reply::NilArray)
}

/// How a blocking or multi-key pop answers: BZPOPMIN's `[key, member, score]`, or ZMPOP's
/// `[key, [[member, score] ...]]`.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Flat,
    Nested,
}

/// Pops from the first of `keys` that holds a sorted set (WRONGTYPE when one met first holds
/// another type); `None` when none does.
fn first_pop(
    ctx: &mut Ctx<'_>,
    keys: &[&[u8]],
    max: bool,
    count: usize,
    shape: Shape,
) -> Result<Option<Reply>, CmdError> {
    let now = ctx.now;
    for &key in keys {
        if let Some(reply) = pop_some(ctx.engine, &mut ctx.db, key, max, count, shape, now)? {
            return Ok(Some(reply));
        }
    }
    Ok(None)
}

fn pop_some(
    engine: &Engine,
    db: &mut Locked<'_>,
    key: &[u8],
    max: bool,
    count: usize,
    shape: Shape,
    now: u64,
) -> Result<Option<Reply>, CmdError> {
    let Some(popped) = collection::modify(db, key, now, |z: &mut ZSetValue| z.pop(count, max))? else {
        return Ok(None);
    };
    if !popped.is_empty() {
        engine.notify_removal(db, class::ZSET, if max { "zpopmax" } else { "zpopmin" }, key, now);
    }
    let mut reply = vec![Reply::bulk(key)];
    match shape {
        Shape::Flat => {
            for (member, score) in popped {
                reply.push(Reply::Bulk(member.into_vec()));
                reply.push(Reply::Double(score));
            }
        }
        Shape::Nested => {
            let items =
                popped.into_iter().map(|(m, s)| Reply::Array(vec![Reply::Bulk(m.into_vec()), Reply::Double(s)]));
            reply.push(Reply::Array(items.collect()));
        }
    }
    Ok(Some(Reply::Array(reply)))
}

/// Serves one client blocked on `key` by BZPOPMIN, BZPOPMAX or BZMPOP (see `crate::blocking`),
/// on the key's shard the caller has locked. `None` when the key holds no sorted set, so the
/// client keeps waiting.
pub(crate) fn serve_blocked(
    engine: &Engine,
    db: &mut Locked<'_>,
    key: &[u8],
    max: bool,
    count: usize,
    flat: bool,
    now: u64,
) -> Option<Reply> {
    match db.peek(key, now) {
        Some(entry) if matches!(entry.value, ValueRef::ZSet(z) if !z.is_empty()) => {}
        _ => return None,
    }
    let shape = if flat { Shape::Flat } else { Shape::Nested };
    match pop_some(engine, db, key, max, count, shape, now) {
        Ok(reply) => reply,
        Err(e) => Some(e.into()),
    }
}

/// MIN or MAX (true for MIN); anything else is a syntax error.
fn min_or_max(arg: &[u8]) -> Result<bool, CmdError> {
    if arg.eq_ignore_ascii_case(b"MIN") {
        Ok(true)
    } else if arg.eq_ignore_ascii_case(b"MAX") {
        Ok(false)
    } else {
        Err(CmdError::Syntax)
    }
}
