//! Counters (`Stats`, bumped in dispatch and the store) and `StatsSnapshot`, the one stats
//! type that INFO, the admin API, metrics, the dashboard and the playground all read.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use parking_lot::Mutex;

use serde::Serialize;

use crate::store::misses::MissCause;
use crate::table::COMMANDS;

/// Live counters. All relaxed atomics: each is exact on its own, and a snapshot is a
/// consistent-enough moment for monitoring.
pub struct Stats {
    pub commands_processed: AtomicU64,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
    /// `misses` split by cause (they add up to `misses`).
    pub misses_never_seen: AtomicU64,
    pub misses_expired: AtomicU64,
    pub misses_evicted: AtomicU64,
    pub expired_keys: AtomicU64,
    pub evicted_keys: AtomicU64,
    pub rejected_oom: AtomicU64,
    pub connections_received: AtomicU64,
    pub connected_clients: AtomicU64,
    pub rejected_connections: AtomicU64,
    pub net_input_bytes: AtomicU64,
    pub net_output_bytes: AtomicU64,
    pub protocol_errors: AtomicU64,
    pub error_replies: AtomicU64,
    /// Per command, indexed like `table::COMMANDS`: calls, errors, microseconds (host-measured).
    pub calls: Box<[AtomicU64]>,
    pub failed_calls: Box<[AtomicU64]>,
    /// Recent (time, commands, bytes in, bytes out) samples for per-second rates.
    rates: Mutex<VecDeque<RateSample>>,
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

impl Default for Stats {
    fn default() -> Stats {
        let n = COMMANDS.len();
        Stats {
            commands_processed: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            misses_never_seen: AtomicU64::new(0),
            misses_expired: AtomicU64::new(0),
            misses_evicted: AtomicU64::new(0),
            expired_keys: AtomicU64::new(0),
            evicted_keys: AtomicU64::new(0),
            rejected_oom: AtomicU64::new(0),
            connections_received: AtomicU64::new(0),
            connected_clients: AtomicU64::new(0),
            rejected_connections: AtomicU64::new(0),
            net_input_bytes: AtomicU64::new(0),
            net_output_bytes: AtomicU64::new(0),
            protocol_errors: AtomicU64::new(0),
            error_replies: AtomicU64::new(0),
            calls: (0..n).map(|_| AtomicU64::new(0)).collect(),
            failed_calls: (0..n).map(|_| AtomicU64::new(0)).collect(),
            rates: Mutex::new(VecDeque::with_capacity(RATE_SAMPLES)),
        }
    }
}

impl Stats {
    /// Counts a keyspace miss, in the total and under its cause.
    pub fn count_miss(&self, cause: MissCause) {
        self.misses.fetch_add(1, Relaxed);
        let by_cause = match cause {
            MissCause::NeverSeen => &self.misses_never_seen,
            MissCause::Expired => &self.misses_expired,
            MissCause::Evicted => &self.misses_evicted,
        };
        by_cause.fetch_add(1, Relaxed);
    }

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
            &self.hits,
            &self.misses,
            &self.misses_never_seen,
            &self.misses_expired,
            &self.misses_evicted,
            &self.expired_keys,
            &self.evicted_keys,
            &self.rejected_oom,
            &self.connections_received,
            &self.rejected_connections,
            &self.net_input_bytes,
            &self.net_output_bytes,
            &self.protocol_errors,
            &self.error_replies,
        ] {
            c.store(0, Relaxed);
        }
        for c in self.calls.iter().chain(self.failed_calls.iter()) {
            c.store(0, Relaxed);
        }
    }
}

/// Facts only the host process knows, reported to the engine so snapshots include them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HostFacts {
    pub process_id: u32,
    pub tcp_port: u16,
    pub rss_bytes: u64,
    pub allocator_bytes: u64,
    pub threads: u32,
    pub executable: String,
}

/// Calls and failures of one command since start or the last `CONFIG RESETSTAT`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CommandStat {
    pub name: &'static str,
    pub calls: u64,
    pub failed: u64,
}

/// Key counts by type.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct KeysByType {
    pub string: u64,
    pub list: u64,
    pub set: u64,
    pub zset: u64,
    pub hash: u64,
}

/// Everything there is to know about the engine at one moment.
#[derive(Debug, Clone, Serialize)]
pub struct StatsSnapshot {
    pub version: &'static str,
    pub now_ms: u64,
    pub uptime_s: u64,
    pub used_memory: u64,
    pub maxmemory: u64,
    pub maxmemory_policy: &'static str,
    pub maxmemory_samples: usize,
    pub keys: u64,
    pub keys_with_ttl: u64,
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
    pub host: HostFacts,
    pub commands: Vec<CommandStat>,
}

impl StatsSnapshot {
    pub(crate) fn command_stats(stats: &Stats) -> Vec<CommandStat> {
        COMMANDS
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let calls = stats.calls[i].load(Relaxed);
                let failed = stats.failed_calls[i].load(Relaxed);
                (calls > 0 || failed > 0).then_some(CommandStat { name: c.name, calls, failed })
            })
            .collect()
    }
}
