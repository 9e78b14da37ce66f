//! Stats routes: the current `StatsSnapshot`, per-second history kept server-side (so a page
//! opened now can draw the last 15 minutes at once), the same samples live as Server-Sent
//! Events, and the recent evictions and expirations.
//!
//! A task ([`run_sampler`]) takes one [`Sample`] a second into a ring buffer of
//! [`HISTORY_SECONDS`] and broadcasts it to every open stream.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::Method;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use futures_util::{Stream, StreamExt};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::{broadcast, watch};
use tokio_stream::wrappers::BroadcastStream;
use vitrine_engine::stats::KeysByType;
use vitrine_engine::StatsSnapshot;

use super::error::{ApiError, ApiQuery};
use super::{AppState, RouteTable};
use crate::now_ms;

/// Samples kept: one hour at one per second.
pub const HISTORY_SECONDS: usize = 3600;
/// What `/api/stats/history` returns without `seconds`: 15 minutes.
const DEFAULT_HISTORY_SECONDS: usize = 900;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/stats", stats);
    t.api(Method::GET, "/stats/history", history);
    t.api(Method::GET, "/stats/stream", stream);
    t.api(Method::GET, "/evictions/recent", recent_evictions);
}

/// One second of the server's life: gauges, running totals, and per-second rates computed
/// against the previous sample.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub t_ms: u64,
    pub uptime_s: u64,
    pub used_memory: u64,
    pub maxmemory: u64,
    pub rss_bytes: u64,
    pub allocator_bytes: u64,
    pub keys: u64,
    pub keys_with_ttl: u64,
    pub keys_by_type: KeysByType,
    pub connected_clients: u64,
    pub ops_per_sec: f64,
    pub net_input_per_sec: f64,
    pub net_output_per_sec: f64,
    pub commands_processed: u64,
    pub hits: u64,
    pub misses: u64,
    pub misses_never_seen: u64,
    pub misses_expired: u64,
    pub misses_evicted: u64,
    pub evicted_keys: u64,
    pub expired_keys: u64,
    /// hits / (hits + misses) since start (or `CONFIG RESETSTAT`).
    pub hit_ratio: f64,
    pub hits_per_sec: f64,
    pub misses_per_sec: f64,
    pub misses_never_seen_per_sec: f64,
    pub misses_expired_per_sec: f64,
    pub misses_evicted_per_sec: f64,
    pub evicted_per_sec: f64,
    pub expired_per_sec: f64,
    /// hits / lookups within this second; `null` when there were none.
    pub hit_ratio_interval: Option<f64>,
}

impl Sample {
    /// A sample from a snapshot, with rates against `prev` (zero for the first).
    pub fn new(s: &StatsSnapshot, prev: Option<&Sample>) -> Sample {
        let secs = prev.map(|p| s.now_ms.saturating_sub(p.t_ms) as f64 / 1000.0).filter(|&d| d > 0.0);
        // Counters can go down (CONFIG RESETSTAT): a rate is then 0, not a huge number.
        let rate = |now: u64, before: fn(&Sample) -> u64| match (prev, secs) {
            (Some(p), Some(d)) => now.saturating_sub(before(p)) as f64 / d,
            _ => 0.0,
        };
        let hits_per_sec = rate(s.hits, |p| p.hits);
        let misses_per_sec = rate(s.misses, |p| p.misses);
        Sample {
            t_ms: s.now_ms,
            uptime_s: s.uptime_s,
            used_memory: s.used_memory,
            maxmemory: s.maxmemory,
            rss_bytes: s.host.rss_bytes,
            allocator_bytes: s.host.allocator_bytes,
            keys: s.keys,
            keys_with_ttl: s.keys_with_ttl,
            keys_by_type: s.keys_by_type.clone(),
            connected_clients: s.connected_clients,
            ops_per_sec: s.ops_per_sec,
            net_input_per_sec: s.net_input_per_sec,
            net_output_per_sec: s.net_output_per_sec,
            commands_processed: s.commands_processed,
            hits: s.hits,
            misses: s.misses,
            misses_never_seen: s.misses_never_seen,
            misses_expired: s.misses_expired,
            misses_evicted: s.misses_evicted,
            evicted_keys: s.evicted_keys,
            expired_keys: s.expired_keys,
            hit_ratio: s.hit_ratio,
            hits_per_sec,
            misses_per_sec,
            misses_never_seen_per_sec: rate(s.misses_never_seen, |p| p.misses_never_seen),
            misses_expired_per_sec: rate(s.misses_expired, |p| p.misses_expired),
            misses_evicted_per_sec: rate(s.misses_evicted, |p| p.misses_evicted),
            evicted_per_sec: rate(s.evicted_keys, |p| p.evicted_keys),
            expired_per_sec: rate(s.expired_keys, |p| p.expired_keys),
            hit_ratio_interval: (hits_per_sec + misses_per_sec > 0.0)
                .then(|| hits_per_sec / (hits_per_sec + misses_per_sec)),
        }
    }
}

/// The last hour of samples, and the channel that streams new ones.
pub struct History {
    samples: Mutex<VecDeque<Arc<Sample>>>,
    live: broadcast::Sender<Arc<Sample>>,
}

impl Default for History {
    fn default() -> History {
        History { samples: Mutex::new(VecDeque::with_capacity(HISTORY_SECONDS)), live: broadcast::channel(16).0 }
    }
}

impl History {
    /// Takes a sample now: stores it and sends it to every stream.
    pub fn record(&self, snapshot: &StatsSnapshot) -> Arc<Sample> {
        let mut samples = self.samples.lock();
        let sample = Arc::new(Sample::new(snapshot, samples.back().map(|s| &**s)));
        if samples.len() >= HISTORY_SECONDS {
            samples.pop_front();
        }
        samples.push_back(sample.clone());
        drop(samples);
        // No receivers is fine: nobody is watching.
        let _ = self.live.send(sample.clone());
        sample
    }

    /// The newest `n` samples, oldest first.
    pub fn last(&self, n: usize) -> Vec<Arc<Sample>> {
        let samples = self.samples.lock();
        samples.iter().skip(samples.len().saturating_sub(n)).cloned().collect()
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
        let engine = state.engine.clone();
        // A snapshot walks the keyspace to count keys by type: keep it off the async threads.
        let snapshot = match tokio::task::spawn_blocking(move || engine.snapshot(now_ms())).await {
            Ok(s) => s,
            Err(e) => {
                tracing::error!("stats sampler: {e}");
                continue;
            }
        };
        state.history.record(&snapshot);
    }
}

/// `GET /api/stats`: everything at this moment.
/// `GET /api/stats`: the `StatsSnapshot`, plus `persistence` (the append-only file's state and
/// its start-up recovery report, or `{"enabled": false}`).
async fn stats(State(state): State<AppState>) -> Json<serde_json::Value> {
    let snapshot: StatsSnapshot = state.engine.snapshot(now_ms());
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
) -> Result<Json<serde_json::Value>, ApiError> {
    let n = q.seconds.unwrap_or(DEFAULT_HISTORY_SECONDS);
    if n == 0 || n > HISTORY_SECONDS {
        return Err(ApiError::bad_request("bad_parameter", format!("seconds must be between 1 and {HISTORY_SECONDS}")));
    }
    let samples = state.history.last(n);
    let samples: Vec<&Sample> = samples.iter().map(|s| &**s).collect();
    Ok(Json(json!({ "interval_ms": 1000, "samples": samples })))
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
async fn recent_evictions(State(state): State<AppState>) -> Json<serde_json::Value> {
    let mut events = state.engine.recent_events();
    events.reverse();
    let snap_now = now_ms();
    let stats = state.engine.stats();
    use std::sync::atomic::Ordering::Relaxed;
    Json(json!({
        "now_ms": snap_now,
        "policy": state.engine.config().policy().name(),
        "evicted_keys": stats.evicted_keys.load(Relaxed),
        "expired_keys": stats.expired_keys.load(Relaxed),
        "events": events,
    }))
}
