//! What a signed-in ACL user may do on the admin API. Every route is equivalent to one or
//! more Redis commands; the user may call it when the ACL lets it run them, checked by the
//! engine (`acl_permit`: a refusal is counted and logged in ACL LOG as a RESP client's would
//! be) before the handler runs. Routes that touch keys check the real argv with the key, so
//! key patterns apply; routes that run commands (the console, key writes, bulk jobs) run them
//! in a session acting as the user, so the engine checks each one itself.
//!
//! The actions the dashboard enables or disables (`GET /api/auth/me`) come from the same
//! table ([`ACTIONS`]) the checks use, so a button shown as allowed is one the API allows.
//! The admin token stands above the ACL: it may do everything.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use vitrine_engine::inspect;

use super::error::ApiError;
use super::AppState;
use crate::now_ms;

/// Who a request acts as: set by `security::guard` in the request's extensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// The admin token: everything, as before ACL users existed.
    Admin,
    /// An ACL user: signed in (`POST /api/auth/login`), or `default` when the server takes
    /// the RESP password as bearer or needs no secret at all.
    User(Arc<str>),
}

impl Principal {
    pub fn user(name: &str) -> Principal {
        Principal::User(Arc::from(name))
    }

    /// The user name, `None` for the admin token.
    pub fn user_name(&self) -> Option<&str> {
        match self {
            Principal::Admin => None,
            Principal::User(name) => Some(name),
        }
    }
}

/// The dashboard's actions and the command each stands for. A key in an argv is a
/// placeholder: which keys a user may touch is checked per key when it touches them.
pub const ACTIONS: &[(&str, &[&str])] = &[
    ("keys.read", &["SCAN", "0"]),
    ("keys.write", &["SET", "k", "v"]),
    ("keys.delete", &["DEL", "k"]),
    ("keys.export", &["DUMP", "k"]),
    ("keys.import", &["RESTORE", "k", "0", "v"]),
    ("flush", &["FLUSHALL"]),
    ("config.read", &["CONFIG", "GET", "*"]),
    ("config.write", &["CONFIG", "SET", "maxmemory", "0"]),
    ("clients.read", &["CLIENT", "LIST"]),
    ("clients.kill", &["CLIENT", "KILL", "ID", "0"]),
    ("slowlog.reset", &["SLOWLOG", "RESET"]),
    ("scripts.kill", &["SCRIPT", "KILL"]),
    // Any signed-in user: the console runs as the user and the engine refuses what it may not.
    ("console", &[]),
    ("monitor", &["MONITOR"]),
    // The benchmark runner flushes, writes and reads anything: it needs `+@all`.
    ("bench", &[]),
    ("acl.read", &["ACL", "LIST"]),
    ("acl.write", &["ACL", "SETUSER", "k"]),
];

fn action(name: &str) -> &'static [&'static str] {
    ACTIONS.iter().find(|(n, _)| *n == name).map_or(&[], |(_, argv)| argv)
}

/// What a route needs beyond a valid sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// Nothing more (sign-in routes, the OpenAPI text, the command table's help), or the
    /// handler checks the exact commands itself / runs them as the user.
    Nothing,
    /// The command of one of [`ACTIONS`].
    Action(&'static str),
    /// This argv.
    Argv(Vec<Vec<u8>>),
    /// `+@all` (the benchmark runner).
    AllCommands,
    /// Reading the key named by the rest of the path, as [`key_read`] says.
    KeyRead,
}

/// What the stats pages stand for. Not INFO: Redis 7 files INFO under `@dangerous` (it
/// shows the configuration and clients), so a `+@read` user could not even see the hit
/// ratio; DBSIZE (`@keyspace @read @fast`) says "may look at this cache" instead.
const STATS: &[&str] = &["DBSIZE"];

fn argv(words: &[&str]) -> Need {
    Need::Argv(words.iter().map(|w| w.as_bytes().to_vec()).collect())
}

/// What `method path` (the full path, `/api/...`) needs. Key routes that read are checked
/// here with the key ([`key_read`]); key writes, the console and bulk jobs in their handlers.
pub fn need(method: &Method, path: &str) -> Need {
    let Some(rest) = path.strip_prefix("/api") else {
        return if path == "/metrics" { argv(STATS) } else { Need::Nothing };
    };
    let get = *method == Method::GET;
    let first = rest.trim_start_matches('/').split('/').next().unwrap_or_default();
    match first {
        "auth" | "openapi.json" | "commands" | "command" | "console" => Need::Nothing,
        "stats" | "evictions" | "memory" | "latency" | "running-script" if get => argv(STATS),
        "compat" | "hotkeys" if get => argv(STATS),
        "compat" | "hotkeys" => argv(&["CONFIG", "RESETSTAT"]),
        "running-script" => Need::Action("scripts.kill"),
        "scripts" => argv(&["SCRIPT", "EXISTS", "0"]),
        "config" if get => Need::Action("config.read"),
        "config" => Need::Action("config.write"),
        "flush" => Need::Action("flush"),
        "clients" if get => Need::Action("clients.read"),
        "clients" => Need::Action("clients.kill"),
        "monitor" => Need::Action("monitor"),
        "events" => argv(&["PSUBSCRIBE", "__key*@*__:*"]),
        "slowlog" if get => argv(&["SLOWLOG", "GET"]),
        "slowlog" => Need::Action("slowlog.reset"),
        "keys" if get && rest == "/keys" => Need::Action("keys.read"),
        "keys" | "stream-entries" | "geo-points" | "string-bits" if get => Need::KeyRead,
        "key-count" | "key-jobs" if get => Need::Action("keys.read"),
        "key-export" => Need::Action("keys.export"),
        "key-import" => Need::Action("keys.import"),
        "bench" if get => argv(STATS),
        "bench" => Need::AllCommands,
        "acl" if rest.starts_with("/acl/log") && get => argv(&["ACL", "LOG"]),
        "acl" if rest.starts_with("/acl/log") => argv(&["ACL", "LOG", "RESET"]),
        "acl" if get => Need::Action("acl.read"),
        "acl" if *method == Method::DELETE => argv(&["ACL", "DELUSER", "k"]),
        "acl" => Need::Action("acl.write"),
        _ => Need::Nothing,
    }
}

/// The CLIENT INFO line ACL LOG shows for a refusal on the admin API: a pseudo client named
/// `admin-http`, as the console's sessions are named.
pub fn client_info(user: &str, command: &str) -> String {
    format!(
        "id=0 addr=admin-http laddr=admin-http fd=-1 name=admin-http age=0 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 \
         multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd={command} \
         user={user} redir=-1 resp=2"
    )
}

/// Checks that `principal` may run `argv` (as a RESP client of that user would be checked:
/// counted and logged when refused); the 403 carries the NOPERM text and the command.
pub fn permit<A: AsRef<[u8]>>(state: &AppState, principal: &Principal, argv: &[A]) -> Result<(), ApiError> {
    let Principal::User(user) = principal else { return Ok(()) };
    let argv: Vec<&[u8]> = argv.iter().map(AsRef::as_ref).collect();
    let command = inspect::acl::command_name(&argv);
    state
        .engine
        .acl_permit(user.as_bytes(), &argv, &client_info(user, &command), now_ms())
        .map_err(|text| ApiError::noperm(text, command))
}

/// `+@all`, for the benchmark runner; refused like a command.
fn permit_all_commands(state: &AppState, user: &str) -> Result<(), ApiError> {
    if inspect::acl::acl_all_commands(&state.engine, user.as_bytes()) {
        return Ok(());
    }
    Err(ApiError::noperm(ALL_COMMANDS_NEEDED, "bench"))
}

const ALL_COMMANDS_NEEDED: &str = "NOPERM the benchmark runner needs a user allowed every command (+@all)";

/// The command a route that reads one key (`/keys/{key}`, `/stream-entries/{key}`, ...)
/// stands for, with the key: what a client would run to see the same thing.
pub fn key_read(state: &AppState, path: &str, db: usize, key: &[u8]) -> Vec<Vec<u8>> {
    let words: &[&str] = if path.starts_with("/api/stream-entries/") {
        &["XRANGE", "", "-", "+"]
    } else if path.starts_with("/api/geo-points/") {
        &["ZRANGE", "", "0", "-1"]
    } else if path.starts_with("/api/string-bits/") {
        &["GETRANGE", "", "0", "-1"]
    } else {
        // A database out of range has no key to look at: the route itself answers 400.
        let in_range = db < state.engine.config().databases();
        let type_name =
            in_range.then(|| inspect::key_detail(&state.engine, db, key, now_ms())).flatten().map(|d| d.type_name);
        match type_name {
            Some("string") => &["GET", ""],
            Some("hash") => &["HGETALL", ""],
            Some("list") => &["LRANGE", "", "0", "-1"],
            Some("set") => &["SMEMBERS", ""],
            Some("zset") => &["ZRANGE", "", "0", "-1"],
            Some("stream") => &["XRANGE", "", "-", "+"],
            _ => &["TYPE", ""],
        }
    };
    // The key goes where the placeholder is: always the second word.
    words.iter().enumerate().map(|(i, w)| if i == 1 { key.to_vec() } else { w.as_bytes().to_vec() }).collect()
}

/// The key after the route's prefix (percent-decoded, as `keys::path_key_after` reads it)
/// and the `?db=` (0 without one).
fn path_key_and_db(req: &Request) -> Option<(Vec<u8>, usize)> {
    let path = req.uri().path().strip_prefix("/api/")?;
    let (_, raw) = path.split_once('/')?;
    let key: Vec<u8> = percent_encoding::percent_decode_str(raw).collect();
    let db = match req.uri().query().and_then(|q| q.split('&').find_map(|p| p.strip_prefix("db="))) {
        Some(db) => db.parse().ok()?,
        None => 0,
    };
    (!key.is_empty()).then_some((key, db))
}

/// The middleware: checks the route's [`Need`] for a signed-in user before its handler runs.
pub async fn enforce(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let principal = req.extensions().get::<Principal>().cloned();
    if let Some(Principal::User(user)) = &principal {
        let result = match need(req.method(), req.uri().path()) {
            Need::Nothing => Ok(()),
            Need::Action(name) if action(name).is_empty() => Ok(()),
            Need::Action(name) => permit(&state, &Principal::User(user.clone()), action(name)),
            Need::Argv(argv) => permit(&state, &Principal::User(user.clone()), &argv),
            Need::AllCommands => permit_all_commands(&state, user),
            Need::KeyRead => match path_key_and_db(&req) {
                Some((key, db)) => {
                    let argv = key_read(&state, req.uri().path(), db, &key);
                    permit(&state, &Principal::User(user.clone()), &argv)
                }
                // A bad key or db: the handler answers 400, having shown nothing.
                None => Ok(()),
            },
        };
        if let Err(e) = result {
            return e.into_response();
        }
    }
    next.run(req).await
}

/// One action of `GET /api/auth/me`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Permission {
    pub allowed: bool,
    /// The NOPERM text when not allowed.
    pub reason: Option<String>,
}

/// Every action of [`ACTIONS`] for `principal`, in table order, without logging anything.
pub fn permissions(state: &AppState, principal: &Principal) -> Vec<(&'static str, Permission)> {
    ACTIONS
        .iter()
        .map(|(name, words)| {
            let reason = match principal {
                Principal::Admin => None,
                Principal::User(user) if *name == "bench" => {
                    (!inspect::acl::acl_all_commands(&state.engine, user.as_bytes()))
                        .then(|| ALL_COMMANDS_NEEDED.to_string())
                }
                Principal::User(_) if words.is_empty() => None,
                Principal::User(user) => {
                    let argv: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
                    inspect::acl::acl_command_refusal(&state.engine, user.as_bytes(), &argv)
                }
            };
            (*name, Permission { allowed: reason.is_none(), reason })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_map_to_commands() {
        let get = Method::GET;
        assert_eq!(need(&get, "/api/stats"), argv(&["DBSIZE"]));
        assert_eq!(need(&get, "/metrics"), argv(&["DBSIZE"]));
        assert_eq!(need(&get, "/api/keys"), Need::Action("keys.read"));
        assert_eq!(need(&get, "/api/keys/a"), Need::KeyRead);
        assert_eq!(need(&Method::PUT, "/api/keys/a"), Need::Nothing, "checked by the handler with the value");
        assert_eq!(need(&Method::PATCH, "/api/config"), Need::Action("config.write"));
        assert_eq!(need(&Method::POST, "/api/flush"), Need::Action("flush"));
        assert_eq!(need(&Method::POST, "/api/bench"), Need::AllCommands);
        assert_eq!(need(&get, "/api/acl/log"), argv(&["ACL", "LOG"]));
        assert_eq!(need(&Method::DELETE, "/api/acl/users/x"), argv(&["ACL", "DELUSER", "k"]));
        assert_eq!(need(&Method::POST, "/api/auth/login"), Need::Nothing);
        assert_eq!(need(&get, "/"), Need::Nothing, "the dashboard's files");
    }

    /// A new route is open to every signed-in user until it is mapped: this list makes that
    /// a decision, not an accident.
    #[test]
    fn routes_that_need_no_command_are_the_chosen_few() {
        let open: Vec<String> = super::super::route_table()
            .routes()
            .iter()
            .filter(|(m, p)| {
                need(m, &p.replace("{*key}", "k").replace("{id}", "1").replace("{name}", "u")) == Need::Nothing
            })
            .map(|(m, p)| format!("{m} {p}"))
            .collect();
        assert_eq!(
            open,
            [
                // Handlers check the exact commands (with the key and value) or run them as the user.
                "PUT /api/keys/{*key}",
                "PATCH /api/keys/{*key}",
                "DELETE /api/keys/{*key}",
                "POST /api/key-jobs",
                "DELETE /api/key-jobs/{id}",
                "POST /api/command",
                "POST /api/console",
                "GET /api/commands",
                "POST /api/auth/login",
                "POST /api/auth/logout",
                "GET /api/auth/me",
                "GET /api/openapi.json",
                "GET /healthz",
                "GET /readyz",
            ]
        );
    }

    #[test]
    fn every_action_of_the_contract_is_in_the_table() {
        let names: Vec<&str> = ACTIONS.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "keys.read",
                "keys.write",
                "keys.delete",
                "keys.export",
                "keys.import",
                "flush",
                "config.read",
                "config.write",
                "clients.read",
                "clients.kill",
                "slowlog.reset",
                "scripts.kill",
                "console",
                "monitor",
                "bench",
                "acl.read",
                "acl.write"
            ]
        );
    }
}
