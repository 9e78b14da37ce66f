//! SORT and SORT_RO: lists, sets and sorted sets sorted numerically or with ALPHA, BY weight
//! keys and hash fields, GET patterns, LIMIT, DESC and STORE.

use rand::Rng;

use crate::harness::*;

/// SORT in a seeded random sequence: each operation (re)builds one source and some weight
/// keys and hashes, then sorts it with random options, and reads a STORE destination back.
///
/// Deliberate differences, avoided by the generator:
/// - A set's own order (SORT of a set `BY nosort`, without STORE) is its hash table's; the
///   reply is compared as a multiset, and only without LIMIT.
/// - With ALPHA and BY, equal weights (two missing ones) keep the input's order in Redis's
///   `qsort` (a stable merge sort in glibc) but not in its partial sort for LIMIT, and a set's
///   input order is its hash table's: weights that can be missing or equal are used only on
///   lists without LIMIT.
/// - Redis reads a weight with `strtod` and then checks `errno == ERANGE` without clearing
///   `errno` first, so after one out-of-range weight (`1e400`) every later numeric SORT on
///   that server fails too, until some other call resets `errno`. No weight is out of range
///   here; the unit tests cover the error.
/// - Redis compares ALPHA without STORE with `strcoll`; elements and weights are ASCII
///   without NUL, where the C.UTF-8 collation is byte order, as Vitrine's.
#[test]
fn random_sort_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_sort_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("sort edge cases");
    for argv in sort_edge_cases() {
        peers.call(&argv, Check::Exact);
    }
    run_family(&mut peers, "sort", fixtures, SORT_OPS);
}

fn sort_edge_cases() -> Vec<Vec<Vec<u8>>> {
    vec![
        args!["FLUSHALL"],
        args!["SORT", "missing"],
        args!["SORT", "missing", "STORE", "dst"],
        args!["SET", "dst", "x"],
        args!["SORT", "missing", "STORE", "dst"],
        args!["EXISTS", "dst"],
        args!["RPUSH", "l", "3", "1", "2", "10", "1"],
        args!["SORT", "l"],
        args!["SORT", "l", "DESC", "LIMIT", "1", "2"],
        args!["SORT", "l", "LIMIT", "-5", "2"],
        args!["SORT", "l", "LIMIT", "2", "-1"],
        args!["SORT", "l", "LIMIT", "9", "1"],
        args!["SORT", "l", "LIMIT", "0", "0"],
        args!["SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807"],
        args!["SORT", "l", "LIMIT", "x", "1"],
        args!["SORT", "l", "LIMIT", "1"],
        args!["SORT", "l", "BY"],
        args!["SORT", "l", "GET"],
        args!["SORT", "l", "STORE"],
        args!["SORT", "l", "SIDEWAYS"],
        args!["SORT_RO", "l", "STORE", "dst"],
        args!["SORT_RO", "l", "ALPHA", "desc"],
        args!["SORT", "l", "BY", "nosort"],
        args!["SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "3"],
        args!["SORT", "l", "BY", "nosort", "BY", "w_*"],
        args!["RPUSH", "bad", "1", "x", "2"],
        args!["SORT", "bad"],
        args!["SORT", "bad", "ALPHA"],
        args!["SORT", "bad", "BY", "nosort"],
        args!["SORT", "bad", "BY", "missing_*"],
        args!["SET", "w_x", "nan"],
        args!["SORT", "bad", "BY", "w_*"],
        args!["RPUSH", "f", " 1", "", "0x10", "inf", "-inf", "1.5", "2e1"],
        args!["SORT", "f"],
        args!["SORT", "f", "GET", "#", "GET", "nostar", "GET", "w_*"],
        args!["SET", "s", "str"],
        args!["SORT", "s"],
        args!["SORT", "s", "LIMIT", "x", "y"],
        args!["HSET", "h", "f", "v"],
        args!["SORT", "h"],
        args!["SADD", "set", "3", "1", "2"],
        args!["SORT", "set", "BY", "nosort", "STORE", "dst"],
        args!["LRANGE", "dst", "0", "-1"],
        args!["SADD", "aset", "b", "a", "c"],
        args!["SORT", "aset", "BY", "nosort", "STORE", "dst", "DESC"],
        args!["LRANGE", "dst", "0", "-1"],
        args!["ZADD", "z", "3", "a", "1", "b", "2", "c"],
        args!["SORT", "z", "BY", "nosort"],
        args!["SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "5"],
        args!["SORT", "z", "ALPHA"],
        args!["SORT", "z"],
        args!["HSET", "h_a", "f", "2", "g", "x"],
        args!["HSET", "h_b", "f", "1"],
        args!["SET", "w_c", "0"],
        args!["SORT", "z", "BY", "h_*->f", "GET", "#", "GET", "h_*->g", "GET", "h_*->", "GET", "w_*"],
        args!["SORT", "z", "BY", "h_*->f", "GET", "h_*->g", "STORE", "dst"],
        args!["LRANGE", "dst", "0", "-1"],
        args!["SET", "h_*->x", "lit"],
        args!["SORT", "z", "BY", "w_*", "GET", "h_*->", "GET", "h_*->x"],
        args!["EXPIRE", "dst", "100"],
        args!["SORT", "l", "STORE", "dst"],
        args!["TTL", "dst"],
        args!["SORT", "l", "LIMIT", "0", "0", "STORE", "dst"],
        args!["EXISTS", "dst"],
        args!["SORT", "l", "STORE", "l"],
        args!["LRANGE", "l", "0", "-1"],
    ]
}

/// Elements: numbers written several ways (ties among them), words, the empty string.
const NUMERIC: &[&str] = &["1", "2", "10", "-3", "3.5", "1e2", "0", "007", "-0", "2.0", "99"];
const WORDS: &[&str] = &["a", "b", "ab", "B", "zz", "", "1", "10", "x y", "-"];
/// Weight values: numbers, and now and then one that is not.
const WEIGHTS: &[&str] = &["5", "1", "-2", "1.5", "100", "0", "1", "3e1", " 4", "abc", "inf"];
const SOURCES: &[&str] = &["src:list", "src:set", "src:zset", "src:missing", "src:string"];

fn fixtures(_gen: &mut Gen) -> Vec<Step> {
    vec![Step::Call(args!["SET", "src:string", "v"], Check::Exact)]
}

const SORT_OPS: &[(u32, FamilyOp)] = &[(6, sort_op), (1, wrong_arity)];

fn wrong_arity(gen: &mut Gen) -> Vec<Step> {
    gen.wrong_arity_of(&[("SORT", -2), ("SORT_RO", -2)], |g| g.pick(SOURCES).into(), |_, _| None)
}

/// Builds a source and weights, then one SORT or SORT_RO.
fn sort_op(gen: &mut Gen) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut call = |argv: Vec<Vec<u8>>| steps.push(Step::Call(argv, Check::Exact));
    let numeric = gen.chance(60);
    let pool = if numeric { NUMERIC } else { WORDS };
    let n = gen.rng.gen_range(0..8);
    let elems: Vec<&str> = (0..n).map(|_| gen.pick(pool)).collect();
    let source = gen.pick(SOURCES);
    match source {
        "src:list" => {
            call(args!["DEL", source]);
            if !elems.is_empty() {
                let mut argv = args!["RPUSH", source];
                argv.extend(elems.iter().map(|e| e.as_bytes().to_vec()));
                call(argv);
            }
        }
        "src:set" => {
            call(args!["DEL", source]);
            if !elems.is_empty() {
                let mut argv = args!["SADD", source];
                argv.extend(elems.iter().map(|e| e.as_bytes().to_vec()));
                call(argv);
            }
        }
        "src:zset" => {
            call(args!["DEL", source]);
            if !elems.is_empty() {
                let mut argv = args!["ZADD", source];
                for e in &elems {
                    argv.push(gen.rng.gen_range(0..4).to_string().into_bytes());
                    argv.push(e.as_bytes().to_vec());
                }
                call(argv);
            }
        }
        _ => {}
    }
    // Weights: `w_*` strings (any value, some missing), `h_*` hashes with a field `f`, and
    // `u_*` distinct strings present for every element (for ALPHA BY on sets and LIMIT).
    for (i, e) in pool.iter().enumerate() {
        let w = format!("w_{e}");
        match gen.rng.gen_range(0..4) {
            0 => call(args!["DEL", w.as_str()]),
            1 => {}
            _ => {
                let v = gen.pick(WEIGHTS);
                call(args!["SET", w.as_str(), v]);
            }
        }
        if gen.chance(30) {
            let v = gen.pick(WEIGHTS);
            call(args!["HSET", format!("h_{e}").as_str(), "f", v, "g", format!("g{i}").as_str()]);
        }
        call(args![
            "SET",
            format!("u_{e}").as_str(),
            format!("{}{i:02}", (b'a' + gen.rng.gen_range(0..26u8)) as char).as_str()
        ]);
    }

    let readonly = gen.chance(25);
    let mut argv = vec![gen.casing(if readonly { "SORT_RO" } else { "SORT" }), source.as_bytes().to_vec()];
    let alpha = gen.chance(if numeric { 20 } else { 70 });
    let limit = gen.chance(40);
    let nosort = gen.chance(15);
    let stable_input = source == "src:list" && !limit;
    let by: Option<&str> = if nosort {
        Some("nosort")
    } else if gen.chance(50) {
        Some(if alpha && !stable_input { "u_*" } else { gen.pick(&["w_*", "h_*->f", "u_*", "none_*"]) })
    } else {
        None
    };
    let store = !readonly && gen.chance(30);
    let mut opts: Vec<Vec<Vec<u8>>> = Vec::new();
    if let Some(by) = by {
        opts.push(vec![gen.casing("BY"), by.into()]);
    }
    if limit {
        let start = gen.rng.gen_range(-2..7).to_string();
        let count = gen.rng.gen_range(-2..7).to_string();
        opts.push(vec![gen.casing("LIMIT"), start.into_bytes(), count.into_bytes()]);
    }
    for _ in 0..gen.rng.gen_range(0..3) {
        let pattern = gen.pick(&["#", "w_*", "h_*->f", "h_*->g", "u_*", "nostar", "h_*->"]);
        opts.push(vec![gen.casing("GET"), pattern.into()]);
    }
    if gen.chance(40) {
        let order = gen.pick(&["ASC", "DESC"]);
        opts.push(vec![gen.casing(order)]);
    }
    if alpha {
        opts.push(vec![gen.casing("ALPHA")]);
    }
    if store {
        opts.push(vec![gen.casing("STORE"), b"dst".to_vec()]);
    }
    // Options in any order, as Redis reads them.
    for i in (1..opts.len()).rev() {
        let j = gen.rng.gen_range(0..=i);
        opts.swap(i, j);
    }
    argv.extend(opts.into_iter().flatten());
    let set_order = source == "src:set" && nosort && !store;
    if set_order && limit {
        return steps;
    }
    let check = if set_order { Check::Unordered } else { Check::Exact };
    if !set_order && gen.chance(15) {
        // Inside a transaction, which holds every shard for SORT's patterns.
        steps.push(Step::Call(args!["MULTI"], Check::Exact));
        steps.push(Step::Call(argv, Check::Exact));
        steps.push(Step::Call(args!["EXEC"], Check::Exact));
    } else {
        steps.push(Step::Call(argv, check));
    }
    if store {
        steps.push(Step::Call(args!["LRANGE", "dst", "0", "-1"], Check::Exact));
        steps.push(Step::Call(args!["TYPE", "dst"], Check::Exact));
    }
    steps
}
