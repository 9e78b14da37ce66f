//! Key files: `POST /api/key-export` (selected keys as DUMP payloads in a JSON or binary file,
//! answered as a download) and `POST /api/key-import?db=&mode=skip|replace|fail` (such a file
//! as the body, restored key by key; answers a per-key report). The formats and the work are
//! the engine's (`inspect::export`, `inspect::keys_file`), shared with the playground, so a
//! file moves between the two.
//!
//! Both run their commands (DUMP, RESTORE) through dispatch in one session of their own on a
//! blocking thread: logged to the append-only file, admitted against maxmemory, counted. The
//! import body is limited like every body (`MAX_BODY`, which is the files' own limit), and
//! must be `application/json` or `application/octet-stream`, which a cross-site HTML form
//! cannot send.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use vitrine_engine::inspect::{self, ExportRequest, ImportQuery, ImportReport};
use vitrine_engine::{Engine, Reply};

use super::acl_api::principal_of;
use super::error::{ApiError, ApiJson, ApiQuery};
use super::permissions::{permit, Principal};
use super::{sessions, AppState, RouteTable};
use crate::now_ms;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::POST, "/key-export", export);
    t.api(Method::POST, "/key-import", import);
}

/// Runs `work` on a blocking thread with a session of its own for the commands it runs
/// (`run(db, argv)`).
async fn with_session<T: Send + 'static>(
    state: &AppState,
    principal: Principal,
    context: &'static str,
    work: impl FnOnce(&Engine, &mut dyn FnMut(usize, &[Vec<u8>]) -> Reply, u64) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let engine = state.engine.clone();
    tokio::task::spawn_blocking(move || {
        let now = now_ms();
        let mut session = sessions::open_session(&engine, &principal, now);
        let out = work(&engine, &mut |db, argv| inspect::call_in(&engine, &mut session, db, argv, now), now);
        engine.end_session(&session);
        out
    })
    .await
    .map_err(|e| ApiError::internal(context, e))
}

/// `POST /api/key-export` with `{"db", "keys": [...]}` or `{"db", "match", "type"}`, and
/// `"format": "json"|"binary"`: the file, as an attachment; `X-Vitrine-Keys` and
/// `X-Vitrine-Missing` count the keys in it and those named that did not exist.
///
/// A signed-in user needs DUMP on each key named, or read access to every key to export by
/// pattern (the keys a pattern gives are only known inside the engine).
async fn export(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiJson(req): ApiJson<ExportRequest>,
) -> Result<Response, ApiError> {
    let principal = principal_of(principal);
    if let Principal::User(user) = &principal {
        match &req.keys {
            Some(keys) => {
                for key in keys {
                    let key = inspect::bytes_from_json(key).unwrap_or_default();
                    permit(&state, &principal, &[&b"DUMP"[..], &key])?;
                }
            }
            None if !inspect::acl::acl_every_key(&state.engine, user.as_bytes(), false) => {
                permit(&state, &principal, &[&b"DUMP"[..], b"*"])?;
            }
            None => {}
        }
    }
    let file = with_session(&state, principal, "exporting keys", move |engine, _, now| {
        inspect::export_keys(engine, &req, now)
    })
    .await??;
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(file.format.content_type()));
    // The file name is ours (digits and ASCII), so it needs no quoting beyond the quotes.
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", file.filename)) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    headers.insert("x-vitrine-keys", HeaderValue::from(file.keys));
    headers.insert("x-vitrine-missing", HeaderValue::from(file.missing));
    Ok((StatusCode::OK, headers, file.bytes).into_response())
}

/// `POST /api/key-import?db=&mode=skip|replace|fail` with a file (JSON or binary, told apart
/// by its first bytes) as the body: restores its keys and answers what became of each (409,
/// and nothing written, under `fail` when one exists; 422 for a file that is not one).
async fn import(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiQuery(q): ApiQuery<ImportQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ImportReport>, ApiError> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    if essence != "application/json" && essence != "application/octet-stream" {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "send the file with `Content-Type: application/json` or `application/octet-stream`",
        ));
    }
    let body = body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("request body is larger than {} bytes", super::MAX_BODY),
        ),
        _ => ApiError::bad_request("bad_body", e.body_text()),
    })?;
    // RESTORE runs as the user: the engine checks each key it writes.
    let report = with_session(&state, principal_of(principal), "importing keys", move |engine, run, now| {
        inspect::import_keys(engine, &q, &body, now, run)
    })
    .await??;
    Ok(Json(report))
}
