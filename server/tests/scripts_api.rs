//! `GET /api/scripts` and `GET /api/scripts/{id}` (the Scripts page) and the scripts' series
//! in `/metrics`, through the router with `oneshot`: a script run with `POST /api/command`
//! (its body passed exactly, quotes and newlines included) shows with its calls, its
//! commands and the key it touched without declaring it.

use axum::http::{Method, StatusCode};
use serde_json::json;
use vitrine_server::testing::TestApp;

#[tokio::test]
async fn scripts_show_their_calls_commands_and_undeclared_keys() {
    let t = TestApp::new();
    let body = "redis.call('SET', KEYS[1], ARGV[1])\nredis.call(\"INCR\", 'audit:log')\nreturn 'done'";
    for _ in 0..2 {
        let r = t.json(Method::POST, "/api/command", json!({ "args": ["EVAL", body, "1", "cart:1", "full"] })).await;
        assert_eq!(r.expect(StatusCode::OK), json!({ "type": "bulk", "value": "done" }));
    }
    let loaded =
        t.json(Method::POST, "/api/command", json!(["SCRIPT", "LOAD", "return 1"])).await.expect(StatusCode::OK);
    let loaded_sha = loaded["value"].as_str().unwrap().to_string();

    let list = t.get("/api/scripts").await.expect(StatusCode::OK);
    assert_eq!(list["available"], true);
    let scripts = list["scripts"].as_array().unwrap();
    assert_eq!(scripts.len(), 2);
    let top = &scripts[0];
    assert_eq!(top["kind"], "script");
    assert_eq!(top["preview"], "redis.call('SET', KEYS[1], ARGV[1])…");
    assert_eq!((top["calls"].as_u64(), top["errors"].as_u64()), (Some(2), Some(0)));
    assert_eq!((top["declared_keys"].as_u64(), top["undeclared_keys"].as_u64()), (Some(2), Some(2)));
    assert_eq!(top["undeclared_sample"], json!(["audit:log"]));
    assert_eq!(scripts[1]["id"], loaded_sha.as_str());
    assert_eq!(scripts[1]["last_call_ms"], json!(null));

    let sha = top["id"].as_str().unwrap();
    let detail = t.get(&format!("/api/scripts/{sha}")).await.expect(StatusCode::OK);
    assert_eq!(detail["source"], body);
    assert_eq!(detail["undeclared_examples"], json!(["audit:log"]));
    assert_eq!(detail["declared_examples"], json!(["cart:1"]));
    assert_eq!(detail["commands"], json!([{ "name": "INCR", "calls": 2 }, { "name": "SET", "calls": 2 }]));

    t.get(&format!("/api/scripts/{}", "0".repeat(40))).await.expect_error(StatusCode::NOT_FOUND, "not_found");
    t.get("/api/scripts/not-a-sha").await.expect_error(StatusCode::NOT_FOUND, "not_found");

    let metrics = t.get("/metrics").await.text();
    let label = format!("kind=\"script\",id=\"{}\"", &sha[..12]);
    assert!(metrics.contains(&format!("vitrine_script_calls_total{{{label}}} 2\n")), "{metrics}");
    assert!(metrics.contains(&format!("vitrine_script_errors_total{{{label}}} 0\n")), "{metrics}");
    assert!(metrics.contains("vitrine_scripts_cached 2\n"), "{metrics}");

    // SCRIPT FLUSH forgets them.
    t.json(Method::POST, "/api/command", json!(["SCRIPT", "FLUSH"])).await.expect(StatusCode::OK);
    assert_eq!(t.get("/api/scripts").await.expect(StatusCode::OK)["scripts"], json!([]));
}
