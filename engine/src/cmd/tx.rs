//! Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH. Each session's transaction state is
//! `session::tx`.
//!
//! Between MULTI and EXEC, dispatch checks each command (lookup, arity, auth, memory) and
//! queues it (`+QUEUED`); a command refused then marks the transaction, and EXEC answers
//! EXECABORT. EXEC runs the queue atomically across shards: it locks the shards of every
//! queued command's keys at once, in ascending order (all shards when a queued command walks
//! the keyspace, which then uses those locks), and runs each command on them
//! (`Engine::exec_queued`).
//!
//! WATCH is optimistic locking, as in Redis 7: EXEC answers nil when, since WATCH, a watched
//! key was written by a command that changed it (a write that errs, or that finds the key
//! missing and leaves it missing, does not count), evicted, flushed while it existed, or
//! expired (a key already expired at WATCH time does not count when it is removed).
//! Writes are tracked per command, not per change: a write command that names an existing
//! watched key marks it even when it changes nothing (SETNX on an existing key, SADD of a
//! member already there), where Redis would not. EXEC then answers nil and the client
//! retries: never a lost update, at worst one retry more than Redis.

use std::sync::atomic::Ordering::Relaxed;

use crate::args::Args;
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::reply::Reply;
use crate::session::tx::Queued;
use crate::session::Session;
use crate::store::watch::Watcher;
use crate::table::Command;

/// Commands that run at once between MULTI and EXEC instead of being queued.
fn runs_inside_multi(cmd: &Command) -> bool {
    matches!(cmd.name, "EXEC" | "DISCARD" | "MULTI" | "WATCH" | "QUIT" | "RESET")
}

/// Queues a command inside MULTI, after dispatch's own checks passed. `None` for the
/// commands that run at once (EXEC, DISCARD, ...). As Redis, with `maxmemory` set, any
/// command is refused (and the transaction marked) while memory cannot be brought under it.
pub(crate) fn queue(
    engine: &Engine,
    cmd: &'static Command,
    index: usize,
    session: &mut Session,
    argv: &[&[u8]],
    now: u64,
) -> Option<Reply> {
    if runs_inside_multi(cmd) {
        return None;
    }
    if engine.config().maxmemory() > 0 {
        // Redis refuses to queue a denyoom command while memory is over the limit.
        if let Err(e) = engine.store().enforce_limit(now).then_some(()).ok_or(CmdError::Oom) {
            engine.stats().rejected_oom.fetch_add(1, Relaxed);
            session.tx.refuse();
            return Some(e.into());
        }
    }
    let queue = session.tx.queue.as_mut()?;
    queue.push(Queued { index, argv: argv.iter().map(|a| a.to_vec()).collect() });
    session.client.multi.store(queue.len() as i64, Relaxed);
    Some(Reply::status("QUEUED"))
}

/// Forgets every watched key of the session (UNWATCH, EXEC, DISCARD, RESET, disconnect).
pub(crate) fn unwatch_all(engine: &Engine, session: &mut Session) {
    let id = session.id();
    for (db, key, _) in session.tx.watched.drain(..) {
        engine.store().watches.unwatch(db, &key, id);
    }
    session.tx.dirty.store(false, Relaxed);
}

/// Takes a closing session's watches out of the registry.
pub(crate) fn forget_watches(engine: &Engine, session: &Session) {
    for (db, key, _) in &session.tx.watched {
        engine.store().watches.unwatch(*db, key, session.id());
    }
}

/// Ends a transaction without running it and forgets the watched keys.
pub(crate) fn discard(engine: &Engine, session: &mut Session) {
    session.tx.queue = None;
    session.tx.refused = false;
    session.client.multi.store(-1, Relaxed);
    unwatch_all(engine, session);
}

/// Whether EXEC must fail because a watched key changed or expired.
fn watch_broken(session: &Session, now: u64) -> bool {
    session.tx.dirty.load(Relaxed) || session.tx.watched.iter().any(|&(_, _, dies)| dies != 0 && dies <= now)
}

/// Marks the start of a transaction block.
///
/// ```text
/// MULTI
/// ```
pub fn multi(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if ctx.session.tx.in_multi() {
        return Err(CmdError::err("MULTI calls can not be nested"));
    }
    ctx.session.tx.queue = Some(Vec::new());
    ctx.session.tx.refused = false;
    ctx.session.client.multi.store(0, Relaxed);
    Ok(Reply::Ok)
}

/// Runs the queued commands atomically and answers their replies; nil when a watched key
/// changed, EXECABORT when a command was refused while queuing.
///
/// ```text
/// EXEC
/// ```
pub fn exec(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let session = &mut *ctx.session;
    let engine = ctx.engine;
    let Some(queue) = session.tx.queue.take() else {
        return Err(CmdError::err("EXEC without MULTI"));
    };
    let refused = session.tx.refused;
    let broken = watch_broken(session, ctx.now);
    discard(engine, session);
    if refused {
        return Err(CmdError::Other("EXECABORT Transaction discarded because of previous errors.".into()));
    }
    if broken {
        return Ok(Reply::NilArray);
    }
    session.tx.executing = true;
    let result = engine.exec_queued(session, &queue, ctx.now);
    session.tx.executing = false;
    result
}

/// Discards the queued commands and forgets the watched keys.
///
/// ```text
/// DISCARD
/// ```
pub fn discard_cmd(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if !ctx.session.tx.in_multi() {
        return Err(CmdError::err("DISCARD without MULTI"));
    }
    discard(ctx.engine, ctx.session);
    Ok(Reply::Ok)
}

/// Watches keys: the next EXEC fails if any of them changes first.
///
/// ```text
/// WATCH key [key ...]
/// ```
pub fn watch(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    if ctx.session.tx.in_multi() {
        return Err(CmdError::err("WATCH inside MULTI is not allowed"));
    }
    let now = ctx.now;
    let id = ctx.session.id();
    let db = ctx.db.db();
    for &key in args.rest() {
        if ctx.session.tx.watched.iter().any(|(d, k, _)| *d == db && k == key) {
            continue;
        }
        // A key alive with a TTL breaks the transaction when that time passes; one already
        // expired (or missing) does not, even when expiry then removes it.
        let dies = ctx.db.peek(key, now).map_or(0, |e| e.expire_at);
        ctx.engine.store().watches.watch(db, key, Watcher { id, dirty: ctx.session.tx.dirty.clone() });
        ctx.session.tx.watched.push((db, key.to_vec(), dies));
    }
    Ok(Reply::Ok)
}

/// Forgets every watched key.
///
/// ```text
/// UNWATCH
/// ```
pub fn unwatch(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    unwatch_all(ctx.engine, ctx.session);
    Ok(Reply::Ok)
}

/// Keyless commands that run inside EXEC without the keyspace: they never lock a shard, so
/// the transaction need not hold them all. Any other keyless command (KEYS, SCAN, DBSIZE,
/// FLUSHALL, INFO, MEMORY STATS, ...) makes EXEC hold every shard, and walks the keyspace
/// through those held locks (`Locked::shard_at`). A subcommand goes by its container.
pub(crate) fn keyspace_free(cmd: &Command) -> bool {
    matches!(
        cmd.container().unwrap_or(cmd.name),
        "PING"
            | "ECHO"
            | "TIME"
            | "LASTSAVE"
            | "SELECT"
            | "HELLO"
            | "AUTH"
            | "CLIENT"
            | "COMMAND"
            | "CONFIG"
            | "UNWATCH"
            | "PUBLISH"
            | "PUBSUB"
            | "SUBSCRIBE"
            | "UNSUBSCRIBE"
            | "PSUBSCRIBE"
            | "PUNSUBSCRIBE"
    )
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use crate::config::Config;
    use crate::engine::Engine;
    use crate::session::Session;
    use crate::testing::*;
    use crate::Reply;

    fn status(s: &str) -> Reply {
        Reply::status(s)
    }

    fn queued() -> Reply {
        status("QUEUED")
    }

    fn other(t: &TestEngine) -> Session {
        t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now)
    }

    #[test]
    fn multi_exec_runs_the_queue_in_order() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["MULTI"]), ok());
        assert_eq!(t.run(&["SET", "a", "1"]), queued());
        assert_eq!(t.run(&["INCR", "a"]), queued());
        assert_eq!(t.run(&["GET", "a"]), queued());
        // Nothing ran yet.
        let mut s = other(&t);
        assert_eq!(t.engine.call(&mut s, &["GET", "a"], t.now), nil());
        assert_eq!(t.run(&["EXEC"]), arr(vec![ok(), int(2), bulk("2")]));
        assert_eq!(t.run(&["GET", "a"]), bulk("2"));
        assert_eq!(t.run(&["MULTI"]), ok());
        assert_eq!(t.run(&["EXEC"]), arr(vec![]));
    }

    #[test]
    fn control_errors_use_redis_texts() {
        let mut t = TestEngine::default();
        assert_eq!(t.run(&["EXEC"]), err("ERR EXEC without MULTI"));
        assert_eq!(t.run(&["DISCARD"]), err("ERR DISCARD without MULTI"));
        assert_eq!(t.run(&["UNWATCH"]), ok());
        assert_eq!(t.run(&["MULTI"]), ok());
        // Neither of these is queued, and neither aborts the transaction.
        assert_eq!(t.run(&["MULTI"]), err("ERR MULTI calls can not be nested"));
        assert_eq!(t.run(&["WATCH", "k"]), err("ERR WATCH inside MULTI is not allowed"));
        assert_eq!(t.run(&["SET", "a", "1"]), queued());
        assert_eq!(t.run(&["EXEC"]), arr(vec![ok()]));
        assert_eq!(t.run(&["MULTI"]), ok());
        assert_eq!(t.run(&["SET", "a", "2"]), queued());
        assert_eq!(t.run(&["DISCARD"]), ok());
        assert_eq!(t.run(&["GET", "a"]), bulk("1"));
        assert_eq!(t.run(&["EXEC"]), err("ERR EXEC without MULTI"));
    }

    #[test]
    fn a_command_refused_while_queuing_aborts_exec() {
        let mut t = TestEngine::default();
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["SET", "a", "1"]), queued());
        assert_eq!(t.run(&["NOSUCH", "x"]), err("ERR unknown command 'NOSUCH', with args beginning with: 'x' "));
        assert_eq!(t.run(&["GET"]), err("ERR wrong number of arguments for 'get' command"));
        assert_eq!(t.run(&["EXEC"]), err("EXECABORT Transaction discarded because of previous errors."));
        assert_eq!(t.run(&["GET", "a"]), nil());
        // The transaction is over.
        assert_eq!(t.run(&["EXEC"]), err("ERR EXEC without MULTI"));
    }

    #[test]
    fn runtime_errors_are_replies_inside_the_array() {
        let mut t = TestEngine::default();
        t.run(&["MULTI"]);
        t.run(&["SET", "a", "x"]);
        t.run(&["INCR", "a"]);
        t.run(&["SET", "b", "1"]);
        let wrong = err("ERR value is not an integer or out of range");
        assert_eq!(t.run(&["EXEC"]), arr(vec![ok(), wrong, ok()]));
        assert_eq!(t.run(&["GET", "b"]), bulk("1"));
    }

    #[test]
    fn a_write_from_another_session_breaks_watch() {
        let mut t = TestEngine::default();
        let mut s = other(&t);
        t.run(&["SET", "k", "1"]);
        assert_eq!(t.run(&["WATCH", "k"]), ok());
        assert_eq!(t.engine.call(&mut s, &["SET", "k", "2"], t.now), ok());
        t.run(&["MULTI"]);
        t.run(&["SET", "k", "3"]);
        assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
        assert_eq!(t.run(&["GET", "k"]), bulk("2"));
        // EXEC forgot the watch: the next transaction runs.
        t.run(&["MULTI"]);
        t.run(&["SET", "k", "3"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![ok()]));
    }

    #[test]
    fn untouched_watch_lets_exec_run() {
        let mut t = TestEngine::default();
        let mut s = other(&t);
        t.run(&["WATCH", "k", "j"]);
        // Reads, other keys and writes that leave a missing key missing are not changes.
        t.engine.call(&mut s, &["GET", "k"], t.now);
        t.engine.call(&mut s, &["SET", "other", "1"], t.now);
        t.engine.call(&mut s, &["DEL", "k"], t.now);
        t.engine.call(&mut s, &["INCR", "other"], t.now);
        // A write that fails changes nothing.
        t.run(&["SET", "j", "x"]);
        t.run(&["UNWATCH"]);
        t.run(&["WATCH", "j"]);
        assert!(t.engine.call(&mut s, &["INCR", "j"], t.now).is_error());
        t.run(&["MULTI"]);
        t.run(&["PING"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![status("PONG")]));
    }

    #[test]
    fn own_writes_before_multi_break_watch_and_unwatch_forgets() {
        let mut t = TestEngine::default();
        t.run(&["WATCH", "k"]);
        t.run(&["SET", "k", "1"]);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
        t.run(&["WATCH", "k"]);
        t.run(&["SET", "k", "2"]);
        t.run(&["UNWATCH"]);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![]));
        t.run(&["WATCH", "k"]);
        t.run(&["SET", "k", "2"]);
        t.run(&["MULTI"]);
        t.run(&["DISCARD"]);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![]), "DISCARD forgot the watch");
    }

    #[test]
    fn expiry_of_a_watched_key_breaks_watch_unless_it_was_already_expired() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", "1", "PX", "100"]);
        t.run(&["WATCH", "k"]);
        t.advance(200);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), Reply::NilArray, "expired (not yet removed) since WATCH");
        t.run(&["SET", "k", "1", "PX", "100"]);
        t.run(&["WATCH", "k"]);
        t.advance(200);
        assert_eq!(t.run(&["GET", "k"]), nil(), "lazy expiry removes it");
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), Reply::NilArray, "expired and removed since WATCH");
        // Already expired at WATCH: its removal is no change, but a write still is.
        t.run(&["SET", "k", "1", "PX", "100"]);
        t.advance(200);
        t.run(&["WATCH", "k"]);
        t.run(&["GET", "k"]);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![]));
        t.run(&["SET", "k", "1", "PX", "100"]);
        t.advance(200);
        t.run(&["WATCH", "k"]);
        t.run(&["SET", "k", "2"]);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
    }

    #[test]
    fn flushall_breaks_watch_on_existing_keys_only() {
        let mut t = TestEngine::default();
        let mut s = other(&t);
        t.run(&["WATCH", "missing"]);
        t.engine.call(&mut s, &["FLUSHALL"], t.now);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![]));
        t.run(&["SET", "k", "1"]);
        t.run(&["WATCH", "k"]);
        t.engine.call(&mut s, &["FLUSHALL"], t.now);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
    }

    #[test]
    fn eviction_of_a_watched_key_breaks_watch() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "maxmemory-policy", "allkeys-random"]);
        t.run(&["SET", "k", "v"]);
        t.run(&["WATCH", "k"]);
        let mut s = other(&t);
        t.engine.call(&mut s, &["CONFIG", "SET", "maxmemory", "1"], t.now);
        assert_eq!(t.engine.store().len(), 0);
        t.engine.call(&mut s, &["CONFIG", "SET", "maxmemory", "0"], t.now);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
    }

    #[test]
    fn session_end_forgets_its_watches() {
        let t = TestEngine::default();
        let mut s = other(&t);
        t.engine.call(&mut s, &["WATCH", "a", "b"], t.now);
        assert!(t.engine.store().watches.any());
        t.engine.end_session(&s);
        assert!(!t.engine.store().watches.any());
    }

    #[test]
    fn exec_is_atomic_across_shards() {
        // Keys in many shards; another thread keeps moving one unit between two of them with
        // transactions, and readers must always see the sum unchanged.
        let t = TestEngine::default();
        let engine = std::sync::Arc::new(t.engine);
        let keys: Vec<String> = (0..16).map(|i| format!("acct:{i}")).collect();
        let shards: std::collections::HashSet<usize> =
            keys.iter().map(|k| engine.store().stripe_index(k.as_bytes())).collect();
        assert!(shards.len() > 4, "keys should spread over shards");
        let now = TestEngine::START_MS;
        let mut s = engine.new_session("a", "b", now);
        for k in &keys {
            engine.call(&mut s, &["SET", k, "100"], now);
        }
        let writer = {
            let (engine, keys) = (engine.clone(), keys.clone());
            std::thread::spawn(move || {
                let mut s = engine.new_session("w", "b", now);
                for i in 0..2000 {
                    let (from, to) = (&keys[i % 16], &keys[(i * 7 + 3) % 16]);
                    engine.call(&mut s, &["MULTI"], now);
                    engine.call(&mut s, &["DECR", from], now);
                    engine.call(&mut s, &["INCR", to], now);
                    let r = engine.call(&mut s, &["EXEC"], now);
                    assert!(matches!(r, Reply::Array(ref v) if v.len() == 2), "{r:?}");
                }
            })
        };
        let mut argv = vec!["MGET".to_string()];
        argv.extend(keys.iter().cloned());
        for _ in 0..500 {
            engine.call(&mut s, &["MULTI"], now);
            for k in &keys {
                engine.call(&mut s, &["GET", k], now);
            }
            let Reply::Array(vals) = engine.call(&mut s, &["EXEC"], now) else { panic!() };
            let sum: i64 = vals
                .iter()
                .map(|v| match v {
                    Reply::Bulk(b) => std::str::from_utf8(b).unwrap().parse::<i64>().unwrap(),
                    other => panic!("{other:?}"),
                })
                .sum();
            assert_eq!(sum, 1600);
        }
        writer.join().unwrap();
    }

    /// Runs `f` on another thread and fails if it takes more than a few seconds (a deadlock).
    fn within_seconds<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(10)).expect("EXEC did not finish: deadlock?")
    }

    #[test]
    fn keyspace_wide_commands_inside_exec_use_the_held_locks() {
        let result = within_seconds(|| {
            let engine = Engine::new(Config::default(), TestEngine::START_MS, 7);
            let now = TestEngine::START_MS;
            let mut s = engine.new_session("a", "b", now);
            for i in 0..50 {
                engine.call(&mut s, &["SET", &format!("k{i}"), "v"], now);
            }
            let mut replies = Vec::new();
            engine.call(&mut s, &["MULTI"], now);
            for argv in [
                &["SET", "k0", "x"][..],
                &["DBSIZE"],
                &["KEYS", "k4*"],
                &["SCAN", "0", "COUNT", "1000"],
                &["RANDOMKEY"],
                &["INFO", "keyspace"],
                &["MEMORY", "STATS"],
                &["CONFIG", "SET", "maxmemory", "0"],
                &["FLUSHALL"],
                &["DBSIZE"],
                &["SET", "after", "1"],
                &["PUBLISH", "c", "m"],
            ] {
                assert_eq!(engine.call(&mut s, argv, now), Reply::status("QUEUED"), "{argv:?}");
            }
            let Reply::Array(r) = engine.call(&mut s, &["EXEC"], now) else { panic!("not an array") };
            replies.extend(r);
            (replies, engine.store().len())
        });
        let (r, len) = result;
        assert_eq!(r[0], ok());
        assert_eq!(r[1], int(50));
        let Reply::Array(keys) = &r[2] else { panic!() };
        assert_eq!(keys.len(), 11);
        let Reply::Array(scan) = &r[3] else { panic!() };
        assert_eq!(scan[0], bulk("0"));
        assert!(matches!(r[4], Reply::Bulk(_)));
        let Reply::Verbatim(info) = &r[5] else { panic!() };
        assert!(info.contains("db0:keys=50"), "{info}");
        assert!(matches!(r[6], Reply::Map(_)));
        assert_eq!(r[7], ok());
        assert_eq!(r[8], ok());
        assert_eq!(r[9], int(0));
        assert_eq!(r[10], ok());
        assert_eq!(r[11], int(0));
        assert_eq!(len, 1);
    }

    #[test]
    fn every_keyless_command_inside_exec_finishes() {
        // Whatever a keyless command does, inside EXEC it must not lock a shard the
        // transaction holds. Run each one (with no arguments, or its usual ones), and each
        // keyless subcommand (`CLIENT|LIST` sent as CLIENT LIST).
        let names: Vec<Vec<&'static str>> = crate::table::rows()
            .iter()
            .filter(|c| {
                c.key_specs.is_empty() && !matches!(c.name, "QUIT" | "MULTI" | "EXEC" | "DISCARD" | "RESET" | "WATCH")
            })
            .map(|c| c.name.split('|').collect())
            .collect();
        within_seconds(move || {
            let engine = Engine::new(Config::default(), TestEngine::START_MS, 7);
            let now = TestEngine::START_MS;
            let mut s = engine.new_session("a", "b", now);
            engine.call(&mut s, &["SET", "k", "v"], now);
            for name in names {
                let with = |arg: Option<&'static str>| name.iter().copied().chain(arg).collect::<Vec<_>>();
                let tries = [with(None), with(Some("*")), with(Some("0")), with(Some("STATS"))];
                for argv in tries {
                    engine.call(&mut s, &["MULTI"], now);
                    engine.call(&mut s, &["SET", "k", "v"], now);
                    engine.call(&mut s, &argv, now);
                    let r = engine.call(&mut s, &["EXEC"], now);
                    assert!(!matches!(r, Reply::NilArray), "{argv:?}: {r:?}");
                    // Leave whatever state the command set (SUBSCRIBE, HELLO 3) behind.
                    engine.call(&mut s, &["RESET"], now);
                }
            }
        });
    }

    #[test]
    fn over_the_memory_limit_nothing_is_queued() {
        let mut t = TestEngine::default();
        t.run(&["SET", "k", "v"]);
        t.run(&["CONFIG", "SET", "maxmemory", "1"]);
        t.run(&["MULTI"]);
        assert_eq!(t.run(&["GET", "k"]), err("OOM command not allowed when used memory > 'maxmemory'."));
        assert_eq!(t.run(&["EXEC"]), err("EXECABORT Transaction discarded because of previous errors."));
    }

    #[test]
    fn exec_refuses_a_batch_that_cannot_fit_under_noeviction() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "maxmemory", "1000"]);
        t.run(&["MULTI"]);
        t.run(&["SET", "a", &"x".repeat(600)]);
        t.run(&["SET", "b", &"x".repeat(600)]);
        assert_eq!(
            t.run(&["EXEC"]),
            err("EXECABORT Transaction discarded because of: OOM command not allowed when used memory > 'maxmemory'.")
        );
        assert_eq!(t.engine.store().len(), 0);
    }

    #[test]
    fn exec_evicts_for_the_batch_and_stays_under_the_limit() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "maxmemory", "4000", "maxmemory-policy", "allkeys-lru"]);
        for i in 0..20 {
            t.run(&["SET", &format!("old{i}"), &"x".repeat(100)]);
        }
        t.run(&["MULTI"]);
        for i in 0..10 {
            t.run(&["SET", &format!("new{i}"), &"y".repeat(100)]);
        }
        let Reply::Array(r) = t.run(&["EXEC"]) else { panic!() };
        assert!(r.iter().all(|x| *x == ok()));
        assert!(t.engine.store().used_memory() <= 4000);
        assert_eq!(t.run(&["EXISTS", "new9"]), int(1));
    }
}
