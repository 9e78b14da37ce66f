//! Set membership: SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SMOVE and SSCAN.

use std::mem::size_of;

use crate::args::Args;
use crate::cmd::collection::{scan_cursor, scan_reply, ScanOf, ScanOptions};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;
use crate::store::entry::{alloc_size, Entry, ValueRef};
use crate::store::set::{SetValue, ELEMENT_OVERHEAD};

use super::{modify, peek_set, read_set, upsert};

/// SADD: adds members to a set (creating it) and answers how many were new.
///
/// ```text
/// SADD key member [member ...]
/// ```
pub fn sadd(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let first = members.first().copied().unwrap_or_default();
    let added = upsert(ctx, key, first, members.len(), |s| {
        s.expect_members(members.len());
        members.iter().filter(|m| s.add(m)).count()
    })?;
    if added > 0 {
        ctx.notify(class::SET, "sadd", key);
    }
    Ok(Reply::Int(added as i64))
}

/// SREM: removes members and answers how many were there. Deletes the set when it is empty.
///
/// ```text
/// SREM key member [member ...]
/// ```
pub fn srem(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let removed = modify(ctx, key, |s| members.iter().filter(|m| s.remove(m)).count())?;
    if removed.is_some_and(|n| n > 0) {
        ctx.notify_removal(class::SET, "srem", key);
    }
    Ok(Reply::Int(removed.unwrap_or(0) as i64))
}

/// SMEMBERS: every member of the set (a RESP3 set).
///
/// ```text
/// SMEMBERS key
/// ```
pub fn smembers(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let s = read_set(ctx, key)?;
    Ok(Reply::Set(s.map(|s| s.iter().map(Reply::bulk).collect()).unwrap_or_default()))
}

/// SISMEMBER: 1 if the member is in the set, else 0.
///
/// ```text
/// SISMEMBER key member
/// ```
pub fn sismember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let member = args.bytes()?;
    Ok(Reply::Int(read_set(ctx, key)?.is_some_and(|s| s.contains(member)) as i64))
}

/// SMISMEMBER: for each member, 1 if it is in the set, else 0.
///
/// ```text
/// SMISMEMBER key member [member ...]
/// ```
pub fn smismember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let s = read_set(ctx, key)?;
    Ok(Reply::Array(members.iter().map(|m| Reply::Int(s.is_some_and(|s| s.contains(m)) as i64)).collect()))
}

/// SCARD: the number of members (0 if no such key).
///
/// ```text
/// SCARD key
/// ```
pub fn scard(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    Ok(Reply::Int(read_set(ctx, key)?.map_or(0, |s| s.len()) as i64))
}

/// SMOVE: moves a member from one set to another (creating it); 1 if it was moved, 0 if the
/// source does not have it. The source is deleted when it is emptied.
///
/// ```text
/// SMOVE source destination member
/// ```
pub fn smove(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let member = args.bytes()?;
    let now = ctx.now;
    // Redis's order: a missing source answers 0 before the destination's type is checked.
    // WATCH sees only what changed, as Redis signals: the source when the member left it,
    // the destination when the member was new there.
    let nothing_moved = |ctx: &mut Ctx<'_>, moved: bool| {
        ctx.leave_unchanged(0);
        ctx.leave_unchanged(1);
        Ok(Reply::Int(moved as i64))
    };
    match ctx.db.lookup(src, now) {
        None => return nothing_moved(ctx, false),
        Some(Entry { value: ValueRef::Set(_), .. }) => {}
        Some(_) => return Err(CmdError::WrongType),
    }
    if ctx.db.lookup(dst, now).is_some_and(|e| !matches!(e.value, ValueRef::Set(_))) {
        return Err(CmdError::WrongType);
    }
    if src == dst {
        let found = peek_set(ctx, src, |s| s.contains(member)).unwrap_or(false);
        return nothing_moved(ctx, found);
    }
    if modify(ctx, src, |s| s.remove(member))? != Some(true) {
        return nothing_moved(ctx, false);
    }
    ctx.notify_removal(class::SET, "srem", src);
    if upsert(ctx, dst, member, 1, |s| s.add(member))? {
        ctx.notify(class::SET, "sadd", dst);
    } else {
        ctx.leave_unchanged(1);
    }
    Ok(Reply::Int(1))
}

/// SSCAN: one step of an iteration over a set's members; answers the next cursor (0 when
/// done) and some members. A small set comes whole in one step, as in Redis.
///
/// ```text
/// SSCAN key cursor [MATCH pattern] [COUNT count]
/// ```
pub fn sscan(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let cursor = scan_cursor(args.bytes()?)?;
    // As in Redis: a missing key answers an empty page before the options are looked at.
    let Some(s) = read_set(ctx, key)? else {
        return Ok(scan_reply(0, vec![]));
    };
    let opts = ScanOptions::parse(args, ScanOf::Set)?;
    let mut items = Vec::new();
    let next = s.scan(cursor, opts.count, |m| {
        if opts.matches(m) {
            items.push(Reply::bulk(m));
        }
    });
    Ok(scan_reply(next, items))
}

/// Bytes SADD may add beyond its arguments: a member's overhead each, and the set itself.
pub fn members_growth(argv: &[&[u8]]) -> usize {
    argv.len().saturating_sub(2) * ELEMENT_OVERHEAD + alloc_size(size_of::<SetValue>())
}
