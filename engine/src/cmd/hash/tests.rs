//! Unit tests of the hash family, through the command table.

use std::collections::{BTreeMap, BTreeSet};

use crate::reply::Reply;
use crate::store::Touch;
use crate::testing::{arity, arr, bulk, bulks, err, int, nil, ok, TestEngine, NOT_FLOAT, NOT_INT, SYNTAX, WRONGTYPE};

fn engine() -> TestEngine {
    TestEngine::default()
}

/// The strings of an array reply (panics on anything else).
pub(super) fn strings(reply: Reply) -> Vec<String> {
    match reply {
        Reply::Array(items) | Reply::Set(items) => items
            .into_iter()
            .map(|r| match r {
                Reply::Bulk(b) => String::from_utf8_lossy(&b).into_owned(),
                other => panic!("not a bulk: {other:?}"),
            })
            .collect(),
        other => panic!("not an array: {other:?}"),
    }
}

fn expire_at(t: &TestEngine, key: &str) -> Option<u64> {
    let store = t.engine.store();
    let mut shard = store.lock_shard(store.stripe_index(key.as_bytes()));
    shard.lookup(key.as_bytes(), t.now, Touch::No).map(|e| e.expire_at)
}

fn used(t: &TestEngine) -> usize {
    t.engine.store().used_memory()
}

#[test]
fn hset_and_the_reads() {
    let mut t = engine();
    assert_eq!(t.run(&["HSET", "h", "a", "1", "b", "2"]), int(2));
    assert_eq!(t.run(&["HSET", "h", "a", "10", "c", "3", "c", "4"]), int(1));
    assert_eq!(t.run(&["HMSET", "h", "d", "5"]), ok());
    assert_eq!(t.run(&["HGET", "h", "a"]), bulk("10"));
    assert_eq!(t.run(&["HGET", "h", "c"]), bulk("4"));
    assert_eq!(t.run(&["HGET", "h", "zz"]), nil());
    assert_eq!(t.run(&["HGET", "nokey", "a"]), nil());
    assert_eq!(t.run(&["HMGET", "h", "a", "zz", "b"]), arr(vec![bulk("10"), nil(), bulk("2")]));
    assert_eq!(t.run(&["HMGET", "nokey", "a", "b"]), arr(vec![nil(), nil()]));
    assert_eq!(t.run(&["HLEN", "h"]), int(4));
    assert_eq!(t.run(&["HLEN", "nokey"]), int(0));
    assert_eq!(t.run(&["HEXISTS", "h", "a"]), int(1));
    assert_eq!(t.run(&["HEXISTS", "h", "zz"]), int(0));
    assert_eq!(t.run(&["HEXISTS", "nokey", "a"]), int(0));
    assert_eq!(t.run(&["HSTRLEN", "h", "a"]), int(2));
    assert_eq!(t.run(&["HSTRLEN", "h", "zz"]), int(0));
    assert_eq!(t.run(&["HSTRLEN", "nokey", "a"]), int(0));
    // A small hash answers in insertion order, as Redis's listpack.
    assert_eq!(t.run(&["HKEYS", "h"]), bulks(&["a", "b", "c", "d"]));
    assert_eq!(t.run(&["HVALS", "h"]), bulks(&["10", "2", "4", "5"]));
    assert_eq!(
        t.run(&["HGETALL", "h"]),
        Reply::Map(vec![
            (bulk("a"), bulk("10")),
            (bulk("b"), bulk("2")),
            (bulk("c"), bulk("4")),
            (bulk("d"), bulk("5"))
        ])
    );
    assert_eq!(t.run(&["HKEYS", "nokey"]), arr(vec![]));
    assert_eq!(t.run(&["HVALS", "nokey"]), arr(vec![]));
    assert_eq!(t.run(&["HGETALL", "nokey"]), Reply::Map(vec![]));
    assert_eq!(t.run(&["TYPE", "h"]), Reply::status("hash"));
    // Binary-safe fields and values, the empty ones too.
    assert_eq!(t.run(&[&b"HSET"[..], b"bin", b"", b"", b"\x00\xff", b"\r\n"]), int(2));
    assert_eq!(t.run(&[&b"HGET"[..], b"bin", b"\x00\xff"]), Reply::Bulk(b"\r\n".to_vec()));
    assert_eq!(t.run(&["HGET", "bin", ""]), bulk(""));
    assert_eq!(t.run(&["HSTRLEN", "bin", ""]), int(0));
}

#[test]
fn hgetall_is_a_map_in_resp3_and_pairs_in_resp2() {
    let mut t = engine();
    t.run(&["HSET", "h", "f", "v"]);
    assert_eq!(t.resp(&["HGETALL", "h"]), "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    assert_eq!(t.resp(&["HGETALL", "nokey"]), "*0\r\n");
    t.session.resp3 = true;
    assert_eq!(t.resp(&["HGETALL", "h"]), "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
    assert_eq!(t.resp(&["HGETALL", "nokey"]), "%0\r\n");
}

#[test]
fn arity_errors() {
    let mut t = engine();
    assert_eq!(t.run(&["HSET", "h", "f"]), arity("hset"));
    assert_eq!(t.run(&["HSET", "h", "f", "v", "g"]), arity("hset"));
    assert_eq!(t.run(&["HMSET", "h", "f", "v", "g"]), arity("hmset"));
    assert_eq!(t.run(&["HSETNX", "h", "f"]), arity("hsetnx"));
    assert_eq!(t.run(&["HGET", "h"]), arity("hget"));
    assert_eq!(t.run(&["HMGET", "h"]), arity("hmget"));
    assert_eq!(t.run(&["HDEL", "h"]), arity("hdel"));
    assert_eq!(t.run(&["HEXISTS", "h"]), arity("hexists"));
    assert_eq!(t.run(&["HLEN", "h", "x"]), arity("hlen"));
    assert_eq!(t.run(&["HSTRLEN", "h"]), arity("hstrlen"));
    assert_eq!(t.run(&["HKEYS"]), arity("hkeys"));
    assert_eq!(t.run(&["HVALS", "a", "b"]), arity("hvals"));
    assert_eq!(t.run(&["HGETALL"]), arity("hgetall"));
    assert_eq!(t.run(&["HINCRBY", "h", "f"]), arity("hincrby"));
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "f", "1", "2"]), arity("hincrbyfloat"));
    assert_eq!(t.run(&["HRANDFIELD"]), arity("hrandfield"));
    assert_eq!(t.run(&["HSCAN", "h"]), arity("hscan"));
    assert_eq!(t.engine.store().len(), 0);
}

#[test]
fn every_command_refuses_another_type() {
    let mut t = engine();
    t.run(&["SET", "s", "x"]);
    for cmd in [
        &["HSET", "s", "f", "v"][..],
        &["HMSET", "s", "f", "v"],
        &["HSETNX", "s", "f", "v"],
        &["HGET", "s", "f"],
        &["HMGET", "s", "f"],
        &["HDEL", "s", "f"],
        &["HEXISTS", "s", "f"],
        &["HLEN", "s"],
        &["HSTRLEN", "s", "f"],
        &["HKEYS", "s"],
        &["HVALS", "s"],
        &["HGETALL", "s"],
        &["HINCRBY", "s", "f", "1"],
        &["HINCRBYFLOAT", "s", "f", "1"],
        &["HRANDFIELD", "s"],
        &["HRANDFIELD", "s", "0"],
        &["HRANDFIELD", "s", "-3", "WITHVALUES"],
        &["HSCAN", "s", "0"],
        &["HSCAN", "s", "0", "BOGUS"],
    ] {
        assert_eq!(t.run(cmd), err(WRONGTYPE), "{cmd:?}");
    }
    assert_eq!(t.run(&["GET", "s"]), bulk("x"));
    // And the string commands refuse a hash.
    t.run(&["HSET", "h", "f", "v"]);
    assert_eq!(t.run(&["GET", "h"]), err(WRONGTYPE));
    assert_eq!(t.run(&["APPEND", "h", "x"]), err(WRONGTYPE));
    // SET replaces whatever a key holds.
    assert_eq!(t.run(&["SET", "h", "x"]), ok());
    assert_eq!(t.run(&["GET", "h"]), bulk("x"));
}

#[test]
fn hdel_deletes_the_hash_with_its_last_field() {
    let mut t = engine();
    t.run(&["HSET", "h", "a", "1", "b", "2", "c", "3"]);
    assert_eq!(t.run(&["HDEL", "h", "a", "zz", "a"]), int(1));
    assert_eq!(t.run(&["HKEYS", "h"]), bulks(&["b", "c"]));
    assert_eq!(t.run(&["HDEL", "nokey", "a"]), int(0));
    assert_eq!(t.run(&["HDEL", "h", "b", "c"]), int(2));
    assert_eq!(t.run(&["EXISTS", "h"]), int(0));
    assert_eq!(t.run(&["TYPE", "h"]), Reply::status("none"));
    assert_eq!(t.engine.store().len(), 0);
    assert_eq!(used(&t), 0);
}

#[test]
fn hsetnx_sets_only_new_fields() {
    let mut t = engine();
    assert_eq!(t.run(&["HSETNX", "h", "f", "1"]), int(1));
    assert_eq!(t.run(&["HSETNX", "h", "f", "2"]), int(0));
    assert_eq!(t.run(&["HGET", "h", "f"]), bulk("1"));
    assert_eq!(t.run(&["HSETNX", "h", "g", "2"]), int(1));
    assert_eq!(t.run(&["HLEN", "h"]), int(2));
}

#[test]
fn hincrby_counts_and_refuses_what_is_not_an_integer() {
    let mut t = engine();
    assert_eq!(t.run(&["HINCRBY", "h", "n", "5"]), int(5));
    assert_eq!(t.run(&["HINCRBY", "h", "n", "-7"]), int(-2));
    assert_eq!(t.run(&["HGET", "h", "n"]), bulk("-2"));
    assert_eq!(t.run(&["HINCRBY", "h", "x", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["HINCRBY", "h", "x", "1.5"]), err(NOT_INT));
    assert_eq!(t.run(&["HINCRBY", "h", "x", "99999999999999999999"]), err(NOT_INT));
    // The increment is parsed before the key is looked at.
    t.run(&["SET", "s", "v"]);
    assert_eq!(t.run(&["HINCRBY", "s", "f", "x"]), err(NOT_INT));
    for bad in ["abc", " 1", "1.0", "", "01", "99999999999999999999"] {
        t.run(&["HSET", "h", "bad", bad]);
        assert_eq!(t.run(&["HINCRBY", "h", "bad", "1"]), err("ERR hash value is not an integer"), "{bad:?}");
        assert_eq!(t.run(&["HGET", "h", "bad"]), bulk(bad));
    }
    t.run(&["HSET", "h", "max", "9223372036854775807", "min", "-9223372036854775808"]);
    let overflow = err("ERR increment or decrement would overflow");
    assert_eq!(t.run(&["HINCRBY", "h", "max", "1"]), overflow);
    assert_eq!(t.run(&["HINCRBY", "h", "min", "-1"]), overflow);
    assert_eq!(t.run(&["HINCRBY", "h", "min", "9223372036854775807"]), int(-1));
    assert_eq!(t.run(&["HINCRBY", "h", "new", "-9223372036854775808"]), int(i64::MIN));
    // A failed increment creates nothing.
    assert_eq!(t.run(&["HINCRBY", "nokey", "f", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["EXISTS", "nokey"]), int(0));
}

#[test]
fn hincrbyfloat_matches_redis_output_and_errors() {
    let mut t = engine();
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "f", "0.1"]), bulk("0.1"));
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "f", "0.2"]), bulk("0.3"));
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "f", "-0.3"]), bulk("0"));
    t.run(&["HSET", "h", "e", "5.0e3", "i", "7"]);
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "e", "2.0e2"]), bulk("5200"));
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "i", "1"]), bulk("8"));
    assert_eq!(t.run(&["HGET", "h", "e"]), bulk("5200"));
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "x", "10.50"]), bulk("10.5"));
    for bad in ["abc", "", " 1", "nan", "1e5000"] {
        assert_eq!(t.run(&["HINCRBYFLOAT", "h", "f", bad]), err(NOT_FLOAT), "{bad:?}");
    }
    for inf in ["inf", "-inf", "+inf", "infinity"] {
        assert_eq!(t.run(&["HINCRBYFLOAT", "h", "f", inf]), err("ERR value is NaN or Infinity"), "{inf}");
    }
    t.run(&["HSET", "h", "word", "one", "big", "1e4932", "inf", "inf"]);
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "word", "1"]), err("ERR hash value is not a float"));
    let nan_inf = err("ERR increment would produce NaN or Infinity");
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "big", "1e4932"]), nan_inf);
    assert_eq!(t.run(&["HINCRBYFLOAT", "h", "inf", "1"]), nan_inf);
    assert_eq!(t.run(&["HGET", "h", "big"]), bulk("1e4932"));
    t.run(&["SET", "s", "v"]);
    assert_eq!(t.run(&["HINCRBYFLOAT", "s", "f", "x"]), err(NOT_FLOAT));
    assert_eq!(t.run(&["HINCRBYFLOAT", "s", "f", "1"]), err(WRONGTYPE));
    assert_eq!(t.run(&["HINCRBYFLOAT", "nokey", "f", "inf"]), err("ERR value is NaN or Infinity"));
    assert_eq!(t.run(&["EXISTS", "nokey"]), int(0));
}

#[test]
fn hrandfield_without_count() {
    let mut t = engine();
    assert_eq!(t.run(&["HRANDFIELD", "nokey"]), nil());
    t.run(&["HSET", "h", "a", "1", "b", "2", "c", "3"]);
    let mut seen = BTreeSet::new();
    for _ in 0..200 {
        match t.run(&["HRANDFIELD", "h"]) {
            Reply::Bulk(f) => seen.insert(String::from_utf8(f).unwrap_or_default()),
            other => panic!("{other:?}"),
        };
    }
    assert_eq!(seen, BTreeSet::from(["a".to_string(), "b".into(), "c".into()]));
}

#[test]
fn hrandfield_with_count() {
    let mut t = engine();
    assert_eq!(t.run(&["HRANDFIELD", "nokey", "5"]), arr(vec![]));
    assert_eq!(t.run(&["HRANDFIELD", "nokey", "-5", "WITHVALUES"]), arr(vec![]));
    let fields: Vec<String> = (0..20).map(|i| format!("f{i}")).collect();
    for f in &fields {
        t.run(&["HSET", "h", f, &format!("v{}", &f[1..])]);
    }
    assert_eq!(t.run(&["HRANDFIELD", "h", "0"]), arr(vec![]));
    assert_eq!(t.run(&["HRANDFIELD", "h", "0", "WITHVALUES"]), arr(vec![]));
    // A positive count: distinct fields, at most the whole hash.
    for n in [1usize, 5, 7, 19, 20, 21, 1000] {
        let got = strings(t.run(&["HRANDFIELD", "h", &n.to_string()]));
        assert_eq!(got.len(), n.min(20), "{n}");
        assert_eq!(got.iter().collect::<BTreeSet<_>>().len(), got.len(), "{n}: {got:?}");
        assert!(got.iter().all(|f| fields.contains(f)));
    }
    assert_eq!(strings(t.run(&["HRANDFIELD", "h", "9223372036854775807"])).len(), 20);
    // A negative count: exactly that many, repeats allowed.
    let got = strings(t.run(&["HRANDFIELD", "h", "-100"]));
    assert_eq!(got.len(), 100);
    assert!(got.iter().all(|f| fields.contains(f)));
    assert!(got.iter().collect::<BTreeSet<_>>().len() < 100);
    // WITHVALUES: pairs, flat in RESP2, nested in RESP3.
    let flat = strings(t.run(&["HRANDFIELD", "h", "-6", "withvalues"]));
    assert_eq!(flat.len(), 12);
    for pair in flat.chunks(2) {
        assert_eq!(pair[1], format!("v{}", &pair[0][1..]));
    }
    let flat = strings(t.run(&["HRANDFIELD", "h", "30", "WITHVALUES"]));
    assert_eq!(flat.len(), 40);
    t.session.resp3 = true;
    match t.run(&["HRANDFIELD", "h", "3", "WITHVALUES"]) {
        Reply::Array(pairs) => {
            assert_eq!(pairs.len(), 3);
            for pair in pairs {
                let pair = strings(pair);
                assert_eq!(pair[1], format!("v{}", &pair[0][1..]));
            }
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn hrandfield_errors_and_huge_counts() {
    let mut t = engine();
    t.run(&["HSET", "h", "a", "1"]);
    assert_eq!(t.run(&["HRANDFIELD", "h", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["HRANDFIELD", "nokey", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["HRANDFIELD", "h", "1", "x"]), err(SYNTAX));
    assert_eq!(t.run(&["HRANDFIELD", "h", "1", "WITHVALUES", "x"]), err(SYNTAX));
    assert_eq!(t.run(&["HRANDFIELD", "h", "x", "x"]), err(NOT_INT));
    assert_eq!(
        t.run(&["HRANDFIELD", "h", "-9223372036854775808"]),
        err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
    );
    let range = err("ERR value is out of range");
    assert_eq!(t.run(&["HRANDFIELD", "h", "9223372036854775807", "WITHVALUES"]), range);
    assert_eq!(t.run(&["HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"]), range);
    // Redis would try to build these replies and run out of memory; Vitrine refuses a
    // reply past proto-max-bulk-len before allocating it.
    let too_big = err("ERR value is out of range, the reply would exceed proto-max-bulk-len");
    assert_eq!(t.run(&["HRANDFIELD", "h", "-9223372036854775807"]), too_big);
    assert_eq!(t.run(&["HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES"]), too_big);
    assert_eq!(t.run(&["HRANDFIELD", "h", "-10000000"]), too_big);
    assert_eq!(strings(t.run(&["HRANDFIELD", "h", "-1000"])).len(), 1000);
    t.engine.config().set("proto-max-bulk-len", "1mb").unwrap();
    assert_eq!(t.run(&["HRANDFIELD", "h", "-100000"]), too_big);
    // A missing key answers an empty array whatever the count.
    assert_eq!(t.run(&["HRANDFIELD", "nokey", "-9223372036854775807"]), arr(vec![]));
}

#[test]
fn hscan_small_and_big() {
    let mut t = engine();
    assert_eq!(t.run(&["HSCAN", "nokey", "0"]), arr(vec![bulk("0"), arr(vec![])]));
    // A missing key answers before options are checked, as in Redis.
    assert_eq!(t.run(&["HSCAN", "nokey", "0", "BOGUS"]), arr(vec![bulk("0"), arr(vec![])]));
    t.run(&["HSET", "h", "a", "1", "b", "2", "ab", "3"]);
    let all = arr(vec![bulk("0"), bulks(&["a", "1", "b", "2", "ab", "3"])]);
    assert_eq!(t.run(&["HSCAN", "h", "0"]), all);
    // A small hash comes whole whatever the cursor and count.
    assert_eq!(t.run(&["HSCAN", "h", "123", "COUNT", "1"]), all);
    assert_eq!(t.run(&["HSCAN", "h", "-1"]), all);
    assert_eq!(t.run(&["HSCAN", "h", "0", "MATCH", "a*"]), arr(vec![bulk("0"), bulks(&["a", "1", "ab", "3"])]));
    assert_eq!(t.run(&["HSCAN", "h", "0", "match", "*", "count", "5"]), all);
    assert_eq!(t.run(&["HSCAN", "h", "0", "MATCH", "z*", "MATCH", "b"]), arr(vec![bulk("0"), bulks(&["b", "2"])]));
    assert_eq!(t.run(&["HSCAN", "h", "x"]), err("ERR invalid cursor"));
    assert_eq!(t.run(&["HSCAN", "h", "18446744073709551616"]), err("ERR invalid cursor"));
    for bad in [
        &["HSCAN", "h", "0", "COUNT", "0"][..],
        &["HSCAN", "h", "0", "COUNT", "-1"],
        &["HSCAN", "h", "0", "MATCH"],
        &["HSCAN", "h", "0", "COUNT"],
        &["HSCAN", "h", "0", "TYPE", "hash"],
        &["HSCAN", "h", "0", "NOVALUES"],
        &["HSCAN", "h", "0", "FOO", "bar"],
    ] {
        assert_eq!(t.run(bad), err(SYNTAX), "{bad:?}");
    }
    assert_eq!(t.run(&["HSCAN", "h", "0", "COUNT", "x"]), err(NOT_INT));

    // A big hash: a full iteration returns every field, in pages of about COUNT.
    for i in 0..500 {
        t.run(&["HSET", "big", &format!("f{i}"), &i.to_string()]);
    }
    let mut seen = BTreeMap::new();
    let mut cursor = "0".to_string();
    let mut pages = 0;
    loop {
        let Reply::Array(page) = t.run(&["HSCAN", "big", &cursor, "COUNT", "50"]) else { panic!() };
        let items = strings(page[1].clone());
        assert!(items.len() <= 100);
        for pair in items.chunks(2) {
            seen.insert(pair[0].clone(), pair[1].clone());
        }
        cursor = strings(arr(vec![page[0].clone()])).remove(0);
        pages += 1;
        if cursor == "0" {
            break;
        }
    }
    assert_eq!(pages, 10);
    assert_eq!(seen.len(), 500);
    assert!(seen.iter().all(|(f, v)| f[1..] == *v));
    let Reply::Array(page) = t.run(&["HSCAN", "big", "0", "MATCH", "f1?", "COUNT", "1000"]) else { panic!() };
    assert_eq!(page[0], bulk("0"));
    assert_eq!(strings(page[1].clone()).len(), 20);
}

#[test]
fn encoding_follows_redis_thresholds() {
    let mut t = engine();
    let enc = |t: &mut TestEngine, k: &str| t.run(&["OBJECT", "ENCODING", k]);
    t.run(&["HSET", "h", "f", &"v".repeat(64)]);
    assert_eq!(enc(&mut t, "h"), bulk("listpack"));
    t.run(&["HSET", "h", "g", &"v".repeat(65)]);
    assert_eq!(enc(&mut t, "h"), bulk("hashtable"));
    // Once a hashtable, always a hashtable.
    t.run(&["HDEL", "h", "g"]);
    assert_eq!(enc(&mut t, "h"), bulk("hashtable"));
    t.run(&["HSET", "k", &"f".repeat(65), "v"]);
    assert_eq!(enc(&mut t, "k"), bulk("hashtable"));
    for i in 0..128 {
        t.run(&["HSET", "n", &i.to_string(), "v"]);
    }
    assert_eq!(enc(&mut t, "n"), bulk("listpack"));
    t.run(&["HSET", "n", "128", "v"]);
    assert_eq!(enc(&mut t, "n"), bulk("hashtable"));
    // A long field written by HINCRBY or a long result of HINCRBYFLOAT converts too
    // (Redis 7.0.15).
    t.run(&["HINCRBY", "i", &"f".repeat(65), "1"]);
    assert_eq!(enc(&mut t, "i"), bulk("hashtable"));
    t.run(&["HINCRBYFLOAT", "x", "f", "1e100"]);
    assert_eq!(enc(&mut t, "x"), bulk("hashtable"));
    // HSETNX on an existing field writes nothing, so nothing converts.
    t.run(&["HSET", "nx", "f", "1"]);
    t.run(&["HSETNX", "nx", "f", &"v".repeat(65)]);
    assert_eq!(enc(&mut t, "nx"), bulk("listpack"));
}

#[test]
fn writes_keep_the_ttl_and_new_hashes_get_the_default_ttl() {
    let mut t = engine();
    t.run(&["HSET", "h", "f", "1"]);
    t.run(&["EXPIRE", "h", "100"]);
    let at = t.now + 100_000;
    t.run(&["HSET", "h", "g", "2"]);
    t.run(&["HINCRBY", "h", "f", "1"]);
    t.run(&["HINCRBYFLOAT", "h", "f", "1"]);
    t.run(&["HSETNX", "h", "x", "1"]);
    t.run(&["HDEL", "h", "x"]);
    assert_eq!(expire_at(&t, "h"), Some(at));
    t.advance(100_000);
    assert_eq!(t.run(&["HGET", "h", "f"]), nil());
    assert_eq!(t.run(&["HLEN", "h"]), int(0));
    assert_eq!(used(&t), 0);
    t.engine.config().set("default-ttl", "60").unwrap();
    for cmd in [
        &["HSET", "a", "f", "v"][..],
        &["HMSET", "b", "f", "v"],
        &["HSETNX", "c", "f", "v"],
        &["HINCRBY", "d", "f", "1"],
        &["HINCRBYFLOAT", "e", "f", "1"],
    ] {
        t.run(cmd);
        assert_eq!(expire_at(&t, cmd[1]), Some(t.now + 60_000), "{cmd:?}");
    }
}

#[test]
fn memory_returns_to_baseline_when_a_hash_shrinks() {
    let mut t = engine();
    t.run(&["SET", "other", "x"]);
    let baseline = used(&t);
    t.run(&["HSET", "h", "seed", "1"]);
    let one = used(&t);
    assert!(one > baseline);
    let usage = |t: &mut TestEngine| match t.run(&["MEMORY", "USAGE", "h"]) {
        Reply::Int(n) => n as usize,
        other => panic!("{other:?}"),
    };
    assert_eq!(usage(&mut t), one - baseline);
    for i in 0..300 {
        let value = "v".repeat(i % 100);
        t.run(&["HSET", "h", &format!("field:{i}"), &value]);
    }
    let grown = used(&t);
    assert!(grown > one + 300 * 50, "{grown}");
    assert_eq!(usage(&mut t), grown - baseline);
    // Values change size in place; counters rewrite theirs.
    for i in 0..300 {
        t.run(&["HSET", "h", &format!("field:{i}"), "short"]);
    }
    t.run(&["HINCRBY", "h", "n", "12345"]);
    t.run(&["HINCRBYFLOAT", "h", "n", "0.5"]);
    t.run(&["HDEL", "h", "n"]);
    assert!(used(&t) < grown);
    for i in 0..300 {
        t.run(&["HDEL", "h", &format!("field:{i}")]);
    }
    assert_eq!(used(&t), one);
    t.run(&["HSET", "h", "more", "x".repeat(500).as_str()]);
    assert_eq!(t.run(&["DEL", "h"]), int(1));
    assert_eq!(used(&t), baseline);
    t.run(&["DEL", "other"]);
    assert_eq!(used(&t), 0);
}
