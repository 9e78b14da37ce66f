//! Clients and Monitor routes: the connections (`GET /api/clients`), closing one
//! (`DELETE /api/clients/{id}`), and the commands the server runs as the dashboard's monitor
//! shows them, polled (`GET /api/monitor?since=N`) or streamed as Server-Sent Events
//! (`GET /api/monitor/stream`), and the keyspace notifications published lately, polled by
//! the Events page (`GET /api/events/keyspace?since=N`). The views are the engine's (`vitrine_engine::inspect`),
//! shared with the playground.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use futures_util::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use vitrine_engine::inspect::{self, ClientsView, MonitorView};

use super::error::{ApiError, ApiQuery};
use super::{AppState, RouteTable};
use crate::now_ms;

/// How often the stream looks for new commands: a live feed without a wake-up per command.
const STREAM_TICK: Duration = Duration::from_millis(250);

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/clients", list);
    t.api(Method::DELETE, "/clients/{id}", kill);
    t.api(Method::GET, "/monitor", monitor);
    t.api(Method::GET, "/monitor/stream", stream);
    t.api(Method::GET, "/events/keyspace", keyspace_events);
}

/// `GET /api/events/keyspace?since=N`: the keyspace events published after event N, with
/// `notify-keyspace-events` (turned on through `PATCH /api/config`).
async fn keyspace_events(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<MonitorQuery>,
) -> Json<inspect::KeyspaceEventsView> {
    Json(inspect::keyspace_events(&state.engine, q.since.unwrap_or(0)))
}

/// `GET /api/clients`: every connection.
async fn list(State(state): State<AppState>) -> Json<ClientsView> {
    Json(inspect::clients(&state.engine, now_ms()))
}

/// `DELETE /api/clients/{id}`: closes that connection (as CLIENT KILL ID).
async fn kill(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let id: u64 = id.parse().map_err(|_| ApiError::bad_request("invalid_id", "the client id is a positive integer"))?;
    if !inspect::kill_client(&state.engine, id) {
        return Err(ApiError::not_found(format!("no client with id {id}")));
    }
    Ok(Json(json!({ "killed": true })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MonitorQuery {
    since: Option<u64>,
}

/// `GET /api/monitor?since=N`: the commands run after event N (all the ring holds without
/// it); asking keeps the engine recording them for a few seconds.
async fn monitor(State(state): State<AppState>, ApiQuery(q): ApiQuery<MonitorQuery>) -> Json<MonitorView> {
    Json(inspect::monitor(&state.engine, q.since.unwrap_or(0), now_ms()))
}

/// `GET /api/monitor/stream`: an event (`commands`, a `MonitorView`) whenever commands ran,
/// looked for four times a second. Ends when the server shuts down.
async fn stream(State(state): State<AppState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let engine = state.engine.clone();
    // Only what runs from now on.
    let start = latest_seq(&engine);
    let mut shutdown = state.shutdown.clone();
    let stop = async move {
        let _ = shutdown.wait_for(|&stop| stop).await;
    };
    let events = futures_util::stream::unfold(start, move |since| {
        let engine = engine.clone();
        async move {
            tokio::time::sleep(STREAM_TICK).await;
            let view = inspect::monitor(&engine, since, now_ms());
            Some((view.clone(), view.last_seq))
        }
    })
    .filter(|view| std::future::ready(!view.events.is_empty()))
    .take_until(stop)
    .map(|view| {
        let event = Event::default().event("commands").json_data(&view).unwrap_or_else(|e| {
            tracing::error!("monitor stream: {e}");
            Event::default().event("error").data("could not encode the commands")
        });
        Ok(event)
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// The newest event's number, so a new stream starts after it.
fn latest_seq(engine: &vitrine_engine::Engine) -> u64 {
    inspect::monitor(engine, 0, now_ms()).last_seq
}
