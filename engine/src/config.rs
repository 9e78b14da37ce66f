//! Run-time settings the engine obeys (maxmemory, policy, limits, ...), readable and
//! writable with `CONFIG GET/SET` by Redis's parameter names. Lock-free reads on the hot path.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::RwLock;

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

/// Parses a memory amount as Redis's `memtoull`: `100`, `1k` (1000), `1kb` (1024), `2mb`,
/// `1gb`, case-insensitive.
pub fn parse_memory(s: &str) -> Option<u64> {
    let lower = s.trim().to_ascii_lowercase();
    let split = lower.find(|c: char| !c.is_ascii_digit()).unwrap_or(lower.len());
    let (digits, unit) = lower.split_at(split);
    let n: u64 = digits.parse().ok()?;
    let mul: u64 = match unit {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1000 * 1000,
        "mb" => 1024 * 1024,
        "g" => 1000 * 1000 * 1000,
        "gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(mul)
}

/// A boolean parameter as Redis's bool configs take it: `yes` or `no`, in any case.
fn parse_yes_no(value: &str) -> Result<bool, String> {
    if value.eq_ignore_ascii_case("yes") {
        Ok(true)
    } else if value.eq_ignore_ascii_case("no") {
        Ok(false)
    } else {
        Err("argument must be 'yes' or 'no'".into())
    }
}

fn yes_no(on: bool) -> &'static str {
    if on {
        "yes"
    } else {
        "no"
    }
}

/// The most databases Vitrine accepts: each costs one empty shard per stripe (about 100
/// bytes), so a few thousand are still cheap; Redis's own bound (INT_MAX) is not.
pub const MAX_DATABASES: u64 = 4096;

/// The engine's settings. Every field is readable without a lock.
pub struct Config {
    /// maxmemory, its policy, samples and the LFU settings: the store's own type, shared
    /// with the store (see `Config::memory_limits`).
    memory: Arc<MemoryLimits>,
    hz: AtomicU32,
    default_ttl_s: AtomicU64,
    proto_max_bulk_len: AtomicU64,
    client_query_buffer_limit: AtomicU64,
    maxclients: AtomicU64,
    timeout_s: AtomicU64,
    /// `client-output-buffer-limit`: hard bytes, soft bytes, soft seconds for each class
    /// (normal, replica, pubsub). Only the pubsub class is enforced (on pub/sub messages);
    /// normal replies are bounded by the server's back-pressure instead.
    output_limits: [[AtomicU64; 3]; 3],
    requirepass: RwLock<Option<Vec<u8>>>,
    /// `protected-mode`: the host refuses clients that are not on loopback while no password is
    /// set. Read for each accepted connection, so `CONFIG SET` applies to the next one.
    protected_mode: AtomicBool,
    /// Read-only parameters the host process reports (`port`, `bind`, `dir`, ...).
    host_params: RwLock<Vec<(String, String)>>,
    /// Bumped by every change of a host parameter, so a host that consults one on a hot path
    /// (`appendfsync`, before each reply) can keep what it parsed until the next change.
    host_params_version: AtomicU64,
    /// `databases`: how many numbered keyspaces the engine has. Read once, when the engine
    /// is built; CONFIG SET refuses it, as Redis does.
    databases: AtomicU64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            memory: Arc::default(),
            hz: AtomicU32::new(10),
            default_ttl_s: AtomicU64::new(0),
            proto_max_bulk_len: AtomicU64::new(512 * 1024 * 1024),
            client_query_buffer_limit: AtomicU64::new(1024 * 1024 * 1024),
            maxclients: AtomicU64::new(10000),
            timeout_s: AtomicU64::new(0),
            output_limits: OUTPUT_LIMIT_DEFAULTS.map(|class| class.map(AtomicU64::new)),
            requirepass: RwLock::new(None),
            protected_mode: AtomicBool::new(true),
            host_params: RwLock::new(Vec::new()),
            host_params_version: AtomicU64::new(0),
            databases: AtomicU64::new(crate::store::DEFAULT_DATABASES as u64),
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

impl Config {
    getter!(hz, u32);
    getter!(proto_max_bulk_len, u64);
    getter!(client_query_buffer_limit, u64);
    getter!(maxclients, u64);

    /// How many databases the engine has (`databases`, start-up only).
    pub fn databases(&self) -> usize {
        self.databases.load(Relaxed) as usize
    }

    /// Sets `databases` before the engine is built (from the command line or config file).
    /// Redis accepts 1 to INT_MAX; Vitrine caps it where a database per stripe stays small.
    pub fn set_databases(&self, n: u64) -> Result<(), String> {
        if !(1..=MAX_DATABASES).contains(&n) {
            return Err(format!("argument must be between 1 and {MAX_DATABASES} inclusive"));
        }
        self.databases.store(n, Relaxed);
        Ok(())
    }

    /// The memory settings, shared with the store: it reads them, `set` writes them.
    pub fn memory_limits(&self) -> &Arc<MemoryLimits> {
        &self.memory
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
        let [hard, soft, secs] = &self.output_limits[2];
        BufferLimit { hard: hard.load(Relaxed), soft: soft.load(Relaxed), soft_seconds: secs.load(Relaxed) }
    }

    /// The normal class of `client-output-buffer-limit` (Redis's default `0 0 0`: no limit;
    /// the server then applies its own safety cap).
    pub fn normal_output_limit(&self) -> BufferLimit {
        let [hard, soft, secs] = &self.output_limits[0];
        BufferLimit { hard: hard.load(Relaxed), soft: soft.load(Relaxed), soft_seconds: secs.load(Relaxed) }
    }

    fn output_limits_text(&self) -> String {
        OUTPUT_LIMIT_CLASSES
            .iter()
            .zip(self.output_limits.iter())
            .map(|(name, [h, s, t])| format!("{name} {} {} {}", h.load(Relaxed), s.load(Relaxed), t.load(Relaxed)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Parses Redis's `<class> <hard> <soft> <soft seconds>` groups (class `normal`,
    /// `replica`/`slave` or `pubsub`) and sets them all, or none on an error.
    fn set_output_limits(&self, value: &str) -> Result<(), String> {
        let words: Vec<&str> = value.split_whitespace().collect();
        if words.is_empty() || !words.len().is_multiple_of(4) {
            return Err("Wrong number of arguments in buffer limit configuration.".into());
        }
        let mut parsed = Vec::new();
        for group in words.chunks(4) {
            let class = match group[0].to_ascii_lowercase().as_str() {
                "normal" => 0,
                "replica" | "slave" => 1,
                "pubsub" => 2,
                _ => return Err("Invalid client class specified in buffer limit configuration.".into()),
            };
            let bad = || "Error in hard, soft or soft_seconds setting in buffer limit configuration.".to_string();
            let hard = parse_memory(group[1]).ok_or_else(bad)?;
            let soft = parse_memory(group[2]).ok_or_else(bad)?;
            let secs: u64 = group[3].parse().map_err(|_| bad())?;
            parsed.push((class, [hard, soft, secs]));
        }
        for (class, values) in parsed {
            for (slot, v) in self.output_limits[class].iter().zip(values) {
                slot.store(v, Relaxed);
            }
        }
        Ok(())
    }

    pub fn requirepass(&self) -> Option<Vec<u8>> {
        self.requirepass.read().clone()
    }

    pub fn auth_required(&self) -> bool {
        self.requirepass.read().is_some()
    }

    /// `protected-mode` (on by default, as in Redis).
    pub fn protected_mode(&self) -> bool {
        self.protected_mode.load(Relaxed)
    }

    /// Adds or replaces a read-only parameter reported by the host (shown by `CONFIG GET`).
    pub fn set_host_param(&self, name: &str, value: &str) {
        let mut params = self.host_params.write();
        match params.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value.to_string(),
            None => params.push((name.to_string(), value.to_string())),
        }
        self.host_params_version.fetch_add(1, std::sync::atomic::Ordering::Release);
    }

    /// Changes whenever a host parameter does (see `host_params_version`).
    pub fn host_params_version(&self) -> u64 {
        self.host_params_version.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Every parameter and its current value, in a stable order.
    pub fn all(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> =
            PARAMS.iter().map(|p| (p.to_string(), self.get(p).unwrap_or_default())).collect();
        out.extend(self.host_params.read().iter().filter(|(n, _)| !PARAMS.contains(&n.as_str())).cloned());
        out
    }

    /// The current value of one parameter, by its Redis name.
    pub fn get(&self, name: &str) -> Option<String> {
        let v = match name {
            "maxmemory" => self.maxmemory().to_string(),
            "maxmemory-policy" => self.policy().name().to_string(),
            "maxmemory-samples" => self.samples().to_string(),
            "lfu-log-factor" => self.lfu_log_factor().to_string(),
            "lfu-decay-time" => self.lfu_decay_time().to_string(),
            "hz" => self.hz().to_string(),
            "default-ttl" => self.default_ttl_s.load(Relaxed).to_string(),
            "proto-max-bulk-len" => self.proto_max_bulk_len().to_string(),
            "client-query-buffer-limit" => self.client_query_buffer_limit().to_string(),
            "maxclients" => self.maxclients().to_string(),
            "timeout" => self.timeout_s().to_string(),
            "client-output-buffer-limit" => self.output_limits_text(),
            "requirepass" => {
                self.requirepass.read().as_ref().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default()
            }
            "protected-mode" => yes_no(self.protected_mode()).to_string(),
            "databases" => self.databases().to_string(),
            "save" => String::new(),
            // The host reports the real value when it keeps an append-only file.
            "appendonly" => self
                .host_params
                .read()
                .iter()
                .find(|(n, _)| n == "appendonly")
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| "no".to_string()),
            _ => {
                return self.host_params.read().iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
            }
        };
        Some(v)
    }

    /// Sets one parameter by its Redis name. The error is the reason text that `CONFIG SET`
    /// puts after `ERR CONFIG SET failed (possibly related to argument '<name>') - `.
    pub fn set(&self, name: &str, value: &str) -> Result<(), String> {
        fn num(value: &str) -> Result<u64, String> {
            value.parse::<u64>().map_err(|_| "argument couldn't be parsed into an integer".to_string())
        }
        match name {
            "maxmemory" => {
                let v = parse_memory(value).ok_or("argument must be a memory value")?;
                self.memory.set_maxmemory(v);
            }
            "maxmemory-policy" => {
                let p = Policy::parse(value).ok_or("argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction")?;
                self.memory.set_policy(p);
            }
            "maxmemory-samples" => {
                let v = num(value)?;
                if !(1..=64).contains(&v) {
                    return Err("argument must be between 1 and 64 inclusive".into());
                }
                self.memory.set_samples(v as u32);
            }
            "lfu-log-factor" => self.memory.set_lfu_log_factor(num(value)?.min(u32::MAX as u64) as u32),
            "lfu-decay-time" => self.memory.set_lfu_decay_time(num(value)?.min(u32::MAX as u64) as u32),
            "hz" => {
                let v = num(value)?;
                self.hz.store(v.clamp(1, 500) as u32, Relaxed);
            }
            "default-ttl" => self.default_ttl_s.store(num(value)?, Relaxed),
            "proto-max-bulk-len" => {
                let v = parse_memory(value).ok_or("argument must be a memory value")?;
                if v < 1024 * 1024 {
                    return Err("argument must be between 1048576 and 9223372036854775807 inclusive".into());
                }
                self.proto_max_bulk_len.store(v, Relaxed);
            }
            "client-query-buffer-limit" => {
                let v = parse_memory(value).ok_or("argument must be a memory value")?;
                if v < 1024 * 1024 {
                    return Err("argument must be between 1048576 and 9223372036854775807 inclusive".into());
                }
                self.client_query_buffer_limit.store(v, Relaxed);
            }
            "maxclients" => {
                let v = num(value)?;
                if v == 0 {
                    return Err("argument must be between 1 and 4294967295 inclusive".into());
                }
                self.maxclients.store(v, Relaxed);
            }
            "timeout" => self.timeout_s.store(num(value)?, Relaxed),
            "client-output-buffer-limit" => self.set_output_limits(value)?,
            "requirepass" => {
                *self.requirepass.write() = if value.is_empty() { None } else { Some(value.as_bytes().to_vec()) };
            }
            "protected-mode" => self.protected_mode.store(parse_yes_no(value)?, Relaxed),
            // The host's append-only file reads it on every round, so it can change at run time.
            "appendfsync" if self.host_params.read().iter().any(|(n, _)| n == name) => {
                let v = value.to_ascii_lowercase();
                if !["always", "everysec", "no"].contains(&v.as_str()) {
                    return Err("argument(s) must be one of the following: always, everysec, no".into());
                }
                self.set_host_param("appendfsync", &v);
            }
            _ if self.host_params.read().iter().any(|(n, _)| n == name) || READ_ONLY.contains(&name) => {
                return Err("can't set immutable config".into());
            }
            _ => return Err("Unknown option or number of arguments for CONFIG SET".into()),
        }
        Ok(())
    }
}

/// Parameters `CONFIG GET *` lists (the host adds its own read-only ones).
pub const PARAMS: &[&str] = &[
    "maxmemory",
    "maxmemory-policy",
    "maxmemory-samples",
    "lfu-log-factor",
    "lfu-decay-time",
    "hz",
    "default-ttl",
    "proto-max-bulk-len",
    "client-query-buffer-limit",
    "maxclients",
    "timeout",
    "client-output-buffer-limit",
    "requirepass",
    "protected-mode",
    "databases",
    "save",
    "appendonly",
];

const READ_ONLY: &[&str] = &["databases"];

/// `client-output-buffer-limit` classes as CONFIG GET names them, and Redis's defaults.
const OUTPUT_LIMIT_CLASSES: [&str; 3] = ["normal", "slave", "pubsub"];
const OUTPUT_LIMIT_DEFAULTS: [[u64; 3]; 3] = [[0, 0, 0], [256 << 20, 64 << 20, 60], [32 << 20, 8 << 20, 60]];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_units_follow_redis() {
        assert_eq!(parse_memory("100"), Some(100));
        assert_eq!(parse_memory("1k"), Some(1000));
        assert_eq!(parse_memory("1kb"), Some(1024));
        assert_eq!(parse_memory("2MB"), Some(2 * 1024 * 1024));
        assert_eq!(parse_memory("1gb"), Some(1 << 30));
        assert_eq!(parse_memory("1x"), None);
        assert_eq!(parse_memory("-1"), None);
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
