//! Strings as numbers: INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::format_i64;
use crate::num::long_double;
use crate::num::parse_i64;
use crate::reply::Reply;

use super::{default_expiry, store, str_mut};

/// INCR: adds one to the integer at a key (0 if missing) and returns the result.
///
/// ```text
/// INCR key
/// ```
pub fn incr(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    incr_by(ctx, key, 1)
}

/// DECR: subtracts one from the integer at a key (0 if missing) and returns the result.
///
/// ```text
/// DECR key
/// ```
pub fn decr(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    incr_by(ctx, key, -1)
}

/// INCRBY: adds an integer to the integer at a key (0 if missing) and returns the result.
///
/// ```text
/// INCRBY key increment
/// ```
pub fn incrby(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let incr = args.int()?;
    incr_by(ctx, key, incr)
}

/// DECRBY: subtracts an integer from the integer at a key (0 if missing) and returns the result.
///
/// ```text
/// DECRBY key decrement
/// ```
pub fn decrby(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let decr = args.int()?;
    let incr = decr.checked_neg().ok_or_else(|| CmdError::err("decrement would overflow"))?;
    incr_by(ctx, key, incr)
}

fn incr_by(ctx: &mut Ctx<'_>, key: &[u8], incr: i64) -> Result<Reply, CmdError> {
    let updated = ctx.db.shard(key).update(key, ctx.now, |v| {
        let s = str_mut(v)?;
        let current = parse_i64(s).ok_or(CmdError::NotInteger)?;
        let next = current.checked_add(incr).ok_or(CmdError::Overflow)?;
        *s = int_bytes(next);
        Ok::<_, CmdError>(next)
    });
    let value = match updated {
        Some(result) => result?,
        None => {
            let expire_at = default_expiry(ctx);
            store(ctx, key, &int_bytes(incr), expire_at);
            incr
        }
    };
    ctx.notify(class::STRING, "incrby", key);
    Ok(Reply::Int(value))
}

fn int_bytes(n: i64) -> Vec<u8> {
    let mut buf = [0u8; 20];
    format_i64(n, &mut buf).to_vec()
}

/// INCRBYFLOAT: adds a decimal number to the number at a key (0 if missing) and returns the
/// result as text. Computed in `long double` and printed with `%.17Lf`, trailing zeros
/// trimmed, exactly as Redis on x86-64 does, so 0.1 + 0.2 gives "0.3".
///
/// ```text
/// INCRBYFLOAT key increment
/// ```
pub fn incrbyfloat(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let incr = args.bytes()?;
    let updated = ctx.db.shard(key).update(key, ctx.now, |v| {
        let s = str_mut(v)?;
        let text = add_float(s, incr)?;
        *s = text.clone();
        Ok::<_, CmdError>(text)
    });
    let text = match updated {
        Some(result) => result?,
        None => {
            let text = add_float(b"0", incr)?;
            let expire_at = default_expiry(ctx);
            store(ctx, key, &text, expire_at);
            text
        }
    };
    ctx.notify(class::STRING, "incrbyfloat", key);
    Ok(Reply::Bulk(text))
}

/// `current + incr` as INCRBYFLOAT stores it.
fn add_float(current: &[u8], incr: &[u8]) -> Result<Vec<u8>, CmdError> {
    let a = long_double::parse(current).ok_or(CmdError::NotFloat)?;
    let b = long_double::parse(incr).ok_or(CmdError::NotFloat)?;
    let sum = long_double::add(a, b).ok_or_else(|| CmdError::err("increment would produce NaN or Infinity"))?;
    Ok(long_double::format_fixed17(sum).into_bytes())
}
