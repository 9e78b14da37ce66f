//! GET, SET with its options (NX/XX/IFEQ/IFNE/IFDEQ/IFDNE/GET/EX/PX/EXAT/PXAT/KEEPTTL), SETNX,
//! SETEX, PSETEX, GETSET, GETDEL and GETEX.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::Value;
use crate::table::Command;

use super::conditional::Compare;
use super::{default_expiry, store, str_of};

/// GET: the string at a key, or nil.
///
/// ```text
/// GET key
/// ```
pub fn get(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    match ctx.db.read(key, ctx.now) {
        Some(entry) => Ok(Reply::bulk(str_of(entry)?)),
        None => Ok(Reply::Nil),
    }
}

/// SET: stores a string, optionally only if the key is absent (NX) or present (XX), or only
/// if its string equals or differs from a value (IFEQ/IFNE, Valkey 8.1+ and Redis 8.4) or
/// a digest (IFDEQ/IFDNE, Redis 8.4), with an expiry, keeping the old TTL (KEEPTTL), and
/// returning the old value (GET).
///
/// ```text
/// SET key value [NX | XX | IFEQ ifeq-value | IFNE ifne-value | IFDEQ ifdeq-digest |
///     IFDNE ifdne-digest] [GET] [EX seconds | PX milliseconds |
///     EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
/// ```
pub fn set(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let value = args.bytes()?;
    let opts = parse_options(args, Family::Set)?;
    let ttl = match opts.ttl {
        TtlOpt::Expire(unit, arg) => Ttl::At(resolve_expire(unit, arg, ctx.now, ctx.cmd)?),
        TtlOpt::KeepTtl => Ttl::Keep,
        TtlOpt::Unset | TtlOpt::Persist => Ttl::Default,
    };
    let written = set_generic(ctx, key, value, opts.cond, opts.get, ttl)?;
    Ok(if opts.get {
        Reply::opt_bulk(written.old)
    } else if written.done {
        Reply::Ok
    } else {
        Reply::Nil
    })
}

/// SETNX: stores a string only if the key does not exist; 1 if it was set, 0 if not.
///
/// ```text
/// SETNX key value
/// ```
pub fn setnx(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let value = args.bytes()?;
    let written = set_generic(ctx, key, value, Cond::Nx, false, Ttl::Default)?;
    Ok(Reply::Int(written.done as i64))
}

/// SETEX: stores a string that expires after a number of seconds.
///
/// ```text
/// SETEX key seconds value
/// ```
pub fn setex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    set_with_expire(ctx, args, Unit::Ex)
}

/// PSETEX: stores a string that expires after a number of milliseconds.
///
/// ```text
/// PSETEX key milliseconds value
/// ```
pub fn psetex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    set_with_expire(ctx, args, Unit::Px)
}

fn set_with_expire(ctx: &mut Ctx<'_>, args: &mut Args<'_>, unit: Unit) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let time = args.bytes()?;
    let value = args.bytes()?;
    let at = resolve_expire(unit, time, ctx.now, ctx.cmd)?;
    set_generic(ctx, key, value, Cond::Always, false, Ttl::At(at))?;
    Ok(Reply::Ok)
}

/// GETSET: stores a string and returns the old one (nil if none). Clears the TTL.
///
/// ```text
/// GETSET key value
/// ```
pub fn getset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let value = args.bytes()?;
    let written = set_generic(ctx, key, value, Cond::Always, true, Ttl::Default)?;
    Ok(Reply::opt_bulk(written.old))
}

/// GETDEL: returns the string at a key and deletes the key.
///
/// ```text
/// GETDEL key
/// ```
pub fn getdel(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let Some(entry) = ctx.db.read(key, ctx.now) else {
        return Ok(Reply::Nil);
    };
    str_of(entry)?;
    let removed = ctx.db.shard(key).remove(key);
    if removed.is_some() {
        ctx.notify(class::GENERIC, "del", key);
    }
    Ok(match removed {
        Some(node) => match node.into_value() {
            Value::Str(s) => Reply::Bulk(s),
            _ => Reply::Nil,
        },
        None => Reply::Nil,
    })
}

/// GETEX: returns the string at a key and optionally sets (EX, PX, EXAT, PXAT) or removes
/// (PERSIST) its expiry. An absolute time already past deletes the key.
///
/// ```text
/// GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds |
///     PXAT unix-time-milliseconds | PERSIST]
/// ```
pub fn getex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let opts = parse_options(args, Family::GetEx)?;
    let now = ctx.now;
    let Some(entry) = ctx.db.read(key, now) else {
        return Ok(Reply::Nil);
    };
    let value = str_of(entry)?.to_vec();
    match opts.ttl {
        TtlOpt::Expire(unit, arg) => {
            let at = resolve_expire(unit, arg, now, ctx.cmd)?;
            let shard = ctx.db.shard(key);
            // A relative time is never in the past here (it is positive); EXAT/PXAT can be.
            if at <= now && matches!(unit, Unit::ExAt | Unit::PxAt) {
                shard.remove(key);
                ctx.notify(class::GENERIC, "del", key);
            } else {
                shard.set_expire(key, at, now);
                ctx.notify(class::GENERIC, "expire", key);
            }
        }
        TtlOpt::Persist => {
            let shard = ctx.db.shard(key);
            if shard.lookup(key, now, crate::store::Touch::No).is_some_and(|e| e.expire_at != 0) {
                shard.set_expire(key, 0, now);
                ctx.notify(class::GENERIC, "persist", key);
            }
        }
        TtlOpt::Unset | TtlOpt::KeepTtl => {}
    }
    Ok(Reply::Bulk(value))
}

/// SET's condition: none, NX, XX, or a comparison with the current string.
#[derive(Clone, Copy)]
enum Cond<'a> {
    Always,
    Nx,
    Xx,
    Compare(Compare<'a>),
}

/// What a SET-family write does with the TTL.
#[derive(Clone, Copy)]
enum Ttl {
    /// Replace it with `default-ttl` (none unless configured), as a plain SET clears it.
    Default,
    /// Keep the existing key's TTL (a new key gets the default).
    Keep,
    /// Expire at this unix-ms time.
    At(u64),
}

/// The outcome of `set_generic`: whether it wrote, and the old string when asked for it.
struct Written {
    done: bool,
    old: Option<Vec<u8>>,
}

/// Redis's `setGenericCommand`: the old value first when `get` (WRONGTYPE if it is not a
/// string, before anything changes), then the condition, then the write. A comparison
/// (IFEQ ...) needs a string too, GET or not; on a missing key IFEQ/IFDEQ do not write and
/// IFNE/IFDNE do, as Redis 8.4 documents.
fn set_generic(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    value: &[u8],
    cond: Cond<'_>,
    get: bool,
    ttl: Ttl,
) -> Result<Written, CmdError> {
    let now = ctx.now;
    if !get && matches!(cond, Cond::Always) && !matches!(ttl, Ttl::Keep) {
        // A plain SET needs nothing from the old entry: one lookup (the insert's) instead of
        // two. The insert still counts an expired old entry as expired, as a lookup would.
        let expire_at = if let Ttl::At(at) = ttl { at } else { default_expiry(ctx) };
        store(ctx, key, value, expire_at);
        notify_set(ctx, key, ttl);
        return Ok(Written { done: true, old: None });
    }
    // Returning the old value is a read (counted as a hit or miss, as Redis does).
    let existing = if get { ctx.db.read(key, now) } else { ctx.db.lookup(key, now) };
    let (found, old_expire, old, holds) = match existing {
        Some(entry) => {
            let holds = match cond {
                Cond::Compare(compare) => compare.holds(Some(str_of(entry)?)),
                Cond::Always | Cond::Nx | Cond::Xx => true,
            };
            (true, entry.expire_at, if get { Some(str_of(entry)?.to_vec()) } else { None }, holds)
        }
        None => (false, 0, None, if let Cond::Compare(compare) = cond { compare.holds(None) } else { true }),
    };
    let refused = match cond {
        Cond::Nx => found,
        Cond::Xx => !found,
        Cond::Compare(_) => !holds,
        Cond::Always => false,
    };
    if refused {
        // Nothing written: a WATCH on the key survives, as Redis signals only `setKey`.
        ctx.leave_unchanged(0);
        return Ok(Written { done: false, old });
    }
    let expire_at = match ttl {
        Ttl::At(at) => at,
        Ttl::Keep if found => old_expire,
        Ttl::Keep | Ttl::Default => default_expiry(ctx),
    };
    store(ctx, key, value, expire_at);
    notify_set(ctx, key, ttl);
    Ok(Written { done: true, old })
}

/// SET's events: `set`, then `expire` when it gave the key a TTL.
fn notify_set(ctx: &Ctx<'_>, key: &[u8], ttl: Ttl) {
    ctx.notify(class::STRING, "set", key);
    if let Ttl::At(at) = ttl {
        ctx.notify(class::GENERIC, "expire", key);
        // A time already past stores nothing here; Redis 7.0 stores a key that the next
        // lookup (or its active cycle) expires, so its subscribers hear `expired` next.
        if at <= ctx.now {
            ctx.notify(class::EXPIRED, "expired", key);
        }
    }
}

/// The unit of an expiry option.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Unit {
    Ex,
    Px,
    ExAt,
    PxAt,
}

/// The TTL clause of SET or GETEX.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum TtlOpt<'a> {
    Unset,
    Expire(Unit, &'a [u8]),
    KeepTtl,
    Persist,
}

/// Which command's options are being parsed: SET takes NX/XX/GET/KEEPTTL, GETEX PERSIST.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Set,
    GetEx,
}

struct Options<'a> {
    cond: Cond<'a>,
    get: bool,
    ttl: TtlOpt<'a>,
}

/// Redis's `parseExtendedStringArgumentsOrReply`: options in any order; repeating one is
/// fine (the last expiry wins) but conflicting ones (two conditions of different kinds, two
/// kinds of expiry, KEEPTTL or PERSIST with an expiry) are a syntax error, as is an option
/// with no value.
fn parse_options<'a>(args: &mut Args<'a>, family: Family) -> Result<Options<'a>, CmdError> {
    let set = family == Family::Set;
    let mut o = Options { cond: Cond::Always, get: false, ttl: TtlOpt::Unset };
    while !args.is_empty() {
        let opt = args.bytes()?;
        let is = |name: &str| opt.eq_ignore_ascii_case(name.as_bytes());
        let unit = if is("EX") {
            Some(Unit::Ex)
        } else if is("PX") {
            Some(Unit::Px)
        } else if is("EXAT") {
            Some(Unit::ExAt)
        } else if is("PXAT") {
            Some(Unit::PxAt)
        } else {
            None
        };
        let compare = if set { Compare::kind(opt) } else { None };
        if set && is("NX") && matches!(o.cond, Cond::Always | Cond::Nx) {
            o.cond = Cond::Nx;
        } else if set && is("XX") && matches!(o.cond, Cond::Always | Cond::Xx) {
            o.cond = Cond::Xx;
        } else if let Some(kind) = compare {
            let compatible = match o.cond {
                Cond::Always => true,
                Cond::Compare(c) => c.same_kind(kind(&[])),
                Cond::Nx | Cond::Xx => false,
            };
            if !compatible || args.is_empty() {
                return Err(CmdError::Syntax);
            }
            let compare = kind(args.bytes()?);
            super::conditional::check_digest(compare)?;
            o.cond = Cond::Compare(compare);
        } else if set && is("GET") {
            o.get = true;
        } else if set && is("KEEPTTL") && matches!(o.ttl, TtlOpt::Unset | TtlOpt::KeepTtl) {
            o.ttl = TtlOpt::KeepTtl;
        } else if !set && is("PERSIST") && matches!(o.ttl, TtlOpt::Unset | TtlOpt::Persist) {
            o.ttl = TtlOpt::Persist;
        } else if let Some(unit) = unit {
            let compatible = match o.ttl {
                TtlOpt::Unset => true,
                TtlOpt::Expire(u, _) => u == unit,
                TtlOpt::KeepTtl | TtlOpt::Persist => false,
            };
            if !compatible || args.is_empty() {
                return Err(CmdError::Syntax);
            }
            o.ttl = TtlOpt::Expire(unit, args.bytes()?);
        } else {
            return Err(CmdError::Syntax);
        }
    }
    Ok(o)
}

/// Redis's `getExpireMillisecondsOrReply`: an absolute unix-ms time from an expiry option.
/// Zero, negative, or overflowing (seconds to ms, or now + ms) is an invalid expire time.
fn resolve_expire(unit: Unit, arg: &[u8], now: u64, cmd: &Command) -> Result<u64, CmdError> {
    let n = parse_i64(arg).ok_or(CmdError::NotInteger)?;
    let invalid = || CmdError::InvalidExpire(cmd.full_name());
    if n <= 0 {
        return Err(invalid());
    }
    let ms = match unit {
        Unit::Ex | Unit::ExAt => n.checked_mul(1000).ok_or_else(invalid)?,
        Unit::Px | Unit::PxAt => n,
    };
    let at = match unit {
        Unit::Ex | Unit::Px => ms.checked_add(i64::try_from(now).unwrap_or(i64::MAX)).ok_or_else(invalid)?,
        Unit::ExAt | Unit::PxAt => ms,
    };
    Ok(at as u64)
}
