//! The compatibility radar and hot keys routes: `GET /api/compat` (what clients sent that was
//! refused, per client library), `DELETE /api/compat`, `GET /api/hotkeys?count=N` (the most
//! accessed keys over the sliding window) and `DELETE /api/hotkeys`, each the engine's
//! `inspect` view.

use axum::extract::State;
use axum::http::Method;
use axum::Json;
use serde::Deserialize;
use vitrine_engine::inspect::{self, CompatView, HotKeysView};

use super::error::ApiQuery;
use super::{AppState, RouteTable};
use crate::now_ms;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/compat", compat);
    t.api(Method::DELETE, "/compat", compat_reset);
    t.api(Method::GET, "/hotkeys", hot_keys);
    t.api(Method::DELETE, "/hotkeys", hot_keys_reset);
}

/// `GET /api/compat`: refused commands, subcommands and options, most sent first.
async fn compat(State(state): State<AppState>) -> Json<CompatView> {
    Json(inspect::compat(&state.engine))
}

/// `DELETE /api/compat`: forgets them, answering the (empty) view.
async fn compat_reset(State(state): State<AppState>) -> Json<CompatView> {
    inspect::compat_reset(&state.engine);
    Json(inspect::compat(&state.engine))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HotKeysQuery {
    count: Option<usize>,
}

/// `GET /api/hotkeys?count=N`: the N most accessed keys (20 by default, 500 at most).
async fn hot_keys(State(state): State<AppState>, ApiQuery(q): ApiQuery<HotKeysQuery>) -> Json<HotKeysView> {
    Json(inspect::hot_keys(&state.engine, q.count, now_ms()))
}

/// `DELETE /api/hotkeys`: empties the sketches, answering the (empty) view.
async fn hot_keys_reset(State(state): State<AppState>) -> Json<HotKeysView> {
    inspect::hot_keys_reset(&state.engine);
    Json(inspect::hot_keys(&state.engine, None, now_ms()))
}
