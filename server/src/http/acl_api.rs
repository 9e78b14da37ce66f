//! ACL routes for the dashboard's Users page: the users (`GET /api/acl/users`), changing one
//! (`PUT /api/acl/users/{name}`, as `ACL SETUSER name <rules>`), what a change would give
//! (`POST /api/acl/users/{name}/preview`, stored nowhere), deleting one, and the ACL log.
//! Changes run as commands in a session acting as the request's principal, so the ACL
//! decides who may edit the ACL, exactly as on a RESP connection.

use axum::extract::{Path, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};
use vitrine_engine::inspect::{self, AclLogView, AclUserView};
use vitrine_engine::Reply;

use super::error::{ApiError, ApiJson, ApiQuery};
use super::permissions::Principal;
use super::{AppState, RouteTable};

/// Entries `GET /api/acl/log` answers without `?count=` (as `ACL LOG`).
const DEFAULT_LOG_COUNT: usize = 10;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/acl/users", users);
    t.api(Method::PUT, "/acl/users/{name}", set_user);
    t.api(Method::DELETE, "/acl/users/{name}", delete_user);
    t.api(Method::POST, "/acl/users/{name}/preview", preview);
    t.api(Method::GET, "/acl/log", log);
    t.api(Method::DELETE, "/acl/log", log_reset);
}

/// The request's principal; the admin token when none was set (a server without secrets).
pub(super) fn principal_of(p: Option<Extension<Principal>>) -> Principal {
    p.map_or(Principal::Admin, |Extension(p)| p)
}

/// A command's error reply as an API error: 403 for NOPERM, else 400 with Redis's text.
fn refused(text: String, command: &str) -> ApiError {
    if text.starts_with("NOPERM") {
        ApiError::noperm(text, command)
    } else {
        ApiError::bad_request("command_error", text)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesBody {
    rules: String,
}

/// `GET /api/acl/users`: every user, sorted by name.
async fn users(State(state): State<AppState>) -> Json<Vec<AclUserView>> {
    Json(inspect::acl_users(&state.engine))
}

/// `PUT /api/acl/users/{name}` with `{"rules": "on >pw ~* +@read"}`: `ACL SETUSER name` with
/// the rules split on whitespace (a new user is created); answers the user as listed.
async fn set_user(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    Path(name): Path<String>,
    ApiJson(body): ApiJson<RulesBody>,
) -> Result<Json<AclUserView>, ApiError> {
    let mut argv: Vec<&[u8]> = vec![b"ACL", b"SETUSER", name.as_bytes()];
    argv.extend(body.rules.split_whitespace().map(str::as_bytes));
    if let Reply::Error(text) = state.call_as(&principal_of(principal), &argv) {
        return Err(refused(text, "acl|setuser"));
    }
    inspect::acl_users(&state.engine)
        .into_iter()
        .find(|u| u.name == name)
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("no user named '{name}'")))
}

/// `POST /api/acl/users/{name}/preview` with `{"rules": ...}`: `{"line": "user name ..."}`,
/// the `ACL LIST` line the user would have; 400 with SETUSER's error for a bad rule.
async fn preview(
    State(state): State<AppState>,
    Path(name): Path<String>,
    ApiJson(body): ApiJson<RulesBody>,
) -> Result<Json<Value>, ApiError> {
    match inspect::acl::acl_preview(&state.engine, name.as_bytes(), &body.rules) {
        Ok(line) => Ok(Json(json!({ "line": line }))),
        Err(text) => Err(ApiError::bad_request("command_error", text)),
    }
}

/// `DELETE /api/acl/users/{name}`: `ACL DELUSER name` (its connections close and its
/// dashboard sign-ins end); 400 for `default`, 404 when there is no such user.
async fn delete_user(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    match state.call_as(&principal_of(principal), &[b"ACL".as_slice(), b"DELUSER", name.as_bytes()]) {
        Reply::Error(text) => Err(refused(text, "acl|deluser")),
        Reply::Int(0) => Err(ApiError::not_found(format!("no user named '{name}'"))),
        _ => {
            state.logins.close_user(&name);
            Ok(StatusCode::NO_CONTENT.into_response())
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogQuery {
    count: Option<usize>,
}

/// `GET /api/acl/log?count=N`: the newest N entries (10 by default), newest first.
async fn log(State(state): State<AppState>, ApiQuery(q): ApiQuery<LogQuery>) -> Json<Vec<AclLogView>> {
    Json(inspect::acl_log(&state.engine, q.count.unwrap_or(DEFAULT_LOG_COUNT)))
}

/// `DELETE /api/acl/log`: `ACL LOG RESET`.
async fn log_reset(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
) -> Result<Response, ApiError> {
    match state.call_as(&principal_of(principal), &["ACL", "LOG", "RESET"]) {
        Reply::Error(text) => Err(refused(text, "acl|log")),
        _ => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}
