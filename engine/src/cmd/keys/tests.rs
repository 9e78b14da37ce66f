//! Unit tests of the generic keyspace commands, the EXPIRE and TTL families, the keyspace walks
//! and flushes, and the OBJECT and MEMORY subcommands.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering::Relaxed;

use super::*;
use crate::config::Config;
use crate::store::entry::{Value, ValueRef};
use crate::store::node::embedded_size;
use crate::testing::{arr, bulk, err, int, nil, ok, TestEngine, NOT_INT};

/// Creates a string key straight in the store, so these tests do not depend on SET.
/// `expire_at` is unix ms, 0 for no TTL.
fn put(t: &TestEngine, key: &str, val: &str, expire_at: u64) {
    let mut locked = t.engine.store().lock_keys(0, [key.as_bytes()]);
    locked.shard(key.as_bytes()).insert(key.as_bytes(), Value::Str(val.as_bytes().to_vec()), expire_at, t.now);
}

/// A key's string value, read without touching it.
#[allow(unreachable_patterns)]
fn value(t: &TestEngine, key: &str) -> Option<Vec<u8>> {
    let mut locked = t.engine.store().lock_keys(0, [key.as_bytes()]);
    locked.peek(key.as_bytes(), t.now).and_then(|e| match e.value {
        ValueRef::Str(s) => Some(s.to_vec()),
        _ => None,
    })
}

fn size_of(t: &TestEngine, key: &str) -> Option<usize> {
    let mut locked = t.engine.store().lock_keys(0, [key.as_bytes()]);
    locked.shard(key.as_bytes()).size_of(key.as_bytes(), t.now)
}

fn status(s: &str) -> Reply {
    Reply::Status(s.into())
}

fn names(items: &[Reply]) -> Vec<String> {
    let mut out: Vec<String> = items
        .iter()
        .map(|r| match r {
            Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
            other => panic!("not a bulk string: {other:?}"),
        })
        .collect();
    out.sort();
    out
}

/// The key names of an array reply, sorted.
fn sorted(reply: Reply) -> Vec<String> {
    match reply {
        Reply::Array(items) => names(&items),
        other => panic!("not an array: {other:?}"),
    }
}

/// Splits a SCAN reply into (next cursor, keys).
fn scan_step(t: &mut TestEngine, argv: &[&str]) -> (String, Vec<String>) {
    match t.run(argv) {
        Reply::Array(mut parts) if parts.len() == 2 => {
            let keys = match parts.pop() {
                Some(Reply::Array(items)) => names(&items),
                other => panic!("bad keys: {other:?}"),
            };
            let cursor = match parts.pop() {
                Some(Reply::Bulk(c)) => String::from_utf8_lossy(&c).into_owned(),
                other => panic!("bad cursor: {other:?}"),
            };
            (cursor, keys)
        }
        other => panic!("bad SCAN reply: {other:?}"),
    }
}

/// Runs a full SCAN iteration with the given options; returns every key seen and how
/// many calls it took.
fn scan_all(t: &mut TestEngine, opts: &[&str]) -> (Vec<String>, usize) {
    let mut cursor = "0".to_string();
    let mut seen = Vec::new();
    let mut calls = 0;
    loop {
        let mut argv = vec!["SCAN", cursor.as_str()];
        argv.extend_from_slice(opts);
        let (next, keys) = scan_step(t, &argv);
        seen.extend(keys);
        calls += 1;
        assert!(calls < 100_000, "SCAN never finished");
        if next == "0" {
            break;
        }
        cursor = next;
    }
    seen.sort();
    (seen, calls)
}

fn lfu_engine() -> TestEngine {
    let config = Config::default();
    config.set("maxmemory-policy", "allkeys-lfu").unwrap();
    TestEngine::new(config)
}

// DEL, UNLINK, EXISTS, TYPE

#[test]
fn del_counts_existing_keys_once() {
    let mut t = TestEngine::default();
    put(&t, "a", "1", 0);
    put(&t, "b", "2", 0);
    assert_eq!(t.run(&["DEL", "a", "a", "b", "missing"]), int(2));
    assert_eq!(t.run(&["DEL", "a"]), int(0));
    assert_eq!(t.run(&["DBSIZE"]), int(0));
    assert_eq!(t.engine.store().used_memory(), 0);
}

#[test]
fn del_of_an_expired_key_answers_zero() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", t.now + 100);
    t.advance(100);
    assert_eq!(t.run(&["DEL", "k"]), int(0));
    assert_eq!(t.engine.store().used_memory(), 0);
}

#[test]
fn unlink_deletes_like_del() {
    let mut t = TestEngine::default();
    put(&t, "a", "1", 0);
    put(&t, "b", "2", t.now + 10);
    t.advance(10);
    assert_eq!(t.run(&["UNLINK", "a", "b", "c"]), int(1));
    assert_eq!(t.run(&["EXISTS", "a"]), int(0));
    assert_eq!(t.run(&["UNLINK"]), err("ERR wrong number of arguments for 'unlink' command"));
}

#[test]
fn exists_counts_duplicates_and_ignores_expired_keys() {
    let mut t = TestEngine::default();
    put(&t, "a", "1", 0);
    put(&t, "gone", "1", t.now + 5);
    assert_eq!(t.run(&["EXISTS", "a", "a", "b"]), int(2));
    assert_eq!(t.run(&["EXISTS", "gone"]), int(1));
    t.advance(5);
    assert_eq!(t.run(&["EXISTS", "gone"]), int(0));
}

#[test]
fn type_answers_string_or_none() {
    let mut t = TestEngine::default();
    put(&t, "s", "hello", 0);
    assert_eq!(t.run(&["TYPE", "s"]), status("string"));
    assert_eq!(t.run(&["TYPE", "nope"]), status("none"));
    assert_eq!(t.resp(&["TYPE", "s"]), "+string\r\n");
}

// EXPIRE family, TTL family, PERSIST

#[test]
fn expire_sets_a_ttl_and_the_key_expires_on_time() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["EXPIRE", "k", "10"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(10));
    assert_eq!(t.run(&["PTTL", "k"]), int(10_000));
    t.advance(9_999);
    assert_eq!(t.run(&["PTTL", "k"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(0));
    t.advance(1);
    assert_eq!(t.run(&["TTL", "k"]), int(-2));
    assert_eq!(t.run(&["PTTL", "k"]), int(-2));
    assert_eq!(t.run(&["EXISTS", "k"]), int(0));
    assert_eq!(t.run(&["EXPIRE", "k", "10"]), int(0));
    assert_eq!(t.engine.store().used_memory(), 0);
}

#[test]
fn ttl_rounds_to_the_nearest_second() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["PEXPIRE", "k", "1500"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(2));
    assert_eq!(t.run(&["PEXPIRE", "k", "1499"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(1));
    assert_eq!(t.run(&["PEXPIRE", "k", "499"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(0));
}

#[test]
fn ttl_family_on_missing_and_persistent_keys() {
    let mut t = TestEngine::default();
    put(&t, "forever", "v", 0);
    for cmd in ["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"] {
        assert_eq!(t.run(&[cmd, "missing"]), int(-2), "{cmd}");
        assert_eq!(t.run(&[cmd, "forever"]), int(-1), "{cmd}");
    }
}

#[test]
fn expire_on_a_missing_key_answers_zero() {
    let mut t = TestEngine::default();
    for cmd in ["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"] {
        assert_eq!(t.run(&[cmd, "missing", "100"]), int(0), "{cmd}");
    }
    assert_eq!(t.run(&["DBSIZE"]), int(0));
}

#[test]
fn expireat_and_pexpireat_set_absolute_times() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    let at_s = (t.now / 1000 + 100) as i64;
    assert_eq!(t.run(&["EXPIREAT", "k", &at_s.to_string()]), int(1));
    assert_eq!(t.run(&["EXPIRETIME", "k"]), int(at_s));
    assert_eq!(t.run(&["PEXPIRETIME", "k"]), int(at_s * 1000));
    assert_eq!(t.run(&["TTL", "k"]), int(100));

    let at_ms = t.now as i64 + 1_234;
    assert_eq!(t.run(&["PEXPIREAT", "k", &at_ms.to_string()]), int(1));
    assert_eq!(t.run(&["PEXPIRETIME", "k"]), int(at_ms));
    assert_eq!(t.run(&["EXPIRETIME", "k"]), int((at_ms + 500) / 1000));
    assert_eq!(t.run(&["PTTL", "k"]), int(1_234));
    t.advance(1_234);
    assert_eq!(t.run(&["EXISTS", "k"]), int(0));
}

#[test]
fn an_expire_time_in_the_past_deletes_the_key() {
    let mut t = TestEngine::default();
    let now_ms = t.now.to_string();
    let cases: [&[&str]; 5] = [
        &["EXPIRE", "k", "-1"],
        &["EXPIRE", "k", "0"],
        &["PEXPIRE", "k", "0"],
        &["EXPIREAT", "k", "1"],
        &["PEXPIREAT", "k", &now_ms],
    ];
    for argv in cases {
        put(&t, "k", "v", 0);
        assert_eq!(t.run(argv), int(1), "{argv:?}");
        assert_eq!(t.run(&["EXISTS", "k"]), int(0), "{argv:?}");
        assert_eq!(t.engine.store().used_memory(), 0, "{argv:?}");
    }
    // One millisecond ahead is still in the future.
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["PEXPIREAT", "k", &(t.now + 1).to_string()]), int(1));
    assert_eq!(t.run(&["PTTL", "k"]), int(1));
}

#[test]
fn nx_and_xx_conditions() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["EXPIRE", "k", "100", "XX"]), int(0));
    assert_eq!(t.run(&["TTL", "k"]), int(-1));
    assert_eq!(t.run(&["EXPIRE", "k", "100", "NX"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(100));
    assert_eq!(t.run(&["EXPIRE", "k", "200", "nx"]), int(0));
    assert_eq!(t.run(&["TTL", "k"]), int(100));
    assert_eq!(t.run(&["PEXPIRE", "k", "200000", "xx"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(200));
}

#[test]
fn gt_and_lt_conditions() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    // No TTL counts as infinite: nothing is greater, everything is less.
    assert_eq!(t.run(&["EXPIRE", "k", "100", "GT"]), int(0));
    assert_eq!(t.run(&["TTL", "k"]), int(-1));
    assert_eq!(t.run(&["EXPIRE", "k", "100", "LT"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(100));
    assert_eq!(t.run(&["EXPIRE", "k", "100", "GT"]), int(0));
    assert_eq!(t.run(&["EXPIRE", "k", "100", "LT"]), int(0));
    assert_eq!(t.run(&["EXPIRE", "k", "50", "GT"]), int(0));
    assert_eq!(t.run(&["EXPIRE", "k", "150", "gt"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(150));
    assert_eq!(t.run(&["EXPIRE", "k", "200", "LT"]), int(0));
    assert_eq!(t.run(&["EXPIRE", "k", "60", "lt"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(60));
    // XX combines with GT and LT.
    assert_eq!(t.run(&["EXPIRE", "k", "70", "XX", "GT"]), int(1));
    assert_eq!(t.run(&["EXPIRE", "k", "65", "LT", "XX"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(65));
    // EXPIREAT compares absolute times the same way.
    let later = (t.now / 1000 + 1000).to_string();
    assert_eq!(t.run(&["EXPIREAT", "k", &later, "GT"]), int(1));
    assert_eq!(t.run(&["EXPIRETIME", "k"]), int((t.now / 1000 + 1000) as i64));
}

#[test]
fn conditions_are_checked_before_a_past_time_deletes() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["EXPIRE", "k", "-5", "GT"]), int(0));
    assert_eq!(t.run(&["EXPIRE", "k", "-5", "XX"]), int(0));
    assert_eq!(t.run(&["EXISTS", "k"]), int(1));
    assert_eq!(t.run(&["EXPIRE", "k", "-5", "LT"]), int(1));
    assert_eq!(t.run(&["EXISTS", "k"]), int(0));
}

#[test]
fn expire_option_errors() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    let nx_err = err("ERR NX and XX, GT or LT options at the same time are not compatible");
    for other in ["XX", "GT", "LT"] {
        assert_eq!(t.run(&["EXPIRE", "k", "10", "NX", other]), nx_err, "{other}");
        assert_eq!(t.run(&["PEXPIREAT", "k", "10", other, "nx"]), nx_err, "{other}");
    }
    assert_eq!(
        t.run(&["EXPIRE", "k", "10", "GT", "LT"]),
        err("ERR GT and LT options at the same time are not compatible")
    );
    assert_eq!(t.run(&["EXPIRE", "k", "10", "GT", "foo"]), err("ERR Unsupported option foo"));
    assert_eq!(t.run(&["PEXPIRE", "k", "10", "KEEPTTL"]), err("ERR Unsupported option KEEPTTL"));
    // Quoted as Redis's `%s` prints it: up to a NUL byte.
    assert_eq!(t.run(&["EXPIRE", "k", "10", "F\0OO"]), err("ERR Unsupported option F"));
    assert_eq!(t.run(&["EXPIRE", "k", "10", "a\rb\r\n"]), err("ERR Unsupported option a\rb"));
    assert_eq!(t.run(&["EXPIRE", "k", "10", "a\r\0b"]), err("ERR Unsupported option a"));
    // Options are checked before the number, as in Redis.
    assert_eq!(t.run(&["EXPIRE", "k", "abc", "NX", "XX"]), nx_err);
    assert_eq!(t.run(&["EXPIRE", "k", "abc"]), err(NOT_INT));
    assert_eq!(t.run(&["EXPIRE", "k", "1.5"]), err(NOT_INT));
    assert_eq!(t.run(&["PEXPIREAT", "k", ""]), err(NOT_INT));
    assert_eq!(t.run(&["EXPIREAT", "k", "99999999999999999999"]), err(NOT_INT));
    assert_eq!(t.run(&["EXPIRE", "k"]), err("ERR wrong number of arguments for 'expire' command"));
    assert_eq!(t.run(&["TTL", "k"]), int(-1));
}

#[test]
fn expire_overflow_is_an_invalid_expire_time() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    let max = i64::MAX.to_string();
    let min = i64::MIN.to_string();
    assert_eq!(t.run(&["EXPIRE", "k", &max]), err("ERR invalid expire time in 'expire' command"));
    assert_eq!(t.run(&["EXPIRE", "k", &min]), err("ERR invalid expire time in 'expire' command"));
    assert_eq!(t.run(&["EXPIREAT", "k", &max]), err("ERR invalid expire time in 'expireat' command"));
    assert_eq!(t.run(&["PEXPIRE", "k", &max]), err("ERR invalid expire time in 'pexpire' command"));
    // Seconds that fit after * 1000 but not once now is added.
    let edge = (i64::MAX / 1000).to_string();
    assert_eq!(t.run(&["EXPIRE", "k", &edge]), err("ERR invalid expire time in 'expire' command"));
    // The check comes before the key lookup.
    assert_eq!(t.run(&["EXPIRE", "missing", &max]), err("ERR invalid expire time in 'expire' command"));
    assert_eq!(t.run(&["TTL", "k"]), int(-1));
    // PEXPIREAT adds nothing, so the largest time is fine.
    assert_eq!(t.run(&["PEXPIREAT", "k", &max]), int(1));
    assert_eq!(t.run(&["PEXPIRETIME", "k"]), int(i64::MAX));
    assert_eq!(t.run(&["EXPIREAT", "k", &edge]), int(1));
    assert_eq!(t.run(&["PEXPIRETIME", "k"]), int(i64::MAX / 1000 * 1000));
}

#[test]
fn persist_removes_the_ttl_and_its_accounting() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    let plain = t.engine.store().used_memory();
    assert_eq!(t.run(&["PERSIST", "missing"]), int(0));
    assert_eq!(t.run(&["PERSIST", "k"]), int(0));
    assert_eq!(t.run(&["EXPIRE", "k", "100"]), int(1));
    assert!(t.engine.store().used_memory() > plain);
    assert_eq!(t.engine.store().volatile_len(), 1);
    assert_eq!(t.run(&["PERSIST", "k"]), int(1));
    assert_eq!(t.run(&["TTL", "k"]), int(-1));
    assert_eq!(t.engine.store().used_memory(), plain);
    assert_eq!(t.engine.store().volatile_len(), 0);
    t.advance(200_000);
    assert_eq!(t.run(&["EXISTS", "k"]), int(1));
}

#[test]
fn ttl_inspection_does_not_touch_the_key() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", t.now + 60_000);
    t.advance(5_000);
    for cmd in ["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "TYPE", "EXISTS"] {
        t.run(&[cmd, "k"]);
    }
    t.run(&["OBJECT", "ENCODING", "k"]);
    assert_eq!(t.run(&["OBJECT", "IDLETIME", "k"]), int(5));
}

// RENAME, RENAMENX

#[test]
fn rename_moves_the_value_and_keeps_the_ttl_and_accounting() {
    let mut t = TestEngine::default();
    put(&t, "a", "value", t.now + 10_000);
    let before = t.engine.store().used_memory();
    t.advance(1_000);
    assert_eq!(t.run(&["RENAME", "a", "b"]), ok());
    assert_eq!(t.run(&["EXISTS", "a"]), int(0));
    assert_eq!(value(&t, "b").as_deref(), Some(&b"value"[..]));
    assert_eq!(t.run(&["PTTL", "b"]), int(9_000));
    // "a" and "b" take the same allocation, so nothing changes.
    assert_eq!(t.engine.store().used_memory(), before);
    assert_eq!(t.engine.store().volatile_len(), 1);
    t.advance(9_000);
    assert_eq!(t.run(&["EXISTS", "b"]), int(0));
    assert_eq!(t.engine.store().used_memory(), 0);
    assert_eq!(t.engine.store().volatile_len(), 0);
}

#[test]
fn rename_accounts_for_a_longer_name() {
    let mut t = TestEngine::default();
    let long = "x".repeat(100);
    put(&t, "a", "value", t.now + 10_000);
    let before = t.engine.store().used_memory();
    assert_eq!(t.run(&["RENAME", "a", &long]), ok());
    // The key lives in the entry's node, which grows to hold it.
    let growth = embedded_size(100, 5, true) - embedded_size(1, 5, true);
    assert_eq!(t.engine.store().used_memory(), before + growth);
    assert_eq!(Some(t.engine.store().used_memory()), size_of(&t, &long));
}

#[test]
fn rename_overwrites_the_destination() {
    let mut t = TestEngine::default();
    put(&t, "src", "new", 0);
    put(&t, "dst", &"old".repeat(100), t.now + 5_000);
    let src_size = size_of(&t, "src").unwrap();
    assert_eq!(t.run(&["RENAME", "src", "dst"]), ok());
    assert_eq!(value(&t, "dst").as_deref(), Some(&b"new"[..]));
    // The destination's TTL went with its old value.
    assert_eq!(t.run(&["TTL", "dst"]), int(-1));
    assert_eq!(t.engine.store().volatile_len(), 0);
    assert_eq!(t.engine.store().used_memory(), src_size);
    assert_eq!(t.run(&["DBSIZE"]), int(1));
}

#[test]
fn rename_errors_and_renaming_to_itself() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["RENAME", "missing", "x"]), err("ERR no such key"));
    assert_eq!(t.run(&["RENAME", "missing", "missing"]), err("ERR no such key"));
    assert_eq!(t.run(&["RENAMENX", "missing", "x"]), err("ERR no such key"));
    put(&t, "k", "v", t.now + 100);
    assert_eq!(t.run(&["RENAME", "k", "k"]), ok());
    assert_eq!(t.run(&["RENAMENX", "k", "k"]), int(0));
    assert_eq!(t.run(&["PTTL", "k"]), int(100));
    t.advance(100);
    assert_eq!(t.run(&["RENAME", "k", "other"]), err("ERR no such key"));
    assert_eq!(t.run(&["EXISTS", "other"]), int(0));
}

#[test]
fn rename_keeps_the_access_history() {
    let mut t = lfu_engine();
    put(&t, "hot", "v", 0);
    {
        let mut locked = t.engine.store().lock_keys(0, [&b"hot"[..]]);
        let e = locked.peek(b"hot", t.now).unwrap();
        let stamps = crate::store::node::Stamps { seq: e.seq, atime: e.atime, lfu: 200, lfu_ldt: e.lfu_ldt };
        locked.shard(b"hot").set_stamps(b"hot", stamps);
    }
    assert_eq!(t.run(&["RENAME", "hot", "renamed"]), ok());
    match t.run(&["OBJECT", "FREQ", "renamed"]) {
        Reply::Int(n) => assert!(n >= 200, "LFU counter lost: {n}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn renamenx_only_when_the_target_is_free() {
    let mut t = TestEngine::default();
    put(&t, "a", "1", t.now + 10_000);
    put(&t, "b", "2", 0);
    let before = t.engine.store().used_memory();
    assert_eq!(t.run(&["RENAMENX", "a", "b"]), int(0));
    assert_eq!(value(&t, "a").as_deref(), Some(&b"1"[..]));
    assert_eq!(value(&t, "b").as_deref(), Some(&b"2"[..]));
    assert_eq!(t.engine.store().used_memory(), before);
    assert_eq!(t.run(&["RENAMENX", "a", "c"]), int(1));
    assert_eq!(t.run(&["EXISTS", "a"]), int(0));
    assert_eq!(value(&t, "c").as_deref(), Some(&b"1"[..]));
    assert_eq!(t.run(&["PTTL", "c"]), int(10_000));
    // An expired target counts as free.
    put(&t, "d", "4", t.now + 1);
    t.advance(1);
    assert_eq!(t.run(&["RENAMENX", "c", "d"]), int(1));
}

// KEYS, SCAN, RANDOMKEY, DBSIZE

#[test]
fn keys_matches_glob_patterns() {
    let mut t = TestEngine::default();
    for k in ["user:1", "user:2", "user:10", "admin:1", "hello", "hallo", "a*b"] {
        put(&t, k, "v", 0);
    }
    put(&t, "user:gone", "v", t.now + 1);
    t.advance(1);
    assert_eq!(sorted(t.run(&["KEYS", "*"])).len(), 7);
    assert_eq!(sorted(t.run(&["KEYS", "user:*"])), ["user:1", "user:10", "user:2"]);
    assert_eq!(sorted(t.run(&["KEYS", "user:?"])), ["user:1", "user:2"]);
    assert_eq!(sorted(t.run(&["KEYS", "*:1"])), ["admin:1", "user:1"]);
    assert_eq!(sorted(t.run(&["KEYS", "h[ae]llo"])), ["hallo", "hello"]);
    assert_eq!(sorted(t.run(&["KEYS", "h[^e]llo"])), ["hallo"]);
    assert_eq!(sorted(t.run(&["KEYS", "a\\*b"])), ["a*b"]);
    assert_eq!(t.run(&["KEYS", "nomatch*"]), arr(vec![]));
    assert_eq!(t.run(&["KEYS"]), err("ERR wrong number of arguments for 'keys' command"));
}

#[test]
fn scan_returns_every_key_across_a_full_iteration() {
    let mut t = TestEngine::default();
    let all: Vec<String> = (0..1000).map(|i| format!("key:{i}")).collect();
    for k in &all {
        put(&t, k, "v", 0);
    }
    let mut expected = all.clone();
    expected.sort();
    let (seen, calls) = scan_all(&mut t, &["COUNT", "7"]);
    assert_eq!(seen, expected);
    assert!(calls > 100, "COUNT 7 should take many calls, took {calls}");
    let (seen, _) = scan_all(&mut t, &[]);
    assert_eq!(seen, expected);
    let (seen, calls) = scan_all(&mut t, &["COUNT", "100000"]);
    assert_eq!(seen, expected);
    assert_eq!(calls, 1);
}

#[test]
fn scan_survives_deletions_during_the_iteration() {
    let mut t = TestEngine::default();
    for i in 0..500 {
        put(&t, &format!("k{i}"), "v", 0);
    }
    let mut cursor = "0".to_string();
    let mut seen = BTreeSet::new();
    let mut deleted = 0;
    loop {
        let (next, keys) = scan_step(&mut t, &["SCAN", &cursor, "COUNT", "10"]);
        seen.extend(keys);
        // Delete keys (odd numbers) that may or may not have been returned yet.
        if deleted < 250 {
            let k = format!("k{}", deleted * 2 + 1);
            assert_eq!(t.run(&["DEL", &k]), int(1));
            deleted += 1;
        }
        if next == "0" {
            break;
        }
        cursor = next;
    }
    for i in (0..500).step_by(2) {
        assert!(seen.contains(&format!("k{i}")), "k{i} was never returned");
    }
}

#[test]
fn scan_match_and_type_filters() {
    let mut t = TestEngine::default();
    for i in 0..200 {
        put(&t, &format!("user:{i}"), "v", 0);
        put(&t, &format!("item:{i}"), "v", 0);
    }
    put(&t, "user:expired", "v", t.now + 1);
    t.advance(1);
    let (seen, _) = scan_all(&mut t, &["MATCH", "user:*", "COUNT", "13"]);
    assert_eq!(seen.len(), 200);
    assert!(seen.iter().all(|k| k.starts_with("user:")));
    let (seen, _) = scan_all(&mut t, &["MATCH", "item:1?", "COUNT", "50"]);
    assert_eq!(seen, (10..20).map(|i| format!("item:{i}")).collect::<Vec<_>>());
    let (seen, _) = scan_all(&mut t, &["TYPE", "string"]);
    assert_eq!(seen.len(), 400);
    let (seen, _) = scan_all(&mut t, &["type", "STRING", "match", "*:199"]);
    assert_eq!(seen, ["item:199", "user:199"]);
    let (seen, _) = scan_all(&mut t, &["TYPE", "hash"]);
    assert!(seen.is_empty());
    let (seen, _) = scan_all(&mut t, &["TYPE", "nosuchtype"]);
    assert!(seen.is_empty());
    // A later option of the same name wins.
    let (seen, _) = scan_all(&mut t, &["MATCH", "user:*", "MATCH", "*"]);
    assert_eq!(seen.len(), 400);
}

#[test]
fn scan_reply_shape_and_cursor_parsing() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["SCAN", "0"]), arr(vec![bulk("0"), arr(vec![])]));
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["SCAN", "0"]), arr(vec![bulk("0"), arr(vec![bulk("k")])]));
    // Any unsigned 64-bit cursor is accepted; one past the end answers an empty step.
    assert_eq!(t.run(&["SCAN", "18446744073709551615"]), arr(vec![bulk("0"), arr(vec![])]));
    assert_eq!(t.run(&["SCAN", "+0"]), arr(vec![bulk("0"), arr(vec![bulk("k")])]));
    assert_eq!(t.run(&["SCAN", "00"]), arr(vec![bulk("0"), arr(vec![bulk("k")])]));
    // strtoul reads an empty string as 0, so Redis starts a new iteration.
    assert_eq!(t.run(&["SCAN", ""]), arr(vec![bulk("0"), arr(vec![bulk("k")])]));
    for bad in ["abc", "18446744073709551616", " 1", "1 ", "1.0", "+", "0x10"] {
        assert_eq!(t.run(&["SCAN", bad]), err("ERR invalid cursor"), "{bad:?}");
    }
}

#[test]
fn scan_option_errors() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["SCAN", "0", "COUNT", "0"]), err("ERR syntax error"));
    assert_eq!(t.run(&["SCAN", "0", "COUNT", "-1"]), err("ERR syntax error"));
    assert_eq!(t.run(&["SCAN", "0", "COUNT", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["SCAN", "0", "COUNT"]), err("ERR syntax error"));
    assert_eq!(t.run(&["SCAN", "0", "MATCH"]), err("ERR syntax error"));
    assert_eq!(t.run(&["SCAN", "0", "TYPE"]), err("ERR syntax error"));
    assert_eq!(t.run(&["SCAN", "0", "FOO", "bar"]), err("ERR syntax error"));
    assert_eq!(t.run(&["SCAN", "0", "MATCH", "*", "extra"]), err("ERR syntax error"));
    // The cursor is checked first.
    assert_eq!(t.run(&["SCAN", "x", "COUNT", "0"]), err("ERR invalid cursor"));
    assert_eq!(t.run(&["SCAN"]), err("ERR wrong number of arguments for 'scan' command"));
}

#[test]
fn randomkey_picks_a_live_key_or_nil() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["RANDOMKEY"]), nil());
    put(&t, "only", "v", t.now + 10);
    assert_eq!(t.run(&["RANDOMKEY"]), bulk("only"));
    t.advance(10);
    assert_eq!(t.run(&["RANDOMKEY"]), nil());
    let keys = ["a", "b", "c", "d"];
    for k in keys {
        put(&t, k, "v", 0);
    }
    let mut seen = BTreeSet::new();
    for _ in 0..200 {
        match t.run(&["RANDOMKEY"]) {
            Reply::Bulk(k) => {
                seen.insert(String::from_utf8(k).unwrap());
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(seen, keys.iter().map(|k| k.to_string()).collect());
}

#[test]
fn dbsize_counts_keys() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["DBSIZE"]), int(0));
    for i in 0..10 {
        put(&t, &format!("k{i}"), "v", 0);
    }
    assert_eq!(t.run(&["DBSIZE"]), int(10));
    t.run(&["DEL", "k0", "k1"]);
    assert_eq!(t.run(&["DBSIZE"]), int(8));
    assert_eq!(t.run(&["DBSIZE", "x"]), err("ERR wrong number of arguments for 'dbsize' command"));
}

// FLUSHDB, FLUSHALL

#[test]
fn flushes_empty_the_keyspace_and_its_accounting() {
    let mut t = TestEngine::default();
    for cmd in [
        &["FLUSHALL"][..],
        &["FLUSHALL", "ASYNC"],
        &["FLUSHALL", "sync"],
        &["FLUSHDB"],
        &["FLUSHDB", "async"],
        &["FLUSHDB", "SYNC"],
    ] {
        for i in 0..50 {
            put(&t, &format!("k{i}"), "value", if i % 2 == 0 { t.now + 1000 } else { 0 });
        }
        assert!(t.engine.store().used_memory() > 0);
        assert_eq!(t.run(cmd), ok(), "{cmd:?}");
        assert_eq!(t.engine.store().used_memory(), 0, "{cmd:?}");
        assert_eq!(t.engine.store().volatile_len(), 0, "{cmd:?}");
        assert_eq!(t.run(&["DBSIZE"]), int(0), "{cmd:?}");
    }
}

#[test]
fn flush_option_errors() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    for cmd in ["FLUSHALL", "FLUSHDB"] {
        assert_eq!(t.run(&[cmd, "NOW"]), err("ERR syntax error"));
        assert_eq!(t.run(&[cmd, "ASYNC", "SYNC"]), err("ERR syntax error"));
        assert_eq!(t.run(&[cmd, "SYNC", "SYNC"]), err("ERR syntax error"));
    }
    assert_eq!(t.run(&["DBSIZE"]), int(1));
}

// TOUCH

#[test]
fn touch_counts_existing_keys_and_resets_idle_time() {
    let mut t = TestEngine::default();
    put(&t, "a", "1", 0);
    put(&t, "b", "2", t.now + 1_000);
    t.advance(3_000);
    assert_eq!(t.run(&["OBJECT", "IDLETIME", "a"]), int(3));
    let hits = t.engine.stats().keyspace.hits.load(Relaxed);
    let misses = t.engine.stats().keyspace.misses.load(Relaxed);
    assert_eq!(t.run(&["TOUCH", "a", "a", "b", "c"]), int(2));
    assert_eq!(t.engine.stats().keyspace.hits.load(Relaxed), hits + 2);
    assert_eq!(t.engine.stats().keyspace.misses.load(Relaxed), misses + 2);
    assert_eq!(t.run(&["OBJECT", "IDLETIME", "a"]), int(0));
    t.advance(2_500);
    assert_eq!(t.run(&["OBJECT", "IDLETIME", "a"]), int(2));
}

// OBJECT

#[test]
fn object_encoding_refcount_and_missing_keys() {
    let mut t = TestEngine::default();
    put(&t, "int", "12345", 0);
    put(&t, "short", "hello", 0);
    put(&t, "long", &"x".repeat(45), 0);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "int"]), bulk("int"));
    assert_eq!(t.run(&["object", "encoding", "short"]), bulk("embstr"));
    assert_eq!(t.run(&["OBJECT", "ENCODING", "long"]), bulk("raw"));
    assert_eq!(t.run(&["OBJECT", "REFCOUNT", "short"]), int(1));
    for sub in ["ENCODING", "REFCOUNT", "IDLETIME", "FREQ"] {
        assert_eq!(t.run(&["OBJECT", sub, "missing"]), nil(), "{sub}");
    }
}

#[test]
fn object_idletime_and_freq_depend_on_the_policy() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    t.advance(61_999);
    assert_eq!(t.run(&["OBJECT", "IDLETIME", "k"]), int(61));
    assert_eq!(
        t.run(&["OBJECT", "FREQ", "k"]),
        err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
    );

    let mut t = lfu_engine();
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["OBJECT", "FREQ", "k"]), int(5));
    assert_eq!(
        t.run(&["OBJECT", "IDLETIME", "k"]),
        err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
    );
    for _ in 0..50 {
        t.run(&["TOUCH", "k"]);
    }
    match t.run(&["OBJECT", "FREQ", "k"]) {
        Reply::Int(n) => assert!(n > 5, "50 touches should raise the counter, got {n}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn object_help_and_errors() {
    let mut t = TestEngine::default();
    match t.run(&["OBJECT", "HELP"]) {
        Reply::Array(lines) => {
            assert_eq!(lines[0], status("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
            assert_eq!(lines[lines.len() - 2], status("HELP"));
            assert!(lines.contains(&status("FREQ <key>")));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(t.run(&["OBJECT", "HELP", "x"]), err("ERR wrong number of arguments for 'object|help' command"));
    assert_eq!(t.run(&["OBJECT", "ENCODING"]), err("ERR wrong number of arguments for 'object|encoding' command"));
    assert_eq!(t.run(&["OBJECT", "freq", "a", "b"]), err("ERR wrong number of arguments for 'object|freq' command"));
    assert_eq!(t.run(&["OBJECT", "foo", "k"]), err("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
    // As Redis's `%.128s`: cut at a NUL byte, and at 128 bytes.
    assert_eq!(t.run(&["OBJECT", "EN\0C", "k"]), err("ERR unknown subcommand 'EN'. Try OBJECT HELP."));
    let long = "e".repeat(200);
    let want = format!("ERR unknown subcommand '{}'. Try OBJECT HELP.", &long[..128]);
    assert_eq!(t.run(&["OBJECT", &long, "k"]), err(&want));
    assert_eq!(t.run(&["OBJECT"]), err("ERR wrong number of arguments for 'object' command"));
}

// MEMORY

#[test]
fn memory_usage_reports_the_accounted_size() {
    let mut t = TestEngine::default();
    put(&t, "k", &"v".repeat(100), t.now + 1000);
    let expected = {
        let mut locked = t.engine.store().lock_keys(0, [&b"k"[..]]);
        locked.peek(b"k", t.now).unwrap().size as i64
    };
    assert_eq!(t.run(&["MEMORY", "USAGE", "k"]), int(expected));
    assert_eq!(t.run(&["MEMORY", "USAGE", "k"]), int(t.engine.store().used_memory() as i64));
    assert_eq!(t.run(&["memory", "usage", "k", "SAMPLES", "5"]), int(expected));
    assert_eq!(t.run(&["MEMORY", "USAGE", "k", "samples", "0"]), int(expected));
    assert_eq!(t.run(&["MEMORY", "USAGE", "missing"]), nil());
    t.advance(1000);
    assert_eq!(t.run(&["MEMORY", "USAGE", "k"]), nil());
}

#[test]
fn memory_usage_measures_every_type_whatever_the_samples() {
    let mut t = TestEngine::default();
    let members: Vec<String> = (0..200).map(|i| format!("member-{i}")).collect();
    let m: Vec<&str> = members.iter().map(String::as_str).collect();
    let scored: Vec<&str> = m.iter().flat_map(|x| ["1", *x]).collect();
    let cmds: [(&str, Vec<&str>); 5] = [
        ("str", vec!["SET", "str", "value"]),
        ("list", [&["RPUSH", "list"][..], &m].concat()),
        ("set", [&["SADD", "set"][..], &m].concat()),
        ("zset", [&["ZADD", "zset"][..], &scored].concat()),
        ("hash", [&["HSET", "hash"][..], &scored].concat()),
    ];
    for (key, cmd) in cmds {
        let before = t.used_memory() as i64;
        t.run(&cmd);
        // Values are measured exactly (the accounted bytes), so the answer is the key's whole
        // share of the data, whatever SAMPLES asks.
        let grown = int(t.used_memory() as i64 - before);
        for samples in [None, Some("0"), Some("1"), Some("5"), Some("1000")] {
            let mut usage = vec!["MEMORY", "USAGE", key];
            usage.extend(samples.map(|n| ["SAMPLES", n]).iter().flatten());
            assert_eq!(t.run(&usage), grown, "{key} {samples:?}");
        }
    }
}

#[test]
fn malloc_stats_and_purge_ask_the_hosts_allocator() {
    let mut t = TestEngine::default();
    // No allocator to ask: Redis's answers without jemalloc.
    assert_eq!(
        t.run(&["MEMORY", "MALLOC-STATS"]),
        Reply::Verbatim("Stats not supported for the current allocator".into())
    );
    assert_eq!(t.run(&["MEMORY", "PURGE"]), ok());
    t.engine.set_allocator_hooks(crate::AllocatorHooks {
        stats_text: || "___ Begin jemalloc statistics ___\n".into(),
        purge: || false,
    });
    assert_eq!(t.run(&["MEMORY", "MALLOC-STATS"]), Reply::Verbatim("___ Begin jemalloc statistics ___\n".into()));
    assert_eq!(t.run(&["MEMORY", "PURGE"]), err("ERR Error purging dirty pages"));
}

#[test]
fn memory_usage_errors() {
    let mut t = TestEngine::default();
    put(&t, "k", "v", 0);
    assert_eq!(t.run(&["MEMORY", "USAGE"]), err("ERR wrong number of arguments for 'memory|usage' command"));
    assert_eq!(t.run(&["MEMORY", "USAGE", "k", "SAMPLES", "-1"]), err("ERR syntax error"));
    assert_eq!(t.run(&["MEMORY", "USAGE", "k", "SAMPLES", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["MEMORY", "USAGE", "k", "SAMPLES"]), err("ERR syntax error"));
    assert_eq!(t.run(&["MEMORY", "USAGE", "k", "FOO", "1"]), err("ERR syntax error"));
    // Options are checked even for a missing key.
    assert_eq!(t.run(&["MEMORY", "USAGE", "missing", "FOO"]), err("ERR syntax error"));
}

#[test]
fn memory_stats_reports_the_keyspace() {
    let mut t = TestEngine::default();
    for i in 0..10 {
        put(&t, &format!("k{i}"), "value", if i < 3 { t.now + 1000 } else { 0 });
    }
    let used = t.engine.store().used_memory() as i64;
    let Reply::Map(fields) = t.run(&["MEMORY", "STATS"]) else { panic!("MEMORY STATS is not a map") };
    let field = |name: &str| {
        fields.iter().find(|(k, _)| *k == bulk(name)).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("no {name}"))
    };
    assert_eq!(field("keys.count"), int(10));
    // No allocator to ask (as in the playground): the data plus the engine's fixed overhead.
    let fixed = crate::stats::FIXED_OVERHEAD_BYTES as i64;
    assert_eq!(field("dataset.bytes"), int(used));
    assert_eq!(field("total.allocated"), int(used + fixed));
    assert_eq!(field("startup.allocated"), int(fixed));
    assert_eq!(field("overhead.total"), int(fixed));
    assert_eq!(field("peak.allocated"), int(used + fixed));
    assert_eq!(field("keys.bytes-per-key"), int(used / 10));
    assert_eq!(field("dataset.percentage"), Reply::Double(100.0));
    let zero = int(0);
    let db0 = ["overhead.hashtable.main", "overhead.hashtable.expires", "overhead.hashtable.slot-to-keys"];
    assert_eq!(field("db.0"), Reply::Map(db0.iter().map(|k| (bulk(k), zero.clone())).collect()));
    // Redis 7.0.15's fields, in its order (checked against redis-server's reply).
    let names: Vec<Reply> = fields.iter().map(|(k, _)| k.clone()).collect();
    let redis = [
        "peak.allocated",
        "total.allocated",
        "startup.allocated",
        "replication.backlog",
        "clients.slaves",
        "clients.normal",
        "cluster.links",
        "aof.buffer",
        "lua.caches",
        "functions.caches",
        "db.0",
        "overhead.total",
        "keys.count",
        "keys.bytes-per-key",
        "dataset.bytes",
        "dataset.percentage",
        "peak.percentage",
        "allocator.allocated",
        "allocator.active",
        "allocator.resident",
        "allocator-fragmentation.ratio",
        "allocator-fragmentation.bytes",
        "allocator-rss.ratio",
        "allocator-rss.bytes",
        "rss-overhead.ratio",
        "rss-overhead.bytes",
        "fragmentation",
        "fragmentation.bytes",
    ];
    assert_eq!(names, redis.iter().map(|n| bulk(n)).collect::<Vec<_>>());
    // RESP2 flattens the map into an array of name/value pairs.
    assert!(t.resp(&["MEMORY", "STATS"]).starts_with(&format!("*{}\r\n$14\r\npeak.allocated\r\n", fields.len() * 2)));
    assert_eq!(t.run(&["MEMORY", "STATS", "x"]), err("ERR wrong number of arguments for 'memory|stats' command"));
}

#[test]
fn memory_doctor_reports_redis_peak_and_fragmentation_findings() {
    let mut t = TestEngine::default();
    let mb = 1 << 20;
    let doctor = |t: &mut TestEngine| match t.run(&["MEMORY", "DOCTOR"]) {
        Reply::Verbatim(text) => text,
        other => panic!("{other:?}"),
    };
    let facts = |allocated: u64, active: u64, resident: u64, rss: u64| crate::HostFacts {
        allocator_bytes: allocated * mb,
        allocator_active: active * mb,
        allocator_resident: resident * mb,
        rss_bytes: rss * mb,
        ..Default::default()
    };
    // 20 MB allocated, healthy ratios: nothing to report.
    t.engine.set_host_facts(facts(20, 21, 22, 23));
    assert!(doctor(&mut t).starts_with("Hi Sam, I can't find any memory issue"));
    // A 100 MB peak, then 20 MB allocated in 40 MB resident and 60 MB of RSS.
    t.engine.set_host_facts(facts(100, 101, 102, 103));
    t.engine.set_host_facts(facts(20, 21, 40, 60));
    let text = doctor(&mut t);
    for finding in
        [" * Peak memory:", " * High total RSS:", " * High allocator RSS overhead:", " * High process RSS overhead:"]
    {
        assert!(text.contains(finding), "no {finding} in {text}");
    }
    assert!(!text.contains("High allocator fragmentation"), "{text}");
    assert!(text.ends_with("I'm here to keep you safe, Sam. I want to help you.\n"), "{text}");
}

#[test]
fn memory_doctor_help_and_errors() {
    let mut t = TestEngine::default();
    match t.run(&["MEMORY", "DOCTOR"]) {
        Reply::Verbatim(text) => assert!(text.contains("empty or is using very little memory"), "{text}"),
        other => panic!("{other:?}"),
    }
    t.engine.config().set("maxmemory", "1000").unwrap();
    put(&t, "k", &"v".repeat(2000), 0);
    match t.run(&["MEMORY", "DOCTOR"]) {
        Reply::Verbatim(text) => assert!(text.contains("Near the memory limit"), "{text}"),
        other => panic!("{other:?}"),
    }
    match t.run(&["MEMORY", "HELP"]) {
        Reply::Array(lines) => {
            assert_eq!(lines[0], status("MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
            assert!(lines.contains(&status("USAGE <key> [SAMPLES <count>]")));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(t.run(&["MEMORY", "PURGE"]), ok());
    assert!(matches!(t.run(&["MEMORY", "MALLOC-STATS"]), Reply::Verbatim(_)));
    assert_eq!(t.run(&["MEMORY", "DOCTOR", "x"]), err("ERR wrong number of arguments for 'memory|doctor' command"));
    assert_eq!(t.run(&["MEMORY", "HELP", "x"]), err("ERR wrong number of arguments for 'memory|help' command"));
    assert_eq!(t.run(&["MEMORY", "nope"]), err("ERR unknown subcommand 'nope'. Try MEMORY HELP."));
}

#[test]
fn sort_orders_numerically_by_patterns_and_stores() {
    let mut t = TestEngine::default();
    t.run(&["RPUSH", "l", "3", "1", "2", "10"]);
    assert_eq!(t.run(&["SORT", "l"]), crate::testing::bulks(&["1", "2", "3", "10"]));
    assert_eq!(t.run(&["SORT", "l", "ALPHA", "DESC"]), crate::testing::bulks(&["3", "2", "10", "1"]));
    assert_eq!(t.run(&["SORT", "l", "LIMIT", "1", "2"]), crate::testing::bulks(&["2", "3"]));
    assert_eq!(t.run(&["SORT", "l", "BY", "nosort", "DESC", "LIMIT", "0", "2"]), crate::testing::bulks(&["10", "2"]));
    // Weights from strings and hash fields; a missing one weighs 0, ties go by element.
    t.run(&["SET", "w_3", "-1"]);
    t.run(&["HSET", "h_1", "f", "5", "name", "one"]);
    assert_eq!(t.run(&["SORT", "l", "BY", "w_*"]), crate::testing::bulks(&["3", "1", "10", "2"]));
    assert_eq!(
        t.run(&["SORT", "l", "BY", "h_*->f", "GET", "#", "GET", "h_*->name", "LIMIT", "2", "5"]),
        arr(vec![bulk("3"), nil(), bulk("1"), bulk("one")])
    );
    // Out of range, NaN or trailing bytes: Redis's error, whatever the order.
    for bad in ["1e400", "1e-400", "nan", "1x"] {
        t.run(&["SET", "w_2", bad]);
        assert_eq!(t.run(&["SORT", "l", "BY", "w_*"]), err("ERR One or more scores can't be converted into double"));
    }
    assert_eq!(t.run(&["SORT", "l", "BY", "w_*", "ALPHA"]), crate::testing::bulks(&["1", "10", "3", "2"]));
    // STORE writes a list (replacing any type, dropping the TTL); an empty result deletes.
    t.run(&["SET", "dst", "x", "EX", "100"]);
    assert_eq!(t.run(&["SORT", "l", "STORE", "dst", "GET", "h_*->name"]), int(4));
    assert_eq!(t.run(&["LRANGE", "dst", "0", "-1"]), crate::testing::bulks(&["one", "", "", ""]));
    assert_eq!(t.run(&["TTL", "dst"]), int(-1));
    assert_eq!(t.run(&["SORT", "missing", "STORE", "dst"]), int(0));
    assert_eq!(t.run(&["EXISTS", "dst"]), int(0));
    assert_eq!(t.run(&["SORT_RO", "l", "STORE", "dst"]), err("ERR syntax error"));
    t.run(&["SET", "s", "v"]);
    assert_eq!(t.run(&["SORT", "s"]), err("WRONGTYPE Operation against a key holding the wrong kind of value"));
    assert_eq!(t.run(&["SORT", "s", "LIMIT", "a", "1"]), err(NOT_INT));
}

#[test]
fn sort_keeps_a_watch_on_its_source_and_breaks_one_on_its_destination() {
    let mut t = TestEngine::default();
    t.run(&["RPUSH", "l", "2", "1"]);
    t.run(&["WATCH", "l"]);
    assert_eq!(t.run(&["SORT", "l"]), crate::testing::bulks(&["1", "2"]));
    t.run(&["MULTI"]);
    t.run(&["PING"]);
    assert_eq!(t.run(&["EXEC"]), arr(vec![Reply::Status("PONG".into())]));
    t.run(&["WATCH", "dst"]);
    assert_eq!(t.run(&["SORT", "l", "STORE", "dst"]), int(2));
    t.run(&["MULTI"]);
    t.run(&["PING"]);
    assert_eq!(t.run(&["EXEC"]), Reply::NilArray);
    // Inside MULTI the patterns still read any key (EXEC holds every shard for SORT).
    t.run(&["SET", "w_1", "9"]);
    t.run(&["MULTI"]);
    t.run(&["SORT", "l", "BY", "w_*", "GET", "w_*"]);
    assert_eq!(t.run(&["EXEC"]), arr(vec![arr(vec![nil(), bulk("9")])]));
}
