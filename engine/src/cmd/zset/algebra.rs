//! ZUNION, ZINTER, ZDIFF and their STORE forms: weights, aggregates, and the result stored
//! or answered (WITHSCORES).

use foldhash::fast::RandomState;
use indexmap::IndexMap;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;
use crate::store::entry::{Entry, ValueRef};
use crate::store::zset::ZSetValue;

use super::create;
use super::parse::parse_score;
use super::range::scored_reply;
use crate::num::parse_i64;

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
    let dest = args.key()?;
    generic(ctx, args, Op::Union, Some(dest))
}

/// Stores at destination the intersection of sorted sets (and sets), scores weighted and
/// combined as in ZUNIONSTORE. Answers the size of the result.
///
/// ```text
/// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight [weight ...]]
///     [AGGREGATE SUM | MIN | MAX]
/// ```
pub fn zinterstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dest = args.key()?;
    generic(ctx, args, Op::Inter, Some(dest))
}

/// Stores at destination the members of the first sorted set (or set) that are in none of
/// the others, with their scores. Answers the size of the result.
///
/// ```text
/// ZDIFFSTORE destination numkeys key [key ...]
/// ```
pub fn zdiffstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dest = args.key()?;
    generic(ctx, args, Op::Diff, Some(dest))
}

/// The union of sorted sets (and sets), as ZUNIONSTORE computes it, answered in score order.
///
/// ```text
/// ZUNION numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]
///     [WITHSCORES]
/// ```
pub fn zunion(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Op::Union, None)
}

/// The intersection of sorted sets (and sets), as ZINTERSTORE computes it, answered in score
/// order.
///
/// ```text
/// ZINTER numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]
///     [WITHSCORES]
/// ```
pub fn zinter(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Op::Inter, None)
}

/// The members of the first sorted set (or set) that are in none of the others, answered in
/// score order.
///
/// ```text
/// ZDIFF numkeys key [key ...] [WITHSCORES]
/// ```
pub fn zdiff(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Op::Diff, None)
}

/// How many members the intersection of sorted sets (and sets) has, counting no further
/// than a LIMIT above 0.
///
/// ```text
/// ZINTERCARD numkeys key [key ...] [LIMIT limit]
/// ```
pub fn zintercard(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    generic(ctx, args, Op::InterCard, None)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Union,
    Inter,
    Diff,
    /// ZINTERCARD: the intersection's size, options LIMIT only.
    InterCard,
}

/// Redis's `zunionInterDiffGenericCommand`: numkeys, the sources' types, then the options,
/// each with its own error in that order (WEIGHTS and AGGREGATE not for ZDIFF, WITHSCORES
/// only without a destination). Sources are combined smallest first (a stable sort by size,
/// as Redis's `qsort` with glibc), which fixes the order in which floating-point sums are
/// taken, so results agree with Redis to the last bit. With `dest`, the result is stored
/// there (an empty one deletes it) and its size answered; without, it is answered.
fn generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, op: Op, dest: Option<&[u8]>) -> Result<Reply, CmdError> {
    let name = ctx.cmd.full_name();
    let now = ctx.now;
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
            None => {
                // A write lookup here, but Redis 7.0 reads every source (`keymiss`).
                ctx.notify(class::KEY_MISS, "keymiss", key);
                0
            }
            Some(entry) => match entry.value {
                ValueRef::ZSet(z) => z.len(),
                ValueRef::Set(s) => s.len(),
                _ => return Err(CmdError::WrongType),
            },
        });
    }
    let mut weights = vec![1.0; keys.len()];
    let mut aggregate = Aggregate::Sum;
    let mut withscores = false;
    let mut limit = 0;
    let weighs = matches!(op, Op::Union | Op::Inter);
    while !args.is_empty() {
        let remaining = args.len();
        let opt = args.bytes()?;
        if weighs && remaining > keys.len() && opt.eq_ignore_ascii_case(b"WEIGHTS") {
            for w in weights.iter_mut() {
                *w = parse_score(args.bytes()?).ok_or_else(|| CmdError::err("weight value is not a float"))?;
            }
        } else if weighs && remaining >= 2 && opt.eq_ignore_ascii_case(b"AGGREGATE") {
            aggregate = match args.bytes()?.to_ascii_uppercase().as_slice() {
                b"SUM" => Aggregate::Sum,
                b"MIN" => Aggregate::Min,
                b"MAX" => Aggregate::Max,
                _ => return Err(CmdError::Syntax),
            };
        } else if dest.is_none() && op != Op::InterCard && opt.eq_ignore_ascii_case(b"WITHSCORES") {
            withscores = true;
        } else if op == Op::InterCard && remaining >= 2 && opt.eq_ignore_ascii_case(b"LIMIT") {
            limit = parse_i64(args.bytes()?)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| CmdError::err("LIMIT can't be negative"))?;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let result = match op {
        Op::Inter | Op::InterCard => intersection(ctx, &keys, &order, &weights, aggregate),
        Op::Union => union(ctx, &keys, &order, &weights, aggregate),
        Op::Diff => difference(ctx, &keys),
    };
    if op == Op::InterCard {
        let len = if limit > 0 { result.len().min(limit) } else { result.len() };
        return Ok(Reply::Int(len as i64));
    }
    let Some(dest) = dest else {
        // Redis answers from a skiplist, with no trip through a listpack's text, so a -0 score
        // (a negative one weighted by 0) stays -0: sort as a sorted set does (by score, -0 and
        // 0 tying, then by member bytes) without building one.
        let mut sorted = result;
        sorted.sort_by(|(ma, sa), (mb, sb)| {
            sa.partial_cmp(sb).unwrap_or(std::cmp::Ordering::Equal).then_with(|| ma.cmp(mb))
        });
        return Ok(scored_reply(sorted.iter().map(|(m, s)| (&m[..], *s)), withscores, ctx.session.resp3));
    };
    let shard = ctx.db.shard(dest);
    if result.is_empty() {
        if shard.remove(dest).is_some() {
            ctx.notify(class::GENERIC, "del", dest);
        }
        return Ok(Reply::Int(0));
    }
    let len = result.len();
    create(ctx, dest, ZSetValue::from_distinct(result));
    let event = match op {
        Op::Union => "zunionstore",
        Op::Inter | Op::InterCard => "zinterstore",
        Op::Diff => "zdiffstore",
    };
    ctx.notify(class::ZSET, event, dest);
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

/// The first source's elements that no other source holds, with the first source's scores.
fn difference(ctx: &mut Ctx<'_>, keys: &[&[u8]]) -> Vec<(Box<[u8]>, f64)> {
    let now = ctx.now;
    let mut found = Vec::new();
    for_each_element(ctx.db.peek(keys[0], now), |member, score| found.push((Box::<[u8]>::from(member), score)));
    for key in &keys[1..] {
        if found.is_empty() {
            break;
        }
        let entry = ctx.db.peek(key, now);
        found.retain(|(member, _)| match entry.map(|e| e.value) {
            Some(ValueRef::ZSet(z)) => z.score(member).is_none(),
            Some(ValueRef::Set(s)) => !s.contains(member),
            _ => true,
        });
    }
    found
}
