//! Key routes: a SCAN-based listing with type, TTL and size per key, and reading, writing
//! and deleting one key.
//!
//! Keys are binary-safe. In a path (`/api/keys/{key}`) the key is everything after
//! `/api/keys/`, percent-decoded to bytes, so `/api/keys/user%3A1` and `/api/keys/user:1`
//! are the same key, slashes need no escaping, and `%FF` is the byte 0xFF. In JSON, a key
//! or value that is valid UTF-8 is a plain string and anything else is
//! `{"base64": "..."}` (see `vitrine_engine::reply_json`).
//!
//! Reading never counts as a keyspace hit or miss and does not change a key's LRU/LFU
//! stamps: looking at the cache must not change what it evicts. Writes and deletes run as
//! `SET` and `DEL` through the engine's dispatch, so memory limits and stats apply.

use axum::extract::State;
use axum::http::{Method, StatusCode, Uri};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value as Json_};
use vitrine_engine::reply_json::{bytes_from_json, bytes_to_json, value_to_json};
use vitrine_engine::store::entry::ValueRef;
use vitrine_engine::store::evict::lfu_decay;
use vitrine_engine::{glob, Reply};

use super::error::{ApiError, ApiJson, ApiQuery};
use super::{AppState, RouteTable};
use crate::now_ms;

/// Most keys one listing call may ask for.
pub const MAX_COUNT: usize = 10_000;
const DEFAULT_COUNT: usize = 100;
/// Longest string value returned whole by `GET /api/keys/{key}`; longer ones are cut and
/// marked `"truncated": true` (`length` always gives the full size).
pub const MAX_VALUE_BYTES: usize = 1024 * 1024;
/// Elements of a collection shown in a key view (the rest is marked `"truncated": true`).
pub const MAX_VALUE_ELEMENTS: usize = 1000;

/// Keeps the first `max` elements of a JSON array or object; says whether any were dropped.
fn truncate_elements(value: &mut Json_, max: usize) -> bool {
    match value {
        Json_::Array(items) if items.len() > max => {
            items.truncate(max);
            true
        }
        Json_::Object(map) if map.len() > max => {
            let keep: serde_json::Map<String, Json_> = std::mem::take(map).into_iter().take(max).collect();
            *map = keep;
            true
        }
        _ => false,
    }
}

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/keys", list);
    t.api(Method::GET, "/keys/{*key}", get_key);
    t.api(Method::PUT, "/keys/{*key}", put_key);
    t.api(Method::DELETE, "/keys/{*key}", delete_key);
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    #[serde(rename = "match")]
    pattern: Option<String>,
    #[serde(rename = "type")]
    type_name: Option<String>,
    cursor: Option<String>,
    count: Option<usize>,
}

/// `GET /api/keys?match=&type=&cursor=&count=`: one SCAN step. Like SCAN, a step may return
/// fewer keys than `count` (even none) while the cursor is not yet `"0"`; a key present for the
/// whole iteration is returned at least once. The cursor is a string (it can exceed 2^53).
async fn list(State(state): State<AppState>, ApiQuery(q): ApiQuery<ListQuery>) -> Result<Json<Json_>, ApiError> {
    let count = q.count.unwrap_or(DEFAULT_COUNT);
    if count == 0 || count > MAX_COUNT {
        return Err(ApiError::bad_request("bad_parameter", format!("count must be between 1 and {MAX_COUNT}")));
    }
    let cursor = match q.cursor.as_deref() {
        None | Some("") => 0,
        Some(c) => c
            .parse::<u64>()
            .map_err(|_| ApiError::bad_request("bad_parameter", "cursor must be a cursor returned by this endpoint"))?,
    };
    let pattern = q.pattern.filter(|p| !p.is_empty() && p != "*");
    let type_name = q.type_name.filter(|t| !t.is_empty()).map(|t| t.to_ascii_lowercase());
    let now = now_ms();
    let store = state.engine.store();
    let mut keys = Vec::new();
    let next = store.scan(cursor, count, now, |key, entry| {
        if type_name.as_deref().is_some_and(|t| t != entry.value.type_name()) {
            return;
        }
        if pattern.as_deref().is_some_and(|p| !glob::matches(p.as_bytes(), key)) {
            return;
        }
        keys.push(json!({
            "key": bytes_to_json(key),
            "type": entry.value.type_name(),
            "ttl_ms": ttl_ms(entry.expire_at, now),
            "size": entry.size,
        }));
    });
    Ok(Json(json!({ "cursor": next.to_string(), "done": next == 0, "keys": keys })))
}

fn ttl_ms(expire_at: u64, now: u64) -> Option<u64> {
    (expire_at != 0).then(|| expire_at.saturating_sub(now))
}

/// The key named by the rest of the path, percent-decoded to bytes.
fn path_key(uri: &Uri) -> Result<Vec<u8>, ApiError> {
    let path = uri.path();
    let path = path.strip_prefix("/api").unwrap_or(path);
    let raw = path.strip_prefix("/keys/").unwrap_or_default();
    if raw.is_empty() {
        return Err(ApiError::bad_request("bad_key", "the key is empty"));
    }
    Ok(percent_encoding::percent_decode_str(raw).collect())
}

/// Everything about one key, or `None` when it does not exist.
fn describe(state: &AppState, key: &[u8]) -> Option<Json_> {
    let now = now_ms();
    let store = state.engine.store();
    let config = state.engine.config();
    let mut locked = store.lock_keys([key]);
    let entry = &locked.peek(key, now)?;
    let (value, length, truncated) = match entry.value {
        ValueRef::Str(s) if s.len() > MAX_VALUE_BYTES => (bytes_to_json(utf8_floor(s, MAX_VALUE_BYTES)), s.len(), true),
        ValueRef::Str(s) => (bytes_to_json(s), s.len(), false),
        other => {
            let mut value = value_to_json(other);
            let truncated = truncate_elements(&mut value, MAX_VALUE_ELEMENTS);
            (value, other.len(), truncated)
        }
    };
    Some(json!({
        "key": bytes_to_json(key),
        "type": entry.value.type_name(),
        "encoding": entry.value.encoding(),
        "ttl_ms": ttl_ms(entry.expire_at, now),
        "expire_at_ms": (entry.expire_at != 0).then_some(entry.expire_at),
        "size": entry.size,
        "idle_ms": store.common.idle_ms(entry, now),
        "freq": lfu_decay(entry, now, config.lfu_decay_time()),
        "length": length,
        "truncated": truncated,
        "value": value,
    }))
}

/// The first `max` bytes of `s`, cut back to a character boundary when `s` is text so the
/// preview stays a plain string.
fn utf8_floor(s: &[u8], max: usize) -> &[u8] {
    let head = &s[..max.min(s.len())];
    match std::str::from_utf8(head) {
        // Only the last character is incomplete: drop it.
        Err(e) if e.error_len().is_none() => &head[..e.valid_up_to()],
        _ => head,
    }
}

/// `GET /api/keys/{key}`: type, TTL, size, LRU/LFU facts and the value as JSON.
async fn get_key(State(state): State<AppState>, uri: Uri) -> Result<Json<Json_>, ApiError> {
    let key = path_key(&uri)?;
    describe(&state, &key).map(Json).ok_or_else(|| not_found(&key))
}

fn not_found(key: &[u8]) -> ApiError {
    ApiError::not_found(format!("no such key: {}", String::from_utf8_lossy(&key[..key.len().min(200)])))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PutBody {
    /// A string, or `{"base64": "..."}` for arbitrary bytes.
    value: Json_,
    /// Time to live in seconds.
    ttl: Option<u64>,
    /// Time to live in milliseconds.
    ttl_ms: Option<u64>,
    /// Create only (`SET ... NX`): 409 when the key exists, so "new key" cannot overwrite.
    #[serde(default)]
    nx: bool,
    /// Keep the current TTL (`SET ... KEEPTTL`), so editing a value does not reset it.
    #[serde(default)]
    keep_ttl: bool,
}

/// `PUT /api/keys/{key}` with `{"value": ..., "ttl": seconds}`: sets a string (as `SET`,
/// so the key loses any previous TTL unless one is given). Answers the key as `GET` does.
async fn put_key(
    State(state): State<AppState>,
    uri: Uri,
    ApiJson(body): ApiJson<PutBody>,
) -> Result<Json<Json_>, ApiError> {
    let key = path_key(&uri)?;
    let value = bytes_from_json(&body.value)
        .ok_or_else(|| ApiError::unprocessable("invalid_body", "value must be a string or {\"base64\": \"...\"}"))?;
    let ttl_ms = match (body.ttl, body.ttl_ms) {
        (Some(_), Some(_)) => return Err(ApiError::unprocessable("invalid_body", "give ttl or ttl_ms, not both")),
        (Some(s), None) => {
            Some(s.checked_mul(1000).ok_or_else(|| ApiError::unprocessable("invalid_body", "ttl is too large"))?)
        }
        (None, ms) => ms,
    };
    let mut argv: Vec<Vec<u8>> = vec![b"SET".to_vec(), key.clone(), value];
    if body.nx {
        argv.push(b"NX".to_vec());
    }
    if body.keep_ttl {
        if ttl_ms.is_some() {
            return Err(ApiError::unprocessable("invalid_body", "keep_ttl cannot be combined with ttl or ttl_ms"));
        }
        argv.push(b"KEEPTTL".to_vec());
    }
    if let Some(ms) = ttl_ms {
        if ms == 0 {
            return Err(ApiError::unprocessable("invalid_body", "ttl must be positive"));
        }
        argv.push(b"PX".to_vec());
        argv.push(ms.to_string().into_bytes());
    }
    match state.call(&argv) {
        Reply::Error(text) => Err(command_error(text)),
        Reply::Nil => Err(ApiError::conflict(format!(
            "key already exists: {}",
            String::from_utf8_lossy(&key[..key.len().min(200)])
        ))),
        _ => describe(&state, &key).map(Json).ok_or_else(|| not_found(&key)),
    }
}

/// An error reply from a write, as an API error: 507 when the memory limit refused it.
pub fn command_error(text: String) -> ApiError {
    if text.starts_with("OOM") {
        ApiError::new(StatusCode::INSUFFICIENT_STORAGE, "oom", text)
    } else {
        ApiError::unprocessable("command_error", text)
    }
}

/// `DELETE /api/keys/{key}`: deletes the key (404 when there was none).
async fn delete_key(State(state): State<AppState>, uri: Uri) -> Result<Json<Json_>, ApiError> {
    let key = path_key(&uri)?;
    match state.call(&[b"DEL".as_slice(), &key]) {
        Reply::Int(1) => Ok(Json(json!({ "deleted": true }))),
        Reply::Int(_) => Err(not_found(&key)),
        Reply::Error(text) => Err(command_error(text)),
        other => Err(ApiError::internal("DEL", format!("unexpected reply {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_keys_are_percent_decoded_bytes() {
        let key = |p: &str| path_key(&p.parse::<Uri>().unwrap());
        assert_eq!(key("/keys/user:1").unwrap(), b"user:1");
        assert_eq!(key("/api/keys/a%2Fb").unwrap(), b"a/b");
        assert_eq!(key("/keys/a/b").unwrap(), b"a/b");
        assert_eq!(key("/keys/%FF%00x").unwrap(), b"\xff\x00x");
        assert_eq!(key("/keys/caf%C3%A9").unwrap(), "café".as_bytes());
        assert!(key("/keys/").is_err());
    }

    #[test]
    fn previews_stay_text_when_the_value_is_text() {
        assert_eq!(utf8_floor("aé".as_bytes(), 2), b"a");
        assert_eq!(utf8_floor(b"abc", 2), b"ab");
        assert_eq!(utf8_floor(b"\xff\xfe\xfd", 2), b"\xff\xfe");
    }
}
