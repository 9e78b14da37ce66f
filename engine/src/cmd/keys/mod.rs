//! Generic keyspace commands: deleting and inspecting keys, expiry (the EXPIRE family, TTL,
//! PERSIST), renaming, walking the keyspace (KEYS, SCAN, RANDOMKEY), DBSIZE and the flushes,
//! and the OBJECT and MEMORY introspection containers.
//!
//! `expire` holds the EXPIRE and TTL families and PERSIST; `keyspace` the commands over the
//! whole keyspace (KEYS, SCAN, RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL); `object` and `memory`
//! the OBJECT and MEMORY subcommands; `sort` SORT and SORT_RO. DEL, UNLINK, EXISTS, TYPE, RENAME and TOUCH live here.

mod databases;
mod dump;
#[cfg(test)]
mod dump_tests;
mod expire;
mod keyspace;
mod memory;
mod object;
mod sort;
#[cfg(test)]
mod tests;

pub use databases::{copy, move_key, select, swapdb};
pub use dump::{dump, dump_value, restore, restore_growth, RestoreRequest};
pub use expire::{expire, expireat, expiretime, persist, pexpire, pexpireat, pexpiretime, pttl, ttl};
pub(crate) use keyspace::parse_cursor;
pub use keyspace::{dbsize, flushall, flushdb, keys, randomkey, scan};
pub use memory::{memory_doctor, memory_help, memory_malloc_stats, memory_purge, memory_stats, memory_usage};
pub use object::{object_encoding, object_freq, object_help, object_idletime, object_refcount};
pub use sort::{sort, sort_ro};

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;

/// Deletes the given keys and answers how many of them existed (an expired key counts as
/// missing; a key named twice is deleted once).
///
/// ```text
/// DEL key [key ...]
/// ```
pub fn del(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(delete_keys(ctx, args.rest())))
}

/// Deletes the given keys, as DEL. Redis frees large values in the background; here every
/// value is freed at once, which is what DEL does for small ones anyway.
///
/// ```text
/// UNLINK key [key ...]
/// ```
pub fn unlink(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(delete_keys(ctx, args.rest())))
}

fn delete_keys(ctx: &mut Ctx<'_>, keys: &[&[u8]]) -> i64 {
    let now = ctx.now;
    let mut deleted = 0;
    for key in keys {
        let shard = ctx.db.shard(key);
        // `contains` expires a stale key first, so deleting it answers 0 as in Redis.
        if shard.contains(key, now) && shard.remove(key).is_some() {
            deleted += 1;
            ctx.notify(class::GENERIC, "del", key);
        }
    }
    deleted
}

/// Counts how many of the given keys exist; a key named twice counts twice.
///
/// ```text
/// EXISTS key [key ...]
/// ```
pub fn exists(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let now = ctx.now;
    let mut found = 0;
    for key in args.rest() {
        if ctx.db.peek(key, now).is_some() {
            found += 1;
        } else {
            // Not counted as a keyspace miss, but Redis's lookup publishes one.
            ctx.notify(class::KEY_MISS, "keymiss", key);
        }
    }
    Ok(Reply::Int(found as i64))
}

/// Answers the type of the value at a key, or `none` when there is no such key.
///
/// ```text
/// TYPE key
/// ```
pub fn type_(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let now = ctx.now;
    let name = ctx.db.peek(key, now).map(|e| e.value.type_name());
    if name.is_none() {
        ctx.notify(class::KEY_MISS, "keymiss", key);
    }
    Ok(Reply::status(name.unwrap_or("none")))
}

/// Renames a key, replacing whatever the new name held. The value keeps its TTL.
///
/// ```text
/// RENAME key newkey
/// ```
pub fn rename(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    rename_generic(ctx, args, false)?;
    Ok(Reply::Ok)
}

/// Renames a key only when the new name does not exist; answers 1 when it did so.
///
/// ```text
/// RENAMENX key newkey
/// ```
pub fn renamenx(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(rename_generic(ctx, args, true)? as i64))
}

/// RENAME and RENAMENX: whether the key was renamed (renaming a key to itself counts as
/// done for RENAME and not for RENAMENX, as in Redis). Both keys are locked by dispatch.
fn rename_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, nx: bool) -> Result<bool, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let now = ctx.now;
    if ctx.db.lookup(src, now).is_none() {
        return Err(CmdError::NoSuchKey);
    }
    if src == dst {
        return Ok(!nx);
    }
    let replaced = ctx.db.lookup(dst, now).is_some();
    if nx && replaced {
        return Ok(false);
    }
    let node = ctx.db.shard(src).remove(src).ok_or(CmdError::NoSuchKey)?;
    let (stamps, expire_at) = (node.stamps(), node.expire_at());
    let shard = ctx.db.shard(dst);
    shard.insert(dst, node.into_value(), expire_at, now);
    // Redis moves the object itself, so its LRU/LFU history follows the new name; a renamed
    // hot key must not look brand new to the eviction policy. The stamps are not accounted
    // bytes, so copying them leaves memory accounting alone.
    shard.set_stamps(dst, stamps);
    if replaced {
        // Redis deletes the old destination and adds the key anew.
        ctx.notify(class::NEW, "new", dst);
    }
    ctx.notify(class::GENERIC, "rename_from", src);
    ctx.notify(class::GENERIC, "rename_to", dst);
    Ok(true)
}

/// Marks the given keys as just used and answers how many exist (a key named twice counts
/// twice). Like Redis, each key counts as a keyspace hit or miss.
///
/// ```text
/// TOUCH key [key ...]
/// ```
pub fn touch(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let now = ctx.now;
    let found = args.rest().iter().filter(|key| ctx.db.read(key, now).is_some()).count();
    Ok(Reply::Int(found as i64))
}

/// OBJECT's and MEMORY's HELP as Redis's `addReplyHelp` builds it: a header naming the
/// container, the subcommands, then HELP itself.
pub(super) fn container_help(ctx: &Ctx<'_>, lines: &[&str]) -> Reply {
    let container = ctx.cmd.container().unwrap_or(ctx.cmd.name);
    let mut out = vec![Reply::status(format!("{container} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"))];
    out.extend(lines.iter().map(|l| Reply::status(*l)));
    out.push(Reply::status("HELP"));
    out.push(Reply::status("    Print this help."));
    Reply::Array(out)
}
