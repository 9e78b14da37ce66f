//! Memory and connections stay bounded whatever a client sends, against the real `vitrine`
//! binary over loopback: a small packet of GETs on a big value cannot make the server build
//! gigabytes of replies (the output limit is checked while replies are produced), clients that
//! never authenticate and never read are closed at a small output allowance, password guessing
//! on one connection is slowed down, and `CONFIG SET client-output-buffer-limit` applies to
//! connections that are already open.
//!
//! The figures are printed (`cargo test -p vitrine-server --test resp_limits -- --nocapture`).

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::proc::{info_field, read_bulk, status_bytes};
use common::{cmd, expect, roundtrip, Server};

const MIB: u64 = 1024 * 1024;
/// The big value: 4 MiB, as in the issue.
const BIG: usize = 4 * 1024 * 1024;
/// The stated bound on the server's peak RSS (VmHWM) while one connection asks for
/// gigabytes of replies: a 64 MiB output limit, one 4 MiB reply past it, the 4 MiB value,
/// the process's own baseline and the allocator's slack.
const PEAK_RSS_BOUND: u64 = 200 * MIB;

/// A server with `big` holding 4 MiB of `b`, and the connection that set it.
fn server_with_big_value(args: &[&str]) -> (Server, TcpStream) {
    let server = Server::start(args);
    let mut admin = server.connect();
    let value = "b".repeat(BIG);
    roundtrip(&mut admin, &cmd(&["SET", "big", &value]), b"+OK\r\n");
    (server, admin)
}

/// `n` pipelined `GET big` followed each by `ECHO <i>`, so the order of the replies can be
/// checked: one small packet that asks for `n` x 4 MiB of replies.
fn gets_with_echoes(n: usize) -> Vec<u8> {
    let mut packet = Vec::new();
    for i in 0..n {
        packet.extend_from_slice(&cmd(&["GET", "big"]));
        packet.extend_from_slice(&cmd(&["ECHO", &i.to_string()]));
    }
    packet
}

/// Polls `INFO` until `done` holds for the field's value, for at most `limit`.
fn wait_for_info(admin: &mut TcpStream, section: &str, name: &str, limit: Duration, done: impl Fn(u64) -> bool) -> u64 {
    let deadline = Instant::now() + limit;
    loop {
        let value = info_field(admin, section, name).unwrap_or_else(|| panic!("INFO {section} has no {name}"));
        if done(value) || Instant::now() > deadline {
            return value;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads until the server closes the connection; answers the bytes received.
fn drain_until_closed(s: &mut TcpStream) -> usize {
    let mut received = 0usize;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return received,
            Ok(n) => received += n,
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return received,
            Err(e) => panic!("expected the server to close the connection: {e} after {received} bytes"),
        }
    }
}

/// Reads the replies of `gets_with_echoes(from..to)` and checks each, in order.
fn expect_gets_with_echoes(s: &mut TcpStream, range: std::ops::Range<usize>) {
    for i in range {
        let value = read_bulk(s);
        assert_eq!(value.len(), BIG, "GET number {i}");
        assert!(value.iter().all(|&b| b == b'b'), "GET number {i} returned other bytes");
        assert_eq!(read_bulk(s), i.to_string().as_bytes(), "ECHO {i} out of order");
    }
}

/// The case: one 7 KB packet of GETs on a 4 MiB value, never read, with
/// `normal 64mb 16mb 10`. The replies are checked against the hard limit while they are
/// produced, so the server stops at 64 MiB and disconnects the client, instead of building
/// 1.3 GB of replies first.
#[test]
fn a_packet_of_gets_on_a_big_value_is_cut_off_at_the_hard_limit() {
    const GETS: usize = 320;
    let (server, mut admin) = server_with_big_value(&["--client-output-buffer-limit", "normal 64mb 16mb 10"]);
    let rss_before = status_bytes(server.pid(), "VmRSS:");
    let packet: Vec<u8> = (0..GETS).flat_map(|_| cmd(&["GET", "big"])).collect();
    let mut s = server.connect();
    s.write_all(&packet).expect("write the packet");
    let clients = wait_for_info(&mut admin, "clients", "connected_clients", Duration::from_secs(20), |n| n == 1);
    let hwm = status_bytes(server.pid(), "VmHWM:");
    let received = drain_until_closed(&mut s);
    println!(
        "{} B packet of {GETS} GETs on a 4 MiB value (normal 64mb 16mb 10): RSS before {:.1} MiB, peak {:.1} MiB \
         (bound {} MiB); client closed after {:.1} MiB of {} MiB of replies",
        packet.len(),
        rss_before as f64 / MIB as f64,
        hwm as f64 / MIB as f64,
        PEAK_RSS_BOUND / MIB,
        received as f64 / MIB as f64,
        GETS as u64 * BIG as u64 / MIB,
    );
    assert!(hwm < PEAK_RSS_BOUND, "peak RSS {hwm} B: the replies were built past the limit");
    assert_eq!(clients, 1, "the client was not disconnected");
    assert!((received as u64) < 64 * MIB + BIG as u64 * 4, "{received} B received: more than the limit allows");
    assert_eq!(info_field(&mut admin, "stats", "client_output_buffer_limit_disconnections"), Some(1));
    assert!(server.log().contains("output buffer limits"), "{}", server.log());
    roundtrip(&mut admin, b"PING\r\n", b"+PONG\r\n");
}

/// With Redis's default `normal 0 0 0` (no limit) the server's own cap applies while
/// replies are produced: it stops running the client's commands at 64 MiB of unsent
/// replies and waits, the rest of the input kept; once the client reads, every reply
/// arrives, complete and in order.
#[test]
fn without_a_limit_the_server_pauses_a_client_that_does_not_read_and_resumes_when_it_does() {
    const PAIRS: usize = 150;
    let (server, mut admin) = server_with_big_value(&[]);
    let commands_before = info_field(&mut admin, "stats", "total_commands_processed").expect("INFO field");
    let mut s = server.connect();
    let packet = gets_with_echoes(PAIRS);
    s.write_all(&packet).expect("write the packet");
    std::thread::sleep(Duration::from_millis(1500));
    let hwm = status_bytes(server.pid(), "VmHWM:");
    // The INFO command itself counts one.
    let ran = info_field(&mut admin, "stats", "total_commands_processed").expect("INFO field") - commands_before - 1;
    println!(
        "{} B packet asking for {PAIRS} x 4 MiB of replies, not read for 1.5 s (normal 0 0 0): {ran} of {} commands \
         ran, peak RSS {:.1} MiB (bound {} MiB)",
        packet.len(),
        PAIRS * 2,
        hwm as f64 / MIB as f64,
        PEAK_RSS_BOUND / MIB
    );
    assert!(hwm < PEAK_RSS_BOUND, "peak RSS {hwm} B while the client did not read");
    assert!(ran < PAIRS as u64, "{ran} commands ran while the client read nothing");
    let started = Instant::now();
    expect_gets_with_echoes(&mut s, 0..PAIRS);
    println!("then read all {} MiB of replies in order in {:.1?}", PAIRS as u64 * BIG as u64 / MIB, started.elapsed());
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
    assert_eq!(info_field(&mut admin, "stats", "client_output_buffer_limit_disconnections"), Some(0));
}

/// `CONFIG SET client-output-buffer-limit` for the normal class reaches a connection opened
/// before it (as Redis, which checks every client against the current limits). A soft-only
/// limit pauses the client at the soft limit; a client that reads within the soft seconds
/// gets every reply, one that stays over it longer than the soft seconds is closed.
#[test]
fn config_set_normal_limits_apply_to_open_connections_soft_limit_with_its_seconds() {
    const PAIRS: usize = 40;
    let (server, mut admin) = server_with_big_value(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
    roundtrip(&mut admin, &cmd(&["CONFIG", "SET", "client-output-buffer-limit", "normal 0 16mb 10"]), b"+OK\r\n");

    let commands_before = info_field(&mut admin, "stats", "total_commands_processed").expect("INFO field");
    s.write_all(&gets_with_echoes(PAIRS)).expect("write the packet");
    std::thread::sleep(Duration::from_millis(1000));
    let ran = info_field(&mut admin, "stats", "total_commands_processed").expect("INFO field") - commands_before - 1;
    println!("normal 0 16mb 10 set on an open connection: {ran} of {} commands ran while it did not read", PAIRS * 2);
    // 16 MiB is four replies; the kernel's socket buffers take a few more. Without the soft
    // limit the server would pause at 64 MiB (16 pairs, 31 commands).
    assert!(ran < 20, "{ran} commands ran: the soft limit did not pause the client");
    expect_gets_with_echoes(&mut s, 0..PAIRS);
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
    assert_eq!(info_field(&mut admin, "stats", "client_output_buffer_limit_disconnections"), Some(0));

    // Over the soft limit for longer than its seconds: closed.
    roundtrip(&mut admin, &cmd(&["CONFIG", "SET", "client-output-buffer-limit", "normal 0 16mb 1"]), b"+OK\r\n");
    let started = Instant::now();
    s.write_all(&gets_with_echoes(PAIRS)).expect("write the packet");
    let closed =
        wait_for_info(&mut admin, "stats", "client_output_buffer_limit_disconnections", Duration::from_secs(10), |n| {
            n == 1
        });
    let after = started.elapsed();
    println!("normal 0 16mb 1: a client over the soft limit that does not read was closed after {after:.1?}");
    assert_eq!(closed, 1, "the client over the soft limit was not closed");
    assert!(after >= Duration::from_secs(1), "closed after {after:?}, before the soft seconds passed");
    drain_until_closed(&mut s);

    // A hard limit set at run time closes the next client that passes it.
    roundtrip(&mut admin, &cmd(&["CONFIG", "SET", "client-output-buffer-limit", "normal 8mb 0 0"]), b"+OK\r\n");
    let mut t = server.connect();
    t.write_all(&gets_with_echoes(PAIRS)).expect("write the packet");
    let closed =
        wait_for_info(&mut admin, "stats", "client_output_buffer_limit_disconnections", Duration::from_secs(10), |n| {
            n == 2
        });
    assert_eq!(closed, 2, "the client over the hard limit set at run time was not closed");
    drain_until_closed(&mut t);
}

/// Clients that never authenticate (with --requirepass) and never read their -NOAUTH replies
/// are closed once a small amount of replies waits for them (Redis 7 since CVE-2025-21605),
/// long before the unauthenticated timeout, and the server's memory stays small. Each client
/// asks the kernel for a small receive buffer, so the replies pile up at the server quickly.
#[test]
fn unauthenticated_clients_that_do_not_read_are_closed_at_a_small_output_limit() {
    const CLIENTS: usize = 20;
    /// Each client gives up after this much input (about 230 MiB of -NOAUTH replies), or
    /// after `GIVE_UP`.
    const WRITE_CAP: usize = 48 * 1024 * 1024;
    const GIVE_UP: Duration = Duration::from_secs(20);
    /// The stated bound on the server's RSS growth over the flood.
    const GROWTH_BOUND: u64 = 64 * MIB;
    let server = Server::start(&["--requirepass", "secret", "--unauthenticated-timeout", "120"]);
    let mut admin = server.connect();
    roundtrip(&mut admin, &cmd(&["AUTH", "secret"]), b"+OK\r\n");
    let rss_before = status_bytes(server.pid(), "VmRSS:");
    let addr = server.addr();
    let started = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            std::thread::spawn(move || {
                let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
                socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
                socket.connect_timeout(&addr.into(), common::IO_TIMEOUT).expect("connect");
                let mut s: TcpStream = socket.into();
                s.set_write_timeout(Some(Duration::from_secs(1))).expect("write timeout");
                let chunk = b"GET k\r\n".repeat(64 * 1024 / 7);
                let mut written = 0usize;
                while written < WRITE_CAP && started.elapsed() < GIVE_UP {
                    match s.write(&chunk) {
                        Ok(n) => written += n,
                        Err(e) if matches!(e.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset) => {
                            return (true, written)
                        }
                        // Not read from: the server stopped reading this client, still open.
                        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                        Err(e) => panic!("write: {e}"),
                    }
                }
                (false, written)
            })
        })
        .collect();
    let mut peak = 0;
    while clients.iter().any(|c| !c.is_finished()) {
        peak = peak.max(status_bytes(server.pid(), "VmRSS:"));
        std::thread::sleep(Duration::from_millis(10));
    }
    let results: Vec<(bool, usize)> = clients.into_iter().map(|c| c.join().expect("client")).collect();
    let closed = results.iter().filter(|(closed, _)| *closed).count();
    let most = results.iter().map(|(_, w)| *w).max().unwrap_or(0);
    let growth = peak.saturating_sub(rss_before);
    println!(
        "{CLIENTS} unauthenticated clients sending GETs and never reading: {closed} closed in {:.1?} (the most any \
         wrote: {:.1} MiB); server RSS {:.1} MiB -> peak {:.1} MiB (growth {:.1} MiB, bound {} MiB)",
        started.elapsed(),
        most as f64 / MIB as f64,
        rss_before as f64 / MIB as f64,
        peak as f64 / MIB as f64,
        growth as f64 / MIB as f64,
        GROWTH_BOUND / MIB
    );
    assert_eq!(closed, CLIENTS, "not every unauthenticated client was closed: {results:?}");
    assert!(growth < GROWTH_BOUND, "RSS grew {growth} B");
    let disconnections = info_field(&mut admin, "stats", "client_output_buffer_limit_disconnections");
    assert_eq!(disconnections, Some(CLIENTS as u64));
    roundtrip(&mut admin, b"PING\r\n", b"+PONG\r\n");
}

/// Wrong passwords on one connection are slowed down: each failure holds that connection's
/// reply and its next command back, longer after each failure. Pipelined guesses do not
/// run ahead of the delay, so a guess cannot be followed at once by a command that uses it.
/// INFO counts the failures as Redis 7.2 does (`acl_access_denied_auth` in Stats).
#[test]
fn wrong_passwords_are_slowed_down_and_counted() {
    const TRIES: u64 = 5;
    let server = Server::start(&["--requirepass", "secret"]);
    let mut admin = server.connect();
    roundtrip(&mut admin, &cmd(&["AUTH", "secret"]), b"+OK\r\n");

    let wrongpass = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n";
    let mut s = server.connect();
    let started = Instant::now();
    let mut waits = Vec::new();
    for i in 0..TRIES {
        let at = Instant::now();
        s.write_all(&cmd(&["AUTH", &format!("guess{i}")])).expect("write AUTH");
        expect(&mut s, wrongpass);
        waits.push(at.elapsed());
    }
    let elapsed = started.elapsed();
    println!(
        "{TRIES} wrong AUTHs on one connection took {elapsed:.2?} ({:.1} attempts/s); each reply waited {waits:.0?}",
        TRIES as f64 / elapsed.as_secs_f64()
    );
    // 100 + 200 + 400 + 800 + 1000 ms as designed; the bound is generous and only from below.
    assert!(elapsed >= Duration::from_secs(1), "{TRIES} failures in {elapsed:?}: not slowed down");
    assert!(waits[TRIES as usize - 1] >= Duration::from_millis(400), "the last failure waited {waits:?}");
    assert_eq!(info_field(&mut admin, "stats", "acl_access_denied_auth"), Some(TRIES));
    // The right password still works after failures (after the delay).
    roundtrip(&mut s, &cmd(&["AUTH", "secret"]), b"+OK\r\n");

    // A pipeline of guesses, each followed by a write: the writes behind a wrong guess wait.
    let mut p = server.connect();
    let mut packet = Vec::new();
    for i in 0..50 {
        packet.extend_from_slice(&cmd(&["AUTH", &format!("guess{i}")]));
    }
    packet.extend_from_slice(&cmd(&["AUTH", "secret"]));
    packet.extend_from_slice(&cmd(&["SET", "pwned", "1"]));
    p.write_all(&packet).expect("write the pipeline");
    std::thread::sleep(Duration::from_millis(1000));
    roundtrip(&mut admin, &cmd(&["EXISTS", "pwned"]), b":0\r\n");
    let failures = info_field(&mut admin, "stats", "acl_access_denied_auth").expect("INFO field") - TRIES;
    println!("a pipeline of 50 wrong AUTHs then the right one: {failures} guesses ran in the first second");
    assert!(failures < 10, "{failures} pipelined guesses ran in one second");
}

/// A client whose commands are held back while it slowly reads their replies is not idle:
/// with `timeout 1`, one that takes three seconds to read 120 MiB keeps its connection.
#[test]
fn a_client_slowly_reading_held_back_replies_is_not_idle() {
    const PAIRS: usize = 30;
    let (server, _admin) =
        server_with_big_value(&["--timeout", "1", "--client-output-buffer-limit", "normal 0 8mb 60"]);
    let mut s = server.connect();
    s.write_all(&gets_with_echoes(PAIRS)).expect("write the packet");
    let started = Instant::now();
    for i in 0..PAIRS {
        std::thread::sleep(Duration::from_millis(100));
        expect_gets_with_echoes(&mut s, i..i + 1);
    }
    println!("timeout 1: {PAIRS} x 4 MiB read over {:.1?}, connection kept", started.elapsed());
    roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
}
