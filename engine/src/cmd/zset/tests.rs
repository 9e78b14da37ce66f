//! Unit tests of the sorted set family, through the command table.

use crate::num::format_double;
use crate::reply::Reply;
use crate::testing::{arr, bulk, err, int, nil, TestEngine, NOT_FLOAT, NOT_INT, SYNTAX, WRONGTYPE};

fn dbl(d: f64) -> Reply {
    Reply::Double(d)
}

/// A RESP2 reply as a flat list of strings, the way redis-cli prints it.
fn strings(reply: Reply) -> Vec<String> {
    match reply {
        Reply::Array(items) => items.into_iter().flat_map(strings).collect(),
        Reply::Bulk(b) => vec![String::from_utf8_lossy(&b).into_owned()],
        Reply::Double(d) => vec![format_double(d)],
        Reply::Int(n) => vec![n.to_string()],
        Reply::Nil => vec!["(nil)".into()],
        other => panic!("unexpected reply {other:?}"),
    }
}

fn run(t: &mut TestEngine, argv: &[&str]) -> Vec<String> {
    strings(t.run(argv))
}

fn with(pairs: &[(&str, &str)]) -> TestEngine {
    let mut t = TestEngine::default();
    let mut argv = vec!["ZADD", "z"];
    for (score, member) in pairs {
        argv.push(score);
        argv.push(member);
    }
    assert_eq!(t.run(&argv), int(pairs.len() as i64));
    t
}

fn abcde() -> TestEngine {
    with(&[("1", "a"), ("2", "b"), ("3", "c"), ("4", "d"), ("5", "e")])
}

// ZADD and ZINCRBY

#[test]
fn zadd_adds_updates_and_counts() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["ZADD", "z", "1", "a", "2", "b"]), int(2));
    assert_eq!(t.run(&["ZADD", "z", "3", "a", "2", "b", "0", "c"]), int(1));
    assert_eq!(t.run(&["ZADD", "z", "CH", "4", "a", "2", "b", "0", "d"]), int(2));
    assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1", "WITHSCORES"]), ["c", "0", "d", "0", "b", "2", "a", "4"]);
    // A member given twice takes its last score.
    assert_eq!(t.run(&["ZADD", "y", "1", "m", "2", "m"]), int(1));
    assert_eq!(t.run(&["ZSCORE", "y", "m"]), dbl(2.0));
    assert_eq!(t.run(&["TYPE", "z"]), Reply::status("zset"));
}

#[test]
fn zadd_nx_xx_gt_lt() {
    let mut t = with(&[("1", "a"), ("2", "b")]);
    assert_eq!(t.run(&["ZADD", "z", "NX", "5", "a", "3", "c"]), int(1));
    assert_eq!(t.run(&["ZSCORE", "z", "a"]), dbl(1.0));
    assert_eq!(t.run(&["ZADD", "z", "XX", "5", "a", "3", "d"]), int(0));
    assert_eq!(t.run(&["ZSCORE", "z", "a"]), dbl(5.0));
    assert_eq!(t.run(&["ZSCORE", "z", "d"]), nil());
    assert_eq!(t.run(&["ZADD", "z", "GT", "CH", "1", "a", "9", "b", "1", "new"]), int(2));
    assert_eq!(t.run(&["ZMSCORE", "z", "a", "b", "new"]), arr(vec![dbl(5.0), dbl(9.0), dbl(1.0)]));
    assert_eq!(t.run(&["ZADD", "z", "LT", "CH", "1", "a", "10", "b"]), int(1));
    assert_eq!(t.run(&["ZADD", "z", "XX", "GT", "CH", "2", "a", "2", "nope"]), int(1));
    assert_eq!(t.run(&["ZADD", "z", "xx", "lt", "ch", "2", "a"]), int(0));
    // XX on a missing key creates nothing.
    assert_eq!(t.run(&["ZADD", "missing", "XX", "1", "a"]), int(0));
    assert_eq!(t.run(&["EXISTS", "missing"]), int(0));
}

#[test]
fn zadd_incr_and_zincrby() {
    let mut t = TestEngine::default();
    assert_eq!(t.run(&["ZINCRBY", "z", "2.5", "a"]), dbl(2.5));
    assert_eq!(t.run(&["ZINCRBY", "z", "-1", "a"]), dbl(1.5));
    assert_eq!(t.run(&["ZADD", "z", "INCR", "1", "a"]), dbl(2.5));
    assert_eq!(t.run(&["ZADD", "z", "NX", "INCR", "1", "a"]), nil());
    assert_eq!(t.run(&["ZADD", "z", "XX", "INCR", "1", "b"]), nil());
    assert_eq!(t.run(&["ZADD", "z", "GT", "INCR", "-1", "a"]), nil());
    assert_eq!(t.run(&["ZADD", "z", "GT", "INCR", "1", "a"]), dbl(3.5));
    assert_eq!(t.run(&["ZADD", "z", "INCR", "inf", "a"]), dbl(f64::INFINITY));
    assert_eq!(t.run(&["ZADD", "z", "INCR", "-inf", "a"]), err("ERR resulting score is not a number (NaN)"));
    assert_eq!(t.run(&["ZINCRBY", "z", "-inf", "a"]), err("ERR resulting score is not a number (NaN)"));
    assert_eq!(t.run(&["ZSCORE", "z", "a"]), dbl(f64::INFINITY));
    assert_eq!(t.run(&["ZINCRBY", "z", "abc", "a"]), err(NOT_FLOAT));
    assert_eq!(t.run(&["ZINCRBY", "missing", "x", "a"]), err(NOT_FLOAT));
    // ZINCRBY goes through ZADD's parser, as in Redis: an option word there is an option.
    assert_eq!(t.run(&["ZINCRBY", "z", "nx", "a"]), err(SYNTAX));
    assert_eq!(t.run(&["ZINCRBY", "z", "1"]), err("ERR wrong number of arguments for 'zincrby' command"));
}

#[test]
fn zadd_errors_in_redis_order() {
    let mut t = TestEngine::default();
    t.run(&["SET", "s", "v"]);
    assert_eq!(
        t.run(&["ZADD", "z", "NX", "XX", "1", "a"]),
        err("ERR XX and NX options at the same time are not compatible")
    );
    let gtlt = "ERR GT, LT, and/or NX options at the same time are not compatible";
    assert_eq!(t.run(&["ZADD", "z", "GT", "LT", "1", "a"]), err(gtlt));
    assert_eq!(t.run(&["ZADD", "z", "NX", "GT", "1", "a"]), err(gtlt));
    assert_eq!(t.run(&["ZADD", "z", "LT", "NX", "1", "a"]), err(gtlt));
    assert_eq!(
        t.run(&["ZADD", "z", "INCR", "1", "a", "2", "b"]),
        err("ERR INCR option supports a single increment-element pair")
    );
    assert_eq!(t.run(&["ZADD", "z", "1", "a", "2"]), err(SYNTAX));
    assert_eq!(t.run(&["ZADD", "z", "NX", "XX"]), err(SYNTAX));
    assert_eq!(t.run(&["ZADD", "z", "NX"]), err("ERR wrong number of arguments for 'zadd' command"));
    // Syntax before conflicts, conflicts before scores, scores before the key's type.
    assert_eq!(t.run(&["ZADD", "z", "NX", "XX", "1"]), err(SYNTAX));
    assert_eq!(
        t.run(&["ZADD", "s", "NX", "XX", "abc", "a"]),
        err("ERR XX and NX options at the same time are not compatible")
    );
    assert_eq!(t.run(&["ZADD", "s", "abc", "a"]), err(NOT_FLOAT));
    assert_eq!(t.run(&["ZADD", "s", "1", "a"]), err(WRONGTYPE));
    assert_eq!(t.run(&["ZINCRBY", "s", "1", "a"]), err(WRONGTYPE));
    // All or nothing: a bad score anywhere writes nothing.
    assert_eq!(t.run(&["ZADD", "z", "1", "a", "x", "b"]), err(NOT_FLOAT));
    assert_eq!(t.run(&["EXISTS", "z"]), int(0));
}

#[test]
fn scores_parse_as_strtod_without_leftovers() {
    let mut t = TestEngine::default();
    for (text, want) in [
        ("1.5", 1.5),
        ("-2", -2.0),
        ("+3", 3.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e3", 1000.0),
        ("1E-2", 0.01),
        ("0x10", 16.0),
        ("0X1.8p1", 3.0),
        ("0x.8", 0.5),
        ("inf", f64::INFINITY),
        ("-Infinity", f64::NEG_INFINITY),
        ("+inf", f64::INFINITY),
        ("1e-310", 1e-310),
    ] {
        assert_eq!(t.run(&["ZADD", "z", text, "m"]), int(1), "{text}");
        assert_eq!(t.run(&["ZSCORE", "z", "m"]), dbl(want), "{text}");
        t.run(&["DEL", "z"]);
    }
    for bad in [
        "", " 1", "1 ", "abc", "nan", "-nan", "1e", "1e+", "0x", "1.5.5", "1e5000", "-1e5000", "1e-400", "1,5", "--1",
        "1\0",
    ] {
        assert_eq!(t.run(&["ZADD", "z", bad, "m"]), err(NOT_FLOAT), "{bad:?}");
    }
}

#[test]
fn negative_zero_as_redis_7_0() {
    let mut t = TestEngine::default();
    // The reply carries the computed -0, the listpack stores it as 0.
    assert_eq!(t.resp(&["ZINCRBY", "z", "-0", "m"]), "$2\r\n-0\r\n");
    assert_eq!(t.resp(&["ZSCORE", "z", "m"]), "$1\r\n0\r\n");
    let long = "x".repeat(70);
    assert_eq!(t.run(&["ZADD", "big", "-0", &long]), int(1));
    assert_eq!(t.resp(&["ZSCORE", "big", &long]), "$2\r\n-0\r\n");
}

// Members, scores, ranks

#[test]
fn zrem_zscore_zmscore_zcard() {
    let mut t = abcde();
    assert_eq!(t.run(&["ZREM", "z", "a", "x", "a", "b"]), int(2));
    assert_eq!(t.run(&["ZCARD", "z"]), int(3));
    assert_eq!(t.run(&["ZSCORE", "z", "c"]), dbl(3.0));
    assert_eq!(t.run(&["ZSCORE", "z", "a"]), nil());
    assert_eq!(t.run(&["ZMSCORE", "z", "c", "a", "e"]), arr(vec![dbl(3.0), nil(), dbl(5.0)]));
    assert_eq!(t.run(&["ZMSCORE", "missing", "a", "b"]), arr(vec![nil(), nil()]));
    assert_eq!(t.run(&["ZSCORE", "missing", "a"]), nil());
    assert_eq!(t.run(&["ZCARD", "missing"]), int(0));
    assert_eq!(t.run(&["ZREM", "missing", "a"]), int(0));
    // The last member takes the key with it.
    assert_eq!(t.run(&["ZREM", "z", "c", "d", "e"]), int(3));
    assert_eq!(t.run(&["EXISTS", "z"]), int(0));
}

#[test]
fn ranks() {
    let mut t = abcde();
    assert_eq!(t.run(&["ZRANK", "z", "a"]), int(0));
    assert_eq!(t.run(&["ZRANK", "z", "e"]), int(4));
    assert_eq!(t.run(&["ZREVRANK", "z", "a"]), int(4));
    assert_eq!(t.run(&["ZREVRANK", "z", "d"]), int(1));
    assert_eq!(t.run(&["ZRANK", "z", "x"]), nil());
    assert_eq!(t.run(&["ZREVRANK", "missing", "x"]), nil());
}

#[test]
fn wrong_type_for_every_command() {
    let mut t = TestEngine::default();
    t.run(&["SET", "s", "v"]);
    for argv in [
        &["ZADD", "s", "1", "a"][..],
        &["ZINCRBY", "s", "1", "a"],
        &["ZREM", "s", "a"],
        &["ZSCORE", "s", "a"],
        &["ZMSCORE", "s", "a"],
        &["ZCARD", "s"],
        &["ZCOUNT", "s", "0", "1"],
        &["ZLEXCOUNT", "s", "-", "+"],
        &["ZRANK", "s", "a"],
        &["ZREVRANK", "s", "a"],
        &["ZRANGE", "s", "0", "1"],
        &["ZREVRANGE", "s", "0", "1"],
        &["ZRANGEBYSCORE", "s", "0", "1"],
        &["ZREVRANGEBYSCORE", "s", "1", "0"],
        &["ZRANGEBYLEX", "s", "-", "+"],
        &["ZREVRANGEBYLEX", "s", "+", "-"],
        &["ZPOPMIN", "s"],
        &["ZPOPMAX", "s", "0"],
        &["ZREMRANGEBYRANK", "s", "0", "1"],
        &["ZREMRANGEBYSCORE", "s", "0", "1"],
        &["ZREMRANGEBYLEX", "s", "-", "+"],
        &["ZUNIONSTORE", "d", "1", "s"],
        &["ZINTERSTORE", "d", "1", "s"],
        &["ZSCAN", "s", "0"],
    ] {
        assert_eq!(t.run(argv), err(WRONGTYPE), "{argv:?}");
    }
    assert_eq!(t.run(&["GET", "s"]), bulk("v"));
}

// ZRANGE family

#[test]
fn zrange_by_rank() {
    let mut t = abcde();
    assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1"]), ["a", "b", "c", "d", "e"]);
    assert_eq!(run(&mut t, &["ZRANGE", "z", "1", "2", "WITHSCORES"]), ["b", "2", "c", "3"]);
    assert_eq!(run(&mut t, &["ZRANGE", "z", "-2", "100"]), ["d", "e"]);
    assert_eq!(run(&mut t, &["ZRANGE", "z", "-100", "0"]), ["a"]);
    assert_eq!(run(&mut t, &["ZRANGE", "z", "3", "1"]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZRANGE", "z", "5", "10"]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "1", "REV"]), ["e", "d"]);
    assert_eq!(run(&mut t, &["ZREVRANGE", "z", "0", "1", "WITHSCORES"]), ["e", "5", "d", "4"]);
    assert_eq!(run(&mut t, &["ZREVRANGE", "z", "-1", "-1"]), ["a"]);
    let min = i64::MIN.to_string();
    let max = i64::MAX.to_string();
    assert_eq!(run(&mut t, &["ZRANGE", "z", &min, &max]).len(), 5);
    assert_eq!(t.run(&["ZRANGE", "z", "x", "1"]), err(NOT_INT));
    assert_eq!(t.run(&["ZRANGE", "missing", "0", "-1"]), arr(vec![]));
    // LIMIT with the default count -1 is accepted with ranks, as in Redis 7.0.
    assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1", "LIMIT", "3", "-1"]).len(), 5);
    assert_eq!(
        t.run(&["ZRANGE", "z", "0", "-1", "LIMIT", "1", "2"]),
        err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
    );
}

#[test]
fn zrange_by_score() {
    let mut t = abcde();
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "2", "4"]), ["b", "c", "d"]);
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "(2", "(4"]), ["c"]);
    assert_eq!(
        run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "1", "2"]),
        ["b", "2", "c", "3"]
    );
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "-1", "2"]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "-5"]), ["b", "c", "d", "e"]);
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "0"]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "10", "1"]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZREVRANGEBYSCORE", "z", "4", "2"]), ["d", "c", "b"]);
    assert_eq!(run(&mut t, &["ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", "1", "2"]), ["d", "c"]);
    assert_eq!(
        run(&mut t, &["ZRANGE", "z", "5", "(1", "BYSCORE", "REV", "LIMIT", "1", "2", "WITHSCORES"]),
        ["d", "4", "c", "3"]
    );
    assert_eq!(run(&mut t, &["ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", "0", "1", "LIMIT", "1", "1"]), ["c"]);
    // Bounds as strtod reads a C string: spaces before, "" is 0, "(" alone is (0, hex.
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", " 1", "(3"]), ["a", "b"]);
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "(", "3"]), ["a", "b", "c"]);
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "", ""]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "0x2", "3"]), ["b", "c"]);
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "-infinity", "1e5000"]).len(), 5);
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "4\0junk", "5"]), ["d", "e"]);
    assert_eq!(run(&mut t, &["ZRANGEBYSCORE", "z", "3", "2"]), Vec::<String>::new());
    for bad in ["1 ", "nan", "abc", "(nan", "((1", "1e"] {
        assert_eq!(t.run(&["ZRANGEBYSCORE", "z", bad, "3"]), err("ERR min or max is not a float"), "{bad:?}");
    }
}

#[test]
fn zrange_by_lex() {
    let mut t = with(&[("0", "a"), ("0", "b"), ("0", "c"), ("0", "d"), ("0", "e")]);
    assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "-", "+"]), ["a", "b", "c", "d", "e"]);
    assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "[b", "(d"]), ["b", "c"]);
    assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "(b", "[d", "LIMIT", "1", "5"]), ["d"]);
    assert_eq!(run(&mut t, &["ZRANGEBYLEX", "z", "+", "-"]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZREVRANGEBYLEX", "z", "[d", "-"]), ["d", "c", "b", "a"]);
    assert_eq!(run(&mut t, &["ZRANGE", "z", "[e", "[b", "BYLEX", "REV", "LIMIT", "0", "2"]), ["e", "d"]);
    assert_eq!(t.run(&["ZLEXCOUNT", "z", "[b", "+"]), int(4));
    assert_eq!(t.run(&["ZLEXCOUNT", "missing", "-", "+"]), int(0));
    for bad in ["a", "+x", "-x", "", "]a"] {
        assert_eq!(
            t.run(&["ZRANGEBYLEX", "z", bad, "+"]),
            err("ERR min or max not valid string range item"),
            "{bad:?}"
        );
    }
    assert_eq!(
        t.run(&["ZRANGEBYLEX", "z", "-", "+", "WITHSCORES"]),
        err("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
    );
    // Conflicts are found before the bounds are read.
    assert_eq!(
        t.run(&["ZRANGE", "z", "0", "1", "LIMIT", "0", "1", "BYLEX", "WITHSCORES"]),
        err("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
    );
}

#[test]
fn zrange_option_errors() {
    let mut t = abcde();
    t.run(&["SET", "s", "v"]);
    for argv in [
        &["ZRANGE", "z", "0", "-1", "REV", "REV"][..],
        &["ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX"],
        &["ZRANGEBYSCORE", "z", "0", "1", "REV"],
        &["ZRANGEBYSCORE", "z", "0", "1", "BYSCORE"],
        &["ZREVRANGE", "z", "0", "1", "BYSCORE"],
        &["ZRANGE", "z", "0", "-1", "LIMIT", "1"],
        &["ZRANGE", "z", "0", "1", "FOO"],
        &["ZRANGE", "s", "0", "1", "FOO"],
    ] {
        assert_eq!(t.run(argv), err(SYNTAX), "{argv:?}");
    }
    assert_eq!(t.run(&["ZRANGE", "z", "0", "-1", "BYSCORE", "LIMIT", "x", "1"]), err(NOT_INT));
    assert_eq!(t.run(&["ZRANGE", "s", "a", "b"]), err(NOT_INT));
    assert_eq!(t.run(&["ZRANGE", "s", "a", "b", "BYSCORE"]), err("ERR min or max is not a float"));
    assert_eq!(t.run(&["ZRANGE", "missing", "a", "b", "BYSCORE"]), err("ERR min or max is not a float"));
}

#[test]
fn withscores_in_resp3_are_pairs_of_doubles() {
    let mut t = with(&[("1.5", "a"), ("2", "b")]);
    t.session.resp3 = true;
    let pair = |m: &str, s: f64| arr(vec![bulk(m), dbl(s)]);
    assert_eq!(t.run(&["ZRANGE", "z", "0", "-1", "WITHSCORES"]), arr(vec![pair("a", 1.5), pair("b", 2.0)]));
    assert_eq!(t.resp(&["ZSCORE", "z", "a"]), ",1.5\r\n");
    assert_eq!(t.run(&["ZPOPMIN", "z"]), arr(vec![bulk("a"), dbl(1.5)]));
    assert_eq!(t.run(&["ZPOPMIN", "z", "1"]), arr(vec![pair("b", 2.0)]));
    assert_eq!(t.run(&["ZPOPMIN", "z", "1"]), arr(vec![]));
}

#[test]
fn zcount() {
    let mut t = abcde();
    assert_eq!(t.run(&["ZCOUNT", "z", "2", "4"]), int(3));
    assert_eq!(t.run(&["ZCOUNT", "z", "(2", "+inf"]), int(3));
    assert_eq!(t.run(&["ZCOUNT", "z", "4", "2"]), int(0));
    assert_eq!(t.run(&["ZCOUNT", "missing", "0", "1"]), int(0));
    assert_eq!(t.run(&["ZCOUNT", "missing", "0", "x"]), err("ERR min or max is not a float"));
}

// Pops and removals

#[test]
fn pops() {
    let mut t = abcde();
    assert_eq!(run(&mut t, &["ZPOPMIN", "z"]), ["a", "1"]);
    assert_eq!(run(&mut t, &["ZPOPMAX", "z", "2"]), ["e", "5", "d", "4"]);
    assert_eq!(run(&mut t, &["ZPOPMIN", "z", "0"]), Vec::<String>::new());
    assert_eq!(run(&mut t, &["ZPOPMIN", "z", "10"]), ["b", "2", "c", "3"]);
    assert_eq!(t.run(&["EXISTS", "z"]), int(0));
    assert_eq!(t.run(&["ZPOPMIN", "z"]), arr(vec![]));
    assert_eq!(t.run(&["ZPOPMAX", "z", "3"]), arr(vec![]));
    let positive = "ERR value is out of range, must be positive";
    assert_eq!(t.run(&["ZPOPMIN", "z", "-1"]), err(positive));
    assert_eq!(t.run(&["ZPOPMIN", "z", "abc"]), err(positive));
    assert_eq!(t.run(&["ZPOPMIN", "z", "1", "2"]), err(SYNTAX));
}

#[test]
fn range_removals() {
    let mut t = abcde();
    assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "0", "1"]), int(2));
    assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "5", "10"]), int(0));
    assert_eq!(t.run(&["ZREMRANGEBYSCORE", "z", "(3", "+inf"]), int(2));
    assert_eq!(run(&mut t, &["ZRANGE", "z", "0", "-1"]), ["c"]);
    assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "-1", "-1"]), int(1));
    assert_eq!(t.run(&["EXISTS", "z"]), int(0));
    let mut t = with(&[("0", "a"), ("0", "b"), ("0", "c")]);
    assert_eq!(t.run(&["ZREMRANGEBYLEX", "z", "(a", "+"]), int(2));
    assert_eq!(t.run(&["ZREMRANGEBYLEX", "z", "-", "+"]), int(1));
    assert_eq!(t.run(&["EXISTS", "z"]), int(0));
    assert_eq!(t.run(&["ZREMRANGEBYRANK", "z", "a", "1"]), err(NOT_INT));
    assert_eq!(t.run(&["ZREMRANGEBYSCORE", "z", "(1", "abc"]), err("ERR min or max is not a float"));
    assert_eq!(t.run(&["ZREMRANGEBYLEX", "z", "a", "+"]), err("ERR min or max not valid string range item"));
    assert_eq!(t.run(&["ZREMRANGEBYSCORE", "missing", "0", "1"]), int(0));
}

// ZUNIONSTORE / ZINTERSTORE

#[test]
fn union_and_intersection() {
    let mut t = TestEngine::default();
    t.run(&["ZADD", "a", "1", "x", "2", "y"]);
    t.run(&["ZADD", "b", "10", "y", "20", "z"]);
    t.run(&["SADD", "s", "y", "w"]);
    if t.run(&["SCARD", "s"]) == int(2) {
        assert_eq!(t.run(&["ZUNIONSTORE", "d", "3", "a", "b", "s"]), int(4));
        assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["w", "1", "x", "1", "y", "13", "z", "20"]);
        assert_eq!(t.run(&["ZINTERSTORE", "d", "3", "a", "b", "s", "WEIGHTS", "1", "2", "3"]), int(1));
        assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["y", "25"]);
    }
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "2", "3", "AGGREGATE", "max"]), int(3));
    assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["x", "2", "y", "30", "z", "60"]);
    assert_eq!(
        t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "MIN", "WEIGHTS", "2", "3", "WEIGHTS", "1", "1"]),
        int(3)
    );
    assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["x", "1", "y", "2", "z", "20"]);
    assert_eq!(t.run(&["ZINTERSTORE", "d", "2", "a", "b"]), int(1));
    assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["y", "12"]);
    // An empty result deletes the destination.
    assert_eq!(t.run(&["ZINTERSTORE", "d", "2", "a", "missing"]), int(0));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    // The destination is replaced whatever it held, TTL included; a source may be it.
    t.run(&["SET", "d", "x", "EX", "100"]);
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "1", "a"]), int(2));
    assert_eq!(t.run(&["TTL", "d"]), int(-1));
    assert_eq!(t.run(&["ZUNIONSTORE", "a", "2", "a", "b"]), int(3));
    assert_eq!(run(&mut t, &["ZRANGE", "a", "0", "-1", "WITHSCORES"]), ["x", "1", "y", "12", "z", "20"]);
}

#[test]
fn union_and_intersection_with_infinities() {
    let mut t = TestEngine::default();
    t.run(&["ZADD", "i", "1", "p"]);
    t.run(&["ZADD", "j", "-1", "p"]);
    t.run(&["ZADD", "inf", "inf", "p"]);
    let score = |t: &mut TestEngine| t.run(&["ZSCORE", "d", "p"]);
    t.run(&["ZUNIONSTORE", "d", "2", "i", "j", "WEIGHTS", "inf", "inf"]);
    assert_eq!(score(&mut t), dbl(0.0));
    t.run(&["ZUNIONSTORE", "d", "2", "i", "j", "WEIGHTS", "0", "inf", "AGGREGATE", "min"]);
    assert_eq!(score(&mut t), dbl(f64::NEG_INFINITY));
    // inf × 0 is zeroed in a union but goes to MIN as NaN (and loses) in an intersection.
    t.run(&["ZUNIONSTORE", "d", "2", "i", "inf", "WEIGHTS", "1", "0", "AGGREGATE", "min"]);
    assert_eq!(score(&mut t), dbl(0.0));
    t.run(&["ZINTERSTORE", "d", "2", "i", "inf", "WEIGHTS", "1", "0", "AGGREGATE", "min"]);
    assert_eq!(score(&mut t), dbl(1.0));
    t.run(&["ZINTERSTORE", "d", "2", "inf", "i", "WEIGHTS", "0", "1", "AGGREGATE", "max"]);
    assert_eq!(score(&mut t), dbl(1.0));
    // -0 from a product reads back as 0 once stored in a small set.
    t.run(&["ZADD", "zero", "0", "m"]);
    t.run(&["ZUNIONSTORE", "d", "1", "zero", "WEIGHTS", "-1"]);
    assert_eq!(t.resp(&["ZSCORE", "d", "m"]), "$1\r\n0\r\n");
}

#[test]
fn sums_are_taken_smallest_source_first() {
    // Floating-point addition is not associative: the order decides the last digit.
    let mut t = TestEngine::default();
    t.run(&["ZADD", "a", "0.1", "m"]);
    t.run(&["ZADD", "b", "0.2", "m"]);
    t.run(&["ZADD", "c", "0.3", "m", "5", "extra"]);
    t.run(&["ZUNIONSTORE", "d", "3", "c", "b", "a"]);
    // b and a (one member each, in their given order) come before c: (0.2 + 0.1) + 0.3.
    assert_eq!(t.resp(&["ZSCORE", "d", "m"]), "$19\r\n0.60000000000000009\r\n");
    t.run(&["ZADD", "e", "0.3", "m", "1", "q"]);
    t.run(&["ZADD", "f", "0.1", "m", "1", "q"]);
    t.run(&["ZADD", "g", "0.2", "m", "1", "q"]);
    t.run(&["ZINTERSTORE", "d", "4", "e", "f", "g", "e"]);
    assert_eq!(t.resp(&["ZSCORE", "d", "m"]), "$19\r\n0.90000000000000013\r\n");
}

#[test]
fn store_errors_in_redis_order() {
    let mut t = TestEngine::default();
    t.run(&["ZADD", "a", "1", "x"]);
    t.run(&["SET", "s", "v"]);
    assert_eq!(
        t.run(&["ZUNIONSTORE", "d", "0", "a"]),
        err("ERR at least 1 input key is needed for 'zunionstore' command")
    );
    assert_eq!(
        t.run(&["ZINTERSTORE", "d", "-1", "a"]),
        err("ERR at least 1 input key is needed for 'zinterstore' command")
    );
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "abc", "a"]), err(NOT_INT));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "3", "a", "b"]), err(SYNTAX));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "9223372036854775807", "a"]), err(SYNTAX));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "s", "a", "WEIGHTS", "x"]), err(WRONGTYPE));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1"]), err(SYNTAX));
    assert_eq!(
        t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "x"]),
        err("ERR weight value is not a float")
    );
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "1", "a", "WEIGHTS", "1e5000"]), err("ERR weight value is not a float"));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE"]), err(SYNTAX));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "avg"]), err(SYNTAX));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WITHSCORES"]), err(SYNTAX));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
}

#[test]
fn store_result_encoding() {
    let mut t = TestEngine::default();
    let long = "x".repeat(70);
    t.run(&["ZADD", "big", "1", &long]);
    t.run(&["ZADD", "small", "1", "a"]);
    t.run(&["ZUNIONSTORE", "d", "1", "big"]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "d"]), bulk("skiplist"));
    t.run(&["ZUNIONSTORE", "d", "1", "small"]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "d"]), bulk("listpack"));
}

// ZSCAN

#[test]
fn zscan_small_sets_whole_in_order() {
    let mut t = abcde();
    let all = ["0", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"];
    assert_eq!(run(&mut t, &["ZSCAN", "z", "0"]), all);
    assert_eq!(run(&mut t, &["ZSCAN", "z", "5", "COUNT", "1"]), all);
    assert_eq!(run(&mut t, &["ZSCAN", "z", "0", "MATCH", "[bd]"]), ["0", "b", "2", "d", "4"]);
    assert_eq!(run(&mut t, &["ZSCAN", "missing", "0", "FOO"]), ["0"]);
    assert_eq!(t.run(&["ZSCAN", "z", "abc"]), err("ERR invalid cursor"));
    assert_eq!(t.run(&["ZSCAN", "missing", "abc"]), err("ERR invalid cursor"));
    for opts in [&["TYPE", "zset"][..], &["COUNT", "0"], &["COUNT"], &["MATCH"], &["FOO", "bar"]] {
        let mut argv = vec!["ZSCAN", "z", "0"];
        argv.extend_from_slice(opts);
        assert_eq!(t.run(&argv), err(SYNTAX), "{opts:?}");
    }
    assert_eq!(t.run(&["ZSCAN", "z", "0", "COUNT", "x"]), err(NOT_INT));
}

#[test]
fn zscan_formats_scores_by_encoding() {
    let mut t = with(&[
        ("1e18", "a"),
        ("4611686018427387904", "b"),
        ("4611686018427388928", "c"),
        ("1.1", "d"),
        ("-0", "e"),
        ("inf", "f"),
    ]);
    assert_eq!(
        run(&mut t, &["ZSCAN", "z", "0"]),
        [
            "0",
            "e",
            "0",
            "d",
            "1.1000000000000001",
            "a",
            "1000000000000000000",
            "b",
            "4611686018427387904",
            "c",
            "4.6116860184273889e+18",
            "f",
            "inf"
        ]
    );
    // The same scores from a skiplist are all `%.17g`.
    let long = "x".repeat(70);
    t.run(&["ZADD", "z", "0", &long]);
    let (_, items) = match t.run(&["ZSCAN", "z", "0", "COUNT", "100"]) {
        Reply::Array(mut v) => (v.remove(0), strings(v.remove(0))),
        other => panic!("{other:?}"),
    };
    let pairs: std::collections::HashMap<String, String> =
        items.chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect();
    assert_eq!(pairs["a"], "1e+18");
    assert_eq!(pairs["b"], "4.6116860184273879e+18");
}

#[test]
fn zscan_big_sets_by_cursor() {
    let mut t = TestEngine::default();
    for i in 0..300 {
        t.run(&["ZADD", "z", &i.to_string(), &format!("m{i}")]);
    }
    assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("skiplist"));
    let mut seen = std::collections::HashSet::new();
    let mut cursor = "0".to_string();
    let mut calls = 0;
    loop {
        let out = run(&mut t, &["ZSCAN", "z", &cursor, "COUNT", "20", "MATCH", "m1*"]);
        calls += 1;
        for pair in out[1..].chunks(2) {
            assert_eq!(format!("m{}", pair[1]), pair[0]);
            seen.insert(pair[0].clone());
        }
        cursor = out[0].clone();
        if cursor == "0" {
            break;
        }
    }
    assert_eq!(seen.len(), 111); // m1, m10..m19, m100..m199
    assert!(calls >= 15);
}

// Encoding, memory, JSON

#[test]
fn object_encoding_follows_redis_7_0() {
    let mut t = TestEngine::default();
    for i in 0..128 {
        t.run(&["ZADD", "z", "1", &format!("m{i}")]);
    }
    assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("listpack"));
    t.run(&["ZADD", "z", "1", "one more"]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("skiplist"));
    t.run(&["ZREMRANGEBYRANK", "z", "0", "-3"]);
    assert_eq!(t.run(&["ZCARD", "z"]), int(2));
    assert_eq!(t.run(&["OBJECT", "ENCODING", "z"]), bulk("skiplist"));
    t.run(&["ZADD", "y", "1", &"v".repeat(64)]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "y"]), bulk("listpack"));
    t.run(&["ZADD", "y", "1", &"v".repeat(65)]);
    assert_eq!(t.run(&["OBJECT", "ENCODING", "y"]), bulk("skiplist"));
}

#[test]
fn memory_returns_to_baseline() {
    let mut t = TestEngine::default();
    t.run(&["SET", "other", "value"]);
    let baseline = t.engine.store().used_memory();
    t.run(&["ZADD", "z", "1", "first"]);
    let one = t.engine.store().used_memory();
    assert!(one > baseline);
    let mut sizes = Vec::new();
    for i in 0..2000 {
        t.run(&["ZADD", "z", &(i % 17).to_string(), &format!("member:{i}:{}", "x".repeat(i % 90))]);
        if i % 500 == 0 {
            sizes.push(t.engine.store().used_memory());
        }
    }
    assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{sizes:?}");
    let grown = t.engine.store().used_memory();
    // Shrink by every kind of removal, then check the size is the one-member size again.
    t.run(&["ZREMRANGEBYRANK", "z", "0", "199"]);
    t.run(&["ZREMRANGEBYSCORE", "z", "3", "5"]);
    t.run(&["ZPOPMAX", "z", "300"]);
    t.run(&["ZPOPMIN", "z", "10"]);
    t.run(&["ZINCRBY", "z", "100", "first"]);
    let shrunk = t.engine.store().used_memory();
    assert!(shrunk < grown);
    let rest: Vec<String> = run(&mut t, &["ZRANGE", "z", "0", "-1"]);
    for m in rest.iter().filter(|m| *m != "first") {
        t.run(&["ZREM", "z", m]);
    }
    assert_eq!(t.run(&["ZCARD", "z"]), int(1));
    assert_eq!(t.engine.store().used_memory(), one);
    t.run(&["DEL", "z"]);
    assert_eq!(t.engine.store().used_memory(), baseline);
    // A store result and a pop to empty leave nothing behind either.
    t.run(&["ZADD", "a", "1", "x", "2", "y"]);
    t.run(&["ZUNIONSTORE", "d", "1", "a"]);
    t.run(&["ZPOPMIN", "a", "5"]);
    t.run(&["ZREMRANGEBYSCORE", "d", "-inf", "+inf"]);
    assert_eq!(t.engine.store().used_memory(), baseline);
    t.run(&["DEL", "other"]);
    assert_eq!(t.engine.store().used_memory(), 0);
}

#[test]
fn default_ttl_applies_to_new_sorted_sets() {
    let mut t = TestEngine::default();
    t.engine.config().set("default-ttl", "100").unwrap();
    t.run(&["ZADD", "z", "1", "a"]);
    assert_eq!(t.run(&["TTL", "z"]), int(100));
    // An existing key keeps the TTL it has.
    t.advance(50_000);
    t.run(&["ZADD", "z", "2", "b"]);
    assert_eq!(t.run(&["TTL", "z"]), int(50));
}

// ZUNION / ZINTER / ZDIFF / ZDIFFSTORE (replies as redis-server 7 gives them)

fn algebra_fixture() -> TestEngine {
    let mut t = TestEngine::default();
    t.run(&["ZADD", "a", "1", "x", "2", "y", "3", "z"]);
    t.run(&["ZADD", "b", "5", "y", "1", "w"]);
    t.run(&["SADD", "s", "x", "w"]);
    t.run(&["SET", "str", "v"]);
    t
}

#[test]
fn zunion_zinter_zdiff_answer_in_score_order() {
    let mut t = algebra_fixture();
    assert_eq!(run(&mut t, &["ZUNION", "2", "a", "b", "WITHSCORES"]), ["w", "1", "x", "1", "z", "3", "y", "7"]);
    assert_eq!(
        run(&mut t, &["ZUNION", "2", "a", "b", "WEIGHTS", "2", "3", "AGGREGATE", "max", "withscores"]),
        ["x", "2", "w", "3", "z", "6", "y", "15"]
    );
    assert_eq!(run(&mut t, &["ZUNION", "2", "a", "b"]), ["w", "x", "z", "y"]);
    assert_eq!(run(&mut t, &["ZINTER", "2", "a", "s", "WITHSCORES"]), ["x", "2"]);
    assert_eq!(run(&mut t, &["ZDIFF", "2", "a", "b", "WITHSCORES"]), ["x", "1", "z", "3"]);
    assert_eq!(run(&mut t, &["ZUNION", "1", "a", "WITHSCORES", "WITHSCORES"]), ["x", "1", "y", "2", "z", "3"]);
    assert_eq!(t.run(&["ZINTER", "1", "nokey"]), arr(vec![]));
    // Answered, not stored: a negative score weighted by 0 stays -0, as redis-server prints it
    // (a stored one would read back as 0 through the listpack's text).
    t.run(&["ZADD", "neg1", "-1", "x", "2", "y"]);
    t.run(&["ZADD", "neg2", "-2", "x", "3", "y"]);
    assert_eq!(run(&mut t, &["ZINTER", "2", "neg1", "neg2", "WEIGHTS", "0", "0", "WITHSCORES"]), ["x", "-0", "y", "0"]);
}

#[test]
fn zunion_zinter_zdiff_errors_match_redis() {
    let mut t = algebra_fixture();
    assert_eq!(t.run(&["ZUNION", "0", "a"]), err("ERR at least 1 input key is needed for 'zunion' command"));
    assert_eq!(
        t.run(&["ZDIFFSTORE", "d", "-1", "a"]),
        err("ERR at least 1 input key is needed for 'zdiffstore' command")
    );
    assert_eq!(t.run(&["ZUNION", "3", "a", "b"]), err(SYNTAX));
    assert_eq!(t.run(&["ZUNION", "x", "a"]), err(NOT_INT));
    assert_eq!(t.run(&["ZUNION", "1", "str"]), err(WRONGTYPE));
    assert_eq!(t.run(&["ZDIFF", "2", "a", "b", "WEIGHTS", "1", "1"]), err(SYNTAX));
    assert_eq!(t.run(&["ZDIFF", "2", "a", "b", "AGGREGATE", "SUM"]), err(SYNTAX));
    assert_eq!(t.run(&["ZUNIONSTORE", "d", "2", "a", "b", "WITHSCORES"]), err(SYNTAX));
    assert_eq!(t.run(&["ZUNION", "2", "a", "b", "WEIGHTS", "1"]), err(SYNTAX));
}

#[test]
fn zdiffstore_stores_and_memory_returns_to_baseline() {
    let mut t = algebra_fixture();
    let baseline = t.used_memory();
    assert_eq!(t.run(&["ZDIFFSTORE", "d", "2", "a", "s"]), int(2));
    assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["y", "2", "z", "3"]);
    assert!(t.used_memory() > baseline);
    assert_eq!(t.run(&["DEL", "d"]), int(1));
    assert_eq!(t.used_memory(), baseline);
    // An empty difference deletes the destination.
    t.run(&["ZADD", "d", "1", "q"]);
    assert_eq!(t.run(&["ZDIFFSTORE", "d", "2", "a", "a"]), int(0));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    assert_eq!(t.used_memory(), baseline);
}

#[test]
fn zintercard_counts_up_to_a_limit() {
    let mut t = algebra_fixture();
    assert_eq!(t.run(&["ZINTERCARD", "2", "a", "b"]), int(1));
    assert_eq!(t.run(&["ZINTERCARD", "1", "a", "LIMIT", "0"]), int(3));
    assert_eq!(t.run(&["ZINTERCARD", "1", "a", "limit", "2"]), int(2));
    assert_eq!(t.run(&["ZINTERCARD", "1", "a", "LIMIT", "1", "LIMIT", "0"]), int(3));
    assert_eq!(t.run(&["ZINTERCARD", "2", "a", "nokey"]), int(0));
    assert_eq!(t.run(&["ZINTERCARD", "0", "a"]), err("ERR at least 1 input key is needed for 'zintercard' command"));
    assert_eq!(t.run(&["ZINTERCARD", "3", "a", "b"]), err(SYNTAX));
    assert_eq!(t.run(&["ZINTERCARD", "x", "a"]), err(NOT_INT));
    assert_eq!(t.run(&["ZINTERCARD", "1", "a", "LIMIT", "-1"]), err("ERR LIMIT can't be negative"));
    assert_eq!(t.run(&["ZINTERCARD", "1", "a", "LIMIT", "x"]), err("ERR LIMIT can't be negative"));
    assert_eq!(t.run(&["ZINTERCARD", "1", "a", "LIMIT"]), err(SYNTAX));
    assert_eq!(t.run(&["ZINTERCARD", "1", "a", "WITHSCORES"]), err(SYNTAX));
    assert_eq!(t.run(&["ZINTERCARD", "1", "str", "LIMIT", "-1"]), err(WRONGTYPE));
}

// ZRANDMEMBER

#[test]
fn zrandmember_counts_as_redis() {
    let mut t = algebra_fixture();
    let members = ["x", "y", "z"];
    let one = run(&mut t, &["ZRANDMEMBER", "a"]);
    assert!(one.len() == 1 && members.contains(&one[0].as_str()));
    assert_eq!(t.run(&["ZRANDMEMBER", "nokey"]), nil());
    assert_eq!(t.run(&["ZRANDMEMBER", "nokey", "3"]), arr(vec![]));
    assert_eq!(t.run(&["ZRANDMEMBER", "a", "0"]), arr(vec![]));
    // Positive: distinct, at most the whole set.
    let mut two = run(&mut t, &["ZRANDMEMBER", "a", "2"]);
    two.sort();
    two.dedup();
    assert_eq!(two.len(), 2);
    let mut all = run(&mut t, &["ZRANDMEMBER", "a", "9", "WITHSCORES"]);
    assert_eq!(all.len(), 6);
    let mut pairs: Vec<(String, String)> = all.chunks(2).map(|p| (p[0].clone(), p[1].clone())).collect();
    pairs.sort();
    assert_eq!(pairs, [("x".into(), "1".into()), ("y".into(), "2".into()), ("z".into(), "3".into())]);
    // Negative: that many picks, repeats allowed, each with its own score.
    all = run(&mut t, &["ZRANDMEMBER", "a", "-20", "withscores"]);
    assert_eq!(all.len(), 40);
    for p in all.chunks(2) {
        let want = match p[0].as_str() {
            "x" => "1",
            "y" => "2",
            "z" => "3",
            other => panic!("unexpected member {other}"),
        };
        assert_eq!(p[1], want);
    }
}

#[test]
fn zrandmember_errors_in_redis_order() {
    let mut t = algebra_fixture();
    assert_eq!(t.run(&["ZRANDMEMBER", "a", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["ZRANDMEMBER", "str", "x"]), err(NOT_INT));
    assert_eq!(t.run(&["ZRANDMEMBER", "a", "1", "foo"]), err(SYNTAX));
    assert_eq!(t.run(&["ZRANDMEMBER", "a", "1", "WITHSCORES", "x"]), err(SYNTAX));
    assert_eq!(
        t.run(&["ZRANDMEMBER", "a", "-9223372036854775808"]),
        err("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
    );
    assert_eq!(t.run(&["ZRANDMEMBER", "a", "9223372036854775807", "WITHSCORES"]), err("ERR value is out of range"));
    assert_eq!(t.run(&["ZRANDMEMBER", "str"]), err(WRONGTYPE));
    assert_eq!(t.run(&["ZRANDMEMBER", "str", "1"]), err(WRONGTYPE));
}

// ZRANGESTORE

#[test]
fn zrangestore_stores_what_zrange_answers() {
    let mut t = algebra_fixture();
    let baseline = t.used_memory();
    assert_eq!(t.run(&["ZRANGESTORE", "d", "a", "0", "-1"]), int(3));
    assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["x", "1", "y", "2", "z", "3"]);
    assert_eq!(t.run(&["ZRANGESTORE", "d", "a", "(1", "+inf", "BYSCORE", "REV"]), int(0));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    assert_eq!(t.run(&["ZRANGESTORE", "d", "a", "+inf", "(1", "byscore", "rev", "LIMIT", "0", "1"]), int(1));
    assert_eq!(run(&mut t, &["ZRANGE", "d", "0", "-1", "WITHSCORES"]), ["z", "3"]);
    assert_eq!(t.run(&["ZRANGESTORE", "d", "a", "[a", "[y", "BYLEX"]), int(2));
    assert_eq!(t.run(&["ZRANGESTORE", "d", "nokey", "0", "-1"]), int(0));
    assert_eq!(t.run(&["EXISTS", "d"]), int(0));
    assert_eq!(t.used_memory(), baseline);
    // The destination is replaced whatever it held; the source's type is checked.
    assert_eq!(t.run(&["ZRANGESTORE", "str", "a", "0", "0"]), int(1));
    assert_eq!(t.run(&["TYPE", "str"]), Reply::Status("zset".into()));
    t.run(&["SET", "str", "v"]);
    assert_eq!(t.run(&["ZRANGESTORE", "d", "str", "0", "-1"]), err(WRONGTYPE));
    assert_eq!(t.run(&["ZRANGESTORE", "d", "a", "0", "-1", "WITHSCORES"]), err(SYNTAX));
    assert_eq!(
        t.run(&["ZRANGESTORE", "d", "a", "0", "-1", "LIMIT", "0", "1"]),
        err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
    );
    assert_eq!(t.run(&["ZRANGESTORE", "d", "a", "x", "1"]), err(NOT_INT));
}

// --- ZMPOP and the blocking pops ----------------------------------------------------------------

fn zpopped(key: &str, items: &[(&str, f64)]) -> Reply {
    let items = items.iter().map(|&(m, s)| arr(vec![bulk(m), dbl(s)])).collect();
    arr(vec![bulk(key), arr(items)])
}

#[test]
fn zmpop_pops_from_the_first_non_empty_sorted_set() {
    let mut t = TestEngine::default();
    t.run(&["ZADD", "z", "1", "a", "2", "b", "3", "c"]);
    t.run(&["SET", "s", "v"]);
    assert_eq!(t.run(&["ZMPOP", "1", "z", "MIN"]), zpopped("z", &[("a", 1.0)]));
    assert_eq!(t.run(&["zmpop", "2", "x", "z", "max", "count", "5"]), zpopped("z", &[("c", 3.0), ("b", 2.0)]));
    assert_eq!(t.run(&["EXISTS", "z"]), int(0));
    assert_eq!(t.run(&["ZMPOP", "1", "z", "MIN"]), Reply::NilArray);
    assert_eq!(t.run(&["ZMPOP", "1", "s", "MIN"]), err(WRONGTYPE));
    assert_eq!(t.run(&["ZMPOP", "1", "z", "MIDDLE"]), err(SYNTAX));
    assert_eq!(t.run(&["ZMPOP", "0", "z", "MIN"]), err("ERR numkeys should be greater than 0"));
    assert_eq!(t.run(&["ZMPOP", "1", "z", "MIN", "COUNT", "0"]), err("ERR count should be greater than 0"));
    assert_eq!(t.run(&["ZMPOP", "1", "z", "MIN", "COUNT", "1", "COUNT", "1"]), err(SYNTAX));
    assert_eq!(t.run(&["BZMPOP", "x", "0", "z", "MIN"]), err("ERR numkeys should be greater than 0"));
    assert_eq!(t.run(&["BZPOPMIN", "z", "-1"]), err("ERR timeout is negative"));
    assert_eq!(t.run(&["BZPOPMIN", "z", "x"]), err("ERR timeout is not a float or out of range"));
    assert_eq!(t.run(&["BZPOPMIN", "s", "0"]), err(WRONGTYPE));
}

#[test]
fn bzpop_answers_at_once_with_data_and_not_inside_multi() {
    let mut t = TestEngine::default();
    t.run(&["ZADD", "z", "1", "a", "2", "b", "3", "c"]);
    assert_eq!(t.run(&["BZPOPMAX", "x", "z", "0"]), arr(vec![bulk("z"), bulk("c"), dbl(3.0)]));
    assert_eq!(t.run(&["BZPOPMIN", "x", "z", "0"]), arr(vec![bulk("z"), bulk("a"), dbl(1.0)]));
    assert_eq!(t.run(&["BZMPOP", "0", "1", "z", "MIN", "COUNT", "3"]), zpopped("z", &[("b", 2.0)]));
    assert_eq!(t.run(&["BZPOPMIN", "z", "0"]), Reply::NilArray);
    assert_eq!(t.run(&["BZMPOP", "1", "1", "z", "MAX"]), Reply::NilArray);
    assert!(t.session.blocked.is_none());
    let mut out = Vec::new();
    let input = b"MULTI\r\nBZPOPMIN z 0\r\nBZMPOP 0 1 z MIN\r\nEXEC\r\n";
    let used = t.engine.feed(&mut t.session, input, &mut out, t.now).unwrap();
    assert_eq!(used, input.len());
    assert_eq!(String::from_utf8_lossy(&out), "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n*-1\r\n*-1\r\n");
}

#[test]
fn blocked_zset_pops_are_served_when_a_sorted_set_appears() {
    let mut t = TestEngine::default();
    let connect = |t: &TestEngine, n: u16| t.engine.new_session(&format!("127.0.0.1:{n}"), "127.0.0.1:6379", t.now);
    let feed = |t: &TestEngine, s: &mut crate::session::Session, input: &str| {
        let mut out = Vec::new();
        t.engine.feed(s, input.as_bytes(), &mut out, t.now).unwrap();
        String::from_utf8_lossy(&out).into_owned()
    };
    let retry = |t: &TestEngine, s: &mut crate::session::Session| {
        let mut out = Vec::new();
        t.engine.retry_blocked(s, &mut out, t.now).then(|| String::from_utf8_lossy(&out).into_owned())
    };
    let (mut a, mut b, mut c) = (connect(&t, 2), connect(&t, 3), connect(&t, 4));
    assert_eq!(feed(&t, &mut a, "BZPOPMIN q 0\r\n"), "");
    assert_eq!(feed(&t, &mut b, "BZMPOP 0 2 x q MAX COUNT 2\r\n"), "");
    assert_eq!(feed(&t, &mut c, "BLPOP q 0\r\n"), "");
    assert_eq!(t.engine.blocked_clients(), 3);
    assert_eq!(t.run(&["ZADD", "q", "1", "a", "2", "b", "3", "c", "4", "d"]), int(4));
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*3\r\n$1\r\nq\r\n$1\r\na\r\n$1\r\n1\r\n"));
    assert_eq!(
        retry(&t, &mut b).as_deref(),
        Some("*2\r\n$1\r\nq\r\n*2\r\n*2\r\n$1\r\nd\r\n$1\r\n4\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n")
    );
    // A list waiter is not served by a sorted set.
    assert_eq!(retry(&t, &mut c), None);
    assert_eq!(t.run(&["ZCARD", "q"]), int(1));
    // Nor does it hold up a sorted set waiter behind it.
    t.run(&["DEL", "q"]);
    assert_eq!(feed(&t, &mut a, "BZPOPMAX q 0\r\n"), "");
    assert_eq!(t.run(&["ZADD", "q", "7", "x"]), int(1));
    assert_eq!(retry(&t, &mut a).as_deref(), Some("*3\r\n$1\r\nq\r\n$1\r\nx\r\n$1\r\n7\r\n"));
    assert_eq!(retry(&t, &mut c), None);
    t.run(&["RPUSH", "q2", "e"]);
    t.run(&["RENAME", "q2", "q"]);
    assert_eq!(retry(&t, &mut c).as_deref(), Some("*2\r\n$1\r\nq\r\n$1\r\ne\r\n"));
    for s in [&a, &b, &c] {
        t.engine.end_session(s);
    }
    assert_eq!(t.engine.blocked_clients(), 0);
}
