//! The engine's ACL entry points: the user a session acts as, refusing and logging a denied
//! command, disconnecting a removed user's clients, and the calls hosts make (the admin API
//! signs in as a user and asks what it may do). Part B of issue 22 fills these in.

use std::sync::Arc;

use super::Engine;
use crate::acl::{Acl, User};
use crate::error::CmdError;
use crate::session::Session;

impl Engine {
    pub(crate) fn acl(&self) -> &Acl {
        &self.acl
    }

    /// The user `session` acts as (placeholder: `default` until part B keeps it on the session).
    pub(crate) fn session_user(&self, session: &Session) -> Arc<User> {
        let _ = session;
        self.acl.default_user()
    }

    /// Closes every connection authenticated as one of `names` (after ACL DELUSER / LOAD),
    /// after the reply to the command that removed them is written. Part B.
    pub(crate) fn disconnect_users(&self, names: &[&[u8]]) {
        let _ = names;
    }

    /// `ACL DRYRUN user argv...` without logging: `Ok(None)` allowed, `Ok(Some(text))` the
    /// bulk text Redis 7.0 answers for a refusal, `Err` an unknown user or command or a wrong
    /// arity (Redis's texts). Part B.
    pub(crate) fn acl_dryrun(&self, user: &[u8], argv: &[&[u8]]) -> Result<Option<String>, CmdError> {
        let _ = (user, argv);
        todo!("acl part B: dryrun")
    }

    /// For hosts: whether `user` may run `argv` (no log entry, no counter). Unknown users and
    /// commands are not allowed.
    pub fn acl_allows(&self, user: &[u8], argv: &[&[u8]]) -> bool {
        matches!(self.acl_dryrun(user, argv), Ok(None))
    }

    /// For hosts: checks `argv` for `user` as a top-level command would be; a refusal is
    /// counted, logged in ACL LOG (context `toplevel`, `client_info` as the client) and
    /// returned as the NOPERM text Redis would send (without the leading `-`). Part B.
    pub fn acl_permit(&self, user: &[u8], argv: &[&[u8]], client_info: &str, now_ms: u64) -> Result<(), String> {
        let _ = (user, argv, client_info, now_ms);
        todo!("acl part B: permit")
    }

    /// For hosts: checks a user name and password as `AUTH user pass` does (counted and
    /// logged as reason `auth` with object `AUTH` on failure; the last authentication noted
    /// on success). Part B.
    pub fn acl_login(&self, user: &[u8], pass: &[u8], client_info: &str, now_ms: u64) -> bool {
        let _ = (user, pass, client_info, now_ms);
        todo!("acl part B: login")
    }

    /// For hosts: makes `session` act as `user`, authenticated (the admin API's console runs
    /// as the signed-in user). False when there is no such user. Part B.
    pub fn session_as(&self, session: &mut Session, user: &[u8]) -> bool {
        let _ = (session, user);
        todo!("acl part B: session_as")
    }
}
