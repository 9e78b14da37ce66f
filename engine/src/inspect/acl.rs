//! ACL views for hosts: the users as the dashboard's Users page lists them, the ACL log, the
//! `ACL LIST` line a change of rules would give (a dry parse that stores nothing), and the
//! questions the admin API asks about a signed-in user (may it run this command, may it read
//! this key) without logging anything. Writes go through `ACL SETUSER`/`DELUSER`/`LOG RESET`
//! run by a session acting as the signed-in user, so the ACL applies to editing the ACL too.

use serde::Serialize;
use ts_rs::TS;

use crate::acl::{rules, DenyReason, Keys, Selector, User};
use crate::table::{self, Command};
use crate::{glob, Engine};

/// One selector's rules, in `ACL GETUSER`'s formats.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct AclSelectorView {
    pub commands: String,
    pub keys: String,
    pub channels: String,
}

/// One user (`GET /api/acl/users`).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct AclUserView {
    pub name: String,
    pub enabled: bool,
    pub nopass: bool,
    /// How many passwords it has (their hashes are never shown whole).
    pub passwords: usize,
    /// The `ACL LIST` line without `user <name> `, each `#<hash>` cut to `#<8 hex>…`.
    pub rules: String,
    /// The root selector, as `ACL GETUSER` prints it.
    pub commands: String,
    pub keys: String,
    pub channels: String,
    /// The `(...)` selectors after the root one.
    pub selectors: Vec<AclSelectorView>,
    /// When it last signed in (AUTH, HELLO AUTH, the dashboard), since this process started.
    pub last_auth_ms: Option<u64>,
    /// Connections authenticated as it now.
    pub clients: usize,
}

/// One `ACL LOG` entry (`GET /api/acl/log`).
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct AclLogView {
    pub entry_id: u64,
    pub count: u64,
    /// `command`, `key`, `channel` or `auth`.
    pub reason: String,
    /// `toplevel`, `multi` or `lua`.
    pub context: String,
    pub object: String,
    pub username: String,
    pub created_ms: u64,
    pub updated_ms: u64,
    pub client_info: String,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn selector_view(s: &Selector) -> AclSelectorView {
    AclSelectorView { commands: s.describe_commands(), keys: s.describe_keys(), channels: s.describe_channels() }
}

/// The `ACL LIST` line of `user` without its `user <name> ` head, with password hashes cut
/// short: enough to tell two apart on screen, useless for guessing the password.
fn rules_line(user: &User) -> String {
    let line = user.describe();
    let head = format!("user {} ", user.name_lossy());
    let rest = line.strip_prefix(&head).unwrap_or(&line);
    rest.split(' ')
        .map(|word| match word.strip_prefix('#') {
            Some(hash) if hash.len() > 8 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => format!("#{}…", &hash[..8]),
            _ => word.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every user, sorted by name (`ACL USERS` order).
pub fn acl_users(engine: &Engine) -> Vec<AclUserView> {
    let clients = engine.clients.all();
    engine
        .acl()
        .users()
        .iter()
        .map(|u| AclUserView {
            name: u.name_lossy(),
            enabled: u.on,
            nopass: u.nopass,
            passwords: u.passwords.len(),
            rules: rules_line(u),
            commands: u.root().describe_commands(),
            keys: u.root().describe_keys(),
            channels: u.root().describe_channels(),
            selectors: u.selectors.iter().skip(1).map(selector_view).collect(),
            last_auth_ms: engine.acl().last_auth(&u.name),
            clients: clients.iter().filter(|c| !c.is_killed() && c.user.lock().as_bytes() == u.name.as_slice()).count(),
        })
        .collect()
}

/// The newest `count` entries of `ACL LOG`, newest first.
pub fn acl_log(engine: &Engine, count: usize) -> Vec<AclLogView> {
    engine
        .acl()
        .log
        .lock()
        .entries(count)
        .into_iter()
        .map(|e| AclLogView {
            entry_id: e.entry_id,
            count: e.count,
            reason: e.reason.as_str().to_string(),
            context: e.context.as_str().to_string(),
            object: text(&e.object),
            username: text(&e.username),
            created_ms: e.created_ms,
            updated_ms: e.updated_ms,
            client_info: e.client_info,
        })
        .collect()
}

/// The `ACL LIST` line user `name` would have after `ACL SETUSER name <rules>` (`rules` split
/// on whitespace), stored nowhere. The error is the one SETUSER would answer.
pub fn acl_preview(engine: &Engine, name: &[u8], rules: &str) -> Result<String, String> {
    let words: Vec<&[u8]> = rules.split_whitespace().map(str::as_bytes).collect();
    let base = engine.acl().user(name).map(|u| (*u).clone());
    let pubsub_all = engine.config().acl_pubsub_all();
    rules::apply_words(base, name, &words, pubsub_all).map(|u| u.describe()).map_err(|e| e.to_string())
}

/// The row `argv` runs (a container's subcommand when one is named), with its index.
fn command_of(argv: &[&[u8]]) -> Option<(usize, &'static Command)> {
    let (index, cmd) = table::lookup(argv.first()?)?;
    if cmd.is_container() {
        return table::lookup_subcommand(index, cmd, argv.get(1)?);
    }
    Some((index, cmd))
}

/// Redis's full name of the command `argv` runs (`get`, `config|set`); argv[0] lower-cased
/// when there is no such command.
pub fn command_name(argv: &[&[u8]]) -> String {
    match command_of(argv) {
        Some((_, cmd)) => cmd.full_name(),
        None => text(argv.first().copied().unwrap_or_default()).to_ascii_lowercase(),
    }
}

/// Whether `user` may run the command `argv` names, not minding its keys (each key is
/// checked when it is touched): `None` when it may, else the NOPERM text a client would get.
/// Logs nothing: this is for showing which actions a user has (the dashboard's buttons).
pub fn acl_command_refusal(engine: &Engine, user: &[u8], argv: &[&[u8]]) -> Option<String> {
    let name = command_name(argv);
    let refused = || Some(format!("NOPERM this user has no permissions to run the '{name}' command"));
    let Some(user) = engine.acl().user(user) else { return refused() };
    let Some((index, cmd)) = command_of(argv) else { return refused() };
    match user.check(index, cmd, argv) {
        Ok(()) => None,
        Err(d) => match d.reason {
            DenyReason::Command => refused(),
            DenyReason::Key => None,
            DenyReason::Channel => {
                Some("NOPERM this user has no permissions to access one of the channels used as arguments".into())
            }
        },
    }
}

/// Whether `user` exists and takes any password (`nopass`).
pub fn acl_nopass(engine: &Engine, user: &[u8]) -> bool {
    engine.acl().user(user).is_some_and(|u| u.nopass)
}

/// Whether `user` may run every command (`+@all`): what the benchmark runner needs, since it
/// flushes, writes and reads whatever it likes.
pub fn acl_all_commands(engine: &Engine, user: &[u8]) -> bool {
    engine.acl().user(user).is_some_and(|u| u.root().all_commands)
}

/// Whether `user` may read (or, with `write`, write) every key: what exporting or importing
/// by pattern or by file needs, as the keys are only known inside the engine.
pub fn acl_every_key(engine: &Engine, user: &[u8], write: bool) -> bool {
    engine.acl().user(user).is_some_and(|u| {
        u.selectors.iter().any(|s| {
            s.keys == Keys::All
                || matches!(&s.keys, Keys::Patterns(p) if p.iter().any(|k| k.pattern == b"*" && if write { k.write } else { k.read }))
        })
    })
}

/// A test of whether `user` may read a key (any selector with a read pattern matching it),
/// for filtering the key browser's listing; nothing may be read by a user that is gone.
pub fn acl_key_reader(engine: &Engine, user: &[u8]) -> impl Fn(&[u8]) -> bool {
    let user = engine.acl().user(user);
    move |key: &[u8]| {
        user.as_ref().is_some_and(|u| {
            u.selectors.iter().any(|s| match &s.keys {
                Keys::All => true,
                Keys::Patterns(patterns) => patterns.iter().any(|p| p.read && glob::matches(&p.pattern, key)),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    fn engine() -> Engine {
        Engine::new(Config::default(), 0, 1)
    }

    #[test]
    fn hashes_are_cut_short_in_the_rules_line() {
        let e = engine();
        e.acl().set_user(b"reader", &[b"on", b">pw", b"~app:*", b"+@read"], false).unwrap();
        let users = acl_users(&e);
        let reader = users.iter().find(|u| u.name == "reader").unwrap();
        assert!(reader.enabled && !reader.nopass);
        assert_eq!(reader.passwords, 1);
        // SHA-256("pw") starts 30c952fa.
        assert!(reader.rules.starts_with("on #30c952fa… ~app:* "), "{}", reader.rules);
        assert!(!reader.rules.contains("user reader"));
        assert_eq!(reader.keys, "~app:*");
        assert_eq!(users[0].name, "default", "sorted by name");
    }

    #[test]
    fn preview_stores_nothing_and_reports_the_setuser_error() {
        let e = engine();
        let line = acl_preview(&e, b"newbie", "on nopass +@read ~*").unwrap();
        assert!(line.starts_with("user newbie on nopass"), "{line}");
        assert!(e.acl().user(b"newbie").is_none());
        let err = acl_preview(&e, b"newbie", "on +nosuch").unwrap_err();
        assert!(err.starts_with("ERR Error in ACL SETUSER modifier '+nosuch'"), "{err}");
    }

    #[test]
    fn command_refusals_ignore_keys_and_key_reads_follow_patterns() {
        let e = engine();
        e.acl().set_user(b"r", &[b"on", b"nopass", b"%R~app:*", b"+@read"], false).unwrap();
        assert_eq!(acl_command_refusal(&e, b"r", &[b"GET", b"other"]), None, "keys are checked per key");
        assert_eq!(
            acl_command_refusal(&e, b"r", &[b"CONFIG", b"SET", b"maxmemory", b"0"]).as_deref(),
            Some("NOPERM this user has no permissions to run the 'config|set' command")
        );
        assert!(acl_command_refusal(&e, b"nobody", &[b"GET", b"k"]).is_some());
        let readable = acl_key_reader(&e, b"r");
        assert!(readable(b"app:1"));
        assert!(!readable(b"other"));
        assert!(acl_all_commands(&e, b"default"));
        assert!(!acl_all_commands(&e, b"r"));
        assert_eq!(command_name(&[b"config", b"get", b"x"]), "config|get");
        assert_eq!(command_name(&[b"NOPE"]), "nope");
    }
}
