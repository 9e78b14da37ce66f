//! CONFIG GET and CONFIG SET of every parameter redis-server 7.0 knows: the same defaults, the
//! same answers to bad values (Redis's validation texts), and OBJECT ENCODING after the
//! encoding thresholds are changed with CONFIG SET.
//!
//! Deliberate differences:
//! - Defaults Vitrine sets by design, or that describe the process rather than the cache
//!   (`DEFAULT_DIFFERENCES`): the port and directory of each server, `hash-max-listpack-entries`
//!   (128 as in the redis.conf Redis ships; 512 compiled in), `appendonly`/`save`/
//!   `protected-mode` (the harness starts redis-server with its own flags), `maxclients`
//!   (each process's open-files limit).
//! - Parameters CONFIG SET must not be sent to redis-server, or that Vitrine decides at start-up
//!   only (`SET_SKIPPED`): `port`, `bind`, `appendonly` (immutable in Vitrine), `requirepass`
//!   (would lock the connection), `loglevel` (Redis 7.2 adds `nothing` to its error text).
//! - Redis 7.0 keeps lists as quicklists and sets of strings as hashtables (7.2's listpack
//!   lists and sets are Vitrine's): encodings are compared for hashes, sorted sets and
//!   integer sets only.
//! - Redis 7.2 converts a hash at once when HSET brings more pairs than
//!   `hash-max-listpack-entries`, even pairs that repeat a field; 7.0 counts fields. Vitrine
//!   does as 7.2 (a unit test in engine/src/cmd/config.rs), so HSET never repeats a field here.

use crate::harness::*;

/// Parameters whose defaults differ by design (see the module docs).
const DEFAULT_DIFFERENCES: &[&str] = &[
    "port",
    "dir",
    "bind",
    "hash-max-listpack-entries",
    "hash-max-ziplist-entries",
    "appendonly",
    "save",
    "protected-mode",
    "maxclients",
];

/// Parameters CONFIG SET is not compared for (see the module docs).
const SET_SKIPPED: &[&str] = &["port", "bind", "appendonly", "requirepass", "loglevel"];

/// Values no parameter takes, or that a bound refuses, of every type.
const BAD_VALUES: &[&str] = &["x", "-1", "1.5", "99999999999999999999", "-99999999999999999999", "maybe", "1x"];

fn pairs(reply: &Resp) -> Vec<(Vec<u8>, Vec<u8>)> {
    let Resp::Array(items) = reply else { panic!("CONFIG GET answered {reply:?}") };
    items
        .chunks(2)
        .map(|p| match p {
            [Resp::Bulk(k), Resp::Bulk(v)] => (k.clone(), v.clone()),
            other => panic!("not a pair: {other:?}"),
        })
        .collect()
}

/// Every parameter `CONFIG GET *` lists on redis-server, with its value.
fn redis_params(peers: &mut Peers) -> Vec<(String, String)> {
    let argv = args!["CONFIG", "GET", "*"];
    let reply = peers.redis.call(&argv).expect("CONFIG GET * on redis-server");
    let mut all: Vec<(String, String)> = pairs(&reply)
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), String::from_utf8_lossy(&v).into_owned()))
        .collect();
    all.sort();
    all
}

#[test]
fn config_defaults_match_redis() {
    let Some(servers) = Servers::start_or_skip("config_defaults_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    let mut differ = Vec::new();
    for (name, redis_value) in redis_params(&mut peers) {
        let argv = args!["CONFIG", "GET", name.as_str()];
        let reply = peers.vitrine.call(&argv).expect("CONFIG GET on vitrine");
        let got = pairs(&reply);
        let [(_, value)] = &got[..] else {
            differ.push(format!("{name}: unknown to vitrine"));
            continue;
        };
        if DEFAULT_DIFFERENCES.contains(&name.as_str()) {
            continue;
        }
        if *value != redis_value.as_bytes() {
            differ.push(format!("{name}: vitrine {:?}, redis {redis_value:?}", String::from_utf8_lossy(value)));
        }
    }
    assert!(differ.is_empty(), "CONFIG GET differs:\n  {}", differ.join("\n  "));
    // Several patterns, exact names as given, the hidden ones only by name.
    peers.begin("CONFIG GET forms");
    let config = args!["CONFIG", "SET", "hash-max-listpack-entries", "128"];
    assert_eq!(peers.redis.call(&config), Ok(Resp::Status(b"OK".to_vec())), "CONFIG SET on redis-server");
    for argv in [
        args!["CONFIG", "GET", "HZ"],
        args!["CONFIG", "GET", "hz", "HZ", "hz"],
        args!["CONFIG", "GET", "nosuch"],
        args!["CONFIG", "GET", "maxmemory-p*", "lfu-*", "*-max-ziplist-*"],
        args!["CONFIG", "GET", "LUA-TIME-LIMIT", "busy-reply-*"],
    ] {
        peers.call(&argv, Check::UnorderedPairs);
    }
}

#[test]
fn config_set_errors_match_redis() {
    let Some(servers) = Servers::start_or_skip("config_set_errors_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    let defaults = redis_params(&mut peers);
    peers.begin("CONFIG SET of bad values");
    for (name, default) in &defaults {
        if SET_SKIPPED.contains(&name.as_str()) || DEFAULT_DIFFERENCES.contains(&name.as_str()) {
            continue;
        }
        for bad in BAD_VALUES {
            let argv = args!["CONFIG", "SET", name.as_str(), *bad];
            peers.call(&argv, Check::Exact);
            // A value one of them took: back to the default on both.
            let restore = args!["CONFIG", "SET", name.as_str(), default.as_str()];
            let _ = peers.vitrine.call(&restore);
            let _ = peers.redis.call(&restore);
        }
    }
    for argv in [
        args!["CONFIG", "SET", "hz", "x", "maxmemory", "1mb"],
        args!["CONFIG", "SET", "maxmemory", "1mb", "nosuch", "1"],
        args!["CONFIG", "SET", "databases", "2", "nosuch", "1"],
        args!["CONFIG", "SET", "nosuch", "1", "databases", "2"],
        args!["CONFIG", "SET", "HZ", "10", "hz", "11"],
        args!["CONFIG", "SET", "hash-max-ziplist-value", "x"],
        args!["CONFIG", "SET", "hash-max-ziplist-entries", "3", "hash-max-listpack-entries", "4"],
        args!["CONFIG", "GET", "hash-max-*"],
        args!["CONFIG", "SET", "hz", "1000"],
        args!["CONFIG", "GET", "hz"],
        args!["CONFIG", "SET", "hz", "0"],
        args!["CONFIG", "GET", "hz"],
        args!["CONFIG", "SET", "notify-keyspace-events", "KEA"],
        args!["CONFIG", "GET", "notify-keyspace-events"],
        args!["CONFIG", "SET", "notify-keyspace-events", "gxKm"],
        args!["CONFIG", "GET", "notify-keyspace-events"],
        args!["CONFIG", "SET", "shutdown-on-sigterm", "now SAVE"],
        args!["CONFIG", "GET", "shutdown-on-sigterm"],
        args!["CONFIG", "SET", "maxmemory-clients", "5%"],
        args!["CONFIG", "GET", "maxmemory-clients"],
        args!["CONFIG", "SET", "maxmemory-clients", "101%"],
        args!["CONFIG", "SET", "client-output-buffer-limit", "pubsub 64mb 16mb 90"],
        args!["CONFIG", "GET", "client-output-buffer-limit"],
        args!["CONFIG", "SET", "latency-tracking-info-percentiles", "50 99.9 100"],
        args!["CONFIG", "GET", "latency-tracking-info-percentiles"],
        args!["CONFIG", "SET", "oom-score-adj", "relative"],
        args!["CONFIG", "GET", "oom-score-adj"],
        args!["CONFIG", "SET", "maxmemory", ""],
        args!["CONFIG", "GET", "maxmemory"],
        args!["CONFIG", "SET", "dir", "/tmp"],
        args!["CONFIG", "SET", "dbfilename", "x.rdb"],
    ] {
        let check = if argv[1] == b"GET" { Check::UnorderedPairs } else { Check::Exact };
        peers.call(&argv, check);
    }
}

#[test]
fn encodings_after_config_set_match_redis() {
    let Some(servers) = Servers::start_or_skip("encodings_after_config_set_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("encoding thresholds");
    let enc = |key: &str| args!["OBJECT", "ENCODING", key];
    let mut cases = vec![
        args!["FLUSHALL"],
        args!["CONFIG", "SET", "hash-max-listpack-entries", "3", "hash-max-listpack-value", "8"],
        args!["CONFIG", "SET", "zset-max-ziplist-entries", "2", "zset-max-ziplist-value", "5"],
        args!["CONFIG", "SET", "set-max-intset-entries", "4"],
    ];
    for i in 0..5 {
        cases.push(args!["HSET", "h", format!("f{i}"), "v"]);
        cases.push(enc("h"));
        cases.push(args!["ZADD", "z", i.to_string(), format!("m{i}")]);
        cases.push(enc("z"));
        cases.push(args!["SADD", "s", i.to_string()]);
        cases.push(enc("s"));
    }
    cases.extend([
        // Shrinking converts nothing back.
        args!["HDEL", "h", "f0", "f1", "f2", "f3"],
        enc("h"),
        args!["ZREM", "z", "m0", "m1", "m2", "m3"],
        enc("z"),
        // Long elements, at the limit and past it.
        args!["HSET", "h2", "12345678", "v"],
        enc("h2"),
        args!["HSET", "h2", "f", "123456789"],
        enc("h2"),
        args!["ZADD", "z2", "1", "12345"],
        enc("z2"),
        args!["ZADD", "z2", "2", "123456"],
        enc("z2"),
        args!["ZADD", "z3", "1", "a", "2", "b", "3", "c"],
        enc("z3"),
        args!["HMSET", "h6", "a", "1", "b", "2", "c", "3"],
        enc("h6"),
        args!["HSETNX", "h6", "a", "123456789"],
        enc("h6"),
        args!["HINCRBY", "h6", "n", "123456789"],
        enc("h6"),
        args!["HINCRBYFLOAT", "h6", "n", "0.5"],
        enc("h6"),
        args!["CONFIG", "SET", "hash-max-ziplist-entries", "0"],
        args!["HSET", "h3", "f", "v"],
        enc("h3"),
        args!["CONFIG", "SET", "zset-max-listpack-entries", "0"],
        args!["ZADD", "z4", "1", "a"],
        enc("z4"),
        // Raising the limits again affects new keys only.
        args!["CONFIG", "SET", "hash-max-listpack-entries", "128", "zset-max-listpack-entries", "128"],
        args!["HSET", "h4", "a", "1", "b", "2", "c", "3", "d", "4"],
        enc("h4"),
        enc("h"),
        args!["ZUNIONSTORE", "zu", "2", "z", "z3"],
        enc("zu"),
    ]);
    for argv in cases {
        peers.call(&argv, Check::Exact);
    }
}
