//! The compatibility radar: every unknown command, unknown subcommand and refused option
//! (syntax error, unsupported option) clients send, counted per client library, with when it
//! was last seen and a sample of its arguments. It tells a user what would block a migration
//! before production does. Only dispatch's error paths record here, so it costs nothing on
//! a command that succeeds; the table is bounded (`CAPACITY` rows, the least sent go first).

use std::collections::HashMap;

use parking_lot::Mutex;
use serde::Serialize;
use ts_rs::TS;

use crate::clients::Client;
use crate::table::{Arg, Command};

/// Distinct (kind, command, option, library) rows kept; past it the least sent row goes.
pub const CAPACITY: usize = 256;
/// Arguments kept as a sample, and bytes kept of each.
const SAMPLE_ARGS: usize = 4;
const SAMPLE_BYTES: usize = 40;
/// Bytes kept of a command, option or library name (clients control them all).
const NAME_BYTES: usize = 64;

/// What was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, TS)]
#[serde(rename_all = "lowercase")]
#[ts(rename = "CompatKind")]
pub enum Kind {
    /// No such command.
    Command,
    /// A known container (CLIENT, CONFIG, ...) without this subcommand.
    Subcommand,
    /// A known command refused its arguments: `ERR syntax error` or `ERR Unsupported option`.
    Option,
}

impl Kind {
    /// As the views spell it (Prometheus's `kind` label).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Command => "command",
            Kind::Subcommand => "subcommand",
            Kind::Option => "option",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RowKey {
    kind: Kind,
    /// Upper case: `FOO`, `CLIENT NOSUCH`, `SET`.
    command: String,
    /// The refused option (upper case) when it can be told cheaply; empty otherwise.
    option: String,
    /// `redis-py 5.0.1`, the client's name, or `unknown`.
    library: String,
}

/// One radar row, as `GET /api/compat` shows it: one refused command, subcommand or option,
/// from one client library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(rename = "CompatRow")]
pub struct Sighting {
    pub kind: Kind,
    /// Upper case: `FOO`, `CLIENT NOSUCH`, `SET`.
    pub command: String,
    /// The refused option when it can be told (`option` rows; a best guess from Redis's
    /// argument docs).
    pub option: Option<String>,
    /// `lib-name lib-ver` from CLIENT SETINFO, else the client's name, else `unknown`.
    pub library: String,
    pub count: u64,
    pub first_ms: u64,
    pub last_ms: u64,
    /// The last sending's first arguments after the name, each cut to 40 bytes.
    pub sample: Vec<String>,
}

#[derive(Default)]
struct Inner {
    rows: HashMap<RowKey, Row>,
    /// Rows pushed out by `CAPACITY`, and the sendings they had counted.
    dropped_rows: u64,
    dropped_count: u64,
}

struct Row {
    count: u64,
    first_ms: u64,
    last_ms: u64,
    sample: Vec<String>,
}

/// The radar (one per engine).
#[derive(Default)]
pub struct Radar {
    inner: Mutex<Inner>,
}

/// Text of client-controlled bytes, at most `max` bytes of them.
fn clip(bytes: &[u8], max: usize) -> String {
    let cut = &bytes[..bytes.len().min(max)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > max {
        s.push('…');
    }
    s
}

/// Who sent it: `lib-name lib-ver` from CLIENT SETINFO, else the client's name, else `unknown`.
pub fn library_of(client: &Client) -> String {
    let name = client.lib_name.lock().clone();
    if let Some(name) = name.filter(|n| !n.is_empty()) {
        let mut lib = clip(&name, NAME_BYTES);
        if let Some(ver) = client.lib_ver.lock().clone().filter(|v| !v.is_empty()) {
            lib.push(' ');
            lib.push_str(&clip(&ver, NAME_BYTES));
        }
        return lib;
    }
    match client.name.lock().clone().filter(|n| !n.is_empty()) {
        Some(name) => clip(&name, NAME_BYTES),
        None => "unknown".into(),
    }
}

/// Whether an argument looks like an option word (`NX`, `WITHSCORES`, `KEEPTTL`), not a value.
fn word_like(arg: &[u8]) -> bool {
    arg.first().is_some_and(u8::is_ascii_alphabetic)
        && arg.len() <= NAME_BYTES
        && arg.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
}

fn has_token(args: &[Arg], word: &[u8]) -> bool {
    args.iter().any(|a| a.token.is_some_and(|t| t.as_bytes().eq_ignore_ascii_case(word)) || has_token(a.args, word))
}

/// The option a syntax error most likely refused, read from Redis's argument docs: past the
/// command's leading required arguments (its keys and values), the first word that is none of
/// the command's tokens. A guess, and `None` when nothing fits.
pub fn offending_option(cmd: &Command, argv: &[&[u8]]) -> Option<String> {
    let docs = cmd.meta().args;
    let leading = docs
        .iter()
        .take_while(|a| a.token.is_none() && !a.flags.iter().any(|f| *f == "optional" || *f == "multiple"))
        .filter(|a| a.kind != "oneof" && a.kind != "block")
        .count();
    let from = (cmd.args_start() + leading).min(argv.len());
    argv[from..].iter().find(|a| word_like(a) && !has_token(docs, a)).map(|a| clip(a, NAME_BYTES).to_ascii_uppercase())
}

impl Radar {
    /// Counts one refused command. `command` is its upper-case name (`CLIENT NOSUCH` for a
    /// subcommand); `args` the arguments after the name(s), sampled.
    pub fn record(
        &self,
        kind: Kind,
        command: &str,
        option: Option<String>,
        client: &Client,
        args: &[&[u8]],
        now_ms: u64,
    ) {
        let key = RowKey {
            kind,
            command: command.to_string(),
            option: option.unwrap_or_default(),
            library: library_of(client),
        };
        let sample: Vec<String> = args.iter().take(SAMPLE_ARGS).map(|a| clip(a, SAMPLE_BYTES)).collect();
        let mut inner = self.inner.lock();
        if let Some(row) = inner.rows.get_mut(&key) {
            row.count += 1;
            row.last_ms = row.last_ms.max(now_ms);
            row.sample = sample;
            return;
        }
        if inner.rows.len() >= CAPACITY {
            // The least sent row (the oldest among equals) makes room: a bounded table that
            // keeps what matters most, as a Space-Saving sketch would.
            let victim = inner.rows.iter().min_by_key(|(_, r)| (r.count, r.last_ms)).map(|(k, _)| k.clone());
            if let Some(victim) = victim {
                if let Some(row) = inner.rows.remove(&victim) {
                    inner.dropped_rows += 1;
                    inner.dropped_count += row.count;
                }
            }
        }
        inner.rows.insert(key, Row { count: 1, first_ms: now_ms, last_ms: now_ms, sample });
    }

    /// Every row, most sent first; with the rows and sendings dropped to stay bounded.
    pub fn sightings(&self) -> (Vec<Sighting>, u64, u64) {
        let inner = self.inner.lock();
        let mut rows: Vec<Sighting> = inner
            .rows
            .iter()
            .map(|(k, r)| Sighting {
                kind: k.kind,
                command: k.command.clone(),
                option: (!k.option.is_empty()).then(|| k.option.clone()),
                library: k.library.clone(),
                count: r.count,
                first_ms: r.first_ms,
                last_ms: r.last_ms,
                sample: r.sample.clone(),
            })
            .collect();
        rows.sort_by(|a, b| {
            b.count.cmp(&a.count).then_with(|| b.last_ms.cmp(&a.last_ms)).then_with(|| {
                (a.kind, &a.command, &a.option, &a.library).cmp(&(b.kind, &b.command, &b.option, &b.library))
            })
        });
        (rows, inner.dropped_rows, inner.dropped_count)
    }

    /// Forgets everything.
    pub fn reset(&self) {
        *self.inner.lock() = Inner::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table;

    fn client() -> std::sync::Arc<Client> {
        crate::clients::Clients::default().register("127.0.0.1:1", "127.0.0.1:6379", 0)
    }

    #[test]
    fn library_is_setinfo_then_name_then_unknown() {
        let c = client();
        assert_eq!(library_of(&c), "unknown");
        *c.name.lock() = Some(b"worker-7".to_vec());
        assert_eq!(library_of(&c), "worker-7");
        *c.lib_name.lock() = Some(b"redis-py".to_vec());
        assert_eq!(library_of(&c), "redis-py");
        *c.lib_ver.lock() = Some(b"5.0.1".to_vec());
        assert_eq!(library_of(&c), "redis-py 5.0.1");
    }

    #[test]
    fn rows_count_per_library_and_stay_bounded() {
        let r = Radar::default();
        let c = client();
        r.record(Kind::Command, "FOO", None, &c, &[b"a", b"b"], 10);
        r.record(Kind::Command, "FOO", None, &c, &[b"c"], 20);
        *c.lib_name.lock() = Some(b"ioredis".to_vec());
        r.record(Kind::Command, "FOO", None, &c, &[], 30);
        let (rows, dropped, _) = r.sightings();
        assert_eq!(dropped, 0);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].library.as_str(), rows[0].count, rows[0].first_ms, rows[0].last_ms),
            ("unknown", 2, 10, 20)
        );
        assert_eq!(rows[0].sample, ["c"]);
        assert_eq!(rows[1].library, "ioredis");
        for i in 0..CAPACITY + 10 {
            r.record(Kind::Command, &format!("X{i}"), None, &c, &[&[b'x'; 100]], 40);
        }
        let (rows, dropped, dropped_count) = r.sightings();
        assert_eq!(rows.len(), CAPACITY);
        assert!(dropped >= 10 && dropped_count >= 10, "{dropped} {dropped_count}");
        // The most sent row survives the flood of one-offs.
        assert_eq!((rows[0].command.as_str(), rows[0].count), ("FOO", 2));
        assert!(rows.iter().all(|s| s.sample.iter().all(|a| a.chars().count() <= SAMPLE_BYTES + 1)));
        r.reset();
        assert!(r.sightings().0.is_empty());
    }

    #[test]
    fn the_refused_option_is_the_first_word_that_is_no_token() {
        let set = table::lookup(b"SET").unwrap().1;
        let argv: [&[u8]; 5] = [b"SET", b"k", b"v", b"NX", b"KEEPIT"];
        assert_eq!(offending_option(set, &argv).as_deref(), Some("KEEPIT"));
        let argv: [&[u8]; 4] = [b"SET", b"k", b"v", b"ex"];
        assert_eq!(offending_option(set, &argv), None);
        let expire = table::lookup(b"EXPIRE").unwrap().1;
        let argv: [&[u8]; 4] = [b"EXPIRE", b"k", b"10", b"foo"];
        assert_eq!(offending_option(expire, &argv).as_deref(), Some("FOO"));
    }
}
