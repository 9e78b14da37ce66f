//! The engine's imports point one way (DESIGN.md, "Layers"): this reads every file under
//! `engine/src`, collects the `crate::<module>` paths it uses outside `#[cfg(test)]` code, and
//! fails naming the file and the path whenever a module reaches a layer above its own.
//! Dispatch, the table and the command families share one layer, so they may use each other;
//! `inspect` (the hosts' views) and `testing` (the test harness) sit on top, and nothing but
//! `lib.rs` names `inspect`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every top-level module of the crate, bottom layer first. A module missing here fails the
/// test, so a new one has to be given a place.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "leaves",
        &[
            "num",
            "glob",
            "error",
            "reply",
            "reply_json",
            "reply_cli",
            "resp",
            "counter",
            "clock",
            "script_libs",
            "hll",
            "geo",
        ],
    ),
    ("store", &["store"]),
    ("the RDB encoding of store values", &["rdb"]),
    ("stats and config", &["stats", "config", "timing"]),
    (
        "sessions and their services",
        &["session", "clients", "monitor", "pubsub", "notify", "blocking", "propagate", "busy", "tracking"],
    ),
    ("families, table and dispatch", &["acl", "cmd", "args", "table", "engine", "prefetch", "radar", "script"]),
    ("host views and the test harness", &["inspect", "testing"]),
];

/// Imports a module may not make even though they point down: the store knows nothing of
/// JSON or of how replies print (those views are `inspect`'s).
const FORBIDDEN: &[(&str, &[&str])] = &[("store", &["reply_json", "reply_cli"])];

/// The layer of a top-level module, by index in [`LAYERS`].
fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, modules)| modules.contains(&module))
}

/// The top-level module a source file belongs to (`store/shard.rs` is `store`), or `None`
/// for `lib.rs`, the crate root.
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    if first == "lib.rs" {
        return None;
    }
    Some(first.trim_end_matches(".rs").to_string())
}

/// The source with comments and `#[cfg(test)]` items removed. Good enough for this crate's
/// formatting (rustfmt'd code): a `#[cfg(test)]` item is either one line ending in `;` or a
/// block whose braces are matched; string literals holding `//` or braces are not expected
/// in the lines that matter.
fn without_tests_and_comments(source: &str) -> String {
    let lines: Vec<&str> = source.lines().map(|l| l.split("//").next().unwrap_or("")).collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "#[cfg(test)]" {
            // Skip further attributes, then the item.
            i += 1;
            while i < lines.len() && lines[i].trim().starts_with("#[") {
                i += 1;
            }
            let mut depth = 0i64;
            while i < lines.len() {
                depth += lines[i].matches('{').count() as i64 - lines[i].matches('}').count() as i64;
                let done = depth <= 0 && (lines[i].contains('}') || lines[i].trim_end().ends_with(';'));
                i += 1;
                if done {
                    break;
                }
            }
            continue;
        }
        out.push_str(lines[i]);
        out.push('\n');
        i += 1;
    }
    out
}

/// Files declared as `#[cfg(test)] mod name;` in `source` (which lives at `file`).
fn test_module_files(file: &Path, source: &str) -> Vec<PathBuf> {
    let dir = match file.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs") | Some("lib.rs") => file.parent().map(Path::to_path_buf),
        _ => Some(file.with_extension("")),
    };
    let Some(dir) = dir else { return vec![] };
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let mut out = vec![];
    for pair in lines.windows(2) {
        if pair[0] == "#[cfg(test)]" {
            let item = pair[1].trim_start_matches("pub(crate) ").trim_start_matches("pub ");
            if let Some(name) = item.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                out.push(dir.join(format!("{name}.rs")));
                out.push(dir.join(name).join("mod.rs"));
            }
        }
    }
    out
}

/// The top-level modules a piece of code names through `crate::` (`crate::store::Store`,
/// `crate::{glob, reply::Reply}`), with names the root re-exports resolved by `reexports`.
fn crate_paths(code: &str, reexports: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = vec![];
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    for (at, _) in code.match_indices("crate::") {
        // `vitrine_engine::crate::` does not occur; skip identifiers that merely end in "crate".
        if at > 0 && code[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let names: Vec<String> = match rest.strip_prefix('{') {
            Some(group) => {
                let end = group.find('}').unwrap_or(group.len());
                group[..end].split(',').map(|part| ident(part.trim())).filter(|n| !n.is_empty()).collect()
            }
            None => vec![ident(rest)],
        };
        for name in names {
            out.push(reexports.get(&name).cloned().unwrap_or(name));
        }
    }
    out
}

/// What `lib.rs` re-exports at the root (`pub use engine::{Ctx, Engine};`): name -> module.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in lib.lines().map(str::trim) {
        let Some(path) = line.strip_prefix("pub use ").and_then(|l| l.strip_suffix(';')) else { continue };
        let module = path.split("::").next().unwrap_or("").to_string();
        let last = path.rsplit("::").next().unwrap_or("");
        for name in last.trim_matches(|c| c == '{' || c == '}').split(',') {
            out.insert(name.trim().to_string(), module.clone());
        }
    }
    // Items defined in lib.rs itself (`crate::VERSION`) are the root's, a leaf.
    out.insert("VERSION".into(), "num".into());
    out
}

/// Every violation in the sources given as (path relative to `src`, text).
fn violations(files: &[(PathBuf, String)]) -> Vec<String> {
    let lib = files.iter().find(|(p, _)| p == Path::new("lib.rs")).map_or("", |(_, s)| s.as_str());
    let reexports = root_reexports(lib);
    let tests: Vec<PathBuf> = files.iter().flat_map(|(p, s)| test_module_files(p, s)).collect();
    let mut out = vec![];
    for (path, source) in files {
        if tests.contains(path) {
            continue;
        }
        let Some(module) = module_of(path) else { continue };
        let Some(own) = layer_of(&module) else {
            out.push(format!("{}: module `{module}` has no layer in tests/layers.rs", path.display()));
            continue;
        };
        for used in crate_paths(&without_tests_and_comments(source), &reexports) {
            if used == module {
                continue;
            }
            let Some(theirs) = layer_of(&used) else {
                out.push(format!("{}: uses `crate::{used}`, which has no layer in tests/layers.rs", path.display()));
                continue;
            };
            let forbidden = FORBIDDEN.iter().any(|(m, banned)| *m == module && banned.contains(&used.as_str()));
            if forbidden {
                out.push(format!("{}: `{module}` uses `crate::{used}`, which it must not know", path.display()));
            } else if used == "inspect" || theirs > own {
                out.push(format!(
                    "{}: `{module}` ({}) uses `crate::{used}` ({}), a layer above it",
                    path.display(),
                    LAYERS[own].0,
                    LAYERS[theirs].0
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("readable src dir").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            read_tree(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("readable source");
            out.push((path.strip_prefix(root).expect("under src").to_path_buf(), text));
        }
    }
}

#[test]
fn no_module_imports_a_layer_above_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    read_tree(&root, &root, &mut files);
    assert!(files.len() > 40, "read the engine's sources ({} files)", files.len());
    let found = violations(&files);
    assert!(found.is_empty(), "imports that point up:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_an_upward_import_and_ignores_test_code() {
    let file = |p: &str, s: &str| (PathBuf::from(p), s.to_string());
    let files = vec![
        file("lib.rs", "pub mod store;\npub use engine::{Ctx, Engine};\n"),
        file(
            "store/shard.rs",
            "use crate::num::parse_i64;\nuse crate::{error::CmdError, table};\nfn f() { crate::Engine::new(); }\n\
             // crate::cmd in a comment is fine\n#[cfg(test)]\nmod tests {\n    use crate::stats::Stats;\n}\n",
        ),
        file("store/mod.rs", "#[cfg(test)]\nmod tests;\n"),
        file("store/tests.rs", "use crate::testing::TestEngine;\n"),
        file("cmd/keys.rs", "use crate::engine::Ctx;\nuse crate::table::COMMANDS;\n"),
        file("engine.rs", "use crate::inspect::keys;\n"),
        file("widgets.rs", "use crate::num;\n"),
        file("store/list.rs", "fn f() { crate::reply_json::bytes_to_json(b\"\"); }\n"),
    ];
    assert_eq!(
        violations(&files),
        [
            "engine.rs: `engine` (families, table and dispatch) uses `crate::inspect` (host views and the test harness), a layer above it",
            "store/list.rs: `store` uses `crate::reply_json`, which it must not know",
            "store/shard.rs: `store` (store) uses `crate::engine` (families, table and dispatch), a layer above it",
            "store/shard.rs: `store` (store) uses `crate::table` (families, table and dispatch), a layer above it",
            "widgets.rs: module `widgets` has no layer in tests/layers.rs",
        ]
    );
}
