//! The admin port under hostile requests, against the real `vitrine` binary over raw sockets:
//!
//! - with `--admin-token`, every route of the OpenAPI document (loaded from
//!   `src/http/openapi.json` and iterated, path parameters filled in) answers 401 without a
//!   token and with a wrong one, except `/healthz` and `/readyz`, and none of the refused
//!   requests changed anything;
//! - with `--requirepass` and no token, the same holds for the password, every route works
//!   with it, and no answer shows it;
//! - hostile `Host` headers (DNS rebinding) are refused and change nothing;
//! - cross-site form posts and foreign-origin requests change nothing and get no CORS headers;
//! - oversized headers and bodies are refused and the server stays healthy;
//! - RESP bytes sent to the HTTP port get an HTTP error or a close, never a RESP reply, and an
//!   HTTP request carrying RESP commands in its body, sent to the RESP port, runs none of them.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::http::{request, Response};
use common::{cmd, expect_closed, roundtrip, send, show, Server, IO_TIMEOUT};
use serde_json::json;

const TOKEN: &str = "s3cret-admin-token";

/// Sends raw bytes to the admin port and reads until the server closes (or resets). Write
/// errors are ignored: a server that refuses a request may close before reading all of it.
fn raw(port: u16, bytes: &[u8]) -> Vec<u8> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, IO_TIMEOUT).expect("connect to the admin port");
    s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    let _ = s.write_all(bytes);
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("read failed ({e}) after {:?}", show(&out)),
        }
    }
    out
}

/// The status code of a raw response, or `None` when the server closed without one.
fn status_of(response: &[u8]) -> Option<u16> {
    if response.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(response);
    assert!(text.starts_with("HTTP/1."), "not an HTTP response: {:?}", show(response));
    text.split(' ').nth(1).and_then(|s| s.parse().ok())
}

fn has_cors_headers(response: &[u8]) -> bool {
    String::from_utf8_lossy(response).to_ascii_lowercase().contains("access-control-allow")
}

fn healthy(server: &Server) {
    let health = request(server.http_port, "GET", "/healthz", &[], None);
    assert_eq!(health.status, 200, "{}", health.text());
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["PING"]), b"+PONG\r\n");
}

/// A body that would do harm if a guard let it through.
fn harmful_body(method: &str, path: &str) -> Option<String> {
    let body = match (method, path) {
        ("PUT", p) if p.starts_with("/api/keys/") => json!({ "value": "pwned" }),
        ("POST", "/api/command") => json!(["SET", "pwned", "1"]),
        ("PATCH", "/api/config") => json!({ "maxmemory": "1mb" }),
        ("POST", "/api/flush") => json!({ "confirm": "FLUSHALL" }),
        ("POST", "/api/bench") => json!({ "requests": 1000 }),
        ("POST", "/api/bench/import") => json!({ "schema": "vitrine-bench/1" }),
        // `default` is `nopass` unless requirepass is set: any password would do on RESP.
        ("POST", "/api/auth/login") => json!({ "username": "default", "password": "guess" }),
        ("GET" | "DELETE", _) => return None,
        _ => json!({}),
    };
    Some(body.to_string())
}

/// Every (method, path) of the OpenAPI document, with `{key}` and `{id}` filled in.
fn documented_routes() -> Vec<(String, String)> {
    let doc: serde_json::Value =
        serde_json::from_str(include_str!("../src/http/openapi.json")).expect("openapi.json is JSON");
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        let filled = path.replace("{key}", "guarded").replace("{id}", "no-such-run").replace("{name}", "default");
        assert!(!filled.contains('{'), "unfilled path parameter in {path}");
        for method in item.as_object().expect("path item").keys() {
            if matches!(method.as_str(), "get" | "put" | "post" | "patch" | "delete") {
                routes.push((method.to_ascii_uppercase(), filled.clone()));
            }
        }
    }
    assert!(routes.len() >= 20, "only {} routes in openapi.json", routes.len());
    routes
}

fn send_route(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> Response {
    request(port, method, path, headers, harmful_body(method, path).as_deref())
}

#[test]
fn with_a_token_every_documented_route_is_401_without_it() {
    let server = Server::start(&["--admin-token", TOKEN]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["SET", "guarded", "safe"]), b"+OK\r\n");
    let routes = documented_routes();
    let mut checked = 0;
    for (method, path) in &routes {
        let open = path == "/healthz" || path == "/readyz";
        // Signing out needs nothing and does nothing without a live sign-in.
        if path == "/api/auth/logout" {
            assert_eq!(send_route(server.http_port, method, path, &[]).status, 204);
            continue;
        }
        let attempts: [&[(&str, &str)]; 4] = [
            &[],
            &[("Authorization", "Bearer wrong-token")],
            &[("Authorization", "Bearer s3cret-admin-tokeN")],
            &[("Authorization", "Basic czNjcmV0LWFkbWluLXRva2Vu")],
        ];
        for headers in attempts {
            let r = send_route(server.http_port, method, path, headers);
            if open {
                assert_eq!(r.status, 200, "{method} {path} is a probe and stays open: {}", r.text());
            } else {
                assert_eq!(r.status, 401, "{method} {path} with {headers:?}: {}", r.text());
                assert!(r.header("access-control-allow-origin").is_none());
                checked += 1;
            }
        }
    }
    // The query-string token of the SSE stream is checked too.
    let r = request(server.http_port, "GET", "/api/stats/stream?access_token=wrong", &[], None);
    assert_eq!(r.status, 401, "{}", r.text());
    // ... and only there.
    let r = request(server.http_port, "GET", &format!("/api/stats?access_token={TOKEN}"), &[], None);
    assert_eq!(r.status, 401, "{}", r.text());
    println!("admin token: {checked} refused requests over {} documented routes", routes.len());

    // Nothing the refused requests asked for happened.
    roundtrip(&mut s, &cmd(&["GET", "guarded"]), b"$4\r\nsafe\r\n");
    roundtrip(&mut s, &cmd(&["EXISTS", "pwned"]), b":0\r\n");
    roundtrip(&mut s, &cmd(&["CONFIG", "GET", "maxmemory"]), b"*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
    // The right token works, so the 401s above were the token check and not a broken route.
    let auth = format!("Bearer {TOKEN}");
    let r = request(server.http_port, "GET", "/api/keys/guarded", &[("Authorization", &auth)], None);
    assert_eq!(r.expect(200)["value"], "safe");
    healthy(&server);
}

#[test]
fn with_requirepass_and_no_token_every_documented_route_needs_the_password() {
    const PASSWORD: &str = "resp-pass-7d1e";
    let server = Server::start(&["--requirepass", PASSWORD]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["AUTH", PASSWORD]), b"+OK\r\n");
    roundtrip(&mut s, &cmd(&["SET", "guarded", "safe"]), b"+OK\r\n");
    let routes = documented_routes();
    let mut refused = 0;
    for (method, path) in &routes {
        let open = path == "/healthz" || path == "/readyz";
        if path == "/api/auth/logout" {
            assert_eq!(send_route(server.http_port, method, path, &[]).status, 204);
            continue;
        }
        let attempts: [&[(&str, &str)]; 3] =
            [&[], &[("Authorization", "Bearer resp-pass-7d1E")], &[("Authorization", "Bearer s3cret-admin-token")]];
        for headers in attempts {
            let r = send_route(server.http_port, method, path, headers);
            if open {
                assert_eq!(r.status, 200, "{method} {path}: {}", r.text());
            } else {
                assert_eq!(r.status, 401, "{method} {path} with {headers:?}: {}", r.text());
                // A refused sign-in asks for no bearer: it is the way in without one.
                if path != "/api/auth/login" {
                    assert_eq!(r.json()["error"]["secret"], "password", "{method} {path}");
                }
                refused += 1;
            }
        }
    }
    roundtrip(&mut s, &cmd(&["GET", "guarded"]), b"$4\r\nsafe\r\n");
    roundtrip(&mut s, &cmd(&["EXISTS", "pwned"]), b":0\r\n");
    println!("requirepass: {refused} refused requests over {} documented routes", routes.len());

    // With the password every route gets past the guard, and no answer shows it. (The
    // harmful bodies now run: the flush goes last.)
    let auth = format!("Bearer {PASSWORD}");
    let signed: &[(&str, &str)] = &[("Authorization", &auth)];
    let mut ordered = routes.clone();
    ordered.sort_by_key(|(_, path)| path == "/api/flush");
    for (method, path) in &ordered {
        if path.ends_with("/stream") {
            continue; // never ends; its token check is the query's, below
        }
        if path == "/api/auth/login" {
            continue; // checks the name and password in its body, not the bearer
        }
        let r = send_route(server.http_port, method, path, signed);
        assert!(!matches!(r.status, 401 | 403 | 421), "{method} {path} with the password: {} {}", r.status, r.text());
        assert!(!r.text().contains(PASSWORD), "{method} {path} shows the password: {}", r.text());
    }
    for args in [json!(["CONFIG", "GET", "requirepass"]), json!(["CONFIG", "GET", "*"]), json!(["INFO", "all"])] {
        let r = request(server.http_port, "POST", "/api/command", signed, Some(&args.to_string()));
        let body = r.text();
        assert_eq!(r.status, 200, "{body}");
        assert!(!body.contains(PASSWORD), "{args} shows the password: {body}");
    }
    let stream = format!("/api/stats/stream?access_token={PASSWORD}");
    let mut live = common::http::open(server.http_port, "GET", &stream, &[], None);
    let text = common::http::read_until(&mut live, IO_TIMEOUT, |t| t.contains("data:"));
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");

    // CONFIG SET requirepass from RESP changes the admin API's secret at once.
    roundtrip(&mut s, &cmd(&["CONFIG", "SET", "requirepass", "rotated"]), b"+OK\r\n");
    assert_eq!(request(server.http_port, "GET", "/api/stats", signed, None).status, 401);
    let rotated: &[(&str, &str)] = &[("Authorization", "Bearer rotated")];
    assert_eq!(request(server.http_port, "GET", "/api/stats", rotated, None).status, 200);
    roundtrip(&mut s, &cmd(&["CONFIG", "SET", "requirepass", ""]), b"+OK\r\n");
    assert_eq!(request(server.http_port, "GET", "/api/stats", &[], None).status, 200);
}

#[test]
fn hostile_host_headers_change_nothing() {
    let server = Server::start(&[]);
    let port = server.http_port;
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["SET", "keep", "me"]), b"+OK\r\n");
    let hosts = [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        "127.0.0.1.evil.example".to_string(),
        format!("localhost.evil.example:{port}"),
        "127.0.0.1@evil.example".to_string(),
        "".to_string(),
    ];
    for host in &hosts {
        let requests = [
            format!("GET /api/stats HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
            format!(
                "PUT /api/keys/rebound HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n\
                 Content-Length: 17\r\n\r\n{{\"value\":\"pwned\"}}"
            ),
            format!(
                "POST /api/flush HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n\
                 Content-Length: 22\r\n\r\n{{\"confirm\":\"FLUSHALL\"}}"
            ),
        ];
        for req in &requests {
            let response = raw(port, req.as_bytes());
            let status = status_of(&response);
            assert!(
                matches!(status, Some(400 | 421) | None),
                "Host {host:?} was not refused ({status:?}): {}",
                show(&response)
            );
            assert!(!has_cors_headers(&response));
        }
    }
    roundtrip(&mut s, &cmd(&["EXISTS", "rebound"]), b":0\r\n");
    roundtrip(&mut s, &cmd(&["GET", "keep"]), b"$2\r\nme\r\n");

    // With a token the Host check gives way to the token, which a rebinding page cannot
    // know: still refused.
    let server = Server::start(&["--admin-token", TOKEN]);
    let req = "PUT /api/keys/rebound HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\
               Content-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"value\":\"pwned\"}";
    assert_eq!(status_of(&raw(server.http_port, req.as_bytes())), Some(401));
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["EXISTS", "rebound"]), b":0\r\n");
}

#[test]
fn cross_site_form_posts_and_foreign_origins_change_nothing() {
    let server = Server::start(&[]);
    let port = server.http_port;
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["SET", "keep", "me"]), b"+OK\r\n");
    let host = format!("127.0.0.1:{port}");
    // What a page on another site can send: a form (urlencoded, multipart or text/plain, no
    // preflight) or fetch() with a JSON body (preflighted, but a server that skipped the
    // check would still act on it).
    let bodies = [
        ("application/x-www-form-urlencoded", "value=pwned&confirm=FLUSHALL"),
        ("text/plain", "{\"value\":\"pwned\",\"confirm\":\"FLUSHALL\"}"),
        (
            "multipart/form-data; boundary=x",
            "--x\r\nContent-Disposition: form-data; name=\"value\"\r\n\r\npwned\r\n--x--\r\n",
        ),
        ("application/json", "{\"value\":\"pwned\"}"),
    ];
    let markers: [(&str, &str); 5] = [
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Origin", &format!("http://{host}.evil.example")),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ];
    let targets =
        [("PUT", "/api/keys/csrf"), ("POST", "/api/flush"), ("POST", "/api/command"), ("PATCH", "/api/config")];
    let mut refused = 0;
    for (method, path) in targets {
        for (content_type, body) in bodies {
            for (name, value) in markers {
                let req = format!(
                    "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{name}: {value}\r\n\
                     Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let response = raw(port, req.as_bytes());
                let status = status_of(&response);
                assert_eq!(status, Some(403), "{method} {path} {content_type} {name}: {value}: {}", show(&response));
                assert!(!has_cors_headers(&response), "{}", show(&response));
                refused += 1;
            }
            // Same-origin but a form content type: refused by the JSON-only bodies (415/400/422).
            let req = format!(
                "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: {content_type}\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                body.len()
            );
            if content_type != "application/json" {
                let status = status_of(&raw(port, req.as_bytes()));
                assert!(matches!(status, Some(400 | 415 | 422)), "{method} {path} {content_type}: {status:?}");
            }
        }
    }
    // A CORS preflight and a cross-origin read get no allow headers, so a foreign page can
    // neither send the request nor read the answer.
    let preflight = format!(
        "OPTIONS /api/keys/csrf HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nOrigin: http://evil.example\r\n\
         Access-Control-Request-Method: PUT\r\nAccess-Control-Request-Headers: content-type\r\n\r\n"
    );
    let response = raw(port, preflight.as_bytes());
    assert!(!has_cors_headers(&response), "{}", show(&response));
    let read =
        format!("GET /api/stats HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nOrigin: http://evil.example\r\n\r\n");
    let response = raw(port, read.as_bytes());
    assert!(!has_cors_headers(&response), "{}", show(&response));
    println!("cross-site: {refused} foreign-origin writes refused with 403");

    roundtrip(&mut s, &cmd(&["EXISTS", "csrf"]), b":0\r\n");
    roundtrip(&mut s, &cmd(&["GET", "keep"]), b"$2\r\nme\r\n");
    roundtrip(&mut s, &cmd(&["CONFIG", "GET", "maxmemory"]), b"*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
    healthy(&server);
}

#[test]
fn oversized_headers_and_bodies_are_refused() {
    let server = Server::start(&[]);
    let port = server.http_port;
    let host = format!("127.0.0.1:{port}");

    // One 100 KiB header, then many headers adding up to 1 MiB.
    let big = "a".repeat(100 * 1024);
    let req = format!("GET /api/stats HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nX-Big: {big}\r\n\r\n");
    let status = status_of(&raw(port, req.as_bytes()));
    assert!(matches!(status, Some(400 | 431) | None), "100 KiB header: {status:?}");
    let many: String = (0..1024).map(|i| format!("X-H{i}: {}\r\n", "b".repeat(1000))).collect();
    let req = format!("GET /api/stats HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{many}\r\n");
    let status = status_of(&raw(port, req.as_bytes()));
    assert!(matches!(status, Some(400 | 431) | None), "1 MiB of headers: {status:?}");
    // A URI of 100 KiB.
    let req = format!("GET /api/keys/{big} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let status = status_of(&raw(port, req.as_bytes()));
    assert!(matches!(status, Some(400 | 404 | 414 | 431) | None), "100 KiB URI: {status:?}");

    // A body over the limit, announced, and one that is chunked (no length up front).
    let value = "v".repeat(2 * 1024 * 1024);
    let body = format!("{{\"value\":\"{value}\"}}");
    let req = format!(
        "PUT /api/keys/big HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let status = status_of(&raw(port, req.as_bytes()));
    assert!(matches!(status, Some(413) | None), "2 MiB body: {status:?}");
    let mut chunked = format!(
        "PUT /api/keys/big HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\n\r\n"
    );
    for piece in body.as_bytes().chunks(64 * 1024) {
        chunked.push_str(&format!("{:x}\r\n{}\r\n", piece.len(), std::str::from_utf8(piece).unwrap()));
    }
    chunked.push_str("0\r\n\r\n");
    let status = status_of(&raw(port, chunked.as_bytes()));
    assert!(matches!(status, Some(413) | None), "2 MiB chunked body: {status:?}");
    // A length announced far beyond the limit with no body behind it: refused at once, not
    // waited for.
    let req = format!(
        "PUT /api/keys/big HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: 10000000000\r\n\r\n"
    );
    let status = status_of(&raw(port, req.as_bytes()));
    assert!(matches!(status, Some(413) | None), "a 10 GB Content-Length: {status:?}");

    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["EXISTS", "big"]), b":0\r\n");
    healthy(&server);
}

#[test]
fn resp_sent_to_the_http_port_gets_no_resp_reply() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["SET", "keep", "me"]), b"+OK\r\n");
    for bytes in [
        b"*1\r\n$4\r\nPING\r\n".as_slice(),
        b"*1\r\n$8\r\nFLUSHALL\r\n",
        b"PING\r\n",
        b"FLUSHALL\r\n\r\n",
        b"*3\r\n$3\r\nSET\r\n$6\r\npwned!\r\n$1\r\n1\r\n",
    ] {
        let response = raw(server.http_port, bytes);
        let status = status_of(&response);
        assert!(matches!(status, Some(400) | None), "{:?} got {:?}", show(bytes), show(&response));
    }
    roundtrip(&mut s, &cmd(&["GET", "keep"]), b"$2\r\nme\r\n");
    roundtrip(&mut s, &cmd(&["EXISTS", "pwned!"]), b":0\r\n");
    healthy(&server);
}

/// The cross-protocol attack on Redis: a browser page POSTs to the cache port with RESP
/// commands in the body. The request line is refused and the connection closed before
/// anything in the body runs.
#[test]
fn http_carrying_resp_commands_to_the_resp_port_runs_none_of_them() {
    let server = Server::start(&[]);
    let mut s = server.connect();
    roundtrip(&mut s, &cmd(&["SET", "keep", "me"]), b"+OK\r\n");
    let body = "FLUSHALL\r\n*3\r\n$3\r\nSET\r\n$5\r\npwned\r\n$1\r\n1\r\n";
    for head in ["POST / HTTP/1.1", "GET / HTTP/1.1", "PUT /x HTTP/1.0"] {
        let mut attack = server.connect();
        let req = format!(
            "{head}\r\nHost: 127.0.0.1:{}\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\n\
             Content-Length: {}\r\n\r\n{body}",
            server.port,
            body.len()
        );
        send(&mut attack, req.as_bytes());
        expect_closed(&mut attack);
    }
    std::thread::sleep(Duration::from_millis(50));
    roundtrip(&mut s, &cmd(&["GET", "keep"]), b"$2\r\nme\r\n");
    roundtrip(&mut s, &cmd(&["EXISTS", "pwned"]), b":0\r\n");
}
