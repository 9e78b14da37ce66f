//! Stats routes: the current `StatsSnapshot`, per-second history kept server-side (so a page
//! opened now can draw the last 15 minutes at once), the same samples live as Server-Sent
//! Events, the recent evictions and expirations, and what-if memory (the miss-ratio curve).
//!
//! A task ([`run_sampler`]) takes one `inspect::Sample` a second into the engine's
//! `SampleRing` of [`HISTORY_SECONDS`] and broadcasts it to every open stream; the views
//! themselves are the engine's (`vitrine_engine::inspect`), shared with the playground.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::Method;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use futures_util::{Stream, StreamExt};
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::{broadcast, watch};
use tokio_stream::wrappers::BroadcastStream;
pub use vitrine_engine::inspect::HISTORY_SECONDS;
use vitrine_engine::inspect::{self, EvictionsView, HistoryView, Sample, SampleRing, WhatIfView};
use vitrine_engine::StatsSnapshot;

use super::error::{ApiError, ApiQuery};
use super::{AppState, RouteTable};
use crate::now_ms;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/stats", stats);
    t.api(Method::GET, "/stats/history", history);
    t.api(Method::GET, "/stats/stream", stream);
    t.api(Method::GET, "/evictions/recent", recent_evictions);
    t.api(Method::GET, "/evictions/what-if", what_if);
}

/// The last hour of samples (the engine's clock-free ring), and the channel that streams new
/// ones.
pub struct History {
    samples: Mutex<SampleRing>,
    live: broadcast::Sender<Arc<Sample>>,
    /// The newest snapshot, which `GET /api/stats` answers while a script holds the keyspace.
    latest: Mutex<Option<StatsSnapshot>>,
}

impl Default for History {
    fn default() -> History {
        History {
            samples: Mutex::new(SampleRing::new(HISTORY_SECONDS)),
            live: broadcast::channel(16).0,
            latest: Mutex::new(None),
        }
    }
}

impl History {
    /// Takes a sample now: stores it and sends it to every stream.
    pub fn record(&self, snapshot: &StatsSnapshot) -> Arc<Sample> {
        *self.latest.lock() = Some(snapshot.clone());
        let sample = self.samples.lock().push(snapshot);
        // No receivers is fine: nobody is watching.
        let _ = self.live.send(sample.clone());
        sample
    }

    /// The newest `n` samples, oldest first.
    pub fn last(&self, n: usize) -> Vec<Arc<Sample>> {
        self.samples.lock().last(n)
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Sample>> {
        self.live.subscribe()
    }
}

/// Takes a sample every second until shutdown.
pub async fn run_sampler(state: AppState, mut shutdown: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = async { let _ = shutdown.wait_for(|&stop| stop).await; } => return,
        }
        // A running script holds every shard the snapshot would count: no sample this second
        // (the banner says why), rather than a thread stuck until the script ends.
        if state.engine.script_running() {
            continue;
        }
        let engine = state.engine.clone();
        // A snapshot walks the keyspace to count keys by type: keep it off the async threads.
        let snapshot = match tokio::task::spawn_blocking(move || inspect::snapshot(&engine, now_ms())).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!("stats sampler: {e}");
                continue;
            }
        };
        state.history.record(&snapshot);
    }
}

/// `GET /api/stats`: the `StatsSnapshot`, plus `persistence` (the append-only file's state and
/// its start-up recovery report, or `{"enabled": false}`).
/// While a script runs (holding every shard) it answers the newest sampled snapshot; the
/// count of keys is taken off the async threads either way.
async fn stats(State(state): State<AppState>) -> Json<serde_json::Value> {
    let latest = state.engine.script_running().then(|| state.history.latest.lock().clone()).flatten();
    let snapshot: StatsSnapshot = match latest {
        Some(s) => s,
        None => {
            let engine = state.engine.clone();
            match tokio::task::spawn_blocking(move || inspect::snapshot(&engine, now_ms())).await {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!("stats snapshot: {e}");
                    inspect::snapshot(&state.engine, now_ms())
                }
            }
        }
    };
    let mut v = serde_json::to_value(snapshot).unwrap_or_else(|_| json!({}));
    v["persistence"] = crate::aof::status_json(state.aof.as_deref());
    Json(v)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HistoryQuery {
    seconds: Option<usize>,
}

/// `GET /api/stats/history?seconds=N`: the last N (default 900, at most 3600) samples.
async fn history(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> Result<Json<HistoryView>, ApiError> {
    Ok(Json(inspect::history(&state.history.samples.lock(), q.seconds)?))
}

/// `GET /api/stats/stream`: the newest sample at once, then one event (`sample`) a second.
/// Ends when the server shuts down.
async fn stream(State(state): State<AppState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let first = state.history.last(1);
    let live = BroadcastStream::new(state.history.subscribe())
        // A slow reader that fell behind just skips the samples it missed.
        .filter_map(|r| async move { r.ok() });
    let mut shutdown = state.shutdown.clone();
    let stop = async move {
        let _ = shutdown.wait_for(|&stop| stop).await;
    };
    let events = futures_util::stream::iter(first).chain(live).take_until(stop).map(|sample| {
        let event = Event::default().event("sample").json_data(&*sample).unwrap_or_else(|e| {
            tracing::error!("stats stream: {e}");
            Event::default().event("error").data("could not encode a sample")
        });
        Ok(event)
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// `GET /api/evictions/recent`: the latest evictions and expirations, newest first.
async fn recent_evictions(State(state): State<AppState>) -> Json<EvictionsView> {
    Json(inspect::evictions(&state.engine, now_ms()))
}

/// `GET /api/evictions/what-if`: the miss-ratio curve and the ghost record's horizon.
async fn what_if(State(state): State<AppState>) -> Json<WhatIfView> {
    Json(inspect::what_if(&state.engine, now_ms()))
}
