//! Unit tests of the string family, through the command table.

use crate::reply::Reply;
use crate::store::entry::{Entry, ValueRef};
use crate::store::Touch;
use crate::testing::{arr, bulk, err, int, nil, ok, TestEngine, NOT_FLOAT, NOT_INT, SYNTAX, WRONGTYPE};

#[test]
fn a_plain_set_over_an_expired_key_counts_the_expiry() {
    // A plain SET replaces the entry without looking it up first; an old entry that had
    // expired still counts as expired (as Redis's lazy expiry on the write would), and its
    // TTL does not carry over.
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["SET", "k", "old", "PX", "10"]), ok());
    t.advance(20);
    assert_eq!(t.run(&["SET", "k", "new"]), ok());
    assert_eq!(t.engine.snapshot(t.now).expired_keys, 1);
    assert_eq!(t.run(&["GET", "k"]), bulk("new"));
    assert_eq!(t.run(&["PTTL", "k"]), int(-1));
    // A live key's overwrite is not an expiry.
    assert_eq!(t.run(&["SET", "k", "newer", "EX", "100"]), ok());
    assert_eq!(t.run(&["SET", "k", "newest"]), ok());
    assert_eq!(t.engine.snapshot(t.now).expired_keys, 1);
    assert_eq!(t.engine.snapshot(t.now).keys_with_ttl, 0);
}
const DIGEST_LEN: &str = "ERR The digest must be exactly 16 hexadecimal characters";
const TOO_LONG: &str = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

fn engine() -> TestEngine {
    TestEngine::default()
}

/// The key's absolute expiry (0 = none), `None` if absent, read without touching it.
fn expire_at(t: &TestEngine, key: &str) -> Option<u64> {
    let store = t.engine.store();
    let mut shard = store.lock_shard(store.stripe_index(key.as_bytes()));
    shard.lookup(key.as_bytes(), t.now, Touch::No).map(|e| e.expire_at)
}

/// The stored value's (len, capacity): they must match for accounting to be honest. A
/// short string is embedded in its entry's node, which is accounted exactly, so its
/// capacity is its length when the entry is accounted as an embedded one.
fn len_cap(t: &TestEngine, key: &str) -> (usize, usize) {
    use crate::store::entry::{SLOT_OVERHEAD, TTL_OVERHEAD};
    use crate::store::node::embedded_size;
    let store = t.engine.store();
    let mut shard = store.lock_shard(store.stripe_index(key.as_bytes()));
    match shard.lookup(key.as_bytes(), t.now, Touch::No) {
        Some(Entry { value: ValueRef::Str(s), size, expire_at, .. }) => {
            let ttl = if expire_at != 0 { TTL_OVERHEAD } else { 0 };
            let embedded = SLOT_OVERHEAD + ttl + embedded_size(key.len(), s.len(), expire_at != 0);
            (s.len(), if size == embedded { s.len() } else { usize::MAX })
        }
        _ => panic!("{key} missing or not a string"),
    }
}

fn hits_misses(t: &TestEngine) -> (u64, u64) {
    use std::sync::atomic::Ordering::Relaxed;
    (t.engine.stats().keyspace.hits.load(Relaxed), t.engine.stats().keyspace.misses.load(Relaxed))
}

fn invalid_expire(cmd: &str) -> Reply {
    err(&format!("ERR invalid expire time in '{cmd}' command"))
}

#[test]
fn get_and_set() {
    let mut t = engine();
    assert_eq!(t.run(&["GET", "k"]), nil());
    assert_eq!(t.run(&["SET", "k", "v"]), ok());
    assert_eq!(t.run(&["GET", "k"]), bulk("v"));
    assert_eq!(t.run(&["SET", "k", "other"]), ok());
    assert_eq!(t.run(&["GET", "k"]), bulk("other"));
    assert_eq!(t.run(&["SET", "e", ""]), ok());
    assert_eq!(t.run(&["GET", "e"]), bulk(""));
    assert_eq!(t.resp(&["GET", "k"]), "$5\r\nother\r\n");
    assert_eq!(t.run(&["get", "k", "x"]), err("ERR wrong number of arguments for 'get' command"));
}

#[test]
fn values_and_keys_are_binary_safe() {
    let mut t = engine();
    let key: &[u8] = b"k\0\r\n";
    let value: &[u8] = b"a\0b\r\nc\xff";
    assert_eq!(t.run(&[&b"SET"[..], key, value]), ok());
    assert_eq!(t.run(&[&b"GET"[..], key]), Reply::Bulk(value.to_vec()));
    assert_eq!(t.run(&[&b"STRLEN"[..], key]), int(7));
    assert_eq!(t.run(&[&b"APPEND"[..], key, b"\0"]), int(8));
    assert_eq!(t.run(&[&b"GETRANGE"[..], key, b"1", b"4"]), Reply::Bulk(b"\0b\r\n".to_vec()));
    assert_eq!(t.run(&[&b"SETRANGE"[..], key, b"0", b"\r\n"]), int(8));
    assert_eq!(t.run(&[&b"GETDEL"[..], key]), Reply::Bulk(b"\r\nb\r\nc\xff\0".to_vec()));
    assert_eq!(t.run(&[&b"MSET"[..], b"\0", b"\n", b"\r", b""]), ok());
    assert_eq!(t.run(&[&b"MGET"[..], b"\0", b"\r"]), arr(vec![bulk("\n"), bulk("")]));
}

#[test]
fn set_nx_and_xx() {
    let mut t = engine();
    assert_eq!(t.run(&["SET", "k", "1", "XX"]), nil());
    assert_eq!(t.run(&["GET", "k"]), nil());
    assert_eq!(t.run(&["SET", "k", "1", "nx"]), ok());
    assert_eq!(t.run(&["SET", "k", "2", "NX"]), nil());
    assert_eq!(t.run(&["GET", "k"]), bulk("1"));
    assert_eq!(t.run(&["SET", "k", "3", "xx"]), ok());
    assert_eq!(t.run(&["GET", "k"]), bulk("3"));
    assert_eq!(t.run(&["SET", "k", "4", "NX", "XX"]), err(SYNTAX));
    assert_eq!(t.run(&["SET", "k", "4", "XX", "NX"]), err(SYNTAX));
    assert_eq!(t.run(&["SET", "k", "4", "XX", "XX"]), ok());
    assert_eq!(t.run(&["SET", "n", "4", "NX", "NX"]), ok());
    assert_eq!(t.run(&["GET", "k"]), bulk("4"));
}

#[test]
fn set_get_returns_the_old_value() {
    let mut t = engine();
    assert_eq!(t.run(&["SET", "k", "1", "GET"]), nil());
    assert_eq!(t.run(&["GET", "k"]), bulk("1"));
    assert_eq!(t.run(&["SET", "k", "2", "get"]), bulk("1"));
    assert_eq!(t.run(&["GET", "k"]), bulk("2"));
    // NX + GET (allowed since Redis 7): the old value comes back and nothing is written.
    assert_eq!(t.run(&["SET", "k", "3", "NX", "GET"]), bulk("2"));
    assert_eq!(t.run(&["GET", "k"]), bulk("2"));
    assert_eq!(t.run(&["SET", "m", "3", "XX", "GET"]), nil());
    assert_eq!(t.run(&["GET", "m"]), nil());
    assert_eq!(t.run(&["SET", "m", "3", "GET", "NX"]), nil());
    assert_eq!(t.run(&["GET", "m"]), bulk("3"));
}

#[test]
fn set_expiry_options() {
    let mut t = engine();
    let now = t.now;
    assert_eq!(t.run(&["SET", "ex", "v", "EX", "10"]), ok());
    assert_eq!(expire_at(&t, "ex"), Some(now + 10_000));
    assert_eq!(t.run(&["SET", "px", "v", "px", "1500"]), ok());
    assert_eq!(expire_at(&t, "px"), Some(now + 1_500));
    let exat = (now / 1000 + 100).to_string();
    assert_eq!(t.run(&["SET", "exat", "v", "EXAT", &exat]), ok());
    assert_eq!(expire_at(&t, "exat"), Some((now / 1000 + 100) * 1000));
    let pxat = (now + 777).to_string();
    assert_eq!(t.run(&["SET", "pxat", "v", "PXAT", &pxat]), ok());
    assert_eq!(expire_at(&t, "pxat"), Some(now + 777));
    // The last of repeated same-kind options wins.
    assert_eq!(t.run(&["SET", "twice", "v", "EX", "10", "EX", "20"]), ok());
    assert_eq!(expire_at(&t, "twice"), Some(now + 20_000));

    t.advance(1_499);
    assert_eq!(t.run(&["GET", "px"]), bulk("v"));
    t.advance(1);
    assert_eq!(t.run(&["GET", "px"]), nil());
    assert_eq!(expire_at(&t, "px"), None);
    t.advance(10_000 - 1_500);
    assert_eq!(t.run(&["GET", "ex"]), nil());
    assert_eq!(t.run(&["GET", "twice"]), bulk("v"));
}

#[test]
fn set_expiry_errors() {
    let mut t = engine();
    for (opt, n) in [("EX", "0"), ("EX", "-1"), ("PX", "0"), ("PX", "-5"), ("EXAT", "0"), ("PXAT", "-1")] {
        assert_eq!(t.run(&["SET", "k", "v", opt, n]), invalid_expire("set"), "{opt} {n}");
    }
    // Seconds that overflow when made milliseconds, and now + ms that overflows.
    assert_eq!(t.run(&["SET", "k", "v", "EX", "9223372036854776"]), invalid_expire("set"));
    assert_eq!(t.run(&["SET", "k", "v", "EXAT", "9223372036854776"]), invalid_expire("set"));
    assert_eq!(t.run(&["SET", "k", "v", "PX", "9223372036854775807"]), invalid_expire("set"));
    assert_eq!(t.run(&["SET", "k", "v", "EX", "9223372036854775"]), invalid_expire("set"));
    assert_eq!(t.run(&["SET", "k", "v", "PXAT", "9223372036854775807"]), ok());
    assert_eq!(expire_at(&t, "k"), Some(i64::MAX as u64));
    assert_eq!(t.run(&["SET", "k", "v", "EX", "abc"]), err(NOT_INT));
    assert_eq!(t.run(&["SET", "k", "v", "EX", "1.5"]), err(NOT_INT));
    for bad in [
        &["SET", "k", "v", "EX"][..],
        &["SET", "k", "v", "EX", "10", "PX", "10"],
        &["SET", "k", "v", "PX", "10", "EXAT", "10"],
        &["SET", "k", "v", "EX", "10", "KEEPTTL"],
        &["SET", "k", "v", "KEEPTTL", "EX", "10"],
        &["SET", "k", "v", "PERSIST"],
        &["SET", "k", "v", "BOGUS"],
        &["SET", "k", "v", "NX", "10"],
    ] {
        assert_eq!(t.run(bad), err(SYNTAX), "{bad:?}");
    }
    // Syntax is checked before the expiry's value.
    assert_eq!(t.run(&["SET", "k", "v", "EX", "0", "BOGUS"]), err(SYNTAX));
    // Nothing was changed by any failed SET.
    assert_eq!(t.run(&["GET", "k"]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(i64::MAX as u64));
}

#[test]
fn plain_set_clears_the_ttl_and_keepttl_keeps_it() {
    let mut t = engine();
    let now = t.now;
    t.run(&["SET", "k", "v", "EX", "100"]);
    assert_eq!(t.run(&["SET", "k", "w", "KEEPTTL"]), ok());
    assert_eq!(expire_at(&t, "k"), Some(now + 100_000));
    assert_eq!(t.run(&["SET", "k", "x", "keepttl", "KEEPTTL", "GET"]), bulk("w"));
    assert_eq!(expire_at(&t, "k"), Some(now + 100_000));
    assert_eq!(t.run(&["SET", "k", "y"]), ok());
    assert_eq!(expire_at(&t, "k"), Some(0));
    assert_eq!(t.engine.store().volatile_len(), 0);
    assert_eq!(t.run(&["SET", "new", "v", "KEEPTTL"]), ok());
    assert_eq!(expire_at(&t, "new"), Some(0));
}

#[test]
fn set_with_an_absolute_time_in_the_past_deletes() {
    let mut t = engine();
    let past = (t.now - 1).to_string();
    assert_eq!(t.run(&["SET", "k", "v", "PXAT", &past]), ok());
    assert_eq!(expire_at(&t, "k"), None);
    assert_eq!(t.engine.store().len(), 0);
    t.run(&["SET", "k", "v"]);
    assert_eq!(t.run(&["SET", "k", "w", "EXAT", "1", "GET"]), bulk("v"));
    assert_eq!(t.run(&["GET", "k"]), nil());
    let now = t.now.to_string();
    t.run(&["SET", "k", "v"]);
    assert_eq!(t.run(&["SET", "k", "w", "PXAT", &now]), ok());
    assert_eq!(t.engine.store().len(), 0);
    assert_eq!(t.engine.store().used_memory(), 0);
    // NX that does not write does not delete either.
    t.run(&["SET", "k", "v"]);
    assert_eq!(t.run(&["SET", "k", "w", "NX", "PXAT", "1"]), nil());
    assert_eq!(t.run(&["GET", "k"]), bulk("v"));
}

#[test]
fn setnx_setex_psetex() {
    let mut t = engine();
    let now = t.now;
    assert_eq!(t.run(&["SETNX", "k", "1"]), int(1));
    assert_eq!(t.run(&["SETNX", "k", "2"]), int(0));
    assert_eq!(t.run(&["GET", "k"]), bulk("1"));

    assert_eq!(t.run(&["SETEX", "k", "10", "v"]), ok());
    assert_eq!(t.run(&["GET", "k"]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(now + 10_000));
    assert_eq!(t.run(&["PSETEX", "p", "250", "w"]), ok());
    assert_eq!(expire_at(&t, "p"), Some(now + 250));
    t.advance(250);
    assert_eq!(t.run(&["GET", "p"]), nil());
    assert_eq!(t.run(&["GET", "k"]), bulk("v"));

    assert_eq!(t.run(&["SETEX", "k", "0", "v"]), invalid_expire("setex"));
    assert_eq!(t.run(&["SETEX", "k", "-10", "v"]), invalid_expire("setex"));
    assert_eq!(t.run(&["SETEX", "k", "9223372036854775807", "v"]), invalid_expire("setex"));
    assert_eq!(t.run(&["PSETEX", "k", "0", "v"]), invalid_expire("psetex"));
    assert_eq!(t.run(&["SETEX", "k", "ten", "v"]), err(NOT_INT));
    assert_eq!(t.run(&["PSETEX", "k", "", "v"]), err(NOT_INT));
    assert_eq!(t.run(&["SETEX", "k", "10"]), err("ERR wrong number of arguments for 'setex' command"));
}

#[test]
fn mget_returns_nil_for_missing_keys_and_counts_hits() {
    let mut t = engine();
    t.run(&["SET", "a", "1"]);
    t.run(&["SET", "c", "3"]);
    let before = hits_misses(&t);
    assert_eq!(t.run(&["MGET", "a", "b", "c", "a"]), arr(vec![bulk("1"), nil(), bulk("3"), bulk("1")]));
    let after = hits_misses(&t);
    assert_eq!((after.0 - before.0, after.1 - before.1), (3, 1));
    assert_eq!(t.run(&["GET", "nope"]), nil());
    assert_eq!(hits_misses(&t).1, after.1 + 1);
}

#[test]
fn mset_and_msetnx() {
    let mut t = engine();
    assert_eq!(t.run(&["MSET", "a", "1", "b", "2"]), ok());
    assert_eq!(t.run(&["MGET", "a", "b"]), arr(vec![bulk("1"), bulk("2")]));
    assert_eq!(t.run(&["MSET", "a", "1", "b"]), err("ERR wrong number of arguments for 'mset' command"));
    assert_eq!(t.run(&["MSETNX", "x", "1", "y"]), err("ERR wrong number of arguments for 'msetnx' command"));
    assert_eq!(t.run(&["MSET", "a"]), err("ERR wrong number of arguments for 'mset' command"));
    // A duplicate key takes its last value.
    assert_eq!(t.run(&["MSET", "d", "1", "d", "2"]), ok());
    assert_eq!(t.run(&["GET", "d"]), bulk("2"));
    // MSET clears TTLs like SET.
    t.run(&["SET", "a", "1", "EX", "10"]);
    t.run(&["MSET", "a", "9"]);
    assert_eq!(expire_at(&t, "a"), Some(0));

    assert_eq!(t.run(&["MSETNX", "a", "x", "n", "y"]), int(0));
    assert_eq!(t.run(&["GET", "n"]), nil());
    assert_eq!(t.run(&["GET", "a"]), bulk("9"));
    assert_eq!(t.run(&["MSETNX", "n", "1", "m", "2"]), int(1));
    assert_eq!(t.run(&["MGET", "n", "m"]), arr(vec![bulk("1"), bulk("2")]));
    assert_eq!(t.run(&["MSETNX", "dup", "1", "dup", "2"]), int(1));
    assert_eq!(t.run(&["GET", "dup"]), bulk("2"));
    // An expired key does not block MSETNX.
    t.run(&["PSETEX", "gone", "5", "v"]);
    t.advance(5);
    assert_eq!(t.run(&["MSETNX", "gone", "back"]), int(1));
    assert_eq!(t.run(&["GET", "gone"]), bulk("back"));
}

#[test]
fn getset_returns_old_and_clears_ttl() {
    let mut t = engine();
    assert_eq!(t.run(&["GETSET", "k", "1"]), nil());
    assert_eq!(t.run(&["GET", "k"]), bulk("1"));
    t.run(&["SET", "k", "2", "EX", "10"]);
    assert_eq!(t.run(&["GETSET", "k", "3"]), bulk("2"));
    assert_eq!(t.run(&["GET", "k"]), bulk("3"));
    assert_eq!(expire_at(&t, "k"), Some(0));
}

#[test]
fn getdel_returns_and_deletes() {
    let mut t = engine();
    assert_eq!(t.run(&["GETDEL", "k"]), nil());
    t.run(&["SET", "k", "v", "EX", "10"]);
    assert_eq!(t.run(&["GETDEL", "k"]), bulk("v"));
    assert_eq!(t.run(&["GET", "k"]), nil());
    assert_eq!(t.run(&["GETDEL", "k"]), nil());
    assert_eq!(t.engine.store().volatile_len(), 0);
    assert_eq!(t.engine.store().used_memory(), 0);
    t.run(&["PSETEX", "k", "10", "v"]);
    t.advance(10);
    assert_eq!(t.run(&["GETDEL", "k"]), nil());
}

#[test]
fn getex_sets_or_clears_the_ttl() {
    let mut t = engine();
    let now = t.now;
    assert_eq!(t.run(&["GETEX", "k"]), nil());
    assert_eq!(t.run(&["GETEX", "k", "EX", "10"]), nil());
    assert_eq!(t.engine.store().len(), 0);
    t.run(&["SET", "k", "v"]);
    assert_eq!(t.run(&["GETEX", "k"]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(0));
    assert_eq!(t.run(&["GETEX", "k", "EX", "10"]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(now + 10_000));
    assert_eq!(t.run(&["GETEX", "k", "px", "500"]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(now + 500));
    let exat = (now / 1000 + 60).to_string();
    assert_eq!(t.run(&["GETEX", "k", "EXAT", &exat]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some((now / 1000 + 60) * 1000));
    let pxat = (now + 42).to_string();
    assert_eq!(t.run(&["GETEX", "k", "PXAT", &pxat]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(now + 42));
    // No option leaves the TTL alone.
    assert_eq!(t.run(&["GETEX", "k"]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(now + 42));
    assert_eq!(t.run(&["GETEX", "k", "PERSIST"]), bulk("v"));
    assert_eq!(expire_at(&t, "k"), Some(0));
    assert_eq!(t.engine.store().volatile_len(), 0);
    assert_eq!(t.run(&["GETEX", "k", "PERSIST", "persist"]), bulk("v"));
    // An absolute time already past returns the value and deletes the key.
    assert_eq!(t.run(&["GETEX", "k", "PXAT", "1"]), bulk("v"));
    assert_eq!(t.run(&["GET", "k"]), nil());
    assert_eq!(t.engine.store().used_memory(), 0);
    // It expires when the clock gets there.
    t.run(&["SET", "k", "v"]);
    t.run(&["GETEX", "k", "PX", "100"]);
    t.advance(100);
    assert_eq!(t.run(&["GETEX", "k"]), nil());
}

#[test]
fn getex_errors() {
    let mut t = engine();
    t.run(&["SET", "k", "v"]);
    for bad in [
        &["GETEX", "k", "NX"][..],
        &["GETEX", "k", "XX"],
        &["GETEX", "k", "GET"],
        &["GETEX", "k", "KEEPTTL"],
        &["GETEX", "k", "EX"],
        &["GETEX", "k", "EX", "10", "PERSIST"],
        &["GETEX", "k", "PERSIST", "EX", "10"],
        &["GETEX", "k", "EX", "10", "PX", "10"],
        &["GETEX", "missing", "BOGUS"],
    ] {
        assert_eq!(t.run(bad), err(SYNTAX), "{bad:?}");
    }
    assert_eq!(t.run(&["GETEX", "k", "EX", "0"]), invalid_expire("getex"));
    assert_eq!(t.run(&["GETEX", "k", "PXAT", "-1"]), invalid_expire("getex"));
    assert_eq!(t.run(&["GETEX", "k", "EX", "9223372036854776"]), invalid_expire("getex"));
    assert_eq!(t.run(&["GETEX", "k", "EX", "x"]), err(NOT_INT));
    // A missing key answers nil before the expiry is looked at, as in Redis.
    assert_eq!(t.run(&["GETEX", "missing", "EX", "0"]), nil());
    assert_eq!(expire_at(&t, "k"), Some(0));
}

#[test]
fn append_creates_extends_and_keeps_the_ttl() {
    let mut t = engine();
    let now = t.now;
    assert_eq!(t.run(&["APPEND", "k", "Hello"]), int(5));
    assert_eq!(t.run(&["APPEND", "k", " World"]), int(11));
    assert_eq!(t.run(&["GET", "k"]), bulk("Hello World"));
    assert_eq!(len_cap(&t, "k"), (11, 11));
    assert_eq!(t.run(&["APPEND", "k", ""]), int(11));
    t.run(&["SET", "k", "Hello World", "EX", "10"]);
    assert_eq!(t.run(&["APPEND", "k", "!"]), int(12));
    assert_eq!(expire_at(&t, "k"), Some(now + 10_000));
    // An empty APPEND creates an empty string.
    assert_eq!(t.run(&["APPEND", "e", ""]), int(0));
    assert_eq!(t.run(&["GET", "e"]), bulk(""));
    // Counters are strings too.
    t.run(&["INCR", "n"]);
    assert_eq!(t.run(&["APPEND", "n", "0"]), int(2));
    assert_eq!(t.run(&["INCR", "n"]), int(11));
}

#[test]
fn append_and_setrange_respect_proto_max_bulk_len() {
    let mut t = engine();
    t.engine.config().set("proto-max-bulk-len", "1mb").unwrap();
    let max = 1024 * 1024;
    let big = vec![b'x'; max - 1];
    assert_eq!(t.run(&[&b"SET"[..], b"k", &big]), ok());
    assert_eq!(t.run(&["APPEND", "k", "y"]), int(max as i64));
    assert_eq!(t.run(&["APPEND", "k", "z"]), err(TOO_LONG));
    assert_eq!(t.run(&["STRLEN", "k"]), int(max as i64));
    assert_eq!(t.run(&["SETRANGE", "k", &(max - 1).to_string(), "a"]), int(max as i64));
    assert_eq!(t.run(&["SETRANGE", "k", &max.to_string(), "a"]), err(TOO_LONG));
    assert_eq!(t.run(&["SETRANGE", "new", &max.to_string(), "a"]), err(TOO_LONG));
    assert_eq!(t.run(&["SETRANGE", "new", "9223372036854775807", "a"]), err(TOO_LONG));
    assert_eq!(t.run(&["GET", "new"]), nil());
}

#[test]
fn strlen_counts_bytes() {
    let mut t = engine();
    assert_eq!(t.run(&["STRLEN", "k"]), int(0));
    t.run(&["SET", "k", "héllo"]);
    assert_eq!(t.run(&["STRLEN", "k"]), int(6));
    t.run(&["SET", "k", ""]);
    assert_eq!(t.run(&["STRLEN", "k"]), int(0));
}

#[test]
fn getrange_follows_redis_index_rules() {
    let mut t = engine();
    t.run(&["SET", "s", "Hello World"]);
    // Expectations from Redis 7.0.15.
    for (start, end, want) in [
        ("0", "3", "Hell"),
        ("-3", "-1", "rld"),
        ("0", "-1", "Hello World"),
        ("10", "100", "d"),
        ("5", "3", ""),
        ("-1", "-5", ""),
        ("-5", "-1", "World"),
        ("-100", "2", "Hel"),
        ("20", "30", ""),
        ("-1", "-1", "d"),
        ("3", "-100", ""),
        ("0", "0", "H"),
        ("-9223372036854775808", "9223372036854775807", "Hello World"),
    ] {
        assert_eq!(t.run(&["GETRANGE", "s", start, end]), bulk(want), "{start} {end}");
    }
    assert_eq!(t.run(&["GETRANGE", "missing", "0", "-1"]), bulk(""));
    t.run(&["SET", "e", ""]);
    assert_eq!(t.run(&["GETRANGE", "e", "0", "-1"]), bulk(""));
    assert_eq!(t.run(&["GETRANGE", "s", "a", "1"]), err(NOT_INT));
    assert_eq!(t.run(&["GETRANGE", "s", "0", "1.0"]), err(NOT_INT));
    t.run(&["SET", "n", "1234"]);
    assert_eq!(t.run(&["GETRANGE", "n", "1", "2"]), bulk("23"));
}

#[test]
fn setrange_overwrites_pads_and_extends() {
    let mut t = engine();
    assert_eq!(t.run(&["SETRANGE", "k", "0", ""]), int(0));
    assert_eq!(t.run(&["GET", "k"]), nil());
    assert_eq!(t.engine.store().len(), 0);
    assert_eq!(t.run(&["SETRANGE", "k", "3", "ab"]), int(5));
    assert_eq!(t.run(&["GET", "k"]), Reply::Bulk(b"\0\0\0ab".to_vec()));
    assert_eq!(len_cap(&t, "k"), (5, 5));
    t.run(&["SET", "k", "Hello World"]);
    assert_eq!(t.run(&["SETRANGE", "k", "6", "Redis"]), int(11));
    assert_eq!(t.run(&["GET", "k"]), bulk("Hello Redis"));
    assert_eq!(t.run(&["SETRANGE", "k", "6", "Vitrine"]), int(13));
    assert_eq!(t.run(&["GET", "k"]), bulk("Hello Vitrine"));
    assert_eq!(len_cap(&t, "k"), (13, 13));
    assert_eq!(t.run(&["SETRANGE", "k", "15", "!"]), int(16));
    assert_eq!(t.run(&["GET", "k"]), Reply::Bulk(b"Hello Vitrine\0\0!".to_vec()));
    // Setting nothing on an existing key answers its length, whatever the offset.
    assert_eq!(t.run(&["SETRANGE", "k", "9223372036854775807", ""]), int(16));
    assert_eq!(t.run(&["SETRANGE", "k", "-1", "x"]), err("ERR offset is out of range"));
    assert_eq!(t.run(&["SETRANGE", "k", "-1", ""]), err("ERR offset is out of range"));
    assert_eq!(t.run(&["SETRANGE", "k", "x", "x"]), err(NOT_INT));
    // The TTL stays.
    t.run(&["SET", "k", "abc", "PX", "100"]);
    assert_eq!(t.run(&["SETRANGE", "k", "1", "B"]), int(3));
    assert_eq!(expire_at(&t, "k"), Some(t.now + 100));
    assert_eq!(t.run(&["GET", "k"]), bulk("aBc"));
}

#[test]
fn incr_and_decr() {
    let mut t = engine();
    assert_eq!(t.run(&["INCR", "n"]), int(1));
    assert_eq!(t.run(&["INCR", "n"]), int(2));
    assert_eq!(t.run(&["DECR", "n"]), int(1));
    assert_eq!(t.run(&["DECR", "m"]), int(-1));
    assert_eq!(t.run(&["INCRBY", "n", "10"]), int(11));
    assert_eq!(t.run(&["INCRBY", "n", "-20"]), int(-9));
    assert_eq!(t.run(&["DECRBY", "n", "-9"]), int(0));
    assert_eq!(t.run(&["DECRBY", "x", "5"]), int(-5));
    assert_eq!(t.run(&["GET", "n"]), bulk("0"));
    assert_eq!(t.run(&["GET", "x"]), bulk("-5"));
    assert_eq!(len_cap(&t, "x"), (2, 2));
    assert_eq!(t.run(&["INCRBY", "min", "-9223372036854775808"]), int(i64::MIN));
}

#[test]
fn incr_errors() {
    let mut t = engine();
    for bad in ["abc", " 1", "1 ", "01", "+1", "1.0", "", "99999999999999999999", "-0"] {
        t.run(&["SET", "k", bad]);
        assert_eq!(t.run(&["INCR", "k"]), err(NOT_INT), "{bad:?}");
        assert_eq!(t.run(&["GET", "k"]), bulk(bad));
    }
    assert_eq!(t.run(&["INCRBY", "n", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["DECRBY", "n", "1.5"]), err(NOT_INT));
    assert_eq!(t.run(&["GET", "n"]), nil());

    t.run(&["SET", "k", "9223372036854775807"]);
    assert_eq!(t.run(&["INCR", "k"]), err("ERR increment or decrement would overflow"));
    assert_eq!(t.run(&["DECRBY", "k", "-1"]), err("ERR increment or decrement would overflow"));
    t.run(&["SET", "k", "-9223372036854775808"]);
    assert_eq!(t.run(&["DECR", "k"]), err("ERR increment or decrement would overflow"));
    assert_eq!(t.run(&["INCRBY", "k", "-1"]), err("ERR increment or decrement would overflow"));
    assert_eq!(t.run(&["DECRBY", "k", "-9223372036854775808"]), err("ERR decrement would overflow"));
    assert_eq!(t.run(&["DECRBY", "new", "-9223372036854775808"]), err("ERR decrement would overflow"));
    assert_eq!(t.run(&["GET", "k"]), bulk("-9223372036854775808"));
    assert_eq!(t.run(&["INCR", "k"]), int(i64::MIN + 1));
}

#[test]
fn counters_keep_the_ttl() {
    let mut t = engine();
    let now = t.now;
    t.run(&["SET", "n", "5", "EX", "10"]);
    assert_eq!(t.run(&["INCR", "n"]), int(6));
    assert_eq!(t.run(&["INCRBYFLOAT", "n", "0.5"]), bulk("6.5"));
    assert_eq!(expire_at(&t, "n"), Some(now + 10_000));
    t.advance(10_000);
    assert_eq!(t.run(&["INCR", "n"]), int(1));
    assert_eq!(expire_at(&t, "n"), Some(0));
}

#[test]
fn incrbyfloat_matches_redis_output() {
    let mut t = engine();
    // The examples from Redis's documentation.
    t.run(&["SET", "k", "10.50"]);
    assert_eq!(t.run(&["INCRBYFLOAT", "k", "0.1"]), bulk("10.6"));
    assert_eq!(t.run(&["INCRBYFLOAT", "k", "-5"]), bulk("5.6"));
    t.run(&["SET", "k", "5.0e3"]);
    assert_eq!(t.run(&["INCRBYFLOAT", "k", "2.0e2"]), bulk("5200"));
    assert_eq!(t.run(&["GET", "k"]), bulk("5200"));
    // long double arithmetic, as Redis on x86-64.
    assert_eq!(t.run(&["INCRBYFLOAT", "a", "0.1"]), bulk("0.1"));
    assert_eq!(t.run(&["INCRBYFLOAT", "a", "0.2"]), bulk("0.3"));
    assert_eq!(t.run(&["INCRBYFLOAT", "b", "3.0e3"]), bulk("3000"));
    assert_eq!(t.run(&["INCRBYFLOAT", "c", "1e-20"]), bulk("0"));
    assert_eq!(t.run(&["INCRBYFLOAT", "d", "-1.5"]), bulk("-1.5"));
    assert_eq!(t.run(&["INCRBYFLOAT", "d", "1.5"]), bulk("0"));
    t.run(&["SET", "i", "7"]);
    assert_eq!(t.run(&["INCRBYFLOAT", "i", "1"]), bulk("8"));
    assert_eq!(len_cap(&t, "i"), (1, 1));
    assert_eq!(len_cap(&t, "a"), (3, 3));
}

#[test]
fn incrbyfloat_errors() {
    let mut t = engine();
    for bad in ["abc", " 1", "1 ", "nan", "", "1e5000", "1,5"] {
        assert_eq!(t.run(&["INCRBYFLOAT", "k", bad]), err(NOT_FLOAT), "{bad:?}");
    }
    assert_eq!(t.run(&["GET", "k"]), nil());
    t.run(&["SET", "k", "one"]);
    assert_eq!(t.run(&["INCRBYFLOAT", "k", "1"]), err(NOT_FLOAT));
    let nan_inf = err("ERR increment would produce NaN or Infinity");
    assert_eq!(t.run(&["INCRBYFLOAT", "n", "inf"]), nan_inf);
    assert_eq!(t.run(&["GET", "n"]), nil());
    t.run(&["SET", "big", "1e4932"]);
    assert_eq!(t.run(&["INCRBYFLOAT", "big", "1e4932"]), nan_inf);
    assert_eq!(t.run(&["GET", "big"]), bulk("1e4932"));
    t.run(&["SET", "inf", "-inf"]);
    assert_eq!(t.run(&["INCRBYFLOAT", "inf", "inf"]), nan_inf);
}

#[test]
fn default_ttl_applies_to_keys_written_without_one() {
    let mut t = engine();
    t.engine.config().set("default-ttl", "60").unwrap();
    let now = t.now;
    let ttl = now + 60_000;
    t.run(&["SET", "a", "1"]);
    t.run(&["SET", "b", "1", "EX", "5"]);
    t.run(&["SET", "c", "1", "KEEPTTL"]);
    t.run(&["MSET", "d", "1", "e", "2"]);
    t.run(&["MSETNX", "f", "1"]);
    t.run(&["SETNX", "g", "1"]);
    t.run(&["GETSET", "h", "1"]);
    t.run(&["APPEND", "i", "1"]);
    t.run(&["SETRANGE", "j", "0", "1"]);
    t.run(&["INCR", "k"]);
    t.run(&["INCRBYFLOAT", "l", "1"]);
    for key in ["a", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"] {
        assert_eq!(expire_at(&t, key), Some(ttl), "{key}");
    }
    assert_eq!(expire_at(&t, "b"), Some(now + 5_000));
    // KEEPTTL and in-place changes keep an existing TTL; PERSIST removes it.
    t.advance(1_000);
    t.run(&["SET", "b", "2", "KEEPTTL"]);
    t.run(&["APPEND", "a", "2"]);
    t.run(&["INCR", "k"]);
    assert_eq!(expire_at(&t, "b"), Some(now + 5_000));
    assert_eq!(expire_at(&t, "a"), Some(ttl));
    assert_eq!(expire_at(&t, "k"), Some(ttl));
    t.run(&["GETEX", "a", "PERSIST"]);
    assert_eq!(expire_at(&t, "a"), Some(0));
    // A full overwrite without KEEPTTL starts the default TTL again.
    t.run(&["SET", "c", "2"]);
    assert_eq!(expire_at(&t, "c"), Some(t.now + 60_000));
    t.advance(60_000);
    assert_eq!(t.run(&["GET", "d"]), nil());
    assert_eq!(t.run(&["GET", "a"]), bulk("12"));
}

#[test]
fn lazy_expiry_counts_expired_keys() {
    use std::sync::atomic::Ordering::Relaxed;
    let mut t = engine();
    t.run(&["SET", "k", "v", "PX", "10"]);
    t.advance(10);
    assert_eq!(t.run(&["STRLEN", "k"]), int(0));
    assert_eq!(t.engine.stats().keyspace.expired_keys.load(Relaxed), 1);
    assert_eq!(t.engine.store().used_memory(), 0);
}

#[test]
fn memory_accounting_follows_every_write() {
    let mut t = engine();
    let used = |t: &TestEngine| t.engine.store().used_memory();
    assert_eq!(used(&t), 0);
    t.run(&["SET", "a", "x"]);
    let one = used(&t);
    assert!(one > 0);
    t.run(&["APPEND", "a", &"y".repeat(1000)]);
    let appended = used(&t);
    assert!(appended > one + 900);
    t.run(&["SETRANGE", "a", "5000", "z"]);
    assert!(used(&t) >= appended + 4000);
    t.run(&["SETRANGE", "a", "0", "abc"]);
    t.run(&["SET", "b", "v", "EX", "100"]);
    t.run(&["MSET", "c", "1", "d", "2"]);
    t.run(&["INCRBY", "e", "12345"]);
    t.run(&["INCRBYFLOAT", "f", "1.25"]);
    t.run(&["SETRANGE", "g", "100", "x"]);
    t.run(&["GETSET", "h", "old"]);
    t.run(&["GETSET", "h", "new"]);
    t.run(&["GETEX", "h", "EX", "50"]);
    t.run(&["GETEX", "h", "PERSIST"]);
    let before = used(&t);
    t.run(&["SET", "a", "small"]);
    assert!(used(&t) < before);
    for key in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        assert!(matches!(t.run(&["GETDEL", key]), Reply::Bulk(_)), "{key}");
    }
    assert_eq!(used(&t), 0);
    assert_eq!(t.engine.store().len(), 0);
    assert_eq!(t.engine.store().volatile_len(), 0);
}

#[test]
fn substr_is_getrange() {
    let mut t = engine();
    t.run(&["SET", "s", "Hello World"]);
    assert_eq!(t.run(&["SUBSTR", "s", "0", "4"]), bulk("Hello"));
    assert_eq!(t.run(&["SUBSTR", "s", "-5", "-1"]), bulk("World"));
    assert_eq!(t.run(&["SUBSTR", "missing", "0", "-1"]), bulk(""));
    assert_eq!(t.run(&["SUBSTR", "s", "x", "1"]), err(NOT_INT));
    t.run(&["RPUSH", "l", "a"]);
    assert_eq!(t.run(&["SUBSTR", "l", "0", "1"]), err(WRONGTYPE));
}

#[test]
fn lcs_answers_as_redis_does() {
    let mut t = engine();
    t.run(&["SET", "k1", "ohmytext"]);
    t.run(&["SET", "k2", "mynewtext"]);
    assert_eq!(t.run(&["LCS", "k1", "k2"]), bulk("mytext"));
    assert_eq!(t.run(&["LCS", "k1", "k2", "LEN"]), int(6));
    let range = |a: i64, b: i64, c: i64, d: i64| arr(vec![arr(vec![int(a), int(b)]), arr(vec![int(c), int(d)])]);
    assert_eq!(
        t.run(&["LCS", "k1", "k2", "IDX"]),
        Reply::Map(vec![(bulk("matches"), arr(vec![range(4, 7, 5, 8), range(2, 3, 0, 1)])), (bulk("len"), int(6)),])
    );
    let mut long = range(4, 7, 5, 8);
    if let Reply::Array(items) = &mut long {
        items.push(int(4));
    }
    assert_eq!(
        t.run(&["lcs", "k1", "k2", "idx", "minmatchlen", "4", "withmatchlen"]),
        Reply::Map(vec![(bulk("matches"), arr(vec![long])), (bulk("len"), int(6))])
    );
    // A negative minimum is no minimum.
    assert_eq!(t.run(&["LCS", "k1", "k2", "IDX", "MINMATCHLEN", "-3"]), t.run(&["LCS", "k1", "k2", "IDX"]));
    assert_eq!(
        t.run(&["LCS", "k1", "k2", "LEN", "IDX"]),
        err("ERR If you want both the length and indexes, please just use IDX.")
    );
    assert_eq!(t.run(&["LCS", "k1", "k2", "FOO"]), err(SYNTAX));
    assert_eq!(t.run(&["LCS", "k1", "k2", "MINMATCHLEN"]), err(SYNTAX));
    assert_eq!(t.run(&["LCS", "k1", "k2", "IDX", "MINMATCHLEN", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["LCS", "k1", "missing"]), bulk(""));
    assert_eq!(t.run(&["LCS", "k1", "missing", "LEN"]), int(0));
    t.run(&["RPUSH", "l", "a"]);
    assert_eq!(t.run(&["LCS", "k1", "l"]), err("ERR The specified keys must contain string values"));
    assert_eq!(t.run(&["LCS", "k1"]), err("ERR wrong number of arguments for 'lcs' command"));
}

#[test]
fn lcs_refuses_a_table_past_proto_max_bulk_len() {
    let mut t = engine();
    t.run(&["CONFIG", "SET", "proto-max-bulk-len", "1mb"]);
    let big = "a".repeat(1000);
    t.run(&["SET", "a", &big]);
    t.run(&["SET", "b", &big]);
    assert_eq!(
        t.run(&["LCS", "a", "b", "LEN"]),
        err("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
    );
}

#[test]
fn set_ifeq_and_ifne_compare_the_current_string() {
    let mut t = engine();
    // IFEQ on a missing key does not create it (Valkey 9, Redis 8.4); IFNE does.
    assert_eq!(t.run(&["SET", "k", "v1", "IFEQ", "x"]), nil());
    assert_eq!(t.run(&["EXISTS", "k"]), int(0));
    assert_eq!(t.run(&["SET", "k", "v1", "IFNE", "x"]), ok());
    assert_eq!(t.run(&["SET", "k", "v2", "IFEQ", "nope"]), nil());
    assert_eq!(t.run(&["GET", "k"]), bulk("v1"));
    assert_eq!(t.run(&["SET", "k", "v2", "ifeq", "v1", "EX", "100"]), ok());
    assert_eq!(t.run(&["GET", "k"]), bulk("v2"));
    assert_eq!(t.run(&["TTL", "k"]), int(100));
    assert_eq!(t.run(&["SET", "k", "v3", "IFNE", "v2"]), nil());
    assert_eq!(t.run(&["SET", "k", "v3", "IFNE", "other"]), ok());
    // With GET: the old value whether or not the write happened.
    assert_eq!(t.run(&["SET", "k", "v4", "IFEQ", "no", "GET"]), bulk("v3"));
    assert_eq!(t.run(&["SET", "k", "v4", "GET", "IFEQ", "v3"]), bulk("v3"));
    assert_eq!(t.run(&["GET", "k"]), bulk("v4"));
    assert_eq!(t.run(&["SET", "missing", "v", "IFEQ", "x", "GET"]), nil());
    assert_eq!(t.run(&["EXISTS", "missing"]), int(0));
    // A comparison needs a string, GET or not.
    t.run(&["RPUSH", "list", "a"]);
    assert_eq!(t.run(&["SET", "list", "v", "IFEQ", "a"]), err(WRONGTYPE));
    assert_eq!(t.run(&["SET", "list", "v", "IFNE", "a"]), err(WRONGTYPE));
    assert_eq!(t.run(&["TYPE", "list"]), Reply::Status("list".into()));
    // Conditions exclude each other; each needs its operand.
    for bad in [
        &["SET", "k", "v", "IFEQ", "a", "NX"][..],
        &["SET", "k", "v", "XX", "IFEQ", "a"],
        &["SET", "k", "v", "IFEQ", "a", "IFNE", "b"],
        &["SET", "k", "v", "IFEQ"],
        &["SET", "k", "v", "IFDEQ"],
    ] {
        assert_eq!(t.run(bad), err(SYNTAX), "{bad:?}");
    }
    assert_eq!(t.run(&["GET", "k"]), bulk("v4"));
}

#[test]
fn set_ifdeq_and_ifdne_compare_the_digest() {
    let mut t = engine();
    assert_eq!(t.run(&["SET", "k", "Hello world"]), ok());
    assert_eq!(t.run(&["DIGEST", "k"]), bulk("b6acb9d84a38ff74"));
    assert_eq!(t.run(&["SET", "k", "new", "IFDEQ", "0000000000000000"]), nil());
    // Only the digest's length is checked (Redis 8.4): 16 non-hex characters match nothing.
    assert_eq!(t.run(&["SET", "k", "new", "IFDEQ", "zzzzzzzzzzzzzzzz"]), nil());
    for bad in ["", "b6acb9d84a38ff7", "0b6acb9d84a38ff74"] {
        assert_eq!(t.run(&["SET", "k", "new", "IFDEQ", bad]), err(DIGEST_LEN), "{bad:?}");
        assert_eq!(t.run(&["SET", "k", "new", "IFDNE", bad, "GET"]), err(DIGEST_LEN), "{bad:?}");
    }
    assert_eq!(t.run(&["SET", "k", "new", "IFDNE", "b6acb9d84a38ff74"]), nil());
    // Hexadecimal, so the case of the digits does not matter.
    assert_eq!(t.run(&["SET", "k", "new", "IFDEQ", "B6ACB9D84A38FF74"]), ok());
    assert_eq!(t.run(&["GET", "k"]), bulk("new"));
    assert_eq!(t.run(&["SET", "k", "newer", "IFDNE", "b6acb9d84a38ff74"]), ok());
    assert_eq!(t.run(&["SET", "absent", "v", "IFDEQ", "b6acb9d84a38ff74"]), nil());
    assert_eq!(t.run(&["SET", "absent", "v", "IFDNE", "b6acb9d84a38ff74"]), ok());
    t.run(&["SADD", "set", "a"]);
    assert_eq!(t.run(&["SET", "set", "v", "IFDNE", "b6acb9d84a38ff74"]), err(WRONGTYPE));
}

#[test]
fn delifeq_delex_and_digest() {
    let mut t = engine();
    // DELIFEQ (Valkey 9): 1 when deleted, 0 when missing or different.
    assert_eq!(t.run(&["DELIFEQ", "k", "v"]), int(0));
    t.run(&["SET", "k", "v"]);
    assert_eq!(t.run(&["DELIFEQ", "k", "other"]), int(0));
    assert_eq!(t.run(&["DELIFEQ", "k", "v"]), int(1));
    assert_eq!(t.run(&["EXISTS", "k"]), int(0));
    t.run(&["HSET", "h", "f", "v"]);
    assert_eq!(t.run(&["DELIFEQ", "h", "v"]), err(WRONGTYPE));
    assert_eq!(t.run(&["DELIFEQ", "k"]), err("ERR wrong number of arguments for 'delifeq' command"));
    // DELEX (Redis 8.4): no condition deletes any type.
    assert_eq!(t.run(&["DELEX", "h"]), int(1));
    assert_eq!(t.run(&["DELEX", "h"]), int(0));
    t.run(&["SET", "k", "Hello world"]);
    assert_eq!(t.run(&["DELEX", "k", "IFEQ", "x"]), int(0));
    assert_eq!(t.run(&["DELEX", "k", "IFNE", "Hello world"]), int(0));
    assert_eq!(t.run(&["DELEX", "k", "IFDNE", "b6acb9d84a38ff74"]), int(0));
    assert_eq!(t.run(&["DELEX", "k", "IFDEQ", "b6acb9d84a38ff74"]), int(1));
    t.run(&["SET", "k", "a"]);
    assert_eq!(t.run(&["DELEX", "k", "ifne", "b"]), int(1));
    t.run(&["SET", "k", "a"]);
    assert_eq!(t.run(&["DELEX", "k", "IFEQ", "a"]), int(1));
    assert_eq!(t.run(&["DELEX", "missing", "IFNE", "a"]), int(0));
    // As Redis 8.4 checks: arity, a missing key (0 whatever the condition), the type, the
    // condition's name, the digest's length.
    let arity = err("ERR wrong number of arguments for 'delex' command");
    assert_eq!(t.run(&["DELEX", "missing", "IFEQ"]), arity);
    assert_eq!(t.run(&["DELEX", "missing", "IFEQ", "a", "b"]), arity);
    assert_eq!(t.run(&["DELEX", "missing", "FOO", "a"]), int(0));
    assert_eq!(t.run(&["DELEX", "missing", "IFDEQ", "short"]), int(0));
    t.run(&["RPUSH", "l", "a"]);
    let not_string = err("ERR Key should be of string type if conditions are specified");
    assert_eq!(t.run(&["DELEX", "l", "IFEQ", "a"]), not_string);
    assert_eq!(t.run(&["DELEX", "l", "FOO", "a"]), not_string);
    assert_eq!(t.run(&["EXISTS", "l"]), int(1));
    t.run(&["SET", "k", "hello"]);
    assert_eq!(t.run(&["DELEX", "k", "NX", "a"]), err("ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE"));
    assert_eq!(t.run(&["DELEX", "k", "IFDNE", "9555e8555c62dcf"]), err(DIGEST_LEN));
    assert_eq!(t.run(&["DELEX", "k", "IFDEQ", "zzzzzzzzzzzzzzzz"]), int(0));
    assert_eq!(t.run(&["DELEX", "k", "IFDNE", "9555E8555C62DCFD"]), int(0));
    assert_eq!(t.run(&["DELEX", "k", "IFDEQ", "9555E8555C62DCFD"]), int(1));
    // A counter compares as its decimal text, byte for byte.
    t.run(&["SET", "n", "0123"]);
    assert_eq!(t.run(&["DELEX", "n", "IFEQ", "123"]), int(0));
    assert_eq!(t.run(&["DELEX", "n", "IFNE", "123"]), int(1));
    // DIGEST: nil when missing, WRONGTYPE on another type.
    assert_eq!(t.run(&["DIGEST", "missing"]), nil());
    assert_eq!(t.run(&["DIGEST", "l"]), err(WRONGTYPE));
    t.run(&["SET", "n", "12345"]);
    assert_eq!(t.run(&["DIGEST", "n"]), bulk(&super::conditional::digest(b"12345")));
}

#[test]
fn a_conditional_write_that_does_nothing_keeps_a_watch() {
    let mut t = engine();
    t.run(&["SET", "k", "v"]);
    for refused in [
        &["SET", "k", "x", "NX"][..],
        &["SET", "k", "x", "IFEQ", "other"],
        &["SET", "k", "x", "IFNE", "v", "GET"],
        &["DELIFEQ", "k", "other"],
        &["DELEX", "k", "IFDEQ", "0000000000000000"],
    ] {
        t.run(&["WATCH", "k"]);
        t.run(refused);
        t.run(&["MULTI"]);
        t.run(&["PING"]);
        assert_eq!(t.run(&["EXEC"]), arr(vec![Reply::Status("PONG".into())]), "{refused:?}");
    }
    t.run(&["WATCH", "k"]);
    assert_eq!(t.run(&["DELEX", "k", "IFEQ", "v"]), int(1));
    t.run(&["MULTI"]);
    t.run(&["PING"]);
    assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
}
