//! Benchmark routes: start a run, list runs, follow one, cancel it, and import results from
//! `scripts/bench`. The runner itself is `crate::bench`.

use std::time::Duration;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value as Json_};

use super::error::{ApiError, ApiJson};
use super::{AppState, RouteTable};
use crate::bench::{BenchRequest, CancelError, ImportError, StartError, MAX_HISTORY_BYTES};

/// How long `DELETE /api/bench/{id}` waits for a cancelled run to wind down before answering.
const CANCEL_WAIT: Duration = Duration::from_secs(3);

pub fn routes(t: &mut RouteTable) {
    t.api(Method::POST, "/bench", start);
    t.api(Method::GET, "/bench", list);
    t.api(Method::POST, "/bench/import", import);
    t.api(Method::GET, "/bench/{id}", get_run);
    t.api(Method::DELETE, "/bench/{id}", cancel);
}

fn parse_id(id: Result<Path<String>, PathRejection>) -> Result<u64, ApiError> {
    let Ok(Path(id)) = id else { return Err(ApiError::not_found("no such benchmark run")) };
    id.parse().map_err(|_| ApiError::not_found(format!("no benchmark run {id}")))
}

/// `POST /api/bench`: starts a run (202 with the run and a `Location`); 409 while another
/// is going.
async fn start(State(state): State<AppState>, ApiJson(req): ApiJson<BenchRequest>) -> Result<Response, ApiError> {
    let params = req.validate().map_err(|e| ApiError::unprocessable("invalid_parameter", e))?;
    match state.bench.start(params) {
        Ok(run) => {
            let location = format!("/api/bench/{}", run.id);
            Ok((StatusCode::ACCEPTED, [(header::LOCATION, location)], Json(run)).into_response())
        }
        Err(StartError::Busy(id)) => {
            Err(ApiError::conflict(format!("benchmark run {id} is still going; cancel it or wait for it to finish")))
        }
    }
}

/// `GET /api/bench`: every run, newest first, without per-second timelines.
async fn list(State(state): State<AppState>) -> Json<Json_> {
    Json(json!({ "runs": state.bench.list() }))
}

/// `GET /api/bench/{id}`: status, progress and results (live while running).
async fn get_run(State(state): State<AppState>, id: Result<Path<String>, PathRejection>) -> Result<Response, ApiError> {
    let id = parse_id(id)?;
    match state.bench.get(id) {
        Some(run) => Ok(Json(run).into_response()),
        None => Err(ApiError::not_found(format!("no benchmark run {id}"))),
    }
}

/// `DELETE /api/bench/{id}`: cancels a running run and answers it once it has stopped (or
/// 202 if it is still winding down after a few seconds); 409 for a finished run.
async fn cancel(State(state): State<AppState>, id: Result<Path<String>, PathRejection>) -> Result<Response, ApiError> {
    let id = parse_id(id)?;
    match state.bench.cancel(id) {
        Ok(()) => {}
        Err(CancelError::NotFound) => return Err(ApiError::not_found(format!("no benchmark run {id}"))),
        Err(CancelError::Finished(status)) => {
            let status = serde_json::to_value(status).unwrap_or_default();
            let status = status.as_str().unwrap_or("finished");
            return Err(ApiError::conflict(format!("benchmark run {id} is not running (it is {status})")));
        }
    }
    let deadline = tokio::time::Instant::now() + CANCEL_WAIT;
    while state.bench.is_running(id) && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let run = state.bench.get(id).ok_or_else(|| ApiError::not_found(format!("no benchmark run {id}")))?;
    let status = if state.bench.is_running(id) { StatusCode::ACCEPTED } else { StatusCode::OK };
    Ok((status, Json(run)).into_response())
}

/// `POST /api/bench/import`: adds runs from `scripts/bench`'s JSON to the history (the
/// oldest runs make room); 413 when the runs alone are more than the history keeps.
async fn import(State(state): State<AppState>, ApiJson(doc): ApiJson<Json_>) -> Result<Json<Json_>, ApiError> {
    let summary = state.bench.import(doc).await.map_err(|e| match e {
        ImportError::Invalid(message) => ApiError::unprocessable("invalid_body", message),
        ImportError::TooLarge => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "history_too_large",
            format!(
                "these runs take more than the {} MiB the benchmark history keeps; import fewer at a time",
                MAX_HISTORY_BYTES >> 20
            ),
        ),
    })?;
    Ok(Json(json!(summary)))
}
