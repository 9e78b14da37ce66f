//! The running script: `GET /api/running-script` (what runs, for how long, whether it is
//! busy) and `POST /api/running-script/kill` (SCRIPT KILL or FUNCTION KILL, whichever fits),
//! for the banner every dashboard page shows while a script is busy. Also the guard that
//! answers 503 `busy_script` to the routes that would wait for a busy script's shards.

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use vitrine_engine::inspect::{self, RunningScriptView};

use super::error::ApiError;
use super::{AppState, RouteTable};
use crate::now_ms;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/running-script", running_script);
    t.api(Method::POST, "/running-script/kill", kill);
}

/// `GET /api/running-script`: the script running now, if any.
async fn running_script(State(state): State<AppState>) -> Json<RunningScriptView> {
    Json(inspect::running_script(&state.engine, now_ms()))
}

/// `POST /api/running-script/kill`: stops the busy script; 409 with Redis's text when it
/// cannot be (NOTBUSY, UNKILLABLE).
async fn kill(State(state): State<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    match inspect::kill_running_script(&state.engine) {
        Ok(()) => Ok(Json(json!({ "killed": true }))),
        Err(text) => {
            let code = if text.starts_with("UNKILLABLE") { "unkillable" } else { "not_busy" };
            Err(ApiError::new(StatusCode::CONFLICT, code, text))
        }
    }
}

/// While a script is busy, the routes that read or change keys outside dispatch (which
/// would wait for the script's shards, holding an admin worker) answer 503 at once. The
/// console and `/api/command` go through dispatch, which answers BUSY itself (and serves
/// SCRIPT KILL).
pub async fn refuse_while_busy(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if state.engine.script_busy() {
        let path = req.uri().path();
        let path = path.strip_prefix("/api").unwrap_or(path);
        let waits = ["/keys", "/key-count", "/key-jobs", "/flush", "/memory", "/hotkeys"]
            .iter()
            .any(|p| path == *p || path.strip_prefix(p).is_some_and(|rest| rest.starts_with('/')));
        if waits {
            return ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy_script",
                "a script is busy: keys are held until it ends or is killed (see /api/running-script)",
            )
            .into_response();
        }
    }
    next.run(req).await
}
