//! The compatibility radar and hot keys against the real binary: a client that says it is
//! redis-py 5.0.1 sends a command Vitrine lacks, a subcommand it lacks and an option it
//! refuses, and the admin API and /metrics name each with that library; a key read over and
//! over shows up as the hot key.

mod common;

use common::http::{get, request};
use common::{cmd, expect, roundtrip, send, Server};

#[test]
fn refused_commands_are_reported_with_the_client_library() {
    let server = Server::start(&[]);
    let mut c = server.connect();
    roundtrip(&mut c, &cmd(&["CLIENT", "SETINFO", "LIB-NAME", "redis-py"]), b"+OK\r\n");
    roundtrip(&mut c, &cmd(&["CLIENT", "SETINFO", "LIB-VER", "5.0.1"]), b"+OK\r\n");
    let mut batch = cmd(&["FT.SEARCH", "idx", "@title:hello"]);
    batch.extend(cmd(&["FT.SEARCH", "idx", "@title:world"]));
    batch.extend(cmd(&["CLIENT", "TRACKINGINFO2"]));
    batch.extend(cmd(&["SET", "k", "v", "PXAT2", "1"]));
    send(&mut c, &batch);
    expect(&mut c, b"-ERR unknown command 'FT.SEARCH', with args beginning with: 'idx' '@title:hello' \r\n");
    expect(&mut c, b"-ERR unknown command 'FT.SEARCH', with args beginning with: 'idx' '@title:world' \r\n");
    expect(&mut c, b"-ERR unknown subcommand 'TRACKINGINFO2'. Try CLIENT HELP.\r\n-ERR syntax error\r\n");
    // A client that never said who it is.
    let mut anon = server.connect();
    roundtrip(&mut anon, &cmd(&["NOPE"]), b"-ERR unknown command 'NOPE', with args beginning with: \r\n");

    let view = get(server.http_port, "/api/compat").expect(200);
    let rows = view["rows"].as_array().expect("rows");
    assert_eq!(rows[0]["command"], "FT.SEARCH", "{view}");
    assert_eq!(rows[0]["library"], "redis-py 5.0.1");
    assert_eq!(rows[0]["kind"], "command");
    assert_eq!(rows[0]["count"], 2);
    assert_eq!(rows[0]["sample"], serde_json::json!(["idx", "@title:world"]));
    assert!(rows[0]["last_ms"].as_u64().unwrap() >= rows[0]["first_ms"].as_u64().unwrap());
    let find = |command: &str| rows.iter().find(|r| r["command"] == command).unwrap_or_else(|| panic!("{view}"));
    assert_eq!(find("CLIENT TRACKINGINFO2")["kind"], "subcommand");
    assert_eq!((&find("SET")["kind"], &find("SET")["option"]), (&"option".into(), &"PXAT2".into()));
    assert_eq!(find("NOPE")["library"], "unknown");
    assert_eq!(view["total"], 5);

    let metrics = get(server.http_port, "/metrics").text();
    assert!(
        metrics.contains(
            "vitrine_unsupported_commands_total{command=\"FT.SEARCH\",library=\"redis-py 5.0.1\",kind=\"command\"} 2"
        ),
        "{metrics}"
    );

    let emptied = request(server.http_port, "DELETE", "/api/compat", &[], None).expect(200);
    assert_eq!(emptied["rows"], serde_json::json!([]));
}

#[test]
fn a_key_read_over_and_over_is_the_hot_key() {
    let server = Server::start(&[]);
    let mut c = server.connect();
    roundtrip(&mut c, &cmd(&["SET", "hot:1", "v"]), b"+OK\r\n");
    let mut batch = Vec::new();
    for i in 0..2000 {
        batch.extend(cmd(&["GET", "hot:1"]));
        batch.extend(cmd(&["GET", &format!("cold:{}", i % 500)]));
    }
    batch.extend(cmd(&["PING"]));
    send(&mut c, &batch);
    // Replies come in order: the PING's answer ends them (a byte at a time, but few).
    while common::read_line(&mut c) != b"+PONG\r\n" {}
    let view = get(server.http_port, "/api/hotkeys?count=5").expect(200);
    let keys = view["keys"].as_array().expect("keys");
    assert_eq!(keys[0]["key"], "hot:1", "{view}");
    let accesses = keys[0]["accesses"].as_u64().unwrap();
    assert!((1000..=4000).contains(&accesses), "about 2000: {view}");
    assert!(keys.len() <= 5);
    assert_eq!(view["sample_every"], 16);
    let metrics = get(server.http_port, "/metrics").text();
    assert!(metrics.contains("vitrine_hot_key_accesses_per_second{db=\"db0\",key=\"hot:1\"}"), "{metrics}");
    let emptied = request(server.http_port, "DELETE", "/api/hotkeys", &[], None).expect(200);
    assert_eq!(emptied["keys"], serde_json::json!([]));
}
