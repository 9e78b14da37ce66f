//! Stream consumer groups: XGROUP, XREADGROUP (new entries, history, NOACK), XACK, XPENDING,
//! XCLAIM, XAUTOCLAIM and XINFO GROUPS in seeded random sequences, after fixed edge cases.
//!
//! Deliberate differences, avoided or masked here:
//! - Entry IDs are explicit (`n-0`, rising through each seed), never `*`, which reads each
//!   server's clock.
//! - Idle times move with the clock: XPENDING's extended form is compared with each entry's
//!   idle time masked, and min-idle times are 0 or far larger than a test runs.
//! - Redis 7.2 shapes where 7.0 differs: XINFO CONSUMERS (7.2 adds `inactive`) and XINFO
//!   STREAM FULL (7.2 adds `active-time`) are not sent; XAUTOCLAIM creates its consumer in 7.2
//!   even when it claims nothing (7.0 only when it claims), so it is sent only for consumers
//!   that exist. XINFO STREAM is compared by shape (its radix tree counts are Redis's own).
//! - An unbalanced STREAMS list is answered with 7.2's text (which names the command, as
//!   XREAD's does here), not 7.0's; it is not sent.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rand::Rng;

use crate::harness::*;

/// The ms part of the next entry ID of this seed (the same on both servers).
static NEXT_MS: AtomicU64 = AtomicU64::new(1);

const STREAMS: [&str; 2] = ["s1", "s2"];
const GROUPS: [&str; 2] = ["g1", "g2"];
const CONSUMERS: [&str; 3] = ["c1", "c2", "c3"];

#[test]
fn random_stream_group_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_stream_group_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("stream group edge cases");
    for (argv, masked) in edge_cases() {
        call(&mut peers, &argv, masked);
    }
    for seed in seeds() {
        peers.begin(&format!("stream groups, seed {seed}"));
        let mut gen = Gen::new(seed);
        for (argv, masked) in fixtures() {
            call(&mut peers, &argv, masked);
        }
        for n in 0..OPS_PER_SEED {
            peers.op = n;
            let op = gen.weighted(OPS);
            for (argv, masked) in op(&mut gen) {
                call(&mut peers, &argv, masked);
            }
        }
    }
}

/// A command and whether its reply holds XPENDING entries whose idle times are masked.
type Call = (Vec<Vec<u8>>, bool);

fn exact(argv: Vec<Vec<u8>>) -> Call {
    (argv, false)
}

/// Sends `argv` to both; with `masked`, the idle time (third element) of each XPENDING entry
/// is zeroed in both replies first; XINFO STREAM by shape.
fn call(peers: &mut Peers, argv: &[Vec<u8>], masked: bool) {
    if argv[0].eq_ignore_ascii_case(b"XINFO") && argv[1].eq_ignore_ascii_case(b"STREAM") {
        peers.call(argv, Check::Shape);
        return;
    }
    if !masked {
        peers.call(argv, Check::Exact);
        return;
    }
    let mask = |r: Resp| match r {
        Resp::Array(items) => Resp::Array(
            items
                .into_iter()
                .map(|item| match item {
                    Resp::Array(mut f) if f.len() == 4 => {
                        f[2] = Resp::Int(0);
                        Resp::Array(f)
                    }
                    other => other,
                })
                .collect(),
        ),
        other => other,
    };
    let v = mask(peers.vitrine.call(argv).expect("vitrine answers"));
    let r = mask(peers.redis.call(argv).expect("redis answers"));
    if std::env::var_os("DIFFERENTIAL_TRACE").is_some() {
        eprintln!("TRACE {} -> {v:?}", show_argv(argv));
    }
    assert_eq!(v, r, "{}: replies differ (idle times masked)", show_argv(argv));
}

/// Two streams with entries, groups on both, every consumer created.
fn fixtures() -> Vec<Call> {
    NEXT_MS.store(1, Relaxed);
    let mut out = vec![exact(args!["FLUSHALL"]), exact(args!["SET", "str", "v"])];
    for key in STREAMS {
        for _ in 0..4 {
            out.push(exact(xadd(key)));
        }
        for g in GROUPS {
            out.push(exact(args!["XGROUP", "CREATE", key, g, "0"]));
            for c in CONSUMERS {
                out.push(exact(args!["XGROUP", "CREATECONSUMER", key, g, c]));
            }
        }
    }
    out
}

fn xadd(key: &str) -> Vec<Vec<u8>> {
    let ms = NEXT_MS.fetch_add(1, Relaxed);
    args!["XADD", key, format!("{ms}-0"), "f", format!("v{ms}")]
}

/// An ID at or around the entries added so far (some pending, some acknowledged, some never
/// added), or an odd spelling.
fn some_id(gen: &mut Gen) -> String {
    let top = NEXT_MS.load(Relaxed) + 2;
    match gen.rng.gen_range(0..10) {
        0 => "0".into(),
        1 => gen.pick(&["-", "+", "abc", "1-x", "(2"]).into(),
        2 => format!("{}", gen.rng.gen_range(0..top)),
        _ => format!("{}-0", gen.rng.gen_range(0..top)),
    }
}

fn count(gen: &mut Gen) -> String {
    gen.pick(&["0", "1", "2", "5", "100", "-1"]).into()
}

/// An operation of the random test: the calls it makes.
type GroupOp = fn(&mut Gen) -> Vec<Call>;

const OPS: &[(u32, GroupOp)] = &[
    (6, |gen| vec![exact(xadd(gen.pick(&STREAMS)))]),
    (8, |gen| {
        let mut argv = args!["XREADGROUP", "GROUP", gen.pick(&GROUPS), gen.pick(&CONSUMERS)];
        if gen.chance(50) {
            argv.extend(args!["COUNT", count(gen)]);
        }
        if gen.chance(20) {
            argv.push(b"NOACK".to_vec());
        }
        argv.push(b"STREAMS".to_vec());
        if gen.chance(30) {
            argv.extend(args!["s1", "s2", ">", ">"]);
        } else {
            argv.extend(args![gen.pick(&STREAMS), ">"]);
        }
        vec![exact(argv)]
    }),
    (4, |gen| {
        // History: the consumer's own pending entries after an ID.
        let id = if gen.chance(50) { "0".to_string() } else { some_id(gen) };
        vec![exact(args![
            "XREADGROUP",
            "GROUP",
            gen.pick(&GROUPS),
            gen.pick(&CONSUMERS),
            "STREAMS",
            gen.pick(&STREAMS),
            id
        ])]
    }),
    (5, |gen| {
        let mut argv = args!["XACK", gen.pick(&STREAMS), gen.pick(&GROUPS)];
        for _ in 0..gen.rng.gen_range(1..4) {
            argv.push(some_id(gen).into_bytes());
        }
        vec![exact(argv)]
    }),
    (3, |gen| vec![exact(args!["XPENDING", gen.pick(&STREAMS), gen.pick(&GROUPS)])]),
    (4, |gen| {
        let mut argv = args!["XPENDING", gen.pick(&STREAMS), gen.pick(&GROUPS)];
        if gen.chance(20) {
            argv.extend(args!["IDLE", gen.pick(&["0", "100000000"])]);
        }
        argv.extend(args![gen.pick(&["-", "0", "(1-0"]), gen.pick(&["+", "5", "(9-0"]), count(gen)]);
        if gen.chance(40) {
            argv.push(gen.pick(&CONSUMERS).as_bytes().to_vec());
        }
        vec![(argv, true)]
    }),
    (4, |gen| {
        let mut argv = args![
            "XCLAIM",
            gen.pick(&STREAMS),
            gen.pick(&GROUPS),
            gen.pick(&CONSUMERS),
            gen.pick(&["0", "0", "100000000"])
        ];
        for _ in 0..gen.rng.gen_range(1..3) {
            argv.push(some_id(gen).into_bytes());
        }
        for opt in ["FORCE", "JUSTID"] {
            if gen.chance(25) {
                argv.push(opt.as_bytes().to_vec());
            }
        }
        if gen.chance(20) {
            argv.extend(args!["RETRYCOUNT", gen.pick(&["0", "3", "x"])]);
        }
        if gen.chance(10) {
            argv.extend(args!["LASTID", some_id(gen)]);
        }
        vec![exact(argv)]
    }),
    (3, |gen| {
        let mut argv = args![
            "XAUTOCLAIM",
            gen.pick(&STREAMS),
            gen.pick(&GROUPS),
            gen.pick(&CONSUMERS),
            gen.pick(&["0", "100000000"]),
            gen.pick(&["0", "-", "2-0", "(1-0"])
        ];
        if gen.chance(50) {
            argv.extend(args!["COUNT", gen.pick(&["1", "2", "10", "0"])]);
        }
        if gen.chance(30) {
            argv.push(b"JUSTID".to_vec());
        }
        vec![exact(argv)]
    }),
    (2, |gen| {
        // A deleted entry: history reads show it as nil, claims drop it.
        vec![exact(args!["XDEL", gen.pick(&STREAMS), some_id(gen)])]
    }),
    (2, |gen| vec![exact(args!["XINFO", "GROUPS", gen.pick(&STREAMS)])]),
    (1, |gen| vec![exact(args!["XINFO", "STREAM", gen.pick(&STREAMS)])]),
    (1, |gen| {
        let id = gen.pick(&["0", "$", "1-0", "3-0"]);
        vec![exact(args!["XGROUP", "SETID", gen.pick(&STREAMS), gen.pick(&GROUPS), id])]
    }),
    (1, |gen| {
        // Deleting a consumer drops its pending entries; it is created again at once, so
        // XAUTOCLAIM only ever names consumers that exist.
        let (key, g, c) = (gen.pick(&STREAMS), gen.pick(&GROUPS), gen.pick(&CONSUMERS));
        vec![exact(args!["XGROUP", "DELCONSUMER", key, g, c]), exact(args!["XGROUP", "CREATECONSUMER", key, g, c])]
    }),
];

/// Errors in Redis's order, empty and missing things, the group lifecycle.
fn edge_cases() -> Vec<Call> {
    NEXT_MS.store(1, Relaxed);
    let mut out = vec![exact(args!["FLUSHALL"])];
    let cases = vec![
        args!["XGROUP", "CREATE", "s", "g", "$"],
        args!["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"],
        args!["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"],
        args!["XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "-2"],
        args!["XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "x"],
        args!["XGROUP", "CREATE", "s", "g2", "0", "BOGUS"],
        args!["XGROUP", "CREATE", "s", "g2", "bad-id"],
        args!["XGROUP", "CREATE", "s", "g2", "0", "ENTRIESREAD", "3"],
        args!["XGROUP", "SETID", "s", "nog", "0"],
        args!["XGROUP", "SETID", "s", "g2", "0", "ENTRIESREAD"],
        args!["XGROUP", "SETID", "s", "g2", "+"],
        args!["XGROUP", "DESTROY", "s", "nog"],
        args!["XGROUP", "DESTROY", "nokey", "g"],
        args!["XGROUP", "CREATECONSUMER", "s", "g", "c"],
        args!["XGROUP", "CREATECONSUMER", "s", "g", "c"],
        args!["XGROUP", "DELCONSUMER", "s", "g", "c"],
        args!["XGROUP", "DELCONSUMER", "s", "g", "c"],
        args!["XGROUP", "HELP"],
        args!["XGROUP", "FOO"],
        args!["XGROUP", "CREATE", "s"],
        args!["XINFO", "HELP"],
        args!["XINFO", "GROUPS", "s"],
        args!["XINFO", "GROUPS", "nokey"],
        args!["XINFO", "CONSUMERS", "s", "nog"],
        args!["XINFO", "STREAM", "s", "FULL", "COUNT"],
        args!["XINFO", "STREAM", "s", "PARTIAL"],
        args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"],
        args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "$"],
        args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "nokey", ">"],
        args!["XREADGROUP", "GROUP", "g", "c", "COUNT", "x", "STREAMS", "s", ">"],
        args!["XREADGROUP", "GROUP", "g", "c", "BLOCK", "-5", "STREAMS", "s", ">"],
        args!["XREADGROUP", "GROUP", "g", "c", "BLOCK", "x", "STREAMS", "s", ">"],
        args!["XREADGROUP", "NOACK", "COUNT", "1", "STREAMS", "s", ">"],
        args!["XREADGROUP", "GROUP", "g", "c", "FOO", "STREAMS", "s", ">"],
        args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "-"],
        args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"],
        args!["XACK", "s", "g", "bad"],
        args!["XACK", "nokey", "g", "1-0"],
        args!["XPENDING", "s", "g"],
        args!["XPENDING", "s", "g", "-", "+"],
        args!["XPENDING", "s", "g", "IDLE", "5", "-", "+"],
        args!["XPENDING", "s", "g", "IDLE", "x", "-", "+", "1"],
        args!["XPENDING", "s", "g", "-", "+", "x"],
        args!["XPENDING", "s", "g", "(18446744073709551615-18446744073709551615", "+", "1"],
        args!["XPENDING", "s", "nog"],
        args!["XPENDING", "nokey", "g"],
        args!["XCLAIM", "s", "nog", "c", "0", "1-0"],
        args!["XCLAIM", "s", "g", "c", "x", "1-0"],
        args!["XCLAIM", "s", "g", "c", "0", "1-0", "IDLE"],
        args!["XCLAIM", "s", "g", "c", "0", "1-0", "TIME", "x"],
        args!["XCLAIM", "s", "g", "c", "0", "1-0", "WHAT"],
        args!["XCLAIM", "s", "g", "c", "0", "1-0", "LASTID", "x"],
        args!["XAUTOCLAIM", "s", "g", "c", "x", "0"],
        args!["XAUTOCLAIM", "s", "g", "c", "0", "bad"],
        args!["XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "0"],
        args!["XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "-1"],
        args!["XAUTOCLAIM", "s", "g", "c", "0", "0", "BOGUS"],
        args!["XAUTOCLAIM", "s", "nog", "c", "0", "0"],
        args!["SET", "str", "v"],
        args!["XGROUP", "CREATE", "str", "g", "$"],
        args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "str", ">"],
        args!["XACK", "str", "g", "1-0"],
        args!["XPENDING", "str", "g"],
        args!["XCLAIM", "str", "g", "c", "0", "1-0"],
        args!["XAUTOCLAIM", "str", "g", "c", "0", "0"],
        args!["XINFO", "GROUPS", "str"],
    ];
    out.extend(cases.into_iter().map(exact));
    // Deliveries, a deleted pending entry, history with it as nil, the lag around deletions.
    for _ in 0..5 {
        out.push(exact(xadd("s")));
    }
    for argv in [
        args!["XREADGROUP", "GROUP", "g", "c", "COUNT", "3", "STREAMS", "s", ">"],
        args!["XINFO", "GROUPS", "s"],
        args!["XDEL", "s", "2-0"],
        args!["XINFO", "GROUPS", "s"],
        args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"],
        args!["XREADGROUP", "GROUP", "g", "d", "NOACK", "STREAMS", "s", ">"],
        args!["XINFO", "GROUPS", "s"],
        args!["XPENDING", "s", "g"],
        args!["XAUTOCLAIM", "s", "g", "c", "0", "0", "COUNT", "1"],
        args!["XAUTOCLAIM", "s", "g", "c", "0", "0", "JUSTID"],
        args!["XCLAIM", "s", "g", "d", "0", "3-0", "4-0", "FORCE", "RETRYCOUNT", "9", "JUSTID"],
        args!["XCLAIM", "s", "g", "d", "0", "1-0", "3-0"],
        args!["XGROUP", "SETID", "s", "g", "0", "ENTRIESREAD", "0"],
        args!["XINFO", "GROUPS", "s"],
        args!["XGROUP", "DELCONSUMER", "s", "g", "d"],
        args!["XPENDING", "s", "g"],
        args!["XGROUP", "DESTROY", "s", "g"],
        args!["XINFO", "GROUPS", "s"],
    ] {
        out.push(exact(argv));
    }
    out.push((args!["XPENDING", "s", "g2", "-", "+", "10"], true));
    out
}
