//! A stable-Rust fuzz harness for the three entry points untrusted bytes reach: the RESP decoder
//! (`resp::parse_command`), `Engine::feed` with arbitrary bytes in arbitrary chunks, and command
//! execution (`Engine::call`) with arbitrary argv. Same targets as the cargo-fuzz ones in
//! `engine/fuzz/` (which need nightly Rust); this one runs on stable in `cargo test`:
//!
//! * a saved seed corpus (`tests/corpus/`: valid and invalid RESP, inline commands) mutated
//!   by bit flips, byte sets, truncations, duplications and splices with a deterministic RNG;
//! * proptest byte vectors and argv drawn from the real command table plus "interesting"
//!   arguments (integer edges, glob patterns, option words, random bytes).
//!
//! Invariants checked on every input: no panic; the decoder consumes `0 < n <= len` bytes or
//! waits; `feed` consumes a prefix and what it leaves is an incomplete command (or it stopped
//! for QUIT / a blocking command), and an error ends the connection with a `-ERR Protocol
//! error` reply (or silently for HTTP); after `FLUSHALL`, `used_memory` is back to zero.
//!
//! Iterations scale with `VITRINE_FUZZ_ITERS` (default 20000 mutations per target, 256 proptest cases per property via `VITRINE_FUZZ_CASES`; the whole
//! file takes a few seconds in a debug build). A longer run:
//! `VITRINE_FUZZ_ITERS=1000000 VITRINE_FUZZ_CASES=100000 cargo test --release -p vitrine-engine --test fuzz`.
//! Each test prints the number of inputs it ran.

use std::path::Path;

use proptest::prelude::*;
use vitrine_engine::inspect::command_names;
use vitrine_engine::testing::{parse_command, Limits};
use vitrine_engine::{Config, Engine, ProtocolError, Session};

const NOW: u64 = 1_700_000_000_000;

fn iters() -> usize {
    std::env::var("VITRINE_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000)
}

/// Proptest cases per property (`VITRINE_FUZZ_CASES`, default 256).
fn cases() -> u32 {
    std::env::var("VITRINE_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
}

/// xorshift64*: deterministic, so a failure reproduces from the printed iteration.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn corpus() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("tests/corpus").map(|e| e.unwrap().path()).collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(seeds.len() >= 10, "seed corpus too small: {}", seeds.len());
    seeds
}

/// One mutation of a seed: the usual byte-level operators of coverage fuzzers.
fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = [0, b'\r', b'\n', b'*', b'$', b'-', b'9', b'"', b'\'', b'\\', 0xff][rng.below(11)];
            }
            2 => data.truncate(rng.below(len + 1)),
            3 => {
                let other = &seeds[rng.below(seeds.len())];
                let cut = rng.below(other.len() + 1);
                let at = rng.below(len + 1);
                let tail = data.split_off(at);
                data.extend_from_slice(&other[cut..]);
                data.extend_from_slice(&tail);
            }
            4 if len > 0 => {
                // Duplicate a slice (pipelines, repeated headers).
                let a = rng.below(len);
                let b = a + rng.below(len - a + 1);
                let piece = data[a..b].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, piece);
            }
            5 => {
                // Replace a number with an edge value.
                const EDGES: [&[u8]; 10] = [
                    b"-1",
                    b"0",
                    b"2147483648",
                    b"9223372036854775807",
                    b"9223372036854775808",
                    b"-9223372036854775808",
                    b"18446744073709551616",
                    b"1048577",
                    b"00",
                    b"",
                ];
                if let Some(i) = data.iter().position(|b| b.is_ascii_digit()) {
                    let end = i + data[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                    data.splice(i..end, EDGES[rng.below(EDGES.len())].iter().copied());
                }
            }
            6 if len > 0 => {
                let i = rng.below(len);
                data.remove(i);
            }
            _ => data.push(rng.next() as u8),
        }
    }
    data
}

fn limits() -> Limits {
    Limits { max_bulk_len: 1024 * 1024, max_multibulk_len: 1024, max_inline_len: 64 * 1024, unauthenticated: false }
}

/// Decoder target: every call consumes `0 < n <= len` or waits or errs.
fn check_decoder(input: &[u8]) {
    let limits = limits();
    let mut pos = 0;
    while pos < input.len() {
        match parse_command(&input[pos..], &limits) {
            Ok(Some((args, used))) => {
                assert!(used > 0 && used <= input.len() - pos, "used {used} of {}", input.len() - pos);
                assert!(args.len() <= limits.max_multibulk_len);
                pos += used;
            }
            Ok(None) | Err(_) => return,
        }
    }
}

fn engine() -> Engine {
    let config = Config::default();
    // Bounded so a hostile SETRANGE/APPEND allocates at most this much per key.
    config.set("proto-max-bulk-len", "1mb").unwrap();
    Engine::new(config, NOW, 7)
}

/// Feed target: as the server does, bytes arrive in chunks; what `feed` leaves must be an
/// incomplete command (unless it stopped after a wrong password); an error closes the
/// connection.
fn check_feed(engine: &Engine, input: &[u8], chunks: &[usize]) {
    let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let mut buf: Vec<u8> = Vec::new();
    let mut out = Vec::new();
    let mut at = 0;
    let mut chunk = chunks.iter().cycle();
    'conn: while at < input.len() {
        let n = (*chunk.next().unwrap_or(&input.len())).max(1).min(input.len() - at);
        buf.extend_from_slice(&input[at..at + n]);
        at += n;
        loop {
            out.clear();
            let failures = session.auth_failures;
            match engine.feed(&mut session, &buf, &mut out, NOW) {
                Ok(used) => {
                    assert!(used <= buf.len());
                    buf.drain(..used);
                    if session.closing {
                        break 'conn;
                    }
                    if session.auth_failures != failures {
                        // Feed stops after a wrong password; the host goes on after a delay.
                        continue;
                    }
                    if session.blocked.is_some() {
                        // The host would wait; here the wait times out at once.
                        engine.unblock_timeout(&mut session, &mut out);
                        continue;
                    }
                    if !buf.is_empty() {
                        // Only an incomplete command may be left waiting.
                        let left = parse_command(&buf, &engine.limits());
                        assert!(matches!(left, Ok(None)), "feed left a decodable command: {:?}", left.map(|_| ()));
                    }
                    break;
                }
                Err(e) => {
                    if e == ProtocolError::LooksLikeHttp {
                        assert!(!out.ends_with(b"Protocol error"));
                    } else {
                        let text = String::from_utf8_lossy(&out);
                        assert!(text.contains("-ERR Protocol error"), "error without its reply: {text:?}");
                    }
                    break 'conn;
                }
            }
        }
    }
    engine.end_session(&session);
}

fn flush_and_check(engine: &Engine) {
    let mut admin: Session = engine.new_session("127.0.0.1:2", "127.0.0.1:6379", NOW);
    admin.authenticated = true;
    let reply = engine.call(&mut admin, &["FLUSHALL"], NOW);
    assert!(!reply.is_error(), "{reply:?}");
    assert_eq!(engine.snapshot(NOW).used_memory, 0, "used_memory after FLUSHALL");
    engine.end_session(&admin);
}

#[test]
fn decoder_on_mutated_corpus() {
    let seeds = corpus();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let n = iters() * 4;
    for i in 0..n {
        let input = mutate(&mut rng, &seeds);
        let r = std::panic::catch_unwind(|| check_decoder(&input));
        assert!(r.is_ok(), "iteration {i}: decoder panicked on {input:?}");
    }
    println!("decoder: {n} mutated inputs, 0 panics");
}

#[test]
fn feed_on_mutated_corpus() {
    let seeds = corpus();
    let engine = engine();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let n = iters();
    for i in 0..n {
        let input = mutate(&mut rng, &seeds);
        let chunks: Vec<usize> = (0..4).map(|_| 1 + rng.below(input.len().max(1))).collect();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_feed(&engine, &input, &chunks)));
        assert!(r.is_ok(), "iteration {i}: feed panicked on {input:?} in chunks {chunks:?}");
    }
    flush_and_check(&engine);
    println!("feed: {n} mutated inputs, 0 panics, used_memory 0 after FLUSHALL");
}

/// Arguments that reach interesting branches: integer and float edges, option words, patterns.
const WORDS: &[&str] = &[
    "k",
    "k2",
    "s",
    "h",
    "l",
    "z",
    "0",
    "1",
    "-1",
    "2",
    "3",
    "10",
    "-10",
    "100",
    "1000000",
    "-1000000",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "01",
    "+1",
    " 1",
    "1 ",
    "1e3",
    "0x10",
    "1.5",
    "-0",
    "inf",
    "-inf",
    "+inf",
    "nan",
    "(1",
    "[a",
    "+",
    "-",
    "",
    "*",
    "?",
    "[",
    "[^",
    "\\",
    "*a*a*a*a*a*a*a*a*b",
    "[a-",
    "NX",
    "XX",
    "GT",
    "LT",
    "CH",
    "INCR",
    "EX",
    "PX",
    "EXAT",
    "PXAT",
    "KEEPTTL",
    "GET",
    "PERSIST",
    "COUNT",
    "MATCH",
    "TYPE",
    "WITHSCORES",
    "WITHVALUES",
    "LIMIT",
    "BYSCORE",
    "BYLEX",
    "REV",
    "LEFT",
    "RIGHT",
    "BEFORE",
    "AFTER",
    "RANK",
    "MAXLEN",
    "WEIGHTS",
    "AGGREGATE",
    "SUM",
    "MIN",
    "MAX",
    "STORE",
    "LIST",
    "KILL",
    "ID",
    "SETNAME",
    "GETNAME",
    "INFO",
    "DOCS",
    "USAGE",
    "ENCODING",
    "IDLETIME",
    "FREQ",
    "AUTH",
    "default",
    "string",
    "hash",
    "ALL",
];

fn arg_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => prop::sample::select(WORDS).prop_map(|w| w.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..24),
        1 => any::<i64>().prop_map(|n| n.to_string().into_bytes()),
    ]
}

fn argv_strategy() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let names: Vec<&'static str> = command_names().collect();
    (prop::sample::select(names), prop::collection::vec(arg_strategy(), 0..7)).prop_map(|(name, rest)| {
        let mut argv = vec![name.as_bytes().to_vec()];
        argv.extend(rest);
        argv
    })
}

/// CONFIG SET could lift the bulk limit the harness relies on, and AUTH-related settings
/// would lock the session out; everything else runs.
fn allowed(argv: &[Vec<u8>]) -> bool {
    !(argv[0].eq_ignore_ascii_case(b"CONFIG") && argv.get(1).is_some_and(|s| s.eq_ignore_ascii_case(b"SET")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Command execution with arbitrary argv: sequences of commands on one engine, then
    /// FLUSHALL must bring used_memory back to zero.
    #[test]
    fn call_with_arbitrary_argv(script in prop::collection::vec(argv_strategy(), 1..60)) {
        let engine = engine();
        let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
        for (i, argv) in script.iter().enumerate() {
            if !allowed(argv) {
                continue;
            }
            let _ = engine.call(&mut session, argv, NOW + i as u64);
        }
        engine.end_session(&session);
        flush_and_check(&engine);
    }

    /// Arbitrary bytes straight into the decoder and feed.
    #[test]
    fn decoder_and_feed_on_random_bytes(input in prop::collection::vec(any::<u8>(), 0..512), split in 1usize..64) {
        check_decoder(&input);
        let engine = engine();
        check_feed(&engine, &input, &[split]);
        flush_and_check(&engine);
    }

    /// Arbitrary argv encoded as RESP and fed in chunks: the full path from bytes to handlers.
    #[test]
    fn feed_with_encoded_argv(script in prop::collection::vec(argv_strategy(), 1..30), split in 1usize..200) {
        let engine = engine();
        let mut bytes = Vec::new();
        for argv in script.iter().filter(|a| allowed(a)) {
            bytes.extend_from_slice(format!("*{}\r\n", argv.len()).as_bytes());
            for a in argv {
                bytes.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
                bytes.extend_from_slice(a);
                bytes.extend_from_slice(b"\r\n");
            }
        }
        check_feed(&engine, &bytes, &[split]);
        flush_and_check(&engine);
    }
}

/// No recursion and bounded work on hostile glob patterns: the matcher is iterative
/// (O(pattern x string)), so these finish, with no stack growth, however they are nested.
#[test]
fn pathological_glob_patterns_complete() {
    let s = vec![b'a'; 3000];
    let mut patterns: Vec<Vec<u8>> = vec![
        b"*a".repeat(1500).into_iter().chain(*b"b").collect(),
        b"[".repeat(3000),
        b"\\".repeat(3001),
        b"*?".repeat(1500),
        b"[^".repeat(1500),
    ];
    patterns.push(b"*".repeat(100_000));
    for p in &patterns {
        let _ = vitrine_engine::testing::glob_matches(p, &s);
        let _ = vitrine_engine::testing::glob_matches_case(p, &s, true);
    }
    // Through KEYS and SCAN MATCH on a keyspace of long keys.
    let engine = engine();
    let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let key = vec![b'a'; 2000];
    for i in 0..50u8 {
        let mut k = key.clone();
        k.push(i);
        engine.call(&mut session, &[&b"SET"[..], &k, b"v"], NOW);
    }
    let pattern: Vec<u8> = b"*a".repeat(200).into_iter().chain(*b"b").collect();
    let reply = engine.call(&mut session, &[&b"KEYS"[..], &pattern], NOW);
    assert!(!reply.is_error());
    let reply = engine.call(&mut session, &[&b"SCAN"[..], b"0", b"MATCH", &pattern, b"COUNT", b"1000"], NOW);
    assert!(!reply.is_error());
    println!("glob: {} pathological patterns against 3000-byte strings, and KEYS/SCAN MATCH completed", patterns.len());
}

// --- hll21: HyperLogLog strings ------------------------------------------------------------

/// Valid HLL strings to mutate: empty sparse, small sparse, sparse near the promotion, dense.
fn hll_seeds(engine: &Engine, session: &mut Session) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (n, dense) in [(0usize, false), (5, false), (300, false), (50, true), (3000, false)] {
        let mut argv: Vec<Vec<u8>> = vec![b"PFADD".to_vec(), b"seed".to_vec()];
        argv.extend((0..n).map(|i| format!("e{i}").into_bytes()));
        assert!(!engine.call(session, &argv, NOW).is_error());
        if dense {
            engine.call(session, &["PFDEBUG", "TODENSE", "seed"], NOW);
        }
        match engine.call(session, &["GET", "seed"], NOW) {
            vitrine_engine::Reply::Bulk(b) => seeds.push(b),
            other => panic!("GET of an HLL: {other:?}"),
        }
        engine.call(session, &["DEL", "seed"], NOW);
    }
    seeds
}

/// An HLL mutation: the generic operators, plus edits aimed at the header and opcodes.
fn mutate_hll(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = if rng.below(3) == 0 { mutate(rng, seeds) } else { seeds[rng.below(seeds.len())].clone() };
    for _ in 0..1 + rng.below(3) {
        let len = data.len();
        match rng.below(4) {
            0 if len > 0 => {
                // A header byte: magic, encoding, the cache (its stale bit too).
                let i = rng.below(len.min(16));
                data[i] = [0, 1, 2, 0x80, 0x7f, 0xff, b'H'][rng.below(7)];
            }
            1 if len > 16 => {
                // An opcode: ZERO, XZERO, VAL of any value and run.
                let i = 16 + rng.below(len - 16);
                data[i] = rng.next() as u8;
            }
            2 if len > 16 => data.truncate(16 + rng.below(len - 16)),
            _ => data.push(rng.next() as u8),
        }
    }
    data
}

/// Mutated HLL strings SET, then PFADD, PFCOUNT (one key and several), PFMERGE and every
/// PFDEBUG: no panic, every error one of Redis's, and nothing grows past a dense HLL.
#[test]
fn hll_commands_on_mutated_hll_strings() {
    const REDIS_ERRORS: [&str; 4] = [
        "WRONGTYPE Key is not a valid HyperLogLog string value.",
        "INVALIDOBJ Corrupted HLL object detected",
        "ERR HLL encoding is not sparse",
        "ERR The specified key does not exist",
    ];
    let engine = engine();
    let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let seeds = hll_seeds(&engine, &mut session);
    let mut rng = Rng(0x2121_4c4c_4859_0021);
    let n = iters() / 10;
    for i in 0..n {
        let input = mutate_hll(&mut rng, &seeds);
        let element = rng.next().to_le_bytes();
        let commands: [&[&[u8]]; 9] = [
            &[b"PFADD", b"x", &element, b"a", b"b"],
            &[b"PFCOUNT", b"x"],
            &[b"PFCOUNT", b"x", b"y"],
            &[b"PFMERGE", b"y", b"x"],
            &[b"PFDEBUG", b"DECODE", b"x"],
            &[b"PFDEBUG", b"ENCODING", b"x"],
            &[b"PFDEBUG", b"TODENSE", b"x"],
            &[b"PFDEBUG", b"GETREG", b"x"],
            &[b"GET", b"x"],
        ];
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            assert!(!engine.call(&mut session, &[&b"SET"[..], b"x", &input], NOW).is_error());
            for argv in commands {
                match engine.call(&mut session, argv, NOW) {
                    vitrine_engine::Reply::Error(e) => {
                        assert!(REDIS_ERRORS.contains(&e.as_str()), "{:?}: {e}", String::from_utf8_lossy(argv[0]));
                    }
                    vitrine_engine::Reply::Bulk(b) if argv[0] == b"GET" => {
                        // Bounded growth: a PFADD adds at most 3 bytes to a sparse body, or
                        // turns it into a 12304-byte dense one.
                        assert!(b.len() <= input.len().max(12304) + 3 * 3, "{} bytes from {}", b.len(), input.len());
                    }
                    _ => {}
                }
            }
            engine.call(&mut session, &["DEL", "x", "y"], NOW);
        }));
        assert!(r.is_ok(), "iteration {i}: HLL commands panicked on {input:?}");
    }
    flush_and_check(&engine);
    println!("hll: {n} mutated HLL strings through PFADD/PFCOUNT/PFMERGE/PFDEBUG, 0 panics");
}

// --- geo21: geospatial commands -----------------------------------------------------------------

/// Arguments for the geo commands: coordinates at and past the limits, odd numbers, units,
/// option words, and members.
const GEO_WORDS: &[&str] = &[
    "0",
    "180",
    "-180",
    "180.0000001",
    "85.05112878",
    "-85.05112878",
    "85.06",
    "13.361389",
    "38.115556",
    "1e308",
    "-1e308",
    "inf",
    "-inf",
    "nan",
    "1e-320",
    "",
    " 1",
    "0x10",
    "-0",
    "20000",
    "0.0001",
    "m",
    "km",
    "ft",
    "mi",
    "KM",
    "yd",
    "WITHDIST",
    "WITHCOORD",
    "WITHHASH",
    "COUNT",
    "ANY",
    "ASC",
    "DESC",
    "STORE",
    "STOREDIST",
    "FROMMEMBER",
    "FROMLONLAT",
    "BYRADIUS",
    "BYBOX",
    "NX",
    "XX",
    "CH",
    "g",
    "g2",
    "a",
    "b",
    "c",
];
const GEO_COMMANDS: &[&str] = &[
    "GEOADD",
    "GEOADD",
    "GEOADD",
    "GEOPOS",
    "GEODIST",
    "GEOHASH",
    "GEOSEARCH",
    "GEOSEARCH",
    "GEOSEARCHSTORE",
    "GEORADIUS",
    "GEORADIUS_RO",
    "GEORADIUSBYMEMBER",
    "GEORADIUSBYMEMBER_RO",
    "ZADD",
];

fn geo_argv(rng: &mut Rng) -> Vec<Vec<u8>> {
    let name = GEO_COMMANDS[rng.below(GEO_COMMANDS.len())];
    let mut argv = vec![name.as_bytes().to_vec(), if rng.below(4) == 0 { b"g2".to_vec() } else { b"g".to_vec() }];
    // Mostly well-formed searches (so the cell arithmetic runs), some arbitrary words.
    if rng.below(2) == 0 && name.starts_with("GEOSEARCH") {
        if name == "GEOSEARCHSTORE" {
            argv.push(b"g".to_vec());
        }
        argv.extend([b"FROMLONLAT".to_vec(), GEO_WORDS[rng.below(10)].into(), GEO_WORDS[rng.below(10)].into()]);
        argv.extend([
            b"BYBOX".to_vec(),
            GEO_WORDS[rng.below(22)].into(),
            GEO_WORDS[rng.below(22)].into(),
            b"km".to_vec(),
        ]);
    } else if name == "GEOADD" && rng.below(2) == 0 {
        let lon = (rng.next() % 360_000_000) as f64 / 1e6 - 180.0;
        let lat = (rng.next() % 170_000_000) as f64 / 1e6 - 85.0;
        argv.extend([lon.to_string().into_bytes(), lat.to_string().into_bytes(), GEO_WORDS[45 + rng.below(3)].into()]);
    } else if name == "ZADD" {
        // Scores no GEOADD makes: the geo commands decode them anyway.
        let score = ["-1", "1e300", "4503599627370496", "0.5", "-inf", "inf", "9007199254740993"][rng.below(7)];
        argv.extend([score.as_bytes().to_vec(), GEO_WORDS[45 + rng.below(3)].into()]);
    }
    for _ in 0..rng.below(9) {
        argv.push(GEO_WORDS[rng.below(GEO_WORDS.len())].as_bytes().to_vec());
    }
    argv
}

/// Geo commands with random, mostly hostile arguments: no panic, every reply well-formed,
/// no distance past the radius asked, and FLUSHALL gives back every byte.
#[test]
fn geo_commands_on_random_arguments() {
    let engine = engine();
    let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let mut rng = Rng(0x6e0_2121_dead_beef);
    let n = iters() / 2;
    for i in 0..n {
        let argv = geo_argv(&mut rng);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.call(&mut session, &argv, NOW)));
        assert!(r.is_ok(), "iteration {i}: panicked on {argv:?}");
    }
    // Every point a radius search answers is within the radius (distances print with four
    // decimals), on an index of its own.
    for i in 0..500 {
        let (lon, lat) = ((rng.next() % 360_000) as f64 / 1e3 - 180.0, (rng.next() % 170_000) as f64 / 1e3 - 85.0);
        engine.call(&mut session, &["GEOADD", "gr", &lon.to_string(), &lat.to_string(), &format!("p{i}")], NOW);
    }
    let mut found = 0;
    for i in 0..200 {
        let radius = 1 + rng.below(5000);
        let (lon, lat) = ((rng.next() % 360) as f64 - 180.0, (rng.next() % 170) as f64 - 85.0);
        let argv = [
            "GEOSEARCH",
            "g",
            "FROMLONLAT",
            &lon.to_string(),
            &lat.to_string(),
            "BYRADIUS",
            &radius.to_string(),
            "km",
            "WITHDIST",
        ];
        let reply = engine.call(&mut session, &argv, NOW);
        let vitrine_engine::Reply::Array(items) = reply else { panic!("search {i}: {reply:?}") };
        for item in items {
            let vitrine_engine::Reply::Array(pair) = item else { panic!("search {i}: {item:?}") };
            let vitrine_engine::Reply::Bulk(d) = &pair[1] else { panic!("search {i}: {pair:?}") };
            let d: f64 = String::from_utf8_lossy(d).parse().expect("a distance");
            assert!(d <= radius as f64 + 0.0001, "search {i}: {d} km from {lon},{lat} past {radius} km");
            found += 1;
        }
    }
    assert!(found > 100, "the radius searches found only {found} points");
    // Mutated RESP encodings of geo commands through feed.
    let seeds: Vec<Vec<u8>> = (0..16)
        .map(|_| {
            let argv = geo_argv(&mut rng);
            let mut bytes = format!("*{}\r\n", argv.len()).into_bytes();
            for a in &argv {
                bytes.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
                bytes.extend_from_slice(a);
                bytes.extend_from_slice(b"\r\n");
            }
            bytes
        })
        .collect();
    for i in 0..n / 4 {
        let input = mutate(&mut rng, &seeds);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_feed(&engine, &input, &[7, 64])));
        assert!(r.is_ok(), "iteration {i}: feed panicked on {input:?}");
    }
    engine.end_session(&session);
    flush_and_check(&engine);
    println!("geo: {n} random commands, {found} points within 200 radii, {} mutated inputs, 0 panics", n / 4);
}

// --- bits21: bitmaps --------------------------------------------------------------------------

/// One random bitmap command on one of three keys: offsets near the start, far out, `#`
/// forms, huge and malformed; every field type and overflow mode, bad ones too.
fn bitmap_argv(rng: &mut Rng) -> Vec<Vec<u8>> {
    const TYPES: &[&str] = &["u1", "i1", "u8", "i8", "u13", "i32", "u63", "i64", "u64", "i65", "u0", "x8", "i", ""];
    const WORDS: &[&str] = &["GET", "SET", "INCRBY", "OVERFLOW", "WRAP", "SAT", "FAIL", "BIT", "BYTE", "bogus"];
    let key = [&b"b1"[..], b"b2", b"b3"][rng.below(3)].to_vec();
    let offset = |rng: &mut Rng| -> Vec<u8> {
        match rng.below(12) {
            0 => format!("#{}", rng.below(40)).into_bytes(),
            1 => ["-1", "#-1", "x", "", "4294967295", "8388608", "9223372036854775807", "#9223372036854775807"]
                [rng.below(8)]
            .as_bytes()
            .to_vec(),
            2 => (rng.below(80_000)).to_string().into_bytes(),
            _ => rng.below(300).to_string().into_bytes(),
        }
    };
    let int = |rng: &mut Rng| -> Vec<u8> {
        match rng.below(6) {
            0 => (rng.next() as i64).to_string().into_bytes(),
            1 => ["9223372036854775807", "-9223372036854775808", "x", "1.5"][rng.below(4)].as_bytes().to_vec(),
            _ => (rng.below(600) as i64 - 300).to_string().into_bytes(),
        }
    };
    let mut argv: Vec<Vec<u8>> = Vec::new();
    match rng.below(7) {
        0 => {
            argv.extend([b"SETBIT".to_vec(), key, offset(rng)]);
            argv.push(["0", "1", "2", "-1"][rng.below(4)].as_bytes().to_vec());
        }
        1 => argv.extend([b"GETBIT".to_vec(), key, offset(rng)]),
        2 | 3 => {
            argv.push(if rng.below(4) == 0 { b"BITCOUNT".to_vec() } else { b"BITPOS".to_vec() });
            argv.push(key);
            if argv[0] == b"BITPOS" {
                argv.push(rng.below(3).to_string().into_bytes());
            }
            for _ in 0..rng.below(4) {
                argv.push(if rng.below(4) == 0 { WORDS[rng.below(WORDS.len())].as_bytes().to_vec() } else { int(rng) });
            }
        }
        4 => {
            argv.extend([
                b"BITOP".to_vec(),
                ["AND", "OR", "XOR", "NOT", "NAND"][rng.below(5)].as_bytes().to_vec(),
                key,
            ]);
            for _ in 0..rng.below(4) {
                argv.push([&b"b1"[..], b"b2", b"b3", b"none"][rng.below(4)].to_vec());
            }
        }
        _ => {
            argv.push(if rng.below(5) == 0 { b"BITFIELD_RO".to_vec() } else { b"BITFIELD".to_vec() });
            argv.push(key);
            for _ in 0..rng.below(6) {
                let word = WORDS[rng.below(4)];
                argv.push(word.as_bytes().to_vec());
                if word == "OVERFLOW" {
                    argv.push(WORDS[4 + rng.below(4)].as_bytes().to_vec());
                    continue;
                }
                argv.push(TYPES[rng.below(TYPES.len())].as_bytes().to_vec());
                argv.push(offset(rng));
                if word != "GET" {
                    argv.push(int(rng));
                }
            }
        }
    }
    argv
}

/// Random bitmap commands (and strings written over them): no panic, BITCOUNT and BITPOS
/// agree with the bytes GET returns, a SETBIT reads back, and FLUSHALL returns the memory.
#[test]
fn bitmap_commands_agree_with_their_bytes() {
    use vitrine_engine::Reply;
    let engine = engine();
    let mut session = engine.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let mut rng = Rng(0x0b17_5b17_5b17_0b17);
    let n = iters() / 10;
    for i in 0..n {
        let argv = bitmap_argv(&mut rng);
        let reply = engine.call(&mut session, &argv, NOW);
        let key = &argv[1];
        let bytes = match engine.call(&mut session, &[&b"GET"[..], key], NOW) {
            Reply::Bulk(b) => b,
            _ => Vec::new(),
        };
        let ones: i64 = bytes.iter().map(|b| b.count_ones() as i64).sum();
        let count = engine.call(&mut session, &[&b"BITCOUNT"[..], key], NOW);
        assert!(
            matches!(count, Reply::Int(c) if c == ones) || count.is_error(),
            "iteration {i}: {argv:?}: BITCOUNT {count:?}, {ones} ones in {bytes:?}"
        );
        let first =
            bytes.iter().position(|b| *b != 0).map_or(-1, |at| at as i64 * 8 + bytes[at].leading_zeros() as i64);
        let pos = engine.call(&mut session, &[&b"BITPOS"[..], key, b"1"], NOW);
        assert!(
            matches!(pos, Reply::Int(p) if p == first) || pos.is_error(),
            "iteration {i}: {argv:?}: BITPOS {pos:?}, expected {first}"
        );
        if argv[0] == b"SETBIT" && !reply.is_error() {
            let back = engine.call(&mut session, &[&b"GETBIT"[..], key, &argv[2]], NOW);
            assert_eq!(back, Reply::Int(if argv[3] == b"1" { 1 } else { 0 }), "iteration {i}: {argv:?}");
        }
        if rng.below(40) == 0 {
            let value: Vec<u8> = (0..rng.below(20)).map(|_| rng.next() as u8).collect();
            engine.call(&mut session, &[&b"SET"[..], key, &value], NOW);
        }
    }
    engine.end_session(&session);
    flush_and_check(&engine);
    println!("bitmaps: {n} random commands, BITCOUNT and BITPOS consistent with GET");
}

// --- dump21: RESTORE payloads ---------------------------------------------------------------
//
// Valid DUMP payloads of every type and encoding (built by commands, plus encodings only
// older Redis writes: a ziplist list, a zipmap hash), their bodies mutated by the operators
// above and framed again with a right CRC64, so every mutation reaches the value decoder.
// Each RESTORE must answer OK or `Bad data format`, never panic; what it restores must be
// readable; its accounted memory stays within what the payload can justify; FLUSHALL brings
// `used_memory` back to zero.

/// Payload bodies (type byte and value, no footer) of one key of each type and encoding.
fn restore_seeds(engine: &Engine) -> Vec<Vec<u8>> {
    let mut s = engine.new_session("127.0.0.1:3", "127.0.0.1:6379", NOW);
    let long: Vec<String> = (0..200).map(|i| format!("member-{i}-{}", "y".repeat(i % 70))).collect();
    let mut cmds: Vec<Vec<String>> = vec![
        vec!["SET".into(), "str".into(), "abc".repeat(30)],
        vec!["SET".into(), "int".into(), "-70000".into()],
        vec!["RPUSH".into(), "list".into(), "a".into(), "12".into(), "-5000".into(), "x".repeat(70)],
        vec!["SADD".into(), "intset".into(), "1".into(), "300".into(), "-70000".into()],
        vec!["SADD".into(), "set".into(), "a".into(), "bb".into()],
        vec!["ZADD".into(), "zset".into(), "1.5".into(), "a".into(), "-inf".into(), "b".into()],
        vec!["HSET".into(), "hash".into(), "f".into(), "v".into(), "n".into(), "1".into()],
        vec!["HSET".into(), "ttlhash".into(), "f".into(), "v".into(), "g".into(), "w".into()],
        vec![
            "HPEXPIREAT".into(),
            "ttlhash".into(),
            (NOW + 100_000).to_string(),
            "FIELDS".into(),
            "1".into(),
            "f".into(),
        ],
    ];
    for (name, cmd) in [("biglist", "RPUSH"), ("bigset", "SADD"), ("bighash", "HSET")] {
        let mut c = vec![cmd.to_string(), name.into()];
        c.extend(long.iter().cloned());
        cmds.push(c);
    }
    let mut z = vec!["ZADD".to_string(), "bigzset".into()];
    for (i, m) in long.iter().enumerate() {
        z.extend([format!("{}", i as f64 * 0.7), m.clone()]);
    }
    cmds.push(z);
    for i in 0..30 {
        let f = if i % 4 == 0 { "other" } else { "f" };
        cmds.push(vec!["XADD".into(), "stream".into(), format!("{}-{}", 5 + i / 2, i % 2), f.into(), i.to_string()]);
    }
    cmds.push(vec!["XDEL".into(), "stream".into(), "5-1".into()]);
    cmds.push(vec!["XGROUP".into(), "CREATE".into(), "stream".into(), "g".into(), "0".into()]);
    cmds.push(vec![
        "XREADGROUP".into(),
        "GROUP".into(),
        "g".into(),
        "c".into(),
        "COUNT".into(),
        "3".into(),
        "STREAMS".into(),
        "stream".into(),
        ">".into(),
    ]);
    for c in &cmds {
        let reply = engine.call(&mut s, c, NOW);
        assert!(!reply.is_error(), "{c:?}: {reply:?}");
    }
    let mut bodies = Vec::new();
    for key in [
        "str", "int", "list", "intset", "set", "zset", "hash", "ttlhash", "biglist", "bigset", "bighash", "bigzset",
        "stream",
    ] {
        let payload = engine.dump_key(0, key.as_bytes(), NOW).expect("key exists");
        bodies.push(payload[..payload.len() - 10].to_vec());
    }
    // A ziplist list ("ab", 5) and a zipmap hash {f: vw}, as Redis before 3.2 / 2.6 wrote them.
    let mut zl = vec![0u8; 10];
    zl.extend([0, 0x02, b'a', b'b', 4, 0xF6, 0xFF]);
    let total = zl.len() as u32;
    zl[..4].copy_from_slice(&total.to_le_bytes());
    zl[4..8].copy_from_slice(&14u32.to_le_bytes());
    zl[8] = 2;
    let mut list = vec![10u8, zl.len() as u8];
    list.extend(&zl);
    bodies.push(list);
    bodies.push(vec![9, 8, 1, 1, b'f', 2, 0, b'v', b'w', 0xFF]);
    flush_and_check(engine);
    engine.end_session(&s);
    bodies
}

/// RESTOREs one payload; checks the reply, the restored key and the memory it holds.
fn check_restore(engine: &Engine, session: &mut Session, payload: &[u8]) {
    engine.call(session, &[&b"DEL"[..], b"r"], NOW);
    let before = engine.snapshot(NOW).used_memory;
    let reply = engine.call(session, &[&b"RESTORE"[..], b"r", b"0", payload, b"REPLACE"], NOW);
    match reply {
        vitrine_engine::Reply::Ok => {
            for read in [&[&b"TYPE"[..], b"r"][..], &[b"DUMP", b"r"], &[b"MEMORY", b"USAGE", b"r"]] {
                assert!(!engine.call(session, read, NOW).is_error());
            }
            let used = engine.snapshot(NOW).used_memory.saturating_sub(before);
            assert!(used <= payload.len() as u64 * 4096 + 65_536, "{used} bytes from a {}-byte payload", payload.len());
        }
        vitrine_engine::Reply::Error(e) => assert_eq!(&*e, "ERR Bad data format"),
        other => panic!("RESTORE answered {other:?}"),
    }
}

#[test]
fn restore_on_mutated_payloads() {
    let engine = engine();
    let seeds = restore_seeds(&engine);
    let mut session = engine.new_session("127.0.0.1:4", "127.0.0.1:6379", NOW);
    // Every seed restores as it is, in both Redis 7.0's version and 7.4's.
    for body in &seeds {
        let payload = vitrine_engine::rdb::payload::frame(body.clone());
        let reply = engine.call(&mut session, &[&b"RESTORE"[..], b"r", b"0", &payload, b"REPLACE"], NOW);
        assert_eq!(reply, vitrine_engine::Reply::Ok, "seed {:?}", &body[..body.len().min(40)]);
    }
    let mut rng = Rng(0x0d0d_5eed_0d0d_5eed);
    // A quarter of the other targets' count: each input is a whole RESTORE and three reads.
    let n = iters() / 4;
    let mut accepted = 0;
    for i in 0..n {
        let body = mutate(&mut rng, &seeds);
        let version = if rng.below(8) == 0 { 12 } else { 10 };
        let payload = vitrine_engine::rdb::payload::frame_version(body, version);
        let r =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_restore(&engine, &mut session, &payload)));
        assert!(r.is_ok(), "iteration {i}: RESTORE panicked on {payload:?}");
        if engine.call(&mut session, &[&b"EXISTS"[..], b"r"], NOW) == vitrine_engine::Reply::Int(1) {
            accepted += 1;
        }
        if i % 1000 == 999 {
            flush_and_check(&engine);
        }
    }
    flush_and_check(&engine);
    engine.end_session(&session);
    println!("restore: {n} mutated payloads, {accepted} restored, 0 panics");
}

// ---------------------------------------------------------------------------------------------
// export21: key files (inspect::keys_file) and their import (inspect::import_keys).
// ---------------------------------------------------------------------------------------------

/// Mutated key files (both formats, exported from a keyspace of every type) go through a real
/// import: each is refused cleanly or restored key by key (a RESTORE refusing a mangled
/// payload is a row of the report), never a panic; after FLUSHALL, memory is back to zero.
#[test]
fn key_files_mutated_then_imported() {
    use vitrine_engine::inspect::{
        call_in, export_keys, import_keys, ConflictMode, ExportRequest, FileFormat, ImportQuery,
    };
    let source = engine();
    let mut session = source.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    for argv in [
        &[&b"SET"[..], b"s", b"value"][..],
        &[b"SET", b"t\xff", b"x", b"PX", b"5000"],
        &[b"HSET", b"h", b"f", b"v"],
        &[b"RPUSH", b"l", b"a", b"b"],
        &[b"SADD", b"set", b"1", b"2"],
        &[b"ZADD", b"z", b"1", b"m"],
        &[b"XADD", b"x", b"1-1", b"f", b"v"],
    ] {
        assert!(!source.call(&mut session, argv, NOW).is_error());
    }
    let seeds: Vec<Vec<u8>> = [FileFormat::Json, FileFormat::Binary]
        .into_iter()
        .map(|format| {
            let req = ExportRequest { format, ..ExportRequest::default() };
            export_keys(&source, &req, NOW).expect("export").bytes
        })
        .collect();
    let target = engine();
    let mut session = target.new_session("127.0.0.1:1", "127.0.0.1:6379", NOW);
    let mut rng = Rng(0x6b65_7966_696c_6573);
    let (mut refused, mut restored) = (0usize, 0usize);
    let n = iters() / 10;
    for i in 0..n {
        let input = mutate(&mut rng, &seeds);
        let mode = [ConflictMode::Skip, ConflictMode::Replace, ConflictMode::Fail][i % 3];
        let q = ImportQuery { db: Some(0), mode: Some(mode) };
        match import_keys(&target, &q, &input, NOW, |db, argv| call_in(&target, &mut session, db, argv, NOW)) {
            Ok(report) => restored += report.restored,
            Err(_) => refused += 1,
        }
        if i % 50 == 49 {
            flush_and_check(&target);
        }
    }
    flush_and_check(&target);
    println!("key files: {n} mutated files imported ({refused} refused whole, {restored} keys restored)");
    assert!(refused > 0 && restored > 0, "the mutations should reach both outcomes");
}
