//! The ACL file (`aclfile`, ACL SAVE/LOAD) and `user` lines of the config file: parsing with
//! Redis's accumulated error text, and rendering one `ACL LIST` line per user. Part A implements.

use super::user::User;

/// Parses an aclfile's text (`path` only names it in errors) into users, or Redis's whole
/// error text when any line is bad (nothing is applied then).
pub(crate) fn parse(path: &str, text: &str, pubsub_all: bool) -> Result<Vec<User>, String> {
    let _ = (path, text, pubsub_all);
    todo!("acl part A: aclfile")
}

/// The file ACL SAVE writes: one `ACL LIST` line per user, sorted, each ending in `\n`.
pub(crate) fn render(users: &[std::sync::Arc<User>]) -> String {
    users.iter().map(|u| u.describe() + "\n").collect()
}
