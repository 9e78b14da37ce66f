//! The slow log and latency routes: `GET /api/slowlog`, `DELETE /api/slowlog` (SLOWLOG RESET)
//! and `GET /api/latency` (per-command percentiles and histograms, and the latency monitor's
//! events), each the engine's `inspect` view.

use axum::extract::State;
use axum::http::Method;
use axum::Json;
use serde::Deserialize;
use vitrine_engine::inspect::{self, LatencyView, SlowLogView};

use super::error::ApiQuery;
use super::{AppState, RouteTable};

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/slowlog", slowlog);
    t.api(Method::DELETE, "/slowlog", slowlog_reset);
    t.api(Method::GET, "/latency", latency);
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SlowLogQuery {
    count: Option<usize>,
}

/// `GET /api/slowlog?count=N`: the newest N entries (all by default), with the settings.
async fn slowlog(State(state): State<AppState>, ApiQuery(q): ApiQuery<SlowLogQuery>) -> Json<SlowLogView> {
    Json(inspect::slowlog(&state.engine, q.count))
}

/// `DELETE /api/slowlog`: empties the slow log, answering the (empty) view.
async fn slowlog_reset(State(state): State<AppState>) -> Json<SlowLogView> {
    inspect::slowlog_reset(&state.engine);
    Json(inspect::slowlog(&state.engine, None))
}

/// `GET /api/latency`: every timed command's p50/p99/p99.9 and histogram, and the events.
async fn latency(State(state): State<AppState>) -> Json<LatencyView> {
    Json(inspect::latency(&state.engine))
}
