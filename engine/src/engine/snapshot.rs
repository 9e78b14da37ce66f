//! The engine's stats snapshot: the one `StatsSnapshot` INFO, the admin API, /metrics, the
//! dashboard and the playground all read.

use std::sync::atomic::Ordering::Relaxed;

use super::Engine;
use crate::stats::{DbKeyspace, KeysByType, ScriptingFigures, StatsSnapshot};
use crate::store::Locked;
use crate::table;

impl Engine {
    /// Everything INFO, the admin API and the dashboard show, at `now_ms`.
    pub fn snapshot(&self, now_ms: u64) -> StatsSnapshot {
        self.snapshot_in(&mut self.store.unlocked(0), now_ms)
    }

    /// `snapshot`, counting keys through `db` (INFO inside an EXEC uses its held locks).
    pub(crate) fn snapshot_in(&self, db: &mut Locked<'_>, now_ms: u64) -> StatsSnapshot {
        let s = self.stats();
        let k = &s.keyspace;
        let hits = k.hits.load(Relaxed);
        let misses = k.misses.load(Relaxed);
        let rates = s.rates();
        // Live counts, O(shards): a snapshot is taken every second and must not walk millions
        // of keys. Like DBSIZE, they include expired keys not yet collected.
        let dbs = db.all_dbs();
        let by_type = dbs.iter().fold([0; crate::store::entry::Value::TYPES], |mut sum, d| {
            for (s, n) in sum.iter_mut().zip(d.by_type) {
                *s += n;
            }
            sum
        });
        let keys_by_type = KeysByType::from_counts(by_type);
        let keys = by_type.iter().sum::<usize>() as u64;
        let with_ttl = dbs.iter().map(|d| d.expires as u64).sum();
        let keyspace = dbs
            .iter()
            .filter(|d| d.keys > 0)
            .map(|d| DbKeyspace {
                db: d.db as u32,
                keys: d.keys as u64,
                expires: d.expires as u64,
                avg_ttl_ms: if d.expires == 0 { 0 } else { self.store.common.avg_ttl_ms(d.db) },
                keys_by_type: KeysByType::from_counts(d.by_type),
            })
            .collect();
        StatsSnapshot {
            version: crate::VERSION,
            now_ms,
            uptime_s: now_ms.saturating_sub(self.start_ms) / 1000,
            used_memory: self.store.used_memory() as u64,
            memory: self.memory_figures(),
            scripting: self.scripting_figures(),
            tracking: self.tracking.figures(),
            maxmemory: self.config().maxmemory(),
            maxmemory_policy: self.config().policy().name(),
            maxmemory_samples: self.config().samples(),
            keys,
            keys_with_ttl: with_ttl,
            databases: self.store.databases() as u32,
            keyspace,
            keys_by_type,
            hits,
            misses,
            misses_never_seen: k.misses_never_seen.load(Relaxed),
            misses_expired: k.misses_expired.load(Relaxed),
            misses_evicted: k.misses_evicted.load(Relaxed),
            hit_ratio: if hits + misses == 0 { 0.0 } else { hits as f64 / (hits + misses) as f64 },
            expired_keys: k.expired_keys.load(Relaxed),
            evicted_keys: k.evicted_keys.load(Relaxed),
            rejected_oom: s.rejected_oom.load(Relaxed),
            commands_processed: s.commands_processed.load(Relaxed),
            ops_per_sec: rates.ops_per_sec,
            net_input_per_sec: rates.net_input_per_sec,
            net_output_per_sec: rates.net_output_per_sec,
            connected_clients: s.connected_clients.load(Relaxed),
            connections_received: s.connections_received.load(Relaxed),
            rejected_connections: s.rejected_connections.load(Relaxed),
            net_input_bytes: s.net_input_bytes.load(Relaxed),
            net_output_bytes: s.net_output_bytes.load(Relaxed),
            protocol_errors: s.protocol_errors.load(Relaxed),
            error_replies: s.error_replies.load(Relaxed),
            client_output_buffer_limit_disconnections: s.client_output_buffer_limit_disconnections.load(Relaxed),
            acl_access_denied_auth: s.acl_access_denied_auth.load(Relaxed),
            acl_access_denied_cmd: s.acl_access_denied_cmd.load(Relaxed),
            acl_access_denied_key: s.acl_access_denied_key.load(Relaxed),
            acl_access_denied_channel: s.acl_access_denied_channel.load(Relaxed),
            host: self.host_facts(),
            commands: StatsSnapshot::command_stats(s, table::rows().iter().map(|c| c.name)),
        }
    }

    /// The scripts' figures. The VM's bytes are read now when it is free, else (a script is
    /// running, maybe the INFO asking) as of the last time it was.
    fn scripting_figures(&self) -> ScriptingFigures {
        let lua_maxmemory = self.config().lua_maxmemory();
        #[cfg(feature = "scripting")]
        {
            let f = &self.scripts.figures;
            if let Some(vm) = self.scripts.vm.try_lock() {
                if let Some(vm) = vm.as_ref() {
                    f.vm_bytes.store(vm.used_memory() as u64, Relaxed);
                }
            }
            ScriptingFigures {
                used_memory_vm_eval: f.vm_bytes.load(Relaxed),
                used_memory_scripts_eval: f.cache_bytes.load(Relaxed),
                number_of_cached_scripts: f.cached.load(Relaxed),
                evicted_scripts: f.evicted.load(Relaxed),
                lua_maxmemory,
            }
        }
        #[cfg(not(feature = "scripting"))]
        ScriptingFigures { lua_maxmemory, ..ScriptingFigures::default() }
    }
}
