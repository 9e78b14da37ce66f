//! Bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD and BITFIELD_RO, after a
//! fixed list of edge cases, then seeded random commands over a few keys that mix SET, APPEND
//! and SETRANGE with the bitmap commands.
//!
//! Deliberate differences, avoided by the generator: offsets stay under a few hundred
//! kilobytes (a bit near the 512 MB limit would make both servers allocate it), except in
//! refusals, which allocate nothing.

use rand::Rng;

use crate::harness::*;

#[test]
fn random_bitmap_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_bitmap_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("bitmap edge cases");
    for argv in bitmap_edge_cases() {
        peers.call(&argv, Check::Exact);
    }
    run_family(&mut peers, "bitmaps", bitmap_fixtures, BITMAP_OPS);
}

/// The keys the random test works on, one of them a list (for WRONGTYPE).
const BKEYS: &[&[u8]] = &[b"b1", b"b2", b"b3", b"\xffbits", BLIST];
const BLIST: &[u8] = b"blist";

pub(crate) fn bitmap_fixtures(_: &mut Gen) -> Vec<Step> {
    vec![Step::Call(args!["RPUSH", BLIST, "x"], Check::Exact)]
}

/// Fixed cases: empty and missing keys, wrong types, refused offsets, negative and BIT
/// ranges, BITPOS's end rule, BITOP's deleted destination, BITFIELD overflow of every kind
/// at the edges of every width, `#` offsets and each parse error in Redis's order.
fn bitmap_edge_cases() -> Vec<Vec<Vec<u8>>> {
    let mut cases = vec![
        args!["FLUSHALL"],
        args!["SET", "empty", ""],
        args!["RPUSH", "list", "x"],
        args!["SET", "s", "foobar"],
        args!["SET", "n", "12345"],
        args!["SET", "ones", b"\xff\xff\xff" as &[u8]],
        args!["SET", "mixed", b"\x00\xff\xf0\x0f\x00" as &[u8]],
    ];
    for key in ["missing", "empty", "list", "s", "n", "ones", "mixed"] {
        cases.extend([
            args!["GETBIT", key, "0"],
            args!["GETBIT", key, "13"],
            args!["GETBIT", key, "99999"],
            args!["BITCOUNT", key],
            args!["BITCOUNT", key, "0"],
            args!["BITCOUNT", key, "0", "-1"],
            args!["BITCOUNT", key, "1", "1", "byte"],
            args!["BITCOUNT", key, "5", "30", "BIT"],
            args!["BITCOUNT", key, "-1", "-2", "nonsense"],
            args!["BITCOUNT", key, "-5", "-1", "BIT"],
            args!["BITCOUNT", key, "-100", "100"],
            args!["BITCOUNT", key, "0", "1", "WORD"],
            args!["BITCOUNT", key, "x", "1"],
            args!["BITCOUNT", key, "0", "1", "BIT", "extra"],
            args!["BITPOS", key, "0"],
            args!["BITPOS", key, "1"],
            args!["BITPOS", key, "0", "1"],
            args!["BITPOS", key, "1", "1"],
            args!["BITPOS", key, "0", "0", "-1"],
            args!["BITPOS", key, "0", "2", "1"],
            args!["BITPOS", key, "1", "-1"],
            args!["BITPOS", key, "0", "3", "17", "BIT"],
            args!["BITPOS", key, "1", "3", "17", "bit"],
            args!["BITPOS", key, "0", "-10", "-2", "BIT"],
            args!["BITPOS", key, "1", "-5", "-10"],
            args!["BITPOS", key, "0", "0", "8", "BIT"],
            args!["BITPOS", key, "2"],
            args!["BITPOS", key, "x"],
            args!["BITPOS", key, "1", "x"],
            args!["BITPOS", key, "1", "0", "x"],
            args!["BITPOS", key, "1", "0", "1", "NOPE"],
            args!["BITPOS", key, "1", "0", "1", "BIT", "extra"],
            args!["BITFIELD", key, "GET", "u8", "0", "GET", "i5", "3", "GET", "i64", "1", "GET", "u63", "7"],
            args!["BITFIELD_RO", key, "GET", "u1", "#5", "GET", "i64", "#1"],
        ]);
    }
    cases.extend([
        args!["SETBIT", "k", "7", "1"],
        args!["SETBIT", "k", "7", "1"],
        args!["SETBIT", "k", "7", "0"],
        args!["SETBIT", "k", "100", "1"],
        args!["GET", "k"],
        args!["SETBIT", "k", "-1", "1"],
        args!["SETBIT", "k", "4294967296", "1"],
        args!["SETBIT", "k", "9223372036854775807", "1"],
        args!["SETBIT", "k", "x", "1"],
        args!["SETBIT", "k", "1", "2"],
        args!["SETBIT", "k", "1", "-1"],
        args!["SETBIT", "k", "1", "x"],
        args!["SETBIT", "list", "1", "1"],
        args!["SETBIT", "n", "0", "1"],
        args!["GET", "n"],
        args!["GETBIT", "k", "-1"],
        args!["GETBIT", "k", "4294967296"],
        args!["GETBIT", "k", "4294967295"],
        args!["BITOP", "AND", "d", "s", "mixed"],
        args!["GET", "d"],
        args!["BITOP", "or", "d", "s", "mixed", "missing"],
        args!["GET", "d"],
        args!["BITOP", "Xor", "d", "s", "s", "mixed"],
        args!["GET", "d"],
        args!["BITOP", "NOT", "d", "mixed"],
        args!["GET", "d"],
        args!["BITOP", "AND", "d", "missing", "s"],
        args!["GET", "d"],
        args!["BITOP", "AND", "d", "missing", "empty"],
        args!["EXISTS", "d"],
        args!["BITOP", "OR", "d", "missing"],
        args!["BITOP", "NOT", "d", "s", "mixed"],
        args!["BITOP", "NOT", "d"],
        args!["BITOP", "NAND", "d", "s"],
        args!["BITOP", "OR", "d", "s", "list"],
        args!["BITOP", "OR", "list", "s"],
        args!["TYPE", "list"],
        args!["BITFIELD", "f"],
        args!["BITFIELD", "f", "GET", "u8", "0"],
        args!["EXISTS", "f"],
        args!["BITFIELD", "f", "SET", "u8", "#1", "200", "GET", "u8", "8", "INCRBY", "i8", "#1", "10"],
        args!["BITFIELD", "f", "GET", "u64", "0"],
        args!["BITFIELD", "f", "GET", "i65", "0"],
        args!["BITFIELD", "f", "GET", "u0", "0"],
        args!["BITFIELD", "f", "GET", "i", "0"],
        args!["BITFIELD", "f", "GET", "x8", "0"],
        args!["BITFIELD", "f", "GET", "u8", "-1"],
        args!["BITFIELD", "f", "GET", "u8", "#-1"],
        args!["BITFIELD", "f", "GET", "u8", "#x"],
        args!["BITFIELD", "f", "GET", "u8", "4294967296"],
        args!["BITFIELD", "f", "GET", "u8", "#536870912"],
        args!["BITFIELD", "f", "GET", "u8", "#9223372036854775807"],
        args!["BITFIELD", "f", "GET", "u8"],
        args!["BITFIELD", "f", "SET", "u8", "0"],
        args!["BITFIELD", "f", "SET", "u8", "0", "x"],
        args!["BITFIELD", "f", "INCRBY", "u8", "0", "1.5"],
        args!["BITFIELD", "f", "OVERFLOW"],
        args!["BITFIELD", "f", "OVERFLOW", "NOPE", "GET", "u8", "0"],
        args!["BITFIELD", "f", "GET", "u8", "0", "BOGUS"],
        args!["BITFIELD", "f", "GET", "x8", "0", "SET", "u8", "0", "x"],
        args!["BITFIELD", "list", "GET", "u8", "0"],
        args!["BITFIELD", "list", "SET", "u8", "0", "1"],
        args!["BITFIELD_RO", "f", "GET", "u8", "0", "SET", "u8", "0", "1"],
        args!["BITFIELD_RO", "f", "OVERFLOW", "SAT", "GET", "u8", "0"],
        args!["BITFIELD_RO", "f", "INCRBY", "u8", "0", "1"],
        args!["BITFIELD_RO", "f"],
        args!["BITFIELD", "g", "OVERFLOW", "FAIL", "SET", "u8", "0", "256"],
        args!["EXISTS", "g"],
        args!["GET", "g"],
    ]);
    // Overflow of every kind at the edges of each width.
    for width in [1, 2, 7, 8, 15, 16, 31, 32, 33, 62, 63, 64] {
        for sign in ["i", "u"] {
            if sign == "u" && width == 64 {
                continue;
            }
            let ty = format!("{sign}{width}");
            let (min, max): (i128, i128) = if sign == "i" {
                (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
            } else {
                (0, (1i128 << width) - 1)
            };
            let clamp = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128).to_string();
            for ow in ["WRAP", "SAT", "FAIL"] {
                for (set, incr) in [
                    (max, 1),
                    (min, -1),
                    (max, max),
                    (min, min),
                    (0, -1),
                    (max, i64::MAX as i128),
                    (min, i64::MIN as i128),
                ] {
                    cases.push(args![
                        "BITFIELD",
                        "o",
                        "OVERFLOW",
                        ow,
                        "SET",
                        ty.as_str(),
                        "3",
                        clamp(set),
                        "INCRBY",
                        ty.as_str(),
                        "3",
                        clamp(incr),
                        "GET",
                        ty.as_str(),
                        "3"
                    ]);
                }
                for set in [max + 1, min - 1, -1, i64::MIN as i128, i64::MAX as i128] {
                    cases.push(args![
                        "BITFIELD",
                        "o",
                        "OVERFLOW",
                        ow,
                        "SET",
                        ty.as_str(),
                        "#2",
                        clamp(set),
                        "GET",
                        ty.as_str(),
                        "#2"
                    ]);
                }
            }
        }
    }
    cases.push(args!["GET", "o"]);
    cases
}

pub(crate) const BITMAP_OPS: &[(u32, FamilyOp)] = &[
    (185, |g| {
        let k = g.bkey();
        g.bitmap_on(k)
    }),
    (15, |g| {
        let k = g.bkey();
        let v = g.value();
        g.exact("SET", args![k, v])
    }),
    (10, |g| {
        let k = g.bkey();
        let v = g.value();
        g.exact("APPEND", args![k, v])
    }),
    (10, |g| {
        let k = g.bkey();
        let at = g.rng.gen_range(0..40).to_string();
        let v = g.value();
        g.exact("SETRANGE", args![k, at, v])
    }),
    (15, |g| {
        let name = g.pick(&["GET", "STRLEN", "DEL", "EXISTS", "TYPE"]);
        let k = g.bkey();
        g.exact(name, args![k])
    }),
];

impl Gen {
    /// One bitmap command on `k` (BITOP's destination; its sources are more of the same keys,
    /// or of the main test's keys when `k` is one of those).
    pub(crate) fn bitmap_on(&mut self, k: Vec<u8>) -> Vec<Step> {
        let main = !BKEYS.contains(&k.as_slice());
        let other = |g: &mut Gen| if main { g.key() } else { g.bkey() };
        match self.rng.gen_range(0..37) {
            0..=7 => {
                let offset = self.bit_offset();
                let bit = if self.chance(95) { self.pick(&["0", "1"]).into() } else { self.int(-1..3) };
                self.exact("SETBIT", args![k, offset, bit])
            }
            8..=12 => {
                let offset = self.bit_offset();
                self.exact("GETBIT", args![k, offset])
            }
            13..=18 => {
                let mut rest = args![k];
                if self.chance(75) {
                    rest.push(self.index());
                    rest.push(self.index());
                    if self.chance(60) {
                        rest.push(self.range_unit());
                    }
                }
                self.exact("BITCOUNT", rest)
            }
            19..=24 => {
                let bit = if self.chance(95) { self.pick(&["0", "1"]).into() } else { self.int(-1..3) };
                let mut rest = args![k, bit];
                if self.chance(75) {
                    rest.push(self.index());
                    if self.chance(70) {
                        rest.push(self.index());
                        if self.chance(60) {
                            rest.push(self.range_unit());
                        }
                    }
                }
                self.exact("BITPOS", rest)
            }
            25..=28 => {
                let op = self.pick(&["AND", "OR", "XOR", "NOT", "and", "Not"]);
                let n = if op.eq_ignore_ascii_case("NOT") && self.chance(90) { 1 } else { self.rng.gen_range(1..4) };
                let mut rest = args![op, k];
                rest.extend((0..n).map(|_| other(self)));
                self.exact("BITOP", rest)
            }
            _ => {
                let read_only = self.chance(20);
                let mut rest = args![k];
                for _ in 0..self.rng.gen_range(0..4) {
                    let word = if read_only && self.chance(90) {
                        "GET"
                    } else {
                        self.pick(&["GET", "SET", "INCRBY", "OVERFLOW"])
                    };
                    rest.push(self.casing(word));
                    if word == "OVERFLOW" {
                        rest.push(self.pick(&["WRAP", "SAT", "FAIL", "sat", "bad"]).into());
                        continue;
                    }
                    rest.push(self.field_type());
                    rest.push(self.field_offset());
                    if word != "GET" {
                        rest.push(self.field_value());
                    }
                }
                self.exact(if read_only { "BITFIELD_RO" } else { "BITFIELD" }, rest)
            }
        }
    }

    fn bkey(&mut self) -> Vec<u8> {
        self.pick(BKEYS).to_vec()
    }

    /// A bit offset: mostly within a few bytes, sometimes further, now and then refused.
    fn bit_offset(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..20) {
            0 => self.pick(&["-1", "x", "4294967296", "9223372036854775807", "1.5"]).into(),
            1 => self.rng.gen_range(0..200_000).to_string().into_bytes(),
            _ => self.rng.gen_range(0..120).to_string().into_bytes(),
        }
    }

    /// A range index: small and often negative, now and then an edge.
    fn index(&mut self) -> Vec<u8> {
        if self.chance(90) {
            self.rng.gen_range(-40..40).to_string().into_bytes()
        } else {
            self.pick(&["9223372036854775807", "-9223372036854775808", "x", "0"]).into()
        }
    }

    fn range_unit(&mut self) -> Vec<u8> {
        self.pick(&["BIT", "BYTE", "bit", "byte", "word"]).into()
    }

    fn field_type(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..20) {
            0 => self.pick(&["u64", "i65", "u0", "x8", "i", "8"]).into(),
            _ => {
                let sign = self.pick(&["i", "u"]);
                let width = self.rng.gen_range(1..=if sign == "u" { 63 } else { 64 });
                format!("{sign}{width}").into_bytes()
            }
        }
    }

    fn field_offset(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..20) {
            0 => self.pick(&["-1", "#-1", "#x", "x", "4294967296"]).into(),
            1..=5 => format!("#{}", self.rng.gen_range(0..12)).into_bytes(),
            _ => self.rng.gen_range(0..100).to_string().into_bytes(),
        }
    }

    fn field_value(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..10) {
            0 => self.pick(EDGE_INTS).into(),
            1..=3 => self.rng.gen_range(i64::MIN..i64::MAX).to_string().into_bytes(),
            _ => self.rng.gen_range(-300..300).to_string().into_bytes(),
        }
    }
}
