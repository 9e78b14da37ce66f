//! The EXPIRE family (EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT with NX/XX/GT/LT), the TTL family
//! (TTL, PTTL, EXPIRETIME, PEXPIRETIME) and PERSIST.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::{c_str_lossy, CmdError};
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;

/// Sets a key's time to live in seconds.
///
/// ```text
/// EXPIRE key seconds [NX | XX | GT | LT]
/// ```
pub fn expire(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let base = unix_ms(ctx.now);
    expire_generic(ctx, args, base, Unit::Seconds)
}

/// Sets a key's time to live in milliseconds.
///
/// ```text
/// PEXPIRE key milliseconds [NX | XX | GT | LT]
/// ```
pub fn pexpire(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let base = unix_ms(ctx.now);
    expire_generic(ctx, args, base, Unit::Millis)
}

/// Sets a key to expire at a Unix time in seconds.
///
/// ```text
/// EXPIREAT key unix-time-seconds [NX | XX | GT | LT]
/// ```
pub fn expireat(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    expire_generic(ctx, args, 0, Unit::Seconds)
}

/// Sets a key to expire at a Unix time in milliseconds.
///
/// ```text
/// PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]
/// ```
pub fn pexpireat(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    expire_generic(ctx, args, 0, Unit::Millis)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Seconds,
    Millis,
}

/// The NX/XX/GT/LT conditions of the EXPIRE family.
#[derive(Default)]
struct ExpireCond {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
}

impl ExpireCond {
    /// Parses the trailing options as Redis's `parseExtendedExpireArgumentsOrReply`.
    fn parse(opts: &[&[u8]]) -> Result<ExpireCond, CmdError> {
        let mut c = ExpireCond::default();
        for opt in opts {
            if opt.eq_ignore_ascii_case(b"NX") {
                c.nx = true;
            } else if opt.eq_ignore_ascii_case(b"XX") {
                c.xx = true;
            } else if opt.eq_ignore_ascii_case(b"GT") {
                c.gt = true;
            } else if opt.eq_ignore_ascii_case(b"LT") {
                c.lt = true;
            } else {
                // As Redis's `addReplyErrorFormat`: the option up to a NUL byte, and CR/LF
                // trimmed off the end of the text (inside it they become spaces later).
                let opt = c_str_lossy(opt, usize::MAX);
                return Err(CmdError::err(format!("Unsupported option {}", opt.trim_end_matches(['\r', '\n']))));
            }
        }
        if c.nx && (c.xx || c.gt || c.lt) {
            return Err(CmdError::err("NX and XX, GT or LT options at the same time are not compatible"));
        }
        if c.gt && c.lt {
            return Err(CmdError::err("GT and LT options at the same time are not compatible"));
        }
        Ok(c)
    }

    /// Whether a key whose expiry is `current` (`None` = no TTL) may take the expiry `when`.
    /// A key without a TTL counts as living forever: GT never passes, LT always does.
    fn allows(&self, current: Option<i64>, when: i64) -> bool {
        if self.nx && current.is_some() || self.xx && current.is_none() {
            return false;
        }
        if self.gt && !matches!(current, Some(c) if when > c) {
            return false;
        }
        !(self.lt && current.is_some_and(|c| when >= c))
    }
}

/// EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT, in Redis's order of checks: options, integer,
/// overflow, then the key. `base` is what the argument counts from (now, or 0 for the *AT
/// forms), in unix ms. An expiry at or before now deletes the key and still answers 1.
fn expire_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, base: i64, unit: Unit) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let param = args.bytes()?;
    let cond = ExpireCond::parse(args.rest())?;
    let mut when = parse_i64(param).ok_or(CmdError::NotInteger)?;
    let cmd = ctx.cmd;
    let invalid = || CmdError::InvalidExpire(cmd.full_name());
    if unit == Unit::Seconds {
        when = when.checked_mul(1000).ok_or_else(invalid)?;
    }
    let when = when.checked_add(base).ok_or_else(invalid)?;

    let now = ctx.now;
    let Some(entry) = ctx.db.lookup(key, now) else {
        return Ok(Reply::Int(0));
    };
    let current = entry.has_ttl().then(|| i64::try_from(entry.expire_at).unwrap_or(i64::MAX));
    if !cond.allows(current, when) {
        return Ok(Reply::Int(0));
    }
    let shard = ctx.db.shard(key);
    match u64::try_from(when) {
        Ok(at) if at > now => {
            shard.set_expire(key, at, now);
            ctx.notify(class::GENERIC, "expire", key);
        }
        _ => {
            shard.remove(key);
            ctx.notify(class::GENERIC, "del", key);
        }
    }
    Ok(Reply::Int(1))
}

/// Answers a key's remaining time to live in seconds (rounded to the nearest second), -1
/// when it has no TTL, -2 when there is no such key.
///
/// ```text
/// TTL key
/// ```
pub fn ttl(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, Unit::Seconds, false)
}

/// Answers a key's remaining time to live in milliseconds, -1 when it has no TTL, -2 when
/// there is no such key.
///
/// ```text
/// PTTL key
/// ```
pub fn pttl(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, Unit::Millis, false)
}

/// Answers the Unix time in seconds at which a key expires, -1 when it has no TTL, -2 when
/// there is no such key.
///
/// ```text
/// EXPIRETIME key
/// ```
pub fn expiretime(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, Unit::Seconds, true)
}

/// Answers the Unix time in milliseconds at which a key expires, -1 when it has no TTL, -2
/// when there is no such key.
///
/// ```text
/// PEXPIRETIME key
/// ```
pub fn pexpiretime(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, Unit::Millis, true)
}

/// TTL, PTTL, EXPIRETIME and PEXPIRETIME. Seconds round to nearest as Redis's
/// `(ms + 500) / 1000`. Inspection only: the key's access time is left alone.
fn ttl_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, unit: Unit, absolute: bool) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let now = ctx.now;
    let Some(entry) = ctx.db.peek(key, now) else {
        ctx.notify(class::KEY_MISS, "keymiss", key);
        return Ok(Reply::Int(-2));
    };
    if !entry.has_ttl() {
        return Ok(Reply::Int(-1));
    }
    let ms = if absolute { entry.expire_at } else { entry.expire_at.saturating_sub(now) };
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    Ok(Reply::Int(match unit {
        Unit::Millis => ms,
        Unit::Seconds => ms.saturating_add(500) / 1000,
    }))
}

/// Removes a key's TTL; answers 1 when it had one, 0 when it had none or does not exist.
///
/// ```text
/// PERSIST key
/// ```
pub fn persist(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let now = ctx.now;
    let had_ttl = ctx.db.lookup(key, now).is_some_and(|e| e.has_ttl());
    if had_ttl {
        ctx.db.shard(key).set_expire(key, 0, now);
        ctx.notify(class::GENERIC, "persist", key);
    }
    Ok(Reply::Int(had_ttl as i64))
}

/// Unix milliseconds as Redis's signed time type.
fn unix_ms(now: u64) -> i64 {
    i64::try_from(now).unwrap_or(i64::MAX)
}
