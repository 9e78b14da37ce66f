//! Socket-level tests of CLIENT's connection controls and MONITOR against the real
//! `vitrine` binary: CLIENT PAUSE holding writes until it ends, REPLY OFF/SKIP, KILL's
//! filters closing real connections, CLIENT LIST's buffer figures, and a MONITOR
//! connection's lines (and `redis-cli monitor`'s, when redis-cli is installed).

mod common;

use std::time::{Duration, Instant};

use common::{cmd, expect, expect_closed, expect_silence, read_line, roundtrip, send, Server};

fn text(line: Vec<u8>) -> String {
    String::from_utf8_lossy(&line).into_owned()
}

#[test]
fn pause_write_holds_writes_until_it_ends_or_unpause() {
    let server = Server::start(&[]);
    let mut admin = server.connect();
    let mut c = server.connect();
    roundtrip(&mut admin, &cmd(&["CLIENT", "PAUSE", "600", "WRITE"]), b"+OK\r\n");
    let start = Instant::now();
    // The read answers at once; the write and the read behind it wait for the pause's end.
    let mut batch = cmd(&["GET", "k"]);
    batch.extend(cmd(&["SET", "k", "v"]));
    batch.extend(cmd(&["GET", "k"]));
    send(&mut c, &batch);
    expect(&mut c, b"$-1\r\n");
    expect_silence(&mut c, Duration::from_millis(200));
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    expect(&mut c, b"+OK\r\n$1\r\nv\r\n");
    assert!(start.elapsed() >= Duration::from_millis(550), "{:?}", start.elapsed());
    // ALL holds reads too, until CLIENT UNPAUSE (from a connection paused too: Redis's
    // UNPAUSE would wait as well, so this test unpauses through a pipeline already read).
    let mut pipeline = cmd(&["CLIENT", "PAUSE", "1500", "ALL"]);
    pipeline.extend(cmd(&["CLIENT", "UNPAUSE"]));
    send(&mut c, &pipeline);
    expect(&mut c, b"+OK\r\n");
    roundtrip(&mut admin, &cmd(&["PING"]), b"");
    expect_silence(&mut admin, Duration::from_millis(200));
    admin.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let waited = Instant::now();
    expect(&mut admin, b"+PONG\r\n");
    expect(&mut c, b"+OK\r\n");
    assert!(waited.elapsed() >= Duration::from_millis(1000), "held until the pause ended");
}

#[test]
fn reply_off_and_skip_silence_replies() {
    let server = Server::start(&[]);
    let mut c = server.connect();
    let mut batch = cmd(&["CLIENT", "REPLY", "OFF"]);
    batch.extend(cmd(&["SET", "a", "1"]));
    batch.extend(cmd(&["CLIENT", "REPLY", "SKIP"]));
    batch.extend(cmd(&["CLIENT", "REPLY", "ON"]));
    batch.extend(cmd(&["CLIENT", "REPLY", "SKIP"]));
    batch.extend(cmd(&["GET", "a"]));
    batch.extend(cmd(&["INCR", "a"]));
    send(&mut c, &batch);
    expect(&mut c, b"+OK\r\n:2\r\n");
    expect_silence(&mut c, Duration::from_millis(100));
}

#[test]
fn reply_off_silences_a_blocked_commands_late_reply() {
    let server = Server::start(&[]);
    let mut c = server.connect();
    let mut pusher = server.connect();
    let mut batch = cmd(&["CLIENT", "REPLY", "OFF"]);
    batch.extend(cmd(&["BLPOP", "q", "0"]));
    send(&mut c, &batch);
    let blocked = Instant::now();
    while common::proc::info_field(&mut pusher, "clients", "blocked_clients") != Some(1) {
        assert!(blocked.elapsed() < Duration::from_secs(5), "BLPOP never blocked");
        std::thread::sleep(Duration::from_millis(10));
    }
    roundtrip(&mut pusher, &cmd(&["RPUSH", "q", "x"]), b":1\r\n");
    // Served (the element is gone), and nothing is sent until replies are back on.
    roundtrip(&mut pusher, &cmd(&["LLEN", "q"]), b":0\r\n");
    expect_silence(&mut c, Duration::from_millis(100));
    let mut batch = cmd(&["CLIENT", "REPLY", "ON"]);
    batch.extend(cmd(&["PING"]));
    send(&mut c, &batch);
    expect(&mut c, b"+OK\r\n+PONG\r\n");
}

#[test]
fn info_counts_socket_reads_and_writes() {
    let server = Server::start(&[]);
    let mut c = server.connect();
    let field = |c: &mut std::net::TcpStream, name: &str| {
        common::proc::info_field(c, "stats", name).unwrap_or_else(|| panic!("no {name}"))
    };
    let (reads, writes) = (field(&mut c, "total_reads_processed"), field(&mut c, "total_writes_processed"));
    for _ in 0..5 {
        roundtrip(&mut c, &cmd(&["PING"]), b"+PONG\r\n");
    }
    // Each INFO and PING is one read and one write at least (the INFO just above included).
    assert!(field(&mut c, "total_reads_processed") >= reads + 6);
    assert!(field(&mut c, "total_writes_processed") >= writes + 6);
    // A connection that closes is a read too (of the end of file).
    let before = field(&mut c, "total_reads_processed");
    drop(server.connect());
    let start = Instant::now();
    while field(&mut c, "total_reads_processed") < before + 2 {
        assert!(start.elapsed() < Duration::from_secs(5), "the closed connection's read was not counted");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn kill_filters_close_the_matching_connections() {
    let server = Server::start(&[]);
    let mut me = server.connect();
    let mut sub = server.connect();
    roundtrip(&mut sub, &cmd(&["SUBSCRIBE", "ch"]), b"*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
    let mut plain = server.connect();
    roundtrip(&mut plain, &cmd(&["PING"]), b"+PONG\r\n");
    roundtrip(&mut me, &cmd(&["CLIENT", "KILL", "TYPE", "nope"]), b"-ERR Unknown client type 'nope'\r\n");
    roundtrip(&mut me, &cmd(&["CLIENT", "KILL", "USER", "bob"]), b"-ERR No such user 'bob'\r\n");
    roundtrip(&mut me, &cmd(&["CLIENT", "KILL", "TYPE", "pubsub"]), b":1\r\n");
    expect_closed(&mut sub);
    roundtrip(&mut me, &cmd(&["CLIENT", "KILL", "TYPE", "normal", "USER", "default"]), b":1\r\n");
    expect_closed(&mut plain);
    roundtrip(&mut me, &cmd(&["CLIENT", "KILL", "TYPE", "normal"]), b":0\r\n");
    // The caller's own line shows its buffers and the command running.
    send(&mut me, &cmd(&["CLIENT", "INFO"]));
    let header = text(read_line(&mut me));
    let len: usize = header.trim_start_matches('$').trim().parse().unwrap();
    let info = text(common::read_n(&mut me, len + 2));
    assert!(info.contains(" cmd=client|info ") && info.contains(" argv-mem=10 "), "{info}");
    assert!(!info.contains(" qbuf-free=0 "), "the server reports its input buffer: {info}");
}

#[test]
fn monitor_streams_other_clients_commands_in_redis_format() {
    let server = Server::start(&[]);
    let mut m = server.connect();
    roundtrip(&mut m, &cmd(&["MONITOR"]), b"+OK\r\n");
    let mut c = server.connect();
    let local = c.local_addr().unwrap().to_string();
    roundtrip(&mut c, &cmd(&["SELECT", "3"]), b"+OK\r\n");
    roundtrip(&mut c, &cmd(&["SET", "key", "va\"l\n"]), b"+OK\r\n");
    roundtrip(&mut c, &cmd(&["AUTH", "pw"]), b"-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n");
    roundtrip(&mut c, &cmd(&["CONFIG", "GET", "port"]), b"");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    let lines: Vec<String> = (0..3).map(|_| text(read_line(&mut m))).collect();
    let want = [
        format!("[3 {local}] \"SELECT\" \"3\"\r\n"),
        format!("[3 {local}] \"SET\" \"key\" \"va\\\"l\\n\"\r\n"),
        format!("[3 {local}] \"AUTH\" \"(redacted)\"\r\n"),
    ];
    for (line, want) in lines.iter().zip(&want) {
        let (stamp, rest) = line.split_once(' ').unwrap();
        assert_eq!(rest, want);
        let t: f64 = stamp.trim_start_matches('+').parse().unwrap();
        assert!((now - t).abs() < 5.0 && stamp.split_once('.').unwrap().1.len() == 6, "{line}");
    }
    // CONFIG is administrative: not shown. QUIT ends the monitor.
    expect_silence(&mut m, Duration::from_millis(100));
    send(&mut m, &cmd(&["QUIT"]));
    // Its own QUIT is shown first (QUIT runs as a command, as in Redis 7.2).
    assert!(text(read_line(&mut m)).ends_with("\"QUIT\"\r\n"));
    expect(&mut m, b"+OK\r\n");
    expect_closed(&mut m);
}

#[test]
fn redis_cli_monitor_prints_the_lines() {
    let Ok(_) = std::process::Command::new("redis-cli").arg("--version").output() else {
        eprintln!("redis-cli not installed: skipped");
        return;
    };
    let server = Server::start(&[]);
    let port = server.addr().port().to_string();
    let mut child = std::process::Command::new("redis-cli")
        .args(["-p", &port, "monitor"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut c = server.connect();
    // Wait for the monitor to be registered, then run a command it must show.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        send(&mut c, &cmd(&["CLIENT", "LIST"]));
        let header = text(read_line(&mut c));
        let len: usize = header.trim_start_matches('$').trim().parse().unwrap();
        let list = text(common::read_n(&mut c, len + 2));
        if list.contains("flags=O") || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    roundtrip(&mut c, &cmd(&["SET", "seen", "yes"]), b"+OK\r\n");
    std::thread::sleep(Duration::from_millis(300));
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("OK") && stdout.contains("\"SET\" \"seen\" \"yes\""), "{stdout}");
}

#[test]
fn admin_api_lists_and_closes_clients_and_shows_the_monitor() {
    let server = Server::start(&[]);
    let mut c = server.connect();
    roundtrip(&mut c, &cmd(&["CLIENT", "SETNAME", "worker"]), b"+OK\r\n");
    let view = common::http::get(server.http_port, "/api/clients").expect(200);
    let rows = view["clients"].as_array().unwrap();
    let worker = rows.iter().find(|r| r["name"] == "worker").expect("the named client is listed");
    assert_eq!(worker["last_command"], "client|setname");
    let id = worker["id"].as_u64().unwrap();
    // The monitor view: recording starts when first asked.
    let first = common::http::get(server.http_port, "/api/monitor").expect(200);
    roundtrip(&mut c, &cmd(&["SET", "k", "v"]), b"+OK\r\n");
    let since = first["last_seq"].as_u64().unwrap();
    let next = common::http::get(server.http_port, &format!("/api/monitor?since={since}")).expect(200);
    let events = next["events"].as_array().unwrap();
    assert!(events.iter().any(|e| e["command"] == "set" && e["args"][0] == "\"k\""), "{next}");
    common::http::request(server.http_port, "DELETE", &format!("/api/clients/{id}"), &[], None).expect(200);
    expect_closed(&mut c);
    common::http::request(server.http_port, "DELETE", &format!("/api/clients/{id}"), &[], None).expect(404);
    common::http::request(server.http_port, "DELETE", "/api/clients/x", &[], None).expect(400);
}

#[test]
fn monitor_stream_sends_commands_as_server_sent_events() {
    let server = Server::start(&[]);
    let mut sse = common::http::open(server.http_port, "GET", "/api/monitor/stream", &[], None);
    common::http::read_until(&mut sse, Duration::from_secs(5), |t| t.contains("text/event-stream"));
    // The stream starts with what runs after it opened: a writer keeps writing meanwhile.
    let addr = server.addr();
    let writer = std::thread::spawn(move || {
        let mut c = common::connect_to(addr);
        for _ in 0..30 {
            roundtrip(&mut c, &cmd(&["SET", "streamed", "1"]), b"+OK\r\n");
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let text = common::http::read_until(&mut sse, Duration::from_secs(10), |t| {
        t.contains("event: commands") && t.contains("streamed")
    });
    writer.join().unwrap();
    assert!(text.contains("\"command\":\"set\""), "{text}");
}
