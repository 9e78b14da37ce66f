//! The Keys page's server routes beyond one key's read/write/delete: the preview count
//! (`GET /api/key-count`), bulk jobs (`POST/GET/DELETE /api/key-jobs`) run to completion and
//! cancelled midway, and one-element edits of every collection type (`PATCH /api/keys/{key}`).

use axum::http::{Method, StatusCode};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

use vitrine_engine::{Config, Engine, Reply};
use vitrine_server::testing::{now_ms, req, start_aof, Setup, TempDir, TestApp};

fn fill(t: &TestApp, prefix: &str, n: usize) {
    for i in 0..n {
        t.state.call(&["SET".to_string(), format!("{prefix}{i}"), "v".to_string()]);
    }
}

/// Polls a job until it is no longer running.
async fn finished(t: &TestApp, id: u64) -> Value {
    for _ in 0..2000 {
        let v = t.get(&format!("/api/key-jobs/{id}")).await.expect(StatusCode::OK);
        if v["state"] != "running" {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("job {id} never finished");
}

fn dbsize(t: &TestApp) -> Reply {
    t.state.call(&["DBSIZE"])
}

#[tokio::test]
async fn a_bulk_delete_counts_runs_to_completion_and_is_listed() {
    let t = TestApp::new();
    fill(&t, "user:", 3000);
    fill(&t, "other:", 100);
    t.state.call(&["HSET", "user:h", "f", "v"]);
    let c = t.get("/api/key-count?match=user:*&type=string").await.expect(StatusCode::OK);
    assert_eq!(c, json!({ "matched": 3000, "scanned": 3101, "keys": 3101, "exact": true }));
    t.get("/api/key-count?type=nope").await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    let body = json!({ "match": "user:*", "type": "string", "action": "delete" });
    let job = t.json(Method::POST, "/api/key-jobs", body).await.expect(StatusCode::ACCEPTED);
    assert_eq!((job["expected"].clone(), job["expected_exact"].clone()), (json!(3000), json!(true)));
    let id = job["id"].as_u64().unwrap();
    let done = finished(&t, id).await;
    assert_eq!(
        (done["state"].clone(), done["done"].clone(), done["matched"].clone()),
        (json!("done"), json!(3000), json!(3000))
    );
    assert_eq!(dbsize(&t), Reply::Int(101), "the hash and other:* stay");
    let info = t.state.call(&["INFO", "commandstats"]);
    assert!(info.to_json().to_string().contains("cmdstat_unlink:calls="), "ran through dispatch: {info:?}");
    let list = t.get("/api/key-jobs").await.expect(StatusCode::OK);
    assert_eq!(list["jobs"][0]["id"], id);
    t.get("/api/key-jobs/999").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    t.get("/api/key-jobs/x").await.expect_error(StatusCode::NOT_FOUND, "not_found");
    let bad = json!({ "action": "expire" });
    t.json(Method::POST, "/api/key-jobs", bad).await.expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
}

#[tokio::test]
async fn a_bulk_ttl_sets_and_removes_expiry() {
    let t = TestApp::new();
    fill(&t, "s:", 700);
    let body = json!({ "match": "s:*", "action": "expire", "ttl": 100 });
    let job = t.json(Method::POST, "/api/key-jobs", body).await.expect(StatusCode::ACCEPTED);
    let done = finished(&t, job["id"].as_u64().unwrap()).await;
    assert_eq!(done["done"], 700);
    assert_eq!(t.state.call(&["TTL", "s:5"]), Reply::Int(100));
    let body = json!({ "match": "s:1*", "action": "persist" });
    let job = t.json(Method::POST, "/api/key-jobs", body).await.expect(StatusCode::ACCEPTED);
    finished(&t, job["id"].as_u64().unwrap()).await;
    assert_eq!(t.state.call(&["TTL", "s:12"]), Reply::Int(-1));
    assert_eq!(t.state.call(&["TTL", "s:5"]), Reply::Int(100));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_job_stops_and_leaves_the_rest() {
    let t = TestApp::new();
    fill(&t, "k:", 50_000);
    let body = json!({ "match": "k:*", "action": "delete" });
    let job = t.json(Method::POST, "/api/key-jobs", body).await.expect(StatusCode::ACCEPTED);
    let id = job["id"].as_u64().unwrap();
    let cancelled = t.send(req(Method::DELETE, &format!("/api/key-jobs/{id}"), None)).await.expect(StatusCode::OK);
    assert_eq!(cancelled["state"], "cancelled");
    // The batch that was running when the cancel came is counted once the task stops.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let end = t.get(&format!("/api/key-jobs/{id}")).await.expect(StatusCode::OK);
    assert_eq!(end["state"], "cancelled");
    let deleted = end["done"].as_i64().unwrap();
    assert!(deleted < 50_000, "{end}");
    assert_eq!(dbsize(&t), Reply::Int(50_000 - deleted), "keys the job did not reach stay");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(dbsize(&t), Reply::Int(50_000 - deleted), "nothing more is deleted after the cancel");
}

#[tokio::test]
async fn a_job_waits_out_client_pause_and_can_be_cancelled_meanwhile() {
    let t = TestApp::new();
    fill(&t, "p:", 100);
    t.state.call(&["CLIENT", "PAUSE", "60000", "WRITE"]);
    let body = json!({ "match": "p:*", "action": "delete" });
    let job = t.json(Method::POST, "/api/key-jobs", body).await.expect(StatusCode::ACCEPTED);
    let id = job["id"].as_u64().unwrap();
    let mut waiting = Value::Null;
    for _ in 0..200 {
        waiting = t.get(&format!("/api/key-jobs/{id}")).await.expect(StatusCode::OK);
        if waiting["paused"] == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        (waiting["paused"].clone(), waiting["state"].clone(), waiting["done"].clone()),
        (json!(true), json!("running"), json!(0))
    );
    let cancelled = t.send(req(Method::DELETE, &format!("/api/key-jobs/{id}"), None)).await.expect(StatusCode::OK);
    assert_eq!(cancelled["state"], "cancelled");
    t.state.call(&["CLIENT", "UNPAUSE"]);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(finished(&t, id).await["state"], "cancelled");
    assert_eq!(dbsize(&t), Reply::Int(100), "nothing was deleted");
}

#[tokio::test]
async fn edits_run_one_command_and_answer_the_key() {
    let t = TestApp::new();
    let patch = |key: &str, body: Value| {
        let uri = format!("/api/keys/{key}");
        let t = &t;
        async move { t.json(Method::PATCH, &uri, body).await }
    };
    let r = patch("h", json!({ "op": "hash_set", "field": "name", "value": "ann" })).await.expect(StatusCode::OK);
    assert_eq!(r["command"], json!(["HSET", "h", "name", "ann"]));
    assert_eq!(r["key"]["value"], json!({ "name": "ann" }));
    let r = patch("z", json!({ "op": "zset_add", "member": "m", "score": 2 })).await.expect(StatusCode::OK);
    assert_eq!(r["reply"], json!({ "type": "int", "value": 1 }));
    let r = patch("z", json!({ "op": "zset_add", "member": "m", "score": "7.5" })).await.expect(StatusCode::OK);
    assert_eq!(r["key"]["value"], json!([["m", 7.5]]));
    let r = patch("z", json!({ "op": "zset_remove", "member": "m" })).await.expect(StatusCode::OK);
    assert_eq!(r["key"], Value::Null);
    patch("h", json!({ "op": "list_push", "end": "left", "value": "x" }))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "command_error");
    let e = patch("h", json!({ "op": "list_push", "end": "left", "value": "x" })).await.json();
    assert!(e["error"]["message"].as_str().unwrap().starts_with("WRONGTYPE"), "{e}");
    patch("h", json!({ "op": "nope" })).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    let r = patch("l?db=2", json!({ "op": "list_push", "end": "right", "value": "a" })).await.expect(StatusCode::OK);
    assert_eq!(r["key"]["value"], json!(["a"]));
    assert_eq!(t.state.call_in(2, &["LLEN", "l"]), Reply::Int(1));
}

/// Every file under `dir`, read whole and concatenated (the append-only file and its parts).
fn read_all(dir: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read the directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(read_all(&path));
        } else {
            out.extend(std::fs::read(&path).unwrap_or_default());
        }
    }
    out
}

#[tokio::test]
async fn a_bulk_job_is_logged_to_the_append_only_file() {
    let dir = TempDir::new("key-jobs-aof");
    let engine = Arc::new(Engine::new(Config::default(), now_ms(), 7));
    let aof = start_aof(&dir.0, engine.clone()).expect("start the AOF");
    let t = TestApp::over(engine, Setup { aof: Some(aof), ..Setup::default() }, TempDir::new("key-jobs-aof-http"));
    fill(&t, "a:", 10);
    let body = json!({ "match": "a:*", "action": "expire", "ttl": 50 });
    let job = t.json(Method::POST, "/api/key-jobs", body).await.expect(StatusCode::ACCEPTED);
    finished(&t, job["id"].as_u64().unwrap()).await;
    let body = json!({ "match": "a:*", "action": "delete" });
    let job = t.json(Method::POST, "/api/key-jobs", body).await.expect(StatusCode::ACCEPTED);
    assert_eq!(finished(&t, job["id"].as_u64().unwrap()).await["done"], 10);
    // Give the writer a moment to flush what the jobs appended.
    let logged = |word: &str| String::from_utf8_lossy(&read_all(&dir.0)).contains(word);
    for _ in 0..200 {
        if logged("UNLINK") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(logged("UNLINK"), "the bulk delete is in the append-only file");
    assert!(logged("PEXPIREAT") || logged("EXPIRE"), "the bulk TTL is in the append-only file");
}
