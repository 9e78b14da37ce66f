//! Unit tests of the bitmap family through the command table: replies, errors, keyspace
//! events, what is logged, growth limits and memory.

use crate::testing::{arr, bulk, drain_log, err, int, nil, ok, TestEngine, NOT_INT, SYNTAX, WRONGTYPE};

const BAD_OFFSET: &str = "ERR bit offset is not an integer or out of range";
const BAD_TYPE: &str =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";

fn events(t: &mut TestEngine, argv: &[&str]) -> Vec<String> {
    let after = t.engine.notifier.last_seq();
    t.run(argv);
    t.engine
        .notifier
        .since(after, usize::MAX)
        .iter()
        .map(|e| format!("{} {}", e.event, String::from_utf8_lossy(&e.key)))
        .collect()
}

#[test]
fn setbit_and_getbit() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["SETBIT", "k", "7", "1"]), int(0));
    assert_eq!(t.run(&["GET", "k"]), bulk("\x01"));
    assert_eq!(t.run(&["SETBIT", "k", "7", "0"]), int(1));
    assert_eq!(t.run(&["SETBIT", "k", "20", "1"]), int(0));
    assert_eq!(t.run(&["STRLEN", "k"]), int(3));
    assert_eq!(t.run(&["GETBIT", "k", "20"]), int(1));
    assert_eq!(t.run(&["GETBIT", "k", "100000"]), int(0));
    assert_eq!(t.run(&["GETBIT", "missing", "3"]), int(0));
    assert_eq!(t.run(&["SETBIT", "k", "1", "2"]), err("ERR bit is not an integer or out of range"));
    assert_eq!(t.run(&["SETBIT", "k", "-1", "1"]), err(BAD_OFFSET));
    assert_eq!(t.run(&["SETBIT", "k", "4294967296", "1"]), err(BAD_OFFSET));
    assert_eq!(t.run(&["GETBIT", "k", "x"]), err(BAD_OFFSET));
    t.run(&["LPUSH", "l", "a"]);
    assert_eq!(t.run(&["SETBIT", "l", "1", "1"]), err(WRONGTYPE));
    assert_eq!(t.run(&["GETBIT", "l", "1"]), err(WRONGTYPE));
}

#[test]
fn bitcount_ranges() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["SET", "k", "foobar"]), ok());
    assert_eq!(t.run(&["BITCOUNT", "k"]), int(26));
    assert_eq!(t.run(&["BITCOUNT", "k", "0", "0"]), int(4));
    assert_eq!(t.run(&["BITCOUNT", "k", "1", "1"]), int(6));
    assert_eq!(t.run(&["BITCOUNT", "k", "1", "1", "BYTE"]), int(6));
    assert_eq!(t.run(&["BITCOUNT", "k", "5", "30", "BIT"]), int(17));
    assert_eq!(t.run(&["BITCOUNT", "k", "-2", "-1"]), int(7));
    assert_eq!(t.run(&["BITCOUNT", "k", "-1", "-2", "nonsense"]), int(0));
    assert_eq!(t.run(&["BITCOUNT", "k", "0"]), err(SYNTAX));
    assert_eq!(t.run(&["BITCOUNT", "k", "0", "1", "WORD"]), err(SYNTAX));
    assert_eq!(t.run(&["BITCOUNT", "k", "a", "1"]), err(NOT_INT));
    assert_eq!(t.run(&["BITCOUNT", "missing", "0"]), int(0));
}

#[test]
fn bitpos_follows_the_end_given_rule() {
    let mut t = TestEngine::default();
    t.run(&[b"SET" as &[u8], b"k", b"\xff\xf0\x00"]);
    assert_eq!(t.run(&["BITPOS", "k", "0"]), int(12));
    assert_eq!(t.run(&["BITPOS", "k", "1", "2"]), int(-1));
    assert_eq!(t.run(&["BITPOS", "k", "0", "2"]), int(16));
    assert_eq!(t.run(&["BITPOS", "k", "1", "7", "15", "BIT"]), int(7));
    t.run(&[b"SET" as &[u8], b"f", b"\xff\xff"]);
    assert_eq!(t.run(&["BITPOS", "f", "0"]), int(16));
    assert_eq!(t.run(&["BITPOS", "f", "0", "0"]), int(16));
    assert_eq!(t.run(&["BITPOS", "f", "0", "0", "-1"]), int(-1));
    assert_eq!(t.run(&["BITPOS", "missing", "0"]), int(0));
    assert_eq!(t.run(&["BITPOS", "missing", "1"]), int(-1));
    assert_eq!(t.run(&["BITPOS", "f", "2"]), err("ERR The bit argument must be 1 or 0."));
    assert_eq!(t.run(&["BITPOS", "f", "1", "0", "1", "NOPE"]), err(SYNTAX));
}

#[test]
fn bitop_stores_and_deletes_its_destination() {
    let mut t = TestEngine::default();
    t.run(&["SET", "a", "abc"]);
    t.run(&["SET", "b", "a"]);
    assert_eq!(t.run(&["BITOP", "AND", "d", "a", "b"]), int(3));
    assert_eq!(t.run(&["GET", "d"]), bulk("a\0\0"));
    assert_eq!(t.run(&["BITOP", "or", "d", "a", "b", "missing"]), int(3));
    assert_eq!(t.run(&["GET", "d"]), bulk("abc"));
    assert_eq!(t.run(&["BITOP", "XOR", "d", "a", "a"]), int(3));
    assert_eq!(t.run(&["GET", "d"]), bulk("\0\0\0"));
    assert_eq!(t.run(&["BITOP", "NOT", "d", "a", "b"]), err("ERR BITOP NOT must be called with a single source key."));
    assert_eq!(t.run(&["BITOP", "NAND", "d", "a"]), err(SYNTAX));
    t.run(&["SADD", "s", "x"]);
    assert_eq!(t.run(&["BITOP", "OR", "d", "a", "s"]), err(WRONGTYPE));
    let mut e = TestEngine::default();
    assert_eq!(e.run(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]), ok());
    e.run(&["SET", "a", "x"]);
    assert_eq!(events(&mut e, &["BITOP", "NOT", "d", "a"]), ["set d"]);
    assert_eq!(events(&mut e, &["BITOP", "AND", "d", "missing"]), ["del d"]);
    assert_eq!(e.run(&["EXISTS", "d"]), int(0));
    assert_eq!(events(&mut e, &["BITOP", "AND", "d", "missing"]), Vec::<String>::new());
}

#[test]
fn bitfield_reads_writes_and_overflows() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["BITFIELD", "k", "SET", "u8", "0", "255", "GET", "u8", "0"]), arr(vec![int(0), int(255)]));
    assert_eq!(t.run(&["BITFIELD", "k", "INCRBY", "u8", "0", "10"]), arr(vec![int(9)]));
    assert_eq!(t.run(&["BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300"]), arr(vec![int(255)]));
    assert_eq!(t.run(&["BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1"]), arr(vec![nil()]));
    assert_eq!(t.run(&["BITFIELD", "k", "INCRBY", "i5", "100", "1", "GET", "u4", "0"]), arr(vec![int(1), int(15)]));
    assert_eq!(t.run(&["BITFIELD", "k", "SET", "i8", "#1", "-1", "GET", "u8", "8"]), arr(vec![int(0), int(255)]));
    assert_eq!(t.run(&["BITFIELD", "n", "SET", "i64", "0", "-1", "GET", "i64", "0"]), arr(vec![int(0), int(-1)]));
    assert_eq!(t.run(&["BITFIELD", "k"]), arr(vec![]));
    assert_eq!(t.run(&["BITFIELD", "k", "GET", "u64", "0"]), err(BAD_TYPE));
    assert_eq!(t.run(&["BITFIELD", "k", "GET", "i65", "0"]), err(BAD_TYPE));
    assert_eq!(t.run(&["BITFIELD", "k", "GET", "x8", "0"]), err(BAD_TYPE));
    assert_eq!(t.run(&["BITFIELD", "k", "GET", "u8", "-1"]), err(BAD_OFFSET));
    assert_eq!(t.run(&["BITFIELD", "k", "OVERFLOW", "NOPE"]), err("ERR Invalid OVERFLOW type specified"));
    assert_eq!(t.run(&["BITFIELD", "k", "GET", "u8"]), err(SYNTAX));
    assert_eq!(t.run(&["BITFIELD", "k", "SET", "u8", "0", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["BITFIELD_RO", "k", "GET", "u8", "0"]), arr(vec![int(255)]));
    assert_eq!(
        t.run(&["BITFIELD_RO", "k", "SET", "u8", "0", "1"]),
        err("ERR BITFIELD_RO only supports the GET subcommand")
    );
    assert_eq!(t.run(&["BITFIELD_RO", "missing", "GET", "i8", "0"]), arr(vec![int(0)]));
}

#[test]
fn events_and_the_log_follow_what_changed() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]), ok());
    t.engine.propagation().set_enabled(true);
    assert_eq!(events(&mut t, &["SETBIT", "k", "3", "1"]), ["setbit k"]);
    assert_eq!(events(&mut t, &["SETBIT", "k", "3", "1"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["BITFIELD", "k", "GET", "u8", "0"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["BITFIELD", "k", "SET", "u8", "0", "16"]), Vec::<String>::new());
    assert_eq!(events(&mut t, &["BITFIELD", "k", "SET", "u8", "0", "17"]), ["setbit k"]);
    assert_eq!(
        events(&mut t, &["BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1000"]),
        Vec::<String>::new()
    );
    let log = drain_log(&t);
    assert_eq!(log, ["SELECT 0", "SETBIT k 3 1", "BITFIELD k SET u8 0 17"]);
}

#[test]
fn growth_is_refused_past_the_bulk_limit_and_under_maxmemory() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["CONFIG", "SET", "proto-max-bulk-len", "1mb"]), ok());
    assert_eq!(t.run(&["SETBIT", "k", "8388608", "1"]), err(BAD_OFFSET));
    assert_eq!(t.run(&["SETBIT", "k", "8388607", "1"]), int(0));
    assert_eq!(t.run(&["BITFIELD", "k", "SET", "u8", "#1048576", "1"]), err(BAD_OFFSET));
    assert_eq!(t.run(&["DEL", "k"]), int(1));
    assert_eq!(t.run(&["CONFIG", "SET", "maxmemory", "2mb"]), ok());
    assert_eq!(t.run(&["SETBIT", "big", "8388607", "1"]), int(0));
    let oom = err("OOM command not allowed when used memory > 'maxmemory'.");
    assert_eq!(t.run(&["SETBIT", "big2", "8388607", "1"]), oom);
    assert_eq!(t.run(&["BITFIELD", "big2", "SET", "i8", "#1048575", "1"]), oom);
    assert_eq!(t.run(&["EXISTS", "big2"]), int(0));
}

#[test]
fn growing_and_deleting_bitmaps_returns_memory_to_baseline() {
    let mut t = TestEngine::default();
    t.run(&["SET", "warm", "x"]);
    t.run(&["DEL", "warm"]);
    let base = t.used_memory();
    for (i, offset) in ["7", "1000", "100000", "3"].iter().enumerate() {
        t.run(&["SETBIT", &format!("b{i}"), offset, "1"]);
        t.run(&["SETBIT", "grow", &format!("{}", 10_000 * (i + 1)), "1"]);
        t.run(&["BITFIELD", "f", "SET", "u16", &format!("#{}", 500 * (i + 1)), "7"]);
    }
    t.run(&["BITOP", "OR", "dst", "b0", "b1", "b2", "grow"]);
    assert!(t.used_memory() > base + 12_000);
    for k in ["b0", "b1", "b2", "b3", "grow", "f", "dst"] {
        assert_eq!(t.run(&["DEL", k]), int(1));
    }
    assert_eq!(t.used_memory(), base);
}

#[test]
fn bitmap_commands_queue_in_multi_and_log_as_one_transaction() {
    let mut t = TestEngine::default();
    t.engine.propagation().set_enabled(true);
    assert_eq!(t.run(&["MULTI"]), ok());
    for argv in [&["SETBIT", "k", "1", "1"][..], &["BITFIELD", "k", "INCRBY", "u4", "0", "3"], &["BITCOUNT", "k"]] {
        assert_eq!(t.run(argv), crate::Reply::Status("QUEUED".into()));
    }
    assert_eq!(t.run(&["EXEC"]), arr(vec![int(0), arr(vec![int(7)]), int(3)]));
    assert_eq!(drain_log(&t), ["SELECT 0", "MULTI", "SETBIT k 1 1", "BITFIELD k INCRBY u4 0 3", "EXEC"]);
}

#[cfg(feature = "scripting")]
#[test]
fn read_only_scripts_may_run_bitfield_ro_but_not_bitfield() {
    let mut t = TestEngine::default();
    t.run(&["SET", "k", "a"]);
    let ro = "return redis.call('BITFIELD_RO', KEYS[1], 'GET', 'u8', 0)";
    assert_eq!(t.run(&["EVAL_RO", ro, "1", "k"]), arr(vec![int(97)]));
    // As Redis 7.0: BITFIELD is a write command even when it only GETs.
    let rw = "return redis.call('BITFIELD', KEYS[1], 'GET', 'u8', 0)";
    match t.run(&["EVAL_RO", rw, "1", "k"]) {
        crate::Reply::Error(e) => {
            assert!(e.starts_with("ERR Write commands are not allowed from read-only scripts"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(t.run(&["EVAL", "return redis.call('SETBIT', KEYS[1], 7, 0)", "1", "k"]), int(1));
    assert_eq!(t.run(&["GET", "k"]), bulk("`"));
}
