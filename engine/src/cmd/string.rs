//! String commands: GET and the SET family, MGET/MSET, GETEX/GETDEL, APPEND, ranges, integer
//! counters and INCRBYFLOAT (computed in x87 extended precision, as Redis does on x86-64).

use crate::args::{parse_i64, Args};
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::reply::{format_i64, Reply};
use crate::store::entry::{Entry, Value, ValueRef};

use super::long_double;

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

/// SET: stores a string, optionally only if the key is absent (NX) or present (XX), with an
/// expiry, keeping the old TTL (KEEPTTL), and returning the old value (GET).
///
/// ```text
/// SET key value [NX | XX] [GET] [EX seconds | PX milliseconds |
///     EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
/// ```
pub fn set(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let value = args.bytes()?;
    let opts = parse_options(args, Family::Set)?;
    let ttl = match opts.ttl {
        TtlOpt::Expire(unit, arg) => Ttl::At(resolve_expire(unit, arg, ctx.now, "set")?),
        TtlOpt::KeepTtl => Ttl::Keep,
        TtlOpt::Unset | TtlOpt::Persist => Ttl::Default,
    };
    let cond = Cond { nx: opts.nx, xx: opts.xx };
    let written = set_generic(ctx, key, value, cond, opts.get, ttl)?;
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
    let cond = Cond { nx: true, xx: false };
    let written = set_generic(ctx, key, value, cond, false, Ttl::Default)?;
    Ok(Reply::Int(written.done as i64))
}

/// SETEX: stores a string that expires after a number of seconds.
///
/// ```text
/// SETEX key seconds value
/// ```
pub fn setex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    set_with_expire(ctx, args, Unit::Ex, "setex")
}

/// PSETEX: stores a string that expires after a number of milliseconds.
///
/// ```text
/// PSETEX key milliseconds value
/// ```
pub fn psetex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    set_with_expire(ctx, args, Unit::Px, "psetex")
}

fn set_with_expire(ctx: &mut Ctx<'_>, args: &mut Args<'_>, unit: Unit, cmd: &str) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let time = args.bytes()?;
    let value = args.bytes()?;
    let at = resolve_expire(unit, time, ctx.now, cmd)?;
    set_generic(ctx, key, value, Cond::default(), false, Ttl::At(at))?;
    Ok(Reply::Ok)
}

/// MGET: the strings at several keys; nil for a missing key or one that is not a string.
///
/// ```text
/// MGET key [key ...]
/// ```
pub fn mget(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let now = ctx.now;
    let replies = args
        .rest()
        .iter()
        .map(|key| match ctx.db.read(key, now) {
            Some(entry) => str_of(entry).map_or(Reply::Nil, Reply::bulk),
            None => Reply::Nil,
        })
        .collect();
    Ok(Reply::Array(replies))
}

/// MSET: stores several strings at once, replacing whatever the keys held and their TTLs.
///
/// ```text
/// MSET key value [key value ...]
/// ```
pub fn mset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let pairs = pairs(args, "mset")?;
    set_pairs(ctx, pairs);
    Ok(Reply::Ok)
}

/// MSETNX: stores several strings only if none of the keys exists; 1 if set, 0 if not.
///
/// ```text
/// MSETNX key value [key value ...]
/// ```
pub fn msetnx(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let pairs = pairs(args, "msetnx")?;
    let now = ctx.now;
    for pair in pairs.chunks_exact(2) {
        if ctx.db.lookup(pair[0], now).is_some() {
            return Ok(Reply::Int(0));
        }
    }
    // A key named twice simply takes its last value, as in Redis 7.
    set_pairs(ctx, pairs);
    Ok(Reply::Int(1))
}

/// The key/value arguments of MSET and MSETNX; an odd count is an arity error.
fn pairs<'a>(args: &mut Args<'a>, cmd: &str) -> Result<&'a [&'a [u8]], CmdError> {
    let pairs = args.rest();
    if pairs.len() % 2 == 1 {
        return Err(CmdError::WrongArity(cmd.to_string()));
    }
    Ok(pairs)
}

fn set_pairs(ctx: &mut Ctx<'_>, pairs: &[&[u8]]) {
    let expire_at = default_expiry(ctx);
    for pair in pairs.chunks_exact(2) {
        store(ctx, pair[0], pair[1], expire_at);
    }
}

/// GETSET: stores a string and returns the old one (nil if none). Clears the TTL.
///
/// ```text
/// GETSET key value
/// ```
pub fn getset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let value = args.bytes()?;
    let written = set_generic(ctx, key, value, Cond::default(), true, Ttl::Default)?;
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
    Ok(match ctx.db.shard(key).remove(key) {
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
            let at = resolve_expire(unit, arg, now, "getex")?;
            let shard = ctx.db.shard(key);
            if at <= now {
                shard.remove(key);
            } else {
                shard.set_expire(key, at, now);
            }
        }
        TtlOpt::Persist => {
            ctx.db.shard(key).set_expire(key, 0, now);
        }
        TtlOpt::Unset | TtlOpt::KeepTtl => {}
    }
    Ok(Reply::Bulk(value))
}

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
    argv.get(2).and_then(|a| crate::args::parse_i64(a)).map(|n| n.max(0) as usize).unwrap_or(0)
}

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
    Ok(Reply::Bulk(text))
}

/// `current + incr` as INCRBYFLOAT stores it.
fn add_float(current: &[u8], incr: &[u8]) -> Result<Vec<u8>, CmdError> {
    let a = long_double::parse(current).ok_or(CmdError::NotFloat)?;
    let b = long_double::parse(incr).ok_or(CmdError::NotFloat)?;
    let sum = long_double::add(a, b).ok_or_else(|| CmdError::err("increment would produce NaN or Infinity"))?;
    Ok(long_double::format_fixed17(sum).into_bytes())
}

// --- Shared by the SET family ---------------------------------------------------------------

/// The string an entry holds, or WRONGTYPE.
#[allow(unreachable_patterns)]
fn str_of(entry: Entry<'_>) -> Result<&[u8], CmdError> {
    match entry.value {
        ValueRef::Str(s) => Ok(s),
        _ => Err(CmdError::WrongType),
    }
}

/// The string a value holds, for changing in place, or WRONGTYPE.
#[allow(unreachable_patterns)]
fn str_mut(value: &mut Value) -> Result<&mut Vec<u8>, CmdError> {
    match value {
        Value::Str(s) => Ok(s),
        _ => Err(CmdError::WrongType),
    }
}

/// Redis's `checkStringLength`: a string may not grow past `proto-max-bulk-len`.
fn check_length(size: u64, append: u64, max: u64) -> Result<(), CmdError> {
    match size.checked_add(append) {
        Some(total) if total <= max => Ok(()),
        _ => Err(CmdError::StringTooLong),
    }
}

/// The expiry a key written without an explicit one gets: `default-ttl` from now, or none.
pub(crate) fn default_expiry(ctx: &Ctx<'_>) -> u64 {
    default_expiry_at(ctx.engine, ctx.now)
}

/// [`default_expiry`] for callers without a `Ctx` (a blocked pop served on another client's
/// write).
pub(crate) fn default_expiry_at(engine: &Engine, now: u64) -> u64 {
    match engine.config().default_ttl_ms() {
        0 => 0,
        ttl => now.saturating_add(ttl),
    }
}

/// Writes a string with an absolute expiry (0 = none). A time already past deletes the key
/// instead, so a SET with EXAT/PXAT in the past leaves nothing behind.
fn store(ctx: &mut Ctx<'_>, key: &[u8], value: &[u8], expire_at: u64) {
    let now = ctx.now;
    let shard = ctx.db.shard(key);
    if expire_at != 0 && expire_at <= now {
        shard.remove(key);
    } else {
        shard.insert_str(key, value, expire_at, now);
    }
}

/// NX / XX.
#[derive(Clone, Copy, Default)]
struct Cond {
    nx: bool,
    xx: bool,
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
/// string, before anything changes), then the NX/XX condition, then the write.
fn set_generic(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    value: &[u8],
    cond: Cond,
    get: bool,
    ttl: Ttl,
) -> Result<Written, CmdError> {
    let now = ctx.now;
    if !get && !cond.nx && !cond.xx && !matches!(ttl, Ttl::Keep) {
        // A plain SET needs nothing from the old entry: one lookup (the insert's) instead of
        // two. The insert still counts an expired old entry as expired, as a lookup would.
        let expire_at = if let Ttl::At(at) = ttl { at } else { default_expiry(ctx) };
        store(ctx, key, value, expire_at);
        return Ok(Written { done: true, old: None });
    }
    // Returning the old value is a read (counted as a hit or miss, as Redis does).
    let existing = if get { ctx.db.read(key, now) } else { ctx.db.lookup(key, now) };
    let (found, old_expire, old) = match existing {
        Some(entry) => (true, entry.expire_at, if get { Some(str_of(entry)?.to_vec()) } else { None }),
        None => (false, 0, None),
    };
    if (cond.nx && found) || (cond.xx && !found) {
        return Ok(Written { done: false, old });
    }
    let expire_at = match ttl {
        Ttl::At(at) => at,
        Ttl::Keep if found => old_expire,
        Ttl::Keep | Ttl::Default => default_expiry(ctx),
    };
    store(ctx, key, value, expire_at);
    Ok(Written { done: true, old })
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
    nx: bool,
    xx: bool,
    get: bool,
    ttl: TtlOpt<'a>,
}

/// Redis's `parseExtendedStringArgumentsOrReply`: options in any order; repeating one is
/// fine (the last expiry wins) but conflicting ones (NX with XX, two kinds of expiry,
/// KEEPTTL or PERSIST with an expiry) are a syntax error, as is an expiry with no value.
fn parse_options<'a>(args: &mut Args<'a>, family: Family) -> Result<Options<'a>, CmdError> {
    let set = family == Family::Set;
    let mut o = Options { nx: false, xx: false, get: false, ttl: TtlOpt::Unset };
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
        if set && is("NX") && !o.xx {
            o.nx = true;
        } else if set && is("XX") && !o.nx {
            o.xx = true;
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
fn resolve_expire(unit: Unit, arg: &[u8], now: u64, cmd: &str) -> Result<u64, CmdError> {
    let n = parse_i64(arg).ok_or(CmdError::NotInteger)?;
    let invalid = || CmdError::InvalidExpire(cmd.to_string());
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

#[cfg(test)]
mod tests {
    use crate::reply::Reply;
    use crate::store::entry::{Entry, ValueRef};
    use crate::store::Touch;
    use crate::testing::{arr, bulk, err, int, nil, ok, TestEngine, NOT_FLOAT, NOT_INT, SYNTAX};

    #[test]
    fn a_plain_set_over_an_expired_key_counts_the_expiry() {
        // A plain SET replaces the entry without looking it up first; an old entry that had
        // expired still counts as expired (as Redis's lazy expiry on the write would), and its
        // TTL does not carry over.
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["SET", "k", "old", "PX", "10"]), ok());
        t.advance(20);
        assert_eq!(t.run(&["SET", "k", "new"]), ok());
        assert_eq!(t.engine.snapshot(t.now).expired_keys, 1);
        assert_eq!(t.run(&["GET", "k"]), bulk("new"));
        assert_eq!(t.run(&["PTTL", "k"]), int(-1));
        // A live key's overwrite is not an expiry.
        assert_eq!(t.run(&["SET", "k", "newer", "EX", "100"]), ok());
        assert_eq!(t.run(&["SET", "k", "newest"]), ok());
        assert_eq!(t.engine.snapshot(t.now).expired_keys, 1);
        assert_eq!(t.engine.snapshot(t.now).keys_with_ttl, 0);
    }
    const TOO_LONG: &str = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

    fn engine() -> TestEngine {
        TestEngine::default()
    }

    /// The key's absolute expiry (0 = none), `None` if absent, read without touching it.
    fn expire_at(t: &TestEngine, key: &str) -> Option<u64> {
        let store = t.engine.store();
        let mut shard = store.lock_shard(store.shard_index(key.as_bytes()));
        shard.lookup(key.as_bytes(), t.now, Touch::No).map(|e| e.expire_at)
    }

    /// The stored value's (len, capacity): they must match for accounting to be honest. A
    /// short string is embedded in its entry's node, which is accounted exactly, so its
    /// capacity is its length when the entry is accounted as an embedded one.
    fn len_cap(t: &TestEngine, key: &str) -> (usize, usize) {
        use crate::store::entry::{SLOT_OVERHEAD, TTL_OVERHEAD};
        use crate::store::node::embedded_size;
        let store = t.engine.store();
        let mut shard = store.lock_shard(store.shard_index(key.as_bytes()));
        match shard.lookup(key.as_bytes(), t.now, Touch::No) {
            Some(Entry { value: ValueRef::Str(s), size, expire_at, .. }) => {
                let ttl = if expire_at != 0 { TTL_OVERHEAD } else { 0 };
                let embedded = SLOT_OVERHEAD + ttl + embedded_size(key.len(), s.len(), expire_at != 0);
                (s.len(), if size == embedded { s.len() } else { usize::MAX })
            }
            _ => panic!("{key} missing or not a string"),
        }
    }

    fn hits_misses(t: &TestEngine) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (t.engine.stats().hits.load(Relaxed), t.engine.stats().misses.load(Relaxed))
    }

    fn invalid_expire(cmd: &str) -> Reply {
        err(&format!("ERR invalid expire time in '{cmd}' command"))
    }

    #[test]
    fn get_and_set() {
        let mut t = engine();
        assert_eq!(t.run(&["GET", "k"]), nil());
        assert_eq!(t.run(&["SET", "k", "v"]), ok());
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));
        assert_eq!(t.run(&["SET", "k", "other"]), ok());
        assert_eq!(t.run(&["GET", "k"]), bulk("other"));
        assert_eq!(t.run(&["SET", "e", ""]), ok());
        assert_eq!(t.run(&["GET", "e"]), bulk(""));
        assert_eq!(t.resp(&["GET", "k"]), "$5\r\nother\r\n");
        assert_eq!(t.run(&["get", "k", "x"]), err("ERR wrong number of arguments for 'get' command"));
    }

    #[test]
    fn values_and_keys_are_binary_safe() {
        let mut t = engine();
        let key: &[u8] = b"k\0\r\n";
        let value: &[u8] = b"a\0b\r\nc\xff";
        assert_eq!(t.run(&[&b"SET"[..], key, value]), ok());
        assert_eq!(t.run(&[&b"GET"[..], key]), Reply::Bulk(value.to_vec()));
        assert_eq!(t.run(&[&b"STRLEN"[..], key]), int(7));
        assert_eq!(t.run(&[&b"APPEND"[..], key, b"\0"]), int(8));
        assert_eq!(t.run(&[&b"GETRANGE"[..], key, b"1", b"4"]), Reply::Bulk(b"\0b\r\n".to_vec()));
        assert_eq!(t.run(&[&b"SETRANGE"[..], key, b"0", b"\r\n"]), int(8));
        assert_eq!(t.run(&[&b"GETDEL"[..], key]), Reply::Bulk(b"\r\nb\r\nc\xff\0".to_vec()));
        assert_eq!(t.run(&[&b"MSET"[..], b"\0", b"\n", b"\r", b""]), ok());
        assert_eq!(t.run(&[&b"MGET"[..], b"\0", b"\r"]), arr(vec![bulk("\n"), bulk("")]));
    }

    #[test]
    fn set_nx_and_xx() {
        let mut t = engine();
        assert_eq!(t.run(&["SET", "k", "1", "XX"]), nil());
        assert_eq!(t.run(&["GET", "k"]), nil());
        assert_eq!(t.run(&["SET", "k", "1", "nx"]), ok());
        assert_eq!(t.run(&["SET", "k", "2", "NX"]), nil());
        assert_eq!(t.run(&["GET", "k"]), bulk("1"));
        assert_eq!(t.run(&["SET", "k", "3", "xx"]), ok());
        assert_eq!(t.run(&["GET", "k"]), bulk("3"));
        assert_eq!(t.run(&["SET", "k", "4", "NX", "XX"]), err(SYNTAX));
        assert_eq!(t.run(&["SET", "k", "4", "XX", "NX"]), err(SYNTAX));
        assert_eq!(t.run(&["SET", "k", "4", "XX", "XX"]), ok());
        assert_eq!(t.run(&["SET", "n", "4", "NX", "NX"]), ok());
        assert_eq!(t.run(&["GET", "k"]), bulk("4"));
    }

    #[test]
    fn set_get_returns_the_old_value() {
        let mut t = engine();
        assert_eq!(t.run(&["SET", "k", "1", "GET"]), nil());
        assert_eq!(t.run(&["GET", "k"]), bulk("1"));
        assert_eq!(t.run(&["SET", "k", "2", "get"]), bulk("1"));
        assert_eq!(t.run(&["GET", "k"]), bulk("2"));
        // NX + GET (allowed since Redis 7): the old value comes back and nothing is written.
        assert_eq!(t.run(&["SET", "k", "3", "NX", "GET"]), bulk("2"));
        assert_eq!(t.run(&["GET", "k"]), bulk("2"));
        assert_eq!(t.run(&["SET", "m", "3", "XX", "GET"]), nil());
        assert_eq!(t.run(&["GET", "m"]), nil());
        assert_eq!(t.run(&["SET", "m", "3", "GET", "NX"]), nil());
        assert_eq!(t.run(&["GET", "m"]), bulk("3"));
    }

    #[test]
    fn set_expiry_options() {
        let mut t = engine();
        let now = t.now;
        assert_eq!(t.run(&["SET", "ex", "v", "EX", "10"]), ok());
        assert_eq!(expire_at(&t, "ex"), Some(now + 10_000));
        assert_eq!(t.run(&["SET", "px", "v", "px", "1500"]), ok());
        assert_eq!(expire_at(&t, "px"), Some(now + 1_500));
        let exat = (now / 1000 + 100).to_string();
        assert_eq!(t.run(&["SET", "exat", "v", "EXAT", &exat]), ok());
        assert_eq!(expire_at(&t, "exat"), Some((now / 1000 + 100) * 1000));
        let pxat = (now + 777).to_string();
        assert_eq!(t.run(&["SET", "pxat", "v", "PXAT", &pxat]), ok());
        assert_eq!(expire_at(&t, "pxat"), Some(now + 777));
        // The last of repeated same-kind options wins.
        assert_eq!(t.run(&["SET", "twice", "v", "EX", "10", "EX", "20"]), ok());
        assert_eq!(expire_at(&t, "twice"), Some(now + 20_000));

        t.advance(1_499);
        assert_eq!(t.run(&["GET", "px"]), bulk("v"));
        t.advance(1);
        assert_eq!(t.run(&["GET", "px"]), nil());
        assert_eq!(expire_at(&t, "px"), None);
        t.advance(10_000 - 1_500);
        assert_eq!(t.run(&["GET", "ex"]), nil());
        assert_eq!(t.run(&["GET", "twice"]), bulk("v"));
    }

    #[test]
    fn set_expiry_errors() {
        let mut t = engine();
        for (opt, n) in [("EX", "0"), ("EX", "-1"), ("PX", "0"), ("PX", "-5"), ("EXAT", "0"), ("PXAT", "-1")] {
            assert_eq!(t.run(&["SET", "k", "v", opt, n]), invalid_expire("set"), "{opt} {n}");
        }
        // Seconds that overflow when made milliseconds, and now + ms that overflows.
        assert_eq!(t.run(&["SET", "k", "v", "EX", "9223372036854776"]), invalid_expire("set"));
        assert_eq!(t.run(&["SET", "k", "v", "EXAT", "9223372036854776"]), invalid_expire("set"));
        assert_eq!(t.run(&["SET", "k", "v", "PX", "9223372036854775807"]), invalid_expire("set"));
        assert_eq!(t.run(&["SET", "k", "v", "EX", "9223372036854775"]), invalid_expire("set"));
        assert_eq!(t.run(&["SET", "k", "v", "PXAT", "9223372036854775807"]), ok());
        assert_eq!(expire_at(&t, "k"), Some(i64::MAX as u64));
        assert_eq!(t.run(&["SET", "k", "v", "EX", "abc"]), err(NOT_INT));
        assert_eq!(t.run(&["SET", "k", "v", "EX", "1.5"]), err(NOT_INT));
        for bad in [
            &["SET", "k", "v", "EX"][..],
            &["SET", "k", "v", "EX", "10", "PX", "10"],
            &["SET", "k", "v", "PX", "10", "EXAT", "10"],
            &["SET", "k", "v", "EX", "10", "KEEPTTL"],
            &["SET", "k", "v", "KEEPTTL", "EX", "10"],
            &["SET", "k", "v", "PERSIST"],
            &["SET", "k", "v", "BOGUS"],
            &["SET", "k", "v", "NX", "10"],
        ] {
            assert_eq!(t.run(bad), err(SYNTAX), "{bad:?}");
        }
        // Syntax is checked before the expiry's value.
        assert_eq!(t.run(&["SET", "k", "v", "EX", "0", "BOGUS"]), err(SYNTAX));
        // Nothing was changed by any failed SET.
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(i64::MAX as u64));
    }

    #[test]
    fn plain_set_clears_the_ttl_and_keepttl_keeps_it() {
        let mut t = engine();
        let now = t.now;
        t.run(&["SET", "k", "v", "EX", "100"]);
        assert_eq!(t.run(&["SET", "k", "w", "KEEPTTL"]), ok());
        assert_eq!(expire_at(&t, "k"), Some(now + 100_000));
        assert_eq!(t.run(&["SET", "k", "x", "keepttl", "KEEPTTL", "GET"]), bulk("w"));
        assert_eq!(expire_at(&t, "k"), Some(now + 100_000));
        assert_eq!(t.run(&["SET", "k", "y"]), ok());
        assert_eq!(expire_at(&t, "k"), Some(0));
        assert_eq!(t.engine.store().volatile_len(), 0);
        assert_eq!(t.run(&["SET", "new", "v", "KEEPTTL"]), ok());
        assert_eq!(expire_at(&t, "new"), Some(0));
    }

    #[test]
    fn set_with_an_absolute_time_in_the_past_deletes() {
        let mut t = engine();
        let past = (t.now - 1).to_string();
        assert_eq!(t.run(&["SET", "k", "v", "PXAT", &past]), ok());
        assert_eq!(expire_at(&t, "k"), None);
        assert_eq!(t.engine.store().len(), 0);
        t.run(&["SET", "k", "v"]);
        assert_eq!(t.run(&["SET", "k", "w", "EXAT", "1", "GET"]), bulk("v"));
        assert_eq!(t.run(&["GET", "k"]), nil());
        let now = t.now.to_string();
        t.run(&["SET", "k", "v"]);
        assert_eq!(t.run(&["SET", "k", "w", "PXAT", &now]), ok());
        assert_eq!(t.engine.store().len(), 0);
        assert_eq!(t.engine.store().used_memory(), 0);
        // NX that does not write does not delete either.
        t.run(&["SET", "k", "v"]);
        assert_eq!(t.run(&["SET", "k", "w", "NX", "PXAT", "1"]), nil());
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));
    }

    #[test]
    fn setnx_setex_psetex() {
        let mut t = engine();
        let now = t.now;
        assert_eq!(t.run(&["SETNX", "k", "1"]), int(1));
        assert_eq!(t.run(&["SETNX", "k", "2"]), int(0));
        assert_eq!(t.run(&["GET", "k"]), bulk("1"));

        assert_eq!(t.run(&["SETEX", "k", "10", "v"]), ok());
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(now + 10_000));
        assert_eq!(t.run(&["PSETEX", "p", "250", "w"]), ok());
        assert_eq!(expire_at(&t, "p"), Some(now + 250));
        t.advance(250);
        assert_eq!(t.run(&["GET", "p"]), nil());
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));

        assert_eq!(t.run(&["SETEX", "k", "0", "v"]), invalid_expire("setex"));
        assert_eq!(t.run(&["SETEX", "k", "-10", "v"]), invalid_expire("setex"));
        assert_eq!(t.run(&["SETEX", "k", "9223372036854775807", "v"]), invalid_expire("setex"));
        assert_eq!(t.run(&["PSETEX", "k", "0", "v"]), invalid_expire("psetex"));
        assert_eq!(t.run(&["SETEX", "k", "ten", "v"]), err(NOT_INT));
        assert_eq!(t.run(&["PSETEX", "k", "", "v"]), err(NOT_INT));
        assert_eq!(t.run(&["SETEX", "k", "10"]), err("ERR wrong number of arguments for 'setex' command"));
    }

    #[test]
    fn mget_returns_nil_for_missing_keys_and_counts_hits() {
        let mut t = engine();
        t.run(&["SET", "a", "1"]);
        t.run(&["SET", "c", "3"]);
        let before = hits_misses(&t);
        assert_eq!(t.run(&["MGET", "a", "b", "c", "a"]), arr(vec![bulk("1"), nil(), bulk("3"), bulk("1")]));
        let after = hits_misses(&t);
        assert_eq!((after.0 - before.0, after.1 - before.1), (3, 1));
        assert_eq!(t.run(&["GET", "nope"]), nil());
        assert_eq!(hits_misses(&t).1, after.1 + 1);
    }

    #[test]
    fn mset_and_msetnx() {
        let mut t = engine();
        assert_eq!(t.run(&["MSET", "a", "1", "b", "2"]), ok());
        assert_eq!(t.run(&["MGET", "a", "b"]), arr(vec![bulk("1"), bulk("2")]));
        assert_eq!(t.run(&["MSET", "a", "1", "b"]), err("ERR wrong number of arguments for 'mset' command"));
        assert_eq!(t.run(&["MSETNX", "x", "1", "y"]), err("ERR wrong number of arguments for 'msetnx' command"));
        assert_eq!(t.run(&["MSET", "a"]), err("ERR wrong number of arguments for 'mset' command"));
        // A duplicate key takes its last value.
        assert_eq!(t.run(&["MSET", "d", "1", "d", "2"]), ok());
        assert_eq!(t.run(&["GET", "d"]), bulk("2"));
        // MSET clears TTLs like SET.
        t.run(&["SET", "a", "1", "EX", "10"]);
        t.run(&["MSET", "a", "9"]);
        assert_eq!(expire_at(&t, "a"), Some(0));

        assert_eq!(t.run(&["MSETNX", "a", "x", "n", "y"]), int(0));
        assert_eq!(t.run(&["GET", "n"]), nil());
        assert_eq!(t.run(&["GET", "a"]), bulk("9"));
        assert_eq!(t.run(&["MSETNX", "n", "1", "m", "2"]), int(1));
        assert_eq!(t.run(&["MGET", "n", "m"]), arr(vec![bulk("1"), bulk("2")]));
        assert_eq!(t.run(&["MSETNX", "dup", "1", "dup", "2"]), int(1));
        assert_eq!(t.run(&["GET", "dup"]), bulk("2"));
        // An expired key does not block MSETNX.
        t.run(&["PSETEX", "gone", "5", "v"]);
        t.advance(5);
        assert_eq!(t.run(&["MSETNX", "gone", "back"]), int(1));
        assert_eq!(t.run(&["GET", "gone"]), bulk("back"));
    }

    #[test]
    fn getset_returns_old_and_clears_ttl() {
        let mut t = engine();
        assert_eq!(t.run(&["GETSET", "k", "1"]), nil());
        assert_eq!(t.run(&["GET", "k"]), bulk("1"));
        t.run(&["SET", "k", "2", "EX", "10"]);
        assert_eq!(t.run(&["GETSET", "k", "3"]), bulk("2"));
        assert_eq!(t.run(&["GET", "k"]), bulk("3"));
        assert_eq!(expire_at(&t, "k"), Some(0));
    }

    #[test]
    fn getdel_returns_and_deletes() {
        let mut t = engine();
        assert_eq!(t.run(&["GETDEL", "k"]), nil());
        t.run(&["SET", "k", "v", "EX", "10"]);
        assert_eq!(t.run(&["GETDEL", "k"]), bulk("v"));
        assert_eq!(t.run(&["GET", "k"]), nil());
        assert_eq!(t.run(&["GETDEL", "k"]), nil());
        assert_eq!(t.engine.store().volatile_len(), 0);
        assert_eq!(t.engine.store().used_memory(), 0);
        t.run(&["PSETEX", "k", "10", "v"]);
        t.advance(10);
        assert_eq!(t.run(&["GETDEL", "k"]), nil());
    }

    #[test]
    fn getex_sets_or_clears_the_ttl() {
        let mut t = engine();
        let now = t.now;
        assert_eq!(t.run(&["GETEX", "k"]), nil());
        assert_eq!(t.run(&["GETEX", "k", "EX", "10"]), nil());
        assert_eq!(t.engine.store().len(), 0);
        t.run(&["SET", "k", "v"]);
        assert_eq!(t.run(&["GETEX", "k"]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(0));
        assert_eq!(t.run(&["GETEX", "k", "EX", "10"]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(now + 10_000));
        assert_eq!(t.run(&["GETEX", "k", "px", "500"]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(now + 500));
        let exat = (now / 1000 + 60).to_string();
        assert_eq!(t.run(&["GETEX", "k", "EXAT", &exat]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some((now / 1000 + 60) * 1000));
        let pxat = (now + 42).to_string();
        assert_eq!(t.run(&["GETEX", "k", "PXAT", &pxat]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(now + 42));
        // No option leaves the TTL alone.
        assert_eq!(t.run(&["GETEX", "k"]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(now + 42));
        assert_eq!(t.run(&["GETEX", "k", "PERSIST"]), bulk("v"));
        assert_eq!(expire_at(&t, "k"), Some(0));
        assert_eq!(t.engine.store().volatile_len(), 0);
        assert_eq!(t.run(&["GETEX", "k", "PERSIST", "persist"]), bulk("v"));
        // An absolute time already past returns the value and deletes the key.
        assert_eq!(t.run(&["GETEX", "k", "PXAT", "1"]), bulk("v"));
        assert_eq!(t.run(&["GET", "k"]), nil());
        assert_eq!(t.engine.store().used_memory(), 0);
        // It expires when the clock gets there.
        t.run(&["SET", "k", "v"]);
        t.run(&["GETEX", "k", "PX", "100"]);
        t.advance(100);
        assert_eq!(t.run(&["GETEX", "k"]), nil());
    }

    #[test]
    fn getex_errors() {
        let mut t = engine();
        t.run(&["SET", "k", "v"]);
        for bad in [
            &["GETEX", "k", "NX"][..],
            &["GETEX", "k", "XX"],
            &["GETEX", "k", "GET"],
            &["GETEX", "k", "KEEPTTL"],
            &["GETEX", "k", "EX"],
            &["GETEX", "k", "EX", "10", "PERSIST"],
            &["GETEX", "k", "PERSIST", "EX", "10"],
            &["GETEX", "k", "EX", "10", "PX", "10"],
            &["GETEX", "missing", "BOGUS"],
        ] {
            assert_eq!(t.run(bad), err(SYNTAX), "{bad:?}");
        }
        assert_eq!(t.run(&["GETEX", "k", "EX", "0"]), invalid_expire("getex"));
        assert_eq!(t.run(&["GETEX", "k", "PXAT", "-1"]), invalid_expire("getex"));
        assert_eq!(t.run(&["GETEX", "k", "EX", "9223372036854776"]), invalid_expire("getex"));
        assert_eq!(t.run(&["GETEX", "k", "EX", "x"]), err(NOT_INT));
        // A missing key answers nil before the expiry is looked at, as in Redis.
        assert_eq!(t.run(&["GETEX", "missing", "EX", "0"]), nil());
        assert_eq!(expire_at(&t, "k"), Some(0));
    }

    #[test]
    fn append_creates_extends_and_keeps_the_ttl() {
        let mut t = engine();
        let now = t.now;
        assert_eq!(t.run(&["APPEND", "k", "Hello"]), int(5));
        assert_eq!(t.run(&["APPEND", "k", " World"]), int(11));
        assert_eq!(t.run(&["GET", "k"]), bulk("Hello World"));
        assert_eq!(len_cap(&t, "k"), (11, 11));
        assert_eq!(t.run(&["APPEND", "k", ""]), int(11));
        t.run(&["SET", "k", "Hello World", "EX", "10"]);
        assert_eq!(t.run(&["APPEND", "k", "!"]), int(12));
        assert_eq!(expire_at(&t, "k"), Some(now + 10_000));
        // An empty APPEND creates an empty string.
        assert_eq!(t.run(&["APPEND", "e", ""]), int(0));
        assert_eq!(t.run(&["GET", "e"]), bulk(""));
        // Counters are strings too.
        t.run(&["INCR", "n"]);
        assert_eq!(t.run(&["APPEND", "n", "0"]), int(2));
        assert_eq!(t.run(&["INCR", "n"]), int(11));
    }

    #[test]
    fn append_and_setrange_respect_proto_max_bulk_len() {
        let mut t = engine();
        t.engine.config().set("proto-max-bulk-len", "1mb").unwrap();
        let max = 1024 * 1024;
        let big = vec![b'x'; max - 1];
        assert_eq!(t.run(&[&b"SET"[..], b"k", &big]), ok());
        assert_eq!(t.run(&["APPEND", "k", "y"]), int(max as i64));
        assert_eq!(t.run(&["APPEND", "k", "z"]), err(TOO_LONG));
        assert_eq!(t.run(&["STRLEN", "k"]), int(max as i64));
        assert_eq!(t.run(&["SETRANGE", "k", &(max - 1).to_string(), "a"]), int(max as i64));
        assert_eq!(t.run(&["SETRANGE", "k", &max.to_string(), "a"]), err(TOO_LONG));
        assert_eq!(t.run(&["SETRANGE", "new", &max.to_string(), "a"]), err(TOO_LONG));
        assert_eq!(t.run(&["SETRANGE", "new", "9223372036854775807", "a"]), err(TOO_LONG));
        assert_eq!(t.run(&["GET", "new"]), nil());
    }

    #[test]
    fn strlen_counts_bytes() {
        let mut t = engine();
        assert_eq!(t.run(&["STRLEN", "k"]), int(0));
        t.run(&["SET", "k", "héllo"]);
        assert_eq!(t.run(&["STRLEN", "k"]), int(6));
        t.run(&["SET", "k", ""]);
        assert_eq!(t.run(&["STRLEN", "k"]), int(0));
    }

    #[test]
    fn getrange_follows_redis_index_rules() {
        let mut t = engine();
        t.run(&["SET", "s", "Hello World"]);
        // Expectations from Redis 7.0.15.
        for (start, end, want) in [
            ("0", "3", "Hell"),
            ("-3", "-1", "rld"),
            ("0", "-1", "Hello World"),
            ("10", "100", "d"),
            ("5", "3", ""),
            ("-1", "-5", ""),
            ("-5", "-1", "World"),
            ("-100", "2", "Hel"),
            ("20", "30", ""),
            ("-1", "-1", "d"),
            ("3", "-100", ""),
            ("0", "0", "H"),
            ("-9223372036854775808", "9223372036854775807", "Hello World"),
        ] {
            assert_eq!(t.run(&["GETRANGE", "s", start, end]), bulk(want), "{start} {end}");
        }
        assert_eq!(t.run(&["GETRANGE", "missing", "0", "-1"]), bulk(""));
        t.run(&["SET", "e", ""]);
        assert_eq!(t.run(&["GETRANGE", "e", "0", "-1"]), bulk(""));
        assert_eq!(t.run(&["GETRANGE", "s", "a", "1"]), err(NOT_INT));
        assert_eq!(t.run(&["GETRANGE", "s", "0", "1.0"]), err(NOT_INT));
        t.run(&["SET", "n", "1234"]);
        assert_eq!(t.run(&["GETRANGE", "n", "1", "2"]), bulk("23"));
    }

    #[test]
    fn setrange_overwrites_pads_and_extends() {
        let mut t = engine();
        assert_eq!(t.run(&["SETRANGE", "k", "0", ""]), int(0));
        assert_eq!(t.run(&["GET", "k"]), nil());
        assert_eq!(t.engine.store().len(), 0);
        assert_eq!(t.run(&["SETRANGE", "k", "3", "ab"]), int(5));
        assert_eq!(t.run(&["GET", "k"]), Reply::Bulk(b"\0\0\0ab".to_vec()));
        assert_eq!(len_cap(&t, "k"), (5, 5));
        t.run(&["SET", "k", "Hello World"]);
        assert_eq!(t.run(&["SETRANGE", "k", "6", "Redis"]), int(11));
        assert_eq!(t.run(&["GET", "k"]), bulk("Hello Redis"));
        assert_eq!(t.run(&["SETRANGE", "k", "6", "Vitrine"]), int(13));
        assert_eq!(t.run(&["GET", "k"]), bulk("Hello Vitrine"));
        assert_eq!(len_cap(&t, "k"), (13, 13));
        assert_eq!(t.run(&["SETRANGE", "k", "15", "!"]), int(16));
        assert_eq!(t.run(&["GET", "k"]), Reply::Bulk(b"Hello Vitrine\0\0!".to_vec()));
        // Setting nothing on an existing key answers its length, whatever the offset.
        assert_eq!(t.run(&["SETRANGE", "k", "9223372036854775807", ""]), int(16));
        assert_eq!(t.run(&["SETRANGE", "k", "-1", "x"]), err("ERR offset is out of range"));
        assert_eq!(t.run(&["SETRANGE", "k", "-1", ""]), err("ERR offset is out of range"));
        assert_eq!(t.run(&["SETRANGE", "k", "x", "x"]), err(NOT_INT));
        // The TTL stays.
        t.run(&["SET", "k", "abc", "PX", "100"]);
        assert_eq!(t.run(&["SETRANGE", "k", "1", "B"]), int(3));
        assert_eq!(expire_at(&t, "k"), Some(t.now + 100));
        assert_eq!(t.run(&["GET", "k"]), bulk("aBc"));
    }

    #[test]
    fn incr_and_decr() {
        let mut t = engine();
        assert_eq!(t.run(&["INCR", "n"]), int(1));
        assert_eq!(t.run(&["INCR", "n"]), int(2));
        assert_eq!(t.run(&["DECR", "n"]), int(1));
        assert_eq!(t.run(&["DECR", "m"]), int(-1));
        assert_eq!(t.run(&["INCRBY", "n", "10"]), int(11));
        assert_eq!(t.run(&["INCRBY", "n", "-20"]), int(-9));
        assert_eq!(t.run(&["DECRBY", "n", "-9"]), int(0));
        assert_eq!(t.run(&["DECRBY", "x", "5"]), int(-5));
        assert_eq!(t.run(&["GET", "n"]), bulk("0"));
        assert_eq!(t.run(&["GET", "x"]), bulk("-5"));
        assert_eq!(len_cap(&t, "x"), (2, 2));
        assert_eq!(t.run(&["INCRBY", "min", "-9223372036854775808"]), int(i64::MIN));
    }

    #[test]
    fn incr_errors() {
        let mut t = engine();
        for bad in ["abc", " 1", "1 ", "01", "+1", "1.0", "", "99999999999999999999", "-0"] {
            t.run(&["SET", "k", bad]);
            assert_eq!(t.run(&["INCR", "k"]), err(NOT_INT), "{bad:?}");
            assert_eq!(t.run(&["GET", "k"]), bulk(bad));
        }
        assert_eq!(t.run(&["INCRBY", "n", "x"]), err(NOT_INT));
        assert_eq!(t.run(&["DECRBY", "n", "1.5"]), err(NOT_INT));
        assert_eq!(t.run(&["GET", "n"]), nil());

        t.run(&["SET", "k", "9223372036854775807"]);
        assert_eq!(t.run(&["INCR", "k"]), err("ERR increment or decrement would overflow"));
        assert_eq!(t.run(&["DECRBY", "k", "-1"]), err("ERR increment or decrement would overflow"));
        t.run(&["SET", "k", "-9223372036854775808"]);
        assert_eq!(t.run(&["DECR", "k"]), err("ERR increment or decrement would overflow"));
        assert_eq!(t.run(&["INCRBY", "k", "-1"]), err("ERR increment or decrement would overflow"));
        assert_eq!(t.run(&["DECRBY", "k", "-9223372036854775808"]), err("ERR decrement would overflow"));
        assert_eq!(t.run(&["DECRBY", "new", "-9223372036854775808"]), err("ERR decrement would overflow"));
        assert_eq!(t.run(&["GET", "k"]), bulk("-9223372036854775808"));
        assert_eq!(t.run(&["INCR", "k"]), int(i64::MIN + 1));
    }

    #[test]
    fn counters_keep_the_ttl() {
        let mut t = engine();
        let now = t.now;
        t.run(&["SET", "n", "5", "EX", "10"]);
        assert_eq!(t.run(&["INCR", "n"]), int(6));
        assert_eq!(t.run(&["INCRBYFLOAT", "n", "0.5"]), bulk("6.5"));
        assert_eq!(expire_at(&t, "n"), Some(now + 10_000));
        t.advance(10_000);
        assert_eq!(t.run(&["INCR", "n"]), int(1));
        assert_eq!(expire_at(&t, "n"), Some(0));
    }

    #[test]
    fn incrbyfloat_matches_redis_output() {
        let mut t = engine();
        // The examples from Redis's documentation.
        t.run(&["SET", "k", "10.50"]);
        assert_eq!(t.run(&["INCRBYFLOAT", "k", "0.1"]), bulk("10.6"));
        assert_eq!(t.run(&["INCRBYFLOAT", "k", "-5"]), bulk("5.6"));
        t.run(&["SET", "k", "5.0e3"]);
        assert_eq!(t.run(&["INCRBYFLOAT", "k", "2.0e2"]), bulk("5200"));
        assert_eq!(t.run(&["GET", "k"]), bulk("5200"));
        // long double arithmetic, as Redis on x86-64.
        assert_eq!(t.run(&["INCRBYFLOAT", "a", "0.1"]), bulk("0.1"));
        assert_eq!(t.run(&["INCRBYFLOAT", "a", "0.2"]), bulk("0.3"));
        assert_eq!(t.run(&["INCRBYFLOAT", "b", "3.0e3"]), bulk("3000"));
        assert_eq!(t.run(&["INCRBYFLOAT", "c", "1e-20"]), bulk("0"));
        assert_eq!(t.run(&["INCRBYFLOAT", "d", "-1.5"]), bulk("-1.5"));
        assert_eq!(t.run(&["INCRBYFLOAT", "d", "1.5"]), bulk("0"));
        t.run(&["SET", "i", "7"]);
        assert_eq!(t.run(&["INCRBYFLOAT", "i", "1"]), bulk("8"));
        assert_eq!(len_cap(&t, "i"), (1, 1));
        assert_eq!(len_cap(&t, "a"), (3, 3));
    }

    #[test]
    fn incrbyfloat_errors() {
        let mut t = engine();
        for bad in ["abc", " 1", "1 ", "nan", "", "1e5000", "1,5"] {
            assert_eq!(t.run(&["INCRBYFLOAT", "k", bad]), err(NOT_FLOAT), "{bad:?}");
        }
        assert_eq!(t.run(&["GET", "k"]), nil());
        t.run(&["SET", "k", "one"]);
        assert_eq!(t.run(&["INCRBYFLOAT", "k", "1"]), err(NOT_FLOAT));
        let nan_inf = err("ERR increment would produce NaN or Infinity");
        assert_eq!(t.run(&["INCRBYFLOAT", "n", "inf"]), nan_inf);
        assert_eq!(t.run(&["GET", "n"]), nil());
        t.run(&["SET", "big", "1e4932"]);
        assert_eq!(t.run(&["INCRBYFLOAT", "big", "1e4932"]), nan_inf);
        assert_eq!(t.run(&["GET", "big"]), bulk("1e4932"));
        t.run(&["SET", "inf", "-inf"]);
        assert_eq!(t.run(&["INCRBYFLOAT", "inf", "inf"]), nan_inf);
    }

    #[test]
    fn default_ttl_applies_to_keys_written_without_one() {
        let mut t = engine();
        t.engine.config().set("default-ttl", "60").unwrap();
        let now = t.now;
        let ttl = now + 60_000;
        t.run(&["SET", "a", "1"]);
        t.run(&["SET", "b", "1", "EX", "5"]);
        t.run(&["SET", "c", "1", "KEEPTTL"]);
        t.run(&["MSET", "d", "1", "e", "2"]);
        t.run(&["MSETNX", "f", "1"]);
        t.run(&["SETNX", "g", "1"]);
        t.run(&["GETSET", "h", "1"]);
        t.run(&["APPEND", "i", "1"]);
        t.run(&["SETRANGE", "j", "0", "1"]);
        t.run(&["INCR", "k"]);
        t.run(&["INCRBYFLOAT", "l", "1"]);
        for key in ["a", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"] {
            assert_eq!(expire_at(&t, key), Some(ttl), "{key}");
        }
        assert_eq!(expire_at(&t, "b"), Some(now + 5_000));
        // KEEPTTL and in-place changes keep an existing TTL; PERSIST removes it.
        t.advance(1_000);
        t.run(&["SET", "b", "2", "KEEPTTL"]);
        t.run(&["APPEND", "a", "2"]);
        t.run(&["INCR", "k"]);
        assert_eq!(expire_at(&t, "b"), Some(now + 5_000));
        assert_eq!(expire_at(&t, "a"), Some(ttl));
        assert_eq!(expire_at(&t, "k"), Some(ttl));
        t.run(&["GETEX", "a", "PERSIST"]);
        assert_eq!(expire_at(&t, "a"), Some(0));
        // A full overwrite without KEEPTTL starts the default TTL again.
        t.run(&["SET", "c", "2"]);
        assert_eq!(expire_at(&t, "c"), Some(t.now + 60_000));
        t.advance(60_000);
        assert_eq!(t.run(&["GET", "d"]), nil());
        assert_eq!(t.run(&["GET", "a"]), bulk("12"));
    }

    #[test]
    fn lazy_expiry_counts_expired_keys() {
        use std::sync::atomic::Ordering::Relaxed;
        let mut t = engine();
        t.run(&["SET", "k", "v", "PX", "10"]);
        t.advance(10);
        assert_eq!(t.run(&["STRLEN", "k"]), int(0));
        assert_eq!(t.engine.stats().expired_keys.load(Relaxed), 1);
        assert_eq!(t.engine.store().used_memory(), 0);
    }

    #[test]
    fn memory_accounting_follows_every_write() {
        let mut t = engine();
        let used = |t: &TestEngine| t.engine.store().used_memory();
        assert_eq!(used(&t), 0);
        t.run(&["SET", "a", "x"]);
        let one = used(&t);
        assert!(one > 0);
        t.run(&["APPEND", "a", &"y".repeat(1000)]);
        let appended = used(&t);
        assert!(appended > one + 900);
        t.run(&["SETRANGE", "a", "5000", "z"]);
        assert!(used(&t) >= appended + 4000);
        t.run(&["SETRANGE", "a", "0", "abc"]);
        t.run(&["SET", "b", "v", "EX", "100"]);
        t.run(&["MSET", "c", "1", "d", "2"]);
        t.run(&["INCRBY", "e", "12345"]);
        t.run(&["INCRBYFLOAT", "f", "1.25"]);
        t.run(&["SETRANGE", "g", "100", "x"]);
        t.run(&["GETSET", "h", "old"]);
        t.run(&["GETSET", "h", "new"]);
        t.run(&["GETEX", "h", "EX", "50"]);
        t.run(&["GETEX", "h", "PERSIST"]);
        let before = used(&t);
        t.run(&["SET", "a", "small"]);
        assert!(used(&t) < before);
        for key in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            assert!(matches!(t.run(&["GETDEL", key]), Reply::Bulk(_)), "{key}");
        }
        assert_eq!(used(&t), 0);
        assert_eq!(t.engine.store().len(), 0);
        assert_eq!(t.engine.store().volatile_len(), 0);
    }
}
