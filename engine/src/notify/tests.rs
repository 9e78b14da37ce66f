//! Keyspace notifications: the events each command family publishes, in Redis's names and
//! order (read from the dashboard's feed, which records exactly what is published), and the
//! channels and messages a subscriber receives.

use crate::session::Session;
use crate::testing::*;
use crate::Reply;

/// A test engine with `notify-keyspace-events` set to `flags`.
fn engine(flags: &str) -> TestEngine {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["CONFIG", "SET", "notify-keyspace-events", flags]), ok());
    t
}

/// Runs a command and answers the events it published, as `event key` (or `event key@db`
/// outside database 0).
fn events(t: &mut TestEngine, argv: &[&str]) -> Vec<String> {
    let after = t.engine.notifier.last_seq();
    t.run(argv);
    published(t, after)
}

fn published(t: &TestEngine, after: u64) -> Vec<String> {
    t.engine
        .notifier
        .since(after, usize::MAX)
        .iter()
        .map(|e| {
            let key = String::from_utf8_lossy(&e.key);
            if e.db == 0 {
                format!("{} {key}", e.event)
            } else {
                format!("{} {key}@{}", e.event, e.db)
            }
        })
        .collect()
}

#[test]
fn flags_parse_and_print_as_redis() {
    let mut t = TestEngine::default();
    for (given, shown) in [
        ("KEA", "AKE"),
        ("", ""),
        ("Ex", "xE"),
        ("AKEnm", "AKEm"),
        ("g$lshzxetdnKEm", "AKEm"),
        ("g$lshzxenK", "g$lshzxenK"),
        ("$lgK", "g$lK"),
        ("nsK", "snK"),
    ] {
        assert_eq!(t.run(&["CONFIG", "SET", "notify-keyspace-events", given]), ok(), "{given}");
        let got = t.run(&["CONFIG", "GET", "notify-keyspace-events"]);
        assert_eq!(got, Reply::Map(vec![(bulk("notify-keyspace-events"), bulk(shown))]), "{given}");
    }
    let refused = t.run(&["CONFIG", "SET", "notify-keyspace-events", "KEQ"]);
    assert!(matches!(refused, Reply::Error(ref e) if e.contains("notify-keyspace-events")), "{refused:?}");
}

#[test]
fn nothing_is_published_while_off() {
    let mut t = TestEngine::default();
    assert!(events(&mut t, &["SET", "k", "v"]).is_empty());
    assert_eq!(t.engine.notifier.last_seq(), 0);
}

#[test]
fn strings_and_generic() {
    let mut t = engine("KEA");
    assert_eq!(events(&mut t, &["SET", "k", "1", "EX", "100"]), ["set k", "expire k"]);
    assert_eq!(events(&mut t, &["INCRBY", "k", "2"]), ["incrby k"]);
    assert_eq!(events(&mut t, &["INCRBYFLOAT", "k", "0.5"]), ["incrbyfloat k"]);
    assert_eq!(events(&mut t, &["APPEND", "k", "x"]), ["append k"]);
    assert_eq!(events(&mut t, &["SETRANGE", "k", "0", "y"]), ["setrange k"]);
    assert_eq!(events(&mut t, &["SETRANGE", "k", "0", ""]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["PERSIST", "k"]), ["persist k"]);
    assert_eq!(events(&mut t, &["PERSIST", "k"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["MSET", "a", "1", "b", "2"]), ["set a", "set b"]);
    assert_eq!(events(&mut t, &["SET", "a", "1", "NX"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["RENAME", "a", "c"]), ["rename_from a", "rename_to c"]);
    assert_eq!(events(&mut t, &["COPY", "c", "d"]), ["copy_to d"]);
    assert_eq!(events(&mut t, &["MOVE", "d", "2"]), ["move_from d", "move_to d@2"]);
    assert_eq!(events(&mut t, &["DEL", "b", "c", "nope"]), ["del b", "del c"]);
    assert_eq!(events(&mut t, &["EXPIRE", "k", "0"]), ["del k"]);
    assert_eq!(events(&mut t, &["GETDEL", "nope"]), Vec::<String>::new());
}

#[test]
fn new_keys_and_misses_have_their_own_classes() {
    let mut t = engine("AKEnm");
    assert_eq!(events(&mut t, &["SET", "k", "v"]), ["new k", "set k"]);
    assert_eq!(events(&mut t, &["SET", "k", "w"]), ["set k"]);
    assert_eq!(events(&mut t, &["MSET", "a", "1", "k", "2"]), ["new a", "set a", "set k"]);
    assert_eq!(events(&mut t, &["GET", "nope"]), ["keymiss nope"]);
    assert_eq!(events(&mut t, &["SET", "j", "v"]), ["new j", "set j"]);
    // RENAME over an existing key deletes it and adds the key anew.
    assert_eq!(events(&mut t, &["RENAME", "j", "k"]), ["new k", "rename_from j", "rename_to k"]);
    let mut t = engine("Km");
    assert_eq!(events(&mut t, &["GET", "nope"]), ["keymiss nope"]);
    assert_eq!(events(&mut t, &["SET", "k", "v"]), Vec::<String>::new());
}

#[test]
fn expiry_lazy_and_active() {
    let mut t = engine("Ex");
    t.run(&["SET", "a", "v", "PX", "10"]);
    t.run(&["SET", "b", "v", "PX", "10"]);
    t.advance(20);
    assert_eq!(events(&mut t, &["GET", "a"]), ["expired a"]);
    let after = t.engine.notifier.last_seq();
    // The active cycle publishes with no command running.
    t.engine.sweep(t.now, 1000);
    assert_eq!(published(&t, after), ["expired b"]);
    // A write over an expired key: the expiry comes first.
    let mut t = engine("KEA");
    t.run(&["SET", "a", "v", "PX", "10"]);
    t.advance(20);
    assert_eq!(events(&mut t, &["SET", "a", "w"]), ["expired a", "set a"]);
}

#[test]
fn lists() {
    let mut t = engine("KEA");
    assert_eq!(events(&mut t, &["RPUSH", "l", "a", "b", "c"]), ["rpush l"]);
    assert_eq!(events(&mut t, &["LPUSHX", "nope", "a"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["LPOP", "l", "0"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["LMOVE", "l", "m", "LEFT", "RIGHT"]), ["rpush m", "lpop l"]);
    assert_eq!(events(&mut t, &["LSET", "l", "0", "x"]), ["lset l"]);
    assert_eq!(events(&mut t, &["LINSERT", "l", "BEFORE", "x", "y"]), ["linsert l"]);
    assert_eq!(events(&mut t, &["LREM", "l", "0", "zzz"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["LTRIM", "l", "0", "0"]), ["ltrim l"]);
    assert_eq!(events(&mut t, &["RPOP", "l", "5"]), ["rpop l", "del l"]);
    assert_eq!(events(&mut t, &["BLPOP", "m", "0"]), ["lpop m", "del m"]);
    assert_eq!(events(&mut t, &["LMPOP", "1", "m", "LEFT"]), Vec::<String>::new());
}

#[test]
fn a_served_waiter_publishes_the_pop() {
    let mut t = engine("KEA");
    let mut waiter = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
    let mut out = Vec::new();
    t.engine.feed(&mut waiter, b"*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n", &mut out, t.now).ok();
    assert!(waiter.blocked.is_some(), "the client waits");
    assert_eq!(events(&mut t, &["RPUSH", "q", "x"]), ["rpush q", "lpop q", "del q"]);
}

#[test]
fn sets_zsets_hashes() {
    let mut t = engine("KEA");
    assert_eq!(events(&mut t, &["SADD", "s", "a", "b"]), ["sadd s"]);
    assert_eq!(events(&mut t, &["SADD", "s", "a"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["SMOVE", "s", "t", "a"]), ["srem s", "sadd t"]);
    assert_eq!(events(&mut t, &["SUNIONSTORE", "u", "s", "t"]), ["sunionstore u"]);
    assert_eq!(events(&mut t, &["SINTERSTORE", "u", "s", "t"]), ["del u"]);
    assert_eq!(events(&mut t, &["SREM", "s", "b"]), ["srem s", "del s"]);
    assert_eq!(events(&mut t, &["SPOP", "t"]), ["spop t", "del t"]);

    assert_eq!(events(&mut t, &["ZADD", "z", "1", "a", "2", "b", "3", "c"]), ["zadd z"]);
    assert_eq!(events(&mut t, &["ZADD", "z", "1", "a"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["ZINCRBY", "z", "1", "a"]), ["zincr z"]);
    assert_eq!(events(&mut t, &["ZREM", "z", "a"]), ["zrem z"]);
    assert_eq!(events(&mut t, &["ZRANGESTORE", "y", "z", "0", "-1"]), ["zrangestore y"]);
    assert_eq!(events(&mut t, &["ZUNIONSTORE", "x", "1", "z"]), ["zunionstore x"]);
    assert_eq!(events(&mut t, &["ZREMRANGEBYSCORE", "y", "0", "10"]), ["zremrangebyscore y", "del y"]);
    assert_eq!(events(&mut t, &["ZPOPMIN", "z", "5"]), ["zpopmin z", "del z"]);

    assert_eq!(events(&mut t, &["HSET", "h", "f", "1", "g", "2"]), ["hset h"]);
    assert_eq!(events(&mut t, &["HINCRBY", "h", "f", "1"]), ["hincrby h"]);
    assert_eq!(events(&mut t, &["HEXPIRE", "h", "100", "FIELDS", "1", "f"]), ["hexpire h"]);
    assert_eq!(events(&mut t, &["HPERSIST", "h", "FIELDS", "1", "f"]), ["hpersist h"]);
    assert_eq!(events(&mut t, &["HDEL", "h", "f"]), ["hdel h"]);
    t.run(&["HPEXPIRE", "h", "10", "FIELDS", "1", "g"]);
    t.advance(20);
    // The hash's last field expires: `hexpired`, then the key goes (Redis 7.4).
    assert_eq!(events(&mut t, &["HGET", "h", "g"]), ["hexpired h", "del h"]);
}

#[test]
fn transactions_publish_each_command() {
    let mut t = engine("KEA");
    t.run(&["MULTI"]);
    t.run(&["SET", "a", "1"]);
    t.run(&["LPUSH", "l", "x"]);
    assert_eq!(events(&mut t, &["EXEC"]), ["set a", "lpush l"]);
}

#[test]
fn a_narrow_flag_set_publishes_only_its_classes_and_channels() {
    let mut t = engine("El");
    assert_eq!(events(&mut t, &["SET", "a", "1"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["RPUSH", "l", "x"]), ["rpush l"]);
    assert_eq!(events(&mut t, &["RPOP", "l"]), ["rpop l"]);
}

fn pushes(s: &Session) -> String {
    let mut out = Vec::new();
    s.client.take_pushes(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn subscribers_receive_both_channels() {
    let mut t = engine("KE$");
    let mut sub = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
    t.engine.call(&mut sub, &["PSUBSCRIBE", "__key*__:*"], t.now);
    t.run(&["SELECT", "3"]);
    t.run(&["SET", "k", "v"]);
    assert_eq!(
        pushes(&sub),
        concat!(
            "*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$16\r\n__keyspace@3__:k\r\n$3\r\nset\r\n",
            "*4\r\n$8\r\npmessage\r\n$10\r\n__key*__:*\r\n$18\r\n__keyevent@3__:set\r\n$1\r\nk\r\n",
        )
    );
    let mut t = engine("K$");
    let mut sub = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
    t.engine.call(&mut sub, &["SUBSCRIBE", "__keyevent@0__:set", "__keyspace@0__:k"], t.now);
    t.run(&["SET", "k", "v"]);
    assert_eq!(pushes(&sub), "*3\r\n$7\r\nmessage\r\n$16\r\n__keyspace@0__:k\r\n$3\r\nset\r\n");
}
