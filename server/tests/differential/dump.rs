//! DUMP and RESTORE across servers: seeded random values of every type (small and large
//! encodings, integers, LZF-compressible strings, streams with deleted entries, groups, PELs
//! and consumers) are built the same way in both; each key is DUMPed from redis-server and
//! RESTOREd into Vitrine, and DUMPed from Vitrine and RESTOREd into redis-server, and the
//! restored key must read back as the original does. Where Redis's bytes are deterministic
//! (no hash table order, no stream tombstones) Vitrine's DUMP must be the same bytes. Edge
//! cases: damaged payloads (checksum, version, truncation, bad bodies) get the same errors.
//!
//! Deliberate differences: Vitrine always sanitizes payloads deeply; redis-server is told to
//! (`sanitize-dump-payload yes`), and Vitrine checks more still (a compact sorted set's score
//! that is not a number, which Redis reads as 0; a stream entry past the last ID), so a
//! changed body may be refused by Vitrine alone, never the reverse. Vitrine reads RDB
//! versions up to 12 (Redis 7.4's), redis-server 7.0 up to 10: versions past 12 are sent.

use rand::Rng;

use crate::harness::*;

/// A key's contents, read with its type's commands (sets sorted, streams without times).
fn contents(c: &mut Conn, key: &[u8]) -> Vec<Resp> {
    let mut call = |argv: Vec<Vec<u8>>| c.call(&argv).expect("reply");
    let kind = call(args!["TYPE", key]);
    let mut out = vec![kind.clone()];
    let Resp::Status(kind) = kind else { return out };
    match kind.as_slice() {
        b"string" => out.push(call(args!["GET", key])),
        b"list" => out.push(call(args!["LRANGE", key, "0", "-1"])),
        b"set" => match call(args!["SMEMBERS", key]) {
            Resp::Array(mut m) => {
                m.sort();
                out.push(Resp::Array(m))
            }
            other => out.push(other),
        },
        b"zset" => out.push(call(args!["ZRANGE", key, "0", "-1", "WITHSCORES"])),
        b"hash" => match call(args!["HGETALL", key]) {
            Resp::Array(items) => {
                let mut pairs: Vec<Vec<Resp>> = items.chunks(2).map(<[Resp]>::to_vec).collect();
                pairs.sort();
                out.push(Resp::Array(pairs.into_iter().flatten().collect()))
            }
            other => out.push(other),
        },
        _ => {
            out.push(call(args!["XRANGE", key, "-", "+"]));
            out.push(call(args!["XLEN", key]));
            let groups = call(args!["XINFO", "GROUPS", key]);
            if let Resp::Array(gs) = &groups {
                for g in gs {
                    if let Resp::Array(fields) = g {
                        out.push(call(args!["XPENDING", key, fields[1].bulk()]));
                    }
                }
            }
            out.push(groups);
        }
    }
    out
}

impl Resp {
    fn bulk(&self) -> Vec<u8> {
        match self {
            Resp::Bulk(b) => b.clone(),
            other => panic!("not a bulk: {other:?}"),
        }
    }
}

/// Commands that build one key of a random type and size in both servers; whether its DUMP
/// is deterministic (the same bytes from both).
fn build(g: &mut Gen, key: &str) -> (Vec<Vec<Vec<u8>>>, bool) {
    let big = g.chance(30);
    let n = if big { g.rng.gen_range(130..700) } else { g.rng.gen_range(1..20) };
    let member = |g: &mut Gen, i: usize| -> Vec<u8> {
        let mut m = g.value();
        m.extend(format!("#{i}").into_bytes());
        m
    };
    match g.rng.gen_range(0..6) {
        0 => {
            let v = match g.rng.gen_range(0..4) {
                0 => g.value(),
                1 => "abcd".repeat(g.rng.gen_range(5..300)).into_bytes(),
                2 => g.rng.gen::<i64>().to_string().into_bytes(),
                _ => g.rng.gen_range(-100_000i64..100_000).to_string().into_bytes(),
            };
            (vec![args!["SET", key, v]], true)
        }
        1 => {
            let mut argv = args!["RPUSH", key];
            argv.extend((0..n).map(|_| if g.chance(50) { g.value() } else { "x".repeat(300).into_bytes() }));
            (vec![argv], true)
        }
        2 => {
            let ints = g.chance(50);
            let mut argv = args!["SADD", key];
            argv.extend((0..n).map(|i| {
                if ints {
                    (i as i64 * 7919 - 5000).to_string().into_bytes()
                } else {
                    member(g, i)
                }
            }));
            (vec![argv], ints && n <= 512)
        }
        3 => {
            let mut argv = args!["ZADD", key];
            for i in 0..n {
                argv.push(g.float());
                argv.push(member(g, i));
            }
            // Scores the generator makes may be invalid: then both refuse it alike. A member
            // past 64 bytes makes a skiplist, whose DUMP order is Redis's own.
            let small = !big && argv.iter().skip(2).all(|a| a.len() <= 64);
            (vec![argv], small)
        }
        4 => {
            let mut argv = args!["HSET", key];
            for i in 0..n {
                argv.push(member(g, i));
                argv.push(g.value());
            }
            // Past 64 bytes a hash is a hash table, in Redis's own order.
            let small = !big && argv.iter().skip(2).all(|a| a.len() <= 64);
            (vec![argv], small)
        }
        _ => {
            // Enough entries that both consumers get some (Redis 7.0 creates no consumer for
            // a read that finds nothing; Vitrine does, a difference of XREADGROUP's own).
            let n = n.max(12);
            let mut cmds = Vec::new();
            for i in 0..n {
                let f = if g.chance(20) { "other" } else { "f" };
                cmds.push(args!["XADD", key, format!("{}-{}", 1000 + i / 2, i % 2), f, g.value(), "g", "1"]);
            }
            let deletes = g.chance(50);
            if deletes {
                cmds.push(args!["XDEL", key, "1000-1", format!("{}-0", 1000 + n / 4)]);
            }
            cmds.push(args!["XGROUP", "CREATE", key, "g1", "0"]);
            cmds.push(args!["XREADGROUP", "GROUP", "g1", "alice", "COUNT", "3", "STREAMS", key, ">"]);
            cmds.push(args!["XREADGROUP", "GROUP", "g1", "bob", "COUNT", "2", "STREAMS", key, ">"]);
            cmds.push(args!["XGROUP", "CREATE", key, "g2", "$"]);
            (cmds, false)
        }
    }
}

fn restore(c: &mut Conn, key: &[u8], payload: Vec<u8>) -> Resp {
    c.call(&args!["RESTORE", key, "0", payload, "REPLACE"]).expect("reply")
}

#[test]
fn dump_restore_both_ways() {
    let Some(servers) = Servers::start_or_skip("dump_restore_both_ways") else { return };
    let mut p = servers.peers();
    for seed in seeds() {
        let mut g = Gen::new(seed ^ 0xd0_0d);
        for c in [&mut p.vitrine, &mut p.redis] {
            c.call(&args!["FLUSHALL"]).expect("flush");
        }
        for k in 0..12 {
            let key = format!("k{k}");
            let (cmds, deterministic) = build(&mut g, &key);
            for argv in &cmds {
                let (v, r) = (p.vitrine.call(argv).expect("vitrine"), p.redis.call(argv).expect("redis"));
                assert_eq!(v, r, "seed {seed}: {}", show_argv(argv));
            }
            let dump = |c: &mut Conn| match c.call(&args!["DUMP", key.as_str()]).expect("reply") {
                Resp::Bulk(b) => Some(b),
                _ => None,
            };
            let (Some(from_redis), Some(from_vitrine)) = (dump(&mut p.redis), dump(&mut p.vitrine)) else {
                continue;
            };
            if deterministic {
                assert_eq!(from_vitrine, from_redis, "seed {seed}: DUMP {key} bytes after {}", show_argv(&cmds[0]));
            }
            let copy = format!("{key}:copy");
            // Redis's payload into Vitrine, and Vitrine's into Redis.
            assert_eq!(
                restore(&mut p.vitrine, copy.as_bytes(), from_redis),
                Resp::Status(b"OK".to_vec()),
                "seed {seed}: {key}"
            );
            assert_eq!(
                restore(&mut p.redis, copy.as_bytes(), from_vitrine),
                Resp::Status(b"OK".to_vec()),
                "seed {seed}: {key}"
            );
            let original = contents(&mut p.redis, key.as_bytes());
            assert_eq!(contents(&mut p.vitrine, copy.as_bytes()), original, "seed {seed}: {key} from Redis");
            assert_eq!(contents(&mut p.redis, copy.as_bytes()), original, "seed {seed}: {key} from Vitrine");
        }
    }
}

#[test]
fn damaged_payloads_get_the_same_errors() {
    let Some(servers) = Servers::start_or_skip("damaged_payloads_get_the_same_errors") else { return };
    let mut p = servers.peers();
    p.redis.call(&args!["CONFIG", "SET", "sanitize-dump-payload", "yes"]).expect("config");
    let mut setup: Vec<Vec<Vec<u8>>> = vec![
        args!["SET", "s", "hello world hello world hello world"],
        args!["RPUSH", "l", "a", "b", "3"],
        args!["SADD", "i", "1", "2", "3"],
        args!["ZADD", "z", "1", "a", "2", "b"],
        args!["HSET", "h", "f", "v"],
        args!["XADD", "x", "1-1", "f", "v"],
    ];
    setup.push(args!["XGROUP", "CREATE", "x", "g", "0"]);
    setup.push(args!["XREADGROUP", "GROUP", "g", "c", "STREAMS", "x", ">"]);
    for argv in &setup {
        p.redis.call(argv).expect("redis");
    }
    let crc = |body: &[u8]| -> Vec<u8> {
        let mut p = body.to_vec();
        p.extend(vitrine_engine::rdb::codec::crc64(&p).to_le_bytes());
        p
    };
    let mut payloads: Vec<Vec<u8>> = vec![b"".to_vec(), b"x".to_vec(), vec![0; 10], b"\x00\x01a\x0a\x00".to_vec()];
    let mut changed: Vec<Vec<u8>> = Vec::new();
    for key in ["s", "l", "i", "z", "h", "x"] {
        let Resp::Bulk(good) = p.redis.call(&args!["DUMP", key]).expect("dump") else { panic!("no {key}") };
        let body_len = good.len() - 10;
        let mut flipped = good.clone();
        flipped[body_len / 2] ^= 0x20;
        payloads.push(flipped);
        payloads.push(good[..good.len() - 1].to_vec());
        // A newer RDB version with a right checksum (Vitrine reads up to 12, Redis 7.4's).
        for version in [13u16, 0xFFFF] {
            let mut newer = good[..body_len].to_vec();
            newer.extend(version.to_le_bytes());
            payloads.push(crc(&newer));
        }
        // Bodies cut short, or with a byte changed, under a right checksum.
        for cut in [1, body_len / 2, body_len - 1] {
            let mut body = good[..cut].to_vec();
            body.extend(10u16.to_le_bytes());
            payloads.push(crc(&body));
        }
        for at in [0, 1, 2, body_len / 3, body_len - 2] {
            let mut body = good[..body_len + 2].to_vec();
            body[at] = body[at].wrapping_add(1);
            changed.push(crc(&body));
        }
    }
    // A type that does not exist, and a module value.
    payloads.push(crc(b"\x63\x00\x0a\x00"));
    payloads.push(crc(b"\x07\x00\x0a\x00"));
    for (i, payload) in payloads.into_iter().enumerate() {
        let argv = args!["RESTORE", format!("r{i}"), "0", payload];
        let (v, r) = (p.vitrine.call(&argv).expect("vitrine"), p.redis.call(&argv).expect("redis"));
        assert_eq!(v, r, "payload {i}: {}", show_argv(&argv));
    }
    // A changed byte under a right checksum: Vitrine checks more than Redis's sanitization
    // (an entry ID past the stream's last ID, a score that is not a number), so it may refuse
    // what Redis takes, never the other way round, and always with Redis's error text.
    let ok = Resp::Status(b"OK".to_vec());
    for (i, payload) in changed.into_iter().enumerate() {
        let argv = args!["RESTORE", format!("c{i}"), "0", payload];
        let (v, r) = (p.vitrine.call(&argv).expect("vitrine"), p.redis.call(&argv).expect("redis"));
        if v == ok {
            assert_eq!(r, ok, "changed {i}: Vitrine took what Redis refused: {}", show_argv(&argv));
            let read = |c: &mut Conn| contents(c, format!("c{i}").as_bytes());
            assert_eq!(read(&mut p.vitrine), read(&mut p.redis), "changed {i}");
        } else if r != ok {
            assert_eq!(v, r, "changed {i}: {}", show_argv(&argv));
        } else {
            assert_eq!(v, Resp::Error(b"ERR Bad data format".to_vec()), "changed {i}");
        }
    }
}
