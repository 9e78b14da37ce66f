//! What scripts do, for the dashboard's Scripts page: per script (or, later, registered
//! function) its calls, errors and run time, the commands it ran through `redis.call` /
//! `redis.pcall`, and the keys it touched, above all those it did not declare in KEYS (which
//! breaks in a cluster, where a script may only touch the declared keys of one slot).
//!
//! One run is logged in a [`RunLog`] on the caller's session (no lock per `redis.call`) and
//! folded into the shared [`Usage`] when it ends. Memory is bounded: at most [`MAX_RECORDS`]
//! records, each with at most [`MAX_COMMANDS`] command names and [`MAX_EXAMPLES`] key names
//! of at most [`MAX_KEY_BYTES`] bytes per list.

use std::collections::HashMap;

use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

/// Records kept at most; past it the least called one makes room.
pub const MAX_RECORDS: usize = 1024;
/// Command names counted per record (the rest add to `other_commands`).
pub const MAX_COMMANDS: usize = 64;
/// Example key names kept per list (declared, touched, undeclared).
pub const MAX_EXAMPLES: usize = 16;
/// An example key name is cut to this many bytes.
pub const MAX_KEY_BYTES: usize = 256;

/// What ran: an EVAL script (by SHA) or a registered function (by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Script,
    Function,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Script => "script",
            Kind::Function => "function",
        }
    }
}

/// Distinct key names, at most [`MAX_EXAMPLES`], each cut to [`MAX_KEY_BYTES`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Examples(Vec<Vec<u8>>);

impl Examples {
    fn add(&mut self, key: &[u8]) {
        let key = &key[..key.len().min(MAX_KEY_BYTES)];
        if self.0.len() < MAX_EXAMPLES && !self.0.iter().any(|k| k == key) {
            self.0.push(key.to_vec());
        }
    }

    fn merge(&mut self, other: &Examples) {
        for k in &other.0 {
            self.add(k);
        }
    }

    pub fn keys(&self) -> &[Vec<u8>] {
        &self.0
    }
}

/// Counts by command name, at most [`MAX_COMMANDS`] names; calls past it go to `other`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandCounts {
    pub names: Vec<(&'static str, u64)>,
    pub other: u64,
}

impl CommandCounts {
    fn add(&mut self, name: &'static str, n: u64) {
        if let Some(entry) = self.names.iter_mut().find(|(c, _)| *c == name) {
            entry.1 += n;
        } else if self.names.len() < MAX_COMMANDS {
            self.names.push((name, n));
        } else {
            self.other += n;
        }
    }
}

/// One run, as it goes: kept on the caller's session while the script runs.
#[derive(Debug, Default)]
pub struct RunLog {
    /// The run's KEYS.
    declared: Vec<Vec<u8>>,
    /// The database the run began in (a command in another one means it SELECTed).
    db: usize,
    commands: CommandCounts,
    touched: u64,
    touched_examples: Examples,
    undeclared: u64,
    undeclared_examples: Examples,
    selected_db: bool,
}

impl RunLog {
    pub fn new(declared: &[&[u8]], db: usize) -> RunLog {
        RunLog { declared: declared.iter().map(|k| k.to_vec()).collect(), db, ..RunLog::default() }
    }

    /// Logs one `redis.call` of `name` touching `keys`, run in database `db`.
    #[cfg(test)]
    pub fn command<'k>(&mut self, name: &'static str, keys: impl Iterator<Item = &'k [u8]>, db: usize) {
        self.log(name, keys, db);
    }

    fn log<'k>(&mut self, name: &'static str, keys: impl Iterator<Item = &'k [u8]>, db: usize) {
        self.commands.add(name, 1);
        if db != self.db {
            self.selected_db = true;
        }
        for key in keys {
            self.touched += 1;
            self.touched_examples.add(key);
            if !self.declared.iter().any(|d| d == key) {
                self.undeclared += 1;
                self.undeclared_examples.add(key);
            }
        }
    }
}

impl crate::session::ScriptLog for RunLog {
    fn command(&mut self, name: &'static str, keys: &mut dyn Iterator<Item = &[u8]>, db: usize) {
        self.log(name, keys, db);
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// What one script (or function) has done since it was cached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub kind: Kind,
    /// The script's SHA1, or the function's name.
    pub id: String,
    pub calls: u64,
    /// Runs that ended in an error reply.
    pub errors: u64,
    pub total_us: u64,
    pub max_us: u64,
    /// KEYS over all calls.
    pub declared_keys: u64,
    pub declared_examples: Examples,
    pub commands: CommandCounts,
    /// Key accesses by its commands, declared or not.
    pub touched_keys: u64,
    pub touched_examples: Examples,
    /// Key accesses to keys that were not in the call's KEYS.
    pub undeclared_keys: u64,
    pub undeclared_examples: Examples,
    /// A run switched database (SELECT inside the script).
    pub selected_db: bool,
    /// Unix ms of the last call.
    pub last_call_ms: u64,
}

impl Record {
    fn new(kind: Kind, id: &str) -> Record {
        Record {
            kind,
            id: id.to_string(),
            calls: 0,
            errors: 0,
            total_us: 0,
            max_us: 0,
            declared_keys: 0,
            declared_examples: Examples::default(),
            commands: CommandCounts::default(),
            touched_keys: 0,
            touched_examples: Examples::default(),
            undeclared_keys: 0,
            undeclared_examples: Examples::default(),
            selected_db: false,
            last_call_ms: 0,
        }
    }
}

/// How one run ended.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    pub error: bool,
    pub us: u64,
    pub now_ms: u64,
}

/// Every record, by kind and id (a map per kind, so a lookup by `&str` allocates nothing).
#[derive(Debug, Default)]
pub struct Usage {
    scripts: HashMap<String, Record>,
    functions: HashMap<String, Record>,
}

impl Usage {
    fn map(&mut self, kind: Kind) -> &mut HashMap<String, Record> {
        match kind {
            Kind::Script => &mut self.scripts,
            Kind::Function => &mut self.functions,
        }
    }

    /// Folds a finished run of `kind` `id` into its record.
    pub fn record(&mut self, kind: Kind, id: &str, log: &RunLog, outcome: Outcome) {
        if !self.map(kind).contains_key(id) {
            if self.len() >= MAX_RECORDS {
                self.drop_least_called();
            }
            self.map(kind).insert(id.to_string(), Record::new(kind, id));
        }
        let Some(r) = self.map(kind).get_mut(id) else { return };
        r.calls += 1;
        r.errors += outcome.error as u64;
        r.total_us += outcome.us;
        r.max_us = r.max_us.max(outcome.us);
        r.last_call_ms = outcome.now_ms;
        r.declared_keys += log.declared.len() as u64;
        for k in &log.declared {
            r.declared_examples.add(k);
        }
        for &(name, n) in &log.commands.names {
            r.commands.add(name, n);
        }
        r.commands.other += log.commands.other;
        r.touched_keys += log.touched;
        r.touched_examples.merge(&log.touched_examples);
        r.undeclared_keys += log.undeclared;
        r.undeclared_examples.merge(&log.undeclared_examples);
        r.selected_db |= log.selected_db;
    }

    fn drop_least_called(&mut self) {
        let least = self.records().min_by_key(|r| (r.calls, r.last_call_ms)).map(|r| (r.kind, r.id.clone()));
        if let Some((kind, id)) = least {
            self.map(kind).remove(&id);
        }
    }

    pub fn get(&self, kind: Kind, id: &str) -> Option<&Record> {
        match kind {
            Kind::Script => self.scripts.get(id),
            Kind::Function => self.functions.get(id),
        }
    }

    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.scripts.values().chain(self.functions.values())
    }

    /// Forgets every record of `kind` (SCRIPT FLUSH, FUNCTION FLUSH).
    pub fn forget(&mut self, kind: Kind) {
        self.map(kind).clear();
    }

    pub fn len(&self) -> usize {
        self.scripts.len() + self.functions.len()
    }
}

/// Runs `run` (one call of script or function `id` with these KEYS) and records what it did:
/// its `redis.call`s are logged on the session meanwhile, and its time is read from the
/// engine's command clock, as commands are timed.
pub(crate) fn observe(
    ctx: &mut Ctx<'_>,
    kind: Kind,
    id: &str,
    keys: &[&[u8]],
    run: impl FnOnce(&mut Ctx<'_>) -> Result<Reply, CmdError>,
) -> Result<Reply, CmdError> {
    let engine = ctx.engine;
    let started = engine.timing().now_us();
    let outer = ctx.session.script_log.replace(Box::new(RunLog::new(keys, ctx.session.db)));
    let result = run(ctx);
    let log = std::mem::replace(&mut ctx.session.script_log, outer);
    let us = engine.timing().now_us().saturating_sub(started);
    let error = matches!(result, Err(_) | Ok(Reply::Error(_)));
    if let Some(log) = log.and_then(|l| l.into_any().downcast::<RunLog>().ok()) {
        engine.scripts.usage.lock().record(kind, id, &log, Outcome { error, us, now_ms: ctx.now });
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(us: u64, error: bool) -> Outcome {
        Outcome { error, us, now_ms: 1 }
    }

    #[test]
    fn undeclared_keys_are_told_apart_from_declared_ones() {
        let mut log = RunLog::new(&[b"a"], 0);
        log.command("GET", [&b"a"[..]].into_iter(), 0);
        log.command("SET", [&b"b"[..]].into_iter(), 0);
        log.command("MGET", [&b"a"[..], &b"c"[..], &b"b"[..]].into_iter(), 0);
        let mut u = Usage::default();
        u.record(Kind::Script, "sha", &log, outcome(7, false));
        let r = u.get(Kind::Script, "sha").unwrap();
        assert_eq!((r.calls, r.errors, r.total_us, r.max_us), (1, 0, 7, 7));
        assert_eq!((r.touched_keys, r.undeclared_keys, r.declared_keys), (5, 3, 1));
        assert_eq!(r.undeclared_examples.keys(), &[b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(r.declared_examples.keys(), &[b"a".to_vec()]);
        assert_eq!(r.commands.names, vec![("GET", 1), ("SET", 1), ("MGET", 1)]);
        assert!(!r.selected_db);
    }

    #[test]
    fn runs_add_up_and_a_select_is_noticed() {
        let mut u = Usage::default();
        u.record(Kind::Script, "s", &RunLog::new(&[], 0), outcome(5, false));
        let mut log = RunLog::new(&[], 0);
        log.command("SELECT", std::iter::empty(), 0);
        log.command("GET", [&b"k"[..]].into_iter(), 3);
        u.record(Kind::Script, "s", &log, outcome(20, true));
        let r = u.get(Kind::Script, "s").unwrap();
        assert_eq!((r.calls, r.errors, r.total_us, r.max_us), (2, 1, 25, 20));
        assert!(r.selected_db);
        u.forget(Kind::Script);
        assert_eq!(u.len(), 0);
    }

    #[test]
    fn examples_commands_and_records_are_bounded() {
        let mut log = RunLog::new(&[], 0);
        let long = vec![b'x'; 1000];
        log.command("SET", [&long[..]].into_iter(), 0);
        for i in 0..100 {
            let key = format!("k{i}");
            log.command("GET", [key.as_bytes()].into_iter(), 0);
        }
        let mut u = Usage::default();
        u.record(Kind::Script, "s", &log, outcome(1, false));
        let r = u.get(Kind::Script, "s").unwrap();
        assert_eq!(r.undeclared_keys, 101);
        assert_eq!(r.undeclared_examples.keys().len(), MAX_EXAMPLES);
        assert_eq!(r.undeclared_examples.keys()[0].len(), MAX_KEY_BYTES);
        let mut counts = CommandCounts::default();
        for name in crate::table::COMMANDS.iter().map(|c| c.name).take(MAX_COMMANDS + 5) {
            counts.add(name, 2);
        }
        assert_eq!((counts.names.len(), counts.other), (MAX_COMMANDS, 10));
        for i in 0..MAX_RECORDS + 10 {
            u.record(Kind::Function, &format!("f{i}"), &RunLog::new(&[], 0), outcome(1, false));
        }
        assert_eq!(u.len(), MAX_RECORDS);
    }
}
