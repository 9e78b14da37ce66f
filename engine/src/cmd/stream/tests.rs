//! Unit tests of the stream commands, through the command table (replies checked against
//! redis-server 7.0.15), blocking XREAD, and what writes log.

use crate::reply::Reply;
use crate::testing::{arity, arr, bulk, bulks, drain_log, err, int, nil, ok, TestEngine, NOT_INT, SYNTAX, WRONGTYPE};
use crate::testing::{connect, feed_text as feed, retry_text as retry};

fn entry(id: &str, fields: &[&str]) -> Reply {
    arr(vec![bulk(id), bulks(fields)])
}

/// An engine with `s` holding 1-1 (a 1), 2-1 (b 2), 3-1 (c 3) and a string at `str`.
fn with_stream() -> TestEngine {
    let mut t = TestEngine::default();
    for (i, f) in ["a", "b", "c"].iter().enumerate() {
        let id = format!("{}-1", i + 1);
        assert_eq!(t.run(&["XADD", "s", &id, f, &(i + 1).to_string()]), bulk(&id));
    }
    t.run(&["SET", "str", "x"]);
    t
}

#[test]
fn xadd_ids_and_their_errors() {
    let mut t = TestEngine::default();
    let now = t.now;
    assert_eq!(t.run(&["XADD", "s", "*", "f", "v"]), bulk(&format!("{now}-0")));
    assert_eq!(t.run(&["XADD", "s", "*", "f", "v"]), bulk(&format!("{now}-1")));
    let small = err("ERR The ID specified in XADD is equal or smaller than the target stream top item");
    assert_eq!(t.run(&["XADD", "s", "5-1", "f", "v"]), small);
    assert_eq!(t.run(&["XADD", "s", &format!("{now}-*"), "f", "v"]), bulk(&format!("{now}-2")));
    assert_eq!(t.run(&["XADD", "s", &format!("{}", now + 5), "f", "v"]), bulk(&format!("{}-0", now + 5)));
    assert_eq!(t.run(&["XADD", "s", &format!("{}-*", now + 5), "f", "v"]), bulk(&format!("{}-1", now + 5)));
    assert_eq!(t.run(&["XADD", "n", "0-0", "f", "v"]), err("ERR The ID specified in XADD must be greater than 0-0"));
    assert_eq!(t.run(&["XADD", "n", "0", "f", "v"]), err("ERR The ID specified in XADD must be greater than 0-0"));
    assert_eq!(t.run(&["XADD", "n", "0-*", "f", "v"]), bulk("0-1"));
    let invalid = err("ERR Invalid stream ID specified as stream command argument");
    for bad in ["-", "+", "x", "1-x", "*-1"] {
        assert_eq!(t.run(&["XADD", "n", bad, "f", "v"]), invalid, "{bad}");
    }
    assert_eq!(t.run(&["XADD", "n", "*", "f"]), arity("xadd"));
    assert_eq!(t.run(&["XADD", "n", "*", "f", "v", "g"]), arity("xadd"));
    assert_eq!(t.run(&["XADD", "n", "MAXLEN", "5", "f", "v"]), invalid);
    assert_eq!(t.run(&["XADD", "none", "NOMKSTREAM", "*", "f", "v"]), nil());
    assert_eq!(t.run(&["EXISTS", "none"]), int(0));
    t.run(&["SET", "str", "x"]);
    assert_eq!(t.run(&["XADD", "str", "*", "f", "v"]), err(WRONGTYPE));
    t.run(&["XSETID", "n", "18446744073709551615-18446744073709551615"]);
    assert_eq!(
        t.run(&["XADD", "n", "*", "f", "v"]),
        err("ERR The stream has exhausted the last possible ID, unable to add more items")
    );
}

#[test]
fn xadd_and_xtrim_options() {
    let mut t = TestEngine::default();
    for i in 1..=10 {
        t.run(&["XADD", "s", &i.to_string(), "f", "v"]);
    }
    assert_eq!(t.run(&["XADD", "s", "MAXLEN", "5", "11", "f", "v"]), bulk("11-0"));
    assert_eq!(t.run(&["XLEN", "s"]), int(5));
    // Approximate: only whole blocks go, and a block holds 100 entries.
    assert_eq!(t.run(&["XADD", "s", "MAXLEN", "~", "2", "12", "f", "v"]), bulk("12-0"));
    assert_eq!(t.run(&["XLEN", "s"]), int(6));
    assert_eq!(t.run(&["XTRIM", "s", "MINID", "=", "9"]), int(2));
    assert_eq!(t.run(&["XTRIM", "s", "MAXLEN", "~", "1", "LIMIT", "10"]), int(0));
    assert_eq!(t.run(&["XTRIM", "s", "maxlen", "1"]), int(3));
    assert_eq!(t.run(&["XRANGE", "s", "-", "+"]), arr(vec![entry("12-0", &["f", "v"])]));
    assert_eq!(t.run(&["XTRIM", "none", "MAXLEN", "1"]), int(0));
    assert_eq!(t.run(&["XTRIM", "str", "MAXLEN", "1"]), int(0));
    t.run(&["SET", "str", "x"]);
    assert_eq!(t.run(&["XTRIM", "str", "MAXLEN", "1"]), err(WRONGTYPE));
    assert_eq!(t.run(&["XTRIM", "s", "MAXLEN", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["XTRIM", "s", "MAXLEN", "-1"]), err("ERR The MAXLEN argument must be >= 0."));
    assert_eq!(t.run(&["XTRIM", "s", "LIMIT", "-1"]), err("ERR The LIMIT argument must be >= 0."));
    assert_eq!(t.run(&["XTRIM", "s", "FOO", "1"]), err(SYNTAX));
    assert_eq!(
        t.run(&["XTRIM", "s", "LIMIT", "1", "MAXLEN", "2"]),
        err("ERR syntax error, LIMIT cannot be used without the special ~ option")
    );
    assert_eq!(
        t.run(&["XTRIM", "s", "MAXLEN", "1", "MINID", "2"]),
        err("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
    );
    assert_eq!(
        t.run(&["XTRIM", "s", "LIMIT", "1"]),
        err("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
    );
    assert_eq!(t.run(&["XTRIM", "s", "LIMIT", "0", "x"]), err(SYNTAX));
    // An empty stream stays a key.
    assert_eq!(t.run(&["XTRIM", "s", "MAXLEN", "0"]), int(1));
    assert_eq!(t.run(&["EXISTS", "s"]), int(1));
    assert_eq!(t.run(&["XLEN", "s"]), int(0));
}

#[test]
fn ranges_with_counts_and_exclusive_bounds() {
    let mut t = with_stream();
    let all = arr(vec![entry("1-1", &["a", "1"]), entry("2-1", &["b", "2"]), entry("3-1", &["c", "3"])]);
    assert_eq!(t.run(&["XRANGE", "s", "-", "+"]), all);
    assert_eq!(t.run(&["XRANGE", "s", "(1-1", "(3-1"]), arr(vec![entry("2-1", &["b", "2"])]));
    assert_eq!(t.run(&["XRANGE", "s", "2", "3"]), arr(vec![entry("2-1", &["b", "2"]), entry("3-1", &["c", "3"])]));
    assert_eq!(t.run(&["XRANGE", "s", "-", "+", "COUNT", "1"]), arr(vec![entry("1-1", &["a", "1"])]));
    assert_eq!(
        t.run(&["XREVRANGE", "s", "+", "-", "COUNT", "2"]),
        arr(vec![entry("3-1", &["c", "3"]), entry("2-1", &["b", "2"])])
    );
    // `(1` is 1-0 moved up: 1-1 is in.
    assert_eq!(
        t.run(&["XREVRANGE", "s", "(3-1", "(1"]),
        arr(vec![entry("2-1", &["b", "2"]), entry("1-1", &["a", "1"])])
    );
    assert_eq!(t.run(&["XRANGE", "s", "-", "+", "COUNT", "0"]), Reply::NilArray);
    assert_eq!(t.run(&["XRANGE", "s", "-", "+", "COUNT", "-3"]), Reply::NilArray);
    assert_eq!(t.run(&["XRANGE", "none", "-", "+", "COUNT", "0"]), arr(vec![]));
    assert_eq!(t.run(&["XRANGE", "s", "3", "1"]), arr(vec![]));
    assert_eq!(t.run(&["XRANGE", "s", "-", "+", "COUNT"]), err(SYNTAX));
    assert_eq!(t.run(&["XRANGE", "s", "-", "+", "LIMIT", "1"]), err(SYNTAX));
    assert_eq!(t.run(&["XRANGE", "s", "-", "+", "COUNT", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["XRANGE", "s", "(-", "+"]), err("ERR Invalid stream ID specified as stream command argument"));
    assert_eq!(
        t.run(&["XRANGE", "s", "(18446744073709551615-18446744073709551615", "+"]),
        err("ERR invalid start ID for the interval")
    );
    assert_eq!(t.run(&["XRANGE", "s", "-", "(0-0"]), err("ERR invalid end ID for the interval"));
    assert_eq!(t.run(&["XRANGE", "str", "-", "+"]), err(WRONGTYPE));
    assert_eq!(t.run(&["XLEN", "s"]), int(3));
    assert_eq!(t.run(&["XLEN", "none"]), int(0));
    assert_eq!(t.run(&["XLEN", "str"]), err(WRONGTYPE));
}

#[test]
fn xdel_and_xsetid() {
    let mut t = with_stream();
    assert_eq!(t.run(&["XDEL", "s", "1-1", "9-9", "1-1"]), int(1));
    assert_eq!(t.run(&["XDEL", "s", "2-1", "x"]), err("ERR Invalid stream ID specified as stream command argument"));
    assert_eq!(t.run(&["XLEN", "s"]), int(2));
    assert_eq!(t.run(&["XDEL", "none", "x"]), int(0));
    assert_eq!(t.run(&["XDEL", "str", "1"]), err(WRONGTYPE));
    assert_eq!(t.run(&["XDEL", "s", "2-1", "3-1"]), int(2));
    assert_eq!(t.run(&["EXISTS", "s"]), int(1));
    assert_eq!(t.run(&["TYPE", "s"]), Reply::Status("stream".into()));
    // The last ID stays: a smaller one is refused.
    assert_eq!(
        t.run(&["XADD", "s", "3-1", "f", "v"]),
        err("ERR The ID specified in XADD is equal or smaller than the target stream top item")
    );
    assert_eq!(t.run(&["XSETID", "s", "1-0"]), ok());
    assert_eq!(t.run(&["XADD", "s", "2-0", "f", "v"]), bulk("2-0"));
    assert_eq!(
        t.run(&["XSETID", "s", "1-0"]),
        err("ERR The ID specified in XSETID is smaller than the target stream top item")
    );
    assert_eq!(
        t.run(&["XSETID", "s", "5", "ENTRIESADDED", "0"]),
        err("ERR The entries_added specified in XSETID is smaller than the target stream length")
    );
    assert_eq!(t.run(&["XSETID", "s", "5", "ENTRIESADDED", "-1"]), err("ERR entries_added must be positive"));
    assert_eq!(
        t.run(&["XSETID", "s", "5", "MAXDELETEDID", "6"]),
        err("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
    );
    assert_eq!(t.run(&["XSETID", "s", "5", "FOO", "6"]), err(SYNTAX));
    assert_eq!(t.run(&["XSETID", "s", "5", "ENTRIESADDED"]), err(SYNTAX));
    assert_eq!(t.run(&["XSETID", "none", "5"]), err("ERR no such key"));
    assert_eq!(t.run(&["XSETID", "str", "5"]), err(WRONGTYPE));
    assert_eq!(t.run(&["XSETID", "s", "5", "ENTRIESADDED", "9", "MAXDELETEDID", "4"]), ok());
}

#[test]
fn a_stream_is_a_key_like_any_other() {
    let mut t = with_stream();
    assert_eq!(t.run(&["OBJECT", "ENCODING", "s"]), bulk("stream"));
    assert_eq!(t.run(&["SCAN", "0", "TYPE", "stream"]), arr(vec![bulk("0"), bulks(&["s"])]));
    assert_eq!(t.run(&["COPY", "s", "c"]), int(1));
    assert_eq!(t.run(&["XDEL", "s", "1-1"]), int(1));
    assert_eq!(t.run(&["XLEN", "c"]), int(3));
    assert_eq!(t.run(&["RENAME", "c", "d"]), ok());
    assert_eq!(t.run(&["XLEN", "d"]), int(3));
    assert_eq!(t.run(&["MOVE", "d", "1"]), int(1));
    assert_eq!(t.run(&["DEL", "s"]), int(1));
    assert_eq!(t.run(&["DBSIZE"]), int(1));
    assert_eq!(t.engine.snapshot(t.now).keys_by_type.stream, 1);
    assert_eq!(t.run(&["SELECT", "1"]), ok());
    assert_eq!(t.run(&["XLEN", "d"]), int(3));
}

#[test]
fn memory_comes_back_when_entries_go() {
    let mut t = TestEngine::default();
    t.run(&["XADD", "s", "1", "f", "v"]);
    let base = t.used_memory();
    for i in 2..=1000 {
        t.run(&["XADD", "s", &i.to_string(), "field", &"x".repeat(i % 50)]);
    }
    let full = t.used_memory();
    assert!(full > base + 30_000, "{base} -> {full}");
    let size = t.run(&["MEMORY", "USAGE", "s"]);
    assert!(matches!(size, Reply::Int(n) if n as usize > 30_000), "{size:?}");
    // Blocks mostly deleted are compacted.
    for i in (2..=1000).filter(|i| i % 3 != 0) {
        t.run(&["XDEL", "s", &i.to_string()]);
    }
    assert!(t.used_memory() < full * 2 / 3, "{full} -> {}", t.used_memory());
    t.run(&["XTRIM", "s", "MAXLEN", "0"]);
    t.run(&["XADD", "s", "1001", "f", "v"]);
    t.run(&["XTRIM", "s", "MAXLEN", "1"]);
    // One entry again, in a fresh block: what the stream held after its first XADD.
    assert_eq!(t.used_memory(), base);
}

#[test]
fn xread_reads_after_ids() {
    let mut t = with_stream();
    t.run(&["XADD", "t", "5-0", "x", "y"]);
    let after_1 = arr(vec![entry("2-1", &["b", "2"]), entry("3-1", &["c", "3"])]);
    assert_eq!(t.run(&["XREAD", "STREAMS", "s", "1-1"]), arr(vec![arr(vec![bulk("s"), after_1.clone()])]));
    assert_eq!(
        t.run(&["XREAD", "COUNT", "1", "STREAMS", "s", "t", "0", "0"]),
        arr(vec![
            arr(vec![bulk("s"), arr(vec![entry("1-1", &["a", "1"])])]),
            arr(vec![bulk("t"), arr(vec![entry("5-0", &["x", "y"])])]),
        ])
    );
    assert_eq!(t.run(&["XREAD", "STREAMS", "s", "none", "$", "0"]), Reply::NilArray);
    assert_eq!(
        t.run(&["XREAD", "STREAMS", "s", "+"]),
        arr(vec![arr(vec![bulk("s"), arr(vec![entry("3-1", &["c", "3"])])])])
    );
    assert_eq!(t.run(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]), Reply::NilArray);
    assert_eq!(t.run(&["XREAD", "STREAMS", "str", "0"]), err(WRONGTYPE));
    assert_eq!(
        t.run(&["XREAD", "STREAMS", "s", "t", "0"]),
        err("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
    );
    assert_eq!(t.run(&["XREAD", "COUNT", "1", "s", "0"]), err(SYNTAX));
    assert_eq!(t.run(&["XREAD", "BLOCK", "-1", "STREAMS", "s", "0"]), err("ERR timeout is negative"));
    assert_eq!(
        t.run(&["XREAD", "BLOCK", "x", "STREAMS", "s", "0"]),
        err("ERR timeout is not an integer or out of range")
    );
    assert_eq!(
        t.run(&["XREAD", "STREAMS", "s", ">"]),
        err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
    );
    assert_eq!(
        t.run(&["XREAD", "GROUP", "g", "c", "STREAMS", "s", "0"]),
        err("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
    );
    t.run(&["HELLO", "3"]);
    assert_eq!(t.run(&["XREAD", "STREAMS", "s", "1-1"]), Reply::Map(vec![(bulk("s"), after_1)]));
}

#[test]
fn a_blocked_xread_is_woken_by_xadd_on_an_existing_stream() {
    let mut t = with_stream();
    let (mut a, mut b) = (connect(&t, 2), connect(&t, 3));
    assert_eq!(feed(&t, &mut a, "XREAD BLOCK 0 STREAMS s $\r\n"), "");
    assert!(!feed(&t, &mut b, "HELLO 3\r\n").is_empty());
    assert_eq!(feed(&t, &mut b, "XREAD COUNT 1 BLOCK 1000 STREAMS other s $ $\r\n"), "");
    assert_eq!(t.engine.blocked_clients(), 2);
    // $ was resolved when they blocked: 3-1 is not news.
    assert_eq!(retry(&t, &mut a), None);
    t.run(&["XADD", "s", "4-0", "k", "v"]);
    let one = "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n4-0\r\n*2\r\n$1\r\nk\r\n$1\r\nv\r\n";
    assert_eq!(retry(&t, &mut a).as_deref(), Some(one));
    let map = "%1\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n4-0\r\n*2\r\n$1\r\nk\r\n$1\r\nv\r\n";
    assert_eq!(retry(&t, &mut b).as_deref(), Some(map));
    assert_eq!(t.engine.blocked_clients(), 0);
    // A new stream wakes a reader too; the deadline is the timeout in ms.
    feed(&t, &mut a, "XREAD BLOCK 1500 STREAMS fresh 0\r\n");
    assert_eq!(a.blocked.as_ref().and_then(|bl| bl.deadline_ms), Some(t.now + 1500));
    t.run(&["XADD", "fresh", "1-0", "k", "v"]);
    assert!(retry(&t, &mut a).is_some_and(|r| r.contains("fresh")));
    for s in [&a, &b] {
        t.engine.end_session(s);
    }
}

#[test]
fn blocked_readers_end_by_timeout_or_client_unblock() {
    let mut t = with_stream();
    let (mut a, mut b) = (connect(&t, 2), connect(&t, 3));
    feed(&t, &mut a, "XREAD BLOCK 100 STREAMS s $\r\n");
    feed(&t, &mut b, "XREAD BLOCK 0 STREAMS s $\r\n");
    let mut out = Vec::new();
    t.engine.unblock_timeout(&mut a, &mut out);
    assert_eq!(out, b"*-1\r\n");
    let id = b.id().to_string();
    assert_eq!(t.run(&["CLIENT", "UNBLOCK", &id, "ERROR"]), int(1));
    assert_eq!(retry(&t, &mut b).as_deref(), Some("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"));
    assert_eq!(t.engine.blocked_clients(), 0);
    // XDEL and XTRIM do not wake anyone.
    feed(&t, &mut a, "XREAD BLOCK 0 STREAMS s $\r\n");
    t.run(&["XDEL", "s", "1-1"]);
    t.run(&["XTRIM", "s", "MAXLEN", "0"]);
    assert_eq!(retry(&t, &mut a), None);
    assert_eq!(t.run(&["CLIENT", "UNBLOCK", &a.id().to_string()]), int(1));
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*-1\r\n"));
    for s in [&a, &b] {
        t.engine.end_session(s);
    }
}

#[test]
fn writes_are_logged_as_their_effect() {
    let mut t = TestEngine::default();
    t.engine.propagation().set_enabled(true);
    let now = t.now;
    t.run(&["XADD", "s", "*", "f", "v"]);
    for i in 1..=150 {
        t.run(&["XADD", "s", "MAXLEN", "~", "10", &format!("{}", now + i), "f", "v"]);
    }
    t.run(&["XTRIM", "s", "MINID", "~", "0"]);
    t.run(&["XTRIM", "s", "MAXLEN", "~", "5"]);
    let last = format!("{}", now + 150);
    t.run(&["XDEL", "s", &last]);
    // Deleting nothing logs nothing, as Redis propagates no such XDEL.
    t.run(&["XDEL", "s", "1"]);
    let log = drain_log(&t);
    assert_eq!(log[..2], ["SELECT 0".to_string(), format!("XADD s {now}-0 f v")]);
    // The 101st entry started a second block; the first went with the XADD after it.
    let trims: Vec<&String> = log.iter().filter(|l| l.starts_with("XTRIM")).collect();
    assert_eq!(trims, ["XTRIM s MAXLEN = 10"]);
    assert_eq!(log.last(), Some(&format!("XDEL s {last}")));
    assert_eq!(t.run(&["XLEN", "s"]), int(50));
}

/// The stream at `key` as (length, last ID, entries added, largest deleted ID, entries).
fn stream_state(t: &TestEngine, key: &str) -> String {
    let store = t.engine.store();
    let mut locked = store.lock_keys(0, [key.as_bytes()]);
    let entry = locked.peek(key.as_bytes(), t.now).expect("the key exists");
    let s = super::stream_of(entry).expect("a stream");
    let entries: Vec<String> = s
        .range(crate::store::stream::MIN_ID, crate::store::stream::MAX_ID, false)
        .map(|(id, _)| id.to_string())
        .collect();
    format!("{} {} {} {} {entries:?}", s.len(), s.last_id(), s.entries_added(), s.max_deleted_id())
}

#[test]
fn a_rewrite_restores_streams_exactly() {
    let mut t = TestEngine::default();
    for i in 1..=5 {
        t.run(&["XADD", "s", &format!("{i}-1"), "f", "v"]);
    }
    t.run(&["XDEL", "s", "2-1", "5-1"]);
    t.run(&["XADD", "e", "3-3", "f", "v"]);
    t.run(&["XDEL", "e", "3-3"]);
    t.run(&["XADD", "z", "1-1", "f", "v"]);
    t.run(&["XTRIM", "z", "MAXLEN", "0"]);
    t.run(&["XSETID", "z", "0-0"]);
    let keys = ["s", "e", "z"];
    let before: Vec<String> = keys.iter().map(|k| stream_state(&t, k)).collect();
    assert_eq!(before[0], "3 5-1 5 5-1 [\"1-1\", \"3-1\", \"4-1\"]");
    assert_eq!(before[2], "0 0-0 1 0-0 []");
    let (image, _) = t.engine.rewrite_image(t.now);
    let mut fresh = TestEngine::default();
    let mut pos = 0;
    while pos < image.len() {
        let (argv, used) = crate::resp::parse_command(&image[pos..], &Default::default()).unwrap().unwrap();
        let reply = fresh.run(&argv);
        assert!(!reply.is_error(), "{reply:?}");
        pos += used;
    }
    let after: Vec<String> = keys.iter().map(|k| stream_state(&fresh, k)).collect();
    assert_eq!(after, before);
}

#[test]
fn block_sizes_follow_the_stream_node_settings() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["CONFIG", "SET", "stream-node-max-entries", "2"]), ok());
    for i in 1..=5 {
        t.run(&["XADD", "s", &i.to_string(), "f", "v"]);
    }
    // Blocks of two: [1 2] [3 4] [5]; only the first can go whole.
    assert_eq!(t.run(&["XTRIM", "s", "MAXLEN", "~", "2"]), int(2));
    assert_eq!(t.run(&["CONFIG", "SET", "stream-node-max-entries", "0", "stream-node-max-bytes", "40"]), ok());
    for i in 6..=9 {
        t.run(&["XADD", "s", &i.to_string(), "field", "value"]);
    }
    // Now bytes decide (an entry here is 16 bytes, `5 f v` 8): [3 4] [5 6] [7 8] [9], and
    // [7 8] ends at 8, which is not below 8.
    assert_eq!(t.run(&["XTRIM", "s", "MINID", "~", "8"]), int(4));
    assert_eq!(t.run(&["XLEN", "s"]), int(3));
}
