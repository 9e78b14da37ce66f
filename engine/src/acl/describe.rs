//! How a user prints: its `ACL LIST` line and the fields of `ACL GETUSER`, with the command
//! rules recomputed from the bitset the way Redis 7.0 compacts them. Part A implements.

use super::user::{Selector, User};

impl User {
    /// The `ACL LIST` line (`user default on nopass ~* &* +@all`), as `ACL SAVE` writes it.
    pub(crate) fn describe(&self) -> String {
        todo!("acl part A: describe")
    }
}

impl Selector {
    /// The command rules alone (`-@all +@read -keys`), as GETUSER's `commands`.
    pub(crate) fn describe_commands(&self) -> String {
        todo!("acl part A: compaction")
    }
}
