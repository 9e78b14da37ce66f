//! String and key commands (GET/SET and friends, expiry, KEYS/SCAN, RENAME, OBJECT, arity and
//! unknown-command errors): the main random test, which mixes in every other family's
//! operations, and its edge cases.

use std::time::Duration;

use rand::seq::SliceRandom;
use rand::Rng;

use crate::harness::*;
use crate::hashes_sets::{HASH_KEYS, SET_KEYS};
use crate::lists::LKEYS;
use crate::sorted_sets::ZKEYS;

/// Patterns for KEYS and SCAN MATCH, including the corners of Redis's glob syntax.
const PATTERNS: &[&[u8]] = &[
    b"*",
    b"a",
    b"key:*",
    b"key:?",
    b"key:[0-9]*",
    b"key:[2-1]*",
    b"*o*",
    b"[^k]*",
    b"h\\[e\\]\\*llo",
    b"h[e]*llo",
    b"*\x00*",
    b"\xff*",
    b"?",
    b"",
    b"**",
    b"*?",
    b"[a-z]",
    b"*[",
    b"[",
    b"\\",
    b"[]",
    b"[^]*",
    b"two\\ words",
    b"*\r\n",
];

#[test]
fn random_string_and_key_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_string_and_key_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    for seed in seeds() {
        peers.begin(&format!("seed {seed}"));
        peers.call(&[b"FLUSHALL".to_vec()], Check::Exact);
        let mut gen = Gen::new(seed);
        for op in 0..OPS_PER_SEED {
            peers.op = op;
            for step in gen.op() {
                peers.run(step);
            }
        }
    }
}

/// Fixed cases that the random test found, or that pin down a corner it may rarely reach.
#[test]
fn edge_cases_match_redis() {
    let Some(servers) = Servers::start_or_skip("edge_cases_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("edge cases");
    let far = far_future_ms();
    let cases: Vec<Vec<Vec<u8>>> = vec![
        args!["FLUSHALL"],
        // Integer edges.
        args!["SET", "n", i64::MAX.to_string()],
        args!["INCR", "n"],
        args!["INCRBY", "n", "-1"],
        args!["DECRBY", "n", i64::MIN.to_string()],
        args!["INCRBYFLOAT", "n", "1.5"],
        args!["SET", "n", i64::MIN.to_string()],
        args!["DECR", "n"],
        args!["INCRBY", "n", i64::MAX.to_string()],
        args!["INCRBYFLOAT", "n", "-0.5"],
        args!["SET", "z", "-0"],
        args!["INCRBYFLOAT", "z", "-0"],
        args!["INCRBYFLOAT", "f", "0.1"],
        args!["INCRBYFLOAT", "f", "0.2"],
        args!["INCRBYFLOAT", "f", "1e2"],
        args!["INCRBYFLOAT", "f", "0x10"],
        args!["INCRBYFLOAT", "f", "inf"],
        // Expiry edges: overflow, far future, the past.
        args!["SET", "t", "v", "EX", "9223372036854775"],
        args!["SET", "t", "v", "PX", i64::MAX.to_string()],
        args!["SET", "t", "v", "EXAT", "9223372036854775"],
        args!["SET", "t", "v", "PXAT", far.to_string()],
        args!["PEXPIRETIME", "t"],
        args!["PEXPIREAT", "t", i64::MAX.to_string(), "GT"],
        args!["PEXPIRETIME", "t"],
        args!["EXPIRE", "t", "9223372036854775"],
        args!["EXPIRE", "t", "-9223372036854775"],
        args!["EXPIRE", "t", "-9223372036854776"],
        args!["EXPIREAT", "t", "1", "LT"],
        args!["EXISTS", "t"],
        args!["SET", "t", "v"],
        args!["EXPIRE", "t", "100", "GT"],
        args!["EXPIRE", "t", "100", "LT"],
        args!["TTL", "t"],
        args!["GETEX", "t", "PXAT", "1"],
        args!["EXISTS", "t"],
        // Ranges.
        args!["SET", "s", "Hello World"],
        args!["GETRANGE", "s", i64::MIN.to_string(), i64::MAX.to_string()],
        args!["GETRANGE", "s", "-1", "-5"],
        args!["SETRANGE", "s", "20", "!"],
        args!["GET", "s"],
        args!["SETRANGE", "missing", "5", ""],
        args!["EXISTS", "missing"],
        args!["SUBSTR", "s", "-5", "-1"],
        args!["SUBSTR", "s", "x", "1"],
        // LCS: every option, its errors, missing keys and other types.
        args!["SET", "k1", "ohmytext"],
        args!["SET", "k2", "mynewtext"],
        args!["LCS", "k1", "k2"],
        args!["LCS", "k1", "k2", "LEN"],
        args!["LCS", "k1", "k2", "IDX"],
        args!["LCS", "k1", "k2", "idx", "minmatchlen", "4", "withmatchlen"],
        args!["LCS", "k1", "k2", "IDX", "WITHMATCHLEN", "MINMATCHLEN", "-3"],
        args!["LCS", "k1", "k2", "LEN", "IDX"],
        args!["LCS", "k1", "k2", "FOO"],
        args!["LCS", "k1", "k2", "MINMATCHLEN"],
        args!["LCS", "k1", "k2", "IDX", "MINMATCHLEN", "x"],
        args!["LCS", "k1", "nosuch"],
        args!["LCS", "nosuch", "k2", "IDX"],
        args!["LCS", "nosuch", "nosuch2", "LEN"],
        args!["RPUSH", "lcslist", "a"],
        args!["LCS", "k1", "lcslist"],
        args!["LCS", "lcslist", "nosuch", "BAD"],
        args!["SET", "k3", "aaaaabbbbbaaaaab"],
        args!["SET", "k4", "bbaaaabbbbbbaaa"],
        args!["LCS", "k3", "k4", "IDX", "WITHMATCHLEN"],
        args!["LCS", "k4", "k3", "IDX", "MINMATCHLEN", "3"],
        // Glob corners against the empty key and metacharacters.
        args!["MSET", "", "empty", "h[e]*llo", "meta", "[", "bracket", "\\", "backslash"],
        args!["KEYS", "**"],
        args!["KEYS", "*?"],
        args!["KEYS", "[[]"],
        args!["KEYS", "\\\\"],
        args!["KEYS", "[\\]"],
        args!["KEYS", "h\\[e\\]\\*llo"],
        args!["KEYS", "[^]*"],
        args!["KEYS", ""],
        // Errors quote arguments as C's printf does: up to a NUL byte, within 128 bytes, and
        // with CR/LF trimmed off the end of the text.
        args!["NOSUCH", "a\0b", "x".repeat(100), "y".repeat(100), "z"],
        args!["N".repeat(140), "a"],
        args!["EXPIRE", "n", "10", "F\0OO"],
        args!["EXPIRE", "n", "10", "a\rb\r\n"],
        args!["OBJECT", "EN\0C", "n"],
        args!["OBJECT", "e".repeat(200), "n"],
        // protected-mode is a bool config, settable at run time (it decides later accepts
        // only: these connections are on loopback).
        args!["CONFIG", "SET", "protected-mode", "yes"],
        args!["CONFIG", "GET", "protected-mode"],
        args!["CONFIG", "SET", "protected-mode", "NO"],
        args!["CONFIG", "GET", "protected-mode"],
        args!["CONFIG", "SET", "protected-mode", "maybe"],
        args!["CONFIG", "SET", "protected-mode", "1"],
        args!["CONFIG", "SET", "protected-mode", ""],
        args!["CONFIG", "GET", "protected-mode"],
        // The normal class of client-output-buffer-limit, as connections now enforce it.
        args!["CONFIG", "SET", "client-output-buffer-limit", "normal 64mb 16mb 10"],
        args!["CONFIG", "GET", "client-output-buffer-limit"],
        args!["CONFIG", "SET", "client-output-buffer-limit", "normal 64mb"],
        args!["CONFIG", "SET", "client-output-buffer-limit", "normal x 0 0"],
        args!["CONFIG", "SET", "client-output-buffer-limit", "everyone 1 0 0"],
        args!["CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0"],
        args!["CONFIG", "GET", "client-output-buffer-limit"],
    ];
    for argv in cases {
        let check = match &argv[0][..] {
            b"KEYS" => Check::Unordered,
            b"TTL" | b"PTTL" | b"EXPIRETIME" | b"PEXPIRETIME" => Check::Ttl,
            _ => Check::Exact,
        };
        peers.call(&argv, check);
    }
    // SCAN MATCH goes through the same glob as KEYS (a lone "*" is every key, the empty one too).
    for pattern in ["*", "**", ""] {
        peers.run(Step::Scan(args!["MATCH", pattern, "COUNT", "3"]));
    }
}

/// An operation: from a random key and value, the steps to run.
type Op = fn(&mut Gen, Vec<u8>, Vec<u8>) -> Vec<Step>;

/// Every operation the random test runs, with its relative weight.
const OPS: &[(u32, Op)] = &[
    (60, |g, k, _| g.exact("GET", args![k])),
    (110, |g, k, v| g.set(k, v)),
    (15, |g, k, v| g.set_invalid(k, v)),
    (15, |g, k, v| g.exact("SETNX", args![k, v])),
    (20, |g, k, v| {
        let (name, time) = if g.chance(50) {
            ("SETEX", (g.rel_ms() / 1000).to_string().into_bytes())
        } else {
            ("PSETEX", g.rel_ms().to_string().into_bytes())
        };
        let time = if g.chance(20) { g.bad_expire(name).into() } else { time };
        g.exact(name, args![k, time, v])
    }),
    (20, |g, _, _| {
        let keys = g.keys(5);
        g.exact("MGET", keys)
    }),
    (25, |g, _, _| {
        let name = if g.chance(50) { "MSET" } else { "MSETNX" };
        let pairs = g.rng.gen_range(1..=4);
        let mut rest = Vec::new();
        for _ in 0..pairs {
            rest.push(g.key());
            rest.push(g.value());
        }
        if g.chance(5) {
            rest.pop(); // an odd count is an arity error
        }
        g.exact(name, rest)
    }),
    (15, |g, k, v| g.exact("GETSET", args![k, v])),
    (15, |g, k, _| g.exact("GETDEL", args![k])),
    (30, |g, k, _| g.getex(k)),
    (30, |g, k, v| g.exact("APPEND", args![k, v])),
    (15, |g, k, _| g.exact("STRLEN", args![k])),
    (20, |g, k, _| {
        let (start, end) = (g.int(-20..20), g.int(-20..20));
        g.exact("GETRANGE", args![k, start, end])
    }),
    (5, |g, k, _| {
        let (start, end) = (g.int(-20..20), g.int(-20..20));
        g.exact("SUBSTR", args![k, start, end])
    }),
    (10, |g, k, _| {
        let other = g.key();
        let mut rest = args![k, other];
        for _ in 0..g.rng.gen_range(0..3) {
            match g.rng.gen_range(0..5) {
                0 => rest.push(g.casing("LEN")),
                1 => rest.push(g.casing("IDX")),
                2 => rest.push(g.casing("WITHMATCHLEN")),
                3 => {
                    rest.push(g.casing("MINMATCHLEN"));
                    rest.push(g.int(-2..5));
                }
                _ => rest.push(b"BOGUS".to_vec()),
            }
        }
        g.exact("LCS", rest)
    }),
    (20, |g, k, v| {
        // Past proto-max-bulk-len (512 MB) is refused before anything is allocated.
        let offset = match g.rng.gen_range(0..20) {
            0 | 1 => g.int(-5..0),
            2 => g.pick(&["536870912", "9223372036854775807"]).into(),
            _ => g.rng.gen_range(0..20).to_string().into_bytes(),
        };
        let v = if g.chance(15) { Vec::new() } else { v };
        g.exact("SETRANGE", args![k, offset, v])
    }),
    (25, |g, k, _| g.exact("INCR", args![k])),
    (15, |g, k, _| g.exact("DECR", args![k])),
    (25, |g, k, _| {
        let by = g.int(-100..100);
        g.exact("INCRBY", args![k, by])
    }),
    (15, |g, k, _| {
        let by = g.int(-100..100);
        g.exact("DECRBY", args![k, by])
    }),
    (30, |g, k, _| {
        let by = g.float();
        g.exact("INCRBYFLOAT", args![k, by])
    }),
    (40, |g, _, _| {
        let name = g.pick(&["DEL", "UNLINK", "EXISTS", "EXISTS", "TOUCH"]);
        let keys = g.keys(4);
        g.exact(name, keys)
    }),
    (15, |g, k, _| g.exact("TYPE", args![k])),
    (70, |g, k, _| g.expire(k)),
    (60, |g, k, _| {
        let name = g.pick(&["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"]);
        g.call(name, args![k], Check::Ttl)
    }),
    (15, |g, k, _| g.exact("PERSIST", args![k])),
    (20, |g, k, _| {
        let name = if g.chance(50) { "RENAME" } else { "RENAMENX" };
        let to = g.key();
        g.exact(name, args![k, to])
    }),
    (10, |g, _, _| {
        // DBSIZE counts keys that expired but were not looked at yet, and when each server's
        // active expiry gets to them is timing. Look at every key first, so lazy expiry removes
        // the expired ones in both and the count no longer depends on the clock.
        let mut steps = vec![];
        for key in KEYS.iter().chain(ZKEYS).chain(HASH_KEYS).chain(SET_KEYS).chain(LKEYS) {
            steps.extend(g.exact("EXISTS", args![key.to_vec()]));
        }
        steps.extend(g.exact("DBSIZE", args![]));
        steps
    }),
    (10, |g, _, _| g.call("RANDOMKEY", args![], Check::RandomKey)),
    (20, |g, _, _| {
        let pattern = g.pick(PATTERNS);
        g.call("KEYS", args![pattern], Check::Unordered)
    }),
    (20, |g, _, _| g.scan()),
    (10, |g, _, v| match g.rng.gen_range(0..3) {
        0 => g.exact("ECHO", args![v]),
        1 => g.exact("PING", args![]),
        _ => g.exact("PING", args![v]),
    }),
    (30, |g, k, v| g.set_then_encoding(k, v)),
    (40, |g, k, v| g.short_expiry(k, v)),
    (25, |g, k, v| g.expire_past(k, v)),
    (40, |g, _, _| g.wrong_arity()),
    (10, |g, k, _| g.object_invalid(k)),
    (10, |g, _, _| g.unknown_command()),
    (40, |g, k, v| g.zset_on_any_key(k, v)),
    (40, |g, k, v| g.hash_or_set_on_any_key(k, v)),
    (40, |g, k, v| g.list_on_any_key(k, v)),
    (20, |g, k, v| g.transaction(k, v)),
    (15, |g, k, _| g.bitmap_on(k)),
];

impl Gen {
    /// One random operation, picked by weight from `OPS`.
    pub(crate) fn op(&mut self) -> Vec<Step> {
        let (k, v) = (self.key(), self.value());
        let op = self.weighted(OPS);
        op(self, k, v)
    }

    /// SET with a random, valid mix of NX/XX, GET and one kind of expiry or KEEPTTL, in any
    /// order (repeating an option is allowed).
    fn set(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let mut opts: Vec<Vec<Vec<u8>>> = Vec::new();
        match self.rng.gen_range(0..4) {
            0 => opts.push(vec![self.casing("NX")]),
            1 => opts.push(vec![self.casing("XX")]),
            _ => {}
        }
        if self.chance(30) {
            opts.push(vec![self.casing("GET")]);
        }
        match self.rng.gen_range(0..6) {
            0 | 1 => {}
            2 => opts.push(vec![self.casing("KEEPTTL")]),
            _ => {
                let mut e = self.expiry();
                e[0] = self.casing(&String::from_utf8_lossy(&e[0]));
                opts.push(e);
            }
        }
        // The same option twice is still valid.
        if self.chance(5) {
            if let Some(again) = opts.last().cloned() {
                opts.push(again);
            }
        }
        opts.shuffle(&mut self.rng);
        let mut rest = args![k, v];
        rest.extend(opts.into_iter().flatten());
        self.exact("SET", rest)
    }

    /// SET with options Redis refuses: conflicts, a missing or invalid time, unknown words.
    fn set_invalid(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let ex = (self.rel_ms() / 1000).to_string();
        let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
        let bad = self.bad_expire(unit);
        let opts: Vec<Vec<u8>> = match self.rng.gen_range(0..10) {
            0 => args!["NX", "XX"],
            1 => args!["XX", "GET", "NX"],
            2 => args!["EX", ex.clone(), "PX", ex],
            3 => args!["KEEPTTL", "EX", ex],
            4 => args!["PXAT", ex, "KEEPTTL"],
            5 => args![unit],
            6 => args!["GET", unit],
            7 => args![unit, bad],
            8 => args!["PERSIST"],
            _ => args![self.pick(&["FOO", "EXX", "NXX", "KEEP", "GETT"])],
        };
        let mut rest = args![k, v];
        rest.extend(opts);
        self.exact("SET", rest)
    }

    fn getex(&mut self, k: Vec<u8>) -> Vec<Step> {
        let opts = match self.rng.gen_range(0..10) {
            0..=1 => args![],
            2..=4 => self.expiry(),
            5 => {
                // The same kind of expiry twice is allowed; the last one counts.
                let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
                args![unit, self.expiry_time(unit), unit, self.expiry_time(unit)]
            }
            6 => args![self.casing("PERSIST")],
            7 => {
                let unit = self.pick(&["EX", "PX", "EXAT", "PXAT"]);
                args![unit, self.bad_expire(unit)]
            }
            8 => {
                let mut e = self.expiry();
                e.push(self.casing("PERSIST"));
                e.shuffle(&mut self.rng);
                e
            }
            _ => args![self.pick(&["NX", "XX", "GET", "KEEPTTL", "FOO", "EX"])],
        };
        let mut rest = args![k];
        rest.extend(opts);
        self.exact("GETEX", rest)
    }

    /// EXPIRE, PEXPIRE, EXPIREAT or PEXPIREAT with NX/XX/GT/LT (valid or not), and now and
    /// then a time that is invalid or overflows.
    fn expire(&mut self, k: Vec<u8>) -> Vec<Step> {
        let (name, time) = match self.rng.gen_range(0..4) {
            0 => ("EXPIRE", (self.rel_ms() / 1000).to_string()),
            1 => ("PEXPIRE", self.rel_ms().to_string()),
            2 => ("EXPIREAT", (self.abs_ms() / 1000).to_string()),
            _ => ("PEXPIREAT", self.abs_ms().to_string()),
        };
        let time: Vec<u8> = if self.chance(10) { self.bad_expire(name).into() } else { time.into_bytes() };
        let mut rest = args![k, time];
        let flags = self.rng.gen_range(0..3).min(self.rng.gen_range(0..3));
        for _ in 0..flags {
            let flag = self.pick(&["NX", "XX", "GT", "LT", "NX", "XX", "GT", "LT", "FOO", "?"]);
            // "?" stands for any value: an unknown option, quoted in the error.
            let flag = if flag == "?" { self.value() } else { self.casing(flag) };
            rest.push(flag);
        }
        self.exact(name, rest)
    }

    /// Expiring a key at once: a time at or before now deletes it (and answers 1).
    fn expire_past(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let past_ms = self.far_ms - 1_000_000_000 - self.rng.gen_range(1_000_000..1_000_000_000);
        let (name, time) = match self.rng.gen_range(0..7) {
            0 => ("EXPIRE", "-1".to_string()),
            1 => ("PEXPIRE", "0".to_string()),
            2 => ("EXPIREAT", (past_ms / 1000).to_string()),
            3 => ("PEXPIREAT", past_ms.to_string()),
            4 => ("EXPIREAT", "1".to_string()),
            5 => {
                // GETEX to an absolute time in the past deletes the key too.
                let unit = if self.chance(50) { "EXAT" } else { "PXAT" };
                return self.exact("GETEX", args![k, unit, "1"]);
            }
            _ => {
                // SET to a time in the past: Vitrine writes nothing, Redis 7.0 writes a key
                // that has already expired, which DBSIZE counts until Redis's active expiry
                // (on its own timer) or an access removes it. A deliberate difference: the
                // key is read at once, so lazy expiry removes it in Redis too.
                let (unit, time) = if self.chance(50) { ("EXAT", past_ms / 1000) } else { ("PXAT", past_ms) };
                let mut rest = args![&k, v, unit, time.to_string()];
                if self.chance(40) {
                    rest.push(self.casing("GET"));
                }
                if self.chance(30) {
                    let cond = self.pick(&["NX", "XX"]);
                    rest.push(self.casing(cond));
                }
                let mut steps = self.exact("SET", rest);
                let read = self.pick(&["GET", "EXISTS", "TTL", "STRLEN"]);
                steps.extend(self.exact(read, args![k]));
                return steps;
            }
        };
        let mut rest = args![k, time];
        if self.chance(40) {
            let flag = self.pick(&["NX", "XX", "GT", "LT"]);
            rest.push(self.casing(flag));
        }
        self.exact(name, rest)
    }

    /// A TTL of a few milliseconds, a pause, then a command on the key: lazy expiry in both.
    /// The key is always touched right after the pause, so neither server can still count
    /// it (DBSIZE counts keys that expired but were not looked at yet, in Redis and here).
    fn short_expiry(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let ms = self.rng.gen_range(1..=3).to_string();
        let mut steps = match self.rng.gen_range(0..5) {
            0 => self.exact("SET", args![&k, v, "PX", ms]),
            1 => self.exact("SET", args![&k, v, "PX", ms, "GET"]),
            2 => self.exact("PSETEX", args![&k, ms, v]),
            3 => self.exact("PEXPIRE", args![&k, ms]),
            _ => self.exact("GETEX", args![&k, "PX", ms]),
        };
        steps.push(Step::Sleep(Duration::from_millis(5)));
        let other = self.key();
        let read: Vec<Vec<u8>> = match self.rng.gen_range(0..14) {
            0 => args!["GET", k],
            1 => args!["EXISTS", k],
            2 => args!["TTL", k],
            3 => args!["PTTL", k],
            4 => args!["TYPE", k],
            5 => args!["STRLEN", k],
            6 => args!["APPEND", k, "x"],
            7 => args!["INCR", k],
            8 => args!["SETNX", k, "x"],
            9 => args!["DEL", k],
            10 => args!["PERSIST", k],
            11 => args!["RENAME", k, other],
            12 => args!["GETDEL", k],
            _ => args!["MGET", k, other],
        };
        // By now the key is gone in both, so even TTL and PTTL must agree exactly.
        steps.push(Step::Call(read, Check::Exact));
        steps
    }

    /// SET, then OBJECT ENCODING of the value it just wrote. Only right after SET: Redis
    /// re-encodes a value as `raw` once APPEND or SETRANGE changes it in place, and INCRBYFLOAT
    /// stores `embstr`, while Vitrine derives the encoding from the content, as a fresh SET
    /// would. That is a deliberate difference (one representation instead of three).
    fn set_then_encoding(&mut self, k: Vec<u8>, v: Vec<u8>) -> Vec<Step> {
        let mut steps = self.exact("SET", args![&k, v]);
        steps.extend(self.exact("OBJECT", args!["ENCODING", k]));
        steps
    }

    /// A full SCAN iteration with random MATCH, COUNT and TYPE, or an invalid SCAN.
    fn scan(&mut self) -> Vec<Step> {
        if self.chance(20) {
            let rest = match self.rng.gen_range(0..8) {
                0 => args!["abc"],
                1 => args!["18446744073709551616"],
                2 => args![" 1"],
                3 => args!["0", "COUNT", "0"],
                4 => args!["0", "COUNT", "abc"],
                5 => args!["0", "MATCH"],
                6 => args!["0", "FOO", "bar"],
                _ => args!["0x10"],
            };
            return self.exact("SCAN", rest);
        }
        let mut opts = Vec::new();
        if self.chance(60) {
            opts.push(args!["MATCH", self.pick(PATTERNS)]);
        }
        if self.chance(60) {
            let count = if self.chance(90) { self.rng.gen_range(1..20) } else { i64::MAX };
            opts.push(args!["COUNT", count.to_string()]);
        }
        if self.chance(20) {
            opts.push(args!["TYPE", self.pick(&["string", "STRING", "list", "nosuch"])]);
        }
        opts.shuffle(&mut self.rng);
        vec![Step::Scan(opts.into_iter().flatten().collect())]
    }

    /// A command with too few (or, for fixed arities, too many) arguments.
    pub fn wrong_arity(&mut self) -> Vec<Step> {
        // Redis 7.0's arities: positive is exact, negative is a minimum.
        const ARITY: &[(&str, i32)] = &[
            ("GET", 2),
            ("SET", -3),
            ("SETNX", 3),
            ("SETEX", 4),
            ("PSETEX", 4),
            ("MGET", -2),
            ("MSET", -3),
            ("MSETNX", -3),
            ("GETSET", 3),
            ("GETDEL", 2),
            ("GETEX", -2),
            ("APPEND", 3),
            ("STRLEN", 2),
            ("GETRANGE", 4),
            ("SUBSTR", 4),
            ("LCS", -3),
            ("SETRANGE", 4),
            ("INCR", 2),
            ("DECR", 2),
            ("INCRBY", 3),
            ("DECRBY", 3),
            ("INCRBYFLOAT", 3),
            ("DEL", -2),
            ("UNLINK", -2),
            ("EXISTS", -2),
            ("TYPE", 2),
            ("EXPIRE", -3),
            ("PEXPIRE", -3),
            ("EXPIREAT", -3),
            ("PEXPIREAT", -3),
            ("TTL", 2),
            ("PTTL", 2),
            ("EXPIRETIME", 2),
            ("PEXPIRETIME", 2),
            ("PERSIST", 2),
            ("RENAME", 3),
            ("RENAMENX", 3),
            ("KEYS", 2),
            ("SCAN", -2),
            ("RANDOMKEY", 1),
            ("DBSIZE", 1),
            ("TOUCH", -2),
            ("OBJECT", -2),
            ("ECHO", 2),
            ("PING", -1),
        ];
        // PING takes at most one argument, checked by the command itself.
        self.wrong_arity_of(ARITY, Gen::key, |_, arity| (arity == -1).then_some(3))
    }

    fn object_invalid(&mut self, k: Vec<u8>) -> Vec<Step> {
        let rest = match self.rng.gen_range(0..5) {
            0 => args!["ENCODING"],
            1 => args!["ENCODING", &k, &k],
            2 => args![self.pick(&["FOO", "encodings", "FREQS"]), k],
            3 => args![self.value(), k],
            _ => args!["NOSUCH"],
        };
        self.exact("OBJECT", rest)
    }

    /// A command neither server knows, with some arguments: the error quotes them.
    pub fn unknown_command(&mut self) -> Vec<Step> {
        let name = self.pick(&["NOSUCH", "GETT", "set2", "FooBar"]);
        let n = self.rng.gen_range(0..4);
        let rest = (0..n).map(|_| self.value()).collect();
        // Not `exact`: the name keeps the case it is sent with.
        let mut argv = args![name];
        argv.extend::<Vec<Vec<u8>>>(rest);
        vec![Step::Call(argv, Check::Exact)]
    }
}
