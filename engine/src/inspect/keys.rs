//! Key views: a page of keys (one SCAN step with a glob and a type filter), everything about
//! one key with its value bounded, and writing and deleting a key as `SET` and `DEL` do.
//!
//! Looking never counts as a keyspace hit or miss and does not change a key's LRU/LFU stamps:
//! looking at the cache must not change what it evicts.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use ts_rs::TS;

use super::{Bytes, Refusal, Status};
use crate::glob;
use crate::num::format_double;
use crate::reply::Reply;
use crate::reply_json::{bytes_from_json, bytes_to_json};
use crate::store::entry::{Entry, ValueRef};
use crate::store::evict::lfu_decay;
use crate::store::stream::{StreamEntry, MAX_ID, MIN_ID};
use crate::{Engine, Session};

/// Most keys one page may ask for.
pub const MAX_COUNT: usize = 10_000;
/// Keys a page asks for when the query does not say.
pub const DEFAULT_COUNT: usize = 100;
/// Longest string value shown whole in a key's detail; longer ones are cut and marked
/// `"truncated": true` (`length` always gives the full size).
pub const MAX_VALUE_BYTES: usize = 1024 * 1024;
/// Elements of a collection shown in a key's detail (the rest is marked `"truncated": true`).
pub const MAX_VALUE_ELEMENTS: usize = 1000;

/// The query of one key page (`GET /api/keys?match=&type=&cursor=&count=`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyQuery {
    /// A glob (`user:*`); empty or `*` for every key.
    #[serde(rename = "match")]
    pub pattern: Option<String>,
    /// A type name (`string`, `hash`, ...); empty for any.
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// The cursor a previous page returned; empty or `0` to start.
    pub cursor: Option<String>,
    /// Keys to visit (1 to [`MAX_COUNT`], default [`DEFAULT_COUNT`]).
    pub count: Option<usize>,
    /// The database to walk (default 0).
    pub db: Option<usize>,
}

/// One key in a page.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct KeyRow {
    pub key: Bytes,
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub type_name: &'static str,
    /// Milliseconds left, or null when the key has no TTL.
    pub ttl_ms: Option<u64>,
    /// Accounted bytes.
    pub size: usize,
    /// Milliseconds since the key was last accessed.
    pub idle_ms: u64,
    /// The LFU counter, decayed to now.
    pub freq: u8,
}

/// One SCAN step. Like SCAN, a step may return fewer keys than asked (even none) while the
/// cursor is not yet `"0"`; a key present for the whole iteration is returned at least once.
/// The cursor is a string: it can exceed 2^53.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct KeyPage {
    pub cursor: String,
    pub done: bool,
    pub keys: Vec<KeyRow>,
}

/// Everything about one key (`GET /api/keys/{key}`).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct KeyDetail {
    pub key: Bytes,
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub type_name: &'static str,
    pub encoding: &'static str,
    pub ttl_ms: Option<u64>,
    pub expire_at_ms: Option<u64>,
    pub size: usize,
    pub idle_ms: u64,
    pub freq: u8,
    /// Bytes of a string, elements of a collection (the value may be cut, see `truncated`).
    pub length: usize,
    pub truncated: bool,
    /// A string is `Bytes`; a list or set an array of `Bytes`; a hash an object of field to
    /// `Bytes`; a sorted set an array of `[member, score]` pairs in order.
    #[ts(type = "unknown")]
    pub value: Json,
    /// For a hash with fields that expire (HEXPIRE and friends): milliseconds left of each
    /// shown field that has a TTL, by field as in `value`; `null` otherwise.
    #[ts(type = "Record<string, number> | null")]
    pub field_ttl_ms: Option<Json>,
    /// For a stream: its consumer groups with their consumers (see `inspect::stream_groups`);
    /// `null` for other types.
    pub stream_groups: Option<Vec<super::StreamGroupView>>,
}

/// The body of a key write (`PUT /api/keys/{key}`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyWrite {
    /// A string, or `{"base64": "..."}` for arbitrary bytes.
    pub value: Json,
    /// Time to live in seconds.
    pub ttl: Option<u64>,
    /// Time to live in milliseconds.
    pub ttl_ms: Option<u64>,
    /// Create only (`SET ... NX`): refused when the key exists, so "new key" cannot overwrite.
    #[serde(default)]
    pub nx: bool,
    /// Keep the current TTL (`SET ... KEEPTTL`), so editing a value does not reset it.
    #[serde(default)]
    pub keep_ttl: bool,
}

/// The answer of a key delete.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct DeleteResult {
    pub deleted: bool,
}

fn ttl_ms(expire_at: u64, now: u64) -> Option<u64> {
    (expire_at != 0).then(|| expire_at.saturating_sub(now))
}

fn row(engine: &Engine, key: &[u8], entry: &Entry, now: u64) -> KeyRow {
    KeyRow {
        key: Bytes::from(key),
        type_name: entry.value.type_name(),
        ttl_ms: ttl_ms(entry.expire_at, now),
        size: entry.size,
        idle_ms: engine.store().common.idle_ms(entry, now),
        freq: lfu_decay(entry, now, engine.config().lfu_decay_time()),
    }
}

/// One SCAN step of the keyspace, filtered by glob and type.
pub fn key_page(engine: &Engine, q: &KeyQuery, now_ms: u64) -> Result<KeyPage, Refusal> {
    let db = database(engine, q.db)?;
    let count = q.count.unwrap_or(DEFAULT_COUNT);
    if count == 0 || count > MAX_COUNT {
        return Err(Refusal::new(
            Status::BadRequest,
            "bad_parameter",
            format!("count must be between 1 and {MAX_COUNT}"),
        ));
    }
    let cursor = match q.cursor.as_deref() {
        None | Some("") => 0,
        Some(c) => c.parse::<u64>().map_err(|_| {
            Refusal::new(Status::BadRequest, "bad_parameter", "cursor must be a cursor returned by this endpoint")
        })?,
    };
    let pattern = q.pattern.as_deref().filter(|p| !p.is_empty() && *p != "*");
    let type_name = q.type_name.as_deref().filter(|t| !t.is_empty()).map(str::to_ascii_lowercase);
    let mut keys = Vec::new();
    let next = engine.store().unlocked(db).scan(cursor, count, now_ms, |key, entry| {
        if type_name.as_deref().is_some_and(|t| t != entry.value.type_name()) {
            return;
        }
        if pattern.is_some_and(|p| !glob::matches(p.as_bytes(), key)) {
            return;
        }
        keys.push(row(engine, key, entry, now_ms));
    });
    Ok(KeyPage { cursor: next.to_string(), done: next == 0, keys })
}

/// The database a request names (`None`: database 0), refused when there is no such one.
pub fn database(engine: &Engine, db: Option<usize>) -> Result<usize, Refusal> {
    let databases = engine.store().databases();
    match db.unwrap_or(0) {
        db if db < databases => Ok(db),
        _ => Err(Refusal::new(
            Status::BadRequest,
            "bad_parameter",
            format!("db must be between 0 and {}", databases - 1),
        )),
    }
}

/// Runs one command in database `db` on `session` (the key editor's writes), leaving the
/// session in the database it was in: a console's SELECT is its own business.
pub fn call_in<A: AsRef<[u8]>>(engine: &Engine, session: &mut Session, db: usize, argv: &[A], now_ms: u64) -> Reply {
    let was = std::mem::replace(&mut session.db, db);
    let reply = engine.call(session, argv, now_ms);
    session.db = was;
    session.closing = false;
    reply
}

/// Everything about `key` in database `db`, or `None` when it does not exist.
pub fn key_detail(engine: &Engine, db: usize, key: &[u8], now_ms: u64) -> Option<KeyDetail> {
    let store = engine.store();
    let mut locked = store.lock_keys(db, [key]);
    let entry = &locked.peek(key, now_ms)?;
    let (value, truncated) = value_view(entry.value);
    let field_ttl_ms = match entry.value {
        ValueRef::Hash(h) if h.has_field_ttls() => {
            let shown = value.as_object();
            let ttls: Map<String, Json> = h
                .field_expiries()
                .map(|(f, at)| (String::from_utf8_lossy(f).into_owned(), Json::from(at.saturating_sub(now_ms))))
                .filter(|(f, _)| shown.is_some_and(|v| v.contains_key(f)))
                .collect();
            Some(Json::Object(ttls))
        }
        _ => None,
    };
    Some(KeyDetail {
        key: Bytes::from(key),
        type_name: entry.value.type_name(),
        encoding: entry.value.encoding(),
        ttl_ms: ttl_ms(entry.expire_at, now_ms),
        expire_at_ms: (entry.expire_at != 0).then_some(entry.expire_at),
        size: entry.size,
        idle_ms: store.common.idle_ms(entry, now_ms),
        freq: lfu_decay(entry, now_ms, engine.config().lfu_decay_time()),
        length: entry.value.len(),
        truncated,
        value,
        field_ttl_ms,
        stream_groups: match entry.value {
            ValueRef::Stream(s) => Some(super::stream_groups::stream_groups(s, now_ms)),
            _ => None,
        },
    })
}

/// A value as JSON, bounded by [`MAX_VALUE_BYTES`] and [`MAX_VALUE_ELEMENTS`]; says whether
/// anything was left out.
pub fn value_view(value: ValueRef<'_>) -> (Json, bool) {
    let max = MAX_VALUE_ELEMENTS;
    let items = |it: &mut dyn Iterator<Item = Json>, len: usize| (Json::Array(it.take(max).collect()), len > max);
    match value {
        ValueRef::Str(s) if s.len() > MAX_VALUE_BYTES => (bytes_to_json(utf8_floor(s, MAX_VALUE_BYTES)), true),
        ValueRef::Str(s) => (bytes_to_json(s), false),
        ValueRef::List(l) => items(&mut l.iter().map(bytes_to_json), l.len()),
        ValueRef::Set(s) => items(&mut s.iter().map(bytes_to_json), s.len()),
        ValueRef::ZSet(z) => items(
            &mut z.iter().map(|(m, s)| {
                let score = if s.is_finite() { Json::from(s) } else { Json::from(format_double(s)) };
                Json::Array(vec![bytes_to_json(m), score])
            }),
            z.len(),
        ),
        ValueRef::Stream(s) => items(&mut s.range(MIN_ID, MAX_ID, false).map(stream_entry_json), s.len() as usize),
        ValueRef::Hash(h) => {
            // JSON object keys must be text, so a field that is not UTF-8 is shown lossily
            // (U+FFFD). The object is built whole and then cut, in the object's own order.
            let mut out = Map::with_capacity(h.len());
            for (field, value) in h.iter() {
                out.insert(String::from_utf8_lossy(field).into_owned(), bytes_to_json(value));
            }
            let truncated = out.len() > max;
            if truncated {
                out = std::mem::take(&mut out).into_iter().take(max).collect();
            }
            (Json::Object(out), truncated)
        }
    }
}

/// One stream entry as JSON: `[id, [field, value, ...]]`.
fn stream_entry_json((id, fields): StreamEntry<'_>) -> Json {
    Json::Array(vec![Json::from(id.to_string()), Json::Array(fields.into_iter().map(bytes_to_json).collect())])
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

/// The refusal for a key that is not there.
pub fn not_found(key: &[u8]) -> Refusal {
    Refusal::new(
        Status::NotFound,
        "not_found",
        format!("no such key: {}", String::from_utf8_lossy(&key[..key.len().min(200)])),
    )
}

/// An error reply from a write, as a refusal: 507 when the memory limit refused it.
pub fn command_error(text: String) -> Refusal {
    if text.starts_with("OOM") {
        Refusal::new(Status::InsufficientStorage, "oom", text)
    } else {
        Refusal::new(Status::Unprocessable, "command_error", text)
    }
}

fn invalid(message: &str) -> Refusal {
    Refusal::new(Status::Unprocessable, "invalid_body", message)
}

/// Sets `key` to the string in `body` (as `SET`, so the key loses any previous TTL unless one
/// is given or `keep_ttl` is set), running the command with `run`; answers the key as
/// [`key_detail`] does.
pub fn put_key(
    engine: &Engine,
    db: usize,
    key: &[u8],
    body: &KeyWrite,
    now_ms: u64,
    run: impl FnOnce(&[Vec<u8>]) -> Reply,
) -> Result<KeyDetail, Refusal> {
    let value =
        bytes_from_json(&body.value).ok_or_else(|| invalid("value must be a string or {\"base64\": \"...\"}"))?;
    let ttl_ms = match (body.ttl, body.ttl_ms) {
        (Some(_), Some(_)) => return Err(invalid("give ttl or ttl_ms, not both")),
        (Some(s), None) => Some(s.checked_mul(1000).ok_or_else(|| invalid("ttl is too large"))?),
        (None, ms) => ms,
    };
    let mut argv: Vec<Vec<u8>> = vec![b"SET".to_vec(), key.to_vec(), value];
    if body.nx {
        argv.push(b"NX".to_vec());
    }
    if body.keep_ttl {
        if ttl_ms.is_some() {
            return Err(invalid("keep_ttl cannot be combined with ttl or ttl_ms"));
        }
        argv.push(b"KEEPTTL".to_vec());
    }
    if let Some(ms) = ttl_ms {
        if ms == 0 {
            return Err(invalid("ttl must be positive"));
        }
        argv.push(b"PX".to_vec());
        argv.push(ms.to_string().into_bytes());
    }
    match run(&argv) {
        Reply::Error(text) => Err(command_error(text)),
        Reply::Nil => Err(Refusal::new(
            Status::Conflict,
            "conflict",
            format!("key already exists: {}", String::from_utf8_lossy(&key[..key.len().min(200)])),
        )),
        _ => key_detail(engine, db, key, now_ms).ok_or_else(|| not_found(key)),
    }
}

/// Deletes `key` with `DEL` run by `run`; refused when there was no such key.
pub fn delete_key(key: &[u8], run: impl FnOnce(&[Vec<u8>]) -> Reply) -> Result<DeleteResult, Refusal> {
    match run(&[b"DEL".to_vec(), key.to_vec()]) {
        Reply::Int(1) => Ok(DeleteResult { deleted: true }),
        Reply::Int(_) => Err(not_found(key)),
        Reply::Error(text) => Err(command_error(text)),
        other => {
            Err(Refusal::new(Status::Unprocessable, "command_error", format!("unexpected reply to DEL: {other:?}")))
        }
    }
}

/// One edit of a collection's element (`PATCH /api/keys/{key}`), run as the one command
/// named in each variant, so a wrong type or a bad index answers Redis's own error text.
/// Members, fields and values are a string or `{"base64": "..."}`.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum KeyEdit {
    /// `HSET key field value`.
    HashSet {
        #[ts(as = "Bytes")]
        field: Json,
        #[ts(as = "Bytes")]
        value: Json,
    },
    /// `HDEL key field`.
    HashDelete {
        #[ts(as = "Bytes")]
        field: Json,
    },
    /// `LPUSH` (`"end": "left"`) or `RPUSH` (`"right"`) `key value`.
    ListPush {
        end: ListEnd,
        #[ts(as = "Bytes")]
        value: Json,
    },
    /// `LSET key index value`.
    ListSet {
        index: i64,
        #[ts(as = "Bytes")]
        value: Json,
    },
    /// `LREM key count value` (count 0, the default: every occurrence).
    ListRemove {
        #[serde(default)]
        #[ts(optional)]
        count: Option<i64>,
        #[ts(as = "Bytes")]
        value: Json,
    },
    /// `SADD key member`.
    SetAdd {
        #[ts(as = "Bytes")]
        member: Json,
    },
    /// `SREM key member`.
    SetRemove {
        #[ts(as = "Bytes")]
        member: Json,
    },
    /// `ZADD key score member`: adds the member or changes its score. The score is a number
    /// or a string as ZADD reads it (`"+inf"`, `"1e3"`).
    ZsetAdd {
        #[ts(as = "Bytes")]
        member: Json,
        #[ts(type = "number | string")]
        score: Json,
    },
    /// `ZREM key member`.
    ZsetRemove {
        #[ts(as = "Bytes")]
        member: Json,
    },
}

/// Which end of a list a push goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ListEnd {
    Left,
    Right,
}

/// What an edit did: the command it ran, its reply, and the key after it (`null` when the
/// edit removed its last element, and with it the key).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct EditResult {
    pub command: Vec<Bytes>,
    #[ts(type = "import('./Reply').Reply")]
    pub reply: Json,
    pub key: Option<KeyDetail>,
}

/// The command an edit of `key` runs.
pub fn edit_command(key: &[u8], edit: &KeyEdit) -> Result<Vec<Vec<u8>>, Refusal> {
    let b = |v: &Json, what: &str| {
        bytes_from_json(v).ok_or_else(|| invalid(&format!("{what} must be a string or {{\"base64\": \"...\"}}")))
    };
    let k = key.to_vec();
    let word = |w: &str| w.as_bytes().to_vec();
    Ok(match edit {
        KeyEdit::HashSet { field, value } => vec![word("HSET"), k, b(field, "field")?, b(value, "value")?],
        KeyEdit::HashDelete { field } => vec![word("HDEL"), k, b(field, "field")?],
        KeyEdit::ListPush { end, value } => {
            let name = if *end == ListEnd::Left { "LPUSH" } else { "RPUSH" };
            vec![word(name), k, b(value, "value")?]
        }
        KeyEdit::ListSet { index, value } => vec![word("LSET"), k, word(&index.to_string()), b(value, "value")?],
        KeyEdit::ListRemove { count, value } => {
            vec![word("LREM"), k, word(&count.unwrap_or(0).to_string()), b(value, "value")?]
        }
        KeyEdit::SetAdd { member } => vec![word("SADD"), k, b(member, "member")?],
        KeyEdit::SetRemove { member } => vec![word("SREM"), k, b(member, "member")?],
        KeyEdit::ZsetAdd { member, score } => {
            let score = match score {
                Json::Number(n) => n.to_string(),
                Json::String(s) => s.clone(),
                _ => return Err(invalid("score must be a number or a string")),
            };
            vec![word("ZADD"), k, score.into_bytes(), b(member, "member")?]
        }
        KeyEdit::ZsetRemove { member } => vec![word("ZREM"), k, b(member, "member")?],
    })
}

/// Runs one edit of `key` with `run`; a Redis error (WRONGTYPE, an index out of range, a
/// score that is not a float) is refused with its text, and anything else answers the key
/// as it now is.
pub fn edit_key(
    engine: &Engine,
    db: usize,
    key: &[u8],
    edit: &KeyEdit,
    now_ms: u64,
    run: impl FnOnce(&[Vec<u8>]) -> Reply,
) -> Result<EditResult, Refusal> {
    let argv = edit_command(key, edit)?;
    match run(&argv) {
        Reply::Error(text) => Err(command_error(text)),
        reply => Ok(EditResult {
            command: argv.iter().map(|a| Bytes(a.clone())).collect(),
            reply: reply.to_json(),
            key: key_detail(engine, db, key, now_ms),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::TestEngine;

    const T0: u64 = TestEngine::START_MS;

    fn json_of<T: Serialize>(v: &T) -> Json {
        serde_json::to_value(v).unwrap()
    }

    #[test]
    fn pages_filter_by_glob_and_type_and_validate_the_query() {
        let mut t = TestEngine::default();
        for i in 0..30 {
            t.run(&[b"SET".to_vec(), format!("user:{i}").into_bytes(), b"v".to_vec()]);
        }
        t.run(&["HSET", "user:h", "f", "v"]);
        t.run(&["SET", "other", "v", "PX", "1500"]);
        let (mut cursor, mut seen) = (String::new(), Vec::new());
        loop {
            let q = KeyQuery {
                pattern: Some("user:*".into()),
                cursor: Some(cursor),
                count: Some(7),
                type_name: Some("STRING".into()),
                db: None,
            };
            let page = key_page(&t.engine, &q, T0).unwrap();
            seen.extend(page.keys.iter().map(|k| k.key.0.clone()));
            if page.done {
                assert_eq!(page.cursor, "0");
                break;
            }
            cursor = page.cursor;
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 30);
        let q = KeyQuery { pattern: Some("other".into()), count: Some(1000), ..KeyQuery::default() };
        let page = key_page(&t.engine, &q, T0 + 500).unwrap();
        let row = json_of(&page.keys[0]);
        assert_eq!(row["key"], "other");
        assert_eq!(row["type"], "string");
        assert_eq!(row["ttl_ms"], 1000);
        assert!(row["idle_ms"].is_u64() && row["freq"].is_u64() && row["size"].is_u64(), "{row}");
        let bad = |q: KeyQuery| key_page(&t.engine, &q, T0).unwrap_err();
        assert_eq!(
            bad(KeyQuery { count: Some(0), ..KeyQuery::default() }).message,
            "count must be between 1 and 10000"
        );
        let e = bad(KeyQuery { cursor: Some("x".into()), ..KeyQuery::default() });
        assert_eq!((e.status, e.code), (Status::BadRequest, "bad_parameter"));
    }

    #[test]
    fn details_bound_values_of_every_type() {
        let mut t = TestEngine::default();
        t.run(&["RPUSH", "l", "a", "b"]);
        t.run(&[&b"SADD"[..], b"s", b"b", b"a", b"\xff"]);
        t.run(&["ZADD", "z", "1", "m", "+inf", "n"]);
        t.run(&[&b"HSET"[..], b"h", b"name", b"ann", b"bin", b"\xff"]);
        t.run(&[&b"SET"[..], b"bin", b"\xff"]);
        let value = |k: &str| key_detail(&t.engine, 0, k.as_bytes(), T0).unwrap().value;
        assert_eq!(value("l"), json!(["a", "b"]));
        assert_eq!(value("s"), json!(["b", "a", { "base64": "/w==" }]));
        assert_eq!(value("z"), json!([["m", 1.0], ["n", "inf"]]));
        assert_eq!(value("h"), json!({ "name": "ann", "bin": { "base64": "/w==" } }));
        assert_eq!(value("bin"), json!({ "base64": "/w==" }));
        assert_eq!(key_detail(&t.engine, 0, b"h", T0).unwrap().field_ttl_ms, None);
        t.run(&["HPEXPIRE", "h", "5000", "FIELDS", "1", "name"]);
        let now = t.now;
        let d = key_detail(&t.engine, 0, b"h", now + 1000).unwrap();
        assert_eq!((d.encoding, d.field_ttl_ms), ("listpackex", Some(json!({ "name": 4000 }))));
        let d = key_detail(&t.engine, 0, b"h", now + 5000).unwrap();
        assert_eq!((d.value, d.field_ttl_ms), (json!({ "bin": { "base64": "/w==" } }), None));
        assert!(key_detail(&t.engine, 0, b"nope", T0).is_none());
        let many: Vec<String> = (0..MAX_VALUE_ELEMENTS + 5).map(|i| i.to_string()).collect();
        let mut argv = vec!["RPUSH".to_string(), "big".into()];
        argv.extend(many);
        t.run(&argv);
        let d = key_detail(&t.engine, 0, b"big", T0).unwrap();
        assert!(d.truncated);
        assert_eq!(d.length, MAX_VALUE_ELEMENTS + 5);
        assert_eq!(d.value.as_array().unwrap().len(), MAX_VALUE_ELEMENTS);
        let long = vec![b'a'; MAX_VALUE_BYTES + 1];
        t.run(&[&b"SET"[..], b"long", &long]);
        let d = key_detail(&t.engine, 0, b"long", T0).unwrap();
        assert!(d.truncated);
        assert_eq!(d.value.as_str().unwrap().len(), MAX_VALUE_BYTES);
        assert_eq!(utf8_floor("aé".as_bytes(), 2), b"a");
        assert_eq!(utf8_floor(b"\xff\xfe\xfd", 2), b"\xff\xfe");
    }

    #[test]
    fn sorted_sets_are_member_score_pairs_in_order() {
        let mut z = crate::store::zset::ZSetValue::new();
        z.insert(b"b", 2.0);
        z.insert(b"a", 1.5);
        z.insert(b"c", f64::INFINITY);
        z.insert(b"\xff", 0.0);
        let (value, truncated) = value_view(ValueRef::ZSet(&z));
        assert_eq!(value, json!([[{ "base64": "/w==" }, 0.0], ["a", 1.5], ["b", 2.0], ["c", "inf"]]));
        assert!(!truncated);
    }

    #[test]
    fn writes_and_deletes_run_through_dispatch() {
        let mut t = TestEngine::default();
        let body = |v: Json| serde_json::from_value::<KeyWrite>(v).unwrap();
        let TestEngine { engine, session, .. } = &mut t;
        let mut run = |argv: &[Vec<u8>]| engine.call(session, argv, T0);
        let d = put_key(engine, 0, b"k", &body(json!({ "value": "v", "ttl": 10 })), T0, &mut run).unwrap();
        assert_eq!(d.ttl_ms, Some(10_000));
        let e = put_key(engine, 0, b"k", &body(json!({ "value": "w", "nx": true })), T0, &mut run).unwrap_err();
        assert_eq!((e.status, e.message.as_str()), (Status::Conflict, "key already exists: k"));
        let e = put_key(engine, 0, b"k", &body(json!({ "value": 1 })), T0, &mut run).unwrap_err();
        assert_eq!(e.status, Status::Unprocessable);
        let e = put_key(engine, 0, b"k", &body(json!({ "value": "v", "ttl": 1, "keep_ttl": true })), T0, &mut run);
        assert_eq!(e.unwrap_err().message, "keep_ttl cannot be combined with ttl or ttl_ms");
        assert_eq!(delete_key(b"k", &mut run), Ok(DeleteResult { deleted: true }));
        assert_eq!(delete_key(b"k", &mut run).unwrap_err().status, Status::NotFound);
        assert!(serde_json::from_value::<KeyWrite>(json!({ "value": "v", "extra": 1 })).is_err());
    }

    #[test]
    fn edits_of_every_type_are_one_command_each() {
        let mut t = TestEngine::default();
        let edit = |v: Json| serde_json::from_value::<KeyEdit>(v).unwrap();
        let TestEngine { engine, session, .. } = &mut t;
        let mut go = |key: &str, v: Json| {
            edit_key(engine, 0, key.as_bytes(), &edit(v), T0, |argv| engine.call(session, argv, T0))
        };
        let r = go("h", json!({ "op": "hash_set", "field": "f", "value": "1" })).unwrap();
        assert_eq!(json_of(&r.command), json!(["HSET", "h", "f", "1"]));
        assert_eq!(r.reply, json!({ "type": "int", "value": 1 }));
        assert_eq!(r.key.unwrap().value, json!({ "f": "1" }));
        go("h", json!({ "op": "hash_set", "field": { "base64": "/w==" }, "value": "2" })).unwrap();
        let r = go("h", json!({ "op": "hash_delete", "field": "f" })).unwrap();
        assert_eq!(r.key.unwrap().value, json!({ "\u{fffd}": "2" }), "a binary field shows lossily");
        go("l", json!({ "op": "list_push", "end": "right", "value": "b" })).unwrap();
        go("l", json!({ "op": "list_push", "end": "left", "value": "a" })).unwrap();
        go("l", json!({ "op": "list_push", "end": "right", "value": "a" })).unwrap();
        let r = go("l", json!({ "op": "list_set", "index": 1, "value": "B" })).unwrap();
        assert_eq!(r.key.unwrap().value, json!(["a", "B", "a"]));
        let e = go("l", json!({ "op": "list_set", "index": 9, "value": "x" })).unwrap_err();
        assert_eq!((e.status, e.message.as_str()), (Status::Unprocessable, "ERR index out of range"));
        let r = go("l", json!({ "op": "list_remove", "value": "a" })).unwrap();
        assert_eq!((r.reply, r.key.unwrap().value), (json!({ "type": "int", "value": 2 }), json!(["B"])));
        go("s", json!({ "op": "set_add", "member": "m" })).unwrap();
        let r = go("s", json!({ "op": "set_remove", "member": "m" })).unwrap();
        assert_eq!(r.key, None, "removing the last member removes the key");
        go("z", json!({ "op": "zset_add", "member": "m", "score": 1.5 })).unwrap();
        let r = go("z", json!({ "op": "zset_add", "member": "m", "score": "+inf" })).unwrap();
        assert_eq!(r.key.unwrap().value, json!([["m", "inf"]]));
        let e = go("z", json!({ "op": "zset_add", "member": "m", "score": "lots" })).unwrap_err();
        assert_eq!(e.message, "ERR value is not a valid float");
        let e = go("h", json!({ "op": "set_add", "member": "m" })).unwrap_err();
        assert!(e.message.starts_with("WRONGTYPE"), "{e:?}");
        go("z", json!({ "op": "zset_remove", "member": "m" })).unwrap();
        let e = go("z", json!({ "op": "zset_add", "member": "m", "score": [] })).unwrap_err();
        assert_eq!(e.code, "invalid_body");
        assert!(serde_json::from_value::<KeyEdit>(json!({ "op": "hash_set", "field": "f" })).is_err());
        assert!(serde_json::from_value::<KeyEdit>(json!({ "op": "set_add", "member": "m", "x": 1 })).is_err());
    }
}
