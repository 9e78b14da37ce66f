//! ACL rules: one word (`on`, `>pass`, `~k*`, `%R~k*`, `&ch`, `+@read`, `-config|set`, `(...)`,
//! `reset`, ...) applied to a draft user, with Redis's error for each bad one.

use crate::error::CmdError;

use super::user::User;

/// Applies `ACL SETUSER`'s words to `base` (or a new user `name`), merging `(`...`)` selector
/// words that span several arguments, all or nothing. Part A implements.
pub(crate) fn apply_words(base: Option<User>, name: &[u8], words: &[&[u8]], pubsub_all: bool) -> Result<User, CmdError> {
    let _ = (base, name, words, pubsub_all);
    todo!("acl part A: rules")
}
