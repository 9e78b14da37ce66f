//! Unit tests of the consumer-group commands, through the command table; the expected
//! replies are redis-server 7's (7.2's where 7.0 lacks a field).

use crate::reply::Reply;
use crate::testing::{arity, arr, bulk, bulks, err, int, nil, ok, TestEngine, NOT_INT, SYNTAX, WRONGTYPE};
use crate::testing::{connect, feed_text as feed, retry_text as retry};

/// Appends entry `ms-0` with field `f` = `v<ms>` to stream `key` (created when missing).
fn add(t: &mut TestEngine, key: &str, ms: u64) {
    let id = format!("{ms}-0");
    assert_eq!(t.run(&["XADD", key, &id, "f", &format!("v{ms}")]), bulk(&id));
}

/// `[id, [f, v<ms>]]`.
fn entry(ms: u64) -> Reply {
    arr(vec![bulk(&format!("{ms}-0")), bulks(&["f", &format!("v{ms}")])])
}

/// An XREADGROUP reply for one stream (RESP2 shape).
fn read_reply(key: &str, entries: Vec<Reply>) -> Reply {
    arr(vec![arr(vec![bulk(key), arr(entries)])])
}

fn map(pairs: Vec<(&str, Reply)>) -> Reply {
    Reply::Map(pairs.into_iter().map(|(k, v)| (bulk(k), v)).collect())
}

/// Stream `s` with entries 1..=n and group `g` at 0.
fn with_group(n: u64) -> TestEngine {
    let mut t = TestEngine::default();
    for ms in 1..=n {
        add(&mut t, "s", ms);
    }
    assert_eq!(t.run(&["XGROUP", "CREATE", "s", "g", "0"]), ok());
    t
}

#[test]
fn groups_are_created_once_and_need_a_stream() {
    let mut t = with_group(3);
    assert_eq!(t.run(&["XGROUP", "CREATE", "s", "g", "0"]), err("BUSYGROUP Consumer Group name already exists"));
    assert_eq!(
        t.run(&["XGROUP", "CREATE", "nokey", "g", "0"]),
        err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
    );
    assert_eq!(
        t.run(&["XGROUP", "SETID", "s", "nog", "0"]),
        err("NOGROUP No such consumer group 'nog' for key name 's'")
    );
    assert_eq!(
        t.run(&["XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "-2"]),
        err("ERR value for ENTRIESREAD must be positive or -1")
    );
    assert_eq!(
        t.run(&["XGROUP", "CREATE", "s", "g2", "0", "FOO"]),
        err("ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.")
    );
    assert_eq!(t.run(&["XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "x"]), err(NOT_INT));
    assert_eq!(
        t.run(&["XGROUP", "CREATE", "s", "g2", "bad"]),
        err("ERR Invalid stream ID specified as stream command argument")
    );
    assert_eq!(t.run(&["XGROUP", "CREATE", "s"]), arity("xgroup|create"));
    t.run(&["SET", "str", "x"]);
    assert_eq!(t.run(&["XGROUP", "CREATE", "str", "g", "$"]), err(WRONGTYPE));
    // MKSTREAM makes an empty stream; `$` on it is 0-0.
    assert_eq!(t.run(&["XGROUP", "CREATE", "new", "g", "$", "MKSTREAM"]), ok());
    assert_eq!(t.run(&["TYPE", "new"]), Reply::Status("stream".into()));
    assert_eq!(t.run(&["XGROUP", "CREATE", "s", "tail", "$"]), ok());
    let groups = t.run(&["XINFO", "GROUPS", "s"]);
    let Reply::Array(groups) = groups else { panic!("{groups:?}") };
    assert_eq!(
        groups[1],
        map(vec![
            ("name", bulk("tail")),
            ("consumers", int(0)),
            ("pending", int(0)),
            ("last-delivered-id", bulk("3-0")),
            ("entries-read", nil()),
            ("lag", int(0)),
        ])
    );
    assert_eq!(t.run(&["XGROUP", "DESTROY", "s", "tail"]), int(1));
    assert_eq!(t.run(&["XGROUP", "DESTROY", "s", "tail"]), int(0));
    assert_eq!(t.run(&["XGROUP", "CREATECONSUMER", "s", "g", "c"]), int(1));
    assert_eq!(t.run(&["XGROUP", "CREATECONSUMER", "s", "g", "c"]), int(0));
    assert_eq!(t.run(&["XGROUP", "DELCONSUMER", "s", "g", "c"]), int(0));
    assert_eq!(t.run(&["XGROUP", "DELCONSUMER", "s", "g", "c"]), int(0));
    let Reply::Array(help) = t.run(&["XGROUP", "HELP"]) else { panic!() };
    assert_eq!(help.len(), 17);
}

#[test]
fn readgroup_delivers_new_entries_once_and_keeps_them_pending() {
    let mut t = with_group(3);
    assert_eq!(
        t.run(&["XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "s", ">"]),
        read_reply("s", vec![entry(1), entry(2)])
    );
    assert_eq!(t.run(&["XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"]), read_reply("s", vec![entry(3)]));
    // Nothing new: the null array.
    assert_eq!(t.run(&["XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"]), Reply::NilArray);
    t.now += 45;
    assert_eq!(
        t.run(&["XPENDING", "s", "g"]),
        arr(vec![int(3), bulk("1-0"), bulk("3-0"), arr(vec![bulks(&["alice", "2"]), bulks(&["bob", "1"])]),])
    );
    assert_eq!(
        t.run(&["XPENDING", "s", "g", "-", "+", "10", "alice"]),
        arr(vec![
            arr(vec![bulk("1-0"), bulk("alice"), int(45), int(1)]),
            arr(vec![bulk("2-0"), bulk("alice"), int(45), int(1)]),
        ])
    );
    assert_eq!(
        t.run(&["XPENDING", "s", "g", "(1-0", "+", "1"]),
        arr(vec![arr(vec![bulk("2-0"), bulk("alice"), int(45), int(1)])])
    );
    assert_eq!(t.run(&["XPENDING", "s", "g", "IDLE", "46", "-", "+", "10"]), arr(vec![]));
    assert_eq!(t.run(&["XPENDING", "s", "g", "-", "+", "10", "nobody"]), arr(vec![]));
    assert_eq!(t.run(&["XPENDING", "s", "g", "-", "+"]), err(SYNTAX));
    assert_eq!(t.run(&["XPENDING", "s", "nog"]), err("NOGROUP No such key 's' or consumer group 'nog'"));
    // History: alice's own pending entries after an ID, a deleted one as [id, nil], each
    // delivered once more.
    assert_eq!(t.run(&["XDEL", "s", "1-0"]), int(1));
    assert_eq!(
        t.run(&["XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"]),
        read_reply("s", vec![arr(vec![bulk("1-0"), Reply::NilArray]), entry(2)])
    );
    assert_eq!(
        t.run(&["XPENDING", "s", "g", "2", "2", "1"]),
        arr(vec![arr(vec![bulk("2-0"), bulk("alice"), int(0), int(2)])])
    );
    assert_eq!(t.run(&["XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "2"]), read_reply("s", vec![]));
    // XACK: only pending IDs count; a bad ID acknowledges nothing.
    assert_eq!(
        t.run(&["XACK", "s", "g", "1-0", "bad"]),
        err("ERR Invalid stream ID specified as stream command argument")
    );
    assert_eq!(t.run(&["XACK", "s", "g", "1-0", "2-0", "9-0"]), int(2));
    assert_eq!(t.run(&["XACK", "s", "nog", "3-0"]), int(0));
    assert_eq!(t.run(&["XACK", "nokey", "g", "3-0"]), int(0));
    assert_eq!(
        t.run(&["XPENDING", "s", "g"]),
        arr(vec![int(1), bulk("3-0"), bulk("3-0"), arr(vec![bulks(&["bob", "1"])])])
    );
}

#[test]
fn readgroup_errors_come_in_redis_order() {
    let mut t = with_group(1);
    let unbalanced = "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.";
    assert_eq!(t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", ">", "x"]), err(unbalanced));
    assert_eq!(t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s"]), arity("xreadgroup"));
    assert_eq!(t.run(&["XREADGROUP", "COUNT", "1", "FOO", "x", "STREAMS", "s", ">"]), err(SYNTAX));
    assert_eq!(
        t.run(&["XREADGROUP", "COUNT", "1", "NOACK", "STREAMS", "s", ">"]),
        err("ERR Missing GROUP option for XREADGROUP")
    );
    assert_eq!(
        t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s2", ">"]),
        err("NOGROUP No such key 's2' or consumer group 'g' in XREADGROUP with GROUP option")
    );
    assert!(
        matches!(t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", "$"]), Reply::Error(e) if e.starts_with("ERR The $ ID is meaningless"))
    );
    assert_eq!(
        t.run(&["XREADGROUP", "GROUP", "g", "a", "BLOCK", "-1", "STREAMS", "s", ">"]),
        err("ERR timeout is negative")
    );
    t.run(&["SET", "str", "x"]);
    assert_eq!(t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "str", ">"]), err(WRONGTYPE));
}

#[test]
fn noack_moves_the_group_without_pending_entries() {
    let mut t = with_group(2);
    assert_eq!(
        t.run(&["XREADGROUP", "GROUP", "g", "a", "NOACK", "STREAMS", "s", ">"]),
        read_reply("s", vec![entry(1), entry(2)])
    );
    assert_eq!(t.run(&["XPENDING", "s", "g"]), arr(vec![int(0), nil(), nil(), Reply::NilArray]));
    let Reply::Array(groups) = t.run(&["XINFO", "GROUPS", "s"]) else { panic!() };
    assert_eq!(
        groups[0],
        map(vec![
            ("name", bulk("g")),
            ("consumers", int(1)),
            ("pending", int(0)),
            ("last-delivered-id", bulk("2-0")),
            ("entries-read", int(2)),
            ("lag", int(0)),
        ])
    );
}

#[test]
fn resp3_reads_are_maps() {
    let mut t = with_group(1);
    t.session.resp3 = true;
    assert_eq!(
        t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", ">"]),
        Reply::Map(vec![(bulk("s"), arr(vec![entry(1)]))])
    );
}

#[test]
fn xclaim_moves_ownership_with_its_options() {
    let mut t = with_group(3);
    t.run(&["XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"]);
    t.now += 100;
    // Not idle long enough: nothing claimed (but bob now exists).
    assert_eq!(t.run(&["XCLAIM", "s", "g", "bob", "200", "1-0"]), arr(vec![]));
    assert_eq!(t.run(&["XCLAIM", "s", "g", "bob", "50", "1-0", "2-0"]), arr(vec![entry(1), entry(2)]));
    assert_eq!(
        t.run(&["XPENDING", "s", "g", "-", "+", "10"]),
        arr(vec![
            arr(vec![bulk("1-0"), bulk("bob"), int(0), int(2)]),
            arr(vec![bulk("2-0"), bulk("bob"), int(0), int(2)]),
            arr(vec![bulk("3-0"), bulk("alice"), int(100), int(1)]),
        ])
    );
    // JUSTID keeps the count; IDLE and RETRYCOUNT set time and count.
    assert_eq!(
        t.run(&["XCLAIM", "s", "g", "carol", "0", "3-0", "IDLE", "500", "RETRYCOUNT", "7", "JUSTID"]),
        bulks(&["3-0"])
    );
    assert_eq!(
        t.run(&["XPENDING", "s", "g", "3", "3", "1"]),
        arr(vec![arr(vec![bulk("3-0"), bulk("carol"), int(500), int(7)])])
    );
    // FORCE claims an entry no one had; LASTID moves the group on.
    t.run(&["XACK", "s", "g", "1-0"]);
    assert_eq!(t.run(&["XCLAIM", "s", "g", "dave", "0", "1-0", "FORCE", "JUSTID", "LASTID", "9-0"]), bulks(&["1-0"]));
    assert_eq!(
        t.run(&["XPENDING", "s", "g", "1", "1", "1"]),
        arr(vec![arr(vec![bulk("1-0"), bulk("dave"), int(0), int(1)])])
    );
    assert_eq!(t.run(&["XCLAIM", "s", "g", "c", "x", "1-0"]), err("ERR Invalid min-idle-time argument for XCLAIM"));
    assert_eq!(t.run(&["XCLAIM", "s", "g", "c", "0", "1-0", "BAD"]), err("ERR Unrecognized XCLAIM option 'BAD'"));
    assert_eq!(
        t.run(&["XCLAIM", "s", "g", "c", "0", "1-0", "IDLE", "x"]),
        err("ERR Invalid IDLE option argument for XCLAIM")
    );
    assert_eq!(t.run(&["XCLAIM", "s", "nog", "c", "0", "1-0"]), err("NOGROUP No such key 's' or consumer group 'nog'"));
    let Reply::Array(groups) = t.run(&["XINFO", "GROUPS", "s"]) else { panic!() };
    let Reply::Map(g) = &groups[0] else { panic!() };
    assert_eq!(g[3], (bulk("last-delivered-id"), bulk("9-0")));
}

#[test]
fn xautoclaim_scans_with_a_cursor_and_reports_deleted_entries() {
    let mut t = with_group(5);
    t.run(&["XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"]);
    t.now += 10;
    assert_eq!(
        t.run(&["XAUTOCLAIM", "s", "g", "bob", "5", "0", "COUNT", "2"]),
        arr(vec![bulk("3-0"), arr(vec![entry(1), entry(2)]), arr(vec![])])
    );
    assert_eq!(t.run(&["XDEL", "s", "4-0"]), int(1));
    assert_eq!(
        t.run(&["XAUTOCLAIM", "s", "g", "bob", "5", "3-0", "JUSTID"]),
        arr(vec![bulk("0-0"), bulks(&["3-0", "5-0"]), bulks(&["4-0"])])
    );
    assert_eq!(
        t.run(&["XPENDING", "s", "g"]),
        arr(vec![int(4), bulk("1-0"), bulk("5-0"), arr(vec![bulks(&["bob", "4"])])])
    );
    assert_eq!(t.run(&["XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "0"]), err("ERR COUNT must be > 0"));
    assert_eq!(t.run(&["XAUTOCLAIM", "s", "g", "c", "0", "0", "FOO"]), err(SYNTAX));
    assert_eq!(
        t.run(&["XAUTOCLAIM", "s", "nog", "c", "0", "0"]),
        err("NOGROUP No such key 's' or consumer group 'nog'")
    );
}

#[test]
fn xinfo_shows_consumers_and_the_full_stream() {
    let mut t = with_group(2);
    t.run(&["XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"]);
    t.run(&["XGROUP", "CREATECONSUMER", "s", "g", "bob"]);
    t.now += 30;
    assert_eq!(
        t.run(&["XINFO", "CONSUMERS", "s", "g"]),
        arr(vec![
            map(vec![("name", bulk("alice")), ("pending", int(1)), ("idle", int(30)), ("inactive", int(30))]),
            map(vec![("name", bulk("bob")), ("pending", int(0)), ("idle", int(30)), ("inactive", int(-1))]),
        ])
    );
    assert_eq!(
        t.run(&["XINFO", "CONSUMERS", "s", "nog"]),
        err("NOGROUP No such consumer group 'nog' for key name 's'")
    );
    assert_eq!(t.run(&["XINFO", "GROUPS", "nokey"]), err("ERR no such key"));
    let start = TestEngine::START_MS as i64;
    let full = t.run(&["XINFO", "STREAM", "s", "FULL"]);
    let Reply::Map(fields) = &full else { panic!("{full:?}") };
    assert_eq!(fields[7], (bulk("entries"), arr(vec![entry(1), entry(2)])));
    assert_eq!(
        fields[8],
        (
            bulk("groups"),
            arr(vec![map(vec![
                ("name", bulk("g")),
                ("last-delivered-id", bulk("1-0")),
                ("entries-read", int(1)),
                ("lag", int(1)),
                ("pel-count", int(1)),
                ("pending", arr(vec![arr(vec![bulk("1-0"), bulk("alice"), int(start), int(1)])])),
                (
                    "consumers",
                    arr(vec![
                        map(vec![
                            ("name", bulk("alice")),
                            ("seen-time", int(start)),
                            ("active-time", int(start)),
                            ("pel-count", int(1)),
                            ("pending", arr(vec![arr(vec![bulk("1-0"), int(start), int(1)])])),
                        ]),
                        map(vec![
                            ("name", bulk("bob")),
                            ("seen-time", int(start)),
                            ("active-time", int(-1)),
                            ("pel-count", int(0)),
                            ("pending", arr(vec![])),
                        ]),
                    ])
                ),
            ])])
        )
    );
    let Reply::Map(short) = t.run(&["XINFO", "STREAM", "s"]) else { panic!() };
    assert_eq!(short[7], (bulk("groups"), int(1)));
    assert_eq!(short[8], (bulk("first-entry"), entry(1)));
    assert_eq!(
        t.run(&["XINFO", "STREAM", "s", "FULL", "x"]),
        err("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.")
    );
}

#[test]
fn group_memory_returns_to_baseline() {
    let mut t = TestEngine::default();
    for ms in 1..=50 {
        add(&mut t, "s", ms);
    }
    let base = t.used_memory();
    t.run(&["XGROUP", "CREATE", "s", "g", "0"]);
    t.run(&["XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"]);
    let read = t.used_memory();
    assert!(read > base + 50 * 32, "{base} -> {read}");
    let ids: Vec<String> = (1..=50).map(|ms| format!("{ms}-0")).collect();
    let mut ack = vec!["XACK".to_string(), "s".into(), "g".into()];
    ack.extend(ids);
    assert_eq!(t.run(&ack), int(50));
    assert_eq!(t.run(&["XGROUP", "DELCONSUMER", "s", "g", "alice"]), int(0));
    t.run(&["XGROUP", "DESTROY", "s", "g"]);
    assert_eq!(t.used_memory(), base);
    // Pending entries go with their group.
    t.run(&["XGROUP", "CREATE", "s", "g", "0"]);
    t.run(&["XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"]);
    t.run(&["XGROUP", "DESTROY", "s", "g"]);
    assert_eq!(t.used_memory(), base);
    t.run(&["DEL", "s"]);
    assert_eq!(t.used_memory(), 0);
}

#[test]
fn writes_log_their_effects() {
    let mut t = with_group(2);
    t.engine.propagation().set_enabled(true);
    t.engine.propagation().take();
    let logged = |t: &TestEngine| String::from_utf8_lossy(&t.engine.propagation().take().0).replace("\r\n", " ");
    t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", ">"]);
    let at = TestEngine::START_MS;
    let claim = |id: &str| {
        format!("*14 $6 XCLAIM $1 s $1 g $1 a $1 0 $3 {id} $4 TIME $13 {at} $10 RETRYCOUNT $1 1 $5 FORCE $6 JUSTID $6 LASTID $3 {id} ")
    };
    let setid = "*7 $6 XGROUP $5 SETID $1 s $1 g $3 2-0 $11 ENTRIESREAD $1 2 ";
    assert_eq!(logged(&t), format!("*2 $6 SELECT $1 0 {}{}{setid}", claim("1-0"), claim("2-0")));
    // History reads, empty reads and no-op acks log nothing.
    t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", "0"]);
    t.run(&["XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", ">"]);
    t.run(&["XACK", "s", "g", "9-0"]);
    assert_eq!(logged(&t), "");
    t.run(&["XGROUP", "CREATE", "s", "g2", "$"]);
    assert_eq!(logged(&t), "*5 $6 XGROUP $6 CREATE $1 s $2 g2 $3 2-0 ");
    t.run(&["XREADGROUP", "GROUP", "g2", "b", "NOACK", "STREAMS", "s", "0"]);
    t.run(&["XGROUP", "SETID", "s", "g2", "0"]);
    t.run(&["XREADGROUP", "GROUP", "g2", "c", "NOACK", "STREAMS", "s", ">"]);
    assert_eq!(
        logged(&t),
        "*5 $6 XGROUP $14 CREATECONSUMER $1 s $2 g2 $1 b \
         *5 $6 XGROUP $5 SETID $1 s $2 g2 $3 0-0 \
         *5 $6 XGROUP $14 CREATECONSUMER $1 s $2 g2 $1 c \
         *7 $6 XGROUP $5 SETID $1 s $2 g2 $3 2-0 $11 ENTRIESREAD $1 2 "
    );
}

#[test]
fn blocked_readers_are_served_in_turn_and_told_when_their_group_goes() {
    let mut t = with_group(1);
    t.run(&["XREADGROUP", "GROUP", "g", "x", "STREAMS", "s", ">"]);
    let (mut a, mut b) = (connect(&t, 2), connect(&t, 3));
    assert_eq!(feed(&t, &mut a, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >\r\n"), "");
    assert_eq!(feed(&t, &mut b, "XREADGROUP GROUP g b COUNT 1 BLOCK 1000 STREAMS s >\r\n"), "");
    assert_eq!(t.engine.blocked_clients(), 2);
    add(&mut t, "s", 2);
    assert_eq!(
        retry(&t, &mut a).as_deref(),
        Some("*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$2\r\nv2\r\n")
    );
    // The entry went to a: b waits on.
    assert_eq!(retry(&t, &mut b), None);
    assert_eq!(
        t.run(&["XPENDING", "s", "g", "-", "+", "9", "a"]),
        arr(vec![arr(vec![bulk("2-0"), bulk("a"), int(0), int(1)])])
    );
    t.run(&["XGROUP", "DESTROY", "s", "g"]);
    assert_eq!(
        retry(&t, &mut b).as_deref(),
        Some("-NOGROUP the consumer group this client was blocked on no longer exists\r\n")
    );
    assert_eq!(t.engine.blocked_clients(), 0);
    // A timeout answers the null array.
    t.run(&["XGROUP", "CREATE", "s", "g", "$"]);
    feed(&t, &mut a, "XREADGROUP GROUP g a BLOCK 5 STREAMS s >\r\n");
    let mut out = Vec::new();
    t.engine.unblock_timeout(&mut a, &mut out);
    assert_eq!(out, b"*-1\r\n");
    // A deleted key ends the wait with Redis 7.0's error.
    feed(&t, &mut a, "XREADGROUP GROUP g a BLOCK 0 STREAMS s >\r\n");
    assert_eq!(t.run(&["DEL", "s"]), int(1));
    assert_eq!(retry(&t, &mut a).as_deref(), Some("-UNBLOCKED the stream key no longer exists\r\n"));
    add(&mut t, "s", 3);
    t.run(&["XGROUP", "CREATE", "s", "g", "$"]);
    // Inside MULTI it does not wait.
    t.run(&["MULTI"]);
    t.run(&["XREADGROUP", "GROUP", "g", "a", "BLOCK", "0", "STREAMS", "s", ">"]);
    assert_eq!(t.run(&["EXEC"]), arr(vec![Reply::NilArray]));
    for s in [&a, &b] {
        t.engine.end_session(s);
    }
}
