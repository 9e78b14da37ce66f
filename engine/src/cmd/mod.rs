//! Command handlers, one file per command family. Each handler is named after its command,
//! takes the dispatch context and an argument cursor, and returns a `Reply` or a `CmdError`.

pub mod collection;
pub mod hash;
pub mod keys;
pub mod list;
pub mod pubsub;
pub mod server;
pub mod set;
pub mod string;
pub mod tx;
pub mod zset;
