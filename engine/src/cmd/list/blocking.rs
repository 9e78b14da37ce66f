//! Moves between lists (LMOVE, RPOPLPUSH) and the blocking commands (BLPOP, BRPOP, BLMOVE,
//! BRPOPLPUSH; BLMPOP's own parsing is in `mpop`), with the serving of a blocked client when a key gets an element.

use std::mem::size_of;

use crate::args::Args;
use crate::blocking::{BlockOp, Blocked};
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::num::long_double;
use crate::reply::Reply;
use crate::store::entry::{alloc_size, ValueRef};
use crate::store::list::ListValue;
use crate::store::Locked;

use super::{create, list_of, modify, notify_popped, notify_pushed, pop_one};

/// Bytes a move (LMOVE, BLMOVE, RPOPLPUSH, BRPOPLPUSH) may add: the element's copy and slot
/// (unknown from the arguments, so counted by the 64-byte values Redis calls small) and a
/// new list.
pub fn move_growth(_argv: &[&[u8]]) -> usize {
    alloc_size(64) + 2 * size_of::<Box<[u8]>>() + alloc_size(size_of::<ListValue>())
}

/// LMOVE: pops an element from one end of a list and pushes it at an end of another (or the
/// same) list; answers the element, or nil when the source is empty.
///
/// ```text
/// LMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT>
/// ```
pub fn lmove(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let from_left = side(args.bytes()?)?;
    let to_left = side(args.bytes()?)?;
    let moved = move_one(ctx.engine, &mut ctx.db, src, dst, from_left, to_left, ctx.now)?;
    Ok(Reply::opt_bulk(moved))
}

/// RPOPLPUSH: pops the last element of a list and pushes it at the head of another (or the
/// same) list; answers the element, or nil when the source is empty.
///
/// ```text
/// RPOPLPUSH source destination
/// ```
pub fn rpoplpush(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let moved = move_one(ctx.engine, &mut ctx.db, src, dst, false, true, ctx.now)?;
    Ok(Reply::opt_bulk(moved))
}

/// BLPOP: pops the first element of the first non-empty list among the keys, answering
/// `[key, element]`; when all are empty, waits up to `timeout` seconds (0 = for ever) for
/// one to receive data, then answers nil. Inside MULTI it does not wait.
///
/// ```text
/// BLPOP key [key ...] timeout
/// ```
pub fn blpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    blocking_pop(ctx, args, true)
}

/// BRPOP: as BLPOP, popping the last element.
///
/// ```text
/// BRPOP key [key ...] timeout
/// ```
pub fn brpop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    blocking_pop(ctx, args, false)
}

fn blocking_pop(ctx: &mut Ctx<'_>, args: &mut Args<'_>, left: bool) -> Result<Reply, CmdError> {
    let all = args.rest();
    let (keys, timeout) = all.split_at(all.len().saturating_sub(1));
    let deadline = timeout_deadline(timeout.first().copied().unwrap_or_default(), ctx.now)?;
    let now = ctx.now;
    for &key in keys {
        if let Some(elem) = pop_one(&mut ctx.db, key, left, now)? {
            notify_popped(ctx.engine, &mut ctx.db, key, left, now);
            return Ok(Reply::Array(vec![Reply::bulk(key), Reply::Bulk(elem.into_vec())]));
        }
    }
    block(ctx, keys, deadline, BlockOp::Pop { left });
    Ok(Reply::NilArray)
}

/// BLMOVE: as LMOVE; when the source is empty, waits up to `timeout` seconds (0 = for ever)
/// for it to receive data, then answers nil. Inside MULTI it does not wait.
///
/// ```text
/// BLMOVE source destination <LEFT | RIGHT> <LEFT | RIGHT> timeout
/// ```
pub fn blmove(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let from_left = side(args.bytes()?)?;
    let to_left = side(args.bytes()?)?;
    let deadline = timeout_deadline(args.bytes()?, ctx.now)?;
    blocking_move(ctx, src, dst, from_left, to_left, deadline)
}

/// BRPOPLPUSH: as RPOPLPUSH; when the source is empty, waits up to `timeout` seconds (0 =
/// for ever) for it to receive data, then answers nil.
///
/// ```text
/// BRPOPLPUSH source destination timeout
/// ```
pub fn brpoplpush(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let deadline = timeout_deadline(args.bytes()?, ctx.now)?;
    blocking_move(ctx, src, dst, false, true, deadline)
}

fn blocking_move(
    ctx: &mut Ctx<'_>,
    src: &[u8],
    dst: &[u8],
    from_left: bool,
    to_left: bool,
    deadline: Option<u64>,
) -> Result<Reply, CmdError> {
    if ctx.db.lookup(src, ctx.now).is_some() {
        let moved = move_one(ctx.engine, &mut ctx.db, src, dst, from_left, to_left, ctx.now)?;
        return Ok(Reply::opt_bulk(moved));
    }
    block(ctx, &[src], deadline, BlockOp::Move { dst: dst.to_vec(), from_left, to_left });
    // What a blocking move answers when it may not wait (inside MULTI): the null bulk.
    Ok(Reply::Nil)
}

/// Records what the session waits for. Whether it really waits is up to the caller of the
/// dispatch (`Engine::feed` waits; `Engine::call` and EXEC answer the placeholder reply).
pub(crate) fn block(ctx: &mut Ctx<'_>, keys: &[&[u8]], deadline_ms: Option<u64>, op: BlockOp) {
    ctx.session.blocked = Some(Blocked {
        argv: ctx.argv.iter().map(|a| a.to_vec()).collect(),
        db: ctx.db.db(),
        keys: keys.iter().map(|k| k.to_vec()).collect(),
        deadline_ms,
        op,
    });
}

/// A blocking command's timeout as Redis 7.0 reads it: seconds as a long double, times 1000
/// rounded up to whole milliseconds; 0 waits for ever. Answers the deadline in unix ms.
pub(crate) fn timeout_deadline(arg: &[u8], now: u64) -> Result<Option<u64>, CmdError> {
    let secs = long_double::parse(arg).ok_or_else(|| CmdError::err("timeout is not a float or out of range"))?;
    // Too large (or infinite) converts to LLONG_MIN in C: negative, as Redis then says.
    let ms = long_double::mul_ceil_i64(secs, 1000).unwrap_or(i64::MIN);
    if ms < 0 {
        return Err(CmdError::err("timeout is negative"));
    }
    if ms == 0 {
        return Ok(None);
    }
    // Redis 7.0 adds the time without a check; a sum past LLONG_MAX turns negative there and
    // never fires, so such a timeout waits for ever here too.
    Ok(i64::try_from(now).ok().and_then(|now| now.checked_add(ms)).map(|at| at as u64))
}

/// Serves one blocked client from `key` (see `crate::blocking`), on shards the caller has
/// locked (the key's, and a move's destination's). `None` when the key holds no list data,
/// so the client keeps waiting; otherwise its reply (WRONGTYPE for a move whose destination
/// holds another type, as Redis answers then).
pub(crate) fn serve_blocked(engine: &Engine, db: &mut Locked<'_>, key: &[u8], op: &BlockOp, now: u64) -> Option<Reply> {
    match db.peek(key, now) {
        Some(entry) if matches!(entry.value, ValueRef::List(l) if !l.is_empty()) => {}
        _ => return None,
    }
    let served = match op {
        BlockOp::Pop { left } => pop_one(db, key, *left, now).map(|e| {
            e.map(|e| {
                notify_popped(engine, db, key, *left, now);
                Reply::Array(vec![Reply::bulk(key), Reply::Bulk(e.into_vec())])
            })
        }),
        // Sorted sets' waiters are served by `cmd::zset::serve_blocked`.
        BlockOp::ZPop { .. } | BlockOp::XRead { .. } => return None,
        // Stream group readers are served by `cmd::stream::serve_readgroup`.
        BlockOp::XReadGroup { .. } => return None,
        BlockOp::MPop { left, count } => super::mpop::pop_some(engine, db, key, *left, *count, now),
        BlockOp::Move { dst, from_left, to_left } => {
            move_one(engine, db, key, dst, *from_left, *to_left, now).map(|e| e.map(|e| Reply::Bulk(e.into_vec())))
        }
    };
    match served {
        Ok(reply) => reply,
        Err(e) => Some(e.into()),
    }
}

/// Pushes one element at the head (`left`) or tail, creating the list.
fn push_one(
    engine: &Engine,
    db: &mut Locked<'_>,
    key: &[u8],
    elem: &[u8],
    left: bool,
    now: u64,
) -> Result<(), CmdError> {
    let pushed = modify(db, key, now, |l| if left { l.push_front(elem) } else { l.push_back(elem) })?;
    if pushed.is_none() {
        create(engine, db, key, ListValue::from_elems(&[elem]), now);
    }
    Ok(())
}

/// LMOVE's work, in Redis's order: the source (missing: `Ok(None)`; another type:
/// WRONGTYPE), then the destination's type, then the pop and the push.
fn move_one(
    engine: &Engine,
    db: &mut Locked<'_>,
    src: &[u8],
    dst: &[u8],
    from_left: bool,
    to_left: bool,
    now: u64,
) -> Result<Option<Box<[u8]>>, CmdError> {
    match db.lookup(src, now) {
        None => return Ok(None),
        Some(entry) => list_of(entry)?,
    };
    if let Some(entry) = db.lookup(dst, now) {
        list_of(entry)?;
    }
    if src == dst {
        // One list: a rotation (or nothing, when the element goes back where it was).
        let moved = modify(db, src, now, |l| {
            let elem: Option<Box<[u8]>> = if from_left { l.front() } else { l.back() }.map(Into::into);
            if from_left != to_left {
                l.rotate(!from_left);
            }
            elem
        })?;
        if moved.as_ref().is_some_and(Option::is_some) {
            notify_pushed(engine, db, dst, to_left, now);
            notify_popped(engine, db, src, from_left, now);
        }
        return Ok(moved.flatten());
    }
    let Some(elem) = pop_one(db, src, from_left, now)? else { return Ok(None) };
    push_one(engine, db, dst, &elem, to_left, now)?;
    // Redis's order: the push, then the pop (and the source's `del`).
    notify_pushed(engine, db, dst, to_left, now);
    notify_popped(engine, db, src, from_left, now);
    Ok(Some(elem))
}

/// LEFT or RIGHT (true for LEFT); anything else is a syntax error.
pub(super) fn side(arg: &[u8]) -> Result<bool, CmdError> {
    if arg.eq_ignore_ascii_case(b"LEFT") {
        Ok(true)
    } else if arg.eq_ignore_ascii_case(b"RIGHT") {
        Ok(false)
    } else {
        Err(CmdError::Syntax)
    }
}
