//! A shard: the keys of one database in one stripe (see `store`). Every mutation goes through
//! these methods so memory accounting, the TTL index, the key counts and expiry counters can
//! never drift from the data.

use std::mem::size_of;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use foldhash::fast::RandomState;
use indexmap::IndexSet;

use super::entry::{alloc_size, node_size, Entry, Value, ValueRef};
use super::ledger::{Facts, Ledger};
use super::node::{Node, Stamps};
use super::table::Table;
use super::Common;

/// `Value::type_index` of a list.
const LIST: usize = 1;
/// `Value::type_index` of a sorted set.
const ZSET: usize = 3;
/// `Value::type_index` of a stream.
const STREAM: usize = 5;

/// Whether a key that comes to hold this type may serve blocked clients (BLPOP and the
/// like wait for lists; BZPOPMIN and the like for sorted sets; XREAD BLOCK for streams).
fn wakes_waiters(type_index: usize) -> bool {
    type_index == LIST || type_index == ZSET || type_index == STREAM
}

/// How an access touches an entry's LRU/LFU stamps.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// A normal read or write: updates LRU/LFU as Redis does.
    Yes,
    /// Inspection that must not count as use (`TTL`, `OBJECT`, `TYPE`, `SCAN`'s type filter).
    No,
}

pub struct Shard {
    /// Every key's node, in an open-addressing table that can also be sampled and scanned.
    pub(super) table: Table,
    /// The keys with a TTL (each such node holds its index here), sampled by the active
    /// expiry cycle and volatile-* eviction: the key's hash and node address, enough to find
    /// it in `table` without reading any node.
    ttl: Vec<TtlRef>,
    /// Keys of the hashes that have fields with a TTL (HEXPIRE and friends): sampled by the
    /// active expiry cycle, and, while empty, the reason a lookup skips the field check.
    /// Each entry's bytes are accounted to the shard (see `hfe_sync`).
    hfe: IndexSet<Box<[u8]>, RandomState>,
    /// Accounted bytes held by this shard (its share of `used_memory`).
    pub(crate) used: usize,
    /// Live count of keys per value type (`Value::type_index`), so stats never walk the keyspace.
    pub(crate) types: [usize; Value::TYPES],
    /// `used` by prefix, type and TTL, and the biggest keys (see `ledger`), kept wherever
    /// `used` changes. Boxed: database 0's shard sits beside the stripe's lock.
    pub(crate) ledger: Box<Ledger>,
    common: Arc<Common>,
    /// Which stripe this shard is in (the stripe's key counts in `Common` include it).
    stripe: usize,
    /// Which database this shard belongs to (stays with the position when SWAPDB swaps the
    /// contents).
    db: usize,
    /// This shard's hot-key sketch, fed as dispatch locks a command's keys (`Store::lock_key`,
    /// `Locked::count_accesses`).
    pub(crate) hot: super::hotkeys::HotKeys,
}

#[derive(Clone, Copy)]
struct TtlRef {
    hash: u32,
    addr: usize,
}

impl Shard {
    pub(crate) fn new(common: Arc<Common>, seed: u64, stripe: usize, db: usize) -> Shard {
        Shard {
            table: Table::new(seed),
            ttl: Vec::new(),
            hfe: IndexSet::default(),
            used: 0,
            types: [0; Value::TYPES],
            ledger: Box::new(Ledger::new(common.limits.ledger_delimiter())),
            common,
            stripe,
            db,
            hot: Default::default(),
        }
    }

    /// The database this shard belongs to.
    pub fn db(&self) -> usize {
        self.db
    }

    /// Exchanges this shard's keys with `other`'s (SWAPDB), both in the same stripe, each
    /// keeping its database number. The stripe's counts and the memory total are unchanged.
    pub(crate) fn swap_contents(&mut self, other: &mut Shard) {
        debug_assert_eq!(self.stripe, other.stripe);
        std::mem::swap(&mut self.table, &mut other.table);
        std::mem::swap(&mut self.ttl, &mut other.ttl);
        std::mem::swap(&mut self.hfe, &mut other.hfe);
        std::mem::swap(&mut self.used, &mut other.used);
        std::mem::swap(&mut self.types, &mut other.types);
        std::mem::swap(&mut self.ledger, &mut other.ledger);
    }

    fn count_keys(&self, delta: i64) {
        self.common.count_keys(self.stripe, delta, false);
    }

    fn count_volatile(&self, delta: i64) {
        self.common.count_keys(self.stripe, delta, true);
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Whether the expiry cycle has anything to look at here: keys with a TTL, or hashes
    /// with field TTLs.
    pub fn has_expiring(&self) -> bool {
        !self.ttl.is_empty() || !self.hfe.is_empty()
    }

    pub fn volatile_len(&self) -> usize {
        self.ttl.len()
    }

    fn account(&mut self, old: usize, new: usize) {
        // An overwrite of the same size (most cache SETs) leaves the shared total alone:
        // every event loop writes that atomic, so an update is a cache-line transfer.
        if new == old {
            return;
        }
        if new > old {
            self.used += new - old;
            self.common.used.fetch_add(new - old, Relaxed);
        } else {
            self.used -= old - new;
            self.common.used.fetch_sub(old - new, Relaxed);
        }
    }

    /// The slot of a live key: an expired one is deleted first (lazy expiry).
    fn find_live(&mut self, key: &[u8], now_ms: u64) -> Option<usize> {
        let pos = self.table.find(key)?;
        let expire_at = self.table.get(pos)?.expire_at();
        if expire_at != 0 && expire_at <= now_ms {
            self.expire_at_pos(pos, now_ms);
            return None;
        }
        // Hash fields that expired go before anyone sees the hash (and the hash with them when
        // they were its last). Free while no hash in this shard has field TTLs.
        if !self.hfe.is_empty() && self.expire_fields_at(pos, now_ms) == Some(false) {
            return None;
        }
        Some(pos)
    }

    /// Removes the expired fields of the hash at `pos`, logging them (HDEL), and the key
    /// when they were its last. `None` when no field was due, else whether the key remains.
    fn expire_fields_at(&mut self, pos: usize, now_ms: u64) -> Option<bool> {
        let node = self.table.get_mut(pos)?;
        let due =
            |v: ValueRef<'_>| matches!(v, ValueRef::Hash(h) if h.next_field_expiry().is_some_and(|at| at <= now_ms));
        if !due(node.value()) {
            return None;
        }
        let old = Facts::of(node);
        let gone = node.update(|v| match v {
            Value::Hash(h) => h.take_expired(now_ms),
            _ => Vec::new(),
        });
        let new = Facts::of(node);
        let emptied = node.value().is_empty();
        let has = has_field_ttls(node.value());
        let key: Box<[u8]> = node.key().into();
        self.ttl_relink(pos);
        self.ledger.change(&key, old, new);
        self.account(old.size, new.size);
        self.common.record_fields_expired(self.db, &key, &gone);
        if emptied {
            // Redis 7.4 follows `hexpired` with `del` when the hash's last field went.
            self.common.events.raise(super::events::class::GENERIC, "del", self.db, &key);
            self.remove_at(pos);
            return Some(false);
        }
        self.hfe_sync(&key, has);
        Some(true)
    }

    /// Keeps `hfe` in step with whether the hash at `key` has fields with a TTL (`has`).
    /// A plain write (no field TTLs here or in the shard) costs one branch.
    fn hfe_sync(&mut self, key: &[u8], has: bool) {
        let entry = |key: &[u8]| alloc_size(key.len()) + size_of::<Box<[u8]>>() + 16;
        if has {
            if !self.hfe.contains(key) {
                self.hfe.insert(key.into());
                self.ledger.index_bytes += entry(key);
                self.account(0, entry(key));
            }
        } else if !self.hfe.is_empty() && self.hfe.swap_remove(key) {
            self.ledger.index_bytes -= entry(key);
            self.account(entry(key), 0);
        }
    }

    /// Looks a key up, deleting it first if it has expired (lazy expiry), and updates its
    /// access stamps when `touch` says so. Hit/miss counting is the caller's (read paths only).
    pub fn lookup(&mut self, key: &[u8], now_ms: u64, touch: Touch) -> Option<Entry<'_>> {
        let pos = self.find_live(key, now_ms)?;
        if touch == Touch::Yes {
            self.touch_at(pos, now_ms);
        }
        self.table.get(pos).map(Entry::of)
    }

    fn touch_at(&mut self, pos: usize, now_ms: u64) {
        if let Some(node) = self.table.get_mut(pos) {
            let mut stamps = node.stamps();
            self.common.touch(&mut stamps, now_ms);
            node.set_stamps(stamps);
        }
    }

    /// Whether a live (unexpired) key exists, without touching it.
    pub fn contains(&mut self, key: &[u8], now_ms: u64) -> bool {
        self.find_live(key, now_ms).is_some()
    }

    fn expire_at_pos(&mut self, pos: usize, now_ms: u64) {
        if let Some(node) = self.remove_at(pos) {
            self.count_expired(&node, now_ms);
        }
    }

    /// Counts and logs a node that left the keyspace because it expired.
    fn count_expired(&self, node: &Node, now_ms: u64) {
        self.common.counters.expired_keys.fetch_add(1, Relaxed);
        self.common.record_expired(self.db, node.key(), &Entry::of(node), now_ms);
    }

    /// Lists the node at `pos`, which has just gained a TTL, among the keys with one.
    fn ttl_link(&mut self, pos: usize) {
        let Some(node) = self.table.get_mut(pos) else { return };
        node.set_ttl_index(self.ttl.len() as u32);
        let addr = node.addr();
        let hash = self.table.hash(self.table.get(pos).map_or(&[][..], |n| n.key()));
        self.ttl.push(TtlRef { hash, addr });
        self.count_volatile(1);
    }

    /// Takes entry `index` off the list of keys with a TTL (its node is leaving or losing
    /// its TTL), telling the node moved into its place.
    fn ttl_unlink(&mut self, index: Option<u32>) {
        let Some(i) = index.map(|i| i as usize).filter(|&i| i < self.ttl.len()) else { return };
        self.ttl.swap_remove(i);
        self.count_volatile(-1);
        if let Some(&moved) = self.ttl.get(i) {
            if let Some(pos) = self.table.find_addr(moved.hash, moved.addr) {
                if let Some(node) = self.table.get_mut(pos) {
                    node.set_ttl_index(i as u32);
                }
            }
        }
    }

    /// Records where the node at `pos` now lives, after a change that may have moved it.
    fn ttl_relink(&mut self, pos: usize) {
        if let Some(node) = self.table.get(pos) {
            if let Some(i) = node.ttl_index() {
                if let Some(r) = self.ttl.get_mut(i as usize) {
                    r.addr = node.addr();
                }
            }
        }
    }

    /// Inserts or replaces a key's entry with a fresh value and the given expiry (0 = none).
    /// Access stamps start new, as for a key Redis just created.
    pub fn insert(&mut self, key: &[u8], value: Value, expire_at: u64, now_ms: u64) {
        let stamps = self.common.new_stamps(now_ms);
        self.insert_node(key, Node::new(key, value, expire_at, stamps, usize::MAX), expire_at, now_ms);
    }

    /// `insert` for a string given as bytes (SET): copied straight into the entry.
    pub fn insert_str(&mut self, key: &[u8], value: &[u8], expire_at: u64, now_ms: u64) {
        let stamps = self.common.new_stamps(now_ms);
        self.insert_node(key, Node::new_str(key, value, expire_at, stamps), expire_at, now_ms);
    }

    /// Puts `node` in `key`'s place. An old entry that had expired by `now_ms` is counted
    /// and logged as expired first, as a lookup would have (so a write need not look the key
    /// up before replacing it).
    fn insert_node(&mut self, key: &[u8], node: Node, expire_at: u64, now_ms: u64) {
        let facts = Facts::of(&node);
        let new = facts.size;
        let type_index = facts.type_index;
        self.types[type_index] += 1;
        if wakes_waiters(type_index) {
            // Clients blocked on this key (BLPOP, BZPOPMIN, ...) may now be served.
            self.common.ready.signal(self.db, key);
        }
        let hfe = has_field_ttls(node.value());
        let (pos, old) = match self.table.find(key) {
            Some(pos) => {
                let old = self.table.replace(pos, node).expect("occupied slot");
                self.types[old.value().type_index()] -= 1;
                self.ttl_unlink(old.ttl_index());
                if old.expire_at() != 0 && old.expire_at() <= now_ms {
                    self.count_expired(&old, now_ms);
                    self.common.events.raise(super::events::class::NEW, "new", self.db, key);
                }
                let old = Facts::of(&old);
                self.ledger.change(key, old, facts);
                (pos, old.size)
            }
            None => {
                self.common.events.raise(super::events::class::NEW, "new", self.db, key);
                self.count_keys(1);
                self.ledger.add(key, facts);
                (self.table.insert(node), 0)
            }
        };
        if expire_at != 0 {
            self.ttl_link(pos);
        }
        self.account(old, new);
        self.hfe_sync(key, hfe);
        self.common.mrc.write(self.db, key, new);
    }

    /// Changes a live key's value in place through `f` and re-measures it afterwards. A
    /// collection that `f` leaves empty is deleted, as Redis never keeps one.
    /// Returns `None` when the key does not exist.
    pub fn update<R>(&mut self, key: &[u8], now_ms: u64, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let pos = self.find_live(key, now_ms)?;
        self.touch_at(pos, now_ms);
        let node = self.table.get_mut(pos)?;
        let old_facts = Facts::of(node);
        let (old, old_type) = (old_facts.size, old_facts.type_index);
        let r = node.update(f);
        let new_facts = Facts::of(node);
        let (new, new_type) = (new_facts.size, new_facts.type_index);
        self.ledger.change(key, old_facts, new_facts);
        let value = node.value();
        // A stream stays when its last entry goes (its last ID and groups with it).
        let emptied = new_type != 0 && new_type != STREAM && value.is_empty();
        let hfe = has_field_ttls(value);
        self.ttl_relink(pos);
        self.types[old_type] -= 1;
        self.types[new_type] += 1;
        if new_type != old_type && wakes_waiters(new_type) {
            // Clients blocked on this key (BLPOP, BZPOPMIN, ...) may now be served.
            self.common.ready.signal(self.db, key);
        }
        self.account(old, new);
        self.hfe_sync(key, hfe);
        self.common.mrc.write(self.db, key, new);
        if emptied {
            self.remove_at(pos);
        }
        Some(r)
    }

    /// Tells clients blocked on `key` (XREAD BLOCK) that it has new data: a stream write
    /// wakes them though the key already existed, unlike a list's push, which can only wake
    /// anyone by creating the list.
    pub fn signal_ready(&self, key: &[u8]) {
        self.common.ready.signal(self.db, key);
    }

    /// Sets or clears (0) a live key's expiry. Returns false when the key does not exist.
    pub fn set_expire(&mut self, key: &[u8], expire_at: u64, now_ms: u64) -> bool {
        let Some(pos) = self.find_live(key, now_ms) else {
            return false;
        };
        let Some(node) = self.table.get_mut(pos) else { return false };
        let old = Facts::of(node);
        let had = node.ttl_index();
        node.set_expire_at(expire_at);
        let new = Facts::of(node);
        self.ledger.change(key, old, new);
        let (old, new) = (old.size, new.size);
        match (had, expire_at) {
            (Some(i), 0) => self.ttl_unlink(Some(i)),
            (None, 1..) => self.ttl_link(pos),
            _ => {}
        }
        self.account(old, new);
        true
    }

    /// Copies access stamps onto a live key without touching it (RENAME keeps a key's
    /// LRU/LFU history). The stamps are not accounted bytes.
    pub fn set_stamps(&mut self, key: &[u8], stamps: Stamps) {
        if let Some(node) = self.table.find(key).and_then(|pos| self.table.get_mut(pos)) {
            node.set_stamps(stamps);
        }
    }

    /// Takes a live key out with everything it carries (value, TTL, access stamps), for
    /// `adopt` into another database (MOVE). An expired key is deleted instead.
    pub fn take(&mut self, key: &[u8], now_ms: u64) -> Option<Node> {
        let pos = self.find_live(key, now_ms)?;
        self.remove_at(pos)
    }

    /// Puts a node taken from another database of the same stripe in its key's place.
    pub fn adopt(&mut self, node: Node, now_ms: u64) {
        let key = node.key().to_vec();
        let expire_at = node.expire_at();
        self.insert_node(&key, node, expire_at, now_ms);
    }

    /// Removes a key, expired or not, returning its node.
    pub fn remove(&mut self, key: &[u8]) -> Option<Node> {
        let pos = self.table.find(key)?;
        self.remove_at(pos)
    }

    pub(crate) fn remove_at(&mut self, pos: usize) -> Option<Node> {
        let node = self.table.remove(pos)?;
        let facts = Facts::of(&node);
        self.count_keys(-1);
        self.types[facts.type_index] -= 1;
        self.ttl_unlink(node.ttl_index());
        self.ledger.remove(node.key(), facts);
        self.account(facts.size, 0);
        self.hfe_sync(node.key(), false);
        if facts.type_index == STREAM {
            // XREADGROUP waiters on a deleted stream are answered at once (Redis 7.0's
            // "UNBLOCKED the stream key no longer exists"), not left for a group that is gone.
            self.common.ready.signal(self.db, node.key());
        }
        Some(node)
    }

    /// Drops every key (FLUSHDB), returning how many there were.
    pub fn clear(&mut self) -> usize {
        let n = self.table.len();
        self.count_keys(-(n as i64));
        self.count_volatile(-(self.ttl.len() as i64));
        self.table.clear();
        self.ttl = Vec::new();
        self.hfe = IndexSet::default();
        self.types = [0; Value::TYPES];
        self.ledger.clear();
        let used = self.used;
        self.account(used, 0);
        n
    }

    /// Accounted size of a key's entry (`MEMORY USAGE`), without touching it.
    pub fn size_of(&mut self, key: &[u8], now_ms: u64) -> Option<usize> {
        let pos = self.find_live(key, now_ms)?;
        self.table.get(pos).map(node_size)
    }

    /// The slot of a key picked at random (for eviction and RANDOMKEY), from every key or
    /// only those with a TTL.
    pub fn sample(&self, volatile: bool) -> Option<usize> {
        if volatile {
            let r = self.common.random();
            let t = self.ttl.get((r % self.ttl.len().max(1) as u64) as usize)?;
            self.table.find_addr(t.hash, t.addr)
        } else {
            self.table.sample(|| self.common.random())
        }
    }

    /// The slot of a key, expired or not (eviction re-finding a sampled candidate).
    pub fn position(&self, key: &[u8]) -> Option<usize> {
        self.table.find(key)
    }

    /// The key and entry in a slot.
    pub fn at(&self, pos: usize) -> Option<(&[u8], Entry<'_>)> {
        self.table.get(pos).map(|n| (n.key(), Entry::of(n)))
    }

    /// Every key and entry, expired or not, in table order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], Entry<'_>)> + '_ {
        self.table.iter().map(|n| (n.key(), Entry::of(n)))
    }

    /// One SCAN step over this shard (see `Table::scan`).
    pub fn scan(&self, from: u64, budget: usize, mut visit: impl FnMut(&[u8], Entry<'_>)) -> (Option<u64>, usize) {
        self.table.scan(from, budget, |n| visit(n.key(), Entry::of(n)))
    }

    /// Visits the expiry time of up to `max` keys with a TTL: every one when there are no
    /// more, else a random sample (with replacement) of them (the TTL histogram).
    pub(crate) fn sample_expiries(&self, max: usize, mut visit: impl FnMut(u64)) {
        let n = self.ttl.len();
        for k in 0..n.min(max) {
            let i = if n <= max { k } else { (self.common.random() % n as u64) as usize };
            let t = self.ttl[i];
            if let Some(node) = self.table.find_addr(t.hash, t.addr).and_then(|pos| self.table.get(pos)) {
                visit(node.expire_at());
            }
        }
    }

    /// Active expiry: samples up to `count` keys with a TTL and deletes the stale ones.
    /// Returns (sampled, expired), and feeds the live ones' remaining TTLs to the
    /// database's average (INFO keyspace's `avg_ttl`).
    pub fn expire_sample(&mut self, count: usize, now_ms: u64) -> (usize, usize) {
        let mut sampled = 0;
        let mut expired = 0;
        let (mut ttl_sum, mut ttl_samples) = (0u64, 0u64);
        for _ in 0..count {
            let n = self.ttl.len();
            if n == 0 {
                break;
            }
            sampled += 1;
            let pick = (self.common.random() % n as u64) as usize;
            let t = self.ttl[pick];
            let Some(pos) = self.table.find_addr(t.hash, t.addr) else {
                // Cannot happen while the two are kept in step; heal rather than loop.
                self.ttl_unlink(Some(pick as u32));
                continue;
            };
            let expire_at = self.table.get(pos).map_or(0, |n| n.expire_at());
            if expire_at <= now_ms {
                self.expire_at_pos(pos, now_ms);
                expired += 1;
            } else {
                ttl_sum += expire_at - now_ms;
                ttl_samples += 1;
            }
        }
        if let Some(mean) = ttl_sum.checked_div(ttl_samples) {
            self.common.sampled_ttl(self.db, mean);
        }
        let (fields_sampled, fields_expired) = self.expire_fields_sample(count, now_ms);
        (sampled + fields_sampled, expired + fields_expired)
    }

    /// Active expiry of hash fields: samples up to `count` hashes with field TTLs and drops
    /// their expired fields. Returns (sampled, hashes that had expired fields).
    fn expire_fields_sample(&mut self, count: usize, now_ms: u64) -> (usize, usize) {
        let mut sampled = 0;
        let mut expired = 0;
        for _ in 0..count {
            let n = self.hfe.len();
            if n == 0 {
                break;
            }
            sampled += 1;
            let pick = (self.common.random() % n as u64) as usize;
            let Some(pos) = self.hfe.get_index(pick).and_then(|k| self.table.find(k)) else {
                // Cannot happen while the two are kept in step; heal rather than loop.
                if let Some(key) = self.hfe.get_index(pick).cloned() {
                    self.hfe_sync(&key, false);
                }
                continue;
            };
            if self.expire_fields_at(pos, now_ms).is_some() {
                expired += 1;
            }
        }
        (sampled, expired)
    }
}

/// Whether a value is a hash with fields that have a TTL.
fn has_field_ttls(value: ValueRef<'_>) -> bool {
    matches!(value, ValueRef::Hash(h) if h.has_field_ttls())
}
