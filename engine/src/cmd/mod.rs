//! Command handlers, one file per command family. Each handler is named after its command,
//! takes the dispatch context and an argument cursor, and returns a `Reply` or a `CmdError`.

pub mod acl;
pub mod bitmap;
pub mod client;
pub mod client_tracking;
pub mod collection;
pub mod command;
pub mod config;
pub mod functions;
pub mod geo;
pub mod hash;
pub mod hll;
pub mod keys;
pub mod list;
pub mod pubsub;
pub mod scripting;
pub mod server;
pub mod set;
pub mod stream;
pub mod string;
pub mod timing;
pub mod tx;
pub mod zset;

use crate::reply::Reply;

/// A container's HELP reply as Redis's `addReplyHelp` sends it: one status line each.
pub(crate) fn help_reply(lines: &[&str]) -> Reply {
    Reply::Array(lines.iter().map(|l| Reply::status(*l)).collect())
}
