//! CLIENT's connection controls and MONITOR against redis-server 7.0.15: the errors of
//! PAUSE, REPLY and KILL's filters, what the filters count, CLIENT INFO/LIST's fields (names
//! and order; values that differ by nature, such as ids, addresses, ages and buffer sizes,
//! are not compared), REPLY OFF/SKIP's silence byte for byte, and MONITOR's lines with the
//! timestamp and client address normalized.
//!
//! Deliberate differences, not sent: KILL MAXAGE (Redis 7.4) and CLIENT NO-TOUCH (7.2);
//! CLIENT LIST's `lib-name` and `lib-ver` (7.2) are the only extra fields Vitrine shows.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::harness::*;

#[test]
fn client_controls_match_redis() {
    let Some(servers) = Servers::start_or_skip("client_controls_match_redis") else {
        return;
    };
    let mut peers = servers.peers();
    peers.begin("client controls");
    let cases: Vec<Vec<Vec<u8>>> = vec![
        args!["CLIENT", "PAUSE"],
        args!["CLIENT", "PAUSE", "x"],
        args!["CLIENT", "PAUSE", "-1"],
        args!["CLIENT", "PAUSE", "1.5"],
        args!["CLIENT", "PAUSE", "10", "READ"],
        args!["CLIENT", "PAUSE", "10", "write", "x"],
        args!["CLIENT", "PAUSE", "0"],
        args!["CLIENT", "PAUSE", "0", "all"],
        args!["CLIENT", "UNPAUSE"],
        args!["CLIENT", "UNPAUSE", "x"],
        args!["CLIENT", "REPLY"],
        args!["CLIENT", "REPLY", "maybe"],
        args!["CLIENT", "REPLY", "on"],
        args!["CLIENT", "REPLY", "ON", "x"],
        args!["CLIENT", "NO-EVICT", "ON"],
        args!["CLIENT", "NO-EVICT", "off"],
        args!["CLIENT", "KILL", "TYPE", "bogus"],
        args!["CLIENT", "KILL", "TYPE", "Normal", "TYPE", "Bogus"],
        args!["CLIENT", "KILL", "TYPE", "master"],
        args!["CLIENT", "KILL", "TYPE", "replica"],
        args!["CLIENT", "KILL", "TYPE", "slave"],
        args!["CLIENT", "KILL", "TYPE", "pubsub"],
        args!["CLIENT", "KILL", "USER", "nobody"],
        args!["CLIENT", "KILL", "USER", "default", "TYPE", "pubsub"],
        args!["CLIENT", "KILL", "ID", "0"],
        args!["CLIENT", "KILL", "ID", "-3"],
        args!["CLIENT", "KILL", "ID", "x"],
        args!["CLIENT", "KILL", "ID", "999999"],
        args!["CLIENT", "KILL", "ID"],
        args!["CLIENT", "KILL", "ADDR", "1.2.3.4:5"],
        args!["CLIENT", "KILL", "LADDR", "1.2.3.4:5", "SKIPME", "no"],
        args!["CLIENT", "KILL", "SKIPME", "maybe"],
        args!["CLIENT", "KILL", "SKIPME", "yes", "ID"],
        args!["CLIENT", "KILL", "1.2.3.4:5"],
        args!["CLIENT", "KILL", "FOO", "bar"],
        args!["CLIENT", "LIST", "TYPE"],
        args!["CLIENT", "LIST", "TYPE", "Bogus"],
        args!["CLIENT", "LIST", "ID", "0"],
        args!["CLIENT", "LIST", "ID", "x"],
        args!["CLIENT", "LIST", "TYPE", "master"],
        args!["CLIENT", "LIST", "TYPE", "pubsub"],
        args!["MONITOR", "x"],
        args!["MULTI"],
        args!["MONITOR"],
        args!["CLIENT", "REPLY", "ON"],
        args!["EXEC"],
        args!["PING"],
    ];
    for argv in cases {
        peers.call(&argv, Check::Exact);
    }
    // CLIENT INFO's fields, by name and in order.
    let names = |r: Resp| -> Vec<String> {
        let Resp::Bulk(line) = r else { panic!("CLIENT INFO: {r:?}") };
        String::from_utf8_lossy(&line)
            .split_whitespace()
            .filter_map(|f| f.split_once('=').map(|(k, _)| k.to_string()))
            .filter(|k| k != "lib-name" && k != "lib-ver")
            .collect()
    };
    let v = names(peers.vitrine.call(&words(&["CLIENT", "INFO"])).unwrap());
    let r = names(peers.redis.call(&words(&["CLIENT", "INFO"])).unwrap());
    assert_eq!(v, r, "CLIENT INFO's fields");
    // The values that mean the same in both.
    let fields = |r: Resp| -> Vec<String> {
        let Resp::Bulk(line) = r else { panic!("CLIENT LIST: {r:?}") };
        let keep = ["name", "flags", "db", "sub", "psub", "multi", "argv-mem", "cmd", "user", "resp", "events"];
        String::from_utf8_lossy(&line)
            .split_whitespace()
            .filter(|f| f.split_once('=').is_some_and(|(k, _)| keep.contains(&k)))
            .map(String::from)
            .collect()
    };
    for argv in [args!["CLIENT", "SETNAME", "differential"], args!["SELECT", "2"], args!["CLIENT", "NO-EVICT", "on"]] {
        peers.call(&argv, Check::Exact);
    }
    let v = fields(peers.vitrine.call(&words(&["CLIENT", "LIST", "TYPE", "normal"])).unwrap());
    let r = fields(peers.redis.call(&words(&["CLIENT", "LIST", "TYPE", "normal"])).unwrap());
    assert_eq!(v, r, "CLIENT LIST's comparable values");
}

/// A command's arguments from words.
fn words(w: &[&str]) -> Vec<Vec<u8>> {
    w.iter().map(|a| a.as_bytes().to_vec()).collect()
}

/// Everything a connection receives within `wait` of sending `bytes`.
fn exchange(s: &mut TcpStream, bytes: &[u8], wait: Duration) -> Vec<u8> {
    s.write_all(bytes).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    let (mut got, deadline, mut buf) = (Vec::new(), Instant::now() + wait, [0u8; 4096]);
    while Instant::now() < deadline {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    got
}

/// Several commands as one RESP request (a pipeline).
pub(crate) fn resp(argvs: &[&[&str]]) -> Vec<u8> {
    let mut out = Vec::new();
    for argv in argvs {
        out.extend(format!("*{}\r\n", argv.len()).bytes());
        for a in *argv {
            out.extend(format!("${}\r\n{a}\r\n", a.len()).bytes());
        }
    }
    out
}

#[test]
fn reply_modes_and_monitor_lines_match_redis() {
    let Some(servers) = Servers::start_or_skip("reply_modes_and_monitor_lines_match_redis") else {
        return;
    };
    let wait = Duration::from_millis(300);
    let (mut v, mut r) = servers.raw_pair();
    let batch = resp(&[
        &["CLIENT", "REPLY", "OFF"],
        &["SET", "a", "1"],
        &["CLIENT", "REPLY", "SKIP"],
        &["GET", "a"],
        &["CLIENT", "REPLY", "ON"],
        &["CLIENT", "REPLY", "SKIP"],
        &["GET", "a"],
        &["INCR", "a"],
        &["CLIENT", "REPLY", "SKIP"],
        &["CLIENT", "REPLY", "SKIP"],
        &["PING"],
        &["PING", "x"],
        &["CLIENT", "REPLY", "SKIP"],
        &["NOSUCH"],
        &["PING"],
    ]);
    assert_eq!(show(&exchange(&mut v, &batch, wait)), show(&exchange(&mut r, &batch, wait)), "REPLY modes");

    // MONITOR: the lines other connections' commands make, timestamp and address aside.
    let (mut vm, mut rm) = servers.raw_pair();
    let on = resp(&[&["MONITOR"]]);
    assert_eq!(exchange(&mut vm, &on, wait), exchange(&mut rm, &on, wait));
    let (mut vc, mut rc) = servers.raw_pair();
    let commands = resp(&[
        &["SET", "k", "v a\"l\\\n\t\u{1}"],
        &["SELECT", "1"],
        &["HSET", "h", "f", "1"],
        &["GET", "missing"],
        &["LPUSH", "h", "x"],
        &["AUTH", "secret"],
        &["AUTH", "user", "secret"],
        &["HELLO", "2", "AUTH", "default", "pw"],
        &["CONFIG", "GET", "port"],
        &["CLIENT", "LIST"],
        &["CLIENT", "GETNAME"],
        &["MULTI"],
        &["INCR", "n"],
        &["EXEC"],
        &["GET"],
        &["NOSUCH", "x"],
        &["ECHO", "\u{7f}\u{80}"],
    ]);
    exchange(&mut vc, &commands, wait);
    exchange(&mut rc, &commands, wait);
    let normalize = |bytes: Vec<u8>| -> Vec<String> {
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(|l| {
                let rest = l.split_once(' ').map_or(l, |(_, rest)| rest);
                // `[db addr] args`: the address differs by nature.
                let (db, args) = rest.split_once(' ').unwrap_or((rest, ""));
                let args = args.split_once("] ").map_or(args, |(_, a)| a);
                format!("{db} ADDR] {args}")
            })
            .collect()
    };
    let (vl, rl) = (normalize(exchange(&mut vm, &[], wait)), normalize(exchange(&mut rm, &[], wait)));
    assert!(!rl.is_empty());
    assert_eq!(vl, rl, "MONITOR lines");
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
