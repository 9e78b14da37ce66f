//! Stream commands. Consumer groups: `xgroup` (XGROUP and what the group commands share),
//! `readgroup` (XREADGROUP and its blocking), `claim` (XACK, XPENDING, XCLAIM, XAUTOCLAIM),
//! `info` (XINFO).

mod claim;
mod info;
mod readgroup;
mod xgroup;

pub use claim::{xack, xautoclaim, xclaim, xpending};
pub use info::{xinfo_consumers, xinfo_groups, xinfo_help, xinfo_stream};
pub(crate) use readgroup::serve_blocked as serve_readgroup;
pub use readgroup::xreadgroup;
pub use xgroup::{xgroup_create, xgroup_createconsumer, xgroup_delconsumer, xgroup_destroy, xgroup_help, xgroup_setid};
#[cfg(test)]
mod group_tests;
