//! List commands: pushes, pops, ranges, moves, LPOS and the blocking commands that answer at once.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::harness::*;

/// List commands in a seeded random sequence on a few keys and a string (WRONGTYPE), after a
/// fixed list of edge cases. List replies are ordered in both servers and compared exactly.
/// The main random test mixes the same operations into its string and key commands too
/// (`Gen::list_on_any_key`).
///
/// Deliberate differences, avoided by the generator:
/// - OBJECT ENCODING: Redis 7.0 answers "quicklist" for every list, Vitrine answers as Redis
///   7.2 ("listpack" while small). It is not asked of lists.
/// - Blocking commands are sent only when they answer at once: right after a push onto the
///   last key they name (which then holds data, or another type), or with bad arguments.
///   Their waiting is tested in `tests/blocking.rs`.
#[test]
fn random_list_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_list_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("list edge cases");
    for argv in list_edge_cases() {
        peers.call(&argv, Check::Exact);
    }
    run_family(&mut peers, "lists", |_| vec![Step::Call(args!["SET", LIST_STRING, "v"], Check::Exact)], LIST_OPS);
}

/// Corners the random sequence rarely reaches: C's overflows kept by Redis, extreme ranges,
/// errors in their order, moves on one list.
fn list_edge_cases() -> Vec<Vec<Vec<u8>>> {
    let (min, max) = (i64::MIN.to_string(), i64::MAX.to_string());
    let (min, max) = (min.as_str(), max.as_str());
    vec![
        args!["FLUSHALL"],
        args!["RPUSH", "l", "a", "b", "c", "a", "b", "a"],
        args!["LPOS", "l", "a", "RANK", min],
        args!["LPOS", "l", "a", "RANK", min, "COUNT", "2"],
        args!["LPOS", "l", "a", "RANK", max, "COUNT", "0"],
        args!["LPOS", "l", "a", "RANK", "-2", "COUNT", "0", "MAXLEN", "4"],
        args!["LPOS", "l", "a", "COUNT", max, "MAXLEN", max],
        args!["LPOS", "l", "a", "RANK", "1", "RANK", "2"],
        args!["LPOS", "missing", "a", "RANK", "0"],
        args!["LPOS", "missing", "a", "COUNT", "abc"],
        args!["LRANGE", "l", min, max],
        args!["LRANGE", "l", max, min],
        args!["LINDEX", "l", min],
        args!["LSET", "l", min, "x"],
        args!["LTRIM", "l", min, max],
        args!["LPOP", "l", max],
        args!["RPUSH", "l", "a", "b", "c", "a", "b", "a"],
        args!["LREM", "l", min, "a"],
        args!["LRANGE", "l", "0", "-1"],
        args!["LMOVE", "l", "l", "LEFT", "RIGHT"],
        args!["LMOVE", "l", "l", "RIGHT", "LEFT"],
        args!["LMOVE", "l", "l", "LEFT", "LEFT"],
        args!["RPOPLPUSH", "l", "l"],
        args!["LRANGE", "l", "0", "-1"],
        args!["BLMOVE", "l", "l", "RIGHT", "RIGHT", "0"],
        args!["LPOP", "l", "0"],
        args!["LPOP", "missing", "0"],
        args!["RPOP", "missing", "-1"],
        args!["LPOP", "l", "9223372036854775808"],
        args!["SET", "s", "v"],
        args!["LPOP", "s", "-1"],
        args!["LSET", "missing", "x", "v"],
        args!["LINDEX", "missing", "x"],
        args!["LINDEX", "s", "x"],
        args!["LINSERT", "missing", "SIDEWAYS", "a", "b"],
        args!["BLPOP", "missing", "s", "0"],
        args!["BLPOP", "l", "s", "0"],
        args!["BLMOVE", "s", "l", "LEFT", "LEFT", "0"],
        args!["BLMOVE", "l", "s", "LEFT", "LEFT", "0"],
        args!["BLMOVE", "l", "x", "UP", "LEFT", "abc"],
        args!["BLMOVE", "l", "x", "LEFT", "LEFT", "abc"],
        args!["BLPOP", "l", "-1"],
        args!["BLPOP", "l", "inf"],
        args!["BLPOP", "l", "1e400"],
        args!["BLPOP", "l", "1e5000"],
        args!["BLPOP", "l", "nan"],
        args!["BLPOP", "l", " 1"],
        args!["BRPOP", "l", "9223372036854776"],
        args!["BRPOPLPUSH", "l", "s", "-0.0011"],
        args!["MULTI"],
        args!["BLPOP", "missing", "0"],
        args!["BRPOP", "missing", "missing2", "1"],
        args!["BLMOVE", "missing", "l", "LEFT", "LEFT", "0"],
        args!["BRPOPLPUSH", "missing", "l", "0"],
        args!["BLMPOP", "0", "1", "missing", "LEFT"],
        args!["EXEC"],
        // LMPOP and BLMPOP: COUNT past the length, the first non-empty key, errors.
        args!["RPUSH", "m", "a", "b", "c", "d"],
        args!["LMPOP", "2", "missing", "m", "LEFT"],
        args!["LMPOP", "2", "missing", "m", "right", "count", "2"],
        args!["LMPOP", "1", "m", "LEFT", "COUNT", "10"],
        args!["LMPOP", "1", "m", "LEFT"],
        args!["LMPOP", "0", "m", "LEFT"],
        args!["LMPOP", "-1", "m", "LEFT"],
        args!["LMPOP", "x", "m", "LEFT"],
        args!["LMPOP", "1", "m", "MIDDLE"],
        args!["LMPOP", "3", "m", "LEFT"],
        args!["LMPOP", "1", "m", "LEFT", "FOO"],
        args!["LMPOP", "1", "m", "LEFT", "COUNT"],
        args!["LMPOP", "1", "m", "LEFT", "COUNT", "0"],
        args!["LMPOP", "1", "m", "LEFT", "COUNT", "-1"],
        args!["LMPOP", "1", "m", "LEFT", "COUNT", "x"],
        args!["LMPOP", "1", "m", "LEFT", "COUNT", "1", "COUNT", "2"],
        args!["LMPOP", "1", "s", "LEFT"],
        args!["RPUSH", "m", "a"],
        args!["LMPOP", "2", "m", "s", "LEFT"],
        args!["LMPOP", "2", "m", "s", "LEFT"],
        args!["LMPOP", "1", "m"],
        args!["BLMPOP", "0", "1", "m"],
        args!["BLMPOP", "-1", "1", "missing", "LEFT"],
        args!["BLMPOP", "x", "1", "missing", "LEFT"],
        args!["BLMPOP", "x", "0", "missing", "LEFT"],
        args!["BLMPOP", "0.01", "1", "missing", "LEFT"],
        args!["RPUSH", "m", "a", "b", "c"],
        args!["BLMPOP", "0", "2", "missing", "m", "RIGHT", "COUNT", "2"],
        args!["BLMPOP", "0", "1", "s", "RIGHT"],
    ]
}

/// The list test's keys; the string is made at the start of each seed.
pub const LKEYS: &[&[u8]] = &[b"l1", b"l1", b"l1", b"l2", b"l2", b"list:3", LIST_STRING, b"missing"];
const LIST_STRING: &[u8] = b"a string";

/// Elements: short ones that collide, integers (stored as such in a listpack), empty, binary,
/// and one past the 64 bytes of a small listpack entry.
const LELEMS: &[&[u8]] = &[
    b"a",
    b"a",
    b"b",
    b"b",
    b"c",
    b"x",
    b"",
    b"1",
    b"-1",
    b"100000",
    b"9223372036854775807",
    b"01",
    b"two words",
    b"\x00\xff\r\n",
    b"a very long element that does not fit a small listpack entry, being past 64 bytes",
];

/// Every operation the list test runs, with its relative weight.
const LIST_OPS: &[(u32, FamilyOp)] = &[
    (300, |g| {
        let k = g.lkey();
        g.list_op(k, false)
    }),
    (8, |g| {
        let k = g.pick(&[&b"l1"[..], b"l2", b"list:3"]).to_vec();
        g.lbig(k)
    }),
    (15, |g| g.list_wrong_arity()),
    (10, |g| g.exact("SET", args![LIST_STRING, "v"])),
    (15, |g| {
        let name = g.pick(&["DEL", "EXISTS", "TYPE", "LLEN"]);
        let k = g.lkey();
        g.exact(name, args![k])
    }),
];

impl Gen {
    fn lkey(&mut self) -> Vec<u8> {
        self.pick(LKEYS).to_vec()
    }

    fn lelem(&mut self) -> Vec<u8> {
        self.pick(LELEMS).to_vec()
    }

    /// LEFT or RIGHT in any case, now and then a word that is neither.
    fn lside(&mut self) -> Vec<u8> {
        if self.chance(3) {
            return self.pick(&["UP", "LEFTT", ""]).into();
        }
        let side = self.pick(&["LEFT", "RIGHT"]);
        self.casing(side)
    }

    /// A blocking command's timeout: valid ones, and now and then one Redis refuses.
    fn ltimeout(&mut self) -> Vec<u8> {
        if self.chance(10) {
            return self.pick(&["-1", "abc", "inf", "1e400", "", "-0.5", "nan"]).into();
        }
        self.pick(&["0", "1", "0.5", "10", "0x10", "1e1", "-0"]).into()
    }

    /// A list operation on `k` (any key of the main test when `any_key`).
    fn list_op(&mut self, k: Vec<u8>, any_key: bool) -> Vec<Step> {
        let other = if any_key { self.key() } else { self.lkey() };
        let e = self.lelem();
        match self.rng.gen_range(0..24) {
            0..=3 => {
                let name = self.pick(&["LPUSH", "RPUSH", "LPUSH", "RPUSH", "LPUSHX", "RPUSHX"]);
                let n = self.rng.gen_range(1..=4);
                let mut rest = args![k];
                rest.extend((0..n).map(|_| self.lelem()));
                self.exact(name, rest)
            }
            4 | 5 => {
                let name = self.pick(&["LPOP", "RPOP"]);
                let mut rest = args![k];
                if self.chance(50) {
                    rest.push(self.int(0..5));
                }
                self.exact(name, rest)
            }
            6 => {
                let (start, stop) = (self.int(-8..8), self.int(-8..8));
                self.exact("LRANGE", args![k, start, stop])
            }
            7 => {
                let index = self.int(-8..8);
                self.exact("LINDEX", args![k, index])
            }
            8 => {
                let index = self.int(-6..6);
                self.exact("LSET", args![k, index, e])
            }
            9 => {
                let place = if self.chance(5) { b"MIDDLE".to_vec() } else { self.pick(&["BEFORE", "AFTER"]).into() };
                let place = self.casing(&String::from_utf8_lossy(&place));
                let pivot = self.lelem();
                self.exact("LINSERT", args![k, place, pivot, e])
            }
            10 => {
                let count = self.int(-3..3);
                self.exact("LREM", args![k, count, e])
            }
            11 => {
                let (start, stop) = (self.int(-6..6), self.int(-6..6));
                self.exact("LTRIM", args![k, start, stop])
            }
            12 | 13 => self.lpos(k, e),
            14 | 15 => {
                let (from, to) = (self.lside(), self.lside());
                self.exact("LMOVE", args![k, other, from, to])
            }
            16 => self.exact("RPOPLPUSH", args![k, other]),
            17 => {
                // A push onto the last key first: the blocking pop answers at once.
                let name = self.pick(&["BLPOP", "BRPOP"]);
                let mut steps = self.exact("RPUSH", args![&k, e]);
                let mut rest: Vec<Vec<u8>> = (0..self.rng.gen_range(0..3)).map(|_| self.lkey()).collect();
                rest.push(k);
                rest.push(self.ltimeout());
                steps.extend(self.exact(name, rest));
                steps
            }
            18 => {
                let mut steps = self.exact("LPUSH", args![&k, e]);
                let timeout = self.ltimeout();
                if self.chance(50) {
                    let (from, to) = (self.lside(), self.lside());
                    steps.extend(self.exact("BLMOVE", args![k, other, from, to, timeout]));
                } else {
                    steps.extend(self.exact("BRPOPLPUSH", args![k, other, timeout]));
                }
                steps
            }
            19 | 20 => {
                // LMPOP, or BLMPOP after a push onto the last key so it answers at once.
                let blocking = self.chance(50);
                let mut steps = if blocking { self.exact("RPUSH", args![&k, e]) } else { vec![] };
                let mut keys: Vec<Vec<u8>> = (0..self.rng.gen_range(0..3)).map(|_| self.lkey()).collect();
                keys.push(k);
                let numkeys = if self.chance(5) { self.int(-1..4) } else { keys.len().to_string().into_bytes() };
                let mut rest = if blocking { args![self.ltimeout(), numkeys] } else { args![numkeys] };
                rest.extend(keys);
                rest.push(self.lside());
                if self.chance(50) {
                    rest.push(self.casing("COUNT"));
                    rest.push(self.int(-1..5));
                }
                steps.extend(self.exact(if blocking { "BLMPOP" } else { "LMPOP" }, rest));
                steps
            }
            _ => self.exact("LRANGE", args![k, "0", "-1"]),
        }
    }

    /// LPOS with a random mix of RANK, COUNT and MAXLEN (valid or not), in any order.
    fn lpos(&mut self, k: Vec<u8>, e: Vec<u8>) -> Vec<Step> {
        let mut opts: Vec<Vec<Vec<u8>>> = Vec::new();
        if self.chance(50) {
            let rank = self.pick(&["1", "2", "3", "-1", "-2", "-3", "0", "abc", "-9223372036854775808"]);
            opts.push(args![self.casing("RANK"), rank]);
        }
        if self.chance(50) {
            let count = self.pick(&["0", "1", "2", "5", "-1", "abc"]);
            opts.push(args![self.casing("COUNT"), count]);
        }
        if self.chance(40) {
            let maxlen = self.pick(&["0", "1", "3", "10", "-1"]);
            opts.push(args![self.casing("MAXLEN"), maxlen]);
        }
        if self.chance(5) {
            opts.push(args![self.pick(&["FOO", "RANK", "COUNT", "MAXLEN"])]);
        }
        opts.shuffle(&mut self.rng);
        let mut rest = args![k, e];
        rest.extend(opts.into_iter().flatten());
        self.exact("LPOS", rest)
    }

    /// A list past a listpack's 8 KB (a quicklist in Redis), read back in pieces.
    fn lbig(&mut self, k: Vec<u8>) -> Vec<Step> {
        let mut rest = args![&k];
        rest.extend((0..150).map(|_| self.lelem()));
        let mut steps = self.exact("RPUSH", rest);
        steps.extend(self.exact("LRANGE", args![&k, "100", "120"]));
        steps.extend(self.exact("LLEN", args![k]));
        steps
    }

    /// A list command with too few (or, for fixed arities, too many) arguments.
    fn list_wrong_arity(&mut self) -> Vec<Step> {
        // Redis 7.0's arities: positive is exact, negative is a minimum.
        const ARITY: &[(&str, i32)] = &[
            ("LPUSH", -3),
            ("RPUSH", -3),
            ("LPUSHX", -3),
            ("RPUSHX", -3),
            ("LPOP", -2),
            ("RPOP", -2),
            ("LLEN", 2),
            ("LRANGE", 4),
            ("LINDEX", 3),
            ("LSET", 4),
            ("LINSERT", 5),
            ("LREM", 4),
            ("LTRIM", 4),
            ("LPOS", -3),
            ("LMOVE", 5),
            ("RPOPLPUSH", 3),
            ("BLPOP", -3),
            ("BRPOP", -3),
            ("BLMOVE", 6),
            ("BRPOPLPUSH", 4),
            ("LMPOP", -4),
            ("BLMPOP", -5),
        ];
        // LPOP and RPOP take at most a count, checked by the command itself.
        self.wrong_arity_of(ARITY, Gen::lkey, |g, arity| (arity == -2 && g.chance(50)).then_some(4))
    }

    /// A list operation on any key of the main random test (strings, other types, missing).
    pub fn list_on_any_key(&mut self, k: Vec<u8>, _v: Vec<u8>) -> Vec<Step> {
        self.list_op(k, true)
    }
}
