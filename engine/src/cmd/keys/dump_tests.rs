//! DUMP and RESTORE: every type round-trips with its encoding and accounted memory, Redis's
//! errors, TTLs and how they are logged, IDLETIME / FREQ, events, and payloads of
//! redis-server 7.0 (captured from it) restoring here byte for byte.

use crate::rdb::codec::crc64;
use crate::testing::{drain_log, err, int, nil, ok, TestEngine, NOT_INT, SYNTAX};
use crate::Reply;

fn dump(t: &mut TestEngine, key: &str) -> Vec<u8> {
    match t.run(&["DUMP", key]) {
        Reply::Bulk(b) => b.to_vec(),
        other => panic!("DUMP {key}: {other:?}"),
    }
}

fn restore(t: &mut TestEngine, key: &str, ttl: &str, payload: &[u8], opts: &[&str]) -> Reply {
    let mut argv: Vec<Vec<u8>> = vec![b"RESTORE".to_vec(), key.into(), ttl.into(), payload.to_vec()];
    argv.extend(opts.iter().map(|o| o.as_bytes().to_vec()));
    t.run(&argv)
}

/// What a key holds, read with the type's own commands (order-insensitive for sets).
fn contents(t: &mut TestEngine, key: &str) -> Vec<Reply> {
    let kind = t.run(&["TYPE", key]);
    let mut out = vec![kind.clone(), t.run(&["OBJECT", "ENCODING", key])];
    let Reply::Status(kind) = kind else { panic!("{kind:?}") };
    out.push(match kind.as_ref() {
        "string" => t.run(&["GET", key]),
        "list" => t.run(&["LRANGE", key, "0", "-1"]),
        "set" => match t.run(&["SMEMBERS", key]) {
            Reply::Set(mut m) | Reply::Array(mut m) => {
                m.sort_by_key(|r| format!("{r:?}"));
                Reply::Array(m)
            }
            other => other,
        },
        "zset" => t.run(&["ZRANGE", key, "0", "-1", "WITHSCORES"]),
        "hash" => t.run(&["HGETALL", key]),
        _ => Reply::Array(vec![t.run(&["XRANGE", key, "-", "+"]), t.run(&["XINFO", "STREAM", key, "FULL"])]),
    });
    out
}

/// Builds one key of each type and encoding.
fn build_all(t: &mut TestEngine) -> Vec<&'static str> {
    let long: Vec<String> = (0..600).map(|i| format!("element-{i}-{}", "x".repeat(i % 40))).collect();
    let mut cmds: Vec<Vec<String>> = vec![
        vec!["SET".into(), "str".into(), "hello".into()],
        vec!["SET".into(), "int".into(), "-123456".into()],
        vec!["SET".into(), "bigint".into(), "9223372036854775807".into()],
        vec!["SET".into(), "lzf".into(), "abc".repeat(50)],
        vec!["SET".into(), "empty".into(), "".into()],
        vec!["RPUSH".into(), "list".into(), "a".into(), "1".into(), "-70000".into()],
        vec!["SADD".into(), "intset".into(), "3".into(), "1".into(), "-2".into()],
        vec!["SADD".into(), "set".into(), "a".into(), "b".into()],
        vec!["ZADD".into(), "zset".into(), "1.5".into(), "a".into(), "-inf".into(), "b".into(), "3".into(), "c".into()],
        vec!["HSET".into(), "hash".into(), "f".into(), "v".into(), "n".into(), "7".into()],
    ];
    let mut big_list = vec!["RPUSH".to_string(), "biglist".into()];
    big_list.extend(long.iter().cloned());
    let mut big_set = vec!["SADD".to_string(), "bigset".into()];
    big_set.extend(long.iter().cloned());
    let mut big_zset = vec!["ZADD".to_string(), "bigzset".into()];
    let mut big_hash = vec!["HSET".to_string(), "bighash".into()];
    for (i, m) in long.iter().enumerate() {
        big_zset.extend([format!("{}", i as f64 / 3.0), m.clone()]);
        big_hash.extend([m.clone(), i.to_string()]);
    }
    cmds.extend([big_list, big_set, big_zset, big_hash]);
    for c in &cmds {
        assert!(!t.run(c).is_error(), "{c:?}");
    }
    for i in 0..230 {
        let f = if i % 7 == 0 { "other" } else { "f" };
        t.run(&["XADD", "stream", &format!("{}-{}", 1000 + i / 3, i % 3), f, &i.to_string(), "g", "x"]);
    }
    t.run(&["XDEL", "stream", "1000-1", "1050-0"]);
    t.run(&["XGROUP", "CREATE", "stream", "g1", "0"]);
    t.run(&["XREADGROUP", "GROUP", "g1", "alice", "COUNT", "4", "STREAMS", "stream", ">"]);
    t.run(&["XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", "stream", ">"]);
    // A consumer with an empty PEL (Redis 7.0's format has no active time: it restores as
    // the seen time, so carol has read once).
    t.run(&["XREADGROUP", "GROUP", "g1", "carol", "COUNT", "1", "STREAMS", "stream", ">"]);
    t.run(&["XACK", "stream", "g1", "1002-2"]);
    t.run(&["XGROUP", "CREATE", "stream", "g2", "$"]);
    t.run(&["XADD", "emptystream", "5-5", "f", "v"]);
    t.run(&["XDEL", "emptystream", "5-5"]);
    vec![
        "str",
        "int",
        "bigint",
        "lzf",
        "empty",
        "list",
        "intset",
        "set",
        "zset",
        "hash",
        "biglist",
        "bigset",
        "bigzset",
        "bighash",
        "stream",
        "emptystream",
    ]
}

#[test]
fn every_type_round_trips_with_its_encoding_and_memory() {
    let mut t = TestEngine::default();
    let keys = build_all(&mut t);
    for key in keys {
        let p = dump(&mut t, key);
        let before = contents(&mut t, key);
        let size = t.run(&["MEMORY", "USAGE", key]);
        // Restored under another name, then over the original.
        assert_eq!(restore(&mut t, "copy", "0", &p, &[]), ok(), "{key}");
        let after = contents(&mut t, "copy");
        if after != before {
            let (a, b) = (format!("{before:?}"), format!("{after:?}"));
            let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(0);
            panic!(
                "{key}: differs at {at}: {} vs {}",
                &a[at.saturating_sub(200)..(at + 100).min(a.len())],
                &b[at.saturating_sub(200)..(at + 100).min(b.len())]
            );
        }
        assert_eq!(dump(&mut t, "copy"), p, "{key}: a second DUMP is the same bytes");
        let used = t.used_memory();
        t.run(&["DEL", key]);
        assert_eq!(restore(&mut t, key, "0", &p, &[]), ok());
        assert_eq!(t.run(&["MEMORY", "USAGE", key]), size, "{key}: restored memory as built");
        assert_eq!(t.used_memory(), used, "{key}");
        t.run(&["DEL", "copy"]);
    }
    t.run(&["FLUSHALL"]);
    assert_eq!(t.used_memory(), 0);
}

#[test]
fn errors_are_redis_texts() {
    let mut t = TestEngine::default();
    t.run(&["SET", "k", "v"]);
    let p = dump(&mut t, "k");
    assert_eq!(t.run(&["DUMP", "missing"]), nil());
    assert_eq!(restore(&mut t, "k", "0", &p, &[]), err("BUSYKEY Target key name already exists."));
    assert_eq!(restore(&mut t, "n", "-1", &p, &[]), err("ERR Invalid TTL value, must be >= 0"));
    assert_eq!(restore(&mut t, "n", "x", &p, &[]), err(NOT_INT));
    assert_eq!(restore(&mut t, "n", "0", &p, &["IDLETIME", "-1"]), err("ERR Invalid IDLETIME value, must be >= 0"));
    assert_eq!(restore(&mut t, "n", "0", &p, &["FREQ", "256"]), err("ERR Invalid FREQ value, must be >= 0 and <= 255"));
    assert_eq!(restore(&mut t, "n", "0", &p, &["FREQ", "x"]), err(NOT_INT));
    assert_eq!(restore(&mut t, "n", "0", &p, &["IDLETIME", "1", "FREQ", "1"]), err(SYNTAX));
    assert_eq!(restore(&mut t, "n", "0", &p, &["IDLETIME"]), err(SYNTAX));
    assert_eq!(restore(&mut t, "n", "0", &p, &["NOPE"]), err(SYNTAX));
    let wrong = "ERR DUMP payload version or checksum are wrong";
    let mut bad = p.clone();
    bad[1] ^= 1;
    assert_eq!(restore(&mut t, "n", "0", &bad, &[]), err(wrong));
    assert_eq!(restore(&mut t, "n", "0", b"short", &[]), err(wrong));
    // Version 13, with a right checksum.
    let mut newer = p[..p.len() - 10].to_vec();
    newer.extend(13u16.to_le_bytes());
    let crc = crc64(&newer);
    newer.extend(crc.to_le_bytes());
    assert_eq!(restore(&mut t, "n", "0", &newer, &[]), err(wrong));
    // Right checksum, bad body: a type that does not exist, a cut string.
    for body in [&[99u8, 0][..], &[0, 5, b'a']] {
        let mut p = body.to_vec();
        p.extend(10u16.to_le_bytes());
        let crc = crc64(&p);
        p.extend(crc.to_le_bytes());
        assert_eq!(restore(&mut t, "n", "0", &p, &[]), err("ERR Bad data format"));
    }
    assert_eq!(t.run(&["EXISTS", "n"]), int(0));
}

#[test]
fn ttls_replace_and_the_log() {
    let mut t = TestEngine::default();
    t.engine.propagation().set_enabled(true);
    t.run(&["SET", "k", "v"]);
    let p = dump(&mut t, "k");
    drain_log(&t);
    assert_eq!(restore(&mut t, "a", "5000", &p, &[]), ok());
    assert_eq!(t.run(&["PTTL", "a"]), int(5000));
    let at = (t.now + 5000).to_string();
    let log = drain_log(&t);
    let text = String::from_utf8_lossy(&p).into_owned();
    assert_eq!(log.last(), Some(&format!("RESTORE a {at} {text} ABSTTL")));
    assert_eq!(restore(&mut t, "b", &at, &p, &["ABSTTL"]), ok());
    assert_eq!(t.run(&["PEXPIRETIME", "b"]), int(t.now as i64 + 5000));
    // Already expired: nothing is created; a replaced key is deleted, and logged so.
    assert_eq!(restore(&mut t, "c", "1", &p, &["ABSTTL"]), ok());
    assert_eq!(t.run(&["EXISTS", "c"]), int(0));
    drain_log(&t);
    assert_eq!(restore(&mut t, "a", "1", &p, &["ABSTTL", "REPLACE"]), ok());
    assert_eq!(t.run(&["EXISTS", "a"]), int(0));
    assert_eq!(drain_log(&t), ["DEL a"]);
    t.run(&["RPUSH", "l", "x"]);
    assert_eq!(restore(&mut t, "l", "0", &p, &["REPLACE"]), ok());
    assert_eq!(t.run(&["GET", "l"]), Reply::Bulk(b"v".to_vec().into()));
}

#[test]
fn idletime_and_freq_set_what_object_reports() {
    let mut t = TestEngine::default();
    t.run(&["SET", "k", "v"]);
    let p = dump(&mut t, "k");
    assert_eq!(restore(&mut t, "i", "0", &p, &["IDLETIME", "1000", "FREQ"]), err(SYNTAX));
    assert_eq!(restore(&mut t, "i", "0", &p, &["IDLETIME", "1000"]), ok());
    assert_eq!(t.run(&["OBJECT", "IDLETIME", "i"]), int(1000));
    // FREQ is ignored under an LRU policy, IDLETIME under an LFU one, as in Redis.
    assert_eq!(t.run(&["CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"]), ok());
    assert_eq!(restore(&mut t, "f", "0", &p, &["FREQ", "100"]), ok());
    assert_eq!(t.run(&["OBJECT", "FREQ", "f"]), int(100));
    assert_eq!(restore(&mut t, "g", "0", &p, &["IDLETIME", "5"]), ok());
    assert_eq!(t.run(&["OBJECT", "FREQ", "g"]), int(5));
}

#[test]
fn events_are_restore_and_new_on_replace() {
    let mut t = TestEngine::default();
    t.run(&["CONFIG", "SET", "notify-keyspace-events", "KEAn"]);
    t.run(&["SET", "k", "v"]);
    let p = dump(&mut t, "k");
    let after = t.engine.notifier.last_seq();
    restore(&mut t, "k", "0", &p, &["REPLACE"]);
    let events: Vec<String> = t.engine.notifier.since(after, 10).iter().map(|e| e.event.to_string()).collect();
    assert_eq!(events, ["new", "restore"]);
}

#[test]
fn redis_payloads_restore_byte_for_byte() {
    // DUMPs taken from redis-server 7.0.15: SET s hello; RPUSH l a 1; ZADD z 1.5 m;
    // HSET h f v; SADD i 1 2; XADD x 1-1 f v + XGROUP CREATE x g 0.
    let cases: &[(&[u8], &str)] = &[
        (b"\x00\x05\x68\x65\x6c\x6c\x6f\x0a\x00\x63\x72\xdf\x76\x65\x34\x20\x0a", "string"),
        (b"\x12\x01\x02\x0c\x0c\x00\x00\x00\x02\x00\x81\x61\x02\x01\x01\xff\x0a\x00\x94\x96\x2b\x23\xac\x17\xaa\x85", "list"),
        (b"\x11\x0f\x0f\x00\x00\x00\x02\x00\x81\x6d\x02\x83\x31\x2e\x35\x04\xff\x0a\x00\x49\xd9\x87\x60\x78\x25\x4e\x8a", "zset"),
        (b"\x10\x0d\x0d\x00\x00\x00\x02\x00\x81\x66\x02\x81\x76\x02\xff\x0a\x00\x20\xf1\x3d\x44\x23\x54\x08\x9d", "hash"),
        (b"\x0b\x0c\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x02\x00\x0a\x00\x6f\x79\x38\xb1\x34\xeb\x20\x2e", "set"),
        (b"\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x1d\x1d\x00\x00\x00\x0a\x00\x01\x01\x00\x01\x01\x01\x81\x66\x02\x00\x01\x02\x01\x00\x01\x00\x01\x81\x76\x02\x04\x01\xff\x01\x01\x01\x01\x01\x00\x00\x01\x01\x01\x67\x00\x00\x81\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x0a\x00\xff\x9a\xd3\x4b\x48\xb2\x68\xce", "stream"),
    ];
    let mut t = TestEngine::default();
    for (p, kind) in cases {
        assert_eq!(restore(&mut t, "k", "0", p, &["REPLACE"]), ok(), "{kind}");
        assert_eq!(t.run(&["TYPE", "k"]), Reply::Status((*kind).into()));
        assert_eq!(dump(&mut t, "k"), p.to_vec(), "{kind}: DUMP gives Redis's bytes back");
    }
    assert_eq!(t.run(&["XINFO", "GROUPS", "k"]).to_resp(false).len() > 10, true);
    assert_eq!(t.run(&["LRANGE", "k", "0", "-1"]).is_error(), true);
}

#[test]
fn engine_level_dump_and_restore() {
    let mut t = TestEngine::default();
    t.run(&["HSET", "h", "a", "1"]);
    let p = t.engine.dump_key(0, b"h", t.now).expect("exists");
    assert_eq!(t.engine.dump_key(0, b"missing", t.now), None);
    let now = t.now;
    let mut s = t.engine.new_session("admin", "api", now);
    assert_eq!(t.engine.restore_key(&mut s, 3, b"h", &p, now + 1000, false, now), Ok(()));
    assert_eq!(
        t.engine.restore_key(&mut s, 3, b"h", &p, 0, false, now),
        Err("BUSYKEY Target key name already exists.".into())
    );
    assert_eq!(t.engine.restore_key(&mut s, 3, b"h", &p, 0, true, now), Ok(()));
    assert_eq!(s.db, 0);
    t.run(&["SELECT", "3"]);
    assert_eq!(t.run(&["HGET", "h", "a"]), Reply::Bulk(b"1".to_vec().into()));
}
