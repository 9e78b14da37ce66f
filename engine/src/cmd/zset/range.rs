//! The ZRANGE family (by rank, score or lex, REV, LIMIT, WITHSCORES), ZCOUNT, ZLEXCOUNT and the
//! ZREMRANGEBY* removals.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::zset::{LexBound, ScoreBound, ZSetValue};

use super::parse::{lex_range, score_range};
use super::{read, write};

/// The number of members with a score between min and max (`(` excludes a bound).
///
/// ```text
/// ZCOUNT key min max
/// ```
pub fn zcount(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (min, max) = score_range(args.bytes()?, args.bytes()?)?;
    Ok(Reply::Int(read(ctx, key)?.map_or(0, |z| z.score_ranks(min, max).len()) as i64))
}

/// The number of members between two lex bounds (`[m`, `(m`, `-`, `+`), for a set whose
/// scores are all equal.
///
/// ```text
/// ZLEXCOUNT key min max
/// ```
pub fn zlexcount(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (min, max) = lex_range(args.bytes()?, args.bytes()?)?;
    Ok(Reply::Int(read(ctx, key)?.map_or(0, |z| z.lex_ranks(&min, &max).len()) as i64))
}

// --- The ZRANGE family -----------------------------------------------------------------------

/// What a range counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum By {
    Rank,
    Score,
    Lex,
}

/// Members in a range of ranks (default), scores (BYSCORE) or members (BYLEX), ascending or
/// (REV) descending, a window of the result (LIMIT offset count, BYSCORE/BYLEX only), with
/// scores (WITHSCORES, not BYLEX). With REV, BYSCORE and BYLEX take the bounds as max, min.
///
/// ```text
/// ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
/// ```
pub fn zrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, None, None, None)
}

/// Stores at dst the members ZRANGE would answer (with their scores), replacing whatever
/// dst held; an empty range (or a missing source) deletes dst. Answers the number stored.
///
/// ```text
/// ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]
/// ```
pub fn zrangestore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dst = args.key()?;
    range_generic(ctx, args, None, None, Some(dst))
}

/// Members in a range of ranks, by descending score.
///
/// ```text
/// ZREVRANGE key start stop [WITHSCORES]
/// ```
pub fn zrevrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Rank), Some(true), None)
}

/// Members with a score between min and max, ascending.
///
/// ```text
/// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
/// ```
pub fn zrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Score), Some(false), None)
}

/// Members with a score between max and min, descending.
///
/// ```text
/// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
/// ```
pub fn zrevrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Score), Some(true), None)
}

/// Members between two lex bounds, ascending (for a set whose scores are all equal).
///
/// ```text
/// ZRANGEBYLEX key min max [LIMIT offset count]
/// ```
pub fn zrangebylex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Lex), Some(false), None)
}

/// Members between two lex bounds, descending.
///
/// ```text
/// ZREVRANGEBYLEX key max min [LIMIT offset count]
/// ```
pub fn zrevrangebylex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Lex), Some(true), None)
}

/// Redis's `zrangeGenericCommand`: options, then their conflicts, then the bounds, then the
/// key, each with its own error in that order. `by` and `rev` are fixed by the legacy
/// commands; ZRANGE leaves them to its options. With `store` (ZRANGESTORE's destination)
/// WITHSCORES is a syntax error and the range is stored there instead of answered.
fn range_generic(
    ctx: &mut Ctx<'_>,
    args: &mut Args<'_>,
    by: Option<By>,
    rev: Option<bool>,
    store: Option<&[u8]>,
) -> Result<Reply, CmdError> {
    let resp3 = ctx.session.resp3;
    let key = args.key()?;
    let (first, second) = (args.bytes()?, args.bytes()?);
    let (mut by_opt, mut rev_opt) = (by, rev);
    let mut withscores = false;
    let (mut offset, mut limit) = (0i64, -1i64);
    while let Some(opt) = args.peek() {
        args.bytes()?;
        if store.is_none() && opt.eq_ignore_ascii_case(b"WITHSCORES") {
            withscores = true;
        } else if opt.eq_ignore_ascii_case(b"LIMIT") && args.len() >= 2 {
            offset = args.int()?;
            limit = args.int()?;
        } else if rev_opt.is_none() && opt.eq_ignore_ascii_case(b"REV") {
            rev_opt = Some(true);
        } else if by_opt.is_none() && opt.eq_ignore_ascii_case(b"BYLEX") {
            by_opt = Some(By::Lex);
        } else if by_opt.is_none() && opt.eq_ignore_ascii_case(b"BYSCORE") {
            by_opt = Some(By::Score);
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let (by, rev) = (by_opt.unwrap_or(By::Rank), rev_opt.unwrap_or(false));
    // As in Redis, `LIMIT offset -1` (the default count) passes with a rank range.
    if limit != -1 && by == By::Rank {
        return Err(CmdError::err("syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
    }
    if withscores && by == By::Lex {
        return Err(CmdError::err("syntax error, WITHSCORES not supported in combination with BYLEX"));
    }
    let (min, max) = if rev && by != By::Rank { (second, first) } else { (first, second) };
    enum Bounds {
        Rank(i64, i64),
        Score(ScoreBound, ScoreBound),
        Lex(LexBound, LexBound),
    }
    let bounds = match by {
        By::Rank => {
            Bounds::Rank(parse_i64(min).ok_or(CmdError::NotInteger)?, parse_i64(max).ok_or(CmdError::NotInteger)?)
        }
        By::Score => {
            let (min, max) = score_range(min, max)?;
            Bounds::Score(min, max)
        }
        By::Lex => {
            let (min, max) = lex_range(min, max)?;
            Bounds::Lex(min, max)
        }
    };
    let Some(z) = read(ctx, key)? else {
        return match store {
            Some(dst) => store_range(ctx, dst, Vec::new()),
            None => Ok(Reply::Array(Vec::new())),
        };
    };
    let (start, count) = match bounds {
        Bounds::Rank(start, stop) => match rank_window(start, stop, z.len()) {
            Some((start, count)) if rev => (z.len() - start - count, count),
            Some(window) => window,
            None => (0, 0),
        },
        Bounds::Score(min, max) => limit_window(z.score_ranks(min, max), offset, limit, rev),
        Bounds::Lex(min, max) => limit_window(z.lex_ranks(&min, &max), offset, limit, rev),
    };
    let Some(dst) = store else {
        return Ok(scored_reply(z.range(start, count, rev), withscores, resp3));
    };
    let items = z.range(start, count, rev).map(|(m, score)| (Box::<[u8]>::from(m), score)).collect();
    store_range(ctx, dst, items)
}

/// ZRANGESTORE's result: `items` (distinct members) stored at `dst`, or `dst` deleted when
/// there are none. Answers how many were stored.
fn store_range(ctx: &mut Ctx<'_>, dst: &[u8], items: Vec<(Box<[u8]>, f64)>) -> Result<Reply, CmdError> {
    let len = items.len();
    if len == 0 {
        if ctx.db.shard(dst).remove(dst).is_some() {
            ctx.notify(class::GENERIC, "del", dst);
        }
    } else {
        super::create(ctx, dst, ZSetValue::from_distinct(items));
        ctx.notify(class::ZSET, "zrangestore", dst);
    }
    Ok(Reply::Int(len as i64))
}

/// Redis's rank sanitizing: negative ranks count from the end, the window is clipped to the
/// set. `Some((start, count))`, or `None` when it is empty.
fn rank_window(start: i64, stop: i64, len: usize) -> Option<(usize, usize)> {
    let len = len as i64;
    let start = if start < 0 { (start + len).max(0) } else { start };
    let stop = if stop < 0 { stop + len } else { stop };
    if start > stop || start >= len {
        return None;
    }
    let stop = stop.min(len - 1);
    Some((start as usize, (stop - start + 1) as usize))
}

/// The part of the ranks `range` that LIMIT selects, as (first rank, count) for `range`'s
/// ascending order; with `rev` the offset counts from the top. A negative offset selects
/// nothing and a negative count everything after the offset, as in Redis.
fn limit_window(range: std::ops::Range<usize>, offset: i64, limit: i64, rev: bool) -> (usize, usize) {
    if offset < 0 {
        return (0, 0);
    }
    let skip = usize::try_from(offset).unwrap_or(usize::MAX).min(range.len());
    let rest = range.len() - skip;
    let count = if limit < 0 { rest } else { usize::try_from(limit).unwrap_or(usize::MAX).min(rest) };
    if rev {
        (range.end - skip - count, count)
    } else {
        (range.start + skip, count)
    }
}

/// Members, with their scores when asked: flat in RESP2, [member, score] pairs in RESP3.
pub(super) fn scored_reply<'a>(items: impl Iterator<Item = (&'a [u8], f64)>, withscores: bool, resp3: bool) -> Reply {
    let mut out = Vec::with_capacity(items.size_hint().0 * if withscores && !resp3 { 2 } else { 1 });
    for (member, score) in items {
        if !withscores {
            out.push(Reply::bulk(member));
        } else if resp3 {
            out.push(Reply::Array(vec![Reply::bulk(member), Reply::Double(score)]));
        } else {
            out.push(Reply::bulk(member));
            out.push(Reply::Double(score));
        }
    }
    Reply::Array(out)
}

// --- Range removals -------------------------------------------------------------------------------

/// Removes the members in a range of ranks (negative ranks count from the end); answers how
/// many.
///
/// ```text
/// ZREMRANGEBYRANK key start stop
/// ```
pub fn zremrangebyrank(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let start = args.int()?;
    let stop = args.int()?;
    remove_range(ctx, key, "zremrangebyrank", |z| rank_window(start, stop, z.len()).map_or(0..0, |(s, n)| s..s + n))
}

/// Removes the members with a score between min and max; answers how many.
///
/// ```text
/// ZREMRANGEBYSCORE key min max
/// ```
pub fn zremrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (min, max) = score_range(args.bytes()?, args.bytes()?)?;
    remove_range(ctx, key, "zremrangebyscore", |z| z.score_ranks(min, max))
}

/// Removes the members between two lex bounds; answers how many.
///
/// ```text
/// ZREMRANGEBYLEX key min max
/// ```
pub fn zremrangebylex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (min, max) = lex_range(args.bytes()?, args.bytes()?)?;
    remove_range(ctx, key, "zremrangebylex", |z| z.lex_ranks(&min, &max))
}

fn remove_range(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    event: &'static str,
    ranks: impl FnOnce(&ZSetValue) -> std::ops::Range<usize>,
) -> Result<Reply, CmdError> {
    let removed = write(ctx, key, |z| {
        let range = ranks(z);
        z.remove_ranks(range)
    })?;
    if removed.is_some_and(|n| n > 0) {
        ctx.notify_removal(class::ZSET, event, key);
    }
    Ok(Reply::Int(removed.unwrap_or(0) as i64))
}
