//! The numbered databases: SELECT picks the session's, MOVE and COPY ... DB carry a key to
//! another, SWAPDB exchanges two. A key's stripe is the same in every database (see
//! `store`), so MOVE and COPY run on the stripes dispatch already locked for their keys.

use std::sync::atomic::Ordering::Relaxed;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;

/// A database index as Redis's `getIntFromObjectOrReply` reads it (an integer that fits a C
/// int), then checked against `databases`. `msg` is the command's own text for an argument
/// that is not such an integer (SWAPDB's); without one, Redis's two generic texts.
fn db_index(ctx: &Ctx<'_>, arg: &[u8], msg: Option<&str>) -> Result<usize, CmdError> {
    let n = parse_i64(arg).ok_or_else(|| CmdError::err(msg.unwrap_or(NOT_INT)))?;
    if i32::try_from(n).is_err() {
        return Err(CmdError::err(
            msg.unwrap_or("value is out of range, value must between -2147483648 and 2147483647"),
        ));
    }
    usize::try_from(n).ok().filter(|&db| db < ctx.db.databases()).ok_or(CmdError::DbOutOfRange)
}

const NOT_INT: &str = "value is not an integer or out of range";

/// Changes the session's database: every later command's keys are in it.
///
/// ```text
/// SELECT index
/// ```
pub fn select(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let db = db_index(ctx, args.bytes()?, None)?;
    ctx.session.db = db;
    ctx.session.client.db.store(db, Relaxed);
    Ok(Reply::Ok)
}

/// Moves a key, with its TTL, to another database; answers 1 when moved, 0 when the key is
/// missing or the destination already has one of that name.
///
/// ```text
/// MOVE key db
/// ```
pub fn move_key(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let to = db_index(ctx, args.bytes()?, None)?;
    let (from, now) = (ctx.db.db(), ctx.now);
    if to == from {
        return Err(CmdError::err("source and destination objects are the same"));
    }
    if ctx.db.lookup(key, now).is_none() || ctx.db.shard_in(to, key).contains(key, now) {
        return Ok(Reply::Int(0));
    }
    let Some(node) = ctx.db.shard(key).take(key, now) else { return Ok(Reply::Int(0)) };
    ctx.db.shard_in(to, key).adopt(node, now);
    // A watcher of the key in the destination sees it appear; dispatch handles the source.
    ctx.engine.store().watches.touch(to, key);
    ctx.notify_in(from, class::GENERIC, "move_from", key);
    ctx.notify_in(to, class::GENERIC, "move_to", key);
    Ok(Reply::Int(1))
}

/// Copies a key's value (and TTL) to another name, in this database or another; answers 1
/// when copied, 0 when the source is missing or the destination exists without REPLACE.
///
/// ```text
/// COPY source destination [DB destination-db] [REPLACE]
/// ```
pub fn copy(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let src = args.key()?;
    let dst = args.key()?;
    let (mut to, mut replace) = (ctx.db.db(), false);
    while !args.is_empty() {
        if args.flag("REPLACE") {
            replace = true;
        } else if args.flag("DB") {
            let arg = args.bytes().map_err(|_| CmdError::Syntax)?;
            to = db_index(ctx, arg, None)?;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let now = ctx.now;
    if src == dst && to == ctx.db.db() {
        return Err(CmdError::err("source and destination objects are the same"));
    }
    let Some((value, expire_at)) = ctx.db.lookup(src, now).map(|e| (e.value.to_value(), e.expire_at)) else {
        return Ok(Reply::Int(0));
    };
    let target = ctx.db.shard_in(to, dst);
    let replaced = target.contains(dst, now);
    if replaced && !replace {
        return Ok(Reply::Int(0));
    }
    target.insert(dst, value, expire_at, now);
    if replaced {
        // Redis deletes the old destination and adds the copy anew.
        ctx.notify_in(to, class::NEW, "new", dst);
    }
    ctx.notify_in(to, class::GENERIC, "copy_to", dst);
    if to != ctx.db.db() {
        // The key written is in another database than dispatch's WATCH check looks in.
        ctx.engine.store().watches.touch(to, dst);
        ctx.leave_unchanged(1);
    }
    Ok(Reply::Int(1))
}

/// Exchanges the contents of two databases: clients connected to one see the other's keys
/// at once. Watched keys of either are touched, and clients blocked on a key that now holds
/// data are served, as Redis does.
///
/// ```text
/// SWAPDB index1 index2
/// ```
pub fn swapdb(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let a = db_index(ctx, args.bytes()?, Some("invalid first DB index"))?;
    let b = db_index(ctx, args.bytes()?, Some("invalid second DB index"))?;
    if a == b {
        return Ok(Reply::Ok);
    }
    ctx.db.swap_dbs(a, b, ctx.now);
    // Clients waiting on keys of either database look again once this command is done.
    ctx.engine.recheck_blocked(&[a, b]);
    Ok(Reply::Ok)
}

#[cfg(test)]
mod tests {
    use crate::testing::{arr, bulk, bulks, err, int, nil, ok, TestEngine, NOT_INT, SYNTAX};
    use crate::Reply;

    const SAME: &str = "ERR source and destination objects are the same";

    fn sorted(reply: Reply) -> Reply {
        match reply {
            Reply::Array(mut items) => {
                items.sort_by_key(|r| format!("{r:?}"));
                Reply::Array(items)
            }
            other => other,
        }
    }

    fn text(reply: Reply) -> String {
        match reply {
            Reply::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
            Reply::Verbatim(s) => s,
            other => panic!("not text: {other:?}"),
        }
    }
    const RANGE: &str = "ERR DB index is out of range";

    #[test]
    fn each_database_is_its_own_keyspace() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", "zero"]);
        assert_eq!(t.run(&["SELECT", "3"]), ok());
        assert_eq!(t.run(&["GET", "k"]), nil());
        t.run(&["SET", "k", "three"]);
        t.run(&["SET", "only3", "x"]);
        assert_eq!(t.run(&["DBSIZE"]), int(2));
        assert_eq!(sorted(t.run(&["KEYS", "*"])), bulks(&["k", "only3"]));
        let keys = t.run(&["KEYS", "*"]);
        assert_eq!(t.run(&["SCAN", "0", "COUNT", "1000"]), arr(vec![bulk("0"), keys]));
        t.run(&["SELECT", "0"]);
        assert_eq!(t.run(&["GET", "k"]), bulk("zero"));
        assert_eq!(t.run(&["EXISTS", "only3"]), int(0));
        assert_eq!(t.run(&["RANDOMKEY"]), bulk("k"));
        // FLUSHDB empties one database, FLUSHALL all of them.
        assert_eq!(t.run(&["FLUSHDB"]), ok());
        assert_eq!(t.run(&["DBSIZE"]), int(0));
        t.run(&["SELECT", "3"]);
        assert_eq!(t.run(&["DBSIZE"]), int(2));
        t.run(&["SET", "k", "v"]);
        t.run(&["SELECT", "5"]);
        t.run(&["SET", "k", "v", "EX", "100"]);
        let info = text(t.run(&["INFO", "keyspace"]));
        assert!(info.contains("db3:keys=2,expires=0,avg_ttl=0\r\n"), "{info}");
        assert!(info.contains("db5:keys=1,expires=1,avg_ttl=0\r\n") && !info.contains("db0:"), "{info}");
        assert_eq!(t.run(&["FLUSHALL"]), ok());
        assert_eq!(t.engine.key_count(), 0);
    }

    #[test]
    fn move_carries_the_key_and_its_ttl() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", "v", "PX", "5000"]);
        assert_eq!(t.run(&["MOVE", "k", "0"]), err(SAME));
        assert_eq!(t.run(&["MOVE", "k", "16"]), err(RANGE));
        assert_eq!(t.run(&["MOVE", "k", "x"]), err(NOT_INT));
        assert_eq!(t.run(&["MOVE", "nokey", "1"]), int(0));
        assert_eq!(t.run(&["MOVE", "k", "1"]), int(1));
        assert_eq!(t.run(&["EXISTS", "k"]), int(0));
        t.run(&["SELECT", "1"]);
        assert_eq!(t.run(&["GET", "k"]), bulk("v"));
        assert_eq!(t.run(&["PTTL", "k"]), int(5000));
        // The destination has one already: nothing moves.
        t.run(&["SELECT", "0"]);
        t.run(&["SET", "k", "other"]);
        assert_eq!(t.run(&["MOVE", "k", "1"]), int(0));
        assert_eq!(t.run(&["GET", "k"]), bulk("other"));
        // An expired key is not moved.
        t.advance(6000);
        t.run(&["SELECT", "1"]);
        assert_eq!(t.run(&["EXISTS", "k"]), int(0));
    }

    #[test]
    fn copy_makes_an_independent_copy_anywhere() {
        let mut t = TestEngine::default();
        t.run(&["RPUSH", "l", "a", "b"]);
        t.run(&["PEXPIRE", "l", "9000"]);
        assert_eq!(t.run(&["COPY", "l", "l"]), err(SAME));
        assert_eq!(t.run(&["COPY", "l", "l", "DB", "0"]), err(SAME));
        assert_eq!(t.run(&["COPY", "l", "m", "DB"]), err(SYNTAX));
        assert_eq!(t.run(&["COPY", "l", "m", "foo"]), err(SYNTAX));
        assert_eq!(t.run(&["COPY", "l", "m", "DB", "99"]), err(RANGE));
        assert_eq!(t.run(&["COPY", "nokey", "m"]), int(0));
        assert_eq!(t.run(&["COPY", "l", "m"]), int(1));
        t.run(&["RPUSH", "m", "c"]);
        assert_eq!(t.run(&["LRANGE", "l", "0", "-1"]), bulks(&["a", "b"]));
        assert_eq!(t.run(&["PTTL", "m"]), int(9000));
        assert_eq!(t.run(&["COPY", "l", "m"]), int(0), "exists, no REPLACE");
        assert_eq!(t.run(&["COPY", "l", "m", "REPLACE"]), int(1));
        assert_eq!(t.run(&["LLEN", "m"]), int(2));
        assert_eq!(t.run(&["COPY", "l", "l", "DB", "2"]), int(1));
        t.run(&["SELECT", "2"]);
        assert_eq!(t.run(&["LRANGE", "l", "0", "-1"]), bulks(&["a", "b"]));
    }

    #[test]
    fn swapdb_exchanges_contents_and_touches_watched_keys_that_exist() {
        let mut t = TestEngine::default();
        t.run(&["SET", "a", "in0"]);
        t.run(&["SELECT", "1"]);
        t.run(&["SET", "b", "in1"]);
        assert_eq!(t.run(&["SWAPDB", "x", "1"]), err("ERR invalid first DB index"));
        assert_eq!(t.run(&["SWAPDB", "1", "x"]), err("ERR invalid second DB index"));
        assert_eq!(t.run(&["SWAPDB", "0", "16"]), err(RANGE));
        assert_eq!(t.run(&["SWAPDB", "1", "1"]), ok());
        // Another client watching a key in database 0 that exists, one watching a missing key.
        let mut w = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
        let mut missing = t.engine.new_session("127.0.0.1:3", "127.0.0.1:6379", t.now);
        let now = t.now;
        t.engine.call(&mut w, &["WATCH", "a"], now);
        t.engine.call(&mut missing, &["WATCH", "zzz"], now);
        assert_eq!(t.run(&["SWAPDB", "0", "1"]), ok());
        assert_eq!(t.run(&["GET", "a"]), bulk("in0"), "database 1 now holds what 0 held");
        t.run(&["SELECT", "0"]);
        assert_eq!(t.run(&["GET", "b"]), bulk("in1"));
        for s in [&mut w, &mut missing] {
            t.engine.call(s, &["MULTI"], now);
            t.engine.call(s, &["PING"], now);
        }
        assert_eq!(t.engine.call(&mut w, &["EXEC"], now), Reply::NilArray);
        assert_eq!(t.engine.call(&mut missing, &["EXEC"], now), arr(vec![Reply::status("PONG")]));
        t.engine.end_session(&w);
        t.engine.end_session(&missing);
    }

    #[test]
    fn watch_and_transactions_act_within_the_selected_database() {
        let mut t = TestEngine::default();
        let mut other = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
        let now = t.now;
        t.run(&["WATCH", "k"]);
        // The same name in another database is another key.
        t.engine.call(&mut other, &["SELECT", "4"], now);
        t.engine.call(&mut other, &["SET", "k", "elsewhere"], now);
        t.run(&["MULTI"]);
        t.run(&["SET", "k", "v0"]);
        t.run(&["SELECT", "4"]);
        t.run(&["GET", "k"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![ok(), ok(), bulk("elsewhere")]));
        assert_eq!(t.session.db, 4, "a SELECT inside EXEC stays selected");
        t.engine.end_session(&other);
    }

    #[test]
    fn hash_field_ttls_travel_with_move_copy_and_swapdb() {
        let mut t = TestEngine::default();
        t.run(&["HSET", "h", "a", "1", "b", "2"]);
        t.run(&["HPEXPIRE", "h", "1000", "FIELDS", "1", "a"]);
        assert_eq!(t.run(&["MOVE", "h", "1"]), int(1));
        t.run(&["SELECT", "1"]);
        assert_eq!(t.run(&["COPY", "h", "h2"]), int(1));
        assert_eq!(t.run(&["SWAPDB", "1", "2"]), ok());
        t.run(&["SELECT", "2"]);
        for key in ["h", "h2"] {
            assert_eq!(t.run(&["HPTTL", key, "FIELDS", "1", "a"]), arr(vec![int(1000)]));
        }
        // The expiry cycle finds them in their new database.
        t.advance(1500);
        for _ in 0..50 {
            crate::inspect::expiry_cycle(&t.engine, t.now, 16, || true);
        }
        for key in ["h", "h2"] {
            assert_eq!((t.run(&["HLEN", key]), t.run(&["HGET", key, "a"])), (int(1), nil()));
        }
        assert_eq!(t.run(&["DBSIZE"]), int(2));
    }

    #[test]
    fn one_memory_limit_evicts_from_every_database_alike() {
        let mut t = TestEngine::default();
        for (db, n) in [(0, 900), (7, 100)] {
            t.run(&["SELECT", &db.to_string()]);
            for i in 0..n {
                t.run(&["SET", &format!("key:{i:04}"), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]);
            }
        }
        let used = t.used_memory();
        t.run(&["CONFIG", "SET", "maxmemory-policy", "allkeys-random"]);
        t.run(&["CONFIG", "SET", "maxmemory", &(used / 2).to_string()]);
        t.run(&["SET", "trigger", "x"]);
        assert!(t.used_memory() <= used / 2);
        let left = |t: &mut TestEngine, db: &str| {
            t.run(&["SELECT", db]);
            match t.run(&["DBSIZE"]) {
                Reply::Int(n) => n,
                other => panic!("{other:?}"),
            }
        };
        let (left0, left7) = (left(&mut t, "0"), left(&mut t, "7"));
        let evicted0 = 900.0 - left0 as f64;
        let evicted7 = 101.0 - left7 as f64; // `trigger` went to 7
                                             // Every key equally likely: database 7's share of evictions is about its 10% of keys
                                             // (picking a database uniformly would make it about half).
        let share = evicted7 / (evicted0 + evicted7);
        assert!((0.05..0.16).contains(&share), "database 7's share {share:.3} ({evicted0} vs {evicted7})");
    }
}
