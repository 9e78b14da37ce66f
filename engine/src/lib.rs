//! Vitrine's cache engine: everything the cache does, with no sockets, no threads of its own
//! and no clock (time is always a parameter), so the same code runs in the server and, compiled
//! to WebAssembly, in a browser tab.
//!
//! A map of the crate:
//! - [`engine`]: `Engine` (`feed`, `call`, `sweep`, `snapshot`), `Session`, and dispatch.
//! - [`inspect`]: the views the hosts show (stats samples, key pages and detail, evictions,
//!   the console line, the command table, the settings), built once for the server and wasm.
//! - [`resp`]: incremental request decoding with Redis's limits; [`reply`]: `Reply` and its encodings.
//! - [`reply_json`]: `Reply::to_json` and the JSON encoding of binary-safe byte strings.
//! - [`reply_cli`]: replies as `redis-cli` prints them (`(integer) 1`, `1) "a"`), for consoles.
//! - [`table`]: the command table; [`cmd`]: the handlers, one file per family; [`args`]: argument parsing.
//! - [`store`]: shards, entries, memory accounting, eviction and expiry.
//! - [`pubsub`]: pub/sub subscriptions and delivery to each subscriber's outbox.
//! - [`propagate`]: write commands in canonical form for the host's append-only file.
//! - [`blocking`]: clients blocked by BLPOP, BRPOP, BLMOVE, and serving them when data arrives.
//! - [`stats`]: counters and `StatsSnapshot`; [`config`]: run-time settings; [`clients`]: connected clients.
//! - [`error`]: `CmdError` (exact Redis texts) and `ProtocolError`.

mod args;
mod blocking;
mod clients;
mod cmd;
mod config;
mod engine;
mod error;
mod glob;
pub mod inspect;
mod prefetch;
mod propagate;
mod pubsub;
mod reply;
mod reply_cli;
mod reply_json;
mod resp;
mod stats;
mod store;
mod table;
#[doc(hidden)]
pub mod testing;

pub use clients::BufferLimit;
pub use config::{Config, Policy};
pub use engine::{Engine, Session};
pub use error::{CmdError, ProtocolError};
pub use reply::Reply;
pub use stats::{HostFacts, StatsSnapshot};
/// The size from which memory accounting assumes the system allocator (the server's allocator
/// sends such blocks there, see server/src/alloc.rs), so the two agree on `used_memory`.
pub use store::entry::LARGE_ALLOC;

/// The version INFO and the admin API report.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
