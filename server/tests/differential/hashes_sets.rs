//! Hash and set commands: field and member edits, HINCRBY/HINCRBYFLOAT, set algebra, random
//! picks, HSCAN/SSCAN and the listpack limits.

use rand::Rng;

use crate::harness::*;

/// Hash and set commands in a seeded random sequence on a few keys of each type, plus a
/// string (WRONGTYPE) and a missing key. The main random test mixes the same operations into
/// its string and key commands too (`Gen::hash_or_set_on_any_key`).
///
/// Deliberate differences, avoided by the generator or compared loosely:
/// - redis-server started without a config file converts a hash past 512 fields (its
///   compiled-in `hash-max-listpack-entries`); the redis.conf it ships, and Vitrine, say
///   128. The test sets 128 on redis-server.
/// - Redis 7.0 has no `listpack` sets (7.2 does, and Vitrine reports 7.2's set encodings):
///   OBJECT ENCODING is asked of hashes only, on keys no set command writes.
/// - Replies whose order is the hash table's (SMEMBERS, SINTER, SUNION, SDIFF, HKEYS, HVALS)
///   are compared as multisets, HGETALL as pairs in any order, and HSCAN/SSCAN are sent with
///   a COUNT above any size so both answer in one page (`Check::ScanPairs`,
///   `Check::ScanMembers`).
/// - SPOP, SRANDMEMBER and HRANDFIELD pick at random: compared by count and membership
///   (`Check::Sample`, `Check::SamplePairs`). After SPOP the key is counted and deleted, so
///   both servers hold the same data again.
/// - Negative counts stay small: Redis builds such a reply whatever its size, where Vitrine
///   refuses one past proto-max-bulk-len.
#[test]
fn random_hash_and_set_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_hash_and_set_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    // Started without a config file, redis-server takes its compiled-in 512; Vitrine follows
    // the 128 of the redis.conf Redis ships (and distributions install).
    let config = ["CONFIG", "SET", "hash-max-listpack-entries", "128"].map(|a| a.as_bytes().to_vec());
    assert_eq!(peers.redis.call(&config), Ok(Resp::Status(b"OK".to_vec())), "CONFIG SET on redis-server");
    peers.begin("hash and set edge cases");
    for argv in hash_set_edge_cases() {
        let check = match &argv[0][..] {
            b"SMEMBERS" | b"SINTER" | b"SUNION" | b"SDIFF" => Check::Unordered,
            _ => Check::Exact,
        };
        peers.call(&argv, check);
    }
    run_family(&mut peers, "hashes and sets", |_| vec![Step::Call(args!["SET", HS_STRING, "v"], Check::Exact)], HS_OPS);
}

/// Fixed cases: number edges of HINCRBY/HINCRBYFLOAT, the orders Redis checks arguments in,
/// the counts of the random-pick commands, and when a hash stops being a listpack.
fn hash_set_edge_cases() -> Vec<Vec<Vec<u8>>> {
    let long = "l".repeat(65);
    vec![
        args!["FLUSHALL"],
        args!["SET", "str", "v"],
        args!["HSET", "h", "max", i64::MAX.to_string(), "min", i64::MIN.to_string(), "text", "abc"],
        args!["HINCRBY", "h", "max", "1"],
        args!["HINCRBY", "h", "min", "-1"],
        args!["HINCRBY", "h", "min", i64::MAX.to_string()],
        args!["HINCRBY", "h", "text", "1"],
        args!["HINCRBY", "str", "f", "x"],
        args!["HINCRBY", "str", "f", "1"],
        args!["HINCRBYFLOAT", "h", "f", "0.1"],
        args!["HINCRBYFLOAT", "h", "f", "0.2"],
        args!["HINCRBYFLOAT", "h", "f", "1e-20"],
        args!["HINCRBYFLOAT", "h", "f", "0x10"],
        args!["HINCRBYFLOAT", "h", "f", "inf"],
        args!["HINCRBYFLOAT", "h", "text", "1"],
        args!["HSET", "h", "big", "1e4932", "inf", "inf"],
        args!["HINCRBYFLOAT", "h", "big", "1e4932"],
        args!["HINCRBYFLOAT", "h", "inf", "1"],
        args!["HINCRBYFLOAT", "nokey", "f", "inf"],
        args!["EXISTS", "nokey"],
        args!["HSET", "h", "odd"],
        args!["HSET", "str", "odd", "v", "x"],
        args!["HRANDFIELD", "h", "0"],
        args!["HRANDFIELD", "h", "-9223372036854775808"],
        args!["HRANDFIELD", "h", "9223372036854775807", "WITHVALUES"],
        args!["HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"],
        args!["HRANDFIELD", "h", "x", "x"],
        args!["HRANDFIELD", "h", "1", "WITHVALUES", "x"],
        args!["HRANDFIELD", "nokey", "-9223372036854775807"],
        args!["HSCAN", "h", "-1", "MATCH", "m*"],
        args!["HSCAN", "nokey", "0", "BOGUS"],
        args!["HSCAN", "str", "x"],
        // Encodings: by size, by length, by what HINCRBY and HINCRBYFLOAT write, not by
        // an HSETNX that writes nothing.
        args!["HSET", "e1", "f", "v".repeat(64)],
        args!["OBJECT", "ENCODING", "e1"],
        args!["HSET", "e1", "g", long.as_str()],
        args!["OBJECT", "ENCODING", "e1"],
        args!["HDEL", "e1", "g"],
        args!["OBJECT", "ENCODING", "e1"],
        args!["HINCRBY", "e2", long.as_str(), "1"],
        args!["OBJECT", "ENCODING", "e2"],
        args!["HINCRBYFLOAT", "e3", "f", "1e100"],
        args!["OBJECT", "ENCODING", "e3"],
        args!["HSET", "e4", "f", "1"],
        args!["HSETNX", "e4", "f", long.as_str()],
        args!["OBJECT", "ENCODING", "e4"],
        // Sets: counts, SINTERCARD's arguments, SMOVE's checks.
        args!["SADD", "s", "1", "2", "3", "a"],
        args!["SADD", "t", "2", "3", "4"],
        args!["SRANDMEMBER", "s", "x", "2"],
        args!["SRANDMEMBER", "s", "0"],
        args!["SRANDMEMBER", "s", "-9223372036854775808"],
        args!["SPOP", "nokey", "x"],
        args!["SPOP", "nokey", "-1"],
        args!["SPOP", "s", "0"],
        args!["SPOP", "str", "0"],
        args!["SPOP", "s", "1", "2"],
        args!["SINTERCARD", "2", "s", "t"],
        args!["SINTERCARD", "2", "s", "t", "LIMIT", "1"],
        args!["SINTERCARD", "2", "s", "t", "LIMIT", "5", "LIMIT", "0"],
        args!["SINTERCARD", "0", "s"],
        args!["SINTERCARD", "x", "s"],
        args!["SINTERCARD", "3", "s", "t"],
        args!["SINTERCARD", "1", "s", "LIMIT", "-1"],
        args!["SINTERCARD", "1", "s", "LIMIT"],
        args!["SINTERCARD", "1", "s", "t"],
        args!["SINTERCARD", "2", "nokey", "str"],
        args!["SINTER", "nokey", "str"],
        args!["SDIFF", "nokey", "str"],
        args!["SINTER", "s", "t"],
        args!["SUNION", "s", "t", "nokey"],
        args!["SDIFF", "s", "t"],
        args!["SINTERSTORE", "str2", "s", "t"],
        args!["SMEMBERS", "str2"],
        args!["SET", "str2", "v", "EX", "100"],
        args!["SUNIONSTORE", "str2", "s", "t"],
        args!["TTL", "str2"],
        args!["SDIFFSTORE", "str2", "s", "s"],
        args!["EXISTS", "str2"],
        args!["SMOVE", "nokey", "str", "1"],
        args!["SMOVE", "s", "str", "1"],
        args!["SMOVE", "s", "s", "1"],
        args!["SMOVE", "s", "s", "9"],
        args!["SMOVE", "s", "t", "2"],
        args!["SMOVE", "s", "new", "1"],
        args!["SMEMBERS", "s"],
        args!["SSCAN", "s", "0", "TYPE", "set"],
        args!["SSCAN", "nokey", "0", "FOO"],
    ]
}

/// Hash keys no set command writes (OBJECT ENCODING is asked of these only).
const HASH_ONLY_KEYS: &[&[u8]] = &[b"h1", b"h2"];
/// Hash keys, the first ones more often; `hash:3` may also become a set.
pub const HASH_KEYS: &[&[u8]] = &[b"h1", b"h1", b"h1", b"h2", b"h2", b"hash:3"];
/// Set keys, the first ones more often.
pub const SET_KEYS: &[&[u8]] = &[b"s1", b"s1", b"s1", b"s2", b"s2", b"set:3"];
/// Keys either family may pick now and then: another type's, a string, a missing one.
const HS_OTHER_KEYS: &[&[u8]] = &[b"hash:3", b"set:3", b"s1", HS_STRING, b"missing"];
const HS_STRING: &[u8] = b"a string";

/// Hash fields: short ones, empty, binary, one past the 64 bytes of a listpack entry.
const HFIELDS: &[&[u8]] = &[
    b"f",
    b"g",
    b"name",
    b"count",
    b"n1",
    b"",
    b"two words",
    b"\x00\xff\r\n",
    b"a field name longer than sixty-four bytes, which makes the hash a hashtable",
];

/// Set members: integers (an intset), text, empty, binary, a non-canonical integer, and one
/// past the 64 bytes of a listpack entry.
const SMEMBERS_POOL: &[&[u8]] = &[
    b"1",
    b"2",
    b"3",
    b"10",
    b"-5",
    b"0",
    b"9223372036854775807",
    b"a",
    b"b",
    b"c",
    b"x",
    b"",
    b"two words",
    b"\x00\xff",
    b"01",
    b"a member longer than sixty-four bytes, which makes the set a hashtable at once",
];

/// Whether a randomly picked element is one the generator could have written (from the
/// pools, or a field or member of `hash_big` and `set_big`).
fn sampled(item: &Resp) -> bool {
    let Resp::Bulk(b) = item else { return false };
    let numeric = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    b == b"long"
        || HFIELDS.contains(&&b[..])
        || SMEMBERS_POOL.contains(&&b[..])
        // Sorted set members (ZRANDMEMBER): the pool, and the one past listpack's 64 bytes.
        || crate::sorted_sets::ZMEMBERS.contains(&&b[..])
        // ... and the lex set's, which ZDIFFSTORE/ZRANGESTORE may copy into a scored one.
        || crate::sorted_sets::LEX_MEMBERS.contains(&&b[..])
        || (b.len() == 65 && b.iter().all(|&c| c == b'l'))
        || b.strip_prefix(b"big").is_some_and(numeric)
        || b.strip_prefix(b"w").is_some_and(numeric)
        || numeric(b)
}

/// SRANDMEMBER, SPOP, HRANDFIELD, ZRANDMEMBER: the same kind of reply, of the same size, each element
/// one that could be there (pairs: each field).
pub fn same_sample(v: &Resp, r: &Resp, pairs: bool) -> bool {
    match (v, r) {
        (Resp::Bulk(_), Resp::Bulk(_)) => sampled(v) && sampled(r),
        (Resp::Array(a), Resp::Array(b)) => {
            let step = if pairs { 2 } else { 1 };
            a.len() == b.len()
                && a.iter().step_by(step).chain(b.iter().step_by(step)).all(sampled)
                && a.iter().chain(b.iter()).all(|i| matches!(i, Resp::Bulk(_)))
        }
        _ => v == r,
    }
}

/// Every operation the hash and set test runs, with its relative weight.
const HS_OPS: &[(u32, FamilyOp)] = &[
    (300, |g| {
        let k = g.hash_key();
        g.hash_op(k)
    }),
    (300, |g| {
        let k = g.set_key();
        g.set_op(k, false)
    }),
    (6, |g| g.hash_big()),
    (6, |g| g.set_big()),
    (25, |g| g.hash_set_wrong_arity()),
    (15, |g| {
        let name = g.pick(&["DEL", "EXISTS", "TYPE"]);
        let k = if g.chance(50) { g.hash_key() } else { g.set_key() };
        g.exact(name, args![k])
    }),
    (10, |g| {
        let k = g.pick(HASH_ONLY_KEYS);
        g.exact("OBJECT", args!["ENCODING", k])
    }),
];

impl Gen {
    fn hash_key(&mut self) -> Vec<u8> {
        if self.chance(85) {
            self.pick(HASH_KEYS).to_vec()
        } else {
            self.pick(HS_OTHER_KEYS).to_vec()
        }
    }

    fn set_key(&mut self) -> Vec<u8> {
        if self.chance(85) {
            self.pick(SET_KEYS).to_vec()
        } else {
            self.pick(HS_OTHER_KEYS).to_vec()
        }
    }

    /// Set keys for the algebra: `any_key` draws from the main test's keys.
    fn set_keys(&mut self, n: usize, any_key: bool) -> Vec<Vec<u8>> {
        (0..n).map(|_| if any_key { self.key() } else { self.set_key() }).collect()
    }

    fn field(&mut self) -> Vec<u8> {
        self.pick(HFIELDS).to_vec()
    }

    fn member(&mut self) -> Vec<u8> {
        self.pick(SMEMBERS_POOL).to_vec()
    }

    /// The count of SRANDMEMBER/HRANDFIELD: small mostly, sometimes huge (positive), or
    /// invalid. Never a large negative one (see the test's notes).
    /// HRANDFIELD or ZRANDMEMBER (`with`: WITHVALUES or WITHSCORES) on `k`, with or without a
    /// count and the option (now and then a junk one), compared by shape and membership.
    pub(crate) fn random_pick(&mut self, name: &str, with: &'static str, k: Vec<u8>) -> Vec<Step> {
        let mut rest = args![k];
        let mut pairs = false;
        if self.chance(85) {
            rest.push(self.rand_count());
            if self.chance(40) {
                rest.push(self.casing(with));
                pairs = true;
            }
            if self.chance(4) {
                let extra = self.pick(&[with, "x"]);
                pairs |= extra == with;
                rest.push(extra.into());
            }
        }
        let check = if pairs { Check::SamplePairs } else { Check::Sample };
        self.call(name, rest, check)
    }

    fn rand_count(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..20) {
            0..=15 => self.rng.gen_range(-6..8).to_string().into_bytes(),
            16 => b"9223372036854775807".to_vec(),
            17 => b"-9223372036854775808".to_vec(),
            _ => self.pick(&["x", "1.5", "", " 1", "+1"]).into(),
        }
    }

    /// From the main random test: a hash or set command on one of its keys.
    pub fn hash_or_set_on_any_key(&mut self, k: Vec<u8>, _v: Vec<u8>) -> Vec<Step> {
        if self.chance(50) {
            self.hash_op(k)
        } else {
            self.set_op(k, true)
        }
    }

    /// One random hash command on `k`.
    fn hash_op(&mut self, k: Vec<u8>) -> Vec<Step> {
        match self.rng.gen_range(0..100) {
            0..=21 => {
                let name = if self.chance(85) { "HSET" } else { "HMSET" };
                let mut rest = args![k];
                for _ in 0..self.rng.gen_range(1..=3) {
                    rest.push(self.field());
                    rest.push(self.value());
                }
                if self.chance(4) {
                    rest.pop(); // an odd count is an arity error
                }
                self.exact(name, rest)
            }
            22..=25 => {
                let (f, v) = (self.field(), self.value());
                self.exact("HSETNX", args![k, f, v])
            }
            26..=33 => {
                let f = self.field();
                let name = self.pick(&["HGET", "HGET", "HEXISTS", "HSTRLEN"]);
                self.exact(name, args![k, f])
            }
            34..=37 => {
                let mut rest = args![k];
                rest.extend((0..self.rng.gen_range(1..4)).map(|_| self.field()));
                self.exact("HMGET", rest)
            }
            38..=44 => {
                let mut rest = args![k];
                rest.extend((0..self.rng.gen_range(1..4)).map(|_| self.field()));
                self.exact("HDEL", rest)
            }
            45..=47 => self.exact("HLEN", args![k]),
            48..=52 => {
                let name = self.pick(&["HKEYS", "HVALS"]);
                self.call(name, args![k], Check::Unordered)
            }
            53..=57 => self.call("HGETALL", args![k], Check::UnorderedPairs),
            58..=65 => {
                let (f, by) = (self.field(), self.int(-100..100));
                self.exact("HINCRBY", args![k, f, by])
            }
            66..=73 => {
                let (f, by) = (self.field(), self.float());
                self.exact("HINCRBYFLOAT", args![k, f, by])
            }
            74..=83 => self.random_pick("HRANDFIELD", "WITHVALUES", k),
            84..=91 => self.key_scan("HSCAN", k),
            _ => self.exact("HLEN", args![k]),
        }
    }

    /// One random set command on `k` (the algebra's other keys from the set keys, or from
    /// the main test's keys when `any_key`).
    fn set_op(&mut self, k: Vec<u8>, any_key: bool) -> Vec<Step> {
        match self.rng.gen_range(0..100) {
            0..=21 => {
                let mut rest = args![k];
                rest.extend((0..self.rng.gen_range(1..=5)).map(|_| self.member()));
                self.exact("SADD", rest)
            }
            22..=29 => {
                let mut rest = args![k];
                rest.extend((0..self.rng.gen_range(1..=3)).map(|_| self.member()));
                self.exact("SREM", rest)
            }
            30..=35 => self.call("SMEMBERS", args![k], Check::Unordered),
            36..=41 => {
                let name = self.pick(&["SISMEMBER", "SCARD", "SMISMEMBER"]);
                let mut rest = args![k];
                match name {
                    "SCARD" => {}
                    "SISMEMBER" => rest.push(self.member()),
                    _ => rest.extend((0..self.rng.gen_range(1..4)).map(|_| self.member())),
                }
                self.exact(name, rest)
            }
            42..=47 => {
                // SPOP picks at random: count and membership, then the key is counted and
                // deleted so both servers agree again.
                let mut rest = args![&k];
                if self.chance(60) {
                    let count: Vec<u8> = match self.rng.gen_range(0..12) {
                        0..=9 => self.rng.gen_range(0..6).to_string().into_bytes(),
                        10 => b"9223372036854775807".to_vec(),
                        _ => self.pick(&["-1", "x", "1.5"]).into(),
                    };
                    rest.push(count);
                    if self.chance(4) {
                        rest.push(b"1".to_vec());
                    }
                }
                let mut steps = self.call("SPOP", rest, Check::Sample);
                steps.extend(self.exact("SCARD", args![&k]));
                steps.extend(self.exact("DEL", args![k]));
                steps
            }
            48..=55 => {
                let mut rest = args![k];
                if self.chance(80) {
                    rest.push(self.rand_count());
                    if self.chance(4) {
                        rest.push(b"1".to_vec());
                    }
                }
                self.call("SRANDMEMBER", rest, Check::Sample)
            }
            56..=67 => {
                let name = self.pick(&["SINTER", "SUNION", "SDIFF"]);
                let n = self.rng.gen_range(0..3);
                let mut rest = args![k];
                rest.extend(self.set_keys(n, any_key));
                self.call(name, rest, Check::Unordered)
            }
            68..=77 => {
                let name = self.pick(&["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]);
                let n = self.rng.gen_range(1..4);
                let mut rest = args![&k];
                rest.extend(self.set_keys(n, any_key));
                let mut steps = self.exact(name, rest);
                steps.extend(self.call("SMEMBERS", args![k], Check::Unordered));
                steps
            }
            78..=83 => {
                let n = self.rng.gen_range(1..4);
                let mut keys = vec![k];
                keys.extend(self.set_keys(n - 1, any_key));
                let numkeys: Vec<u8> = match self.rng.gen_range(0..20) {
                    0 => self.pick(&["0", "-1", "x", "9"]).into(),
                    _ => n.to_string().into_bytes(),
                };
                let mut rest = vec![numkeys];
                rest.extend(keys);
                match self.rng.gen_range(0..10) {
                    0..=3 => {}
                    4..=7 => rest.extend(args![self.casing("LIMIT"), self.rng.gen_range(0..4).to_string()]),
                    8 => rest.extend(args!["LIMIT", self.pick(&["-1", "x"])]),
                    _ => rest.push(self.pick(&["LIMIT", "FOO"]).into()),
                }
                self.exact("SINTERCARD", rest)
            }
            84..=90 => {
                let other = if any_key { self.key() } else { self.set_key() };
                let (src, dst) = if self.chance(50) { (k, other) } else { (other, k) };
                let m = self.member();
                let mut steps = self.exact("SMOVE", args![&src, &dst, m]);
                steps.extend(self.call("SMEMBERS", args![dst], Check::Unordered));
                steps
            }
            _ => self.key_scan("SSCAN", k),
        }
    }

    /// HSCAN or SSCAN answered in one page (a COUNT above any size), with or without MATCH;
    /// now and then an invalid one.
    fn key_scan(&mut self, name: &str, k: Vec<u8>) -> Vec<Step> {
        if self.chance(15) {
            let rest = match self.rng.gen_range(0..8) {
                0 => args![k, "abc"],
                1 => args![k, "0", "COUNT", "0"],
                2 => args![k, "0", "COUNT", "x"],
                3 => args![k, "0", "MATCH"],
                4 => args![k, "0", "TYPE", "hash"],
                5 => args![k, "18446744073709551616"],
                6 => args![k, "0", "NOVALUES"],
                _ => args![k, "0", "FOO", "bar"],
            };
            return self.exact(name, rest);
        }
        let mut rest = args![k, "0"];
        if self.chance(40) {
            rest.extend(args![self.casing("MATCH"), self.pick(&["*", "f*", "?", "n?", "*[ab]*", "1*", "", "two*"])]);
        }
        rest.extend(args![self.casing("COUNT"), "10000"]);
        let check = if name == "HSCAN" { Check::ScanPairs } else { Check::ScanMembers };
        self.call(name, rest, check)
    }

    /// A hash of 130 fields, or with a long value: a hashtable in both.
    fn hash_big(&mut self) -> Vec<Step> {
        let k = self.pick(HASH_KEYS).to_vec();
        let mut rest = args![&k];
        if self.chance(60) {
            for i in 0..130 {
                rest.extend(args![format!("big{i:03}"), i.to_string()]);
            }
        } else {
            rest.extend(args!["long", "v".repeat(65)]);
        }
        let mut steps = self.exact("HSET", rest);
        steps.extend(self.exact("HLEN", args![k]));
        steps
    }

    /// A set of 130 members, or of 520 integers: a hashtable in both.
    fn set_big(&mut self) -> Vec<Step> {
        let k = self.pick(SET_KEYS).to_vec();
        let mut rest = args![&k];
        if self.chance(50) {
            rest.extend((0..130).map(|i| format!("big{i:03}").into_bytes()));
        } else {
            rest.extend((0..520).map(|i| (i * 7).to_string().into_bytes()));
        }
        let mut steps = self.exact("SADD", rest);
        steps.extend(self.exact("SCARD", args![k]));
        steps
    }

    /// A hash or set command with too few (or, for fixed arities, too many) arguments.
    fn hash_set_wrong_arity(&mut self) -> Vec<Step> {
        // Redis 7.0's arities: positive is exact, negative is a minimum.
        const ARITY: &[(&str, i32)] = &[
            ("HSET", -4),
            ("HSETNX", 4),
            ("HGET", 3),
            ("HMGET", -3),
            ("HMSET", -4),
            ("HDEL", -3),
            ("HEXISTS", 3),
            ("HLEN", 2),
            ("HSTRLEN", 3),
            ("HKEYS", 2),
            ("HVALS", 2),
            ("HGETALL", 2),
            ("HINCRBY", 4),
            ("HINCRBYFLOAT", 4),
            ("HRANDFIELD", -2),
            ("HSCAN", -3),
            ("SADD", -3),
            ("SREM", -3),
            ("SMEMBERS", 2),
            ("SISMEMBER", 3),
            ("SMISMEMBER", -3),
            ("SCARD", 2),
            ("SPOP", -2),
            ("SRANDMEMBER", -2),
            ("SINTER", -2),
            ("SUNION", -2),
            ("SDIFF", -2),
            ("SINTERSTORE", -3),
            ("SUNIONSTORE", -3),
            ("SDIFFSTORE", -3),
            ("SINTERCARD", -3),
            ("SMOVE", 4),
            ("SSCAN", -3),
        ];
        self.wrong_arity_of(ARITY, Gen::hash_key, |_, _| None)
    }
}
