//! Who may use the admin API, checked in one middleware before any handler runs:
//!
//! - **Token.** With `--admin-token`, every `/api/*` and `/metrics` request needs
//!   `Authorization: Bearer <token>`, compared in constant time. (`GET /api/stats/stream` also
//!   takes `?access_token=<token>`, RFC 6750's query form, because a browser's `EventSource`
//!   cannot send headers.) `/healthz` and `/readyz` stay open for probes.
//! - **Password.** Without a token, while `requirepass` is set the same requests need the RESP
//!   password as the bearer token, so the admin API is no way around it. It is read from the
//!   engine on every request: `CONFIG SET requirepass` from any client applies at once. The
//!   401 says which secret it wants (`"secret": "token"` or `"password"`).
//! - **ACL users.** A token from `POST /api/auth/login` (see `auth_api`) acts as that ACL
//!   user, whatever else is set; `permissions` checks each route against the user's rules.
//!   The admin token acts as nobody in particular and may do everything; the RESP password
//!   as bearer, or no secret on a server that needs none, acts as `default`. The request's
//!   [`Principal`] goes in its extensions. A sign-in token that is no longer live gets 401.
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

use std::borrow::Cow;
use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use vitrine_engine::Engine;

use super::auth_api::{self, Logins};
use super::error::ApiError;
use super::permissions::Principal;
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

    /// The secret a request needs now: the admin token when one is set, else the RESP
    /// password while one is set, else none.
    pub fn required<'a>(&'a self, engine: &Engine) -> Option<(Secret, Cow<'a, [u8]>)> {
        match &self.token {
            Some(token) => Some((Secret::Token, Cow::Borrowed(token.as_bytes()))),
            None => engine.config().requirepass().map(|p| (Secret::Password, Cow::Owned(p))),
        }
    }
}

/// Which secret the admin API wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret {
    /// `--admin-token`.
    Token,
    /// The RESP password (`requirepass`), when no admin token is set.
    Password,
}

impl Secret {
    /// Its name in a 401 body.
    pub fn name(self) -> &'static str {
        match self {
            Secret::Token => "token",
            Secret::Password => "password",
        }
    }
}

/// The bearer token of a request: the `Authorization: Bearer` header, else (for the SSE
/// stream) the query's `access_token`. Bytes, not text: a password may be any bytes.
fn bearer<'a>(headers: &'a HeaderMap, query_token: Option<&'a [u8]>) -> Option<&'a [u8]> {
    let from_header = headers.get(header::AUTHORIZATION).and_then(|v| {
        let v = v.as_bytes();
        let scheme = v.get(..7)?;
        scheme.eq_ignore_ascii_case(b"Bearer ").then(|| v[7..].trim_ascii())
    });
    from_header.or(query_token)
}

/// Compares a secret a client gave with the expected one in time that depends only on the
/// length of what was given, so neither its bytes nor its length can be found out from
/// response times.
pub fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != expected.len());
    for (i, &g) in given.iter().enumerate() {
        // Past the end of `expected`, compare with a byte that cannot make the two equal
        // (the lengths already differ), reading nothing outside `expected`.
        let e = if expected.is_empty() { 0 } else { expected[i % expected.len()] };
        diff |= g ^ e;
    }
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
fn query_token(req: &Request) -> Option<Vec<u8>> {
    if req.uri().path() != "/api/stats/stream" {
        return None;
    }
    let query = req.uri().query()?;
    query.split('&').find_map(|pair| {
        let value = pair.strip_prefix("access_token=")?;
        Some(percent_encoding::percent_decode_str(value).collect())
    })
}

/// The middleware: Host, cross-site and token (or password) checks, in that order.
pub async fn guard(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    match check(&state.security, &state.engine, &state.logins, &req) {
        Ok(principal) => {
            if let Some(principal) = principal {
                req.extensions_mut().insert(principal);
            }
            next.run(req).await
        }
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

/// The Host, size and cross-site checks, then who the request acts as: `None` for the
/// routes open to anyone (probes, the dashboard's files, signing in).
fn check(security: &Security, engine: &Engine, logins: &Logins, req: &Request) -> Result<Option<Principal>, ApiError> {
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
        return Ok(None);
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
    // Signing in needs no secret, and signing out only the token it drops.
    if !protected || path == "/api/auth/login" || path == "/api/auth/logout" {
        return Ok(None);
    }
    let query = query_token(req);
    let given = bearer(headers, query.as_deref());
    let required = security.required(engine);
    if let (Some(given), Some((Secret::Token, expected))) = (given, &required) {
        if constant_time_eq(given, expected) {
            return Ok(Some(Principal::Admin));
        }
    }
    if let Some(user) = given.and_then(|g| logins.user(g)) {
        return Ok(Some(Principal::User(user)));
    }
    let Some((secret, expected)) = required else {
        if given.is_some_and(auth_api::looks_like_login) {
            return Err(ApiError::unauthorized(Secret::Token.name(), EXPIRED));
        }
        // No admin token and no RESP password: the API acts as RESP connections do, as
        // `default`, unless the ACL closed that door (default off, or given a password
        // with ACL SETUSER): then only a sign-in will do.
        if engine.auth_required() {
            return Err(ApiError::unauthorized(
                Secret::Token.name(),
                "the default user needs a password: sign in with POST /api/auth/login",
            ));
        }
        return Ok(Some(Principal::user("default")));
    };
    if secret == Secret::Password && given.is_some_and(|given| constant_time_eq(given, &expected)) {
        // The legacy path: the RESP password as bearer acts as `default`, whose password it is.
        return Ok(Some(Principal::user("default")));
    }
    let message = match (secret, given) {
        (_, Some(g)) if auth_api::looks_like_login(g) => EXPIRED,
        (Secret::Token, Some(_)) => "wrong admin token",
        (Secret::Token, None) => "this server needs an admin token: send `Authorization: Bearer <token>`",
        (Secret::Password, Some(_)) => "wrong password",
        (Secret::Password, None) => {
            "this server has a RESP password (requirepass) and no admin token: send the password as \
             `Authorization: Bearer <password>`"
        }
    };
    Err(ApiError::unauthorized(secret.name(), message))
}

/// A 401 for a sign-in token that is not (or no longer) live.
const EXPIRED: &str = "this sign-in expired or is unknown: sign in again";

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
        assert!(!constant_time_eq(b"secret!", b"secret"));
        assert!(!constant_time_eq(b"secretsecret", b"secret"), "a repeat of the secret is not the secret");
        assert!(!constant_time_eq(b"", b"secret"));
        assert!(!constant_time_eq(b"x", b""));
        assert!(constant_time_eq(b"", b""));
    }

    #[test]
    fn bearer_tokens_from_the_header_or_the_query() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h, Some(b"q")), Some(&b"q"[..]));
        h.insert(header::AUTHORIZATION, "Bearer  tok ".parse().unwrap());
        assert_eq!(bearer(&h, Some(b"q")), Some(&b"tok"[..]));
        h.insert(header::AUTHORIZATION, axum::http::HeaderValue::from_bytes(b"bEARER p\xc3\xa4ss").unwrap());
        assert_eq!(bearer(&h, None), Some("p\u{e4}ss".as_bytes()), "any bytes, any case of the scheme");
        h.insert(header::AUTHORIZATION, "Basic dG9rOg==".parse().unwrap());
        assert_eq!(bearer(&h, None), None);
        h.insert(header::AUTHORIZATION, "Bear".parse().unwrap());
        assert_eq!(bearer(&h, None), None);
    }

    #[test]
    fn the_password_is_wanted_only_without_a_token() {
        let engine = Engine::new(vitrine_engine::Config::default(), 0, 1);
        let open = Security::new(None, IpAddr::V4(Ipv4Addr::LOCALHOST));
        assert!(open.required(&engine).is_none());
        engine.config().set("requirepass", "pw").unwrap();
        let (secret, expected) = open.required(&engine).unwrap();
        assert_eq!((secret, &*expected), (Secret::Password, &b"pw"[..]));
        let token = Security::new(Some("tok".into()), IpAddr::V4(Ipv4Addr::LOCALHOST));
        let (secret, expected) = token.required(&engine).unwrap();
        assert_eq!((secret, &*expected), (Secret::Token, &b"tok"[..]));
        engine.config().set("requirepass", "").unwrap();
        assert!(open.required(&engine).is_none(), "clearing the password opens it again");
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
