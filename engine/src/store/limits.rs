//! The memory settings the store obeys: `maxmemory`, `maxmemory-policy`, `maxmemory-samples`,
//! `lfu-log-factor`, `lfu-decay-time`. `Config` (above the store) parses and validates them
//! and shares this with the store through an `Arc`, so a `CONFIG SET` is seen at once and
//! the store reads them without importing the config. Lock-free reads on the hot path.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// `maxmemory-policy`: what to do when a write needs room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    NoEviction,
    AllkeysLru,
    AllkeysLfu,
    AllkeysRandom,
    VolatileLru,
    VolatileLfu,
    VolatileRandom,
    VolatileTtl,
}

impl Policy {
    pub const ALL: [Policy; 8] = [
        Policy::NoEviction,
        Policy::AllkeysLru,
        Policy::AllkeysLfu,
        Policy::AllkeysRandom,
        Policy::VolatileLru,
        Policy::VolatileLfu,
        Policy::VolatileRandom,
        Policy::VolatileTtl,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Policy::NoEviction => "noeviction",
            Policy::AllkeysLru => "allkeys-lru",
            Policy::AllkeysLfu => "allkeys-lfu",
            Policy::AllkeysRandom => "allkeys-random",
            Policy::VolatileLru => "volatile-lru",
            Policy::VolatileLfu => "volatile-lfu",
            Policy::VolatileRandom => "volatile-random",
            Policy::VolatileTtl => "volatile-ttl",
        }
    }

    pub fn parse(s: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(s))
    }

    /// volatile-* policies only ever evict keys that have a TTL.
    pub fn volatile_only(self) -> bool {
        matches!(self, Policy::VolatileLru | Policy::VolatileLfu | Policy::VolatileRandom | Policy::VolatileTtl)
    }

    pub fn is_lfu(self) -> bool {
        matches!(self, Policy::AllkeysLfu | Policy::VolatileLfu)
    }
}

/// The store's memory budget and eviction settings (see the module docs).
pub struct MemoryLimits {
    maxmemory: AtomicU64,
    policy: AtomicU8,
    samples: AtomicU32,
    lfu_log_factor: AtomicU32,
    lfu_decay_time: AtomicU32,
    /// The byte the memory ledger splits key prefixes on (`vitrine-ledger-delimiter`).
    ledger_delimiter: AtomicU8,
}

impl Default for MemoryLimits {
    fn default() -> MemoryLimits {
        MemoryLimits {
            maxmemory: AtomicU64::new(0),
            policy: AtomicU8::new(0),
            samples: AtomicU32::new(5),
            lfu_log_factor: AtomicU32::new(10),
            lfu_decay_time: AtomicU32::new(1),
            ledger_delimiter: AtomicU8::new(super::ledger::DEFAULT_DELIMITER),
        }
    }
}

impl MemoryLimits {
    /// Bytes of accounted data allowed (0 = no limit).
    pub fn maxmemory(&self) -> u64 {
        self.maxmemory.load(Relaxed)
    }

    pub fn policy(&self) -> Policy {
        Policy::ALL[self.policy.load(Relaxed) as usize]
    }

    /// Keys sampled per eviction round (at least 1).
    pub fn samples(&self) -> usize {
        self.samples.load(Relaxed).max(1) as usize
    }

    pub fn lfu_log_factor(&self) -> u32 {
        self.lfu_log_factor.load(Relaxed)
    }

    pub fn lfu_decay_time(&self) -> u32 {
        self.lfu_decay_time.load(Relaxed)
    }

    pub fn set_maxmemory(&self, bytes: u64) {
        self.maxmemory.store(bytes, Relaxed);
    }

    pub fn set_policy(&self, policy: Policy) {
        self.policy.store(Policy::ALL.iter().position(|x| *x == policy).unwrap_or(0) as u8, Relaxed);
    }

    pub fn set_samples(&self, samples: u32) {
        self.samples.store(samples, Relaxed);
    }

    pub fn set_lfu_log_factor(&self, factor: u32) {
        self.lfu_log_factor.store(factor, Relaxed);
    }

    pub fn set_lfu_decay_time(&self, minutes: u32) {
        self.lfu_decay_time.store(minutes, Relaxed);
    }

    /// The byte the memory ledger splits key prefixes on.
    pub fn ledger_delimiter(&self) -> u8 {
        self.ledger_delimiter.load(Relaxed)
    }

    /// Takes effect when the ledger is next read (each shard's is rebuilt then).
    pub fn set_ledger_delimiter(&self, delimiter: u8) {
        self.ledger_delimiter.store(delimiter, Relaxed);
    }
}
