//! The views the hosts show, built once: the server's admin HTTP API and the wasm playground
//! both return exactly these serde-typed bodies, so the dashboard reads one shape from either.
//!
//! - [`samples`]: the stats snapshot, per-second [`Sample`]s and a clock-free [`SampleRing`];
//! - [`acl`]: the ACL users and log, a dry run of new rules, and what a user may do;
//! - [`keys`]: key pages (one SCAN step), key detail, writing, editing and deleting a key;
//! - [`bits`]: a string's bytes as bits, a window at a time, with its set-bit counts;
//! - [`bulk`]: counting the keys a glob matches, and bulk delete/EXPIRE/PERSIST one SCAN batch a step;
//! - [`export`]: exporting selected keys as DUMP payloads to a file ([`keys_file`]) and importing one;
//! - [`events`]: recent evictions and expirations, and the active expiry cycle;
//! - [`geo`]: a sorted set of geohashes as points (the key view's scatter);
//! - [`console`]: a console line split as redis-cli does, run, and printed as redis-cli prints;
//! - [`clients`]: the connections, closing one, and the monitor's recent commands;
//! - [`commands`]: the command table for help and autocomplete; [`config`]: the settings view;
//! - [`timing`]: the slow log and per-command latency;
//! - [`compat`]: the compatibility radar (refused commands and options per client library);
//! - [`hotkeys`]: the most accessed keys over a sliding window.
//! - [`notifications`]: the keyspace events published lately (the Events page).
//! - [`memory`]: the memory ledger, big keys and remaining TTLs (the Memory page).
//! - [`scripts`]: the cached scripts and what they did (calls, time, undeclared keys).
//! - [`running`]: the script running now (the busy banner) and killing it.
//! - [`whatif`]: the miss-ratio curve (the hit ratio at other memory limits) and the ghost
//!   record's horizon.
//!
//! Time is a parameter here as everywhere in the engine. Looking never touches a key (its
//! LRU/LFU stamps stay) and never counts as a hit or a miss. Writes take a `run` callback that
//! runs one command through dispatch the way the host runs its own (the server's also logs to
//! the append-only file), so memory limits, stats and persistence apply as for any client.
//!
//! The TypeScript types of these bodies are generated with ts-rs into `web/src/lib/api-types/`
//! (see `api_types` in the tests; `scripts/gen-types` rewrites them).

pub mod acl;
#[cfg(test)]
mod api_types;
pub mod bits;
pub mod bulk;
pub mod clients;
pub mod commands;
pub mod compat;
pub mod config;
pub mod console;
pub mod events;
pub mod export;
pub mod geo;
pub mod hotkeys;
pub mod keys;
pub mod keys_file;
pub mod memory;
pub mod notifications;
pub mod running;
pub mod samples;
pub mod scripts;
pub mod stream;
pub mod stream_groups;
pub mod timing;
pub mod whatif;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde::Serialize;
use ts_rs::TS;

pub use acl::{acl_log, acl_users, AclLogView, AclSelectorView, AclUserView};
pub use bits::{string_bits, BitsQuery, StringBits};
pub use bulk::{bulk_job, bulk_step, count_keys, BulkJob, BulkRequest, JobState, KeyCount, KeyFilter};
pub use clients::{clients, kill_client, monitor, ClientRow, ClientsView, MonitorEventView, MonitorView, TrackingRow};
pub use commands::{command_counters, command_names, commands_json, help, is_command, CommandCounter};
pub use compat::{compat, compat_reset, CompatRow, CompatView};
pub use config::{config_view, hide_secrets, patch_config, ConfigParam, ConfigView};
pub use console::{console_line, console_line_with, split_line, ConsoleReply};
pub use events::{evictions, expiry_cycle, EventView, EvictionsView, ExpiryReport};
pub use export::{
    export_keys, import_keys, ConflictMode, ExportRequest, ExportedFile, ImportQuery, ImportReport, ImportRow,
    ImportStatus,
};
pub use geo::{geo_points, GeoPointView, GeoPoints, GeoQuery};
pub use hotkeys::{hot_keys, hot_keys_reset, HotKeyRow, HotKeysView};
pub use keys::{
    call_in, database, delete_key, edit_key, key_detail, key_page, put_key, DeleteResult, EditResult, KeyDetail,
    KeyEdit, KeyPage, KeyQuery, KeyRow, KeyWrite,
};
pub use keys_file::{FileFormat, KeysFile};
pub use memory::{memory, MemoryView};
pub use notifications::{keyspace_events, KeyspaceEventView, KeyspaceEventsView};
pub use running::{kill_running_script, running_script, RunningScriptView};
pub use samples::{history, snapshot, HistoryView, Sample, SampleRing, HISTORY_SECONDS};
pub use scripts::{script, scripts, ScriptCommandCount, ScriptDetail, ScriptRow, ScriptsView};
pub use stream::{stream_page, StreamEntryView, StreamPage, StreamQuery};
pub use stream_groups::{StreamConsumerView, StreamGroupView};
pub use timing::{latency, slowlog, slowlog_reset, LatencyView, SlowLogView};
pub use whatif::{what_if, CurvePointView, GhostView, WhatIfView};

pub use crate::reply_json::bytes_from_json;
pub use crate::stats::{DbKeyspace, StatsSnapshot};

/// A binary-safe byte string as the views show it: valid UTF-8 as a JSON string, anything
/// else as `{"base64": "..."}` (see `reply_json::bytes_to_json`).
#[derive(Debug, Clone, PartialEq, Eq, TS)]
#[ts(export_to = "Bytes.ts", as = "BytesTs")]
pub struct Bytes(pub Vec<u8>);

/// Only the TypeScript shape of [`Bytes`].
#[derive(TS)]
#[ts(rename = "Bytes", export_to = "Bytes.ts")]
#[allow(dead_code)]
#[ts(untagged)]
enum BytesTs {
    Text(String),
    Base64 { base64: String },
}

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(&self.0) {
            Ok(text) => s.serialize_str(text),
            Err(_) => {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("base64", &BASE64.encode(&self.0))?;
                map.end()
            }
        }
    }
}

impl From<&[u8]> for Bytes {
    fn from(b: &[u8]) -> Bytes {
        Bytes(b.to_vec())
    }
}

/// Why a view request was refused, with the HTTP status its twin on the admin API answers and
/// the same code and message; the wasm playground throws the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: Status,
    /// The `code` of the API's `{"error": {...}}` body (`bad_parameter`, `invalid_body`, ...).
    pub code: &'static str,
    pub message: String,
}

/// The HTTP status class of a [`Refusal`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// 400: a bad query parameter.
    BadRequest,
    /// 404: no such key.
    NotFound,
    /// 409: the key exists (a create-only write).
    Conflict,
    /// 422: a well-formed body that asks for something impossible, or a command error.
    Unprocessable,
    /// 507: the memory limit refused the write.
    InsufficientStorage,
}

impl Refusal {
    pub(crate) fn new(status: Status, code: &'static str, message: impl Into<String>) -> Refusal {
        Refusal { status, code, message: message.into() }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Refusal {}
