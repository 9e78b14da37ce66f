//! Loading the append-only file at start-up: Vitrine's own checksummed blocks, a plain RESP file
//! (written by Redis or by hand, with or without an RDB preamble), or Redis 7's multi-part
//! directory (`appendonlydir/` and its manifest, its base RDB or RESP), replayed through the
//! engine. A file that cannot be loaded in full stops the start,
//! naming the file and the byte offset; only a torn tail is ever cut, and never without a copy.
//!
//! What counts as torn. A crash mid-append leaves a *prefix* of what the writer was writing, at
//! the very end of the file. So a tail is torn only when its bytes are a strict prefix of
//! something well-formed: for Vitrine's format, a block (known commands, then the one checksum
//! record the writer would write for them, byte for byte); for a plain file, a command. A record
//! that is complete but wrong, a length that no longer fits, an unknown command name, or a
//! verified block after the damaged bytes is corruption, however close to the end it is.
//!
//! Foreign files are read, never written: after loading Redis's multi-part directory, Vitrine
//! writes its own file next to it (a rewrite of what was loaded) and appends there. A plain file
//! at Vitrine's own path is kept under a new name (`<name>.resp-<unix time>`) and replaced by the
//! same rewrite, because Vitrine's checksummed blocks cannot follow plain commands in one file.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use tracing::{info, warn};
use vitrine_engine::{inspect, Engine, Reply, EVAL_SCRIPT_ANNOTATION};

use crate::aof::{encode_block, fsync_dir, trailer, Recovery, TEMP_PREFIX};

mod redis;

/// Where Redis 7 keeps its multi-part AOF inside `dir` (its `appenddirname` default).
pub const REDIS_DIR: &str = "appendonlydir";
/// The start of every checksum record; 8 hex digits and CR LF follow.
const RECORD_HEAD: &[u8] = b"*2\r\n$6\r\nVCHECK\r\n$8\r\n";
const RECORD_NAME: &[u8] = b"VCHECK";
/// Most arguments and longest argument a file's command may announce (a bigger number is damage).
const MAX_ARGS: u64 = 1 << 32;
const MAX_BULK: u64 = 1 << 40;

/// Why a file cannot be loaded in full, at a byte offset of that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub offset: usize,
    pub kind: RefusalKind,
    pub why: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// Damaged bytes.
    Corrupt,
    /// Well-formed, but not something Vitrine can load (an unknown command, another database).
    Unsupported,
    /// A torn tail while `aof-load-truncated no`.
    Truncated,
}

impl Refusal {
    fn corrupt(offset: usize, why: impl Into<String>) -> Refusal {
        Refusal { offset, kind: RefusalKind::Corrupt, why: why.into() }
    }

    fn unsupported(offset: usize, why: impl Into<String>) -> Refusal {
        Refusal { offset, kind: RefusalKind::Unsupported, why: why.into() }
    }

    /// The start-up error: the file, the offset, what is wrong and what to do.
    fn into_error(self, path: &Path) -> anyhow::Error {
        let p = path.display();
        let (o, why) = (self.offset, self.why);
        match self.kind {
            RefusalKind::Corrupt => anyhow::anyhow!(
                "append-only file {p} is corrupt at offset {o}: {why} (refusing to start; the file is left as it was: repair or move it)"
            ),
            RefusalKind::Unsupported => anyhow::anyhow!(
                "append-only file {p} cannot be loaded in full at offset {o}: {why} (refusing to start; the file is left as it was)"
            ),
            RefusalKind::Truncated => anyhow::anyhow!(
                "append-only file {p} is truncated at offset {o}: {why} (refusing to start because aof-load-truncated is no; with --aof-load-truncated yes the complete commands before offset {o} are loaded and the rest is cut off into a copy)"
            ),
        }
    }
}

/// One command of a file: where it starts and ends. Its arguments are parsed again when it
/// is replayed, so a big file costs 16 bytes a command here, not a list of ranges each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub at: usize,
    pub end: usize,
    /// It follows the annotation line [`EVAL_SCRIPT_ANNOTATION`]: a `SCRIPT LOAD` of a script
    /// EVAL cached, restored as EVAL caches it (evictable).
    pub eval_script: bool,
}

/// What a file holds: the commands to replay, where the loadable part ends, and (when it ends
/// before the file does) why the rest is a torn tail.
#[derive(Debug, Default)]
pub struct Scan {
    pub commands: Vec<Command>,
    pub blocks: u64,
    pub valid_end: usize,
    pub torn: Option<String>,
}

/// One command read strictly: `*<n>\r\n`, then `n` times `$<len>\r\n<bytes>\r\n`, with no
/// inline form, no empty array and every CR LF checked, as Redis and Vitrine write them.
#[derive(Debug)]
enum Parsed {
    Complete {
        args: Vec<(usize, usize)>,
        end: usize,
    },
    /// The file ends inside a command that is well-formed so far; `name` is the first
    /// argument's bytes present and its announced length, once its `$<len>` line is whole.
    Partial {
        name: Option<(usize, usize, usize)>,
    },
    Invalid {
        at: usize,
        why: String,
    },
}

/// Reads `<digits>\r\n` at `pos`: `Ok(None)` when the file ends inside it.
fn number(data: &[u8], pos: usize, max: u64) -> Result<Option<(u64, usize)>, (usize, String)> {
    let mut value: u64 = 0;
    let mut i = pos;
    loop {
        match data.get(i) {
            None => return Ok(None),
            Some(&b @ b'0'..=b'9') => {
                // Neither Redis nor Vitrine writes a leading zero.
                if i == pos + 1 && value == 0 {
                    return Err((i, "a number with a leading zero".into()));
                }
                value = value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(b - b'0')))
                    .filter(|&v| v <= max)
                    .ok_or((pos, format!("a length over {max}")))?;
                i += 1;
            }
            Some(b'\r') if i > pos => break,
            Some(&b) => return Err((i, format!("expected a digit, found byte 0x{b:02x}"))),
        }
    }
    match data.get(i + 1) {
        None => Ok(None),
        Some(b'\n') => Ok(Some((value, i + 2))),
        Some(&b) => Err((i + 1, format!("expected LF after CR, found byte 0x{b:02x}"))),
    }
}

fn parse(data: &[u8], pos: usize) -> Parsed {
    let (count, mut p) = match number(data, pos + 1, MAX_ARGS) {
        Err((at, why)) => return Parsed::Invalid { at, why },
        Ok(None) => return Parsed::Partial { name: None },
        Ok(Some(n)) => n,
    };
    if count == 0 {
        return Parsed::Invalid { at: pos, why: "an empty command (*0)".into() };
    }
    let mut args: Vec<(usize, usize)> = Vec::with_capacity(count.min(64) as usize);
    let first = |args: &[(usize, usize)]| args.first().map(|&(a, b)| (a, b, b - a));
    for _ in 0..count {
        match data.get(p) {
            None => return Parsed::Partial { name: first(&args) },
            Some(b'$') => {}
            Some(&b) => return Parsed::Invalid { at: p, why: format!("expected '$', found byte 0x{b:02x}") },
        }
        let (len, q) = match number(data, p + 1, MAX_BULK) {
            Err((at, why)) => return Parsed::Invalid { at, why },
            Ok(None) => return Parsed::Partial { name: first(&args) },
            Ok(Some(n)) => n,
        };
        let len = len as usize;
        let end = q.saturating_add(len);
        if end.saturating_add(2) > data.len() {
            // What is there of the CR LF after the bytes must still be CR LF.
            for (i, &b) in data.iter().enumerate().skip(end.min(data.len())) {
                if b != b"\r\n"[i - end] {
                    return Parsed::Invalid { at: i, why: "expected CR LF after an argument".into() };
                }
            }
            let name = match args.first() {
                Some(_) => first(&args),
                None => Some((q, end.min(data.len()), len)),
            };
            return Parsed::Partial { name };
        }
        if &data[end..end + 2] != b"\r\n" {
            return Parsed::Invalid { at: end, why: "expected CR LF after an argument".into() };
        }
        args.push((q, end));
        p = end + 2;
    }
    Parsed::Complete { args, end: p }
}

fn known(name: &[u8]) -> bool {
    inspect::is_command(name)
}

/// Whether `prefix` can begin the name of a command whose name is `len` bytes long.
fn could_be_command(prefix: &[u8], len: usize) -> bool {
    inspect::command_names().any(|name| {
        name.len() == len && name.as_bytes().get(..prefix.len()).is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    })
}

fn lossy(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).into_owned();
    if bytes.len() > 64 {
        format!("{text}...")
    } else {
        text
    }
}

/// A checksum record further on in `data[from..]` that verifies the bytes since `from` or since
/// the previous record: proof that complete blocks follow, so what is before them is damage,
/// not a torn write. Returns where that record ends.
fn verified_record_after(data: &[u8], from: usize) -> Option<usize> {
    let mut segment = from;
    let mut i = from;
    while let Some(found) = data[i..].windows(RECORD_HEAD.len()).position(|w| w == RECORD_HEAD) {
        let at = i + found;
        let end = at + crate::aof::TRAILER_LEN;
        if end > data.len() {
            return None;
        }
        if data[at..end] == trailer(&data[segment..at])[..] {
            return Some(end);
        }
        segment = end;
        i = at + 1;
    }
    None
}

/// Whether `data` ends with a complete checksum record (right or wrong): a torn write ends
/// wherever the crash cut it, and a record-shaped end is what a damaged length swallowed.
fn ends_with_a_record(data: &[u8]) -> bool {
    let n = crate::aof::TRAILER_LEN;
    data.len() >= n
        && data[data.len() - n..].starts_with(RECORD_HEAD)
        && data[data.len() - 10..data.len() - 2].iter().all(u8::is_ascii_hexdigit)
        && data.ends_with(b"\r\n")
}

/// Scans Vitrine's own format: blocks of commands, each followed by its checksum record.
pub fn scan_vitrine(data: &[u8]) -> Result<Scan, Refusal> {
    let mut scan = Scan::default();
    let mut pos = 0;
    while pos < data.len() {
        let start = pos;
        let first_command = scan.commands.len();
        let torn = |scan: Scan, why: &str| -> Result<Scan, Refusal> {
            if let Some(end) = verified_record_after(data, start) {
                return Err(Refusal::corrupt(
                    start,
                    format!("{why} in the block at offset {start}, yet a complete, verified block follows it (ending at offset {end})"),
                ));
            }
            if ends_with_a_record(&data[start..]) {
                return Err(Refusal::corrupt(
                    start,
                    format!("the block at offset {start} ends with a complete checksum record that does not verify it ({why})"),
                ));
            }
            let mut scan = scan;
            scan.commands.truncate(first_command);
            scan.valid_end = start;
            scan.torn = Some(why.to_string());
            Ok(scan)
        };
        let mut eval_script = false;
        loop {
            if pos == data.len() {
                return torn(scan, "a block without its checksum record at the end of the file");
            }
            if data[pos] == b'#' {
                // The one annotation Vitrine writes, before a script's record.
                let line = [EVAL_SCRIPT_ANNOTATION, b"\r\n"].concat();
                let rest = &data[pos..];
                if rest.starts_with(&line) && !eval_script {
                    eval_script = true;
                    pos += line.len();
                    continue;
                }
                if line.starts_with(rest) && !eval_script {
                    return torn(scan, "an incomplete annotation at the end of the file");
                }
                return Err(Refusal::corrupt(start, format!("an unexpected annotation line at offset {pos}")));
            }
            if data[pos] != b'*' {
                if data[pos..].iter().all(|&b| b == 0) {
                    return torn(scan, "zero bytes at the end of the file");
                }
                return Err(Refusal::corrupt(
                    start,
                    format!("expected a RESP array at offset {pos}, found byte 0x{:02x}", data[pos]),
                ));
            }
            match parse(data, pos) {
                Parsed::Invalid { at, why } => {
                    return Err(Refusal::corrupt(
                        start,
                        format!("{why} at offset {at} (in the block at offset {start})"),
                    ))
                }
                Parsed::Partial { name } => {
                    let rest = &data[pos..];
                    let record_prefix = pos > start && trailer(&data[start..pos]).starts_with(rest);
                    let command_prefix = match name {
                        None => true,
                        Some((a, b, len)) if b - a == len => data[a..b] != *RECORD_NAME && known(&data[a..b]),
                        Some((a, b, len)) => could_be_command(&data[a..b], len),
                    };
                    if record_prefix || command_prefix {
                        return torn(scan, "an incomplete block at the end of the file");
                    }
                    return Err(Refusal::corrupt(
                        start,
                        format!("the file ends at offset {} inside bytes at offset {pos} that are not a prefix of a well-formed block (a damaged length or checksum record)", data.len()),
                    ));
                }
                Parsed::Complete { args, end } => {
                    let name = &data[args[0].0..args[0].1];
                    if name == RECORD_NAME && eval_script {
                        return Err(Refusal::corrupt(
                            start,
                            format!("an annotation before the checksum record at offset {pos}"),
                        ));
                    }
                    if name == RECORD_NAME {
                        // The whole record must be exactly what the writer writes, so a flip in
                        // its framing is caught too, not only in the commands the CRC covers.
                        if pos == start || data[pos..end] != trailer(&data[start..pos])[..] {
                            return Err(Refusal::corrupt(
                                start,
                                format!("the checksum record at offset {pos} does not verify the block at bytes {start}..{pos}"),
                            ));
                        }
                        scan.blocks += 1;
                        pos = end;
                        break;
                    }
                    if !known(name) {
                        return Err(Refusal::corrupt(
                            start,
                            format!(
                                "unknown command '{}' at offset {pos} (in the block at offset {start})",
                                lossy(name)
                            ),
                        ));
                    }
                    if eval_script && !is_script_load(data, &args) {
                        return Err(Refusal::corrupt(
                            start,
                            format!("the annotation before offset {pos} is not followed by a SCRIPT LOAD"),
                        ));
                    }
                    scan.commands.push(Command { at: pos, end, eval_script });
                    eval_script = false;
                    pos = end;
                }
            }
        }
    }
    scan.valid_end = pos;
    Ok(scan)
}

/// Whether the command of `args` is `SCRIPT LOAD <body>`.
fn is_script_load(data: &[u8], args: &[(usize, usize)]) -> bool {
    let arg = |i: usize| &data[args[i].0..args[i].1];
    args.len() == 3 && arg(0).eq_ignore_ascii_case(b"SCRIPT") && arg(1).eq_ignore_ascii_case(b"LOAD")
}

/// Scans a plain RESP file, as Redis writes its AOF: commands, `#` annotation lines (Redis 7's
/// `aof-timestamp-enabled`), `SELECT 0`, `MULTI` ... `EXEC`. A file ending inside a command or
/// inside a transaction ends torn at that command or at its `MULTI`, as in Redis.
pub fn scan_resp(data: &[u8]) -> Result<Scan, Refusal> {
    let mut scan = Scan::default();
    let mut pos = 0;
    let mut multi: Option<(usize, usize)> = None;
    let torn = |mut scan: Scan, at: usize, multi: Option<(usize, usize)>, why: &str| {
        let (end, why) = match multi {
            Some((m, n)) => {
                scan.commands.truncate(n);
                (m, format!("{why}, inside the transaction begun by the MULTI at offset {m}"))
            }
            None => (at, why.to_string()),
        };
        scan.valid_end = end;
        scan.torn = Some(why);
        scan
    };
    let mut eval_script = false;
    while pos < data.len() {
        match data[pos] {
            b'#' => match data[pos..].iter().position(|&b| b == b'\n') {
                Some(nl) => {
                    let line = &data[pos..pos + nl];
                    eval_script |= line.strip_suffix(b"\r").unwrap_or(line) == EVAL_SCRIPT_ANNOTATION;
                    pos += nl + 1;
                    continue;
                }
                None => return Ok(torn(scan, pos, multi, "an incomplete annotation line at the end of the file")),
            },
            b'*' => {}
            b => {
                return Err(Refusal::corrupt(
                    pos,
                    format!("expected '*' (the start of a command), found byte 0x{b:02x}"),
                ))
            }
        }
        match parse(data, pos) {
            Parsed::Invalid { at, why } => {
                return Err(Refusal::corrupt(at, format!("{why} (in the command at offset {pos})")))
            }
            Parsed::Partial { .. } => {
                return Ok(torn(scan, pos, multi, "an incomplete command at the end of the file"));
            }
            Parsed::Complete { args, end } => {
                let name = &data[args[0].0..args[0].1];
                if name == RECORD_NAME {
                    return Err(Refusal::corrupt(pos, "a Vitrine checksum record in a plain RESP file"));
                }
                if !known(name) {
                    return Err(Refusal::unsupported(
                        pos,
                        format!("unknown command '{}' (Vitrine does not implement it)", lossy(name)),
                    ));
                }
                // A SELECT of a database Vitrine does not have (`databases`) is refused when
                // it is replayed, with the engine's error.
                if name.eq_ignore_ascii_case(b"MULTI") {
                    multi.get_or_insert((pos, scan.commands.len()));
                } else if name.eq_ignore_ascii_case(b"EXEC") {
                    multi = None;
                }
                // Only a SCRIPT LOAD takes the annotation (redis-server skips it anyway).
                let eval_script = std::mem::take(&mut eval_script) && is_script_load(data, &args);
                scan.commands.push(Command { at: pos, end, eval_script });
                pos = end;
            }
        }
    }
    if multi.is_some() {
        return Ok(torn(scan, pos, multi, "a transaction without its EXEC at the end of the file"));
    }
    scan.valid_end = pos;
    Ok(scan)
}

/// Whether `data` is in Vitrine's checksummed format rather than plain RESP: some command in it
/// is a checksum record (whole, or cut with its name present), or a record in it verifies.
/// Commands are walked, not bytes searched, so a value that holds "VCHECK" does not count.
pub fn is_vitrine(data: &[u8]) -> bool {
    let mut pos = 0;
    while pos < data.len() && data[pos] == b'*' {
        match parse(data, pos) {
            Parsed::Complete { args, end } => {
                if data[args[0].0..args[0].1] == *RECORD_NAME {
                    return true;
                }
                pos = end;
            }
            Parsed::Partial { name: Some((a, b, 6)) } if b > a && RECORD_NAME.starts_with(&data[a..b]) => return true,
            _ => break,
        }
    }
    verified_record_after(data, 0).is_some()
}

/// Scans a file at Vitrine's own path in the format it is in: whether that is Vitrine's, and
/// what it holds.
pub fn scan_file(data: &[u8]) -> (bool, Result<Scan, Refusal>) {
    let vitrine = is_vitrine(data);
    (vitrine, if vitrine { scan_vitrine(data) } else { scan_resp(data) })
}

/// The arguments of `commands` in `data`, each with its offset, for [`replay`].
fn argvs<'a>(data: &'a [u8], commands: &'a [Command]) -> impl Iterator<Item = (usize, Vec<&'a [u8]>, bool)> + 'a {
    commands.iter().map(move |c| {
        // Scanned already: always complete (an empty argv would be refused on replay).
        let args = match parse(&data[..c.end], c.at) {
            Parsed::Complete { args, .. } => args.iter().map(|&(a, b)| &data[a..b]).collect(),
            _ => Vec::new(),
        };
        (c.at, args, c.eval_script)
    })
}

/// Replays `commands` (each with its offset in the file, and whether it is the `SCRIPT LOAD`
/// of a script EVAL cached) into `engine`. A command the engine refuses is a refusal at its
/// offset: skipping it would load something other than the file.
fn replay<I, A>(engine: &Engine, now_ms: u64, commands: I) -> Result<(), Refusal>
where
    I: IntoIterator<Item = (usize, Vec<A>, bool)>,
    A: AsRef<[u8]>,
{
    let mut session = engine.new_session("aof-loader", "", now_ms);
    // The file holds what clients already ran, authenticated and allowed: replayed with no
    // user and no ACL check, as Redis's loading client.
    engine.session_internal(&mut session);
    // As Redis, no eviction while loading: the file's DELs already say which keys were
    // evicted, and evicting other ones on the way would make a different keyspace.
    let maxmemory = engine.config().get("maxmemory").unwrap_or_else(|| "0".into());
    let _ = engine.config().set("maxmemory", "0");
    let mut result = Ok(());
    for (at, argv, eval_script) in commands {
        let reply = match argv.get(2) {
            Some(body) if eval_script => match engine.cache_eval_script(body.as_ref()) {
                Ok(_) => Reply::Ok,
                Err(e) => Reply::Error(e),
            },
            _ => engine.call(&mut session, &argv, now_ms),
        };
        let error = match &reply {
            Reply::Error(e) => Some(e.clone()),
            Reply::Array(items) => items.iter().find_map(|r| match r {
                Reply::Error(e) => Some(e.clone()),
                _ => None,
            }),
            _ => None,
        };
        if let Some(e) = error {
            let name = argv.first().map(|a| lossy(a.as_ref())).unwrap_or_default();
            result = Err(Refusal::unsupported(at, format!("replaying '{name}' answered -{e}")));
            break;
        }
    }
    engine.end_session(&session);
    let _ = engine.config().set("maxmemory", &maxmemory);
    result
}

/// Loads the RDB preamble `data` starts with (Redis's `aof-use-rdb-preamble yes`: an RDB
/// image, then RESP commands) into `engine`; returns where the RESP part begins and how many
/// keys the RDB held. Its CRC-64 is checked before any key is loaded.
fn load_preamble(engine: &Engine, data: &[u8], now_ms: u64) -> Result<(usize, u64), Refusal> {
    let image =
        crate::rdb::parse(data).map_err(|e| Refusal::corrupt(e.offset, format!("in its RDB part: {}", e.why)))?;
    // Function libraries first (as Redis loads them), then each key in its database: a
    // SELECT wherever the database changes (the replay's one session keeps it, and refuses a
    // database Vitrine does not have).
    let libraries =
        image.functions.iter().map(|(at, code)| (*at, vec![b"FUNCTION".to_vec(), b"LOAD".to_vec(), code.clone()]));
    let mut db = 0;
    let commands = libraries
        .chain(image.keys.iter().flat_map(|k| {
            let select = (k.db != db).then(|| (k.at, vec![b"SELECT".to_vec(), k.db.to_string().into_bytes()]));
            db = k.db;
            select.into_iter().chain(crate::rdb::commands(k, 128).into_iter().map(move |c| (k.at, c)))
        }))
        .map(|(at, c)| (at, c, false));
    replay(engine, now_ms, commands)?;
    Ok((image.end, image.keys.len() as u64))
}

/// [`scan_resp`] of `data[from..]`, with offsets in `data`.
fn scan_resp_from(data: &[u8], from: usize) -> Result<Scan, Refusal> {
    let mut scan = scan_resp(&data[from..]).map_err(|mut r| {
        r.offset += from;
        r
    })?;
    for c in &mut scan.commands {
        c.at += from;
        c.end += from;
    }
    scan.valid_end += from;
    Ok(scan)
}

/// A name in `dir` that does not exist yet: `<base>-<unix seconds>`, or with `-<n>` after it.
fn fresh_name(path: &Path, tag: &str) -> PathBuf {
    let secs = crate::now_ms() / 1000;
    let base = format!("{}.{tag}-{secs}", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut candidate = dir.join(&base);
    let mut n = 1;
    while candidate.exists() {
        candidate = dir.join(format!("{base}-{n}"));
        n += 1;
    }
    candidate
}

/// Writes `bytes` to a new file beside `path` and makes it durable (the file and its name).
fn write_copy(path: &Path, tag: &str, bytes: &[u8]) -> anyhow::Result<PathBuf> {
    let copy = fresh_name(path, tag);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&copy)
        .with_context(|| format!("cannot create {}", copy.display()))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).with_context(|| format!("cannot write {}", copy.display()))?;
    fsync_dir(copy.parent().unwrap_or(Path::new(".")))?;
    Ok(copy)
}

/// Cuts `path` back to `valid_end`, first keeping exactly the bytes it cuts off in a fsynced
/// copy (`<name>.torn-<unix time>`), so a wrong judgement can always be undone by hand.
fn cut_torn_tail(path: &Path, data: &[u8], valid_end: usize, rec: &mut Recovery) -> anyhow::Result<()> {
    let copy = write_copy(path, "torn", &data[valid_end..])?;
    let file = OpenOptions::new().write(true).open(path).context("cannot open the append-only file to cut it")?;
    file.set_len(valid_end as u64)?;
    file.sync_all()?;
    rec.torn_copy = Some(copy.display().to_string());
    rec.torn_copy_bytes = (data.len() - valid_end) as u64;
    warn!(
        "append-only file {} was cut back to offset {valid_end}; the {} bytes cut off are kept in {}",
        path.display(),
        rec.torn_copy_bytes,
        copy.display()
    );
    Ok(())
}

/// Writes what the engine holds as Vitrine's own file at `path` (temp file, fsync, rename,
/// fsync of the directory), the same image BGREWRITEAOF writes.
fn write_own_file(path: &Path, engine: &Engine, now_ms: u64) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let (image, _) = engine.rewrite_image(now_ms);
    let mut block = Vec::new();
    encode_block(&mut block, &image);
    let temp = dir.join(format!("{TEMP_PREFIX}{}-load.aof", std::process::id()));
    let written = (|| -> anyhow::Result<()> {
        let mut f = OpenOptions::new().create(true).write(true).truncate(true).open(&temp)?;
        f.write_all(&block)?;
        f.sync_all()?;
        std::fs::rename(&temp, path)?;
        fsync_dir(dir)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.with_context(|| format!("cannot write the append-only file {}", path.display()))
}

/// Loads the append-only file for `dir`/`filename` into `engine`: Vitrine's own file when it
/// exists (its format, or plain RESP), else Redis 7's `appendonlydir/<filename>.manifest`.
/// Absent both, the start is empty. Errors must stop the start-up.
pub fn load(
    dir: &Path,
    filename: &str,
    engine: &Engine,
    now_ms: u64,
    load_truncated: bool,
) -> anyhow::Result<Recovery> {
    let path = dir.join(filename);
    let manifest = dir.join(REDIS_DIR).join(format!("{filename}.manifest"));
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if manifest.exists() {
                return redis::load_redis_dir(&path, &manifest, engine, now_ms, load_truncated);
            }
            return Ok(Recovery::default());
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read the append-only file {}", path.display())),
    };
    if manifest.exists() {
        // Vitrine's own file holds what it loaded from there plus every write since.
        info!("{} is not loaded: Vitrine's own file {} takes its place", manifest.display(), path.display());
    }
    let mut rec = Recovery { file_bytes: data.len() as u64, source: path.display().to_string(), ..Recovery::default() };
    let (vitrine, scan) = if data.starts_with(b"REDIS") {
        let (from, keys) = load_preamble(engine, &data, now_ms).map_err(|r| r.into_error(&path))?;
        rec.rdb_keys = keys;
        (false, scan_resp_from(&data, from))
    } else {
        scan_file(&data)
    };
    let scan = scan.map_err(|r| r.into_error(&path))?;
    if let Some(why) = &scan.torn {
        if !load_truncated {
            let r = Refusal { offset: scan.valid_end, kind: RefusalKind::Truncated, why: why.clone() };
            return Err(r.into_error(&path));
        }
    }
    replay(engine, now_ms, argvs(&data, &scan.commands)).map_err(|r| r.into_error(&path))?;
    rec.format = if vitrine || data.is_empty() {
        "vitrine"
    } else if rec.rdb_keys > 0 || data.starts_with(b"REDIS") {
        "rdb-preamble"
    } else {
        "resp"
    }
    .into();
    rec.blocks = scan.blocks;
    rec.commands = scan.commands.len() as u64;
    if let Some(why) = &scan.torn {
        rec.truncated_at = Some(scan.valid_end as u64);
        rec.dropped_bytes = (data.len() - scan.valid_end) as u64;
        rec.truncated_file = Some(path.display().to_string());
        warn!(
            commands_kept = rec.commands,
            bytes_dropped = rec.dropped_bytes,
            offset = scan.valid_end,
            "append-only file {} ends torn ({why}; a crash mid-write?): cut back to offset {}, dropping {} bytes",
            path.display(),
            scan.valid_end,
            rec.dropped_bytes
        );
        cut_torn_tail(&path, &data, scan.valid_end, &mut rec)?;
    }
    if !vitrine && scan.valid_end > 0 {
        // Vitrine's blocks cannot follow plain commands: keep the plain file under another
        // name (a hard link, so there is never a moment with neither), then replace it.
        let linked = fresh_name(&path, "resp");
        let kept = match std::fs::hard_link(&path, &linked) {
            Ok(()) => {
                fsync_dir(dir)?;
                linked
            }
            Err(_) => write_copy(&path, "resp", &data[..scan.valid_end])?,
        };
        write_own_file(&path, engine, now_ms)?;
        info!(
            "loaded the plain RESP file {} ({} commands); it is kept as {} and Vitrine's own format continues at {}",
            path.display(),
            rec.commands,
            kept.display(),
            path.display()
        );
        rec.kept_copy = Some(kept.display().to_string());
    }
    Ok(rec)
}

#[cfg(test)]
mod tests;
