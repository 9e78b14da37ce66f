//! Exporting a selection of keys to a file and importing such a file (`POST /api/key-export`,
//! `POST /api/key-import`, and the playground's twins), so keys move between environments: a
//! playground and a server, two servers, or a server and itself after a FLUSHDB.
//!
//! Each key travels as its `DUMP` payload (see [`super::keys_file`] for the two file formats).
//! An export reads each key's type, TTL and payload with a look that does not touch it. An
//! import runs `RESTORE key ttl payload [REPLACE]` through the host's `run(db, argv)` callback,
//! so it is admitted against maxmemory, logged to the append-only file, published as keyspace
//! events and counted, like any client's RESTORE.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use ts_rs::TS;

use super::bulk::{matches, parse_filter};
use super::keys::database;
use super::keys_file::{FileFormat, KeysFile, Record, MAX_FILE_BYTES, MAX_KEYS};
use super::{Bytes, Refusal, Status};
use crate::cmd::keys::dump_value;
use crate::reply::Reply;
use crate::reply_json::bytes_from_json;
use crate::Engine;

/// The body of `POST /api/key-export`: either `keys` (a list) or `match`/`type` (every key
/// they select in the database), and the format.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    pub db: Option<usize>,
    /// Keys by name: each a string or `{"base64": "..."}`.
    pub keys: Option<Vec<Json>>,
    #[serde(rename = "match")]
    pub pattern: Option<String>,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    #[serde(default)]
    pub format: FileFormat,
}

/// An exported file and what is in it.
#[derive(Debug, Clone)]
pub struct ExportedFile {
    pub bytes: Vec<u8>,
    pub format: FileFormat,
    /// `vitrine-db0-<ms>.json` or `.vtrkeys`.
    pub filename: String,
    /// Keys in the file.
    pub keys: usize,
    /// Keys asked for by name that did not exist (left out).
    pub missing: usize,
}

/// What an import does with a key that already exists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ConflictMode {
    /// Leaves it as it is (reported `skipped`).
    #[default]
    Skip,
    /// Overwrites it (`RESTORE ... REPLACE`).
    Replace,
    /// Imports nothing when any key of the file exists.
    Fail,
}

/// The query of `POST /api/key-import?db=&mode=`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportQuery {
    /// The database to import into; the file's own when absent.
    pub db: Option<usize>,
    pub mode: Option<ConflictMode>,
}

/// What became of one key of an imported file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ImportStatus {
    Restored,
    Skipped,
    Error,
}

/// One key of an import's report.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ImportRow {
    pub key: Bytes,
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub type_name: String,
    pub status: ImportStatus,
    /// Redis's error text, for `error`.
    pub error: Option<String>,
}

/// The report of an import.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ImportReport {
    pub db: usize,
    pub mode: ConflictMode,
    pub format: FileFormat,
    pub restored: usize,
    pub skipped: usize,
    pub errors: usize,
    /// Every key of the file, in its order.
    pub keys: Vec<ImportRow>,
}

fn bad(message: impl Into<String>) -> Refusal {
    Refusal::new(Status::BadRequest, "bad_parameter", message)
}

/// The keys a request selects, in database `db`.
fn selection(engine: &Engine, db: usize, req: &ExportRequest, now_ms: u64) -> Result<Vec<Vec<u8>>, Refusal> {
    let filtered = req.pattern.is_some() || req.type_name.is_some();
    if let Some(keys) = &req.keys {
        if filtered {
            return Err(bad("give keys or match/type, not both"));
        }
        if keys.len() > MAX_KEYS {
            return Err(bad(format!("at most {MAX_KEYS} keys can be exported at once")));
        }
        return keys
            .iter()
            .map(|k| bytes_from_json(k).ok_or_else(|| bad("each key must be a string or {\"base64\": \"...\"}")))
            .collect();
    }
    let (pattern, type_name) = parse_filter(req.pattern.as_deref(), req.type_name.as_deref())?;
    let mut keys = Vec::new();
    let mut cursor = 0;
    loop {
        cursor = engine.store().unlocked(db).scan(cursor, 1000, now_ms, |key, entry| {
            if matches(pattern.as_deref(), type_name.as_deref(), key, entry.value.type_name()) {
                keys.push(key.to_vec());
            }
        });
        if keys.len() > MAX_KEYS {
            return Err(Refusal::new(
                Status::Unprocessable,
                "too_many_keys",
                format!("more than {MAX_KEYS} keys match; narrow the pattern or the type"),
            ));
        }
        if cursor == 0 {
            // SCAN may return a key twice (a resize during the walk).
            keys.sort_unstable();
            keys.dedup();
            return Ok(keys);
        }
    }
}

/// Exports the keys `req` selects as a file: the type, TTL and `DUMP` payload of each, read
/// with a look that does not touch it (no keyspace hit, no LRU/LFU update: exporting from the
/// dashboard must not change what the dashboard shows). A key that does not exist is left
/// out; refused when the file would pass [`MAX_FILE_BYTES`].
pub fn export_keys(engine: &Engine, req: &ExportRequest, now_ms: u64) -> Result<ExportedFile, Refusal> {
    let db = database(engine, req.db)?;
    let keys = selection(engine, db, req, now_ms)?;
    let mut file = KeysFile { db: db as u32, exported_at_ms: now_ms, records: Vec::with_capacity(keys.len()) };
    let (mut missing, mut size) = (0, 0usize);
    for key in keys {
        // The payload's compact encodings follow the configured limits, as DUMP's do.
        engine.config().encodings().enter();
        let facts = {
            let mut locked = engine.store().lock_keys(db, [key.as_slice()]);
            locked.peek(&key, now_ms).map(|e| {
                let pttl = if e.expire_at == 0 { -1 } else { e.expire_at.saturating_sub(now_ms).max(1) as i64 };
                (e.value.type_name(), pttl, dump_value(e.value))
            })
        };
        let Some((type_name, pttl, payload)) = facts else {
            missing += 1;
            continue;
        };
        // Base64 makes the JSON file a third larger than its payloads.
        size += 64 + (key.len() + payload.len()) * 4 / 3;
        if size > MAX_FILE_BYTES {
            return Err(Refusal::new(
                Status::Unprocessable,
                "too_large",
                format!("the export would pass {MAX_FILE_BYTES} bytes, the import limit; select fewer keys"),
            ));
        }
        file.records.push(Record { key, type_name: type_name.to_string(), pttl, payload });
    }
    let bytes = file.encode(req.format);
    if bytes.len() > MAX_FILE_BYTES {
        return Err(Refusal::new(
            Status::Unprocessable,
            "too_large",
            format!(
                "the export is {} bytes, more than the import limit of {MAX_FILE_BYTES}; select fewer keys",
                bytes.len()
            ),
        ));
    }
    Ok(ExportedFile {
        filename: format!("vitrine-db{db}-{now_ms}.{}", req.format.extension()),
        keys: file.records.len(),
        format: req.format,
        bytes,
        missing,
    })
}

/// Imports a file (either format, validated whole before any key is written) into database
/// `q.db` (the file's own when absent) with `RESTORE` run by `run`, one key at a time;
/// answers what became of each. Under `fail`, refused with 409 (and nothing written) when a
/// key of the file exists.
pub fn import_keys(
    engine: &Engine,
    q: &ImportQuery,
    bytes: &[u8],
    now_ms: u64,
    mut run: impl FnMut(usize, &[Vec<u8>]) -> Reply,
) -> Result<ImportReport, Refusal> {
    let (file, format) = KeysFile::decode(bytes)?;
    let db = database(engine, Some(q.db.unwrap_or(file.db as usize)))?;
    let mode = q.mode.unwrap_or_default();
    let exists = |key: &[u8]| engine.store().lock_keys(db, [key]).peek(key, now_ms).is_some();
    if mode == ConflictMode::Fail {
        let taken: Vec<String> = file
            .records
            .iter()
            .filter(|r| exists(&r.key))
            .map(|r| String::from_utf8_lossy(&r.key[..r.key.len().min(100)]).into_owned())
            .collect();
        if !taken.is_empty() {
            let shown = taken.iter().take(10).cloned().collect::<Vec<_>>().join(", ");
            return Err(Refusal::new(
                Status::Conflict,
                "conflict",
                format!("{} of the file's keys exist already ({shown}); nothing was imported", taken.len()),
            ));
        }
    }
    let mut report = ImportReport { db, mode, format, restored: 0, skipped: 0, errors: 0, keys: Vec::new() };
    for r in file.records {
        let status = if mode == ConflictMode::Skip && exists(&r.key) {
            Ok(ImportStatus::Skipped)
        } else {
            let ttl = if r.pttl > 0 { r.pttl.to_string() } else { "0".to_string() };
            let mut argv = vec![b"RESTORE".to_vec(), r.key.clone(), ttl.into_bytes(), r.payload];
            if mode == ConflictMode::Replace {
                argv.push(b"REPLACE".to_vec());
            }
            match run(db, &argv) {
                // Another client wrote the key since the look above.
                Reply::Error(text) if text.starts_with("BUSYKEY") && mode == ConflictMode::Skip => {
                    Ok(ImportStatus::Skipped)
                }
                Reply::Error(text) => Err(text),
                _ => Ok(ImportStatus::Restored),
            }
        };
        let (status, error) = match status {
            Ok(s) => (s, None),
            Err(text) => (ImportStatus::Error, Some(text)),
        };
        match status {
            ImportStatus::Restored => report.restored += 1,
            ImportStatus::Skipped => report.skipped += 1,
            ImportStatus::Error => report.errors += 1,
        }
        report.keys.push(ImportRow { key: Bytes(r.key), type_name: r.type_name, status, error });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::call_in;
    use crate::testing::TestEngine;
    use serde_json::json;

    fn export(t: &mut TestEngine, body: serde_json::Value) -> Result<ExportedFile, Refusal> {
        let req: ExportRequest = serde_json::from_value(body).unwrap();
        export_keys(&t.engine, &req, t.now)
    }

    fn import(t: &mut TestEngine, db: Option<usize>, mode: ConflictMode, file: &[u8]) -> Result<ImportReport, Refusal> {
        let q = ImportQuery { db, mode: Some(mode) };
        let TestEngine { engine, session, now, .. } = t;
        import_keys(engine, &q, file, *now, |db, argv| call_in(engine, session, db, argv, *now))
    }

    fn statuses(r: &ImportReport) -> Vec<(String, ImportStatus)> {
        r.keys.iter().map(|k| (String::from_utf8_lossy(&k.key.0).into_owned(), k.status)).collect()
    }

    #[test]
    fn exports_a_pattern_with_ttls_and_imports_it_back_after_a_flush() {
        let mut t = TestEngine::default();
        t.run(&["SELECT", "2"]);
        t.run(&["SET", "user:1", "one"]);
        t.run(&["SET", "user:2", "two", "PX", "60000"]);
        t.run(&["SET", "other", "x"]);
        t.run(&["RPUSH", "user:list", "a"]);
        for format in ["json", "binary"] {
            let file = export(&mut t, json!({"db": 2, "match": "user:*", "type": "string", "format": format})).unwrap();
            assert_eq!((file.keys, file.missing), (2, 0));
            assert!(file.filename.starts_with("vitrine-db2-"), "{}", file.filename);
            let (decoded, _) = KeysFile::decode(&file.bytes).unwrap();
            assert_eq!(decoded.db, 2);
            let ttls: Vec<i64> = decoded.records.iter().map(|r| r.pttl).collect();
            assert_eq!(ttls, [-1, 60000]);

            t.run(&["FLUSHDB"]);
            t.advance(1000);
            // No db: the file's own.
            let report = import(&mut t, None, ConflictMode::Fail, &file.bytes).unwrap();
            assert_eq!((report.db, report.restored, report.skipped, report.errors), (2, 2, 0, 0));
            assert_eq!(t.run(&["GET", "user:1"]), Reply::Bulk(b"one".to_vec()));
            // The TTL left at export, counted from the import.
            assert_eq!(t.run(&["PTTL", "user:2"]), Reply::Int(60000));
            assert_eq!(t.run(&["PTTL", "user:1"]), Reply::Int(-1));
        }
        // An export does not touch what it reads: no keyspace hit, no access time.
        t.advance(5000);
        let hits = t.engine.snapshot(t.now).hits;
        export(&mut t, json!({"db": 2, "match": "user:*"})).unwrap();
        assert_eq!(t.engine.snapshot(t.now).hits, hits);
        assert_eq!(t.run(&["OBJECT", "IDLETIME", "user:1"]), Reply::Int(5));
    }

    #[test]
    fn conflict_modes_skip_replace_or_refuse_the_whole_file() {
        let mut t = TestEngine::default();
        t.run(&["SET", "a", "old-a"]);
        t.run(&["SET", "b", "old-b"]);
        let file = export(&mut t, json!({"keys": ["a", "b", "gone"]})).unwrap();
        assert_eq!((file.keys, file.missing), (2, 1));
        t.run(&["SET", "a", "new-a"]);
        t.run(&["DEL", "b"]);

        let refused = import(&mut t, Some(0), ConflictMode::Fail, &file.bytes).unwrap_err();
        assert_eq!((refused.status, refused.code), (Status::Conflict, "conflict"));
        assert!(refused.message.contains("1 of the file's keys exist already (a)"), "{}", refused.message);
        assert_eq!(t.run(&["EXISTS", "b"]), Reply::Int(0), "fail imports nothing");

        let skip = import(&mut t, Some(0), ConflictMode::Skip, &file.bytes).unwrap();
        assert_eq!(statuses(&skip), [("a".into(), ImportStatus::Skipped), ("b".into(), ImportStatus::Restored)]);
        assert_eq!(t.run(&["GET", "a"]), Reply::Bulk(b"new-a".to_vec()));

        let replace = import(&mut t, Some(0), ConflictMode::Replace, &file.bytes).unwrap();
        assert_eq!((replace.restored, replace.skipped), (2, 0));
        assert_eq!(t.run(&["GET", "a"]), Reply::Bulk(b"old-a".to_vec()));

        // Into another database.
        let other = import(&mut t, Some(5), ConflictMode::Skip, &file.bytes).unwrap();
        assert_eq!((other.db, other.restored), (5, 2));
        assert!(import(&mut t, Some(99), ConflictMode::Skip, &file.bytes).is_err());
    }

    #[test]
    fn a_refused_restore_is_a_row_of_the_report_and_the_rest_goes_on() {
        let mut t = TestEngine::default();
        t.run(&["SET", "v", "v"]);
        let Reply::Bulk(v_payload) = t.run(&["DUMP", "v"]) else { panic!("DUMP of a string") };
        t.run(&["DEL", "v"]);
        let mut file = KeysFile {
            db: 0,
            exported_at_ms: 0,
            records: vec![
                Record { key: b"\xffbin".to_vec(), type_name: "string".into(), pttl: -1, payload: v_payload.to_vec() },
                Record { key: b"bad".to_vec(), type_name: "string".into(), pttl: -1, payload: b"garbage".to_vec() },
            ],
        };
        file.records.push(Record { key: b"last".to_vec(), ..file.records[0].clone() });
        let report = import(&mut t, None, ConflictMode::Skip, &file.encode(FileFormat::Binary)).unwrap();
        assert_eq!((report.restored, report.errors, report.format), (2, 1, FileFormat::Binary));
        assert_eq!(report.keys[1].error.as_deref(), Some("ERR DUMP payload version or checksum are wrong"));
        assert_eq!(t.run(&[b"GET".as_slice(), b"\xffbin"]), Reply::Bulk(b"v".to_vec()));
        let shown = serde_json::to_value(&report).unwrap();
        assert_eq!(shown["keys"][0]["key"]["base64"], "/2Jpbg==");
        assert_eq!(shown["keys"][1]["status"], "error");
    }

    #[test]
    fn exports_refuse_bad_selections_and_files_past_the_limit() {
        let mut t = TestEngine::default();
        let both = export(&mut t, json!({"keys": ["a"], "match": "a*"})).unwrap_err();
        assert_eq!(both.status, Status::BadRequest);
        assert!(export(&mut t, json!({"keys": [7]})).is_err());
        assert!(export(&mut t, json!({"type": "nope"})).is_err());
        assert!(export(&mut t, json!({"db": 99})).is_err());
        assert!(serde_json::from_value::<ExportRequest>(json!({"format": "xml"})).is_err());
        // Payloads are LZF-compressed, so the big values are pseudo-random text.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let big: String = (0..300_000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                alphabet[(seed % 64) as usize] as char
            })
            .collect();
        for i in 0..4 {
            t.run(&["SET", &format!("big:{i}"), &big]);
        }
        let e = export(&mut t, json!({"match": "big:*"})).unwrap_err();
        assert_eq!(e.code, "too_large");
        assert_eq!(export(&mut t, json!({"match": "big:1"})).unwrap().keys, 1);
        let empty = export(&mut t, json!({"match": "none:*", "format": "binary"})).unwrap();
        assert_eq!(KeysFile::decode(&empty.bytes).unwrap().0.records.len(), 0);
    }
}
