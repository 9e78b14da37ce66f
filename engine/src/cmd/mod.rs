//! Command handlers, one file per command family. Each handler is named after its command,
//! takes the dispatch context and an argument cursor, and returns a `Reply` or a `CmdError`.

pub mod keys;
pub mod long_double;
pub mod server;
pub mod string;
