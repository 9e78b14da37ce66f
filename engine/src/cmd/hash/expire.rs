//! Hash field expiry (Redis 7.4, Valkey 9): HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT, HTTL,
//! HPTTL, HEXPIRETIME, HPEXPIRETIME and HPERSIST, with the `FIELDS numfields field ...` block
//! and the expire-time checks HGETEX and HSETEX share. The store drops expired fields before
//! any command sees a hash, so these handlers only deal with live fields.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::{alloc_size, ValueRef};
use crate::store::hash::{HashValue, TTL_OVERHEAD, TTL_TABLE_SIZE};

use super::{modify, read_hash};

/// The latest expiry a field may have, in unix ms (Redis's `HFE_MAX_ABS_TIME_MSEC`, 2^46 - 1).
pub(super) const MAX_EXPIRY_MS: i64 = (1 << 46) - 1;

/// The per-field replies of HEXPIRE and friends, as Redis numbers them.
const NO_FIELD: i64 = -2;
const CONDITION_NOT_MET: i64 = 0;
const SET: i64 = 1;
const DELETED: i64 = 2;
/// HTTL and HPERSIST: the field has no TTL.
const NO_TTL: i64 = -1;

/// The block `FIELDS numfields field ...` that starts at `argv[at]` (the FIELDS word); answers
/// the fields. `count_error` is the command's text for a `numfields` that is not a positive
/// integer (Redis words it differently for HEXPIRE and for the others).
pub(super) fn fields_at<'a>(argv: &'a [&'a [u8]], at: usize, count_error: &str) -> Result<&'a [&'a [u8]], CmdError> {
    if !argv.get(at).is_some_and(|w| w.eq_ignore_ascii_case(b"FIELDS")) {
        return Err(CmdError::err("Mandatory argument FIELDS is missing or not at the right position"));
    }
    let count =
        argv.get(at + 1).and_then(|n| parse_i64(n)).filter(|&n| n >= 1).ok_or_else(|| CmdError::err(count_error))?;
    let fields = argv.get(at + 2..).unwrap_or_default();
    if count as u64 != fields.len() as u64 {
        return Err(CmdError::err("The `numfields` parameter must match the number of arguments"));
    }
    Ok(fields)
}

/// The text HTTL, HPERSIST, HGETEX and HGETDEL answer for a bad `numfields`.
pub(super) const COUNT_ERROR: &str = "Number of fields must be a positive integer";

/// An expire-time argument as Redis's `parseExpireTime` reads it: `unit_ms` milliseconds per
/// unit, added to `base` (now for a relative time, 0 for an absolute one). Answers unix ms.
pub(super) fn expire_time(ctx: &Ctx<'_>, arg: &[u8], unit_ms: i64, base: u64) -> Result<u64, CmdError> {
    let value = parse_i64(arg).ok_or(CmdError::NotInteger)?;
    if value < 0 {
        return Err(CmdError::err("invalid expire time, must be >= 0"));
    }
    let invalid = || CmdError::err(format!("invalid expire time in '{}' command", ctx.cmd.full_name()));
    if value > MAX_EXPIRY_MS / unit_ms {
        return Err(invalid());
    }
    let ms = value * unit_ms;
    let base = i64::try_from(base).unwrap_or(i64::MAX);
    if ms > MAX_EXPIRY_MS.saturating_sub(base) {
        return Err(invalid());
    }
    Ok((ms + base) as u64)
}

/// WRONGTYPE when `key` holds something other than a hash: the write commands check it
/// before their arguments, as Redis does.
pub(super) fn check_hash(ctx: &mut Ctx<'_>, key: &[u8]) -> Result<(), CmdError> {
    let now = ctx.now;
    match ctx.db.lookup(key, now) {
        Some(e) if !matches!(e.value, ValueRef::Hash(_)) => Err(CmdError::WrongType),
        _ => Ok(()),
    }
}

/// Gives `field` the expiry `at` (unix ms), or deletes it when `at` is not in the future;
/// answers Redis's code for it (1 set, 2 deleted; -2 no such field).
pub(super) fn set_expiry(h: &mut HashValue, field: &[u8], at: u64, now: u64) -> i64 {
    if !h.contains(field) {
        NO_FIELD
    } else if at <= now {
        h.remove(field);
        DELETED
    } else {
        h.set_field_expiry(field, at);
        SET
    }
}

/// The condition of HEXPIRE and friends. A field without a TTL counts as never expiring:
/// GT never sets it, LT always does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cond {
    Always,
    Nx,
    Xx,
    Gt,
    Lt,
}

impl Cond {
    fn parse(word: &[u8]) -> Option<Cond> {
        [(&b"NX"[..], Cond::Nx), (b"XX", Cond::Xx), (b"GT", Cond::Gt), (b"LT", Cond::Lt)]
            .into_iter()
            .find(|(name, _)| word.eq_ignore_ascii_case(name))
            .map(|(_, c)| c)
    }

    fn allows(self, current: Option<u64>, at: u64) -> bool {
        match (self, current) {
            (Cond::Always, _) => true,
            (Cond::Nx, current) => current.is_none(),
            (Cond::Xx, current) => current.is_some(),
            (Cond::Gt, current) => current.is_some_and(|c| at > c),
            (Cond::Lt, current) => current.is_none_or(|c| at < c),
        }
    }
}

/// HEXPIRE and friends: `unit_ms` per unit of the time argument, relative to now or not.
fn expire_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, unit_ms: i64, relative: bool) -> Result<Reply, CmdError> {
    let key = args.key()?;
    check_hash(ctx, key)?;
    let argv = args.rest();
    let now = ctx.now;
    let at = expire_time(ctx, argv.first().copied().unwrap_or_default(), unit_ms, if relative { now } else { 0 })?;
    let cond = argv.get(1).and_then(|w| Cond::parse(w));
    let fields_word = if cond.is_some() { 2 } else { 1 };
    let fields = fields_at(argv, fields_word, "Parameter `numFields` should be greater than 0")?;
    let cond = cond.unwrap_or(Cond::Always);
    let codes = modify(ctx, key, |h: &mut HashValue| {
        let code = |field: &&[u8]| {
            if h.contains(field) && !cond.allows(h.field_expiry(field), at) {
                return CONDITION_NOT_MET;
            }
            set_expiry(h, field, at, now)
        };
        fields.iter().map(code).collect::<Vec<_>>()
    })?;
    let codes = codes.unwrap_or_else(|| vec![NO_FIELD; fields.len()]);
    // Redis 7.4: `hdel` (and `del` with the last field) when a time in the past deleted
    // fields, else `hexpire` when any TTL was set.
    if codes.contains(&DELETED) {
        ctx.notify_removal(class::HASH, "hdel", key);
    } else if codes.contains(&SET) {
        ctx.notify(class::HASH, "hexpire", key);
    }
    Ok(Reply::Array(codes.into_iter().map(Reply::Int).collect()))
}

/// HEXPIRE: sets the fields' TTL in seconds; per field 1 (set), 0 (the condition was not
/// met), 2 (deleted: the time is not in the future) or -2 (no such field).
///
/// ```text
/// HEXPIRE key seconds [NX | XX | GT | LT] FIELDS numfields field [field ...]
/// ```
pub fn hexpire(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    expire_generic(ctx, args, 1000, true)
}

/// HPEXPIRE: HEXPIRE in milliseconds.
///
/// ```text
/// HPEXPIRE key milliseconds [NX | XX | GT | LT] FIELDS numfields field [field ...]
/// ```
pub fn hpexpire(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    expire_generic(ctx, args, 1, true)
}

/// HEXPIREAT: HEXPIRE at a unix time in seconds.
///
/// ```text
/// HEXPIREAT key unix-time-seconds [NX | XX | GT | LT] FIELDS numfields field [field ...]
/// ```
pub fn hexpireat(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    expire_generic(ctx, args, 1000, false)
}

/// HPEXPIREAT: HEXPIRE at a unix time in milliseconds.
///
/// ```text
/// HPEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT] FIELDS numfields field [field ...]
/// ```
pub fn hpexpireat(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    expire_generic(ctx, args, 1, false)
}

/// What HTTL and friends answer for a field's expiry `at`.
#[derive(Clone, Copy)]
enum TtlView {
    /// Seconds left, rounded up (HTTL).
    Secs,
    /// Milliseconds left (HPTTL).
    Millis,
    /// The unix time in seconds, rounded up (HEXPIRETIME).
    AtSecs,
    /// The unix time in milliseconds (HPEXPIRETIME).
    AtMillis,
}

fn ttl_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, view: TtlView) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let now = ctx.now;
    let h = read_hash(ctx, key)?;
    let fields = fields_at(args.rest(), 0, COUNT_ERROR)?;
    let code = |field: &&[u8]| match h {
        Some(h) if h.contains(field) => match h.field_expiry(field) {
            None => NO_TTL,
            Some(at) => {
                let (at, base) = (at as i64, now as i64);
                match view {
                    TtlView::Secs => (at + 999 - base) / 1000,
                    TtlView::Millis => at - base,
                    TtlView::AtSecs => (at + 999) / 1000,
                    TtlView::AtMillis => at,
                }
            }
        },
        _ => NO_FIELD,
    };
    Ok(Reply::Array(fields.iter().map(code).map(Reply::Int).collect()))
}

/// HTTL: each field's time to live in seconds; -1 without a TTL, -2 for no such field.
///
/// ```text
/// HTTL key FIELDS numfields field [field ...]
/// ```
pub fn httl(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, TtlView::Secs)
}

/// HPTTL: HTTL in milliseconds.
///
/// ```text
/// HPTTL key FIELDS numfields field [field ...]
/// ```
pub fn hpttl(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, TtlView::Millis)
}

/// HEXPIRETIME: each field's expiry as a unix time in seconds; -1 without a TTL, -2 for no
/// such field.
///
/// ```text
/// HEXPIRETIME key FIELDS numfields field [field ...]
/// ```
pub fn hexpiretime(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, TtlView::AtSecs)
}

/// HPEXPIRETIME: HEXPIRETIME in milliseconds.
///
/// ```text
/// HPEXPIRETIME key FIELDS numfields field [field ...]
/// ```
pub fn hpexpiretime(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ttl_generic(ctx, args, TtlView::AtMillis)
}

/// HPERSIST: drops the fields' TTLs; per field 1 (dropped), -1 (had none), -2 (no such field).
///
/// ```text
/// HPERSIST key FIELDS numfields field [field ...]
/// ```
pub fn hpersist(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    check_hash(ctx, key)?;
    let fields = fields_at(args.rest(), 0, COUNT_ERROR)?;
    let codes = modify(ctx, key, |h: &mut HashValue| {
        let code = |field: &&[u8]| match (h.contains(field), h.persist(field)) {
            (false, _) => NO_FIELD,
            (true, false) => NO_TTL,
            (true, true) => SET,
        };
        fields.iter().map(code).collect::<Vec<_>>()
    })?;
    let codes = codes.unwrap_or_else(|| vec![NO_FIELD; fields.len()]);
    if codes.contains(&SET) {
        ctx.notify(class::HASH, "hpersist", key);
    }
    Ok(Reply::Array(codes.into_iter().map(Reply::Int).collect()))
}

/// Bytes giving its fields a TTL (HEXPIRE and friends, HGETEX) may add beyond the
/// arguments: a TTL entry and a second copy of the name per argument (a bound), and the
/// side table.
pub fn ttl_growth(argv: &[&[u8]]) -> usize {
    argv.iter().map(|a| TTL_OVERHEAD + alloc_size(a.len())).sum::<usize>() + alloc_size(TTL_TABLE_SIZE)
}
