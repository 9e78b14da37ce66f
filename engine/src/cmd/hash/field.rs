//! Writes and reads of hash fields: HSET, HMSET, HSETNX, HGET, HMGET, HDEL, HEXISTS, HLEN, HSTRLEN,
//! HKEYS, HVALS and HGETALL, with the growth estimates of field writes.

use std::mem::size_of;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;
use crate::store::entry::alloc_size;
use crate::store::hash::{HashValue, ELEMENT_OVERHEAD};
use crate::table::Command;

use super::{modify, read_hash, upsert};

/// HSET: sets fields of a hash (creating it) and answers how many fields are new.
///
/// ```text
/// HSET key field value [field value ...]
/// ```
pub fn hset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let pairs = pairs(args, ctx.cmd)?;
    let added = upsert(ctx, key, |h| {
        h.expect_fields(pairs.len() / 2);
        Ok(pairs.chunks_exact(2).filter(|p| h.set(p[0], p[1])).count())
    })?;
    ctx.notify(class::HASH, "hset", key);
    Ok(Reply::Int(added as i64))
}

/// HMSET: sets fields of a hash (creating it), as HSET, and answers OK.
///
/// ```text
/// HMSET key field value [field value ...]
/// ```
pub fn hmset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let pairs = pairs(args, ctx.cmd)?;
    upsert(ctx, key, |h| {
        h.expect_fields(pairs.len() / 2);
        pairs.chunks_exact(2).for_each(|p| {
            h.set(p[0], p[1]);
        });
        Ok(())
    })?;
    ctx.notify(class::HASH, "hset", key);
    Ok(Reply::Ok)
}

/// The field/value arguments of HSET and HMSET; an odd count is an arity error.
pub(super) fn pairs<'a>(args: &mut Args<'a>, cmd: &Command) -> Result<&'a [&'a [u8]], CmdError> {
    let pairs = args.rest();
    if pairs.is_empty() || pairs.len() % 2 == 1 {
        return Err(CmdError::WrongArity(cmd.full_name()));
    }
    Ok(pairs)
}

/// HSETNX: sets a field only if the hash does not have it; 1 if set, 0 if not.
///
/// ```text
/// HSETNX key field value
/// ```
pub fn hsetnx(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let field = args.bytes()?;
    let value = args.bytes()?;
    let set = upsert(ctx, key, |h| Ok(!h.contains(field) && h.set(field, value)))?;
    if set {
        ctx.notify(class::HASH, "hset", key);
    }
    Ok(Reply::Int(set as i64))
}

/// HGET: the value of a field, or nil.
///
/// ```text
/// HGET key field
/// ```
pub fn hget(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let field = args.bytes()?;
    Ok(Reply::opt_bulk(read_hash(ctx, key)?.and_then(|h| h.get(field))))
}

/// HMGET: the values of several fields; nil for each missing one.
///
/// ```text
/// HMGET key field [field ...]
/// ```
pub fn hmget(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let fields = args.rest();
    let h = read_hash(ctx, key)?;
    Ok(Reply::Array(fields.iter().map(|f| Reply::opt_bulk(h.and_then(|h| h.get(f)))).collect()))
}

/// HDEL: deletes fields and answers how many existed. Deletes the hash when it is empty.
///
/// ```text
/// HDEL key field [field ...]
/// ```
pub fn hdel(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let fields = args.rest();
    let deleted = modify(ctx, key, |h| fields.iter().filter(|f| h.remove(f)).count())?;
    if deleted.is_some_and(|n| n > 0) {
        ctx.notify_removal(class::HASH, "hdel", key);
    }
    Ok(Reply::Int(deleted.unwrap_or(0) as i64))
}

/// HEXISTS: 1 if the hash has the field, else 0.
///
/// ```text
/// HEXISTS key field
/// ```
pub fn hexists(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let field = args.bytes()?;
    let found = read_hash(ctx, key)?.is_some_and(|h| h.contains(field));
    Ok(Reply::Int(found as i64))
}

/// HLEN: the number of fields (0 if no such key).
///
/// ```text
/// HLEN key
/// ```
pub fn hlen(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    Ok(Reply::Int(read_hash(ctx, key)?.map_or(0, |h| h.len()) as i64))
}

/// HSTRLEN: the length of a field's value (0 if there is none).
///
/// ```text
/// HSTRLEN key field
/// ```
pub fn hstrlen(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let field = args.bytes()?;
    let len = read_hash(ctx, key)?.and_then(|h| h.get(field)).map_or(0, |v| v.len());
    Ok(Reply::Int(len as i64))
}

/// HKEYS: every field of the hash.
///
/// ```text
/// HKEYS key
/// ```
pub fn hkeys(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let h = read_hash(ctx, key)?;
    Ok(Reply::Array(h.map(|h| h.iter().map(|(f, _)| Reply::bulk(f)).collect()).unwrap_or_default()))
}

/// HVALS: every value of the hash.
///
/// ```text
/// HVALS key
/// ```
pub fn hvals(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let h = read_hash(ctx, key)?;
    Ok(Reply::Array(h.map(|h| h.iter().map(|(_, v)| Reply::bulk(v)).collect()).unwrap_or_default()))
}

/// HGETALL: every field and value (a map in RESP3, alternating fields and values in RESP2).
///
/// ```text
/// HGETALL key
/// ```
pub fn hgetall(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let h = read_hash(ctx, key)?;
    Ok(Reply::Map(h.map(|h| h.iter().map(|(f, v)| (Reply::bulk(f), Reply::bulk(v))).collect()).unwrap_or_default()))
}

/// Bytes HSET and HMSET may add beyond their arguments: a field's overhead per pair, and
/// the hash itself.
pub fn pairs_growth(argv: &[&[u8]]) -> usize {
    argv.len().saturating_sub(2) / 2 * ELEMENT_OVERHEAD + alloc_size(size_of::<HashValue>())
}

/// Bytes a write of one field (HSETNX, HINCRBY, HINCRBYFLOAT) may add beyond its arguments.
pub fn field_growth(_argv: &[&[u8]]) -> usize {
    ELEMENT_OVERHEAD + alloc_size(size_of::<HashValue>())
}
