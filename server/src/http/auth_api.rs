//! Signing in to the admin API as an ACL user: `POST /api/auth/login` checks a user name and
//! password as `AUTH user pass` does (a failure is counted and logged in ACL LOG) and answers
//! an opaque session token, sent afterwards as `Authorization: Bearer <token>`;
//! `POST /api/auth/logout` forgets it; `GET /api/auth/me` says who the request acts as and
//! which of the dashboard's actions it may take (`permissions::ACTIONS`).
//!
//! Tokens are 256 random bits from the operating system, kept only in memory: a restart
//! signs everyone out. One unused for [`IDLE_LIMIT`] expires; past [`MAX_LOGINS`] the least
//! recently used goes first.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use parking_lot::Mutex;
use rand::RngCore;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use vitrine_engine::inspect;

use super::error::{ApiError, ApiJson};
use super::permissions::{self, client_info, Principal};
use super::{AppState, RouteTable};
use crate::now_ms;

/// How long a sign-in lasts without a request.
pub const IDLE_LIMIT: Duration = Duration::from_secs(12 * 60 * 60);
/// The most sign-ins kept at once.
pub const MAX_LOGINS: usize = 1000;
/// What a refused sign-in says (Redis's WRONGPASS text, without the code).
pub const LOGIN_REFUSED: &str = "invalid username-password pair or user is disabled";

pub fn routes(t: &mut RouteTable) {
    t.api(Method::POST, "/auth/login", login);
    t.api(Method::POST, "/auth/logout", logout);
    t.api(Method::GET, "/auth/me", me);
}

struct Login {
    user: Arc<str>,
    last_used: Instant,
}

/// The live sign-ins, by token.
#[derive(Default)]
pub struct Logins {
    open: Mutex<HashMap<String, Login>>,
}

impl Logins {
    /// Signs `user` in: a new token (64 hex digits).
    pub fn open(&self, user: &str) -> String {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut open = self.open.lock();
        open.retain(|_, l| now.duration_since(l.last_used) < IDLE_LIMIT);
        while open.len() >= MAX_LOGINS {
            let Some(oldest) = open.iter().min_by_key(|(_, l)| l.last_used).map(|(t, _)| t.clone()) else { break };
            open.remove(&oldest);
        }
        open.insert(token.clone(), Login { user: Arc::from(user), last_used: now });
        token
    }

    /// The user signed in with `token`, if the sign-in is live (and now used again).
    pub fn user(&self, token: &[u8]) -> Option<Arc<str>> {
        let token = std::str::from_utf8(token).ok()?;
        let mut open = self.open.lock();
        let login = open.get_mut(token)?;
        let now = Instant::now();
        if now.duration_since(login.last_used) >= IDLE_LIMIT {
            open.remove(token);
            return None;
        }
        login.last_used = now;
        Some(login.user.clone())
    }

    /// Forgets `token`; whether it was live.
    pub fn close(&self, token: &[u8]) -> bool {
        std::str::from_utf8(token).is_ok_and(|t| self.open.lock().remove(t).is_some())
    }

    /// Forgets every sign-in of `user` (deleted), so its tokens stop working at once.
    pub fn close_user(&self, user: &str) {
        self.open.lock().retain(|_, l| &*l.user != user);
    }

    /// Makes `token`'s sign-in look unused for `idle` (tests of expiry).
    #[doc(hidden)]
    pub fn age(&self, token: &str, idle: Duration) {
        if let Some(login) = self.open.lock().get_mut(token) {
            login.last_used = Instant::now().checked_sub(idle).unwrap_or(login.last_used);
        }
    }

    pub fn len(&self) -> usize {
        self.open.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether `token` has the shape of a sign-in token (64 lower-case hex digits): one that is
/// not live has expired or was never issued, and gets a 401 saying so.
pub fn looks_like_login(token: &[u8]) -> bool {
    token.len() == 64 && token.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoginBody {
    username: String,
    password: String,
}

/// `POST /api/auth/login` with `{"username", "password"}`: `{"token", "user"}`, or 401.
///
/// With an admin token, a `nopass` user cannot sign in (`default` is one until a password is
/// set): the token guards the admin port, and `nopass` would let anyone past it by name.
async fn login(State(state): State<AppState>, ApiJson(body): ApiJson<LoginBody>) -> Result<Json<Value>, ApiError> {
    if state.security.token_required() && inspect::acl::acl_nopass(&state.engine, body.username.as_bytes()) {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", LOGIN_REFUSED));
    }
    let info = client_info(&body.username, "auth");
    if !state.engine.acl_login(body.username.as_bytes(), body.password.as_bytes(), &info, now_ms()) {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", LOGIN_REFUSED));
    }
    let token = state.logins.open(&body.username);
    Ok(Json(json!({ "token": token, "user": body.username })))
}

/// `POST /api/auth/logout`: forgets the sign-in whose token the request carries (204 even
/// when there was none: signing out twice is not an error).
async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = headers.get(header::AUTHORIZATION).and_then(|v| v.as_bytes().get(7..)) {
        state.logins.close(token.trim_ascii());
    }
    StatusCode::NO_CONTENT.into_response()
}

/// `GET /api/auth/me`: `{"user", "admin", "permissions": {"<action>": {"allowed", "reason"}}}`.
async fn me(State(state): State<AppState>, principal: Option<Extension<Principal>>) -> Json<Value> {
    let principal = principal.map_or(Principal::Admin, |Extension(p)| p);
    let permissions: Map<String, Value> = permissions::permissions(&state, &principal)
        .into_iter()
        .map(|(name, p)| (name.to_string(), json!(p)))
        .collect();
    Json(json!({
        "user": principal.user_name(),
        "admin": principal == Principal::Admin,
        "permissions": permissions,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_expire_and_close() {
        let logins = Logins::default();
        let a = logins.open("reader");
        let b = logins.open("reader");
        assert_ne!(a, b);
        assert!(looks_like_login(a.as_bytes()));
        assert_eq!(logins.user(a.as_bytes()).as_deref(), Some("reader"));
        logins.age(&a, IDLE_LIMIT);
        assert_eq!(logins.user(a.as_bytes()), None, "idle too long");
        assert!(logins.close(b.as_bytes()));
        assert!(!logins.close(b.as_bytes()));
        assert!(logins.is_empty());
        let c = logins.open("gone");
        logins.close_user("gone");
        assert_eq!(logins.user(c.as_bytes()), None);
    }

    #[test]
    fn the_oldest_login_goes_past_the_limit() {
        let logins = Logins::default();
        let first = logins.open("u");
        logins.age(&first, Duration::from_secs(60));
        for _ in 1..MAX_LOGINS {
            logins.open("u");
        }
        assert_eq!(logins.len(), MAX_LOGINS);
        logins.open("u");
        assert_eq!(logins.len(), MAX_LOGINS);
        assert_eq!(logins.user(first.as_bytes()), None);
    }
}
