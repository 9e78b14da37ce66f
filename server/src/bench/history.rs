//! The history of runs: finished and imported runs kept in `<dir>/vitrine-bench.json` so they
//! survive a restart, bounded in runs ([`MAX_HISTORY`]) and in bytes of JSON
//! ([`MAX_HISTORY_BYTES`], in memory and on disk alike), the oldest dropped first; and the
//! reading of `scripts/bench`'s JSON into imported runs.

use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use tracing::warn;

use super::results::{Imported, Run};
use crate::config::write_atomically;
use crate::now_ms;

/// The history file's name inside `--dir`.
pub const HISTORY_FILE: &str = "vitrine-bench.json";
/// Runs kept in the history (oldest dropped first).
const MAX_HISTORY: usize = 500;
/// Bytes of JSON the kept runs may take together (oldest dropped first); the history file is
/// this and a few bytes of framing. An hour-long built-in run takes about 0.5 MB; imports of
/// `scripts/bench` results a few KB a run. An import larger than this alone is refused.
pub const MAX_HISTORY_BYTES: usize = 4 * 1024 * 1024;
/// Most entries one import may add.
const MAX_IMPORT: usize = 10_000;

/// Drops the oldest runs until at most [`MAX_HISTORY`] remain and their JSON takes at most
/// [`MAX_HISTORY_BYTES`].
pub(super) fn trim(runs: &mut Vec<Run>) {
    let mut bytes = 0;
    let mut keep = 0;
    for run in runs.iter().rev() {
        // The comma between runs in the file.
        let size = json_len(run) + 1;
        if keep == MAX_HISTORY || bytes + size > MAX_HISTORY_BYTES {
            break;
        }
        bytes += size;
        keep += 1;
    }
    let excess = runs.len() - keep;
    runs.drain(..excess);
}

/// The length of `value` as compact JSON, counted without building the text.
fn json_len<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing plain data into a writer that cannot fail cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The file's shape.
#[derive(Serialize, Deserialize)]
struct HistoryFile {
    version: u32,
    runs: Vec<Run>,
}

/// Why an import was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ImportError {
    /// The document is not `scripts/bench`'s JSON; says what is wrong.
    Invalid(String),
    /// Its runs alone would take more than [`MAX_HISTORY_BYTES`].
    TooLarge,
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ImportSummary {
    pub(super) imported: usize,
    pub(super) duplicates: usize,
    pub(super) ids: Vec<u64>,
}

/// Reads the history from `path`. A missing file is an empty history; one that cannot be
/// read is moved aside (`.corrupt-<ms>`) with a warning so the next save does not destroy it.
pub(super) fn read(path: &Path) -> Vec<Run> {
    let mut runs = match std::fs::read(path) {
        Ok(bytes) => match serde_json::from_slice::<HistoryFile>(&bytes) {
            Ok(file) => file.runs,
            Err(e) => {
                let aside = path.with_extension(format!("json.corrupt-{}", now_ms()));
                warn!("cannot read benchmark history {}: {e}; moving it to {}", path.display(), aside.display());
                if let Err(e) = std::fs::rename(path, &aside) {
                    warn!("cannot move {}: {e}", path.display());
                }
                Vec::new()
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            warn!("cannot read benchmark history {}: {e}", path.display());
            Vec::new()
        }
    };
    // A file from before the bounds, or edited by hand, is cut down on the next save.
    trim(&mut runs);
    runs
}

/// The file's text for `runs`, trimmed to the bounds first. Compact, so the file is as large
/// as the bound counts.
pub(super) fn to_text(mut runs: Vec<Run>) -> serde_json::Result<String> {
    trim(&mut runs);
    serde_json::to_string(&HistoryFile { version: 1, runs })
}

/// Writes `text` to the history file at `path` (atomically), creating its directory.
pub(super) fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    write_atomically(path, text)
}

/// Adds the runs in `scripts/bench`'s JSON: a list of objects, or an object holding one
/// under `runs` or `results`. Known fields (`server`, `load`, `test`, `ops_per_sec`,
/// `p50_ms`, `p90_ms`, `p99_ms`, `p999_ms`, `max_ms`, `cpu_us_per_op`) are read leniently
/// (numbers may be strings); the rest is kept in `extra`. Answers each run with its time if
/// it names one. The error says what is wrong with the document, or that its runs alone are
/// more than the history keeps.
pub(super) fn parse_import(doc: Json) -> Result<Vec<(Imported, Option<u64>)>, ImportError> {
    // scripts/bench writes {"schema", "id", "started_at", "git", ..., "runs": [...]}: each
    // run is kept with the document's id, time and commit so runs from different
    // harness runs stay apart.
    let mut context = Map::new();
    let items = match doc {
        Json::Array(items) => items,
        Json::Object(mut map) => match map.remove("runs").or_else(|| map.remove("results")) {
            Some(Json::Array(items)) => {
                for (from, to) in [("id", "bench_id"), ("started_at", "started_at"), ("schema", "schema")] {
                    if let Some(v) = map.get(from).filter(|v| v.is_string()) {
                        context.insert(to.to_string(), v.clone());
                    }
                }
                if let Some(commit) = map.get("git").and_then(|g| g.get("commit")).filter(|c| c.is_string()) {
                    context.insert("git_commit".to_string(), commit.clone());
                }
                items
            }
            _ => return Err(invalid("expected a list of runs, or an object with a \"runs\" list")),
        },
        _ => return Err(invalid("expected a list of runs, or an object with a \"runs\" list")),
    };
    if items.is_empty() {
        return Err(invalid("there are no runs to import"));
    }
    if items.len() > MAX_IMPORT {
        return Err(invalid(format!("at most {MAX_IMPORT} runs can be imported at once")));
    }
    let mut parsed = Vec::with_capacity(items.len());
    // Counted as each run is made: the document's context is copied into every run, so
    // a small body could otherwise grow into gigabytes before anything was measured.
    let mut bytes = 0;
    for (i, item) in items.into_iter().enumerate() {
        let Json::Object(mut map) = item else { return Err(invalid(format!("run {i} is not an object"))) };
        for (k, v) in &context {
            map.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let (imported, at_ms) = imported_from(map);
        bytes += json_len(&imported) + IMPORTED_RUN_FRAME;
        if bytes > MAX_HISTORY_BYTES {
            return Err(ImportError::TooLarge);
        }
        parsed.push((imported, at_ms));
    }
    Ok(parsed)
}

fn invalid(message: impl Into<String>) -> ImportError {
    ImportError::Invalid(message.into())
}

/// What an imported run's JSON adds to its `imported` part in the history (id, source,
/// status, times): an upper bound, so an accepted import always fits.
const IMPORTED_RUN_FRAME: usize = 160;

/// An imported entry's fields, and its time if it names one (`timestamp_ms`, `started_at_ms`,
/// unix seconds in `timestamp`, or an ISO 8601 UTC `started_at`).
fn imported_from(mut map: Map<String, Json>) -> (Imported, Option<u64>) {
    let fingerprint = format!("{:016x}", fnv1a(serde_json::to_string(&map).unwrap_or_default().as_bytes()));
    let mut text = |name: &str| match map.remove(name) {
        Some(Json::String(s)) => Some(s),
        Some(Json::Number(n)) => Some(n.to_string()),
        Some(other) if !other.is_null() => Some(other.to_string()),
        _ => None,
    };
    let (server, load, test) = (text("server"), text("load"), text("test"));
    let mut num = |name: &str| -> Option<f64> {
        let v = match map.get(name)? {
            Json::Number(n) => n.as_f64(),
            Json::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        // Keep what could not be read as a number among the extras rather than lose it.
        if v.is_some() {
            map.remove(name);
        }
        v.filter(|x| x.is_finite())
    };
    let imported = Imported {
        server,
        load,
        test,
        ops_per_sec: num("ops_per_sec"),
        p50_ms: num("p50_ms"),
        p90_ms: num("p90_ms"),
        p99_ms: num("p99_ms"),
        p999_ms: num("p999_ms"),
        max_ms: num("max_ms"),
        cpu_us_per_op: num("cpu_us_per_op"),
        extra: Map::new(),
        fingerprint,
    };
    let ms = |v: Option<&Json>, scale: f64| v.and_then(Json::as_f64).filter(|x| *x > 0.0).map(|x| (x * scale) as u64);
    let at_ms = ms(map.get("timestamp_ms"), 1.0)
        .or_else(|| ms(map.get("started_at_ms"), 1.0))
        .or_else(|| ms(map.get("timestamp"), 1000.0))
        .or_else(|| map.get("started_at").and_then(Json::as_str).and_then(parse_utc));
    (Imported { extra: map, ..imported }, at_ms)
}

/// Unix milliseconds of an ISO 8601 UTC time such as `2025-01-02T03:04:05Z` (fractional
/// seconds and a `+00:00` offset accepted; other offsets are not UTC and give `None`).
fn parse_utc(text: &str) -> Option<u64> {
    let text = text.strip_suffix('Z').or_else(|| text.strip_suffix("+00:00"))?;
    let (date, time) = text.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut t = hms.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (h, min, sec) = (t.next()??, t.next()??, t.next()??);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) || h > 23 || min > 59 || sec > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let yy = if m <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let millis: i64 = format!("{:0<3}", &frac[..frac.len().min(3)]).parse().unwrap_or(0);
    let ms = ((days * 24 + h) * 60 + min) * 60 + sec;
    u64::try_from(ms * 1000 + millis).ok()
}

/// FNV-1a, a stable 64-bit hash (the same across builds, unlike std's hashers).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times_parse() {
        assert_eq!(parse_utc("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_utc("2023-11-14T22:13:20Z"), Some(1_700_000_000_000));
        assert_eq!(parse_utc("2023-11-14T22:13:20.5+00:00"), Some(1_700_000_000_500));
        assert_eq!(parse_utc("2024-02-29T12:00:00Z"), Some(1_709_208_000_000));
        assert_eq!(parse_utc("2023-11-14T22:13:20+02:00"), None);
        assert_eq!(parse_utc("2023-13-01T00:00:00Z"), None);
        assert_eq!(parse_utc("yesterday"), None);
    }

    #[test]
    fn imports_are_lenient_and_keep_the_rest() {
        let entry = serde_json::json!({
            "server": "vitrine", "load": "redis-benchmark P16", "test": "SET",
            "ops_per_sec": "123456.5", "p50_ms": 0.1, "p99_ms": null, "cpu_us_per_op": 1.2,
            "clients": 50, "timestamp": 1_700_000_000,
        });
        let Json::Object(map) = entry else { unreachable!() };
        let (imp, at) = imported_from(map.clone());
        assert_eq!(imp.server.as_deref(), Some("vitrine"));
        assert_eq!(imp.ops_per_sec, Some(123456.5));
        assert_eq!(imp.p50_ms, Some(0.1));
        assert_eq!(imp.p99_ms, None);
        assert_eq!(imp.extra.get("clients"), Some(&serde_json::json!(50)));
        assert_eq!(at, Some(1_700_000_000_000));
        assert_eq!(imported_from(map).0.fingerprint, imp.fingerprint);
    }
}
