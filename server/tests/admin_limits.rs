//! The admin port's limits against the real `vitrine` binary over loopback sockets:
//!
//! - a client that sends its headers too slowly (or nothing, or sits idle after a request) is
//!   closed after `--http-header-timeout`;
//! - a body that stalls is answered 408 after `--http-body-timeout`, one that trickles after
//!   `--http-request-timeout`, and the connection closed;
//! - `--http-max-connections` holds: connections past it are answered 503 and closed;
//! - under a 256 file-descriptor limit, 300 unfinished admin requests leave RESP PING prompt,
//!   as the admin port keeps to its share of descriptors;
//! - the benchmark history stays bounded after 20 imports of 1 MB.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::http::{get, send_json, try_request};
use common::{cmd, roundtrip, Server};

fn connect(port: u16) -> TcpStream {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect to the admin port");
    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    s
}

/// Reads until the server closes the connection (EOF or reset), returning what it sent and
/// how long after `since` it closed; `None` if it is still open at `limit`.
fn wait_closed(s: &mut TcpStream, since: Instant, limit: Duration) -> Option<(Vec<u8>, Duration)> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.checked_sub(since.elapsed())?;
        s.set_read_timeout(Some(left.max(Duration::from_millis(1)))).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return Some((got, since.elapsed())),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Some((got, since.elapsed())),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return None,
            Err(e) => panic!("read failed: {e}"),
        }
    }
}

fn status_of(response: &[u8]) -> Option<u16> {
    let text = String::from_utf8_lossy(response);
    text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

#[test]
fn slow_headers_and_idle_connections_are_closed_after_the_header_timeout() {
    let server = Server::start(&["--http-header-timeout", "1"]);
    let port = server.http_port;
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    let started = Instant::now();
    let mut conns = Vec::new();
    for i in 0..60 {
        let mut s = connect(port);
        match i % 3 {
            // Half a request head, never finished.
            0 => s.write_all(format!("GET /api/stats HTTP/1.1\r\n{host}X-Slow: 1").as_bytes()).unwrap(),
            // Nothing at all.
            1 => {}
            // A whole request, answered, then the connection left idle (keep-alive).
            _ => s.write_all(format!("GET /healthz HTTP/1.1\r\n{host}\r\n").as_bytes()).unwrap(),
        }
        conns.push(s);
    }
    let mut latest = Duration::ZERO;
    for (i, s) in conns.iter_mut().enumerate() {
        let (got, after) = wait_closed(s, started, Duration::from_secs(8))
            .unwrap_or_else(|| panic!("connection {i} still open 8 s after a 1 s header timeout"));
        if i % 3 == 2 {
            assert_eq!(status_of(&got), Some(200), "{}", String::from_utf8_lossy(&got));
        }
        latest = latest.max(after);
    }
    println!("60 slow connections (header timeout 1 s) all closed within {latest:?}");
    assert!(latest >= Duration::from_millis(900), "closed before the timeout: {latest:?}");
    get(port, "/healthz").expect(200);
    // The live stream is a response being written, not a head being read: it outlives the
    // header timeout.
    let mut stream = common::http::open(port, "GET", "/api/stats/stream", &[], None);
    let text = common::http::read_until(&mut stream, Duration::from_secs(8), |t| t.matches("data:").count() >= 3);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(!server.log().contains("panicked"));
}

#[test]
fn a_slow_body_is_answered_408_and_closed() {
    let server = Server::start(&["--http-body-timeout", "1", "--http-request-timeout", "2"]);
    let port = server.http_port;
    let head = |len: usize| {
        format!(
            "POST /api/command HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Content-Length: {len}\r\n\r\n"
        )
    };
    // A body that stops: 10 of 100 bytes, then nothing.
    let mut stalled = connect(port);
    let started = Instant::now();
    stalled.write_all(format!("{}[\"SET\",\"k\"", head(100)).as_bytes()).unwrap();
    let (got, after) = wait_closed(&mut stalled, started, Duration::from_secs(8)).expect("a stalled body is closed");
    assert_eq!(status_of(&got), Some(408), "{}", String::from_utf8_lossy(&got));
    assert!(after >= Duration::from_millis(900) && after < Duration::from_secs(4), "{after:?}");
    println!("stalled body (body timeout 1 s): 408 and closed after {after:?}");

    // A body that trickles a byte every 200 ms: never idle for the body timeout, stopped by
    // the request timeout.
    let mut trickle = connect(port);
    let started = Instant::now();
    trickle.write_all(head(1000).as_bytes()).unwrap();
    trickle.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let after = loop {
        assert!(started.elapsed() < Duration::from_secs(8), "a trickling body is still open after 8 s");
        if trickle.write_all(b" ").is_err() {
            break started.elapsed();
        }
        match trickle.read(&mut buf) {
            Ok(0) => break started.elapsed(),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break started.elapsed(),
            Err(_) => {}
        }
    };
    assert_eq!(status_of(&got), Some(408), "{}", String::from_utf8_lossy(&got));
    assert!(after >= Duration::from_millis(1900) && after < Duration::from_secs(5), "{after:?}");
    println!("trickling body (request timeout 2 s): 408 and closed after {after:?}");

    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["EXISTS", "k"]), b":0\r\n");
    // The live stream is a response, not a request: it outlives both timeouts.
    let mut stream = common::http::open(port, "GET", "/api/stats/stream", &[], None);
    let text = common::http::read_until(&mut stream, Duration::from_secs(8), |t| t.matches("data:").count() >= 4);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
}

#[test]
fn connections_past_the_cap_are_refused() {
    let server = Server::start(&["--http-max-connections", "8"]);
    let port = server.http_port;
    // Eight connections that hold their slots (the header timeout is 10 s).
    let held: Vec<TcpStream> = (0..8).map(|_| connect(port)).collect();
    std::thread::sleep(Duration::from_millis(300));
    for i in 0..20 {
        let mut s = connect(port);
        let (got, after) = wait_closed(&mut s, Instant::now(), Duration::from_secs(3))
            .unwrap_or_else(|| panic!("connection {} over the cap was kept open", 9 + i));
        assert_eq!(status_of(&got), Some(503), "{}", String::from_utf8_lossy(&got));
        assert!(String::from_utf8_lossy(&got).contains("too_many_connections"));
        assert!(after < Duration::from_secs(1), "{after:?}");
    }
    assert!(server.log().contains("refusing more"), "{}", server.log());
    drop(held);
    // The slots come back once those connections close.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        // Refused: a 503, or a reset when the refusal closed the socket under our request.
        match try_request(port, "GET", "/healthz", &[]) {
            Ok(r) if r.status == 200 => break,
            Ok(r) => assert_eq!(r.status, 503),
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
        }
        assert!(Instant::now() < deadline, "the cap's slots never came back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The report's scenario: a 256 file-descriptor limit, an admin token, 300 unfinished admin
/// requests. Before the admin port had a budget they took every descriptor and RESP PINGs
/// timed out.
#[test]
fn an_admin_flood_under_a_low_fd_limit_leaves_resp_answering() {
    let server = Server::start_with_fd_limit(256, &["--admin-token", "flood-token"]);
    let log = server.log();
    assert!(log.contains("the admin port keeps 32 of them"), "{log}");
    let port = server.http_port;
    let mut flood = Vec::new();
    for _ in 0..300 {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(2)) else { continue };
        let _ = s.write_all(format!("POST /api/command HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthor").as_bytes());
        flood.push(s);
    }
    std::thread::sleep(Duration::from_millis(500));
    // Which of them the admin port kept (no answer yet) and which it refused.
    let mut held = 0;
    for s in &mut flood {
        s.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 256];
        match s.read(&mut buf) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => held += 1,
            _ => {}
        }
    }
    println!("fd limit 256: {} admin connections opened, {held} held by the admin port", flood.len());
    assert!(held <= 32, "the admin port kept {held} connections, over its budget of 32");

    // RESP answers at once, on new connections, many of them.
    let mut worst = Duration::ZERO;
    let mut clients = Vec::new();
    for _ in 0..150 {
        let t0 = Instant::now();
        let mut s = server.connect();
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        roundtrip(&mut s, b"PING\r\n", b"+PONG\r\n");
        worst = worst.max(t0.elapsed());
        clients.push(s);
    }
    println!("fd limit 256, 300 admin connections open: 150 RESP connect+PING, worst {worst:?}");
    assert!(worst < Duration::from_millis(500), "a PING took {worst:?}");
    drop(flood);
    drop(clients);
    // Once the flood is gone the admin port serves again. The server notices the 300 closes
    // in its own time (slower on a loaded machine), so a request may still be refused (503,
    // or a reset while it drops the flood) for a moment: ask until it answers, within a bound.
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        match try_request(port, "GET", "/api/stats", &[("Authorization", "Bearer flood-token")]) {
            Ok(r) if r.status == 200 => break 200,
            Ok(r) if Instant::now() >= deadline => break r.status,
            Err(e) if Instant::now() >= deadline => panic!("the admin port still refuses: {e}"),
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    assert_eq!(status, 200, "the admin port did not serve again within 10 s of the flood's end");
}

fn vm_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

#[test]
fn twenty_imports_of_a_megabyte_keep_the_history_bounded() {
    let dir = std::env::temp_dir().join(format!("vitrine-history-bound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let server = Server::start(&["--dir", dir.to_str().unwrap()]);
    let port = server.http_port;
    let before = vm_rss_kib(server.pid());
    for n in 0..20 {
        let doc = serde_json::json!({
            "schema": "vitrine-bench/1",
            "id": format!("big-{n}"),
            "runs": [{ "server": "vitrine", "test": "SET", "ops_per_sec": 1, "notes": "n".repeat(1000 * 1024) }],
        });
        let r = send_json(port, "POST", "/api/bench/import", &doc);
        assert_eq!(r.expect(200)["imported"], 1);
    }
    let file = dir.join("vitrine-bench.json");
    let size = std::fs::metadata(&file).expect("the history file").len();
    let runs = get(port, "/api/bench").expect(200)["runs"].as_array().map_or(0, Vec::len);
    let after = vm_rss_kib(server.pid());
    println!(
        "20 imports of 1 MB: {runs} runs kept, history file {size} bytes, RSS {before} -> {after} KiB (+{} KiB)",
        after.saturating_sub(before)
    );
    assert!(size <= 4 * 1024 * 1024 + 64, "{size} bytes");
    assert!((1..20).contains(&runs), "{runs} runs");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
