//! Hostile input on the RESP port, over a real loopback socket: a table of malformed requests
//! (each gets its error and close, or is tolerated exactly as Redis tolerates it), memory that
//! does not grow from announced lengths alone, and the server answering PING afterwards.

mod common;

use std::time::Duration;

use common::{expect, expect_closed, expect_silence, roundtrip, send, show, Server};

/// What a malformed request must get.
enum Want {
    /// This error reply, then the connection closes.
    Close(&'static str),
    /// Exactly these bytes, and the connection stays open (PING still answers).
    Reply(&'static [u8]),
    /// Nothing yet: an incomplete command waiting for more bytes.
    Wait,
}

fn cases() -> Vec<(&'static str, Vec<u8>, Want)> {
    use Want::*;
    let long_digits: Vec<u8> = b"*1\r\n$".iter().copied().chain(std::iter::repeat_n(b'1', 70 * 1024)).collect();
    let long_count: Vec<u8> = b"*".iter().copied().chain(std::iter::repeat_n(b'1', 70 * 1024)).collect();
    let long_inline: Vec<u8> = std::iter::repeat_n(b'a', 70 * 1024).collect();
    vec![
        ("non-numeric count", b"*abc\r\n".to_vec(), Close("-ERR Protocol error: invalid multibulk length\r\n")),
        ("count with plus sign", b"*+1\r\n".to_vec(), Close("-ERR Protocol error: invalid multibulk length\r\n")),
        ("count 2^31", b"*2147483648\r\n".to_vec(), Close("-ERR Protocol error: invalid multibulk length\r\n")),
        (
            "count 2^63",
            b"*9223372036854775808\r\n".to_vec(),
            Close("-ERR Protocol error: invalid multibulk length\r\n"),
        ),
        (
            "count 2^64",
            b"*18446744073709551616\r\n".to_vec(),
            Close("-ERR Protocol error: invalid multibulk length\r\n"),
        ),
        ("count line never ends", long_count, Close("-ERR Protocol error: too big mbulk count string\r\n")),
        ("negative bulk length", b"*1\r\n$-1\r\n".to_vec(), Close("-ERR Protocol error: invalid bulk length\r\n")),
        ("non-numeric bulk length", b"*1\r\n$abc\r\n".to_vec(), Close("-ERR Protocol error: invalid bulk length\r\n")),
        ("empty bulk length", b"*1\r\n$\r\n".to_vec(), Close("-ERR Protocol error: invalid bulk length\r\n")),
        ("bulk length 2^31", b"*1\r\n$2147483648\r\n".to_vec(), Close("-ERR Protocol error: invalid bulk length\r\n")),
        (
            "bulk length 2^63",
            b"*1\r\n$9223372036854775808\r\n".to_vec(),
            Close("-ERR Protocol error: invalid bulk length\r\n"),
        ),
        (
            "bulk length 2^63-1",
            b"*1\r\n$9223372036854775807\r\n".to_vec(),
            Close("-ERR Protocol error: invalid bulk length\r\n"),
        ),
        (
            "bulk over proto-max-bulk-len",
            b"*1\r\n$536870913\r\n".to_vec(),
            Close("-ERR Protocol error: invalid bulk length\r\n"),
        ),
        ("bulk length line never ends", long_digits, Close("-ERR Protocol error: too big bulk count string\r\n")),
        ("no $ before a bulk", b"*1\r\nPING\r\n".to_vec(), Close("-ERR Protocol error: expected '$', got 'P'\r\n")),
        (
            "NUL instead of $",
            b"*1\r\n\x004\r\nPING\r\n".to_vec(),
            Close("-ERR Protocol error: expected '$', got '\0'\r\n"),
        ),
        ("inline line too long", long_inline, Close("-ERR Protocol error: too big inline request\r\n")),
        (
            "unbalanced quotes",
            b"ECHO \"abc\r\n".to_vec(),
            Close("-ERR Protocol error: unbalanced quotes in request\r\n"),
        ),
        // Tolerated as Redis tolerates them.
        ("negative count is an empty command", b"*-1\r\nPING\r\n".to_vec(), Reply(b"+PONG\r\n")),
        ("zero count is an empty command", b"*0\r\nPING\r\n".to_vec(), Reply(b"+PONG\r\n")),
        (
            "missing CRLF after a bulk is skipped unchecked",
            b"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n".to_vec(),
            Reply(b"+PONG\r\n+PONG\r\n"),
        ),
        ("NUL bytes inside a bulk are data", b"*2\r\n$4\r\nECHO\r\n$3\r\na\0b\r\n".to_vec(), Reply(b"$3\r\na\0b\r\n")),
        ("NUL ends an inline line", b"PING\0 junk\r\n".to_vec(), Reply(b"+PONG\r\n")),
        ("bare LF inline", b"PING\n".to_vec(), Reply(b"+PONG\r\n")),
        // Incomplete: the server waits, holding nothing but what arrived.
        ("multibulk header with no body", b"*3\r\n".to_vec(), Wait),
        ("bulk header with no payload", b"*1\r\n$536870912\r\nabc".to_vec(), Wait),
        ("inline with no newline", b"PING".to_vec(), Wait),
    ]
}

#[test]
fn malformed_inputs_get_their_error_or_close() {
    let server = Server::start(&[]);
    let table = cases();
    for (name, bytes, want) in &table {
        let mut s = server.connect();
        send(&mut s, bytes);
        match want {
            Want::Close(text) => {
                let got = common::read_n(&mut s, text.len());
                assert_eq!(show(&got), show(text.as_bytes()), "{name}");
                expect_closed(&mut s);
            }
            Want::Reply(reply) => {
                expect(&mut s, reply);
                roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
            }
            Want::Wait => expect_silence(&mut s, Duration::from_millis(100)),
        }
    }
    // Afterwards the server answers on a new connection.
    let mut s = server.connect();
    roundtrip(&mut s, b"*1\r\n$4\r\nPING\r\n", b"+PONG\r\n");
    println!(
        "{} malformed inputs: each got its error and close, its reply, or a wait; PING answers after",
        table.len()
    );
}

fn vm_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc/PID/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS line");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Hundreds of connections each announcing a 512 MiB bulk and stalling cost almost nothing:
/// the announced length is never used to allocate.
#[test]
fn announced_lengths_alone_do_not_grow_memory() {
    const CONNS: usize = 300;
    let server = Server::start(&[]);
    let mut warm = server.connect();
    roundtrip(&mut warm, b"PING\r\n", b"+PONG\r\n");
    let before = vm_rss_kib(server.pid());
    let mut conns = Vec::with_capacity(CONNS);
    for _ in 0..CONNS {
        let mut s = server.connect();
        send(&mut s, b"*1\r\n$536870912\r\nsome bytes");
        conns.push(s);
    }
    // Every connection's bytes have been read once the server answers a later command
    // on each of them? No: they wait. Give the reads a moment, then check the server.
    roundtrip(&mut warm, b"PING\r\n", b"+PONG\r\n");
    std::thread::sleep(Duration::from_millis(300));
    let mut info = server.connect();
    send(&mut info, b"INFO clients\r\n");
    let after = vm_rss_kib(server.pid());
    let growth_mib = after.saturating_sub(before) as f64 / 1024.0;
    println!(
        "{CONNS} connections announcing 512 MiB bulks: RSS {} KiB -> {} KiB, growth {growth_mib:.1} MiB (limit 64 MiB)",
        before, after
    );
    assert!(growth_mib < 64.0, "RSS grew {growth_mib:.1} MiB from announced lengths alone");
    drop(conns);
    roundtrip(&mut warm, b"PING\r\n", b"+PONG\r\n");
}

/// Before AUTH (with --requirepass) only small requests are accepted, with Redis's texts, and a
/// client that never authenticates is closed after --unauthenticated-timeout.
#[test]
fn unauthenticated_clients_are_limited_and_timed_out() {
    let server = Server::start(&["--requirepass", "secret", "--unauthenticated-timeout", "1"]);
    let mut s = server.connect();
    send(&mut s, b"*11\r\n");
    expect(&mut s, b"-ERR Protocol error: unauthenticated multibulk length\r\n");
    expect_closed(&mut s);

    let mut s = server.connect();
    send(&mut s, b"*2\r\n$4\r\nAUTH\r\n$16385\r\n");
    expect(&mut s, b"-ERR Protocol error: unauthenticated bulk length\r\n");
    expect_closed(&mut s);

    // At the limits it is still an ordinary command (refused for want of AUTH).
    let mut s = server.connect();
    let mut ten = b"*10\r\n$4\r\nMSET\r\n".to_vec();
    for _ in 0..9 {
        ten.extend_from_slice(b"$1\r\nx\r\n");
    }
    send(&mut s, &ten);
    expect(&mut s, b"-NOAUTH Authentication required.\r\n");
    let big = "x".repeat(16 * 1024);
    send(&mut s, &common::cmd(&["ECHO", &big]));
    expect(&mut s, b"-NOAUTH Authentication required.\r\n");

    // Never authenticating: closed after about a second.
    let started = std::time::Instant::now();
    let mut idle = server.connect();
    expect_closed(&mut idle);
    let waited = started.elapsed();
    println!("unauthenticated client closed after {waited:?} (--unauthenticated-timeout 1)");

    // Once authenticated, the limits and the deadline are gone.
    let mut s = server.connect();
    roundtrip(&mut s, &common::cmd(&["AUTH", "secret"]), b"+OK\r\n");
    let args: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let mut argv = vec!["MSET"];
    argv.extend(args.iter().map(String::as_str));
    roundtrip(&mut s, &common::cmd(&argv), b"+OK\r\n");
    send(&mut s, &common::cmd(&["SET", "big", &"y".repeat(100_000)]));
    expect(&mut s, b"+OK\r\n");
    std::thread::sleep(Duration::from_millis(1500));
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
}

/// Loopback clients are served in protected mode (the default) with no password; a remote
/// peer would get -DENIED (the decision is unit-tested in `guard`, since a test on loopback
/// cannot have a non-loopback peer).
#[test]
fn protected_mode_serves_loopback() {
    let server = Server::start(&["--protected-mode", "yes"]);
    let mut s = server.connect();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
}

/// With a small file-descriptor limit, maxclients is clamped at start (logged), running out
/// of descriptors does not stop the accept loop, and PING works once connections close.
#[test]
fn out_of_file_descriptors_never_stops_the_accept_loop() {
    let server = Server::start_with_fd_limit(64, &[]);
    let log = server.log();
    assert!(log.contains("maxclients lowered from 10000 to 32"), "{log}");
    // Lift maxclients again at run time so the process really runs out of descriptors.
    let mut admin = server.connect();
    roundtrip(&mut admin, &common::cmd(&["CONFIG", "SET", "maxclients", "1000"]), b"+OK\r\n");
    let mut conns = Vec::new();
    let mut conns_waiting = Vec::new();
    for _ in 0..80 {
        let mut s = server.connect();
        send(&mut s, b"PING\r\n");
        let mut buf = [0u8; 64];
        s.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        match std::io::Read::read(&mut s, &mut buf) {
            Ok(n) if buf[..n].starts_with(b"+PONG") => conns.push(s),
            _ => conns_waiting.push(s),
        }
    }
    println!(
        "fd limit 64: {} connections served, {} left waiting (out of descriptors)",
        conns.len(),
        conns_waiting.len()
    );
    assert!(!conns_waiting.is_empty(), "the fd limit was never reached");
    drop(conns);
    drop(conns_waiting);
    std::thread::sleep(Duration::from_millis(500));
    let mut s = server.connect();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
    roundtrip(&mut admin, b"PING\r\n", b"+PONG\r\n");
    assert!(server.log().contains("accept failed"), "no accept error was logged");
}

/// A client that pipelines GETs of a big value and never reads is disconnected at the normal
/// class's output hard limit instead of growing the server's memory.
#[test]
fn client_that_never_reads_is_disconnected_at_the_output_limit() {
    let server = Server::start(&["--client-output-buffer-limit", "normal 1mb 0 0"]);
    let mut admin = server.connect();
    let value = "v".repeat(10 * 1024);
    roundtrip(&mut admin, &common::cmd(&["SET", "big", &value]), b"+OK\r\n");
    let before = vm_rss_kib(server.pid());
    let mut s = server.connect();
    let get = common::cmd(&["GET", "big"]);
    let mut sent = 0;
    // 4000 GETs = 40 MiB of replies requested; the client reads none of them.
    for _ in 0..4000 {
        if std::io::Write::write_all(&mut s, &get).is_err() {
            break;
        }
        sent += 1;
    }
    // Drain whatever the kernel holds: the server must have closed the connection.
    let mut received = 0usize;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match std::io::Read::read(&mut s, &mut buf) {
            Ok(0) => break,
            Ok(n) => received += n,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("expected the server to close the connection: {e} after {received} bytes"),
        }
    }
    let after = vm_rss_kib(server.pid());
    let growth_mib = after.saturating_sub(before) as f64 / 1024.0;
    println!(
        "client pipelining {sent} GETs of 10 KiB without reading: closed after {received} reply bytes; server RSS {before} KiB -> {after} KiB ({growth_mib:.1} MiB)"
    );
    assert!(received < sent * (value.len() + 16), "every reply was sent: no limit applied");
    assert!(growth_mib < 64.0);
    assert!(server.log().contains("output buffer limits"), "{}", server.log());
    roundtrip(&mut admin, b"PING\r\n", b"+PONG\r\n");
}
