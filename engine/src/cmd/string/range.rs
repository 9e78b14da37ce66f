//! Byte ranges of a string: APPEND, STRLEN, GETRANGE (and SUBSTR) and SETRANGE (with SETRANGE's growth
//! estimate).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;

use super::{check_length, default_expiry, store, str_mut, str_of};

/// APPEND: appends to the string at a key (creating it) and returns the new length.
///
/// ```text
/// APPEND key value
/// ```
pub fn append(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let tail = args.bytes()?;
    let max = ctx.engine.config().proto_max_bulk_len();
    let updated = ctx.db.shard(key).update(key, ctx.now, |v| {
        let s = str_mut(v)?;
        check_length(s.len() as u64, tail.len() as u64, max)?;
        // Exact capacity: memory accounting counts capacity, so no growth slack is hidden.
        s.reserve_exact(tail.len());
        s.extend_from_slice(tail);
        Ok::<_, CmdError>(s.len())
    });
    let len = match updated {
        Some(result) => result?,
        None => {
            let expire_at = default_expiry(ctx);
            store(ctx, key, tail, expire_at);
            tail.len()
        }
    };
    ctx.notify(class::STRING, "append", key);
    Ok(Reply::Int(len as i64))
}

/// STRLEN: the length of the string at a key (0 if missing).
///
/// ```text
/// STRLEN key
/// ```
pub fn strlen(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    match ctx.db.read(key, ctx.now) {
        Some(entry) => Ok(Reply::Int(str_of(entry)?.len() as i64)),
        None => Ok(Reply::Int(0)),
    }
}

/// GETRANGE: the substring between two inclusive offsets; negative offsets count from the end.
///
/// ```text
/// GETRANGE key start end
/// ```
pub fn getrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let start = args.int()?;
    let end = args.int()?;
    match ctx.db.read(key, ctx.now) {
        Some(entry) => Ok(Reply::bulk(substring(str_of(entry)?, start, end))),
        None => Ok(Reply::bulk("")),
    }
}

/// SUBSTR: GETRANGE under its old name (Redis keeps it as a separate command row).
///
/// ```text
/// SUBSTR key start end
/// ```
pub fn substr(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    getrange(ctx, args)
}

/// The bytes GETRANGE returns, with Redis's index rules.
fn substring(s: &[u8], start: i64, end: i64) -> &[u8] {
    let len = s.len() as i64;
    if start < 0 && end < 0 && start > end {
        return &[];
    }
    let start = if start < 0 { len + start } else { start }.max(0);
    let end = if end < 0 { len + end } else { end }.max(0).min(len - 1);
    if start > end || len == 0 {
        return &[];
    }
    &s[start as usize..=end as usize]
}

/// SETRANGE: overwrites part of the string at a key from an offset, padding with zero bytes,
/// and returns the new length. Setting nothing on a missing key creates nothing.
///
/// ```text
/// SETRANGE key offset value
/// ```
pub fn setrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let offset = args.int()?;
    let value = args.bytes()?;
    let offset = u64::try_from(offset).map_err(|_| CmdError::err("offset is out of range"))?;
    let max = ctx.engine.config().proto_max_bulk_len();
    let updated = ctx.db.shard(key).update(key, ctx.now, |v| {
        let s = str_mut(v)?;
        if value.is_empty() {
            return Ok(s.len());
        }
        let (start, end) = write_span(offset, value.len(), max)?;
        if end > s.len() {
            s.reserve_exact(end - s.len());
            s.resize(end, 0);
        }
        s[start..end].copy_from_slice(value);
        Ok::<_, CmdError>(s.len())
    });
    let len = match updated {
        Some(result) => result?,
        None if value.is_empty() => 0,
        None => {
            let (start, end) = write_span(offset, value.len(), max)?;
            let mut s = vec![0; end];
            s[start..].copy_from_slice(value);
            let expire_at = default_expiry(ctx);
            store(ctx, key, &s, expire_at);
            end
        }
    };
    if !value.is_empty() {
        ctx.notify(class::STRING, "setrange", key);
    }
    Ok(Reply::Int(len as i64))
}

/// Where SETRANGE writes: `offset..offset + len`, refused past `proto-max-bulk-len`.
fn write_span(offset: u64, len: usize, max: u64) -> Result<(usize, usize), CmdError> {
    check_length(offset, len as u64, max)?;
    let start = usize::try_from(offset).map_err(|_| CmdError::StringTooLong)?;
    let end = start.checked_add(len).ok_or(CmdError::StringTooLong)?;
    Ok((start, end))
}

/// Bytes SETRANGE may add: its offset.
pub fn setrange_growth(argv: &[&[u8]]) -> usize {
    argv.get(2).and_then(|a| crate::num::parse_i64(a)).map(|n| n.max(0) as usize).unwrap_or(0)
}
