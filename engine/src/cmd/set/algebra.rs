//! The set algebra: SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD.

use crate::args::Args;
use crate::cmd::string::default_expiry;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::{Entry, Value, ValueRef};
use crate::store::set::SetValue;

use super::peek_set;

/// SINTER: the members every given set has (a missing key is an empty set).
///
/// ```text
/// SINTER key [key ...]
/// ```
pub fn sinter(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let members = intersection(ctx, args.rest(), Lookup::Read, 0)?;
    Ok(Reply::Set(members.into_iter().map(Reply::Bulk).collect()))
}

/// SUNION: the members any given set has.
///
/// ```text
/// SUNION key [key ...]
/// ```
pub fn sunion(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let set = union(ctx, args.rest(), Lookup::Read)?;
    Ok(Reply::Set(set.iter().map(Reply::bulk).collect()))
}

/// SDIFF: the members of the first set that none of the others has.
///
/// ```text
/// SDIFF key [key ...]
/// ```
pub fn sdiff(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let set = difference(ctx, args.rest(), Lookup::Read)?;
    Ok(Reply::Set(set.iter().map(Reply::bulk).collect()))
}

/// SINTERSTORE: stores the intersection in `destination` (replacing whatever it held;
/// deleting it when the result is empty) and answers its size.
///
/// ```text
/// SINTERSTORE destination key [key ...]
/// ```
pub fn sinterstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dst = args.key()?;
    let members = intersection(ctx, args.rest(), Lookup::Write, 0)?;
    let mut set = SetValue::new();
    members.iter().for_each(|m| {
        set.add(m);
    });
    Ok(store(ctx, dst, set, "sinterstore"))
}

/// SUNIONSTORE: stores the union in `destination` and answers its size.
///
/// ```text
/// SUNIONSTORE destination key [key ...]
/// ```
pub fn sunionstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dst = args.key()?;
    let set = union(ctx, args.rest(), Lookup::Write)?;
    Ok(store(ctx, dst, set, "sunionstore"))
}

/// SDIFFSTORE: stores the difference in `destination` and answers its size.
///
/// ```text
/// SDIFFSTORE destination key [key ...]
/// ```
pub fn sdiffstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dst = args.key()?;
    let set = difference(ctx, args.rest(), Lookup::Write)?;
    Ok(store(ctx, dst, set, "sdiffstore"))
}

/// SINTERCARD: the size of the intersection, counting up to LIMIT when given (0: no limit).
///
/// The table's key spec for it is (2, -1, 1): every argument after `numkeys`, so LIMIT and
/// its value are locked too. That is harmless (one more shard locked) and keeps the key
/// spec a plain range, where Redis reports (0, 0, 0) and `movablekeys`.
///
/// ```text
/// SINTERCARD numkeys key [key ...] [LIMIT limit]
/// ```
pub fn sintercard(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let numkeys =
        parse_i64(args.bytes()?).filter(|&n| n > 0).ok_or_else(|| CmdError::err("numkeys should be greater than 0"))?;
    if numkeys > args.len() as i64 {
        return Err(CmdError::err("Number of keys can't be greater than number of args"));
    }
    let all = args.rest();
    let (keys, opts) = all.split_at(numkeys as usize);
    let mut limit = 0;
    let mut i = 0;
    while i < opts.len() {
        if opts[i].eq_ignore_ascii_case(b"LIMIT") && i + 1 < opts.len() {
            limit = parse_i64(opts[i + 1])
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| CmdError::err("LIMIT can't be negative"))?;
            i += 2;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let members = intersection(ctx, keys, Lookup::Read, limit)?;
    Ok(Reply::Int(members.len() as i64))
}

// --- The set algebra ------------------------------------------------------------------------

/// How the algebra looks its source keys up: SINTER, SUNION, SDIFF and SINTERCARD read
/// (keyspace hits and misses), the STORE forms look up for writing, as in Redis.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    Read,
    Write,
}

/// The size of the set at each key (`None` when missing), after checking every key's type
/// first, as Redis does: one of them holding another type is WRONGTYPE even if an earlier
/// key is missing.
fn sizes(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup) -> Result<Vec<Option<usize>>, CmdError> {
    let now = ctx.now;
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let entry = match lookup {
            Lookup::Read => ctx.db.read(key, now),
            Lookup::Write => ctx.db.lookup(key, now),
        };
        out.push(match entry {
            None => {
                // Redis 7.0 reads every source, the STORE forms' too (`keymiss`).
                if lookup == Lookup::Write {
                    ctx.notify(class::KEY_MISS, "keymiss", key);
                }
                None
            }
            Some(Entry { value: ValueRef::Set(s), .. }) => Some(s.len()),
            Some(_) => return Err(CmdError::WrongType),
        });
    }
    Ok(out)
}

/// The members in every set, in the order of the smallest one; at most `limit` of them
/// when `limit` is not 0.
fn intersection(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup, limit: usize) -> Result<Vec<Vec<u8>>, CmdError> {
    let sizes = sizes(ctx, keys, lookup)?;
    if sizes.iter().any(Option::is_none) {
        return Ok(Vec::new());
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let Some((&smallest, rest)) = order.split_first() else {
        return Ok(Vec::new());
    };
    let mut members: Vec<Vec<u8>> =
        peek_set(ctx, keys[smallest], |s| s.iter().map(<[u8]>::to_vec).collect()).unwrap_or_default();
    for &i in rest {
        if members.is_empty() {
            break;
        }
        peek_set(ctx, keys[i], |s| members.retain(|m| s.contains(m)));
    }
    if limit > 0 {
        members.truncate(limit);
    }
    Ok(members)
}

/// Every member of any of the sets, collected as Redis collects them: into a new set that
/// starts as an intset.
fn union(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup) -> Result<SetValue, CmdError> {
    sizes(ctx, keys, lookup)?;
    let mut out = SetValue::new();
    for key in keys {
        peek_set(ctx, key, |s| {
            s.iter().for_each(|m| {
                out.add(m);
            })
        });
    }
    Ok(out)
}

/// The members of the first set that no other set has.
fn difference(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup) -> Result<SetValue, CmdError> {
    let sizes = sizes(ctx, keys, lookup)?;
    let mut out = SetValue::new();
    let Some((first, rest)) = keys.split_first() else {
        return Ok(out);
    };
    if sizes[0].is_none() {
        return Ok(out);
    }
    let mut members: Vec<Vec<u8>> =
        peek_set(ctx, first, |s| s.iter().map(<[u8]>::to_vec).collect()).unwrap_or_default();
    for key in rest {
        if members.is_empty() {
            break;
        }
        peek_set(ctx, key, |s| members.retain(|m| !s.contains(m)));
    }
    members.iter().for_each(|m| {
        out.add(m);
    });
    Ok(out)
}

/// Stores a computed set in `dst`, replacing any value and TTL there (the new key gets the
/// default TTL); an empty result deletes `dst` instead. Answers the stored size.
pub(super) fn store(ctx: &mut Ctx<'_>, dst: &[u8], set: SetValue, event: &'static str) -> Reply {
    let now = ctx.now;
    let expire_at = default_expiry(ctx);
    let shard = ctx.db.shard(dst);
    let len = set.len();
    if set.is_empty() {
        // `contains` expires a stale key first, so it is counted as expired, not deleted.
        if shard.contains(dst, now) {
            shard.remove(dst);
            ctx.notify(class::GENERIC, "del", dst);
        }
    } else {
        shard.insert(dst, Value::Set(Box::new(set)), expire_at, now);
        ctx.notify(class::SET, event, dst);
    }
    Reply::Int(len as i64)
}
