//! A minimal blocking HTTP/1.1 client for tests against the admin port: one request per
//! connection (`Connection: close`), bounded reads, chunked bodies decoded.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use super::IO_TIMEOUT;

/// A response, read whole.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// Asserts the status and returns the JSON body.
    #[track_caller]
    pub fn expect(&self, status: u16) -> serde_json::Value {
        assert_eq!(self.status, status, "body: {}", self.text());
        self.json()
    }
}

/// Sends one request to `127.0.0.1:port` and reads the whole response.
pub fn request(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Response {
    request_at(SocketAddr::from(([127, 0, 0, 1], port)), method, path, headers, body)
}

/// Sends one request to `addr` (its `Host` header names that address) and reads the whole
/// response.
pub fn request_at(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Response {
    let mut s = open_at(addr, method, path, headers, body);
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the response");
    parse(&raw)
}

/// Like [`request`], but a connection the server refused or reset is `Err`, not a panic: for
/// a test that asks until a refusing server serves again. (A server over its connection cap
/// answers 503 and closes without reading the request, so the client may see a reset.)
pub fn try_request(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> std::io::Result<Response> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
    s.set_read_timeout(Some(IO_TIMEOUT))?;
    s.write_all(request_head(addr, method, path, headers, None).as_bytes())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    Ok(parse(&raw))
}

/// Sends a request and returns the connection, to read a streaming response by hand.
pub fn open(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> TcpStream {
    open_at(SocketAddr::from(([127, 0, 0, 1], port)), method, path, headers, body)
}

fn open_at(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> TcpStream {
    let mut s = TcpStream::connect_timeout(&addr, IO_TIMEOUT).expect("connect to the admin port");
    s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    s.write_all(request_head(addr, method, path, headers, body).as_bytes()).expect("write the request");
    if let Some(body) = body {
        s.write_all(body.as_bytes()).expect("write the body");
    }
    s
}

/// The request line and headers, up to the blank line.
fn request_head(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    head
}

pub fn get(port: u16, path: &str) -> Response {
    request(port, "GET", path, &[], None)
}

pub fn send_json(port: u16, method: &str, path: &str, body: &serde_json::Value) -> Response {
    request(port, method, path, &[], Some(&body.to_string()))
}

fn parse(raw: &[u8]) -> Response {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a complete response head");
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status code");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked { dechunk(rest) } else { rest.to_vec() };
    Response { status, headers, body }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol]).ok().and_then(|s| usize::from_str_radix(s.trim(), 16).ok());
        let Some(size) = size else { break };
        if size == 0 || rest.len() < eol + 2 + size {
            break;
        }
        body.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
        rest = &rest[(eol + 4 + size).min(rest.len())..];
    }
    body
}

/// Reads from a streaming response until `done` says the text so far is enough, or fails
/// the test after `limit`.
pub fn read_until(s: &mut TcpStream, limit: Duration, done: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + limit;
    let mut text = String::new();
    let mut buf = [0u8; 4096];
    while !done(&text) {
        assert!(std::time::Instant::now() < deadline, "not enough within {limit:?}: {text}");
        match s.read(&mut buf) {
            Ok(0) => panic!("stream closed: {text}"),
            Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(e) => panic!("read failed ({e}): {text}"),
        }
    }
    text
}
