//! Bulk key jobs: `GET /api/key-count` (how many keys a glob and type match, exact or
//! estimated), `POST /api/key-jobs` (delete, EXPIRE or PERSIST every such key, in the
//! background), `GET /api/key-jobs[/{id}]` (progress) and `DELETE /api/key-jobs/{id}` (cancel).
//!
//! A job is a tokio task that advances `inspect::bulk_step` one SCAN batch at a time and
//! yields between batches, so the RESP port keeps answering while it runs; each batch runs
//! its commands through dispatch in a session of its own (logged to the append-only file,
//! held by CLIENT PAUSE, counted in the stats). Counting walks the keyspace on a blocking
//! thread. Finished jobs are kept for a while so a page can read how they ended.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::{Path, State};
use axum::http::{Method, StatusCode};
use axum::{Extension, Json};
use serde::Serialize;
use vitrine_engine::inspect::bulk::{COUNT_BUDGET, STEP_BATCH};
use vitrine_engine::inspect::{self, BulkJob, BulkRequest, KeyCount, KeyFilter};

use super::acl_api::principal_of;
use super::error::{ApiError, ApiJson, ApiQuery};
use super::permissions::Principal;
use super::{sessions, AppState, RouteTable};
use crate::now_ms;

/// Jobs kept (running and finished); the oldest finished one makes room for a new job.
const MAX_JOBS: usize = 16;
/// Jobs running at once.
const MAX_RUNNING: usize = 4;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/key-count", count);
    t.api(Method::GET, "/key-jobs", list);
    t.api(Method::POST, "/key-jobs", start);
    t.api(Method::GET, "/key-jobs/{id}", get);
    t.api(Method::DELETE, "/key-jobs/{id}", cancel);
}

/// One job: its view as of its last batch, and the cancel flag its task reads between
/// batches (so a cancel never waits for a batch to finish).
struct Job {
    view: Mutex<BulkJob>,
    cancel: AtomicBool,
}

impl Job {
    fn view(&self) -> MutexGuard<'_, BulkJob> {
        self.view.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The server's bulk jobs.
#[derive(Default)]
pub struct Jobs {
    next_id: AtomicU64,
    jobs: Mutex<Vec<Arc<Job>>>,
}

impl Jobs {
    fn list(&self) -> MutexGuard<'_, Vec<Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn find(&self, id: &str) -> Result<Arc<Job>, ApiError> {
        let missing = || ApiError::not_found(format!("no bulk job {id}"));
        let id: u64 = id.parse().map_err(|_| missing())?;
        self.list().iter().find(|j| j.view().id == id).cloned().ok_or_else(missing)
    }
}

/// `GET /api/key-count?match=&type=&db=`: how many keys match (a SCAN of at most
/// `COUNT_BUDGET` keys; `exact` says whether it saw them all).
async fn count(State(state): State<AppState>, ApiQuery(q): ApiQuery<KeyFilter>) -> Result<Json<KeyCount>, ApiError> {
    let engine = state.engine.clone();
    let counted = tokio::task::spawn_blocking(move || inspect::count_keys(&engine, &q, now_ms(), COUNT_BUDGET))
        .await
        .map_err(|e| ApiError::internal("counting keys", e))?;
    Ok(Json(counted?))
}

#[derive(Serialize)]
struct JobList {
    jobs: Vec<BulkJob>,
}

/// `GET /api/key-jobs`: every job kept, newest first.
async fn list(State(state): State<AppState>) -> Json<JobList> {
    let mut jobs: Vec<BulkJob> = state.key_jobs.list().iter().map(|j| j.view().clone()).collect();
    jobs.reverse();
    Json(JobList { jobs })
}

/// `POST /api/key-jobs` with `{"match", "type", "db", "action": "delete"|"expire"|"persist",
/// "ttl"}`: counts what matches, starts the job, and answers 202 with it.
async fn start(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiJson(req): ApiJson<BulkRequest>,
) -> Result<(StatusCode, Json<BulkJob>), ApiError> {
    let running = state.key_jobs.list().iter().filter(|j| j.view().is_running()).count();
    if running >= MAX_RUNNING {
        return Err(ApiError::conflict(format!("{running} bulk jobs are running; wait for one or cancel it")));
    }
    let id = state.key_jobs.next_id.fetch_add(1, Ordering::Relaxed) + 1;
    let engine = state.engine.clone();
    let job = tokio::task::spawn_blocking(move || inspect::bulk_job(&engine, id, &req, now_ms(), COUNT_BUDGET))
        .await
        .map_err(|e| ApiError::internal("starting a bulk job", e))??;
    let shown = job.clone();
    let job = Arc::new(Job { view: Mutex::new(job), cancel: AtomicBool::new(false) });
    {
        let mut jobs = state.key_jobs.list();
        if jobs.len() >= MAX_JOBS {
            if let Some(pos) = jobs.iter().position(|j| !j.view().is_running()) {
                jobs.remove(pos);
            }
        }
        jobs.push(job.clone());
    }
    tokio::spawn(run(state, job, principal_of(principal)));
    Ok((StatusCode::ACCEPTED, Json(shown)))
}

/// Steps a job to its end: one batch, then a yield (or a short sleep while CLIENT PAUSE
/// holds it), until it is done, failed or cancelled, or the server shuts down.
/// Each batch's commands run as `principal`: a signed-in user's job deletes or expires only
/// what its ACL allows (a refused command fails the job with the NOPERM text).
async fn run(state: AppState, job: Arc<Job>, principal: Principal) {
    let mut local = job.view().clone();
    while local.is_running() {
        let now = now_ms();
        if job.cancel.load(Ordering::Relaxed) || *state.shutdown.borrow() {
            local.cancel(now);
        } else {
            let db = local.db;
            let mut session = sessions::open_session(&state.engine, &principal, now);
            inspect::bulk_step(&state.engine, &mut local, now, STEP_BATCH, |argv| {
                inspect::call_in(&state.engine, &mut session, db, argv, now)
            });
            state.engine.end_session(&session);
            if job.cancel.load(Ordering::Relaxed) {
                local.cancel(now);
            }
        }
        *job.view() = local.clone();
        if local.paused {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        } else {
            tokio::task::yield_now().await;
        }
    }
}

/// `GET /api/key-jobs/{id}`: the job's progress.
async fn get(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<BulkJob>, ApiError> {
    Ok(Json(state.key_jobs.find(&id)?.view().clone()))
}

/// `DELETE /api/key-jobs/{id}`: cancels a running job after its current batch (the keys it
/// has not reached stay as they were); answers the job, `cancelled` unless it had ended.
async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> Result<Json<BulkJob>, ApiError> {
    let job = state.key_jobs.find(&id)?;
    job.cancel.store(true, Ordering::Relaxed);
    let mut view = job.view();
    view.cancel(now_ms());
    Ok(Json(view.clone()))
}
