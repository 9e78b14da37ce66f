//! Redis 7's multi-part append-only file: the manifest (`appendonlydir/<name>.manifest`) and
//! its base and incr files, loaded in order and only ever read.

use std::path::Path;

use anyhow::Context;
use tracing::{info, warn};
use vitrine_engine::Engine;

use super::{argvs, load_preamble, replay, scan_resp_from, write_own_file, Refusal, RefusalKind, REDIS_DIR};
use crate::aof::Recovery;

/// One line of Redis 7's manifest: `file <name> seq <n> type <b|h|i>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    pub seq: u64,
    pub kind: u8,
}

/// Parses Redis 7's AOF manifest (aof.c `aofLoadManifestFromFile`): `#` comments, lines of
/// `key value` pairs with keys `file`, `seq`, `type`; at most one base (`b`), history files
/// (`h`) are ignored, incr files (`i`) in their order with increasing `seq`.
pub fn parse_manifest(text: &str) -> Result<Vec<Part>, String> {
    let mut base = None;
    let mut incr: Vec<Part> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().map(|w| w.trim_matches('"')).collect();
        if words.len() < 6 || !words.len().is_multiple_of(2) {
            return Err(format!("line {}: expected `file <name> seq <n> type <b|h|i>`", i + 1));
        }
        let (mut name, mut seq, mut kind) = (None, None, None);
        for pair in words.chunks(2) {
            match pair[0] {
                "file" => name = Some(pair[1].to_string()),
                "seq" => seq = pair[1].parse::<u64>().ok(),
                "type" if pair[1].len() == 1 => kind = Some(pair[1].as_bytes()[0]),
                _ => {}
            }
        }
        let (Some(name), Some(seq), Some(kind)) = (name, seq, kind) else {
            return Err(format!("line {}: a file, seq or type is missing or invalid", i + 1));
        };
        if name.contains('/') || name == ".." {
            return Err(format!("line {}: {name} is a path, not a file name", i + 1));
        }
        let part = Part { name, seq, kind };
        match kind {
            b'b' if base.is_some() => return Err(format!("line {}: a second base file", i + 1)),
            b'b' => base = Some(part),
            b'h' => {}
            b'i' => {
                if incr.last().is_some_and(|last| last.seq >= part.seq) {
                    return Err(format!("line {}: the incr files' seq is not increasing", i + 1));
                }
                incr.push(part);
            }
            _ => return Err(format!("line {}: unknown type '{}'", i + 1, kind as char)),
        }
    }
    Ok(base.into_iter().chain(incr).collect())
}

/// Loads Redis 7's multi-part AOF (the base, then each incr file), then writes Vitrine's own
/// file at `path` with what was loaded. The Redis files are only read. As in Redis, only the
/// last file may end torn; nothing is cut from it (it is not ours): its complete commands load.
pub(super) fn load_redis_dir(
    path: &Path,
    manifest: &Path,
    engine: &Engine,
    now_ms: u64,
    load_truncated: bool,
) -> anyhow::Result<Recovery> {
    let text = std::fs::read(manifest).with_context(|| format!("cannot read {}", manifest.display()))?;
    let text = String::from_utf8(text).map_err(|_| anyhow::anyhow!("{} is not text", manifest.display()))?;
    let parts =
        parse_manifest(&text).map_err(|e| anyhow::anyhow!("invalid AOF manifest {}: {e}", manifest.display()))?;
    let redis_dir = manifest.parent().unwrap_or(Path::new("."));
    let mut rec =
        Recovery { format: "redis-multi-part".into(), source: manifest.display().to_string(), ..Recovery::default() };
    for (i, part) in parts.iter().enumerate() {
        let file = redis_dir.join(&part.name);
        let data = std::fs::read(&file)
            .with_context(|| format!("cannot read {} (listed in {})", file.display(), manifest.display()))?;
        rec.file_bytes += data.len() as u64;
        let from = if data.starts_with(b"REDIS") {
            let (from, keys) = load_preamble(engine, &data, now_ms).map_err(|r| r.into_error(&file))?;
            rec.rdb_keys += keys;
            from
        } else {
            0
        };
        let scan = scan_resp_from(&data, from).map_err(|r| r.into_error(&file))?;
        if let Some(why) = &scan.torn {
            let last = i + 1 == parts.len();
            if !last || !load_truncated {
                let why =
                    if last { why.clone() } else { format!("{why}, and it is not the last file of the manifest") };
                return Err(Refusal { offset: scan.valid_end, kind: RefusalKind::Truncated, why }.into_error(&file));
            }
        }
        replay(engine, now_ms, argvs(&data, &scan.commands)).map_err(|r| r.into_error(&file))?;
        rec.commands += scan.commands.len() as u64;
        if let Some(why) = &scan.torn {
            rec.truncated_at = Some(scan.valid_end as u64);
            rec.dropped_bytes = (data.len() - scan.valid_end) as u64;
            rec.truncated_file = Some(file.display().to_string());
            warn!(
                "{} ends torn ({why}): loaded the commands before offset {}, left out its last {} bytes (the file itself is not changed)",
                file.display(),
                scan.valid_end,
                rec.dropped_bytes
            );
        }
    }
    write_own_file(path, engine, now_ms)?;
    info!(
        "loaded Redis's multi-part append-only file {} ({} files, {} commands); Vitrine continues in its own file {} and leaves {REDIS_DIR}/ as it was",
        manifest.display(),
        parts.len(),
        rec.commands,
        path.display()
    );
    Ok(rec)
}
