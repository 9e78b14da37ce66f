//! Admin routes: run one command or one console line (the dashboard console), read and change
//! settings (the same ones as `CONFIG GET/SET`), flush the keyspace behind an explicit
//! confirmation, and the command table for help and autocompletion. The views are the
//! engine's (`vitrine_engine::inspect`, shared with the playground).

use axum::extract::State;
use axum::http::Method;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Map, Value as Json_};
use vitrine_engine::inspect::bytes_from_json;
use vitrine_engine::inspect::{self, hide_secrets, ConfigView, ConsoleReply};
use vitrine_engine::Reply;

use super::acl_api::principal_of;
use super::error::{ApiError, ApiJson};
use super::keys::command_error;
use super::permissions::Principal;
use super::{sessions, AppState, RouteTable};

/// What `POST /api/flush` needs in `confirm`.
pub const FLUSH_CONFIRMATION: &str = "FLUSHALL";

pub fn routes(t: &mut RouteTable) {
    t.api(Method::POST, "/command", command);
    t.api(Method::POST, "/console", console);
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
async fn command(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiJson(body): ApiJson<Json_>,
) -> Result<Json<Json_>, ApiError> {
    let principal = principal_of(principal);
    const SHAPE: &str = "expected [\"CMD\", \"arg\", ...] or {\"args\": [...], \"session\": \"id\"}";
    let (items, session) = match &body {
        Json_::Array(items) => (items, None),
        Json_::Object(map) => {
            let session = session_id(map.get("session"))?;
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
        Some(id) => state.sessions.call(&state.engine, &principal, id, &argv, crate::now_ms()),
        None => state.call_as(&principal, &argv),
    };
    Ok(Json(hide_secrets(reply).to_json()))
}

/// A session id from a request body: 1 to 64 letters, digits, `-` or `_`.
fn session_id(v: Option<&Json_>) -> Result<Option<&str>, ApiError> {
    match v {
        None => Ok(None),
        Some(Json_::String(id)) if sessions::valid_id(id) => Ok(Some(id.as_str())),
        Some(_) => {
            Err(ApiError::unprocessable("invalid_session", "session must be 1 to 64 letters, digits, '-' or '_'"))
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConsoleBody {
    line: String,
    session: Option<Json_>,
    /// Run the line in this database without changing the session's own (the key editor's
    /// writes); absent: the session's database (0 for a one-off line).
    db: Option<usize>,
}

/// `POST /api/console` with `{"line": "SET k \"a b\"", "session": "id"?, "db": n?}`: the line as typed
/// into redis-cli, split, run and printed as redis-cli does (`inspect::ConsoleReply`, the same
/// body as the playground's `console`). Sessions and secrets as `POST /api/command`.
async fn console(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiJson(body): ApiJson<ConsoleBody>,
) -> Result<Json<ConsoleReply>, ApiError> {
    let principal = principal_of(principal);
    let session = session_id(body.session.as_ref())?;
    let db = body.db.map(|db| inspect::database(&state.engine, Some(db))).transpose()?;
    let now = crate::now_ms();
    let run = |engine: &vitrine_engine::Engine, session: &mut vitrine_engine::Session, argv: &[Vec<u8>]| {
        let reply = match db {
            Some(db) => inspect::call_in(engine, session, db, argv, now),
            None => engine.call(session, argv, now),
        };
        (hide_secrets(reply), session.resp3, db.unwrap_or(session.db))
    };
    let reply = match session {
        Some(id) => state.sessions.with(&state.engine, &principal, id, now, |engine, session| {
            inspect::console_line_with(&body.line, |argv| run(engine, session, argv))
        }),
        None => {
            let mut session = sessions::open_session(&state.engine, &principal, now);
            let reply = inspect::console_line_with(&body.line, |argv| run(&state.engine, &mut session, argv));
            state.engine.end_session(&session);
            reply
        }
    };
    Ok(Json(reply))
}

/// `GET /api/commands`: the command table.
async fn commands() -> Json<Json_> {
    Json(inspect::commands_json())
}

/// `GET /api/config`: every parameter (as `CONFIG GET *`) and which ones can be changed.
async fn get_config(State(state): State<AppState>) -> Json<ConfigView> {
    Json(inspect::config_view(&state.engine))
}

/// `PATCH /api/config` with `{"maxmemory": "64mb", "maxmemory-policy": "allkeys-lru"}`:
/// applies every change at once as one `CONFIG SET` (all or nothing), then answers like GET.
/// Names may use `_` for `-`; values are strings or numbers.
async fn patch_config(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiJson(body): ApiJson<Map<String, Json_>>,
) -> Result<Json<ConfigView>, ApiError> {
    let principal = principal_of(principal);
    Ok(Json(inspect::patch_config(&state.engine, &body, |argv| state.call_as(&principal, argv))?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FlushBody {
    confirm: Option<String>,
}

/// `POST /api/flush` with `{"confirm": "FLUSHALL"}`: deletes every key.
async fn flush(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiJson(body): ApiJson<FlushBody>,
) -> Result<Json<Json_>, ApiError> {
    if body.confirm.as_deref() != Some(FLUSH_CONFIRMATION) {
        return Err(ApiError::unprocessable(
            "confirmation_required",
            format!("this deletes every key: send {{\"confirm\": \"{FLUSH_CONFIRMATION}\"}} to go ahead"),
        ));
    }
    let before = state.engine.key_count();
    match state.call_as(&principal_of(principal), &[FLUSH_CONFIRMATION]) {
        Reply::Error(text) => Err(command_error(text)),
        _ => Ok(Json(json!({ "flushed": true, "keys_removed": before }))),
    }
}
