//! XREADGROUP BLOCK against the real binary: a consumer waiting with `>` is woken by another
//! connection's XADD and the entry becomes its pending entry; a second waiter of the same
//! group keeps waiting; a destroyed group or a deleted stream ends the wait with Redis 7.0's
//! errors; timeouts and CLIENT UNBLOCK end it as for the other blocking commands.

mod common;

use std::time::{Duration, Instant};

use common::{cmd, expect, expect_silence, send, Server};

/// Waits (bounded) until the server says `n` clients are blocked.
fn until_blocked(c: &mut redis::Connection, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let want = format!("blocked_clients:{n}\r\n");
    loop {
        let info: String = redis::cmd("INFO").arg("clients").query(c).unwrap();
        if info.contains(&want) {
            return;
        }
        assert!(Instant::now() < deadline, "never {want:?}: {info}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn run(c: &mut redis::Connection, args: &[&str]) -> redis::Value {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(c).unwrap()
}

#[test]
fn xreadgroup_block_is_served_by_xadd_and_ended_by_group_or_key_removal() {
    let server = Server::start(&[]);
    let mut w = redis::Client::open(server.url()).unwrap().get_connection().unwrap();
    let (mut a, mut b) = (server.connect(), server.connect());
    run(&mut w, &["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]);
    send(&mut a, &cmd(&["XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"]));
    until_blocked(&mut w, 1);
    send(&mut b, &cmd(&["XREADGROUP", "GROUP", "g", "bob", "COUNT", "1", "BLOCK", "0", "STREAMS", "s", ">"]));
    until_blocked(&mut w, 2);
    run(&mut w, &["XADD", "s", "1-0", "f", "v"]);
    expect(&mut a, b"*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    // The entry went to the first waiter; the second waits on.
    expect_silence(&mut b, Duration::from_millis(150));
    let pending: Vec<redis::Value> = redis::cmd("XPENDING").arg("s").arg("g").query(&mut w).unwrap();
    assert_eq!(pending[0], redis::Value::Int(1));
    run(&mut w, &["XGROUP", "DESTROY", "s", "g"]);
    expect(&mut b, b"-NOGROUP the consumer group this client was blocked on no longer exists\r\n");
    until_blocked(&mut w, 0);
    // A deleted stream.
    run(&mut w, &["XGROUP", "CREATE", "s", "g", "$"]);
    send(&mut a, &cmd(&["XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"]));
    until_blocked(&mut w, 1);
    run(&mut w, &["DEL", "s"]);
    expect(&mut a, b"-UNBLOCKED the stream key no longer exists\r\n");
    // A timeout in milliseconds: the null array.
    run(&mut w, &["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]);
    let start = Instant::now();
    send(&mut a, &cmd(&["XREADGROUP", "GROUP", "g", "alice", "BLOCK", "200", "STREAMS", "s", ">"]));
    expect(&mut a, b"*-1\r\n");
    assert!(start.elapsed() >= Duration::from_millis(190), "{:?}", start.elapsed());
    // CLIENT UNBLOCK, as for every blocking command.
    send(&mut a, &cmd(&["CLIENT", "ID"]));
    let id = String::from_utf8(common::read_line(&mut a)).unwrap();
    let id = id.trim().trim_start_matches(':').to_string();
    send(&mut a, &cmd(&["XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"]));
    until_blocked(&mut w, 1);
    assert_eq!(run(&mut w, &["CLIENT", "UNBLOCK", &id]), redis::Value::Int(1));
    expect(&mut a, b"*-1\r\n");
}
