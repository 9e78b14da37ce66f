//! Pushes and pops at either end of a list: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP and RPOP.

use std::mem::size_of;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::alloc_size;
use crate::store::list::ListValue;

use super::{create, modify, notify_popped, notify_pushed};

/// LPUSH: pushes elements at the head, one after another (creating the list), and answers
/// the new length.
///
/// ```text
/// LPUSH key element [element ...]
/// ```
pub fn lpush(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    push(ctx, args, true, false)
}

/// RPUSH: pushes elements at the tail (creating the list) and answers the new length.
///
/// ```text
/// RPUSH key element [element ...]
/// ```
pub fn rpush(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    push(ctx, args, false, false)
}

/// LPUSHX: pushes elements at the head only if the list exists; answers the new length (0
/// when there is no list).
///
/// ```text
/// LPUSHX key element [element ...]
/// ```
pub fn lpushx(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    push(ctx, args, true, true)
}

/// RPUSHX: pushes elements at the tail only if the list exists; answers the new length (0
/// when there is no list).
///
/// ```text
/// RPUSHX key element [element ...]
/// ```
pub fn rpushx(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    push(ctx, args, false, true)
}

fn push(ctx: &mut Ctx<'_>, args: &mut Args<'_>, front: bool, only_existing: bool) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let elems = args.rest();
    let now = ctx.now;
    if let Some(len) = modify(&mut ctx.db, key, now, |l| {
        l.push_many(front, elems);
        l.len()
    })? {
        notify_pushed(ctx.engine, &ctx.db, key, front, now);
        return Ok(Reply::Int(len as i64));
    }
    if only_existing {
        return Ok(Reply::Int(0));
    }
    let mut list = ListValue::default();
    list.push_many(front, elems);
    let len = list.len();
    create(ctx.engine, &mut ctx.db, key, list, now);
    notify_pushed(ctx.engine, &ctx.db, key, front, now);
    Ok(Reply::Int(len as i64))
}

/// Bytes a push may add beyond its arguments: a slot per element, doubled for the deque's
/// growth, and the list itself when it is new.
pub fn push_growth(argv: &[&[u8]]) -> usize {
    argv.len().saturating_sub(2) * 2 * size_of::<Box<[u8]>>() + alloc_size(size_of::<ListValue>())
}

/// LPOP: removes and answers the first element, or with a count, up to that many as an
/// array. The list is deleted once empty.
///
/// ```text
/// LPOP key [count]
/// ```
pub fn lpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    pop(ctx, args, true)
}

/// RPOP: removes and answers the last element, or with a count, up to that many (last
/// first) as an array. The list is deleted once empty.
///
/// ```text
/// RPOP key [count]
/// ```
pub fn rpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    pop(ctx, args, false)
}

fn pop(ctx: &mut Ctx<'_>, args: &mut Args<'_>, left: bool) -> Result<Reply, CmdError> {
    if args.len() > 2 {
        return Err(CmdError::WrongArity(ctx.cmd.full_name()));
    }
    let key = args.key()?;
    let count = match args.is_empty() {
        true => None,
        false => Some(
            parse_i64(args.bytes()?)
                .filter(|n| *n >= 0)
                .ok_or_else(|| CmdError::err("value is out of range, must be positive"))?,
        ),
    };
    let popped = modify(&mut ctx.db, key, ctx.now, |l| match count {
        None => Reply::opt_bulk(if left { l.pop_front() } else { l.pop_back() }),
        Some(n) => {
            let n = usize::try_from(n).unwrap_or(usize::MAX).min(l.len());
            let items = (0..n).filter_map(|_| if left { l.pop_front() } else { l.pop_back() });
            Reply::Array(items.map(|e| Reply::Bulk(e.into_vec())).collect())
        }
    })?;
    // A count of 0 pops nothing and says nothing.
    if popped.is_some() && count != Some(0) {
        notify_popped(ctx.engine, &mut ctx.db, key, left, ctx.now);
    }
    Ok(match popped {
        Some(reply) => reply,
        // A missing key with a count is the null array, without one the null bulk string.
        None if count.is_some() => Reply::NilArray,
        None => Reply::Nil,
    })
}
