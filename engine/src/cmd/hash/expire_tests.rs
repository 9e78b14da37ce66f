//! Unit tests of hash field expiry (HEXPIRE and friends, HTTL and friends, HPERSIST, HGETEX,
//! HSETEX, HGETDEL), modelled on Redis's `tests/unit/type/hash-field-expire.tcl` and the
//! commands' documentation: these commands are newer than the redis-server the differential
//! test runs against.

use crate::reply::Reply;
use crate::store::Touch;

use super::tests::strings;
use crate::testing::{arity, arr, bulk, bulks, err, int, nil, TestEngine, NOT_INT, WRONGTYPE};

fn ints(v: &[i64]) -> Reply {
    arr(v.iter().map(|&n| int(n)).collect())
}

/// The engine with `h` holding fields `f1..=fn` (values `v1..`), in listpack or hashtable form.
fn with_hash(n: usize, big: bool) -> TestEngine {
    let mut t = TestEngine::default();
    for i in 1..=n {
        t.run(&["HSET", "h", &format!("f{i}"), &format!("v{i}")]);
    }
    if big {
        t.run(&["HSET", "h", &"x".repeat(100), "v"]);
        t.run(&["HDEL", "h", &"x".repeat(100)]);
        assert_eq!(t.run(&["OBJECT", "ENCODING", "h"]), bulk("hashtable"));
    }
    t
}

fn secs(t: &TestEngine) -> u64 {
    t.now / 1000
}

#[test]
fn hexpire_on_a_missing_key_answers_no_field_for_each() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["HEXPIRE", "h", "1000", "FIELDS", "1", "a"]), ints(&[-2]));
    assert_eq!(t.run(&["HEXPIREAT", "h", "1000", "FIELDS", "1", "a"]), ints(&[-2]));
    assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "FIELDS", "2", "a", "b"]), ints(&[-2, -2]));
    assert_eq!(t.run(&["HPEXPIREAT", "h", "1000", "FIELDS", "2", "a", "b"]), ints(&[-2, -2]));
    assert_eq!(t.run(&["EXISTS", "h"]), int(0));
}

#[test]
fn expire_time_errors_as_redis() {
    let mut t = with_hash(1, false);
    let e = |t: &mut TestEngine, argv: &[&str]| t.run(argv);
    assert_eq!(e(&mut t, &["HEXPIRE", "h", "-1", "FIELDS", "1", "f1"]), err("ERR invalid expire time, must be >= 0"));
    assert_eq!(
        e(&mut t, &["HEXPIRE", "h", "-9223372036854775808", "FIELDS", "1", "f1"]),
        err("ERR invalid expire time, must be >= 0")
    );
    assert_eq!(e(&mut t, &["HEXPIRE", "h", "x", "FIELDS", "1", "f1"]), err(NOT_INT));
    let big = ((1u64 << 48) / 1000).to_string();
    assert_eq!(
        e(&mut t, &["HEXPIRE", "h", &big, "FIELDS", "1", "f1"]),
        err("ERR invalid expire time in 'hexpire' command")
    );
    let at = ((1u64 << 48) / 1000 + secs(&t) + 100).to_string();
    assert_eq!(
        e(&mut t, &["HEXPIREAT", "h", &at, "FIELDS", "1", "f1"]),
        err("ERR invalid expire time in 'hexpireat' command")
    );
    let ms = (1u64 << 48).to_string();
    assert_eq!(
        e(&mut t, &["HPEXPIRE", "h", &ms, "FIELDS", "1", "f1"]),
        err("ERR invalid expire time in 'hpexpire' command")
    );
    let at = ((1u64 << 48) + t.now + 100).to_string();
    assert_eq!(
        e(&mut t, &["HPEXPIREAT", "h", &at, "FIELDS", "1", "f1"]),
        err("ERR invalid expire time in 'hpexpireat' command")
    );
    // Near the limit of 2^46 ms: below is fine, above is not.
    let below = ((1u64 << 46) - t.now - 1000).to_string();
    assert_eq!(e(&mut t, &["HPEXPIRE", "h", &below, "FIELDS", "1", "f1"]), ints(&[1]));
    let above = ((1u64 << 46) - t.now + 100).to_string();
    assert_eq!(
        e(&mut t, &["HPEXPIRE", "h", &above, "FIELDS", "1", "f1"]),
        err("ERR invalid expire time in 'hpexpire' command")
    );
}

#[test]
fn fields_block_errors_as_redis() {
    let mut t = with_hash(1, false);
    let count = err("ERR Parameter `numFields` should be greater than 0");
    let mismatch = err("ERR The `numfields` parameter must match the number of arguments");
    let missing = err("ERR Mandatory argument FIELDS is missing or not at the right position");
    assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "0", "f1", "f2", "f3"]), count);
    assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "x", "f1"]), count);
    assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "4", "f1", "f2", "f3"]), mismatch);
    assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "2", "f1", "f2", "f3"]), mismatch);
    assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "BOGUS", "FIELDS", "1", "f1"]), missing);
    assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "FIELDS", "1"]), arity("hpexpire"));
    let positive = err("ERR Number of fields must be a positive integer");
    for cmd in ["HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME", "HPERSIST", "HGETDEL"] {
        assert_eq!(t.run(&[cmd, "h", "FIELDS", "0", "f1"]), positive, "{cmd}");
        assert_eq!(t.run(&[cmd, "h", "FIELDS", "1", "a", "b"]), mismatch, "{cmd}");
        assert_eq!(t.run(&[cmd, "h", "FIELDS", "3", "a", "b"]), mismatch, "{cmd}");
        assert_eq!(t.run(&[cmd, "h", "FELDS", "1", "a"]), missing, "{cmd}");
    }
    assert_eq!(t.run(&["HGETEX", "h", "FIELDS", "0", "f1"]), positive);
    assert_eq!(t.run(&["HGETEX", "h", "EX", "10", "FIELDS", "2", "f1"]), mismatch);
    // WRONGTYPE comes before any argument check.
    t.run(&["SET", "s", "v"]);
    for argv in [
        &["HEXPIRE", "s", "-1", "FIELDS", "1", "f"][..],
        &["HTTL", "s", "FIELDS", "0", "f"],
        &["HPERSIST", "s", "FIELDS", "0", "f"],
        &["HGETEX", "s", "EX", "-1", "FIELDS", "1", "f"],
        &["HGETDEL", "s", "FIELDS", "0", "f"],
        &["HSETEX", "s", "FIELDS", "1", "f", "v"],
    ] {
        assert_eq!(t.run(argv), err(WRONGTYPE), "{argv:?}");
    }
}

#[test]
fn conditions_nx_xx_gt_lt() {
    for big in [false, true] {
        let mut t = with_hash(3, big);
        assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "1", "f1"]), ints(&[1]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "2", "f1", "f2"]), ints(&[0, 1]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "XX", "FIELDS", "2", "f1", "f3"]), ints(&[1, 0]));

        let mut t = with_hash(3, big);
        assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "1", "f1"]), ints(&[1]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "2000", "NX", "FIELDS", "1", "f2"]), ints(&[1]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "1500", "gt", "FIELDS", "3", "f1", "f2", "f3"]), ints(&[1, 0, 0]));
        assert_eq!(t.run(&["HPTTL", "h", "FIELDS", "2", "f1", "f2"]), ints(&[1500, 2000]));

        let mut t = with_hash(3, big);
        assert_eq!(t.run(&["HPEXPIRE", "h", "1000", "NX", "FIELDS", "1", "f1"]), ints(&[1]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "2000", "NX", "FIELDS", "1", "f2"]), ints(&[1]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "1500", "LT", "FIELDS", "3", "f1", "f2", "f3"]), ints(&[0, 1, 1]));
        let at = (t.now + 1500).to_string();
        assert_eq!(
            t.run(&["HPEXPIRETIME", "h", "FIELDS", "3", "f1", "f2", "f3"]),
            ints(&[t.now as i64 + 1000, t.now as i64 + 1500, at.parse().unwrap()])
        );
    }
}

#[test]
fn a_time_in_the_past_deletes_the_fields_and_the_last_one_the_key() {
    for big in [false, true] {
        let mut t = with_hash(4, big);
        t.run(&["HDEL", "h", "f3"]);
        t.run(&["HEXPIRE", "h", "1000", "NX", "FIELDS", "1", "f4"]);
        let past = ((secs(&t) - 1) * 1000).to_string();
        let reply = t.run(&["HPEXPIREAT", "h", &past, "NX", "FIELDS", "4", "f1", "f2", "f3", "f4"]);
        assert_eq!(reply, ints(&[2, 2, -2, 0]));
        assert_eq!(t.run(&["HEXISTS", "h", "f1"]), int(0));
        assert_eq!(t.run(&["HLEN", "h"]), int(1));
        // 0 seconds from now is not in the future either.
        assert_eq!(t.run(&["HEXPIRE", "h", "0", "FIELDS", "1", "f4"]), ints(&[2]));
        assert_eq!(t.run(&["EXISTS", "h"]), int(0));
    }
}

#[test]
fn httl_and_friends() {
    for big in [false, true] {
        let mut t = with_hash(2, big);
        assert_eq!(t.run(&["HTTL", "nokey", "FIELDS", "2", "a", "b"]), ints(&[-2, -2]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "1500", "NX", "FIELDS", "1", "f1"]), ints(&[1]));
        assert_eq!(t.run(&["HTTL", "h", "FIELDS", "3", "f1", "f2", "nope"]), ints(&[2, -1, -2]));
        assert_eq!(t.run(&["HPTTL", "h", "FIELDS", "1", "f1"]), ints(&[1500]));
        let at = t.now + 1500;
        assert_eq!(t.run(&["HPEXPIRETIME", "h", "FIELDS", "1", "f1"]), ints(&[at as i64]));
        assert_eq!(t.run(&["HEXPIRETIME", "h", "FIELDS", "1", "f1"]), ints(&[at.div_ceil(1000) as i64]));
        t.advance(1000);
        assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[1]));
        assert_eq!(t.run(&["HPTTL", "h", "FIELDS", "1", "f1"]), ints(&[500]));
        t.advance(500);
        assert_eq!(t.run(&["HPTTL", "h", "FIELDS", "1", "f1"]), ints(&[-2]));
        assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[-2]));
    }
}

#[test]
fn hexpireat_then_xx_moves_it() {
    let mut t = with_hash(1, false);
    let at = (secs(&t) + 2).to_string();
    assert_eq!(t.run(&["HEXPIREAT", "h", &at, "NX", "FIELDS", "1", "f1"]), ints(&[1]));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[2]));
    let at = (secs(&t) + 5).to_string();
    assert_eq!(t.run(&["HEXPIREAT", "h", &at, "XX", "FIELDS", "1", "f1"]), ints(&[1]));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[5]));
}

#[test]
fn expired_fields_are_never_seen_and_the_last_one_takes_the_key() {
    for big in [false, true] {
        let mut t = with_hash(5, big);
        assert_eq!(t.run(&["HPEXPIRE", "h", "1", "FIELDS", "2", "f1", "f2"]), ints(&[1, 1]));
        t.advance(5);
        let fields = |t: &mut TestEngine, argv: &[&str]| {
            let mut v = strings(t.run(argv));
            v.sort();
            v
        };
        assert_eq!(fields(&mut t, &["HRANDFIELD", "h", "5"]), ["f3", "f4", "f5"]);
        assert_eq!(fields(&mut t, &["HKEYS", "h"]), ["f3", "f4", "f5"]);
        assert_eq!(fields(&mut t, &["HVALS", "h"]), ["v3", "v4", "v5"]);
        assert_eq!(t.run(&["HLEN", "h"]), int(3));
        assert_eq!(t.run(&["HGET", "h", "f1"]), nil());
        assert_eq!(t.run(&["HSTRLEN", "h", "f2"]), int(0));
        let Reply::Array(scan) = t.run(&["HSCAN", "h", "0", "COUNT", "100"]) else { panic!() };
        assert_eq!(scan[1], bulks(&["f3", "v3", "f4", "v4", "f5", "v5"]));
        assert_eq!(t.run(&["HPEXPIRE", "h", "1", "FIELDS", "3", "f3", "f4", "f5"]), ints(&[1, 1, 1]));
        assert_eq!(t.run(&["EXISTS", "h"]), int(1));
        t.advance(5);
        assert_eq!(t.run(&["HRANDFIELD", "h"]), nil());
        assert_eq!(t.run(&["HGETALL", "h"]), Reply::Map(vec![]));
        assert_eq!(t.run(&["EXISTS", "h"]), int(0));
        assert_eq!(t.run(&["KEYS", "*"]), arr(vec![]));
    }
}

#[test]
fn the_active_cycle_deletes_expired_fields_and_emptied_hashes() {
    let mut t = TestEngine::default();
    for i in 0..50 {
        let (all, mix) = (format!("all{i}"), format!("mix{i}"));
        t.run(&["HSET", &all, "a", "1", "b", "2"]);
        t.run(&["HPEXPIRE", &all, "100", "FIELDS", "2", "a", "b"]);
        t.run(&["HSET", &mix, "a", "1", "keep", "2"]);
        t.run(&["HPEXPIRE", &mix, "100", "FIELDS", "1", "a"]);
    }
    t.advance(200);
    for _ in 0..100 {
        t.engine.sweep(t.now, 1000);
    }
    // Counted without looking the keys up (a lookup would expire them lazily).
    assert_eq!(t.engine.store().len(), 50, "only the mixed hashes stay");
    assert_eq!(t.run(&["HLEN", "mix7"]), int(1));
    assert_eq!(t.run(&["HGETALL", "mix7"]), Reply::Map(vec![(bulk("keep"), bulk("2"))]));
}

#[test]
fn hpersist_drops_ttls() {
    let mut t = with_hash(2, false);
    assert_eq!(t.run(&["HPERSIST", "nokey", "FIELDS", "1", "a"]), ints(&[-2]));
    t.run(&["HEXPIRE", "h", "100", "FIELDS", "1", "f1"]);
    assert_eq!(t.run(&["HPERSIST", "h", "FIELDS", "3", "f1", "f2", "nope"]), ints(&[1, -1, -2]));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[-1]));
    // Once listpackex, always listpackex (as Redis 7.4).
    assert_eq!(t.run(&["OBJECT", "ENCODING", "h"]), bulk("listpackex"));
    t.advance(200_000);
    assert_eq!(t.run(&["HGET", "h", "f1"]), bulk("v1"));
}

#[test]
fn writes_and_field_ttls() {
    let mut t = with_hash(3, false);
    t.run(&["HSET", "h", "n", "1"]);
    t.run(&["HEXPIRE", "h", "100", "FIELDS", "4", "f1", "f2", "f3", "n"]);
    // HSET drops the TTL of the field it overwrites; HINCRBY keeps it; HDEL takes it away.
    t.run(&["HSET", "h", "f1", "new"]);
    assert_eq!(t.run(&["HINCRBY", "h", "n", "5"]), int(6));
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "n", "0.5"]), bulk("6.5"));
    t.run(&["HDEL", "h", "f2"]);
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "4", "f1", "f2", "f3", "n"]), ints(&[-1, -2, 100, 100]));
    // An expired field is gone for HSETNX and HINCRBY too.
    t.advance(100_000);
    assert_eq!(t.run(&["HSETNX", "h", "f3", "again"]), int(1));
    assert_eq!(t.run(&["HINCRBY", "h", "n", "1"]), int(1));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "2", "f3", "n"]), ints(&[-1, -1]));
    // RENAME and COPY carry the TTLs.
    t.run(&["HEXPIRE", "h", "10", "FIELDS", "1", "f3"]);
    t.run(&["RENAME", "h", "h2"]);
    assert_eq!(t.run(&["HTTL", "h2", "FIELDS", "1", "f3"]), ints(&[10]));
    t.advance(10_000);
    assert_eq!(t.run(&["HGET", "h2", "f3"]), nil());
}

#[test]
fn encodings_as_redis_7_4() {
    let mut t = with_hash(2, false);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "h"]), bulk("listpack"));
    t.run(&["HEXPIRE", "h", "100", "FIELDS", "1", "f1"]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "h"]), bulk("listpackex"));
    t.run(&["HSET", "h", "long", &"x".repeat(65)]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "h"]), bulk("hashtable"));
    assert_eq!(t.run(&["HSETEX", "new", "EX", "10", "FIELDS", "1", "a", "b"]), int(1));
    assert_eq!(t.run(&["OBJECT", "ENCODING", "new"]), bulk("listpackex"));
}

#[test]
fn hgetex_reads_and_sets_or_drops_ttls() {
    let mut t = with_hash(3, false);
    assert_eq!(t.run(&["HGETEX", "nokey", "EX", "10", "FIELDS", "2", "a", "b"]), arr(vec![nil(), nil()]));
    assert_eq!(t.run(&["HGETEX", "h", "FIELDS", "2", "f1", "nope"]), arr(vec![bulk("v1"), nil()]));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[-1]));
    assert_eq!(t.run(&["HGETEX", "h", "EX", "120", "FIELDS", "1", "f1"]), arr(vec![bulk("v1")]));
    assert_eq!(t.run(&["HGETEX", "h", "px", "100000", "FIELDS", "1", "f2"]), arr(vec![bulk("v2")]));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "3", "f1", "f2", "f3"]), ints(&[120, 100, -1]));
    let at = (secs(&t) + 50).to_string();
    t.run(&["HGETEX", "h", "EXAT", &at, "FIELDS", "1", "f3"]);
    let at = (t.now + 60_000).to_string();
    t.run(&["HGETEX", "h", "PXAT", &at, "FIELDS", "1", "f2"]);
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "3", "f1", "f2", "f3"]), ints(&[120, 60, 50]));
    assert_eq!(t.run(&["HGETEX", "h", "PERSIST", "FIELDS", "1", "f1"]), arr(vec![bulk("v1")]));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[-1]));
    // A time not in the future answers the value, then deletes the field (and the key last).
    assert_eq!(t.run(&["HGETEX", "h", "EX", "0", "FIELDS", "2", "f1", "f1"]), arr(vec![bulk("v1"), nil()]));
    assert_eq!(t.run(&["HGETEX", "h", "PX", "0", "FIELDS", "2", "f2", "f3"]), bulks(&["v2", "v3"]));
    assert_eq!(t.run(&["EXISTS", "h"]), int(0));
    let mut t = with_hash(1, false);
    assert_eq!(t.run(&["HGETEX", "h", "EX", "-1", "FIELDS", "1", "f1"]), err("ERR invalid expire time, must be >= 0"));
    let mismatch = err("ERR The `numfields` parameter must match the number of arguments");
    assert_eq!(t.run(&["HGETEX", "h", "EX", "10", "FIELDS", "1"]), mismatch);
    assert_eq!(t.run(&["HGETEX", "h", "EX"]), arity("hgetex"));
    assert_eq!(
        t.run(&["HGETEX", "h", "EX", "10", "PERSIST", "FIELDS", "1", "f1"]),
        err("ERR Mandatory argument FIELDS is missing or not at the right position")
    );
}

#[test]
fn hsetex_sets_fields_and_ttls() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["HSETEX", "h", "FXX", "FIELDS", "1", "a", "1"]), int(0));
    assert_eq!(t.run(&["EXISTS", "h"]), int(0));
    assert_eq!(t.run(&["HSETEX", "h", "EX", "60", "FIELDS", "2", "f1", "Hello", "f2", "World"]), int(1));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "2", "f1", "f2"]), ints(&[60, 60]));
    assert_eq!(t.run(&["HSETEX", "h", "FNX", "EX", "60", "FIELDS", "2", "f1", "a", "f3", "b"]), int(0));
    assert_eq!(t.run(&["HSETEX", "h", "FXX", "FIELDS", "2", "f1", "a", "f3", "b"]), int(0));
    assert_eq!(t.run(&["HSETEX", "h", "FXX", "KEEPTTL", "FIELDS", "1", "f1", "kept"]), int(1));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "1", "f1"]), ints(&[60]));
    // Without KEEPTTL or a time, the TTL goes, as with HSET.
    assert_eq!(t.run(&["HSETEX", "h", "FIELDS", "1", "f2", "plain"]), int(1));
    assert_eq!(t.run(&["HTTL", "h", "FIELDS", "2", "f1", "f2"]), ints(&[60, -1]));
    let at = (t.now + 5000).to_string();
    assert_eq!(t.run(&["HSETEX", "h", "FNX", "PXAT", &at, "FIELDS", "1", "f3", "x"]), int(1));
    assert_eq!(t.run(&["HPTTL", "h", "FIELDS", "1", "f3"]), ints(&[5000]));
    // A time in the past sets and deletes at once.
    assert_eq!(t.run(&["HSETEX", "h", "PX", "0", "FIELDS", "1", "f1", "gone"]), int(1));
    assert_eq!(t.run(&["HEXISTS", "h", "f1"]), int(0));
    let e = |t: &mut TestEngine, argv: &[&str]| t.run(argv);
    let one_ttl = err("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified");
    assert_eq!(e(&mut t, &["HSETEX", "h", "FXX", "EX", "60", "KEEPTTL", "FIELDS", "1", "a", "b"]), one_ttl);
    assert_eq!(e(&mut t, &["HSETEX", "h", "PX", "6", "EX", "60", "FIELDS", "1", "a", "b"]), one_ttl);
    assert_eq!(
        e(&mut t, &["HSETEX", "h", "FXX", "FNX", "FIELDS", "1", "a", "b"]),
        err("ERR Only one of FXX or FNX arguments can be specified")
    );
    assert_eq!(e(&mut t, &["HSETEX", "h", "BOGUS", "FIELDS", "1", "a", "b"]), err("ERR unknown argument: BOGUS"));
    assert_eq!(e(&mut t, &["HSETEX", "h", "FIELDS", "0", "a", "b"]), err("ERR invalid number of fields"));
    assert_eq!(e(&mut t, &["HSETEX", "h", "FIELDS", "2", "a", "b"]), arity("hsetex"));
    assert_eq!(e(&mut t, &["HSETEX", "h", "FIELDS", "1", "a", "b", "c"]), arity("hsetex"));
    assert_eq!(e(&mut t, &["HSETEX", "h", "EX", "60", "FIELDS", "1", "a"]), arity("hsetex"));
    assert_eq!(
        e(&mut t, &["HSETEX", "h", "EX", "-1", "FIELDS", "1", "a", "b"]),
        err("ERR invalid expire time, must be >= 0")
    );
    assert_eq!(
        e(&mut t, &["HSETEX", "h", "FNX", "KEEPTTL", "FNX", "a", "b"]),
        err("ERR Only one of FXX or FNX arguments can be specified")
    );
}

#[test]
fn hgetdel_takes_fields_and_the_key_with_the_last() {
    let mut t = with_hash(3, false);
    assert_eq!(t.run(&["HGETDEL", "nokey", "FIELDS", "1", "a"]), arr(vec![nil()]));
    assert_eq!(t.run(&["HGETDEL", "h", "FIELDS", "2", "f1", "nope"]), arr(vec![bulk("v1"), nil()]));
    assert_eq!(t.run(&["HGETDEL", "h", "FIELDS", "2", "f2", "f2"]), arr(vec![bulk("v2"), nil()]));
    assert_eq!(t.run(&["HLEN", "h"]), int(1));
    assert_eq!(t.run(&["HGETDEL", "h", "FIELDS", "1", "f3"]), bulks(&["v3"]));
    assert_eq!(t.run(&["EXISTS", "h"]), int(0));
}

#[test]
fn field_ttls_return_memory_to_baseline() {
    let mut t = TestEngine::default();
    t.run(&["HSET", "h", "a", "1", "b", "2", "c", "3"]);
    let base = t.used_memory();
    t.run(&["HEXPIRE", "h", "100", "FIELDS", "2", "a", "b"]);
    let with_ttls = t.used_memory();
    assert!(with_ttls > base, "TTLs cost bytes: {with_ttls} > {base}");
    t.run(&["HPERSIST", "h", "FIELDS", "2", "a", "b"]);
    assert_eq!(t.used_memory(), base);
    t.run(&["HEXPIRE", "h", "100", "FIELDS", "1", "a"]);
    t.run(&["HDEL", "h", "a"]);
    t.run(&["HSET", "h", "a", "1"]);
    assert_eq!(t.used_memory(), base);
    t.run(&["HEXPIRE", "h", "1", "FIELDS", "3", "a", "b", "c"]);
    t.advance(1000);
    t.engine.sweep(t.now, 1000);
    assert_eq!(t.engine.store().len(), 0);
    assert_eq!(t.used_memory(), 0);
    assert_eq!(t.run(&["HSETEX", "h", "EX", "1", "FIELDS", "1", "a", "b"]), int(1));
    t.run(&["DEL", "h"]);
    assert_eq!(t.used_memory(), 0);
    t.run(&["FLUSHALL"]);
    assert_eq!(t.used_memory(), 0);
}

#[test]
fn various_commands_ignore_expired_fields() {
    let mut t = TestEngine::default();
    t.run(&["HSET", "h4", "1", "99", "2", "99", "3", "99"]);
    t.run(&["HSET", "h5", "1", "1", "2", "22", "3", "333", "4", "4444"]);
    t.run(&["HPEXPIRE", "h4", "1", "NX", "FIELDS", "1", "2"]);
    t.run(&["HPEXPIRE", "h5", "1", "NX", "FIELDS", "2", "3", "4"]);
    t.advance(5);
    assert_eq!(t.run(&["HINCRBY", "h4", "2", "1"]), int(1));
    assert_eq!(t.run(&["HINCRBY", "h4", "3", "1"]), int(100));
    assert_eq!(t.run(&["HSTRLEN", "h5", "3"]), int(0));
    assert_eq!(t.run(&["HMGET", "h5", "1", "3", "4"]), arr(vec![bulk("1"), nil(), nil()]));
    assert_eq!(t.run(&["HEXISTS", "h5", "4"]), int(0));
    assert_eq!(t.run(&["HDEL", "h5", "3", "2"]), int(1));
    // HSET's count of new fields, with fields that have a TTL.
    t.run(&["HSET", "m", "f1", "v1", "f2", "v2"]);
    t.run(&["HEXPIRE", "m", "100000", "FIELDS", "1", "f1"]);
    assert_eq!(t.run(&["HSET", "m", "f1", "v2"]), int(0));
    assert_eq!(t.run(&["HSET", "m", "f3", "v3", "f4", "v4"]), int(2));
    assert_eq!(t.run(&["HTTL", "m", "FIELDS", "1", "f1"]), ints(&[-1]));
    t.run(&["HEXPIRE", "m", "10", "FIELDS", "1", "f3"]);
    t.advance(10_000);
    assert_eq!(t.run(&["HKEYS", "m"]), bulks(&["f1", "f2", "f4"]));
}

/// Random field writes, expiries and reads over a few hashes, against a model of which
/// fields are live; deleting every key at the end must give every accounted byte back.
#[test]
fn random_field_expiry_matches_a_model_and_accounts_exactly() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut t = TestEngine::default();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    // key -> field -> expiry (0: none)
    let mut model: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for step in 0..3000 {
        let key = format!("h{}", next(4));
        let field = format!("f{}", next(8));
        let ms = next(50).to_string();
        let now = t.now;
        let fields = model.entry(key.clone()).or_default();
        // What the engine sees: the model without its expired fields.
        fields.retain(|_, at| *at == 0 || *at > now);
        match next(9) {
            0 | 1 => {
                t.run(&["HSET", &key, &field, "v"]);
                fields.insert(field, 0);
            }
            2 => {
                let reply = t.run(&["HPEXPIRE", &key, &ms, "FIELDS", "1", &field]);
                let at = now + ms.parse::<u64>().unwrap();
                let want = match fields.get(&field) {
                    None => -2,
                    Some(_) if at <= now => 2,
                    Some(_) => 1,
                };
                assert_eq!(reply, ints(&[want]), "step {step}");
                match want {
                    2 => {
                        fields.remove(&field);
                    }
                    1 => {
                        fields.insert(field, at);
                    }
                    _ => {}
                }
            }
            3 => {
                let reply = t.run(&["HPERSIST", &key, "FIELDS", "1", &field]);
                let want = match fields.get_mut(&field) {
                    None => -2,
                    Some(0) => -1,
                    Some(at) => {
                        *at = 0;
                        1
                    }
                };
                assert_eq!(reply, ints(&[want]), "step {step}");
            }
            4 => {
                t.run(&["HSETEX", &key, "PX", &ms, "FIELDS", "1", &field, "w"]);
                let at = now + ms.parse::<u64>().unwrap();
                if at <= now {
                    fields.remove(&field);
                } else {
                    fields.insert(field, at);
                }
            }
            5 => {
                t.run(&["HDEL", &key, &field]);
                fields.remove(&field);
            }
            6 => t.advance(next(20)),
            7 => {
                t.engine.sweep(t.now, 100);
            }
            _ => {
                let live: BTreeSet<String> = fields.keys().cloned().collect();
                let mut got = strings(t.run(&["HKEYS", &key]));
                got.sort();
                assert_eq!(got, live.into_iter().collect::<Vec<_>>(), "step {step}");
            }
        }
        if model.get(&key).is_some_and(|f| f.is_empty()) {
            model.remove(&key);
        }
        let store = t.engine.store();
        let mut shard = store.lock_shard(store.stripe_index(key.as_bytes()));
        if let Some(crate::store::entry::ValueRef::Hash(h)) =
            shard.lookup(key.as_bytes(), 0, Touch::No).map(|e| e.value)
        {
            assert_eq!(h.heap_size(), h.recount(), "step {step}");
        }
    }
    for key in ["h0", "h1", "h2", "h3"] {
        t.run(&["DEL", key]);
    }
    assert_eq!(t.used_memory(), 0);
}
