//! Socket-level tests of the blocking list commands against the real `vitrine` binary: BLPOP,
//! BRPOP and BLMOVE time out with nil, are woken by another connection's push, are served
//! first come first served, hold back the commands pipelined after them, and never stall
//! other connections. XREAD BLOCK likewise, woken by an XADD to a stream that already exists.

mod common;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{cmd, expect, expect_closed, expect_silence, read_line, roundtrip, send, Server};

/// How long a test waits to be sure a blocked client has not answered.
const QUIET: Duration = Duration::from_millis(150);

/// Waits (bounded) until the server reports `n` blocked clients, so that a test knows a
/// client's BLPOP has reached the server before it pushes.
fn wait_blocked(s: &mut TcpStream, n: usize) {
    let want = format!("blocked_clients:{n}\r\n");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        send(s, &cmd(&["INFO", "clients"]));
        let header = read_line(s);
        let len: usize = std::str::from_utf8(&header[1..header.len() - 2]).unwrap().parse().unwrap();
        let body = common::read_n(s, len + 2);
        if String::from_utf8_lossy(&body).contains(&want) {
            return;
        }
        assert!(Instant::now() < deadline, "never saw {want:?}: {}", String::from_utf8_lossy(&body));
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn blpop_answers_nil_once_its_timeout_passes() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    let start = Instant::now();
    roundtrip(&mut s, &cmd(&["BLPOP", "nothing", "0.3"]), b"*-1\r\n");
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(290), "answered after {waited:?}");
    assert!(waited < Duration::from_secs(3), "answered after {waited:?}");
    // BLMOVE's timeout is the null array too; in RESP3 the null.
    roundtrip(&mut s, &cmd(&["BLMOVE", "nothing", "d", "LEFT", "LEFT", "0.05"]), b"*-1\r\n");
    let mut hello = cmd(&["HELLO", "3"]);
    hello.extend(cmd(&["PING"]));
    send(&mut s, &hello);
    while read_line(&mut s) != b"+PONG\r\n" {}
    roundtrip(&mut s, &cmd(&["BRPOP", "nothing", "0.05"]), b"_\r\n");
}

#[test]
fn blpop_is_woken_by_a_push_from_another_connection() {
    let server = Server::start(&[]);
    let (mut a, mut b) = (server.connect(), server.connect());
    send(&mut a, &cmd(&["BLPOP", "queue", "0"]));
    wait_blocked(&mut b, 1);
    expect_silence(&mut a, QUIET);
    roundtrip(&mut b, &cmd(&["LPUSH", "queue", "job"]), b":1\r\n");
    expect(&mut a, b"*2\r\n$5\r\nqueue\r\n$3\r\njob\r\n");
    // The element went to the waiting client: the list is gone.
    roundtrip(&mut b, &cmd(&["EXISTS", "queue"]), b":0\r\n");
    wait_blocked(&mut b, 0);
}

#[test]
fn two_blocked_clients_are_served_in_the_order_they_blocked() {
    let server = Server::start(&[]);
    let (mut first, mut second, mut pusher) = (server.connect(), server.connect(), server.connect());
    send(&mut first, &cmd(&["BRPOP", "q", "0"]));
    wait_blocked(&mut pusher, 1);
    send(&mut second, &cmd(&["BRPOP", "q", "0"]));
    wait_blocked(&mut pusher, 2);
    roundtrip(&mut pusher, &cmd(&["RPUSH", "q", "one"]), b":1\r\n");
    expect(&mut first, b"*2\r\n$1\r\nq\r\n$3\r\none\r\n");
    expect_silence(&mut second, QUIET);
    roundtrip(&mut pusher, &cmd(&["RPUSH", "q", "two", "three"]), b":2\r\n");
    // BRPOP takes from the tail; the other element stays.
    expect(&mut second, b"*2\r\n$1\r\nq\r\n$5\r\nthree\r\n");
    roundtrip(&mut pusher, &cmd(&["LRANGE", "q", "0", "-1"]), b"*1\r\n$3\r\ntwo\r\n");
}

#[test]
fn a_blocked_client_does_not_stall_anyone_else() {
    let server = Server::start(&[]);
    let mut blocked = server.connect();
    send(&mut blocked, &cmd(&["BLPOP", "never", "0"]));
    let mut other = server.connect();
    wait_blocked(&mut other, 1);
    let start = Instant::now();
    for i in 0..50 {
        let v = i.to_string();
        roundtrip(&mut other, &cmd(&["SET", "k", &v]), b"+OK\r\n");
        roundtrip(&mut other, &cmd(&["GET", "k"]), format!("${}\r\n{v}\r\n", v.len()).as_bytes());
    }
    roundtrip(&mut other, &cmd(&["RPUSH", "elsewhere", "x"]), b":1\r\n");
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    expect_silence(&mut blocked, QUIET);
}

#[test]
fn blmove_waits_then_moves_to_its_destination() {
    let server = Server::start(&[]);
    let (mut a, mut b) = (server.connect(), server.connect());
    send(&mut a, &cmd(&["BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"]));
    wait_blocked(&mut b, 1);
    roundtrip(&mut b, &cmd(&["RPUSH", "src", "x", "y"]), b":2\r\n");
    expect(&mut a, b"$1\r\ny\r\n");
    roundtrip(&mut b, &cmd(&["LRANGE", "dst", "0", "-1"]), b"*1\r\n$1\r\ny\r\n");
    roundtrip(&mut b, &cmd(&["LRANGE", "src", "0", "-1"]), b"*1\r\n$1\r\nx\r\n");
}

#[test]
fn commands_pipelined_after_a_blpop_wait_until_it_is_answered() {
    let server = Server::start(&[]);
    let (mut a, mut b) = (server.connect(), server.connect());
    let mut pipeline = cmd(&["BLPOP", "q", "0"]);
    pipeline.extend(cmd(&["PING", "after"]));
    pipeline.extend(cmd(&["LLEN", "q"]));
    send(&mut a, &pipeline);
    wait_blocked(&mut b, 1);
    expect_silence(&mut a, QUIET);
    roundtrip(&mut b, &cmd(&["RPUSH", "q", "1", "2"]), b":2\r\n");
    expect(&mut a, b"*2\r\n$1\r\nq\r\n$1\r\n1\r\n$5\r\nafter\r\n:1\r\n");
    // After a timeout too, and a second blocking command in the same pipeline waits in turn.
    let mut pipeline = cmd(&["BLPOP", "none", "0.1"]);
    pipeline.extend(cmd(&["BLPOP", "q2", "0"]));
    pipeline.extend(cmd(&["PING"]));
    send(&mut a, &pipeline);
    expect(&mut a, b"*-1\r\n");
    wait_blocked(&mut b, 1);
    expect_silence(&mut a, QUIET);
    roundtrip(&mut b, &cmd(&["LPUSH", "q2", "v"]), b":1\r\n");
    expect(&mut a, b"*2\r\n$2\r\nq2\r\n$1\r\nv\r\n+PONG\r\n");
}

#[test]
fn a_client_that_leaves_while_blocked_takes_nothing_with_it() {
    let server = Server::start(&[]);
    let mut b = server.connect();
    {
        let mut a = server.connect();
        send(&mut a, &cmd(&["BLPOP", "q", "0"]));
        wait_blocked(&mut b, 1);
    }
    wait_blocked(&mut b, 0);
    roundtrip(&mut b, &cmd(&["RPUSH", "q", "kept"]), b":1\r\n");
    roundtrip(&mut b, &cmd(&["LLEN", "q"]), b":1\r\n");
}

#[test]
fn a_blocked_client_is_not_closed_as_idle() {
    let server = Server::start(&["--timeout", "1"]);
    let (mut a, mut b) = (server.connect(), server.connect());
    send(&mut a, &cmd(&["BLPOP", "q", "0"]));
    wait_blocked(&mut b, 1);
    // Past the idle timeout (and its once-a-second check) the waiting client is still there.
    std::thread::sleep(Duration::from_millis(2200));
    let mut b = server.connect();
    roundtrip(&mut b, &cmd(&["RPUSH", "q", "late"]), b":1\r\n");
    expect(&mut a, b"*2\r\n$1\r\nq\r\n$4\r\nlate\r\n");
}

#[test]
fn a_blocked_client_can_be_killed() {
    let server = Server::start(&[]);
    let (mut a, mut b) = (server.connect(), server.connect());
    roundtrip(&mut a, &cmd(&["CLIENT", "SETNAME", "waiter"]), b"+OK\r\n");
    send(&mut a, &cmd(&["BLPOP", "q", "0"]));
    wait_blocked(&mut b, 1);
    let id = client_id(&mut b);
    send(&mut b, &cmd(&["CLIENT", "KILL", "SKIPME", "yes", "ID", &id]));
    expect(&mut b, b":1\r\n");
    expect_closed(&mut a);
    wait_blocked(&mut b, 0);
}

/// The id of the connection named `waiter`, found through another connection's CLIENT LIST.
fn client_id(via: &mut TcpStream) -> String {
    send(via, &cmd(&["CLIENT", "LIST"]));
    let header = read_line(via);
    let len: usize = std::str::from_utf8(&header[1..header.len() - 2]).unwrap().parse().unwrap();
    let body = String::from_utf8(common::read_n(via, len + 2)).unwrap();
    let line = body.lines().find(|l| l.contains(" name=waiter ")).expect("the waiter in CLIENT LIST");
    line.split(' ').find_map(|f| f.strip_prefix("id=")).expect("an id field").to_string()
}

/// Every blocking command, on missing keys and then on keys with data.
const BLOCKING_COMMANDS: &[&[&str]] = &[
    &["BLPOP", "nx", "0"],
    &["BRPOP", "nx", "ny", "0"],
    &["BLMOVE", "nx", "d", "LEFT", "RIGHT", "0"],
    &["BRPOPLPUSH", "nx", "d", "0"],
    &["BLMPOP", "0", "1", "nx", "LEFT"],
    &["BZPOPMIN", "nz", "0"],
    &["BZPOPMAX", "nz", "0"],
    &["BZMPOP", "0", "1", "nz", "MIN"],
];

/// Inside MULTI a blocking command never waits: it answers what its non-blocking form
/// would, or nil (a null bulk for BLMOVE and BRPOPLPUSH, a null array for the others, as
/// redis-server 7.0 answers; `_` in RESP3). The bytes are redis-server's.
#[test]
fn every_blocking_command_answers_at_once_inside_multi() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    let empty2: [&[u8]; 8] =
        [b"*-1\r\n", b"*-1\r\n", b"$-1\r\n", b"$-1\r\n", b"*-1\r\n", b"*-1\r\n", b"*-1\r\n", b"*-1\r\n"];
    let full2: [&[u8]; 8] = [
        b"*2\r\n$2\r\nnx\r\n$1\r\na\r\n",
        b"*2\r\n$2\r\nnx\r\n$1\r\nc\r\n",
        b"$1\r\nb\r\n",
        b"$-1\r\n",
        b"*-1\r\n",
        b"*3\r\n$2\r\nnz\r\n$1\r\nm\r\n$1\r\n1\r\n",
        b"*3\r\n$2\r\nnz\r\n$1\r\no\r\n$1\r\n3\r\n",
        b"*2\r\n$2\r\nnz\r\n*1\r\n*2\r\n$1\r\nn\r\n$1\r\n2\r\n",
    ];
    let full3: [&[u8]; 8] = [
        b"*2\r\n$2\r\nnx\r\n$1\r\na\r\n",
        b"*2\r\n$2\r\nnx\r\n$1\r\nc\r\n",
        b"$1\r\nb\r\n",
        b"_\r\n",
        b"_\r\n",
        b"*3\r\n$2\r\nnz\r\n$1\r\nm\r\n,1\r\n",
        b"*3\r\n$2\r\nnz\r\n$1\r\no\r\n,3\r\n",
        b"*2\r\n$2\r\nnz\r\n*1\r\n*2\r\n$1\r\nn\r\n,2\r\n",
    ];
    for resp3 in [false, true] {
        if resp3 {
            send(&mut s, &cmd(&["HELLO", "3"]));
            send(&mut s, &cmd(&["PING"]));
            while read_line(&mut s) != b"+PONG\r\n" {}
        }
        for (full, expected) in
            [(false, if resp3 { [&b"_\r\n"[..]; 8] } else { empty2 }), (true, if resp3 { full3 } else { full2 })]
        {
            if full {
                roundtrip(&mut s, &cmd(&["RPUSH", "nx", "a", "b", "c"]), b":3\r\n");
                roundtrip(&mut s, &cmd(&["ZADD", "nz", "1", "m", "2", "n", "3", "o"]), b":3\r\n");
            }
            for (argv, reply) in BLOCKING_COMMANDS.iter().zip(expected) {
                roundtrip(&mut s, &cmd(&["MULTI"]), b"+OK\r\n");
                roundtrip(&mut s, &cmd(argv), b"+QUEUED\r\n");
                let mut want = b"*1\r\n".to_vec();
                want.extend_from_slice(reply);
                roundtrip(&mut s, &cmd(&["EXEC"]), &want);
            }
            roundtrip(&mut s, &cmd(&["DEL", "nx", "nz", "d"]), if full { b":1\r\n" } else { b":0\r\n" });
        }
    }
}

/// CLIENT UNBLOCK ends each blocking command from another connection: as its timeout
/// would (TIMEOUT, the default) or with Redis's UNBLOCKED error (ERROR); it answers 1, and
/// 0 for a client that is not blocked.
#[test]
fn client_unblock_ends_every_blocking_command() {
    let server = Server::start(&[]);
    let (mut a, mut b) = (server.connect(), server.connect());
    let id = {
        let line = roundtrip_line(&mut a, &["CLIENT", "ID"]);
        String::from_utf8(line[1..line.len() - 2].to_vec()).unwrap()
    };
    roundtrip(&mut b, &cmd(&["CLIENT", "UNBLOCK", &id]), b":0\r\n");
    for argv in BLOCKING_COMMANDS {
        for (reason, reply) in [
            (None, &b"*-1\r\n"[..]),
            (Some("TIMEOUT"), b"*-1\r\n"),
            (Some("error"), b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"),
        ] {
            send(&mut a, &cmd(argv));
            wait_blocked(&mut b, 1);
            let mut unblock = vec!["CLIENT", "UNBLOCK", id.as_str()];
            unblock.extend(reason);
            roundtrip(&mut b, &cmd(&unblock), b":1\r\n");
            expect(&mut a, reply);
            wait_blocked(&mut b, 0);
        }
    }
    // The connection goes on as usual, and the keys were never touched.
    roundtrip(&mut a, &cmd(&["EXISTS", "nx", "nz", "d"]), b":0\r\n");
    // RESP3: the null of a timeout.
    send(&mut a, &cmd(&["HELLO", "3"]));
    send(&mut a, &cmd(&["PING"]));
    while read_line(&mut a) != b"+PONG\r\n" {}
    send(&mut a, &cmd(&["BLMOVE", "nx", "d", "LEFT", "LEFT", "0"]));
    wait_blocked(&mut b, 1);
    roundtrip(&mut b, &cmd(&["CLIENT", "UNBLOCK", &id, "TIMEOUT"]), b":1\r\n");
    expect(&mut a, b"_\r\n");
    // Errors, with redis-server 7.0's texts.
    roundtrip(&mut b, &cmd(&["CLIENT", "UNBLOCK", "abc"]), b"-ERR value is not an integer or out of range\r\n");
    roundtrip(
        &mut b,
        &cmd(&["CLIENT", "UNBLOCK", &id, "foo"]),
        b"-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n",
    );
    roundtrip(
        &mut b,
        &cmd(&["CLIENT", "unblock", &id, "TIMEOUT", "x"]),
        b"-ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.\r\n",
    );
    roundtrip(&mut b, &cmd(&["CLIENT", "UNBLOCK"]), b"-ERR wrong number of arguments for 'client|unblock' command\r\n");
    roundtrip(&mut b, &cmd(&["CLIENT", "UNBLOCK", "-5"]), b":0\r\n");
}

/// Sends a command and reads one reply line.
fn roundtrip_line(s: &mut TcpStream, argv: &[&str]) -> Vec<u8> {
    send(s, &cmd(argv));
    read_line(s)
}

#[test]
fn xread_block_is_woken_by_xadd_on_an_existing_stream_and_times_out() {
    let server = Server::start(&[]);
    let (mut a, mut b, mut w) = (server.connect(), server.connect(), server.connect());
    roundtrip(&mut w, &cmd(&["XADD", "s", "1-0", "f", "old"]), b"$3\r\n1-0\r\n");
    // `$` is the last ID when it blocks: 1-0 is not news.
    send(&mut a, &cmd(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]));
    wait_blocked(&mut w, 1);
    send(&mut b, &cmd(&["XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "other", "s", "0", "$"]));
    wait_blocked(&mut w, 2);
    expect_silence(&mut a, QUIET);
    roundtrip(&mut w, &cmd(&["XADD", "s", "2-0", "f", "new"]), b"$3\r\n2-0\r\n");
    let served = b"*1\r\n*2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$3\r\nnew\r\n";
    expect(&mut a, served);
    expect(&mut b, served);
    wait_blocked(&mut w, 0);
    // A timeout in milliseconds ends with the null array.
    let start = Instant::now();
    roundtrip(&mut a, &cmd(&["XREAD", "BLOCK", "200", "STREAMS", "s", "$"]), b"*-1\r\n");
    assert!(start.elapsed() >= Duration::from_millis(190), "{:?}", start.elapsed());
    // CLIENT UNBLOCK ends a wait with the null array (TIMEOUT) or an error.
    roundtrip(&mut a, &cmd(&["CLIENT", "SETNAME", "waiter"]), b"+OK\r\n");
    send(&mut a, &cmd(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]));
    wait_blocked(&mut w, 1);
    let id = client_id(&mut w);
    roundtrip(&mut w, &cmd(&["CLIENT", "UNBLOCK", &id, "ERROR"]), b":1\r\n");
    expect(&mut a, b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
}

#[test]
fn xread_block_in_resp3_is_answered_with_a_map() {
    let server = Server::start(&[]);
    let (mut a, mut w) = (server.connect(), server.connect());
    // HELLO's map, then the PONG that ends it.
    send(&mut a, &[cmd(&["HELLO", "3"]), cmd(&["PING"])].concat());
    while read_line(&mut a) != b"+PONG\r\n" {}
    send(&mut a, &cmd(&["XREAD", "BLOCK", "0", "STREAMS", "fresh", "$"]));
    wait_blocked(&mut w, 1);
    roundtrip(&mut w, &cmd(&["XADD", "fresh", "5-5", "k", "v"]), b"$3\r\n5-5\r\n");
    expect(&mut a, b"%1\r\n$5\r\nfresh\r\n*1\r\n*2\r\n$3\r\n5-5\r\n*2\r\n$1\r\nk\r\n$1\r\nv\r\n");
}
