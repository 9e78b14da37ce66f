//! Propagation: the write commands the engine ran, in canonical, replayable form, for the
//! host's append-only file. Off by default (one atomic load per write); when on, every
//! successful write is appended as RESP to one buffer the host drains, while the command still
//! holds its shards' locks, so the buffer's order is the order writes took effect.
//!
//! Canonical form (`rewrite_for_log`): relative expiry becomes absolute (`PXAT`,
//! `PEXPIREAT`), blocking pops their non-blocking form, random pops the members they removed,
//! float increments the value they produced; evictions and expirations are logged as `DEL`,
//! and an EXEC as `MULTI` ... `EXEC` around its writes.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64};

use parking_lot::Mutex;

use crate::num::{format_g17, parse_i64};
use crate::reply::{encode_bulk, Reply};
use crate::store::entry::{Entry, ValueRef};
use crate::store::RemovalLog;

/// The propagation buffer of one engine.
#[derive(Default)]
pub struct Propagation {
    enabled: AtomicBool,
    /// Set by the host when it cannot persist writes: writes are refused with this text.
    refusing: AtomicBool,
    refusal: Mutex<String>,
    buf: Mutex<Vec<u8>>,
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
        (std::mem::take(&mut *buf), end)
    }

    /// Appends already-encoded commands.
    pub fn append_raw(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut buf = self.buf.lock();
        buf.extend_from_slice(bytes);
        self.appended.fetch_add(bytes.len() as u64, Release);
    }

    /// Appends one command.
    pub fn append<A: AsRef<[u8]>>(&self, argv: &[A]) {
        if !self.enabled() {
            return;
        }
        let mut out = Vec::new();
        encode_command(&mut out, argv);
        self.append_raw(&out);
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

/// The store's evictions and expirations, logged as DEL.
impl RemovalLog for Propagation {
    fn removed(&self, key: &[u8]) {
        if self.enabled() {
            self.append(&[&b"DEL"[..], key]);
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
        b"INCRBYFLOAT" => match reply {
            Reply::Bulk(v) => vec![vec![b"SET".to_vec(), argv[1].to_vec(), v.clone(), b"KEEPTTL".to_vec()]],
            _ => own(),
        },
        _ => own(),
    }
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
        }
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
        p.append(&["SET", "k", "v"]);
        assert_eq!(p.appended(), 0, "disabled: nothing");
        p.set_enabled(true);
        p.append(&["SET", "k", "v"]);
        p.removed(b"k");
        let (bytes, end) = p.take();
        assert_eq!(bytes, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
        assert_eq!(end, bytes.len() as u64);
        assert!(p.take().0.is_empty());
    }
}

#[cfg(test)]
mod engine_tests {
    use crate::testing::TestEngine;

    /// The logged commands, as text lines.
    fn drain(t: &TestEngine) -> Vec<String> {
        let (bytes, _) = t.engine.propagation().take();
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < bytes.len() {
            let (argv, used) = crate::resp::parse_command(&bytes[pos..], &Default::default()).unwrap().unwrap();
            out.push(
                argv.iter().map(|a| String::from_utf8_lossy(a.as_ref()).into_owned()).collect::<Vec<_>>().join(" "),
            );
            pos += used;
        }
        out
    }

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
            [format!("SET k v PXAT {}", now + 10_000), "MULTI".into(), "INCR n".into(), "EXEC".into()]
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
    fn refused_writes_answer_the_hosts_error() {
        let mut t = TestEngine::default();
        t.engine.propagation().refuse_writes(Some("MISCONF Errors writing to the AOF file: disk full".into()));
        assert_eq!(t.run(&["SET", "k", "v"]), crate::testing::err("MISCONF Errors writing to the AOF file: disk full"));
        assert_eq!(t.run(&["GET", "k"]), crate::testing::nil());
        t.engine.propagation().refuse_writes(None);
        assert_eq!(t.run(&["SET", "k", "v"]), crate::testing::ok());
    }
}
