//! Set commands: SADD/SREM and membership, SPOP and SRANDMEMBER, the algebra (SINTER, SUNION,
//! SDIFF, their STORE forms, SINTERCARD), SMOVE and SSCAN. A set that loses its last member
//! is deleted, as in Redis.
//!
//! Multi-key commands rely on dispatch having locked the shards of all their keys (the key
//! spec in the table). They visit one set at a time, so no two shards are borrowed at once.

use std::mem::size_of;

use crate::args::{parse_i64, Args};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::store::entry::{alloc_size, Entry, Value, ValueRef};
use crate::store::set::{SetValue, ELEMENT_OVERHEAD};

use super::collection::{
    self, check_reply_size, distinct_positions, rand_count, scan_cursor, scan_reply, ScanOf, ScanOptions,
};
use super::string::default_expiry;

/// Redis's SPOP_MOVE_STRATEGY_MUL: when what is left is this many times smaller than what
/// is popped, Redis builds a new set from what is left (and picks its encoding afresh).
const SPOP_MOVE_STRATEGY_MUL: usize = 5;

/// SADD: adds members to a set (creating it) and answers how many were new.
///
/// ```text
/// SADD key member [member ...]
/// ```
pub fn sadd(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let first = members.first().copied().unwrap_or_default();
    let added = upsert(ctx, key, first, members.len(), |s| members.iter().filter(|m| s.add(m)).count())?;
    Ok(Reply::Int(added as i64))
}

/// SREM: removes members and answers how many were there. Deletes the set when it is empty.
///
/// ```text
/// SREM key member [member ...]
/// ```
pub fn srem(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let removed = modify(ctx, key, |s| members.iter().filter(|m| s.remove(m)).count())?;
    Ok(Reply::Int(removed.unwrap_or(0) as i64))
}

/// SMEMBERS: every member of the set (a RESP3 set).
///
/// ```text
/// SMEMBERS key
/// ```
pub fn smembers(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let s = read_set(ctx, key)?;
    Ok(Reply::Set(s.map(|s| s.iter().map(Reply::bulk).collect()).unwrap_or_default()))
}

/// SISMEMBER: 1 if the member is in the set, else 0.
///
/// ```text
/// SISMEMBER key member
/// ```
pub fn sismember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let member = args.bytes()?;
    Ok(Reply::Int(read_set(ctx, key)?.is_some_and(|s| s.contains(member)) as i64))
}

/// SMISMEMBER: for each member, 1 if it is in the set, else 0.
///
/// ```text
/// SMISMEMBER key member [member ...]
/// ```
pub fn smismember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let members = args.rest();
    let s = read_set(ctx, key)?;
    Ok(Reply::Array(members.iter().map(|m| Reply::Int(s.is_some_and(|s| s.contains(m)) as i64)).collect()))
}

/// SCARD: the number of members (0 if no such key).
///
/// ```text
/// SCARD key
/// ```
pub fn scard(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    Ok(Reply::Int(read_set(ctx, key)?.map_or(0, |s| s.len()) as i64))
}

/// SPOP: removes and answers a random member (nil if no such key), or with a count, up to
/// that many distinct members (a RESP3 set). Deletes the set when it is empty.
///
/// ```text
/// SPOP key [count]
/// ```
pub fn spop(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let engine = ctx.engine;
    let random = move || engine.store().common.random();
    let count = match args.rest() {
        [] => None,
        [count] => Some(
            parse_i64(count)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| CmdError::err("value is out of range, must be positive"))?,
        ),
        _ => return Err(CmdError::Syntax),
    };
    let Some(count) = count else {
        let popped = modify(ctx, key, |s| s.remove_index((random() % s.len() as u64) as usize))?;
        return Ok(Reply::opt_bulk(popped.flatten()));
    };
    let popped = modify(ctx, key, |s| {
        if count >= s.len() {
            return std::mem::take(s).iter().map(Reply::bulk).collect();
        }
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            let pick = (random() % s.len() as u64) as usize;
            out.extend(s.remove_index(pick).map(Reply::bulk));
        }
        if s.len() * SPOP_MOVE_STRATEGY_MUL <= count {
            s.reencode();
        }
        out
    })?;
    Ok(Reply::Set(popped.unwrap_or_default()))
}

/// SRANDMEMBER: a random member (nil if no such key), or with a positive count up to that
/// many distinct members, or with a negative count that many picks that may repeat.
///
/// ```text
/// SRANDMEMBER key [count]
/// ```
pub fn srandmember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let engine = ctx.engine;
    let random = move || engine.store().common.random();
    let count = match args.rest() {
        [] => None,
        [count] => Some(rand_count(count)?),
        _ => return Err(CmdError::Syntax),
    };
    let Some(count) = count else {
        let Some(s) = read_set(ctx, key)? else {
            return Ok(Reply::Nil);
        };
        return Ok(Reply::opt_bulk(s.get_index((random() % s.len() as u64) as usize)));
    };
    let limit = engine.config().proto_max_bulk_len();
    let Some(s) = read_set(ctx, key)? else {
        return Ok(Reply::Array(vec![]));
    };
    let picks = count.unsigned_abs();
    let positions: Vec<usize> = if count == 0 {
        Vec::new()
    } else if count < 0 {
        check_reply_size(picks, s.heap_size() / s.len() + size_of::<Reply>(), limit)?;
        (0..picks).map(|_| (random() % s.len() as u64) as usize).collect()
    } else if picks >= s.len() as u64 {
        (0..s.len()).collect()
    } else {
        distinct_positions(s.len(), picks as usize, random)
    };
    Ok(Reply::Array(positions.into_iter().filter_map(|p| s.get_index(p)).map(Reply::bulk).collect()))
}

/// SINTER: the members every given set has (a missing key is an empty set).
///
/// ```text
/// SINTER key [key ...]
/// ```
pub fn sinter(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let members = intersection(ctx, args.rest(), Lookup::Read, 0)?;
    Ok(Reply::Set(members.into_iter().map(Reply::Bulk).collect()))
}

/// SUNION: the members any given set has.
///
/// ```text
/// SUNION key [key ...]
/// ```
pub fn sunion(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let set = union(ctx, args.rest(), Lookup::Read)?;
    Ok(Reply::Set(set.iter().map(Reply::bulk).collect()))
}

/// SDIFF: the members of the first set that none of the others has.
///
/// ```text
/// SDIFF key [key ...]
/// ```
pub fn sdiff(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let set = difference(ctx, args.rest(), Lookup::Read)?;
    Ok(Reply::Set(set.iter().map(Reply::bulk).collect()))
}

/// SINTERSTORE: stores the intersection in `destination` (replacing whatever it held;
/// deleting it when the result is empty) and answers its size.
///
/// ```text
/// SINTERSTORE destination key [key ...]
/// ```
pub fn sinterstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dst = args.key()?;
    let members = intersection(ctx, args.rest(), Lookup::Write, 0)?;
    let mut set = SetValue::new();
    members.iter().for_each(|m| {
        set.add(m);
    });
    Ok(store(ctx, dst, set))
}

/// SUNIONSTORE: stores the union in `destination` and answers its size.
///
/// ```text
/// SUNIONSTORE destination key [key ...]
/// ```
pub fn sunionstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dst = args.key()?;
    let set = union(ctx, args.rest(), Lookup::Write)?;
    Ok(store(ctx, dst, set))
}

/// SDIFFSTORE: stores the difference in `destination` and answers its size.
///
/// ```text
/// SDIFFSTORE destination key [key ...]
/// ```
pub fn sdiffstore(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let dst = args.key()?;
    let set = difference(ctx, args.rest(), Lookup::Write)?;
    Ok(store(ctx, dst, set))
}

/// SINTERCARD: the size of the intersection, counting up to LIMIT when given (0: no limit).
///
/// The table's key spec for it is (2, -1, 1): every argument after `numkeys`, so LIMIT and
/// its value are locked too. That is harmless (one more shard locked) and keeps the key
/// spec a plain range, where Redis reports (0, 0, 0) and `movablekeys`.
///
/// ```text
/// SINTERCARD numkeys key [key ...] [LIMIT limit]
/// ```
pub fn sintercard(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let numkeys =
        parse_i64(args.bytes()?).filter(|&n| n > 0).ok_or_else(|| CmdError::err("numkeys should be greater than 0"))?;
    if numkeys > args.len() as i64 {
        return Err(CmdError::err("Number of keys can't be greater than number of args"));
    }
    let all = args.rest();
    let (keys, opts) = all.split_at(numkeys as usize);
    let mut limit = 0;
    let mut i = 0;
    while i < opts.len() {
        if opts[i].eq_ignore_ascii_case(b"LIMIT") && i + 1 < opts.len() {
            limit = parse_i64(opts[i + 1])
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| CmdError::err("LIMIT can't be negative"))?;
            i += 2;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let members = intersection(ctx, keys, Lookup::Read, limit)?;
    Ok(Reply::Int(members.len() as i64))
}

/// SMOVE: moves a member from one set to another (creating it); 1 if it was moved, 0 if the
/// source does not have it. The source is deleted when it is emptied.
///
/// ```text
/// SMOVE source destination member
/// ```
pub fn smove(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let member = args.bytes()?;
    let now = ctx.now;
    // Redis's order: a missing source answers 0 before the destination's type is checked.
    match ctx.db.lookup(src, now) {
        None => return Ok(Reply::Int(0)),
        Some(Entry { value: ValueRef::Set(_), .. }) => {}
        Some(_) => return Err(CmdError::WrongType),
    }
    if ctx.db.lookup(dst, now).is_some_and(|e| !matches!(e.value, ValueRef::Set(_))) {
        return Err(CmdError::WrongType);
    }
    if src == dst {
        let found = peek_set(ctx, src, |s| s.contains(member)).unwrap_or(false);
        return Ok(Reply::Int(found as i64));
    }
    if modify(ctx, src, |s| s.remove(member))? != Some(true) {
        return Ok(Reply::Int(0));
    }
    upsert(ctx, dst, member, 1, |s| s.add(member))?;
    Ok(Reply::Int(1))
}

/// SSCAN: one step of an iteration over a set's members; answers the next cursor (0 when
/// done) and some members. A small set comes whole in one step, as in Redis.
///
/// ```text
/// SSCAN key cursor [MATCH pattern] [COUNT count]
/// ```
pub fn sscan(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let cursor = scan_cursor(args.bytes()?)?;
    // As in Redis: a missing key answers an empty page before the options are looked at.
    let Some(s) = read_set(ctx, key)? else {
        return Ok(scan_reply(0, vec![]));
    };
    let opts = ScanOptions::parse(args, ScanOf::Set)?;
    let mut items = Vec::new();
    let next = s.scan(cursor, opts.count, |m| {
        if opts.matches(m) {
            items.push(Reply::bulk(m));
        }
    });
    Ok(scan_reply(next, items))
}

/// Bytes SADD may add beyond its arguments: a member's overhead each, and the set itself.
pub fn members_growth(argv: &[&[u8]]) -> usize {
    argv.len().saturating_sub(2) * ELEMENT_OVERHEAD + alloc_size(size_of::<SetValue>())
}

// --- The set algebra ------------------------------------------------------------------------

/// How the algebra looks its source keys up: SINTER, SUNION, SDIFF and SINTERCARD read
/// (keyspace hits and misses), the STORE forms look up for writing, as in Redis.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    Read,
    Write,
}

/// The size of the set at each key (`None` when missing), after checking every key's type
/// first, as Redis does: one of them holding another type is WRONGTYPE even if an earlier
/// key is missing.
fn sizes(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup) -> Result<Vec<Option<usize>>, CmdError> {
    let now = ctx.now;
    let mut out = Vec::with_capacity(keys.len());
    for key in keys {
        let entry = match lookup {
            Lookup::Read => ctx.db.read(key, now),
            Lookup::Write => ctx.db.lookup(key, now),
        };
        out.push(match entry {
            None => None,
            Some(Entry { value: ValueRef::Set(s), .. }) => Some(s.len()),
            Some(_) => return Err(CmdError::WrongType),
        });
    }
    Ok(out)
}

/// The members in every set, in the order of the smallest one; at most `limit` of them
/// when `limit` is not 0.
fn intersection(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup, limit: usize) -> Result<Vec<Vec<u8>>, CmdError> {
    let sizes = sizes(ctx, keys, lookup)?;
    if sizes.iter().any(Option::is_none) {
        return Ok(Vec::new());
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| sizes[i]);
    let Some((&smallest, rest)) = order.split_first() else {
        return Ok(Vec::new());
    };
    let mut members: Vec<Vec<u8>> =
        peek_set(ctx, keys[smallest], |s| s.iter().map(<[u8]>::to_vec).collect()).unwrap_or_default();
    for &i in rest {
        if members.is_empty() {
            break;
        }
        peek_set(ctx, keys[i], |s| members.retain(|m| s.contains(m)));
    }
    if limit > 0 {
        members.truncate(limit);
    }
    Ok(members)
}

/// Every member of any of the sets, collected as Redis collects them: into a new set that
/// starts as an intset.
fn union(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup) -> Result<SetValue, CmdError> {
    sizes(ctx, keys, lookup)?;
    let mut out = SetValue::new();
    for key in keys {
        peek_set(ctx, key, |s| {
            s.iter().for_each(|m| {
                out.add(m);
            })
        });
    }
    Ok(out)
}

/// The members of the first set that no other set has.
fn difference(ctx: &mut Ctx<'_>, keys: &[&[u8]], lookup: Lookup) -> Result<SetValue, CmdError> {
    let sizes = sizes(ctx, keys, lookup)?;
    let mut out = SetValue::new();
    let Some((first, rest)) = keys.split_first() else {
        return Ok(out);
    };
    if sizes[0].is_none() {
        return Ok(out);
    }
    let mut members: Vec<Vec<u8>> =
        peek_set(ctx, first, |s| s.iter().map(<[u8]>::to_vec).collect()).unwrap_or_default();
    for key in rest {
        if members.is_empty() {
            break;
        }
        peek_set(ctx, key, |s| members.retain(|m| !s.contains(m)));
    }
    members.iter().for_each(|m| {
        out.add(m);
    });
    Ok(out)
}

/// Stores a computed set in `dst`, replacing any value and TTL there (the new key gets the
/// default TTL); an empty result deletes `dst` instead. Answers the stored size.
fn store(ctx: &mut Ctx<'_>, dst: &[u8], set: SetValue) -> Reply {
    let now = ctx.now;
    let expire_at = default_expiry(ctx);
    let shard = ctx.db.shard(dst);
    let len = set.len();
    if set.is_empty() {
        // `contains` expires a stale key first, so it is counted as expired, not deleted.
        if shard.contains(dst, now) {
            shard.remove(dst);
        }
    } else {
        shard.insert(dst, Value::Set(Box::new(set)), expire_at, now);
    }
    Reply::Int(len as i64)
}

// --- Shared by the set commands -------------------------------------------------------------

/// The set at a key for reading (a keyspace hit or miss), `None` if there is none, or
/// WRONGTYPE.
fn read_set<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a SetValue>, CmdError> {
    collection::read(ctx, key)
}

/// `f` of the set at a key, without touching it or counting a hit (for a second look at a
/// key the command already looked up); `None` if there is no set there.
fn peek_set<R>(ctx: &mut Ctx<'_>, key: &[u8], f: impl FnOnce(&SetValue) -> R) -> Option<R> {
    let now = ctx.now;
    match ctx.db.peek(key, now) {
        Some(Entry { value: ValueRef::Set(s), .. }) => Some(f(s)),
        _ => None,
    }
}

/// Runs `f` on the set at a key, creating it when there is none, in the encoding Redis
/// picks for `first` and `size_hint` members (it is stored only if `f` left it non-empty,
/// with the default TTL). WRONGTYPE for any other value.
fn upsert<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    first: &[u8],
    size_hint: usize,
    mut f: impl FnMut(&mut SetValue) -> R,
) -> Result<R, CmdError> {
    collection::upsert(ctx, key, || SetValue::for_members(first, size_hint), |s| Ok(f(s)))
}

/// Runs `f` on an existing set (`None` if there is none); `Shard::update` deletes the key
/// if `f` emptied it. WRONGTYPE for any other value.
fn modify<R>(ctx: &mut Ctx<'_>, key: &[u8], f: impl FnOnce(&mut SetValue) -> R) -> Result<Option<R>, CmdError> {
    collection::modify(&mut ctx.db, key, ctx.now, f)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::reply::Reply;
    use crate::store::Touch;
    use crate::testing::{arity, arr, bulk, err, int, nil, TestEngine, NOT_INT, POSITIVE, SYNTAX, WRONGTYPE};

    fn engine() -> TestEngine {
        TestEngine::default()
    }

    fn set_of(items: &[&str]) -> Reply {
        Reply::Set(items.iter().map(|s| bulk(s)).collect())
    }

    /// The strings of an array or set reply (panics on anything else).
    fn strings(reply: Reply) -> Vec<String> {
        match reply {
            Reply::Array(items) | Reply::Set(items) => items
                .into_iter()
                .map(|r| match r {
                    Reply::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
                    other => panic!("not a bulk: {other:?}"),
                })
                .collect(),
            other => panic!("not an array: {other:?}"),
        }
    }

    /// The members of a reply, in any order.
    fn sorted(reply: Reply) -> Vec<String> {
        let mut v = strings(reply);
        v.sort();
        v
    }

    fn expire_at(t: &TestEngine, key: &str) -> Option<u64> {
        let store = t.engine.store();
        let mut shard = store.lock_shard(store.shard_index(key.as_bytes()));
        shard.lookup(key.as_bytes(), t.now, Touch::No).map(|e| e.expire_at)
    }

    fn used(t: &TestEngine) -> usize {
        t.engine.store().used_memory()
    }

    fn encoding(t: &mut TestEngine, key: &str) -> Reply {
        t.run(&["OBJECT", "ENCODING", key])
    }

    #[test]
    fn sadd_srem_and_membership() {
        let mut t = engine();
        assert_eq!(t.run(&["SADD", "s", "3", "1", "2", "1"]), int(3));
        assert_eq!(t.run(&["SADD", "s", "2", "4"]), int(1));
        // A small integer set lists its members sorted, as Redis's intset.
        assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["1", "2", "3", "4"]));
        assert_eq!(t.run(&["SADD", "s", "x", "-5"]), int(2));
        // Then in insertion order, as Redis 7.2's listpack.
        assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["1", "2", "3", "4", "x", "-5"]));
        assert_eq!(t.run(&["SCARD", "s"]), int(6));
        assert_eq!(t.run(&["SCARD", "nokey"]), int(0));
        assert_eq!(t.run(&["SISMEMBER", "s", "x"]), int(1));
        assert_eq!(t.run(&["SISMEMBER", "s", "y"]), int(0));
        assert_eq!(t.run(&["SISMEMBER", "nokey", "x"]), int(0));
        assert_eq!(t.run(&["SMISMEMBER", "s", "1", "y", "x"]), arr(vec![int(1), int(0), int(1)]));
        assert_eq!(t.run(&["SMISMEMBER", "nokey", "1", "2"]), arr(vec![int(0), int(0)]));
        assert_eq!(t.run(&["SMEMBERS", "nokey"]), set_of(&[]));
        assert_eq!(t.run(&["SREM", "s", "1", "y", "1", "x"]), int(2));
        assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["2", "3", "4", "-5"]));
        assert_eq!(t.run(&["SREM", "nokey", "1"]), int(0));
        assert_eq!(t.run(&["TYPE", "s"]), Reply::status("set"));
        assert_eq!(t.run(&["SREM", "s", "2", "3", "4", "-5"]), int(4));
        assert_eq!(t.run(&["EXISTS", "s"]), int(0));
        assert_eq!(used(&t), 0);
        // Binary-safe members, the empty one too.
        assert_eq!(t.run(&[&b"SADD"[..], b"b", b"", b"\x00\xff", b"\r\n"]), int(3));
        assert_eq!(t.run(&["SISMEMBER", "b", ""]), int(1));
        assert_eq!(t.run(&[&b"SISMEMBER"[..], b"b", b"\x00\xff"]), int(1));
    }

    #[test]
    fn replies_are_sets_in_resp3() {
        let mut t = engine();
        t.run(&["SADD", "s", "a"]);
        t.session.resp3 = true;
        assert_eq!(t.resp(&["SMEMBERS", "s"]), "~1\r\n$1\r\na\r\n");
        assert_eq!(t.resp(&["SINTER", "s"]), "~1\r\n$1\r\na\r\n");
        assert_eq!(t.resp(&["SUNION", "s"]), "~1\r\n$1\r\na\r\n");
        assert_eq!(t.resp(&["SDIFF", "s"]), "~1\r\n$1\r\na\r\n");
        assert_eq!(t.resp(&["SRANDMEMBER", "s", "1"]), "*1\r\n$1\r\na\r\n");
        assert_eq!(t.resp(&["SPOP", "nokey", "1"]), "~0\r\n");
        assert_eq!(t.resp(&["SPOP", "s", "1"]), "~1\r\n$1\r\na\r\n");
        assert_eq!(t.resp(&["SPOP", "s"]), "_\r\n");
        t.session.resp3 = false;
        assert_eq!(t.resp(&["SMEMBERS", "nokey"]), "*0\r\n");
        assert_eq!(t.resp(&["SPOP", "nokey"]), "$-1\r\n");
    }

    #[test]
    fn arity_errors() {
        let mut t = engine();
        for (cmd, argv) in [
            ("sadd", &["SADD", "s"][..]),
            ("srem", &["SREM", "s"]),
            ("smembers", &["SMEMBERS"]),
            ("smembers", &["SMEMBERS", "a", "b"]),
            ("sismember", &["SISMEMBER", "s"]),
            ("smismember", &["SMISMEMBER", "s"]),
            ("scard", &["SCARD"]),
            ("spop", &["SPOP"]),
            ("srandmember", &["SRANDMEMBER"]),
            ("sinter", &["SINTER"]),
            ("sunion", &["SUNION"]),
            ("sdiff", &["SDIFF"]),
            ("sinterstore", &["SINTERSTORE", "d"]),
            ("sunionstore", &["SUNIONSTORE", "d"]),
            ("sdiffstore", &["SDIFFSTORE", "d"]),
            ("sintercard", &["SINTERCARD", "1"]),
            ("smove", &["SMOVE", "a", "b"]),
            ("smove", &["SMOVE", "a", "b", "c", "d"]),
            ("sscan", &["SSCAN", "s"]),
        ] {
            assert_eq!(t.run(argv), arity(cmd), "{argv:?}");
        }
        assert_eq!(t.run(&["SPOP", "s", "1", "2"]), err(SYNTAX));
        assert_eq!(t.run(&["SRANDMEMBER", "s", "1", "2"]), err(SYNTAX));
        assert_eq!(t.run(&["SRANDMEMBER", "s", "x", "2"]), err(SYNTAX));
    }

    #[test]
    fn every_command_refuses_another_type() {
        let mut t = engine();
        t.run(&["SET", "str", "x"]);
        t.run(&["SADD", "s", "1"]);
        for cmd in [
            &["SADD", "str", "m"][..],
            &["SREM", "str", "m"],
            &["SMEMBERS", "str"],
            &["SISMEMBER", "str", "m"],
            &["SMISMEMBER", "str", "m"],
            &["SCARD", "str"],
            &["SPOP", "str"],
            &["SPOP", "str", "0"],
            &["SRANDMEMBER", "str"],
            &["SRANDMEMBER", "str", "0"],
            &["SRANDMEMBER", "str", "-5"],
            // Every key's type is checked, even after a missing key.
            &["SINTER", "nokey", "str"],
            &["SINTER", "s", "str"],
            &["SUNION", "s", "str"],
            &["SDIFF", "nokey", "str"],
            &["SDIFF", "s", "str"],
            &["SINTERSTORE", "d", "nokey", "str"],
            &["SUNIONSTORE", "d", "s", "str"],
            &["SDIFFSTORE", "d", "nokey", "str"],
            &["SINTERCARD", "1", "str"],
            &["SINTERCARD", "2", "nokey", "str"],
            &["SMOVE", "str", "s", "1"],
            &["SMOVE", "s", "str", "1"],
            &["SSCAN", "str", "0"],
            &["SSCAN", "str", "0", "BOGUS"],
        ] {
            assert_eq!(t.run(cmd), err(WRONGTYPE), "{cmd:?}");
        }
        assert_eq!(t.run(&["GET", "str"]), bulk("x"));
        assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["1"]));
        assert_eq!(t.run(&["EXISTS", "d"]), int(0));
        assert_eq!(t.run(&["GET", "s"]), err(WRONGTYPE));
        assert_eq!(t.run(&["HGET", "s", "f"]), err(WRONGTYPE));
        t.run(&["HSET", "h", "f", "v"]);
        assert_eq!(t.run(&["SADD", "h", "m"]), err(WRONGTYPE));
    }

    #[test]
    fn spop_removes_random_members() {
        let mut t = engine();
        assert_eq!(t.run(&["SPOP", "nokey"]), nil());
        assert_eq!(t.run(&["SPOP", "nokey", "3"]), set_of(&[]));
        for bad in ["-1", "x", "1.5", "-9223372036854775808"] {
            assert_eq!(t.run(&["SPOP", "nokey", bad]), err(POSITIVE), "{bad}");
        }
        let members: Vec<String> = (0..30).map(|i| format!("m{i}")).collect();
        let mut argv = vec!["SADD".to_string(), "s".into()];
        argv.extend(members.iter().cloned());
        t.run(&argv);
        assert_eq!(t.run(&["SPOP", "s", "0"]), set_of(&[]));
        let Reply::Bulk(one) = t.run(&["SPOP", "s"]) else { panic!() };
        let one = String::from_utf8(one).unwrap_or_default();
        assert!(members.contains(&one));
        assert_eq!(t.run(&["SISMEMBER", "s", &one]), int(0));
        let popped = strings(t.run(&["SPOP", "s", "9"]));
        assert_eq!(popped.len(), 9);
        assert_eq!(popped.iter().collect::<BTreeSet<_>>().len(), 9);
        assert!(!popped.contains(&one));
        assert_eq!(t.run(&["SCARD", "s"]), int(20));
        for m in &popped {
            assert_eq!(t.run(&["SISMEMBER", "s", m]), int(0));
        }
        // Popping at least everything answers everything and deletes the set.
        let rest = strings(t.run(&["SPOP", "s", "9223372036854775807"]));
        assert_eq!(rest.len(), 20);
        assert_eq!(t.run(&["EXISTS", "s"]), int(0));
        t.run(&["SADD", "s", "a"]);
        assert_eq!(t.run(&["SPOP", "s"]), bulk("a"));
        assert_eq!(t.run(&["EXISTS", "s"]), int(0));
        assert_eq!(used(&t), 0);
    }

    #[test]
    fn spop_of_most_of_a_hashtable_picks_a_small_encoding_again() {
        let mut t = engine();
        let mut argv = vec!["SADD".to_string(), "s".into()];
        argv.extend((0..600).map(|i| i.to_string()));
        t.run(&argv);
        assert_eq!(encoding(&mut t, "s"), bulk("hashtable"));
        // 590 popped, 10 left: Redis builds a new set of what is left (5 × 10 <= 590).
        assert_eq!(strings(t.run(&["SPOP", "s", "590"])).len(), 590);
        assert_eq!(encoding(&mut t, "s"), bulk("intset"));
        let left = strings(t.run(&["SMEMBERS", "s"]));
        let mut numeric: Vec<i64> = left.iter().filter_map(|m| m.parse().ok()).collect();
        numeric.sort();
        assert_eq!(left, numeric.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        // Popping fewer keeps the hashtable.
        t.run(&argv);
        t.run(&["SPOP", "s", "10"]);
        assert_eq!(encoding(&mut t, "s"), bulk("hashtable"));
    }

    #[test]
    fn srandmember_with_and_without_count() {
        let mut t = engine();
        assert_eq!(t.run(&["SRANDMEMBER", "nokey"]), nil());
        assert_eq!(t.run(&["SRANDMEMBER", "nokey", "5"]), arr(vec![]));
        assert_eq!(t.run(&["SRANDMEMBER", "nokey", "-5"]), arr(vec![]));
        assert_eq!(t.run(&["SRANDMEMBER", "nokey", "x"]), err(NOT_INT));
        let members: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        let mut argv = vec!["SADD".to_string(), "s".into()];
        argv.extend(members.iter().cloned());
        t.run(&argv);
        let mut seen = BTreeSet::new();
        for _ in 0..300 {
            seen.extend(strings(arr(vec![t.run(&["SRANDMEMBER", "s"])])));
        }
        assert_eq!(seen.len(), 20);
        assert_eq!(t.run(&["SRANDMEMBER", "s", "0"]), arr(vec![]));
        for n in [1usize, 6, 7, 19, 20, 21, 1000] {
            let got = strings(t.run(&["SRANDMEMBER", "s", &n.to_string()]));
            assert_eq!(got.len(), n.min(20), "{n}");
            assert_eq!(got.iter().collect::<BTreeSet<_>>().len(), got.len(), "{n}");
            assert!(got.iter().all(|m| members.contains(m)));
        }
        let got = strings(t.run(&["SRANDMEMBER", "s", "-100"]));
        assert_eq!(got.len(), 100);
        assert!(got.iter().all(|m| members.contains(m)));
        assert_eq!(t.run(&["SCARD", "s"]), int(20));
        // Huge counts: a positive one is bounded by the set, a negative one by the reply size.
        assert_eq!(strings(t.run(&["SRANDMEMBER", "s", "9223372036854775807"])).len(), 20);
        let too_big = err("ERR value is out of range, the reply would exceed proto-max-bulk-len");
        assert_eq!(t.run(&["SRANDMEMBER", "s", "-9223372036854775807"]), too_big);
        assert_eq!(t.run(&["SRANDMEMBER", "s", "-100000000"]), too_big);
        assert_eq!(
            t.run(&["SRANDMEMBER", "s", "-9223372036854775808"]),
            err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
        );
    }

    #[test]
    fn the_set_algebra() {
        let mut t = engine();
        t.run(&["SADD", "a", "1", "2", "3", "4", "5"]);
        t.run(&["SADD", "b", "4", "5", "6", "7"]);
        t.run(&["SADD", "c", "5", "7", "9", "x"]);
        assert_eq!(sorted(t.run(&["SINTER", "a", "b"])), ["4", "5"]);
        assert_eq!(sorted(t.run(&["SINTER", "a", "b", "c"])), ["5"]);
        assert_eq!(sorted(t.run(&["SINTER", "a", "a"])), ["1", "2", "3", "4", "5"]);
        assert_eq!(t.run(&["SINTER", "a", "nokey"]), set_of(&[]));
        assert_eq!(t.run(&["SINTER", "nokey"]), set_of(&[]));
        assert_eq!(sorted(t.run(&["SUNION", "a", "b", "c"])), ["1", "2", "3", "4", "5", "6", "7", "9", "x"]);
        assert_eq!(sorted(t.run(&["SUNION", "nokey", "c"])), ["5", "7", "9", "x"]);
        assert_eq!(t.run(&["SUNION", "nokey"]), set_of(&[]));
        assert_eq!(sorted(t.run(&["SDIFF", "a", "b"])), ["1", "2", "3"]);
        assert_eq!(sorted(t.run(&["SDIFF", "a", "b", "c"])), ["1", "2", "3"]);
        assert_eq!(sorted(t.run(&["SDIFF", "c", "nokey", "a"])), ["7", "9", "x"]);
        assert_eq!(t.run(&["SDIFF", "nokey", "a"]), set_of(&[]));
        assert_eq!(t.run(&["SDIFF", "a", "a"]), set_of(&[]));
        // Integer results come sorted, as the intset Redis collects them into.
        assert_eq!(t.run(&["SUNION", "b", "a"]), set_of(&["1", "2", "3", "4", "5", "6", "7"]));

        // The STORE forms answer the size and replace the destination (type and TTL).
        t.run(&["SET", "d", "string", "EX", "100"]);
        assert_eq!(t.run(&["SINTERSTORE", "d", "a", "b"]), int(2));
        assert_eq!(sorted(t.run(&["SMEMBERS", "d"])), ["4", "5"]);
        assert_eq!(expire_at(&t, "d"), Some(0));
        assert_eq!(t.run(&["SUNIONSTORE", "d", "a", "c"]), int(8));
        assert_eq!(t.run(&["SCARD", "d"]), int(8));
        assert_eq!(t.run(&["SDIFFSTORE", "d", "a", "b"]), int(3));
        assert_eq!(sorted(t.run(&["SMEMBERS", "d"])), ["1", "2", "3"]);
        // The destination may be a source.
        assert_eq!(t.run(&["SUNIONSTORE", "d", "d", "b"]), int(7));
        assert_eq!(t.run(&["SDIFFSTORE", "d", "d", "a"]), int(2));
        assert_eq!(sorted(t.run(&["SMEMBERS", "d"])), ["6", "7"]);
        // An empty result deletes the destination.
        assert_eq!(t.run(&["SINTERSTORE", "d", "a", "nokey"]), int(0));
        assert_eq!(t.run(&["EXISTS", "d"]), int(0));
        t.run(&["SET", "d", "x"]);
        assert_eq!(t.run(&["SDIFFSTORE", "d", "a", "a"]), int(0));
        assert_eq!(t.run(&["EXISTS", "d"]), int(0));
        assert_eq!(t.run(&["SUNIONSTORE", "d", "nokey"]), int(0));
        assert_eq!(t.run(&["EXISTS", "d"]), int(0));
        // The encoding of a stored result is picked afresh.
        t.run(&["SINTERSTORE", "d", "a", "b"]);
        assert_eq!(encoding(&mut t, "d"), bulk("intset"));
        t.run(&["SUNIONSTORE", "d", "a", "c"]);
        assert_eq!(encoding(&mut t, "d"), bulk("listpack"));
        assert_eq!(t.run(&["TYPE", "d"]), Reply::status("set"));
    }

    #[test]
    fn sintercard_counts_up_to_the_limit() {
        let mut t = engine();
        t.run(&["SADD", "a", "1", "2", "3", "4", "5"]);
        t.run(&["SADD", "b", "2", "3", "4", "9"]);
        assert_eq!(t.run(&["SINTERCARD", "2", "a", "b"]), int(3));
        assert_eq!(t.run(&["SINTERCARD", "1", "a"]), int(5));
        assert_eq!(t.run(&["SINTERCARD", "2", "a", "b", "LIMIT", "2"]), int(2));
        assert_eq!(t.run(&["SINTERCARD", "2", "a", "b", "limit", "0"]), int(3));
        assert_eq!(t.run(&["SINTERCARD", "2", "a", "b", "LIMIT", "5", "LIMIT", "1"]), int(1));
        assert_eq!(t.run(&["SINTERCARD", "2", "a", "nokey"]), int(0));
        let numkeys = err("ERR numkeys should be greater than 0");
        assert_eq!(t.run(&["SINTERCARD", "0", "a"]), numkeys);
        assert_eq!(t.run(&["SINTERCARD", "-1", "a"]), numkeys);
        assert_eq!(t.run(&["SINTERCARD", "x", "a"]), numkeys);
        assert_eq!(
            t.run(&["SINTERCARD", "3", "a", "b"]),
            err("ERR Number of keys can't be greater than number of args")
        );
        let negative = err("ERR LIMIT can't be negative");
        assert_eq!(t.run(&["SINTERCARD", "1", "a", "LIMIT", "-1"]), negative);
        assert_eq!(t.run(&["SINTERCARD", "1", "a", "LIMIT", "x"]), negative);
        assert_eq!(t.run(&["SINTERCARD", "1", "a", "LIMIT"]), err(SYNTAX));
        assert_eq!(t.run(&["SINTERCARD", "1", "a", "FOO"]), err(SYNTAX));
        assert_eq!(t.run(&["SINTERCARD", "1", "a", "b"]), err(SYNTAX));
    }

    #[test]
    fn smove_moves_one_member() {
        let mut t = engine();
        t.run(&["SADD", "src", "a", "b"]);
        t.run(&["SADD", "dst", "b", "c"]);
        assert_eq!(t.run(&["SMOVE", "src", "dst", "a"]), int(1));
        assert_eq!(t.run(&["SMOVE", "src", "dst", "a"]), int(0));
        assert_eq!(t.run(&["SMEMBERS", "src"]), set_of(&["b"]));
        assert_eq!(sorted(t.run(&["SMEMBERS", "dst"])), ["a", "b", "c"]);
        // Already in the destination: still moved (it left the source).
        assert_eq!(t.run(&["SMOVE", "src", "dst", "b"]), int(1));
        assert_eq!(t.run(&["EXISTS", "src"]), int(0));
        assert_eq!(t.run(&["SCARD", "dst"]), int(3));
        // A missing source answers 0 before the destination's type is looked at.
        t.run(&["SET", "str", "x"]);
        assert_eq!(t.run(&["SMOVE", "nokey", "str", "a"]), int(0));
        assert_eq!(t.run(&["SMOVE", "dst", "str", "a"]), err(WRONGTYPE));
        assert_eq!(t.run(&["SCARD", "dst"]), int(3));
        // Source and destination the same: a membership test.
        assert_eq!(t.run(&["SMOVE", "dst", "dst", "a"]), int(1));
        assert_eq!(t.run(&["SMOVE", "dst", "dst", "z"]), int(0));
        assert_eq!(t.run(&["SCARD", "dst"]), int(3));
        // A new destination is created (with the encoding Redis picks for its member).
        assert_eq!(t.run(&["SMOVE", "dst", "new", "c"]), int(1));
        assert_eq!(t.run(&["SMEMBERS", "new"]), set_of(&["c"]));
        assert_eq!(encoding(&mut t, "new"), bulk("listpack"));
        t.run(&["SADD", "ints", "7"]);
        assert_eq!(t.run(&["SMOVE", "ints", "new2", "7"]), int(1));
        assert_eq!(encoding(&mut t, "new2"), bulk("intset"));
        assert_eq!(t.run(&["EXISTS", "ints"]), int(0));
    }

    #[test]
    fn sscan_small_and_big() {
        let mut t = engine();
        assert_eq!(t.run(&["SSCAN", "nokey", "0"]), arr(vec![bulk("0"), arr(vec![])]));
        assert_eq!(t.run(&["SSCAN", "nokey", "0", "FOO"]), arr(vec![bulk("0"), arr(vec![])]));
        t.run(&["SADD", "s", "a", "b", "ab"]);
        let all = arr(vec![bulk("0"), arr(vec![bulk("a"), bulk("b"), bulk("ab")])]);
        assert_eq!(t.run(&["SSCAN", "s", "0"]), all);
        assert_eq!(t.run(&["SSCAN", "s", "77", "COUNT", "1"]), all);
        assert_eq!(t.run(&["SSCAN", "s", "0", "MATCH", "a*"]), arr(vec![bulk("0"), arr(vec![bulk("a"), bulk("ab")])]));
        assert_eq!(t.run(&["SSCAN", "s", "x"]), err("ERR invalid cursor"));
        assert_eq!(t.run(&["SSCAN", "s", "0", "COUNT", "0"]), err(SYNTAX));
        assert_eq!(t.run(&["SSCAN", "s", "0", "COUNT", "x"]), err(NOT_INT));
        assert_eq!(t.run(&["SSCAN", "s", "0", "MATCH"]), err(SYNTAX));
        assert_eq!(t.run(&["SSCAN", "s", "0", "TYPE", "set"]), err(SYNTAX));
        // Intset members are matched as text.
        t.run(&["SADD", "i", "10", "2", "15", "100"]);
        assert_eq!(
            t.run(&["SSCAN", "i", "0", "MATCH", "1*"]),
            arr(vec![bulk("0"), arr(vec![bulk("10"), bulk("15"), bulk("100")])])
        );
        // A big set: a full iteration returns every member, in pages of about COUNT, even
        // while members are removed between pages.
        let mut argv = vec!["SADD".to_string(), "big".into()];
        argv.extend((0..1000).map(|i| format!("m{i}")));
        t.run(&argv);
        let mut seen = BTreeSet::new();
        let mut cursor = "0".to_string();
        let mut removed = 0;
        loop {
            let Reply::Array(page) = t.run(&["SSCAN", "big", &cursor, "COUNT", "30"]) else { panic!() };
            let items = strings(page[1].clone());
            assert!(items.len() <= 30);
            seen.extend(items);
            cursor = strings(arr(vec![page[0].clone()])).remove(0);
            t.run(&["SREM", "big", &format!("m{}", removed * 3)]);
            removed += 1;
            if cursor == "0" {
                break;
            }
        }
        for m in strings(t.run(&["SMEMBERS", "big"])) {
            assert!(seen.contains(&m), "{m}");
        }
    }

    #[test]
    fn encodings_follow_redis_7_2() {
        let mut t = engine();
        t.run(&["SADD", "i", "1", "2"]);
        assert_eq!(encoding(&mut t, "i"), bulk("intset"));
        t.run(&["SADD", "i", "x"]);
        assert_eq!(encoding(&mut t, "i"), bulk("listpack"));
        t.run(&["SADD", "i", &"y".repeat(65)]);
        assert_eq!(encoding(&mut t, "i"), bulk("hashtable"));
        t.run(&["SREM", "i", &"y".repeat(65)]);
        assert_eq!(encoding(&mut t, "i"), bulk("hashtable"));
        t.run(&["SADD", "l", "a"]);
        assert_eq!(encoding(&mut t, "l"), bulk("listpack"));
        // A big SADD on a new key: as large as it needs at once.
        let mut argv = vec!["SADD".to_string(), "n".into()];
        argv.extend((0..513).map(|i| i.to_string()));
        t.run(&argv);
        assert_eq!(encoding(&mut t, "n"), bulk("hashtable"));
        argv.pop();
        argv[1] = "m".into();
        t.run(&argv);
        assert_eq!(encoding(&mut t, "m"), bulk("intset"));
        t.run(&["SADD", "m", "512"]);
        assert_eq!(encoding(&mut t, "m"), bulk("hashtable"));
    }

    #[test]
    fn writes_keep_the_ttl_and_new_sets_get_the_default_ttl() {
        let mut t = engine();
        t.run(&["SADD", "s", "a", "b", "c"]);
        t.run(&["EXPIRE", "s", "100"]);
        let at = t.now + 100_000;
        t.run(&["SADD", "s", "d"]);
        t.run(&["SREM", "s", "d"]);
        t.run(&["SPOP", "s"]);
        t.run(&["SMOVE", "s", "other", "a"]);
        assert_eq!(expire_at(&t, "s"), Some(at));
        t.advance(100_000);
        assert_eq!(t.run(&["SCARD", "s"]), int(0));
        t.engine.config().set("default-ttl", "60").unwrap();
        t.run(&["SADD", "a", "1"]);
        t.run(&["SUNIONSTORE", "b", "a"]);
        t.run(&["SMOVE", "b", "c", "1"]);
        for key in ["a", "c"] {
            assert_eq!(expire_at(&t, key), Some(t.now + 60_000), "{key}");
        }
    }

    #[test]
    fn memory_returns_to_baseline_when_a_set_shrinks() {
        let mut t = engine();
        t.run(&["SET", "other", "x"]);
        let baseline = used(&t);
        t.run(&["SADD", "s", "seed"]);
        let one = used(&t);
        assert!(one > baseline);
        for i in 0..600 {
            t.run(&["SADD", "s", &format!("{i}:{}", "m".repeat(i % 80))]);
        }
        let grown = used(&t);
        assert!(grown > one + 600 * 40, "{grown}");
        assert_eq!(t.run(&["MEMORY", "USAGE", "s"]), int((grown - baseline) as i64));
        for i in 0..300 {
            t.run(&["SREM", "s", &format!("{i}:{}", "m".repeat(i % 80))]);
        }
        t.run(&["SPOP", "s", "100"]);
        t.run(&["SMOVE", "s", "moved", "seed"]);
        t.run(&["SINTERSTORE", "copy", "s", "s"]);
        t.run(&["SUNIONSTORE", "copy", "copy", "moved"]);
        assert!(used(&t) < grown * 2);
        assert_eq!(t.run(&["DEL", "s", "moved", "copy"]), int(3));
        assert_eq!(used(&t), baseline);
        // Integers and the empty member too.
        t.run(&["SADD", "ints", "1", "-2", "300", ""]);
        t.run(&["SREM", "ints", "1", "-2", "300", ""]);
        assert_eq!(used(&t), baseline);
        t.run(&["DEL", "other"]);
        assert_eq!(used(&t), 0);
    }

    #[test]
    fn writes_past_maxmemory_are_refused_under_noeviction() {
        let mut t = engine();
        t.run(&["SADD", "s", "a"]);
        t.run(&["HSET", "h", "f", "v"]);
        let before = used(&t);
        t.engine.config().set("maxmemory", &(before + 2000).to_string()).unwrap();
        let oom = err("OOM command not allowed when used memory > 'maxmemory'.");
        // The arguments alone would fit: the per-element overheads are what does not.
        let mut sadd = vec!["SADD".to_string(), "s".into()];
        sadd.extend((0..60).map(|i| format!("m{i}")));
        assert_eq!(t.run(&sadd), oom);
        let mut hset = vec!["HSET".to_string(), "h".into()];
        hset.extend((0..40).flat_map(|i| [format!("f{i}"), "v".into()]));
        assert_eq!(t.run(&hset), oom);
        assert_eq!(used(&t), before);
        // Smaller writes and removals go through.
        assert_eq!(t.run(&["SADD", "s", "b"]), int(1));
        assert_eq!(t.run(&["HSET", "h", "g", "w"]), int(1));
        assert_eq!(t.run(&["SREM", "s", "a", "b"]), int(2));
        assert!(used(&t) <= before + 2000);
    }

    #[test]
    fn json_view_of_a_set() {
        let mut t = engine();
        t.run(&[&b"SADD"[..], b"s", b"b", b"a", b"\xff"]);
        let mut locked = t.engine.store().lock_keys([&b"s"[..]]);
        let entry = locked.peek(b"s", t.now).expect("the set");
        assert_eq!(crate::reply_json::value_to_json(entry.value), serde_json::json!(["b", "a", { "base64": "/w==" }]));
    }

    #[test]
    fn scan_type_and_keys_by_type_see_sets() {
        let mut t = engine();
        t.run(&["SADD", "s", "a"]);
        t.run(&["SET", "k", "v"]);
        assert_eq!(t.run(&["SCAN", "0", "TYPE", "set"]), arr(vec![bulk("0"), arr(vec![bulk("s")])]));
        assert_eq!(t.engine.snapshot(t.now).keys_by_type.set, 1);
    }
}
