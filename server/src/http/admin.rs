//! Admin routes: run one command (the dashboard console), read and change settings (the same
//! ones as `CONFIG GET/SET`), flush the keyspace behind an explicit confirmation, and the
//! command table for help and autocompletion.

use axum::extract::State;
use axum::http::Method;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value as Json_};
use vitrine_engine::config::PARAMS;
use vitrine_engine::reply_json::bytes_from_json;
use vitrine_engine::Reply;

use super::error::{ApiError, ApiJson};
use super::keys::command_error;
use super::{sessions, AppState, RouteTable};

/// What `POST /api/flush` needs in `confirm`.
pub const FLUSH_CONFIRMATION: &str = "FLUSHALL";

/// Parameters `CONFIG GET` lists that `CONFIG SET` cannot change (besides the host's own,
/// such as `port`, which are never in `PARAMS`).
const NOT_SETTABLE: &[&str] = &["databases", "save", "appendonly"];

/// Parameters whose value is a secret: `/api/config` reports them as `(hidden)` when set, and
/// `CONFIG GET` through `/api/command` as empty. (`masterauth` is not a parameter yet; listed so
/// it is hidden the day it is.)
const SECRET: &[&str] = &["requirepass", "masterauth"];

pub fn routes(t: &mut RouteTable) {
    t.api(Method::POST, "/command", command);
    t.api(Method::GET, "/commands", commands);
    t.api(Method::GET, "/config", get_config);
    t.api(Method::PATCH, "/config", patch_config);
    t.api(Method::POST, "/flush", flush);
}

/// One command argument from JSON: a string, `{"base64": ...}`, or a number (as its text).
fn arg(v: &Json_) -> Option<Vec<u8>> {
    match v {
        Json_::Number(n) => Some(n.to_string().into_bytes()),
        other => bytes_from_json(other),
    }
}

/// `POST /api/command` with `["SET", "k", "v"]` (or `{"args": [...]}`): runs it and answers
/// the reply as tagged JSON. A Redis error is a normal reply (`{"type": "error", ...}`), not
/// an HTTP error. `{"args": [...], "session": "id"}` runs it in the console session `id`, so
/// MULTI/EXEC, WATCH and CLIENT SETNAME carry over between requests (see `sessions`).
async fn command(State(state): State<AppState>, ApiJson(body): ApiJson<Json_>) -> Result<Json<Json_>, ApiError> {
    const SHAPE: &str = "expected [\"CMD\", \"arg\", ...] or {\"args\": [...], \"session\": \"id\"}";
    let (items, session) = match &body {
        Json_::Array(items) => (items, None),
        Json_::Object(map) => {
            let session = match map.get("session") {
                None => None,
                Some(Json_::String(id)) if sessions::valid_id(id) => Some(id.as_str()),
                Some(_) => {
                    return Err(ApiError::unprocessable(
                        "invalid_session",
                        "session must be 1 to 64 letters, digits, '-' or '_'",
                    ))
                }
            };
            match map.get("args") {
                Some(Json_::Array(items)) if map.len() == 1 + usize::from(session.is_some()) => (items, session),
                _ => return Err(ApiError::unprocessable("invalid_body", SHAPE)),
            }
        }
        _ => return Err(ApiError::unprocessable("invalid_body", SHAPE)),
    };
    if items.is_empty() {
        return Err(ApiError::unprocessable("invalid_body", "the command is empty"));
    }
    let argv = items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            arg(v).ok_or_else(|| {
                ApiError::unprocessable(
                    "invalid_body",
                    format!("argument {i} must be a string, a number or {{\"base64\": \"...\"}}"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let reply = match session {
        Some(id) => state.sessions.call(&state.engine, id, &argv, crate::now_ms()),
        None => state.call(&argv),
    };
    Ok(Json(hide_secrets(reply).to_json()))
}

/// A reply with the value of every secret parameter blanked wherever `CONFIG GET` put one: its
/// map, also inside EXEC's array. The console is a way into the server for anyone with the
/// admin token, which need not be the RESP password.
fn hide_secrets(reply: Reply) -> Reply {
    let is_secret = |name: &Reply| match name {
        Reply::Bulk(b) => SECRET.iter().any(|s| s.as_bytes().eq_ignore_ascii_case(b)),
        Reply::Status(s) | Reply::Verbatim(s) => SECRET.iter().any(|x| x.eq_ignore_ascii_case(s)),
        _ => false,
    };
    match reply {
        Reply::Map(pairs) => Reply::Map(
            pairs
                .into_iter()
                .map(|(k, v)| if is_secret(&k) { (k, Reply::Bulk(Vec::new())) } else { (k, hide_secrets(v)) })
                .collect(),
        ),
        Reply::Array(items) => Reply::Array(items.into_iter().map(hide_secrets).collect()),
        Reply::Set(items) => Reply::Set(items.into_iter().map(hide_secrets).collect()),
        Reply::Push(items) => Reply::Push(items.into_iter().map(hide_secrets).collect()),
        Reply::Many(items) => Reply::Many(items.into_iter().map(hide_secrets).collect()),
        other => other,
    }
}

/// `GET /api/commands`: the command table.
async fn commands() -> Json<Json_> {
    Json(vitrine_engine::reply_json::commands_json())
}

fn config_view(state: &AppState) -> Json_ {
    let cfg = state.engine.config();
    let mut values = Map::new();
    for (name, value) in cfg.all() {
        let shown = if SECRET.contains(&name.as_str()) && !value.is_empty() { "(hidden)".to_string() } else { value };
        values.insert(name, Json_::String(shown));
    }
    let writable: Vec<&str> = PARAMS.iter().copied().filter(|p| !NOT_SETTABLE.contains(p)).collect();
    json!({ "config": values, "writable": writable })
}

/// `GET /api/config`: every parameter (as `CONFIG GET *`) and which ones can be changed.
async fn get_config(State(state): State<AppState>) -> Json<Json_> {
    Json(config_view(&state))
}

/// `PATCH /api/config` with `{"maxmemory": "64mb", "maxmemory-policy": "allkeys-lru"}`:
/// applies every change at once as one `CONFIG SET` (all or nothing), then answers like GET.
/// Names may use `_` for `-`; values are strings or numbers.
async fn patch_config(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<Map<String, Json_>>,
) -> Result<Json<Json_>, ApiError> {
    if body.is_empty() {
        return Err(ApiError::unprocessable("invalid_body", "give at least one setting to change"));
    }
    let mut argv: Vec<Vec<u8>> = vec![b"CONFIG".to_vec(), b"SET".to_vec()];
    for (name, value) in &body {
        let value = match value {
            Json_::String(s) => s.clone(),
            Json_::Number(n) => n.to_string(),
            _ => {
                return Err(ApiError::unprocessable(
                    "invalid_body",
                    format!("the value of '{name}' must be a string or a number"),
                ))
            }
        };
        argv.push(name.replace('_', "-").to_ascii_lowercase().into_bytes());
        argv.push(value.into_bytes());
    }
    match state.call(&argv) {
        Reply::Error(text) => Err(ApiError::unprocessable("config_error", text)),
        _ => Ok(Json(config_view(&state))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FlushBody {
    confirm: Option<String>,
}

/// `POST /api/flush` with `{"confirm": "FLUSHALL"}`: deletes every key.
async fn flush(State(state): State<AppState>, ApiJson(body): ApiJson<FlushBody>) -> Result<Json<Json_>, ApiError> {
    if body.confirm.as_deref() != Some(FLUSH_CONFIRMATION) {
        return Err(ApiError::unprocessable(
            "confirmation_required",
            format!("this deletes every key: send {{\"confirm\": \"{FLUSH_CONFIRMATION}\"}} to go ahead"),
        ));
    }
    let before = state.engine.store().len();
    match state.call(&[FLUSH_CONFIRMATION]) {
        Reply::Error(text) => Err(command_error(text)),
        _ => Ok(Json(json!({ "flushed": true, "keys_removed": before }))),
    }
}
