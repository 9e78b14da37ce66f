//! The admin API as ACL users, through `oneshot`: signing in and out, sign-in tokens that
//! expire, each route refused (403, NOPERM text, logged in ACL LOG) or allowed by the user's
//! rules, `GET /api/auth/me` agreeing with what the routes do, key patterns on the key
//! browser, the console running as the user, the ACL routes, and the admin token unchanged.

use std::time::Duration;

use axum::http::{header, Method, StatusCode};
use serde_json::{json, Value};
use vitrine_engine::{Config, Reply as EngineReply};

use vitrine_server::testing::{req, Reply, Setup, TestApp, LOGIN_IDLE_LIMIT as IDLE_LIMIT};

const ADMIN: &str = "admin-token";

/// An app with an admin token and the users `rules` make (`ACL SETUSER` words each).
fn app_with(users: &[&str]) -> TestApp {
    let t = TestApp::with(Setup { token: Some(ADMIN.into()), ..Setup::default() }).signed(ADMIN);
    for rules in users {
        let mut argv = vec!["ACL", "SETUSER"];
        argv.extend(rules.split_whitespace());
        let reply = t.state.call(&argv);
        assert_eq!(reply, EngineReply::Ok, "ACL SETUSER {rules}");
    }
    t
}

/// Signs `user` in and answers the token.
async fn login(t: &TestApp, user: &str, pass: &str) -> String {
    let v = t.json(Method::POST, "/api/auth/login", json!({"username": user, "password": pass})).await;
    let v = v.expect(StatusCode::OK);
    assert_eq!(v["user"], user);
    let token = v["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 64);
    token
}

/// Sends `method uri [body]` with `token` as bearer.
async fn send(t: &TestApp, token: &str, method: Method, uri: &str, body: Option<Value>) -> Reply {
    let mut r = req(method, uri, body);
    r.headers_mut().insert(header::AUTHORIZATION, format!("Bearer {token}").parse().unwrap());
    t.send(r).await
}

#[track_caller]
fn expect_noperm(r: &Reply, command: &str) -> Value {
    let v = r.expect(StatusCode::FORBIDDEN);
    assert_eq!(v["error"]["code"], "noperm", "{v}");
    assert_eq!(v["error"]["command"], command, "{v}");
    v
}

fn acl_log(t: &TestApp) -> Vec<Value> {
    serde_json::to_value(vitrine_engine::inspect::acl_log(&t.state.engine, 100)).unwrap().as_array().unwrap().clone()
}

#[tokio::test]
async fn a_read_only_user_reads_and_is_refused_writes() {
    let t = app_with(&["reader on >pw ~* +@read"]);
    t.state.call(&["SET", "a", "1"]);
    let tok = login(&t, "reader", "pw").await;

    send(&t, &tok, Method::GET, "/api/stats", None).await.expect(StatusCode::OK);
    let keys = send(&t, &tok, Method::GET, "/api/keys", None).await.expect(StatusCode::OK);
    assert_eq!(keys["keys"][0]["key"], "a");
    send(&t, &tok, Method::GET, "/api/keys/a", None).await.expect(StatusCode::OK);

    let r = send(&t, &tok, Method::PUT, "/api/keys/a", Some(json!({"value": "x"}))).await;
    let v = expect_noperm(&r, "set");
    assert_eq!(v["error"]["message"], "NOPERM this user has no permissions to run the 'set' command");
    let r = send(&t, &tok, Method::POST, "/api/flush", Some(json!({"confirm": "FLUSHALL"}))).await;
    expect_noperm(&r, "flushall");
    let r = send(&t, &tok, Method::PATCH, "/api/config", Some(json!({"maxmemory": "1mb"}))).await;
    let v = expect_noperm(&r, "config|set");
    assert_eq!(v["error"]["message"], "NOPERM this user has no permissions to run the 'config|set' command");
    expect_noperm(&send(&t, &tok, Method::DELETE, "/api/keys/a", None).await, "del");
    assert_eq!(t.state.call(&["GET", "a"]), EngineReply::Bulk(b"1".to_vec()), "nothing changed");
    assert_eq!(t.state.call(&["CONFIG", "GET", "maxmemory"]), t.state.call(&["CONFIG", "GET", "maxmemory"]));

    // Each refusal is in ACL LOG as a RESP client's would be, as the admin-http client.
    let log = acl_log(&t);
    let objects: Vec<&str> = log.iter().map(|e| e["object"].as_str().unwrap()).collect();
    for object in ["set", "flushall", "config|set", "del"] {
        assert!(objects.contains(&object), "{object} in {objects:?}");
    }
    assert!(log.iter().all(|e| e["username"] == "reader" && e["context"] == "toplevel" && e["reason"] == "command"));
    assert!(log[0]["client_info"].as_str().unwrap().contains("name=admin-http"));
    assert!(t.state.engine.snapshot(0).acl_access_denied_cmd >= 4);
}

#[tokio::test]
async fn the_admin_token_may_do_everything() {
    let t = app_with(&["reader on >pw ~* +@read"]);
    t.json(Method::PUT, "/api/keys/a", json!({"value": "x"})).await.expect(StatusCode::OK);
    t.json(Method::PATCH, "/api/config", json!({"maxmemory": "64mb"})).await.expect(StatusCode::OK);
    let me = t.get("/api/auth/me").await.expect(StatusCode::OK);
    assert_eq!(me["user"], Value::Null);
    assert_eq!(me["admin"], true);
    let permissions = me["permissions"].as_object().unwrap();
    assert_eq!(permissions.len(), 17);
    assert!(permissions.values().all(|p| p["allowed"] == true && p["reason"].is_null()));
}

#[tokio::test]
async fn unknown_expired_and_signed_out_tokens_get_401() {
    let t = app_with(&["reader on >pw ~* +@read"]);
    let unknown = "ab".repeat(32);
    send(&t, &unknown, Method::GET, "/api/stats", None).await.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");

    let tok = login(&t, "reader", "pw").await;
    send(&t, &tok, Method::GET, "/api/stats", None).await.expect(StatusCode::OK);
    t.state.logins.age(&tok, IDLE_LIMIT + Duration::from_secs(1));
    let r = send(&t, &tok, Method::GET, "/api/stats", None).await;
    r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("sign in again"));

    let tok = login(&t, "reader", "pw").await;
    let out = send(&t, &tok, Method::POST, "/api/auth/logout", None).await;
    assert_eq!(out.status, StatusCode::NO_CONTENT);
    send(&t, &tok, Method::GET, "/api/stats", None).await.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
}

#[tokio::test]
async fn a_failed_sign_in_is_counted_and_logged() {
    let t = app_with(&["reader on >pw ~* +@read", "sleeper off >pw ~* +@all"]);
    for (user, pass) in [("reader", "nope"), ("ghost", "pw"), ("sleeper", "pw")] {
        let r = t.json(Method::POST, "/api/auth/login", json!({"username": user, "password": pass})).await;
        r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
        assert_eq!(r.json()["error"]["message"], "invalid username-password pair or user is disabled");
    }
    assert_eq!(t.state.engine.snapshot(0).acl_access_denied_auth, 3);
    let log = acl_log(&t);
    let users: Vec<&str> = log.iter().map(|e| e["username"].as_str().unwrap()).collect();
    assert_eq!(users, ["sleeper", "ghost", "reader"], "newest first");
    assert!(log.iter().all(|e| e["reason"] == "auth" && e["object"] == "AUTH" && e["context"] == "toplevel"));
    // With an admin token, a nopass user (default, until given a password) may not sign in:
    // the token guards the port.
    let r = t.json(Method::POST, "/api/auth/login", json!({"username": "default", "password": "any"})).await;
    r.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    // No secret is needed to sign in, even with an admin token set.
    let bare = TestApp::with(Setup { token: Some(ADMIN.into()), ..Setup::default() });
    bare.state.call(&["ACL", "SETUSER", "reader", "on", ">pw", "~*", "+@read"]);
    bare.json(Method::POST, "/api/auth/login", json!({"username": "reader", "password": "pw"}))
        .await
        .expect(StatusCode::OK);
    let users = vitrine_engine::inspect::acl_users(&bare.state.engine);
    assert!(users.iter().find(|u| u.name == "reader").unwrap().last_auth_ms.is_some());
}

/// A request standing for each action of `me`, and whether the answer was a refusal.
async fn refused(t: &TestApp, tok: &str, action: &str) -> Option<bool> {
    let (method, uri, body) = match action {
        "keys.read" => (Method::GET, "/api/keys", None),
        "keys.write" => (Method::PUT, "/api/keys/probe", Some(json!({"value": "x"}))),
        "keys.delete" => (Method::DELETE, "/api/keys/probe", None),
        "flush" => (Method::POST, "/api/flush", Some(json!({"confirm": "no"}))),
        "config.read" => (Method::GET, "/api/config", None),
        "config.write" => (Method::PATCH, "/api/config", Some(json!({"maxmemory": "64mb"}))),
        "clients.read" => (Method::GET, "/api/clients", None),
        "clients.kill" => (Method::DELETE, "/api/clients/999999", None),
        "slowlog.reset" => (Method::DELETE, "/api/slowlog", None),
        "scripts.kill" => (Method::POST, "/api/running-script/kill", None),
        "monitor" => (Method::GET, "/api/monitor", None),
        "bench" => (Method::POST, "/api/bench", Some(json!({}))),
        "acl.read" => (Method::GET, "/api/acl/users", None),
        "acl.write" => (Method::PUT, "/api/acl/users/probe", Some(json!({"rules": "off"}))),
        _ => return None,
    };
    Some(send(t, tok, method, uri, body).await.status == StatusCode::FORBIDDEN)
}

#[tokio::test]
async fn me_agrees_with_what_the_routes_do() {
    let t = app_with(&[
        "reader on >pw ~* +@read",
        "writer on >pw ~* +@all -@dangerous",
        "operator on >pw ~* +@all -flushall -acl|setuser",
    ]);
    for user in ["reader", "writer", "operator"] {
        let tok = login(&t, user, "pw").await;
        let me = send(&t, &tok, Method::GET, "/api/auth/me", None).await.expect(StatusCode::OK);
        assert_eq!(me["user"], user);
        assert_eq!(me["admin"], false);
        let mut checked = 0;
        for (action, p) in me["permissions"].as_object().unwrap() {
            assert_eq!(p["allowed"] == false, p["reason"].is_string(), "{user} {action}: {p}");
            if let Some(was_refused) = refused(&t, &tok, action).await {
                assert_eq!(was_refused, p["allowed"] == false, "{user} {action}: me says {p}");
                checked += 1;
            }
        }
        assert!(checked >= 14);
    }
    let tok = login(&t, "reader", "pw").await;
    let me = send(&t, &tok, Method::GET, "/api/auth/me", None).await.json();
    assert_eq!(me["permissions"]["console"]["allowed"], true);
    assert_eq!(me["permissions"]["keys.write"]["allowed"], false);
    assert_eq!(
        me["permissions"]["keys.write"]["reason"],
        "NOPERM this user has no permissions to run the 'set' command"
    );
}

#[tokio::test]
async fn key_patterns_apply_to_the_key_browser() {
    let t = app_with(&["app on >pw ~app:* +@all"]);
    t.state.call(&["SET", "app:1", "x"]);
    t.state.call(&["SET", "other", "y"]);
    let tok = login(&t, "app", "pw").await;
    let page = send(&t, &tok, Method::GET, "/api/keys?count=100", None).await.expect(StatusCode::OK);
    let keys: Vec<&str> = page["keys"].as_array().unwrap().iter().map(|k| k["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["app:1"]);
    send(&t, &tok, Method::GET, "/api/keys/app:1", None).await.expect(StatusCode::OK);
    let r = send(&t, &tok, Method::GET, "/api/keys/other", None).await;
    let v = expect_noperm(&r, "get");
    assert_eq!(
        v["error"]["message"],
        "NOPERM this user has no permissions to access one of the keys used as arguments"
    );
    send(&t, &tok, Method::PUT, "/api/keys/app:2", Some(json!({"value": "z"}))).await.expect(StatusCode::OK);
    expect_noperm(&send(&t, &tok, Method::PUT, "/api/keys/other", Some(json!({"value": "z"}))).await, "set");
    let edit = json!({"op": "list_push", "end": "left", "value": "v"});
    expect_noperm(&send(&t, &tok, Method::PATCH, "/api/keys/list", Some(edit)).await, "lpush");
    let log = acl_log(&t);
    assert!(log.iter().any(|e| e["reason"] == "key" && e["object"] == "other"));
}

#[tokio::test]
async fn the_console_runs_as_the_user() {
    let t = app_with(&["reader on >pw ~* +@read +acl|whoami"]);
    let tok = login(&t, "reader", "pw").await;
    let r = send(&t, &tok, Method::POST, "/api/command", Some(json!(["ACL", "WHOAMI"]))).await;
    assert_eq!(r.expect(StatusCode::OK)["value"], "reader");
    let r = send(&t, &tok, Method::POST, "/api/command", Some(json!({"args": ["SET", "k", "v"], "session": "s1"})))
        .await
        .expect(StatusCode::OK);
    assert_eq!(r["type"], "error");
    assert_eq!(r["value"], "NOPERM this user has no permissions to run the 'set' command");
    // The admin's console session of the same id is another session.
    let r = t.json(Method::POST, "/api/command", json!({"args": ["SET", "k", "v"], "session": "s1"})).await;
    assert_eq!(r.expect(StatusCode::OK)["value"], "OK");
    let line = json!({"line": "GET k"});
    let r = send(&t, &tok, Method::POST, "/api/console", Some(line)).await.expect(StatusCode::OK);
    assert!(r.to_string().contains("\\\"v\\\"") || r.to_string().contains("\"v\""), "{r}");
}

#[tokio::test]
async fn acl_routes_list_change_preview_and_delete_users() {
    let t = app_with(&["reader on >pw ~* +@read"]);
    let users = t.get("/api/acl/users").await.expect(StatusCode::OK);
    let names: Vec<&str> = users.as_array().unwrap().iter().map(|u| u["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["default", "reader"]);
    assert_eq!(users[1]["passwords"], 1);
    assert!(users[1]["rules"].as_str().unwrap().contains('…'), "{}", users[1]);

    let v = t.json(Method::PUT, "/api/acl/users/w", json!({"rules": "on >x ~k* +@all"})).await.expect(StatusCode::OK);
    assert_eq!((v["name"].as_str(), v["enabled"].as_bool(), v["keys"].as_str()), (Some("w"), Some(true), Some("~k*")));
    let r = t.json(Method::PUT, "/api/acl/users/w", json!({"rules": "on +nosuch"})).await;
    r.expect_error(StatusCode::BAD_REQUEST, "command_error");
    assert!(r.json()["error"]["message"].as_str().unwrap().starts_with("ERR Error in ACL SETUSER modifier '+nosuch'"));

    let v =
        t.json(Method::POST, "/api/acl/users/w/preview", json!({"rules": "off -@all"})).await.expect(StatusCode::OK);
    assert!(v["line"].as_str().unwrap().starts_with("user w off "), "{v}");
    assert_eq!(t.get("/api/acl/users").await.json()[2]["enabled"], true, "a preview stores nothing");
    t.json(Method::POST, "/api/acl/users/w/preview", json!({"rules": "bogus"}))
        .await
        .expect_error(StatusCode::BAD_REQUEST, "command_error");

    t.send(req(Method::DELETE, "/api/acl/users/default", None))
        .await
        .expect_error(StatusCode::BAD_REQUEST, "command_error");
    assert_eq!(t.send(req(Method::DELETE, "/api/acl/users/w", None)).await.status, StatusCode::NO_CONTENT);
    t.send(req(Method::DELETE, "/api/acl/users/w", None)).await.expect_error(StatusCode::NOT_FOUND, "not_found");

    // The reader may not read or change the ACL; its refusals are in the log it cannot read.
    let tok = login(&t, "reader", "pw").await;
    expect_noperm(&send(&t, &tok, Method::GET, "/api/acl/users", None).await, "acl|list");
    expect_noperm(&send(&t, &tok, Method::GET, "/api/acl/log", None).await, "acl|log");
    let r = send(&t, &tok, Method::PUT, "/api/acl/users/reader", Some(json!({"rules": "+@all"}))).await;
    expect_noperm(&r, "acl|setuser");
    let log = t.get("/api/acl/log?count=2").await.expect(StatusCode::OK);
    assert_eq!(log.as_array().unwrap().len(), 2);
    assert_eq!(log[0]["object"], "acl|setuser");
    assert_eq!(t.send(req(Method::DELETE, "/api/acl/log", None)).await.status, StatusCode::NO_CONTENT);
    assert_eq!(t.get("/api/acl/log").await.json(), json!([]));

    // Deleting a user ends its dashboard sign-ins.
    t.state.call(&["ACL", "SETUSER", "reader", "+acl|deluser"]);
    assert_eq!(t.send(req(Method::DELETE, "/api/acl/users/reader", None)).await.status, StatusCode::NO_CONTENT);
    send(&t, &tok, Method::GET, "/api/stats", None).await.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
}

#[tokio::test]
async fn without_an_admin_token_requests_act_as_default() {
    let config = Config::default();
    config.set("requirepass", "pw").unwrap();
    let t = TestApp::with(Setup { config, ..Setup::default() }).signed("pw");
    let me = t.get("/api/auth/me").await.expect(StatusCode::OK);
    assert_eq!((me["user"].as_str(), me["admin"].as_bool()), (Some("default"), Some(false)));
    // Narrowing `default` narrows the password's bearer too.
    t.state.call(&["ACL", "SETUSER", "default", "-@all", "+@read"]);
    expect_noperm(&t.json(Method::PUT, "/api/keys/a", json!({"value": "x"})).await, "set");
    t.get("/api/stats").await.expect(StatusCode::OK);

    let open = TestApp::new();
    let me = open.get("/api/auth/me").await.expect(StatusCode::OK);
    assert_eq!(me["user"], "default");
    // Once default needs a password, so does the API, even with no requirepass or token.
    open.state.call(&["ACL", "SETUSER", "default", ">secret"]);
    open.get("/api/stats").await.expect_error(StatusCode::UNAUTHORIZED, "unauthorized");
    let tok = login(&open, "default", "secret").await;
    send(&open, &tok, Method::GET, "/api/stats", None).await.expect(StatusCode::OK);
}
