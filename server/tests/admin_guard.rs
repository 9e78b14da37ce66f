//! Router tests for what the admin API guards: the RESP password as its secret when there is
//! no admin token (following `CONFIG SET requirepass` at run time), secrets never shown by any
//! route, request bodies that stall, and the benchmark history's bounds.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, StatusCode};
use serde_json::{json, Value};
use tower::ServiceExt;
use vitrine_engine::Config;

use vitrine_server::testing::{raw, Limits, Setup, TestApp, HISTORY_FILE, MAX_BODY, MAX_HISTORY_BYTES, OPENAPI};

const PASSWORD: &str = "hunter2-Zq8v";

fn with_password(token: Option<&str>) -> TestApp {
    let config = Config::default();
    config.set("requirepass", PASSWORD).unwrap();
    TestApp::with(Setup { config, token: token.map(str::to_string), ..Setup::default() })
}

fn bearer(secret: &str) -> String {
    format!("Bearer {secret}")
}

#[tokio::test]
async fn the_password_guards_every_route_and_follows_config_set() {
    let t = with_password(None);
    let get = |auth: Option<String>| {
        let headers: Vec<(&str, String)> = auth.into_iter().map(|a| ("authorization", a)).collect();
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        t.send(raw(Method::GET, "/api/stats", &headers, Body::empty()))
    };
    let r = get(None).await;
    r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(r.json()["error"]["secret"], "password");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("requirepass"));
    let r = get(Some(bearer("hunter2-Zq8V"))).await;
    r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(r.json()["error"]["message"], "wrong password");
    get(Some(bearer(PASSWORD))).await.expect(StatusCode::OK);
    // /metrics and the event stream's query form too; probes stay open.
    let r = t.send(raw(Method::GET, "/metrics", &[], Body::empty())).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = t.send(raw(Method::GET, "/metrics", &[("authorization", &bearer(PASSWORD))], Body::empty())).await;
    assert_eq!(r.status, StatusCode::OK);
    // (Its body never ends: only the status is read.)
    let uri = format!("/api/stats/stream?access_token={PASSWORD}");
    let stream = t.app.clone().oneshot(raw(Method::GET, &uri, &[], Body::empty())).await.unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    t.get("/healthz").await.expect(StatusCode::OK);

    // CONFIG SET requirepass from any client changes what the API wants at once ...
    t.state.call(&["CONFIG", "SET", "requirepass", "n3w-pass"]);
    get(Some(bearer(PASSWORD))).await.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    get(Some(bearer("n3w-pass"))).await.expect(StatusCode::OK);
    // ... and clearing it opens the API again (on loopback, as before).
    t.state.call(&["CONFIG", "SET", "requirepass", ""]);
    get(None).await.expect(StatusCode::OK);
}

#[tokio::test]
async fn an_admin_token_is_the_only_secret_when_set() {
    let t = with_password(Some("tok-3f9c"));
    let r = t.send(raw(Method::GET, "/api/stats", &[("authorization", &bearer(PASSWORD))], Body::empty())).await;
    r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(r.json()["error"]["secret"], "token");
    let r = t.send(raw(Method::GET, "/api/stats", &[("authorization", &bearer("tok-3f9c"))], Body::empty())).await;
    r.expect(StatusCode::OK);
}

/// Every GET route, `CONFIG GET` of the secret and of `*` (alone, in a console session's
/// MULTI/EXEC, in RESP3), and INFO: the password appears in none of them.
#[tokio::test]
async fn no_route_shows_the_password() {
    let t = with_password(Some("tok-3f9c")).signed("tok-3f9c");
    let mut bodies: Vec<(String, String)> = Vec::new();
    let doc: Value = serde_json::from_str(OPENAPI).unwrap();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if item.get("get").is_none() || path.contains('{') || path.ends_with("/stream") {
            continue;
        }
        let r = t.get(path).await;
        bodies.push((format!("GET {path} ({})", r.status), r.text()));
    }
    let config = t.get("/api/config").await.expect(StatusCode::OK);
    assert_eq!(config["config"]["requirepass"], "(hidden)");
    let console = |args: Value| t.json(Method::POST, "/api/command", args);
    let one = console(json!(["CONFIG", "GET", "requirepass"])).await.expect(StatusCode::OK);
    let text = one.to_string();
    assert!(text.contains("requirepass"), "{text}");
    bodies.push(("CONFIG GET requirepass".into(), text));
    for args in [
        json!(["CONFIG", "GET", "*"]),
        json!(["config", "get", "REQUIREPASS", "maxmemory"]),
        json!(["CONFIG", "GET", "*pass*"]),
        json!(["INFO", "everything"]),
    ] {
        let r = console(args.clone()).await.expect(StatusCode::OK);
        bodies.push((args.to_string(), r.to_string()));
    }
    for line in [json!(["HELLO", "3"]), json!(["MULTI"]), json!(["CONFIG", "GET", "*"]), json!(["EXEC"])] {
        let r = console(json!({ "args": line, "session": "s1" })).await.expect(StatusCode::OK);
        bodies.push((format!("session: {line}"), r.to_string()));
    }
    assert!(bodies.len() >= 10, "{bodies:?}");
    for (what, body) in &bodies {
        assert!(!body.contains(PASSWORD), "{what} shows the password: {body}");
    }
    // And the blanked value is there, empty, so tools that read CONFIG GET * keep working.
    let all = console(json!(["CONFIG", "GET", "requirepass"])).await.expect(StatusCode::OK);
    assert!(all.to_string().contains(r#""value":""#), "{all}");
}

/// A body that stops arriving is answered 408 after the body timeout, not held open.
#[tokio::test]
async fn a_stalled_body_gets_408() {
    let limits = Limits { body_timeout: Duration::from_millis(300), ..Limits::default() };
    let t = TestApp::with(Setup { limits, ..Setup::default() });
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<axum::body::Bytes, std::io::Error>>(1);
    tx.send(Ok(axum::body::Bytes::from_static(b"[\"SET\","))).await.unwrap();
    let body = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx));
    let started = Instant::now();
    let r = t.send(raw(Method::POST, "/api/command", &[("content-type", "application/json")], body)).await;
    r.expect_error(StatusCode::REQUEST_TIMEOUT, "timeout");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(250) && waited < Duration::from_secs(5), "{waited:?}");
    drop(tx);
    assert_eq!(t.state.engine.key_count(), 0);
}

/// A body that trickles in forever, and any request not answered in time, gets 408 from the
/// request timeout.
#[tokio::test]
async fn a_trickling_body_gets_408_at_the_request_timeout() {
    let limits = Limits {
        body_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_millis(500),
        ..Limits::default()
    };
    let t = TestApp::with(Setup { limits, ..Setup::default() });
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<axum::body::Bytes, std::io::Error>>(1);
    let trickle = tokio::spawn(async move {
        while tx.send(Ok(axum::body::Bytes::from_static(b" "))).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let body = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx));
    let started = Instant::now();
    let r = t.send(raw(Method::POST, "/api/command", &[("content-type", "application/json")], body)).await;
    assert_eq!(r.status, StatusCode::REQUEST_TIMEOUT, "{}", r.text());
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(450) && waited < Duration::from_secs(4), "{waited:?}");
    trickle.abort();
}

/// One `scripts/bench`-style document of about `size` bytes.
fn bench_doc(n: usize, size: usize) -> Value {
    json!({
        "schema": "vitrine-bench/1",
        "id": format!("doc-{n}"),
        "runs": [{ "server": "vitrine", "test": "SET", "ops_per_sec": 1000 + n, "notes": "n".repeat(size) }],
    })
}

#[tokio::test]
async fn the_benchmark_history_is_bounded_in_bytes_on_disk_and_in_memory() {
    let t = TestApp::new();
    // 20 imports of 1 MB each (just under the body limit).
    for n in 0..20 {
        let r = t.json(Method::POST, "/api/bench/import", bench_doc(n, MAX_BODY - 1024)).await;
        assert_eq!(r.expect(StatusCode::OK)["imported"], 1);
    }
    let file = t.dir.0.join(HISTORY_FILE);
    let on_disk = std::fs::metadata(&file).unwrap().len() as usize;
    let list = t.get("/api/bench").await.expect(StatusCode::OK);
    let runs = list["runs"].as_array().unwrap();
    println!("history after 20 imports of 1 MB: {} runs, {on_disk} bytes on disk", runs.len());
    assert!(on_disk <= MAX_HISTORY_BYTES + 64, "{on_disk} bytes on disk");
    assert!(!runs.is_empty() && runs.len() < 20, "{} runs kept", runs.len());
    // The newest were kept, the oldest dropped.
    assert_eq!(runs[0]["imported"]["extra"]["bench_id"], "doc-19");
    let saved: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(saved["runs"].as_array().unwrap().len(), runs.len());

    // A small document whose context is copied into many runs, more than the history keeps
    // in all: refused before it grows, and nothing changed.
    let items: Vec<Value> = (0..2000).map(|i| json!({ "test": format!("t{i}") })).collect();
    let doc = json!({ "schema": "vitrine-bench/1", "id": "i".repeat(600 * 1024), "runs": items });
    assert!(doc.to_string().len() < MAX_BODY);
    let r = t.json(Method::POST, "/api/bench/import", doc).await;
    r.expect_error(StatusCode::PAYLOAD_TOO_LARGE, "history_too_large");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("4 MiB"), "{}", r.text());
    let after = t.get("/api/bench").await.expect(StatusCode::OK);
    assert_eq!(after["runs"].as_array().unwrap().len(), runs.len());
}
