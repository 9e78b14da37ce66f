//! Client-side caching (CLIENT TRACKING): which clients track, the keys they read (default
//! mode) and the prefixes they watch (BCAST), and the invalidation messages sent when one of
//! those keys changes, expires, is evicted or flushed. As in Redis the table is keyed by key
//! name alone (not by database), a key's entry is dropped once it has been invalidated, and
//! messages go through each receiver's outbox (`Client::push`), as pub/sub's do: a RESP3
//! `invalidate` push, or for a RESP2 client redirecting to a subscriber a message on
//! `__redis__:invalidate`. The table's lock is a leaf but for the registry and outboxes it
//! pushes to; the store only queues the keys it removes (`note_removed`), and dispatch sends
//! them once the command is done.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use indexmap::IndexMap;
use parking_lot::Mutex;
use smallvec::SmallVec;

use crate::clients::{Client, Clients};
use crate::config::BufferLimit;
use crate::stats::TrackingFigures;

/// `Client::tracking` bits, for CLIENT LIST's flags `t`, `R` and `B`.
pub const FLAG_ON: u8 = 1;
pub const FLAG_BROKEN_REDIRECT: u8 = 2;
pub const FLAG_BCAST: u8 = 4;

/// How a client tracks (CLIENT TRACKING ON's options).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Mode {
    pub bcast: bool,
    pub optin: bool,
    pub optout: bool,
    pub noloop: bool,
    /// The client id invalidations go to instead (0: this client).
    pub redirect: u64,
}

/// A session's side of tracking: its mode while on, CLIENT CACHING's flag for the next
/// command, and invalidations of keys it changed itself, sent after its reply (as Redis's
/// `tracking_pending_keys`; `None` is a flush).
#[derive(Default)]
pub struct SessionTracking {
    pub mode: Option<Mode>,
    pub caching: bool,
    pub(crate) deferred: Vec<Option<Box<[u8]>>>,
}

impl SessionTracking {
    /// Whether the keys a read runs now are remembered for this client: default mode, with
    /// OPTIN only after CLIENT CACHING YES and with OPTOUT unless after CLIENT CACHING NO.
    #[inline]
    pub fn remembers(&self) -> bool {
        match self.mode {
            // CACHING is YES after OPTIN's CLIENT CACHING YES, NO after OPTOUT's NO.
            Some(m) if !m.bcast => {
                if self.caching {
                    !m.optout
                } else {
                    !m.optin
                }
            }
            _ => false,
        }
    }
}

/// One tracking client in the table.
struct Tracker {
    client: Arc<Client>,
    mode: Mode,
    /// BCAST prefixes, in byte order (as CLIENT TRACKINGINFO lists them).
    prefixes: BTreeSet<Box<[u8]>>,
}

/// A BCAST prefix: its clients, and the keys under it changed since the last flush, each
/// with the id of the client that changed it last (0: the server), for NOLOOP.
#[derive(Default)]
struct Bcast {
    clients: BTreeSet<u64>,
    keys: IndexMap<Box<[u8]>, u64>,
}

#[derive(Default)]
struct Table {
    /// Keys read by default-mode clients, each with the ids of the clients that read it.
    keys: IndexMap<Box<[u8]>, SmallVec<[u64; 2]>, foldhash::fast::RandomState>,
    /// Client ids across `keys` (INFO's `tracking_total_items`).
    items: usize,
    prefixes: BTreeMap<Box<[u8]>, Bcast>,
    trackers: HashMap<u64, Tracker>,
    /// Keys the store removed (expired, evicted) or a blocked client's pop changed, not yet
    /// invalidated.
    removed: Vec<Box<[u8]>>,
    bcast_pending: bool,
    /// Rounds in a row `enforce_limit` ended still over the limit (Redis's effort grows).
    over_limit_rounds: usize,
    rng: u64,
}

/// What sending needs from the engine: the registry (a redirect target's connection) and
/// the output limits a receiver is held to.
pub(crate) struct Sender<'a> {
    pub clients: &'a Clients,
    pub normal: BufferLimit,
    pub pubsub: BufferLimit,
    pub now_ms: u64,
}

#[derive(Default)]
pub struct Tracking {
    /// Clients with tracking on: the hot path's only look at tracking while it is 0.
    clients: AtomicUsize,
    table: Mutex<Table>,
    /// Invalidation messages sent (flushes and broken-redirect notices included).
    sent: AtomicU64,
}

/// The payload of one message: keys, or the null a flush sends.
enum Payload<'a> {
    Keys(&'a [&'a [u8]]),
    Null,
}

impl Tracking {
    /// Whether any client tracks: one relaxed load.
    #[inline]
    pub fn any(&self) -> bool {
        self.clients.load(Relaxed) > 0
    }

    /// The prefix collision CLIENT TRACKING ... BCAST PREFIX refuses, as Redis words it: a
    /// new prefix that is a prefix of one the client has (or the other way), or two given
    /// prefixes that overlap.
    pub fn prefix_collision(&self, id: u64, new: &[&[u8]]) -> Option<String> {
        let overlap = |a: &[u8], b: &[u8]| {
            let n = a.len().min(b.len());
            a[..n] == b[..n]
        };
        let text = |b: &[u8]| String::from_utf8_lossy(crate::error::c_str(b, usize::MAX)).into_owned();
        let table = self.table.lock();
        let existing = table.trackers.get(&id).map(|t| &t.prefixes);
        for (i, p) in new.iter().enumerate() {
            if let Some(e) = existing.into_iter().flatten().find(|e| overlap(e, p)) {
                return Some(format!(
                    "ERR Prefix '{}' overlaps with an existing prefix '{}'. Prefixes for a single client must not overlap.",
                    text(p),
                    text(e)
                ));
            }
            if let Some(q) = new[i + 1..].iter().find(|q| overlap(p, q)) {
                return Some(format!(
                    "ERR Prefix '{}' overlaps with another provided prefix '{}'. Prefixes for a single client must not overlap.",
                    text(p),
                    text(q)
                ));
            }
        }
        None
    }

    /// Turns tracking on (or changes its options) for `client`; BCAST prefixes are added to
    /// those it has (none given: the empty prefix, every key).
    pub fn enable(&self, client: &Arc<Client>, mode: Mode, prefixes: &[&[u8]]) {
        let mut table = self.table.lock();
        let table = &mut *table;
        let tracker = table.trackers.entry(client.id).or_insert_with(|| {
            self.clients.fetch_add(1, Relaxed);
            Tracker { client: client.clone(), mode, prefixes: BTreeSet::new() }
        });
        tracker.mode = mode;
        if mode.bcast {
            let empty: &[&[u8]] = &[b""];
            for p in if prefixes.is_empty() { empty } else { prefixes } {
                if tracker.prefixes.insert((*p).into()) {
                    table.prefixes.entry((*p).into()).or_default().clients.insert(client.id);
                }
            }
        }
        let flags = FLAG_ON | if mode.bcast { FLAG_BCAST } else { 0 };
        client.tracking.store(flags, Relaxed);
        client.redirect.store(mode.redirect as i64, Relaxed);
    }

    /// Turns tracking off for client `id` (CLIENT TRACKING OFF, RESET, a closed connection).
    /// The keys it read stay in the table until they are invalidated, as in Redis, unless
    /// no client tracks any more: then the table is emptied.
    pub fn disable(&self, id: u64) {
        let mut table = self.table.lock();
        let Some(tracker) = table.trackers.remove(&id) else { return };
        for p in &tracker.prefixes {
            if let Some(b) = table.prefixes.get_mut(p) {
                b.clients.remove(&id);
                if b.clients.is_empty() {
                    table.prefixes.remove(p);
                }
            }
        }
        tracker.client.tracking.store(0, Relaxed);
        tracker.client.redirect.store(-1, Relaxed);
        if self.clients.fetch_sub(1, Relaxed) == 1 {
            let rng = table.rng;
            *table = Table { rng, ..Table::default() };
        }
    }

    /// A client's BCAST prefixes, in byte order (CLIENT TRACKINGINFO).
    pub fn prefixes_of(&self, id: u64) -> Vec<Vec<u8>> {
        self.describe(id).map(|(_, p)| p).unwrap_or_default()
    }

    /// A tracking client's mode and BCAST prefixes (the dashboard's Clients page).
    pub fn describe(&self, id: u64) -> Option<(Mode, Vec<Vec<u8>>)> {
        if !self.any() {
            return None;
        }
        let table = self.table.lock();
        let t = table.trackers.get(&id)?;
        Some((t.mode, t.prefixes.iter().map(|p| p.to_vec()).collect()))
    }

    /// Remembers that client `id` read `keys` (default mode).
    pub fn remember<'k>(&self, id: u64, keys: impl Iterator<Item = &'k [u8]>) {
        let mut table = self.table.lock();
        for key in keys {
            let ids = match table.keys.get_mut(key) {
                Some(ids) => ids,
                None => table.keys.entry(key.into()).or_default(),
            };
            if !ids.contains(&id) {
                ids.push(id);
                table.items += 1;
            }
        }
    }

    /// Queues a key the store removed on its own (an expiry, an eviction) or that changed
    /// outside a command's own write; `flush` invalidates it.
    pub fn note_removed(&self, key: &[u8]) {
        if self.any() {
            self.table.lock().removed.push(key.into());
        }
    }

    /// Invalidates `keys`, changed by client `by` (None: the server). Clients reading a key
    /// get one message each; one of `by`'s own goes into `deferred`, sent after its reply;
    /// NOLOOP clients get none of their own. BCAST prefixes collect the key for `flush`.
    pub(crate) fn invalidate<'k>(
        &self,
        keys: impl Iterator<Item = &'k [u8]>,
        by: Option<u64>,
        deferred: &mut Vec<Option<Box<[u8]>>>,
        send: &Sender<'_>,
    ) {
        let mut table = self.table.lock();
        for key in keys {
            self.invalidate_locked(&mut table, key, by, deferred, send);
        }
    }

    fn invalidate_locked(
        &self,
        table: &mut Table,
        key: &[u8],
        by: Option<u64>,
        deferred: &mut Vec<Option<Box<[u8]>>>,
        send: &Sender<'_>,
    ) {
        if !table.prefixes.is_empty() {
            for (p, b) in table.prefixes.iter_mut() {
                if key.starts_with(p) {
                    b.keys.insert(key.into(), by.unwrap_or(0));
                    table.bcast_pending = true;
                }
            }
        }
        let Some(ids) = table.keys.swap_remove(key) else { return };
        table.items -= ids.len();
        for id in ids {
            let Some(t) = table.trackers.get(&id) else { continue };
            if t.mode.bcast || (t.mode.noloop && by == Some(id)) {
                continue;
            }
            if by == Some(id) {
                deferred.push(Some(key.into()));
            } else {
                self.deliver(t, &Payload::Keys(&[key]), send);
            }
        }
    }

    /// FLUSHDB and FLUSHALL: every tracking client gets a null invalidation (the flushing
    /// one after its reply, through `deferred`) and the table is emptied.
    pub(crate) fn flush_all(&self, by: u64, deferred: &mut Vec<Option<Box<[u8]>>>, send: &Sender<'_>) {
        let mut table = self.table.lock();
        for (id, t) in &table.trackers {
            if *id == by {
                deferred.push(None);
            } else {
                self.deliver(t, &Payload::Null, send);
            }
        }
        table.keys.clear();
        table.items = 0;
    }

    /// Sends what a client's own command deferred (see `SessionTracking::deferred`).
    pub(crate) fn send_deferred(&self, id: u64, deferred: &mut Vec<Option<Box<[u8]>>>, send: &Sender<'_>) {
        let table = self.table.lock();
        let Some(t) = table.trackers.get(&id) else {
            deferred.clear();
            return;
        };
        for key in deferred.drain(..) {
            match key {
                Some(key) => self.deliver(t, &Payload::Keys(&[&key]), send),
                None => self.deliver(t, &Payload::Null, send),
            }
        }
    }

    /// Sends what waits: the keys the store removed, then each BCAST prefix's keys (one
    /// message per prefix and client, without a NOLOOP client's own keys), as Redis does
    /// before it sleeps.
    pub(crate) fn flush(&self, send: &Sender<'_>) {
        let mut table = self.table.lock();
        let table = &mut *table;
        if !table.removed.is_empty() {
            let removed = std::mem::take(&mut table.removed);
            let mut none = Vec::new();
            for key in &removed {
                self.invalidate_locked(table, key, None, &mut none, send);
            }
        }
        if !std::mem::take(&mut table.bcast_pending) {
            return;
        }
        for b in table.prefixes.values_mut() {
            if b.keys.is_empty() {
                continue;
            }
            let keys = std::mem::take(&mut b.keys);
            let all: Vec<&[u8]> = keys.keys().map(|k| &**k).collect();
            for id in &b.clients {
                let Some(t) = table.trackers.get(id) else { continue };
                if t.mode.noloop {
                    let theirs: Vec<&[u8]> = keys.iter().filter(|(_, by)| **by != *id).map(|(k, _)| &**k).collect();
                    if !theirs.is_empty() {
                        self.deliver(t, &Payload::Keys(&theirs), send);
                    }
                } else {
                    self.deliver(t, &Payload::Keys(&all), send);
                }
            }
        }
    }

    /// Keeps the table at `tracking-table-max-keys` (0: unbounded) by invalidating keys at
    /// random, with Redis's effort: 100 keys a round more for each round in a row that ended
    /// still over the limit.
    pub(crate) fn enforce_limit(&self, max_keys: u64, send: &Sender<'_>) {
        if max_keys == 0 {
            return;
        }
        let mut table = self.table.lock();
        let table = &mut *table;
        if table.keys.len() as u64 <= max_keys {
            table.over_limit_rounds = 0;
            return;
        }
        let effort = 100 * (table.over_limit_rounds + 1);
        let mut none = Vec::new();
        for _ in 0..effort {
            if table.keys.len() as u64 <= max_keys {
                table.over_limit_rounds = 0;
                return;
            }
            // xorshift: a key at random, without a dependency for it.
            let mut x = table.rng | 1;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            table.rng = x;
            let i = (x % table.keys.len() as u64) as usize;
            let Some(key) = table.keys.get_index(i).map(|(k, _)| k.clone()) else { break };
            self.invalidate_locked(table, &key, None, &mut none, send);
        }
        if table.keys.len() as u64 > max_keys {
            table.over_limit_rounds += 1;
        }
    }

    /// INFO's and the snapshot's figures.
    pub fn figures(&self) -> TrackingFigures {
        let table = self.table.lock();
        TrackingFigures {
            clients: self.clients.load(Relaxed) as u64,
            keys: table.keys.len() as u64,
            items: table.items as u64,
            prefixes: table.prefixes.len() as u64,
            invalidations: self.sent.load(Relaxed),
        }
    }

    /// Seeds the random walk of `enforce_limit`.
    pub fn seed(&self, seed: u64) {
        self.table.lock().rng = seed;
    }

    /// Sends one message for tracker `t`: to its redirect target if it has one (a gone
    /// target marks it broken and, over RESP3, tells it so), as a RESP3 push, or as a
    /// `__redis__:invalidate` message to a RESP2 redirect target that subscribes (else
    /// nothing: RESP2 has no pushes on the client's own connection).
    fn deliver(&self, t: &Tracker, payload: &Payload<'_>, send: &Sender<'_>) {
        let redirect = t.mode.redirect;
        let target = if redirect != 0 {
            match send.clients.get(redirect) {
                Some(c) => c,
                None => {
                    t.client.tracking.fetch_or(FLAG_BROKEN_REDIRECT, Relaxed);
                    if t.client.resp.load(Relaxed) == 3 {
                        let msg = format!(">2\r\n$21\r\ntracking-redir-broken\r\n:{redirect}\r\n");
                        self.push(&t.client, msg.as_bytes(), send);
                    }
                    return;
                }
            }
        } else {
            t.client.clone()
        };
        let resp3 = target.resp.load(Relaxed) == 3;
        let mut msg = Vec::with_capacity(64);
        if resp3 {
            msg.extend_from_slice(b">2\r\n$10\r\ninvalidate\r\n");
        } else if redirect != 0 && target.is_subscriber() {
            msg.extend_from_slice(b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n");
        } else {
            return;
        }
        match payload {
            // Null as the receiver's protocol writes it (Redis writes the tracking client's,
            // which a RESP2 receiver of a RESP3 client could not parse).
            Payload::Null => msg.extend_from_slice(if resp3 { b"_\r\n" } else { b"$-1\r\n" }),
            Payload::Keys(keys) => {
                msg.extend_from_slice(format!("*{}\r\n", keys.len()).as_bytes());
                for k in keys.iter() {
                    msg.extend_from_slice(format!("${}\r\n", k.len()).as_bytes());
                    msg.extend_from_slice(k);
                    msg.extend_from_slice(b"\r\n");
                }
            }
        }
        self.push(&target, &msg, send);
    }

    fn push(&self, to: &Client, msg: &[u8], send: &Sender<'_>) {
        let limit = if to.is_subscriber() { send.pubsub } else { send.normal };
        if to.push(msg, limit, send.now_ms) {
            self.sent.fetch_add(1, Relaxed);
        }
    }
}
