//! `vitrine-wasm`: the Vitrine engine for the browser playground, as one small JavaScript class,
//! [`Playground`]. Each method returns the same JSON body as its twin on the server's admin
//! HTTP API (see notes/wasm-contract.md): both are built by the engine's `inspect` module, so
//! the web app reads either backend with the same code and the same generated types.
//!
//! The engine has no clock: every method that can expire or evict keys takes `now_ms`, the
//! caller's `Date.now()`. A Redis error is an ordinary reply (`{"type":"error",...}`), never a
//! JavaScript exception; only what the HTTP twin refuses with a 4xx (a bad cursor, a refused
//! setting, a malformed body) throws, with the same message.
//!
//! Everything here also compiles natively (the `rlib`), which is how `examples/replay.rs` runs
//! the very same calls for the wasm-vs-native parity test (`tests/parity.test.mjs`).

#[cfg(not(target_arch = "wasm32"))]
pub mod replay;

use serde::Serialize;
use serde_json::{Map, Value as Json};
use vitrine_engine::inspect::bulk::{COUNT_BUDGET, STEP_BATCH};
use vitrine_engine::inspect::bytes_from_json;
use vitrine_engine::inspect::{
    self, BulkJob, BulkRequest, KeyEdit, KeyFilter, KeyQuery, KeyWrite, Refusal, SampleRing, HISTORY_SECONDS,
};
use vitrine_engine::HostFacts;
use vitrine_engine::{Config, Engine, Reply, Session};
use wasm_bindgen::prelude::*;

/// The tab's monotonic clock, `performance.now()` in µs, lent to the engine so commands are
/// timed (SLOWLOG, LATENCY, INFO commandstats). Natively (the parity replay) there is none,
/// and durations are 0. Also the tab's CSPRNG (`crypto.getRandomValues`) for ACL GENPASS.
#[cfg(target_arch = "wasm32")]
mod clock {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = performance, js_name = now)]
        fn performance_now() -> f64;
    }

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
        fn get_random_values(buf: &mut [u8]) -> Result<JsValue, JsValue>;
    }

    /// The browser's CSPRNG (`crypto.getRandomValues`), for ACL GENPASS.
    pub fn entropy(buf: &mut [u8]) -> bool {
        get_random_values(buf).is_ok()
    }

    pub struct PerformanceClock;

    impl vitrine_engine::Clock for PerformanceClock {
        fn now_us(&self) -> u64 {
            let ms = performance_now();
            if ms > 0.0 {
                (ms * 1000.0) as u64
            } else {
                0
            }
        }
    }
}

/// Bounds of one `fill`: keys, bytes per value, and bytes in all.
pub const FILL_MAX_KEYS: u32 = 100_000;
pub const FILL_MAX_VALUE: u32 = 1024 * 1024;
pub const FILL_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The engine, one client session, and what the playground adds around them.
#[wasm_bindgen]
pub struct Playground {
    engine: Engine,
    session: Session,
    /// The per-second samples `sample_json` takes (the server keeps the same ring).
    history: SampleRing,
    /// Number of the next key `fill` writes (`fill:000000`, `fill:000001`, ...).
    fill_next: u64,
    /// The bulk key job (one at a time in a tab), stepped by `bulk_step`, and the last id.
    bulk: Option<BulkJob>,
    bulk_ids: u64,
}

/// What one `bulk_step` did: the job after it, and the commands it ran (so the tab's session
/// can record them as lines).
#[derive(Debug, Serialize)]
pub struct BulkStepView {
    pub job: Option<BulkJob>,
    pub commands: Vec<Vec<inspect::Bytes>>,
}

/// What `export_keys` made: the file (as text when it is UTF-8, as a JSON file is) and its
/// name, and what `X-Vitrine-Keys`/`X-Vitrine-Missing` say on the server.
#[derive(Debug, Serialize)]
pub struct ExportView {
    pub filename: String,
    pub content_type: &'static str,
    pub keys: usize,
    pub missing: usize,
    pub file: inspect::Bytes,
}

/// What `import_keys` did: the report, and the RESTOREs it ran (recorded as session lines).
#[derive(Debug, Serialize)]
pub struct ImportView {
    pub report: inspect::ImportReport,
    pub commands: Vec<Vec<inspect::Bytes>>,
}

/// What `fill` did.
#[derive(Debug, Serialize)]
pub struct FillResult {
    pub requested: u32,
    pub written: u32,
    /// The Redis error that stopped the fill (OOM under noeviction), or null.
    pub error: Option<String>,
    pub evicted: u64,
    pub keys: u64,
    pub used_memory: u64,
    pub maxmemory: u64,
}

/// Milliseconds from JavaScript (`Date.now()`, a double) as the engine's unix ms: NaN and
/// negative times are 0, and nothing is later than `Number.MAX_SAFE_INTEGER`, so the engine's
/// time arithmetic cannot overflow whatever a caller passes.
fn ms(now_ms: f64) -> u64 {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    if now_ms > 0.0 {
        now_ms.min(MAX_SAFE_INTEGER) as u64
    } else {
        0
    }
}

/// A view as JSON text. The views are plain data, so encoding cannot fail.
fn to_json<T: Serialize>(view: &T) -> String {
    serde_json::to_string(view).unwrap_or_default()
}

/// A refused request as the exception the playground throws: the API error's message.
fn refused(r: Refusal) -> String {
    r.message
}

/// A refused request as JSON `{"error": {"code", "message"}}`, so the web's `wasmError` gives
/// the status the API would (a 409 conflict, a 422 invalid file).
fn refused_coded(r: Refusal) -> String {
    serde_json::json!({ "error": { "code": r.code, "message": r.message } }).to_string()
}

/// A key in its JSON form (`"text"` or `{"base64": "..."}`), as JSON text.
fn key_bytes(key_json: &str) -> Result<Vec<u8>, String> {
    serde_json::from_str::<Json>(key_json)
        .ok()
        .and_then(|v| bytes_from_json(&v))
        .filter(|k| !k.is_empty())
        .ok_or_else(|| "key must be a JSON string or {\"base64\": \"...\"}".to_string())
}

#[wasm_bindgen]
impl Playground {
    /// A new, empty cache with the server's defaults (no memory limit, `noeviction`).
    /// `seed` keys the engine's hashing and sampling; pass something random
    /// (`Math.random() * 2 ** 32`), or a constant for a reproducible run.
    #[wasm_bindgen(constructor)]
    pub fn new(now_ms: f64, seed: f64) -> Playground {
        let now = ms(now_ms);
        let seed = if seed.is_finite() { seed.abs() as u64 } else { 0 };
        let engine = Engine::new(Config::default(), now, seed);
        engine.set_host_facts(HostFacts { threads: 1, executable: "vitrine-wasm".into(), ..HostFacts::default() });
        #[cfg(target_arch = "wasm32")]
        engine.set_clock(std::sync::Arc::new(clock::PerformanceClock));
        #[cfg(target_arch = "wasm32")]
        engine.set_entropy(clock::entropy);
        let session = engine.new_session("browser:0", "playground:0", now);
        Playground { engine, session, history: SampleRing::new(HISTORY_SECONDS), fill_next: 0, bulk: None, bulk_ids: 0 }
    }

    /// The engine's version.
    pub fn version() -> String {
        vitrine_engine::VERSION.to_string()
    }

    /// Runs one line as typed into redis-cli, as `POST /api/console` does
    /// (`inspect::ConsoleReply`): `{"kind":"reply","argv","reply","text","resp"}`, or
    /// `{"kind":"empty"|"invalid"|"help"|"clear","text"}`.
    pub fn console(&mut self, line: &str, now_ms: f64) -> String {
        let now = ms(now_ms);
        let reply = inspect::console_line_with(line, |argv| {
            let reply = self.exec(argv, now);
            (reply, self.session.resp3, self.session.db)
        });
        to_json(&reply)
    }

    /// Runs one line in database `db`, as `POST /api/console` with `"db"` does (the key
    /// panel's EXPIRE and PERSIST): the session's own database is left as it was, so no
    /// SELECT is needed around it, and the reply says `db`. Throws when there is no such
    /// database.
    pub fn console_in(&mut self, line: &str, now_ms: f64, db: u32) -> Result<String, String> {
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        let now = ms(now_ms);
        let engine = &self.engine;
        let session = &mut self.session;
        let reply = inspect::console_line_with(line, |argv| {
            let reply = inspect::call_in(engine, session, db, argv, now);
            (reply, session.resp3, db)
        });
        Ok(to_json(&reply))
    }

    /// Runs one already-split command, as `POST /api/command` does, and returns its tagged
    /// JSON reply (`{"type":"status","value":"OK"}`).
    pub fn call(&mut self, argv: Vec<String>, now_ms: f64) -> String {
        self.exec(&argv, ms(now_ms)).to_json().to_string()
    }

    /// `GET /api/stats` (the engine's `StatsSnapshot`).
    pub fn stats_json(&self, now_ms: f64) -> String {
        to_json(&inspect::snapshot(&self.engine, ms(now_ms)))
    }

    /// Takes a per-second sample now (rates against the previous one), keeps it in this
    /// playground's history, and returns it: one `sample` event of `GET /api/stats/stream`.
    pub fn sample_json(&mut self, now_ms: f64) -> String {
        let snapshot = inspect::snapshot(&self.engine, ms(now_ms));
        to_json(&*self.history.push(&snapshot))
    }

    /// `GET /api/stats/history?seconds=N` (default 900, at most 3600). Throws outside that.
    pub fn history_json(&self, seconds: Option<u32>) -> Result<String, String> {
        inspect::history(&self.history, seconds.map(|s| s as usize)).map(|v| to_json(&v)).map_err(refused)
    }

    /// One SCAN step of database `db`, as `GET /api/keys?match=&type=&cursor=&count=&db=`:
    /// `{"cursor","done","keys":[{"key","type","ttl_ms","size","idle_ms","freq"}]}`. Empty
    /// `pattern`/`type_name`/`cursor` mean all, any, the start. Throws the API's 400 message.
    pub fn keys_json(
        &self,
        pattern: &str,
        type_name: &str,
        cursor: &str,
        count: u32,
        now_ms: f64,
        db: u32,
    ) -> Result<String, String> {
        let query = KeyQuery {
            pattern: Some(pattern.to_string()),
            type_name: Some(type_name.to_string()),
            cursor: Some(cursor.to_string()),
            count: Some(count as usize),
            db: Some(db as usize),
        };
        inspect::key_page(&self.engine, &query, ms(now_ms)).map(|p| to_json(&p)).map_err(refused)
    }

    /// `GET /api/keys/{key}?db=`: everything about one key, or `null` when there is none (the
    /// API's 404). `key_json` is the key's JSON form: `"text"` or `{"base64": "..."}`.
    pub fn key_json(&self, key_json: &str, now_ms: f64, db: u32) -> Result<String, String> {
        let key = key_bytes(key_json)?;
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        Ok(match inspect::key_detail(&self.engine, db, &key, ms(now_ms)) {
            Some(detail) => to_json(&detail),
            None => "null".to_string(),
        })
    }

    /// `GET /api/stream-entries/{key}?db=&order=&cursor=&count=`: one page of a stream's
    /// entries (`{"length", "first_id", "last_id", ..., "entries", "next_cursor"}`). Throws
    /// the API's message (no such key, not a stream, a bad query).
    pub fn stream_entries_json(
        &self,
        key_json: &str,
        order: &str,
        cursor: &str,
        count: u32,
        now_ms: f64,
        db: u32,
    ) -> Result<String, String> {
        let key = key_bytes(key_json)?;
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        let q = inspect::StreamQuery {
            db: Some(db),
            order: Some(order.to_string()),
            cursor: Some(cursor.to_string()),
            count: Some(count as usize),
        };
        inspect::stream_page(&self.engine, db, &key, &q, ms(now_ms)).map(|p| to_json(&p)).map_err(refused)
    }

    /// `GET /api/geo-points/{key}?db=&limit=`: a sorted set's members as points
    /// (`{"length", "is_geo", "points", "truncated"}`). Throws the API's message (no such key,
    /// not a sorted set, a bad limit).
    pub fn geo_points_json(&self, key_json: &str, limit: u32, now_ms: f64, db: u32) -> Result<String, String> {
        let key = key_bytes(key_json)?;
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        inspect::geo_points(&self.engine, db, &key, Some(limit as usize), ms(now_ms))
            .map(|p| to_json(&p))
            .map_err(refused)
    }

    /// `GET /api/string-bits/{key}?db=&offset=&count=`: a window of a string's bytes to show
    /// as bits (`{"length", "bitcount", "offset", "bytes", "window_bitcount", "next_offset"}`).
    /// Throws the API's message (no such key, not a string, a bad count).
    pub fn string_bits_json(
        &self,
        key_json: &str,
        offset: f64,
        count: u32,
        now_ms: f64,
        db: u32,
    ) -> Result<String, String> {
        let key = key_bytes(key_json)?;
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        let q = inspect::BitsQuery { db: Some(db), offset: Some(offset.max(0.0) as u64), count: Some(count as usize) };
        inspect::string_bits(&self.engine, db, &key, &q, ms(now_ms)).map(|p| to_json(&p)).map_err(refused)
    }

    /// `PUT /api/keys/{key}` with the same body (`{"value", "ttl"?, "ttl_ms"?, "nx"?,
    /// "keep_ttl"?}`); answers the key as `key_json`. Throws where the API answers 4xx/507.
    pub fn put_key(&mut self, key_json: &str, body_json: &str, now_ms: f64, db: u32) -> Result<String, String> {
        let key = key_bytes(key_json)?;
        let body: KeyWrite = serde_json::from_str(body_json).map_err(|e| format!("invalid body: {e}"))?;
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        let now = ms(now_ms);
        let engine = &self.engine;
        let session = &mut self.session;
        inspect::put_key(engine, db, &key, &body, now, |argv| inspect::call_in(engine, session, db, argv, now))
            .map(|d| to_json(&d))
            .map_err(refused)
    }

    /// `DELETE /api/keys/{key}`: `{"deleted":true}`; throws when there was no such key.
    pub fn delete_key(&mut self, key_json: &str, now_ms: f64, db: u32) -> Result<String, String> {
        let key = key_bytes(key_json)?;
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        let now = ms(now_ms);
        let engine = &self.engine;
        let session = &mut self.session;
        inspect::delete_key(&key, |argv| inspect::call_in(engine, session, db, argv, now))
            .map(|d| to_json(&d))
            .map_err(refused)
    }

    /// `PATCH /api/keys/{key}` with the same body (`{"op": "hash_set", ...}`): one command
    /// (HSET, LPUSH, ZADD...), answered as `{"command","reply","key"}`; a Redis error
    /// (WRONGTYPE...) throws its text, as the API's 422 says it.
    pub fn edit_key(&mut self, key_json: &str, body_json: &str, now_ms: f64, db: u32) -> Result<String, String> {
        let key = key_bytes(key_json)?;
        let edit: KeyEdit = serde_json::from_str(body_json).map_err(|e| format!("invalid body: {e}"))?;
        let db = inspect::database(&self.engine, Some(db as usize)).map_err(refused)?;
        let now = ms(now_ms);
        let engine = &self.engine;
        let session = &mut self.session;
        inspect::edit_key(engine, db, &key, &edit, now, |argv| inspect::call_in(engine, session, db, argv, now))
            .map(|r| to_json(&r))
            .map_err(refused)
    }

    /// `GET /api/key-count?match=&type=&db=`: how many keys match, exact or estimated.
    pub fn count_keys(&self, pattern: &str, type_name: &str, now_ms: f64, db: u32) -> Result<String, String> {
        let filter = KeyFilter {
            pattern: Some(pattern.to_string()),
            type_name: Some(type_name.to_string()),
            db: Some(db as usize),
        };
        inspect::count_keys(&self.engine, &filter, ms(now_ms), COUNT_BUDGET).map(|c| to_json(&c)).map_err(refused)
    }

    /// `POST /api/key-jobs` with the same body: counts what matches and makes it this tab's
    /// bulk job (replacing a finished one), to be advanced by `bulk_step`. Throws when the
    /// body is refused or a job is still running.
    pub fn bulk_start(&mut self, body_json: &str, now_ms: f64) -> Result<String, String> {
        if self.bulk.as_ref().is_some_and(BulkJob::is_running) {
            return Err("a bulk job is running; wait for it or cancel it".to_string());
        }
        let req: BulkRequest = serde_json::from_str(body_json).map_err(|e| format!("invalid body: {e}"))?;
        let job =
            inspect::bulk_job(&self.engine, self.bulk_ids + 1, &req, ms(now_ms), COUNT_BUDGET).map_err(refused)?;
        self.bulk_ids += 1;
        let shown = to_json(&job);
        self.bulk = Some(job);
        Ok(shown)
    }

    /// Advances the bulk job by up to `batches` SCAN batches (the caller yields to the page
    /// between calls, as the server's task yields between batches): `{"job","commands"}`.
    pub fn bulk_step(&mut self, now_ms: f64, batches: u32) -> String {
        let now = ms(now_ms);
        let mut commands = Vec::new();
        if let Some(job) = self.bulk.as_mut() {
            let (engine, session, db) = (&self.engine, &mut self.session, job.db);
            for _ in 0..batches.max(1) {
                if !job.is_running() {
                    break;
                }
                inspect::bulk_step(engine, job, now, STEP_BATCH, |argv| {
                    commands.push(argv.iter().map(|a| inspect::Bytes(a.clone())).collect());
                    inspect::call_in(engine, session, db, argv, now)
                });
                if job.paused {
                    break; // CLIENT PAUSE: the caller tries again later
                }
            }
        }
        to_json(&BulkStepView { job: self.bulk.clone(), commands })
    }

    /// `DELETE /api/key-jobs/{id}`: stops the job before its next batch; answers it (null
    /// when there is none).
    pub fn bulk_cancel(&mut self, now_ms: f64) -> String {
        if let Some(job) = self.bulk.as_mut() {
            job.cancel(ms(now_ms));
        }
        to_json(&self.bulk)
    }

    /// `POST /api/key-export` with the same body (`{"db", "keys"|"match"/"type", "format"}`):
    /// the file, its name and counts (see `ExportView`). Throws where the API answers 4xx.
    pub fn export_keys(&mut self, body_json: &str, now_ms: f64) -> Result<String, String> {
        let req: inspect::ExportRequest = serde_json::from_str(body_json).map_err(|e| format!("invalid body: {e}"))?;
        let now = ms(now_ms);
        let file = inspect::export_keys(&self.engine, &req, now).map_err(refused_coded)?;
        Ok(to_json(&ExportView {
            filename: file.filename,
            content_type: file.format.content_type(),
            keys: file.keys,
            missing: file.missing,
            file: inspect::Bytes(file.bytes),
        }))
    }

    /// `POST /api/key-import?db=&mode=` with the file's bytes: `{"report","commands"}`.
    /// `mode` is `skip`, `replace` or `fail`; `db` < 0 imports into the file's own database.
    /// Throws where the API answers 4xx (a file that is not one, `fail` with a key there).
    pub fn import_keys(&mut self, file: &[u8], db: i32, mode: &str, now_ms: f64) -> Result<String, String> {
        let mode = serde_json::from_value(Json::String(mode.to_string()))
            .map_err(|_| "mode must be skip, replace or fail".to_string())?;
        let q = inspect::ImportQuery { db: usize::try_from(db).ok(), mode: Some(mode) };
        let now = ms(now_ms);
        let (engine, session) = (&self.engine, &mut self.session);
        let mut commands = Vec::new();
        let report = inspect::import_keys(engine, &q, file, now, |db, argv| {
            let reply = inspect::call_in(engine, session, db, argv, now);
            if !matches!(reply, Reply::Error(_)) {
                commands.push(argv.iter().map(|a| inspect::Bytes(a.clone())).collect());
            }
            reply
        })
        .map_err(refused_coded)?;
        Ok(to_json(&ImportView { report, commands }))
    }

    /// `GET /api/evictions/recent`: the latest evictions and expirations, newest first, with
    /// the totals and misses by cause.
    pub fn evictions_json(&self, now_ms: f64) -> String {
        to_json(&inspect::evictions(&self.engine, ms(now_ms)))
    }

    /// `GET /api/memory?db=N`: the memory ledger (by prefix, type and TTL), the biggest keys
    /// and remaining TTLs, of database `db` or of every database. Throws the API's 400 message.
    pub fn memory_json(&self, now_ms: f64, db: Option<u32>) -> Result<String, String> {
        inspect::memory(&self.engine, db.map(|d| d as usize), ms(now_ms)).map(|v| to_json(&v)).map_err(refused)
    }

    /// `GET /api/evictions/what-if`: the miss-ratio curve (the hit ratio at other memory
    /// limits) and the ghost record's horizon.
    pub fn what_if_json(&self, now_ms: f64) -> String {
        to_json(&inspect::what_if(&self.engine, ms(now_ms)))
    }

    /// `GET /api/slowlog?count=N`: the newest `count` slow log entries (all when absent).
    pub fn slowlog_json(&self, count: Option<u32>) -> String {
        to_json(&inspect::slowlog(&self.engine, count.map(|c| c as usize)))
    }

    /// `DELETE /api/slowlog`: empties the slow log, answering the emptied view.
    pub fn reset_slowlog(&self) -> String {
        inspect::slowlog_reset(&self.engine);
        self.slowlog_json(None)
    }

    /// `GET /api/latency`: per-command percentiles and histograms, and the latency events.
    pub fn latency_json(&self) -> String {
        to_json(&inspect::latency(&self.engine))
    }

    /// `GET /api/compat`: the compatibility radar (refused commands and options per client
    /// library).
    pub fn compat_json(&self) -> String {
        to_json(&inspect::compat(&self.engine))
    }

    /// `DELETE /api/compat`: forgets the radar's rows, answering the emptied view.
    pub fn reset_compat(&self) -> String {
        inspect::compat_reset(&self.engine);
        self.compat_json()
    }

    /// `GET /api/hotkeys?count=N`: the most accessed keys over the sliding window.
    pub fn hotkeys_json(&self, count: Option<u32>, now_ms: f64) -> String {
        to_json(&inspect::hot_keys(&self.engine, count.map(|c| c as usize), ms(now_ms)))
    }

    /// `DELETE /api/hotkeys`: empties the sketches, answering the emptied view.
    pub fn reset_hotkeys(&self, now_ms: f64) -> String {
        inspect::hot_keys_reset(&self.engine);
        self.hotkeys_json(None, now_ms)
    }

    /// `GET /api/scripts`: the cached scripts (none here: the playground has no Lua VM, and
    /// the view says so).
    pub fn scripts_json(&self) -> String {
        to_json(&inspect::scripts(&self.engine))
    }

    /// `GET /api/scripts/{id}`: one script; throws the refusal's message (scripting is not
    /// available here).
    pub fn script_json(&self, id: &str) -> Result<String, String> {
        inspect::script(&self.engine, id).map(|d| to_json(&d)).map_err(refused)
    }

    /// `GET /api/clients`: the connections (the playground's own session is the one).
    pub fn clients_json(&self, now_ms: f64) -> String {
        to_json(&inspect::clients(&self.engine, ms(now_ms)))
    }

    /// `DELETE /api/clients/{id}`: closes that client. Closing the playground's own session
    /// opens a new one in its place, as a client that reconnects.
    pub fn kill_client(&mut self, id: f64, now_ms: f64) -> Result<String, String> {
        let id = ms(id);
        if !inspect::kill_client(&self.engine, id) {
            return Err(format!("no client with id {id}"));
        }
        if id == self.session.id() {
            self.engine.end_session(&self.session);
            self.session = self.engine.new_session("browser:0", "playground:0", ms(now_ms));
        }
        Ok(r#"{"killed":true}"#.into())
    }

    /// `GET /api/monitor?since=N`: the commands run after event `since` (the engine keeps the
    /// latest while the page polls).
    pub fn monitor_json(&self, since: f64, now_ms: f64) -> String {
        to_json(&inspect::monitor(&self.engine, ms(since), ms(now_ms)))
    }

    /// `GET /api/events/keyspace?since=N`: the keyspace events published after event `since`,
    /// with `notify-keyspace-events`.
    pub fn keyspace_events_json(&self, since: f64) -> String {
        to_json(&inspect::keyspace_events(&self.engine, ms(since)))
    }

    /// `GET /api/acl/users`: the ACL users (changed with `ACL SETUSER` on the console path;
    /// the person at the playground is always its admin).
    pub fn acl_users_json(&self) -> String {
        to_json(&inspect::acl_users(&self.engine))
    }

    /// `GET /api/acl/log?count=N`: the newest `count` ACL LOG entries, newest first.
    pub fn acl_log_json(&self, count: u32) -> String {
        to_json(&inspect::acl_log(&self.engine, count as usize))
    }

    /// `POST /api/acl/users/{name}/preview`: `{"line": ...}`, the ACL LIST line `rules` would
    /// give the user, stored nowhere; throws SETUSER's error for a bad rule.
    pub fn acl_preview(&self, name: &str, rules: &str) -> Result<String, String> {
        let line = inspect::acl::acl_preview(&self.engine, name.as_bytes(), rules)?;
        Ok(serde_json::json!({ "line": line }).to_string())
    }

    /// `GET /api/commands`: the command table, for help and autocomplete.
    pub fn commands_json() -> String {
        inspect::commands_json().to_string()
    }

    /// `GET /api/config`: every setting and which can be changed.
    pub fn config_json(&self) -> String {
        to_json(&inspect::config_view(&self.engine))
    }

    /// `PATCH /api/config` with `{"maxmemory": "64mb", ...}`: all changes at once or none;
    /// answers as `config_json`. Throws the API's 422 message when refused.
    pub fn patch_config(&mut self, body_json: &str, now_ms: f64) -> Result<String, String> {
        let body: Map<String, Json> = serde_json::from_str(body_json).map_err(|e| format!("invalid body: {e}"))?;
        let now = ms(now_ms);
        let engine = &self.engine;
        let session = &mut self.session;
        inspect::patch_config(engine, &body, |argv| engine.call(session, argv, now))
            .map(|v| to_json(&v))
            .map_err(refused)
    }

    /// Active expiry, for a `setInterval` (the server runs it `hz` times a second): sweeps
    /// while many of the sampled keys were stale, at most 16 rounds. Returns how many keys
    /// expired. Also samples the ops/sec rate that `stats_json` reports.
    pub fn expiry_cycle(&self, now_ms: f64) -> u32 {
        expiry_cycle(&self.engine, ms(now_ms)) as u32
    }

    /// Changes a setting as `CONFIG SET name value` does (a lower `maxmemory` evicts at once).
    /// Throws the Redis error text when the setting is refused.
    pub fn set_config(&mut self, name: &str, value: &str, now_ms: f64) -> Result<(), String> {
        match self.exec(&["CONFIG", "SET", name, value], ms(now_ms)) {
            Reply::Error(text) => Err(text),
            _ => Ok(()),
        }
    }

    /// Writes `count` new keys (`fill:000000`, `fill:000001`, ...) of `value_size` bytes each
    /// with `SET`, so a person can watch eviction at work. Stops at the first error (OOM under
    /// `noeviction`). Returns `{"requested","written","error","evicted","keys","used_memory",
    /// "maxmemory"}`, `error` being the Redis error text or null. Throws when asked for more
    /// than 100000 keys, values over 1 MiB, or over 64 MiB in all.
    pub fn fill(&mut self, count: u32, value_size: u32, now_ms: f64) -> Result<String, String> {
        if count > FILL_MAX_KEYS || value_size > FILL_MAX_VALUE || count as u64 * value_size as u64 > FILL_MAX_BYTES {
            return Err(format!(
                "fill writes at most {FILL_MAX_KEYS} keys, {FILL_MAX_VALUE} bytes per value and {FILL_MAX_BYTES} bytes in all"
            ));
        }
        let now = ms(now_ms);
        let evicted_before = self.engine.snapshot(now).evicted_keys;
        let value = fill_value(value_size as usize);
        let mut written = 0u32;
        let mut error = None;
        for _ in 0..count {
            let key = fill_key(self.fill_next);
            self.fill_next += 1;
            match self.exec(&[&b"SET"[..], key.as_bytes(), &value], now) {
                Reply::Error(text) => {
                    error = Some(text);
                    break;
                }
                _ => written += 1,
            }
        }
        let snap = self.engine.snapshot(now);
        Ok(to_json(&FillResult {
            requested: count,
            written,
            error,
            evicted: snap.evicted_keys - evicted_before,
            keys: snap.keys,
            used_memory: snap.used_memory,
            maxmemory: snap.maxmemory,
        }))
    }
}

impl Playground {
    /// Runs a command in this playground's session.
    pub fn exec<A: AsRef<[u8]>>(&mut self, argv: &[A], now: u64) -> Reply {
        let reply = self.engine.call(&mut self.session, argv, now);
        // QUIT asks the host to close the connection; a playground has none to close.
        self.session.closing = false;
        reply
    }

    /// The engine underneath (for native tests).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

/// One active-expiry cycle as the playground runs it (bounded by rounds, not time, so a
/// replay is deterministic). Returns the keys expired.
pub fn expiry_cycle(engine: &Engine, now: u64) -> usize {
    inspect::expiry_cycle(engine, now, inspect::events::SWEEP_MAX_ROUNDS, || true).expired
}

/// The name of the `n`th key `fill` writes.
pub fn fill_key(n: u64) -> String {
    format!("fill:{n:06}")
}

/// The value `fill` writes: printable, so it reads well in the console.
pub fn fill_value(size: usize) -> Vec<u8> {
    b"0123456789abcdefghijklmnopqrstuvwxyz".iter().copied().cycle().take(size).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const T0: f64 = 1_700_000_000_000.0;

    fn line(pg: &mut Playground, text: &str) -> Json {
        serde_json::from_str(&pg.console(text, T0)).unwrap()
    }

    #[test]
    fn lines_are_split_run_and_printed_as_redis_cli() {
        let mut pg = Playground::new(T0, 1.0);
        let out = line(&mut pg, r#"SET greeting "hello world""#);
        assert_eq!(out["argv"], json!(["SET", "greeting", "hello world"]));
        assert_eq!(out["text"], "OK\n");
        let out = line(&mut pg, "MGET greeting nope");
        assert_eq!(out["text"], "1) \"hello world\"\n2) (nil)\n");
        assert_eq!(out["resp"], "*2\r\n$11\r\nhello world\r\n$-1\r\n");
        assert_eq!(out["reply"]["type"], "array");
        // Binary replies stay binary-safe in JSON.
        line(&mut pg, r#"SET bin "\xff""#);
        let out = line(&mut pg, "GET bin");
        assert_eq!(out["text"], "\"\\xff\"\n");
        assert_eq!(out["resp"], json!({ "base64": "JDENCv8NCg==" }));
    }

    #[test]
    fn lines_answered_without_the_engine() {
        let mut pg = Playground::new(T0, 1.0);
        assert_eq!(line(&mut pg, "   "), json!({ "kind": "empty", "text": "" }));
        assert_eq!(line(&mut pg, "GET 'k"), json!({ "kind": "invalid", "text": "Invalid argument(s)\n" }));
        assert_eq!(line(&mut pg, "clear"), json!({ "kind": "clear", "text": "" }));
        assert_eq!(line(&mut pg, "HELP get")["kind"], "help");
        assert_eq!(line(&mut pg, "? get")["kind"], "help");
        assert_eq!(pg.engine().snapshot(ms(T0)).commands_processed, 0);
    }

    #[test]
    fn protocol_follows_hello_and_quit_keeps_the_session() {
        let mut pg = Playground::new(T0, 1.0);
        assert_eq!(
            line(&mut pg, "HELLO 3")["text"].as_str().unwrap().lines().next(),
            Some("1# \"server\" => \"redis\"")
        );
        assert_eq!(line(&mut pg, "GET nope")["resp"], "_\r\n");
        assert_eq!(line(&mut pg, "QUIT")["text"], "OK\n");
        assert_eq!(line(&mut pg, "PING")["text"], "PONG\n");
    }

    #[test]
    fn console_in_runs_in_a_database_and_leaves_the_session_where_it_was() {
        let mut pg = Playground::new(T0, 1.0);
        assert_eq!(line(&mut pg, "SELECT 2")["db"], 2);
        let out: Json = serde_json::from_str(&pg.console_in("SET k one", T0, 1).unwrap()).unwrap();
        assert_eq!(
            (out["kind"].as_str(), out["db"].as_u64(), out["text"].as_str()),
            (Some("reply"), Some(1), Some("OK\n"))
        );
        let out: Json = serde_json::from_str(&pg.console_in("EXPIRE k 100", T0, 1).unwrap()).unwrap();
        assert_eq!(out["text"], "(integer) 1\n");
        // The session is still in database 2, where there is no k.
        let out = line(&mut pg, "EXISTS k");
        assert_eq!((out["db"].as_u64(), out["text"].as_str()), (Some(2), Some("(integer) 0\n")));
        assert_eq!(line(&mut pg, "SELECT 1")["text"], "OK\n");
        assert_eq!(line(&mut pg, "TTL k")["text"], "(integer) 100\n");
        // A SELECT inside the line does not move the session either.
        let out: Json = serde_json::from_str(&pg.console_in("SELECT 5", T0, 3).unwrap()).unwrap();
        assert_eq!(out["db"], 3);
        assert_eq!(line(&mut pg, "PING")["db"], 1);
        assert!(pg.console_in("PING", T0, 99).is_err());
    }

    #[test]
    fn errors_are_replies() {
        let mut pg = Playground::new(T0, 1.0);
        let out = line(&mut pg, "NOSUCH x");
        assert_eq!(out["kind"], "reply");
        assert_eq!(out["text"], "(error) ERR unknown command 'NOSUCH', with args beginning with: 'x' \n");
        assert_eq!(pg.call(vec![], T0), r#"{"type":"error","value":"ERR empty command"}"#);
        assert_eq!(
            pg.call(vec!["INCR".into()], T0),
            r#"{"type":"error","value":"ERR wrong number of arguments for 'incr' command"}"#
        );
    }

    #[test]
    fn clients_kill_and_monitor() {
        let mut pg = Playground::new(T0, 1.0);
        let view: Json = serde_json::from_str(&pg.clients_json(T0)).unwrap();
        let id = view["clients"][0]["id"].as_f64().unwrap();
        assert_eq!(view["clients"].as_array().unwrap().len(), 1);
        assert_eq!(serde_json::from_str::<Json>(&pg.monitor_json(0.0, T0)).unwrap()["events"], serde_json::json!([]));
        line(&mut pg, "SET k v");
        let mon: Json = serde_json::from_str(&pg.monitor_json(0.0, T0)).unwrap();
        assert_eq!(mon["events"][0]["command"], "set");
        assert_eq!(pg.kill_client(id, T0).unwrap(), r#"{"killed":true}"#);
        let view: Json = serde_json::from_str(&pg.clients_json(T0)).unwrap();
        assert_ne!(view["clients"][0]["id"].as_f64().unwrap(), id, "a new session took its place");
        assert_eq!(line(&mut pg, "GET k")["text"], "\"v\"\n");
        assert!(pg.kill_client(id, T0).is_err());
    }

    #[test]
    fn acl_users_log_and_preview_as_the_api_answers_them() {
        let mut pg = Playground::new(T0, 1.0);
        line(&mut pg, "ACL SETUSER reader on >pw ~* +@read");
        let users: Json = serde_json::from_str(&pg.acl_users_json()).unwrap();
        assert_eq!(users[1]["name"], "reader");
        assert_eq!(users[1]["passwords"], 1);
        assert!(line(&mut pg, "AUTH reader nope")["text"].as_str().unwrap().contains("WRONGPASS"));
        let log: Json = serde_json::from_str(&pg.acl_log_json(10)).unwrap();
        assert_eq!(log[0]["reason"], "auth");
        assert_eq!(log[0]["username"], "reader");
        let preview: Json = serde_json::from_str(&pg.acl_preview("reader", "off").unwrap()).unwrap();
        assert!(preview["line"].as_str().unwrap().starts_with("user reader off "));
        assert!(pg.acl_preview("reader", "+nosuch").unwrap_err().starts_with("ERR Error in ACL SETUSER"));
    }

    #[test]
    fn memory_ledger_matches_the_data_part_of_used_memory() {
        let mut pg = Playground::new(T0, 1.0);
        pg.fill(300, 50, T0).unwrap();
        line(
            &mut pg,
            "SET big:one xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        );
        let m: Json = serde_json::from_str(&pg.memory_json(T0, None).unwrap()).unwrap();
        let stats: Json = serde_json::from_str(&pg.stats_json(T0)).unwrap();
        assert_eq!(m["dataset_bytes"], stats["used_memory"]);
        assert_eq!(m["keys"]["keys"], 301);
        assert_eq!(m["prefixes"][0]["name"], "fill:");
        assert_eq!(m["prefixes"][0]["keys"], 300);
        assert_eq!(m["big_keys"][0]["key"], "big:one");
        assert!(pg.memory_json(T0, Some(99)).is_err());
    }

    #[test]
    fn settings_and_fill_evict() {
        let mut pg = Playground::new(T0, 1.0);
        pg.set_config("maxmemory", "64kb", T0).unwrap();
        pg.set_config("maxmemory-policy", "allkeys-lru", T0).unwrap();
        assert!(pg.set_config("maxmemory-policy", "nope", T0).unwrap_err().starts_with("ERR CONFIG SET failed"));
        let out: Json = serde_json::from_str(&pg.fill(1000, 100, T0).unwrap()).unwrap();
        assert_eq!(out["written"], 1000);
        assert!(out["evicted"].as_u64().unwrap() > 500, "{out}");
        assert!(out["used_memory"].as_u64().unwrap() <= 65536);
        let events: Json = serde_json::from_str(&pg.evictions_json(T0)).unwrap();
        assert_eq!(events["events"][0]["kind"], "evicted");
        assert_eq!(events["policy"], "allkeys-lru");
        // Further fills write new keys.
        let out: Json = serde_json::from_str(&pg.fill(1, 10, T0).unwrap()).unwrap();
        assert_eq!(out["written"], 1);
        assert_eq!(line(&mut pg, "EXISTS fill:001000")["text"], "(integer) 1\n");
        // Under noeviction a full cache refuses, and fill says why.
        pg.set_config("maxmemory-policy", "noeviction", T0).unwrap();
        let out: Json = serde_json::from_str(&pg.fill(100, 1000, T0).unwrap()).unwrap();
        assert_eq!(out["written"], 0);
        assert_eq!(out["error"], "OOM command not allowed when used memory > 'maxmemory'.");
        assert!(pg.fill(FILL_MAX_KEYS + 1, 1, T0).is_err());
        assert!(pg.fill(100, FILL_MAX_VALUE + 1, T0).is_err());
        assert!(pg.fill(100_000, 1024, T0).is_err());
    }

    #[test]
    fn key_listings() {
        let mut pg = Playground::new(T0, 1.0);
        for i in 0..30 {
            line(&mut pg, &format!("SET user:{i} v"));
        }
        line(&mut pg, "SET other v PX 1500");
        let page = |pg: &Playground, pattern: &str, count: u32, now: f64| -> Json {
            serde_json::from_str(&pg.keys_json(pattern, "", "", count, now, 0).unwrap()).unwrap()
        };
        let all = page(&pg, "*", 1000, T0 + 500.0);
        assert_eq!(all["keys"].as_array().unwrap().len(), 31);
        assert_eq!(all["done"], true);
        let other = all["keys"].as_array().unwrap().iter().find(|k| k["key"] == "other").unwrap();
        assert_eq!(other["ttl_ms"], 1000);
        assert_eq!(other["type"], "string");
        // Paging through keys_json sees every key once.
        let (mut cursor, mut seen) = ("0".to_string(), Vec::new());
        loop {
            let page: Json = serde_json::from_str(&pg.keys_json("user:*", "", &cursor, 7, T0, 0).unwrap()).unwrap();
            seen.extend(page["keys"].as_array().unwrap().iter().map(|k| k["key"].as_str().unwrap().to_string()));
            if page["done"] == true {
                break;
            }
            cursor = page["cursor"].as_str().unwrap().to_string();
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 30);
        assert_eq!(
            pg.keys_json("*", "", "nope", 10, T0, 0).unwrap_err(),
            "cursor must be a cursor returned by this endpoint"
        );
        assert_eq!(pg.keys_json("*", "", "", 0, T0, 0).unwrap_err(), "count must be between 1 and 10000");
        let none: Json = serde_json::from_str(&pg.keys_json("*", "hash", "0", 1000, T0, 0).unwrap()).unwrap();
        assert_eq!(none["keys"], json!([]));
        // Expired keys are not listed, and a sweep collects them.
        assert_eq!(pg.expiry_cycle(T0 + 2000.0), 1);
        let all = page(&pg, "", 1000, T0 + 2000.0);
        assert_eq!(all["keys"].as_array().unwrap().len(), 30);
    }

    #[test]
    fn odd_clock_values_do_not_panic() {
        let mut pg = Playground::new(f64::NAN, f64::INFINITY);
        assert_eq!(line(&mut pg, "PING")["text"], "PONG\n");
        assert!(pg.console("SET k v EX 1", -5.0).contains("OK"));
        assert_eq!(pg.expiry_cycle(f64::MAX), 1);
    }

    #[test]
    fn keys_are_read_written_and_deleted_as_the_api_does() {
        let mut pg = Playground::new(T0, 1.0);
        let put: Json =
            serde_json::from_str(&pg.put_key(r#""k""#, r#"{"value":"v","ttl":10}"#, T0, 0).unwrap()).unwrap();
        assert_eq!(put["ttl_ms"], 10_000);
        assert_eq!(put["value"], "v");
        let detail: Json = serde_json::from_str(&pg.key_json(r#""k""#, T0, 0).unwrap()).unwrap();
        assert_eq!(detail, put);
        assert_eq!(pg.put_key(r#""k""#, r#"{"value":"w","nx":true}"#, T0, 0).unwrap_err(), "key already exists: k");
        assert!(pg.put_key(r#""k""#, r#"{"value":"w","bogus":1}"#, T0, 0).unwrap_err().starts_with("invalid body"));
        assert_eq!(pg.delete_key(r#"{"base64":"aw=="}"#, T0, 0).unwrap(), r#"{"deleted":true}"#);
        assert_eq!(pg.key_json(r#""k""#, T0, 0).unwrap(), "null");
        assert_eq!(pg.delete_key(r#""k""#, T0, 0).unwrap_err(), "no such key: k");
        assert!(pg.key_json("not json", T0, 0).is_err());
    }

    #[test]
    fn samples_history_and_config() {
        let mut pg = Playground::new(T0, 1.0);
        let first: Json = serde_json::from_str(&pg.sample_json(T0)).unwrap();
        assert_eq!(first["hits_per_sec"], 0.0);
        line(&mut pg, "SET k v");
        line(&mut pg, "GET k");
        let second: Json = serde_json::from_str(&pg.sample_json(T0 + 1000.0)).unwrap();
        assert_eq!(second["hits_per_sec"], 1.0);
        let history: Json = serde_json::from_str(&pg.history_json(None).unwrap()).unwrap();
        assert_eq!(history["interval_ms"], 1000);
        assert_eq!(history["samples"].as_array().unwrap().len(), 2);
        assert_eq!(pg.history_json(Some(0)).unwrap_err(), "seconds must be between 1 and 3600");
        let config: Json = serde_json::from_str(&pg.patch_config(r#"{"maxmemory":"1mb"}"#, T0).unwrap()).unwrap();
        assert_eq!(config["config"]["maxmemory"], "1048576");
        assert_eq!(serde_json::from_str::<Json>(&pg.config_json()).unwrap(), config);
        assert!(pg
            .patch_config(r#"{"maxmemory_policy":"nope"}"#, T0)
            .unwrap_err()
            .starts_with("ERR CONFIG SET failed"));
        let commands: Json = serde_json::from_str(&Playground::commands_json()).unwrap();
        assert!(commands["commands"].as_array().unwrap().len() > 50);
    }

    #[test]
    fn edits_counts_and_bulk_jobs_as_the_api_does() {
        let mut pg = Playground::new(T0, 1.0);
        let r: Json = serde_json::from_str(
            &pg.edit_key(r#""h""#, r#"{"op":"hash_set","field":"f","value":"v"}"#, T0, 0).unwrap(),
        )
        .unwrap();
        assert_eq!(r["command"], serde_json::json!(["HSET", "h", "f", "v"]));
        let e = pg.edit_key(r#""h""#, r#"{"op":"set_add","member":"m"}"#, T0, 0).unwrap_err();
        assert!(e.starts_with("WRONGTYPE"), "{e}");
        for i in 0..1200 {
            line(&mut pg, &format!("SET k:{i} v"));
        }
        let c: Json = serde_json::from_str(&pg.count_keys("k:*", "", T0, 0).unwrap()).unwrap();
        assert_eq!((c["matched"].clone(), c["exact"].clone()), (1200.into(), true.into()));
        assert!(pg.count_keys("*", "nope", T0, 0).is_err());
        let job: Json =
            serde_json::from_str(&pg.bulk_start(r#"{"match":"k:*","action":"delete"}"#, T0).unwrap()).unwrap();
        assert_eq!(job["expected"], 1200);
        assert!(pg.bulk_start(r#"{"action":"delete"}"#, T0).unwrap_err().contains("running"));
        let step: Json = serde_json::from_str(&pg.bulk_step(T0, 1)).unwrap();
        let done = step["job"]["done"].as_u64().unwrap();
        assert!(done > 0 && done < 1200 && step["commands"][0][0] == "UNLINK", "{step}");
        let cancelled: Json = serde_json::from_str(&pg.bulk_cancel(T0)).unwrap();
        assert_eq!(cancelled["state"], "cancelled");
        let step: Json = serde_json::from_str(&pg.bulk_step(T0, 100)).unwrap();
        assert_eq!((step["job"]["done"].as_u64(), step["commands"].as_array().map(Vec::len)), (Some(done), Some(0)));
        assert_eq!(line(&mut pg, "DBSIZE")["reply"]["value"], 1201 - done);
        pg.bulk_start(r#"{"match":"k:*","action":"expire","ttl":5}"#, T0).unwrap();
        let step: Json = serde_json::from_str(&pg.bulk_step(T0, 1000)).unwrap();
        assert_eq!((step["job"]["state"].clone(), step["job"]["done"].as_u64()), ("done".into(), Some(1200 - done)));
    }
}
