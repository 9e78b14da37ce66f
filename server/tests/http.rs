//! The admin HTTP API against the real `vitrine` binary: writes made with a RESP client show
//! up in `/api/stats` and `/api/keys`, the SSE stream delivers samples over a real socket, a
//! small benchmark run completes and its history survives a restart, the token guards the
//! API, and an exposed admin port without a token is refused at start-up.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::http::{get, open, read_until, request, send_json};
use common::{cmd, read_line, roundtrip, Server};
use serde_json::json;

#[test]
fn resp_writes_show_up_in_stats_and_keys() {
    let server = Server::start(&[]);
    let before = get(server.http_port, "/api/stats").expect(200);
    assert_eq!(before["keys"], 0);

    let mut s = server.connect();
    for i in 0..20 {
        let key = format!("user:{i}");
        roundtrip(&mut s, &cmd(&["SET", &key, "alice"]), b"+OK\r\n");
    }
    roundtrip(&mut s, &cmd(&["SET", "session", "x", "EX", "100"]), b"+OK\r\n");
    roundtrip(&mut s, &cmd(&["GET", "user:1"]), b"$5\r\nalice\r\n");
    roundtrip(&mut s, &cmd(&["GET", "nobody"]), b"$-1\r\n");

    let stats = get(server.http_port, "/api/stats").expect(200);
    assert_eq!(stats["keys"], 21);
    assert_eq!(stats["keys_with_ttl"], 1);
    assert_eq!(stats["hits"], 1);
    assert_eq!(stats["misses"], 1);
    assert_eq!(stats["misses_never_seen"], 1);
    assert!(stats["used_memory"].as_u64().unwrap() > before["used_memory"].as_u64().unwrap());
    assert_eq!(stats["connected_clients"], 1, "the RESP connection is still open");
    assert_eq!(stats["host"]["tcp_port"], server.port);

    let list = get(server.http_port, "/api/keys?match=user:*&count=10000").expect(200);
    assert_eq!(list["cursor"], "0");
    assert_eq!(list["keys"].as_array().unwrap().len(), 20);
    let key = get(server.http_port, "/api/keys/user:7").expect(200);
    assert_eq!(key["value"], "alice");

    // And the other way: written through HTTP, read through RESP.
    send_json(server.http_port, "PUT", "/api/keys/from-http", &json!({ "value": "hi" })).expect(200);
    roundtrip(&mut s, &cmd(&["GET", "from-http"]), b"$2\r\nhi\r\n");
    request(server.http_port, "DELETE", "/api/keys/from-http", &[], None).expect(200);
    roundtrip(&mut s, &cmd(&["EXISTS", "from-http"]), b":0\r\n");

    // PATCH /api/config is CONFIG SET; CONFIG GET sees the admin port actually bound.
    send_json(server.http_port, "PATCH", "/api/config", &json!({ "maxmemory": "10mb" })).expect(200);
    roundtrip(&mut s, &cmd(&["CONFIG", "GET", "maxmemory"]), b"*2\r\n$9\r\nmaxmemory\r\n$8\r\n10485760\r\n");
    let http_port = server.http_port.to_string();
    let reply = format!("*2\r\n$9\r\nhttp-port\r\n${}\r\n{http_port}\r\n", http_port.len());
    roundtrip(&mut s, &cmd(&["CONFIG", "GET", "http-port"]), reply.as_bytes());
    let log = server.log();
    let dashboard = log.lines().find(|l| l.starts_with("  dashboard   ")).unwrap_or_default();
    assert!(dashboard.contains(&format!("http://127.0.0.1:{}/", server.http_port)), "{log}");
    assert!(log.contains("\n  admin API   no token (this machine only)"), "{log}");
}

#[test]
fn the_stream_delivers_a_sample_every_second_over_a_socket() {
    let server = Server::start(&[]);
    let mut s = open(server.http_port, "GET", "/api/stats/stream", &[], None);
    let started = Instant::now();
    let text = read_until(&mut s, Duration::from_secs(10), |t| t.matches("event: sample").count() >= 3);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.to_ascii_lowercase().contains("content-type: text/event-stream"), "{text}");
    // One at once (or after the first tick), then one a second.
    assert!(started.elapsed() >= Duration::from_millis(900), "{:?}", started.elapsed());
    let data: Vec<serde_json::Value> =
        text.lines().filter_map(|l| l.strip_prefix("data: ")).filter_map(|d| serde_json::from_str(d).ok()).collect();
    assert!(data.len() >= 2, "{text}");
    assert!(data[1]["t_ms"].as_u64() > data[0]["t_ms"].as_u64());
}

#[test]
fn a_bench_run_completes_and_its_history_survives_a_restart() {
    let dir = std::env::temp_dir().join(format!("vitrine-http-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir_arg = dir.to_str().unwrap();
    let id = {
        let server = Server::start(&["--dir", dir_arg]);
        let body = json!({ "clients": 4, "pipeline": 4, "requests": 20000, "ratio": "1:3", "value_size": 16, "key_space": 1000 });
        let run = send_json(server.http_port, "POST", "/api/bench", &body).expect(202);
        let id = run["id"].as_u64().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let run = loop {
            let run = get(server.http_port, &format!("/api/bench/{id}")).expect(200);
            if run["status"] != "running" {
                break run;
            }
            assert!(Instant::now() < deadline, "still running: {run}");
            std::thread::sleep(Duration::from_millis(100));
        };
        assert_eq!(run["status"], "completed", "{run}");
        let res = &run["results"];
        assert_eq!(res["requests"], 20000);
        assert_eq!(res["errors"], 0);
        assert!(res["ops_per_sec"].as_f64().unwrap() > 0.0, "{res}");
        let lat = &res["latency_ms"];
        assert!(lat["p50"].as_f64().unwrap() > 0.0);
        assert!(lat["p99"].as_f64().unwrap() >= lat["p50"].as_f64().unwrap());
        assert!(lat["max"].as_f64().unwrap() >= lat["p999"].as_f64().unwrap());
        assert!(!res["timeline"].as_array().unwrap().is_empty());
        // The load went through the RESP port like any client's.
        let stats = get(server.http_port, "/api/stats").expect(200);
        assert!(stats["commands_processed"].as_u64().unwrap() >= 20000);
        assert!(stats["keys"].as_u64().unwrap() > 0);
        id
    };
    assert!(dir.join("vitrine-bench.json").is_file());
    let server = Server::start(&["--dir", dir_arg]);
    let runs = get(server.http_port, "/api/bench").expect(200);
    assert_eq!(runs["runs"][0]["id"], id, "{runs}");
    assert_eq!(runs["runs"][0]["results"]["requests"], 20000);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_admin_token_guards_the_api() {
    let server = Server::start(&["--admin-token", "tok-123"]);
    let p = server.http_port;
    let missing = get(p, "/api/stats");
    assert_eq!(missing.status, 401);
    assert_eq!(missing.json()["error"]["code"], "unauthorized");
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    assert_eq!(request(p, "GET", "/api/stats", &[("Authorization", "Bearer wrong")], None).status, 401);
    assert_eq!(request(p, "GET", "/metrics", &[], None).status, 401);
    request(p, "GET", "/api/stats", &[("Authorization", "Bearer tok-123")], None).expect(200);
    let metrics = request(p, "GET", "/metrics", &[("Authorization", "Bearer tok-123")], None);
    assert_eq!(metrics.status, 200);
    assert!(metrics.text().contains("vitrine_evicted_keys_total 0"));
    get(p, "/healthz").expect(200);
    get(p, "/readyz").expect(200);
    // The token is not shown anywhere it should not be.
    let mut s = server.connect();
    s.set_read_timeout(Some(common::IO_TIMEOUT)).unwrap();
    common::send(&mut s, &cmd(&["CONFIG", "GET", "admin-token"]));
    assert_eq!(read_line(&mut s), b"*0\r\n");
}

#[test]
fn the_admin_token_can_come_from_a_file_and_the_flag_warns_of_ps() {
    let dir = std::env::temp_dir().join(format!("vitrine-token-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("token");
    std::fs::write(&file, "from-a-file-9c2\n").unwrap();
    let server = Server::start(&["--admin-token-file", file.to_str().unwrap()]);
    let p = server.http_port;
    assert_eq!(get(p, "/api/stats").status, 401);
    assert_eq!(request(p, "GET", "/api/stats", &[("Authorization", "Bearer from-a-file")], None).status, 401);
    request(p, "GET", "/api/stats", &[("Authorization", "Bearer from-a-file-9c2")], None).expect(200);
    assert!(!server.log().contains("from-a-file-9c2"), "the token is never logged");
    drop(server);
    // An empty or missing file stops the start rather than leaving the API open.
    std::fs::write(&file, "\n").unwrap();
    refuses(&["--admin-token-file", file.to_str().unwrap()], "is empty");
    refuses(&["--admin-token-file", dir.join("none").to_str().unwrap()], "cannot read the admin token file");
    let _ = std::fs::remove_dir_all(&dir);

    let help = Command::new(env!("CARGO_BIN_EXE_vitrine")).arg("--help").output().expect("vitrine --help");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("visible to every local user in `ps`"), "{help}");
    assert!(help.contains("--admin-token-file <PATH>"), "{help}");
}

/// Runs the binary with `args` and expects it to refuse to start, with `message` in stderr.
fn refuses(args: &[&str], message: &str) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vitrine"));
    command.args(["--port", "0"]);
    if !args.contains(&"--http-port") {
        command.args(["--http-port", "0"]);
    }
    let mut child = command
        .args(args)
        .env_remove("VITRINE_ADMIN_TOKEN")
        .env_remove("VITRINE_ADMIN_INSECURE")
        .env_remove("VITRINE_HTTP_BIND")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vitrine");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("vitrine {args:?} kept running");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(!status.success());
    assert!(stderr.contains(message), "{stderr}");
}

#[test]
fn an_exposed_admin_port_needs_a_token() {
    refuses(&["--http-bind", "0.0.0.0"], "--admin-token");
    refuses(&["--http-bind", "not-an-ip"], "invalid --http-bind");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    refuses(&["--http-port", &port], "cannot listen on 127.0.0.1:");
    // With --admin-insecure it starts (and listens on every address).
    let server = Server::start(&["--http-bind", "0.0.0.0", "--admin-insecure"]);
    get(server.http_port, "/healthz").expect(200);
}
