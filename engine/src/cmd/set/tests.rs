//! Unit tests of the set family, through the command table.

use std::collections::BTreeSet;

use crate::reply::Reply;
use crate::store::Touch;
use crate::testing::{arity, arr, bulk, err, int, nil, TestEngine, NOT_INT, POSITIVE, SYNTAX, WRONGTYPE};

fn engine() -> TestEngine {
    TestEngine::default()
}

fn set_of(items: &[&str]) -> Reply {
    Reply::Set(items.iter().map(|s| bulk(s)).collect())
}

/// The strings of an array or set reply (panics on anything else).
fn strings(reply: Reply) -> Vec<String> {
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

/// The members of a reply, in any order.
fn sorted(reply: Reply) -> Vec<String> {
    let mut v = strings(reply);
    v.sort();
    v
}

fn expire_at(t: &TestEngine, key: &str) -> Option<u64> {
    let store = t.engine.store();
    let mut shard = store.lock_shard(store.stripe_index(key.as_bytes()));
    shard.lookup(key.as_bytes(), t.now, Touch::No).map(|e| e.expire_at)
}

fn used(t: &TestEngine) -> usize {
    t.engine.store().used_memory()
}

fn encoding(t: &mut TestEngine, key: &str) -> Reply {
    t.run(&["OBJECT", "ENCODING", key])
}

#[test]
fn sadd_srem_and_membership() {
    let mut t = engine();
    assert_eq!(t.run(&["SADD", "s", "3", "1", "2", "1"]), int(3));
    assert_eq!(t.run(&["SADD", "s", "2", "4"]), int(1));
    // A small integer set lists its members sorted, as Redis's intset.
    assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["1", "2", "3", "4"]));
    assert_eq!(t.run(&["SADD", "s", "x", "-5"]), int(2));
    // Then in insertion order, as Redis 7.2's listpack.
    assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["1", "2", "3", "4", "x", "-5"]));
    assert_eq!(t.run(&["SCARD", "s"]), int(6));
    assert_eq!(t.run(&["SCARD", "nokey"]), int(0));
    assert_eq!(t.run(&["SISMEMBER", "s", "x"]), int(1));
    assert_eq!(t.run(&["SISMEMBER", "s", "y"]), int(0));
    assert_eq!(t.run(&["SISMEMBER", "nokey", "x"]), int(0));
    assert_eq!(t.run(&["SMISMEMBER", "s", "1", "y", "x"]), arr(vec![int(1), int(0), int(1)]));
    assert_eq!(t.run(&["SMISMEMBER", "nokey", "1", "2"]), arr(vec![int(0), int(0)]));
    assert_eq!(t.run(&["SMEMBERS", "nokey"]), set_of(&[]));
    assert_eq!(t.run(&["SREM", "s", "1", "y", "1", "x"]), int(2));
    assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["2", "3", "4", "-5"]));
    assert_eq!(t.run(&["SREM", "nokey", "1"]), int(0));
    assert_eq!(t.run(&["TYPE", "s"]), Reply::status("set"));
    assert_eq!(t.run(&["SREM", "s", "2", "3", "4", "-5"]), int(4));
    assert_eq!(t.run(&["EXISTS", "s"]), int(0));
    assert_eq!(used(&t), 0);
    // Binary-safe members, the empty one too.
    assert_eq!(t.run(&[&b"SADD"[..], b"b", b"", b"\x00\xff", b"\r\n"]), int(3));
    assert_eq!(t.run(&["SISMEMBER", "b", ""]), int(1));
    assert_eq!(t.run(&[&b"SISMEMBER"[..], b"b", b"\x00\xff"]), int(1));
}

#[test]
fn replies_are_sets_in_resp3() {
    let mut t = engine();
    t.run(&["SADD", "s", "a"]);
    t.session.resp3 = true;
    assert_eq!(t.resp(&["SMEMBERS", "s"]), "~1\r\n$1\r\na\r\n");
    assert_eq!(t.resp(&["SINTER", "s"]), "~1\r\n$1\r\na\r\n");
    assert_eq!(t.resp(&["SUNION", "s"]), "~1\r\n$1\r\na\r\n");
    assert_eq!(t.resp(&["SDIFF", "s"]), "~1\r\n$1\r\na\r\n");
    assert_eq!(t.resp(&["SRANDMEMBER", "s", "1"]), "*1\r\n$1\r\na\r\n");
    assert_eq!(t.resp(&["SPOP", "nokey", "1"]), "~0\r\n");
    assert_eq!(t.resp(&["SPOP", "s", "1"]), "~1\r\n$1\r\na\r\n");
    assert_eq!(t.resp(&["SPOP", "s"]), "_\r\n");
    t.session.resp3 = false;
    assert_eq!(t.resp(&["SMEMBERS", "nokey"]), "*0\r\n");
    assert_eq!(t.resp(&["SPOP", "nokey"]), "$-1\r\n");
}

#[test]
fn arity_errors() {
    let mut t = engine();
    for (cmd, argv) in [
        ("sadd", &["SADD", "s"][..]),
        ("srem", &["SREM", "s"]),
        ("smembers", &["SMEMBERS"]),
        ("smembers", &["SMEMBERS", "a", "b"]),
        ("sismember", &["SISMEMBER", "s"]),
        ("smismember", &["SMISMEMBER", "s"]),
        ("scard", &["SCARD"]),
        ("spop", &["SPOP"]),
        ("srandmember", &["SRANDMEMBER"]),
        ("sinter", &["SINTER"]),
        ("sunion", &["SUNION"]),
        ("sdiff", &["SDIFF"]),
        ("sinterstore", &["SINTERSTORE", "d"]),
        ("sunionstore", &["SUNIONSTORE", "d"]),
        ("sdiffstore", &["SDIFFSTORE", "d"]),
        ("sintercard", &["SINTERCARD", "1"]),
        ("smove", &["SMOVE", "a", "b"]),
        ("smove", &["SMOVE", "a", "b", "c", "d"]),
        ("sscan", &["SSCAN", "s"]),
    ] {
        assert_eq!(t.run(argv), arity(cmd), "{argv:?}");
    }
    assert_eq!(t.run(&["SPOP", "s", "1", "2"]), err(SYNTAX));
    assert_eq!(t.run(&["SRANDMEMBER", "s", "1", "2"]), err(SYNTAX));
    assert_eq!(t.run(&["SRANDMEMBER", "s", "x", "2"]), err(SYNTAX));
}

#[test]
fn every_command_refuses_another_type() {
    let mut t = engine();
    t.run(&["SET", "str", "x"]);
    t.run(&["SADD", "s", "1"]);
    for cmd in [
        &["SADD", "str", "m"][..],
        &["SREM", "str", "m"],
        &["SMEMBERS", "str"],
        &["SISMEMBER", "str", "m"],
        &["SMISMEMBER", "str", "m"],
        &["SCARD", "str"],
        &["SPOP", "str"],
        &["SPOP", "str", "0"],
        &["SRANDMEMBER", "str"],
        &["SRANDMEMBER", "str", "0"],
        &["SRANDMEMBER", "str", "-5"],
        // Every key's type is checked, even after a missing key.
        &["SINTER", "nokey", "str"],
        &["SINTER", "s", "str"],
        &["SUNION", "s", "str"],
        &["SDIFF", "nokey", "str"],
        &["SDIFF", "s", "str"],
        &["SINTERSTORE", "d", "nokey", "str"],
        &["SUNIONSTORE", "d", "s", "str"],
        &["SDIFFSTORE", "d", "nokey", "str"],
        &["SINTERCARD", "1", "str"],
        &["SINTERCARD", "2", "nokey", "str"],
        &["SMOVE", "str", "s", "1"],
        &["SMOVE", "s", "str", "1"],
        &["SSCAN", "str", "0"],
        &["SSCAN", "str", "0", "BOGUS"],
    ] {
        assert_eq!(t.run(cmd), err(WRONGTYPE), "{cmd:?}");
    }
    assert_eq!(t.run(&["GET", "str"]), bulk("x"));
    assert_eq!(t.run(&["SMEMBERS", "s"]), set_of(&["1"]));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    assert_eq!(t.run(&["GET", "s"]), err(WRONGTYPE));
    assert_eq!(t.run(&["HGET", "s", "f"]), err(WRONGTYPE));
    t.run(&["HSET", "h", "f", "v"]);
    assert_eq!(t.run(&["SADD", "h", "m"]), err(WRONGTYPE));
}

#[test]
fn spop_removes_random_members() {
    let mut t = engine();
    assert_eq!(t.run(&["SPOP", "nokey"]), nil());
    assert_eq!(t.run(&["SPOP", "nokey", "3"]), set_of(&[]));
    for bad in ["-1", "x", "1.5", "-9223372036854775808"] {
        assert_eq!(t.run(&["SPOP", "nokey", bad]), err(POSITIVE), "{bad}");
    }
    let members: Vec<String> = (0..30).map(|i| format!("m{i}")).collect();
    let mut argv = vec!["SADD".to_string(), "s".into()];
    argv.extend(members.iter().cloned());
    t.run(&argv);
    assert_eq!(t.run(&["SPOP", "s", "0"]), set_of(&[]));
    let Reply::Bulk(one) = t.run(&["SPOP", "s"]) else { panic!() };
    let one = String::from_utf8(one).unwrap_or_default();
    assert!(members.contains(&one));
    assert_eq!(t.run(&["SISMEMBER", "s", &one]), int(0));
    let popped = strings(t.run(&["SPOP", "s", "9"]));
    assert_eq!(popped.len(), 9);
    assert_eq!(popped.iter().collect::<BTreeSet<_>>().len(), 9);
    assert!(!popped.contains(&one));
    assert_eq!(t.run(&["SCARD", "s"]), int(20));
    for m in &popped {
        assert_eq!(t.run(&["SISMEMBER", "s", m]), int(0));
    }
    // Popping at least everything answers everything and deletes the set.
    let rest = strings(t.run(&["SPOP", "s", "9223372036854775807"]));
    assert_eq!(rest.len(), 20);
    assert_eq!(t.run(&["EXISTS", "s"]), int(0));
    t.run(&["SADD", "s", "a"]);
    assert_eq!(t.run(&["SPOP", "s"]), bulk("a"));
    assert_eq!(t.run(&["EXISTS", "s"]), int(0));
    assert_eq!(used(&t), 0);
}

#[test]
fn spop_of_most_of_a_hashtable_picks_a_small_encoding_again() {
    let mut t = engine();
    let mut argv = vec!["SADD".to_string(), "s".into()];
    argv.extend((0..600).map(|i| i.to_string()));
    t.run(&argv);
    assert_eq!(encoding(&mut t, "s"), bulk("hashtable"));
    // 590 popped, 10 left: Redis builds a new set of what is left (5 × 10 <= 590).
    assert_eq!(strings(t.run(&["SPOP", "s", "590"])).len(), 590);
    assert_eq!(encoding(&mut t, "s"), bulk("intset"));
    let left = strings(t.run(&["SMEMBERS", "s"]));
    let mut numeric: Vec<i64> = left.iter().filter_map(|m| m.parse().ok()).collect();
    numeric.sort();
    assert_eq!(left, numeric.iter().map(|n| n.to_string()).collect::<Vec<_>>());
    // Popping fewer keeps the hashtable.
    t.run(&argv);
    t.run(&["SPOP", "s", "10"]);
    assert_eq!(encoding(&mut t, "s"), bulk("hashtable"));
}

#[test]
fn srandmember_with_and_without_count() {
    let mut t = engine();
    assert_eq!(t.run(&["SRANDMEMBER", "nokey"]), nil());
    assert_eq!(t.run(&["SRANDMEMBER", "nokey", "5"]), arr(vec![]));
    assert_eq!(t.run(&["SRANDMEMBER", "nokey", "-5"]), arr(vec![]));
    assert_eq!(t.run(&["SRANDMEMBER", "nokey", "x"]), err(NOT_INT));
    let members: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
    let mut argv = vec!["SADD".to_string(), "s".into()];
    argv.extend(members.iter().cloned());
    t.run(&argv);
    let mut seen = BTreeSet::new();
    for _ in 0..300 {
        seen.extend(strings(arr(vec![t.run(&["SRANDMEMBER", "s"])])));
    }
    assert_eq!(seen.len(), 20);
    assert_eq!(t.run(&["SRANDMEMBER", "s", "0"]), arr(vec![]));
    for n in [1usize, 6, 7, 19, 20, 21, 1000] {
        let got = strings(t.run(&["SRANDMEMBER", "s", &n.to_string()]));
        assert_eq!(got.len(), n.min(20), "{n}");
        assert_eq!(got.iter().collect::<BTreeSet<_>>().len(), got.len(), "{n}");
        assert!(got.iter().all(|m| members.contains(m)));
    }
    let got = strings(t.run(&["SRANDMEMBER", "s", "-100"]));
    assert_eq!(got.len(), 100);
    assert!(got.iter().all(|m| members.contains(m)));
    assert_eq!(t.run(&["SCARD", "s"]), int(20));
    // Huge counts: a positive one is bounded by the set, a negative one by the reply size.
    assert_eq!(strings(t.run(&["SRANDMEMBER", "s", "9223372036854775807"])).len(), 20);
    let too_big = err("ERR value is out of range, the reply would exceed proto-max-bulk-len");
    assert_eq!(t.run(&["SRANDMEMBER", "s", "-9223372036854775807"]), too_big);
    assert_eq!(t.run(&["SRANDMEMBER", "s", "-100000000"]), too_big);
    assert_eq!(
        t.run(&["SRANDMEMBER", "s", "-9223372036854775808"]),
        err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
    );
}

#[test]
fn the_set_algebra() {
    let mut t = engine();
    t.run(&["SADD", "a", "1", "2", "3", "4", "5"]);
    t.run(&["SADD", "b", "4", "5", "6", "7"]);
    t.run(&["SADD", "c", "5", "7", "9", "x"]);
    assert_eq!(sorted(t.run(&["SINTER", "a", "b"])), ["4", "5"]);
    assert_eq!(sorted(t.run(&["SINTER", "a", "b", "c"])), ["5"]);
    assert_eq!(sorted(t.run(&["SINTER", "a", "a"])), ["1", "2", "3", "4", "5"]);
    assert_eq!(t.run(&["SINTER", "a", "nokey"]), set_of(&[]));
    assert_eq!(t.run(&["SINTER", "nokey"]), set_of(&[]));
    assert_eq!(sorted(t.run(&["SUNION", "a", "b", "c"])), ["1", "2", "3", "4", "5", "6", "7", "9", "x"]);
    assert_eq!(sorted(t.run(&["SUNION", "nokey", "c"])), ["5", "7", "9", "x"]);
    assert_eq!(t.run(&["SUNION", "nokey"]), set_of(&[]));
    assert_eq!(sorted(t.run(&["SDIFF", "a", "b"])), ["1", "2", "3"]);
    assert_eq!(sorted(t.run(&["SDIFF", "a", "b", "c"])), ["1", "2", "3"]);
    assert_eq!(sorted(t.run(&["SDIFF", "c", "nokey", "a"])), ["7", "9", "x"]);
    assert_eq!(t.run(&["SDIFF", "nokey", "a"]), set_of(&[]));
    assert_eq!(t.run(&["SDIFF", "a", "a"]), set_of(&[]));
    // Integer results come sorted, as the intset Redis collects them into.
    assert_eq!(t.run(&["SUNION", "b", "a"]), set_of(&["1", "2", "3", "4", "5", "6", "7"]));

    // The STORE forms answer the size and replace the destination (type and TTL).
    t.run(&["SET", "d", "string", "EX", "100"]);
    assert_eq!(t.run(&["SINTERSTORE", "d", "a", "b"]), int(2));
    assert_eq!(sorted(t.run(&["SMEMBERS", "d"])), ["4", "5"]);
    assert_eq!(expire_at(&t, "d"), Some(0));
    assert_eq!(t.run(&["SUNIONSTORE", "d", "a", "c"]), int(8));
    assert_eq!(t.run(&["SCARD", "d"]), int(8));
    assert_eq!(t.run(&["SDIFFSTORE", "d", "a", "b"]), int(3));
    assert_eq!(sorted(t.run(&["SMEMBERS", "d"])), ["1", "2", "3"]);
    // The destination may be a source.
    assert_eq!(t.run(&["SUNIONSTORE", "d", "d", "b"]), int(7));
    assert_eq!(t.run(&["SDIFFSTORE", "d", "d", "a"]), int(2));
    assert_eq!(sorted(t.run(&["SMEMBERS", "d"])), ["6", "7"]);
    // An empty result deletes the destination.
    assert_eq!(t.run(&["SINTERSTORE", "d", "a", "nokey"]), int(0));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    t.run(&["SET", "d", "x"]);
    assert_eq!(t.run(&["SDIFFSTORE", "d", "a", "a"]), int(0));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    assert_eq!(t.run(&["SUNIONSTORE", "d", "nokey"]), int(0));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    // The encoding of a stored result is picked afresh.
    t.run(&["SINTERSTORE", "d", "a", "b"]);
    assert_eq!(encoding(&mut t, "d"), bulk("intset"));
    t.run(&["SUNIONSTORE", "d", "a", "c"]);
    assert_eq!(encoding(&mut t, "d"), bulk("listpack"));
    assert_eq!(t.run(&["TYPE", "d"]), Reply::status("set"));
}

#[test]
fn sintercard_counts_up_to_the_limit() {
    let mut t = engine();
    t.run(&["SADD", "a", "1", "2", "3", "4", "5"]);
    t.run(&["SADD", "b", "2", "3", "4", "9"]);
    assert_eq!(t.run(&["SINTERCARD", "2", "a", "b"]), int(3));
    assert_eq!(t.run(&["SINTERCARD", "1", "a"]), int(5));
    assert_eq!(t.run(&["SINTERCARD", "2", "a", "b", "LIMIT", "2"]), int(2));
    assert_eq!(t.run(&["SINTERCARD", "2", "a", "b", "limit", "0"]), int(3));
    assert_eq!(t.run(&["SINTERCARD", "2", "a", "b", "LIMIT", "5", "LIMIT", "1"]), int(1));
    assert_eq!(t.run(&["SINTERCARD", "2", "a", "nokey"]), int(0));
    let numkeys = err("ERR numkeys should be greater than 0");
    assert_eq!(t.run(&["SINTERCARD", "0", "a"]), numkeys);
    assert_eq!(t.run(&["SINTERCARD", "-1", "a"]), numkeys);
    assert_eq!(t.run(&["SINTERCARD", "x", "a"]), numkeys);
    assert_eq!(t.run(&["SINTERCARD", "3", "a", "b"]), err("ERR Number of keys can't be greater than number of args"));
    let negative = err("ERR LIMIT can't be negative");
    assert_eq!(t.run(&["SINTERCARD", "1", "a", "LIMIT", "-1"]), negative);
    assert_eq!(t.run(&["SINTERCARD", "1", "a", "LIMIT", "x"]), negative);
    assert_eq!(t.run(&["SINTERCARD", "1", "a", "LIMIT"]), err(SYNTAX));
    assert_eq!(t.run(&["SINTERCARD", "1", "a", "FOO"]), err(SYNTAX));
    assert_eq!(t.run(&["SINTERCARD", "1", "a", "b"]), err(SYNTAX));
}

#[test]
fn smove_moves_one_member() {
    let mut t = engine();
    t.run(&["SADD", "src", "a", "b"]);
    t.run(&["SADD", "dst", "b", "c"]);
    assert_eq!(t.run(&["SMOVE", "src", "dst", "a"]), int(1));
    assert_eq!(t.run(&["SMOVE", "src", "dst", "a"]), int(0));
    assert_eq!(t.run(&["SMEMBERS", "src"]), set_of(&["b"]));
    assert_eq!(sorted(t.run(&["SMEMBERS", "dst"])), ["a", "b", "c"]);
    // Already in the destination: still moved (it left the source).
    assert_eq!(t.run(&["SMOVE", "src", "dst", "b"]), int(1));
    assert_eq!(t.run(&["EXISTS", "src"]), int(0));
    assert_eq!(t.run(&["SCARD", "dst"]), int(3));
    // A missing source answers 0 before the destination's type is looked at.
    t.run(&["SET", "str", "x"]);
    assert_eq!(t.run(&["SMOVE", "nokey", "str", "a"]), int(0));
    assert_eq!(t.run(&["SMOVE", "dst", "str", "a"]), err(WRONGTYPE));
    assert_eq!(t.run(&["SCARD", "dst"]), int(3));
    // Source and destination the same: a membership test.
    assert_eq!(t.run(&["SMOVE", "dst", "dst", "a"]), int(1));
    assert_eq!(t.run(&["SMOVE", "dst", "dst", "z"]), int(0));
    assert_eq!(t.run(&["SCARD", "dst"]), int(3));
    // A new destination is created (with the encoding Redis picks for its member).
    assert_eq!(t.run(&["SMOVE", "dst", "new", "c"]), int(1));
    assert_eq!(t.run(&["SMEMBERS", "new"]), set_of(&["c"]));
    assert_eq!(encoding(&mut t, "new"), bulk("listpack"));
    t.run(&["SADD", "ints", "7"]);
    assert_eq!(t.run(&["SMOVE", "ints", "new2", "7"]), int(1));
    assert_eq!(encoding(&mut t, "new2"), bulk("intset"));
    assert_eq!(t.run(&["EXISTS", "ints"]), int(0));
}

#[test]
fn sscan_small_and_big() {
    let mut t = engine();
    assert_eq!(t.run(&["SSCAN", "nokey", "0"]), arr(vec![bulk("0"), arr(vec![])]));
    assert_eq!(t.run(&["SSCAN", "nokey", "0", "FOO"]), arr(vec![bulk("0"), arr(vec![])]));
    t.run(&["SADD", "s", "a", "b", "ab"]);
    let all = arr(vec![bulk("0"), arr(vec![bulk("a"), bulk("b"), bulk("ab")])]);
    assert_eq!(t.run(&["SSCAN", "s", "0"]), all);
    assert_eq!(t.run(&["SSCAN", "s", "77", "COUNT", "1"]), all);
    assert_eq!(t.run(&["SSCAN", "s", "0", "MATCH", "a*"]), arr(vec![bulk("0"), arr(vec![bulk("a"), bulk("ab")])]));
    assert_eq!(t.run(&["SSCAN", "s", "x"]), err("ERR invalid cursor"));
    assert_eq!(t.run(&["SSCAN", "s", "0", "COUNT", "0"]), err(SYNTAX));
    assert_eq!(t.run(&["SSCAN", "s", "0", "COUNT", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["SSCAN", "s", "0", "MATCH"]), err(SYNTAX));
    assert_eq!(t.run(&["SSCAN", "s", "0", "TYPE", "set"]), err(SYNTAX));
    // Intset members are matched as text.
    t.run(&["SADD", "i", "10", "2", "15", "100"]);
    assert_eq!(
        t.run(&["SSCAN", "i", "0", "MATCH", "1*"]),
        arr(vec![bulk("0"), arr(vec![bulk("10"), bulk("15"), bulk("100")])])
    );
    // A big set: a full iteration returns every member, in pages of about COUNT, even
    // while members are removed between pages.
    let mut argv = vec!["SADD".to_string(), "big".into()];
    argv.extend((0..1000).map(|i| format!("m{i}")));
    t.run(&argv);
    let mut seen = BTreeSet::new();
    let mut cursor = "0".to_string();
    let mut removed = 0;
    loop {
        let Reply::Array(page) = t.run(&["SSCAN", "big", &cursor, "COUNT", "30"]) else { panic!() };
        let items = strings(page[1].clone());
        assert!(items.len() <= 30);
        seen.extend(items);
        cursor = strings(arr(vec![page[0].clone()])).remove(0);
        t.run(&["SREM", "big", &format!("m{}", removed * 3)]);
        removed += 1;
        if cursor == "0" {
            break;
        }
    }
    for m in strings(t.run(&["SMEMBERS", "big"])) {
        assert!(seen.contains(&m), "{m}");
    }
}

#[test]
fn encodings_follow_redis_7_2() {
    let mut t = engine();
    t.run(&["SADD", "i", "1", "2"]);
    assert_eq!(encoding(&mut t, "i"), bulk("intset"));
    t.run(&["SADD", "i", "x"]);
    assert_eq!(encoding(&mut t, "i"), bulk("listpack"));
    t.run(&["SADD", "i", &"y".repeat(65)]);
    assert_eq!(encoding(&mut t, "i"), bulk("hashtable"));
    t.run(&["SREM", "i", &"y".repeat(65)]);
    assert_eq!(encoding(&mut t, "i"), bulk("hashtable"));
    t.run(&["SADD", "l", "a"]);
    assert_eq!(encoding(&mut t, "l"), bulk("listpack"));
    // A big SADD on a new key: as large as it needs at once.
    let mut argv = vec!["SADD".to_string(), "n".into()];
    argv.extend((0..513).map(|i| i.to_string()));
    t.run(&argv);
    assert_eq!(encoding(&mut t, "n"), bulk("hashtable"));
    argv.pop();
    argv[1] = "m".into();
    t.run(&argv);
    assert_eq!(encoding(&mut t, "m"), bulk("intset"));
    t.run(&["SADD", "m", "512"]);
    assert_eq!(encoding(&mut t, "m"), bulk("hashtable"));
}

#[test]
fn writes_keep_the_ttl_and_new_sets_get_the_default_ttl() {
    let mut t = engine();
    t.run(&["SADD", "s", "a", "b", "c"]);
    t.run(&["EXPIRE", "s", "100"]);
    let at = t.now + 100_000;
    t.run(&["SADD", "s", "d"]);
    t.run(&["SREM", "s", "d"]);
    t.run(&["SPOP", "s"]);
    t.run(&["SMOVE", "s", "other", "a"]);
    assert_eq!(expire_at(&t, "s"), Some(at));
    t.advance(100_000);
    assert_eq!(t.run(&["SCARD", "s"]), int(0));
    t.engine.config().set("default-ttl", "60").unwrap();
    t.run(&["SADD", "a", "1"]);
    t.run(&["SUNIONSTORE", "b", "a"]);
    t.run(&["SMOVE", "b", "c", "1"]);
    for key in ["a", "c"] {
        assert_eq!(expire_at(&t, key), Some(t.now + 60_000), "{key}");
    }
}

#[test]
fn memory_returns_to_baseline_when_a_set_shrinks() {
    let mut t = engine();
    t.run(&["SET", "other", "x"]);
    let baseline = used(&t);
    t.run(&["SADD", "s", "seed"]);
    let one = used(&t);
    assert!(one > baseline);
    for i in 0..600 {
        t.run(&["SADD", "s", &format!("{i}:{}", "m".repeat(i % 80))]);
    }
    let grown = used(&t);
    assert!(grown > one + 600 * 40, "{grown}");
    assert_eq!(t.run(&["MEMORY", "USAGE", "s"]), int((grown - baseline) as i64));
    for i in 0..300 {
        t.run(&["SREM", "s", &format!("{i}:{}", "m".repeat(i % 80))]);
    }
    t.run(&["SPOP", "s", "100"]);
    t.run(&["SMOVE", "s", "moved", "seed"]);
    t.run(&["SINTERSTORE", "copy", "s", "s"]);
    t.run(&["SUNIONSTORE", "copy", "copy", "moved"]);
    assert!(used(&t) < grown * 2);
    assert_eq!(t.run(&["DEL", "s", "moved", "copy"]), int(3));
    assert_eq!(used(&t), baseline);
    // Integers and the empty member too.
    t.run(&["SADD", "ints", "1", "-2", "300", ""]);
    t.run(&["SREM", "ints", "1", "-2", "300", ""]);
    assert_eq!(used(&t), baseline);
    t.run(&["DEL", "other"]);
    assert_eq!(used(&t), 0);
}

#[test]
fn writes_past_maxmemory_are_refused_under_noeviction() {
    let mut t = engine();
    t.run(&["SADD", "s", "a"]);
    t.run(&["HSET", "h", "f", "v"]);
    let before = used(&t);
    t.engine.config().set("maxmemory", &(before + 2000).to_string()).unwrap();
    let oom = err("OOM command not allowed when used memory > 'maxmemory'.");
    // The arguments alone would fit: the per-element overheads are what does not.
    let mut sadd = vec!["SADD".to_string(), "s".into()];
    sadd.extend((0..60).map(|i| format!("m{i}")));
    assert_eq!(t.run(&sadd), oom);
    let mut hset = vec!["HSET".to_string(), "h".into()];
    hset.extend((0..40).flat_map(|i| [format!("f{i}"), "v".into()]));
    assert_eq!(t.run(&hset), oom);
    assert_eq!(used(&t), before);
    // Smaller writes and removals go through.
    assert_eq!(t.run(&["SADD", "s", "b"]), int(1));
    assert_eq!(t.run(&["HSET", "h", "g", "w"]), int(1));
    assert_eq!(t.run(&["SREM", "s", "a", "b"]), int(2));
    assert!(used(&t) <= before + 2000);
}

#[test]
fn scan_type_and_keys_by_type_see_sets() {
    let mut t = engine();
    t.run(&["SADD", "s", "a"]);
    t.run(&["SET", "k", "v"]);
    assert_eq!(t.run(&["SCAN", "0", "TYPE", "set"]), arr(vec![bulk("0"), arr(vec![bulk("s")])]));
    assert_eq!(t.engine.snapshot(t.now).keys_by_type.set, 1);
}

/// Whether EXEC after `WATCH watched` and then `SMOVE argv...` runs (true) or is aborted.
fn exec_survives_smove(setup: &[&[&str]], watched: &str, smove: &[&str]) -> bool {
    let mut t = engine();
    for argv in setup {
        t.run(argv);
    }
    t.run(&["WATCH", watched]);
    t.run(smove);
    t.run(&["MULTI"]);
    t.run(&["PING"]);
    t.run(&["EXEC"]) != Reply::NilArray
}

#[test]
fn smove_breaks_a_watch_only_on_the_sets_it_changes() {
    let both: &[&[&str]] = &[&["SADD", "src", "a", "b"], &["SADD", "dst", "a"]];
    // The member is already in the destination: only the source changes (as in Redis).
    assert!(exec_survives_smove(both, "dst", &["SMOVE", "src", "dst", "a"]));
    assert!(!exec_survives_smove(both, "src", &["SMOVE", "src", "dst", "a"]));
    // A member new to the destination changes both.
    assert!(!exec_survives_smove(both, "dst", &["SMOVE", "src", "dst", "b"]));
    assert!(!exec_survives_smove(both, "src", &["SMOVE", "src", "dst", "b"]));
    // Nothing moved: neither changes.
    assert!(exec_survives_smove(both, "src", &["SMOVE", "src", "dst", "zz"]));
    assert!(exec_survives_smove(both, "dst", &["SMOVE", "src", "dst", "zz"]));
    assert!(exec_survives_smove(both, "src", &["SMOVE", "src", "src", "a"]));
    // The source emptied (and deleted) by the move is changed.
    let last: &[&[&str]] = &[&["SADD", "src", "a"], &["SADD", "dst", "a"]];
    assert!(!exec_survives_smove(last, "src", &["SMOVE", "src", "dst", "a"]));
    assert!(exec_survives_smove(last, "dst", &["SMOVE", "src", "dst", "a"]));
}

#[test]
fn smove_from_a_missing_set_breaks_no_watch() {
    let setup: &[&[&str]] = &[&["SADD", "dst", "a"]];
    assert!(exec_survives_smove(setup, "dst", &["SMOVE", "nosuch", "dst", "a"]));
    assert!(exec_survives_smove(setup, "dst", &["SMOVE", "nosuch", "dst", "b"]));
}
