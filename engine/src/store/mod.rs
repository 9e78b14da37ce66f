//! The keyspace: shards behind their own locks, the memory budget, eviction, active expiry,
//! SCAN, and the record of recent evictions and expirations.
//!
//! Lock order, so nothing deadlocks: the eviction pool before any shard; several shards only
//! in ascending index order (`Store::lock_keys` sorts them); the recent-events log and the
//! WATCH registry last (leaves). An EXEC holds its commands' shards for the whole batch, all
//! of them (`Store::lock_all`) when a command walks the keyspace: walks therefore go through
//! the command's `Locked` (`Locked::shard_at`), never straight to the shards, and nothing in
//! a handler evicts (the pool would be locked after shards).

pub mod clock;
pub mod counters;
pub mod encodings;
pub mod entry;
pub mod evict;
pub mod hash;
pub mod key;
pub mod keyhash;
pub mod limits;
pub mod list;
pub mod misses;
pub mod node;
pub mod ready;
pub mod set;
pub mod shard;
pub mod table;
pub mod watch;
pub mod zset;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};
use serde::Serialize;
use smallvec::SmallVec;

use crate::error::CmdError;
use counters::KeyspaceCounters;
use entry::Entry;
use evict::{lfu_decay, lfu_increment, lfu_minutes, Candidate, Pool, LFU_INIT_VAL};
use limits::{MemoryLimits, Policy};
use node::Stamps;
pub use shard::{Shard, Touch};

/// How many events `recent_events` keeps.
pub const RECENT_EVENTS: usize = 256;
/// Longest key prefix kept in an event record.
const RECENT_KEY_MAX: usize = 200;

/// Why a key left the keyspace on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Evicted,
    Expired,
}

/// One eviction or expiration, kept for the dashboard.
#[derive(Debug, Clone)]
pub struct KeyEvent {
    pub kind: EventKind,
    /// The key (first 200 bytes).
    pub key: Vec<u8>,
    /// The policy in force when it was evicted (`None` for expirations).
    pub policy: Option<&'static str>,
    /// Milliseconds since the key was last accessed.
    pub idle_ms: u64,
    /// LFU counter at eviction.
    pub freq: u8,
    /// Accounted bytes freed.
    pub size: usize,
    pub at_ms: u64,
}

/// Told of every key the store removes on its own (an eviction, an expiry), so the host's
/// append-only log can record its deletion. The store defines it because the log
/// (`propagate`) sits above it; it is called once per removal, never on a read or write.
pub trait RemovalLog: Send + Sync {
    fn removed(&self, key: &[u8]);
}

/// No log: for a store that nothing records (tests, tools).
impl RemovalLog for () {
    fn removed(&self, _key: &[u8]) {}
}

/// State every shard shares: settings, counters, the memory total, the access clock.
pub struct Common {
    /// The memory settings, shared with `Config` (which parses `CONFIG SET` into them).
    pub limits: Arc<MemoryLimits>,
    /// Hits, misses, evictions, expirations; shared with `Stats`, which reports them.
    pub counters: Arc<KeyspaceCounters>,
    /// Accounted bytes of all entries (`used_memory`).
    pub used: AtomicUsize,
    /// Logical clock stamped on every access, ordering keys for LRU.
    clock: clock::AccessClock,
    /// Unix ms that entry `atime`s count from.
    base_ms: u64,
    rng: AtomicU64,
    recent: Mutex<VecDeque<KeyEvent>>,
    /// Hashes of recently evicted and expired keys, to tell why a read missed.
    pub misses: misses::MissRecord,
    /// Keys that became lists while clients were blocked on them (BLPOP and friends).
    pub ready: ready::ReadyKeys,
    /// Where evictions and expirations are logged (the engine's propagation).
    removals: Arc<dyn RemovalLog>,
}

impl Common {
    /// A fast, lock-free random number (splitmix64 over an atomic counter). Good enough for
    /// sampling; not for anything secret.
    pub fn random(&self) -> u64 {
        let mut z = self.rng.fetch_add(0x9e37_79b9_7f4a_7c15, Relaxed).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn rel_ms(&self, now_ms: u64) -> u32 {
        now_ms.saturating_sub(self.base_ms) as u32
    }

    /// Milliseconds since the entry was last touched.
    pub fn idle_ms(&self, entry: &Entry, now_ms: u64) -> u64 {
        self.rel_ms(now_ms).wrapping_sub(entry.atime) as u64
    }

    pub(crate) fn new_stamps(&self, now_ms: u64) -> Stamps {
        Stamps {
            seq: self.clock.tick() as u32,
            atime: self.rel_ms(now_ms),
            lfu: LFU_INIT_VAL,
            lfu_ldt: lfu_minutes(now_ms),
        }
    }

    pub(crate) fn touch(&self, stamps: &mut Stamps, now_ms: u64) {
        stamps.seq = self.clock.tick() as u32;
        stamps.atime = self.rel_ms(now_ms);
        if self.limits.policy().is_lfu() {
            let r = self.random();
            lfu_increment(stamps, now_ms, self.limits.lfu_log_factor(), self.limits.lfu_decay_time(), r);
        }
    }

    fn lru_rank(&self, entry: &Entry) -> u64 {
        (self.clock.now() as u32).wrapping_sub(entry.seq) as u64
    }

    fn record(&self, event: KeyEvent) {
        let mut recent = self.recent.lock();
        if recent.len() >= RECENT_EVENTS {
            recent.pop_front();
        }
        recent.push_back(event);
    }

    fn event(&self, kind: EventKind, key: &[u8], entry: &Entry, now_ms: u64) -> KeyEvent {
        let shown = &key[..key.len().min(RECENT_KEY_MAX)];
        KeyEvent {
            kind,
            key: shown.to_vec(),
            policy: (kind == EventKind::Evicted).then(|| self.limits.policy().name()),
            idle_ms: self.idle_ms(entry, now_ms),
            freq: lfu_decay(entry, now_ms, self.limits.lfu_decay_time()),
            size: entry.size,
            at_ms: now_ms,
        }
    }

    pub(crate) fn record_expired(&self, key: &[u8], entry: &Entry, now_ms: u64) {
        self.misses.remember(key, misses::MissCause::Expired);
        self.removals.removed(key);
        self.record(self.event(EventKind::Expired, key, entry, now_ms));
    }
}

/// What one active-expiry pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SweepReport {
    pub sampled: usize,
    pub expired: usize,
}

/// Keys with a TTL sampled per shard per round, as Redis's ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP.
const SWEEP_KEYS_PER_LOOP: usize = 20;

pub struct Store {
    shards: Box<[Mutex<Shard>]>,
    /// Seeds `keyhash::key_hash`, which picks a key's shard the same way on every target.
    shard_seed: u64,
    pub common: Arc<Common>,
    pool: Mutex<Pool>,
    sweep_cursor: AtomicUsize,
    /// Who WATCHes which keys (writes, evictions and flushes mark them dirty).
    pub watches: watch::Watches,
    /// Bytes admitted writes may still add (see `make_room`).
    reserved: AtomicUsize,
}

/// Room a write was admitted with; released when the write is done.
#[must_use = "the room is released when the reservation drops"]
pub struct Reservation<'a> {
    store: &'a Store,
    bytes: usize,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if self.bytes > 0 {
            self.store.reserved.fetch_sub(self.bytes, Relaxed);
        }
    }
}

impl Store {
    /// `seed` keys the hash functions (pass something unpredictable to resist hash flooding)
    /// and the sampler; `now_ms` is when the store starts. `limits` are read live (shared with
    /// the config); `removals` hears of every eviction and expiry.
    pub fn new(
        limits: Arc<MemoryLimits>,
        removals: Arc<dyn RemovalLog>,
        shards: usize,
        seed: u64,
        now_ms: u64,
    ) -> Store {
        let common = Arc::new(Common {
            limits,
            counters: Arc::default(),
            used: AtomicUsize::new(0),
            clock: clock::AccessClock::default(),
            base_ms: now_ms,
            rng: AtomicU64::new(seed),
            recent: Mutex::new(VecDeque::new()),
            misses: misses::MissRecord::new(seed.rotate_left(29) ^ 0x6d69_7373),
            ready: ready::ReadyKeys::default(),
            removals,
        });
        let shards =
            (0..shards.max(1)).map(|i| Mutex::new(Shard::new(common.clone(), seed.wrapping_add(i as u64)))).collect();
        Store {
            shards,
            shard_seed: seed.rotate_left(17),
            common,
            pool: Mutex::new(Pool::default()),
            sweep_cursor: AtomicUsize::new(0),
            watches: watch::Watches::default(),
            reserved: AtomicUsize::new(0),
        }
    }

    pub fn limits(&self) -> &MemoryLimits {
        &self.common.limits
    }

    pub fn counters(&self) -> &Arc<KeyspaceCounters> {
        &self.common.counters
    }

    /// Prefetching, stage one, for a command that will run a few commands from now (see
    /// `Engine::feed`): starts loading the slot `key` would be found in. Returns what stage
    /// two needs, or `None` when another thread holds the shard (then nothing is warmed: a
    /// prefetch never waits for a lock).
    pub fn prefetch_slot(&self, key: &[u8]) -> Option<(usize, u32)> {
        let i = self.shard_index(key);
        let shard = self.shards[i].try_lock()?;
        let h = shard.table.hash(key);
        shard.table.prefetch_home(h);
        Some((i, h))
    }

    /// Prefetching, stage two, for the next command: starts loading the key's node, whose
    /// address stage one has brought into the cache.
    pub fn prefetch_node(&self, (shard, h): (usize, u32)) {
        if let Some(shard) = self.shards[shard].try_lock() {
            shard.table.prefetch_nodes(h);
        }
    }

    pub fn shard_index(&self, key: &[u8]) -> usize {
        (keyhash::key_hash(self.shard_seed, key) % self.shards.len() as u64) as usize
    }

    #[cfg(test)]
    pub fn lock_shard(&self, idx: usize) -> MutexGuard<'_, Shard> {
        self.shards[idx].lock()
    }

    /// Locks the shards that hold `keys`, in ascending order, for one atomic command.
    pub fn lock_keys<'a, I>(&'a self, keys: I) -> Locked<'a>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        // Inline vectors: a command names one or two keys far more often than more, and the
        // hot path should not allocate to lock them.
        let mut idx: SmallVec<[usize; 4]> = keys.into_iter().map(|k| self.shard_index(k)).collect();
        idx.sort_unstable();
        idx.dedup();
        Locked { store: self, guards: idx.into_iter().map(|i| (i, Held::Guard(self.shards[i].lock()))).collect() }
    }

    /// Locks every shard, in ascending order: an EXEC whose commands walk the whole keyspace
    /// holds them all, and those commands use the held guards (see `Locked::shard_at`).
    pub fn lock_all(&self) -> Locked<'_> {
        Locked {
            store: self,
            guards: self.shards.iter().enumerate().map(|(i, s)| (i, Held::Guard(s.lock()))).collect(),
        }
    }

    /// A `Locked` that holds nothing: its keyspace-wide methods lock one shard at a time.
    pub fn unlocked(&self) -> Locked<'_> {
        Locked { store: self, guards: SmallVec::new() }
    }

    /// Accounted bytes of all entries.
    pub fn used_memory(&self) -> usize {
        self.common.used.load(Relaxed)
    }

    /// Number of keys (including expired ones not yet collected, as Redis's DBSIZE).
    pub fn len(&self) -> usize {
        self.unlocked().len()
    }

    /// Number of keys of each value type (indexed by `Value::type_index`), from live counts.
    #[cfg(test)]
    pub fn keys_by_type(&self) -> [usize; entry::Value::TYPES] {
        self.unlocked().keys_by_type()
    }

    /// Number of keys with a TTL.
    #[cfg(test)]
    pub fn volatile_len(&self) -> usize {
        self.unlocked().volatile_len()
    }

    /// Drops every key; returns how many there were (see `Locked::flush`).
    #[cfg(test)]
    pub fn flush(&self, now_ms: u64) -> usize {
        self.unlocked().flush(now_ms)
    }

    /// The most recent evictions and expirations, oldest first.
    pub fn recent_events(&self) -> Vec<KeyEvent> {
        self.common.recent.lock().iter().cloned().collect()
    }

    /// Makes room for a write that may grow the data by up to `need` bytes, and reserves
    /// them until the returned guard drops (after the write): evicts by the policy until
    /// `used + reserved + need <= maxmemory`. Reserving is what keeps the limit exact when
    /// several connections write at once: each is admitted against the room the others have
    /// not already claimed. Fails with OOM under `noeviction`, when the policy has nothing
    /// left to evict, or when `need` alone exceeds the limit.
    pub fn make_room(&self, need: usize, now_ms: u64) -> Result<Reservation<'_>, CmdError> {
        let max = self.limits().maxmemory() as usize;
        if max == 0 || need == 0 {
            return Ok(Reservation { store: self, bytes: 0 });
        }
        if need > max {
            return Err(CmdError::Oom);
        }
        loop {
            let reserved = self.reserved.load(Relaxed);
            if self.used_memory() + reserved + need <= max {
                if self.reserved.compare_exchange(reserved, reserved + need, Relaxed, Relaxed).is_ok() {
                    return Ok(Reservation { store: self, bytes: need });
                }
                continue;
            }
            if self.limits().policy() == Policy::NoEviction || !self.evict_one(now_ms) {
                return Err(CmdError::Oom);
            }
        }
    }

    /// A reservation of nothing, for paths that need no room.
    pub fn no_reservation(&self) -> Reservation<'_> {
        Reservation { store: self, bytes: 0 }
    }

    /// Whether memory is over the limit right now (writes under `noeviction` are refused).
    pub fn over_limit(&self) -> bool {
        let max = self.limits().maxmemory() as usize;
        max != 0 && self.used_memory() > max
    }

    /// Brings `used_memory` back under `maxmemory` after a write (whose real growth can
    /// differ from the estimate) or a lower `maxmemory`. Returns false when it could not
    /// (noeviction, or nothing evictable).
    pub fn enforce_limit(&self, now_ms: u64) -> bool {
        while self.over_limit() {
            if self.limits().policy() == Policy::NoEviction || !self.evict_one(now_ms) {
                return false;
            }
        }
        true
    }

    /// Evicts one key chosen by the current policy. Returns false when no key qualifies.
    pub fn evict_one(&self, now_ms: u64) -> bool {
        let policy = self.limits().policy();
        match policy {
            Policy::NoEviction => false,
            Policy::AllkeysRandom | Policy::VolatileRandom => self.evict_random(policy, now_ms),
            _ => self.evict_from_pool(policy, now_ms),
        }
    }

    /// A random non-empty shard (counting only keys with a TTL when `volatile`), falling back
    /// to a scan so a sparse keyspace is still found.
    fn pick_shard(&self, volatile: bool) -> Option<usize> {
        let n = self.shards.len();
        let has = |i: usize| {
            let s = self.shards[i].lock();
            if volatile {
                s.volatile_len() > 0
            } else {
                !s.is_empty()
            }
        };
        for _ in 0..4 {
            let i = (self.common.random() % n as u64) as usize;
            if has(i) {
                return Some(i);
            }
        }
        let start = (self.common.random() % n as u64) as usize;
        (0..n).map(|k| (start + k) % n).find(|&i| has(i))
    }

    fn evict_random(&self, policy: Policy, now_ms: u64) -> bool {
        let volatile = policy.volatile_only();
        while let Some(i) = self.pick_shard(volatile) {
            let mut shard = self.shards[i].lock();
            let Some(pos) = shard.sample(volatile) else { continue };
            return self.evict_at(&mut shard, pos, now_ms);
        }
        false
    }

    fn evict_at(&self, shard: &mut Shard, pos: usize, now_ms: u64) -> bool {
        let Some(node) = shard.remove_at(pos) else { return false };
        let key = node.key();
        self.common.counters.evicted_keys.fetch_add(1, Relaxed);
        self.watches.touch(key);
        self.common.misses.remember(key, misses::MissCause::Evicted);
        self.common.removals.removed(key);
        self.common.record(self.common.event(EventKind::Evicted, key, &Entry::of(&node), now_ms));
        true
    }

    fn score(&self, policy: Policy, entry: &Entry, now_ms: u64) -> u64 {
        match policy {
            Policy::AllkeysLfu | Policy::VolatileLfu => {
                // Least frequent first; among equals, least recently used first.
                let freq = lfu_decay(entry, now_ms, self.limits().lfu_decay_time());
                ((255 - freq as u64) << 32) | self.common.lru_rank(entry)
            }
            Policy::VolatileTtl => u64::MAX - entry.expire_at,
            _ => self.common.lru_rank(entry),
        }
    }

    /// Samples `maxmemory-samples` keys from a random shard into the pool, then evicts the
    /// pool's best candidate that still exists (Redis's `performEvictions` loop).
    fn evict_from_pool(&self, policy: Policy, now_ms: u64) -> bool {
        let volatile = policy.volatile_only();
        let samples = self.limits().samples();
        let mut pool = self.pool.lock();
        for _ in 0..8 {
            if let Some(i) = self.pick_shard(volatile) {
                let shard = self.shards[i].lock();
                let n = if volatile { shard.volatile_len() } else { shard.len() };
                for _ in 0..samples.min(n) {
                    if let Some((key, entry)) = shard.sample(volatile).and_then(|pos| shard.at(pos)) {
                        let score = self.score(policy, &entry, now_ms);
                        pool.offer(Candidate { key: key::Key::new(key), shard: i, score });
                    }
                }
            } else {
                pool.clear();
                return false;
            }
            while let Some(cand) = pool.pop() {
                let mut shard = self.shards[cand.shard].lock();
                let Some(pos) = shard.position(&cand.key) else { continue };
                if volatile && !shard.at(pos).is_some_and(|(_, e)| e.has_ttl()) {
                    continue;
                }
                return self.evict_at(&mut shard, pos, now_ms);
            }
        }
        false
    }

    /// One round of active expiry: walks shards from where the last round stopped, sampling
    /// keys with a TTL and deleting the stale ones; stays on a shard while more than a
    /// quarter of its sample was stale (as Redis's `activeExpireCycle`). Stops after about
    /// `budget` sampled keys.
    pub fn sweep(&self, now_ms: u64, budget: usize) -> SweepReport {
        let mut report = SweepReport::default();
        let n = self.shards.len();
        for _ in 0..n {
            if report.sampled >= budget {
                break;
            }
            let i = self.sweep_cursor.fetch_add(1, Relaxed) % n;
            let mut shard = self.shards[i].lock();
            loop {
                let (sampled, expired) = shard.expire_sample(SWEEP_KEYS_PER_LOOP, now_ms);
                report.sampled += sampled;
                report.expired += expired;
                if sampled == 0 || expired * 4 <= sampled || report.sampled >= budget {
                    break;
                }
            }
        }
        report
    }

    /// One SCAN step (see `Locked::scan`).
    pub fn scan(&self, cursor: u64, count: usize, now_ms: u64, visit: impl FnMut(&[u8], &Entry)) -> u64 {
        self.unlocked().scan(cursor, count, now_ms, visit)
    }
}

/// The shards one command holds, locked in order. Routes each key to its shard.
pub struct Locked<'a> {
    store: &'a Store,
    guards: SmallVec<[(usize, Held<'a>); 2]>,
}

/// A shard a `Locked` holds: its own lock, or one borrowed from an enclosing `Locked` (each
/// command of an EXEC runs on a reborrow of the transaction's locks).
enum Held<'a> {
    Guard(MutexGuard<'a, Shard>),
    Borrowed(&'a mut Shard),
}

impl std::ops::Deref for Held<'_> {
    type Target = Shard;
    fn deref(&self) -> &Shard {
        match self {
            Held::Guard(g) => g,
            Held::Borrowed(s) => s,
        }
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Shard {
        match self {
            Held::Guard(g) => g,
            Held::Borrowed(s) => s,
        }
    }
}

/// One shard for a keyspace-wide walk: held by the `Locked` already, or locked just for now.
pub enum ShardRef<'g> {
    Held(&'g mut Shard),
    Locked(MutexGuard<'g, Shard>),
}

impl std::ops::Deref for ShardRef<'_> {
    type Target = Shard;
    fn deref(&self) -> &Shard {
        match self {
            ShardRef::Held(s) => s,
            ShardRef::Locked(g) => g,
        }
    }
}

impl std::ops::DerefMut for ShardRef<'_> {
    fn deref_mut(&mut self) -> &mut Shard {
        match self {
            ShardRef::Held(s) => s,
            ShardRef::Locked(g) => g,
        }
    }
}

impl<'a> Locked<'a> {
    /// The same shards, borrowed for one command (of an EXEC) without unlocking them.
    pub fn reborrow(&mut self) -> Locked<'_> {
        Locked {
            store: self.store,
            guards: self.guards.iter_mut().map(|(i, held)| (*i, Held::Borrowed(held))).collect(),
        }
    }

    /// Shard `i` for a keyspace-wide walk (KEYS, SCAN, DBSIZE, FLUSHALL, INFO): the held
    /// guard when this holds it (inside an EXEC that locked every shard), else locked for
    /// the caller. A keyless command holds nothing, so it then locks one shard at a time,
    /// never two at once.
    pub fn shard_at(&mut self, i: usize) -> ShardRef<'_> {
        match self.guards.iter().position(|(g, _)| *g == i) {
            Some(pos) => ShardRef::Held(&mut self.guards[pos].1),
            None => {
                debug_assert!(self.guards.is_empty(), "keyspace walk while holding some shards: lock order at risk");
                ShardRef::Locked(self.store.shards[i].lock())
            }
        }
    }

    /// Number of keys (including expired ones not yet collected, as Redis's DBSIZE).
    pub fn len(&mut self) -> usize {
        (0..self.store.shards.len()).map(|i| self.shard_at(i).len()).sum()
    }

    /// Number of keys with a TTL.
    pub fn volatile_len(&mut self) -> usize {
        (0..self.store.shards.len()).map(|i| self.shard_at(i).volatile_len()).sum()
    }

    /// Number of keys of each value type (indexed by `Value::type_index`), from live counts.
    pub fn keys_by_type(&mut self) -> [usize; entry::Value::TYPES] {
        let mut out = [0; entry::Value::TYPES];
        for i in 0..self.store.shards.len() {
            let shard = self.shard_at(i);
            for (o, n) in out.iter_mut().zip(shard.types.iter()) {
                *o += n;
            }
        }
        out
    }

    /// Drops every key; returns how many there were. Sessions watching a key that existed
    /// get a dirty transaction (as Redis 7's FLUSHALL: watched keys that did not exist, or
    /// had already expired, are not touched).
    pub fn flush(&mut self, now_ms: u64) -> usize {
        let store = self.store;
        for key in store.watches.keys() {
            if self.shard_at(store.shard_index(&key)).contains(&key, now_ms) {
                store.watches.touch(&key);
            }
        }
        // The pool is locked before any shard. Holding them all already (EXEC), take it
        // only if it is free: a stale candidate is skipped when it is popped anyway.
        if self.guards.is_empty() {
            store.pool.lock().clear();
        } else if let Some(mut pool) = store.pool.try_lock() {
            pool.clear();
        }
        (0..store.shards.len()).map(|i| self.shard_at(i).clear()).sum()
    }

    /// A uniformly-ish random live key (RANDOMKEY): a random non-empty shard (falling back
    /// to a walk so a sparse keyspace is still found), then a random key of it.
    pub fn random_key(&mut self, now_ms: u64) -> Option<Vec<u8>> {
        let store = self.store;
        let n = store.shards.len();
        let random = || (store.common.random() % n as u64) as usize;
        for _ in 0..100 {
            let mut i = (0..4).map(|_| random()).find(|&i| !self.shard_at(i).is_empty());
            if i.is_none() {
                let start = random();
                i = (0..n).map(|k| (start + k) % n).find(|&i| !self.shard_at(i).is_empty());
            }
            let mut shard = self.shard_at(i?);
            if shard.is_empty() {
                continue;
            }
            let key = shard.sample(false).and_then(|pos| shard.at(pos)).map(|(k, _)| k.to_vec())?;
            if shard.contains(&key, now_ms) {
                return Some(key);
            }
        }
        None
    }

    /// Visits every live key, one shard at a time (KEYS).
    pub fn for_each(&mut self, now_ms: u64, mut visit: impl FnMut(&[u8], &Entry)) {
        for i in 0..self.store.shards.len() {
            let shard = self.shard_at(i);
            for (k, e) in shard.iter() {
                if !e.is_expired(now_ms) {
                    visit(k, &e);
                }
            }
        }
    }

    /// One SCAN step. The cursor packs the shard (high bits) and a hash value (low 33 bits):
    /// each shard is walked in hash order from that value on (see `Table::scan`), so keys
    /// that stay for the whole scan are always returned, however tables grow or shrink in
    /// between. `visit` sees each live key.
    pub fn scan(&mut self, cursor: u64, count: usize, now_ms: u64, mut visit: impl FnMut(&[u8], &Entry)) -> u64 {
        const HASH_BITS: u32 = 33;
        const HASH_MASK: u64 = (1 << HASH_BITS) - 1;
        let n = self.store.shards.len() as u64;
        let (mut shard_i, mut from) = (cursor >> HASH_BITS, cursor & HASH_MASK);
        let mut budget = count.max(1);
        while shard_i < n {
            let (next, looked) = self.shard_at(shard_i as usize).scan(from, budget, |key, entry| {
                if !entry.is_expired(now_ms) {
                    visit(key, &entry);
                }
            });
            budget = budget.saturating_sub(looked);
            match next {
                Some(next) => return (shard_i << HASH_BITS) | next,
                None => {
                    shard_i += 1;
                    from = 0;
                }
            }
            if budget == 0 && shard_i < n {
                return shard_i << HASH_BITS;
            }
        }
        0
    }

    /// The locked shard that holds `key`. Dispatch locks every key a command names, so a
    /// miss here is a bug in the command table; it locks the shard rather than panicking,
    /// accepting the small risk of an out-of-order lock.
    pub fn shard(&mut self, key: &[u8]) -> &mut Shard {
        let i = self.store.shard_index(key);
        let pos = match self.guards.iter().position(|(g, _)| *g == i) {
            Some(pos) => pos,
            None => {
                debug_assert!(false, "key not locked by dispatch: {:?}", String::from_utf8_lossy(key));
                self.guards.push((i, Held::Guard(self.store.shards[i].lock())));
                self.guards.len() - 1
            }
        };
        &mut self.guards[pos].1
    }

    /// A read lookup: lazy expiry, touch, and the keyspace hit/miss counters (a miss also
    /// counts under its cause: never seen, expired or evicted).
    pub fn read(&mut self, key: &[u8], now_ms: u64) -> Option<Entry<'_>> {
        let store = self.store;
        let found = self.shard(key).lookup(key, now_ms, Touch::Yes);
        if found.is_some() {
            store.common.counters.hits.fetch_add(1, Relaxed);
        } else {
            store.common.counters.count_miss(store.common.misses.classify(key));
        }
        found
    }

    /// A write lookup: lazy expiry and touch, no hit/miss counting.
    pub fn lookup(&mut self, key: &[u8], now_ms: u64) -> Option<Entry<'_>> {
        self.shard(key).lookup(key, now_ms, Touch::Yes)
    }

    /// An inspection that neither touches nor counts (TTL, TYPE, OBJECT).
    pub fn peek(&mut self, key: &[u8], now_ms: u64) -> Option<Entry<'_>> {
        self.shard(key).lookup(key, now_ms, Touch::No)
    }
}

#[cfg(test)]
mod tests;
