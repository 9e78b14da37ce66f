//! The scripts routes: `GET /api/scripts` (the cached scripts with their calls, errors, run
//! time and the keys they touched without declaring them) and `GET /api/scripts/{id}` (one
//! script's source, the commands it ran and example keys), each the engine's `inspect` view.

use axum::extract::{Path, State};
use axum::http::Method;
use axum::Json;
use vitrine_engine::inspect::{self, ScriptDetail, ScriptsView};

use super::error::ApiError;
use super::{AppState, RouteTable};

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/scripts", scripts);
    t.api(Method::GET, "/scripts/{id}", script);
}

/// `GET /api/scripts`: every cached script, most called first.
async fn scripts(State(state): State<AppState>) -> Json<ScriptsView> {
    Json(inspect::scripts(&state.engine))
}

/// `GET /api/scripts/{id}`: one script by its SHA1 (404 when it is not cached).
async fn script(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<ScriptDetail>, ApiError> {
    Ok(Json(inspect::script(&state.engine, &id)?))
}
