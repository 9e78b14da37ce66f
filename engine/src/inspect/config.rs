//! The settings view (`GET/PATCH /api/config`): every parameter as `CONFIG GET *` lists it
//! with secrets hidden, which ones can be changed, and changing several at once.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value as Json};
use ts_rs::TS;

use super::{Refusal, Status};
use crate::config::{params, Effect, Group, Kind, PARAMS};
use crate::{Engine, Reply};

/// Parameters whose value is a secret: the view reports them as `(hidden)` when set, and a
/// console's `CONFIG GET` as empty.
pub const SECRET: &[&str] =
    &["requirepass", "masterauth", "masteruser", "tls-key-file-pass", "tls-client-key-file-pass"];

/// `GET /api/config`.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct ConfigView {
    /// Every parameter and its value, as `CONFIG GET *` (secrets as `(hidden)`).
    pub config: BTreeMap<String, String>,
    /// The parameters `CONFIG SET` can change.
    pub writable: Vec<&'static str>,
    /// Every parameter with what the dashboard shows about it, in the table's order.
    pub params: Vec<ConfigParam>,
}

/// One parameter as the dashboard's Config page lists it.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct ConfigParam {
    pub name: &'static str,
    /// The older name Redis also accepts (`hash-max-ziplist-entries`).
    pub alias: Option<&'static str>,
    /// The current value (`(hidden)` for a secret that is set).
    pub value: String,
    /// The value before any change.
    pub default: &'static str,
    pub group: Group,
    /// One line saying what it does.
    pub description: &'static str,
    /// Whether `CONFIG SET` can change it.
    pub mutable: bool,
    /// Whether Vitrine obeys it: at once (`live`), at start-up, or not yet (`none`).
    pub effect: Effect,
    /// How to edit it: `bool`, `int`, `memory`, `enum`, `flags`, `string` or `special`.
    pub kind: &'static str,
    /// The names an `enum` or `flags` parameter takes.
    pub choices: Vec<&'static str>,
    /// A password or key: shown hidden.
    pub secret: bool,
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Bool => "bool",
        Kind::Int { .. } | Kind::Octal { .. } => "int",
        Kind::Memory { .. } | Kind::MemoryPercent { .. } => "memory",
        Kind::Enum(_) => "enum",
        Kind::Flags(_) => "flags",
        Kind::Str => "string",
        Kind::Special(_) => "special",
    }
}

fn shown(name: &str, value: String) -> String {
    if SECRET.contains(&name) && !value.is_empty() {
        "(hidden)".to_string()
    } else {
        value
    }
}

/// Every setting and which can be changed.
pub fn config_view(engine: &Engine) -> ConfigView {
    let cfg = engine.config();
    let config = cfg.all().into_iter().map(|(name, value)| (name.clone(), shown(&name, value))).collect();
    let writable = PARAMS.iter().filter(|p| p.mutable() && !p.has(params::HIDDEN)).map(|p| p.name).collect();
    let params = PARAMS
        .iter()
        .filter(|p| !p.has(params::HIDDEN))
        .map(|p| ConfigParam {
            name: p.name,
            alias: p.alias,
            value: shown(p.name, cfg.get(p.name).unwrap_or_default()),
            default: p.default,
            group: p.group,
            description: p.doc,
            mutable: p.mutable(),
            effect: p.effect,
            kind: kind_name(&p.kind),
            choices: match p.kind {
                Kind::Enum(names) | Kind::Flags(names) => names.iter().map(|(n, _)| *n).collect(),
                _ => Vec::new(),
            },
            secret: SECRET.contains(&p.name),
        })
        .collect();
    ConfigView { config, writable, params }
}

/// Applies every change in `body` (`{"maxmemory": "64mb", "maxmemory_policy": "allkeys-lru"}`)
/// at once as one `CONFIG SET` run by `run` (all or nothing), then answers the view. Names may
/// use `_` for `-`; values are strings or numbers.
pub fn patch_config(
    engine: &Engine,
    body: &Map<String, Json>,
    run: impl FnOnce(&[Vec<u8>]) -> Reply,
) -> Result<ConfigView, Refusal> {
    if body.is_empty() {
        return Err(Refusal::new(Status::Unprocessable, "invalid_body", "give at least one setting to change"));
    }
    let mut argv: Vec<Vec<u8>> = vec![b"CONFIG".to_vec(), b"SET".to_vec()];
    for (name, value) in body {
        let value = match value {
            Json::String(s) => s.clone(),
            Json::Number(n) => n.to_string(),
            _ => {
                return Err(Refusal::new(
                    Status::Unprocessable,
                    "invalid_body",
                    format!("the value of '{name}' must be a string or a number"),
                ))
            }
        };
        // `_` for `-`, except in the few names Redis spells with `_` (`bio_cpulist`).
        let name = if engine.config().get(name).is_some() { name.to_string() } else { name.replace('_', "-") };
        argv.push(name.to_ascii_lowercase().into_bytes());
        argv.push(value.into_bytes());
    }
    match run(&argv) {
        Reply::Error(text) => Err(Refusal::new(Status::Unprocessable, "config_error", text)),
        _ => Ok(config_view(engine)),
    }
}

/// A reply with the value of every secret parameter blanked wherever `CONFIG GET` put one: its
/// map, also inside EXEC's array. A console is a way into the server for anyone with the
/// admin token, which need not be the RESP password.
pub fn hide_secrets(reply: Reply) -> Reply {
    let is_secret = |name: &Reply| match name {
        Reply::Bulk(b) => SECRET.iter().any(|s| s.as_bytes().eq_ignore_ascii_case(b)),
        Reply::Status(s) | Reply::Verbatim(s) => SECRET.iter().any(|x| x.eq_ignore_ascii_case(s)),
        _ => false,
    };
    match reply {
        Reply::Map(pairs) => Reply::Map(
            pairs
                .into_iter()
                .map(|(k, v)| if is_secret(&k) { (k, Reply::Bulk(Vec::new())) } else { (k, hide_secrets(v)) })
                .collect(),
        ),
        Reply::Array(items) => Reply::Array(items.into_iter().map(hide_secrets).collect()),
        Reply::Set(items) => Reply::Set(items.into_iter().map(hide_secrets).collect()),
        Reply::Push(items) => Reply::Push(items.into_iter().map(hide_secrets).collect()),
        Reply::Many(items) => Reply::Many(items.into_iter().map(hide_secrets).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::TestEngine;

    #[test]
    fn the_view_hides_secrets_and_a_patch_is_all_or_nothing() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "requirepass", "s3cret"]);
        let view = config_view(&t.engine);
        assert_eq!(view.config["requirepass"], "(hidden)");
        assert!(view.writable.contains(&"maxmemory") && !view.writable.contains(&"databases"));
        let param = |name: &str| view.params.iter().find(|p| p.name == name).cloned().unwrap();
        assert_eq!(param("requirepass").value, "(hidden)");
        let entries = param("hash-max-listpack-entries");
        assert_eq!((entries.group, entries.effect, entries.mutable), (Group::Encoding, Effect::Live, true));
        assert_eq!(entries.alias, Some("hash-max-ziplist-entries"));
        assert_eq!(param("databases").effect, Effect::Startup);
        assert!(!param("databases").mutable);
        assert_eq!(param("repl-timeout").effect, Effect::None);
        assert_eq!(param("maxmemory-policy").choices.len(), 8);
        assert_eq!(view.params.len(), PARAMS.iter().filter(|p| !p.has(params::HIDDEN)).count());
        let TestEngine { engine, session, now, .. } = &mut t;
        let mut run = |argv: &[Vec<u8>]| engine.call(session, argv, *now);
        let body = |v: Json| v.as_object().unwrap().clone();
        let view =
            patch_config(engine, &body(json!({ "maxmemory": 65536, "maxmemory_policy": "allkeys-lru" })), &mut run);
        assert_eq!(view.unwrap().config["maxmemory-policy"], "allkeys-lru");
        let e = patch_config(engine, &body(json!({ "maxmemory": "1mb", "maxmemory-policy": "nope" })), &mut run);
        assert_eq!(e.unwrap_err().code, "config_error");
        assert_eq!(config_view(engine).config["maxmemory"], "65536");
        assert_eq!(patch_config(engine, &body(json!({})), &mut run).unwrap_err().status, Status::Unprocessable);
        assert_eq!(patch_config(engine, &body(json!({ "hz": [1] })), &mut run).unwrap_err().code, "invalid_body");
    }

    #[test]
    fn secrets_are_blanked_inside_maps_and_arrays() {
        let reply = Reply::Array(vec![Reply::Map(vec![
            (Reply::bulk("requirepass"), Reply::bulk("s3cret")),
            (Reply::bulk("hz"), Reply::bulk("10")),
        ])]);
        let Reply::Array(items) = hide_secrets(reply) else { panic!("an array") };
        let Reply::Map(pairs) = &items[0] else { panic!("a map") };
        assert_eq!(pairs[0].1, Reply::Bulk(Vec::new()));
        assert_eq!(pairs[1].1, Reply::bulk("10"));
    }
}
