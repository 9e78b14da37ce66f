//! Run-time settings the engine obeys (maxmemory, policy, limits, encodings, ...), readable
//! and writable with `CONFIG GET/SET` by Redis's parameter names. Lock-free reads on the hot
//! path. The parameters are one table (`params`), their values are parsed and validated as
//! Redis does (`parse`), and `rewrite` renders a config file with the current values.

pub(crate) mod params;
mod parse;
mod rewrite;

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;

pub use params::{Effect, Group, Kind, Param, PARAMS};
use parse::parse_output_limits;

use crate::store::encodings::Encodings;
use crate::store::limits::{MemoryLimits, Policy};

/// One class of `client-output-buffer-limit`: bytes (0 = no limit) and seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BufferLimit {
    pub hard: u64,
    pub soft: u64,
    pub soft_seconds: u64,
}

impl BufferLimit {
    /// Whether `used` bytes break the limit: at or over the hard limit, or at or over the soft
    /// one for longer than its seconds (`since` is when that began; updated here), as Redis's
    /// `checkClientOutputBufferLimits`.
    pub(crate) fn exceeded(&self, used: u64, since: &AtomicU64, now_ms: u64) -> bool {
        if self.hard > 0 && used >= self.hard {
            return true;
        }
        if self.soft == 0 || used < self.soft {
            since.store(0, Relaxed);
            return false;
        }
        let began = since.load(Relaxed);
        if began == 0 {
            since.store(now_ms.max(1), Relaxed);
            return false;
        }
        now_ms.saturating_sub(began) / 1000 > self.soft_seconds
    }
}

/// The engine's settings. Every field read on a hot path is an atomic; the text of every
/// parameter (what `CONFIG GET` shows) sits beside them in `values`, one per row of
/// [`PARAMS`], written by the same `set` that updates the atomics.
pub struct Config {
    /// maxmemory, its policy, samples and the LFU settings: the store's own type, shared
    /// with the store (see `Config::memory_limits`).
    memory: Arc<MemoryLimits>,
    /// The encoding thresholds, shared with the store's value types (see `store::encodings`).
    encodings: Arc<Encodings>,
    hz: AtomicU32,
    default_ttl_s: AtomicU64,
    /// `lua-maxmemory`: the cap on the scripts' Lua VM, in bytes (0: none).
    lua_maxmemory: AtomicU64,
    proto_max_bulk_len: AtomicU64,
    client_query_buffer_limit: AtomicU64,
    maxclients: AtomicU64,
    timeout_s: AtomicU64,
    databases: AtomicUsize,
    active_expire_effort: AtomicU32,
    /// Shared with the store, which raises its own events when their class is on.
    notify_keyspace_events: Arc<AtomicU32>,
    /// `client-output-buffer-limit`: hard bytes, soft bytes, soft seconds for each class
    /// (normal, replica, pubsub). Only the pubsub class is enforced (on pub/sub messages);
    /// normal replies are bounded by the server's back-pressure instead.
    output_limits: [[AtomicU64; 3]; 3],
    requirepass: RwLock<Option<Vec<u8>>>,
    /// Told every new `requirepass` (the engine makes it the default user's password).
    requirepass_hook: OnceLock<Box<dyn Fn(Option<&[u8]>) + Send + Sync>>,
    /// `acllog-max-len`: entries ACL LOG keeps.
    acllog_max_len: AtomicU64,
    /// `acl-pubsub-default`: whether a new ACL user starts with `allchannels`.
    acl_pubsub_all: AtomicBool,
    /// The host's aclfile (ACL SAVE / LOAD); none in the playground or without `aclfile`.
    acl_file: RwLock<Option<Arc<dyn AclFile>>>,
    /// The host's random source (ACL GENPASS); see `set_entropy`.
    entropy: OnceLock<fn(&mut [u8]) -> bool>,
    /// `protected-mode`: the host refuses clients that are not on loopback while no password is
    /// set. Read for each accepted connection, so `CONFIG SET` applies to the next one.
    protected_mode: AtomicBool,
    /// `slowlog-log-slower-than` (µs, negative: off) and `slowlog-max-len`, read after each
    /// command.
    slowlog_log_slower_than: AtomicI64,
    slowlog_max_len: AtomicU64,
    /// `busy-reply-threshold` (alias `lua-time-limit`): ms a script runs before others get BUSY.
    busy_reply_threshold_ms: AtomicU64,
    /// `latency-monitor-threshold` (ms, 0: off).
    latency_monitor_threshold: AtomicU64,
    /// `latency-tracking` and `latency-tracking-info-percentiles`.
    latency_tracking: AtomicBool,
    latency_percentiles: RwLock<Vec<f64>>,
    /// `tracking-table-max-keys`: CLIENT TRACKING's table bound (0: none).
    tracking_table_max_keys: AtomicU64,
    /// The text of each parameter, by its index in `PARAMS`.
    values: RwLock<Vec<String>>,
    /// The file the host was started with, for `CONFIG REWRITE` (none: Redis's "running
    /// without a config file").
    file: RwLock<Option<Arc<dyn ConfigFile>>>,
    /// Bumped by every change, so a host that consults a parameter on a hot path
    /// (`appendfsync`, before each reply) can keep what it parsed until the next change.
    version: AtomicU64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            memory: Arc::default(),
            encodings: Arc::default(),
            hz: AtomicU32::new(10),
            default_ttl_s: AtomicU64::new(0),
            lua_maxmemory: AtomicU64::new(256 * 1024 * 1024),
            proto_max_bulk_len: AtomicU64::new(512 * 1024 * 1024),
            client_query_buffer_limit: AtomicU64::new(1024 * 1024 * 1024),
            maxclients: AtomicU64::new(10000),
            timeout_s: AtomicU64::new(0),
            databases: AtomicUsize::new(16),
            active_expire_effort: AtomicU32::new(1),
            notify_keyspace_events: Arc::default(),
            output_limits: OUTPUT_LIMIT_DEFAULTS.map(|class| class.map(AtomicU64::new)),
            requirepass: RwLock::new(None),
            requirepass_hook: OnceLock::new(),
            acllog_max_len: AtomicU64::new(128),
            acl_pubsub_all: AtomicBool::new(false),
            acl_file: RwLock::new(None),
            entropy: OnceLock::new(),
            protected_mode: AtomicBool::new(true),
            slowlog_log_slower_than: AtomicI64::new(10_000),
            slowlog_max_len: AtomicU64::new(128),
            busy_reply_threshold_ms: AtomicU64::new(5000),
            latency_monitor_threshold: AtomicU64::new(0),
            latency_tracking: AtomicBool::new(true),
            latency_percentiles: RwLock::new(vec![50.0, 99.0, 99.9]),
            tracking_table_max_keys: AtomicU64::new(1_000_000),
            values: RwLock::new(PARAMS.iter().map(|p| p.default.to_string()).collect()),
            file: RwLock::new(None),
            version: AtomicU64::new(0),
        }
    }
}

macro_rules! getter {
    ($name:ident, $ty:ty) => {
        pub fn $name(&self) -> $ty {
            self.$name.load(Relaxed) as $ty
        }
    };
}

/// The host's config file, which `CONFIG REWRITE` reads and replaces (the engine does no I/O).
pub trait ConfigFile: Send + Sync {
    /// The file's text now.
    fn read(&self) -> Result<String, String>;
    /// Replaces the file's text, atomically (a reader never sees a partial file).
    fn write(&self, text: &str) -> Result<(), String>;
}

/// The host's ACL file (`aclfile`): ACL LOAD reads it, ACL SAVE replaces it. The engine
/// formats and parses the text; the host does the I/O.
pub trait AclFile: Send + Sync {
    /// The path, as errors name it.
    fn path(&self) -> String;
    /// The file's text now; the error is the OS's reason (`No such file or directory`).
    fn read(&self) -> Result<String, String>;
    /// Replaces the file's text atomically (a temporary file renamed over it).
    fn write(&self, text: &str) -> Result<(), String>;
}

/// Why `CONFIG SET` refused a change: the text after `ERR `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetError(pub String);

impl Config {
    getter!(hz, u32);
    getter!(proto_max_bulk_len, u64);
    getter!(client_query_buffer_limit, u64);
    getter!(maxclients, u64);
    getter!(lua_maxmemory, u64);

    /// The memory settings, shared with the store: it reads them, `set` writes them.
    pub fn memory_limits(&self) -> &Arc<MemoryLimits> {
        &self.memory
    }

    /// The encoding thresholds, which the engine enters before each command.
    pub fn encodings(&self) -> &Arc<Encodings> {
        &self.encodings
    }

    pub fn maxmemory(&self) -> u64 {
        self.memory.maxmemory()
    }

    pub fn policy(&self) -> Policy {
        self.memory.policy()
    }

    pub fn samples(&self) -> usize {
        self.memory.samples()
    }

    pub fn lfu_log_factor(&self) -> u32 {
        self.memory.lfu_log_factor()
    }

    pub fn lfu_decay_time(&self) -> u32 {
        self.memory.lfu_decay_time()
    }

    /// `databases`: how many numbered keyspaces there are (16 by default; start-up only).
    pub fn databases(&self) -> usize {
        self.databases.load(Relaxed)
    }

    /// `active-expire-effort` (1-10): the host gives each active-expiry cycle more time as it
    /// rises, as Redis's slow cycle does.
    pub fn active_expire_effort(&self) -> u32 {
        self.active_expire_effort.load(Relaxed)
    }

    /// `slowlog-log-slower-than` in µs (negative: the slow log is off; 0 logs everything).
    pub fn slowlog_log_slower_than(&self) -> i64 {
        self.slowlog_log_slower_than.load(Relaxed)
    }

    /// `busy-reply-threshold`: milliseconds a script may run before other clients get BUSY
    /// and SCRIPT KILL / FUNCTION KILL can stop it (read as each script starts).
    pub fn busy_reply_threshold_ms(&self) -> u64 {
        self.busy_reply_threshold_ms.load(Relaxed)
    }

    /// `slowlog-max-len`: entries the slow log keeps.
    pub fn slowlog_max_len(&self) -> usize {
        self.slowlog_max_len.load(Relaxed).min(usize::MAX as u64) as usize
    }

    /// `latency-monitor-threshold` in ms (0: the latency monitor is off).
    pub fn latency_monitor_threshold(&self) -> u64 {
        self.latency_monitor_threshold.load(Relaxed)
    }

    /// `tracking-table-max-keys`: the most keys CLIENT TRACKING's table holds (0: no bound).
    pub fn tracking_table_max_keys(&self) -> u64 {
        self.tracking_table_max_keys.load(Relaxed)
    }

    /// `latency-tracking`: whether per-command latency histograms are kept.
    pub fn latency_tracking(&self) -> bool {
        self.latency_tracking.load(Relaxed)
    }

    /// `latency-tracking-info-percentiles`: the percentiles INFO latencystats reports.
    pub fn latency_percentiles(&self) -> Vec<f64> {
        self.latency_percentiles.read().clone()
    }

    /// `notify-keyspace-events` as Redis's flag bits (`NOTIFY_*` in Redis's server.h).
    pub fn notify_keyspace_events(&self) -> u32 {
        self.notify_keyspace_events.load(Relaxed)
    }

    /// The live `notify-keyspace-events` flags, shared with the store.
    pub fn notify_flags(&self) -> &Arc<AtomicU32> {
        &self.notify_keyspace_events
    }

    /// `default-ttl` in milliseconds (0 = keys without an explicit TTL live forever).
    pub fn default_ttl_ms(&self) -> u64 {
        self.default_ttl_s.load(Relaxed).saturating_mul(1000)
    }

    /// Idle seconds after which the server closes a client (0 = never).
    pub fn timeout_s(&self) -> u64 {
        self.timeout_s.load(Relaxed)
    }

    /// The pubsub class of `client-output-buffer-limit` (Redis's default: 32mb hard, 8mb
    /// soft for 60 seconds): a subscriber whose unsent messages break it is disconnected.
    pub fn pubsub_output_limit(&self) -> BufferLimit {
        self.output_limit(2)
    }

    /// The normal class of `client-output-buffer-limit` (Redis's default `0 0 0`: no limit;
    /// the server then applies its own safety cap).
    pub fn normal_output_limit(&self) -> BufferLimit {
        self.output_limit(0)
    }

    fn output_limit(&self, class: usize) -> BufferLimit {
        let [hard, soft, secs] = &self.output_limits[class];
        BufferLimit { hard: hard.load(Relaxed), soft: soft.load(Relaxed), soft_seconds: secs.load(Relaxed) }
    }

    /// The limits after applying `value`'s classes to the current ones, as `CONFIG GET`
    /// shows them.
    fn merged_output_limits(&self, value: &str) -> Result<([[u64; 3]; 3], String), String> {
        let mut limits = [0, 1, 2].map(|c| {
            let l = self.output_limit(c);
            [l.hard, l.soft, l.soft_seconds]
        });
        for (class, v) in parse_output_limits(value)? {
            limits[class] = v;
        }
        let text = OUTPUT_LIMIT_CLASSES
            .iter()
            .zip(limits.iter())
            .map(|(name, [h, s, t])| format!("{name} {h} {s} {t}"))
            .collect::<Vec<_>>()
            .join(" ");
        Ok((limits, text))
    }

    pub fn requirepass(&self) -> Option<Vec<u8>> {
        self.requirepass.read().clone()
    }

    /// Whether `requirepass` is set. Whether a client must authenticate is the default
    /// user's business now (`Engine::auth_required`): `ACL SETUSER default` changes it too.
    pub fn auth_required(&self) -> bool {
        self.requirepass.read().is_some()
    }

    /// Has `hook` told every `requirepass` set from now on, and the current one at once:
    /// the engine makes it the default user's only password (`nopass` when empty), as Redis.
    pub(crate) fn on_requirepass(&self, hook: Box<dyn Fn(Option<&[u8]>) + Send + Sync>) {
        let current = self.requirepass();
        if self.requirepass_hook.set(hook).is_ok() {
            if let (Some(pass), Some(hook)) = (current, self.requirepass_hook.get()) {
                hook(Some(&pass));
            }
        }
    }

    /// `acllog-max-len`.
    pub fn acllog_max_len(&self) -> usize {
        self.acllog_max_len.load(Relaxed).min(usize::MAX as u64) as usize
    }

    /// `acl-pubsub-default`: true when it is `allchannels`.
    pub fn acl_pubsub_all(&self) -> bool {
        self.acl_pubsub_all.load(Relaxed)
    }

    /// `aclfile`, when one is configured.
    pub fn aclfile(&self) -> Option<String> {
        self.get("aclfile").filter(|f| !f.is_empty())
    }

    /// Names the host's ACL file (start-up, with `aclfile`).
    pub fn set_acl_file(&self, file: Arc<dyn AclFile>) {
        *self.acl_file.write() = Some(file);
    }

    pub(crate) fn acl_file(&self) -> Option<Arc<dyn AclFile>> {
        self.acl_file.read().clone()
    }

    /// Lends the engine the host's random source (a CSPRNG: ACL GENPASS's passwords come
    /// from it): it fills the buffer, or answers false when it cannot. The first one set
    /// stays. Without one, GENPASS refuses.
    pub fn set_entropy(&self, fill: fn(&mut [u8]) -> bool) {
        let _ = self.entropy.set(fill);
    }

    /// Fills `buf` from the host's random source; false when there is none or it failed.
    pub(crate) fn fill_random(&self, buf: &mut [u8]) -> bool {
        self.entropy.get().is_some_and(|fill| fill(buf))
    }

    /// `protected-mode` (on by default, as in Redis).
    pub fn protected_mode(&self) -> bool {
        self.protected_mode.load(Relaxed)
    }

    /// Records a value the host process decided (`port`, `bind`, `dir`, ...), shown by
    /// `CONFIG GET`, whether or not `CONFIG SET` may change it. Names outside the table are
    /// ignored.
    pub fn set_host_param(&self, name: &str, value: &str) {
        if let Some((i, _)) = params::find(&name.to_ascii_lowercase()) {
            self.values.write()[i] = value.to_string();
            self.version.fetch_add(1, Ordering::Release);
        }
    }

    /// Names the file `CONFIG REWRITE` writes (the one the server was started with).
    pub fn set_config_file(&self, file: Arc<dyn ConfigFile>) {
        *self.file.write() = Some(file);
    }

    /// `CONFIG REWRITE`: the host's file rewritten with the current values and `users` (each
    /// user's `ACL LIST` line; see `rewrite_file`). The error is the text after `ERR `.
    pub fn rewrite(&self, users: &[String]) -> Result<(), String> {
        let Some(file) = self.file.read().clone() else {
            return Err("The server is running without a config file".into());
        };
        let original = file.read().map_err(|e| format!("Rewriting config file: {e}"))?;
        file.write(&self.rewrite_file(&original, users)).map_err(|e| format!("Rewriting config file: {e}"))
    }

    /// Changes whenever a parameter does (see `version`).
    pub fn host_params_version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Every parameter `CONFIG GET *` lists (names and aliases, not the hidden ones) and its
    /// value, in the table's order.
    pub fn all(&self) -> Vec<(String, String)> {
        let values = self.values.read();
        let mut out = Vec::new();
        for (p, v) in PARAMS.iter().zip(values.iter()).filter(|(p, _)| !p.has(params::HIDDEN)) {
            out.push((p.name.to_string(), v.clone()));
            if let Some(alias) = p.alias {
                out.push((alias.to_string(), v.clone()));
            }
        }
        out
    }

    /// The value of one parameter, by its name or alias in any case.
    pub fn get(&self, name: &str) -> Option<String> {
        let (i, _) = params::find(&name.to_ascii_lowercase())?;
        Some(self.values.read()[i].clone())
    }

    /// Sets one parameter as `CONFIG SET` would. The error is the reason text that `CONFIG SET`
    /// puts after `ERR CONFIG SET failed (possibly related to argument '<name>') - `.
    pub fn set(&self, name: &str, value: &str) -> Result<(), String> {
        let (i, param) = params::find(&name.to_ascii_lowercase())
            .ok_or_else(|| "Unknown option or number of arguments for CONFIG SET".to_string())?;
        refuse_immutable(param)?;
        let text = self.validate(param, value)?;
        self.store(i, text, value);
        Ok(())
    }

    /// Sets one parameter at start-up (from the command line or the config file), where the
    /// immutable ones (`databases`) may be given too.
    pub fn set_startup(&self, name: &str, value: &str) -> Result<(), String> {
        let (i, param) =
            params::find(&name.to_ascii_lowercase()).ok_or_else(|| format!("unknown parameter '{name}'"))?;
        let text = self.validate(param, value)?;
        self.store(i, text, value);
        Ok(())
    }

    /// `CONFIG SET name value [name value ...]` as Redis 7 does it: unknown, immutable and
    /// duplicate names are refused first (the first problem is reported), then every value
    /// is validated, and only when all are valid is any applied, so a refusal changes nothing.
    pub fn set_many(&self, pairs: &[(&str, &str)]) -> Result<(), SetError> {
        let failed = |name: &str, why: &str| {
            SetError(format!("CONFIG SET failed (possibly related to argument '{name}') - {why}"))
        };
        let mut found = Vec::with_capacity(pairs.len());
        for (at, (name, _)) in pairs.iter().enumerate() {
            let lower = name.to_ascii_lowercase();
            let Some((i, param)) = params::find(&lower) else {
                return Err(SetError(format!("Unknown option or number of arguments for CONFIG SET - '{name}'")));
            };
            if let Err(why) = refuse_immutable(param) {
                return Err(failed(name, &why));
            }
            // Redis tells a name and its alias apart here: both in one call is not a duplicate.
            if pairs[..at].iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                return Err(failed(name, "duplicate parameter"));
            }
            found.push((i, param, lower));
        }
        let mut texts = Vec::with_capacity(pairs.len());
        // A refused value is reported under the name as Redis registered it: the parameter's
        // or its alias's, in lower case.
        for ((i, param, lower), (_, value)) in found.iter().zip(pairs) {
            texts.push((*i, self.validate(param, value).map_err(|why| failed(lower, &why))?, *value));
        }
        for (i, text, value) in texts {
            self.store(i, text, value);
        }
        Ok(())
    }

    /// The text `CONFIG GET` will show for `value`, or why it is refused.
    fn validate(&self, param: &Param, value: &str) -> Result<String, String> {
        let text = parse::normalize(param, value)?;
        Ok(match param.name {
            // Redis keeps hz within 1..=500 and shows the value it keeps.
            "hz" => text.parse::<u64>().map_or(10, |v| v.clamp(1, 500)).to_string(),
            "client-output-buffer-limit" => self.merged_output_limits(value)?.1,
            "vitrine-ledger-delimiter" if text.len() != 1 => {
                return Err("the ledger delimiter must be one ASCII character".into())
            }
            _ => text,
        })
    }

    /// Records a validated text (of `value`, as given) and applies it to whatever reads it
    /// live.
    fn store(&self, index: usize, text: String, value: &str) {
        let param = &PARAMS[index];
        let num = || text.parse::<i64>().unwrap_or(0);
        let unsigned = || text.parse::<u64>().unwrap_or(0);
        match param.name {
            "maxmemory" => self.memory.set_maxmemory(unsigned()),
            "maxmemory-policy" => self.memory.set_policy(Policy::parse(&text).unwrap_or(Policy::NoEviction)),
            // Vitrine's sampler takes at most 64 keys a round.
            "maxmemory-samples" => self.memory.set_samples(unsigned().clamp(1, 64) as u32),
            "lfu-log-factor" => self.memory.set_lfu_log_factor(unsigned().min(u64::from(u32::MAX)) as u32),
            "lfu-decay-time" => self.memory.set_lfu_decay_time(unsigned().min(u64::from(u32::MAX)) as u32),
            "hz" => self.hz.store(unsigned() as u32, Relaxed),
            "default-ttl" => self.default_ttl_s.store(unsigned(), Relaxed),
            "lua-maxmemory" => self.lua_maxmemory.store(unsigned(), Relaxed),
            "vitrine-ledger-delimiter" => {
                self.memory.set_ledger_delimiter(text.bytes().next().unwrap_or(crate::store::ledger::DEFAULT_DELIMITER))
            }
            "proto-max-bulk-len" => self.proto_max_bulk_len.store(unsigned(), Relaxed),
            "client-query-buffer-limit" => self.client_query_buffer_limit.store(unsigned(), Relaxed),
            "maxclients" => self.maxclients.store(unsigned(), Relaxed),
            "timeout" => self.timeout_s.store(unsigned(), Relaxed),
            "databases" => self.databases.store(unsigned() as usize, Relaxed),
            "active-expire-effort" => self.active_expire_effort.store(unsigned() as u32, Relaxed),
            "notify-keyspace-events" => {
                // From the value as given: the text Redis shows drops `n` beside `A`.
                self.notify_keyspace_events.store(parse::notify_flags(value).unwrap_or(0), Relaxed)
            }
            "client-output-buffer-limit" => {
                if let Ok((limits, _)) = self.merged_output_limits(&text) {
                    for (class, values) in self.output_limits.iter().zip(limits) {
                        for (slot, v) in class.iter().zip(values) {
                            slot.store(v, Relaxed);
                        }
                    }
                }
            }
            "requirepass" => {
                let pass = (!text.is_empty()).then(|| text.as_bytes().to_vec());
                if let Some(hook) = self.requirepass_hook.get() {
                    hook(pass.as_deref());
                }
                *self.requirepass.write() = pass;
            }
            "acllog-max-len" => self.acllog_max_len.store(unsigned(), Relaxed),
            "acl-pubsub-default" => self.acl_pubsub_all.store(text == "allchannels", Relaxed),
            "protected-mode" => self.protected_mode.store(text == "yes", Relaxed),
            "slowlog-log-slower-than" => self.slowlog_log_slower_than.store(num(), Relaxed),
            "slowlog-max-len" => self.slowlog_max_len.store(unsigned(), Relaxed),
            "busy-reply-threshold" => self.busy_reply_threshold_ms.store(unsigned(), Relaxed),
            "latency-monitor-threshold" => self.latency_monitor_threshold.store(unsigned(), Relaxed),
            "latency-tracking" => self.latency_tracking.store(text == "yes", Relaxed),
            "tracking-table-max-keys" => self.tracking_table_max_keys.store(unsigned(), Relaxed),
            "latency-tracking-info-percentiles" => {
                *self.latency_percentiles.write() = text.split_whitespace().filter_map(|p| p.parse().ok()).collect();
            }
            name if param.group == params::Group::Encoding && param.effect == params::Effect::Live => {
                let mut t = self.encodings.get();
                let size = unsigned() as usize;
                match name {
                    "hash-max-listpack-entries" => t.hash_max_listpack_entries = size,
                    "hash-max-listpack-value" => t.hash_max_listpack_value = size,
                    "zset-max-listpack-entries" => t.zset_max_listpack_entries = size,
                    "zset-max-listpack-value" => t.zset_max_listpack_value = size,
                    "set-max-intset-entries" => t.set_max_intset_entries = size,
                    "set-max-listpack-entries" => t.set_max_listpack_entries = size,
                    "set-max-listpack-value" => t.set_max_listpack_value = size,
                    "stream-node-max-entries" => t.stream_node_max_entries = size,
                    "stream-node-max-bytes" => t.stream_node_max_bytes = size,
                    "hll-sparse-max-bytes" => t.hll_sparse_max_bytes = size,
                    _ => t.list_max_listpack_size = num(),
                }
                self.encodings.set(t);
            }
            _ => {}
        }
        self.values.write()[index] = text;
        self.version.fetch_add(1, Ordering::Release);
    }
}

/// Redis's refusal of an immutable or protected parameter.
fn refuse_immutable(param: &Param) -> Result<(), String> {
    if param.has(params::IMMUTABLE) {
        Err("can't set immutable config".into())
    } else if param.has(params::PROTECTED) {
        Err("can't set protected config".into())
    } else {
        Ok(())
    }
}

/// `client-output-buffer-limit` classes as CONFIG GET names them, and Redis's defaults.
const OUTPUT_LIMIT_CLASSES: [&str; 3] = ["normal", "slave", "pubsub"];
const OUTPUT_LIMIT_DEFAULTS: [[u64; 3]; 3] = [[0, 0, 0], [256 << 20, 64 << 20, 60], [32 << 20, 8 << 20, 60]];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_share_the_value_and_immutables_are_refused() {
        let c = Config::default();
        c.set("hash-max-ziplist-entries", "7").unwrap();
        assert_eq!(c.get("hash-max-listpack-entries").as_deref(), Some("7"));
        assert_eq!(c.encodings().get().hash_max_listpack_entries, 7);
        c.set("lua-time-limit", "100").unwrap();
        assert_eq!(c.get("busy-reply-threshold").as_deref(), Some("100"));
        assert_eq!(c.set("databases", "4").unwrap_err(), "can't set immutable config");
        assert_eq!(c.set("dir", "/tmp").unwrap_err(), "can't set protected config");
        assert_eq!(c.databases(), 16);
        c.set_startup("databases", "4").unwrap();
        assert_eq!(c.databases(), 4);
        c.set("hz", "1000").unwrap();
        assert_eq!((c.hz(), c.get("hz").unwrap()), (500, "500".to_string()), "clamped as Redis");
        c.set("notify-keyspace-events", "KEA").unwrap();
        assert_eq!(c.get("notify-keyspace-events").as_deref(), Some("AKE"));
        assert_ne!(c.notify_keyspace_events(), 0);
        let listed: Vec<String> = c.all().into_iter().map(|(n, _)| n).collect();
        assert!(listed.contains(&"hash-max-ziplist-entries".to_string()) && listed.contains(&"databases".to_string()));
        assert!(!listed.contains(&"key-load-delay".to_string()), "hidden from patterns");
        assert_eq!(c.get("key-load-delay").as_deref(), Some("0"), "but answered by its name");
    }

    #[test]
    fn the_table_defaults_are_the_live_defaults() {
        let c = Config::default();
        let fresh = Config::default();
        // Setting every live parameter to its table default changes none of the live values.
        for p in PARAMS.iter().filter(|p| p.effect == Effect::Live && p.mutable()) {
            c.set(p.name, p.default).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
        assert_eq!(c.encodings().get(), fresh.encodings().get());
        assert_eq!((c.hz(), c.maxclients(), c.timeout_s()), (fresh.hz(), fresh.maxclients(), fresh.timeout_s()));
        assert_eq!((c.maxmemory(), c.policy(), c.samples()), (fresh.maxmemory(), fresh.policy(), fresh.samples()));
        assert_eq!((c.lfu_log_factor(), c.lfu_decay_time()), (fresh.lfu_log_factor(), fresh.lfu_decay_time()));
        assert_eq!(
            (c.proto_max_bulk_len(), c.client_query_buffer_limit()),
            (fresh.proto_max_bulk_len(), fresh.client_query_buffer_limit())
        );
        assert_eq!(
            (c.pubsub_output_limit(), c.normal_output_limit()),
            (fresh.pubsub_output_limit(), fresh.normal_output_limit())
        );
        assert_eq!((c.protected_mode(), c.active_expire_effort(), c.default_ttl_ms()), (true, 1, 0));
        assert_eq!(
            c.databases(),
            PARAMS.iter().find(|p| p.name == "databases").unwrap().default.parse::<usize>().unwrap()
        );
        // And every default is one CONFIG SET accepts.
        for p in PARAMS {
            assert!(parse::normalize(p, p.default).is_ok(), "{}", p.name);
        }
    }

    #[test]
    fn set_many_is_all_or_nothing_with_redis_errors() {
        let c = Config::default();
        let err = |pairs: &[(&str, &str)]| c.set_many(pairs).unwrap_err().0;
        assert_eq!(
            err(&[("maxmemory", "1mb"), ("hz", "x")]),
            "CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer"
        );
        assert_eq!(c.maxmemory(), 0, "nothing applied");
        assert_eq!(
            err(&[("hz", "5"), ("nosuch", "1")]),
            "Unknown option or number of arguments for CONFIG SET - 'nosuch'"
        );
        assert_eq!(
            err(&[("DATABASES", "1"), ("nosuch", "2")]),
            "CONFIG SET failed (possibly related to argument 'DATABASES') - can't set immutable config"
        );
        assert_eq!(
            err(&[("HZ", "10"), ("hz", "10")]),
            "CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter"
        );
        assert_eq!(
            err(&[("HASH-MAX-ZIPLIST-VALUE", "x")]),
            "CONFIG SET failed (possibly related to argument 'hash-max-ziplist-value') - argument must be a memory value",
            "named as Redis registered the name given"
        );
        c.set_many(&[("hash-max-ziplist-entries", "3"), ("hash-max-listpack-entries", "4"), ("maxmemory", "1mb")])
            .unwrap();
        assert_eq!(c.get("hash-max-ziplist-entries").as_deref(), Some("4"));
        assert_eq!(c.maxmemory(), 1 << 20);
    }

    #[test]
    fn set_and_get_round_trip() {
        let c = Config::default();
        c.set("maxmemory", "2mb").unwrap();
        assert_eq!(c.get("maxmemory").unwrap(), "2097152");
        c.set("maxmemory-policy", "ALLKEYS-LRU").unwrap();
        assert_eq!(c.policy(), Policy::AllkeysLru);
        assert!(c.set("maxmemory-policy", "bogus").is_err());
        assert!(c.set("nope", "1").is_err());
    }

    #[test]
    fn protected_mode_is_a_yes_no_bool_as_in_redis() {
        let c = Config::default();
        assert!(c.protected_mode(), "on by default");
        assert_eq!(c.get("protected-mode").as_deref(), Some("yes"));
        c.set("protected-mode", "NO").unwrap();
        assert!(!c.protected_mode());
        assert_eq!(c.get("protected-mode").as_deref(), Some("no"));
        c.set("protected-mode", "Yes").unwrap();
        assert!(c.protected_mode());
        // Redis 7.0 refuses anything else, 1/true/empty included, and keeps the old value.
        for bad in ["maybe", "1", "true", "", "yes "] {
            assert_eq!(c.set("protected-mode", bad).unwrap_err(), "argument must be 'yes' or 'no'", "{bad:?}");
        }
        assert!(c.protected_mode());
        assert!(c.all().contains(&("protected-mode".to_string(), "yes".to_string())), "CONFIG GET * lists it");
    }

    #[test]
    fn output_buffer_limits_as_redis_writes_them() {
        let c = Config::default();
        let defaults = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";
        assert_eq!(c.get("client-output-buffer-limit").unwrap(), defaults);
        c.set("client-output-buffer-limit", "pubsub 1mb 512kb 10").unwrap();
        assert_eq!(c.pubsub_output_limit(), BufferLimit { hard: 1 << 20, soft: 512 << 10, soft_seconds: 10 });
        let wrong = "Wrong number of arguments in buffer limit configuration.";
        assert_eq!(c.set("client-output-buffer-limit", "pubsub 1mb").unwrap_err(), wrong);
        let class = "Invalid client class specified in buffer limit configuration.";
        assert_eq!(c.set("client-output-buffer-limit", "normal 0 0 0 foo 1 0 0").unwrap_err(), class);
        assert!(c.set("client-output-buffer-limit", "pubsub x 0 0").is_err());
        // All or nothing: the valid group before the error was not applied.
        assert_eq!(c.pubsub_output_limit().hard, 1 << 20);
    }
}
