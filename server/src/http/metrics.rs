//! `GET /metrics`: the Prometheus text exposition format (version 0.0.4), with names close to
//! redis_exporter's (`redis_memory_used_bytes` is `vitrine_memory_used_bytes` here, and so
//! on) so existing dashboards and alerts translate by a prefix. Every series exists from the
//! first scrape, zeros included (per-command counters for every command in the table), so
//! `rate()` and alerts never see a series appear out of nowhere.

use std::fmt::Write;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use vitrine_engine::inspect;

use super::AppState;
use crate::now_ms;

/// The exposition's content type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

pub async fn metrics(State(state): State<AppState>) -> Response {
    let text = render(&state);
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}

/// Writes one metric family: HELP, TYPE and its samples (`labels` already formatted, e.g.
/// `cmd="get"`, or empty).
struct Out(String);

impl Out {
    fn family(&mut self, name: &str, kind: &str, help: &str, samples: &[(String, f64)]) {
        let _ = writeln!(self.0, "# HELP {name} {help}");
        let _ = writeln!(self.0, "# TYPE {name} {kind}");
        for (labels, value) in samples {
            let value = format_value(*value);
            if labels.is_empty() {
                let _ = writeln!(self.0, "{name} {value}");
            } else {
                let _ = writeln!(self.0, "{name}{{{labels}}} {value}");
            }
        }
    }

    fn one(&mut self, name: &str, kind: &str, help: &str, value: f64) {
        self.family(name, kind, help, &[(String::new(), value)]);
    }
}

fn format_value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A label value escaped as the format requires (backslash, double quote, newline).
pub fn escape_label(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The whole exposition.
pub fn render(state: &AppState) -> String {
    let engine = &state.engine;
    let snap = engine.snapshot(now_ms());
    let mut out = Out(String::with_capacity(16 * 1024));
    let c = |v: u64| v as f64;

    out.one("vitrine_up", "gauge", "Whether the server is up (always 1 when it answers).", 1.0);
    out.family(
        "vitrine_build_info",
        "gauge",
        "Build information (always 1).",
        &[(format!("version=\"{}\"", escape_label(snap.version)), 1.0)],
    );
    out.one("vitrine_uptime_in_seconds", "gauge", "Seconds since the server started.", c(snap.uptime_s));
    out.one(
        "vitrine_memory_used_bytes",
        "gauge",
        "Accounted bytes of all keys and values, which maxmemory limits (INFO's used_memory_dataset).",
        c(snap.used_memory),
    );
    out.one("vitrine_memory_max_bytes", "gauge", "The maxmemory limit in bytes (0 = none).", c(snap.maxmemory));
    out.one("vitrine_memory_used_rss_bytes", "gauge", "Resident set size of the process.", c(snap.host.rss_bytes));
    out.one(
        "vitrine_allocator_allocated_bytes",
        "gauge",
        "Bytes the allocator reports as allocated (0 when unknown).",
        c(snap.host.allocator_bytes),
    );
    // The scripts' VM and cache (redis_exporter's names for INFO's fields).
    let sc = &snap.scripting;
    out.one(
        "vitrine_memory_used_vm_eval_bytes",
        "gauge",
        "Bytes the EVAL scripts' Lua VM holds (INFO's used_memory_vm_eval, alias used_memory_lua).",
        c(sc.used_memory_vm_eval),
    );
    out.one(
        "vitrine_memory_used_scripts_eval_bytes",
        "gauge",
        "Bytes the script cache holds (INFO's used_memory_scripts_eval).",
        c(sc.used_memory_scripts_eval),
    );
    out.one(
        "vitrine_number_of_cached_scripts",
        "gauge",
        "Scripts in the script cache.",
        c(sc.number_of_cached_scripts),
    );
    out.one(
        "vitrine_evicted_scripts_total",
        "counter",
        "EVAL scripts evicted from the script cache (past 500, least recently used first).",
        c(sc.evicted_scripts),
    );
    out.one(
        "vitrine_lua_maxmemory_bytes",
        "gauge",
        "The lua-maxmemory cap on the Lua VM (0 = none).",
        c(sc.lua_maxmemory),
    );
    // Client-side caching (redis_exporter's names for INFO's tracking fields).
    let tr = &snap.tracking;
    out.one("vitrine_tracking_clients", "gauge", "Clients with CLIENT TRACKING on.", c(tr.clients));
    out.one("vitrine_tracking_total_keys", "gauge", "Keys in the client tracking table.", c(tr.keys));
    out.one("vitrine_tracking_total_items", "gauge", "Client ids across the tracking table's keys.", c(tr.items));
    out.one("vitrine_tracking_total_prefixes", "gauge", "BCAST prefixes tracked.", c(tr.prefixes));
    out.one(
        "vitrine_tracking_invalidations_total",
        "counter",
        "Invalidation messages sent to tracking clients.",
        c(tr.invalidations),
    );
    out.family(
        "vitrine_maxmemory_policy",
        "gauge",
        "The eviction policy in force (1 for the current one).",
        &[(format!("policy=\"{}\"", escape_label(snap.maxmemory_policy)), 1.0)],
    );
    out.one("vitrine_maxmemory_samples", "gauge", "Keys sampled per eviction.", snap.maxmemory_samples as f64);
    // Per database, with redis_exporter's label (`db="db0"`): every database, as
    // redis_exporter reports them (an empty one as 0).
    let empty = vitrine_engine::inspect::DbKeyspace::default();
    let per_db = |f: &dyn Fn(&vitrine_engine::inspect::DbKeyspace) -> f64| -> Vec<(String, f64)> {
        (0..snap.databases)
            .map(|db| {
                let d = snap.keyspace.iter().find(|d| d.db == db).unwrap_or(&empty);
                (format!("db=\"db{db}\""), f(d))
            })
            .collect()
    };
    out.family("vitrine_db_keys", "gauge", "Keys in the database.", &per_db(&|d| c(d.keys)));
    out.family("vitrine_db_keys_expiring", "gauge", "Keys with a TTL in the database.", &per_db(&|d| c(d.expires)));
    out.family(
        "vitrine_db_avg_ttl_seconds",
        "gauge",
        "Estimated mean remaining TTL of the database's keys with one.",
        &per_db(&|d| d.avg_ttl_ms as f64 / 1000.0),
    );
    let by_type: Vec<(String, f64)> = snap
        .keyspace
        .iter()
        .flat_map(|d| match serde_json::to_value(&d.keys_by_type) {
            Ok(serde_json::Value::Object(map)) => map
                .iter()
                .map(|(t, n)| (format!("db=\"db{}\",type=\"{}\"", d.db, escape_label(t)), n.as_f64().unwrap_or(0.0)))
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    out.family("vitrine_db_keys_by_type", "gauge", "Keys in the database by type.", &by_type);
    out.one("vitrine_keyspace_hits_total", "counter", "Read lookups that found their key.", c(snap.hits));
    out.family(
        "vitrine_keyspace_misses_total",
        "counter",
        "Read lookups that found no key, by cause: never_seen (never written, deleted, or gone long ago), expired or evicted recently.",
        &[
            ("cause=\"never_seen\"".to_string(), c(snap.misses_never_seen)),
            ("cause=\"expired\"".to_string(), c(snap.misses_expired)),
            ("cause=\"evicted\"".to_string(), c(snap.misses_evicted)),
        ],
    );
    out.one("vitrine_evicted_keys_total", "counter", "Keys evicted to stay under maxmemory.", c(snap.evicted_keys));
    let what_if = vitrine_engine::inspect::what_if(engine, now_ms());
    out.one(
        "vitrine_miss_record_bytes",
        "gauge",
        "Bytes of the record of evicted and expired keys that classifies misses (outside used_memory, not counted against maxmemory).",
        c(what_if.ghost.bytes),
    );
    out.one(
        "vitrine_miss_record_horizon_departures",
        "gauge",
        "Evictions and expirations the miss record remembers: a miss on a key gone longer ago counts as never seen.",
        c(what_if.ghost.horizon_departures),
    );
    if let Some(ms) = what_if.ghost.horizon_ms {
        out.one(
            "vitrine_miss_record_horizon_seconds",
            "gauge",
            "How long ago the oldest departure the miss record remembers happened.",
            ms as f64 / 1000.0,
        );
    }
    let curve: Vec<(String, f64)> =
        what_if.points.iter().map(|p| (format!("factor=\"{}\"", p.factor), p.hit_ratio)).collect();
    out.family(
        "vitrine_what_if_hit_ratio",
        "gauge",
        "Estimated hit ratio at a multiple (factor) of maxmemory, from sampled reuse distances (SHARDS).",
        &curve,
    );
    if let Some(ratio) = what_if.unlimited {
        out.one("vitrine_what_if_hit_ratio_unlimited", "gauge", "Estimated hit ratio without a memory limit.", ratio);
    }
    out.one(
        "vitrine_what_if_sample_rate",
        "gauge",
        "Fraction of keys whose accesses the miss-ratio curve samples.",
        what_if.sample_rate,
    );
    out.one("vitrine_expired_keys_total", "counter", "Keys removed because their TTL passed.", c(snap.expired_keys));
    out.one(
        "vitrine_rejected_oom_commands_total",
        "counter",
        "Writes refused because memory could not be freed.",
        c(snap.rejected_oom),
    );
    out.one("vitrine_connected_clients", "gauge", "Clients connected now.", c(snap.connected_clients));
    out.one("vitrine_connections_received_total", "counter", "Connections accepted.", c(snap.connections_received));
    out.one(
        "vitrine_rejected_connections_total",
        "counter",
        "Connections refused (maxclients).",
        c(snap.rejected_connections),
    );
    out.one("vitrine_commands_processed_total", "counter", "Commands run.", c(snap.commands_processed));
    out.one(
        "vitrine_instantaneous_ops_per_sec",
        "gauge",
        "Commands per second over the last seconds.",
        snap.ops_per_sec,
    );
    let counters = inspect::command_counters(engine);
    let per_cmd = |value: fn(&inspect::CommandCounter) -> u64| -> Vec<(String, f64)> {
        counters.iter().map(|cmd| (format!("cmd=\"{}\"", escape_label(&cmd.name)), c(value(cmd)))).collect()
    };
    out.family("vitrine_commands_total", "counter", "Calls per command.", &per_cmd(|cmd| cmd.calls));
    out.family(
        "vitrine_commands_failed_calls_total",
        "counter",
        "Calls per command that answered an error.",
        &per_cmd(|cmd| cmd.failed),
    );
    out.one("vitrine_error_replies_total", "counter", "Error replies sent.", c(snap.error_replies));
    out.one(
        "vitrine_protocol_errors_total",
        "counter",
        "Connections closed for broken framing.",
        c(snap.protocol_errors),
    );
    out.one(
        "vitrine_client_output_buffer_limit_disconnections_total",
        "counter",
        "Clients closed for passing an output buffer limit.",
        c(snap.client_output_buffer_limit_disconnections),
    );
    out.one(
        "vitrine_acl_access_denied_auth_total",
        "counter",
        "Wrong passwords given to AUTH or HELLO.",
        c(snap.acl_access_denied_auth),
    );
    // One line each, as INFO has them: Prometheus families cannot share a name with labels
    // here without changing the auth one, which dashboards already read.
    for (name, help, n) in [
        ("vitrine_acl_access_denied_cmd_total", "Commands the ACL refused.", snap.acl_access_denied_cmd),
        ("vitrine_acl_access_denied_key_total", "Commands the ACL refused for a key.", snap.acl_access_denied_key),
        ("vitrine_acl_access_denied_channel_total", "Commands the ACL refused for a channel.", snap.acl_access_denied_channel),
    ] {
        out.one(name, "counter", help, c(n));
    }
    out.one("vitrine_net_input_bytes_total", "counter", "Bytes read from RESP clients.", c(snap.net_input_bytes));
    out.one("vitrine_net_output_bytes_total", "counter", "Bytes written to RESP clients.", c(snap.net_output_bytes));
    radar(&mut out, state);
    memory_ledger(&mut out, engine);
    scripts(&mut out, engine);
    out.0
}

/// Scripts given their own series, most called first; the rest are summed as `id="other"`.
const SCRIPT_SERIES: usize = 50;

/// Calls, errors and run time per cached script, labelled by the SHA's first 12 characters (a
/// function by its name): bounded by the cache, and by [`SCRIPT_SERIES`] when it is big.
fn scripts(out: &mut Out, engine: &vitrine_engine::Engine) {
    let view = inspect::scripts(engine);
    // By label: two SHAs sharing their first 12 characters add up rather than repeat a series.
    let mut rows: std::collections::BTreeMap<String, [f64; 3]> = Default::default();
    for (i, r) in view.scripts.iter().enumerate() {
        let id: String = match (i < SCRIPT_SERIES, r.kind.as_str()) {
            (false, _) => "other".into(),
            (true, "script") => r.id.chars().take(12).collect(),
            (true, _) => r.id.clone(),
        };
        let kind = if i < SCRIPT_SERIES { r.kind.as_str() } else { "script" };
        let sums = rows.entry(format!("kind=\"{kind}\",id=\"{}\"", escape_label(&id))).or_default();
        for (sum, v) in sums.iter_mut().zip([r.calls as f64, r.errors as f64, r.total_us as f64 / 1e6]) {
            *sum += v;
        }
    }
    let column = |i: usize| rows.iter().map(|(l, v)| (l.clone(), v[i])).collect::<Vec<_>>();
    let cached = view.scripts.iter().filter(|r| r.kind == "script").count();
    out.one("vitrine_scripts_cached", "gauge", "Lua scripts in the script cache.", cached as f64);
    out.family("vitrine_script_calls_total", "counter", "Runs of each cached script (EVAL, EVALSHA).", &column(0));
    out.family(
        "vitrine_script_errors_total",
        "counter",
        "Runs of each cached script that ended in an error.",
        &column(1),
    );
    out.family("vitrine_script_seconds_total", "counter", "Time spent running each cached script.", &column(2));
}

/// The compatibility radar and the hot keys.
fn radar(out: &mut Out, state: &AppState) {
    // One series per (command, library, kind): the radar's rows also split by option, summed here.
    let mut refused: std::collections::BTreeMap<(String, String, &str), u64> = Default::default();
    for row in inspect::compat(&state.engine).rows {
        *refused.entry((row.command, row.library, row.kind.as_str())).or_default() += row.count;
    }
    let samples: Vec<(String, f64)> = refused
        .into_iter()
        .map(|((command, library, kind), n)| {
            let labels = format!(
                "command=\"{}\",library=\"{}\",kind=\"{kind}\"",
                escape_label(&command),
                escape_label(&library)
            );
            (labels, n as f64)
        })
        .collect();
    out.family(
        "vitrine_unsupported_commands_total",
        "counter",
        "Commands clients sent that were refused as unknown (kind command or subcommand) or for an option (kind option: syntax error or unsupported option), by client library (CLIENT SETINFO, else the client name).",
        &samples,
    );
    let hot = inspect::hot_keys(&state.engine, Some(10), now_ms());
    let samples: Vec<(String, f64)> = hot
        .keys
        .iter()
        .map(|k| {
            // A label stays short: the key's first 100 characters.
            let key: String = String::from_utf8_lossy(&k.key.0).chars().take(100).collect();
            (format!("db=\"db{}\",key=\"{}\"", k.db, escape_label(&key)), k.per_sec)
        })
        .collect();
    out.family(
        "vitrine_hot_key_accesses_per_second",
        "gauge",
        "The 10 most accessed keys over the last 10 to 20 seconds, estimated from sampled sketches.",
        &samples,
    );
    out.one(
        "vitrine_hot_keys_sketch_bytes",
        "gauge",
        "Heap bytes of the hot-key sketches (not counted against maxmemory).",
        hot.sketch_bytes as f64,
    );
}

/// The memory ledger (`inspect::memory` of every database): bytes and keys by first-level
/// prefix (as the Memory page lists them: the biggest, then "(other)"), type and TTL, the
/// biggest keys and the remaining TTLs.
/// A label value with its keys and bytes.
type LedgerRow = (String, u64, u64);

fn memory_ledger(out: &mut Out, engine: &vitrine_engine::Engine) {
    let Ok(m) = inspect::memory(engine, None, now_ms()) else { return };
    let c = |v: u64| v as f64;
    let prefix = |row: &inspect::memory::PrefixRow| match row.kind {
        inspect::memory::PrefixKind::Prefix => String::from_utf8_lossy(&row.name.0).into_owned(),
        inspect::memory::PrefixKind::None => "(none)".into(),
        inspect::memory::PrefixKind::Other => "(other)".into(),
    };
    let groups: [(&str, &str, &str, Vec<LedgerRow>); 3] = [
        (
            "prefix",
            "prefix",
            "under each key prefix",
            m.prefixes.iter().map(|p| (prefix(p), p.keys, p.bytes)).collect(),
        ),
        (
            "type",
            "type",
            "of each type",
            m.by_type.iter().map(|t| (t.type_name.to_string(), t.keys, t.bytes)).collect(),
        ),
        (
            "ttl",
            "ttl",
            "with (yes) and without (no) a TTL",
            vec![
                ("yes".into(), m.with_ttl.keys, m.with_ttl.bytes),
                ("no".into(), m.without_ttl.keys, m.without_ttl.bytes),
            ],
        ),
    ];
    // Each group: the series' stem, its label, what it counts, and its rows.
    for (stem, label, what, rows) in &groups {
        let series = |v: fn(&LedgerRow) -> u64| -> Vec<(String, f64)> {
            rows.iter().map(|r| (format!("{label}=\"{}\"", escape_label(&r.0)), c(v(r)))).collect()
        };
        let help = format!("Accounted bytes of the keys {what}.");
        out.family(&format!("vitrine_memory_{stem}_bytes"), "gauge", &help, &series(|r| r.2));
        out.family(&format!("vitrine_memory_{stem}_keys"), "gauge", &format!("Keys {what}."), &series(|r| r.1));
    }
    out.one(
        "vitrine_memory_ledger_dataset_bytes",
        "gauge",
        "The ledger's parts added up (used_memory_dataset).",
        c(m.dataset_bytes),
    );
    out.one(
        "vitrine_memory_ledger_index_bytes",
        "gauge",
        "Bytes of the index of hashes with field TTLs.",
        c(m.index_bytes),
    );
    out.one(
        "vitrine_memory_ledger_own_bytes",
        "gauge",
        "Heap bytes the ledger holds itself (not in used_memory).",
        c(m.bounds.ledger_bytes),
    );
    let big: Vec<(String, f64)> = m
        .big_keys
        .iter()
        .map(|b| {
            let key: String = String::from_utf8_lossy(&b.key.0).chars().take(200).collect();
            (format!("db=\"{}\",key=\"{}\",type=\"{}\"", b.db, escape_label(&key), b.type_name), c(b.bytes))
        })
        .collect();
    out.family("vitrine_big_key_bytes", "gauge", "Accounted bytes of the biggest keys.", &big);
    let buckets: Vec<(String, f64)> =
        m.ttl.buckets.iter().map(|b| (format!("remaining=\"{}\"", escape_label(b.label)), c(b.keys))).collect();
    out.family(
        "vitrine_ttl_keys",
        "gauge",
        "Keys by remaining TTL (estimated from a sample on large keyspaces).",
        &buckets,
    );
    let ahead = [("1s", m.ttl.expiring_1s), ("10s", m.ttl.expiring_10s), ("60s", m.ttl.expiring_60s)];
    let ahead: Vec<(String, f64)> = ahead.iter().map(|(w, n)| (format!("within=\"{w}\""), c(*n))).collect();
    out.family("vitrine_keys_expiring", "gauge", "Keys whose TTL ends within the window.", &ahead);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_labels_are_formatted_for_prometheus() {
        assert_eq!(format_value(3.0), "3");
        assert_eq!(format_value(0.25), "0.25");
        assert_eq!(format_value(f64::NAN), "NaN");
        assert_eq!(format_value(f64::INFINITY), "+Inf");
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
