//! The keyspace: numbered databases split into stripes behind their own locks, the memory
//! budget, eviction, active expiry, SCAN, and the record of recent evictions and expirations.
//!
//! A key's stripe depends on its bytes only, not on its database: stripe `i` holds one
//! `Shard` per database (the keys of that database that hash to `i`), all behind one lock. So
//! MOVE and COPY between databases stay within the stripe the command already holds, SWAPDB
//! swaps shards under the locks, and one memory budget and one eviction pool span every
//! database, as in Redis.
//!
//! Lock order, so nothing deadlocks: the eviction pool before any stripe; several stripes
//! only in ascending index order (`Store::lock_keys` sorts them); the recent-events log and
//! the WATCH registry last (leaves). An EXEC holds its commands' stripes for the whole batch,
//! all of them (`Store::lock_all`) when a command walks the keyspace: walks therefore go
//! through the command's `Locked` (`Locked::shard_at`), never straight to the stripes, and
//! nothing in a handler evicts (the pool would be locked after stripes).

pub mod bigkeys;
pub mod clock;
pub mod counters;
pub mod encodings;
pub mod entry;
pub mod events;
pub mod evict;
pub mod hash;
pub mod hotkeys;
pub mod key;
pub mod keyhash;
pub mod ledger;
pub mod limits;
pub mod list;
pub mod locked;
pub mod misses;
pub mod mrc;
pub mod node;
pub mod ready;
pub mod set;
pub mod shard;
pub mod stream;
pub mod stripe;
pub mod table;
pub mod watch;
pub mod zset;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;
use serde::Serialize;
use smallvec::SmallVec;

use crate::error::CmdError;
use counters::KeyspaceCounters;
use entry::Entry;
use evict::{lfu_decay, lfu_increment, lfu_minutes, Pool, LFU_INIT_VAL};
use limits::{MemoryLimits, Policy};
use locked::Held;
pub use locked::Locked;
use node::Stamps;
pub use shard::{Shard, Touch};

pub use stripe::Stripe;

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
    /// The database the key was in.
    pub db: usize,
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
    fn removed(&self, db: usize, key: &[u8]);
    /// Fields of the hash at `key` in `db` that expired (HEXPIRE and friends), removed by a
    /// lookup or the active cycle.
    fn removed_fields(&self, db: usize, key: &[u8], fields: &[Box<[u8]>]);
}

/// No log: for a store that nothing records (tests, tools).
impl RemovalLog for () {
    fn removed(&self, _db: usize, _key: &[u8]) {}
    fn removed_fields(&self, _db: usize, _key: &[u8], _fields: &[Box<[u8]>]) {}
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
    /// The sampled reuse distances of reads, for the hit ratio at other memory limits.
    pub mrc: mrc::Mrc,
    /// Keys that became lists while clients were blocked on them (BLPOP and friends).
    pub ready: ready::ReadyKeys,
    /// Where evictions and expirations are logged (the engine's propagation).
    removals: Arc<dyn RemovalLog>,
    /// Keyspace events the store raises (expired, evicted, new, keymiss), for the engine to
    /// publish.
    pub events: events::StoreEvents,
    /// Keys (and keys with a TTL) per stripe, summed over its databases, kept by the shards
    /// as they change. Eviction reads them to pick a stripe in proportion to its keys, so
    /// every key is equally likely to be sampled whichever stripe or database holds it.
    /// Written only when a key is created or removed (or gains or loses a TTL), never on an
    /// overwrite, so the hot path pays for them no more than for `used`.
    stripe_keys: Box<[AtomicU32]>,
    stripe_volatile: Box<[AtomicU32]>,
    /// Per database: the estimated mean remaining TTL of its keys with one, in ms, from the
    /// expiry cycle's samples (INFO keyspace's `avg_ttl`).
    avg_ttl_ms: Box<[AtomicU64]>,
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

    /// Stamps for a key RESTORE creates with IDLETIME (seconds since its last access, under
    /// an LRU policy) or FREQ (its LFU counter, under an LFU policy), as Redis's
    /// `objectSetLRUOrLFU`: the option the policy does not use is ignored.
    pub(crate) fn restored_stamps(&self, now_ms: u64, idle_s: Option<u64>, freq: Option<u8>) -> Stamps {
        let mut stamps = self.new_stamps(now_ms);
        if self.limits.policy().is_lfu() {
            if let Some(f) = freq {
                stamps.lfu = f;
            }
        } else if let Some(idle) = idle_s {
            let idle_ms = u32::try_from(idle.saturating_mul(1000)).unwrap_or(u32::MAX);
            stamps.atime = stamps.atime.wrapping_sub(idle_ms);
        }
        stamps
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

    fn event(&self, kind: EventKind, db: usize, key: &[u8], entry: &Entry, now_ms: u64) -> KeyEvent {
        let shown = &key[..key.len().min(RECENT_KEY_MAX)];
        KeyEvent {
            kind,
            db,
            key: shown.to_vec(),
            policy: (kind == EventKind::Evicted).then(|| self.limits.policy().name()),
            idle_ms: self.idle_ms(entry, now_ms),
            freq: lfu_decay(entry, now_ms, self.limits.lfu_decay_time()),
            size: entry.size,
            at_ms: now_ms,
        }
    }

    /// Logs fields of a hash that expired (the hash itself stays unless they were its last).
    pub(crate) fn record_fields_expired(&self, db: usize, key: &[u8], fields: &[Box<[u8]>]) {
        if !fields.is_empty() {
            self.removals.removed_fields(db, key, fields);
            self.events.raise(events::class::HASH, "hexpired", db, key);
        }
    }

    pub(crate) fn record_expired(&self, db: usize, key: &[u8], entry: &Entry, now_ms: u64) {
        self.remember_departure(db, key, misses::MissCause::Expired);
        self.removals.removed(db, key);
        self.events.raise(events::class::EXPIRED, "expired", db, key);
        self.record(self.event(EventKind::Expired, db, key, entry, now_ms));
    }

    /// Tells the ghost record that `key` left by `cause`, and now and then fits the record to
    /// the keyspace (summing the stripes' key counts is too much for every departure).
    pub(crate) fn remember_departure(&self, db: usize, key: &[u8], cause: misses::MissCause) {
        if self.misses.remember(db, key, cause) {
            self.misses.fit(self.stripe_keys.iter().map(|c| c.load(Relaxed) as usize).sum());
        }
    }

    /// The expiry cycle sampled keys of `db` whose mean remaining TTL is `mean_ms`: moves
    /// the database's estimate a fiftieth of the way there, as Redis's `activeExpireCycle`.
    pub(crate) fn sampled_ttl(&self, db: usize, mean_ms: u64) {
        if let Some(avg) = self.avg_ttl_ms.get(db) {
            let old = avg.load(Relaxed);
            avg.store(if old == 0 { mean_ms } else { (old / 50) * 49 + mean_ms / 50 }, Relaxed);
        }
    }

    /// The estimated mean remaining TTL of `db`'s keys with one (0 until sampled).
    pub fn avg_ttl_ms(&self, db: usize) -> u64 {
        self.avg_ttl_ms.get(db).map_or(0, |a| a.load(Relaxed))
    }

    /// A shard of stripe `stripe` gained (`delta` > 0) or lost keys, or keys with a TTL.
    pub(crate) fn count_keys(&self, stripe: usize, delta: i64, volatile: bool) {
        let counts = if volatile { &self.stripe_volatile } else { &self.stripe_keys };
        if delta >= 0 {
            counts[stripe].fetch_add(delta as u32, Relaxed);
        } else {
            counts[stripe].fetch_sub(delta.unsigned_abs() as u32, Relaxed);
        }
    }

    /// A stripe picked at random in proportion to its keys (only those with a TTL when
    /// `volatile`); `None` when there are none.
    fn weighted_stripe(&self, volatile: bool) -> Option<usize> {
        let counts = if volatile { &self.stripe_volatile } else { &self.stripe_keys };
        let total: u64 = counts.iter().map(|c| c.load(Relaxed) as u64).sum();
        if total == 0 {
            return None;
        }
        let mut r = self.random() % total;
        for (i, c) in counts.iter().enumerate() {
            let n = c.load(Relaxed) as u64;
            if r < n {
                return Some(i);
            }
            r -= n;
        }
        // The counts moved between the two reads: any non-empty stripe will do.
        counts.iter().position(|c| c.load(Relaxed) > 0)
    }
}

/// A database of a locked stripe picked at random in proportion to its keys (only those
/// with a TTL when `volatile`), so together with `weighted_stripe` every key is equally
/// likely.
fn weighted_db(stripe: &Stripe, volatile: bool, random: u64) -> Option<usize> {
    let len = |s: &Shard| if volatile { s.volatile_len() } else { s.len() } as u64;
    let total: u64 = stripe.iter().map(&len).sum();
    if total == 0 {
        return None;
    }
    let mut r = random % total;
    for (db, s) in stripe.iter().enumerate() {
        if r < len(s) {
            return Some(db);
        }
        r -= len(s);
    }
    None
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
    stripes: Box<[Mutex<Stripe>]>,
    /// `stripes.len() - 1`: the count is a power of two, so a key's stripe is a mask of its
    /// hash rather than a division (tens of cycles, on every command).
    stripe_mask: u64,
    /// How many databases each stripe holds (`databases`, fixed at start).
    databases: usize,
    /// Seeds `keyhash::key_hash`, which picks a key's stripe the same way on every target.
    stripe_seed: u64,
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
    /// the config); `removals` hears of every eviction and expiry. `stripes` locks split the
    /// keyspace; each holds `databases` shards.
    pub fn new(
        limits: Arc<MemoryLimits>,
        removals: Arc<dyn RemovalLog>,
        notify_flags: Arc<AtomicU32>,
        stripes: usize,
        databases: usize,
        seed: u64,
        now_ms: u64,
    ) -> Store {
        let (stripes, databases) = (stripes.max(1).next_power_of_two(), databases.max(1));
        let counts = || (0..stripes).map(|_| AtomicU32::new(0)).collect();
        let common = Arc::new(Common {
            limits,
            counters: Arc::default(),
            used: AtomicUsize::new(0),
            clock: clock::AccessClock::default(),
            base_ms: now_ms,
            rng: AtomicU64::new(seed),
            recent: Mutex::new(VecDeque::new()),
            misses: misses::MissRecord::new(seed.rotate_left(29) ^ 0x6d69_7373),
            mrc: mrc::Mrc::new(seed.rotate_left(41) ^ 0x006d_7263),
            ready: ready::ReadyKeys::default(),
            removals,
            events: events::StoreEvents::new(notify_flags),
            stripe_keys: counts(),
            stripe_volatile: counts(),
            avg_ttl_ms: (0..databases).map(|_| AtomicU64::new(0)).collect(),
        });
        let stripes: Box<[Mutex<Stripe>]> = (0..stripes)
            .map(|i| {
                let shard_seed = seed.wrapping_add(i as u64);
                Mutex::new(Stripe::new(
                    (0..databases).map(|db| Shard::new(common.clone(), shard_seed, i, db)).collect(),
                ))
            })
            .collect();
        Store {
            stripe_mask: stripes.len() as u64 - 1,
            stripes,
            databases,
            stripe_seed: seed.rotate_left(17),
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

    /// How many databases there are (numbered from 0).
    pub fn databases(&self) -> usize {
        self.databases
    }

    /// Prefetching, stage one, for a command that will run a few commands from now (see
    /// `Engine::feed`): starts loading the slot `key` would be found in, in database `db`.
    /// Returns what stage two needs, or `None` when another thread holds the stripe (then
    /// nothing is warmed: a prefetch never waits for a lock).
    pub fn prefetch_slot(&self, db: usize, key: &[u8]) -> Option<(usize, usize, u32)> {
        let i = self.stripe_index(key);
        let stripe = self.stripes[i].try_lock()?;
        let table = &stripe.get(db)?.table;
        let h = table.hash(key);
        table.prefetch_home(h);
        Some((i, db, h))
    }

    /// Prefetching, stage two, for the next command: starts loading the key's node, whose
    /// address stage one has brought into the cache.
    pub fn prefetch_node(&self, (stripe, db, h): (usize, usize, u32)) {
        if let Some(stripe) = self.stripes[stripe].try_lock() {
            if let Some(shard) = stripe.get(db) {
                shard.table.prefetch_nodes(h);
            }
        }
    }

    /// The stripe that holds `key` (in every database).
    pub fn stripe_index(&self, key: &[u8]) -> usize {
        (keyhash::key_hash(self.stripe_seed, key) & self.stripe_mask) as usize
    }

    #[cfg(test)]
    pub fn lock_shard(&self, stripe: usize) -> locked::ShardGuard<'_> {
        locked::ShardGuard { guard: self.stripes[stripe].lock(), db: 0 }
    }

    /// Locks the stripes that hold `keys`, in ascending order, for one atomic command on
    /// database `db`.
    pub fn lock_keys<'a, I>(&'a self, db: usize, keys: I) -> Locked<'a>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        self.lock_keys_unless(db, keys, &|| false).unwrap_or_else(|| unreachable!("never gives up"))
    }

    /// `lock_keys`, giving up (None, holding nothing) when `give_up` says so while it waits
    /// for a stripe another thread holds: a client waiting for a busy script's shards gets
    /// BUSY rather than waiting for the script (see `busy`).
    pub fn lock_keys_unless<'a, I>(&'a self, db: usize, keys: I, give_up: &dyn Fn() -> bool) -> Option<Locked<'a>>
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        // Inline vectors: a command names one or two keys far more often than more, and the
        // hot path should not allocate to lock them.
        let mut idx: SmallVec<[usize; 4]> = keys.into_iter().map(|k| self.stripe_index(k)).collect();
        idx.sort_unstable();
        idx.dedup();
        let mut guards = SmallVec::with_capacity(idx.len());
        for i in idx {
            guards.push((i, Held::Guard(self.lock_stripe_unless(i, give_up)?)));
        }
        Some(Locked::new(self, db, guards))
    }

    /// `lock_keys` for a command with one key (GET, SET: most commands), without gathering,
    /// sorting and deduplicating stripe numbers; counts an access to it (`hotkeys`). Gives up
    /// as `lock_keys_unless` does.
    #[inline]
    pub fn lock_key_unless(
        &self,
        db: usize,
        key: &[u8],
        now_ms: u64,
        give_up: &dyn Fn() -> bool,
    ) -> Option<Locked<'_>> {
        let i = self.stripe_index(key);
        let mut guard = self.lock_stripe_unless(i, give_up)?;
        if let Some(shard) = guard.get_mut(db) {
            shard.hot.access(key, now_ms);
        }
        let mut guards = SmallVec::new();
        guards.push((i, Held::Guard(guard)));
        Some(Locked::new(self, db, guards))
    }

    /// Locks every stripe, in ascending order: an EXEC whose commands walk the whole keyspace
    /// holds them all, and those commands use the held guards (see `Locked::shard_at`).
    pub fn lock_all(&self, db: usize) -> Locked<'_> {
        self.lock_all_unless(db, &|| false).unwrap_or_else(|| unreachable!("never gives up"))
    }

    /// `lock_all`, giving up as `lock_keys_unless` does (releasing what it took).
    pub fn lock_all_unless(&self, db: usize, give_up: &dyn Fn() -> bool) -> Option<Locked<'_>> {
        let mut guards = SmallVec::with_capacity(self.stripes.len());
        for i in 0..self.stripes.len() {
            guards.push((i, Held::Guard(self.lock_stripe_unless(i, give_up)?)));
        }
        Some(Locked::new(self, db, guards))
    }

    /// One stripe's lock. Uncontended it is the same single compare-and-swap as `lock()`;
    /// contended, it waits in slices so that `give_up` is asked now and then.
    #[inline]
    fn lock_stripe_unless(&self, i: usize, give_up: &dyn Fn() -> bool) -> Option<parking_lot::MutexGuard<'_, Stripe>> {
        match self.stripes[i].try_lock() {
            Some(guard) => Some(guard),
            None => self.lock_stripe_slow(i, give_up),
        }
    }

    #[cold]
    #[inline(never)]
    fn lock_stripe_slow(&self, i: usize, give_up: &dyn Fn() -> bool) -> Option<parking_lot::MutexGuard<'_, Stripe>> {
        const SLICE: std::time::Duration = std::time::Duration::from_millis(5);
        loop {
            if let Some(guard) = self.stripes[i].try_lock_for(SLICE) {
                return Some(guard);
            }
            if give_up() {
                return None;
            }
        }
    }

    /// A `Locked` that holds nothing: its keyspace-wide methods lock one stripe at a time.
    pub fn unlocked(&self, db: usize) -> Locked<'_> {
        Locked::new(self, db, SmallVec::new())
    }

    /// Accounted bytes of all entries.
    pub fn used_memory(&self) -> usize {
        self.common.used.load(Relaxed)
    }

    /// Number of keys in every database (including expired ones not yet collected).
    pub fn len(&self) -> usize {
        self.common.stripe_keys.iter().map(|c| c.load(Relaxed) as usize).sum()
    }

    /// Number of keys of each value type (indexed by `Value::type_index`), from live counts.
    #[cfg(test)]
    pub fn keys_by_type(&self) -> [usize; entry::Value::TYPES] {
        self.unlocked(0).all_dbs().into_iter().fold([0; entry::Value::TYPES], |mut out, d| {
            for (o, n) in out.iter_mut().zip(d.by_type) {
                *o += n;
            }
            out
        })
    }

    /// Number of keys with a TTL, in every database.
    #[cfg(test)]
    pub fn volatile_len(&self) -> usize {
        self.common.stripe_volatile.iter().map(|c| c.load(Relaxed) as usize).sum()
    }

    /// Drops every key of every database; returns how many there were.
    #[cfg(test)]
    pub fn flush(&self, now_ms: u64) -> usize {
        self.unlocked(0).flush_all(now_ms)
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

    /// One round of active expiry: walks stripes from where the last round stopped, sampling
    /// keys with a TTL in each database and deleting the stale ones; stays on a database
    /// while more than a quarter of its sample was stale (as Redis's `activeExpireCycle`).
    /// Stops after about `budget` sampled keys.
    /// Ends early when `give_up` says so while it waits for a stripe.
    pub fn sweep(&self, now_ms: u64, budget: usize, give_up: &dyn Fn() -> bool) -> SweepReport {
        let mut report = SweepReport::default();
        let n = self.stripes.len();
        for _ in 0..n {
            if report.sampled >= budget {
                break;
            }
            let i = self.sweep_cursor.fetch_add(1, Relaxed) % n;
            let Some(mut stripe) = self.lock_stripe_unless(i, give_up) else { break };
            for shard in stripe.iter_mut().filter(|s| s.has_expiring()) {
                loop {
                    let (sampled, expired) = shard.expire_sample(SWEEP_KEYS_PER_LOOP, now_ms);
                    report.sampled += sampled;
                    report.expired += expired;
                    if sampled == 0 || expired * 4 <= sampled || report.sampled >= budget {
                        break;
                    }
                }
            }
        }
        report
    }
}

#[cfg(test)]
mod tests;
