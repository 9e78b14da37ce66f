//! Unit tests of the HyperLogLog commands through the command table: replies, events, what
//! is logged for the append-only file, MULTI and memory accounting.

use crate::reply::Reply;
use crate::testing::{arity, drain_log, err, int, ok, TestEngine, WRONGTYPE};

const NOT_HLL: &str = "WRONGTYPE Key is not a valid HyperLogLog string value.";
const CORRUPT: &str = "INVALIDOBJ Corrupted HLL object detected";

fn bytes_of(t: &mut TestEngine, key: &str) -> Vec<u8> {
    match t.run(&["GET", key]) {
        Reply::Bulk(b) => b,
        other => panic!("GET {key}: {other:?}"),
    }
}

#[test]
fn pfadd_pfcount_and_the_cached_cardinality() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["PFADD", "h"]), int(1));
    assert_eq!(t.run(&["PFADD", "h"]), int(0));
    assert_eq!(bytes_of(&mut t, "h"), b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xff");
    assert_eq!(t.run(&["PFADD", "h", "a", "b", "c"]), int(1));
    assert_eq!(t.run(&["PFADD", "h", "a"]), int(0));
    assert_eq!(t.run(&["PFCOUNT", "h"]), int(3));
    // The count is cached in the header, stale bit clear.
    assert_eq!(&bytes_of(&mut t, "h")[8..16], &[3, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(t.run(&["PFCOUNT", "h", "missing"]), int(3));
    assert_eq!(t.run(&["PFCOUNT", "missing"]), int(0));
    assert_eq!(t.run(&["PFCOUNT"]), arity("pfcount"));
    t.run(&["RPUSH", "l", "x"]);
    assert_eq!(t.run(&["PFADD", "l", "x"]), err(WRONGTYPE));
    t.run(&["SET", "s", "not an hll"]);
    assert_eq!(t.run(&["PFCOUNT", "s"]), err(NOT_HLL));
    assert_eq!(t.run(&["PFCOUNT", "h", "s"]), err(NOT_HLL));
    // A sparse header with no opcodes: no register is covered.
    t.run(&[&b"SET"[..], b"c", b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80"]);
    assert_eq!(t.run(&["PFCOUNT", "c"]), err(CORRUPT));
    assert_eq!(t.run(&["PFADD", "c", "x"]), err(CORRUPT));
}

#[test]
fn pfmerge_and_pfdebug() {
    let mut t = TestEngine::default();
    t.run(&["PFADD", "a", "1", "2", "3"]);
    t.run(&["PFADD", "b", "3", "4"]);
    assert_eq!(t.run(&["PFMERGE", "d", "a", "b"]), ok());
    assert_eq!(t.run(&["PFCOUNT", "d"]), int(4));
    assert_eq!(t.run(&["PFDEBUG", "ENCODING", "d"]), Reply::status("sparse"));
    assert!(matches!(t.run(&["PFDEBUG", "DECODE", "d"]), Reply::Bulk(b) if b.starts_with(b"Z:")));
    assert_eq!(t.run(&["PFDEBUG", "TODENSE", "a"]), int(1));
    assert_eq!(t.run(&["PFDEBUG", "TODENSE", "a"]), int(0));
    assert_eq!(t.run(&["PFDEBUG", "DECODE", "a"]), err("ERR HLL encoding is not sparse"));
    assert_eq!(bytes_of(&mut t, "a").len(), 12304);
    assert_eq!(t.run(&["PFMERGE", "e", "a", "b"]), ok());
    assert_eq!(t.run(&["PFDEBUG", "ENCODING", "e"]), Reply::status("dense"));
    assert_eq!(t.run(&["PFCOUNT", "e"]), int(4));
    assert_eq!(t.run(&["PFDEBUG", "NOPE", "e"]), err("ERR Unknown PFDEBUG subcommand 'NOPE'"));
    assert_eq!(t.run(&["PFDEBUG", "GETREG", "nokey"]), err("ERR The specified key does not exist"));
    match t.run(&["PFDEBUG", "GETREG", "b"]) {
        Reply::Array(regs) => assert_eq!(regs.iter().filter(|r| **r != int(0)).count(), 2),
        other => panic!("{other:?}"),
    }
    assert_eq!(t.run(&["PFSELFTEST"]), ok());
}

#[test]
fn sparse_limit_is_a_live_setting() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["CONFIG", "SET", "hll-sparse-max-bytes", "30"]), ok());
    for n in 0..10 {
        t.run(&["PFADD", "h", &n.to_string()]);
    }
    assert_eq!(t.run(&["PFDEBUG", "ENCODING", "h"]), Reply::status("dense"));
}

#[test]
fn events_and_what_is_logged() {
    let mut t = TestEngine::default();
    t.engine.propagation().set_enabled(true);
    assert_eq!(t.run(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]), ok());
    let after = t.engine.notifier.last_seq();
    t.run(&["PFADD", "h", "a"]);
    t.run(&["PFADD", "h", "a"]);
    t.run(&["PFCOUNT", "h"]);
    t.run(&["PFCOUNT", "h"]);
    t.run(&["PFMERGE", "d", "h"]);
    t.run(&["PFDEBUG", "ENCODING", "d"]);
    t.run(&["PFDEBUG", "TODENSE", "d"]);
    t.run(&["PFDEBUG", "TODENSE", "d"]);
    let events: Vec<String> = t
        .engine
        .notifier
        .since(after, usize::MAX)
        .iter()
        .map(|e| format!("{} {}", e.event, e.key.escape_ascii()))
        .collect();
    // Redis publishes `pfadd` for PFMERGE too; PFCOUNT and PFDEBUG publish nothing.
    assert_eq!(events, ["pfadd h", "pfadd d"]);
    let log = drain_log(&t);
    assert_eq!(log[1..], ["PFADD h a", "PFCOUNT h", "PFMERGE d h", "PFDEBUG TODENSE d"]);
    // Inside MULTI, the cache refresh is logged within the transaction.
    t.run(&["PFADD", "h", "b"]);
    drain_log(&t);
    t.run(&["MULTI"]);
    t.run(&["PFCOUNT", "h"]);
    t.run(&["PFADD", "h", "c"]);
    assert_eq!(t.run(&["EXEC"]), Reply::Array(vec![int(2), int(1)]));
    assert_eq!(drain_log(&t), ["MULTI", "PFCOUNT h", "PFADD h c", "EXEC"]);
}

#[test]
fn memory_returns_to_baseline_after_growth_and_del() {
    let mut t = TestEngine::default();
    let base = t.used_memory();
    for n in 0..4000 {
        t.run(&["PFADD", "h", &format!("e{n}")]);
        if n == 200 {
            assert!(t.used_memory() > base, "a sparse HLL is accounted");
        }
    }
    assert_eq!(t.run(&["PFDEBUG", "ENCODING", "h"]), Reply::status("dense"));
    assert!(t.used_memory() >= base + 12304, "{base} -> {}", t.used_memory());
    t.run(&["PFMERGE", "m", "h"]);
    t.run(&["PFCOUNT", "h"]);
    assert_eq!(t.run(&["DEL", "h", "m"]), int(2));
    assert_eq!(t.used_memory(), base);
}

#[test]
fn watch_sees_a_cache_refresh_but_not_a_pfadd_that_changed_nothing() {
    let mut t = TestEngine::default();
    t.run(&["PFADD", "h", "a"]);
    let mut other = crate::testing::connect(&t, 2);
    // A PFADD that raises no register leaves a WATCH intact.
    t.run(&["WATCH", "h"]);
    t.engine.call(&mut other, &["PFADD", "h", "a"], t.now);
    t.run(&["MULTI"]);
    t.run(&["PING"]);
    assert_eq!(t.run(&["EXEC"]), Reply::Array(vec![Reply::status("PONG")]));
    // PFCOUNT writing the cardinality into the value is a change, as in Redis.
    t.run(&["WATCH", "h"]);
    assert_eq!(t.engine.call(&mut other, &["PFCOUNT", "h"], t.now), int(1));
    t.run(&["MULTI"]);
    t.run(&["PING"]);
    assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
    // Once cached, PFCOUNT changes nothing.
    t.run(&["WATCH", "h"]);
    t.engine.call(&mut other, &["PFCOUNT", "h"], t.now);
    t.run(&["MULTI"]);
    t.run(&["PING"]);
    assert_eq!(t.run(&["EXEC"]), Reply::Array(vec![Reply::status("PONG")]));
}
