//! Helpers shared by the collection families: reading and changing the collection at a key
//! ([`read`], [`modify`]), the cursor and options of HSCAN/SSCAN (and any other per-key SCAN),
//! the count argument of the random-pick commands (HRANDFIELD, SRANDMEMBER, ...), distinct
//! random positions, the bound on replies a count can inflate, and the arguments of the
//! multi-key pops (LMPOP, ZMPOP and their blocking forms).

use std::collections::HashSet;

use crate::args::Args;
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::glob;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::{Value, ValueRef};
use crate::store::hash::HashValue;
use crate::store::list::ListValue;
use crate::store::set::SetValue;
use crate::store::stream::Stream;
use crate::store::zset::ZSetValue;
use crate::store::Locked;

/// A collection type (hash, list, set, sorted set) and where it sits in a value, so the
/// families share one way to read and change the collection at a key.
pub trait Collection: Sized {
    fn in_value(value: &mut Value) -> Option<&mut Self>;
    fn in_ref(value: ValueRef<'_>) -> Option<&Self>;
    fn into_value(self) -> Value;
    fn is_empty(&self) -> bool;
}

macro_rules! collection {
    ($type:ty, $variant:ident) => {
        impl Collection for $type {
            fn in_value(value: &mut Value) -> Option<&mut Self> {
                match value {
                    Value::$variant(c) => Some(c),
                    _ => None,
                }
            }

            fn in_ref(value: ValueRef<'_>) -> Option<&Self> {
                match value {
                    ValueRef::$variant(c) => Some(c),
                    _ => None,
                }
            }

            fn into_value(self) -> Value {
                Value::$variant(Box::new(self))
            }

            fn is_empty(&self) -> bool {
                <$type>::is_empty(self)
            }
        }
    };
}

collection!(HashValue, Hash);
collection!(ListValue, List);
collection!(SetValue, Set);
collection!(ZSetValue, ZSet);

impl Collection for Stream {
    fn in_value(value: &mut Value) -> Option<&mut Self> {
        match value {
            Value::Stream(s) => Some(s),
            _ => None,
        }
    }

    fn in_ref(value: ValueRef<'_>) -> Option<&Self> {
        match value {
            ValueRef::Stream(s) => Some(s),
            _ => None,
        }
    }

    fn into_value(self) -> Value {
        Value::Stream(Box::new(self))
    }

    /// A stream is never deleted for having no entries (its last ID and groups stay), so it
    /// never counts as empty here.
    fn is_empty(&self) -> bool {
        false
    }
}

/// The collection at `key` for a read command (counts a keyspace hit or miss): `None` when
/// there is no key, WRONGTYPE when it holds another type.
pub fn read<'a, T: Collection>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a T>, CmdError> {
    let now = ctx.now;
    match ctx.db.read(key, now) {
        None => Ok(None),
        Some(entry) => T::in_ref(entry.value).map(Some).ok_or(CmdError::WrongType),
    }
}

/// Runs `f` on the collection at `key`, or on `new()` when there is none (stored only if `f`
/// left it non-empty, with the default TTL). WRONGTYPE when the key holds another type.
pub fn upsert<T: Collection, R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    new: impl FnOnce() -> T,
    mut f: impl FnMut(&mut T) -> Result<R, CmdError>,
) -> Result<R, CmdError> {
    let now = ctx.now;
    let expire_at = super::string::default_expiry(ctx);
    let shard = ctx.db.shard(key);
    match shard.update(key, now, |v| T::in_value(v).ok_or(CmdError::WrongType).and_then(&mut f)) {
        Some(result) => result,
        None => {
            let mut created = new();
            let result = f(&mut created)?;
            if !created.is_empty() {
                shard.insert(key, created.into_value(), expire_at, now);
            }
            Ok(result)
        }
    }
}

/// Stores `value` as a new collection at `key` (replacing whatever was there), with the
/// default TTL, as every key written without one.
pub fn create<T: Collection>(engine: &Engine, db: &mut Locked<'_>, key: &[u8], value: T, now: u64) {
    let expire_at = super::string::default_expiry_at(engine, now);
    db.shard(key).insert(key, value.into_value(), expire_at, now);
}

/// Runs `f` on the collection at `key` for a write: `Shard::update` re-measures the entry
/// afterwards and deletes the key when `f` leaves the collection empty. `Ok(None)` when there
/// is no key, WRONGTYPE when it holds another type.
pub fn modify<T: Collection, R>(
    db: &mut Locked<'_>,
    key: &[u8],
    now: u64,
    f: impl FnOnce(&mut T) -> R,
) -> Result<Option<R>, CmdError> {
    let updated = db.shard(key).update(key, now, |v| T::in_value(v).map(f).ok_or(CmdError::WrongType));
    updated.transpose()
}

use super::keys::parse_cursor;

/// A SCAN cursor (SCAN, HSCAN, SSCAN, ZSCAN), as Redis's `parseScanCursorOrReply` reads it.
pub fn scan_cursor(arg: &[u8]) -> Result<u64, CmdError> {
    parse_cursor(arg).ok_or_else(|| CmdError::err("invalid cursor"))
}

/// What a SCAN walks, which decides the options it takes: TYPE is SCAN's alone. (Redis
/// 7.4's HSCAN NOVALUES is not one: Vitrine answers as 7.2, and the differential test pins
/// 7.0's syntax error for it.)
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ScanOf {
    Keyspace,
    Hash,
    Set,
    SortedSet,
}

/// The options after a SCAN's cursor, parsed once for SCAN, HSCAN, SSCAN and ZSCAN.
pub struct ScanOptions<'a> {
    /// `None` when every element matches (no MATCH, or MATCH `*`).
    pub pattern: Option<&'a [u8]>,
    pub count: usize,
    /// SCAN's TYPE: only keys of this type (an unknown name matches nothing, as Redis 7.0).
    pub type_name: Option<&'a [u8]>,
}

impl<'a> ScanOptions<'a> {
    /// Parses what follows the cursor, as Redis's `scanGenericCommand`: an option that takes
    /// a value needs it, COUNT must be a positive integer, a later option of a kind wins, and
    /// anything else (TYPE outside SCAN included) is a syntax error.
    pub fn parse(args: &mut Args<'a>, of: ScanOf) -> Result<ScanOptions<'a>, CmdError> {
        let mut opts = ScanOptions { pattern: None, count: 10, type_name: None };
        while !args.is_empty() {
            let opt = args.bytes()?;
            let has_value = !args.is_empty();
            if opt.eq_ignore_ascii_case(b"COUNT") && has_value {
                let n = args.int()?;
                if n < 1 {
                    return Err(CmdError::Syntax);
                }
                opts.count = usize::try_from(n).unwrap_or(usize::MAX);
            } else if opt.eq_ignore_ascii_case(b"MATCH") && has_value {
                let p = args.bytes()?;
                opts.pattern = (p != b"*").then_some(p);
            } else if opt.eq_ignore_ascii_case(b"TYPE") && of == ScanOf::Keyspace && has_value {
                opts.type_name = Some(args.bytes()?);
            } else {
                return Err(CmdError::Syntax);
            }
        }
        Ok(opts)
    }

    pub fn matches(&self, element: &[u8]) -> bool {
        self.pattern.is_none_or(|p| glob::matches(p, element))
    }
}

/// A per-key SCAN's reply: the next cursor and the elements.
pub fn scan_reply(cursor: u64, items: Vec<Reply>) -> Reply {
    Reply::Array(vec![Reply::bulk(cursor.to_string()), Reply::Array(items)])
}

/// The count of SRANDMEMBER, HRANDFIELD and ZRANDMEMBER: an integer in -LONG_MAX..=LONG_MAX (Redis's
/// `getRangeLongFromObjectOrReply`, with its error text).
pub fn rand_count(arg: &[u8]) -> Result<i64, CmdError> {
    let n = parse_i64(arg).ok_or(CmdError::NotInteger)?;
    if n == i64::MIN {
        return Err(CmdError::err(format!("value is out of range, value must between {} and {}", -i64::MAX, i64::MAX)));
    }
    Ok(n)
}

/// The arguments after the key of HRANDFIELD and ZRANDMEMBER when a count is given: the
/// count, then `with` (WITHVALUES, WITHSCORES) or nothing, in Redis's order of errors; with
/// `with`, a count whose doubled reply length would overflow is out of range.
pub fn rand_count_with(args: &mut Args<'_>, with: &[u8]) -> Result<(i64, bool), CmdError> {
    let count = rand_count(args.bytes()?)?;
    let with = match args.rest() {
        [] => false,
        [opt] if opt.eq_ignore_ascii_case(with) => true,
        _ => return Err(CmdError::Syntax),
    };
    if with && !(-i64::MAX / 2..=i64::MAX / 2).contains(&count) {
        return Err(CmdError::err("value is out of range"));
    }
    Ok((count, with))
}

/// A negative count asks for that many picks with repetition, so the reply's size is set by
/// the client, not by the collection. Redis builds such a reply whatever it costs (a count of
/// -LONG_MAX exhausts memory); Vitrine refuses one that would take more than
/// `proto-max-bulk-len` bytes, estimated from the collection's mean element size, before
/// allocating anything for it.
pub fn check_reply_size(picks: u64, bytes_per_pick: usize, limit: u64) -> Result<(), CmdError> {
    if picks.saturating_mul(bytes_per_pick as u64) > limit {
        return Err(CmdError::err("value is out of range, the reply would exceed proto-max-bulk-len"));
    }
    Ok(())
}

/// The positions SRANDMEMBER, HRANDFIELD and ZRANDMEMBER answer for `count` over a non-empty
/// collection of `len` elements: none for 0; for a negative count that many picks that may
/// repeat (refused past `limit` bytes at `bytes_per_pick`, see `check_reply_size`); for a
/// positive one, the whole collection when it asks for as many, else that many distinct.
pub fn random_positions(
    len: usize,
    count: i64,
    bytes_per_pick: usize,
    limit: u64,
    mut random: impl FnMut() -> u64,
) -> Result<Vec<usize>, CmdError> {
    let picks = count.unsigned_abs();
    Ok(if count == 0 {
        Vec::new()
    } else if count < 0 {
        check_reply_size(picks, bytes_per_pick, limit)?;
        (0..picks).map(|_| (random() % len as u64) as usize).collect()
    } else if picks >= len as u64 {
        (0..len).collect()
    } else {
        distinct_positions(len, picks as usize, random)
    })
}

/// `count` distinct positions in `0..len` (`count < len`), in random order. Allocates in
/// proportion to `len` or `count`, both bounded by the collection's size.
pub fn distinct_positions(len: usize, count: usize, mut random: impl FnMut() -> u64) -> Vec<usize> {
    let mut below = |n: usize| (random() % n as u64) as usize;
    if count.saturating_mul(3) > len {
        // Many of them: a partial Fisher-Yates shuffle of all positions.
        let mut all: Vec<usize> = (0..len).collect();
        for i in 0..count {
            let j = i + below(len - i);
            all.swap(i, j);
        }
        all.truncate(count);
        all
    } else {
        // Few of them: draw until enough are distinct (at most a third are taken, so each
        // draw succeeds with probability above 2/3).
        let mut seen = HashSet::with_capacity(count);
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let p = below(len);
            if seen.insert(p) {
                out.push(p);
            }
        }
        out
    }
}

/// The arguments of LMPOP/ZMPOP (and, after the timeout, BLMPOP/BZMPOP): `numkeys key...
/// <where> [COUNT n]`, in Redis 7.0's order and with its errors. `side` reads the where
/// word (LEFT|RIGHT, MIN|MAX) as a bool. Answers the keys, the side and the count (1 when
/// not given).
pub(crate) fn mpop_args<'a>(
    argv: &'a [&'a [u8]],
    side: fn(&[u8]) -> Result<bool, CmdError>,
) -> Result<(&'a [&'a [u8]], bool, usize), CmdError> {
    let numkeys = positive(argv.first().copied().unwrap_or_default(), "numkeys should be greater than 0")?;
    let where_at = numkeys.checked_add(1).filter(|&i| i < argv.len()).ok_or(CmdError::Syntax)?;
    let left = side(argv[where_at])?;
    let mut count = None;
    let mut rest = argv[where_at + 1..].iter();
    while let Some(opt) = rest.next() {
        match rest.as_slice().first() {
            Some(n) if count.is_none() && opt.eq_ignore_ascii_case(b"COUNT") => {
                rest.next();
                count = Some(positive(n, "count should be greater than 0")?);
            }
            _ => return Err(CmdError::Syntax),
        }
    }
    Ok((&argv[1..where_at], left, count.unwrap_or(1)))
}

/// An integer from 1 to LONG_MAX, or the given error (for a non-integer too, as Redis says).
fn positive(arg: &[u8], error: &str) -> Result<usize, CmdError> {
    parse_i64(arg).filter(|&n| n >= 1).map(|n| n as usize).ok_or_else(|| CmdError::err(error))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{err, TestEngine, NOT_INT};

    /// What a parse found: (pattern, count, type).
    type Parsed<'a> = (Option<&'a [u8]>, usize, Option<&'a [u8]>);

    fn parse<'a>(argv: &'a [&'a [u8]], of: ScanOf) -> Result<Parsed<'a>, CmdError> {
        let mut args = Args::new(argv);
        ScanOptions::parse(&mut args, of).map(|o| (o.pattern, o.count, o.type_name))
    }

    #[test]
    fn scan_options_parse_as_redis_for_every_scan() {
        use ScanOf::*;
        for of in [Keyspace, Hash, Set, SortedSet] {
            assert_eq!(parse(&[], of), Ok((None, 10, None)));
            // Any case; MATCH * is no pattern; the later of two options wins.
            assert_eq!(parse(&[b"match", b"a*", b"Count", b"3", b"MATCH", b"b*"], of), Ok((Some(&b"b*"[..]), 3, None)));
            assert_eq!(parse(&[b"MATCH", b"*"], of), Ok((None, 10, None)));
            assert_eq!(parse(&[b"COUNT", b"9223372036854775807"], of).map(|o| o.1 > 0), Ok(true));
            for bad in [
                &[&b"COUNT"[..], b"0"][..],
                &[b"COUNT", b"-1"],
                &[b"COUNT"],
                &[b"MATCH"],
                &[b"FOO", b"bar"],
                &[b"MATCH", b"*", b"extra"],
                &[b"NOVALUES"],
            ] {
                assert_eq!(parse(bad, of), Err(CmdError::Syntax), "{of:?} {bad:?}");
            }
            assert_eq!(parse(&[b"COUNT", b"x", b"FOO"], of), Err(CmdError::NotInteger), "the first bad option decides");
            assert_eq!(parse(&[b"COUNT", b"1.5"], of), Err(CmdError::NotInteger));
        }
        // TYPE is SCAN's alone.
        assert_eq!(parse(&[b"TYPE", b"hash"], Keyspace), Ok((None, 10, Some(&b"hash"[..]))));
        assert_eq!(parse(&[b"TYPE"], Keyspace), Err(CmdError::Syntax));
        for of in [Hash, Set, SortedSet] {
            assert_eq!(parse(&[b"TYPE", b"hash"], of), Err(CmdError::Syntax), "{of:?}");
        }
    }

    #[test]
    fn every_scan_answers_the_same_option_errors() {
        let mut t = TestEngine::default();
        t.run(&["HSET", "h", "f", "v"]);
        t.run(&["SADD", "s", "m"]);
        t.run(&["ZADD", "z", "1", "m"]);
        for prefix in [&["SCAN"][..], &["HSCAN", "h"], &["SSCAN", "s"], &["ZSCAN", "z"]] {
            let run = |t: &mut TestEngine, rest: &[&str]| t.run(&[prefix, &["0"], rest].concat());
            assert_eq!(run(&mut t, &["COUNT", "0"]), err("ERR syntax error"), "{prefix:?}");
            assert_eq!(run(&mut t, &["COUNT", "abc"]), err(NOT_INT), "{prefix:?}");
            assert_eq!(run(&mut t, &["MATCH"]), err("ERR syntax error"), "{prefix:?}");
            assert_eq!(run(&mut t, &["BOGUS", "x"]), err("ERR syntax error"), "{prefix:?}");
            let cursor = t.run(&[prefix, &["x"]].concat());
            assert_eq!(cursor, err("ERR invalid cursor"), "{prefix:?}");
        }
    }

    #[test]
    fn distinct_positions_are_distinct_and_in_range() {
        let mut state = 1u64;
        let mut random = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 11
        };
        for (len, count) in [(10, 9), (10, 1), (100, 30), (100, 40), (1000, 999), (5, 0)] {
            let picks = distinct_positions(len, count, &mut random);
            assert_eq!(picks.len(), count);
            assert_eq!(picks.iter().collect::<HashSet<_>>().len(), count);
            assert!(picks.iter().all(|&p| p < len));
        }
    }

    #[test]
    fn counts_and_sizes() {
        assert_eq!(rand_count(b"-9223372036854775807"), Ok(-i64::MAX));
        assert_eq!(rand_count(b"x"), Err(CmdError::NotInteger));
        assert!(rand_count(b"-9223372036854775808").is_err());
        assert!(check_reply_size(1000, 100, 100_000).is_ok());
        assert!(check_reply_size(1001, 100, 100_000).is_err());
        assert!(check_reply_size(u64::MAX, 100, 1 << 40).is_err());
    }
}
