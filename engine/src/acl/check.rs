//! The permission check dispatch runs once per command: may this user run this row on these
//! keys and channels. Part B implements.

use crate::table::Command;

use super::user::User;

/// Why a command was refused, in Redis's order of relevance (a key denial outranks a command
/// one when selectors disagree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum DenyReason {
    Command,
    Key,
    Channel,
}

/// A refusal: the reason and the argv position of the key or channel (0 for a command).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Denied {
    pub reason: DenyReason,
    pub pos: usize,
}

impl User {
    /// Whether this user may run `cmd` (the row at `index` in `table::rows()`) with `argv`.
    pub(crate) fn check(&self, index: usize, cmd: &Command, argv: &[&[u8]]) -> Result<(), Denied> {
        let _ = (index, cmd, argv);
        todo!("acl part B: check")
    }
}
