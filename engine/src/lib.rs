//! Vitrine's cache engine: everything the cache does, with no sockets, no threads of its own
//! and no clock (time is always a parameter), so the same code runs in the server and, compiled
//! to WebAssembly, in a browser tab.
//!
//! A map of the crate, in layers whose imports point down only (`tests/layers.rs` checks it;
//! when a lower layer must call up, it defines a small trait, as `store::RemovalLog`):
//! - dispatch, the table and the command families (they may use each other):
//!   [`engine`]: `Engine` (`feed`, `call`, `sweep`, `snapshot`), `Ctx` and dispatch, with
//!   serving blocked clients in `engine/blocked.rs` and pipeline prefetching in `prefetch`;
//!   [`table`]: the command table; [`cmd`]: the handlers, one module per family;
//!   [`args`]: argument parsing.
//! - sessions and their services: [`session`]: `Session` and its transaction state;
//!   [`clients`]: connected clients; [`pubsub`]: subscriptions and delivery to each
//!   subscriber's outbox; [`blocking`]: clients blocked by BLPOP, BRPOP, BLMOVE;
//!   [`propagate`]: write commands in canonical form for the host's append-only file.
//! - stats and config: [`stats`]: counters and `StatsSnapshot`; [`config`]: run-time settings;
//!   [`timing`]: what command durations feed (slow log, latency events and histograms,
//!   errorstats).
//! - the store: [`store`]: shards, entries, memory accounting and its limits, eviction,
//!   expiry, the keyspace counters.
//! - leaves: [`num`]: number parsing and formatting; [`glob`]; [`error`]: `CmdError` (exact
//!   Redis texts) and `ProtocolError`; [`reply`]: `Reply` and its RESP encodings, with
//!   [`reply_json`] (`Reply::to_json`, binary-safe byte strings) and [`reply_cli`] (replies as
//!   `redis-cli` prints them); [`resp`]: incremental request decoding with Redis's limits;
//!   [`counter`]: striped counters; [`hll`]: Redis's HyperLogLog encoding; [`clock`]: the host's
//!   monotonic clock (`Clock`); [`geo`]: geohash cells, neighbours and distances as Redis's geo
//!   commands compute them.
//! - [`inspect`] on top: the views the hosts show (stats samples, key pages and detail,
//!   evictions, the console line, the command table, the settings), built once for the
//!   server and wasm; the hosts use it, `Engine`, `Session`, `Config` and `Reply`.
//! - [`testing`]: the test harness (public for integration tests, benches and fuzz targets).

pub(crate) mod acl;
mod args;
mod blocking;
pub(crate) mod busy;
mod clients;
mod clock;
mod cmd;
mod config;
mod counter;
mod engine;
mod error;
mod geo;
mod glob;
mod hll;
pub mod inspect;
mod monitor;
mod notify;
mod num;
mod prefetch;
mod propagate;
mod pubsub;
mod radar;
/// Redis's RDB value encoding (DUMP / RESTORE payloads; the server's RDB reader uses it).
pub mod rdb;
mod reply;
mod reply_cli;
mod reply_json;
mod resp;
#[cfg(feature = "scripting")]
mod script;
#[cfg(feature = "scripting")]
pub(crate) mod script_libs;
mod session;
mod stats;
mod store;
mod table;
#[doc(hidden)]
pub mod testing;
mod timing;
mod tracking;

pub use clock::Clock;
/// What `Engine::restore_key` (the admin API's import) restores.
pub use cmd::keys::RestoreRequest;
pub use config::{AclFile, BufferLimit, Config, ConfigFile, SetError};
pub use engine::Engine;
pub use error::{CmdError, ProtocolError};
pub use monitor::MonitorEvent;
pub use propagate::EVAL_SCRIPT_ANNOTATION;
pub use reply::Reply;
pub use session::Session;
pub use stats::{AllocatorHooks, CpuTimes, HostFacts, MemoryFigures, StatsSnapshot};
/// The size from which memory accounting assumes the system allocator (the server's allocator
/// sends such blocks there, see server/src/alloc.rs), so the two agree on `used_memory`.
pub use store::entry::LARGE_ALLOC;
pub use store::limits::Policy;

/// The version INFO and the admin API report.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
