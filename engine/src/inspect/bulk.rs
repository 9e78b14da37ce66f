//! Bulk key actions: delete, or set or clear the TTL of, every key matching a glob (and a
//! type) in a database. A job advances one SCAN batch per [`bulk_step`], so each host drives
//! it the same way between its own pauses (the server's tokio task yields between batches;
//! the playground steps it from `setTimeout`), and it can stop after any batch, leaving the
//! keys it has not reached untouched.
//!
//! The writes are ordinary commands (`UNLINK` per batch, `EXPIRE`/`PERSIST` per key) run
//! by the host's `run` callback through dispatch, so they are logged to the append-only
//! file and count in the stats; under CLIENT PAUSE a job waits, and a refused command (OOM)
//! fails it with Redis's text. The
//! type filter is checked when a batch is scanned: on the server another client could change
//! a key's type between that look and the write, a window of one batch.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::keys::database;
use super::{Refusal, Status};
use crate::glob;
use crate::reply::Reply;
use crate::store::entry::Value;
use crate::Engine;

/// Most keys a count visits before it stops and extrapolates (`exact: false`).
pub const COUNT_BUDGET: usize = 200_000;
/// SCAN `count` of one bulk step: small enough that a step holds each stripe briefly.
pub const STEP_BATCH: usize = 500;

/// Which keys a count or a bulk action covers (`GET /api/key-count?match=&type=&db=`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyFilter {
    /// A glob (`user:*`); empty or `*` for every key.
    #[serde(rename = "match")]
    pub pattern: Option<String>,
    /// A type name (`string`, `hash`, ...); empty for any.
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// The database (default 0).
    pub db: Option<usize>,
}

/// How many keys match a filter: a SCAN of the database, exact when it looked at every key
/// (at most [`COUNT_BUDGET`]); otherwise `matched` is extrapolated from the share that
/// matched among the keys it saw.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct KeyCount {
    pub matched: u64,
    /// Keys the scan looked at.
    pub scanned: u64,
    /// Keys in the database (DBSIZE).
    pub keys: u64,
    /// Whether `matched` comes from looking at every key (true), or is an estimate.
    pub exact: bool,
}

/// What a bulk job does to each matching key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum BulkAction {
    /// `UNLINK`, one command per batch.
    Delete,
    /// `EXPIRE key ttl`, one command per key.
    Expire,
    /// `PERSIST key`, one command per key.
    Persist,
}

/// The body that starts a bulk job (`POST /api/key-jobs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkRequest {
    #[serde(rename = "match")]
    pub pattern: Option<String>,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub db: Option<usize>,
    pub action: BulkAction,
    /// Seconds, for `expire` only.
    pub ttl: Option<u64>,
}

/// Where a bulk job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    Running,
    Done,
    Cancelled,
    /// A command was refused (CLIENT PAUSE, OOM...): `error` says why.
    Failed,
}

/// A bulk job and its progress (`GET /api/key-jobs/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct BulkJob {
    pub id: u64,
    pub action: BulkAction,
    pub ttl: Option<u64>,
    #[serde(rename = "match")]
    #[ts(rename = "match")]
    pub pattern: String,
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub type_name: Option<String>,
    pub db: usize,
    pub state: JobState,
    /// Matching keys counted when the job started (see [`KeyCount`]).
    pub expected: u64,
    pub expected_exact: bool,
    /// Keys looked at, keys that matched, and keys the command changed (deleted, or whose
    /// TTL was set or removed) so far.
    pub scanned: u64,
    pub matched: u64,
    pub done: u64,
    pub error: Option<String>,
    /// CLIENT PAUSE holds the job: it takes its next batch once the pause ends.
    pub paused: bool,
    pub started_ms: u64,
    pub finished_ms: Option<u64>,
    #[serde(skip)]
    cursor: u64,
}

impl BulkJob {
    pub fn is_running(&self) -> bool {
        self.state == JobState::Running
    }

    /// Stops a running job after its current batch; a finished one stays as it ended.
    pub fn cancel(&mut self, now_ms: u64) {
        if self.is_running() {
            self.finish(JobState::Cancelled, now_ms);
        }
    }

    fn finish(&mut self, state: JobState, now_ms: u64) {
        self.state = state;
        self.finished_ms = Some(now_ms);
    }
}

fn bad(message: impl Into<String>) -> Refusal {
    Refusal::new(Status::BadRequest, "bad_parameter", message)
}

/// The glob (`None` for every key) and type (lower case) of a filter, validated.
pub(crate) fn parse_filter(
    pattern: Option<&str>,
    type_name: Option<&str>,
) -> Result<(Option<String>, Option<String>), Refusal> {
    let pattern = pattern.filter(|p| !p.is_empty() && *p != "*").map(str::to_string);
    let type_name = type_name.filter(|t| !t.is_empty()).map(str::to_ascii_lowercase);
    if let Some(t) = &type_name {
        if !Value::TYPE_NAMES.contains(&t.as_str()) {
            return Err(bad(format!("type must be one of {}", Value::TYPE_NAMES.join(", "))));
        }
    }
    Ok((pattern, type_name))
}

/// Counts the keys of `filter`, looking at up to `budget` keys.
pub fn count_keys(engine: &Engine, filter: &KeyFilter, now_ms: u64, budget: usize) -> Result<KeyCount, Refusal> {
    let db = database(engine, filter.db)?;
    let (pattern, type_name) = parse_filter(filter.pattern.as_deref(), filter.type_name.as_deref())?;
    let keys = engine.store().unlocked(db).len() as u64;
    let (mut cursor, mut scanned, mut matched) = (0u64, 0u64, 0u64);
    loop {
        let step = (budget as u64).saturating_sub(scanned).clamp(1, 1000) as usize;
        cursor = engine.store().unlocked(db).scan(cursor, step, now_ms, |key, entry| {
            scanned += 1;
            matched += u64::from(matches(pattern.as_deref(), type_name.as_deref(), key, entry.value.type_name()));
        });
        if cursor == 0 {
            return Ok(KeyCount { matched, scanned, keys, exact: true });
        }
        if scanned >= budget as u64 {
            let estimate = (matched as f64 / scanned as f64 * keys as f64).round() as u64;
            return Ok(KeyCount { matched: estimate.max(matched), scanned, keys, exact: false });
        }
    }
}

pub(crate) fn matches(pattern: Option<&str>, type_name: Option<&str>, key: &[u8], key_type: &str) -> bool {
    type_name.is_none_or(|t| t == key_type) && pattern.is_none_or(|p| glob::matches(p.as_bytes(), key))
}

/// A new bulk job numbered `id`, with its expected count (a [`count_keys`] with `budget`);
/// refused when the request is not one.
pub fn bulk_job(engine: &Engine, id: u64, req: &BulkRequest, now_ms: u64, budget: usize) -> Result<BulkJob, Refusal> {
    let db = database(engine, req.db)?;
    let (pattern, type_name) = parse_filter(req.pattern.as_deref(), req.type_name.as_deref())?;
    match (req.action, req.ttl) {
        (BulkAction::Expire, None | Some(0)) => return Err(bad("expire needs a ttl of at least 1 second")),
        // EXPIRE refuses a time past i64 milliseconds; refuse it before touching a key.
        (BulkAction::Expire, Some(s)) if s > (i64::MAX as u64) / 1000 - now_ms / 1000 => {
            return Err(bad("ttl is too large"))
        }
        (BulkAction::Delete | BulkAction::Persist, Some(_)) => return Err(bad("only expire takes a ttl")),
        _ => {}
    }
    let filter = KeyFilter { pattern: pattern.clone(), type_name: type_name.clone(), db: Some(db) };
    let count = count_keys(engine, &filter, now_ms, budget)?;
    Ok(BulkJob {
        id,
        action: req.action,
        ttl: req.ttl,
        pattern: pattern.unwrap_or_else(|| "*".to_string()),
        type_name,
        db,
        state: JobState::Running,
        expected: count.matched,
        expected_exact: count.exact,
        scanned: 0,
        matched: 0,
        done: 0,
        error: None,
        paused: false,
        started_ms: now_ms,
        finished_ms: None,
        cursor: 0,
    })
}

/// Advances a running job by one SCAN batch of `batch` keys, running its commands with
/// `run` (in the job's database); the job is done when the scan is complete, and failed when
/// a command answers an error. Does nothing to a job that is not running.
pub fn bulk_step(
    engine: &Engine,
    job: &mut BulkJob,
    now_ms: u64,
    batch: usize,
    mut run: impl FnMut(&[Vec<u8>]) -> Reply,
) {
    if !job.is_running() {
        return;
    }
    // Every command of a job writes, so any pause (WRITE or ALL) holds it, as it holds a
    // client's writes: the job waits rather than failing on the refusal.
    job.paused = engine.pause_end(now_ms).is_some();
    if job.paused {
        return;
    }
    let pattern = (job.pattern != "*").then_some(job.pattern.as_str());
    let type_name = job.type_name.as_deref();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut scanned = 0u64;
    let next = engine.store().unlocked(job.db).scan(job.cursor, batch.max(1), now_ms, |key, entry| {
        scanned += 1;
        if matches(pattern, type_name, key, entry.value.type_name()) {
            keys.push(key.to_vec());
        }
    });
    job.scanned += scanned;
    job.matched += keys.len() as u64;
    let outcome = match job.action {
        BulkAction::Delete if keys.is_empty() => Ok(0),
        BulkAction::Delete => {
            let mut argv = Vec::with_capacity(keys.len() + 1);
            argv.push(b"UNLINK".to_vec());
            argv.extend(keys);
            changed(run(&argv))
        }
        BulkAction::Expire | BulkAction::Persist => {
            let ttl = job.ttl.unwrap_or_default().to_string().into_bytes();
            keys.into_iter().try_fold(0, |n, key| {
                let argv = match job.action {
                    BulkAction::Expire => vec![b"EXPIRE".to_vec(), key, ttl.clone()],
                    _ => vec![b"PERSIST".to_vec(), key],
                };
                Ok(n + changed(run(&argv))?)
            })
        }
    };
    match outcome {
        Ok(n) => {
            job.done += n;
            job.cursor = next;
            if next == 0 {
                job.finish(JobState::Done, now_ms);
            }
        }
        Err(text) => {
            job.error = Some(text);
            job.finish(JobState::Failed, now_ms);
        }
    }
}

/// The keys a command changed, from its integer reply; an error reply as its text.
fn changed(reply: Reply) -> Result<u64, String> {
    match reply {
        Reply::Int(n) => Ok(n.max(0) as u64),
        Reply::Error(text) => Err(text),
        other => Err(format!("unexpected reply: {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::call_in;
    use crate::testing::TestEngine;

    fn engine_with_keys() -> TestEngine {
        let mut t = TestEngine::default();
        for i in 0..300 {
            t.run(&[b"SET".to_vec(), format!("user:{i}").into_bytes(), b"v".to_vec()]);
        }
        for i in 0..50 {
            t.run(&[b"HSET".to_vec(), format!("user:h{i}").into_bytes(), b"f".to_vec(), b"v".to_vec()]);
        }
        for i in 0..20 {
            t.run(&[b"SET".to_vec(), format!("other:{i}").into_bytes(), b"v".to_vec()]);
        }
        t.run(&["SELECT", "1"]);
        for i in 0..10 {
            t.run(&[b"SET".to_vec(), format!("user:{i}").into_bytes(), b"v".to_vec()]);
        }
        t.run(&["SELECT", "0"]);
        t
    }

    fn request(json: serde_json::Value) -> BulkRequest {
        serde_json::from_value(json).unwrap()
    }

    fn run_all(t: &mut TestEngine, job: &mut BulkJob) -> usize {
        let TestEngine { engine, session, now, .. } = t;
        let (db, mut steps) = (job.db, 0);
        while job.is_running() {
            bulk_step(engine, job, *now, 40, |argv| call_in(engine, session, db, argv, *now));
            steps += 1;
        }
        steps
    }

    fn dbsize(t: &mut TestEngine) -> Reply {
        t.run(&["DBSIZE"])
    }

    #[test]
    fn counts_are_exact_within_the_budget_and_estimated_beyond() {
        let t = engine_with_keys();
        let f = |m: &str, ty: &str, db| KeyFilter { pattern: Some(m.into()), type_name: Some(ty.into()), db: Some(db) };
        let c = count_keys(&t.engine, &f("user:*", "", 0), t.now, COUNT_BUDGET).unwrap();
        assert_eq!(c, KeyCount { matched: 350, scanned: 370, keys: 370, exact: true });
        let c = count_keys(&t.engine, &f("user:*", "HASH", 0), t.now, COUNT_BUDGET).unwrap();
        assert_eq!((c.matched, c.exact), (50, true));
        let c = count_keys(&t.engine, &f("*", "", 1), t.now, COUNT_BUDGET).unwrap();
        assert_eq!((c.matched, c.keys), (10, 10));
        let c = count_keys(&t.engine, &f("user:*", "", 0), t.now, 100).unwrap();
        assert!(!c.exact && c.scanned >= 100 && c.scanned < 370, "{c:?}");
        assert!((250..=370).contains(&c.matched), "an estimate near 350: {c:?}");
        let e = count_keys(&t.engine, &f("*", "nope", 0), t.now, 10).unwrap_err();
        assert_eq!((e.status, e.code), (Status::BadRequest, "bad_parameter"));
        assert!(count_keys(&t.engine, &f("*", "", 99), t.now, 10).is_err());
    }

    #[test]
    fn delete_covers_pattern_type_and_database_only() {
        let mut t = engine_with_keys();
        let req = request(serde_json::json!({ "match": "user:*", "type": "string", "action": "delete" }));
        let mut job = bulk_job(&t.engine, 1, &req, t.now, COUNT_BUDGET).unwrap();
        assert_eq!((job.expected, job.expected_exact, job.state), (300, true, JobState::Running));
        let steps = run_all(&mut t, &mut job);
        assert!(steps > 1, "a job takes several batches");
        assert_eq!((job.state, job.matched, job.done, job.scanned), (JobState::Done, 300, 300, 370));
        assert!(job.finished_ms.is_some());
        assert_eq!(dbsize(&mut t), Reply::Int(70), "the hashes and other:* stay");
        t.run(&["SELECT", "1"]);
        assert_eq!(dbsize(&mut t), Reply::Int(10), "database 1 is untouched");
        let unlinks = crate::inspect::command_counters(&t.engine).into_iter().find(|c| c.name == "unlink");
        assert_eq!(unlinks.map(|c| c.calls), Some(steps as u64), "one UNLINK per batch, through dispatch");
    }

    #[test]
    fn cancel_midway_leaves_the_rest() {
        let mut t = engine_with_keys();
        let req = request(serde_json::json!({ "match": "user:*", "action": "delete" }));
        let mut job = bulk_job(&t.engine, 2, &req, t.now, COUNT_BUDGET).unwrap();
        let TestEngine { engine, session, now, .. } = &mut t;
        for _ in 0..3 {
            bulk_step(engine, &mut job, *now, 40, |argv| call_in(engine, session, 0, argv, *now));
        }
        job.cancel(*now);
        assert_eq!(job.state, JobState::Cancelled);
        let done = job.done;
        assert!(done > 0 && done < 350, "{job:?}");
        bulk_step(engine, &mut job, *now, 40, |_| panic!("a cancelled job runs nothing"));
        let left =
            count_keys(engine, &KeyFilter { pattern: Some("user:*".into()), ..KeyFilter::default() }, *now, 10_000);
        assert_eq!(left.unwrap().matched, 350 - done);
        assert_eq!(dbsize(&mut t), Reply::Int(370 - done as i64));
    }

    #[test]
    fn expire_and_persist_set_and_clear_ttls() {
        let mut t = engine_with_keys();
        let req = request(serde_json::json!({ "match": "user:*", "db": 1, "action": "expire", "ttl": 60 }));
        let mut job = bulk_job(&t.engine, 3, &req, t.now, COUNT_BUDGET).unwrap();
        run_all(&mut t, &mut job);
        assert_eq!((job.state, job.done), (JobState::Done, 10));
        t.run(&["SELECT", "1"]);
        assert_eq!(t.run(&["TTL", "user:3"]), Reply::Int(60));
        let req = request(serde_json::json!({ "match": "user:[0-4]", "db": 1, "action": "persist" }));
        let mut job = bulk_job(&t.engine, 4, &req, t.now, COUNT_BUDGET).unwrap();
        run_all(&mut t, &mut job);
        assert_eq!((job.matched, job.done), (5, 5));
        assert_eq!(t.run(&["TTL", "user:3"]), Reply::Int(-1));
        assert_eq!(t.run(&["TTL", "user:7"]), Reply::Int(60));
        t.run(&["SELECT", "0"]);
        assert_eq!(t.run(&["TTL", "user:3"]), Reply::Int(-1), "database 0 is untouched");
    }

    #[test]
    fn requests_are_validated_and_errors_fail_the_job() {
        let mut t = engine_with_keys();
        let bad = |v| bulk_job(&t.engine, 1, &request(v), t.now, 10).unwrap_err().message;
        assert_eq!(bad(serde_json::json!({ "action": "expire" })), "expire needs a ttl of at least 1 second");
        assert_eq!(bad(serde_json::json!({ "action": "delete", "ttl": 5 })), "only expire takes a ttl");
        assert_eq!(bad(serde_json::json!({ "action": "expire", "ttl": u64::MAX })), "ttl is too large");
        assert!(serde_json::from_value::<BulkRequest>(serde_json::json!({ "action": "drop" })).is_err());
        let mut job = bulk_job(&t.engine, 5, &request(serde_json::json!({ "action": "delete" })), t.now, 10).unwrap();
        let TestEngine { engine, now, .. } = &mut t;
        bulk_step(engine, &mut job, *now, 1000, |_| Reply::Error("ERR paused".into()));
        assert_eq!((job.state, job.error.as_deref()), (JobState::Failed, Some("ERR paused")));
        let mut job = bulk_job(engine, 6, &request(serde_json::json!({ "action": "delete" })), *now, 10).unwrap();
        t.run(&["CLIENT", "PAUSE", "1000", "WRITE"]);
        let TestEngine { engine, session, now, .. } = &mut t;
        bulk_step(engine, &mut job, *now, 1000, |_| panic!("nothing runs during a pause"));
        assert!(job.paused && job.is_running() && job.scanned == 0, "{job:?}");
        let later = *now + 1000;
        bulk_step(engine, &mut job, later, 10_000, |argv| call_in(engine, session, 0, argv, later));
        assert!(!job.paused && job.done == 370, "{job:?}");
    }
}
