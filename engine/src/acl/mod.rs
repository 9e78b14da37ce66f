//! ACL: the users a connection can act as, what each may run and touch, and the log of what
//! was refused, as Redis 7.0 has them (`ACL SETUSER`, `AUTH user pass`, `NOPERM`).
//!
//! The registry (`Acl`) owns immutable `Arc<User>`s: a change builds new users and swaps them
//! in, then bumps `epoch`, so a session re-reads its user only when the epoch moved (one
//! relaxed load per command; nothing more for the unrestricted default user).
//!
//! - [`user`]: `User`, `Selector`, key and channel patterns, command bitsets, categories.
//! - [`rules`]: one rule word (`+@read`, `~k*`, `>pass`, `(...)`) applied to a draft user.
//! - [`describe`]: the `ACL LIST` / `ACL GETUSER` strings, with Redis 7.0's compaction.
//! - [`file`]: the aclfile and `user` config lines: parsing with Redis's errors, rendering.
//! - [`password`]: SHA-256 password hashes and their constant-time comparison.
//! - [`check`]: may this user run this command on these keys and channels.
//! - [`log`]: `ACL LOG`: denied commands, keys, channels and failed logins, grouped.

pub(crate) mod check;
pub(crate) mod describe;
pub(crate) mod file;
pub(crate) mod log;
pub(crate) mod password;
pub(crate) mod rules;
pub(crate) mod user;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

pub(crate) use check::{Denied, DenyReason};
pub(crate) use log::{AclLog, LogContext, LogReason};
pub(crate) use user::{Channels, Keys, Selector, User, CATEGORIES};

use crate::error::CmdError;

/// The users, by name (sorted: `ACL USERS` and `ACL LIST` order), and the ACL log.
pub(crate) struct Acl {
    users: RwLock<BTreeMap<Vec<u8>, Arc<User>>>,
    /// Bumped by every change of any user; sessions compare it with the one they saw.
    epoch: AtomicU64,
    /// When each user last authenticated (ms), for the dashboard's Users page. Kept apart
    /// from `User`, which is immutable.
    last_auth: Mutex<BTreeMap<Vec<u8>, u64>>,
    pub(crate) log: Mutex<AclLog>,
}

impl Default for Acl {
    fn default() -> Self {
        Acl::new()
    }
}

impl Acl {
    /// A registry holding only `default` (`on nopass ~* &* +@all`).
    pub(crate) fn new() -> Acl {
        let default = User::unrestricted(b"default");
        let mut users = BTreeMap::new();
        users.insert(default.name.clone(), Arc::new(default));
        Acl {
            users: RwLock::new(users),
            epoch: AtomicU64::new(0),
            last_auth: Mutex::new(BTreeMap::new()),
            log: Mutex::new(AclLog::default()),
        }
    }

    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Relaxed)
    }

    fn bump(&self) {
        self.epoch.fetch_add(1, Relaxed);
    }

    pub(crate) fn user(&self, name: &[u8]) -> Option<Arc<User>> {
        self.users.read().get(name).cloned()
    }

    pub(crate) fn default_user(&self) -> Arc<User> {
        self.user(b"default").expect("the default user always exists")
    }

    /// Every user, sorted by name.
    pub(crate) fn users(&self) -> Vec<Arc<User>> {
        self.users.read().values().cloned().collect()
    }

    /// Whether a new connection must authenticate: the default user is off or has passwords
    /// (Redis: not `on` + `nopass`).
    pub(crate) fn auth_required(&self) -> bool {
        let d = self.default_user();
        !(d.on && d.nopass)
    }

    /// The user `name` if it is on and `pass` is one of its passwords (any password when
    /// `nopass`). Compares hashes in constant time.
    pub(crate) fn authenticate(&self, name: &[u8], pass: &[u8]) -> Option<Arc<User>> {
        let user = self.user(name)?;
        (user.on && (user.nopass || password::matches_any(&user.passwords, pass))).then_some(user)
    }

    /// Records a successful authentication of `name` at `now_ms`.
    pub(crate) fn note_auth(&self, name: &[u8], now_ms: u64) {
        self.last_auth.lock().insert(name.to_vec(), now_ms);
    }

    /// When `name` last authenticated, if it has since this process started.
    pub(crate) fn last_auth(&self, name: &[u8]) -> Option<u64> {
        self.last_auth.lock().get(name).copied()
    }

    /// `ACL SETUSER name rules...`: applies the rules to a copy of the user (a new one starts
    /// as `off -@all resetchannels`), all or nothing. The error is Redis's whole text
    /// (`ERR Error in ACL SETUSER modifier '<rule>': <reason>`).
    pub(crate) fn set_user(&self, name: &[u8], rule_words: &[&[u8]], pubsub_all: bool) -> Result<Arc<User>, CmdError> {
        let mut users = self.users.write();
        let base = users.get(name).map(|u| (**u).clone());
        let user = Arc::new(rules::apply_words(base, name, rule_words, pubsub_all)?);
        users.insert(name.to_vec(), user.clone());
        drop(users);
        self.bump();
        Ok(user)
    }

    /// `ACL DELUSER`: removes the named users that exist and returns them (their clients
    /// are then disconnected by the caller). `default` anywhere refuses the whole call.
    pub(crate) fn delete_users(&self, names: &[&[u8]]) -> Result<Vec<Arc<User>>, CmdError> {
        if names.iter().any(|n| *n == b"default") {
            return Err(CmdError::err("The 'default' user cannot be removed"));
        }
        let mut users = self.users.write();
        let removed: Vec<_> = names.iter().filter_map(|n| users.remove(*n)).collect();
        drop(users);
        if !removed.is_empty() {
            self.bump();
        }
        Ok(removed)
    }

    /// Replaces every user at once (ACL LOAD, startup `user` lines). A set without `default`
    /// gets the unrestricted one.
    pub(crate) fn replace_all(&self, new_users: Vec<User>) {
        let mut map: BTreeMap<Vec<u8>, Arc<User>> =
            new_users.into_iter().map(|u| (u.name.clone(), Arc::new(u))).collect();
        map.entry(b"default".to_vec()).or_insert_with(|| Arc::new(User::unrestricted(b"default")));
        *self.users.write() = map;
        self.bump();
    }

    /// `requirepass`: the default user gets this one password (`resetpass >pass`), or
    /// `nopass` when `None`.
    pub(crate) fn set_default_password(&self, pass: Option<&[u8]>) {
        let mut users = self.users.write();
        let mut d = users.get(&b"default"[..]).map(|u| (**u).clone()).unwrap_or_else(|| User::unrestricted(b"default"));
        d.passwords.clear();
        match pass {
            Some(p) => {
                d.nopass = false;
                d.passwords.push(password::hash(p));
            }
            None => d.nopass = true,
        }
        users.insert(d.name.clone(), Arc::new(d));
        drop(users);
        self.bump();
    }
}
