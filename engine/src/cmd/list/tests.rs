//! Unit tests of the list family, through the command table.

use crate::reply::Reply;
use crate::session::Session;
use crate::testing::{arity, arr, bulk, bulks, err, int, nil, ok, TestEngine, NOT_INT, POSITIVE, SYNTAX, WRONGTYPE};

fn ints(items: &[i64]) -> Reply {
    arr(items.iter().map(|&n| int(n)).collect())
}

fn all(t: &mut TestEngine, key: &str) -> Reply {
    t.run(&["LRANGE", key, "0", "-1"])
}

/// An engine with `l` = [a b c d e] and a string at `s`.
fn with_list() -> TestEngine {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["RPUSH", "l", "a", "b", "c", "d", "e"]), int(5));
    assert_eq!(t.run(&["SET", "s", "x"]), ok());
    t
}

#[test]
fn pushes_at_both_ends_and_the_x_forms_need_a_list() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["LPUSH", "l", "a", "b"]), int(2));
    assert_eq!(t.run(&["RPUSH", "l", "c"]), int(3));
    assert_eq!(all(&mut t, "l"), bulks(&["b", "a", "c"]));
    assert_eq!(t.run(&["LPUSHX", "l", "x", "y"]), int(5));
    assert_eq!(t.run(&["RPUSHX", "l", "z"]), int(6));
    assert_eq!(all(&mut t, "l"), bulks(&["y", "x", "b", "a", "c", "z"]));
    assert_eq!(t.run(&["LPUSHX", "none", "x"]), int(0));
    assert_eq!(t.run(&["RPUSHX", "none", "x"]), int(0));
    assert_eq!(t.run(&["EXISTS", "none"]), int(0));
    assert_eq!(t.run(&["TYPE", "l"]), Reply::Status("list".into()));
    t.run(&["SET", "s", "x"]);
    for cmd in ["LPUSH", "RPUSH", "LPUSHX", "RPUSHX"] {
        assert_eq!(t.run(&[cmd, "s", "x"]), err(WRONGTYPE), "{cmd}");
        assert_eq!(t.run(&[cmd, "l"]), arity(&cmd.to_ascii_lowercase()));
    }
}

#[test]
fn elements_are_binary_safe() {
    let mut t = TestEngine::default();
    let odd: &[u8] = b"\x00\xff\r\n";
    assert_eq!(t.run(&[&b"RPUSH"[..], b"k\x00", odd, b""]), int(2));
    assert_eq!(t.run(&[&b"LRANGE"[..], b"k\x00", b"0", b"-1"]), arr(vec![Reply::Bulk(odd.to_vec()), bulk("")]));
    assert_eq!(t.run(&[&b"LPOS"[..], b"k\x00", b""]), int(1));
}

#[test]
fn pops_with_and_without_a_count() {
    let mut t = with_list();
    assert_eq!(t.run(&["LPOP", "l"]), bulk("a"));
    assert_eq!(t.run(&["RPOP", "l"]), bulk("e"));
    assert_eq!(t.run(&["LPOP", "l", "0"]), arr(vec![]));
    assert_eq!(t.run(&["RPOP", "l", "2"]), bulks(&["d", "c"]));
    assert_eq!(t.run(&["LPOP", "l", "10"]), bulks(&["b"]));
    // The last element gone, the key is gone.
    assert_eq!(t.run(&["EXISTS", "l"]), int(0));
    assert_eq!(t.run(&["LPOP", "l"]), nil());
    assert_eq!(t.run(&["LPOP", "l", "0"]), Reply::NilArray);
    assert_eq!(t.run(&["RPOP", "l", "3"]), Reply::NilArray);
    // The count is checked first, then the key.
    assert_eq!(t.run(&["LPOP", "s", "-1"]), err(POSITIVE));
    assert_eq!(t.run(&["LPOP", "l", "abc"]), err(POSITIVE));
    assert_eq!(t.run(&["LPOP", "s"]), err(WRONGTYPE));
    assert_eq!(t.run(&["RPOP", "s", "0"]), err(WRONGTYPE));
    assert_eq!(t.run(&["LPOP", "l", "1", "2"]), arity("lpop"));
    assert_eq!(t.run(&["RPOP", "l", "1", "2"]), arity("rpop"));
    assert_eq!(t.run(&["RPOP"]), arity("rpop"));
}

#[test]
fn llen_lindex_and_lrange() {
    let mut t = with_list();
    assert_eq!(t.run(&["LLEN", "l"]), int(5));
    assert_eq!(t.run(&["LLEN", "none"]), int(0));
    assert_eq!(t.run(&["LLEN", "s"]), err(WRONGTYPE));
    assert_eq!(t.run(&["LINDEX", "l", "0"]), bulk("a"));
    assert_eq!(t.run(&["LINDEX", "l", "-1"]), bulk("e"));
    assert_eq!(t.run(&["LINDEX", "l", "5"]), nil());
    assert_eq!(t.run(&["LINDEX", "l", "-6"]), nil());
    assert_eq!(t.run(&["LINDEX", "l", "abc"]), err(NOT_INT));
    // The key is looked at before the index.
    assert_eq!(t.run(&["LINDEX", "none", "abc"]), nil());
    assert_eq!(t.run(&["LINDEX", "s", "abc"]), err(WRONGTYPE));
    assert_eq!(t.run(&["LRANGE", "l", "1", "2"]), bulks(&["b", "c"]));
    assert_eq!(t.run(&["LRANGE", "l", "-2", "100"]), bulks(&["d", "e"]));
    assert_eq!(t.run(&["LRANGE", "l", "-100", "0"]), bulks(&["a"]));
    assert_eq!(t.run(&["LRANGE", "l", "3", "1"]), arr(vec![]));
    assert_eq!(t.run(&["LRANGE", "l", "5", "10"]), arr(vec![]));
    assert_eq!(t.run(&["LRANGE", "l", "0", "-6"]), arr(vec![]));
    let (min, max) = (i64::MIN.to_string(), i64::MAX.to_string());
    assert_eq!(t.run(&["LRANGE", "l", &min, &max]), bulks(&["a", "b", "c", "d", "e"]));
    assert_eq!(t.run(&["LRANGE", "none", "0", "-1"]), arr(vec![]));
    // The indexes are checked before the key.
    assert_eq!(t.run(&["LRANGE", "s", "x", "1"]), err(NOT_INT));
    assert_eq!(t.run(&["LRANGE", "s", "0", "1"]), err(WRONGTYPE));
}

#[test]
fn reads_count_hits_and_misses() {
    let mut t = with_list();
    let hits = |t: &TestEngine| t.engine.stats().keyspace.hits.load(std::sync::atomic::Ordering::Relaxed);
    let before = hits(&t);
    t.run(&["LRANGE", "l", "0", "1"]);
    t.run(&["LLEN", "l"]);
    assert_eq!(hits(&t), before + 2);
}

#[test]
fn lset_replaces_by_index() {
    let mut t = with_list();
    assert_eq!(t.run(&["LSET", "l", "0", "A"]), ok());
    assert_eq!(t.run(&["LSET", "l", "-1", "E"]), ok());
    assert_eq!(all(&mut t, "l"), bulks(&["A", "b", "c", "d", "E"]));
    assert_eq!(t.run(&["LSET", "l", "5", "x"]), err("ERR index out of range"));
    assert_eq!(t.run(&["LSET", "l", "-6", "x"]), err("ERR index out of range"));
    assert_eq!(t.run(&["LSET", "l", "x", "x"]), err(NOT_INT));
    // The key comes first: a missing key is an error whatever the index.
    assert_eq!(t.run(&["LSET", "none", "x", "x"]), err("ERR no such key"));
    assert_eq!(t.run(&["LSET", "s", "x", "x"]), err(WRONGTYPE));
}

#[test]
fn linsert_before_and_after_the_first_pivot() {
    let mut t = TestEngine::default();
    t.run(&["RPUSH", "l", "a", "b", "a"]);
    assert_eq!(t.run(&["LINSERT", "l", "BEFORE", "a", "x"]), int(4));
    assert_eq!(t.run(&["LINSERT", "l", "after", "a", "y"]), int(5));
    assert_eq!(t.run(&["LINSERT", "l", "After", "a", "z"]), int(6));
    assert_eq!(all(&mut t, "l"), bulks(&["x", "a", "z", "y", "b", "a"]));
    assert_eq!(t.run(&["LINSERT", "l", "BEFORE", "nope", "x"]), int(-1));
    assert_eq!(t.run(&["LINSERT", "none", "BEFORE", "a", "x"]), int(0));
    assert_eq!(t.run(&["EXISTS", "none"]), int(0));
    // The position word is checked before the key.
    assert_eq!(t.run(&["LINSERT", "none", "MIDDLE", "a", "x"]), err(SYNTAX));
    t.run(&["SET", "s", "x"]);
    assert_eq!(t.run(&["LINSERT", "s", "BEFORE", "a", "x"]), err(WRONGTYPE));
    assert_eq!(t.run(&["LINSERT", "l", "BEFORE", "a"]), arity("linsert"));
}

#[test]
fn lrem_from_the_head_the_tail_or_everywhere() {
    let mut t = TestEngine::default();
    let reset = |t: &mut TestEngine| {
        t.run(&["DEL", "l"]);
        t.run(&["RPUSH", "l", "a", "b", "a", "c", "a"]);
    };
    reset(&mut t);
    assert_eq!(t.run(&["LREM", "l", "2", "a"]), int(2));
    assert_eq!(all(&mut t, "l"), bulks(&["b", "c", "a"]));
    reset(&mut t);
    assert_eq!(t.run(&["LREM", "l", "-2", "a"]), int(2));
    assert_eq!(all(&mut t, "l"), bulks(&["a", "b", "c"]));
    reset(&mut t);
    assert_eq!(t.run(&["LREM", "l", "0", "a"]), int(3));
    assert_eq!(all(&mut t, "l"), bulks(&["b", "c"]));
    reset(&mut t);
    // -LONG_MIN is still negative in C: every match goes, from the tail.
    assert_eq!(t.run(&["LREM", "l", &i64::MIN.to_string(), "a"]), int(3));
    assert_eq!(t.run(&["LREM", "l", "0", "zz"]), int(0));
    assert_eq!(t.run(&["LREM", "l", "0", "b"]), int(1));
    assert_eq!(t.run(&["LREM", "l", "0", "c"]), int(1));
    assert_eq!(t.run(&["EXISTS", "l"]), int(0));
    assert_eq!(t.run(&["LREM", "none", "0", "a"]), int(0));
    t.run(&["SET", "s", "x"]);
    assert_eq!(t.run(&["LREM", "s", "x", "a"]), err(NOT_INT));
    assert_eq!(t.run(&["LREM", "s", "0", "a"]), err(WRONGTYPE));
}

#[test]
fn ltrim_keeps_a_range_and_deletes_an_emptied_list() {
    let mut t = with_list();
    assert_eq!(t.run(&["LTRIM", "l", "1", "-2"]), ok());
    assert_eq!(all(&mut t, "l"), bulks(&["b", "c", "d"]));
    assert_eq!(t.run(&["LTRIM", "l", "-100", "100"]), ok());
    assert_eq!(all(&mut t, "l"), bulks(&["b", "c", "d"]));
    assert_eq!(t.run(&["LTRIM", "l", "2", "1"]), ok());
    assert_eq!(t.run(&["EXISTS", "l"]), int(0));
    assert_eq!(t.run(&["LTRIM", "none", "0", "1"]), ok());
    assert_eq!(t.run(&["LTRIM", "s", "a", "1"]), err(NOT_INT));
    assert_eq!(t.run(&["LTRIM", "s", "0", "1"]), err(WRONGTYPE));
}

#[test]
fn lpos_with_rank_count_and_maxlen() {
    let mut t = TestEngine::default();
    t.run(&["RPUSH", "l", "a", "b", "c", "a", "b", "a"]);
    assert_eq!(t.run(&["LPOS", "l", "a"]), int(0));
    assert_eq!(t.run(&["LPOS", "l", "b"]), int(1));
    assert_eq!(t.run(&["LPOS", "l", "zz"]), nil());
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "2"]), int(3));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "-1"]), int(5));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "-3"]), int(0));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "4"]), nil());
    assert_eq!(t.run(&["LPOS", "l", "a", "COUNT", "0"]), ints(&[0, 3, 5]));
    assert_eq!(t.run(&["LPOS", "l", "a", "COUNT", "2"]), ints(&[0, 3]));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "-1", "COUNT", "2"]), ints(&[5, 3]));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "2", "COUNT", "2", "MAXLEN", "5"]), ints(&[3]));
    assert_eq!(t.run(&["LPOS", "l", "a", "MAXLEN", "3"]), int(0));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "2", "MAXLEN", "3"]), nil());
    assert_eq!(t.run(&["LPOS", "l", "zz", "COUNT", "1"]), arr(vec![]));
    // RANK LONG_MIN: from the tail, and every match counts (C's overflow, kept).
    let min = i64::MIN.to_string();
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", &min]), int(5));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", &min, "COUNT", "2"]), ints(&[5, 3, 0]));
    // Options are checked before the key, in order.
    let rank0 = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list";
    assert_eq!(t.run(&["LPOS", "none", "a", "RANK", "0"]), err(rank0));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["LPOS", "l", "a", "COUNT", "-1"]), err("ERR COUNT can't be negative"));
    assert_eq!(t.run(&["LPOS", "l", "a", "COUNT", "x"]), err("ERR COUNT can't be negative"));
    assert_eq!(t.run(&["LPOS", "l", "a", "MAXLEN", "-1"]), err("ERR MAXLEN can't be negative"));
    assert_eq!(t.run(&["LPOS", "l", "a", "RANK"]), err(SYNTAX));
    assert_eq!(t.run(&["LPOS", "l", "a", "FOO", "1"]), err(SYNTAX));
    assert_eq!(t.run(&["LPOS", "none", "a"]), nil());
    assert_eq!(t.run(&["LPOS", "none", "a", "COUNT", "1"]), arr(vec![]));
    t.run(&["SET", "s", "x"]);
    assert_eq!(t.run(&["LPOS", "s", "a"]), err(WRONGTYPE));
    assert_eq!(t.run(&["LPOS", "s", "a", "RANK", "0"]), err(rank0));
}

#[test]
fn lmove_and_rpoplpush_between_lists_and_on_one() {
    let mut t = TestEngine::default();
    t.run(&["RPUSH", "src", "a", "b", "c"]);
    assert_eq!(t.run(&["LMOVE", "src", "dst", "LEFT", "RIGHT"]), bulk("a"));
    assert_eq!(t.run(&["LMOVE", "src", "dst", "right", "left"]), bulk("c"));
    assert_eq!(all(&mut t, "dst"), bulks(&["c", "a"]));
    assert_eq!(t.run(&["RPOPLPUSH", "src", "dst"]), bulk("b"));
    assert_eq!(t.run(&["EXISTS", "src"]), int(0));
    assert_eq!(all(&mut t, "dst"), bulks(&["b", "c", "a"]));
    assert_eq!(t.run(&["LMOVE", "src", "dst", "LEFT", "LEFT"]), nil());
    assert_eq!(t.run(&["RPOPLPUSH", "src", "dst"]), nil());
    // One list: a rotation, or nothing when the element goes back where it was.
    assert_eq!(t.run(&["LMOVE", "dst", "dst", "LEFT", "RIGHT"]), bulk("b"));
    assert_eq!(all(&mut t, "dst"), bulks(&["c", "a", "b"]));
    assert_eq!(t.run(&["RPOPLPUSH", "dst", "dst"]), bulk("b"));
    assert_eq!(all(&mut t, "dst"), bulks(&["b", "c", "a"]));
    assert_eq!(t.run(&["LMOVE", "dst", "dst", "RIGHT", "RIGHT"]), bulk("a"));
    assert_eq!(all(&mut t, "dst"), bulks(&["b", "c", "a"]));
    // Types: the source first, then the destination; nothing moves on an error.
    t.run(&["SET", "s", "x"]);
    assert_eq!(t.run(&["LMOVE", "dst", "s", "LEFT", "LEFT"]), err(WRONGTYPE));
    assert_eq!(t.run(&["LMOVE", "s", "dst", "LEFT", "LEFT"]), err(WRONGTYPE));
    assert_eq!(t.run(&["RPOPLPUSH", "dst", "s"]), err(WRONGTYPE));
    assert_eq!(t.run(&["LMOVE", "none", "s", "LEFT", "LEFT"]), nil());
    assert_eq!(t.run(&["LLEN", "dst"]), int(3));
    assert_eq!(t.run(&["LMOVE", "dst", "x", "UP", "LEFT"]), err(SYNTAX));
    assert_eq!(t.run(&["LMOVE", "dst", "x", "LEFT", "DOWN"]), err(SYNTAX));
}

#[test]
fn blocking_commands_with_data_answer_at_once() {
    let mut t = TestEngine::default();
    t.run(&["RPUSH", "b", "1", "2"]);
    assert_eq!(t.run(&["BLPOP", "none", "b", "0"]), bulks(&["b", "1"]));
    assert_eq!(t.run(&["BRPOP", "b", "0"]), bulks(&["b", "2"]));
    assert_eq!(t.run(&["EXISTS", "b"]), int(0));
    t.run(&["RPUSH", "src", "a", "b"]);
    assert_eq!(t.run(&["BLMOVE", "src", "dst", "LEFT", "LEFT", "0"]), bulk("a"));
    assert_eq!(t.run(&["BRPOPLPUSH", "src", "dst", "0"]), bulk("b"));
    assert_eq!(all(&mut t, "dst"), bulks(&["b", "a"]));
    // A wrong type among the keys before any list with data is an error.
    t.run(&["SET", "s", "x"]);
    t.run(&["RPUSH", "b", "1"]);
    assert_eq!(t.run(&["BLPOP", "s", "b", "0"]), err(WRONGTYPE));
    assert_eq!(t.run(&["BLPOP", "b", "s", "0"]), bulks(&["b", "1"]));
    assert_eq!(t.run(&["BLMOVE", "dst", "s", "LEFT", "LEFT", "0"]), err(WRONGTYPE));
    assert_eq!(t.run(&["BLMOVE", "s", "dst", "LEFT", "LEFT", "0"]), err(WRONGTYPE));
}

#[test]
fn blocking_commands_do_not_wait_outside_a_connection_or_inside_multi() {
    let mut t = TestEngine::default();
    // The console and playground (`call`): the answer a timeout would give, at once.
    assert_eq!(t.run(&["BLPOP", "none", "0"]), Reply::NilArray);
    assert_eq!(t.run(&["BRPOP", "none", "1"]), Reply::NilArray);
    assert_eq!(t.run(&["BLMOVE", "none", "d", "LEFT", "LEFT", "0"]), nil());
    assert_eq!(t.run(&["BRPOPLPUSH", "none", "d", "0"]), nil());
    assert!(t.session.blocked.is_none());
    // Inside MULTI, over a connection: Redis answers `*-1` for BLPOP, `$-1` for BLMOVE.
    let mut out = Vec::new();
    let input = b"MULTI\r\nBLPOP none 0\r\nBLMOVE none d LEFT LEFT 0\r\nEXEC\r\nPING\r\n";
    let used = t.engine.feed(&mut t.session, input, &mut out, t.now).unwrap();
    assert_eq!(used, input.len());
    assert_eq!(String::from_utf8_lossy(&out), "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n*-1\r\n$-1\r\n+PONG\r\n");
    assert!(t.session.blocked.is_none());
}

#[test]
fn timeouts_are_checked_as_redis_does() {
    let mut t = TestEngine::default();
    let not_float = err("ERR timeout is not a float or out of range");
    let negative = err("ERR timeout is negative");
    for bad in ["abc", "", " 1", "1 ", "nan", "1e5000", "0.1x"] {
        assert_eq!(t.run(&["BLPOP", "k", bad]), not_float, "{bad:?}");
    }
    for bad in ["-1", "-0.0011", "inf", "-inf", "1e400", "9223372036854776"] {
        assert_eq!(t.run(&["BLPOP", "k", bad]), negative, "{bad:?}");
    }
    assert_eq!(t.run(&["BLMOVE", "k", "d", "LEFT", "LEFT", "-1"]), negative);
    assert_eq!(t.run(&["BRPOPLPUSH", "k", "d", "x"]), not_float);
    // The sides are checked before the timeout.
    assert_eq!(t.run(&["BLMOVE", "k", "d", "UP", "LEFT", "x"]), err(SYNTAX));
    // Valid ones: how long each would wait.
    let now = t.now;
    let deadline = |t: &mut TestEngine, timeout: &str| {
        let mut out = Vec::new();
        let mut s = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", now);
        let cmd = format!("BLPOP k {timeout}\r\n");
        t.engine.feed(&mut s, cmd.as_bytes(), &mut out, now).unwrap();
        let at = s.blocked.as_ref().map(|b| b.deadline_ms);
        t.engine.end_session(&s);
        at
    };
    assert_eq!(deadline(&mut t, "0"), Some(None));
    assert_eq!(deadline(&mut t, "-0"), Some(None));
    assert_eq!(deadline(&mut t, "0.0001"), Some(Some(now + 1)));
    assert_eq!(deadline(&mut t, "1.5"), Some(Some(now + 1500)));
    assert_eq!(deadline(&mut t, "0x10"), Some(Some(now + 16_000)));
    // Past LLONG_MAX once the time is added: it never fires.
    assert_eq!(deadline(&mut t, "9223372036854775"), Some(None));
    assert_eq!(t.engine.blocked_clients(), 0);
}

/// A second connection on the same engine.
fn connect(t: &TestEngine, n: u16) -> Session {
    t.engine.new_session(&format!("127.0.0.1:{n}"), "127.0.0.1:6379", t.now)
}

/// Feeds `input` to `s`; answers (bytes consumed, replies as text).
fn feed(t: &TestEngine, s: &mut Session, input: &str) -> (usize, String) {
    let mut out = Vec::new();
    let used = t.engine.feed(s, input.as_bytes(), &mut out, t.now).unwrap();
    (used, String::from_utf8_lossy(&out).into_owned())
}

fn retry(t: &TestEngine, s: &mut Session) -> Option<String> {
    let mut out = Vec::new();
    t.engine.retry_blocked(s, &mut out, t.now).then(|| String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn a_blocked_connection_holds_its_pipeline_until_served() {
    let mut t = TestEngine::default();
    let mut a = connect(&t, 2);
    let input = "PING first\r\nBLPOP q 0\r\nPING after\r\n";
    let (used, out) = feed(&t, &mut a, input);
    assert_eq!(out, "$5\r\nfirst\r\n");
    assert_eq!(used, "PING first\r\nBLPOP q 0\r\n".len());
    assert!(a.blocked.is_some());
    assert_eq!(t.engine.blocked_clients(), 1);
    // While blocked, nothing more runs.
    assert_eq!(feed(&t, &mut a, "PING after\r\n"), (0, String::new()));
    assert_eq!(retry(&t, &mut a), None);
    // Another connection pushes: the element goes to the blocked client, not the list.
    assert_eq!(t.run(&["RPUSH", "q", "job"]), int(1));
    assert_eq!(t.run(&["EXISTS", "q"]), int(0));
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$1\r\nq\r\n$3\r\njob\r\n"));
    assert!(a.blocked.is_none());
    assert_eq!(t.engine.blocked_clients(), 0);
    assert_eq!(feed(&t, &mut a, "PING after\r\n").1, "$5\r\nafter\r\n");
    t.engine.end_session(&a);
}

#[test]
fn waiters_are_served_first_come_first_served() {
    let mut t = TestEngine::default();
    let (mut a, mut b, mut c) = (connect(&t, 2), connect(&t, 3), connect(&t, 4));
    feed(&t, &mut a, "BRPOP q 0\r\n");
    feed(&t, &mut b, "BLPOP other q 0\r\n");
    feed(&t, &mut c, "BLPOP q 0\r\n");
    assert_eq!(t.engine.blocked_clients(), 3);
    // Two elements: the first two waiters get one each, the third keeps waiting.
    assert_eq!(t.run(&["RPUSH", "q", "x", "y"]), int(2));
    assert_eq!(retry(&t, &mut c), None);
    assert_eq!(retry(&t, &mut b).as_deref(), Some("*2\r\n$1\r\nq\r\n$1\r\nx\r\n"));
    // BRPOP pops from the tail, but it was first: it got its pick before B.
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$1\r\nq\r\n$1\r\ny\r\n"));
    assert_eq!(t.engine.blocked_clients(), 1);
    t.run(&["LPUSH", "q", "z"]);
    assert_eq!(retry(&t, &mut c).as_deref(), Some("*2\r\n$1\r\nq\r\n$1\r\nz\r\n"));
    for s in [&a, &b, &c] {
        t.engine.end_session(s);
    }
}

#[test]
fn a_client_blocked_on_several_keys_is_served_by_the_first_to_get_data() {
    let mut t = TestEngine::default();
    let mut a = connect(&t, 2);
    feed(&t, &mut a, "BLPOP k1 k2 k3 0\r\n");
    t.run(&["RPUSH", "k3", "v3"]);
    t.run(&["RPUSH", "k2", "v2"]);
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$2\r\nk3\r\n$2\r\nv3\r\n"));
    assert_eq!(all(&mut t, "k2"), bulks(&["v2"]));
    assert_eq!(t.engine.blocked_clients(), 0);
    t.engine.end_session(&a);
}

#[test]
fn timeouts_answer_the_null_array_in_either_protocol() {
    let mut t = TestEngine::default();
    let mut a = connect(&t, 2);
    feed(&t, &mut a, "BLPOP q 1\r\nPING\r\n");
    assert_eq!(a.blocked.as_ref().and_then(|b| b.deadline_ms), Some(t.now + 1000));
    let mut out = Vec::new();
    t.engine.unblock_timeout(&mut a, &mut out);
    assert_eq!(out, b"*-1\r\n");
    assert!(a.blocked.is_none());
    assert_eq!(t.engine.blocked_clients(), 0);
    // Nothing is served to it afterwards.
    t.run(&["RPUSH", "q", "x"]);
    assert_eq!(t.run(&["LLEN", "q"]), int(1));
    // RESP3, and BLMOVE's timeout is the null array too (its MULTI answer is not).
    t.run(&["DEL", "q"]);
    feed(&t, &mut a, "HELLO 3\r\n");
    feed(&t, &mut a, "BLMOVE q d LEFT LEFT 1\r\n");
    let mut out = Vec::new();
    t.engine.unblock_timeout(&mut a, &mut out);
    assert_eq!(out, b"_\r\n");
    t.engine.end_session(&a);
}

#[test]
fn a_timeout_after_being_served_delivers_the_data() {
    let mut t = TestEngine::default();
    let mut a = connect(&t, 2);
    feed(&t, &mut a, "BLPOP q 1\r\n");
    t.run(&["RPUSH", "q", "x"]);
    // The host saw the deadline before the wake-up: the element is not lost.
    let mut out = Vec::new();
    t.engine.unblock_timeout(&mut a, &mut out);
    assert_eq!(String::from_utf8_lossy(&out), "*2\r\n$1\r\nq\r\n$1\r\nx\r\n");
    t.engine.end_session(&a);
}

#[test]
fn blmove_moves_to_its_destination_when_served() {
    let mut t = TestEngine::default();
    let (mut a, mut b) = (connect(&t, 2), connect(&t, 3));
    feed(&t, &mut a, "BLMOVE src mid RIGHT LEFT 0\r\n");
    // B waits on A's destination: serving A fills it, and B is served in turn.
    feed(&t, &mut b, "BRPOPLPUSH mid dst 0\r\n");
    t.run(&["RPUSH", "src", "1", "2"]);
    assert_eq!(retry(&t, &mut a).as_deref(), Some("$1\r\n2\r\n"));
    assert_eq!(retry(&t, &mut b).as_deref(), Some("$1\r\n2\r\n"));
    assert_eq!(all(&mut t, "src"), bulks(&["1"]));
    assert_eq!(t.run(&["EXISTS", "mid"]), int(0));
    assert_eq!(all(&mut t, "dst"), bulks(&["2"]));
    // A destination of another type: the waiter gets WRONGTYPE and nothing moves.
    t.run(&["SET", "str", "x"]);
    feed(&t, &mut a, "BLMOVE empty str LEFT LEFT 0\r\n");
    t.run(&["RPUSH", "empty", "v"]);
    assert_eq!(retry(&t, &mut a), Some(format!("-{WRONGTYPE}\r\n")));
    assert_eq!(all(&mut t, "empty"), bulks(&["v"]));
    for s in [&a, &b] {
        t.engine.end_session(s);
    }
}

#[test]
fn serving_a_blocked_move_breaks_a_watch_on_its_destination() {
    let mut t = TestEngine::default();
    let (mut a, mut w) = (connect(&t, 2), connect(&t, 3));
    feed(&t, &mut a, "BLMOVE src dst LEFT LEFT 0\r\n");
    assert_eq!(feed(&t, &mut w, "WATCH dst\r\n").1, "+OK\r\n");
    t.run(&["RPUSH", "src", "x"]);
    assert_eq!(retry(&t, &mut a).as_deref(), Some("$1\r\nx\r\n"));
    assert_eq!(feed(&t, &mut w, "MULTI\r\nPING\r\nEXEC\r\n").1, "+OK\r\n+QUEUED\r\n*-1\r\n");
    for s in [&a, &w] {
        t.engine.end_session(s);
    }
}

#[test]
fn any_way_a_list_appears_wakes_its_waiters() {
    let mut t = TestEngine::default();
    let mut a = connect(&t, 2);
    // RENAME of a list onto the key.
    feed(&t, &mut a, "BLPOP q 0\r\n");
    t.run(&["RPUSH", "tmp", "renamed"]);
    assert_eq!(t.run(&["RENAME", "tmp", "q"]), ok());
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$1\r\nq\r\n$7\r\nrenamed\r\n"));
    // LMOVE / RPOPLPUSH into it.
    feed(&t, &mut a, "BLPOP q 0\r\n");
    t.run(&["RPUSH", "tmp", "moved"]);
    t.run(&["RPOPLPUSH", "tmp", "q"]);
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$1\r\nq\r\n$5\r\nmoved\r\n"));
    // A push inside MULTI/EXEC: served after the EXEC.
    feed(&t, &mut a, "BLPOP q 0\r\n");
    t.run(&["MULTI"]);
    t.run(&["RPUSH", "q", "tx"]);
    t.run(&["EXEC"]);
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$1\r\nq\r\n$2\r\ntx\r\n"));
    // A string under the key does not serve it; the list that replaces it does.
    feed(&t, &mut a, "BLPOP q 0\r\n");
    t.run(&["SET", "q", "str"]);
    assert_eq!(retry(&t, &mut a), None);
    t.run(&["DEL", "q"]);
    t.run(&["LPUSH", "q", "list"]);
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$1\r\nq\r\n$4\r\nlist\r\n"));
    t.engine.end_session(&a);
}

#[test]
fn data_that_arrives_while_blocking_is_not_missed() {
    let mut t = TestEngine::default();
    let mut a = connect(&t, 2);
    // The list is there when the client registers: it is served right away, and the
    // pipeline goes on.
    t.run(&["RPUSH", "q", "x"]);
    let (used, out) = feed(&t, &mut a, "BLPOP q 0\r\nPING\r\n");
    assert_eq!(used, "BLPOP q 0\r\nPING\r\n".len());
    assert_eq!(out, "*2\r\n$1\r\nq\r\n$1\r\nx\r\n+PONG\r\n");
    assert!(a.blocked.is_none());
    t.engine.end_session(&a);
}

#[test]
fn a_closed_connection_stops_waiting() {
    let mut t = TestEngine::default();
    let (mut a, mut b) = (connect(&t, 2), connect(&t, 3));
    feed(&t, &mut a, "BLPOP q 0\r\n");
    feed(&t, &mut b, "BLPOP q 0\r\n");
    t.engine.end_session(&a);
    assert_eq!(t.engine.blocked_clients(), 1);
    t.run(&["RPUSH", "q", "x"]);
    assert_eq!(retry(&t, &mut b).as_deref(), Some("*2\r\n$1\r\nq\r\n$1\r\nx\r\n"));
    t.engine.end_session(&b);
    assert_eq!(t.engine.blocked_clients(), 0);
}

#[test]
fn object_encoding_is_listpack_while_small() {
    let mut t = TestEngine::default();
    t.run(&["RPUSH", "l", "a", "1"]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "l"]), bulk("listpack"));
    let big = "x".repeat(9000);
    t.run(&["RPUSH", "l", &big]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "l"]), bulk("quicklist"));
    t.run(&["RPOP", "l"]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "l"]), bulk("listpack"));
}

#[test]
fn memory_returns_to_the_baseline_after_growing_shrinking_and_deleting() {
    let mut t = TestEngine::default();
    let used = |t: &TestEngine| t.engine.store().used_memory();
    let baseline = used(&t);
    for round in 0..3 {
        for i in 0..500 {
            let v = format!("value-{i}-{}", "y".repeat(i % 70));
            t.run(&["RPUSH", "l", &v]);
            t.run(&["LPUSH", "l2", &i.to_string()]);
        }
        let grown = used(&t);
        assert!(grown > baseline + 500 * 16, "round {round}");
        // The accounted size is the entry's size, recomputed.
        let usage = t.run(&["MEMORY", "USAGE", "l"]);
        assert!(matches!(usage, Reply::Int(n) if n > 500 * 16), "{usage:?}");
        t.run(&["LSET", "l", "0", &"z".repeat(300)]);
        t.run(&["LINSERT", "l", "BEFORE", "value-3-yyy", "inserted"]);
        t.run(&["LREM", "l", "0", "inserted"]);
        t.run(&["LTRIM", "l", "10", "300"]);
        t.run(&["RPOP", "l", "100"]);
        t.run(&["LMOVE", "l", "l3", "LEFT", "RIGHT"]);
        assert!(used(&t) < grown);
        t.run(&["DEL", "l", "l3"]);
        while t.run(&["RPOP", "l2", "50"]) != Reply::NilArray {}
        assert_eq!(used(&t), baseline, "round {round}");
    }
}

#[test]
fn wrong_arities() {
    let mut t = TestEngine::default();
    for (argv, name) in [
        (vec!["LLEN"], "llen"),
        (vec!["LLEN", "a", "b"], "llen"),
        (vec!["LRANGE", "a", "0"], "lrange"),
        (vec!["LINDEX", "a"], "lindex"),
        (vec!["LSET", "a", "0"], "lset"),
        (vec!["LREM", "a", "0"], "lrem"),
        (vec!["LTRIM", "a", "0"], "ltrim"),
        (vec!["LPOS", "a"], "lpos"),
        (vec!["LMOVE", "a", "b", "LEFT"], "lmove"),
        (vec!["RPOPLPUSH", "a"], "rpoplpush"),
        (vec!["BLPOP", "a"], "blpop"),
        (vec!["BRPOP", "a"], "brpop"),
        (vec!["BLMOVE", "a", "b", "LEFT", "LEFT"], "blmove"),
        (vec!["BRPOPLPUSH", "a", "b"], "brpoplpush"),
    ] {
        assert_eq!(t.run(&argv), arity(name), "{argv:?}");
    }
}

#[test]
fn lmpop_pops_from_the_first_non_empty_list() {
    let mut t = with_list();
    let popped = |key: &str, elems: &[&str]| arr(vec![bulk(key), bulks(elems)]);
    assert_eq!(t.run(&["LMPOP", "2", "none", "l", "LEFT"]), popped("l", &["a"]));
    assert_eq!(t.run(&["lmpop", "1", "l", "right", "count", "2"]), popped("l", &["e", "d"]));
    assert_eq!(t.run(&["LMPOP", "1", "l", "LEFT", "COUNT", "10"]), popped("l", &["b", "c"]));
    assert_eq!(t.run(&["EXISTS", "l"]), int(0));
    assert_eq!(t.run(&["LMPOP", "1", "l", "LEFT"]), Reply::NilArray);
    // A wrong type is an error only when reached.
    t.run(&["RPUSH", "l", "a"]);
    assert_eq!(t.run(&["LMPOP", "2", "l", "s", "LEFT"]), popped("l", &["a"]));
    assert_eq!(t.run(&["LMPOP", "2", "l", "s", "LEFT"]), err(WRONGTYPE));
}

#[test]
fn lmpop_and_blmpop_errors_are_redis_texts() {
    let mut t = with_list();
    let numkeys = err("ERR numkeys should be greater than 0");
    let count = err("ERR count should be greater than 0");
    for bad in [&["0", "l", "LEFT"][..], &["-1", "l", "LEFT"], &["x", "l", "LEFT"]] {
        let argv: Vec<&str> = ["LMPOP"].iter().chain(bad).copied().collect();
        assert_eq!(t.run(&argv), numkeys, "{argv:?}");
    }
    assert_eq!(t.run(&["LMPOP", "1", "l", "MIDDLE"]), err(SYNTAX));
    assert_eq!(t.run(&["LMPOP", "3", "l", "LEFT"]), err(SYNTAX));
    assert_eq!(t.run(&["LMPOP", "1", "l", "LEFT", "FOO"]), err(SYNTAX));
    assert_eq!(t.run(&["LMPOP", "1", "l", "LEFT", "COUNT"]), err(SYNTAX));
    assert_eq!(t.run(&["LMPOP", "1", "l", "LEFT", "COUNT", "1", "COUNT", "2"]), err(SYNTAX));
    for bad in ["0", "-1", "x"] {
        assert_eq!(t.run(&["LMPOP", "1", "l", "LEFT", "COUNT", bad]), count, "{bad}");
    }
    assert_eq!(t.run(&["LMPOP", "1", "l"]), arity("lmpop"));
    assert_eq!(t.run(&["BLMPOP", "0", "1", "l"]), arity("blmpop"));
    assert_eq!(t.run(&["BLMPOP", "-1", "1", "none", "LEFT"]), err("ERR timeout is negative"));
    assert_eq!(t.run(&["BLMPOP", "x", "1", "none", "LEFT"]), err("ERR timeout is not a float or out of range"));
    // The timeout is read last, as in Redis.
    assert_eq!(t.run(&["BLMPOP", "x", "0", "none", "LEFT"]), numkeys);
    assert_eq!(t.run(&["LLEN", "l"]), int(5));
}

#[test]
fn blmpop_answers_at_once_with_data_and_not_inside_multi() {
    let mut t = with_list();
    let reply = t.run(&["BLMPOP", "0", "2", "none", "l", "RIGHT", "COUNT", "2"]);
    assert_eq!(reply, arr(vec![bulk("l"), bulks(&["e", "d"])]));
    assert_eq!(t.run(&["BLMPOP", "0", "1", "none", "LEFT"]), Reply::NilArray);
    assert!(t.session.blocked.is_none());
    let mut out = Vec::new();
    let input = b"MULTI\r\nBLMPOP 0 1 none LEFT\r\nEXEC\r\n";
    let used = t.engine.feed(&mut t.session, input, &mut out, t.now).unwrap();
    assert_eq!(used, input.len());
    assert_eq!(String::from_utf8_lossy(&out), "+OK\r\n+QUEUED\r\n*1\r\n*-1\r\n");
}

#[test]
fn a_blocked_blmpop_is_served_up_to_its_count() {
    let mut t = TestEngine::default();
    let (mut a, mut b) = (connect(&t, 2), connect(&t, 3));
    feed(&t, &mut a, "BLMPOP 0 2 x q LEFT COUNT 2\r\n");
    feed(&t, &mut b, "BLMPOP 0 1 q RIGHT\r\n");
    assert_eq!(t.engine.blocked_clients(), 2);
    assert_eq!(t.run(&["RPUSH", "q", "a", "b", "c", "d"]), int(4));
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*2\r\n$1\r\nq\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n"));
    assert_eq!(retry(&t, &mut b).as_deref(), Some("*2\r\n$1\r\nq\r\n*1\r\n$1\r\nd\r\n"));
    assert_eq!(all(&mut t, "q"), bulks(&["c"]));
    // A timeout answers the null array.
    feed(&t, &mut a, "BLMPOP 1 1 none LEFT\r\n");
    let mut out = Vec::new();
    t.engine.unblock_timeout(&mut a, &mut out);
    assert_eq!(out, b"*-1\r\n");
    for s in [&a, &b] {
        t.engine.end_session(s);
    }
}
