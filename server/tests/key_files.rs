//! Export and import of selected keys over the admin API (`POST /api/key-export`,
//! `POST /api/key-import`): keys of every type exported from one vitrine and imported into
//! another come back equal, TTLs kept, in both file formats and all three conflict modes; and
//! hostile or wrong bodies are refused with the documented statuses before anything is written.

use axum::http::{header, Method, StatusCode};
use serde_json::{json, Value};
use vitrine_engine::Reply;
use vitrine_server::testing::{raw, Setup, TestApp};

fn call(t: &TestApp, argv: &[&[u8]]) -> Reply {
    t.state.call(argv)
}

/// One key of every type, a binary key name, and keys with TTLs, in database 3.
fn fill(t: &TestApp) -> Vec<&'static [u8]> {
    let cmds: [&[&[u8]]; 9] = [
        &[b"SET", b"s:plain", b"hello"],
        &[b"SET", b"s:ttl", b"soon", b"PX", b"90000"],
        &[b"SET", b"s:\xff\x00bin", b"\x00\x01\xfe"],
        &[b"HSET", b"h:1", b"f", b"v", b"g", b"w"],
        &[b"RPUSH", b"l:1", b"a", b"b", b"c"],
        &[b"SADD", b"set:1", b"x", b"y"],
        &[b"ZADD", b"z:1", b"1.5", b"m", b"-2", b"n"],
        &[b"XADD", b"x:1", b"1-1", b"k", b"v"],
        &[b"PEXPIRE", b"h:1", b"120000"],
    ];
    for argv in cmds {
        let mut with_db: Vec<&[u8]> = argv.to_vec();
        let reply = t.state.call_in(3, &std::mem::take(&mut with_db));
        assert!(!matches!(reply, Reply::Error(_)), "{argv:?}: {reply:?}");
    }
    vec![b"s:plain", b"s:ttl", b"s:\xff\x00bin", b"h:1", b"l:1", b"set:1", b"z:1", b"x:1"]
}

fn dump_in(t: &TestApp, db: usize, key: &[u8]) -> Reply {
    t.state.call_in(db, &[b"DUMP".as_slice(), key])
}

fn pttl_in(t: &TestApp, db: usize, key: &[u8]) -> i64 {
    match t.state.call_in(db, &[b"PTTL".as_slice(), key]) {
        Reply::Int(n) => n,
        other => panic!("PTTL: {other:?}"),
    }
}

async fn import(t: &TestApp, query: &str, content_type: &str, file: Vec<u8>) -> vitrine_server::testing::Reply {
    t.send(raw(Method::POST, &format!("/api/key-import{query}"), &[("content-type", content_type)], file)).await
}

#[tokio::test]
async fn keys_of_every_type_move_between_two_servers_in_both_formats() {
    let source = TestApp::new();
    let keys = fill(&source);
    for (format, content_type) in [("json", "application/json"), ("binary", "application/octet-stream")] {
        let exported = source.json(Method::POST, "/api/key-export", json!({"db": 3, "format": format})).await;
        assert_eq!(exported.status, StatusCode::OK, "{}", exported.text());
        assert_eq!(exported.headers[header::CONTENT_TYPE], content_type);
        let disposition = exported.headers[header::CONTENT_DISPOSITION].to_str().unwrap();
        assert!(disposition.starts_with("attachment; filename=\"vitrine-db3-"), "{disposition}");
        assert_eq!(exported.headers["x-vitrine-keys"], "8");

        let target = TestApp::new();
        call(&target, &[b"SET", b"unrelated", b"1"]);
        // Into database 0 this time, not the file's 3.
        let report =
            import(&target, "?db=0&mode=fail", content_type, exported.body.to_vec()).await.expect(StatusCode::OK);
        assert_eq!((report["restored"].clone(), report["errors"].clone()), (json!(8), json!(0)), "{report}");
        assert_eq!(report["format"], format);
        for key in &keys {
            assert_eq!(dump_in(&target, 0, key), dump_in(&source, 3, key), "{}", String::from_utf8_lossy(key));
        }
        let ttl = pttl_in(&target, 0, b"s:ttl");
        assert!((85_000..=90_000).contains(&ttl), "TTL kept: {ttl}");
        assert!((115_000..=120_000).contains(&pttl_in(&target, 0, b"h:1")));
        assert_eq!(pttl_in(&target, 0, b"l:1"), -1);
        assert_eq!(call(&target, &[b"DBSIZE"]), Reply::Int(9));

        // Again: fail refuses it all, skip leaves them, replace overwrites.
        import(&target, "?db=0&mode=fail", content_type, exported.body.to_vec())
            .await
            .expect_error(StatusCode::CONFLICT, "conflict");
        call(&target, &[b"SET", b"s:plain", b"changed"]);
        let skip = import(&target, "?db=0", content_type, exported.body.to_vec()).await.expect(StatusCode::OK);
        assert_eq!((skip["mode"].clone(), skip["skipped"].clone()), (json!("skip"), json!(8)));
        assert_eq!(call(&target, &[b"GET", b"s:plain"]), Reply::Bulk(b"changed".to_vec()));
        let replace =
            import(&target, "?db=0&mode=replace", content_type, exported.body.to_vec()).await.expect(StatusCode::OK);
        assert_eq!(replace["restored"], 8);
        assert_eq!(call(&target, &[b"GET", b"s:plain"]), Reply::Bulk(b"hello".to_vec()));
        // No db: the file's own.
        let own = import(&target, "", content_type, exported.body.to_vec()).await.expect(StatusCode::OK);
        assert_eq!((own["db"].clone(), own["restored"].clone()), (json!(3), json!(8)));
    }
    // A selection by name, one of them binary and one missing.
    let body = json!({"db": 3, "keys": ["h:1", {"base64": "czr/AGJpbg=="}, "nope"]});
    let exported = source.json(Method::POST, "/api/key-export", body).await;
    assert_eq!(
        (exported.headers["x-vitrine-keys"].clone(), exported.headers["x-vitrine-missing"].clone()),
        ("2".parse().unwrap(), "1".parse().unwrap())
    );
    let file: Value = serde_json::from_slice(&exported.body).unwrap();
    assert_eq!(file["keys"][1]["key"], json!({"base64": "czr/AGJpbg=="}));
    assert_eq!(file["keys"][0]["type"], "hash");
    let info = source.state.call(&["INFO", "commandstats"]);
    assert!(info.to_json().to_string().contains("cmdstat_dump:calls="), "ran through dispatch: {info:?}");
}

#[tokio::test]
async fn hostile_and_wrong_import_bodies_are_refused_before_anything_is_written() {
    let t = TestApp::new();
    let ok = import(
        &t,
        "",
        "application/json",
        br#"{"format":"vitrine-keys","version":1,"db":0,"exported_at_ms":0,"keys":[]}"#.to_vec(),
    )
    .await;
    assert_eq!(ok.expect(StatusCode::OK)["restored"], 0);
    let file = br#"{"format":"vitrine-keys","version":1,"db":0,"exported_at_ms":0,"keys":[{"key":"k","type":"string","pttl":-1,"payload":"AAA="}]}"#;
    // A form could send these: refused whatever the body.
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
        import(&t, "", content_type, file.to_vec())
            .await
            .expect_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type");
    }
    let mut binary = b"VTRKEYS1\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\x01\0\0\0k".to_vec();
    import(&t, "", "application/octet-stream", binary.clone())
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_file");
    binary.truncate(24);
    binary[20] = 0xff;
    binary[23] = 0x7f;
    import(&t, "", "application/octet-stream", binary)
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_file");
    for bad in [&b"{"[..], b"not a file", br#"{"format":"vitrine-keys","version":1,"db":0,"exported_at_ms":0,"keys":[{"key":"k","type":"string","pttl":-1,"payload":"!!"}]}"#] {
        import(&t, "", "application/json", bad.to_vec()).await.expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_file");
    }
    import(&t, "?mode=merge", "application/json", file.to_vec())
        .await
        .expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    import(&t, "?db=99", "application/json", file.to_vec())
        .await
        .expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    let huge = vec![b' '; 1024 * 1024 + 1];
    import(&t, "", "application/json", huge).await.expect_error(StatusCode::PAYLOAD_TOO_LARGE, "too_large");
    // A file's own key that exists, under fail: 409 before any RESTORE.
    call(&t, &[b"SET", b"k", b"mine"]);
    import(&t, "?mode=fail", "application/json", file.to_vec()).await.expect_error(StatusCode::CONFLICT, "conflict");
    assert_eq!(call(&t, &[b"GET", b"k"]), Reply::Bulk(b"mine".to_vec()));
    assert_eq!(call(&t, &[b"DBSIZE"]), Reply::Int(1));
    // A cross-site page cannot post one.
    let cross = raw(
        Method::POST,
        "/api/key-import",
        &[("content-type", "application/json"), ("origin", "https://evil.example")],
        file.to_vec(),
    );
    assert_eq!(t.send(cross).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn exports_refuse_what_could_not_be_imported_and_need_the_token() {
    let t = TestApp::new();
    for i in 0..10_001 {
        call(&t, &[b"SET", format!("k:{i}").as_bytes(), b"v"]);
    }
    t.json(Method::POST, "/api/key-export", json!({"match": "k:*"}))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "too_many_keys");
    t.json(Method::POST, "/api/key-export", json!({"keys": ["a"], "match": "k:*"}))
        .await
        .expect_error(StatusCode::BAD_REQUEST, "bad_parameter");
    t.json(Method::POST, "/api/key-export", json!({"format": "xml"}))
        .await
        .expect_error(StatusCode::UNPROCESSABLE_ENTITY, "invalid_body");
    let empty = t.json(Method::POST, "/api/key-export", json!({"match": "none:*", "format": "binary"})).await;
    assert_eq!(empty.status, StatusCode::OK);
    assert_eq!(
        &empty.body[..],
        b"VTRKEYS1\0\0\0\0".iter().chain(&empty.body[12..20]).chain(b"\0\0\0\0").copied().collect::<Vec<u8>>()
    );

    let guarded = TestApp::with(Setup { token: Some("s3cret".into()), ..Setup::default() });
    let r = guarded.json(Method::POST, "/api/key-export", json!({})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = import(&guarded, "", "application/json", b"{}".to_vec()).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
}
