//! Sorted set commands: ZADD (NX/XX/GT/LT/CH/INCR) and ZINCRBY, ZREM, scores and ranks,
//! the ZRANGE family (by rank, score or lex, REV, LIMIT, WITHSCORES), counts, pops, range
//! removals, ZUNIONSTORE/ZINTERSTORE and ZSCAN, with Redis 7.0's replies and errors.
//!
//! Numbers are read as Redis reads them: scores and weights with `strtod` and nothing left
//! over (no leading space, no NaN, no overflow), range bounds with `strtod` as a C string
//! (leading spaces, an empty string as 0, overflow to infinity). Scores are answered as
//! `Reply::Double`: `%.17g` in a RESP2 bulk string, a RESP3 double.

use foldhash::fast::RandomState;
use indexmap::IndexMap;

use crate::args::{parse_i64, Args};
use crate::engine::Ctx;
use crate::error::{c_str, CmdError};
use crate::reply::{format_double, format_g17, Reply};
use crate::store::entry::{Entry, ValueRef};
use crate::store::zset::{Insert, LexBound, ScoreBound, ZSetValue};

use super::collection::{scan_cursor, scan_reply, ScanOf, ScanOptions};

const NAN_RESULT: &str = "resulting score is not a number (NaN)";
const NOT_FLOAT_RANGE: &str = "min or max is not a float";
const NOT_LEX_RANGE: &str = "min or max not valid string range item";

// --- ZADD and ZINCRBY ------------------------------------------------------------------------

/// ZADD's options.
#[derive(Debug, Default, Clone, Copy)]
struct AddFlags {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
    ch: bool,
    incr: bool,
}

/// What a ZADD did, for its reply.
#[derive(Default)]
struct Tally {
    added: i64,
    updated: i64,
    /// Elements that were added or took a new (or equal) score: not skipped by NX/XX/GT/LT.
    processed: i64,
    /// The score of the last processed element (the reply of INCR).
    score: f64,
}

/// Adds members with scores, or updates the scores of existing ones. NX only adds, XX only
/// updates, GT/LT only update to a greater/lesser score, CH counts updated members too, INCR
/// adds the score to the member's (as ZINCRBY) and answers the new score (nil if skipped).
///
/// ```text
/// ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]
/// ```
pub fn zadd(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    add_generic(ctx, args, AddFlags::default())
}

/// Adds an increment to a member's score (a missing member or key starts at 0); answers the
/// new score.
///
/// ```text
/// ZINCRBY key increment member
/// ```
pub fn zincrby(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    // Redis runs ZINCRBY through ZADD's parser with INCR set, options and all: so does this,
    // which keeps its errors for odd input (`ZINCRBY k nx m` is a syntax error there too).
    add_generic(ctx, args, AddFlags { incr: true, ..AddFlags::default() })
}

fn add_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, mut f: AddFlags) -> Result<Reply, CmdError> {
    let key = args.key()?;
    while let Some(opt) = args.peek() {
        let flag = if opt.eq_ignore_ascii_case(b"NX") {
            &mut f.nx
        } else if opt.eq_ignore_ascii_case(b"XX") {
            &mut f.xx
        } else if opt.eq_ignore_ascii_case(b"GT") {
            &mut f.gt
        } else if opt.eq_ignore_ascii_case(b"LT") {
            &mut f.lt
        } else if opt.eq_ignore_ascii_case(b"CH") {
            &mut f.ch
        } else if opt.eq_ignore_ascii_case(b"INCR") {
            &mut f.incr
        } else {
            break;
        };
        *flag = true;
        args.bytes()?;
    }
    let pairs = args.rest();
    if pairs.is_empty() || pairs.len() % 2 == 1 {
        return Err(CmdError::Syntax);
    }
    if f.nx && f.xx {
        return Err(CmdError::err("XX and NX options at the same time are not compatible"));
    }
    if (f.nx && (f.gt || f.lt)) || (f.gt && f.lt) {
        return Err(CmdError::err("GT, LT, and/or NX options at the same time are not compatible"));
    }
    if f.incr && pairs.len() > 2 {
        return Err(CmdError::err("INCR option supports a single increment-element pair"));
    }
    // Every score is checked before anything is written: the command does all or nothing.
    let elements = pairs
        .chunks_exact(2)
        .map(|p| parse_score(p[0]).map(|s| (s, p[1])).ok_or(CmdError::NotFloat))
        .collect::<Result<Vec<(f64, &[u8])>, CmdError>>()?;
    let mut tally = Tally::default();
    let apply = |z: &mut ZSetValue, tally: &mut Tally| -> Result<(), CmdError> {
        for &(score, member) in &elements {
            add_one(z, f, score, member, tally)?;
        }
        Ok(())
    };
    match write(ctx, key, |z| apply(z, &mut tally))? {
        Some(result) => result?,
        // No key and XX: nothing to add to, and no key is created.
        None if f.xx => {}
        None => {
            let mut z = ZSetValue::new();
            apply(&mut z, &mut tally)?;
            create(ctx, key, z);
        }
    }
    Ok(if f.incr {
        if tally.processed > 0 {
            Reply::Double(tally.score)
        } else {
            Reply::Nil
        }
    } else {
        Reply::Int(if f.ch { tally.added + tally.updated } else { tally.added })
    })
}

/// One score-member pair of ZADD, as Redis's `zsetAdd`.
fn add_one(z: &mut ZSetValue, f: AddFlags, score: f64, member: &[u8], tally: &mut Tally) -> Result<(), CmdError> {
    let score = match z.score(member) {
        Some(current) => {
            if f.nx {
                return Ok(());
            }
            let score = if f.incr { score + current } else { score };
            if score.is_nan() {
                return Err(CmdError::err(NAN_RESULT));
            }
            if (f.lt && score >= current) || (f.gt && score <= current) {
                return Ok(());
            }
            if z.insert(member, score) == Insert::Updated {
                tally.updated += 1;
            }
            score
        }
        None if f.xx => return Ok(()),
        None => {
            z.insert(member, score);
            tally.added += 1;
            score
        }
    };
    tally.processed += 1;
    tally.score = score;
    Ok(())
}

// --- Members, scores, ranks ------------------------------------------------------------------

/// Removes members; answers how many were there. The key goes when its last member does.
///
/// ```text
/// ZREM key member [member ...]
/// ```
pub fn zrem(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let removed = write(ctx, key, |z| members.iter().filter(|m| z.remove(m)).count())?;
    Ok(Reply::Int(removed.unwrap_or(0) as i64))
}

/// A member's score, or nil.
///
/// ```text
/// ZSCORE key member
/// ```
pub fn zscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let member = args.bytes()?;
    let score = read(ctx, key)?.and_then(|z| z.score(member));
    Ok(score.map_or(Reply::Nil, Reply::Double))
}

/// The scores of several members, nil for each one missing.
///
/// ```text
/// ZMSCORE key member [member ...]
/// ```
pub fn zmscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let z = read(ctx, key)?;
    let scores = members.iter().map(|m| z.and_then(|z| z.score(m)).map_or(Reply::Nil, Reply::Double)).collect();
    Ok(Reply::Array(scores))
}

/// The number of members (0 for a missing key).
///
/// ```text
/// ZCARD key
/// ```
pub fn zcard(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    Ok(Reply::Int(read(ctx, key)?.map_or(0, |z| z.len()) as i64))
}

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

/// A member's 0-based rank by ascending score, or nil.
///
/// ```text
/// ZRANK key member
/// ```
pub fn zrank(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    rank_generic(ctx, args, false)
}

/// A member's 0-based rank by descending score, or nil.
///
/// ```text
/// ZREVRANK key member
/// ```
pub fn zrevrank(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    rank_generic(ctx, args, true)
}

fn rank_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, rev: bool) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let member = args.bytes()?;
    let rank = read(ctx, key)?.and_then(|z| z.rank(member).map(|r| if rev { z.len() - 1 - r } else { r }));
    Ok(rank.map_or(Reply::Nil, |r| Reply::Int(r as i64)))
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
    range_generic(ctx, args, None, None)
}

/// Members in a range of ranks, by descending score.
///
/// ```text
/// ZREVRANGE key start stop [WITHSCORES]
/// ```
pub fn zrevrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Rank), Some(true))
}

/// Members with a score between min and max, ascending.
///
/// ```text
/// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
/// ```
pub fn zrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Score), Some(false))
}

/// Members with a score between max and min, descending.
///
/// ```text
/// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
/// ```
pub fn zrevrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Score), Some(true))
}

/// Members between two lex bounds, ascending (for a set whose scores are all equal).
///
/// ```text
/// ZRANGEBYLEX key min max [LIMIT offset count]
/// ```
pub fn zrangebylex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Lex), Some(false))
}

/// Members between two lex bounds, descending.
///
/// ```text
/// ZREVRANGEBYLEX key max min [LIMIT offset count]
/// ```
pub fn zrevrangebylex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range_generic(ctx, args, Some(By::Lex), Some(true))
}

/// Redis's `zrangeGenericCommand`: options, then their conflicts, then the bounds, then the
/// key, each with its own error in that order. `by` and `rev` are fixed by the legacy
/// commands; ZRANGE leaves them to its options.
fn range_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, by: Option<By>, rev: Option<bool>) -> Result<Reply, CmdError> {
    let resp3 = ctx.session.resp3;
    let key = args.key()?;
    let (first, second) = (args.bytes()?, args.bytes()?);
    let (mut by_opt, mut rev_opt) = (by, rev);
    let mut withscores = false;
    let (mut offset, mut limit) = (0i64, -1i64);
    while let Some(opt) = args.peek() {
        args.bytes()?;
        if opt.eq_ignore_ascii_case(b"WITHSCORES") {
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
        return Ok(Reply::Array(Vec::new()));
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
    Ok(scored_reply(z.range(start, count, rev), withscores, resp3))
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
fn scored_reply<'a>(items: impl Iterator<Item = (&'a [u8], f64)>, withscores: bool, resp3: bool) -> Reply {
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

// --- Pops and range removals -----------------------------------------------------------------

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
    // One element without a count is a flat [member, score] in RESP3 too, as in Redis 7.0.
    let items = popped.iter().map(|(m, s)| (&**m, *s));
    Ok(scored_reply(items, true, resp3 && count.is_some()))
}

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
    remove_range(ctx, key, |z| rank_window(start, stop, z.len()).map_or(0..0, |(s, n)| s..s + n))
}

/// Removes the members with a score between min and max; answers how many.
///
/// ```text
/// ZREMRANGEBYSCORE key min max
/// ```
pub fn zremrangebyscore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (min, max) = score_range(args.bytes()?, args.bytes()?)?;
    remove_range(ctx, key, |z| z.score_ranks(min, max))
}

/// Removes the members between two lex bounds; answers how many.
///
/// ```text
/// ZREMRANGEBYLEX key min max
/// ```
pub fn zremrangebylex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (min, max) = lex_range(args.bytes()?, args.bytes()?)?;
    remove_range(ctx, key, |z| z.lex_ranks(&min, &max))
}

fn remove_range(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    ranks: impl FnOnce(&ZSetValue) -> std::ops::Range<usize>,
) -> Result<Reply, CmdError> {
    let removed = write(ctx, key, |z| {
        let range = ranks(z);
        z.remove_ranks(range)
    })?;
    Ok(Reply::Int(removed.unwrap_or(0) as i64))
}

// --- ZUNIONSTORE and ZINTERSTORE -------------------------------------------------------------

/// How the scores of one member in several sources combine.
#[derive(Debug, Clone, Copy)]
enum Aggregate {
    Sum,
    Min,
    Max,
}

impl Aggregate {
    /// Redis's `zunionInterAggregate`: a sum of +inf and -inf is 0, not NaN.
    fn apply(self, target: &mut f64, value: f64) {
        match self {
            Aggregate::Sum => {
                *target += value;
                if target.is_nan() {
                    *target = 0.0;
                }
            }
            Aggregate::Min => {
                if value < *target {
                    *target = value;
                }
            }
            Aggregate::Max => {
                if value > *target {
                    *target = value;
                }
            }
        }
    }
}

/// Stores at destination the union of sorted sets (and sets, whose members score 1), each
/// source's scores multiplied by its weight and combined by SUM (default), MIN or MAX.
/// Answers the size of the result; an empty result deletes the destination.
///
/// ```text
/// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]]
///     [AGGREGATE SUM | MIN | MAX]
/// ```
pub fn zunionstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    store_generic(ctx, args, false)
}

/// Stores at destination the intersection of sorted sets (and sets), scores weighted and
/// combined as in ZUNIONSTORE. Answers the size of the result.
///
/// ```text
/// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]]
///     [AGGREGATE SUM | MIN | MAX]
/// ```
pub fn zinterstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    store_generic(ctx, args, true)
}

/// Redis's `zunionInterDiffGenericCommand` for the STORE forms: numkeys, the sources' types,
/// then the options, each with its own error in that order. Sources are combined smallest
/// first (a stable sort by size, as Redis's `qsort` with glibc), which fixes the order in which
/// floating-point sums are taken, so results agree with Redis to the last bit.
fn store_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, inter: bool) -> Result<Reply, CmdError> {
    let name = if inter { "zinterstore" } else { "zunionstore" };
    let now = ctx.now;
    let dest = args.key()?;
    let numkeys = args.int()?;
    if numkeys < 1 {
        return Err(CmdError::err(format!("at least 1 input key is needed for '{name}' command")));
    }
    if numkeys as u64 > args.len() as u64 {
        return Err(CmdError::Syntax);
    }
    let keys = (0..numkeys).map(|_| args.key()).collect::<Result<Vec<_>, _>>()?;
    let mut sizes = Vec::with_capacity(keys.len());
    for key in &keys {
        sizes.push(match ctx.db.lookup(key, now) {
            None => 0,
            Some(entry) => match entry.value {
                ValueRef::ZSet(z) => z.len(),
                ValueRef::Set(s) => s.len(),
                _ => return Err(CmdError::WrongType),
            },
        });
    }
    let mut weights = vec![1.0; keys.len()];
    let mut aggregate = Aggregate::Sum;
    while !args.is_empty() {
        let remaining = args.len();
        let opt = args.bytes()?;
        if remaining > keys.len() && opt.eq_ignore_ascii_case(b"WEIGHTS") {
            for w in weights.iter_mut() {
                *w = parse_score(args.bytes()?).ok_or_else(|| CmdError::err("weight value is not a float"))?;
            }
        } else if remaining >= 2 && opt.eq_ignore_ascii_case(b"AGGREGATE") {
            aggregate = match args.bytes()?.to_ascii_uppercase().as_slice() {
                b"SUM" => Aggregate::Sum,
                b"MIN" => Aggregate::Min,
                b"MAX" => Aggregate::Max,
                _ => return Err(CmdError::Syntax),
            };
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let result = if inter {
        intersection(ctx, &keys, &order, &weights, aggregate)
    } else {
        union(ctx, &keys, &order, &weights, aggregate)
    };
    let shard = ctx.db.shard(dest);
    if result.is_empty() {
        shard.remove(dest);
        return Ok(Reply::Int(0));
    }
    let len = result.len();
    create(ctx, dest, ZSetValue::from_distinct(result));
    Ok(Reply::Int(len as i64))
}

/// Every element of a source (a sorted set, or a set whose members score 1) in `visit`.
fn for_each_element(entry: Option<Entry<'_>>, mut visit: impl FnMut(&[u8], f64)) {
    match entry.map(|e| e.value) {
        Some(ValueRef::ZSet(z)) => (0..z.len()).filter_map(|i| z.get_index(i)).for_each(|(m, s)| visit(m, s)),
        Some(ValueRef::Set(s)) => s.iter().for_each(|m| visit(m, 1.0)),
        _ => {}
    }
}

fn union(
    ctx: &mut Ctx<'_>,
    keys: &[&[u8]],
    order: &[usize],
    weights: &[f64],
    aggregate: Aggregate,
) -> Vec<(Box<[u8]>, f64)> {
    let now = ctx.now;
    let mut acc: IndexMap<Box<[u8]>, f64, RandomState> = IndexMap::default();
    for &i in order {
        let weight = weights[i];
        for_each_element(ctx.db.peek(keys[i], now), |member, score| {
            // Redis zeroes a NaN product (inf × 0) before combining it, in a union.
            let mut value = weight * score;
            if value.is_nan() {
                value = 0.0;
            }
            match acc.get_mut(member) {
                Some(target) => aggregate.apply(target, value),
                None => {
                    acc.insert(member.into(), value);
                }
            }
        });
    }
    acc.into_iter().collect()
}

fn intersection(
    ctx: &mut Ctx<'_>,
    keys: &[&[u8]],
    order: &[usize],
    weights: &[f64],
    aggregate: Aggregate,
) -> Vec<(Box<[u8]>, f64)> {
    let now = ctx.now;
    // The smallest source's elements are the candidates; each other source, in order of
    // size, keeps those it holds and adds its score to theirs.
    let mut found = Vec::new();
    let first = order[0];
    for_each_element(ctx.db.peek(keys[first], now), |member, score| {
        let mut value = weights[first] * score;
        if value.is_nan() {
            value = 0.0;
        }
        found.push((Box::<[u8]>::from(member), value));
    });
    for &i in &order[1..] {
        if found.is_empty() {
            break;
        }
        let weight = weights[i];
        let entry = ctx.db.peek(keys[i], now);
        found.retain_mut(|(member, score)| {
            let other = match entry.map(|e| e.value) {
                Some(ValueRef::ZSet(z)) => z.score(member),
                Some(ValueRef::Set(s)) => s.contains(member).then_some(1.0),
                _ => None,
            };
            match other {
                // Unlike the union, a NaN product here goes to the aggregate as it is.
                Some(other) => {
                    aggregate.apply(score, other * weight);
                    true
                }
                None => false,
            }
        });
    }
    found
}

// --- ZSCAN -----------------------------------------------------------------------------------

/// One step of an iteration over a sorted set's members and scores. A small set (listpack)
/// is answered whole, in order, with cursor 0; a big one about COUNT members at a time.
///
/// ```text
/// ZSCAN key cursor [MATCH pattern] [COUNT count]
/// ```
pub fn zscan(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let cursor = scan_cursor(args.bytes()?)?;
    // As Redis: a missing key answers before the options are looked at.
    let Some(z) = read(ctx, key)? else {
        return Ok(scan_reply(0, Vec::new()));
    };
    let opts = ScanOptions::parse(args, ScanOf::SortedSet)?;
    let mut found = Vec::new();
    let mut visit = |member: &[u8], score: String| {
        if opts.matches(member) {
            found.push(Reply::bulk(member));
            found.push(Reply::Bulk(score.into_bytes()));
        }
    };
    let next = if z.is_big() {
        // Redis formats a skiplist's scores with `%.17Lg`, which for a double is `%.17g`.
        z.scan(cursor, opts.count, |m, s| visit(m, format_double(s)))
    } else {
        // A listpack holds scores as text, and ZSCAN answers that text.
        z.iter().for_each(|(m, s)| visit(m, listpack_score_text(s)));
        0
    };
    Ok(scan_reply(next, found))
}

/// A score as Redis 7.0's `d2string` writes it into a listpack: an integral value within
/// ±2^62 as an integer (so -0 is `0`), anything else as `%.17g`.
fn listpack_score_text(score: f64) -> String {
    const LIMIT: f64 = 4_611_686_018_427_387_904.0; // (double)(LLONG_MAX / 2)
    if score.is_finite() && score == score.trunc() && (-LIMIT..=LIMIT).contains(&score) {
        (score as i64).to_string()
    } else if score.is_finite() {
        format_g17(score)
    } else {
        format_double(score)
    }
}

// --- Access and creation ---------------------------------------------------------------------

/// The sorted set at `key` for a read command (counts a keyspace hit or miss).
fn read<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a ZSetValue>, CmdError> {
    super::collection::read(ctx, key)
}

/// Runs `f` on the sorted set at `key` for a write: `Shard::update` re-measures the entry
/// afterwards and deletes it when `f` leaves it empty. `None` when there is no such key.
fn write<R>(ctx: &mut Ctx<'_>, key: &[u8], f: impl FnOnce(&mut ZSetValue) -> R) -> Result<Option<R>, CmdError> {
    super::collection::modify(&mut ctx.db, key, ctx.now, f)
}

/// Stores a new sorted set at `key` (replacing whatever was there), with the configured
/// default TTL if any.
fn create(ctx: &mut Ctx<'_>, key: &[u8], z: ZSetValue) {
    super::collection::create(ctx.engine, &mut ctx.db, key, z, ctx.now);
}

// --- Parsing numbers and bounds as Redis does --------------------------------------------------

/// A score, increment or weight as Redis's `string2d`: the whole argument is one `strtod`
/// number, with no leading space, no NaN, and no overflow (or underflow to zero).
fn parse_score(s: &[u8]) -> Option<f64> {
    if s.first().is_none_or(|&c| is_c_space(c)) {
        return None;
    }
    let n = strtod(s);
    (n.used == s.len() && !n.value.is_nan() && !n.out_of_range).then_some(n.value)
}

/// A score bound as Redis's `zslParseRange` reads it: the argument as a C string (up to a
/// NUL), an optional `(` for an exclusive bound, then `strtod` with nothing left over; NaN
/// refused, but leading spaces, the empty string (0) and overflow (±inf) accepted.
fn score_bound(arg: &[u8]) -> Option<ScoreBound> {
    let s = c_str(arg, usize::MAX);
    let (s, exclusive) = match s.first() {
        Some(b'(') => (&s[1..], true),
        _ => (s, false),
    };
    let n = strtod(s);
    (n.used == s.len() && !n.value.is_nan()).then_some(ScoreBound { value: n.value, exclusive })
}

fn score_range(min: &[u8], max: &[u8]) -> Result<(ScoreBound, ScoreBound), CmdError> {
    match (score_bound(min), score_bound(max)) {
        (Some(min), Some(max)) => Ok((min, max)),
        _ => Err(CmdError::err(NOT_FLOAT_RANGE)),
    }
}

/// A lex bound as Redis's `zslParseLexRangeItem`: `-` or `+` alone (read as C strings),
/// `[member` or `(member` (binary-safe).
fn lex_bound(arg: &[u8]) -> Option<LexBound> {
    let alone = arg.get(1).is_none_or(|&c| c == 0);
    match arg.first() {
        Some(b'-') if alone => Some(LexBound::Min),
        Some(b'+') if alone => Some(LexBound::Max),
        Some(b'[') => Some(LexBound::Inclusive(arg[1..].to_vec())),
        Some(b'(') => Some(LexBound::Exclusive(arg[1..].to_vec())),
        _ => None,
    }
}

fn lex_range(min: &[u8], max: &[u8]) -> Result<(LexBound, LexBound), CmdError> {
    match (lex_bound(min), lex_bound(max)) {
        (Some(min), Some(max)) => Ok((min, max)),
        _ => Err(CmdError::err(NOT_LEX_RANGE)),
    }
}

/// C's `isspace` in the C locale.
fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// What C's `strtod` makes of the start of a string.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Strtod {
    value: f64,
    /// Bytes that make up the number (0 when there is none: `strtod` then sets `endptr` to
    /// the start, before any spaces).
    used: usize,
    /// `errno == ERANGE` with a result of ±HUGE_VAL or zero: overflow, or underflow to zero.
    out_of_range: bool,
}

/// C's `strtod` (glibc, C locale): leading spaces, a sign, then `inf`/`infinity`, `nan`, a
/// hexadecimal float (`0x1.8p3`) or a decimal one (`1.5e-3`), correctly rounded.
fn strtod(s: &[u8]) -> Strtod {
    let none = Strtod { value: 0.0, used: 0, out_of_range: false };
    let mut i = s.iter().take_while(|&&c| is_c_space(c)).count();
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let sign = if neg { -1.0 } else { 1.0 };
    let rest = &s[i..];
    let starts = |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    if starts(b"infinity") {
        return Strtod { value: sign * f64::INFINITY, used: i + 8, out_of_range: false };
    }
    if starts(b"inf") {
        return Strtod { value: sign * f64::INFINITY, used: i + 3, out_of_range: false };
    }
    if starts(b"nan") {
        // Any NaN is refused by every caller, so `nan(...)`'s payload needs no reading.
        return Strtod { value: f64::NAN, used: i + 3, out_of_range: false };
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        return match hex_float(&rest[2..]) {
            Some((magnitude, used, out_of_range)) => {
                Strtod { value: sign * magnitude, used: i + 2 + used, out_of_range }
            }
            // `0x` without hex digits is the number 0 followed by an `x`.
            None => Strtod { value: sign * 0.0, used: i + 1, out_of_range: false },
        };
    }
    let digits = |from: usize| rest[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_digits = digits(0);
    let mut end = int_digits;
    let mut frac_digits = 0;
    if rest.get(end) == Some(&b'.') {
        frac_digits = digits(end + 1);
        if int_digits + frac_digits > 0 {
            end += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return none;
    }
    let mantissa_end = end;
    if matches!(rest.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        if matches!(rest.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_digits = digits(j);
        if exp_digits > 0 {
            end = j + exp_digits;
        }
    }
    // The text is ASCII digits, a point and an exponent: Rust's parser reads exactly that
    // grammar, correctly rounded, as glibc does.
    let magnitude: f64 = std::str::from_utf8(&rest[..end]).ok().and_then(|t| t.parse().ok()).unwrap_or(0.0);
    let nonzero = rest[..mantissa_end].iter().any(|c| (b'1'..=b'9').contains(c));
    let out_of_range = magnitude.is_infinite() || (magnitude == 0.0 && nonzero);
    Strtod { value: sign * magnitude, used: i + end, out_of_range }
}

/// The hexadecimal float after `0x`: (magnitude, bytes used, out of range), or `None` when
/// no hex digit follows. Rounded to nearest, ties to even, with subnormals, as glibc does.
fn hex_float(s: &[u8]) -> Option<(f64, usize, bool)> {
    let hex = |c: u8| (c as char).to_digit(16).map(u64::from);
    let (mut mant, mut exp, mut sticky, mut any) = (0u64, 0i64, false, false);
    let mut i = 0;
    while let Some(d) = s.get(i).copied().and_then(hex) {
        any = true;
        if mant >> 60 == 0 {
            mant = mant * 16 + d;
        } else {
            exp += 4;
            sticky |= d != 0;
        }
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while let Some(d) = s.get(j).copied().and_then(hex) {
            any = true;
            if mant >> 60 == 0 {
                mant = mant * 16 + d;
                exp -= 4;
            } else {
                sticky |= d != 0;
            }
            j += 1;
        }
        if any {
            i = j;
        }
    }
    if !any {
        return None;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let neg = match s.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let n = s[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n > 0 {
            let e = s[j..j + n].iter().fold(0i64, |acc, &c| (acc * 10 + i64::from(c - b'0')).min(1 << 20));
            exp += if neg { -e } else { e };
            i = j + n;
        }
    }
    if mant == 0 {
        return Some((0.0, i, false));
    }
    // Round mant × 2^exp (plus the sticky bits below it) to 53 bits, or fewer when subnormal.
    let bits = 64 - i64::from(mant.leading_zeros());
    let top = exp + bits - 1;
    if top > 1023 {
        return Some((f64::INFINITY, i, true));
    }
    let lsb = (top - 52).max(-1074);
    let shift = lsb - exp;
    let (m, e) = if shift > 0 {
        let wide = u128::from(mant);
        let (kept, rest, half) = if shift >= 128 {
            (0, wide, u128::MAX)
        } else {
            (wide >> shift, wide & ((1u128 << shift) - 1), 1u128 << (shift - 1))
        };
        let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        ((kept + u128::from(up)) as u64, lsb)
    } else {
        (mant, exp)
    };
    if m == 0 {
        return Some((0.0, i, true));
    }
    if e + 64 - i64::from(m.leading_zeros()) - 1 > 1023 {
        return Some((f64::INFINITY, i, true));
    }
    let pow2 = if e >= -1022 { f64::from_bits(((e + 1023) as u64) << 52) } else { f64::from_bits(1u64 << (e + 1074)) };
    Some((m as f64 * pow2, i, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{arr, bulk, err, int, nil, TestEngine, NOT_FLOAT, NOT_INT, SYNTAX, WRONGTYPE};

    fn dbl(d: f64) -> Reply {
        Reply::Double(d)
    }

    /// A RESP2 reply as a flat list of strings, the way redis-cli prints it.
    fn strings(reply: Reply) -> Vec<String> {
        match reply {
            Reply::Array(items) => items.into_iter().flat_map(strings).collect(),
            Reply::Bulk(b) => vec![String::from_utf8_lossy(&b).into_owned()],
            Reply::Double(d) => vec![format_double(d)],
            Reply::Int(n) => vec![n.to_string()],
            Reply::Nil => vec!["(nil)".into()],
            other => panic!("unexpected reply {other:?}"),
        }
    }

    fn run(t: &mut TestEngine, argv: &[&str]) -> Vec<String> {
        strings(t.run(argv))
    }

    fn with(pairs: &[(&str, &str)]) -> TestEngine {
        let mut t = TestEngine::default();
        let mut argv = vec!["ZADD", "z"];
        for (score, member) in pairs {
            argv.push(score);
            argv.push(member);
        }
        assert_eq!(t.run(&argv), int(pairs.len() as i64));
        t
    }

    fn abcde() -> TestEngine {
        with(&[("1", "a"), ("2", "b"), ("3", "c"), ("4", "d"), ("5", "e")])
    }

    // ZADD and ZINCRBY

    #[test]
    fn zadd_adds_updates_and_counts() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["ZADD", "z", "1", "a", "2", "b"]), int(2));
        assert_eq!(t.run(&["ZADD", "z", "3", "a", "2", "b", "0", "c"]), int(1));
        assert_eq!(t.run(&["ZADD", "z", "CH", "4", "a", "2", "b", "0", "d"]), int(2));
        assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1", "WITHSCORES"]), ["c", "0", "d", "0", "b", "2", "a", "4"]);
        // A member given twice takes its last score.
        assert_eq!(t.run(&["ZADD", "y", "1", "m", "2", "m"]), int(1));
        assert_eq!(t.run(&["ZSCORE", "y", "m"]), dbl(2.0));
        assert_eq!(t.run(&["TYPE", "z"]), Reply::status("zset"));
    }

    #[test]
    fn zadd_nx_xx_gt_lt() {
        let mut t = with(&[("1", "a"), ("2", "b")]);
        assert_eq!(t.run(&["ZADD", "z", "NX", "5", "a", "3", "c"]), int(1));
        assert_eq!(t.run(&["ZSCORE", "z", "a"]), dbl(1.0));
        assert_eq!(t.run(&["ZADD", "z", "XX", "5", "a", "3", "d"]), int(0));
        assert_eq!(t.run(&["ZSCORE", "z", "a"]), dbl(5.0));
        assert_eq!(t.run(&["ZSCORE", "z", "d"]), nil());
        assert_eq!(t.run(&["ZADD", "z", "GT", "CH", "1", "a", "9", "b", "1", "new"]), int(2));
        assert_eq!(t.run(&["ZMSCORE", "z", "a", "b", "new"]), arr(vec![dbl(5.0), dbl(9.0), dbl(1.0)]));
        assert_eq!(t.run(&["ZADD", "z", "LT", "CH", "1", "a", "10", "b"]), int(1));
        assert_eq!(t.run(&["ZADD", "z", "XX", "GT", "CH", "2", "a", "2", "nope"]), int(1));
        assert_eq!(t.run(&["ZADD", "z", "xx", "lt", "ch", "2", "a"]), int(0));
        // XX on a missing key creates nothing.
        assert_eq!(t.run(&["ZADD", "missing", "XX", "1", "a"]), int(0));
        assert_eq!(t.run(&["EXISTS", "missing"]), int(0));
    }

    #[test]
    fn zadd_incr_and_zincrby() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["ZINCRBY", "z", "2.5", "a"]), dbl(2.5));
        assert_eq!(t.run(&["ZINCRBY", "z", "-1", "a"]), dbl(1.5));
        assert_eq!(t.run(&["ZADD", "z", "INCR", "1", "a"]), dbl(2.5));
        assert_eq!(t.run(&["ZADD", "z", "NX", "INCR", "1", "a"]), nil());
        assert_eq!(t.run(&["ZADD", "z", "XX", "INCR", "1", "b"]), nil());
        assert_eq!(t.run(&["ZADD", "z", "GT", "INCR", "-1", "a"]), nil());
        assert_eq!(t.run(&["ZADD", "z", "GT", "INCR", "1", "a"]), dbl(3.5));
        assert_eq!(t.run(&["ZADD", "z", "INCR", "inf", "a"]), dbl(f64::INFINITY));
        assert_eq!(t.run(&["ZADD", "z", "INCR", "-inf", "a"]), err("ERR resulting score is not a number (NaN)"));
        assert_eq!(t.run(&["ZINCRBY", "z", "-inf", "a"]), err("ERR resulting score is not a number (NaN)"));
        assert_eq!(t.run(&["ZSCORE", "z", "a"]), dbl(f64::INFINITY));
        assert_eq!(t.run(&["ZINCRBY", "z", "abc", "a"]), err(NOT_FLOAT));
        assert_eq!(t.run(&["ZINCRBY", "missing", "x", "a"]), err(NOT_FLOAT));
        // ZINCRBY goes through ZADD's parser, as in Redis: an option word there is an option.
        assert_eq!(t.run(&["ZINCRBY", "z", "nx", "a"]), err(SYNTAX));
        assert_eq!(t.run(&["ZINCRBY", "z", "1"]), err("ERR wrong number of arguments for 'zincrby' command"));
    }

    #[test]
    fn zadd_errors_in_redis_order() {
        let mut t = TestEngine::default();
        t.run(&["SET", "s", "v"]);
        assert_eq!(
            t.run(&["ZADD", "z", "NX", "XX", "1", "a"]),
            err("ERR XX and NX options at the same time are not compatible")
        );
        let gtlt = "ERR GT, LT, and/or NX options at the same time are not compatible";
        assert_eq!(t.run(&["ZADD", "z", "GT", "LT", "1", "a"]), err(gtlt));
        assert_eq!(t.run(&["ZADD", "z", "NX", "GT", "1", "a"]), err(gtlt));
        assert_eq!(t.run(&["ZADD", "z", "LT", "NX", "1", "a"]), err(gtlt));
        assert_eq!(
            t.run(&["ZADD", "z", "INCR", "1", "a", "2", "b"]),
            err("ERR INCR option supports a single increment-element pair")
        );
        assert_eq!(t.run(&["ZADD", "z", "1", "a", "2"]), err(SYNTAX));
        assert_eq!(t.run(&["ZADD", "z", "NX", "XX"]), err(SYNTAX));
        assert_eq!(t.run(&["ZADD", "z", "NX"]), err("ERR wrong number of arguments for 'zadd' command"));
        // Syntax before conflicts, conflicts before scores, scores before the key's type.
        assert_eq!(t.run(&["ZADD", "z", "NX", "XX", "1"]), err(SYNTAX));
        assert_eq!(
            t.run(&["ZADD", "s", "NX", "XX", "abc", "a"]),
            err("ERR XX and NX options at the same time are not compatible")
        );
        assert_eq!(t.run(&["ZADD", "s", "abc", "a"]), err(NOT_FLOAT));
        assert_eq!(t.run(&["ZADD", "s", "1", "a"]), err(WRONGTYPE));
        assert_eq!(t.run(&["ZINCRBY", "s", "1", "a"]), err(WRONGTYPE));
        // All or nothing: a bad score anywhere writes nothing.
        assert_eq!(t.run(&["ZADD", "z", "1", "a", "x", "b"]), err(NOT_FLOAT));
        assert_eq!(t.run(&["EXISTS", "z"]), int(0));
    }

    #[test]
    fn scores_parse_as_strtod_without_leftovers() {
        let mut t = TestEngine::default();
        for (text, want) in [
            ("1.5", 1.5),
            ("-2", -2.0),
            ("+3", 3.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("1e3", 1000.0),
            ("1E-2", 0.01),
            ("0x10", 16.0),
            ("0X1.8p1", 3.0),
            ("0x.8", 0.5),
            ("inf", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("+inf", f64::INFINITY),
            ("1e-310", 1e-310),
        ] {
            assert_eq!(t.run(&["ZADD", "z", text, "m"]), int(1), "{text}");
            assert_eq!(t.run(&["ZSCORE", "z", "m"]), dbl(want), "{text}");
            t.run(&["DEL", "z"]);
        }
        for bad in [
            "", " 1", "1 ", "abc", "nan", "-nan", "1e", "1e+", "0x", "1.5.5", "1e5000", "-1e5000", "1e-400", "1,5",
            "--1", "1\0",
        ] {
            assert_eq!(t.run(&["ZADD", "z", bad, "m"]), err(NOT_FLOAT), "{bad:?}");
        }
    }

    #[test]
    fn hex_floats_round_like_glibc() {
        let h = |s: &str| strtod(s.as_bytes());
        assert_eq!(h("0x1p-1074").value, 5e-324);
        assert_eq!(h("0x1p-1075").value, 0.0);
        assert!(h("0x1p-1075").out_of_range);
        assert_eq!(h("0x1.8p-1074").value, 1e-323); // a tie rounds to even: 2 × 2^-1074
        assert_eq!(h("0x1.fffffffffffff8p0").value, 2.0);
        assert_eq!(h("0x1.fffffffffffff7p0").value, f64::from_bits(0x3fff_ffff_ffff_ffff));
        assert_eq!(h("0x1p1023").value, 8.98846567431158e307);
        assert!(h("0x1p1024").out_of_range);
        assert_eq!(h("0x123456789abcdef123p0").value, 0x123456789abcdef123u128 as f64);
        assert_eq!(h("0xg").used, 1);
        assert_eq!(h("  -0x10").value, -16.0);
        assert_eq!(h(" ").used, 0);
    }

    #[test]
    fn negative_zero_as_redis_7_0() {
        let mut t = TestEngine::default();
        // The reply carries the computed -0, the listpack stores it as 0.
        assert_eq!(t.resp(&["ZINCRBY", "z", "-0", "m"]), "$2\r\n-0\r\n");
        assert_eq!(t.resp(&["ZSCORE", "z", "m"]), "$1\r\n0\r\n");
        let long = "x".repeat(70);
        assert_eq!(t.run(&["ZADD", "big", "-0", &long]), int(1));
        assert_eq!(t.resp(&["ZSCORE", "big", &long]), "$2\r\n-0\r\n");
    }

    // Members, scores, ranks

    #[test]
    fn zrem_zscore_zmscore_zcard() {
        let mut t = abcde();
        assert_eq!(t.run(&["ZREM", "z", "a", "x", "a", "b"]), int(2));
        assert_eq!(t.run(&["ZCARD", "z"]), int(3));
        assert_eq!(t.run(&["ZSCORE", "z", "c"]), dbl(3.0));
        assert_eq!(t.run(&["ZSCORE", "z", "a"]), nil());
        assert_eq!(t.run(&["ZMSCORE", "z", "c", "a", "e"]), arr(vec![dbl(3.0), nil(), dbl(5.0)]));
        assert_eq!(t.run(&["ZMSCORE", "missing", "a", "b"]), arr(vec![nil(), nil()]));
        assert_eq!(t.run(&["ZSCORE", "missing", "a"]), nil());
        assert_eq!(t.run(&["ZCARD", "missing"]), int(0));
        assert_eq!(t.run(&["ZREM", "missing", "a"]), int(0));
        // The last member takes the key with it.
        assert_eq!(t.run(&["ZREM", "z", "c", "d", "e"]), int(3));
        assert_eq!(t.run(&["EXISTS", "z"]), int(0));
    }

    #[test]
    fn ranks() {
        let mut t = abcde();
        assert_eq!(t.run(&["ZRANK", "z", "a"]), int(0));
        assert_eq!(t.run(&["ZRANK", "z", "e"]), int(4));
        assert_eq!(t.run(&["ZREVRANK", "z", "a"]), int(4));
        assert_eq!(t.run(&["ZREVRANK", "z", "d"]), int(1));
        assert_eq!(t.run(&["ZRANK", "z", "x"]), nil());
        assert_eq!(t.run(&["ZREVRANK", "missing", "x"]), nil());
    }

    #[test]
    fn wrong_type_for_every_command() {
        let mut t = TestEngine::default();
        t.run(&["SET", "s", "v"]);
        for argv in [
            &["ZADD", "s", "1", "a"][..],
            &["ZINCRBY", "s", "1", "a"],
            &["ZREM", "s", "a"],
            &["ZSCORE", "s", "a"],
            &["ZMSCORE", "s", "a"],
            &["ZCARD", "s"],
            &["ZCOUNT", "s", "0", "1"],
            &["ZLEXCOUNT", "s", "-", "+"],
            &["ZRANK", "s", "a"],
            &["ZREVRANK", "s", "a"],
            &["ZRANGE", "s", "0", "1"],
            &["ZREVRANGE", "s", "0", "1"],
            &["ZRANGEBYSCORE", "s", "0", "1"],
            &["ZREVRANGEBYSCORE", "s", "1", "0"],
            &["ZRANGEBYLEX", "s", "-", "+"],
            &["ZREVRANGEBYLEX", "s", "+", "-"],
            &["ZPOPMIN", "s"],
            &["ZPOPMAX", "s", "0"],
            &["ZREMRANGEBYRANK", "s", "0", "1"],
            &["ZREMRANGEBYSCORE", "s", "0", "1"],
            &["ZREMRANGEBYLEX", "s", "-", "+"],
            &["ZUNIONSTORE", "d", "1", "s"],
            &["ZINTERSTORE", "d", "1", "s"],
            &["ZSCAN", "s", "0"],
        ] {
            assert_eq!(t.run(argv), err(WRONGTYPE), "{argv:?}");
        }
        assert_eq!(t.run(&["GET", "s"]), bulk("v"));
    }

    // ZRANGE family

    #[test]
    fn zrange_by_rank() {
        let mut t = abcde();
        assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1"]), ["a", "b", "c", "d", "e"]);
        assert_eq!(run(&mut t, &["ZRANGE", "z", "1", "2", "WITHSCORES"]), ["b", "2", "c", "3"]);
        assert_eq!(run(&mut t, &["ZRANGE", "z", "-2", "100"]), ["d", "e"]);
        assert_eq!(run(&mut t, &["ZRANGE", "z", "-100", "0"]), ["a"]);
        assert_eq!(run(&mut t, &["ZRANGE", "z", "3", "1"]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZRANGE", "z", "5", "10"]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "1", "REV"]), ["e", "d"]);
        assert_eq!(run(&mut t, &["ZREVRANGE", "z", "0", "1", "WITHSCORES"]), ["e", "5", "d", "4"]);
        assert_eq!(run(&mut t, &["ZREVRANGE", "z", "-1", "-1"]), ["a"]);
        let min = i64::MIN.to_string();
        let max = i64::MAX.to_string();
        assert_eq!(run(&mut t, &["ZRANGE", "z", &min, &max]).len(), 5);
        assert_eq!(t.run(&["ZRANGE", "z", "x", "1"]), err(NOT_INT));
        assert_eq!(t.run(&["ZRANGE", "missing", "0", "-1"]), arr(vec![]));
        // LIMIT with the default count -1 is accepted with ranks, as in Redis 7.0.
        assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1", "LIMIT", "3", "-1"]).len(), 5);
        assert_eq!(
            t.run(&["ZRANGE", "z", "0", "-1", "LIMIT", "1", "2"]),
            err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
        );
    }

    #[test]
    fn zrange_by_score() {
        let mut t = abcde();
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "2", "4"]), ["b", "c", "d"]);
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "(2", "(4"]), ["c"]);
        assert_eq!(
            run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "1", "2"]),
            ["b", "2", "c", "3"]
        );
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "-1", "2"]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "-5"]), ["b", "c", "d", "e"]);
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "0"]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "10", "1"]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZREVRANGEBYSCORE", "z", "4", "2"]), ["d", "c", "b"]);
        assert_eq!(run(&mut t, &["ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", "1", "2"]), ["d", "c"]);
        assert_eq!(
            run(&mut t, &["ZRANGE", "z", "5", "(1", "BYSCORE", "REV", "LIMIT", "1", "2", "WITHSCORES"]),
            ["d", "4", "c", "3"]
        );
        assert_eq!(run(&mut t, &["ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "0", "1", "LIMIT", "1", "1"]), ["c"]);
        // Bounds as strtod reads a C string: spaces before, "" is 0, "(" alone is (0, hex.
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", " 1", "(3"]), ["a", "b"]);
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "(", "3"]), ["a", "b", "c"]);
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "", ""]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "0x2", "3"]), ["b", "c"]);
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-infinity", "1e5000"]).len(), 5);
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "4\0junk", "5"]), ["d", "e"]);
        assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "3", "2"]), Vec::<String>::new());
        for bad in ["1 ", "nan", "abc", "(nan", "((1", "1e"] {
            assert_eq!(t.run(&["ZRANGEBYSCORE", "z", bad, "3"]), err("ERR min or max is not a float"), "{bad:?}");
        }
    }

    #[test]
    fn zrange_by_lex() {
        let mut t = with(&[("0", "a"), ("0", "b"), ("0", "c"), ("0", "d"), ("0", "e")]);
        assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "-", "+"]), ["a", "b", "c", "d", "e"]);
        assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "[b", "(d"]), ["b", "c"]);
        assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "(b", "[d", "LIMIT", "1", "5"]), ["d"]);
        assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "+", "-"]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZREVRANGEBYLEX", "z", "[d", "-"]), ["d", "c", "b", "a"]);
        assert_eq!(run(&mut t, &["ZRANGE", "z", "[e", "[b", "BYLEX", "REV", "LIMIT", "0", "2"]), ["e", "d"]);
        assert_eq!(t.run(&["ZLEXCOUNT", "z", "[b", "+"]), int(4));
        assert_eq!(t.run(&["ZLEXCOUNT", "missing", "-", "+"]), int(0));
        for bad in ["a", "+x", "-x", "", "]a"] {
            assert_eq!(
                t.run(&["ZRANGEBYLEX", "z", bad, "+"]),
                err("ERR min or max not valid string range item"),
                "{bad:?}"
            );
        }
        assert_eq!(
            t.run(&["ZRANGEBYLEX", "z", "-", "+", "WITHSCORES"]),
            err("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
        );
        // Conflicts are found before the bounds are read.
        assert_eq!(
            t.run(&["ZRANGE", "z", "0", "1", "LIMIT", "0", "1", "BYLEX", "WITHSCORES"]),
            err("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
        );
    }

    #[test]
    fn zrange_option_errors() {
        let mut t = abcde();
        t.run(&["SET", "s", "v"]);
        for argv in [
            &["ZRANGE", "z", "0", "-1", "REV", "REV"][..],
            &["ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX"],
            &["ZRANGEBYSCORE", "z", "0", "1", "REV"],
            &["ZRANGEBYSCORE", "z", "0", "1", "BYSCORE"],
            &["ZREVRANGE", "z", "0", "1", "BYSCORE"],
            &["ZRANGE", "z", "0", "-1", "LIMIT", "1"],
            &["ZRANGE", "z", "0", "1", "FOO"],
            &["ZRANGE", "s", "0", "1", "FOO"],
        ] {
            assert_eq!(t.run(argv), err(SYNTAX), "{argv:?}");
        }
        assert_eq!(t.run(&["ZRANGE", "z", "0", "-1", "BYSCORE", "LIMIT", "x", "1"]), err(NOT_INT));
        assert_eq!(t.run(&["ZRANGE", "s", "a", "b"]), err(NOT_INT));
        assert_eq!(t.run(&["ZRANGE", "s", "a", "b", "BYSCORE"]), err("ERR min or max is not a float"));
        assert_eq!(t.run(&["ZRANGE", "missing", "a", "b", "BYSCORE"]), err("ERR min or max is not a float"));
    }

    #[test]
    fn withscores_in_resp3_are_pairs_of_doubles() {
        let mut t = with(&[("1.5", "a"), ("2", "b")]);
        t.session.resp3 = true;
        let pair = |m: &str, s: f64| arr(vec![bulk(m), dbl(s)]);
        assert_eq!(t.run(&["ZRANGE", "z", "0", "-1", "WITHSCORES"]), arr(vec![pair("a", 1.5), pair("b", 2.0)]));
        assert_eq!(t.resp(&["ZSCORE", "z", "a"]), ",1.5\r\n");
        assert_eq!(t.run(&["ZPOPMIN", "z"]), arr(vec![bulk("a"), dbl(1.5)]));
        assert_eq!(t.run(&["ZPOPMIN", "z", "1"]), arr(vec![pair("b", 2.0)]));
        assert_eq!(t.run(&["ZPOPMIN", "z", "1"]), arr(vec![]));
    }

    #[test]
    fn zcount() {
        let mut t = abcde();
        assert_eq!(t.run(&["ZCOUNT", "z", "2", "4"]), int(3));
        assert_eq!(t.run(&["ZCOUNT", "z", "(2", "+inf"]), int(3));
        assert_eq!(t.run(&["ZCOUNT", "z", "4", "2"]), int(0));
        assert_eq!(t.run(&["ZCOUNT", "missing", "0", "1"]), int(0));
        assert_eq!(t.run(&["ZCOUNT", "missing", "0", "x"]), err("ERR min or max is not a float"));
    }

    // Pops and removals

    #[test]
    fn pops() {
        let mut t = abcde();
        assert_eq!(run(&mut t, &["ZPOPMIN", "z"]), ["a", "1"]);
        assert_eq!(run(&mut t, &["ZPOPMAX", "z", "2"]), ["e", "5", "d", "4"]);
        assert_eq!(run(&mut t, &["ZPOPMIN", "z", "0"]), Vec::<String>::new());
        assert_eq!(run(&mut t, &["ZPOPMIN", "z", "10"]), ["b", "2", "c", "3"]);
        assert_eq!(t.run(&["EXISTS", "z"]), int(0));
        assert_eq!(t.run(&["ZPOPMIN", "z"]), arr(vec![]));
        assert_eq!(t.run(&["ZPOPMAX", "z", "3"]), arr(vec![]));
        let positive = "ERR value is out of range, must be positive";
        assert_eq!(t.run(&["ZPOPMIN", "z", "-1"]), err(positive));
        assert_eq!(t.run(&["ZPOPMIN", "z", "abc"]), err(positive));
        assert_eq!(t.run(&["ZPOPMIN", "z", "1", "2"]), err(SYNTAX));
    }

    #[test]
    fn range_removals() {
        let mut t = abcde();
        assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "0", "1"]), int(2));
        assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "5", "10"]), int(0));
        assert_eq!(t.run(&["ZREMRANGEBYSCORE", "z", "(3", "+inf"]), int(2));
        assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1"]), ["c"]);
        assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "-1", "-1"]), int(1));
        assert_eq!(t.run(&["EXISTS", "z"]), int(0));
        let mut t = with(&[("0", "a"), ("0", "b"), ("0", "c")]);
        assert_eq!(t.run(&["ZREMRANGEBYLEX", "z", "(a", "+"]), int(2));
        assert_eq!(t.run(&["ZREMRANGEBYLEX", "z", "-", "+"]), int(1));
        assert_eq!(t.run(&["EXISTS", "z"]), int(0));
        assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "a", "1"]), err(NOT_INT));
        assert_eq!(t.run(&["ZREMRANGEBYSCORE", "z", "(1", "abc"]), err("ERR min or max is not a float"));
        assert_eq!(t.run(&["ZREMRANGEBYLEX", "z", "a", "+"]), err("ERR min or max not valid string range item"));
        assert_eq!(t.run(&["ZREMRANGEBYSCORE", "missing", "0", "1"]), int(0));
    }

    // ZUNIONSTORE / ZINTERSTORE

    #[test]
    fn union_and_intersection() {
        let mut t = TestEngine::default();
        t.run(&["ZADD", "a", "1", "x", "2", "y"]);
        t.run(&["ZADD", "b", "10", "y", "20", "z"]);
        t.run(&["SADD", "s", "y", "w"]);
        if t.run(&["SCARD", "s"]) == int(2) {
            assert_eq!(t.run(&["ZUNIONSTORE", "d", "3", "a", "b", "s"]), int(4));
            assert_eq!(
                run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]),
                ["w", "1", "x", "1", "y", "13", "z", "20"]
            );
            assert_eq!(t.run(&["ZINTERSTORE", "d", "3", "a", "b", "s", "WEIGHTS", "1", "2", "3"]), int(1));
            assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["y", "25"]);
        }
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "2", "3", "AGGREGATE", "max"]), int(3));
        assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["x", "2", "y", "30", "z", "60"]);
        assert_eq!(
            t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "MIN", "WEIGHTS", "2", "3", "WEIGHTS", "1", "1"]),
            int(3)
        );
        assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["x", "1", "y", "2", "z", "20"]);
        assert_eq!(t.run(&["ZINTERSTORE", "d", "2", "a", "b"]), int(1));
        assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["y", "12"]);
        // An empty result deletes the destination.
        assert_eq!(t.run(&["ZINTERSTORE", "d", "2", "a", "missing"]), int(0));
        assert_eq!(t.run(&["EXISTS", "d"]), int(0));
        // The destination is replaced whatever it held, TTL included; a source may be it.
        t.run(&["SET", "d", "x", "EX", "100"]);
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "1", "a"]), int(2));
        assert_eq!(t.run(&["TTL", "d"]), int(-1));
        assert_eq!(t.run(&["ZUNIONSTORE", "a", "2", "a", "b"]), int(3));
        assert_eq!(run(&mut t, &["ZRANGE", "a", "0", "-1", "WITHSCORES"]), ["x", "1", "y", "12", "z", "20"]);
    }

    #[test]
    fn union_and_intersection_with_infinities() {
        let mut t = TestEngine::default();
        t.run(&["ZADD", "i", "1", "p"]);
        t.run(&["ZADD", "j", "-1", "p"]);
        t.run(&["ZADD", "inf", "inf", "p"]);
        let score = |t: &mut TestEngine| t.run(&["ZSCORE", "d", "p"]);
        t.run(&["ZUNIONSTORE", "d", "2", "i", "j", "WEIGHTS", "inf", "inf"]);
        assert_eq!(score(&mut t), dbl(0.0));
        t.run(&["ZUNIONSTORE", "d", "2", "i", "j", "WEIGHTS", "0", "inf", "AGGREGATE", "min"]);
        assert_eq!(score(&mut t), dbl(f64::NEG_INFINITY));
        // inf × 0 is zeroed in a union but goes to MIN as NaN (and loses) in an intersection.
        t.run(&["ZUNIONSTORE", "d", "2", "i", "inf", "WEIGHTS", "1", "0", "AGGREGATE", "min"]);
        assert_eq!(score(&mut t), dbl(0.0));
        t.run(&["ZINTERSTORE", "d", "2", "i", "inf", "WEIGHTS", "1", "0", "AGGREGATE", "min"]);
        assert_eq!(score(&mut t), dbl(1.0));
        t.run(&["ZINTERSTORE", "d", "2", "inf", "i", "WEIGHTS", "0", "1", "AGGREGATE", "max"]);
        assert_eq!(score(&mut t), dbl(1.0));
        // -0 from a product reads back as 0 once stored in a small set.
        t.run(&["ZADD", "zero", "0", "m"]);
        t.run(&["ZUNIONSTORE", "d", "1", "zero", "WEIGHTS", "-1"]);
        assert_eq!(t.resp(&["ZSCORE", "d", "m"]), "$1\r\n0\r\n");
    }

    #[test]
    fn sums_are_taken_smallest_source_first() {
        // Floating-point addition is not associative: the order decides the last digit.
        let mut t = TestEngine::default();
        t.run(&["ZADD", "a", "0.1", "m"]);
        t.run(&["ZADD", "b", "0.2", "m"]);
        t.run(&["ZADD", "c", "0.3", "m", "5", "extra"]);
        t.run(&["ZUNIONSTORE", "d", "3", "c", "b", "a"]);
        // b and a (one member each, in their given order) come before c: (0.2 + 0.1) + 0.3.
        assert_eq!(t.resp(&["ZSCORE", "d", "m"]), "$19\r\n0.60000000000000009\r\n");
        t.run(&["ZADD", "e", "0.3", "m", "1", "q"]);
        t.run(&["ZADD", "f", "0.1", "m", "1", "q"]);
        t.run(&["ZADD", "g", "0.2", "m", "1", "q"]);
        t.run(&["ZINTERSTORE", "d", "4", "e", "f", "g", "e"]);
        assert_eq!(t.resp(&["ZSCORE", "d", "m"]), "$19\r\n0.90000000000000013\r\n");
    }

    #[test]
    fn store_errors_in_redis_order() {
        let mut t = TestEngine::default();
        t.run(&["ZADD", "a", "1", "x"]);
        t.run(&["SET", "s", "v"]);
        assert_eq!(
            t.run(&["ZUNIONSTORE", "d", "0", "a"]),
            err("ERR at least 1 input key is needed for 'zunionstore' command")
        );
        assert_eq!(
            t.run(&["ZINTERSTORE", "d", "-1", "a"]),
            err("ERR at least 1 input key is needed for 'zinterstore' command")
        );
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "abc", "a"]), err(NOT_INT));
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "3", "a", "b"]), err(SYNTAX));
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "9223372036854775807", "a"]), err(SYNTAX));
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "s", "a", "WEIGHTS", "x"]), err(WRONGTYPE));
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1"]), err(SYNTAX));
        assert_eq!(
            t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "x"]),
            err("ERR weight value is not a float")
        );
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "1", "a", "WEIGHTS", "1e5000"]), err("ERR weight value is not a float"));
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE"]), err(SYNTAX));
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "avg"]), err(SYNTAX));
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WITHSCORES"]), err(SYNTAX));
        assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    }

    #[test]
    fn store_result_encoding() {
        let mut t = TestEngine::default();
        let long = "x".repeat(70);
        t.run(&["ZADD", "big", "1", &long]);
        t.run(&["ZADD", "small", "1", "a"]);
        t.run(&["ZUNIONSTORE", "d", "1", "big"]);
        assert_eq!(t.run(&["OBJECT", "ENCODING", "d"]), bulk("skiplist"));
        t.run(&["ZUNIONSTORE", "d", "1", "small"]);
        assert_eq!(t.run(&["OBJECT", "ENCODING", "d"]), bulk("listpack"));
    }

    // ZSCAN

    #[test]
    fn zscan_small_sets_whole_in_order() {
        let mut t = abcde();
        let all = ["0", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"];
        assert_eq!(run(&mut t, &["ZSCAN", "z", "0"]), all);
        assert_eq!(run(&mut t, &["ZSCAN", "z", "5", "COUNT", "1"]), all);
        assert_eq!(run(&mut t, &["ZSCAN", "z", "0", "MATCH", "[bd]"]), ["0", "b", "2", "d", "4"]);
        assert_eq!(run(&mut t, &["ZSCAN", "missing", "0", "FOO"]), ["0"]);
        assert_eq!(t.run(&["ZSCAN", "z", "abc"]), err("ERR invalid cursor"));
        assert_eq!(t.run(&["ZSCAN", "missing", "abc"]), err("ERR invalid cursor"));
        for opts in [&["TYPE", "zset"][..], &["COUNT", "0"], &["COUNT"], &["MATCH"], &["FOO", "bar"]] {
            let mut argv = vec!["ZSCAN", "z", "0"];
            argv.extend_from_slice(opts);
            assert_eq!(t.run(&argv), err(SYNTAX), "{opts:?}");
        }
        assert_eq!(t.run(&["ZSCAN", "z", "0", "COUNT", "x"]), err(NOT_INT));
    }

    #[test]
    fn zscan_formats_scores_by_encoding() {
        let mut t = with(&[
            ("1e18", "a"),
            ("4611686018427387904", "b"),
            ("4611686018427388928", "c"),
            ("1.1", "d"),
            ("-0", "e"),
            ("inf", "f"),
        ]);
        assert_eq!(
            run(&mut t, &["ZSCAN", "z", "0"]),
            [
                "0",
                "e",
                "0",
                "d",
                "1.1000000000000001",
                "a",
                "1000000000000000000",
                "b",
                "4611686018427387904",
                "c",
                "4.6116860184273889e+18",
                "f",
                "inf"
            ]
        );
        // The same scores from a skiplist are all `%.17g`.
        let long = "x".repeat(70);
        t.run(&["ZADD", "z", "0", &long]);
        let (_, items) = match t.run(&["ZSCAN", "z", "0", "COUNT", "100"]) {
            Reply::Array(mut v) => (v.remove(0), strings(v.remove(0))),
            other => panic!("{other:?}"),
        };
        let pairs: std::collections::HashMap<String, String> =
            items.chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect();
        assert_eq!(pairs["a"], "1e+18");
        assert_eq!(pairs["b"], "4.6116860184273879e+18");
    }

    #[test]
    fn zscan_big_sets_by_cursor() {
        let mut t = TestEngine::default();
        for i in 0..300 {
            t.run(&["ZADD", "z", &i.to_string(), &format!("m{i}")]);
        }
        assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("skiplist"));
        let mut seen = std::collections::HashSet::new();
        let mut cursor = "0".to_string();
        let mut calls = 0;
        loop {
            let out = run(&mut t, &["ZSCAN", "z", &cursor, "COUNT", "20", "MATCH", "m1*"]);
            calls += 1;
            for pair in out[1..].chunks(2) {
                assert_eq!(format!("m{}", pair[1]), pair[0]);
                seen.insert(pair[0].clone());
            }
            cursor = out[0].clone();
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(seen.len(), 111); // m1, m10..m19, m100..m199
        assert!(calls >= 15);
    }

    // Encoding, memory, JSON

    #[test]
    fn object_encoding_follows_redis_7_0() {
        let mut t = TestEngine::default();
        for i in 0..128 {
            t.run(&["ZADD", "z", "1", &format!("m{i}")]);
        }
        assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("listpack"));
        t.run(&["ZADD", "z", "1", "one more"]);
        assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("skiplist"));
        t.run(&["ZREMRANGEBYRANK", "z", "0", "-3"]);
        assert_eq!(t.run(&["ZCARD", "z"]), int(2));
        assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("skiplist"));
        t.run(&["ZADD", "y", "1", &"v".repeat(64)]);
        assert_eq!(t.run(&["OBJECT", "ENCODING", "y"]), bulk("listpack"));
        t.run(&["ZADD", "y", "1", &"v".repeat(65)]);
        assert_eq!(t.run(&["OBJECT", "ENCODING", "y"]), bulk("skiplist"));
    }

    #[test]
    fn memory_returns_to_baseline() {
        let mut t = TestEngine::default();
        t.run(&["SET", "other", "value"]);
        let baseline = t.engine.store().used_memory();
        t.run(&["ZADD", "z", "1", "first"]);
        let one = t.engine.store().used_memory();
        assert!(one > baseline);
        let mut sizes = Vec::new();
        for i in 0..2000 {
            t.run(&["ZADD", "z", &(i % 17).to_string(), &format!("member:{i}:{}", "x".repeat(i % 90))]);
            if i % 500 == 0 {
                sizes.push(t.engine.store().used_memory());
            }
        }
        assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{sizes:?}");
        let grown = t.engine.store().used_memory();
        // Shrink by every kind of removal, then check the size is the one-member size again.
        t.run(&["ZREMRANGEBYRANK", "z", "0", "199"]);
        t.run(&["ZREMRANGEBYSCORE", "z", "3", "5"]);
        t.run(&["ZPOPMAX", "z", "300"]);
        t.run(&["ZPOPMIN", "z", "10"]);
        t.run(&["ZINCRBY", "z", "100", "first"]);
        let shrunk = t.engine.store().used_memory();
        assert!(shrunk < grown);
        let rest: Vec<String> = run(&mut t, &["ZRANGE", "z", "0", "-1"]);
        for m in rest.iter().filter(|m| *m != "first") {
            t.run(&["ZREM", "z", m]);
        }
        assert_eq!(t.run(&["ZCARD", "z"]), int(1));
        assert_eq!(t.engine.store().used_memory(), one);
        t.run(&["DEL", "z"]);
        assert_eq!(t.engine.store().used_memory(), baseline);
        // A store result and a pop to empty leave nothing behind either.
        t.run(&["ZADD", "a", "1", "x", "2", "y"]);
        t.run(&["ZUNIONSTORE", "d", "1", "a"]);
        t.run(&["ZPOPMIN", "a", "5"]);
        t.run(&["ZREMRANGEBYSCORE", "d", "-inf", "+inf"]);
        assert_eq!(t.engine.store().used_memory(), baseline);
        t.run(&["DEL", "other"]);
        assert_eq!(t.engine.store().used_memory(), 0);
    }

    #[test]
    fn to_json_lists_pairs_in_order() {
        let mut z = ZSetValue::new();
        z.insert(b"b", 2.0);
        z.insert(b"a", 1.5);
        z.insert(b"c", f64::INFINITY);
        z.insert(b"\xff", 0.0);
        assert_eq!(z.to_json(), serde_json::json!([[{ "base64": "/w==" }, 0.0], ["a", 1.5], ["b", 2.0], ["c", "inf"]]));
    }

    #[test]
    fn default_ttl_applies_to_new_sorted_sets() {
        let mut t = TestEngine::default();
        t.engine.config().set("default-ttl", "100").unwrap();
        t.run(&["ZADD", "z", "1", "a"]);
        assert_eq!(t.run(&["TTL", "z"]), int(100));
        // An existing key keeps the TTL it has.
        t.advance(50_000);
        t.run(&["ZADD", "z", "2", "b"]);
        assert_eq!(t.run(&["TTL", "z"]), int(50));
    }

    #[test]
    fn listpack_score_text_as_d2string() {
        assert_eq!(listpack_score_text(-0.0), "0");
        assert_eq!(listpack_score_text(3.0), "3");
        assert_eq!(listpack_score_text(-4611686018427387904.0), "-4611686018427387904");
        assert_eq!(listpack_score_text(9_223_372_036_854_775_808.0), "9.2233720368547758e+18");
        assert_eq!(listpack_score_text(0.1), "0.10000000000000001");
        assert_eq!(listpack_score_text(f64::NEG_INFINITY), "-inf");
    }
}
