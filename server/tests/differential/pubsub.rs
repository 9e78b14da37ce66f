//! Sharded pub/sub (SSUBSCRIBE, SUNSUBSCRIBE, SPUBLISH, PUBSUB SHARDCHANNELS/SHARDNUMSUB)
//! beside the plain kind, compared byte for byte in RESP2 and RESP3: confirmations and
//! their counts, `smessage` pushes and where they fall among replies, the subscribed
//! context's refusals. Redis lists several channels (PUBSUB SHARDCHANNELS, an unsubscribe
//! from all) in hash order, so each listing here holds one channel at most.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::harness::*;

/// Everything a connection has been sent up to the reply to a `PING fence` sent now (in
/// or out of the subscribed context, that reply ends with `fence`): every push queued
/// before it, and nothing after. A connection inside MULTI would queue the PING, so there
/// one reply line is read instead.
pub fn drain(s: &mut TcpStream, in_multi: bool) -> Vec<u8> {
    if !in_multi {
        send(s, &["PING", "fence"]);
    }
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let done = |out: &[u8]| if in_multi { out.ends_with(b"\r\n") } else { out.ends_with(b"fence\r\n") };
    while !done(&out) {
        match s.read(&mut buf) {
            Ok(0) => panic!("connection closed after {:?}", out.escape_ascii().to_string()),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("no fence after {:?}", out.escape_ascii().to_string())
            }
            Err(e) => panic!("read: {e}"),
        }
    }
    out
}

pub fn send(s: &mut TcpStream, argv: &[&str]) {
    let mut out = format!("*{}\r\n", argv.len()).into_bytes();
    for a in argv {
        out.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
    }
    s.write_all(&out).expect("write");
}

/// Runs `script` (connection index, command) on both servers; after each command, what
/// every connection received must be the same bytes.
fn same_bytes(resp3: bool, script: &[(usize, &[&str])]) {
    let Some(servers) = Servers::start_or_skip("sharded_pubsub_matches_redis") else {
        return;
    };
    let mut conns: Vec<(TcpStream, TcpStream)> = (0..3).map(|_| servers.raw_pair()).collect();
    if resp3 {
        for (v, r) in &mut conns {
            // HELLO's map names each server: not compared.
            send(v, &["HELLO", "3"]);
            send(r, &["HELLO", "3"]);
            drain(v, false);
            drain(r, false);
        }
    }
    let mut in_multi = [false; 3];
    for (step, (who, argv)) in script.iter().enumerate() {
        send(&mut conns[*who].0, argv);
        send(&mut conns[*who].1, argv);
        match argv[0] {
            "MULTI" => in_multi[*who] = true,
            "EXEC" | "DISCARD" => in_multi[*who] = false,
            _ => {}
        }
        // The sender first: once its fence is back, its command has run everywhere.
        let order = std::iter::once(*who).chain((0..conns.len()).filter(|i| i != who));
        for i in order {
            let (v, r) = &mut conns[i];
            let (v, r) = (drain(v, in_multi[i]), drain(r, in_multi[i]));
            assert_eq!(
                v.escape_ascii().to_string(),
                r.escape_ascii().to_string(),
                "resp3={resp3}, step {step} {argv:?} (connection {who}), received on connection {i}"
            );
        }
    }
}

const SCRIPT: &[(usize, &[&str])] = &[
    (0, &["SSUBSCRIBE", "x", "y", "x"]),
    (0, &["SUBSCRIBE", "x"]),
    (0, &["PSUBSCRIBE", "p*"]),
    (0, &["SSUBSCRIBE", "z"]),
    (0, &["PING"]),
    (0, &["SPUBLISH", "x", "m"]),
    (1, &["SPUBLISH", "x", "hello"]),
    (1, &["PUBLISH", "x", "plain"]),
    (1, &["SPUBLISH", "p1", "nobody"]),
    (1, &["PUBSUB", "SHARDCHANNELS", "[xw]"]),
    (1, &["PUBSUB", "SHARDCHANNELS", "z"]),
    (1, &["PUBSUB", "SHARDCHANNELS", "a", "b"]),
    (1, &["PUBSUB", "SHARDNUMSUB", "x", "nope"]),
    (1, &["PUBSUB", "SHARDNUMSUB"]),
    (1, &["PUBSUB", "NUMSUB", "x"]),
    (2, &["SSUBSCRIBE", "x"]),
    (1, &["SPUBLISH", "x", "two"]),
    (1, &["PUBSUB", "SHARDNUMSUB", "x"]),
    (0, &["SUNSUBSCRIBE", "x", "nope"]),
    (1, &["SPUBLISH", "x", "one"]),
    (0, &["SUNSUBSCRIBE", "y"]),
    (0, &["SUNSUBSCRIBE"]),
    (0, &["SUNSUBSCRIBE"]),
    (0, &["UNSUBSCRIBE"]),
    (0, &["PUNSUBSCRIBE"]),
    (0, &["GET", "k"]),
    (2, &["SUNSUBSCRIBE", "x"]),
    (2, &["GET", "k"]),
    (1, &["SPUBLISH"]),
    (1, &["SSUBSCRIBE"]),
    (1, &["MULTI"]),
    (1, &["SSUBSCRIBE", "t"]),
    (1, &["SPUBLISH", "t", "m"]),
    (1, &["EXEC"]),
    (1, &["PUBSUB", "SHARDCHANNELS"]),
    (2, &["SSUBSCRIBE", "q"]),
    (2, &["RESET"]),
    (1, &["SPUBLISH", "q", "gone"]),
];

#[test]
fn sharded_pubsub_matches_redis_in_resp2() {
    same_bytes(false, SCRIPT);
}

#[test]
fn sharded_pubsub_matches_redis_in_resp3() {
    same_bytes(true, SCRIPT);
}
