//! Stream commands without groups: XADD, XTRIM, XDEL, XSETID, XRANGE, XREVRANGE, XLEN and XREAD
//! (answering at once), after a fixed list of edge cases.
//!
//! Deliberate differences, avoided by the generator:
//! - XADD's `*` takes the server's clock, so IDs are always given: explicit `ms-seq`, `ms`
//!   alone, or `ms-*` (the next sequence in that millisecond, which needs no clock).
//! - Approximate trims (`~`) remove whole blocks; Vitrine starts a block where Redis starts a
//!   listpack as long as entries are small (100 entries each), so fields and values stay short.
//! - XREAD is sent with BLOCK only when it answers at once; waiting is tested in
//!   `tests/blocking.rs`. `+` (Redis 7.4) is not sent: 7.0 reads it as an invalid ID.

use std::cell::Cell;

use rand::Rng;

use crate::harness::*;

#[test]
fn random_stream_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_stream_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("stream edge cases");
    for argv in stream_edge_cases() {
        peers.call(&argv, Check::Exact);
    }
    run_family(&mut peers, "streams", stream_fixtures, STREAM_OPS);
}

/// What each seed starts from: IDs from 1 again, and a string among the stream keys.
pub(crate) fn stream_fixtures(_: &mut Gen) -> Vec<Step> {
    NEXT_MS.with(|n| n.set(1));
    vec![Step::Call(args!["SET", STREAM_STRING, "v"], Check::Exact)]
}

/// Fixed cases: every error in Redis's order, the odd ID forms, exclusive bounds at the ends
/// of the ID space, trims at block boundaries, an emptied stream.
fn stream_edge_cases() -> Vec<Vec<Vec<u8>>> {
    let max = "18446744073709551615-18446744073709551615";
    let mut cases = vec![
        args!["FLUSHALL"],
        args!["XADD", "s", "1-1", "a", "1"],
        args!["XADD", "s", "1-1", "a", "1"],
        args!["XADD", "s", "1-*", "b", "2"],
        args!["XADD", "s", "1", "b", "2"],
        args!["XADD", "s", "2", "c", "3", "d", "4"],
        args!["XADD", "s", "0-0", "a", "1"],
        args!["XADD", "n", "0", "a", "1"],
        args!["XADD", "n", "0-*", "a", "1"],
        args!["XADD", "s", "-", "a", "1"],
        args!["XADD", "s", "+", "a", "1"],
        args!["XADD", "s", "1-x", "a", "1"],
        args!["XADD", "s", "x-1", "a", "1"],
        args!["XADD", "s", "*-1", "a", "1"],
        args!["XADD", "s", "3-1", "a"],
        args!["XADD", "s", "3-1", "a", "1", "b"],
        args!["XADD", "s", "MAXLEN", "3-1", "a", "1"],
        args!["XADD", "s", "MAXLEN", "x", "3-1", "a", "1"],
        args!["XADD", "s", "MAXLEN", "-1", "3-1", "a", "1"],
        args!["XADD", "s", "MAXLEN", "~", "-1", "3-1", "a", "1"],
        args!["XADD", "s", "MINID", "x", "3-1", "a", "1"],
        args!["XADD", "s", "MINID", "-", "3-1", "a", "1"],
        args!["XADD", "s", "LIMIT", "5", "3-1", "a", "1"],
        args!["XADD", "s", "LIMIT", "0", "3-1", "a", "1"],
        args!["XADD", "s", "MAXLEN", "5", "LIMIT", "5", "3-1", "a", "1"],
        args!["XADD", "s", "MAXLEN", "~", "5", "LIMIT", "-1", "3-1", "a", "1"],
        args!["XADD", "s", "MAXLEN", "1", "MINID", "1", "3-1", "a", "1"],
        args!["XADD", "s", "NOMKSTREAM", "NOMKSTREAM", "MAXLEN", "=", "3", "3-1", "a", "1"],
        args!["XADD", "none", "NOMKSTREAM", "3-1", "a", "1"],
        args!["EXISTS", "none"],
        args!["XADD", STREAM_STRING, "1-1", "a", "1"],
        args!["SET", STREAM_STRING, "v"],
        args!["XADD", STREAM_STRING, "1-1", "a", "1"],
        args!["XADD", STREAM_STRING, "NOMKSTREAM", "1-1", "a", "1"],
        args!["XRANGE", "s", "-", "+"],
        args!["XRANGE", "s", "(1-1", "+"],
        args!["XRANGE", "s", "(1", "(2"],
        args!["XRANGE", "s", "1", "1"],
        args!["XRANGE", "s", "(-", "+"],
        args!["XRANGE", "s", "(", "+"],
        args!["XRANGE", "s", "-", "(+"],
        args!["XRANGE", "s", format!("({max}"), "+"],
        args!["XRANGE", "s", "-", "(0-0"],
        args!["XRANGE", "s", "(0-0", "(18446744073709551615"],
        args!["XRANGE", "s", "2", "1"],
        args!["XRANGE", "s", "-", "+", "COUNT", "0"],
        args!["XRANGE", "s", "-", "+", "COUNT", "-1"],
        args!["XRANGE", "s", "-", "+", "COUNT", "2"],
        args!["XRANGE", "s", "-", "+", "COUNT"],
        args!["XRANGE", "s", "-", "+", "COUNT", "x"],
        args!["XRANGE", "s", "-", "+", "COUNT", "1", "COUNT", "3"],
        args!["XRANGE", "none", "-", "+", "COUNT", "0"],
        args!["XRANGE", "s", "x", "+"],
        args!["XRANGE", "s", "-", "18446744073709551616"],
        args!["XREVRANGE", "s", "+", "-"],
        args!["XREVRANGE", "s", "(2", "(1", "COUNT", "5"],
        args!["XREVRANGE", "s", "-", "+"],
        args!["XREVRANGE", "s", "+", "-", "COUNT", "1"],
        args!["XRANGE", STREAM_STRING, "-", "+"],
        args!["XLEN", "s"],
        args!["XLEN", "none"],
        args!["XLEN", STREAM_STRING],
        args!["XDEL", "s", "1-1", "9-9", "1-1"],
        args!["XDEL", "s", "1-2", "bad"],
        args!["XDEL", "none", "bad"],
        args!["XDEL", STREAM_STRING, "1"],
        args!["XDEL", "s", "-"],
        args!["XRANGE", "s", "-", "+"],
        args!["XTRIM", "s"],
        args!["XTRIM", "s", "MAXLEN"],
        args!["XTRIM", "s", "FOO", "1"],
        args!["XTRIM", "s", "LIMIT", "1"],
        args!["XTRIM", "s", "LIMIT", "0", "MAXLEN", "5"],
        args!["XTRIM", "s", "MAXLEN", "~", "0", "LIMIT", "1"],
        args!["XTRIM", "s", "MAXLEN", "=", "5", "LIMIT", "1"],
        args!["XTRIM", "s", "MINID", "1-2", "NOMKSTREAM"],
        args!["XTRIM", "none", "MAXLEN", "0"],
        args!["XTRIM", STREAM_STRING, "MAXLEN", "0"],
        args!["XTRIM", "s", "MINID", "2"],
        args!["XTRIM", "s", "MAXLEN", "0"],
        args!["EXISTS", "s"],
        args!["XLEN", "s"],
        args!["XADD", "s", "2", "a", "1"],
        args!["XADD", "s", "2-1", "a", "1"],
        args!["XSETID", "s", "1"],
        args!["XSETID", "s", "5", "ENTRIESADDED", "0"],
        args!["XSETID", "s", "5", "ENTRIESADDED", "-1"],
        args!["XSETID", "s", "5", "ENTRIESADDED", "x"],
        args!["XSETID", "s", "5", "MAXDELETEDID", "6"],
        args!["XSETID", "s", "5", "MAXDELETEDID", "+"],
        args!["XSETID", "s", "5", "FOO"],
        args!["XSETID", "s", "5", "ENTRIESADDED"],
        args!["XSETID", "s", "-"],
        args!["XSETID", "none", "5"],
        args!["XSETID", STREAM_STRING, "5"],
        args!["XSETID", "s", "5", "ENTRIESADDED", "9", "MAXDELETEDID", "0-0"],
        args!["XADD", "s", "5", "a", "1"],
        args!["XADD", "s", "5-*", "a", "1"],
        args!["XSETID", "n", max],
        args!["XADD", "n", "5-1", "a", "1"],
        args!["XADD", "n", "18446744073709551615-*", "a", "1"],
        args!["XREAD", "STREAMS", "s", "n", "0", "0"],
        args!["XREAD", "COUNT", "1", "STREAMS", "s", "n", "0", "0"],
        args!["XREAD", "COUNT", "0", "STREAMS", "s", "0"],
        args!["XREAD", "COUNT", "-5", "STREAMS", "s", "0"],
        args!["XREAD", "STREAMS", "s", "$"],
        args!["XREAD", "STREAMS", "none", "0"],
        args!["XREAD", "STREAMS", "s", "none", "(1", "0"],
        args!["XREAD", "STREAMS", "s"],
        args!["XREAD", "STREAMS", "s", "n", "0"],
        args!["XREAD", "s", "0"],
        args!["XREAD", "COUNT", "x", "STREAMS", "s", "0"],
        args!["XREAD", "BLOCK", "x", "STREAMS", "s", "0"],
        args!["XREAD", "BLOCK", "-1", "STREAMS", "s", "0"],
        args!["XREAD", "BLOCK", "0", "STREAMS", "s", "0"],
        args!["XREAD", "BLOCK", "10", "COUNT", "1", "STREAMS", "s", "0"],
        args!["XREAD", "GROUP", "g", "c", "STREAMS", "s", "0"],
        args!["XREAD", "NOACK", "STREAMS", "s", "0"],
        args!["XREAD", "STREAMS", "s", ">"],
        args!["XREAD", "STREAMS", STREAM_STRING, "0"],
        args!["XREAD", "STREAMS", "s", STREAM_STRING, "0", "0"],
        args!["TYPE", "s"],
        args!["OBJECT", "ENCODING", "s"],
        args!["COPY", "s", "c"],
        args!["RENAME", "c", "d"],
        args!["XRANGE", "d", "-", "+"],
        args!["DEL", "d"],
    ];
    // Trims at block boundaries: 250 entries are three blocks in both servers.
    cases.push(args!["DEL", "b"]);
    for i in 1..=250 {
        cases.push(args!["XADD", "b", format!("{i}-1"), "f", i.to_string()]);
    }
    cases.extend([
        args!["XTRIM", "b", "MAXLEN", "~", "200"],
        args!["XTRIM", "b", "MAXLEN", "~", "149"],
        args!["XTRIM", "b", "MAXLEN", "~", "0", "LIMIT", "99"],
        args!["XTRIM", "b", "MINID", "~", "201"],
        args!["XTRIM", "b", "MINID", "~", "202"],
        args!["XADD", "b", "MAXLEN", "~", "10", "LIMIT", "100", "251", "f", "v"],
        args!["XTRIM", "b", "MINID", "=", "240"],
        args!["XLEN", "b"],
        args!["XRANGE", "b", "-", "+", "COUNT", "3"],
        args!["XREVRANGE", "b", "+", "-", "COUNT", "3"],
    ]);
    cases
}

/// The stream test's keys; the string is made at the start of each seed.
const SKEYS: &[&[u8]] = &[b"s1", b"s1", b"s1", b"s2", b"s2", b"stream:3", STREAM_STRING, b"missing"];
const STREAM_STRING: &[u8] = b"a string";
const SFIELDS: &[&[u8]] = &[b"f", b"f", b"g", b"h", b"", b"1", b"two words", b"\x00\xff"];

thread_local! {
    /// The millisecond the next `ms-*` ID takes, so most XADDs go forward.
    static NEXT_MS: Cell<u64> = const { Cell::new(1) };
}

/// Every operation the stream test runs, with its relative weight.
pub(crate) const STREAM_OPS: &[(u32, FamilyOp)] = &[
    (120, |g| {
        let k = g.skey();
        let mut argv = vec![k];
        if g.chance(5) {
            argv.push(g.casing("NOMKSTREAM"));
        }
        if g.chance(25) {
            argv.extend(g.trim_args());
        }
        argv.push(g.xadd_id());
        argv.extend(g.sfields());
        g.exact("XADD", argv)
    }),
    (30, |g| {
        let k = g.skey();
        let mut argv = vec![k];
        argv.extend(g.trim_args());
        g.exact("XTRIM", argv)
    }),
    (30, |g| {
        let k = g.skey();
        let mut argv = vec![k];
        for _ in 0..g.rng.gen_range(1..4) {
            argv.push(g.sid());
        }
        g.exact("XDEL", argv)
    }),
    (60, |g| {
        let rev = g.chance(40);
        let k = g.skey();
        let (a, b) = (g.bound(), g.bound());
        let mut argv = vec![k, a, b];
        if g.chance(50) {
            argv.push(g.casing("COUNT"));
            argv.push(g.int(-1..6));
        }
        g.exact(if rev { "XREVRANGE" } else { "XRANGE" }, argv)
    }),
    (30, |g| {
        let mut argv = Vec::new();
        if g.chance(40) {
            argv.push(g.casing("COUNT"));
            argv.push(g.int(-1..4));
        }
        argv.push(g.casing("STREAMS"));
        let n = g.rng.gen_range(1..3);
        let keys: Vec<Vec<u8>> = (0..n).map(|_| g.skey()).collect();
        // Not `+`: Redis 7.4's, which 7.0 refuses.
        let ids: Vec<Vec<u8>> = (0..n)
            .map(|_| match g.sid() {
                id if id == b"+" || g.chance(20) => b"$".to_vec(),
                id => id,
            })
            .collect();
        argv.extend(keys);
        argv.extend(ids);
        g.exact("XREAD", argv)
    }),
    (10, |g| {
        let k = g.skey();
        let mut argv = vec![k, g.sid()];
        if g.chance(30) {
            argv.push(b"ENTRIESADDED".to_vec());
            argv.push(g.int(0..600));
        }
        if g.chance(30) {
            argv.push(b"MAXDELETEDID".to_vec());
            argv.push(g.sid());
        }
        g.exact("XSETID", argv)
    }),
    (20, |g| {
        let name = g.pick(&["DEL", "EXISTS", "TYPE", "XLEN"]);
        let k = g.skey();
        g.exact(name, args![k])
    }),
    (5, |g| g.exact("SET", args![STREAM_STRING, "v"])),
];

impl Gen {
    fn skey(&mut self) -> Vec<u8> {
        self.pick(SKEYS).to_vec()
    }

    /// An ID for a read, a delete or a trim: mostly near what the streams hold.
    fn sid(&mut self) -> Vec<u8> {
        let top = NEXT_MS.with(Cell::get);
        match self.rng.gen_range(0..10) {
            0 => self.pick(&["0", "0-0", "-", "+", "x", "1-", "18446744073709551615-18446744073709551615"]).into(),
            1 => self.rng.gen_range(0..=top).to_string().into_bytes(),
            _ => format!("{}-{}", self.rng.gen_range(0..=top), self.rng.gen_range(0..3)).into_bytes(),
        }
    }

    /// A range bound: an ID, now and then exclusive, `-` or `+`.
    fn bound(&mut self) -> Vec<u8> {
        match self.rng.gen_range(0..6) {
            0 => b"-".to_vec(),
            1 => b"+".to_vec(),
            2 => [&b"("[..], &self.sid()].concat(),
            _ => self.sid(),
        }
    }

    /// XADD's ID: usually the next millisecond's `ms-*` or an explicit next ID, now and then
    /// one at or below the top (an error) or a bad one.
    fn xadd_id(&mut self) -> Vec<u8> {
        let ms = NEXT_MS.with(|n| {
            let ms = n.get();
            if self.rng.gen_range(0..3) == 0 {
                n.set(ms + 1);
            }
            ms
        });
        match self.rng.gen_range(0..12) {
            0 => self.sid(),
            1 => b"0-0".to_vec(),
            2..=5 => format!("{ms}-{}", self.rng.gen_range(0..4)).into_bytes(),
            6 => ms.to_string().into_bytes(),
            _ => format!("{ms}-*").into_bytes(),
        }
    }

    /// One or two short field-value pairs, now and then an odd count.
    fn sfields(&mut self) -> Vec<Vec<u8>> {
        let pairs = if self.chance(20) { 2 } else { 1 };
        let mut out: Vec<Vec<u8>> = (0..pairs * 2).map(|_| self.pick(SFIELDS).to_vec()).collect();
        if self.chance(3) {
            out.pop();
        }
        out
    }

    /// MAXLEN or MINID, maybe `=` or `~`, maybe LIMIT (which Redis refuses without `~`).
    fn trim_args(&mut self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let maxlen = self.chance(60);
        out.push(self.casing(if maxlen { "MAXLEN" } else { "MINID" }));
        let approx = self.chance(40);
        if approx {
            out.push(b"~".to_vec());
        } else if self.chance(30) {
            out.push(b"=".to_vec());
        }
        out.push(if maxlen { self.int(-1..150) } else { self.sid() });
        if self.chance(if approx { 40 } else { 5 }) {
            out.push(self.casing("LIMIT"));
            out.push(self.int(-1..200));
        }
        out
    }
}
