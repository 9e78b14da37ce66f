//! The Memory page's route: `GET /api/memory?db=N`, the engine's memory ledger (bytes and keys
//! by prefix, type and TTL), biggest keys and TTL distribution (`inspect::memory`).

use axum::extract::State;
use axum::http::Method;
use axum::Json;
use serde::Deserialize;
use vitrine_engine::inspect::{self, MemoryView};

use super::error::{ApiError, ApiQuery};
use super::{AppState, RouteTable};
use crate::now_ms;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/memory", memory);
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryQuery {
    /// One database; every database when absent.
    db: Option<usize>,
}

/// `GET /api/memory?db=N`: the memory ledger of one database, or of all of them.
async fn memory(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<MemoryQuery>,
) -> Result<Json<MemoryView>, ApiError> {
    Ok(Json(inspect::memory(&state.engine, q.db, now_ms())?))
}
