//! ZADD (NX/XX/GT/LT/CH/INCR), ZINCRBY, ZREM and the per-member reads: ZSCORE, ZMSCORE, ZCARD,
//! ZRANK, ZREVRANK.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;
use crate::store::zset::{Insert, ZSetValue};

use super::parse::parse_score;
use super::{create, read, write};

const NAN_RESULT: &str = "resulting score is not a number (NaN)";

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
        z.expect_members(elements.len(), elements[0].1.len());
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
    if tally.added + tally.updated > 0 {
        ctx.notify(class::ZSET, if f.incr { "zincr" } else { "zadd" }, key);
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
    if removed.is_some_and(|n| n > 0) {
        ctx.notify_removal(class::ZSET, "zrem", key);
    }
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
