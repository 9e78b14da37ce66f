//! The engine's ACL entry points: the user a session acts as, refusing and logging a denied
//! command, disconnecting a removed user's clients, and the calls hosts make (the admin API
//! signs in as a user and asks what it may do).

use std::any::Any;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use super::Engine;
use crate::acl::log::Event;
use crate::acl::{Acl, Channels, Denied, DenyReason, LogContext, LogReason, User};
use crate::error::CmdError;
use crate::session::{Session, SessionUser};
use crate::table::{self, Command};

#[cfg(test)]
mod tests;

/// Where a denied command was refused, which decides its error text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Run alone, or queued in MULTI: `NOPERM this user has no permissions ...`.
    TopLevel,
    Queued,
    /// Re-checked by EXEC after the rules changed.
    Exec,
    /// Called by a script: `ERR The user executing the script can't ...`.
    #[cfg_attr(not(feature = "scripting"), allow(dead_code))]
    Script,
}

impl Engine {
    pub(crate) fn acl(&self) -> &Acl {
        &self.acl
    }

    /// `acllog-max-len`.
    pub(crate) fn acllog_max_len(&self) -> usize {
        self.config().acllog_max_len()
    }

    /// The session's user state for `user`, read at the registry's current epoch.
    pub(crate) fn session_user_state(&self, user: Arc<User>) -> SessionUser {
        SessionUser {
            free: user.is_unrestricted(),
            epoch: self.acl.epoch(),
            user: Some(user as Arc<dyn Any + Send + Sync>),
        }
    }

    /// Makes `session` act as `user` (AUTH, HELLO ... AUTH, RESET, a host signing in), and
    /// shows it on its client (CLIENT LIST's `user`).
    pub(crate) fn set_session_user(&self, session: &mut Session, user: Arc<User>) {
        let name: Arc<str> = Arc::from(user.name_lossy());
        session.user = self.session_user_state(user);
        *session.client.user.lock() = name;
    }

    /// The user `session` acts as, as the registry last published it (`default` for an
    /// internal session with none).
    pub(crate) fn session_user(&self, session: &Session) -> Arc<User> {
        session.user.user.clone().and_then(|u| u.downcast::<User>().ok()).unwrap_or_else(|| self.acl.default_user())
    }

    /// A session with no user: never checked (the AOF loader replays what clients already
    /// were allowed to run, as Redis's loading client has no user).
    pub fn session_internal(&self, session: &mut Session) {
        session.user = SessionUser { user: None, epoch: u64::MAX, free: true };
        session.authenticated = true;
    }

    /// After any ACL change: re-reads the session's user by name. A deleted user stays as it
    /// was until the kill DELUSER set closes the connection (Redis answers as the old user
    /// until then too).
    #[cold]
    #[inline(never)]
    fn refresh_user(&self, session: &mut Session) {
        let epoch = self.acl.epoch();
        let Some(current) = session.user.user.as_ref().and_then(|u| u.downcast_ref::<User>()) else {
            session.user.epoch = epoch;
            return;
        };
        match self.acl.user(&current.name) {
            Some(fresh) => session.user = SessionUser { free: fresh.is_unrestricted(), epoch, user: Some(fresh) },
            None => session.user.epoch = epoch,
        }
    }

    /// The ACL check of dispatch (`admit`), EXEC and `redis.call`: free for an unrestricted
    /// user (one relaxed load and a bool), else the user's verdict; a refusal is counted,
    /// logged in ACL LOG and returned as the error Redis 7.0 sends from `place`.
    #[inline]
    pub(crate) fn acl_admit(
        &self,
        session: &mut Session,
        index: usize,
        cmd: &Command,
        argv: &[&[u8]],
        place: Place,
        now_ms: u64,
    ) -> Result<(), CmdError> {
        if session.user.epoch != self.acl.epoch() && session.user.user.is_some() {
            self.refresh_user(session);
        }
        if session.user.free {
            return Ok(());
        }
        self.acl_check_user(session, index, cmd, argv, place, now_ms)
    }

    #[cold]
    #[inline(never)]
    fn acl_check_user(
        &self,
        session: &Session,
        index: usize,
        cmd: &Command,
        argv: &[&[u8]],
        place: Place,
        now_ms: u64,
    ) -> Result<(), CmdError> {
        let Some(user) = session.user.user.as_ref().and_then(|u| u.downcast_ref::<User>()) else { return Ok(()) };
        let Err(denied) = user.check(index, cmd, argv) else { return Ok(()) };
        let context = match place {
            Place::TopLevel => LogContext::TopLevel,
            Place::Queued | Place::Exec => LogContext::Multi,
            Place::Script => LogContext::Lua,
        };
        let argv_mem = argv.iter().map(|a| a.len()).sum();
        let client_info = session.client.describe(now_ms, table::name_of, argv_mem);
        self.log_denial(denied, cmd, argv, &user.name, context, client_info, now_ms);
        Err(CmdError::Other(denial_text(denied.reason, cmd, place)))
    }

    /// Counts a denial and logs it (object: the command's full name, or the key or channel).
    #[allow(clippy::too_many_arguments)]
    fn log_denial(
        &self,
        denied: Denied,
        cmd: &Command,
        argv: &[&[u8]],
        username: &[u8],
        context: LogContext,
        client_info: String,
        now_ms: u64,
    ) {
        let stats = self.stats();
        let (reason, object, counter) = match denied.reason {
            DenyReason::Command => (LogReason::Command, cmd.full_name().into_bytes(), &stats.acl_access_denied_cmd),
            DenyReason::Key => (LogReason::Key, arg(argv, denied.pos), &stats.acl_access_denied_key),
            DenyReason::Channel => (LogReason::Channel, arg(argv, denied.pos), &stats.acl_access_denied_channel),
        };
        counter.fetch_add(1, Relaxed);
        let event = Event { reason, context, object, username: username.to_vec(), client_info };
        self.acl.log.lock().record(event, now_ms, self.acllog_max_len());
    }

    /// Logs a failed authentication (AUTH, HELLO ... AUTH, a host's sign-in): `object` is the
    /// command as typed, `username` the name tried. Dispatch counts the WRONGPASS itself;
    /// hosts' sign-ins are counted here (`count`).
    pub(crate) fn log_auth_failure(
        &self,
        object: &[u8],
        username: &[u8],
        client_info: String,
        now_ms: u64,
        count: bool,
    ) {
        if count {
            self.stats().acl_access_denied_auth.fetch_add(1, Relaxed);
        }
        let event = Event {
            reason: LogReason::Auth,
            context: LogContext::TopLevel,
            object: object.to_vec(),
            username: username.to_vec(),
            client_info,
        };
        self.acl.log.lock().record(event, now_ms, self.acllog_max_len());
    }

    /// After `ACL SETUSER` changed `old` into `new`: closes the connections of that user
    /// subscribed to a channel or pattern the new rules no longer allow (Redis 7.0's
    /// `ACLKillPubsubClientsIfNeeded`; nothing when a selector allows every channel, or the
    /// new channel list holds every old one).
    pub(crate) fn kill_pubsub_if_needed(&self, old: &User, new: &User) {
        let mut upcoming: Vec<&[u8]> = Vec::new();
        for s in &new.selectors {
            match &s.channels {
                Channels::All => return,
                Channels::Patterns(p) => upcoming.extend(p.iter().map(Vec::as_slice)),
            }
        }
        let superset = old.selectors.iter().all(|s| match &s.channels {
            Channels::All => false,
            Channels::Patterns(p) => p.iter().all(|c| upcoming.contains(&c.as_slice())),
        });
        if superset {
            return;
        }
        let name = old.name_lossy();
        let allowed = |channel: &[u8], pattern: bool| {
            upcoming.iter().any(|p| if pattern { *p == channel } else { crate::glob::matches(p, channel) })
        };
        for client in self.clients.all() {
            if **client.user.lock() != *name
                || client.sub.load(Relaxed) + client.psub.load(Relaxed) + client.ssub.load(Relaxed) == 0
            {
                continue;
            }
            if self.pubsub.any_subscription(client.id, |channel, pattern| !allowed(channel, pattern)) {
                client.kill();
            }
        }
    }

    /// `ACL SETUSER`: applies the rules (all or nothing), then closes the user's pub/sub
    /// connections the new channel rules no longer allow. Sessions pick the new rules up on
    /// their next command (the epoch moved).
    pub(crate) fn acl_set_user(&self, name: &[u8], words: &[&[u8]], pubsub_all: bool) -> Result<Arc<User>, CmdError> {
        let old = self.acl.user(name);
        let new = self.acl.set_user(name, words, pubsub_all)?;
        if let Some(old) = old {
            self.kill_pubsub_if_needed(&old, &new);
        }
        Ok(new)
    }

    /// Closes every connection authenticated as one of `names` (after ACL DELUSER / LOAD).
    /// The connection loop closes a killed client after writing the replies it has, so the
    /// caller's own reply goes out first even when it is one of them.
    pub(crate) fn disconnect_users(&self, names: &[&[u8]]) {
        for client in self.clients.all() {
            let user = client.user.lock().clone();
            if names.iter().any(|n| *n == user.as_bytes()) {
                client.kill();
            }
        }
    }

    /// `ACL DRYRUN user argv...` without logging: `Ok(None)` allowed, `Ok(Some(text))` the
    /// bulk text Redis 7.0 answers for a refusal, `Err` an unknown user or command or a wrong
    /// arity (Redis's texts).
    pub(crate) fn acl_dryrun(&self, user: &[u8], argv: &[&[u8]]) -> Result<Option<String>, CmdError> {
        let Some(u) = self.acl.user(user) else {
            return Err(CmdError::err(format!("User '{}' not found", String::from_utf8_lossy(user))));
        };
        let (index, cmd) = lookup(argv)?;
        let argc = argv.len() as i32;
        if (cmd.arity > 0 && argc != cmd.arity) || (cmd.arity < 0 && argc < -cmd.arity) {
            return Err(CmdError::WrongArity(cmd.full_name()));
        }
        Ok(u.check(index, cmd, argv).err().map(|d| {
            let what = String::from_utf8_lossy(argv.get(d.pos).copied().unwrap_or_default()).into_owned();
            match d.reason {
                DenyReason::Command => format!("This user has no permissions to run the '{}' command", cmd.full_name()),
                DenyReason::Key => format!("This user has no permissions to access the '{what}' key"),
                DenyReason::Channel => format!("This user has no permissions to access the '{what}' channel"),
            }
        }))
    }

    /// For hosts: whether `user` may run `argv` (no log entry, no counter). Unknown users and
    /// commands are not allowed.
    pub fn acl_allows(&self, user: &[u8], argv: &[&[u8]]) -> bool {
        !argv.is_empty() && matches!(self.acl_dryrun(user, argv), Ok(None))
    }

    /// For hosts: checks `argv` for `user` as a top-level command would be; a refusal is
    /// counted, logged in ACL LOG (context `toplevel`, `client_info` as the client) and
    /// returned as the NOPERM text Redis would send (without the leading `-`). An unknown
    /// user or command is refused with Redis's ERR text, not logged.
    pub fn acl_permit(&self, user: &[u8], argv: &[&[u8]], client_info: &str, now_ms: u64) -> Result<(), String> {
        let Some(u) = self.acl.user(user) else {
            return Err(format!("ERR User '{}' not found", String::from_utf8_lossy(user)));
        };
        let (index, cmd) = lookup(argv).map_err(|e| e.to_string())?;
        match u.check(index, cmd, argv) {
            Ok(()) => Ok(()),
            Err(denied) => {
                self.log_denial(denied, cmd, argv, &u.name, LogContext::TopLevel, client_info.to_string(), now_ms);
                Err(denial_text(denied.reason, cmd, Place::TopLevel))
            }
        }
    }

    /// For hosts: checks a user name and password as `AUTH user pass` does (counted and
    /// logged as reason `auth` with object `AUTH` on failure; the last authentication noted
    /// on success).
    pub fn acl_login(&self, user: &[u8], pass: &[u8], client_info: &str, now_ms: u64) -> bool {
        if self.acl.authenticate(user, pass).is_some() {
            self.acl.note_auth(user, now_ms);
            true
        } else {
            self.log_auth_failure(b"AUTH", user, client_info.to_string(), now_ms, true);
            false
        }
    }

    /// For hosts: makes `session` act as `user`, authenticated (the admin API's console runs
    /// as the signed-in user). False when there is no such user.
    pub fn session_as(&self, session: &mut Session, user: &[u8]) -> bool {
        let Some(u) = self.acl.user(user) else { return false };
        self.set_session_user(session, u);
        session.authenticated = true;
        true
    }
}

/// The row `argv` names (a subcommand row when the container has one by that name), or
/// DRYRUN's error quoting `argv[0]` as typed.
fn lookup(argv: &[&[u8]]) -> Result<(usize, &'static Command), CmdError> {
    let not_found = || {
        CmdError::err(format!(
            "Command '{}' not found",
            String::from_utf8_lossy(argv.first().copied().unwrap_or_default())
        ))
    };
    let (index, cmd) = argv.first().and_then(|name| table::lookup(name)).ok_or_else(not_found)?;
    if cmd.is_container() && argv.len() > 1 {
        return table::lookup_subcommand(index, cmd, argv[1]).ok_or_else(not_found);
    }
    Ok((index, cmd))
}

fn arg(argv: &[&[u8]], pos: usize) -> Vec<u8> {
    argv.get(pos).map(|a| a.to_vec()).unwrap_or_default()
}

/// Redis 7.0's text for a refusal, which depends on where it happened (without the `-`).
pub(crate) fn denial_text(reason: DenyReason, cmd: &Command, place: Place) -> String {
    match place {
        Place::TopLevel | Place::Queued => match reason {
            DenyReason::Command => format!("NOPERM this user has no permissions to run the '{}' command", cmd.full_name()),
            DenyReason::Key => "NOPERM this user has no permissions to access one of the keys used as arguments".into(),
            DenyReason::Channel => "NOPERM this user has no permissions to access one of the channels used as arguments".into(),
        },
        Place::Exec => format!(
            "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: {}",
            match reason {
                DenyReason::Command => "no permission to execute the command or subcommand",
                DenyReason::Key => "no permission to touch the specified keys",
                DenyReason::Channel => "no permission to access one of the channels used as arguments",
            }
        ),
        Place::Script => match reason {
            DenyReason::Command => "ERR The user executing the script can't run this command or subcommand".into(),
            DenyReason::Key => {
                "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments".into()
            }
            DenyReason::Channel => "ERR The user executing the script can't publish to the channel mentioned in the command".into(),
        },
    }
}
