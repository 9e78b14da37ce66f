//! Reads and writes of fields that also set or drop their expiry (Redis 8.0, Valkey 9):
//! HGETEX, HSETEX and HGETDEL.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::reply::Reply;
use crate::store::hash::HashValue;

use super::expire::{check_hash, expire_time, fields_at, set_expiry, ttl_growth, COUNT_ERROR};
use super::field::pairs_growth;
use super::{modify, upsert};

/// What a command does to the TTL of the fields it touches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ttl {
    /// Nothing (HGETEX without an option); HSETEX drops it, as HSET does.
    Untouched,
    /// KEEPTTL (HSETEX).
    Keep,
    /// PERSIST (HGETEX).
    Persist,
    /// EX, PX, EXAT or PXAT: expire at this unix ms.
    At(u64),
}

/// The unit (ms) of an EX/PX/EXAT/PXAT word and whether it is relative to now.
fn time_option(word: &[u8]) -> Option<(i64, bool)> {
    [(&b"EX"[..], 1000, true), (b"PX", 1, true), (b"EXAT", 1000, false), (b"PXAT", 1, false)]
        .into_iter()
        .find(|(name, ..)| word.eq_ignore_ascii_case(name))
        .map(|(_, unit, relative)| (unit, relative))
}

/// HGETEX: the values of fields (nil for each missing one), optionally setting their expiry
/// or dropping it. A time not in the future deletes the fields after reading them.
///
/// ```text
/// HGETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST] FIELDS numfields field [field ...]
/// ```
pub fn hgetex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    check_hash(ctx, key)?;
    let argv = args.rest();
    let now = ctx.now;
    let word = argv.first().copied().unwrap_or_default();
    let (ttl, fields_word) = if let Some((unit, relative)) = time_option(word) {
        let time = argv.get(1).copied().unwrap_or_default();
        (Ttl::At(expire_time(ctx, time, unit, if relative { now } else { 0 })?), 2)
    } else if word.eq_ignore_ascii_case(b"PERSIST") {
        (Ttl::Persist, 1)
    } else {
        (Ttl::Untouched, 0)
    };
    let fields = fields_at(argv, fields_word, COUNT_ERROR)?;
    let mut changed = false;
    let values = modify(ctx, key, |h: &mut HashValue| {
        let mut value_of = |field: &&[u8]| {
            let value = h.get(field).map(<[u8]>::to_vec);
            if value.is_some() {
                match ttl {
                    Ttl::Persist => changed |= h.persist(field),
                    Ttl::At(at) => changed |= set_expiry(h, field, at, now) > 0,
                    Ttl::Untouched | Ttl::Keep => {}
                }
            }
            Reply::opt_bulk(value)
        };
        fields.iter().map(&mut value_of).collect::<Vec<_>>()
    })?;
    if !changed {
        // A read, or a PERSIST of fields without a TTL: WATCHes on the key stay clean.
        ctx.leave_unchanged(0);
    } else {
        match ttl {
            Ttl::Persist => ctx.notify(class::HASH, "hpersist", key),
            Ttl::At(at) if at <= now => ctx.notify_removal(class::HASH, "hdel", key),
            _ => ctx.notify(class::HASH, "hexpire", key),
        }
    }
    Ok(Reply::Array(values.unwrap_or_else(|| vec![Reply::Nil; fields.len()])))
}

/// HGETDEL: the values of fields (nil for each missing one), deleting them; the hash goes
/// with its last field.
///
/// ```text
/// HGETDEL key FIELDS numfields field [field ...]
/// ```
pub fn hgetdel(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    check_hash(ctx, key)?;
    let fields = fields_at(args.rest(), 0, COUNT_ERROR)?;
    let values = modify(ctx, key, |h: &mut HashValue| {
        let take = |field: &&[u8]| {
            let value = h.get(field).map(<[u8]>::to_vec);
            if value.is_some() {
                h.remove(field);
            }
            Reply::opt_bulk(value)
        };
        fields.iter().map(take).collect::<Vec<_>>()
    })?;
    let values = values.unwrap_or_else(|| vec![Reply::Nil; fields.len()]);
    if values.iter().all(|v| *v == Reply::Nil) {
        ctx.leave_unchanged(0);
    } else {
        ctx.notify_removal(class::HASH, "hdel", key);
    }
    Ok(Reply::Array(values))
}

/// What HSETEX's arguments say: the FNX/FXX condition (`Some(true)` for FNX), what to do
/// with the TTL, and the field/value pairs.
type SetexArgs<'a> = (Option<bool>, Ttl, &'a [&'a [u8]]);

/// The options of HSETEX before its fields, in Redis's order of errors.
fn hsetex_args<'a>(ctx: &Ctx<'_>, argv: &'a [&'a [u8]]) -> Result<SetexArgs<'a>, CmdError> {
    let arity = || CmdError::WrongArity(ctx.cmd.full_name());
    let (mut cond, mut ttl) = (None, Ttl::Untouched);
    let mut i = 0;
    while let Some(&word) = argv.get(i) {
        if word.eq_ignore_ascii_case(b"FIELDS") {
            if i + 3 >= argv.len() {
                return Err(arity());
            }
            let count = crate::num::parse_i64(argv[i + 1])
                .filter(|n| (1..=i64::from(i32::MAX)).contains(n))
                .ok_or_else(|| CmdError::err("invalid number of fields"))?;
            let pairs = &argv[i + 2..];
            if !pairs.len().is_multiple_of(2) || count as usize != pairs.len() / 2 {
                return Err(arity());
            }
            return Ok((cond, ttl, pairs));
        }
        let only_one_ttl = || CmdError::err("Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified");
        if let Some((unit, relative)) = time_option(word) {
            if ttl != Ttl::Untouched {
                return Err(only_one_ttl());
            }
            let time = argv.get(i + 1).ok_or_else(|| CmdError::err("missing expire time"))?;
            ttl = Ttl::At(expire_time(ctx, time, unit, if relative { ctx.now } else { 0 })?);
            i += 1;
        } else if word.eq_ignore_ascii_case(b"KEEPTTL") {
            if ttl != Ttl::Untouched {
                return Err(only_one_ttl());
            }
            ttl = Ttl::Keep;
        } else if word.eq_ignore_ascii_case(b"FNX") || word.eq_ignore_ascii_case(b"FXX") {
            if cond.is_some() {
                return Err(CmdError::err("Only one of FXX or FNX arguments can be specified"));
            }
            cond = Some(word.eq_ignore_ascii_case(b"FNX"));
        } else {
            return Err(CmdError::err(format!("unknown argument: {}", String::from_utf8_lossy(word))));
        }
        i += 1;
    }
    Err(arity())
}

/// HSETEX: sets fields (creating the hash) and optionally their expiry; 1 when set, 0 when
/// FNX found one of the fields or FXX missed one. Without KEEPTTL or a time, the fields'
/// TTLs are dropped, as HSET drops them; a time not in the future deletes the fields.
///
/// ```text
/// HSETEX key [FNX | FXX] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] FIELDS numfields field value [field value ...]
/// ```
pub fn hsetex(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (cond, ttl, pairs) = hsetex_args(ctx, args.rest())?;
    check_hash(ctx, key)?;
    let now = ctx.now;
    let set = upsert(ctx, key, |h: &mut HashValue| {
        if let Some(fnx) = cond {
            let found = pairs.chunks_exact(2).filter(|p| h.contains(p[0])).count();
            if (fnx && found > 0) || (!fnx && found < pairs.len() / 2) {
                return Ok(false);
            }
        }
        for p in pairs.chunks_exact(2) {
            match ttl {
                Ttl::Untouched | Ttl::Persist => {
                    h.set(p[0], p[1]);
                }
                Ttl::Keep => {
                    h.set_keep_ttl(p[0], p[1]);
                }
                Ttl::At(at) => {
                    h.set_keep_ttl(p[0], p[1]);
                    set_expiry(h, p[0], at, now);
                }
            }
        }
        Ok(true)
    })?;
    if !set {
        ctx.leave_unchanged(0);
    } else {
        ctx.notify(class::HASH, "hset", key);
        if let Ttl::At(at) = ttl {
            ctx.notify_removal(class::HASH, if at <= now { "hdel" } else { "hexpire" }, key);
        }
    }
    Ok(Reply::Int(set as i64))
}

/// Bytes HSETEX may add beyond its arguments: its fields, and a TTL for each.
pub fn hsetex_growth(argv: &[&[u8]]) -> usize {
    pairs_growth(argv) + ttl_growth(argv)
}
