//! Router tests: every endpoint through `oneshot`, with its successes and its failures, the
//! security checks, the exposition format of `/metrics`, and the OpenAPI document against
//! the real routes.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;
use vitrine_engine::Config;

use vitrine_server::testing::{self, now_ms, raw, req, RespListener, Setup, TempDir, TestApp, OPENAPI};

// ---------------------------------------------------------------- stats

#[tokio::test]
async fn stats_reports_the_snapshot() {
    let t = TestApp::new();
    t.state.call(&["SET", "a", "1"]);
    t.state.call(&["GET", "a"]);
    t.state.call(&["GET", "nope"]);
    let v = t.get("/api/stats").await.expect(StatusCode::OK);
    assert_eq!(v["keys"], 1);
    assert_eq!(v["hits"], 1);
    assert_eq!(v["misses"], 1);
    assert_eq!(v["misses_never_seen"], 1);
    assert_eq!(v["misses_expired"], 0);
    assert_eq!(v["misses_evicted"], 0);
    assert_eq!(v["keys_by_type"]["string"], 1);
    assert_eq!(v["maxmemory_policy"], "noeviction");
    assert!(v["used_memory"].as_u64().is_some_and(|m| m > 0));
    assert!(v["version"].is_string());
    // The HTTP console's session is a client only while its command runs.
    assert_eq!(v["connected_clients"], 0);
}

#[tokio::test]
async fn history_returns_recorded_samples_and_checks_seconds() {
    let t = TestApp::new();
    assert_eq!(t.get("/api/stats/history").await.expect(StatusCode::OK)["samples"], json!([]));
    let mut snap = t.state.engine.snapshot(now_ms());
    t.state.history.record(&snap);
    t.state.call(&["SET", "k", "v"]);
    t.state.call(&["GET", "k"]);
    snap = t.state.engine.snapshot(snap.now_ms + 1000);
    t.state.history.record(&snap);
    let v = t.get("/api/stats/history?seconds=60").await.expect(StatusCode::OK);
    assert_eq!(v["interval_ms"], 1000);
    let samples = v["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[1]["keys"], 1);
    assert_eq!(samples[1]["hits_per_sec"], 1.0);
    assert_eq!(samples[1]["hit_ratio_interval"], 1.0);
    assert_eq!(samples[0]["hit_ratio_interval"], Value::Null);
    assert_eq!(t.get("/api/stats/history?seconds=1").await.json()["samples"].as_array().unwrap().len(), 1);
    t.get("/api/stats/history?seconds=0").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/stats/history?seconds=3601").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/stats/history?seconds=abc").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/stats/history?nope=1").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
}

#[tokio::test]
async fn history_is_a_bounded_ring() {
    let t = TestApp::new();
    let snap = t.state.engine.snapshot(now_ms());
    for _ in 0..testing::HISTORY_SECONDS + 10 {
        t.state.history.record(&snap);
    }
    let v = t.get("/api/stats/history?seconds=3600").await.expect(StatusCode::OK);
    assert_eq!(v["samples"].as_array().unwrap().len(), testing::HISTORY_SECONDS);
}

/// Reads SSE events from a streaming body until `n` have arrived (bounded by the caller).
async fn read_events(body: Body, n: usize) -> Vec<Value> {
    let mut body = body;
    let mut text = String::new();
    let mut events = Vec::new();
    while events.len() < n {
        let frame = body.frame().await.expect("stream ended early").expect("stream error");
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let mut name = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    name = Some(v.trim().to_string());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data = Some(v.trim().to_string());
                }
            }
            if name.as_deref() == Some("sample") {
                let data = data.expect("a sample event has data");
                events.push(serde_json::from_str(&data).expect("sample data is JSON"));
            }
        }
    }
    events
}

#[tokio::test]
async fn stream_sends_a_sample_every_second() {
    let t = TestApp::new();
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(testing::run_sampler(t.state.clone(), stop_rx));
    let response = t.app.clone().oneshot(req(Method::GET, "/api/stats/stream", None)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "text/event-stream");
    let events = tokio::time::timeout(Duration::from_secs(10), read_events(response.into_body(), 2))
        .await
        .expect("two samples within 10 s");
    let t0 = events[0]["t_ms"].as_u64().unwrap();
    let t1 = events[1]["t_ms"].as_u64().unwrap();
    assert!(t1 > t0, "{t0} then {t1}");
    assert!(events[1]["used_memory"].is_u64());
    stop.send_replace(true);
}

#[tokio::test]
async fn stream_ends_at_shutdown() {
    let t = TestApp::new();
    t.state.history.record(&t.state.engine.snapshot(now_ms()));
    let response = t.app.clone().oneshot(req(Method::GET, "/api/stats/stream", None)).await.unwrap();
    let mut body = response.into_body();
    // The newest sample comes at once.
    let first = tokio::time::timeout(Duration::from_secs(5), body.frame()).await.expect("a first event");
    assert!(first.is_some());
    t.shutdown.send_replace(true);
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(frame) = body.frame().await {
            frame.expect("no stream error");
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream did not end at shutdown");
}

#[tokio::test]
async fn keyspace_events_follow_notifications_turned_on_through_the_config_api() {
    let t = TestApp::new();
    let off = t.get("/api/events/keyspace").await.expect(StatusCode::OK);
    assert_eq!((off["events"].clone(), off["flags"].clone()), (json!([]), json!("")));
    t.json(Method::PATCH, "/api/config", json!({ "notify-keyspace-events": "KEA" })).await.expect(StatusCode::OK);
    t.state.call(&["SET", "k", "v", "EX", "100"]);
    let v = t.get("/api/events/keyspace").await.expect(StatusCode::OK);
    assert_eq!(v["flags"], "AKE");
    let seen: Vec<(&str, &str)> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["event"].as_str().unwrap(), e["key"].as_str().unwrap()))
        .collect();
    assert_eq!(seen, [("set", "k"), ("expire", "k")]);
    let since = v["last_seq"].as_u64().unwrap();
    let next = t.get(&format!("/api/events/keyspace?since={since}")).await.expect(StatusCode::OK);
    assert_eq!(next["events"], json!([]));
    t.get("/api/events/keyspace?since=x").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
}

#[tokio::test]
async fn recent_evictions_show_evicted_and_expired_keys() {
    let t = TestApp::new();
    assert_eq!(t.get("/api/evictions/recent").await.expect(StatusCode::OK)["events"], json!([]));
    t.state.call(&["CONFIG", "SET", "maxmemory", "100kb", "maxmemory-policy", "allkeys-lru"]);
    for i in 0..2000 {
        t.state.call(&["SET", &format!("key:{i}"), &"v".repeat(100)]);
    }
    t.state.call(&["SET", "short", "v", "PX", "1"]);
    std::thread::sleep(Duration::from_millis(5));
    t.state.call(&["GET", "short"]);
    let v = t.get("/api/evictions/recent").await.expect(StatusCode::OK);
    assert_eq!(v["policy"], "allkeys-lru");
    assert!(v["evicted_keys"].as_u64().unwrap() > 100);
    let events = v["events"].as_array().unwrap();
    assert!(!events.is_empty() && events.len() <= 256);
    assert_eq!(events[0]["kind"], "expired", "newest first: {}", events[0]);
    assert_eq!(events[0]["key"], "short");
    let evicted = events.iter().find(|e| e["kind"] == "evicted").expect("an eviction");
    assert_eq!(evicted["policy"], "allkeys-lru");
    assert!(evicted["size"].as_u64().unwrap() > 100);
    assert!(evicted["key"].as_str().unwrap().starts_with("key:"));
    // And the misses on those keys are told apart.
    t.state.call(&["GET", "key:0"]);
    let s = t.get("/api/stats").await.json();
    assert_eq!(s["misses_expired"], 1);
    assert_eq!(s["misses_evicted"], 1);
}

#[tokio::test]
async fn what_if_estimates_the_hit_ratio_at_other_limits_and_shows_the_horizon() {
    let t = TestApp::new();
    let empty = t.get("/api/evictions/what-if").await.expect(StatusCode::OK);
    assert_eq!(empty["points"], json!([]));
    assert_eq!(empty["ghost"]["horizon_departures"], 0);
    assert!(empty["ghost"]["bytes"].as_u64().unwrap() >= 65536);
    t.state.call(&["CONFIG", "SET", "maxmemory", "500kb", "maxmemory-policy", "allkeys-lru"]);
    // 4,000 keys of about 300 bytes read in turn: 500 kB holds a third of them, so LRU
    // misses every read, and 4x would hold them all.
    for round in 0..20 {
        for i in 0..4000 {
            let key = format!("key:{i}");
            if round == 0 || t.state.call(&["GET", &key]) == vitrine_engine::Reply::Nil {
                t.state.call(&["SET", &key, &"v".repeat(200)]);
            }
        }
    }
    let v = t.get("/api/evictions/what-if").await.expect(StatusCode::OK);
    assert_eq!(v["maxmemory"], 500 * 1024);
    assert_eq!(v["base_bytes"], 500 * 1024);
    let points = v["points"].as_array().unwrap();
    let at = |f: f64| points.iter().find(|p| p["factor"] == f).unwrap()["hit_ratio"].as_f64().unwrap();
    assert!(at(1.0) < 0.1, "{points:?}");
    assert!(at(4.0) > 0.8, "{points:?}");
    assert!(v["ghost"]["horizon_departures"].as_u64().unwrap() > 10_000);
    let s = t.get("/api/stats").await.json();
    // Every key read was written before: (nearly) every miss reads as an eviction.
    let (evicted, never) = (s["misses_evicted"].as_u64().unwrap(), s["misses_never_seen"].as_u64().unwrap());
    assert!(evicted > 50_000 && never * 1000 < evicted, "{s}");
    let (samples, _) = parse_exposition(&t.get("/metrics").await.text()).unwrap();
    assert!(series(&samples, "vitrine_what_if_hit_ratio", &[("factor", "4")]).is_some_and(|&r| r > 0.8));
    assert!(series(&samples, "vitrine_miss_record_bytes", &[]).is_some_and(|&b| b >= 65536.0));
    assert!(series(&samples, "vitrine_what_if_sample_rate", &[]).is_some());
}

// ---------------------------------------------------------------- keys

#[tokio::test]
async fn keys_list_pages_through_everything_with_filters() {
    let t = TestApp::new();
    for i in 0..250 {
        t.state.call(&["SET", &format!("user:{i}"), "x"]);
    }
    t.state.call(&["SET", "other", "y", "EX", "100"]);
    t.state.call(&[b"SET".as_slice(), b"bin\xff", b"z"]);
    let mut seen = BTreeSet::new();
    let mut cursor = "0".to_string();
    let mut steps = 0;
    loop {
        let v = t.get(&format!("/api/keys?match=user:*&count=50&cursor={cursor}")).await.expect(StatusCode::OK);
        for k in v["keys"].as_array().unwrap() {
            assert_eq!(k["type"], "string");
            assert_eq!(k["ttl_ms"], Value::Null);
            assert!(k["size"].as_u64().unwrap() > 0);
            seen.insert(k["key"].as_str().unwrap().to_string());
        }
        cursor = v["cursor"].as_str().unwrap().to_string();
        steps += 1;
        assert!(steps < 1000);
        if v["done"] == true {
            assert_eq!(cursor, "0");
            break;
        }
    }
    assert_eq!(seen.len(), 250);
    assert!(steps > 1, "count bounds each step");
    let v = t.get("/api/keys?match=oth*&count=10000").await.expect(StatusCode::OK);
    let keys = v["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1);
    let ttl = keys[0]["ttl_ms"].as_u64().unwrap();
    assert!(ttl > 90_000 && ttl <= 100_000, "{ttl}");
    let v = t.get("/api/keys?match=bin*&count=10000").await.expect(StatusCode::OK);
    assert_eq!(v["keys"][0]["key"], json!({ "base64": "Ymlu/w==" }));
    assert_eq!(t.get("/api/keys?type=hash&count=10000").await.json()["keys"], json!([]));
    assert_eq!(t.get("/api/keys?type=string&count=10000").await.json()["keys"].as_array().unwrap().len(), 252);
}

#[tokio::test]
async fn keys_list_rejects_bad_parameters() {
    let t = TestApp::new();
    t.get("/api/keys?count=0").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/keys?count=10001").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/keys?count=-1").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/keys?cursor=abc").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/keys?bogus=1").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/keys?count=10000").await.expect(StatusCode::OK);
}

#[tokio::test]
async fn get_key_returns_value_ttl_and_size_without_counting_a_hit() {
    let t = TestApp::new();
    t.state.call(&["SET", "greeting", "héllo", "EX", "60"]);
    let hits = t.get("/api/stats").await.json()["hits"].clone();
    let v = t.get("/api/keys/greeting").await.expect(StatusCode::OK);
    assert_eq!(v["key"], "greeting");
    assert_eq!(v["value"], "héllo");
    assert_eq!(v["type"], "string");
    assert_eq!(v["encoding"], "embstr");
    assert_eq!(v["length"], 6);
    assert_eq!(v["truncated"], false);
    assert!(v["ttl_ms"].as_u64().unwrap() > 59_000);
    assert!(v["size"].as_u64().unwrap() > 6);
    assert_eq!(t.get("/api/stats").await.json()["hits"], hits, "reading through the API is not a hit");
    t.get("/api/keys/missing").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    t.get("/api/keys/").await.expect_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn keys_are_binary_safe_in_paths_and_json() {
    let t = TestApp::new();
    t.state.call(&[b"SET".as_slice(), b"k\xff/x y", b"\x00\x01\xfe"]);
    t.state.call(&["SET", "a/b/c", "slashes"]);
    let v = t.get("/api/keys/k%FF%2Fx%20y").await.expect(StatusCode::OK);
    assert_eq!(v["key"], json!({ "base64": "a/8veCB5" }));
    assert_eq!(v["value"], json!({ "base64": "AAH+" }));
    assert_eq!(t.get("/api/keys/a/b/c").await.expect(StatusCode::OK)["value"], "slashes");
    assert_eq!(t.get("/api/keys/a%2Fb%2Fc").await.expect(StatusCode::OK)["value"], "slashes");
    // PUT with base64, read back through RESP.
    t.json(Method::PUT, "/api/keys/%00bin", json!({ "value": { "base64": "/wA=" } })).await.expect(StatusCode::OK);
    assert_eq!(t.state.call(&[b"GET".as_slice(), b"\x00bin"]), vitrine_engine::Reply::Bulk(vec![0xff, 0]));
}

#[tokio::test]
async fn long_values_are_truncated_with_their_length() {
    let t = TestApp::new();
    let big = "é".repeat(600_000); // 1.2 MB of text
    t.state.call(&["SET", "big", &big]);
    let v = t.get("/api/keys/big").await.expect(StatusCode::OK);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["length"], 1_200_000);
    let shown = v["value"].as_str().expect("still text");
    assert_eq!(shown.len(), testing::MAX_VALUE_BYTES);
}

#[tokio::test]
async fn put_key_sets_strings_with_ttl() {
    let t = TestApp::new();
    let v =
        t.json(Method::PUT, "/api/keys/session:1", json!({ "value": "alice", "ttl": 60 })).await.expect(StatusCode::OK);
    assert_eq!(v["value"], "alice");
    assert!(v["ttl_ms"].as_u64().unwrap() > 59_000);
    let v = t
        .json(Method::PUT, "/api/keys/session:1", json!({ "value": "bob", "ttl_ms": 1500 }))
        .await
        .expect(StatusCode::OK);
    assert!(v["ttl_ms"].as_u64().unwrap() <= 1500);
    let v = t.json(Method::PUT, "/api/keys/session:1", json!({ "value": "carol" })).await.expect(StatusCode::OK);
    assert_eq!(v["ttl_ms"], Value::Null, "SET without a TTL clears it");
    assert_eq!(t.state.call(&["GET", "session:1"]), vitrine_engine::Reply::bulk("carol"));
}

#[tokio::test]
async fn put_key_create_only_and_keep_ttl() {
    let t = TestApp::new();
    t.json(Method::PUT, "/api/keys/k", json!({ "value": "a", "nx": true, "ttl": 60 })).await.expect(StatusCode::OK);
    let e = t.json(Method::PUT, "/api/keys/k", json!({ "value": "b", "nx": true })).await.expect(StatusCode::CONFLICT);
    assert!(e["error"]["message"].as_str().unwrap().contains("already exists"), "{e}");
    assert_eq!(t.state.call(&["GET", "k"]), vitrine_engine::Reply::bulk("a"));
    let v = t.json(Method::PUT, "/api/keys/k", json!({ "value": "c", "keep_ttl": true })).await.expect(StatusCode::OK);
    assert_eq!(v["value"], "c");
    assert!(v["ttl_ms"].as_u64().unwrap() > 59_000, "KEEPTTL keeps the TTL: {v}");
    t.json(Method::PUT, "/api/keys/k", json!({ "value": "d", "keep_ttl": true, "ttl": 5 }))
        .await
        .expect(StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn put_key_rejects_bad_bodies() {
    let t = TestApp::new();
    let put = |body: Value| t.json(Method::PUT, "/api/keys/k", body);
    put(json!({ "value": 5 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    put(json!({ "value": { "base64": "***" } })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    put(json!({ "ttl": 5 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    put(json!({ "value": "v", "ttl": 1, "ttl_ms": 1 }))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    put(json!({ "value": "v", "ttl": 0 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    put(json!({ "value": "v", "ttl": -1 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    put(json!({ "value": "v", "extra": 1 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    put(json!({ "value": "v", "ttl": u64::MAX })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    let r = t.send(raw(Method::PUT, "/api/keys/k", &[("content-type", "application/json")], "{not json")).await;
    r.expect_error(StatusCode::BAD_REQUEST, "bad_json");
    let r = t.send(raw(Method::PUT, "/api/keys/k", &[], r#"{"value":"v"}"#)).await;
    r.expect_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");
    let huge = json!({ "value": "x".repeat(testing::MAX_BODY + 1) });
    put(huge).await.expect_error(StatusCode::PAYLOAD_TOO_LARGE, "too_large");
    assert_eq!(t.state.engine.key_count(), 0, "nothing was written");
}

#[tokio::test]
async fn put_key_over_the_memory_limit_is_507() {
    let config = Config::default();
    config.set("maxmemory", "1kb").unwrap();
    let t = TestApp::with(Setup { config, ..Setup::default() });
    let r = t.json(Method::PUT, "/api/keys/k", json!({ "value": "x".repeat(5000) })).await;
    r.expect_error(StatusCode::INSUFFICIENT_STORAGE, "oom");
    assert!(r.json()["error"]["message"].as_str().unwrap().starts_with("OOM"));
}

#[tokio::test]
async fn delete_key_then_404() {
    let t = TestApp::new();
    t.state.call(&["SET", "k", "v"]);
    assert_eq!(t.send(req(Method::DELETE, "/api/keys/k", None)).await.expect(StatusCode::OK)["deleted"], true);
    t.send(req(Method::DELETE, "/api/keys/k", None)).await.expect_error(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(t.state.engine.key_count(), 0);
}

// ---------------------------------------------------------------- admin

#[tokio::test]
async fn command_runs_through_the_engine_as_tagged_json() {
    let t = TestApp::new();
    let run = |body: Value| t.json(Method::POST, "/api/command", body);
    assert_eq!(run(json!(["SET", "k", "v"])).await.expect(StatusCode::OK), json!({ "type": "status", "value": "OK" }));
    assert_eq!(run(json!(["GET", "k"])).await.expect(StatusCode::OK), json!({ "type": "bulk", "value": "v" }));
    assert_eq!(
        run(json!({ "args": ["EXPIRE", "k", 100] })).await.expect(StatusCode::OK),
        json!({ "type": "int", "value": 1 })
    );
    assert_eq!(run(json!(["GET", { "base64": "bm9wZQ==" }])).await.expect(StatusCode::OK), json!({ "type": "nil" }));
    assert_eq!(
        run(json!(["MGET", "k", "nope"])).await.expect(StatusCode::OK),
        json!({ "type": "array", "value": [{ "type": "bulk", "value": "v" }, { "type": "nil" }] })
    );
    let v = run(json!(["NOSUCH"])).await.expect(StatusCode::OK);
    assert_eq!(v["type"], "error");
    assert!(v["value"].as_str().unwrap().starts_with("ERR unknown command 'NOSUCH'"));
    let v = run(json!(["GET"])).await.expect(StatusCode::OK);
    assert_eq!(v["value"], "ERR wrong number of arguments for 'get' command");
    run(json!([])).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    run(json!(["GET", true])).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    run(json!("GET k")).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    run(json!({ "argv": [] })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    let r = t.send(raw(Method::POST, "/api/command", &[("content-type", "application/json")], "[\"GET\",")).await;
    r.expect_error(StatusCode::BAD_REQUEST, "bad_json");
    let stats = t.get("/api/stats").await.json();
    assert!(stats["commands_processed"].as_u64().unwrap() >= 6, "console commands count as commands");
}

#[tokio::test]
async fn a_console_session_carries_multi_exec_and_client_state_between_requests() {
    let t = TestApp::new();
    let run =
        |session: &str, args: Value| t.json(Method::POST, "/api/command", json!({ "args": args, "session": session }));
    let status = |s: &str| json!({ "type": "status", "value": s });
    assert_eq!(run("tab-1", json!(["MULTI"])).await.expect(StatusCode::OK), status("OK"));
    assert_eq!(run("tab-1", json!(["SET", "k", "v"])).await.expect(StatusCode::OK), status("QUEUED"));
    // Another session, and a request without one, are not in that transaction.
    assert_eq!(run("tab-2", json!(["EXISTS", "k"])).await.expect(StatusCode::OK), json!({ "type": "int", "value": 0 }));
    assert_eq!(
        t.json(Method::POST, "/api/command", json!(["EXEC"])).await.expect(StatusCode::OK),
        json!({ "type": "error", "value": "ERR EXEC without MULTI" })
    );
    assert_eq!(
        run("tab-1", json!(["EXEC"])).await.expect(StatusCode::OK),
        json!({ "type": "array", "value": [status("OK")] })
    );
    // Connection state sticks too.
    assert_eq!(run("tab-1", json!(["CLIENT", "SETNAME", "console"])).await.expect(StatusCode::OK), status("OK"));
    assert_eq!(
        run("tab-1", json!(["CLIENT", "GETNAME"])).await.expect(StatusCode::OK),
        json!({ "type": "bulk", "value": "console" })
    );
    assert_eq!(t.state.sessions.len(), 2);
    // Each open session is a client; QUIT closes it.
    let clients = |t: &TestApp| t.state.engine.snapshot(now_ms()).connected_clients;
    assert_eq!(clients(&t), 2);
    assert_eq!(run("tab-2", json!(["QUIT"])).await.expect(StatusCode::OK), status("OK"));
    assert_eq!((t.state.sessions.len(), clients(&t)), (1, 1));
    // Ids are checked.
    for bad in [json!(""), json!("has space"), json!("x".repeat(65)), json!(7)] {
        t.json(Method::POST, "/api/command", json!({ "args": ["PING"], "session": bad }))
            .await
            .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_session");
    }
}

#[tokio::test]
async fn command_sessions_are_authenticated_by_the_password() {
    let config = Config::default();
    config.set("requirepass", "pw").unwrap();
    let t = TestApp::with(Setup { config, ..Setup::default() });
    // No admin token: the RESP password is the admin API's secret, and the 401 says so.
    let r = t.json(Method::POST, "/api/command", json!(["PING"])).await;
    r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(r.json()["error"]["secret"], "password");
    let t = t.signed("pw");
    let v = t.json(Method::POST, "/api/command", json!(["PING"])).await.expect(StatusCode::OK);
    assert_eq!(v, json!({ "type": "status", "value": "PONG" }), "the session needs no AUTH of its own");
}

#[tokio::test]
async fn commands_lists_the_table() {
    let t = TestApp::new();
    let v = t.get("/api/commands").await.expect(StatusCode::OK);
    let list = v["commands"].as_array().unwrap();
    assert_eq!(list.len(), vitrine_engine::inspect::command_names().count());
    let get = list.iter().find(|c| c["name"] == "GET").unwrap();
    assert_eq!(get["arity"], 2);
    assert_eq!(get["syntax"], "key");
    assert!(get["flags"].as_array().unwrap().contains(&json!("readonly")));
    assert!(!get["summary"].as_str().unwrap().is_empty());
}

#[tokio::test]
async fn config_reads_and_patches_like_config_set() {
    let config = Config::default();
    config.set("requirepass", "secret").unwrap();
    let t = TestApp::with(Setup { config, ..Setup::default() }).signed("secret");
    let v = t.get("/api/config").await.expect(StatusCode::OK);
    assert_eq!(v["config"]["maxmemory"], "0");
    assert_eq!(v["config"]["requirepass"], "(hidden)", "secrets are not shown");
    assert!(v["writable"].as_array().unwrap().contains(&json!("maxmemory-policy")));
    assert!(!v["writable"].as_array().unwrap().contains(&json!("databases")));
    let v = t
        .json(
            Method::PATCH,
            "/api/config",
            json!({ "maxmemory": "2mb", "maxmemory_policy": "allkeys-lru", "maxmemory-samples": 10 }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(v["config"]["maxmemory"], "2097152");
    assert_eq!(v["config"]["maxmemory-policy"], "allkeys-lru");
    assert_eq!(t.state.engine.config().samples(), 10);
    // All or nothing: a bad value leaves the others unchanged.
    let r = t.json(Method::PATCH, "/api/config", json!({ "maxmemory": "1mb", "maxmemory-policy": "bogus" })).await;
    r.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "config_error");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("maxmemory-policy"));
    assert_eq!(t.state.engine.config().maxmemory(), 2 * 1024 * 1024);
    t.json(Method::PATCH, "/api/config", json!({ "nope": "1" }))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "config_error");
    t.json(Method::PATCH, "/api/config", json!({ "port": "1" }))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "config_error");
    t.json(Method::PATCH, "/api/config", json!({}))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    t.json(Method::PATCH, "/api/config", json!({ "hz": [1] }))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    t.json(Method::PATCH, "/api/config", json!(["hz"]))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
}

#[tokio::test]
async fn flush_needs_an_explicit_confirmation() {
    let t = TestApp::new();
    t.state.call(&["MSET", "a", "1", "b", "2"]);
    let flush = |body: Value| t.json(Method::POST, "/api/flush", body);
    flush(json!({})).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "confirmation_required");
    flush(json!({ "confirm": "yes" })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "confirmation_required");
    flush(json!({ "confirm": true })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    assert_eq!(t.state.engine.key_count(), 2);
    let v = flush(json!({ "confirm": "FLUSHALL" })).await.expect(StatusCode::OK);
    assert_eq!(v, json!({ "flushed": true, "keys_removed": 2 }));
    assert_eq!(t.state.engine.key_count(), 0);
}

// ---------------------------------------------------------------- bench

#[tokio::test]
async fn bench_rejects_bad_parameters_and_unknown_runs() {
    let t = TestApp::new();
    let start = |body: Value| t.json(Method::POST, "/api/bench", body);
    start(json!({ "clients": 0 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_parameter");
    start(json!({ "pipeline": 100000 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_parameter");
    start(json!({ "ratio": "1-1" })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_parameter");
    start(json!({ "duration_s": 1, "requests": 1 }))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_parameter");
    start(json!({ "clients": "many" })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    start(json!({ "bogus": 1 })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    assert_eq!(t.get("/api/bench").await.expect(StatusCode::OK), json!({ "runs": [] }));
    t.get("/api/bench/1").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    t.get("/api/bench/abc").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    t.send(req(Method::DELETE, "/api/bench/1", None)).await.expect_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn bench_against_an_unreachable_port_fails_cleanly() {
    let t = TestApp::new();
    let v =
        t.json(Method::POST, "/api/bench", json!({ "clients": 2, "requests": 10 })).await.expect(StatusCode::ACCEPTED);
    let id = v["id"].as_u64().unwrap();
    let run = wait_for_run(&t, id).await;
    assert_eq!(run["status"], "failed");
    assert!(run["error"].as_str().unwrap().contains("connect"), "{run}");
}

/// Polls `GET /api/bench/{id}` until the run is no longer running (at most 60 s).
async fn wait_for_run(t: &TestApp, id: u64) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let run = t.get(&format!("/api/bench/{id}")).await.expect(StatusCode::OK);
        if run["status"] != "running" {
            return run;
        }
        assert!(tokio::time::Instant::now() < deadline, "run {id} still going: {run}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// An app whose benchmark runner can reach a real RESP listener on the same engine.
async fn app_with_resp() -> (TestApp, RespListener) {
    let engine = std::sync::Arc::new(vitrine_engine::Engine::new(Config::default(), now_ms(), 9));
    let resp = RespListener::start(engine.clone(), None);
    let t = TestApp::over(engine, Setup { resp_addr: resp.addr, ..Setup::default() }, TempDir::new("bench"));
    (t, resp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bounded_bench_run_gives_well_formed_results_and_is_kept() {
    let (t, _stop) = app_with_resp().await;
    let r = t
        .json(Method::POST, "/api/bench", json!({ "clients": 4, "pipeline": 8, "requests": 20000, "ratio": "1:1", "value_size": 32, "key_space": 500 }))
        .await;
    let v = r.expect(StatusCode::ACCEPTED);
    let id = v["id"].as_u64().unwrap();
    assert_eq!(r.headers[header::LOCATION], format!("/api/bench/{id}"));
    assert_eq!(v["status"], "running");
    let run = wait_for_run(&t, id).await;
    assert_eq!(run["status"], "completed", "{run}");
    let res = &run["results"];
    assert_eq!(res["requests"], 20000);
    assert_eq!(res["errors"], 0);
    assert_eq!(res["sets"].as_u64().unwrap() + res["gets"].as_u64().unwrap(), 20000);
    assert!(res["sets"].as_u64().unwrap() > 5000, "about half are SETs: {res}");
    assert!(res["ops_per_sec"].as_f64().unwrap() > 0.0);
    let lat = &res["latency_ms"];
    let p = |k: &str| lat[k].as_f64().unwrap();
    assert!(
        p("p50") > 0.0
            && p("p50") <= p("p90")
            && p("p90") <= p("p99")
            && p("p99") <= p("p999")
            && p("p999") <= p("max"),
        "{lat}"
    );
    let timeline = res["timeline"].as_array().unwrap();
    assert!(!timeline.is_empty());
    assert_eq!(timeline.iter().map(|s| s["ops"].as_u64().unwrap()).sum::<u64>(), 20000);
    // The keys it wrote are real keys in the cache.
    assert!(t.state.engine.key_count() > 100);
    assert!(t.state.engine.snapshot(testing::now_ms()).commands_processed >= 20000);
    // Listed without the timeline, and saved to --dir.
    let list = t.get("/api/bench").await.expect(StatusCode::OK);
    assert_eq!(list["runs"][0]["id"], id);
    assert_eq!(list["runs"][0]["results"]["timeline"], json!([]));
    let saved = std::fs::read_to_string(t.dir.0.join(testing::HISTORY_FILE)).expect("history file");
    let saved: Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["runs"][0]["id"], id);
    // Cancelling a finished run is a conflict.
    t.send(req(Method::DELETE, &format!("/api/bench/{id}"), None)).await.expect_error(StatusCode::CONFLICT, "conflict");
    // A new app over the same directory has the run in its history.
    let again = TestApp::over(t.state.engine.clone(), Setup::default(), TempDir(t.dir.0.clone()));
    let run_again = again.get(&format!("/api/bench/{id}")).await.expect(StatusCode::OK);
    assert_eq!(run_again["results"]["requests"], 20000);
    std::mem::forget(again.dir); // the first app's guard removes the directory
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_one_run_at_a_time_and_cancel_stops_it() {
    let (t, _stop) = app_with_resp().await;
    let v = t
        .json(Method::POST, "/api/bench", json!({ "clients": 2, "duration_s": 30 }))
        .await
        .expect(StatusCode::ACCEPTED);
    let id = v["id"].as_u64().unwrap();
    let r = t.json(Method::POST, "/api/bench", json!({ "clients": 1, "requests": 10 })).await;
    r.expect_error(StatusCode::CONFLICT, "conflict");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let live = loop {
        let live = t.get(&format!("/api/bench/{id}")).await.expect(StatusCode::OK);
        if live["results"]["requests"].as_u64().unwrap_or(0) > 0 || tokio::time::Instant::now() > deadline {
            break live;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(live["status"], "running");
    let progress = live["progress"].as_f64().unwrap();
    assert!((0.0..0.5).contains(&progress), "{progress}");
    assert!(live["results"]["requests"].as_u64().unwrap() > 0, "{live}");
    assert_eq!(t.get("/api/bench").await.json()["runs"][0]["status"], "running");
    let v = t.send(req(Method::DELETE, &format!("/api/bench/{id}"), None)).await.expect(StatusCode::OK);
    assert_eq!(v["status"], "cancelled");
    assert!(v["results"]["requests"].as_u64().unwrap() > 0);
    // And now another can start.
    t.json(Method::POST, "/api/bench", json!({ "clients": 1, "requests": 10 })).await.expect(StatusCode::ACCEPTED);
}

#[tokio::test]
async fn import_accepts_scripts_bench_output_leniently() {
    let t = TestApp::new();
    let doc = json!([
        { "server": "vitrine", "load": "redis-benchmark -P 16", "test": "SET", "ops_per_sec": 1_200_000.0, "p50_ms": 0.3,
          "p99_ms": 0.9, "p999_ms": 1.5, "cpu_us_per_op": 0.8, "clients": 50 },
        { "server": "redis", "load": "redis-benchmark -P 16", "test": "SET", "ops_per_sec": "700000", "p50_ms": null }
    ]);
    let v = t.json(Method::POST, "/api/bench/import", doc.clone()).await.expect(StatusCode::OK);
    assert_eq!(v["imported"], 2);
    assert_eq!(v["duplicates"], 0);
    let v = t.json(Method::POST, "/api/bench/import", json!({ "runs": doc })).await.expect(StatusCode::OK);
    assert_eq!(
        (v["imported"].clone(), v["duplicates"].clone()),
        (json!(0), json!(2)),
        "the same file twice adds nothing"
    );
    let runs = t.get("/api/bench").await.expect(StatusCode::OK)["runs"].as_array().unwrap().clone();
    assert_eq!(runs.len(), 2);
    assert!(runs[0]["id"].as_u64() > runs[1]["id"].as_u64(), "newest first");
    let redis = runs.iter().find(|r| r["imported"]["server"] == "redis").unwrap();
    assert_eq!(redis["source"], "imported");
    assert_eq!(redis["status"], "completed");
    assert_eq!(redis["imported"]["ops_per_sec"], 700000.0);
    let vitrine = runs.iter().find(|r| r["imported"]["server"] == "vitrine").unwrap();
    assert_eq!(vitrine["imported"]["extra"]["clients"], 50);
    assert_eq!(vitrine["imported"]["cpu_us_per_op"], 0.8);
    // The whole document scripts/bench writes: runs keep its id, time and commit.
    let report = json!({
        "schema": "vitrine-bench/1", "kind": "socket", "id": "2025-01-02T03:04:05Z-abc123",
        "started_at": "2025-01-02T03:04:05Z", "git": { "commit": "abc123", "dirty": false },
        "machine": { "nproc": 2 }, "servers": [], "loads": [], "ratios": [], "memory": [],
        "runs": [{ "server": "vitrine", "load": "rb-p1", "test": "GET", "ops_per_sec": 130000.0, "p50_ms": 0.2,
                   "p99_ms": 0.5, "p999_ms": 1.0, "avg_ms": 0.25, "cpu_us_per_op": 6.1, "requests": 1000000,
                   "spread": 0.02, "reps": [{ "rep": 1, "ops_per_sec": 129000.0 }] }]
    });
    let v = t.json(Method::POST, "/api/bench/import", report.clone()).await.expect(StatusCode::OK);
    assert_eq!(v["imported"], 1);
    let id = v["ids"][0].as_u64().unwrap();
    let run = t.get(&format!("/api/bench/{id}")).await.expect(StatusCode::OK);
    assert_eq!(run["started_at_ms"], 1_735_787_045_000u64);
    assert_eq!(run["imported"]["extra"]["bench_id"], "2025-01-02T03:04:05Z-abc123");
    assert_eq!(run["imported"]["extra"]["git_commit"], "abc123");
    assert_eq!(run["imported"]["extra"]["reps"][0]["rep"], 1);
    assert_eq!(t.json(Method::POST, "/api/bench/import", report).await.json()["duplicates"], 1);
    let import = |body: Value| t.json(Method::POST, "/api/bench/import", body);
    import(json!([])).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    import(json!([1, 2])).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    import(json!({ "nothing": [] })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    import(json!("runs")).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
}

// ---------------------------------------------------------------- metrics

/// One sample of the exposition: name, labels, value.
type Samples = BTreeMap<(String, BTreeMap<String, String>), f64>;

/// A small parser for the Prometheus text format (0.0.4): checks the grammar the scraper
/// relies on (HELP/TYPE before samples, valid names, quoted and escaped label values,
/// parsable values, counters named `_total`) and returns the samples.
fn parse_exposition(text: &str) -> Result<(Samples, BTreeMap<String, String>), String> {
    let valid_name = |n: &str| {
        let mut chars = n.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    };
    let mut types = BTreeMap::new();
    let mut samples = Samples::new();
    for (i, line) in text.lines().enumerate() {
        let at = |m: &str| format!("line {}: {m}: {line:?}", i + 1);
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# ") {
            let mut parts = rest.splitn(3, ' ');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("HELP"), Some(name), Some(_)) if valid_name(name) => {}
                (Some("TYPE"), Some(name), Some(kind)) if valid_name(name) => {
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind) {
                        return Err(at("unknown type"));
                    }
                    if types.insert(name.to_string(), kind.to_string()).is_some() {
                        return Err(at("TYPE given twice"));
                    }
                }
                _ => return Err(at("bad comment")),
            }
            continue;
        }
        let name_end = line.find(['{', ' ']).ok_or_else(|| at("no value"))?;
        let name = &line[..name_end];
        if !valid_name(name) {
            return Err(at("bad metric name"));
        }
        let kind = types.get(name).ok_or_else(|| at("sample before its TYPE"))?;
        if kind == "counter" && !name.ends_with("_total") {
            return Err(at("a counter's name must end in _total"));
        }
        let mut rest = &line[name_end..];
        let mut labels = BTreeMap::new();
        if let Some(body) = rest.strip_prefix('{') {
            let mut chars = body.char_indices().peekable();
            let end = loop {
                let (start, c) = chars.next().ok_or_else(|| at("unterminated labels"))?;
                if c == '}' {
                    break start;
                }
                let eq = body[start..].find('=').ok_or_else(|| at("label without ="))? + start;
                let lname = &body[start..eq];
                if !valid_name(lname) || lname.contains(':') {
                    return Err(at("bad label name"));
                }
                while chars.peek().is_some_and(|(i, _)| *i <= eq) {
                    chars.next();
                }
                if chars.next().map(|(_, c)| c) != Some('"') {
                    return Err(at("label value not quoted"));
                }
                let mut value = String::new();
                loop {
                    match chars.next().map(|(_, c)| c) {
                        Some('\\') => match chars.next().map(|(_, c)| c) {
                            Some('\\') => value.push('\\'),
                            Some('"') => value.push('"'),
                            Some('n') => value.push('\n'),
                            _ => return Err(at("bad escape")),
                        },
                        Some('"') => break,
                        Some(c) => value.push(c),
                        None => return Err(at("unterminated label value")),
                    }
                }
                if labels.insert(lname.to_string(), value).is_some() {
                    return Err(at("label given twice"));
                }
                match chars.peek().map(|(_, c)| *c) {
                    Some(',') => {
                        chars.next();
                    }
                    Some('}') => {}
                    _ => return Err(at("expected , or }")),
                }
            };
            rest = &body[end + 1..];
        }
        let value = rest.strip_prefix(' ').ok_or_else(|| at("no space before the value"))?;
        let value = value.split(' ').next().unwrap_or_default();
        let v: f64 = match value {
            "NaN" => f64::NAN,
            "+Inf" => f64::INFINITY,
            "-Inf" => f64::NEG_INFINITY,
            v => v.parse().map_err(|_| at("bad value"))?,
        };
        if samples.insert((name.to_string(), labels), v).is_some() {
            return Err(at("duplicate series"));
        }
    }
    Ok((samples, types))
}

fn series<'a>(samples: &'a Samples, name: &str, labels: &[(&str, &str)]) -> Option<&'a f64> {
    let labels: BTreeMap<String, String> = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    samples.get(&(name.to_string(), labels))
}

#[test]
fn the_exposition_parser_rejects_malformed_text() {
    assert!(parse_exposition("# TYPE a_total counter\na_total 1\n").is_ok());
    assert!(parse_exposition("a 1\n").is_err(), "no TYPE");
    assert!(parse_exposition("# TYPE a counter\na 1\n").is_err(), "counter without _total");
    assert!(parse_exposition("# TYPE a gauge\na{x=\"1} 1\n").is_err(), "unterminated label");
    assert!(parse_exposition("# TYPE a gauge\na{x=1} 1\n").is_err(), "unquoted label");
    assert!(parse_exposition("# TYPE a gauge\na one\n").is_err(), "bad value");
    assert!(parse_exposition("# TYPE a gauge\na 1\na 2\n").is_err(), "duplicate");
    let (s, _) = parse_exposition("# TYPE a gauge\na{x=\"q\\\"\\\\\",y=\"2\"} +Inf\n").unwrap();
    assert_eq!(series(&s, "a", &[("x", "q\"\\"), ("y", "2")]), Some(&f64::INFINITY));
}

#[tokio::test]
async fn metrics_parse_and_every_counter_exists_from_the_start() {
    let t = TestApp::new();
    let r = t.get("/metrics").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers[header::CONTENT_TYPE], testing::METRICS_CONTENT_TYPE);
    let (samples, types) = parse_exposition(&r.text()).unwrap_or_else(|e| panic!("{e}\n{}", r.text()));
    for name in [
        "vitrine_evicted_keys_total",
        "vitrine_expired_keys_total",
        "vitrine_keyspace_hits_total",
        "vitrine_commands_processed_total",
        "vitrine_connections_received_total",
        "vitrine_net_input_bytes_total",
        "vitrine_rejected_oom_commands_total",
        "vitrine_evicted_scripts_total",
    ] {
        assert_eq!(series(&samples, name, &[]), Some(&0.0), "{name}");
        assert_eq!(types[name], "counter");
    }
    for cause in ["never_seen", "expired", "evicted"] {
        assert_eq!(series(&samples, "vitrine_keyspace_misses_total", &[("cause", cause)]), Some(&0.0));
    }
    for name in vitrine_engine::inspect::command_names() {
        let name = name.to_ascii_lowercase();
        assert_eq!(series(&samples, "vitrine_commands_total", &[("cmd", &name)]), Some(&0.0), "{name}");
    }
    assert_eq!(series(&samples, "vitrine_up", &[]), Some(&1.0));
    assert_eq!(series(&samples, "vitrine_memory_max_bytes", &[]), Some(&0.0));
    assert_eq!(series(&samples, "vitrine_db_keys", &[("db", "db0")]), Some(&0.0));
    assert_eq!(series(&samples, "vitrine_maxmemory_policy", &[("policy", "noeviction")]), Some(&1.0));

    t.state.call(&["SET", "k", "v"]);
    t.state.call(&["GET", "k"]);
    t.state.call(&["GET", "nope"]);
    let (samples, _) = parse_exposition(&t.get("/metrics").await.text()).unwrap();
    assert_eq!(series(&samples, "vitrine_commands_total", &[("cmd", "get")]), Some(&2.0));
    assert_eq!(series(&samples, "vitrine_keyspace_hits_total", &[]), Some(&1.0));
    assert_eq!(series(&samples, "vitrine_keyspace_misses_total", &[("cause", "never_seen")]), Some(&1.0));
    assert_eq!(series(&samples, "vitrine_db_keys", &[("db", "db0")]), Some(&1.0));
    assert_eq!(series(&samples, "vitrine_db_keys_by_type", &[("db", "db0"), ("type", "string")]), Some(&1.0));
    assert!(series(&samples, "vitrine_memory_used_bytes", &[]).is_some_and(|&m| m > 0.0));

    // The scripts' VM and cache, in /metrics and /api/stats alike.
    assert_eq!(series(&samples, "vitrine_number_of_cached_scripts", &[]), Some(&0.0));
    t.state.call(&["EVAL", "return 1", "0"]);
    let (samples, _) = parse_exposition(&t.get("/metrics").await.text()).unwrap();
    assert_eq!(series(&samples, "vitrine_number_of_cached_scripts", &[]), Some(&1.0));
    assert!(series(&samples, "vitrine_memory_used_vm_eval_bytes", &[]).is_some_and(|&m| m > 10_000.0));
    assert!(series(&samples, "vitrine_memory_used_scripts_eval_bytes", &[]).is_some_and(|&m| m > 48.0));
    assert_eq!(series(&samples, "vitrine_lua_maxmemory_bytes", &[]), Some(&268435456.0));
    let stats = t.get("/api/stats").await.expect(StatusCode::OK);
    assert_eq!(stats["scripting"]["number_of_cached_scripts"], 1);
    assert!(stats["scripting"]["used_memory_vm_eval"].as_u64().is_some_and(|m| m > 10_000));
}

// ---------------------------------------------------------------- memory

#[tokio::test]
async fn memory_ledger_adds_up_and_is_exported() {
    let t = TestApp::new();
    for i in 0..5 {
        t.state.call(&["SET", &format!("user:{i}:name"), "alice"]);
    }
    t.state.call(&["SET", "big:blob", &"x".repeat(10_000), "EX", "30"]);
    t.state.call(&["SELECT", "1"]);
    let v = t.get("/api/memory").await.expect(StatusCode::OK);
    let stats = t.get("/api/stats").await.expect(StatusCode::OK);
    // The stats' `used_memory` is the data part (INFO's used_memory_dataset).
    assert_eq!(v["dataset_bytes"], stats["used_memory"]);
    let prefixes: u64 = v["prefixes"].as_array().unwrap().iter().map(|p| p["bytes"].as_u64().unwrap()).sum();
    assert_eq!(prefixes + v["index_bytes"].as_u64().unwrap(), v["dataset_bytes"].as_u64().unwrap());
    assert_eq!(v["big_keys"][0]["key"], "big:blob");
    assert_eq!(v["with_ttl"]["keys"], 1);
    assert_eq!(v["ttl"]["buckets"][2]["keys"], 1, "30 s left: under a minute");
    let user = v["prefixes"].as_array().unwrap().iter().find(|p| p["name"] == "user:").unwrap().clone();
    assert_eq!(user["keys"], 5);
    assert_eq!(user["children"].as_array().unwrap().len(), 5);
    assert_eq!(t.get("/api/memory?db=1").await.expect(StatusCode::OK)["keys"]["keys"], 0);
    t.get("/api/memory?db=99").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/memory?nope=1").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");

    let (samples, types) = parse_exposition(&t.get("/metrics").await.text()).unwrap();
    assert_eq!(series(&samples, "vitrine_memory_prefix_keys", &[("prefix", "user:")]), Some(&5.0));
    assert_eq!(series(&samples, "vitrine_memory_type_keys", &[("type", "string")]), Some(&6.0));
    assert_eq!(series(&samples, "vitrine_memory_ttl_keys", &[("ttl", "yes")]), Some(&1.0));
    assert_eq!(series(&samples, "vitrine_keys_expiring", &[("within", "60s")]), Some(&1.0));
    assert_eq!(series(&samples, "vitrine_ttl_keys", &[("remaining", "<1m")]), Some(&1.0));
    assert!(series(&samples, "vitrine_big_key_bytes", &[("db", "0"), ("key", "big:blob"), ("type", "string")])
        .is_some_and(|&b| b > 10_000.0));
    assert_eq!(series(&samples, "vitrine_memory_ledger_dataset_bytes", &[]).copied(), v["dataset_bytes"].as_f64());
    assert_eq!(types["vitrine_memory_prefix_bytes"], "gauge");
}

// ---------------------------------------------------------------- health, meta, static

#[tokio::test]
async fn health_and_readiness() {
    let t = TestApp::new();
    assert_eq!(t.get("/healthz").await.expect(StatusCode::OK), json!({ "status": "ok" }));
    assert_eq!(t.get("/readyz").await.expect(StatusCode::OK), json!({ "status": "ready" }));
    t.state.set_ready(false);
    assert_eq!(t.get("/readyz").await.expect(StatusCode::SERVICE_UNAVAILABLE), json!({ "status": "starting" }));
    t.state.set_ready(true);
    t.shutdown.send_replace(true);
    assert_eq!(t.get("/readyz").await.expect(StatusCode::SERVICE_UNAVAILABLE), json!({ "status": "shutting_down" }));
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_json_errors() {
    let t = TestApp::new();
    t.get("/api/nope").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    t.send(req(Method::POST, "/api/stats", Some(json!({}))))
        .await
        .expect_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    t.send(req(Method::DELETE, "/metrics", None))
        .await
        .expect_error(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    t.get("/some/page").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    let r = t.get("/api/stats").await;
    assert_eq!(r.headers[header::CACHE_CONTROL], "no-store");
    assert_eq!(r.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert!(r.headers.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none(), "no CORS");
}

#[tokio::test]
async fn the_root_says_the_dashboard_is_not_built_until_it_is() {
    let t = TestApp::new();
    let r = t.get("/").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
    assert!(r.text().contains("dashboard is not built"), "{}", r.text());

    let web = TempDir::new("web");
    std::fs::write(web.0.join("index.html"), "<!doctype html><title>app</title>").unwrap();
    std::fs::create_dir_all(web.0.join("assets")).unwrap();
    std::fs::write(web.0.join("assets/app.js"), "console.log(1)").unwrap();
    let t = TestApp::with(Setup { web_dir: Some(web.0.clone()), ..Setup::default() });
    assert!(t.get("/").await.text().contains("<title>app</title>"));
    assert_eq!(t.get("/assets/app.js").await.text(), "console.log(1)");
    // The single-page app's own routes fall back to index.html; the API stays JSON.
    assert!(t.get("/keys/some/route").await.text().contains("<title>app</title>"));
    t.get("/api/nope").await.expect_error(StatusCode::NOT_FOUND, "not_found");
}

/// Axum's `{*key}` is OpenAPI's `{key}`.
fn openapi_path(axum_path: &str) -> String {
    axum_path.replace("{*", "{")
}

#[tokio::test]
async fn openapi_describes_exactly_the_routes() {
    let t = TestApp::new();
    let served = t.get("/api/openapi.json").await.expect(StatusCode::OK);
    let doc: Value = serde_json::from_str(OPENAPI).expect("openapi.json is JSON");
    assert_eq!(served, doc);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            assert!(op["responses"].is_object(), "{method} {path} has responses");
            assert!(op["summary"].is_string(), "{method} {path} has a summary");
            documented.insert((method.to_ascii_uppercase(), path.clone()));
        }
    }
    let routed: BTreeSet<(String, String)> =
        testing::routes().iter().map(|(m, p)| (m.as_str().to_string(), openapi_path(p))).collect();
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(undocumented.is_empty(), "routes missing from openapi.json: {undocumented:?}");
    assert!(unrouted.is_empty(), "openapi.json describes routes that do not exist: {unrouted:?}");
    // Every $ref resolves.
    let text = OPENAPI;
    for part in text.split("\"$ref\": \"#/").skip(1) {
        let target = &part[..part.find('"').unwrap()];
        let mut node = &doc;
        for seg in target.split('/') {
            node = &node[seg];
        }
        assert!(!node.is_null(), "dangling $ref {target}");
    }
    // And each documented route really answers (not 404/405) on the real router.
    for (method, path) in &documented {
        let uri = path.replace("{key}", "some-key").replace("{id}", "1");
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let body = matches!(method, Method::POST | Method::PUT | Method::PATCH).then(|| json!({}));
        if uri.ends_with("/stream") {
            // An endless body: look at the status only.
            let response = t.app.clone().oneshot(req(method, &uri, body)).await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            continue;
        }
        let r = t.send(req(method.clone(), &uri, body)).await;
        assert_ne!(r.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}");
        if r.status == StatusCode::NOT_FOUND {
            // Only "no such key/run" 404s, never "no such endpoint".
            assert!(!r.text().contains("no such endpoint"), "{method} {uri}: {}", r.text());
        }
    }
}

// ---------------------------------------------------------------- security

fn with_token() -> TestApp {
    TestApp::with(Setup { token: Some("s3cret-token".into()), ..Setup::default() })
}

#[tokio::test]
async fn a_token_protects_the_api_and_metrics() {
    let t = with_token();
    for uri in ["/api/stats", "/api/keys", "/metrics", "/api/openapi.json", "/api/nope"] {
        let r = t.get(uri).await;
        r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
        assert_eq!(r.headers[header::WWW_AUTHENTICATE], "Bearer");
        let wrong = t.send(raw(Method::GET, uri, &[("authorization", "Bearer s3cret-tokeN")], Body::empty())).await;
        wrong.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
        let basic = t.send(raw(Method::GET, uri, &[("authorization", "Basic czNjcmV0LXRva2Vu")], Body::empty())).await;
        basic.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    }
    let ok = t.send(raw(Method::GET, "/api/stats", &[("authorization", "Bearer s3cret-token")], Body::empty())).await;
    ok.expect(StatusCode::OK);
    let ok = t.send(raw(Method::GET, "/metrics", &[("authorization", "Bearer s3cret-token")], Body::empty())).await;
    assert_eq!(ok.status, StatusCode::OK);
    // Writes too.
    let w = t
        .send(raw(Method::POST, "/api/command", &[("content-type", "application/json")], "[\"SET\",\"k\",\"v\"]"))
        .await;
    w.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    assert_eq!(t.state.engine.key_count(), 0);
    // Probes stay open.
    t.get("/healthz").await.expect(StatusCode::OK);
    t.get("/readyz").await.expect(StatusCode::OK);
    // The query form is only for the event stream.
    t.get("/api/stats?access_token=s3cret-token").await.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    let response =
        t.app.clone().oneshot(req(Method::GET, "/api/stats/stream?access_token=s3cret-token", None)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let wrong = t.get("/api/stats/stream?access_token=nope").await;
    wrong.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
}

#[tokio::test]
async fn without_a_token_foreign_host_names_are_refused() {
    let t = TestApp::new();
    let get = |host: &'static str| t.send(raw(Method::GET, "/api/stats", &[("host", host)], Body::empty()));
    get("evil.example").await.expect_error(StatusCode::MISDIRECTED_REQUEST, "misdirected_host");
    get("evil.example:8080").await.expect_error(StatusCode::MISDIRECTED_REQUEST, "misdirected_host");
    get("localhost.evil.example:8080").await.expect_error(StatusCode::MISDIRECTED_REQUEST, "misdirected_host");
    get("10.1.2.3:8080").await.expect_error(StatusCode::MISDIRECTED_REQUEST, "misdirected_host");
    get("localhost:8080").await.expect(StatusCode::OK);
    get("127.0.0.1:8080").await.expect(StatusCode::OK);
    get("[::1]:8080").await.expect(StatusCode::OK);
    let no_host = Request::builder().uri("/api/stats").body(Body::empty()).unwrap();
    t.send(no_host).await.expect_error(StatusCode::BAD_REQUEST, "missing_host");
    // The dashboard page too; probes are exempt.
    let page = t.send(raw(Method::GET, "/", &[("host", "evil.example")], Body::empty())).await;
    page.expect_error(StatusCode::MISDIRECTED_REQUEST, "misdirected_host");
    t.send(raw(Method::GET, "/healthz", &[("host", "evil.example")], Body::empty())).await.expect(StatusCode::OK);
    // With a token, any name works (the token is what protects it then).
    let t = with_token();
    let r = t
        .send(raw(
            Method::GET,
            "/api/stats",
            &[("host", "cache.internal:8080"), ("authorization", "Bearer s3cret-token")],
            Body::empty(),
        ))
        .await;
    r.expect(StatusCode::OK);
}

#[tokio::test]
async fn cross_site_writes_are_refused() {
    let t = TestApp::new();
    let post = |headers: &'static [(&'static str, &'static str)]| {
        let mut all = vec![("content-type", "application/json")];
        all.extend_from_slice(headers);
        t.send(raw(Method::POST, "/api/command", &all, "[\"SET\",\"k\",\"v\"]"))
    };
    post(&[("origin", "http://evil.example")]).await.expect_error(StatusCode::FORBIDDEN, "cross_site");
    post(&[("origin", "null")]).await.expect_error(StatusCode::FORBIDDEN, "cross_site");
    post(&[("origin", "http://localhost:5173")]).await.expect_error(StatusCode::FORBIDDEN, "cross_site");
    post(&[("sec-fetch-site", "cross-site")]).await.expect_error(StatusCode::FORBIDDEN, "cross_site");
    post(&[("sec-fetch-site", "same-site")]).await.expect_error(StatusCode::FORBIDDEN, "cross_site");
    assert_eq!(t.state.engine.key_count(), 0);
    post(&[("origin", "http://localhost:8080"), ("sec-fetch-site", "same-origin")]).await.expect(StatusCode::OK);
    post(&[("sec-fetch-site", "none")]).await.expect(StatusCode::OK);
    post(&[]).await.expect(StatusCode::OK);
    // Reads from another origin are not refused here (no CORS header lets a page read them).
    let r = t.send(raw(Method::GET, "/api/stats", &[("origin", "http://evil.example")], Body::empty())).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    // A token does not lift the cross-site check.
    let t = with_token();
    let r = t
        .send(raw(
            Method::DELETE,
            "/api/keys/k",
            &[("authorization", "Bearer s3cret-token"), ("origin", "http://evil.example")],
            Body::empty(),
        ))
        .await;
    r.expect_error(StatusCode::FORBIDDEN, "cross_site");
}

#[test]
fn exposure_without_a_token_is_refused() {
    use vitrine_server::testing::check_exposure;
    let any: std::net::IpAddr = "0.0.0.0".parse().unwrap();
    let lan: std::net::IpAddr = "192.168.1.5".parse().unwrap();
    let local: std::net::IpAddr = "127.0.0.1".parse().unwrap();
    assert!(check_exposure(local, None, false).is_ok());
    assert!(check_exposure("::1".parse().unwrap(), None, false).is_ok());
    let err = check_exposure(any, None, false).unwrap_err().to_string();
    assert!(err.contains("--admin-token") && err.contains("--admin-insecure"), "{err}");
    assert!(check_exposure(lan, Some(""), false).is_err(), "an empty token is no token");
    assert!(check_exposure(lan, Some("t"), false).is_ok());
    assert!(check_exposure(any, None, true).is_ok());
}

#[tokio::test]
async fn collection_keys_show_their_length_and_a_bounded_value() {
    let t = TestApp::new();
    let mut argv: Vec<String> = vec!["RPUSH".into(), "queue".into()];
    argv.extend((0..1500).map(|i| format!("job-{i}")));
    t.state.call(&argv);
    t.state.call(&["HSET", "user:1", "name", "ada", "lang", "en"]);
    let v = t.get("/api/keys/queue").await.expect(StatusCode::OK);
    assert_eq!(v["type"], "list");
    assert_eq!(v["length"], 1500);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["value"].as_array().map(|a| a.len()), Some(testing::MAX_VALUE_ELEMENTS));
    assert_eq!(v["value"][0], "job-0");
    let v = t.get("/api/keys/user:1").await.expect(StatusCode::OK);
    assert_eq!(v["type"], "hash");
    assert_eq!(v["length"], 2);
    assert_eq!(v["truncated"], false);
    assert_eq!(v["value"]["name"], "ada");
}

#[tokio::test]
async fn slowlog_and_latency_routes_show_timed_commands() {
    let t = TestApp::new();
    let v = t.get("/api/slowlog").await.expect(StatusCode::OK);
    assert_eq!(
        (v["entries"].clone(), v["slower_than_us"].clone(), v["timed"].clone()),
        (json!([]), json!(10000), json!(true))
    );
    // Every command is slow at 0 µs (the server's clock times them).
    t.json(Method::PATCH, "/api/config", json!({ "slowlog-log-slower-than": "0" })).await.expect(StatusCode::OK);
    let engine = &t.state.engine;
    let mut session = engine.new_session("127.0.0.1:9", "127.0.0.1:6379", now_ms());
    engine.call(&mut session, &["CLIENT", "SETNAME", "tester"], now_ms());
    engine.call(&mut session, &["SET", "k", "v"], now_ms());
    let v = t.get("/api/slowlog?count=1").await.expect(StatusCode::OK);
    assert_eq!(v["len"], 3, "the CONFIG SET the PATCH ran, CLIENT SETNAME, SET");
    let entry = &v["entries"][0];
    assert_eq!(
        (entry["argv"].clone(), entry["client_addr"].clone(), entry["client_name"].clone()),
        (json!(["SET", "k", "v"]), json!("127.0.0.1:9"), json!("tester"))
    );
    t.get("/api/slowlog?count=-1").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    let v = t.send(req(Method::DELETE, "/api/slowlog", None)).await.expect(StatusCode::OK);
    assert_eq!((v["len"].clone(), v["entries"].clone()), (json!(0), json!([])));
    let v = t.get("/api/latency").await.expect(StatusCode::OK);
    let set = v["commands"].as_array().unwrap().iter().find(|c| c["name"] == "set").expect("set was timed").clone();
    assert_eq!(set["calls"], 1);
    assert_eq!(set["buckets"].as_array().unwrap().last().unwrap()[1], 1);
    assert!(set["p99_us"].as_u64().is_some());
    engine.end_session(&session);
}

#[tokio::test]
async fn stream_entries_are_paged_by_id() {
    let t = TestApp::new();
    for i in 1..=3 {
        t.state.call(&["XADD", "s/1", &format!("{i}-0"), "f", &i.to_string()]);
    }
    let v = t.get("/api/keys/s%2F1").await.expect(StatusCode::OK);
    assert_eq!(
        (v["type"].clone(), v["encoding"].clone(), v["length"].clone()),
        (json!("stream"), json!("stream"), json!(3))
    );
    let p = t.get("/api/stream-entries/s/1?count=2").await.expect(StatusCode::OK);
    assert_eq!(p["entries"], json!([{ "id": "3-0", "fields": [["f", "3"]] }, { "id": "2-0", "fields": [["f", "2"]] }]));
    assert_eq!((p["next_cursor"].clone(), p["last_id"].clone()), (json!("2-0"), json!("3-0")));
    let p = t.get("/api/stream-entries/s/1?order=oldest&cursor=1-0").await.expect(StatusCode::OK);
    assert_eq!(p["entries"].as_array().map(Vec::len), Some(2));
    assert_eq!(p["next_cursor"], Value::Null);
    t.get("/api/stream-entries/s/1?order=up").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/stream-entries/nope").await.expect_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn geo_points_show_a_geo_index() {
    let t = TestApp::new();
    t.state.call(&["GEOADD", "places/it", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"]);
    t.state.call(&["ZADD", "plain", "1.5", "a"]);
    let p = t.get("/api/geo-points/places/it?limit=1").await.expect(StatusCode::OK);
    assert_eq!(
        (p["is_geo"].clone(), p["length"].clone(), p["truncated"].clone()),
        (json!(true), json!(2), json!(true))
    );
    assert_eq!(p["points"][0]["member"], json!("Palermo"));
    assert_eq!(p["points"][0]["longitude"], json!(13.361389338970184));
    let p = t.get("/api/geo-points/plain").await.expect(StatusCode::OK);
    assert_eq!((p["is_geo"].clone(), p["points"].clone()), (json!(false), json!([])));
    t.get("/api/geo-points/plain?limit=0").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/geo-points/nope").await.expect_error(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn string_bits_are_windowed_by_byte() {
    let t = TestApp::new();
    t.state.call(&["SETBIT", "b/1", "7", "1"]);
    t.state.call(&["SETBIT", "b/1", "8", "1"]);
    t.state.call(&["SETBIT", "b/1", "23", "1"]);
    let w = t.get("/api/string-bits/b/1?count=2").await.expect(StatusCode::OK);
    assert_eq!(w["bytes"], json!([1, 128]));
    assert_eq!(
        (w["length"].clone(), w["bitcount"].clone(), w["window_bitcount"].clone()),
        (json!(3), json!(3), json!(2))
    );
    assert_eq!(w["next_offset"], json!(2));
    let w = t.get("/api/string-bits/b%2F1?offset=2").await.expect(StatusCode::OK);
    assert_eq!((w["bytes"].clone(), w["next_offset"].clone()), (json!([1]), Value::Null));
    t.get("/api/string-bits/b/1?count=0").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.get("/api/string-bits/nope").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    t.state.call(&["RPUSH", "l", "x"]);
    t.get("/api/string-bits/l").await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "wrong_type");
}
