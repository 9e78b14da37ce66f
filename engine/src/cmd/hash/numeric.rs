//! Fields as numbers: HINCRBY and HINCRBYFLOAT (INCRBYFLOAT's long double arithmetic).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::format_i64;
use crate::num::long_double::{self, Num};
use crate::num::parse_i64;
use crate::reply::Reply;

use super::upsert;

/// HINCRBY: adds an integer to a field's integer value (0 if missing; the hash is created)
/// and answers the result.
///
/// ```text
/// HINCRBY key field increment
/// ```
pub fn hincrby(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let field = args.bytes()?;
    let incr = args.int()?;
    let value = upsert(ctx, key, |h| {
        let current = match h.get(field) {
            Some(v) => parse_i64(v).ok_or_else(|| CmdError::err("hash value is not an integer"))?,
            None => 0,
        };
        let next = current.checked_add(incr).ok_or(CmdError::Overflow)?;
        let mut buf = [0u8; 20];
        h.set_keep_ttl(field, format_i64(next, &mut buf));
        Ok(next)
    })?;
    ctx.notify(class::HASH, "hincrby", key);
    Ok(Reply::Int(value))
}

/// HINCRBYFLOAT: adds a decimal number to a field's number (0 if missing; the hash is
/// created) and answers the result as text. Computed in `long double` and printed as
/// INCRBYFLOAT does, so 0.1 + 0.2 gives "0.3" as in Redis.
///
/// ```text
/// HINCRBYFLOAT key field increment
/// ```
pub fn hincrbyfloat(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let field = args.bytes()?;
    let incr = long_double::parse(args.bytes()?).ok_or(CmdError::NotFloat)?;
    if incr == Num::Infinite {
        return Err(CmdError::err("value is NaN or Infinity"));
    }
    let text = upsert(ctx, key, |h| {
        let current = match h.get(field) {
            Some(v) => long_double::parse(v).ok_or_else(|| CmdError::err("hash value is not a float"))?,
            None => long_double::parse(b"0").ok_or(CmdError::NotFloat)?,
        };
        let sum =
            long_double::add(current, incr).ok_or_else(|| CmdError::err("increment would produce NaN or Infinity"))?;
        let text = long_double::format_fixed17(sum);
        h.set_keep_ttl(field, text.as_bytes());
        Ok(text)
    })?;
    ctx.notify(class::HASH, "hincrbyfloat", key);
    Ok(Reply::Bulk(text.into_bytes()))
}
