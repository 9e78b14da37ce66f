//! What hosts give the ACL and ask of it at start-up: `user` lines of the config file, the
//! aclfile (loaded at start-up, ACL SAVE / LOAD), a random source for ACL GENPASS, and whether
//! a new connection must authenticate.

use std::sync::Arc;

use super::Engine;
use crate::acl::{file, User};
use crate::config::AclFile;
use crate::error::CmdError;

/// ACL SAVE / LOAD without an aclfile (Redis's text).
const NO_ACLFILE: &str = "This Redis instance is not configured to use an ACL file. You may want to specify users via \
     the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in \
     order to store users in the Redis configuration.";

impl Engine {
    /// Whether a new connection must authenticate: the default user is off or has passwords
    /// (`requirepass`, `ACL SETUSER default >pw`, a `user default` line).
    pub fn auth_required(&self) -> bool {
        self.acl.auth_required()
    }

    /// Lends the engine the host's random source, a CSPRNG (ACL GENPASS): it fills the
    /// buffer or answers false. The first one set stays; without one GENPASS refuses rather
    /// than make a guessable password.
    pub fn set_entropy(&self, fill: fn(&mut [u8]) -> bool) {
        self.config().set_entropy(fill);
    }

    /// The config file's `user <name> <rules...>` lines (each given as its words after
    /// `user`, the name first, with the line number for errors), applied at start-up as
    /// Redis does: each named user is defined by its line alone (`default` too: a `user
    /// default` line replaces what `requirepass` set); a bad rule or a user defined twice is
    /// an error and nothing is applied.
    pub fn set_config_users(&self, lines: &[(usize, Vec<Vec<u8>>)]) -> Result<(), String> {
        if lines.is_empty() {
            return Ok(());
        }
        let pubsub_all = self.config().acl_pubsub_all();
        let mut users: Vec<User> = Vec::with_capacity(lines.len() + 1);
        for (line, words) in lines {
            let Some(name) = words.first() else {
                return Err(format!("line {line}: wrong number of arguments"));
            };
            if users.iter().any(|u| u.name == *name) {
                return Err(format!(
                    "line {line}: Error in user declaration '{}': Duplicate user found. A user can only be defined \
                     once in config files",
                    String::from_utf8_lossy(name)
                ));
            }
            let words: Vec<&[u8]> = words.iter().map(Vec::as_slice).collect();
            users.push(file::config_user_line(&words, pubsub_all).map_err(|e| format!("line {line}: {e}"))?);
        }
        if !users.iter().any(|u| u.name == b"default") {
            users.push((*self.acl.default_user()).clone());
        }
        self.acl.replace_all(users);
        Ok(())
    }

    /// Names the aclfile (`aclfile`) and loads it, at start-up. The error is Redis's text
    /// (the file's problems, or why it could not be opened); the caller refuses to start.
    pub fn load_acl_file(&self, file: Arc<dyn AclFile>) -> Result<(), String> {
        self.config().set_acl_file(file);
        self.acl_load_file().map(drop).map_err(|e| e.to_string().trim_start_matches("ERR ").to_string())
    }

    /// ACL LOAD: the aclfile's users replace every user, all or nothing. The caller
    /// disconnects the clients of the users it returns (every non-default user before the
    /// load, as Redis 7.0 frees them all).
    pub(crate) fn acl_load_file(&self) -> Result<Vec<Vec<u8>>, CmdError> {
        let file = self.config().acl_file().ok_or_else(|| CmdError::err(NO_ACLFILE))?;
        let path = file.path();
        let text = file.read().map_err(|why| CmdError::err(file::open_error(&path, &why)))?;
        let users = file::parse(&path, &text, self.config().acl_pubsub_all()).map_err(CmdError::err)?;
        let before: Vec<Vec<u8>> =
            self.acl.users().iter().filter(|u| u.name != b"default").map(|u| u.name.clone()).collect();
        self.acl.replace_all(users);
        Ok(before)
    }

    /// ACL SAVE: every user's `ACL LIST` line into the aclfile, replacing it atomically.
    pub(crate) fn acl_save_file(&self) -> Result<(), CmdError> {
        let file = self.config().acl_file().ok_or_else(|| CmdError::err(NO_ACLFILE))?;
        file.write(&file::render(&self.acl.users())).map_err(|_| {
            CmdError::err("There was an error trying to save the ACLs. Please check the server logs for more information")
        })
    }
}
