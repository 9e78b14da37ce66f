//! Geospatial commands: GEOADD, GEOPOS, GEODIST, GEOHASH, GEOSEARCH, GEOSEARCHSTORE and the
//! GEORADIUS family, after a fixed list of edge cases (poles, the antimeridian, tiny and
//! huge radii, boxes, COUNT ANY, missing members, wrong types, bad units and coordinates).
//!
//! The random test runs seeds of its own (2101.., or `DIFFERENTIAL_SEED` plus 2100) so it
//! explores sequences no other family draws.
//!
//! Deliberate differences, avoided by the generator:
//! - Results sorted by distance (ASC, DESC, COUNT without ANY) come from an unstable sort in
//!   Redis when COUNT cuts them (`pqsort`), so two members at the same distance may come in
//!   either order. Points are drawn from a fine continuous grid, so equal distances need the
//!   same point twice, which the few fixed points avoid.

use rand::Rng;

use crate::harness::*;

#[test]
fn random_geo_commands_match_redis() {
    let Some(servers) = Servers::start_or_skip("random_geo_commands_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("geo edge cases");
    for argv in geo_edge_cases() {
        peers.call(&argv, Check::Exact);
    }
    for seed in seeds() {
        let seed = seed + 2100;
        peers.begin(&format!("geo, seed {seed}"));
        peers.run(Step::Call(args!["FLUSHALL"], Check::Exact));
        peers.run(Step::Call(args!["SET", GEO_STRING, "v"], Check::Exact));
        let mut gen = Gen::new(seed);
        for n in 0..OPS_PER_SEED {
            peers.op = n;
            let op = gen.weighted(GEO_OPS);
            for step in op(&mut gen) {
                peers.run(step);
            }
        }
    }
}

/// Fixed cases, each family of errors in Redis's order.
fn geo_edge_cases() -> Vec<Vec<Vec<u8>>> {
    let mut cases = vec![
        args!["FLUSHALL"],
        args!["GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"],
        args!["GEOADD", "g", "2.349014", "48.864716", "Paris", "-0.118092", "51.509865", "London"],
        args!["GEOADD", "g", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw", "0", "0", "origin"],
        args!["GEOADD", "g", "179.999", "0.5", "east", "-179.999", "0.5", "west"],
        args!["GEOADD", "g", "180.0001", "0", "x"],
        args!["GEOADD", "g", "0", "85.06", "x"],
        args!["GEOADD", "g", "-180.5", "-86", "x"],
        args!["GEOADD", "g", "inf", "0", "x"],
        args!["GEOADD", "g", "nan", "0", "x"],
        args!["GEOADD", "g", "abc", "0", "x"],
        args!["GEOADD", "g", "0", "", "x"],
        args!["GEOADD", "g", " 1", "0", "x"],
        args!["GEOADD", "g", "1e-400", "0", "x"],
        args!["GEOADD", "g", "0", "0"],
        args!["GEOADD", "g", "0", "0", "x", "1"],
        args!["GEOADD", "g", "NX", "XX", "0", "0", "x"],
        args!["GEOADD", "g", "GT", "0", "0", "x"],
        args!["GEOADD", "g", "CH", "CH", "CH"],
        args!["GEOADD", "g", "NX", "CH", "13", "38", "Palermo", "1", "1", "new"],
        args!["GEOADD", "g", "XX", "CH", "13", "38", "Palermo", "2", "2", "never"],
        args!["GEOADD", "g", "ch", "13.361389", "38.115556", "Palermo"],
        args!["GEOADD", "g", "1", "1", "dup", "2", "2", "dup"],
        args!["GEOADD", "g", "0", "0", "x", "200", "0", "y"],
        args!["ZRANGE", "g", "0", "-1", "WITHSCORES"],
        args!["SET", "str", "v"],
        args!["GEOADD", "str", "0", "0", "x"],
        args!["GEOADD", "str", "999", "0", "x"],
        args!["GEOPOS", "g", "Palermo", "nosuch", "ne", "sw", "origin", "east", "west"],
        args!["GEOPOS", "g"],
        args!["GEOPOS", "none", "a", "b"],
        args!["GEOPOS", "str", "a"],
        args!["GEODIST", "g", "Palermo", "Catania"],
        args!["GEODIST", "g", "Palermo", "Catania", "km"],
        args!["GEODIST", "g", "Palermo", "Catania", "MI"],
        args!["GEODIST", "g", "Palermo", "Catania", "Ft"],
        args!["GEODIST", "g", "Palermo", "Catania", "m"],
        args!["GEODIST", "g", "Palermo", "Palermo"],
        args!["GEODIST", "g", "ne", "sw", "km"],
        args!["GEODIST", "g", "east", "west"],
        args!["GEODIST", "g", "Palermo", "Catania", "yards"],
        args!["GEODIST", "g", "Palermo", "nosuch"],
        args!["GEODIST", "g", "Palermo", "Catania", "km", "x"],
        args!["GEODIST", "none", "a", "b", "parsecs"],
        args!["GEODIST", "none", "a", "b"],
        args!["GEODIST", "str", "a", "b"],
        args!["GEOHASH", "g", "Palermo", "Catania", "ne", "sw", "origin", "nosuch"],
        args!["GEOHASH", "none", "a"],
        args!["GEOHASH", "str", "a"],
        args!["GEOHASH", "g"],
        // Scores that were never geohashes still decode to somewhere.
        args!["ZADD", "g", "-1", "neg", "4503599627370496", "big", "1e30", "huge"],
        args!["GEOPOS", "g", "neg", "big", "huge"],
        args!["GEOHASH", "g", "neg", "big", "huge"],
        args!["ZREM", "g", "neg", "big", "huge"],
    ];
    let search_cases: &[&[&str]] = &[
        &["GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km"],
        &[
            "GEOSEARCH",
            "g",
            "FROMMEMBER",
            "Palermo",
            "BYRADIUS",
            "200",
            "km",
            "ASC",
            "WITHCOORD",
            "WITHDIST",
            "WITHHASH",
        ],
        &["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "DESC", "WITHDIST"],
        &["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "COUNT", "1"],
        &["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "20000", "km", "COUNT", "2", "ANY"],
        &["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "20000", "km", "COUNT", "3", "ANY", "WITHDIST"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "50000", "km", "WITHDIST"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "0", "m", "WITHDIST"],
        &["GEOSEARCH", "g", "FROMMEMBER", "origin", "BYRADIUS", "0", "m"],
        &["GEOSEARCH", "g", "FROMMEMBER", "origin", "BYRADIUS", "0.001", "m", "WITHCOORD"],
        &["GEOSEARCH", "g", "FROMLONLAT", "180", "0", "BYRADIUS", "500", "km", "WITHDIST", "ASC"],
        &["GEOSEARCH", "g", "FROMLONLAT", "-180", "0.5", "BYBOX", "300", "300", "km", "WITHCOORD"],
        &["GEOSEARCH", "g", "FROMMEMBER", "east", "BYRADIUS", "100", "km", "WITHDIST"],
        &["GEOSEARCH", "g", "FROMMEMBER", "ne", "BYRADIUS", "1000", "km", "WITHDIST"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "85", "BYRADIUS", "3000", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "-85", "BYBOX", "40000", "2000", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "2", "50", "BYBOX", "1000", "0", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "2", "50", "BYBOX", "1000", "1000", "mi", "WITHDIST", "ASC"],
        &["GEOSEARCH", "g", "FROMLONLAT", "2", "50", "BYBOX", "1000000", "1000000", "ft", "WITHDIST", "DESC"],
        &["GEOSEARCH", "g", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "none", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "none", "FROMLONLAT", "500", "0", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "str", "FROMLONLAT", "500", "0", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0"],
        &["geosearch", "g", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "g", "FROMMEMBER", "Palermo", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "BYBOX", "1", "1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "-1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "x", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "yd"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYBOX", "1", "-1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYBOX", "x", "1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYBOX", "1", "x", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYBOX", "1", "1"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "x", "BYRADIUS", "1", "km"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "COUNT", "0"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "COUNT", "-3"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "COUNT", "x"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "ANY"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "COUNT"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "STORE", "d"],
        &["GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km", "STOREDIST"],
        &["GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km"],
        &["ZRANGE", "d", "0", "-1", "WITHSCORES"],
        &["GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km", "STOREDIST", "DESC"],
        &["ZRANGE", "d", "0", "-1", "WITHSCORES"],
        &["GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km", "WITHDIST"],
        &[
            "GEOSEARCHSTORE",
            "d",
            "g",
            "FROMMEMBER",
            "Palermo",
            "BYRADIUS",
            "300",
            "km",
            "COUNT",
            "1",
            "ANY",
            "STOREDIST",
        ],
        &["ZRANGE", "d", "0", "-1", "WITHSCORES"],
        &["GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "100", "0", "BYRADIUS", "1", "km"],
        &["EXISTS", "d"],
        &["GEOSEARCHSTORE", "d", "none", "FROMMEMBER", "x", "BYRADIUS", "1", "km"],
        &["GEOSEARCHSTORE", "str", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"],
        &["TYPE", "str"],
        &["SET", "str", "v"],
        &["GEOSEARCHSTORE", "d", "str", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"],
        &["GEORADIUS", "g", "15", "37", "200", "km"],
        &["GEORADIUS", "g", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH", "ASC"],
        &["GEORADIUS", "g", "15", "37", "200", "km", "COUNT", "1", "DESC"],
        &["GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d"],
        &["ZRANGE", "d", "0", "-1", "WITHSCORES"],
        &["GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "d"],
        &["ZRANGE", "d", "0", "-1", "WITHSCORES"],
        &["GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d", "STOREDIST", "e"],
        &["ZRANGE", "e", "0", "-1", "WITHSCORES"],
        &["GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d", "WITHDIST"],
        &["GEORADIUS", "g", "15", "37", "200", "km", "STORE"],
        &["GEORADIUS", "g", "15", "37", "-1", "km"],
        &["GEORADIUS", "g", "15", "37", "1", "light-years"],
        &["GEORADIUS", "g", "15", "99", "1", "km"],
        &["GEORADIUS", "g", "15", "37", "1", "km", "FROMMEMBER", "Palermo"],
        &["GEORADIUS", "none", "15", "37", "1", "km"],
        &["GEORADIUS", "none", "15", "37", "1", "km", "STORE", "d"],
        &["EXISTS", "d"],
        &["GEORADIUS", "none", "15", "99", "1", "km"],
        &["GEORADIUS", "str", "15", "99", "1", "km"],
        &["GEORADIUS_RO", "g", "15", "37", "200", "km", "WITHDIST"],
        &["GEORADIUS_RO", "g", "15", "37", "200", "km", "STORE", "d"],
        &["GEORADIUSBYMEMBER", "g", "Palermo", "200", "km", "WITHDIST"],
        &["GEORADIUSBYMEMBER", "g", "Palermo", "200", "km", "STORE", "d"],
        &["GEORADIUSBYMEMBER", "g", "nosuch", "200", "km"],
        &["GEORADIUSBYMEMBER", "g", "Palermo", "x", "km"],
        &["GEORADIUSBYMEMBER", "none", "nosuch", "x", "yards"],
        &["GEORADIUSBYMEMBER", "none", "nosuch", "x", "yards", "STORE", "d", "WITHDIST"],
        &["GEORADIUSBYMEMBER", "none", "nosuch", "x", "yards", "BOGUS"],
        &["GEORADIUSBYMEMBER_RO", "g", "Palermo", "200", "km", "WITHCOORD"],
        &["GEORADIUSBYMEMBER_RO", "g", "Palermo", "200", "km", "STOREDIST", "d"],
        &["GEORADIUSBYMEMBER_RO", "str", "Palermo", "200", "km"],
    ];
    cases.extend(search_cases.iter().map(|c| c.iter().map(|a| a.as_bytes().to_vec()).collect::<Vec<_>>()));
    // A big index (past the listpack limit): a skiplist-encoded set scans the same way.
    cases.push(args!["DEL", "big"]);
    let mut add = args!["GEOADD", "big"];
    for i in 0..300 {
        let (lon, lat) = (-170.0 + (i as f64) * 1.13, -80.0 + ((i * 37) % 160) as f64 + 0.25);
        add.extend(args![format!("{lon:.5}"), format!("{lat:.5}"), format!("p{i}")]);
    }
    cases.push(add);
    cases.extend([
        args!["OBJECT", "ENCODING", "big"],
        args!["GEOSEARCH", "big", "FROMLONLAT", "0", "0", "BYRADIUS", "3000", "km", "WITHDIST"],
        args!["GEOSEARCH", "big", "FROMLONLAT", "10", "60", "BYBOX", "5000", "2000", "km", "ASC", "WITHCOORD"],
        args!["GEOSEARCH", "big", "FROMMEMBER", "p10", "BYRADIUS", "20000", "km", "COUNT", "7", "ANY"],
        args!["GEOSEARCH", "big", "FROMMEMBER", "p10", "BYRADIUS", "20000", "km", "COUNT", "7"],
        args!["GEOSEARCHSTORE", "bigd", "big", "FROMMEMBER", "p10", "BYRADIUS", "5000", "km", "STOREDIST"],
        args!["ZRANGE", "bigd", "0", "-1", "WITHSCORES"],
        args!["OBJECT", "ENCODING", "bigd"],
    ]);
    cases
}

const GEO_KEYS: &[&[u8]] = &[b"geo:1", b"geo:1", b"geo:2", b"geo:2", GEO_STRING, b"missing"];
const GEO_STRING: &[u8] = b"a string";
const MEMBERS: &[&[u8]] = &[b"m0", b"m1", b"m2", b"m3", b"m4", b"m5", b"m6", b"m7", b"", b"two words"];
const UNITS: &[&str] = &["m", "km", "ft", "mi", "KM", "M", "yd"];

impl Gen {
    fn gkey(&mut self) -> Vec<u8> {
        self.pick(GEO_KEYS).to_vec()
    }

    fn geo_member(&mut self) -> Vec<u8> {
        self.pick(MEMBERS).to_vec()
    }

    /// A longitude, latitude pair: mostly in one region (so searches find things), some at
    /// the poles' limits and the antimeridian, a few invalid.
    fn point(&mut self) -> [Vec<u8>; 2] {
        let (lon, lat): (f64, f64) = match self.rng.gen_range(0..20) {
            0..=13 => (self.rng.gen_range(5.0..25.0), self.rng.gen_range(35.0..50.0)),
            14 => (self.rng.gen_range(179.0..=180.0), self.rng.gen_range(-10.0..10.0)),
            15 => (self.rng.gen_range(-180.0..-179.0), self.rng.gen_range(-10.0..10.0)),
            16 => (self.rng.gen_range(-180.0..180.0), self.rng.gen_range(84.0..85.05112878)),
            17 => (self.rng.gen_range(-180.0..180.0), self.rng.gen_range(-85.05112878..-84.0)),
            18 => (self.rng.gen_range(-180.0..180.0), self.rng.gen_range(-85.0..85.0)),
            _ => {
                let bad: &[[&str; 2]] = &[["181", "0"], ["0", "86"], ["x", "0"], ["0", ""], ["-180.1", "-85.1"]];
                let [a, b] = self.pick(bad);
                return [a.into(), b.into()];
            }
        };
        [format!("{lon:.6}").into_bytes(), format!("{lat:.6}").into_bytes()]
    }

    fn unit(&mut self) -> Vec<u8> {
        let u = self.pick(UNITS);
        u.as_bytes().to_vec()
    }

    /// A radius: mostly tens to thousands of km in km or m, a few zero or negative.
    fn radius(&mut self) -> Vec<Vec<u8>> {
        let unit = self.unit();
        let km: f64 = match self.rng.gen_range(0..10) {
            0 => 0.0,
            1 => self.rng.gen_range(0.0..1.0),
            2 => self.rng.gen_range(3000.0..25000.0),
            3 if self.chance(30) => -1.0,
            _ => self.rng.gen_range(10.0..1500.0),
        };
        let factor = match unit.to_ascii_lowercase().as_slice() {
            b"m" => 1000.0,
            b"ft" => 3280.84,
            b"mi" => 0.621371,
            _ => 1.0,
        };
        vec![format!("{:.3}", km * factor).into_bytes(), unit]
    }

    /// The options every search takes, in random order: sorting, COUNT [ANY], WITH*.
    fn search_options(&mut self, with: bool) -> Vec<Vec<u8>> {
        let mut opts: Vec<Vec<Vec<u8>>> = Vec::new();
        if self.chance(40) {
            let s = if self.chance(50) { "ASC" } else { "DESC" };
            opts.push(vec![self.casing(s)]);
        }
        if self.chance(35) {
            let mut c = vec![self.casing("COUNT"), self.int(0..6)];
            if self.chance(40) {
                c.push(self.casing("ANY"));
            }
            opts.push(c);
        } else if self.chance(3) {
            opts.push(vec![self.casing("ANY")]);
        }
        if with {
            for w in ["WITHDIST", "WITHCOORD", "WITHHASH"] {
                if self.chance(35) {
                    opts.push(vec![self.casing(w)]);
                }
            }
        }
        for i in (1..opts.len()).rev() {
            let j = self.rng.gen_range(0..=i);
            opts.swap(i, j);
        }
        opts.concat()
    }

    /// GEOSEARCH's centre and area.
    fn search_area(&mut self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if self.chance(50) {
            out.extend([self.casing("FROMMEMBER"), self.geo_member()]);
        } else {
            out.push(self.casing("FROMLONLAT"));
            out.extend(self.point());
        }
        if self.chance(50) {
            out.push(self.casing("BYRADIUS"));
            out.extend(self.radius());
        } else {
            out.push(self.casing("BYBOX"));
            let [w, unit] = <[Vec<u8>; 2]>::try_from(self.radius()).expect("two");
            let [h, _] = <[Vec<u8>; 2]>::try_from(self.radius()).expect("two");
            out.extend([w, h, unit]);
        }
        out
    }
}

/// Every operation of the geo test, with its relative weight.
const GEO_OPS: &[(u32, FamilyOp)] = &[
    (100, |g| {
        let mut argv = vec![g.gkey()];
        if g.chance(15) {
            let word = if g.chance(50) { "NX" } else { "XX" };
            argv.push(g.casing(word));
        }
        if g.chance(15) {
            argv.push(g.casing("CH"));
        }
        for _ in 0..g.rng.gen_range(1..4) {
            argv.extend(g.point());
            argv.push(g.geo_member());
        }
        g.exact("GEOADD", argv)
    }),
    (70, |g| {
        let mut argv = vec![g.gkey()];
        argv.extend(g.search_area());
        argv.extend(g.search_options(true));
        g.exact("GEOSEARCH", argv)
    }),
    (25, |g| {
        let mut argv = vec![g.gkey(), g.gkey()];
        argv.extend(g.search_area());
        argv.extend(g.search_options(false));
        if g.chance(40) {
            argv.push(g.casing("STOREDIST"));
        }
        let dst = argv[0].clone();
        let mut steps = g.exact("GEOSEARCHSTORE", argv);
        steps.push(Step::Call(args!["ZRANGE", dst, "0", "-1", "WITHSCORES"], Check::Exact));
        steps
    }),
    (30, |g| {
        let by_member = g.chance(50);
        let ro = g.chance(30);
        let mut argv = vec![g.gkey()];
        if by_member {
            argv.push(g.geo_member());
        } else {
            argv.extend(g.point());
        }
        argv.extend(g.radius());
        let store = !ro && g.chance(30);
        argv.extend(g.search_options(!store));
        let dst = g.gkey();
        if store {
            let word = if g.chance(50) { "STORE" } else { "STOREDIST" };
            argv.extend([g.casing(word), dst.clone()]);
        }
        let name = match (by_member, ro) {
            (false, false) => "GEORADIUS",
            (false, true) => "GEORADIUS_RO",
            (true, false) => "GEORADIUSBYMEMBER",
            (true, true) => "GEORADIUSBYMEMBER_RO",
        };
        let mut steps = g.exact(name, argv);
        if store {
            steps.push(Step::Call(args!["ZRANGE", dst, "0", "-1", "WITHSCORES"], Check::Exact));
        }
        steps
    }),
    (30, |g| {
        let mut argv = vec![g.gkey()];
        for _ in 0..g.rng.gen_range(0..4) {
            argv.push(g.geo_member());
        }
        let name = if g.chance(50) { "GEOPOS" } else { "GEOHASH" };
        g.exact(name, argv)
    }),
    (20, |g| {
        let mut argv = vec![g.gkey(), g.geo_member(), g.geo_member()];
        if g.chance(60) {
            argv.push(g.unit());
        }
        g.exact("GEODIST", argv)
    }),
    (10, |g| {
        let argv = vec![g.gkey(), g.geo_member(), g.geo_member()];
        g.exact("ZREM", argv)
    }),
];
