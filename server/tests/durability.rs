//! Under `appendfsync always` nobody sees a write before it is fsynced: with the AOF writer's
//! fsync held (`testing::fsync_fault`), a reader's GET, a subscriber's message and an admin API
//! read wait for it and answer once it completes, without stopping the event loop; `everysec`
//! holds no reader; a failed fsync still withholds the acknowledgement and refuses writes.
//!
//! In-process, because the hold is a test hook (`testing::fsync_fault`). The hook is
//! process-wide, so this binary holds this one test only: an integration test is a process
//! of its own, and no other test's append-only file can stall or fail with it.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use tower::ServiceExt;
use vitrine_engine::{Config, Engine, Reply};
use vitrine_server::testing::{fsync_fault, must_hold, now_ms, req, start_aof, RespListener, Setup, TempDir, TestApp};

/// Long enough for a reply that is not held to arrive many times over.
const SILENCE: Duration = Duration::from_millis(300);
/// The longest any awaited reply may take.
const LIMIT: Duration = Duration::from_secs(10);

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(LIMIT)).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

fn send(s: &mut TcpStream, args: &[&str]) {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
    }
    s.write_all(&out).expect("write");
}

/// Reads exactly `want`'s length and compares.
#[track_caller]
fn expect(s: &mut TcpStream, want: &str) {
    let mut got = vec![0; want.len()];
    s.read_exact(&mut got).unwrap_or_else(|e| panic!("waiting for {want:?}: {e}"));
    assert_eq!(String::from_utf8_lossy(&got), want);
}

/// Nothing arrives within `SILENCE`, and the connection stays open.
#[track_caller]
fn expect_silence(s: &mut TcpStream, who: &str) {
    s.set_read_timeout(Some(SILENCE)).unwrap();
    let mut buf = [0u8; 256];
    let got = s.read(&mut buf);
    s.set_read_timeout(Some(LIMIT)).unwrap();
    match got {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        Ok(0) => panic!("{who}: connection closed"),
        Ok(n) => panic!("{who} got {:?} before the fsync", String::from_utf8_lossy(&buf[..n])),
        Err(e) => panic!("{who}: {e}"),
    }
}

/// The server closes the connection without a reply.
#[track_caller]
fn expect_closed(s: &mut TcpStream, who: &str) {
    let mut buf = [0u8; 256];
    match s.read(&mut buf) {
        Ok(0) => {}
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        Ok(n) => panic!("{who} got {:?}; expected the connection closed", String::from_utf8_lossy(&buf[..n])),
        Err(e) => panic!("{who}: expected the connection closed, got {e}"),
    }
}

/// Polls `done` (every 5 ms, up to `LIMIT`).
#[track_caller]
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

// It pauses and fails fsyncs through `fsync_fault`, a hook that is process-wide: any other
// test in the same process with an append-only file would stall or fail with it, so it is
// the only test of this binary.
#[test]
fn under_appendfsync_always_nobody_sees_a_write_before_its_fsync() {
    let dir = TempDir::new("durability");
    let engine = Arc::new(Engine::new(Config::default(), now_ms(), 7));
    let aof = start_aof(&dir.0, engine.clone()).expect("start the AOF");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    // One event loop: every connection shares its thread, so a held reply must not stop it.
    let resp = rt.block_on(async { RespListener::start(engine.clone(), Some(aof.clone())) });
    let addr = resp.addr;
    let http = TestApp::over(
        engine.clone(),
        Setup { aof: Some(aof.clone()), ..Setup::default() },
        TempDir::new("durability-http"),
    );
    // Reads the keyspace in-process, past every hold.
    let mut inside = engine.new_session("test", "", 0);
    let mut peek = |argv: &[&str]| engine.call(&mut inside, argv, now_ms());

    let (mut writer, mut reader, mut other) = (connect(addr), connect(addr), connect(addr));
    let (mut subscriber, mut publisher) = (connect(addr), connect(addr));
    send(&mut writer, &["SET", "k", "v1"]);
    expect(&mut writer, "+OK\r\n");
    send(&mut subscriber, &["SUBSCRIBE", "ch"]);
    expect(&mut subscriber, "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");

    fsync_fault::hold(true);
    send(&mut writer, &["SET", "k", "v2"]);
    assert!(fsync_fault::wait_held(LIMIT), "the writer never reached the fsync of SET k v2");
    assert_eq!(peek(&["GET", "k"]), Reply::bulk("v2"), "the write is done in memory");
    send(&mut reader, &["GET", "k"]);
    send(&mut publisher, &["PUBLISH", "ch", "k is v2"]);
    let api_read = {
        let app = http.app.clone();
        rt.spawn(async move {
            let response = app.oneshot(req(Method::GET, "/api/keys/k", None)).await.expect("the router never fails");
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.expect("read body");
            (status, serde_json::from_slice::<serde_json::Value>(&body).expect("JSON"))
        })
    };
    expect_silence(&mut reader, "GET k");
    expect_silence(&mut subscriber, "the subscriber");
    expect_silence(&mut publisher, "PUBLISH");
    expect_silence(&mut writer, "SET k v2");
    assert!(!api_read.is_finished(), "GET /api/keys/k answered before the fsync");
    let stats = rt.block_on(async { tokio::time::timeout(LIMIT, http.get("/api/stats")).await });
    assert_eq!(stats.expect("the stats are not held").status, StatusCode::OK);
    // Held replies do not hold the loop: another connection's command still runs.
    send(&mut other, &["INCR", "n"]);
    wait_until("INCR n has run", || peek(&["GET", "n"]) == Reply::bulk("1"));

    fsync_fault::hold(false);
    expect(&mut writer, "+OK\r\n");
    expect(&mut reader, "$2\r\nv2\r\n");
    expect(&mut publisher, ":1\r\n");
    expect(&mut subscriber, "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$7\r\nk is v2\r\n");
    expect(&mut other, ":1\r\n");
    let (status, body) = rt.block_on(async { tokio::time::timeout(LIMIT, api_read).await }).unwrap().unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["value"], "v2", "{body}");

    // Commands held back behind a wrong password's delay and ending in QUIT: the connection
    // closes with a flush of their replies, and the SET's still waits for its fsync.
    assert_eq!(peek(&["CONFIG", "SET", "requirepass", "pw"]), Reply::Ok);
    let mut quitter = connect(addr);
    send(&mut quitter, &["AUTH", "pw"]);
    expect(&mut quitter, "+OK\r\n");
    fsync_fault::hold(true);
    for argv in [&["AUTH", "wrong"][..], &["SET", "q", "1"], &["QUIT"]] {
        send(&mut quitter, argv);
    }
    expect(&mut quitter, "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
    assert!(fsync_fault::wait_held(LIMIT), "the fsync of SET q 1 was never reached");
    expect_silence(&mut quitter, "SET q 1 before QUIT");
    fsync_fault::hold(false);
    expect(&mut quitter, "+OK\r\n+OK\r\n");
    expect_closed(&mut quitter, "after QUIT");
    assert_eq!(peek(&["CONFIG", "SET", "requirepass", ""]), Reply::Ok);

    // everysec (set at run time) holds no reader: a write that is written but not fsynced
    // is readable at once, as before.
    send(&mut writer, &["CONFIG", "SET", "appendfsync", "everysec"]);
    expect(&mut writer, "+OK\r\n");
    fsync_fault::hold(true);
    send(&mut writer, &["SET", "k", "v3"]);
    expect(&mut writer, "+OK\r\n");
    send(&mut reader, &["GET", "k"]);
    expect(&mut reader, "$2\r\nv3\r\n");
    assert!(!must_hold(&aof, u64::MAX), "everysec holds nothing");
    fsync_fault::hold(false);
    send(&mut writer, &["CONFIG", "SET", "appendfsync", "always"]);
    expect(&mut writer, "+OK\r\n");
    wait_until("everything is fsynced", || !must_hold(&aof, engine.propagation().appended()));

    // A failed fsync: the write is not acknowledged (its connection closes), nor shown to
    // a reader; writes are refused until an fsync succeeds again, then all goes on.
    fsync_fault::fail(Some("injected I/O error"));
    send(&mut writer, &["SET", "k", "v4"]);
    expect_closed(&mut writer, "SET k v4 after a failed fsync");
    send(&mut reader, &["GET", "k"]);
    expect_closed(&mut reader, "GET k of an unsynced write");
    let Reply::Verbatim(info) = peek(&["INFO", "persistence"]) else { panic!("INFO is verbatim text") };
    assert!(info.contains("aof_last_write_status:err") && info.contains("injected I/O error"), "{info}");
    assert!(matches!(peek(&["SET", "x", "1"]), Reply::Error(e) if e.starts_with("MISCONF")));
    // The dashboard's stats still answer, with the error; a key read is withheld.
    let (stats, key) = rt.block_on(async { (http.get("/api/stats").await, http.get("/api/keys/k").await) });
    assert_eq!(stats.status, StatusCode::OK);
    let error = stats.json()["persistence"]["last_write_error"].to_string();
    assert!(error.contains("injected I/O error"), "{error}");
    assert_eq!(key.status, StatusCode::SERVICE_UNAVAILABLE, "{}", key.text());
    fsync_fault::fail(None);
    wait_until("writes are accepted again", || peek(&["SET", "x", "1"]) == Reply::Ok);
    let mut reader = connect(addr);
    send(&mut reader, &["GET", "k"]);
    expect(&mut reader, "$2\r\nv4\r\n");
}
