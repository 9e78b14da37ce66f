//! `Locked`: the stripes one command holds, locked in order, and the database it acts on.
//! Routes each key to its stripe and that stripe's shard of the database; walks the keyspace
//! of one database (KEYS, SCAN, DBSIZE, FLUSHDB) or of all of them (FLUSHALL, INFO keyspace).

use parking_lot::MutexGuard;
use smallvec::SmallVec;

use super::entry::{self, Entry};
use super::{Shard, Store, Stripe, Touch};

/// The stripes one command holds, locked in order, and the database its keys are in.
pub struct Locked<'a> {
    store: &'a Store,
    db: usize,
    guards: SmallVec<[(usize, Held<'a>); 2]>,
    /// Whether reads and write lookups update LRU/LFU (not for a CLIENT NO-TOUCH client).
    touch: Touch,
}

/// A stripe a `Locked` holds: its own lock, or one borrowed from an enclosing `Locked` (each
/// command of an EXEC runs on a reborrow of the transaction's locks).
pub(super) enum Held<'a> {
    Guard(MutexGuard<'a, Stripe>),
    Borrowed(&'a mut Stripe),
}

impl std::ops::Deref for Held<'_> {
    type Target = Stripe;
    fn deref(&self) -> &Stripe {
        match self {
            Held::Guard(g) => g,
            Held::Borrowed(s) => s,
        }
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut Stripe {
        match self {
            Held::Guard(g) => g,
            Held::Borrowed(s) => s,
        }
    }
}

/// One stripe for a keyspace-wide walk: held by the `Locked` already, or locked just for now.
enum StripeRef<'g> {
    Held(&'g mut Stripe),
    Locked(MutexGuard<'g, Stripe>),
}

impl std::ops::Deref for StripeRef<'_> {
    type Target = Stripe;
    fn deref(&self) -> &Stripe {
        match self {
            StripeRef::Held(s) => s,
            StripeRef::Locked(g) => g,
        }
    }
}

impl std::ops::DerefMut for StripeRef<'_> {
    fn deref_mut(&mut self) -> &mut Stripe {
        match self {
            StripeRef::Held(s) => s,
            StripeRef::Locked(g) => g,
        }
    }
}

/// One database's shard of a stripe, for a walk (see `Locked::shard_at`).
pub struct ShardRef<'g> {
    stripe: StripeRef<'g>,
    db: usize,
}

impl std::ops::Deref for ShardRef<'_> {
    type Target = Shard;
    fn deref(&self) -> &Shard {
        &self.stripe[self.db]
    }
}

impl std::ops::DerefMut for ShardRef<'_> {
    fn deref_mut(&mut self) -> &mut Shard {
        &mut self.stripe[self.db]
    }
}

/// A locked stripe seen as its database-0 shard (store unit tests).
#[cfg(test)]
pub struct ShardGuard<'g> {
    pub(super) guard: MutexGuard<'g, Stripe>,
    pub(super) db: usize,
}

#[cfg(test)]
impl std::ops::Deref for ShardGuard<'_> {
    type Target = Shard;
    fn deref(&self) -> &Shard {
        &self.guard[self.db]
    }
}

#[cfg(test)]
impl std::ops::DerefMut for ShardGuard<'_> {
    fn deref_mut(&mut self) -> &mut Shard {
        &mut self.guard[self.db]
    }
}

/// What one database holds, from live counts (INFO keyspace, the dashboard's picker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbCounts {
    pub db: usize,
    pub keys: usize,
    pub expires: usize,
    pub by_type: [usize; entry::Value::TYPES],
}

impl<'a> Locked<'a> {
    pub(super) fn new(store: &'a Store, db: usize, guards: SmallVec<[(usize, Held<'a>); 2]>) -> Locked<'a> {
        debug_assert!(db < store.databases, "database {db} out of range");
        Locked { store, db, guards, touch: Touch::Yes }
    }

    /// Lookups through this lock leave the keys' LRU/LFU stamps as they were (the command
    /// comes from a CLIENT NO-TOUCH client).
    pub fn set_no_touch(&mut self, no_touch: bool) {
        self.touch = if no_touch { Touch::No } else { Touch::Yes };
    }

    /// The database this command's keys are in.
    pub fn db(&self) -> usize {
        self.db
    }

    /// How many databases the store has.
    pub fn databases(&self) -> usize {
        self.store.databases
    }

    /// The same stripes, borrowed for one command (of an EXEC) without unlocking them, acting
    /// on database `db` (the session's, which a SELECT in the transaction may have changed).
    pub fn reborrow_in(&mut self, db: usize) -> Locked<'_> {
        Locked {
            store: self.store,
            db,
            guards: self.guards.iter_mut().map(|(i, held)| (*i, Held::Borrowed(held))).collect(),
            touch: Touch::Yes,
        }
    }

    /// Stripe `i`: the held guard when this holds it (inside an EXEC that locked every
    /// stripe), else locked for the caller. A keyless command holds nothing, so it then locks
    /// one stripe at a time, never two at once.
    fn stripe_at(&mut self, i: usize) -> StripeRef<'_> {
        match self.guards.iter().position(|(g, _)| *g == i) {
            Some(pos) => StripeRef::Held(&mut self.guards[pos].1),
            None => {
                debug_assert!(self.guards.is_empty(), "keyspace walk while holding some stripes: lock order at risk");
                StripeRef::Locked(self.store.stripes[i].lock())
            }
        }
    }

    /// Stripe `i`'s shard of this database, for a keyspace-wide walk (KEYS, SCAN, DBSIZE,
    /// FLUSHDB, INFO).
    pub fn shard_at(&mut self, i: usize) -> ShardRef<'_> {
        let db = self.db;
        ShardRef { stripe: self.stripe_at(i), db }
    }

    /// Number of keys in this database (including expired ones not yet collected, as
    /// Redis's DBSIZE).
    pub fn len(&mut self) -> usize {
        (0..self.store.stripes.len()).map(|i| self.shard_at(i).len()).sum()
    }

    /// The live counts of every database, one stripe at a time (O(stripes × databases),
    /// never a walk of the keys).
    pub fn all_dbs(&mut self) -> Vec<DbCounts> {
        let mut out: Vec<DbCounts> = (0..self.store.databases)
            .map(|db| DbCounts { db, keys: 0, expires: 0, by_type: [0; entry::Value::TYPES] })
            .collect();
        for i in 0..self.store.stripes.len() {
            let stripe = self.stripe_at(i);
            for (counts, shard) in out.iter_mut().zip(stripe.iter()) {
                counts.keys += shard.len();
                counts.expires += shard.volatile_len();
                for (o, n) in counts.by_type.iter_mut().zip(shard.types.iter()) {
                    *o += n;
                }
            }
        }
        out
    }

    /// Drops every key of this database (FLUSHDB); returns how many there were. Sessions
    /// watching a key of it that existed get a dirty transaction (as Redis 7: watched keys
    /// that did not exist, or had already expired, are not touched).
    pub fn flush(&mut self, now_ms: u64) -> usize {
        let db = self.db;
        self.flush_where(now_ms, |d| d == db)
    }

    /// Drops every key of every database (FLUSHALL); returns how many there were.
    pub fn flush_all(&mut self, now_ms: u64) -> usize {
        self.flush_where(now_ms, |_| true)
    }

    fn flush_where(&mut self, now_ms: u64, flushed: impl Fn(usize) -> bool) -> usize {
        let store = self.store;
        for (db, key) in store.watches.keys() {
            if flushed(db) && self.stripe_at(store.stripe_index(&key))[db].contains(&key, now_ms) {
                store.watches.touch(db, &key);
            }
        }
        // The pool is locked before any stripe. Holding them all already (EXEC), take it
        // only if it is free: a stale candidate is skipped when it is popped anyway.
        if self.guards.is_empty() {
            store.pool.lock().clear();
        } else if let Some(mut pool) = store.pool.try_lock() {
            pool.clear();
        }
        let mut n = 0;
        for i in 0..store.stripes.len() {
            let mut stripe = self.stripe_at(i);
            for shard in stripe.iter_mut().filter(|s| flushed(s.db())) {
                n += shard.clear();
            }
        }
        n
    }

    /// Swaps the contents of databases `a` and `b` (SWAPDB), in every stripe: the ones held
    /// (an EXEC), or all of them locked at once here, so no command sees half a swap. A
    /// watched key of either database that exists in either is touched (Redis's
    /// `touchAllWatchedKeysInDb`): its value may change with the swap.
    pub fn swap_dbs(&mut self, a: usize, b: usize, now_ms: u64) {
        if a == b {
            return;
        }
        let store = self.store;
        let swap = |stripe: &mut Stripe| stripe.swap(a, b);
        let touch = |stripe: &mut Stripe, db: usize, key: &[u8]| {
            if stripe[a].contains(key, now_ms) || stripe[b].contains(key, now_ms) {
                store.watches.touch(db, key);
            }
        };
        let watched: Vec<(usize, Box<[u8]>)> =
            store.watches.keys().into_iter().filter(|(db, _)| *db == a || *db == b).collect();
        if self.guards.is_empty() {
            let mut all: Vec<MutexGuard<'_, Stripe>> = store.stripes.iter().map(|s| s.lock()).collect();
            for (db, key) in &watched {
                touch(&mut all[store.stripe_index(key)], *db, key);
            }
            all.iter_mut().for_each(|g| swap(g));
        } else {
            debug_assert_eq!(self.guards.len(), store.stripes.len(), "SWAPDB holds every stripe");
            for (db, key) in &watched {
                let i = store.stripe_index(key);
                if let Some((_, held)) = self.guards.iter_mut().find(|(g, _)| *g == i) {
                    touch(held, *db, key);
                }
            }
            self.guards.iter_mut().for_each(|(_, held)| swap(held));
        }
    }

    /// A uniformly-ish random live key of this database (RANDOMKEY): a random non-empty
    /// stripe (falling back to a walk so a sparse keyspace is still found), then a random
    /// key of it.
    pub fn random_key(&mut self, now_ms: u64) -> Option<Vec<u8>> {
        let store = self.store;
        let n = store.stripes.len();
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

    /// Visits every live key of this database, one stripe at a time (KEYS).
    pub fn for_each(&mut self, now_ms: u64, mut visit: impl FnMut(&[u8], &Entry)) {
        for i in 0..self.store.stripes.len() {
            let shard = self.shard_at(i);
            for (k, e) in shard.iter() {
                if !e.is_expired(now_ms) {
                    visit(k, &e);
                }
            }
        }
    }

    /// One SCAN step of this database. The cursor packs the stripe (high bits) and a hash
    /// value (low 33 bits): each shard is walked in hash order from that value on (see
    /// `Table::scan`), so keys that stay for the whole scan are always returned, however
    /// tables grow or shrink in between. `visit` sees each live key.
    pub fn scan(&mut self, cursor: u64, count: usize, now_ms: u64, mut visit: impl FnMut(&[u8], &Entry)) -> u64 {
        const HASH_BITS: u32 = 33;
        const HASH_MASK: u64 = (1 << HASH_BITS) - 1;
        let n = self.store.stripes.len() as u64;
        let (mut stripe_i, mut from) = (cursor >> HASH_BITS, cursor & HASH_MASK);
        let mut budget = count.max(1);
        while stripe_i < n {
            let (next, looked) = self.shard_at(stripe_i as usize).scan(from, budget, |key, entry| {
                if !entry.is_expired(now_ms) {
                    visit(key, &entry);
                }
            });
            budget = budget.saturating_sub(looked);
            match next {
                Some(next) => return (stripe_i << HASH_BITS) | next,
                None => {
                    stripe_i += 1;
                    from = 0;
                }
            }
            if budget == 0 && stripe_i < n {
                return stripe_i << HASH_BITS;
            }
        }
        0
    }

    /// The locked shard that holds `key` in this database.
    pub fn shard(&mut self, key: &[u8]) -> &mut Shard {
        let db = self.db;
        self.shard_in(db, key)
    }

    /// The locked shard that holds `key` in database `db` (MOVE, COPY ... DB: a key's stripe
    /// is the same in every database, so the command already holds it). Dispatch locks
    /// every key a command names, so a miss here is a bug in the command table; it locks
    /// the stripe rather than panicking, accepting the small risk of an out-of-order lock.
    pub fn shard_in(&mut self, db: usize, key: &[u8]) -> &mut Shard {
        let i = self.store.stripe_index(key);
        let pos = match self.guards.iter().position(|(g, _)| *g == i) {
            Some(pos) => pos,
            None => {
                debug_assert!(false, "key not locked by dispatch: {:?}", String::from_utf8_lossy(key));
                self.guards.push((i, Held::Guard(self.store.stripes[i].lock())));
                self.guards.len() - 1
            }
        };
        &mut self.guards[pos].1[db]
    }

    /// A read lookup: lazy expiry, touch, and the keyspace hit/miss counters (a miss also
    /// counts under its cause: never seen, expired or evicted).
    pub fn read(&mut self, key: &[u8], now_ms: u64) -> Option<Entry<'_>> {
        let (store, db, touch) = (self.store, self.db, self.touch);
        let found = self.shard(key).lookup(key, now_ms, touch);
        store.common.mrc.read(db, key, found.as_ref().map(|e| e.size), || store.common.counters.reads());
        if found.is_some() {
            store.common.counters.hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        } else {
            store.common.counters.count_miss(store.common.misses.classify(db, key));
            store.common.events.raise(super::events::class::KEY_MISS, "keymiss", db, key);
        }
        found
    }

    /// A write lookup: lazy expiry and touch, no hit/miss counting.
    pub fn lookup(&mut self, key: &[u8], now_ms: u64) -> Option<Entry<'_>> {
        let touch = self.touch;
        self.shard(key).lookup(key, now_ms, touch)
    }

    /// An inspection that neither touches nor counts (TTL, TYPE, OBJECT).
    pub fn peek(&mut self, key: &[u8], now_ms: u64) -> Option<Entry<'_>> {
        self.shard(key).lookup(key, now_ms, Touch::No)
    }
}
