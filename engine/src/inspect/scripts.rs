//! The scripts views (`GET /api/scripts`, `GET /api/scripts/{id}`, the dashboard's "Scripts"
//! page): the cached scripts with what they did (calls, errors, time, the commands they ran)
//! and, above all, the keys they touched without declaring them in KEYS, which works on one
//! server but breaks in a cluster. Built from `script::usage`. Without the `scripting`
//! feature (the wasm playground has no Lua VM) the list says so and is empty.

use serde::Serialize;
use ts_rs::TS;

use super::{Bytes, Refusal, Status};
use crate::engine::Engine;

/// What the views say where there is no Lua VM.
pub const UNAVAILABLE: &str = "Scripting runs on the server: the browser playground has no Lua VM.";

/// One cached script (or registered function) and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ScriptRow {
    /// The script's SHA1 (or the function's name).
    pub id: String,
    /// `script` (EVAL, EVALSHA) or `function` (FCALL).
    pub kind: String,
    /// The first line of code (after a shebang), cut to 80 characters.
    pub preview: String,
    /// Shebang flags (`no-writes`, `allow-oom`, ...); `shebang` when one is declared.
    pub flags: Vec<String>,
    pub calls: u64,
    /// Runs that ended in an error reply.
    pub errors: u64,
    pub avg_us: f64,
    pub max_us: u64,
    pub total_us: u64,
    /// KEYS given over all calls.
    pub declared_keys: u64,
    /// Key accesses by the commands it ran.
    pub touched_keys: u64,
    /// Key accesses to keys not in the call's KEYS: the script breaks in a cluster.
    pub undeclared_keys: u64,
    /// Up to 3 of those keys, for the list (the detail has up to 16).
    pub undeclared_sample: Vec<Bytes>,
    /// A run switched database (SELECT inside the script).
    pub selects_db: bool,
    /// Unix ms of the last call (`null`: never called, only loaded).
    pub last_call_ms: Option<u64>,
}

/// `GET /api/scripts`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ScriptsView {
    /// Whether this engine runs scripts (not in the browser playground).
    pub available: bool,
    /// Why not, when it does not.
    pub message: Option<String>,
    /// Most called first.
    pub scripts: Vec<ScriptRow>,
    /// Whether the host lends the engine a clock (without one run times are 0).
    pub timed: bool,
}

/// Calls of one command by a script.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ScriptCommandCount {
    pub name: String,
    pub calls: u64,
}

/// `GET /api/scripts/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ScriptDetail {
    pub script: ScriptRow,
    /// The whole body (`null` for a function whose library is not shown here).
    pub source: Option<Bytes>,
    /// Commands it ran through `redis.call` / `redis.pcall`, most called first.
    pub commands: Vec<ScriptCommandCount>,
    /// Calls of commands past the 64 named ones.
    pub other_commands: u64,
    /// Up to 16 keys it was given in KEYS.
    pub declared_examples: Vec<Bytes>,
    /// Up to 16 keys its commands touched.
    pub touched_examples: Vec<Bytes>,
    /// Up to 16 keys its commands touched without their being in KEYS.
    pub undeclared_examples: Vec<Bytes>,
}

/// The scripts list.
pub fn scripts(engine: &Engine) -> ScriptsView {
    #[cfg(feature = "scripting")]
    {
        let mut rows = imp::rows(engine);
        rows.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.id.cmp(&b.id)));
        ScriptsView { available: true, message: None, scripts: rows, timed: engine.timing().enabled() }
    }
    #[cfg(not(feature = "scripting"))]
    {
        ScriptsView {
            available: false,
            message: Some(UNAVAILABLE.into()),
            scripts: vec![],
            timed: engine.timing().enabled(),
        }
    }
}

/// One script by SHA1 (any case) or function by name.
pub fn script(engine: &Engine, id: &str) -> Result<ScriptDetail, Refusal> {
    #[cfg(feature = "scripting")]
    {
        imp::detail(engine, id).ok_or_else(|| Refusal::new(Status::NotFound, "not_found", format!("no script {id}")))
    }
    #[cfg(not(feature = "scripting"))]
    {
        let _ = (engine, id);
        Err(Refusal::new(Status::NotFound, "not_found", UNAVAILABLE))
    }
}

#[cfg(feature = "scripting")]
mod imp {
    use super::*;
    use crate::script::cache::{Flags, Script};
    use crate::script::usage::{Examples, Kind, Record};

    /// Characters of a script's first line shown in the list.
    const PREVIEW_CHARS: usize = 80;

    pub(super) fn rows(engine: &Engine) -> Vec<ScriptRow> {
        let scripts = &engine.scripts;
        let cached = scripts.cache.lock().scripts();
        let usage = scripts.usage.lock();
        let mut rows: Vec<ScriptRow> =
            cached.iter().map(|s| row(Kind::Script, &s.sha, Some(s), usage.get(Kind::Script, &s.sha))).collect();
        // Every loaded function, called or not, with its library's code. A running function
        // holds the registry: then only those that have run are listed (from their records).
        let mut listed = std::collections::HashSet::new();
        if let Some(functions) = scripts.functions.try_lock() {
            for lib in functions.libraries.iter() {
                for f in &lib.functions {
                    let r = usage.get(Kind::Function, &f.name);
                    let mut function_row = row(Kind::Function, &f.name, None, r);
                    function_row.preview = format!("library {}: {}", lib.name, preview(&lib.code));
                    function_row.flags =
                        crate::script::functions::flag_names(&f.flags).into_iter().map(str::to_string).collect();
                    listed.insert(f.name.clone());
                    rows.push(function_row);
                }
            }
        }
        rows.extend(
            usage
                .records()
                .filter(|r| r.kind == Kind::Function && !listed.contains(&r.id))
                .map(|r| row(r.kind, &r.id, None, Some(r))),
        );
        rows
    }

    /// A loaded function's library code, unless a running function holds the registry.
    fn function_code(engine: &Engine, name: &str) -> Option<Vec<u8>> {
        let functions = engine.scripts.functions.try_lock()?;
        let lib = functions.libraries.iter().find(|lib| lib.functions.iter().any(|f| f.name == name))?;
        Some(lib.code.clone())
    }

    pub(super) fn detail(engine: &Engine, id: &str) -> Option<ScriptDetail> {
        let scripts = &engine.scripts;
        let cached = scripts.cache.lock().get(id.as_bytes());
        let usage = scripts.usage.lock();
        let (kind, id) = match &cached {
            Some(s) => (Kind::Script, s.sha.as_str()),
            None => (Kind::Function, id),
        };
        let record = usage.get(kind, id);
        let function_code = if cached.is_none() { function_code(engine, id) } else { None };
        if cached.is_none() && record.is_none() && function_code.is_none() {
            return None;
        }
        let examples = |pick: fn(&Record) -> &Examples| {
            record.map_or_else(Vec::new, |r| pick(r).keys().iter().map(|k| Bytes(k.clone())).collect())
        };
        let mut commands: Vec<ScriptCommandCount> = record.map_or_else(Vec::new, |r| {
            r.commands.names.iter().map(|&(name, calls)| ScriptCommandCount { name: name.to_string(), calls }).collect()
        });
        commands.sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
        Some(ScriptDetail {
            script: row(kind, id, cached.as_ref(), record),
            source: cached.as_ref().map(|s| Bytes(s.body.clone())).or(function_code.map(Bytes)),
            commands,
            other_commands: record.map_or(0, |r| r.commands.other),
            declared_examples: examples(|r| &r.declared_examples),
            touched_examples: examples(|r| &r.touched_examples),
            undeclared_examples: examples(|r| &r.undeclared_examples),
        })
    }

    fn row(kind: Kind, id: &str, script: Option<&std::sync::Arc<Script>>, r: Option<&Record>) -> ScriptRow {
        let calls = r.map_or(0, |r| r.calls);
        let total_us = r.map_or(0, |r| r.total_us);
        ScriptRow {
            id: id.to_string(),
            kind: kind.name().to_string(),
            preview: script.map_or_else(String::new, |s| preview(&s.body)),
            flags: script.map_or_else(Vec::new, |s| flag_names(&s.flags)),
            calls,
            errors: r.map_or(0, |r| r.errors),
            avg_us: if calls == 0 { 0.0 } else { total_us as f64 / calls as f64 },
            max_us: r.map_or(0, |r| r.max_us),
            total_us,
            declared_keys: r.map_or(0, |r| r.declared_keys),
            touched_keys: r.map_or(0, |r| r.touched_keys),
            undeclared_keys: r.map_or(0, |r| r.undeclared_keys),
            undeclared_sample: r.map_or_else(Vec::new, |r| {
                r.undeclared_examples.keys().iter().take(3).map(|k| Bytes(k.clone())).collect()
            }),
            selects_db: r.is_some_and(|r| r.selected_db),
            last_call_ms: r.filter(|r| r.calls > 0).map(|r| r.last_call_ms),
        }
    }

    /// The first line with code (a shebang and blank lines skipped), cut to a preview.
    fn preview(body: &[u8]) -> String {
        let text = String::from_utf8_lossy(body);
        let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with("#!"));
        let first = lines.next().unwrap_or("").trim();
        let mut out: String = first.chars().take(PREVIEW_CHARS).collect();
        if first.chars().count() > PREVIEW_CHARS || lines.next().is_some() {
            out.push('…');
        }
        out
    }

    fn flag_names(f: &Flags) -> Vec<String> {
        let named = [
            (f.shebang, "shebang"),
            (f.no_writes, "no-writes"),
            (f.allow_oom, "allow-oom"),
            (f.allow_stale, "allow-stale"),
            (f.no_cluster, "no-cluster"),
            (f.allow_cross_slot_keys, "allow-cross-slot-keys"),
        ];
        named.iter().filter(|(on, _)| *on).map(|(_, n)| n.to_string()).collect()
    }
}

#[cfg(test)]
#[cfg(feature = "scripting")]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn the_views_show_calls_commands_and_undeclared_keys() {
        let mut t = TestEngine::default();
        t.clock.set_step(5);
        let body = "#!lua\nredis.call('SET', KEYS[1], 1)\nreturn redis.call('GET', 'other')";
        t.run(&["EVAL", body, "1", "mine"]);
        t.run(&["EVAL", body, "1", "mine"]);
        t.run(&["EVAL", "return redis.call('NOSUCH')", "0"]);
        t.run(&["SCRIPT", "LOAD", "return 1"]);
        let view = scripts(&t.engine);
        assert!(view.available);
        assert_eq!(view.scripts.len(), 3);
        let top = &view.scripts[0];
        assert_eq!((top.calls, top.errors, top.declared_keys, top.touched_keys, top.undeclared_keys), (2, 0, 2, 4, 2));
        assert_eq!(top.preview, "redis.call('SET', KEYS[1], 1)…");
        assert_eq!(top.flags, vec!["shebang".to_string()]);
        assert_eq!(top.undeclared_sample, vec![Bytes(b"other".to_vec())]);
        assert!(top.max_us > 0 && top.avg_us > 0.0, "{top:?}");
        let failing = view.scripts.iter().find(|r| r.preview.contains("NOSUCH")).unwrap();
        assert_eq!((failing.calls, failing.errors), (1, 1));
        let loaded = view.scripts.iter().find(|r| r.preview == "return 1").unwrap();
        assert_eq!((loaded.calls, loaded.last_call_ms), (0, None));

        let d = script(&t.engine, &top.id.to_ascii_uppercase()).unwrap();
        assert_eq!(d.source, Some(Bytes(body.as_bytes().to_vec())));
        let names: Vec<_> = d.commands.iter().map(|c| (c.name.as_str(), c.calls)).collect();
        assert_eq!(names, vec![("GET", 2), ("SET", 2)]);
        assert_eq!(d.undeclared_examples, vec![Bytes(b"other".to_vec())]);
        assert_eq!(d.declared_examples, vec![Bytes(b"mine".to_vec())]);
        assert_eq!(script(&t.engine, "nope").unwrap_err().status, Status::NotFound);

        t.run(&["SCRIPT", "FLUSH"]);
        assert!(scripts(&t.engine).scripts.is_empty());
    }

    #[test]
    fn loaded_functions_are_listed_with_their_library_and_counted_once_called() {
        let mut t = TestEngine::default();
        let lib = "#!lua name=mylib\nredis.register_function{function_name='touch', callback=function(keys) return redis.call('INCR', 'elsewhere') end, flags={'allow-oom'}}";
        assert_eq!(t.run(&["FUNCTION", "LOAD", lib]), bulk("mylib"));
        let row = scripts(&t.engine).scripts.into_iter().find(|r| r.id == "touch").expect("the function is listed");
        assert_eq!((row.kind.as_str(), row.calls), ("function", 0));
        assert!(row.preview.starts_with("library mylib: redis.register_function"), "{}", row.preview);
        assert_eq!(row.flags, vec!["allow-oom".to_string()]);
        assert_eq!(t.run(&["FCALL", "touch", "1", "k"]), int(1));
        let row = scripts(&t.engine).scripts.into_iter().find(|r| r.id == "touch").expect("listed once");
        assert_eq!((row.calls, row.undeclared_keys), (1, 1));
        assert_eq!(scripts(&t.engine).scripts.iter().filter(|r| r.id == "touch").count(), 1);
        assert_eq!(script(&t.engine, "touch").unwrap().source, Some(Bytes(lib.as_bytes().to_vec())));
    }

    #[test]
    fn a_select_inside_a_script_is_shown() {
        let mut t = TestEngine::default();
        t.run(&["EVAL", "redis.call('SELECT', 2); return redis.call('SET', KEYS[1], 1)", "1", "k"]);
        let row = &scripts(&t.engine).scripts[0];
        assert!(row.selects_db);
        assert_eq!(row.undeclared_keys, 0);
    }
}
