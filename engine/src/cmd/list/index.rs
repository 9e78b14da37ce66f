//! Reading and editing a list by position or value: LLEN, LRANGE, LINDEX, LSET, LINSERT, LREM,
//! LTRIM and LPOS.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;

use super::{list_of, modify};

/// LLEN: the length of a list (0 when there is none).
///
/// ```text
/// LLEN key
/// ```
pub fn llen(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    match ctx.db.read(key, ctx.now) {
        Some(entry) => Ok(Reply::Int(list_of(entry)?.len() as i64)),
        None => Ok(Reply::Int(0)),
    }
}

/// LRANGE: the elements between two inclusive positions; negative positions count from the
/// end, and a range past either end is cut to the list.
///
/// ```text
/// LRANGE key start stop
/// ```
pub fn lrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let start = args.int()?;
    let stop = args.int()?;
    let Some(entry) = ctx.db.read(key, ctx.now) else {
        return Ok(Reply::Array(vec![]));
    };
    let list = list_of(entry)?;
    Ok(Reply::Array(match clamp_range(start, stop, list.len()) {
        Some((start, stop)) => list.range(start, stop).map(Reply::bulk).collect(),
        None => vec![],
    }))
}

/// LINDEX: the element at a position (negative counts from the end), or nil.
///
/// ```text
/// LINDEX key index
/// ```
pub fn lindex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let index = args.bytes()?;
    // Redis looks the key up before it reads the index.
    let Some(entry) = ctx.db.read(key, ctx.now) else {
        return Ok(Reply::Nil);
    };
    let list = list_of(entry)?;
    let index = parse_i64(index).ok_or(CmdError::NotInteger)?;
    Ok(Reply::opt_bulk(position(index, list.len()).and_then(|i| list.get(i))))
}

/// LSET: replaces the element at a position (negative counts from the end).
///
/// ```text
/// LSET key index element
/// ```
pub fn lset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let index = args.bytes()?;
    let elem = args.bytes()?;
    let done = modify(&mut ctx.db, key, ctx.now, |l| {
        let index = parse_i64(index).ok_or(CmdError::NotInteger)?;
        // Redis 7.2 weighs the new element before it looks for the position.
        l.grow_check(elem.len());
        match position(index, l.len()) {
            Some(i) if l.set(i, elem) => Ok(Reply::Ok),
            _ => Err(CmdError::err("index out of range")),
        }
    })?;
    let reply = done.ok_or(CmdError::NoSuchKey)??;
    ctx.notify(class::LIST, "lset", key);
    Ok(reply)
}

/// LINSERT: inserts an element before or after the first occurrence of a pivot; answers the
/// new length, -1 when the pivot is not there, 0 when there is no list.
///
/// ```text
/// LINSERT key <BEFORE | AFTER> pivot element
/// ```
pub fn linsert(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let place = args.bytes()?;
    let pivot = args.bytes()?;
    let elem = args.bytes()?;
    let after = if place.eq_ignore_ascii_case(b"AFTER") {
        true
    } else if place.eq_ignore_ascii_case(b"BEFORE") {
        false
    } else {
        return Err(CmdError::Syntax);
    };
    let len = modify(&mut ctx.db, key, ctx.now, |l| {
        l.grow_check(elem.len());
        let found = l.iter().position(|e| e == pivot);
        match found {
            Some(i) => {
                l.insert(if after { i + 1 } else { i }, elem);
                l.len() as i64
            }
            None => -1,
        }
    })?;
    if len.is_some_and(|n| n > 0) {
        ctx.notify(class::LIST, "linsert", key);
    }
    Ok(Reply::Int(len.unwrap_or(0)))
}

/// LREM: removes occurrences of an element: `count` > 0 the first ones from the head,
/// `count` < 0 the first ones from the tail, 0 all of them. Answers how many went.
///
/// ```text
/// LREM key count element
/// ```
pub fn lrem(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let count = args.int()?;
    let elem = args.bytes()?;
    // As Redis's `-toremove`: LONG_MIN stays negative and never matches, so all go.
    let limit = if count == i64::MIN { 0 } else { usize::try_from(count.unsigned_abs()).unwrap_or(usize::MAX) };
    let removed = modify(&mut ctx.db, key, ctx.now, |l| l.remove_matching(elem, limit, count < 0))?;
    if removed.is_some_and(|n| n > 0) {
        ctx.notify_removal(class::LIST, "lrem", key);
    }
    Ok(Reply::Int(removed.unwrap_or(0) as i64))
}

/// LTRIM: keeps only the elements between two inclusive positions (negative count from the
/// end); the list is deleted when nothing is left.
///
/// ```text
/// LTRIM key start stop
/// ```
pub fn ltrim(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let start = args.int()?;
    let stop = args.int()?;
    let trimmed = modify(&mut ctx.db, key, ctx.now, |l| match clamp_range(start, stop, l.len()) {
        Some((start, stop)) => l.retain_range(start, stop),
        None => l.retain_range(1, 0),
    })?;
    if trimmed.is_some() {
        ctx.notify_removal(class::LIST, "ltrim", key);
    }
    Ok(Reply::Ok)
}

/// LPOS: the position of an element: the RANK-th match (negative ranks search from the
/// tail), COUNT matches as an array (0 = all), looking at no more than MAXLEN elements.
///
/// ```text
/// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
/// ```
pub fn lpos(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let elem = args.bytes()?;
    let (mut rank, mut count, mut maxlen) = (1i64, None::<i64>, 0i64);
    while let Some(opt) = args.peek() {
        args.bytes()?;
        let has_value = !args.is_empty();
        if opt.eq_ignore_ascii_case(b"RANK") && has_value {
            rank = args.int()?;
            if rank == 0 {
                return Err(CmdError::err(
                    "RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list",
                ));
            }
        } else if opt.eq_ignore_ascii_case(b"COUNT") && has_value {
            count = Some(non_negative(args.bytes()?, "COUNT can't be negative")?);
        } else if opt.eq_ignore_ascii_case(b"MAXLEN") && has_value {
            maxlen = non_negative(args.bytes()?, "MAXLEN can't be negative")?;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let from_tail = rank < 0;
    // As Redis: -LONG_MIN stays LONG_MIN, which every match count reaches.
    let rank = if from_tail { rank.wrapping_neg() } else { rank };
    let Some(entry) = ctx.db.read(key, ctx.now) else {
        return Ok(if count.is_some() { Reply::Array(vec![]) } else { Reply::Nil });
    };
    let list = list_of(entry)?;
    let len = list.len() as i64;
    let elems: Box<dyn Iterator<Item = &[u8]>> =
        if from_tail { Box::new(list.iter().rev()) } else { Box::new(list.iter()) };
    let (mut matches, mut found) = (0i64, Vec::new());
    for (index, e) in elems.enumerate() {
        let index = index as i64;
        if maxlen != 0 && index >= maxlen {
            break;
        }
        if e != elem {
            continue;
        }
        matches += 1;
        if matches < rank {
            continue;
        }
        let at = if from_tail { len - index - 1 } else { index };
        found.push(Reply::Int(at));
        match count {
            None => break,
            Some(0) => {}
            Some(n) if matches.wrapping_sub(rank).wrapping_add(1) >= n => break,
            Some(_) => {}
        }
    }
    Ok(match count {
        Some(_) => Reply::Array(found),
        None => found.pop().unwrap_or(Reply::Nil),
    })
}

/// A non-negative integer option; anything else (not an integer too) is `error`, as Redis's
/// `getPositiveLongFromObjectOrReply` with a message.
fn non_negative(arg: &[u8], error: &str) -> Result<i64, CmdError> {
    parse_i64(arg).filter(|n| *n >= 0).ok_or_else(|| CmdError::err(error))
}

/// A position (negative counts from the end) within a list of `len`, if it is one.
fn position(index: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let i = if index < 0 { len + index } else { index };
    (0..len).contains(&i).then_some(i as usize)
}

/// LRANGE's and LTRIM's inclusive range, as Redis clamps it: `None` when empty.
fn clamp_range(start: i64, stop: i64, len: usize) -> Option<(usize, usize)> {
    let len = len as i64;
    let start = if start < 0 { len + start } else { start }.max(0);
    let stop = if stop < 0 { len + stop } else { stop };
    if start > stop || start >= len {
        return None;
    }
    Some((start as usize, stop.min(len - 1) as usize))
}
