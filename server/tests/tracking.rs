//! Client-side caching over real sockets: a RESP3 client with CLIENT TRACKING reads the
//! `invalidate` pushes other connections' writes, the active expiry cycle and FLUSHALL send
//! it, and a RESP2 client's redirect reaches a `__redis__:invalidate` subscriber. Each script
//! runs against the `vitrine` binary and, when it is installed, redis-server 7, byte for byte.

mod common;

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{cmd, connect_to, expect, expect_silence, read_n, roundtrip, send, RedisServer, Server};

/// Reads until the bytes read end with `end` (HELLO's reply differs between servers, so a
/// PING after it marks where it ends).
fn read_through(s: &mut TcpStream, end: &[u8]) {
    let mut got = Vec::new();
    while !got.ends_with(end) {
        got.extend(read_n(s, 1));
    }
}

fn resp3(addr: SocketAddr) -> TcpStream {
    let mut s = connect_to(addr);
    send(&mut s, &[cmd(&["HELLO", "3"]), cmd(&["PING"])].concat());
    read_through(&mut s, b"+PONG\r\n");
    s
}

fn invalidate(keys: &[&str]) -> Vec<u8> {
    let mut s = format!(">2\r\n$10\r\ninvalidate\r\n*{}\r\n", keys.len());
    for k in keys {
        s.push_str(&format!("${}\r\n{k}\r\n", k.len()));
    }
    s.into_bytes()
}

/// Default mode, NOLOOP's absence (own writes after the reply), expiry and flush.
fn default_mode_script(addr: SocketAddr) {
    let mut a = resp3(addr);
    let mut b = connect_to(addr);
    roundtrip(&mut a, &cmd(&["CLIENT", "TRACKING", "on"]), b"+OK\r\n");
    roundtrip(&mut a, &cmd(&["GET", "k"]), b"_\r\n");
    roundtrip(&mut b, &cmd(&["SET", "k", "v"]), b"+OK\r\n");
    expect(&mut a, &invalidate(&["k"]));
    // Once: the key is dropped from the table until read again.
    roundtrip(&mut b, &cmd(&["SET", "k", "w"]), b"+OK\r\n");
    expect_silence(&mut a, Duration::from_millis(100));
    roundtrip(&mut a, &cmd(&["GET", "k"]), b"$1\r\nw\r\n");
    let own = [&b"+OK\r\n"[..], &invalidate(&["k"])].concat();
    roundtrip(&mut a, &cmd(&["SET", "k", "x"]), &own);
    // The active expiry cycle sends it with no command from anyone.
    roundtrip(&mut b, &cmd(&["SET", "t", "1", "PX", "50"]), b"+OK\r\n");
    roundtrip(&mut a, &cmd(&["GET", "t"]), b"$1\r\n1\r\n");
    a.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    expect(&mut a, &invalidate(&["t"]));
    roundtrip(&mut a, &cmd(&["GET", "k"]), b"$1\r\nx\r\n");
    roundtrip(&mut b, &cmd(&["FLUSHALL"]), b"+OK\r\n");
    expect(&mut a, b">2\r\n$10\r\ninvalidate\r\n_\r\n");
}

/// A RESP2 client redirecting to a subscriber of `__redis__:invalidate`; BCAST by prefix.
fn redirect_and_bcast_script(addr: SocketAddr) {
    let mut sub = connect_to(addr);
    let mut a = connect_to(addr);
    let mut b = connect_to(addr);
    send(&mut sub, &cmd(&["CLIENT", "ID"]));
    let line = common::read_line(&mut sub);
    let id = String::from_utf8_lossy(&line[1..line.len() - 2]).into_owned();
    roundtrip(
        &mut sub,
        &cmd(&["SUBSCRIBE", "__redis__:invalidate"]),
        b"*3\r\n$9\r\nsubscribe\r\n$20\r\n__redis__:invalidate\r\n:1\r\n",
    );
    roundtrip(&mut a, &cmd(&["CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:", "REDIRECT", &id]), b"+OK\r\n");
    roundtrip(&mut b, &cmd(&["MSET", "user:1", "a", "other", "b"]), b"+OK\r\n");
    expect(&mut sub, b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$6\r\nuser:1\r\n");
    let info = format!(
        "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\nbcast\r\n$8\r\nredirect\r\n:{id}\r\n$8\r\nprefixes\r\n*1\r\n$5\r\nuser:\r\n"
    );
    roundtrip(&mut a, &cmd(&["CLIENT", "TRACKINGINFO"]), info.as_bytes());
}

#[test]
fn tracking_clients_read_invalidations_as_from_redis() {
    let server = Server::start(&[]);
    default_mode_script(server.addr());
    redirect_and_bcast_script(server.addr());
    if let Some(redis) = RedisServer::start_or_skip("tracking_clients_read_invalidations_as_from_redis") {
        default_mode_script(redis.addr());
        redirect_and_bcast_script(redis.addr());
    }
}
