//! Counters (`Stats`, bumped in dispatch; the keyspace ones are the store's
//! `KeyspaceCounters`, read through it) and `StatsSnapshot`, the one stats type that INFO,
//! the admin API, metrics, the dashboard and the playground all read. Stats sit below the
//! command table: per-command counters are sized and named by the caller.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

use serde::Serialize;
use ts_rs::TS;

use crate::counter::{stripe, Counter, STRIPES};
use crate::store::counters::KeyspaceCounters;

/// Live counters. Each is exact on its own, and a snapshot is a consistent-enough moment
/// for monitoring. The ones bumped on every command or read are [`Counter`]s (striped per
/// thread); `connected_clients` is a gauge that also goes down, a plain atomic.
pub struct Stats {
    /// The keyspace's hits, misses by cause, evictions and expirations: bumped by the store,
    /// which owns them (it sits below stats) and shares them with this.
    pub keyspace: Arc<KeyspaceCounters>,
    pub commands_processed: Counter,
    pub rejected_oom: Counter,
    pub connections_received: Counter,
    pub connected_clients: AtomicU64,
    pub rejected_connections: Counter,
    pub net_input_bytes: Counter,
    pub net_output_bytes: Counter,
    /// Socket reads and writes the host did for clients (INFO's `total_reads_processed` and
    /// `total_writes_processed`; Redis counts every read and write event it handles).
    pub reads_processed: Counter,
    pub writes_processed: Counter,
    pub protocol_errors: Counter,
    pub error_replies: Counter,
    /// Clients closed for passing an output buffer limit (Redis 7.4's name).
    pub client_output_buffer_limit_disconnections: Counter,
    /// Wrong passwords given to AUTH or HELLO (Redis 7.2's `acl_access_denied_auth`; like
    /// Redis's, `CONFIG RESETSTAT` leaves it).
    pub acl_access_denied_auth: Counter,
    /// Commands, keys and channels the ACL refused (Redis 7.2's names; every logged denial:
    /// top level, MULTI, EXEC, scripts; not ACL DRYRUN). RESETSTAT leaves them too.
    pub acl_access_denied_cmd: Counter,
    pub acl_access_denied_key: Counter,
    pub acl_access_denied_channel: Counter,
    /// Per command, indexed like the command table's rows: calls, calls that answered an
    /// error, commands refused before they ran (arity, auth, memory: Redis's
    /// `rejected_calls`, not counted as calls), and µs spent running (0 without a clock).
    pub calls: PerCommand,
    pub failed_calls: PerCommand,
    pub rejected_calls: PerCommand,
    pub usec: PerCommand,
    /// Recent (time, commands, bytes in, bytes out) samples for per-second rates.
    rates: Mutex<VecDeque<RateSample>>,
}

/// A counter per command (indexed like the command table's rows), striped like [`Counter`]: each
/// stripe is its own array, so two threads counting the same command touch different lines.
pub struct PerCommand {
    stripes: Box<[Box<[AtomicU64]>]>,
}

impl PerCommand {
    fn new(commands: usize) -> PerCommand {
        // Eight spare slots at the end of each array keep the next allocation's first line
        // away from this array's last one.
        let stripe = || (0..commands + 8).map(|_| AtomicU64::new(0)).collect();
        PerCommand { stripes: (0..STRIPES).map(|_| stripe()).collect() }
    }

    pub fn add(&self, command: usize, n: u64) {
        self.stripes[stripe()][command].fetch_add(n, Relaxed);
    }

    pub fn get(&self, command: usize) -> u64 {
        self.stripes.iter().fold(0u64, |sum, s| sum.wrapping_add(s[command].load(Relaxed)))
    }

    fn reset(&self) {
        for s in self.stripes.iter() {
            for c in s.iter() {
                c.store(0, Relaxed);
            }
        }
    }
}

#[derive(Clone, Copy)]
struct RateSample {
    at_ms: u64,
    commands: u64,
    net_in: u64,
    net_out: u64,
}

/// Samples kept for rates, and their spacing: the last ~1.6 s, as Redis's 16 x 100 ms.
const RATE_SAMPLES: usize = 16;
const RATE_SPACING_MS: u64 = 100;

/// Per-second rates over the last couple of seconds.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Rates {
    pub ops_per_sec: f64,
    pub net_input_per_sec: f64,
    pub net_output_per_sec: f64,
}

impl Stats {
    /// Counters for a table of `commands` rows (the per-command ones are indexed by row),
    /// reading the store's `keyspace` counters.
    pub fn new(commands: usize, keyspace: Arc<KeyspaceCounters>) -> Stats {
        let n = commands;
        Stats {
            keyspace,
            commands_processed: Counter::default(),
            rejected_oom: Counter::default(),
            connections_received: Counter::default(),
            connected_clients: AtomicU64::new(0),
            rejected_connections: Counter::default(),
            net_input_bytes: Counter::default(),
            net_output_bytes: Counter::default(),
            reads_processed: Counter::default(),
            writes_processed: Counter::default(),
            protocol_errors: Counter::default(),
            error_replies: Counter::default(),
            client_output_buffer_limit_disconnections: Counter::default(),
            acl_access_denied_auth: Counter::default(),
            acl_access_denied_cmd: Counter::default(),
            acl_access_denied_key: Counter::default(),
            acl_access_denied_channel: Counter::default(),
            calls: PerCommand::new(n),
            failed_calls: PerCommand::new(n),
            rejected_calls: PerCommand::new(n),
            usec: PerCommand::new(n),
            rates: Mutex::new(VecDeque::with_capacity(RATE_SAMPLES)),
        }
    }
}

impl Stats {
    /// Records a rate sample if the last one is at least 100 ms old. The host's timer (via
    /// `Engine::sweep`) calls this; the engine itself has no clock.
    pub fn sample_rates(&self, now_ms: u64) {
        let mut rates = self.rates.lock();
        if rates.back().is_some_and(|s| now_ms < s.at_ms + RATE_SPACING_MS) {
            return;
        }
        if rates.len() == RATE_SAMPLES {
            rates.pop_front();
        }
        rates.push_back(RateSample {
            at_ms: now_ms,
            commands: self.commands_processed.load(Relaxed),
            net_in: self.net_input_bytes.load(Relaxed),
            net_out: self.net_output_bytes.load(Relaxed),
        });
    }

    /// Per-second rates between the oldest and newest samples.
    pub fn rates(&self) -> Rates {
        let rates = self.rates.lock();
        let (Some(a), Some(b)) = (rates.front(), rates.back()) else { return Rates::default() };
        if b.at_ms <= a.at_ms {
            return Rates::default();
        }
        let secs = (b.at_ms - a.at_ms) as f64 / 1000.0;
        let per = |x: u64, y: u64| y.saturating_sub(x) as f64 / secs;
        Rates {
            ops_per_sec: per(a.commands, b.commands),
            net_input_per_sec: per(a.net_in, b.net_in),
            net_output_per_sec: per(a.net_out, b.net_out),
        }
    }

    /// `CONFIG RESETSTAT`: zero the counters that Redis resets (not gauges like clients).
    pub fn reset(&self) {
        for c in [
            &self.commands_processed,
            &self.rejected_oom,
            &self.connections_received,
            &self.rejected_connections,
            &self.net_input_bytes,
            &self.net_output_bytes,
            &self.reads_processed,
            &self.writes_processed,
            &self.protocol_errors,
            &self.error_replies,
            &self.client_output_buffer_limit_disconnections,
        ] {
            c.reset();
        }
        self.keyspace.reset();
        self.calls.reset();
        self.failed_calls.reset();
        self.rejected_calls.reset();
        self.usec.reset();
        // The per-second rates start over too, as Redis clears its instantaneous samples.
        self.rates.lock().clear();
    }
}

/// Facts only the host process knows, reported to the engine so snapshots include them.
#[derive(Debug, Clone, Default, Serialize, TS)]
pub struct HostFacts {
    pub process_id: u32,
    pub tcp_port: u16,
    pub rss_bytes: u64,
    /// Bytes the allocators hand the program (jemalloc's `stats.allocated` plus glibc's); 0
    /// when the host cannot tell (the playground).
    pub allocator_bytes: u64,
    /// jemalloc's `stats.active` and `stats.resident` (INFO's `allocator_active` and
    /// `allocator_resident`); 0 when unknown.
    pub allocator_active: u64,
    pub allocator_resident: u64,
    /// `allocator_bytes` once the server was ready to serve, with no data (Redis's
    /// `used_memory_startup`); 0 when unknown.
    pub allocator_startup_bytes: u64,
    /// INFO's `mem_allocator` (`jemalloc-5.3.0`); empty when the host has none to name.
    pub allocator_name: String,
    pub threads: u32,
    pub executable: String,
    /// INFO's server section only (not in the HTTP payloads): `run_id`, 40 random hex
    /// digits drawn at start; `config_file`, the absolute path of the file given at start
    /// (empty without one); `monotonic_clock` and `multiplexing_api`, the clock that times
    /// commands and the readiness API the event loops use, in Redis's words.
    #[serde(skip)]
    #[ts(skip)]
    pub run_id: String,
    /// INFO's `os`: the kernel's name, release and machine, as `uname` gives them.
    #[serde(skip)]
    #[ts(skip)]
    pub os: String,
    /// INFO's `redis_build_id`: hex digits that tell this build of the program from others.
    #[serde(skip)]
    #[ts(skip)]
    pub build_id: String,
    #[serde(skip)]
    #[ts(skip)]
    pub config_file: String,
    #[serde(skip)]
    #[ts(skip)]
    pub monotonic_clock: String,
    #[serde(skip)]
    #[ts(skip)]
    pub multiplexing_api: String,
    /// The machine's RAM in bytes (INFO's `total_system_memory`); 0 when unknown.
    pub total_system_memory: u64,
    /// CPU time used, as INFO's `# CPU` section reports it.
    pub cpu: CpuTimes,
}

/// What the host's allocator can do on request (the engine has no allocator of its own):
/// MEMORY MALLOC-STATS's text and MEMORY PURGE.
#[derive(Debug, Clone, Copy)]
pub struct AllocatorHooks {
    /// The allocator's statistics report (jemalloc's `malloc_stats_print`).
    pub stats_text: fn() -> String,
    /// Gives the allocator's dirty pages back to the system; whether it could.
    pub purge: fn() -> bool,
}

/// CPU seconds used by the process, its waited-for children and its main thread, system and
/// user (INFO's `used_cpu_*`).
#[derive(Debug, Clone, Copy, Default, Serialize, TS)]
pub struct CpuTimes {
    pub sys: f64,
    pub user: f64,
    pub sys_children: f64,
    pub user_children: f64,
    pub sys_main_thread: f64,
    pub user_main_thread: f64,
}

/// What the engine's own structures take before any data is stored (the shards' tables and
/// locks, the per-command counters, the client registry): measured as the allocator bytes an
/// `Engine::new` with the default configuration (16 databases) took in the server, 402,032.
/// Used for `used_memory` where the host cannot read its allocator (the playground), so
/// `used_memory` is never the data alone there either.
pub const FIXED_OVERHEAD_BYTES: u64 = 402_032;

/// Memory figures as Redis means them (INFO memory, MEMORY STATS): `used_memory` is what the
/// server holds for data and overhead (the allocator's allocated bytes when the host reads
/// them, else the data plus [`FIXED_OVERHEAD_BYTES`]); `dataset` is the accounted bytes of
/// every key and value (the figure `maxmemory` limits and eviction keeps under it);
/// `overhead` is the rest (the engine's tables, connections' buffers, the runtime).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, TS)]
pub struct MemoryFigures {
    pub used_memory: u64,
    pub dataset: u64,
    pub overhead: u64,
    pub startup: u64,
    /// The largest `used_memory` seen since start (sampled each second and at each read).
    pub peak: u64,
    pub rss: u64,
    /// rss / used_memory (Redis's `mem_fragmentation_ratio`); 0 when RSS is unknown.
    pub fragmentation_ratio: f64,
    /// rss - used_memory; negative when RSS is unknown or smaller.
    pub fragmentation_bytes: i64,
}

impl MemoryFigures {
    /// The figures for `dataset` accounted bytes with the host's facts; `peak` is the largest
    /// `used_memory` seen before (the result's peak includes this reading).
    pub fn new(dataset: u64, host: &HostFacts, peak: u64) -> MemoryFigures {
        let (used, startup) = if host.allocator_bytes > 0 {
            // The allocator's figure covers the data; the accounting models the allocator's
            // sizes, so it cannot honestly exceed it, but a reading a second old can lag.
            (host.allocator_bytes.max(dataset), host.allocator_startup_bytes)
        } else {
            (dataset + FIXED_OVERHEAD_BYTES, FIXED_OVERHEAD_BYTES)
        };
        let rss = host.rss_bytes;
        MemoryFigures {
            used_memory: used,
            dataset,
            overhead: used - dataset,
            startup,
            peak: peak.max(used),
            rss,
            fragmentation_ratio: if rss == 0 { 0.0 } else { rss as f64 / used as f64 },
            fragmentation_bytes: rss as i64 - used as i64,
        }
    }
}

/// The scripts' memory and cache, as Redis 7's INFO reports them (memory section; the eviction
/// count is INFO stats'). All 0 where there is no Lua VM (the playground) or before the first
/// script: the VM is made on first use.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, TS)]
pub struct ScriptingFigures {
    /// Bytes the EVAL scripts' Lua VM holds (`used_memory_vm_eval`, alias `used_memory_lua`).
    pub used_memory_vm_eval: u64,
    /// Bytes the script cache holds: bodies, SHAs, bookkeeping (`used_memory_scripts_eval`).
    pub used_memory_scripts_eval: u64,
    pub number_of_cached_scripts: u64,
    /// EVAL scripts evicted from the cache (past 500, least recently used first).
    pub evicted_scripts: u64,
    /// `lua-maxmemory`: the cap on the VM's bytes (0: none).
    pub lua_maxmemory: u64,
}

/// Client-side caching (CLIENT TRACKING): INFO's `tracking_clients` (clients section) and
/// `tracking_total_*` (stats), and the invalidation messages sent since start.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, TS)]
pub struct TrackingFigures {
    /// Clients with tracking on.
    pub clients: u64,
    /// Keys in the tracking table (read by default-mode clients, not yet invalidated).
    pub keys: u64,
    /// Client ids across those keys.
    pub items: u64,
    /// BCAST prefixes clients watch.
    pub prefixes: u64,
    /// Invalidation messages sent (pushes and `__redis__:invalidate` messages).
    pub invalidations: u64,
}

/// Calls, failures, refusals and time of one command since start or the last
/// `CONFIG RESETSTAT`.
#[derive(Debug, Clone, Serialize, PartialEq, TS)]
pub struct CommandStat {
    pub name: &'static str,
    pub calls: u64,
    pub failed: u64,
    pub rejected: u64,
    /// µs spent running it (0 when the host lends the engine no clock).
    pub usec: u64,
}

/// Key counts by type.
#[derive(Debug, Clone, Default, Serialize, PartialEq, TS)]
pub struct KeysByType {
    pub string: u64,
    pub list: u64,
    pub set: u64,
    pub zset: u64,
    pub hash: u64,
    pub stream: u64,
}

impl KeysByType {
    /// From live counts indexed by `Value::type_index`.
    pub(crate) fn from_counts(n: [usize; 6]) -> KeysByType {
        KeysByType {
            string: n[0] as u64,
            list: n[1] as u64,
            set: n[2] as u64,
            zset: n[3] as u64,
            hash: n[4] as u64,
            stream: n[5] as u64,
        }
    }
}

/// One non-empty database's keys (INFO keyspace's `dbN:keys=...,expires=...,avg_ttl=...`).
#[derive(Debug, Clone, Default, Serialize, PartialEq, TS)]
pub struct DbKeyspace {
    pub db: u32,
    pub keys: u64,
    pub expires: u64,
    /// Estimated mean remaining TTL of its keys with one, in ms (sampled by the expiry
    /// cycle, as Redis estimates it; 0 until sampled).
    pub avg_ttl_ms: u64,
    pub keys_by_type: KeysByType,
}

/// Everything there is to know about the engine at one moment.
#[derive(Debug, Clone, Serialize, TS)]
pub struct StatsSnapshot {
    pub version: &'static str,
    pub now_ms: u64,
    pub uptime_s: u64,
    /// The accounted bytes of every key and value: the data, which `maxmemory` limits (INFO's
    /// `used_memory_dataset`; `memory.used_memory` is INFO's `used_memory`).
    pub used_memory: u64,
    /// INFO memory's figures (data and overhead, peak, fragmentation).
    pub memory: MemoryFigures,
    /// The scripts' VM and cache.
    pub scripting: ScriptingFigures,
    /// Client-side caching: tracking clients, the table, invalidations sent.
    pub tracking: TrackingFigures,
    pub maxmemory: u64,
    pub maxmemory_policy: &'static str,
    pub maxmemory_samples: usize,
    pub keys: u64,
    pub keys_with_ttl: u64,
    /// How many databases there are (`databases`).
    pub databases: u32,
    /// Every non-empty database, in order.
    pub keyspace: Vec<DbKeyspace>,
    pub keys_by_type: KeysByType,
    pub hits: u64,
    /// Read lookups that found no key, in total and split by cause (the three add up to
    /// `misses`): never seen (never written, deleted, or gone long ago), recently expired,
    /// recently evicted.
    pub misses: u64,
    pub misses_never_seen: u64,
    pub misses_expired: u64,
    pub misses_evicted: u64,
    /// hits / (hits + misses), 0 when there were no lookups.
    pub hit_ratio: f64,
    pub expired_keys: u64,
    pub evicted_keys: u64,
    pub rejected_oom: u64,
    pub commands_processed: u64,
    pub ops_per_sec: f64,
    pub net_input_per_sec: f64,
    pub net_output_per_sec: f64,
    pub connected_clients: u64,
    pub connections_received: u64,
    pub rejected_connections: u64,
    pub net_input_bytes: u64,
    pub net_output_bytes: u64,
    pub protocol_errors: u64,
    pub error_replies: u64,
    pub client_output_buffer_limit_disconnections: u64,
    pub acl_access_denied_auth: u64,
    pub acl_access_denied_cmd: u64,
    pub acl_access_denied_key: u64,
    pub acl_access_denied_channel: u64,
    pub host: HostFacts,
    pub commands: Vec<CommandStat>,
}

impl StatsSnapshot {
    /// The commands called since the last reset; `names` are the table's, row by row (stats
    /// sit below the table, so dispatch passes them in).
    pub(crate) fn command_stats(stats: &Stats, names: impl Iterator<Item = &'static str>) -> Vec<CommandStat> {
        names
            .enumerate()
            .filter_map(|(i, name)| {
                let calls = stats.calls.get(i);
                let failed = stats.failed_calls.get(i);
                let rejected = stats.rejected_calls.get(i);
                (calls > 0 || failed > 0 || rejected > 0).then(|| CommandStat {
                    name,
                    calls,
                    failed,
                    rejected,
                    usec: stats.usec.get(i),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn striped_counters_sum_every_threads_bumps_and_reset_to_zero() {
        let stats = Stats::new(3, Arc::default());
        std::thread::scope(|s| {
            for t in 0..(STRIPES + 3) {
                let stats = &stats;
                s.spawn(move || {
                    for _ in 0..1000 {
                        stats.keyspace.hits.fetch_add(1, Relaxed);
                        stats.calls.add(t % 3, 2);
                    }
                });
            }
        });
        let threads = (STRIPES + 3) as u64;
        assert_eq!(stats.keyspace.hits.load(Relaxed), threads * 1000);
        assert_eq!((0..3).map(|i| stats.calls.get(i)).sum::<u64>(), threads * 2000);
        stats.reset();
        assert_eq!(stats.keyspace.hits.load(Relaxed), 0);
        assert_eq!(stats.calls.get(0), 0);
    }
}
