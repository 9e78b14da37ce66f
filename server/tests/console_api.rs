//! `POST /api/console` against the real server, and the playground's twins of the admin API's
//! views: for the same commands, the wasm crate's `Playground` (natively, as the rlib) and the
//! HTTP routes answer the same JSON, since both come from the engine's `inspect` module. Only
//! what depends on the clock or the engine's random seed (idle times, event times, SCAN order)
//! is left out of the comparison.

mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use common::http::{get, request, send_json};
use common::Server;
use serde_json::{json, Value};
use vitrine_wasm::Playground;

fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as f64).unwrap_or(0.0)
}

fn console(server: &Server, line: &str, session: Option<&str>) -> Value {
    console_with(server, &[], line, session)
}

fn console_with(server: &Server, headers: &[(&str, &str)], line: &str, session: Option<&str>) -> Value {
    let mut body = json!({ "line": line });
    if let Some(id) = session {
        body["session"] = json!(id);
    }
    request(server.http_port, "POST", "/api/console", headers, Some(&body.to_string())).expect(200)
}

/// `v` without the fields named, at any depth.
fn without(mut v: Value, fields: &[&str]) -> Value {
    match &mut v {
        Value::Object(map) => {
            for f in fields {
                map.remove(*f);
            }
            for item in map.values_mut() {
                *item = without(item.take(), fields);
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                *item = without(item.take(), fields);
            }
        }
        _ => {}
    }
    v
}

#[test]
fn console_lines_are_split_run_and_printed_as_redis_cli() {
    let server = Server::start(&[]);
    let out = console(&server, r#"SET greeting "hello world""#, None);
    assert_eq!(
        out,
        json!({
            "kind": "reply",
            "argv": ["SET", "greeting", "hello world"],
            "reply": { "type": "status", "value": "OK" },
            "text": "OK\n",
            "resp": "+OK\r\n",
            "db": 0,
        })
    );
    assert_eq!(console(&server, "MGET greeting nope", None)["text"], "1) \"hello world\"\n2) (nil)\n");
    // A session keeps its database; each reply says which it is in.
    assert_eq!(console(&server, "SELECT 3", Some("db-session"))["db"], 3);
    assert_eq!(console(&server, "SET only3 x", Some("db-session"))["db"], 3);
    assert_eq!(console(&server, "EXISTS only3", None)["text"], "(integer) 0\n");
    assert_eq!(console(&server, "EXISTS only3", Some("db-session"))["text"], "(integer) 1\n");
    // A one-off line can name its database; in a session it leaves the session's own alone.
    let body = json!({ "line": "EXISTS only3", "db": 3 });
    let out = request(server.http_port, "POST", "/api/console", &[], Some(&body.to_string())).expect(200);
    assert_eq!((out["text"].as_str(), out["db"].as_u64()), (Some("(integer) 1\n"), Some(3)));
    let body = json!({ "line": "SET from0 x", "db": 0, "session": "db-session" });
    request(server.http_port, "POST", "/api/console", &[], Some(&body.to_string())).expect(200);
    assert_eq!(console(&server, "EXISTS from0", Some("db-session"))["text"], "(integer) 0\n");
    assert_eq!(console(&server, "EXISTS from0", None)["text"], "(integer) 1\n");
    let body = json!({ "line": "PING", "db": 16 });
    request(server.http_port, "POST", "/api/console", &[], Some(&body.to_string())).expect(400);
    assert_eq!(console(&server, "  ", None), json!({ "kind": "empty", "text": "" }));
    assert_eq!(console(&server, "GET 'k", None), json!({ "kind": "invalid", "text": "Invalid argument(s)\n" }));
    assert_eq!(console(&server, "clear", None), json!({ "kind": "clear", "text": "" }));
    assert!(console(&server, "help get", None)["text"].as_str().unwrap().contains("GET key"));
    assert_eq!(
        console(&server, "NOSUCH x", None)["text"],
        "(error) ERR unknown command 'NOSUCH', with args beginning with: 'x' \n"
    );
}

#[test]
fn console_sessions_and_secrets_work_as_for_api_command() {
    let server = Server::start(&["--requirepass", "s3cret", "--admin-token", "tok"]);
    let auth = [("Authorization", "Bearer tok")];
    let line = |text: &str, session: Option<&str>| console_with(&server, &auth, text, session);
    // The admin token guards it as it guards /api/command.
    let denied = request(server.http_port, "POST", "/api/console", &[], Some(r#"{"line":"PING"}"#));
    assert_eq!(denied.status, 401);
    // The admin API's sessions are authenticated already, and keep MULTI across requests.
    assert_eq!(line("MULTI", Some("c1"))["text"], "OK\n");
    assert_eq!(line("SET k v", Some("c1"))["text"], "QUEUED\n");
    assert_eq!(line("EXEC", Some("c1"))["text"], "1) OK\n");
    // The same id is the same session for /api/command.
    let body = json!({ "args": ["MULTI"], "session": "c2" }).to_string();
    let r = request(server.http_port, "POST", "/api/command", &auth, Some(&body));
    assert_eq!(r.expect(200)["value"], "OK");
    assert_eq!(line("DISCARD", Some("c2"))["text"], "OK\n");
    // Without a session, each line is on its own.
    assert_eq!(line("DISCARD", None)["text"], "(error) ERR DISCARD without MULTI\n");
    // Secrets are blanked as /api/command blanks them.
    let out = line("CONFIG GET requirepass", None);
    assert_eq!(out["text"], "1) \"requirepass\"\n2) \"\"\n", "{out}");
    let post = |body: &str| request(server.http_port, "POST", "/api/console", &auth, Some(body));
    assert_eq!(post(r#"{"line":"PING","session":"no spaces"}"#).expect(422)["error"]["code"], "invalid_session");
    assert_eq!(post(r#"{"line":"PING","extra":1}"#).status, 422);
    assert_eq!(post("not json").status, 400);
}

#[test]
fn the_playground_and_the_admin_api_give_the_same_bodies() {
    let server = Server::start(&[]);
    let mut pg = Playground::new(now_ms(), 7.0);
    let lines = [
        r#"SET greeting "hello world""#,
        "RPUSH list a b c",
        "HSET hash f1 v1 f2 v2",
        "SADD set x",
        "ZADD zset 1 one 2 two",
        "SET gone v PX 1",
        "HGETALL hash",
        "LRANGE list 0 -1",
        "ZRANGE zset 0 -1 WITHSCORES",
        "GET nope",
        "INCR greeting",
        "GET 'unbalanced",
        "help @list",
        "HELLO 3",
    ];
    for line in lines {
        let http = console(&server, line, Some("twin"));
        let wasm: Value = serde_json::from_str(&pg.console(line, now_ms())).unwrap();
        if line.starts_with("HELLO") {
            // The server's id and mode differ; the shape and the protocol switch do not.
            assert_eq!(http["reply"]["type"], wasm["reply"]["type"]);
            continue;
        }
        assert_eq!(http, wasm, "{line}");
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    // Reading the expired key expires it on both sides, as an event and a miss.
    console(&server, "GET gone", None);
    pg.console("GET gone", now_ms());

    let http = get(server.http_port, "/api/keys?count=1000").expect(200);
    let wasm: Value = serde_json::from_str(&pg.keys_json("", "", "", 1000, now_ms(), 0).unwrap()).unwrap();
    let rows = |page: &Value| {
        let mut rows: Vec<Value> =
            page["keys"].as_array().unwrap().iter().map(|r| without(r.clone(), &["idle_ms"])).collect();
        rows.sort_by_key(|r| r["key"].to_string());
        rows
    };
    assert_eq!(http["done"], true);
    assert_eq!(wasm["done"], true);
    assert_eq!(rows(&http), rows(&wasm));
    assert_eq!(rows(&http).len(), 5);

    for key in ["greeting", "list", "hash", "set", "zset"] {
        let http = get(server.http_port, &format!("/api/keys/{key}")).expect(200);
        let wasm: Value = serde_json::from_str(&pg.key_json(&json!(key).to_string(), now_ms(), 0).unwrap()).unwrap();
        assert_eq!(without(http, &["idle_ms"]), without(wasm, &["idle_ms"]), "{key}");
    }
    assert_eq!(get(server.http_port, "/api/keys/nope").status, 404);
    assert_eq!(pg.key_json(r#""nope""#, now_ms(), 0).unwrap(), "null");
    let bad = get(server.http_port, "/api/keys?cursor=x").expect(400);
    assert_eq!(Err(bad["error"]["message"].as_str().unwrap().to_string()), pg.keys_json("", "", "x", 10, now_ms(), 0));

    let http = get(server.http_port, "/api/evictions/recent").expect(200);
    let wasm: Value = serde_json::from_str(&pg.evictions_json(now_ms())).unwrap();
    let events = |v: &Value| without(v.clone(), &["now_ms", "at_ms", "idle_ms"]);
    assert_eq!(events(&http), events(&wasm));
    assert_eq!(http["events"][0]["key"], "gone");

    // The slow log and latency views: the same settings and fields (the native playground
    // lends its engine no clock, so it times nothing; entries are measurements).
    let http = get(server.http_port, "/api/slowlog").expect(200);
    let wasm: Value = serde_json::from_str(&pg.slowlog_json(None)).unwrap();
    let settings = |v: &Value| without(v.clone(), &["timed", "entries", "len"]);
    assert_eq!(settings(&http), settings(&wasm));
    assert_eq!((http["timed"].clone(), wasm["timed"].clone()), (json!(true), json!(false)));
    let http = get(server.http_port, "/api/latency").expect(200);
    let wasm: Value = serde_json::from_str(&pg.latency_json()).unwrap();
    let settings = |v: &Value| without(v.clone(), &["timed", "commands", "events"]);
    assert_eq!(settings(&http), settings(&wasm));
    assert!(http["commands"].as_array().is_some_and(|c| !c.is_empty()), "the server timed the commands run");

    let http = send_json(server.http_port, "PUT", "/api/keys/new", &json!({ "value": "v", "ttl": 100 })).expect(200);
    let wasm: Value =
        serde_json::from_str(&pg.put_key(r#""new""#, r#"{"value":"v","ttl":100}"#, now_ms(), 0).unwrap()).unwrap();
    let detail = |v: &Value| without(v.clone(), &["idle_ms", "ttl_ms", "expire_at_ms"]);
    assert_eq!(detail(&http), detail(&wasm));
    let http = request(server.http_port, "DELETE", "/api/keys/new", &[], None).expect(200);
    let wasm: Value = serde_json::from_str(&pg.delete_key(r#""new""#, now_ms(), 0).unwrap()).unwrap();
    assert_eq!(http, wasm);

    let http = get(server.http_port, "/api/commands").expect(200);
    assert_eq!(http, serde_json::from_str::<Value>(&Playground::commands_json()).unwrap());
    let http = get(server.http_port, "/api/config").expect(200);
    let wasm: Value = serde_json::from_str(&pg.config_json()).unwrap();
    assert_eq!(http["writable"], wasm["writable"]);
    assert_eq!(http["config"]["maxmemory-policy"], wasm["config"]["maxmemory-policy"]);
}
