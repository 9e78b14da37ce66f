//! Propagation: the write commands the engine ran, in canonical, replayable form, for the
//! host's append-only file. Off by default (one atomic load per write); when on, every
//! successful write is appended as RESP to one buffer the host drains, while the command still
//! holds its shards' locks, so the buffer's order is the order writes took effect.
//!
//! Canonical form (`rewrite_for_log`): relative expiry becomes absolute (`PXAT`,
//! `PEXPIREAT`), blocking pops their non-blocking form, random pops the members they removed,
//! float increments the value they produced; evictions and expirations are logged as `DEL`,
//! expired hash fields as `HDEL`, field expiries as `HPEXPIREAT ... FIELDS` with the fields
//! they set, and an EXEC as `MULTI` ... `EXEC` around its writes. A `SELECT` goes before a
//! command whose database differs from the last one logged (and before the first), as
//! Redis's AOF.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64};

use parking_lot::Mutex;

use crate::num::{format_g17, parse_i64};
use crate::reply::{encode_bulk, Reply};
use crate::store::entry::{Entry, ValueRef};
use crate::store::stream::{Stream, MAX_ID, MIN_ID};
use crate::store::RemovalLog;

/// The annotation line before the `SCRIPT LOAD` record of a script EVAL cached (so a restart
/// caches it as EVAL did: evictable). An AOF's `#` lines are annotations that redis-server 7
/// skips, as it skips its own `#TS:` lines.
pub const EVAL_SCRIPT_ANNOTATION: &[u8] = b"#vitrine:eval-script";

/// What was appended and not yet taken, and the database the log's next command runs in.
#[derive(Default)]
struct LogBuf {
    bytes: Vec<u8>,
    /// The database the last logged command ran in; `None` before anything is logged, so
    /// the first command always says which it is (a file may end in any database).
    db: Option<usize>,
}

/// Commands an EXEC logged, kept until its end to be appended as one `MULTI` ... `EXEC`.
#[derive(Debug, Default)]
pub struct Batch {
    bytes: Vec<u8>,
    /// The database of its first logged command, and of its latest (a SELECT inside the
    /// transaction moves it; the batch then holds its own SELECT).
    dbs: Option<(usize, usize)>,
    /// Commands pushed (a script's single write is logged without MULTI ... EXEC).
    pushes: usize,
}

impl Batch {
    /// Adds one command run in database `db`.
    pub fn push(&mut self, db: usize, bytes: &[u8]) {
        match &mut self.dbs {
            None => self.dbs = Some((db, db)),
            Some((_, last)) if *last != db => {
                encode_command(&mut self.bytes, &[&b"SELECT"[..], db.to_string().as_bytes()]);
                *last = db;
            }
            Some(_) => {}
        }
        self.bytes.extend_from_slice(bytes);
        self.pushes += 1;
    }
}

/// The propagation buffer of one engine.
#[derive(Default)]
pub struct Propagation {
    enabled: AtomicBool,
    /// Set by the host when it cannot persist writes: writes are refused with this text.
    refusing: AtomicBool,
    refusal: Mutex<String>,
    buf: Mutex<LogBuf>,
    /// Total bytes ever appended (the host waits until its file holds this many).
    appended: AtomicU64,
    rewrite: AtomicBool,
    /// `name:value\r\n` lines the host reports for INFO persistence.
    info: Mutex<String>,
}

impl Propagation {
    pub fn enabled(&self) -> bool {
        self.enabled.load(Relaxed)
    }

    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Release);
    }

    /// Total bytes appended so far (monotonic; the offset a host waits for).
    pub fn appended(&self) -> u64 {
        self.appended.load(Acquire)
    }

    /// Takes what was appended since the last take, and the `appended` total it ends at.
    pub fn take(&self) -> (Vec<u8>, u64) {
        let mut buf = self.buf.lock();
        let end = self.appended.load(Acquire);
        (std::mem::take(&mut buf.bytes), end)
    }

    /// The database the log's next command runs in unless it says otherwise (`None` until
    /// something is logged), with the `appended` total it holds at: an AOF rewrite's image
    /// ends by selecting it, so the commands appended after the image run where they ran.
    pub fn position(&self) -> (Option<usize>, u64) {
        let buf = self.buf.lock();
        (buf.db, self.appended.load(Acquire))
    }

    /// Appends already-encoded commands that run in database `db` (first to last, when a
    /// transaction's SELECT moved it), preceded by a SELECT when the log is elsewhere.
    fn append_in(&self, (first, last): (usize, usize), bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut buf = self.buf.lock();
        let before = buf.bytes.len();
        if buf.db != Some(first) {
            encode_command(&mut buf.bytes, &[&b"SELECT"[..], first.to_string().as_bytes()]);
        }
        buf.bytes.extend_from_slice(bytes);
        buf.db = Some(last);
        let added = buf.bytes.len() - before;
        self.appended.fetch_add(added as u64, Release);
    }

    /// Appends already-encoded commands that run the same in any database (the script
    /// cache's records): no SELECT before them, and the next command's database is unchanged.
    #[cfg_attr(not(feature = "scripting"), allow(dead_code))]
    pub fn append_anywhere(&self, bytes: &[u8]) {
        let mut buf = self.buf.lock();
        buf.bytes.extend_from_slice(bytes);
        self.appended.fetch_add(bytes.len() as u64, Release);
    }

    /// Appends already-encoded commands run in database `db`.
    pub fn append_raw(&self, db: usize, bytes: &[u8]) {
        self.append_in((db, db), bytes);
    }

    /// Appends a transaction's commands as `MULTI` ... `EXEC`.
    pub fn append_batch(&self, batch: Batch) {
        let Some(dbs) = batch.dbs else { return };
        let mut bytes = Vec::with_capacity(batch.bytes.len() + 30);
        encode_command(&mut bytes, &["MULTI"]);
        bytes.extend_from_slice(&batch.bytes);
        encode_command(&mut bytes, &["EXEC"]);
        self.append_in(dbs, &bytes);
    }

    /// Appends a script's effects as Redis 7 does: one write alone, several as `MULTI` ...
    /// `EXEC`, none at all not.
    pub fn append_effects(&self, batch: Batch) {
        match batch.dbs {
            Some(dbs) if batch.pushes == 1 => self.append_in(dbs, &batch.bytes),
            _ => self.append_batch(batch),
        }
    }

    /// Appends one command run in database `db`.
    pub fn append<A: AsRef<[u8]>>(&self, db: usize, argv: &[A]) {
        if !self.enabled() {
            return;
        }
        let mut out = Vec::new();
        encode_command(&mut out, argv);
        self.append_raw(db, &out);
    }

    /// BGREWRITEAOF: the host picks this up with `take_rewrite_request`.
    pub fn request_rewrite(&self) {
        self.rewrite.store(true, Release);
    }

    pub fn take_rewrite_request(&self) -> bool {
        self.rewrite.swap(false, Acquire)
    }

    /// The host's INFO persistence lines (`name:value\r\n` each).
    pub fn set_host_info(&self, text: String) {
        *self.info.lock() = text;
    }

    pub fn host_info(&self) -> String {
        self.info.lock().clone()
    }

    /// Makes writes fail with `text` (`None` accepts them again).
    pub fn refuse_writes(&self, text: Option<String>) {
        let on = text.is_some();
        *self.refusal.lock() = text.unwrap_or_default();
        self.refusing.store(on, Release);
    }

    /// Why writes are refused, if they are.
    pub fn refusal(&self) -> Option<String> {
        if !self.refusing.load(Relaxed) {
            return None;
        }
        Some(self.refusal.lock().clone())
    }
}

/// The store's evictions and expirations, logged as DEL; expired hash fields as HDEL (as
/// Redis propagates them).
impl RemovalLog for Propagation {
    fn removed(&self, db: usize, key: &[u8]) {
        if self.enabled() {
            self.append(db, &[&b"DEL"[..], key]);
        }
    }

    fn removed_fields(&self, db: usize, key: &[u8], fields: &[Box<[u8]>]) {
        if self.enabled() {
            let mut argv: Vec<&[u8]> = Vec::with_capacity(fields.len() + 2);
            argv.extend([&b"HDEL"[..], key]);
            argv.extend(fields.iter().map(|f| &**f));
            self.append(db, &argv);
        }
    }
}

/// Encodes one command as a RESP array of bulk strings.
pub fn encode_command<A: AsRef<[u8]>>(out: &mut Vec<u8>, argv: &[A]) {
    out.push(b'*');
    out.extend_from_slice(argv.len().to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
    for a in argv {
        encode_bulk(out, a.as_ref());
    }
}

fn upper(a: &[u8]) -> Vec<u8> {
    a.to_ascii_uppercase()
}

fn abs_ms(unit_ms: i64, amount: &[u8], now_ms: u64) -> Option<Vec<u8>> {
    let n = parse_i64(amount)?;
    let abs = n.checked_mul(unit_ms)?.checked_add(now_ms as i64)?;
    Some(abs.to_string().into_bytes())
}

/// What LMPOP/ZMPOP (and their blocking forms) removed, as one pop of that many from the key
/// their reply `[key, [item ...]]` names: `pops[0]` when the where word (after `numkeys` keys,
/// the count at `numkeys_at`) is `first`, else `pops[1]`. Nothing for a nil reply.
fn mpop_effect(argv: &[&[u8]], reply: &Reply, numkeys_at: usize, first: &[u8], pops: [&[u8]; 2]) -> Vec<Vec<Vec<u8>>> {
    let Some((key, n)) = popped_from(reply) else { return vec![] };
    let is_first = argv
        .get(numkeys_at)
        .and_then(|n| parse_i64(n))
        .and_then(|n| argv.get(numkeys_at + 1 + usize::try_from(n).ok()?))
        .is_some_and(|w| w.eq_ignore_ascii_case(first));
    let pop = if is_first { pops[0] } else { pops[1] };
    vec![vec![pop.to_vec(), key.to_vec(), n.to_string().into_bytes()]]
}

/// The key and the number of items of a multi-key pop's reply `[key, [item ...]]`.
pub(crate) fn popped_from(reply: &Reply) -> Option<(&[u8], usize)> {
    match reply {
        Reply::Array(kv) => match (kv.first(), kv.get(1)) {
            (Some(Reply::Bulk(key)), Some(Reply::Array(items))) => Some((key, items.len())),
            _ => None,
        },
        _ => None,
    }
}

/// The commands to log for a write `argv` that answered `reply` at `now_ms`: the argv itself
/// unless its effect depends on the time or on chance. Empty = nothing to log.
pub fn rewrite_for_log(argv: &[&[u8]], reply: &Reply, now_ms: u64) -> Vec<Vec<Vec<u8>>> {
    let name = upper(argv[0]);
    let own = || vec![argv.iter().map(|a| a.to_vec()).collect::<Vec<_>>()];
    match name.as_slice() {
        b"SET" | b"GETEX" => {
            let mut out: Vec<Vec<u8>> = Vec::with_capacity(argv.len());
            let mut i = 0;
            while i < argv.len() {
                let opt = upper(argv[i]);
                // A comparison's operand is data, never an expiry option (`IFEQ EX`).
                if i >= 3 && matches!(opt.as_slice(), b"IFEQ" | b"IFNE" | b"IFDEQ" | b"IFDNE") {
                    out.extend(argv[i..(i + 2).min(argv.len())].iter().map(|a| a.to_vec()));
                    i += 2;
                    continue;
                }
                let unit = match opt.as_slice() {
                    b"EX" => Some(1000),
                    b"PX" => Some(1),
                    b"EXAT" => Some(-1000),
                    _ => None,
                };
                if let (Some(unit), Some(v)) = (unit, argv.get(i + 1).filter(|_| i >= 2)) {
                    let abs = if unit < 0 {
                        parse_i64(v).and_then(|s| s.checked_mul(1000)).map(|ms| ms.to_string().into_bytes())
                    } else {
                        abs_ms(unit, v, now_ms)
                    };
                    match abs {
                        Some(abs) => {
                            out.push(b"PXAT".to_vec());
                            out.push(abs);
                        }
                        None => return own(),
                    }
                    i += 2;
                    continue;
                }
                out.push(argv[i].to_vec());
                i += 1;
            }
            vec![out]
        }
        // SORT without STORE changes nothing (Redis does not propagate it).
        b"SORT" if !argv.iter().skip(2).any(|a| a.eq_ignore_ascii_case(b"STORE")) => Vec::new(),
        b"SETEX" | b"PSETEX" if argv.len() == 4 => {
            let unit = if name == b"SETEX" { 1000 } else { 1 };
            match abs_ms(unit, argv[2], now_ms) {
                Some(abs) => vec![vec![b"SET".to_vec(), argv[1].to_vec(), argv[3].to_vec(), b"PXAT".to_vec(), abs]],
                None => own(),
            }
        }
        b"EXPIRE" | b"PEXPIRE" | b"EXPIREAT" if argv.len() >= 3 => {
            let abs = match name.as_slice() {
                b"EXPIRE" => abs_ms(1000, argv[2], now_ms),
                b"PEXPIRE" => abs_ms(1, argv[2], now_ms),
                _ => parse_i64(argv[2]).and_then(|s| s.checked_mul(1000)).map(|ms| ms.to_string().into_bytes()),
            };
            match abs {
                Some(abs) => {
                    let mut cmd = vec![b"PEXPIREAT".to_vec(), argv[1].to_vec(), abs];
                    cmd.extend(argv[3..].iter().map(|a| a.to_vec()));
                    vec![cmd]
                }
                None => own(),
            }
        }
        b"BLPOP" | b"BRPOP" => match reply {
            Reply::Array(kv) => match kv.first() {
                Some(Reply::Bulk(key)) => {
                    let pop = if name == b"BLPOP" { b"LPOP".to_vec() } else { b"RPOP".to_vec() };
                    vec![vec![pop, key.clone()]]
                }
                _ => vec![],
            },
            _ => vec![],
        },
        // The elements removed, as LPOP/RPOP of that many from the key the reply names.
        b"LMPOP" => mpop_effect(argv, reply, 1, b"LEFT", [b"LPOP", b"RPOP"]),
        b"BLMPOP" => mpop_effect(argv, reply, 2, b"LEFT", [b"LPOP", b"RPOP"]),
        // The members removed, as ZPOPMIN/ZPOPMAX of that many from the key the reply names.
        b"BZPOPMIN" | b"BZPOPMAX" => match reply {
            Reply::Array(kms) => match kms.first() {
                Some(Reply::Bulk(key)) => {
                    let pop = if name == b"BZPOPMIN" { b"ZPOPMIN".to_vec() } else { b"ZPOPMAX".to_vec() };
                    vec![vec![pop, key.clone(), b"1".to_vec()]]
                }
                _ => vec![],
            },
            _ => vec![],
        },
        b"ZMPOP" => mpop_effect(argv, reply, 1, b"MIN", [b"ZPOPMIN", b"ZPOPMAX"]),
        b"BZMPOP" => mpop_effect(argv, reply, 2, b"MIN", [b"ZPOPMIN", b"ZPOPMAX"]),
        b"BLMOVE" if argv.len() == 6 => match reply {
            Reply::Bulk(_) => vec![argv[..5].iter().map(|a| a.to_vec()).collect::<Vec<_>>()]
                .into_iter()
                .map(|mut c| {
                    c[0] = b"LMOVE".to_vec();
                    c
                })
                .collect(),
            _ => vec![],
        },
        b"BRPOPLPUSH" if argv.len() == 4 => match reply {
            Reply::Bulk(_) => vec![vec![b"RPOPLPUSH".to_vec(), argv[1].to_vec(), argv[2].to_vec()]],
            _ => vec![],
        },
        b"SPOP" => {
            let members: Vec<Vec<u8>> = match reply {
                Reply::Bulk(m) => vec![m.clone()],
                Reply::Array(ms) | Reply::Set(ms) => {
                    ms.iter().filter_map(|m| if let Reply::Bulk(b) = m { Some(b.clone()) } else { None }).collect()
                }
                _ => vec![],
            };
            if members.is_empty() {
                return vec![];
            }
            let mut cmd = vec![b"SREM".to_vec(), argv[1].to_vec()];
            cmd.extend(members);
            vec![cmd]
        }
        b"HEXPIRE" | b"HPEXPIRE" | b"HEXPIREAT" | b"HPEXPIREAT" => hexpire_effect(&name, argv, reply, now_ms),
        b"HGETEX" => hgetex_effect(argv, reply, now_ms),
        b"HSETEX" => match reply {
            Reply::Int(1) => vec![hsetex_absolute(argv, now_ms)],
            _ => vec![],
        },
        b"HGETDEL" => {
            let key = argv.get(1).copied().unwrap_or_default();
            let found = fields_found(argv.get(4..).unwrap_or_default(), reply, |r| matches!(r, Reply::Bulk(_)));
            hdel(key, &found).into_iter().collect()
        }
        b"INCRBYFLOAT" => match reply {
            Reply::Bulk(v) => vec![vec![b"SET".to_vec(), argv[1].to_vec(), v.clone(), b"KEEPTTL".to_vec()]],
            _ => own(),
        },
        _ => own(),
    }
}

/// A field expiry argument as unix ms: `amount` units of `unit_ms`, plus now when relative.
fn field_expiry_abs(amount: &[u8], unit_ms: i64, relative: bool, now_ms: u64) -> Option<u64> {
    let ms = parse_i64(amount)?.checked_mul(unit_ms)?;
    let base = if relative { now_ms as i64 } else { 0 };
    u64::try_from(ms.checked_add(base)?).ok()
}

/// The unit and relativity of a time option word (EX, PX, EXAT, PXAT).
fn time_word(word: &[u8]) -> Option<(i64, bool)> {
    match upper(word).as_slice() {
        b"EX" => Some((1000, true)),
        b"PX" => Some((1, true)),
        b"EXAT" => Some((1000, false)),
        b"PXAT" => Some((1, false)),
        _ => None,
    }
}

/// The fields whose per-field reply passes `keep` (replies in the order of `fields`).
fn fields_found<'a>(fields: &[&'a [u8]], reply: &Reply, keep: impl Fn(&Reply) -> bool) -> Vec<&'a [u8]> {
    match reply {
        Reply::Array(items) => fields.iter().zip(items).filter(|(_, r)| keep(r)).map(|(f, _)| *f).collect(),
        _ => vec![],
    }
}

/// `HDEL key fields...`, or nothing without fields.
fn hdel(key: &[u8], fields: &[&[u8]]) -> Option<Vec<Vec<u8>>> {
    (!fields.is_empty()).then(|| [&b"HDEL"[..], key].iter().chain(fields).map(|a| a.to_vec()).collect())
}

/// `HPEXPIREAT key at FIELDS n fields...`, or nothing without fields.
fn hpexpireat(key: &[u8], at: u64, fields: &[&[u8]]) -> Option<Vec<Vec<u8>>> {
    let mut cmd = vec![b"HPEXPIREAT".to_vec(), key.to_vec(), at.to_string().into_bytes()];
    cmd.extend([b"FIELDS".to_vec(), fields.len().to_string().into_bytes()]);
    cmd.extend(fields.iter().map(|f| f.to_vec()));
    (!fields.is_empty()).then_some(cmd)
}

/// HEXPIRE and friends, as Redis propagates them: the fields they deleted (reply 2) as
/// HDEL, the ones they set (reply 1) as HPEXPIREAT at the absolute time, without the
/// condition (already decided); nothing for the rest.
fn hexpire_effect(name: &[u8], argv: &[&[u8]], reply: &Reply, now_ms: u64) -> Vec<Vec<Vec<u8>>> {
    let (key, amount) = (argv.get(1).copied().unwrap_or_default(), argv.get(2).copied().unwrap_or_default());
    let unit = if name == b"HEXPIRE" || name == b"HEXPIREAT" { 1000 } else { 1 };
    let Some(at) = field_expiry_abs(amount, unit, !name.ends_with(b"AT"), now_ms) else { return vec![] };
    let has_cond = argv.get(3).is_some_and(|w| matches!(upper(w).as_slice(), b"NX" | b"XX" | b"GT" | b"LT"));
    let fields = argv.get(if has_cond { 6 } else { 5 }..).unwrap_or_default();
    let deleted = fields_found(fields, reply, |r| *r == Reply::Int(2));
    let set = fields_found(fields, reply, |r| *r == Reply::Int(1));
    hdel(key, &deleted).into_iter().chain(hpexpireat(key, at, &set)).collect()
}

/// HGETEX, as Redis propagates it: nothing for a plain read; for the fields it found, an
/// expiry as HPEXPIREAT at the absolute time (HDEL when that is not in the future), PERSIST
/// as HPERSIST.
fn hgetex_effect(argv: &[&[u8]], reply: &Reply, now_ms: u64) -> Vec<Vec<Vec<u8>>> {
    let key = argv.get(1).copied().unwrap_or_default();
    let word = argv.get(2).copied().unwrap_or_default();
    let found = |at: usize| fields_found(argv.get(at..).unwrap_or_default(), reply, |r| matches!(r, Reply::Bulk(_)));
    if let Some((unit, relative)) = time_word(word) {
        let Some(at) = argv.get(3).and_then(|a| field_expiry_abs(a, unit, relative, now_ms)) else { return vec![] };
        let fields = found(6);
        let cmd = if at <= now_ms { hdel(key, &fields) } else { hpexpireat(key, at, &fields) };
        cmd.into_iter().collect()
    } else if upper(word) == b"PERSIST" {
        let fields = found(5);
        if fields.is_empty() {
            return vec![];
        }
        let mut cmd =
            vec![b"HPERSIST".to_vec(), key.to_vec(), b"FIELDS".to_vec(), fields.len().to_string().into_bytes()];
        cmd.extend(fields.iter().map(|f| f.to_vec()));
        vec![cmd]
    } else {
        vec![]
    }
}

/// HSETEX with its relative or second-based time (before FIELDS) as `PXAT` unix ms.
fn hsetex_absolute(argv: &[&[u8]], now_ms: u64) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = argv.iter().take(2).map(|a| a.to_vec()).collect();
    let mut i = 2;
    while i < argv.len() {
        if argv[i].eq_ignore_ascii_case(b"FIELDS") {
            out.extend(argv[i..].iter().map(|a| a.to_vec()));
            break;
        }
        if let (Some((unit, relative)), Some(amount)) = (time_word(argv[i]), argv.get(i + 1)) {
            if let Some(at) = field_expiry_abs(amount, unit, relative, now_ms) {
                out.extend([b"PXAT".to_vec(), at.to_string().into_bytes()]);
                i += 2;
                continue;
            }
        }
        out.push(argv[i].to_vec());
        i += 1;
    }
    out
}

/// The commands that recreate `key` holding `entry` (at most `batch` elements per command),
/// appended to `out` as RESP: what an AOF rewrite writes for each live key.
pub fn encode_entry(out: &mut Vec<u8>, key: &[u8], entry: &Entry, batch: usize) {
    let batch = batch.max(1);
    match entry.value {
        ValueRef::Str(v) => encode_command(out, &[&b"SET"[..], key, v]),
        ValueRef::List(l) => {
            let items: Vec<&[u8]> = l.iter().collect();
            for chunk in items.chunks(batch) {
                let mut cmd: Vec<&[u8]> = vec![b"RPUSH", key];
                cmd.extend_from_slice(chunk);
                encode_command(out, &cmd);
            }
        }
        ValueRef::Set(s) => {
            let items: Vec<&[u8]> = s.iter().collect();
            for chunk in items.chunks(batch) {
                let mut cmd: Vec<&[u8]> = vec![b"SADD", key];
                cmd.extend_from_slice(chunk);
                encode_command(out, &cmd);
            }
        }
        ValueRef::Hash(h) => {
            let items: Vec<(&[u8], &[u8])> = h.iter().collect();
            for chunk in items.chunks(batch) {
                let mut cmd: Vec<&[u8]> = vec![b"HSET", key];
                for (f, v) in chunk {
                    cmd.push(f);
                    cmd.push(v);
                }
                encode_command(out, &cmd);
            }
            for (field, at) in h.field_expiries() {
                let at = at.to_string();
                encode_command(out, &[&b"HPEXPIREAT"[..], key, at.as_bytes(), b"FIELDS", b"1", field]);
            }
        }
        ValueRef::Stream(s) => encode_stream(out, key, s),
        ValueRef::ZSet(z) => {
            let items: Vec<(Vec<u8>, &[u8])> = z.iter().map(|(m, s)| (format_g17(s).into_bytes(), m)).collect();
            for chunk in items.chunks(batch) {
                let mut cmd: Vec<&[u8]> = vec![b"ZADD", key];
                for (s, m) in chunk {
                    cmd.push(s);
                    cmd.push(m);
                }
                encode_command(out, &cmd);
            }
        }
    }
    if entry.expire_at != 0 {
        encode_command(out, &[&b"PEXPIREAT"[..], key, entry.expire_at.to_string().as_bytes()]);
    }
}

/// A stream as commands: an XADD per entry with its ID, then an XSETID that restores the
/// last ID, the entries-added count and the largest deleted ID (so an empty stream, or one
/// whose newest entries were deleted, comes back the same), then its groups. An empty stream
/// is made by an XADD that its own MAXLEN 0 trims away.
fn encode_stream(out: &mut Vec<u8>, key: &[u8], stream: &Stream) {
    if stream.is_empty() {
        // An entry added and trimmed at once makes the key; XSETID then sets the real state.
        encode_command(out, &[&b"XADD"[..], key, b"MAXLEN", b"0", b"0-1", b"x", b"y"]);
    }
    for (id, fields) in stream.range(MIN_ID, MAX_ID, false) {
        let id = id.to_bytes();
        let mut cmd: Vec<&[u8]> = Vec::with_capacity(3 + fields.len());
        cmd.extend([&b"XADD"[..], key, &id]);
        cmd.extend(fields);
        encode_command(out, &cmd);
    }
    let (last, added, deleted) =
        (stream.last_id().to_bytes(), stream.entries_added().to_string(), stream.max_deleted_id().to_bytes());
    encode_command(out, &[&b"XSETID"[..], key, &last, b"ENTRIESADDED", added.as_bytes(), b"MAXDELETEDID", &deleted]);
    encode_stream_groups(out, key, stream);
}

/// A stream's consumer groups in a rewrite, as Redis's `rewriteStreamObject` writes them:
/// each group with its last-delivered ID and entries-read counter, then each consumer as the
/// XCLAIMs of its pending entries (with their delivery time and count), or as XGROUP
/// CREATECONSUMER when it has none.
fn encode_stream_groups(out: &mut Vec<u8>, key: &[u8], stream: &Stream) {
    let Some(groups) = &stream.groups else { return };
    for (name, g) in groups.iter() {
        let read = g.entries_read.map_or(-1, |n| n as i64).to_string();
        let last = g.last_id.to_bytes();
        encode_command(out, &[&b"XGROUP"[..], b"CREATE", key, name, &last, b"ENTRIESREAD", read.as_bytes()]);
        for c in g.consumers().values() {
            if c.pel.is_empty() {
                encode_command(out, &[&b"XGROUP"[..], b"CREATECONSUMER", key, name, &c.name]);
                continue;
            }
            for id in &c.pel {
                let Some(nack) = g.pel().get(id) else { continue };
                let (id, time, count) =
                    (id.to_bytes(), nack.delivery_time.to_string(), nack.delivery_count.to_string());
                encode_command(
                    out,
                    &[
                        &b"XCLAIM"[..],
                        key,
                        name,
                        &c.name,
                        b"0",
                        &id,
                        b"TIME",
                        time.as_bytes(),
                        b"RETRYCOUNT",
                        count.as_bytes(),
                        b"JUSTID",
                        b"FORCE",
                    ],
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(argv: &[&str], reply: Reply) -> Vec<Vec<String>> {
        let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_bytes()).collect();
        rewrite_for_log(&argv, &reply, 1_000_000)
            .into_iter()
            .map(|c| c.into_iter().map(|a| String::from_utf8(a).unwrap()).collect())
            .collect()
    }

    #[test]
    fn relative_expiry_becomes_absolute() {
        assert_eq!(log(&["SET", "k", "v", "EX", "10"], Reply::Ok), [["SET", "k", "v", "PXAT", "1010000"]]);
        assert_eq!(log(&["SET", "k", "v", "px", "5", "NX"], Reply::Ok), [["SET", "k", "v", "PXAT", "1000005", "NX"]]);
        assert_eq!(log(&["SET", "k", "v", "EXAT", "7"], Reply::Ok), [["SET", "k", "v", "PXAT", "7000"]]);
        assert_eq!(log(&["SETEX", "k", "3", "v"], Reply::Ok), [["SET", "k", "v", "PXAT", "1003000"]]);
        assert_eq!(log(&["PSETEX", "k", "3", "v"], Reply::Ok), [["SET", "k", "v", "PXAT", "1000003"]]);
        assert_eq!(log(&["EXPIRE", "k", "2", "NX"], Reply::Int(1)), [["PEXPIREAT", "k", "1002000", "NX"]]);
        assert_eq!(log(&["PEXPIRE", "k", "2"], Reply::Int(1)), [["PEXPIREAT", "k", "1000002"]]);
        assert_eq!(log(&["EXPIREAT", "k", "2"], Reply::Int(1)), [["PEXPIREAT", "k", "2000"]]);
        assert_eq!(log(&["GETEX", "k", "EX", "1"], Reply::Bulk(b"v".to_vec())), [["GETEX", "k", "PXAT", "1001000"]]);
        // A value that happens to read "EX" is not an option.
        assert_eq!(log(&["SET", "EX", "EX"], Reply::Ok), [["SET", "EX", "EX"]]);
        // Nor is a comparison's operand.
        assert_eq!(
            log(&["SET", "k", "v", "IFEQ", "EX", "EX", "10"], Reply::Ok),
            [["SET", "k", "v", "IFEQ", "EX", "PXAT", "1010000"]]
        );
    }

    #[test]
    fn sort_is_logged_only_when_it_stores() {
        assert!(log(&["SORT", "l", "BY", "w_*"], Reply::Array(vec![])).is_empty());
        assert_eq!(log(&["SORT", "l", "store", "d"], Reply::Int(2)), [["SORT", "l", "store", "d"]]);
    }

    #[test]
    fn blocking_and_random_commands_log_their_effect() {
        let kv = Reply::Array(vec![Reply::Bulk(b"b".to_vec()), Reply::Bulk(b"x".to_vec())]);
        assert_eq!(log(&["BLPOP", "a", "b", "0"], kv), [["LPOP", "b"]]);
        assert!(log(&["BRPOP", "a", "0"], Reply::NilArray).is_empty());
        assert_eq!(
            log(&["BLMOVE", "s", "d", "LEFT", "RIGHT", "0"], Reply::Bulk(b"x".to_vec())),
            [["LMOVE", "s", "d", "LEFT", "RIGHT"]]
        );
        assert_eq!(log(&["BRPOPLPUSH", "s", "d", "0"], Reply::Bulk(b"x".to_vec())), [["RPOPLPUSH", "s", "d"]]);
        let key_elems = || {
            let elems = Reply::Array(vec![Reply::Bulk(b"x".to_vec()), Reply::Bulk(b"y".to_vec())]);
            Reply::Array(vec![Reply::Bulk(b"b".to_vec()), elems])
        };
        assert_eq!(log(&["LMPOP", "2", "a", "b", "left", "COUNT", "5"], key_elems()), [["LPOP", "b", "2"]]);
        assert_eq!(log(&["BLMPOP", "0", "2", "a", "b", "RIGHT", "COUNT", "5"], key_elems()), [["RPOP", "b", "2"]]);
        assert!(log(&["BLMPOP", "0", "1", "a", "LEFT"], Reply::NilArray).is_empty());
        let kms = Reply::Array(vec![Reply::Bulk(b"z".to_vec()), Reply::Bulk(b"m".to_vec()), Reply::Double(1.0)]);
        assert_eq!(log(&["BZPOPMAX", "y", "z", "0"], kms), [["ZPOPMAX", "z", "1"]]);
        assert_eq!(log(&["ZMPOP", "2", "a", "b", "min", "COUNT", "5"], key_elems()), [["ZPOPMIN", "b", "2"]]);
        assert_eq!(log(&["BZMPOP", "0", "1", "b", "MAX"], key_elems()), [["ZPOPMAX", "b", "2"]]);
        assert!(log(&["BZMPOP", "0", "1", "a", "MIN"], Reply::NilArray).is_empty());
        let popped = Reply::Array(vec![Reply::Bulk(b"m1".to_vec()), Reply::Bulk(b"m2".to_vec())]);
        assert_eq!(log(&["SPOP", "s", "2"], popped), [["SREM", "s", "m1", "m2"]]);
        assert_eq!(log(&["INCRBYFLOAT", "f", "0.1"], Reply::Bulk(b"1.1".to_vec())), [["SET", "f", "1.1", "KEEPTTL"]]);
        assert_eq!(log(&["INCR", "n"], Reply::Int(1)), [["INCR", "n"]]);
    }

    #[test]
    fn buffer_counts_and_drains() {
        let p = Propagation::default();
        p.append(0, &["SET", "k", "v"]);
        assert_eq!(p.appended(), 0, "disabled: nothing");
        p.set_enabled(true);
        p.append(0, &["SET", "k", "v"]);
        p.removed(0, b"k");
        let (bytes, end) = p.take();
        let select0 = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";
        let set = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n";
        let del = "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n";
        // The first command says its database; the next, in the same one, does not.
        assert_eq!(String::from_utf8_lossy(&bytes), format!("{select0}{set}{del}"));
        assert_eq!(end, bytes.len() as u64);
        assert!(p.take().0.is_empty());
        // Another database, then a transaction that moves between two.
        p.removed(2, b"k");
        let mut batch = Batch::default();
        batch.push(2, set.as_bytes());
        batch.push(5, del.as_bytes());
        p.append_batch(batch);
        p.append(5, &["SET", "k", "v"]);
        let select = |n: &str| format!("*2\r\n$6\r\nSELECT\r\n$1\r\n{n}\r\n");
        let multi = "*1\r\n$5\r\nMULTI\r\n";
        let exec = "*1\r\n$4\r\nEXEC\r\n";
        let want = format!("{}{del}{multi}{set}{}{del}{exec}{set}", select("2"), select("5"));
        assert_eq!(String::from_utf8_lossy(&p.take().0), want);
        assert_eq!(p.position(), (Some(5), end + want.len() as u64));
    }
}

#[cfg(test)]
mod engine_tests {
    use crate::testing::{drain_log as drain, TestEngine};

    #[test]
    fn engine_logs_successful_writes_only() {
        let mut t = TestEngine::default();
        t.engine.propagation().set_enabled(true);
        t.run(&["SET", "k", "v", "EX", "10"]);
        t.run(&["GET", "k"]);
        t.run(&["LPUSH", "k", "x"]); // WRONGTYPE: not logged
        t.run(&["MULTI"]);
        t.run(&["INCR", "n"]);
        t.run(&["GET", "n"]);
        t.run(&["EXEC"]);
        let now = t.now;
        assert_eq!(
            drain(&t),
            [
                "SELECT 0".into(),
                format!("SET k v PXAT {}", now + 10_000),
                "MULTI".into(),
                "INCR n".into(),
                "EXEC".into()
            ]
        );
        t.advance(20_000);
        t.run(&["GET", "k"]);
        assert_eq!(drain(&t), ["DEL k"]);
    }

    #[test]
    fn evictions_are_logged_as_del_and_flushall_in_order() {
        let config = crate::Config::default();
        config.set("maxmemory", "20kb").unwrap();
        config.set("maxmemory-policy", "allkeys-lru").unwrap();
        let mut t = TestEngine::new(config);
        t.engine.propagation().set_enabled(true);
        let value = "x".repeat(1000);
        for i in 0..100 {
            t.run(&["SET", &format!("k{i}"), &value]);
        }
        let log = drain(&t);
        let dels = log.iter().filter(|l| l.starts_with("DEL ")).count();
        assert!(dels > 50, "{dels} evictions logged");
        assert_eq!(dels as u64, t.engine.stats().keyspace.evicted_keys.load(std::sync::atomic::Ordering::Relaxed));
        t.run(&["FLUSHALL"]);
        assert_eq!(drain(&t), ["FLUSHALL"]);
    }

    #[test]
    fn hash_field_expiry_is_logged_in_absolute_form_and_expired_fields_as_hdel() {
        let mut t = TestEngine::default();
        t.engine.propagation().set_enabled(true);
        let now = t.now;
        t.run(&["HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4"]);
        t.run(&["HEXPIRE", "h", "10", "NX", "FIELDS", "3", "a", "b", "nope"]);
        t.run(&["HPEXPIRE", "h", "10", "NX", "FIELDS", "1", "a"]); // condition not met: nothing
        t.run(&["HEXPIREAT", "h", "1", "FIELDS", "1", "c"]); // in the past: HDEL
        t.run(&["HGETEX", "h", "FIELDS", "1", "a"]); // a read: nothing
        t.run(&["HGETEX", "h", "PX", "500", "FIELDS", "2", "b", "nope"]);
        t.run(&["HGETEX", "h", "PERSIST", "FIELDS", "1", "b"]);
        t.run(&["HSETEX", "h", "FNX", "EX", "5", "FIELDS", "1", "e", "5"]);
        t.run(&["HSETEX", "h", "FNX", "EX", "5", "FIELDS", "1", "e", "5"]); // FNX failed: nothing
        t.run(&["HGETDEL", "h", "FIELDS", "2", "d", "nope"]);
        t.run(&["HGETDEL", "h", "FIELDS", "1", "nope"]); // nothing deleted: nothing
        assert_eq!(
            drain(&t),
            [
                "SELECT 0".to_string(),
                "HSET h a 1 b 2 c 3 d 4".to_string(),
                format!("HPEXPIREAT h {} FIELDS 2 a b", now + 10_000),
                "HDEL h c".into(),
                format!("HPEXPIREAT h {} FIELDS 1 b", now + 500),
                "HPERSIST h FIELDS 1 b".into(),
                format!("HSETEX h FNX PXAT {} FIELDS 1 e 5", now + 5000),
                "HDEL h d".into(),
            ]
        );
        // Fields that expire are logged as HDEL when a lookup or the active cycle drops them.
        t.advance(6000);
        t.run(&["HGET", "h", "b"]);
        assert_eq!(drain(&t), ["HDEL h e"]);
        t.advance(10_000);
        t.engine.sweep(t.now, 100);
        assert_eq!(drain(&t), ["HDEL h a"]);
        assert_eq!(
            t.run(&["HGETALL", "h"]),
            crate::reply::Reply::Map(vec![(crate::testing::bulk("b"), crate::testing::bulk("2"))])
        );
        // An AOF rewrite writes each field's expiry after the fields.
        t.run(&["HPEXPIREAT", "h", &(t.now + 1000).to_string(), "FIELDS", "1", "b"]);
        let mut out = Vec::new();
        t.engine.store().unlocked(0).scan(0, 100, t.now, |k, e| super::encode_entry(&mut out, k, e, 10));
        let text = String::from_utf8_lossy(&out).replace("\r\n", " ");
        assert!(text.contains(&format!("HPEXPIREAT $1 h ${} {} $6 FIELDS $1 1 $1 b", 13, t.now + 1000)), "{text}");
    }

    #[test]
    fn refused_writes_answer_the_hosts_error() {
        let mut t = TestEngine::default();
        t.engine.propagation().refuse_writes(Some("MISCONF Errors writing to the AOF file: disk full".into()));
        assert_eq!(t.run(&["SET", "k", "v"]), crate::testing::err("MISCONF Errors writing to the AOF file: disk full"));
        assert_eq!(t.run(&["GET", "k"]), crate::testing::nil());
        t.engine.propagation().refuse_writes(None);
        assert_eq!(t.run(&["SET", "k", "v"]), crate::testing::ok());
    }
}
