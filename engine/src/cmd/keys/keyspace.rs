//! Commands over the whole keyspace: KEYS and SCAN walk it, RANDOMKEY samples it, DBSIZE
//! counts it, FLUSHDB and FLUSHALL empty it. Each acts on the session's database, except
//! FLUSHALL, which empties every one.

use crate::args::Args;
use crate::cmd::collection::{scan_cursor, scan_reply, ScanOf, ScanOptions};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::glob;
use crate::reply::Reply;

/// Answers every key name that matches a glob pattern. Walks the whole keyspace.
///
/// ```text
/// KEYS pattern
/// ```
pub fn keys(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let pattern = args.bytes()?;
    let match_all = pattern == b"*";
    let mut found = Vec::new();
    // Through `ctx.db`, so inside an EXEC that holds every shard the walk uses those locks.
    ctx.db.for_each(ctx.now, |key, _| {
        if match_all || glob::matches(pattern, key) {
            found.push(Reply::bulk(key));
        }
    });
    Ok(Reply::Array(found))
}

/// One step of an iteration over the keyspace: answers the next cursor (0 when done) and
/// some keys. Every key that exists for the whole iteration is returned at least once.
///
/// ```text
/// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
/// ```
pub fn scan(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let cursor = scan_cursor(args.bytes()?)?;
    let opts = ScanOptions::parse(args, ScanOf::Keyspace)?;
    let mut found = Vec::new();
    let next = ctx.db.scan(cursor, opts.count, ctx.now, |key, entry| {
        // Redis 7 accepts an unknown type name and simply matches nothing.
        if opts.type_name.is_some_and(|t| !t.eq_ignore_ascii_case(entry.value.type_name().as_bytes())) {
            return;
        }
        if opts.matches(key) {
            found.push(Reply::bulk(key));
        }
    });
    Ok(scan_reply(next, found))
}

/// Parses a SCAN cursor as Redis does with `strtoul`: decimal digits with an optional sign
/// (a `-` wraps around), no whitespace, nothing after the digits, within 64 bits. An empty
/// string is cursor 0, as `strtoul` reads it.
pub(crate) fn parse_cursor(s: &[u8]) -> Option<u64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        Some(_) => (false, s),
        None => return Some(0),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// Answers a random key name, or nil when the keyspace is empty.
///
/// ```text
/// RANDOMKEY
/// ```
pub fn randomkey(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::opt_bulk(ctx.db.random_key(ctx.now)))
}

/// Answers the number of keys (as Redis, this counts expired keys not yet collected).
///
/// ```text
/// DBSIZE
/// ```
pub fn dbsize(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(ctx.db.len() as i64))
}

/// Deletes every key in the database. ASYNC and SYNC are accepted; both free at once.
///
/// ```text
/// FLUSHDB [ASYNC | SYNC]
/// ```
pub fn flushdb(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    flush_mode(args)?;
    ctx.db.flush(ctx.now);
    ctx.engine.tracking_flushed(ctx.session, ctx.now);
    Ok(Reply::Ok)
}

/// Deletes every key in every database. ASYNC and SYNC are accepted; both free at once.
///
/// ```text
/// FLUSHALL [ASYNC | SYNC]
/// ```
pub fn flushall(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    flush_mode(args)?;
    ctx.db.flush_all(ctx.now);
    ctx.engine.tracking_flushed(ctx.session, ctx.now);
    Ok(Reply::Ok)
}

/// FLUSHDB's and FLUSHALL's optional ASYNC or SYNC.
fn flush_mode(args: &mut Args<'_>) -> Result<(), CmdError> {
    if !args.is_empty() && !args.flag("ASYNC") && !args.flag("SYNC") {
        return Err(CmdError::Syntax);
    }
    args.finish()
}
