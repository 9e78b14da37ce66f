//! HyperLogLog: PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST. The value is a string, so
//! after the commands GET compares the exact bytes of both servers' HLLs: sparse, dense and
//! across the promotion, the cached cardinality's bytes included. HLLs written by one server
//! are SET into both and read on, and corrupted HLLs (edited with SETRANGE, or built by hand)
//! must get the same errors.
//!
//! Deliberate differences, avoided by the generator:
//! - PFSELFTEST runs fewer rounds in Vitrine (it answers in the playground too): only its
//!   reply is compared.
//! - A sparse HLL whose last byte is the first half of an XZERO opcode reads its missing
//!   half as 0 in Vitrine, and in Redis as whatever byte follows the string in memory: its
//!   terminator (0) at first, but once Redis has split that opcode, the byte it wrote past
//!   the string's end. Such bodies are not built here (corruption edits the header or
//!   appends whole opcodes).

use rand::Rng;

use crate::harness::*;

/// The keys HLL commands pick from, and a key that holds a list (WRONGTYPE).
const HLL_KEYS: [&str; 4] = ["h1", "h2", "{h}3", "h 4"];
const LIST_KEY: &str = "hlist";

#[test]
fn random_hyperloglog_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_hyperloglog_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("hyperloglog edge cases");
    for argv in edge_cases() {
        peers.call(&argv, Check::Exact);
    }
    peers.begin("hyperloglog corrupted values");
    for argv in corrupted_cases() {
        peers.call(&argv, Check::Exact);
    }
    run_family(&mut peers, "hyperloglog", hll_fixtures, HLL_OPS);
    exact(&mut peers, args!["CONFIG", "SET", "hll-sparse-max-bytes", "3000"]);
}

/// An HLL built by one server is SET into both and read on: PFCOUNT, PFADD, PFMERGE and the
/// bytes after them agree whichever server wrote it, sparse or dense.
#[test]
fn hlls_move_between_redis_and_vitrine() {
    let Some(servers) = Servers::start_or_skip("hlls_move_between_redis_and_vitrine") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("HLLs written by one server, read by the other");
    exact(&mut peers, args!["FLUSHALL"]);
    for (round, size) in [1usize, 40, 700, 3000, 20_000].into_iter().enumerate() {
        for from_redis in [true, false] {
            let elements: Vec<Vec<u8>> = (0..size).map(|n| format!("r{round}:{n}").into_bytes()).collect();
            let writer = if from_redis { &mut peers.redis } else { &mut peers.vitrine };
            for chunk in elements.chunks(500) {
                let mut argv = args!["PFADD", "src"];
                argv.extend(chunk.iter().cloned());
                writer.call(&argv).expect("PFADD");
            }
            let (get, del) = (args!["GET", "src"], args!["DEL", "src"]);
            let bytes = match writer.call(&get).expect("GET") {
                Resp::Bulk(b) => b,
                other => panic!("GET of an HLL answered {other:?}"),
            };
            writer.call(&del).expect("DEL");
            exact(&mut peers, args!["SET", "moved", &bytes]);
            exact(&mut peers, args!["PFDEBUG", "ENCODING", "moved"]);
            exact(&mut peers, args!["PFCOUNT", "moved"]);
            exact(&mut peers, args!["GET", "moved"]);
            exact(&mut peers, args!["PFADD", "moved", "one more", format!("{round}")]);
            exact(&mut peers, args!["PFCOUNT", "moved", "other"]);
            exact(&mut peers, args!["PFMERGE", "merged", "moved"]);
            exact(&mut peers, args!["PFCOUNT", "moved"]);
            exact(&mut peers, args!["GET", "moved"]);
            exact(&mut peers, args!["GET", "merged"]);
        }
    }
}

/// One command sent to both servers, replies compared exactly.
fn exact(peers: &mut Peers, argv: Vec<Vec<u8>>) {
    peers.call(&argv, Check::Exact);
}

/// Each seed starts with a list among the keys and, for some seeds, a small sparse limit so
/// promotions come early.
pub(crate) fn hll_fixtures(gen: &mut Gen) -> Vec<Step> {
    let limit = gen.pick(&["3000", "3000", "200", "60"]);
    vec![
        Step::Call(args!["CONFIG", "SET", "hll-sparse-max-bytes", limit], Check::Exact),
        Step::Call(args!["RPUSH", LIST_KEY, "x"], Check::Exact),
    ]
}

/// The random operations and their weights (the `notifications` family runs them too).
pub(crate) const HLL_OPS: &[(u32, FamilyOp)] = &[
    (30, pfadd),
    (6, pfadd_many),
    (15, pfcount),
    (8, pfmerge),
    (14, get),
    (6, pfdebug),
    (4, corrupt),
    (2, plain_string),
    (2, del),
];

fn hll_key(gen: &mut Gen) -> String {
    if gen.chance(5) {
        return LIST_KEY.to_string();
    }
    gen.pick(&HLL_KEYS).to_string()
}

fn element(gen: &mut Gen) -> Vec<u8> {
    match gen.rng.gen_range(0..4) {
        0 => format!("e{}", gen.rng.gen_range(0..200)).into_bytes(),
        1 => format!("wide:{}", gen.rng.gen_range(0..100_000)).into_bytes(),
        2 => (0..gen.rng.gen_range(0..20)).map(|_| gen.rng.gen()).collect(),
        _ => gen.value(),
    }
}

fn pfadd(gen: &mut Gen) -> Vec<Step> {
    let mut rest = vec![hll_key(gen).into_bytes()];
    for _ in 0..gen.rng.gen_range(0..6) {
        rest.push(element(gen));
    }
    gen.exact("PFADD", rest)
}

/// Many elements at once: sparse HLLs grow to their limit and turn dense.
fn pfadd_many(gen: &mut Gen) -> Vec<Step> {
    let key = hll_key(gen);
    let base = gen.rng.gen_range(0..1_000_000u32);
    let n = gen.rng.gen_range(50..600);
    let mut rest = vec![key.clone().into_bytes()];
    rest.extend((0..n).map(|i| format!("bulk:{}", base + i).into_bytes()));
    let mut steps = gen.exact("PFADD", rest);
    steps.extend(gen.exact("GET", args![key]));
    steps
}

fn pfcount(gen: &mut Gen) -> Vec<Step> {
    let n = if gen.chance(70) { 1 } else { gen.rng.gen_range(2..5) };
    let mut rest: Vec<Vec<u8>> = (0..n).map(|_| hll_key(gen).into_bytes()).collect();
    if gen.chance(10) {
        rest.push(b"missing".to_vec());
    }
    gen.exact("PFCOUNT", rest)
}

fn pfmerge(gen: &mut Gen) -> Vec<Step> {
    let dest = if gen.chance(20) { "merged".to_string() } else { hll_key(gen) };
    let mut rest = vec![dest.clone().into_bytes()];
    for _ in 0..gen.rng.gen_range(0..4) {
        rest.push(hll_key(gen).into_bytes());
    }
    let mut steps = gen.exact("PFMERGE", rest);
    steps.extend(gen.exact("GET", args![dest]));
    steps
}

fn get(gen: &mut Gen) -> Vec<Step> {
    let key = gen.pick(&HLL_KEYS);
    gen.exact("GET", args![key])
}

fn pfdebug(gen: &mut Gen) -> Vec<Step> {
    let sub = gen.pick(&["ENCODING", "DECODE", "TODENSE", "GETREG", "decode", "NOPE"]);
    let key = if gen.chance(10) { "missing".to_string() } else { hll_key(gen) };
    let mut steps = gen.exact("PFDEBUG", args![sub, key.clone()]);
    steps.extend(gen.exact("GET", args![key]));
    steps
}

/// An HLL corrupted in place: a header byte edited (magic, encoding, the cache and its stale
/// bit), or opcodes appended past the registers. Neither can leave half an XZERO at the end
/// (see the module's differences): a body byte edited anywhere could, and an encoding byte of
/// 1 would read a dense body as opcodes, so neither is written.
fn corrupt(gen: &mut Gen) -> Vec<Step> {
    let key = gen.pick(&HLL_KEYS);
    let mut steps = if gen.chance(60) {
        let offset = if gen.chance(30) { 15 } else { gen.rng.gen_range(0..16) };
        let byte = match offset {
            4 => gen.pick(&[0x00u8, 0x02, 0x80, 0xff]),
            _ => gen.pick(&[0x00u8, 0x01, 0x3f, 0x41, 0x80, 0x83, 0xfc, 0xff, b'H', b'X']),
        };
        gen.exact("SETRANGE", args![key, format!("{offset}"), vec![byte]])
    } else {
        let tails: [&[u8]; 6] = [b"\x00", b"\x3f", b"\x80", b"\xfc\x83", b"\x40\x00", b"\x7f\xff"];
        let tail = gen.pick(&tails);
        gen.exact("APPEND", args![key, tail])
    };
    steps.extend(gen.exact("PFCOUNT", args![key]));
    let added = element(gen);
    steps.extend(gen.exact("PFADD", args![key, added]));
    steps.extend(gen.exact("GET", args![key]));
    steps
}

fn plain_string(gen: &mut Gen) -> Vec<Step> {
    let key = gen.pick(&HLL_KEYS);
    let value = gen.pick(&["", "HYLL", "not an hll at all", "HYLL\x01\0\0\0\0\0\0\0\0\0\0\0"]);
    gen.exact("SET", args![key, value])
}

fn del(gen: &mut Gen) -> Vec<Step> {
    let key = gen.pick(&HLL_KEYS);
    gen.exact("DEL", args![key])
}

/// The fixed cases: creation, the cache, every PFDEBUG form, WRONGTYPE, arity, the sparse
/// limit as a setting.
fn edge_cases() -> Vec<Vec<Vec<u8>>> {
    let mut cases = vec![
        args!["FLUSHALL"],
        args!["PFADD", "h"],
        args!["GET", "h"],
        args!["PFADD", "h"],
        args!["PFADD", "h", "a", "b", "c"],
        args!["GET", "h"],
        args!["PFCOUNT", "h"],
        args!["GET", "h"],
        args!["PFCOUNT", "h"],
        args!["PFADD", "h", "a"],
        args!["PFADD", "h", "a", "z"],
        args!["PFCOUNT", "missing"],
        args!["PFCOUNT", "h", "missing"],
        args!["PFCOUNT", "h", "h"],
        args!["PFCOUNT"],
        args!["PFADD"],
        args!["PFMERGE"],
        args!["RPUSH", "list", "x"],
        args!["PFADD", "list", "x"],
        args!["PFCOUNT", "list"],
        args!["PFCOUNT", "h", "list"],
        args!["PFMERGE", "list", "h"],
        args!["PFMERGE", "h", "list"],
        args!["PFDEBUG", "ENCODING", "list"],
        args!["SET", "str", "hello"],
        args!["PFADD", "str", "x"],
        args!["PFCOUNT", "str"],
        args!["PFMERGE", "d", "str"],
        args!["EXISTS", "d"],
        args!["PFMERGE", "d"],
        args!["GET", "d"],
        args!["PFMERGE", "d", "h", "missing"],
        args!["GET", "d"],
        args!["PFMERGE", "d2", "h", "d"],
        args!["GET", "d2"],
        args!["PFDEBUG", "ENCODING", "h"],
        args!["PFDEBUG", "DECODE", "h"],
        args!["PFDEBUG", "decode", "h"],
        args!["PFDEBUG", "NOPE", "h"],
        args!["PFDEBUG", "NOPE", "missing"],
        args!["PFDEBUG", "GETREG", "missing"],
        args!["PFDEBUG", "GETREG"],
        args!["PFDEBUG", "GETREG", "h", "x"],
        args!["PFDEBUG", "TODENSE", "h"],
        args!["PFDEBUG", "TODENSE", "h"],
        args!["PFDEBUG", "ENCODING", "h"],
        args!["PFDEBUG", "DECODE", "h"],
        args!["GET", "h"],
        args!["PFCOUNT", "h"],
        args!["PFDEBUG", "GETREG", "h"],
        args!["PFDEBUG", "GETREG", "d2"],
        args!["GET", "d2"],
        args!["PFMERGE", "d3", "d", "h"],
        args!["PFDEBUG", "ENCODING", "d3"],
        args!["GET", "d3"],
        args!["PFSELFTEST"],
        args!["PFSELFTEST", "x"],
        args!["CONFIG", "GET", "hll-sparse-max-bytes"],
        args!["CONFIG", "SET", "hll-sparse-max-bytes", "40"],
        args!["CONFIG", "SET", "hll-sparse-max-bytes", "-1"],
    ];
    // Sparse until 40 bytes, then dense: every step's bytes compared.
    for n in 0..20 {
        cases.push(args!["PFADD", "small", format!("s{n}")]);
        cases.push(args!["GET", "small"]);
    }
    cases.push(args!["PFDEBUG", "ENCODING", "small"]);
    cases.push(args!["CONFIG", "SET", "hll-sparse-max-bytes", "3000"]);
    // A VAL run longer than 32 does not fit a sparse opcode: the merge of it turns dense.
    let mut long_run = args!["PFADD", "big"];
    long_run.extend((0..300).map(|n| format!("many:{n}").into_bytes()));
    cases.push(long_run);
    cases.push(args!["GET", "big"]);
    cases.push(args!["PFMERGE", "big2", "big", "small"]);
    cases.push(args!["GET", "big2"]);
    cases.push(args!["PFCOUNT", "big", "small", "h"]);
    cases
}

/// Hand-made broken HLLs: each bad header form, a dense string of the wrong length, sparse
/// bodies that cover too few or too many registers, a valid cache over a broken body.
fn corrupted_cases() -> Vec<Vec<Vec<u8>>> {
    let header = |encoding: u8, card: [u8; 8]| {
        let mut h = b"HYLL".to_vec();
        h.extend([encoding, 0, 0, 0]);
        h.extend(card);
        h
    };
    let stale = [0, 0, 0, 0, 0, 0, 0, 0x80];
    let sparse = |body: &[u8], card| {
        let mut s = header(1, card);
        s.extend_from_slice(body);
        s
    };
    let mut dense_short = header(0, stale);
    dense_short.extend(vec![0u8; 100]);
    let mut dense_ok = header(0, stale);
    dense_ok.extend(vec![0xffu8; 12288]);
    let mut dense_long = dense_ok.clone();
    dense_long.push(0);
    let mut cases = vec![
        args!["FLUSHALL"],
        args!["SET", "c", "HYL"],
        args!["SET", "c", header(2, stale)],
        args!["SET", "c", header(1, stale)],
        args!["PFCOUNT", "c"],
        args!["PFADD", "c", "x"],
        args!["SET", "c", header(1, [7, 0, 0, 0, 0, 0, 0, 0])],
        args!["PFCOUNT", "c"],
        args!["SET", "c", header(1, [0xff; 8])],
        args!["PFCOUNT", "c"],
        args!["SET", "c", header(1, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])],
        args!["PFCOUNT", "c"],
        args!["SET", "c", dense_short],
        args!["SET", "c", dense_long],
        args!["SET", "c", dense_ok],
        args!["SET", "c", sparse(b"\x7f\xfe", stale)],
        args!["SET", "c", sparse(b"\x7f\xff\x00", stale)],
        args!["SET", "c", sparse(b"\x7f\xfe\x80", stale)],
        args!["SET", "c", sparse(b"\x7f\xfe\xff", stale)],
        args!["SET", "c", sparse(b"\x7f\xfb\x83", stale)],
        args!["SET", "c", sparse(b"\x83\x7f\xfb", stale)],
        args!["SET", "c", sparse(b"\x3f\x3f\x7f\xbf", stale)],
        args!["SET", "c", sparse(b"\xff\xff\xff\xff\x7f\xef", stale)],
        args!["SET", "c", sparse(b"\x7f\xff\x7f\xff", stale)],
        args!["SET", "c", sparse(b"\x00\x7f\xff", stale)],
    ];
    // After each SET: every command on it, and the bytes.
    let reads = |key: &str| {
        vec![
            args!["PFCOUNT", key],
            args!["PFCOUNT", key, "other"],
            args!["PFDEBUG", "DECODE", key],
            args!["PFADD", key, "a", "b", "c"],
            args!["GET", key],
            args!["PFMERGE", "m", key],
            args!["PFDEBUG", "TODENSE", key],
            args!["PFDEBUG", "GETREG", key],
            args!["DEL", "m"],
        ]
    };
    let sets: Vec<usize> = cases.iter().enumerate().filter(|(_, c)| c[0] == b"SET").map(|(i, _)| i).collect();
    let mut out = Vec::new();
    for (i, case) in cases.drain(..).enumerate() {
        let is_set = sets.contains(&i);
        out.push(case);
        if is_set {
            out.extend(reads("c"));
        }
    }
    out
}
