//! Key routes: a SCAN-based listing with type, TTL, size, idle time and LFU counter per key,
//! and reading, writing and deleting one key. The views are the engine's (`inspect::keys`,
//! shared with the playground); this module maps paths and errors.
//!
//! Keys are binary-safe. In a path (`/api/keys/{key}`) the key is everything after
//! `/api/keys/`, percent-decoded to bytes, so `/api/keys/user%3A1` and `/api/keys/user:1`
//! are the same key, slashes need no escaping, and `%FF` is the byte 0xFF. In JSON, a key
//! or value that is valid UTF-8 is a plain string and anything else is
//! `{"base64": "..."}` (see `vitrine_engine::inspect::Bytes`).
//!
//! Reading never counts as a keyspace hit or miss and does not change a key's LRU/LFU
//! stamps: looking at the cache must not change what it evicts. Writes and deletes run as
//! `SET` and `DEL` through the engine's dispatch, so memory limits and stats apply.

use axum::extract::State;
use axum::http::{Method, Uri};
use axum::{Extension, Json};
use vitrine_engine::inspect::keys::not_found;
use vitrine_engine::inspect::{
    self, BitsQuery, DeleteResult, EditResult, GeoPoints, GeoQuery, KeyDetail, KeyEdit, KeyPage, KeyQuery, KeyWrite,
    StreamPage, StreamQuery, StringBits,
};

use super::acl_api::principal_of;
use super::error::{ApiError, ApiJson, ApiQuery};
use super::permissions::{permit, Principal};
use super::{AppState, RouteTable};
use crate::now_ms;

pub fn routes(t: &mut RouteTable) {
    t.api(Method::GET, "/keys", list);
    t.api(Method::GET, "/keys/{*key}", get_key);
    t.api(Method::PUT, "/keys/{*key}", put_key);
    t.api(Method::PATCH, "/keys/{*key}", edit_key);
    t.api(Method::DELETE, "/keys/{*key}", delete_key);
    t.api(Method::GET, "/stream-entries/{*key}", stream_entries);
    t.api(Method::GET, "/geo-points/{*key}", geo_points);
    t.api(Method::GET, "/string-bits/{*key}", string_bits);
}

/// `GET /api/keys?match=&type=&cursor=&count=&db=`: one SCAN step of a database
/// (`inspect::key_page`; database 0 unless `db` says otherwise).
/// A signed-in user sees only the keys its ACL lets it read.
async fn list(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    ApiQuery(q): ApiQuery<KeyQuery>,
) -> Result<Json<KeyPage>, ApiError> {
    let mut page = inspect::key_page(&state.engine, &q, now_ms())?;
    if let Principal::User(user) = principal_of(principal) {
        let readable = inspect::acl::acl_key_reader(&state.engine, user.as_bytes());
        page.keys.retain(|row| readable(&row.key.0));
    }
    Ok(Json(page))
}

/// The key named by the rest of the path, percent-decoded to bytes.
fn path_key(uri: &Uri) -> Result<Vec<u8>, ApiError> {
    path_key_after(uri, "/keys/")
}

/// The key named by the path after `prefix` (`/keys/`, `/stream-entries/`, `/geo-points/`,
/// `/string-bits/`).
fn path_key_after(uri: &Uri, prefix: &str) -> Result<Vec<u8>, ApiError> {
    let path = uri.path();
    let path = path.strip_prefix("/api").unwrap_or(path);
    let raw = path.strip_prefix(prefix).unwrap_or_default();
    if raw.is_empty() {
        return Err(ApiError::bad_request("bad_key", "the key is empty"));
    }
    Ok(percent_encoding::percent_decode_str(raw).collect())
}

/// The `?db=` of a single-key request.
#[derive(Debug, Default, serde::Deserialize)]
pub struct DbQuery {
    pub db: Option<usize>,
}

/// `GET /api/keys/{key}?db=`: type, TTL, size, LRU/LFU facts and the value as JSON.
async fn get_key(
    State(state): State<AppState>,
    uri: Uri,
    ApiQuery(q): ApiQuery<DbQuery>,
) -> Result<Json<KeyDetail>, ApiError> {
    let key = path_key(&uri)?;
    let db = inspect::database(&state.engine, q.db)?;
    inspect::key_detail(&state.engine, db, &key, now_ms()).map(Json).ok_or_else(|| not_found(&key).into())
}

/// `GET /api/stream-entries/{key}?db=&order=newest|oldest&cursor=&count=`: one page of a
/// stream's entries by ID, with the stream's facts (`inspect::stream_page`).
async fn stream_entries(
    State(state): State<AppState>,
    uri: Uri,
    ApiQuery(q): ApiQuery<StreamQuery>,
) -> Result<Json<StreamPage>, ApiError> {
    let key = path_key_after(&uri, "/stream-entries/")?;
    let db = inspect::database(&state.engine, q.db)?;
    Ok(Json(inspect::stream_page(&state.engine, db, &key, &q, now_ms())?))
}

/// `GET /api/geo-points/{key}?db=&limit=`: a sorted set's members as longitude, latitude
/// points when every score is a geohash (`inspect::geo_points`).
async fn geo_points(
    State(state): State<AppState>,
    uri: Uri,
    ApiQuery(q): ApiQuery<GeoQuery>,
) -> Result<Json<GeoPoints>, ApiError> {
    let key = path_key_after(&uri, "/geo-points/")?;
    let db = inspect::database(&state.engine, q.db)?;
    Ok(Json(inspect::geo_points(&state.engine, db, &key, q.limit, now_ms())?))
}

/// `GET /api/string-bits/{key}?db=&offset=&count=`: a window of a string's bytes to show as
/// bits, with the set-bit counts of the string and of the window (`inspect::string_bits`).
async fn string_bits(
    State(state): State<AppState>,
    uri: Uri,
    ApiQuery(q): ApiQuery<BitsQuery>,
) -> Result<Json<StringBits>, ApiError> {
    let key = path_key_after(&uri, "/string-bits/")?;
    let db = inspect::database(&state.engine, q.db)?;
    Ok(Json(inspect::string_bits(&state.engine, db, &key, &q, now_ms())?))
}

/// `PUT /api/keys/{key}?db=` with `{"value": ..., "ttl": seconds}`: sets a string (as
/// `SET`, so the key loses any previous TTL unless one is given). Answers the key as `GET`
/// does.
async fn put_key(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    uri: Uri,
    ApiQuery(q): ApiQuery<DbQuery>,
    ApiJson(body): ApiJson<KeyWrite>,
) -> Result<Json<KeyDetail>, ApiError> {
    let key = path_key(&uri)?;
    let db = inspect::database(&state.engine, q.db)?;
    let principal = principal_of(principal);
    permit(&state, &principal, &[&b"SET"[..], &key, b"v"])?;
    Ok(Json(inspect::put_key(&state.engine, db, &key, &body, now_ms(), |argv| state.call_in_as(&principal, db, argv))?))
}

/// `PATCH /api/keys/{key}?db=` with an edit (`{"op": "hash_set", "field", "value"}`,
/// `list_push`, `list_set`, `list_remove`, `set_add`, `set_remove`, `zset_add`,
/// `zset_remove`, `hash_delete`): runs its one command (HSET, LPUSH, ZADD...) and answers the
/// command, its reply and the key after it (null when the edit removed the key). A Redis
/// error (WRONGTYPE, index out of range) is a 422 with Redis's text.
async fn edit_key(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    uri: Uri,
    ApiQuery(q): ApiQuery<DbQuery>,
    ApiJson(body): ApiJson<KeyEdit>,
) -> Result<Json<EditResult>, ApiError> {
    let key = path_key(&uri)?;
    let db = inspect::database(&state.engine, q.db)?;
    let principal = principal_of(principal);
    permit(&state, &principal, &inspect::keys::edit_command(&key, &body)?)?;
    Ok(Json(inspect::edit_key(&state.engine, db, &key, &body, now_ms(), |argv| {
        state.call_in_as(&principal, db, argv)
    })?))
}

/// An error reply from a write, as an API error: 507 when the memory limit refused it.
pub fn command_error(text: String) -> ApiError {
    inspect::keys::command_error(text).into()
}

/// `DELETE /api/keys/{key}?db=`: deletes the key (404 when there was none).
async fn delete_key(
    State(state): State<AppState>,
    principal: Option<Extension<Principal>>,
    uri: Uri,
    ApiQuery(q): ApiQuery<DbQuery>,
) -> Result<Json<DeleteResult>, ApiError> {
    let key = path_key(&uri)?;
    let db = inspect::database(&state.engine, q.db)?;
    let principal = principal_of(principal);
    permit(&state, &principal, &[&b"DEL"[..], &key])?;
    Ok(Json(inspect::delete_key(&key, |argv| state.call_in_as(&principal, db, argv))?))
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
}
