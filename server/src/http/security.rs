//! Who may use the admin API, checked in one middleware before any handler runs:
//!
//! - **Token.** With `--admin-token`, every `/api/*` and `/metrics` request needs
//!   `Authorization: Bearer <token>`, compared in constant time. (`GET /api/stats/stream` also
//!   takes `?access_token=<token>`, RFC 6750's query form, because a browser's `EventSource`
//!   cannot send headers.) `/healthz` and `/readyz` stay open for probes.
//! - **DNS rebinding.** Without a token, a page on `http://evil.example` whose name has been
//!   re-pointed at 127.0.0.1 could otherwise read the API, so the `Host` header must name a
//!   loopback host (`localhost`, `127.0.0.1`, `[::1]`), the bind address, or, when bound to
//!   every address (`0.0.0.0`, `::`), any IP literal; anything else gets 421.
//! - **Size.** A request whose target and headers exceed [`MAX_HEAD`] gets 431 (bodies are
//!   limited by `DefaultBodyLimit`, and one that announces a `Content-Length` over the limit
//!   gets 413 before any of it is read).
//! - **Cross-site writes.** A `POST`, `PUT`, `PATCH` or `DELETE` whose `Origin` is not this
//!   server, or that a browser marks `Sec-Fetch-Site: cross-site`/`same-site`, gets 403. (No
//!   CORS headers are ever sent, so foreign pages cannot read responses either, and JSON
//!   bodies need `Content-Type: application/json`, which a plain HTML form cannot send.)

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::AppState;

/// The admin API's access settings.
#[derive(Debug, Clone)]
pub struct Security {
    token: Option<String>,
    bind_ip: IpAddr,
}

impl Security {
    pub fn new(token: Option<String>, bind_ip: IpAddr) -> Security {
        Security { token: token.filter(|t| !t.is_empty()), bind_ip }
    }

    pub fn token_required(&self) -> bool {
        self.token.is_some()
    }

    /// Whether a `Host` header value (with or without a port) is acceptable when no token
    /// is set.
    pub fn host_allowed(&self, host: &str) -> bool {
        let name = host_name(host);
        if name.eq_ignore_ascii_case("localhost") || name.to_ascii_lowercase().ends_with(".localhost") {
            return true;
        }
        match name.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip == self.bind_ip || self.bind_ip.is_unspecified(),
            Err(_) => false,
        }
    }

    /// Whether the request carries the token (always true when none is configured).
    fn authorized(&self, headers: &HeaderMap, query_token: Option<&str>) -> bool {
        let Some(expected) = &self.token else { return true };
        let from_header = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim);
        match from_header.or(query_token) {
            Some(given) => constant_time_eq(given.as_bytes(), expected.as_bytes()),
            None => false,
        }
    }
}

/// Compares two byte strings in time that depends only on their lengths, so the token
/// cannot be guessed byte by byte from response times.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// The host part of a `Host` header value: `[::1]:8080` → `::1`, `localhost:8080` →
/// `localhost`.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// `host[:port]` of an `Origin` header (`http://localhost:8080` → `localhost:8080`);
/// `None` for `null` or anything unparsable.
fn origin_authority(origin: &str) -> Option<&str> {
    let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"))?;
    let authority = rest.split('/').next()?;
    (!authority.is_empty()).then_some(authority)
}

fn changes_state(method: &Method) -> bool {
    matches!(*method, Method::POST | Method::PUT | Method::PATCH | Method::DELETE)
}

/// The `access_token` query parameter, accepted only for the SSE stream.
fn query_token(req: &Request) -> Option<String> {
    if req.uri().path() != "/api/stats/stream" {
        return None;
    }
    let query = req.uri().query()?;
    query.split('&').find_map(|pair| {
        let value = pair.strip_prefix("access_token=")?;
        percent_encoding::percent_decode_str(value).decode_utf8().ok().map(|v| v.into_owned())
    })
}

/// The middleware: Host, cross-site and token checks, in that order.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    match check(&state.security, &req) {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

/// Largest request head (target plus headers) accepted; hyper alone would take about
/// 400 KiB. Browsers send a few KiB; 32 KiB is nginx's default (4 x 8 KiB buffers).
pub const MAX_HEAD: usize = 32 * 1024;

/// The size of a request's target and headers, as sent (give or take separators).
fn head_size(req: &Request) -> usize {
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    target + req.headers().iter().map(|(name, value)| name.as_str().len() + value.len() + 4).sum::<usize>()
}

fn check(security: &Security, req: &Request) -> Result<(), ApiError> {
    if head_size(req) > MAX_HEAD {
        return Err(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            format!("the request's target and headers exceed {MAX_HEAD} bytes"),
        ));
    }
    // Refused from the announced length, before any of it is read, so a client cannot hold
    // a connection open by announcing gigabytes and sending nothing.
    let announced = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if announced.is_some_and(|len| len > super::MAX_BODY as u64) {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("the request body exceeds {} bytes", super::MAX_BODY),
        ));
    }
    let path = req.uri().path();
    if path == "/healthz" || path == "/readyz" {
        return Ok(());
    }
    let headers = req.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.to_string()));
    if !security.token_required() {
        match host.as_deref() {
            Some(h) if security.host_allowed(h) => {}
            Some(h) => {
                return Err(ApiError::new(
                    StatusCode::MISDIRECTED_REQUEST,
                    "misdirected_host",
                    format!(
                        "Host '{h}' is not this server's address; without an admin token only localhost, \
                         loopback and bind addresses are accepted (this blocks DNS rebinding). Set --admin-token \
                         to reach the API by another name"
                    ),
                ));
            }
            None => return Err(ApiError::bad_request("missing_host", "the request has no Host header")),
        }
    }
    if changes_state(req.method()) {
        let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
        let site = headers.get("sec-fetch-site").and_then(|s| s.to_str().ok());
        let cross = match origin {
            Some(origin) => match (origin_authority(origin), host.as_deref()) {
                (Some(a), Some(h)) => !a.eq_ignore_ascii_case(h),
                _ => true,
            },
            None => site.is_some_and(|s| s != "same-origin" && s != "none"),
        };
        if cross {
            return Err(ApiError::forbidden(
                "cross_site",
                "cross-site requests may not change this server (Origin does not match Host)",
            ));
        }
    }
    let protected = path == "/metrics" || path == "/api" || path.starts_with("/api/");
    if protected && !security.authorized(headers, query_token(req).as_deref()) {
        let has_header = headers.contains_key(header::AUTHORIZATION);
        return Err(ApiError::unauthorized(if has_header {
            "wrong admin token"
        } else {
            "this server needs an admin token: send `Authorization: Bearer <token>`"
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn hosts_that_defeat_dns_rebinding() {
        let s = Security::new(None, IpAddr::V4(Ipv4Addr::LOCALHOST));
        for ok in [
            "localhost",
            "localhost:8080",
            "LOCALHOST:1",
            "app.localhost:80",
            "127.0.0.1:8080",
            "[::1]:8080",
            "[::1]",
            "127.0.0.2",
        ] {
            assert!(s.host_allowed(ok), "{ok}");
        }
        for bad in ["evil.example", "evil.example:8080", "localhost.evil.example", "10.0.0.5:8080", "", "[::2]:80"] {
            assert!(!s.host_allowed(bad), "{bad}");
        }
        let lan = Security::new(None, "10.0.0.5".parse().unwrap());
        assert!(lan.host_allowed("10.0.0.5:8080"));
        assert!(!lan.host_allowed("10.0.0.6:8080"));
        let any = Security::new(None, IpAddr::V6(Ipv6Addr::UNSPECIFIED));
        assert!(any.host_allowed("192.168.1.2:8080"));
        assert!(!any.host_allowed("evil.example"));
    }

    #[test]
    fn constant_time_comparison() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret!"));
        assert!(constant_time_eq(b"", b""));
    }

    #[test]
    fn origins_and_host_names() {
        assert_eq!(origin_authority("http://localhost:8080"), Some("localhost:8080"));
        assert_eq!(origin_authority("https://a.b/c"), Some("a.b"));
        assert_eq!(origin_authority("null"), None);
        assert_eq!(host_name("[::1]:8080"), "::1");
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("::1"), "::1");
        assert_eq!(host_name("example"), "example");
    }
}
