//! Pub/sub delivery and each session's [`Subscriptions`]: which clients are subscribed to
//! which channels, patterns and shard channels (a namespace of their own, as in Redis 7:
//! SPUBLISH reaches only SSUBSCRIBE's subscribers, PUBLISH never them), and the fan-out. A message is encoded once per protocol, appended to each receiver's
//! outbox (`Client::push`, which enforces the pubsub output buffer limit) and the receiver's
//! connection is woken to send it. The registry's locks are leaves: nothing is locked while
//! they are held except a receiver's outbox.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use indexmap::{IndexMap, IndexSet};
use parking_lot::RwLock;

use crate::clients::Client;
use crate::config::BufferLimit;
use crate::glob;
use crate::reply::Reply;
use crate::session::Session;

/// A session's channels and patterns, in subscription order.
#[derive(Default)]
pub struct Subscriptions {
    pub channels: IndexSet<Vec<u8>>,
    pub patterns: IndexSet<Vec<u8>>,
    pub shard_channels: IndexSet<Vec<u8>>,
}

impl Subscriptions {
    /// Subscribed to anything, shard channels included (Redis's `CLIENT_PUBSUB` context).
    pub fn any(&self) -> bool {
        !self.channels.is_empty() || !self.patterns.is_empty() || !self.shard_channels.is_empty()
    }

    /// The count (P)SUBSCRIBE's and (P)UNSUBSCRIBE's confirmations report: channels plus
    /// patterns, shard channels not counted (as Redis 7).
    pub(crate) fn count(&self) -> i64 {
        (self.channels.len() + self.patterns.len()) as i64
    }

    /// The count SSUBSCRIBE's and SUNSUBSCRIBE's confirmations report: shard channels only.
    pub(crate) fn shard_count(&self) -> i64 {
        self.shard_channels.len() as i64
    }
}

/// Subscribers of one channel or pattern, by client id, in subscription order.
type Subscribers = IndexMap<u64, Arc<Client>, foldhash::fast::RandomState>;

#[derive(Default)]
pub struct PubSub {
    channels: RwLock<HashMap<Box<[u8]>, Subscribers>>,
    patterns: RwLock<IndexMap<Box<[u8]>, Subscribers>>,
    shard_channels: RwLock<HashMap<Box<[u8]>, Subscribers>>,
}

/// Adds `client` to `name`'s subscribers.
fn add<M: MapLike>(map: &mut M, name: &[u8], client: &Arc<Client>) {
    map.subscribers(name).insert(client.id, client.clone());
}

/// The two maps differ only in their type; this keeps `add` and `remove` shared.
trait MapLike {
    fn subscribers(&mut self, name: &[u8]) -> &mut Subscribers;
    fn remove_client(&mut self, name: &[u8], id: u64);
}

impl MapLike for HashMap<Box<[u8]>, Subscribers> {
    fn subscribers(&mut self, name: &[u8]) -> &mut Subscribers {
        self.entry(name.into()).or_default()
    }
    fn remove_client(&mut self, name: &[u8], id: u64) {
        if let Some(subs) = self.get_mut(name) {
            subs.shift_remove(&id);
            if subs.is_empty() {
                self.remove(name);
            }
        }
    }
}

impl MapLike for IndexMap<Box<[u8]>, Subscribers> {
    fn subscribers(&mut self, name: &[u8]) -> &mut Subscribers {
        self.entry(name.into()).or_default()
    }
    fn remove_client(&mut self, name: &[u8], id: u64) {
        if let Some(subs) = self.get_mut(name) {
            subs.shift_remove(&id);
            if subs.is_empty() {
                self.shift_remove(name);
            }
        }
    }
}

/// A message encoded lazily for each protocol, so a fan-out encodes it at most twice.
struct Encoded<'a> {
    parts: [&'a [u8]; 4],
    len: usize,
    resp2: Option<Vec<u8>>,
    resp3: Option<Vec<u8>>,
}

impl<'a> Encoded<'a> {
    fn new(parts: &[&'a [u8]]) -> Encoded<'a> {
        let mut all: [&[u8]; 4] = [&[]; 4];
        all[..parts.len()].copy_from_slice(parts);
        Encoded { parts: all, len: parts.len(), resp2: None, resp3: None }
    }

    fn bytes(&mut self, resp3: bool) -> &[u8] {
        let parts = &self.parts[..self.len];
        let slot = if resp3 { &mut self.resp3 } else { &mut self.resp2 };
        slot.get_or_insert_with(|| Reply::Push(parts.iter().map(Reply::bulk).collect()).to_resp(resp3))
    }
}

impl PubSub {
    pub fn subscribe(&self, channel: &[u8], client: &Arc<Client>) {
        add(&mut *self.channels.write(), channel, client);
    }

    pub fn unsubscribe(&self, channel: &[u8], id: u64) {
        self.channels.write().remove_client(channel, id);
    }

    pub fn ssubscribe(&self, channel: &[u8], client: &Arc<Client>) {
        add(&mut *self.shard_channels.write(), channel, client);
    }

    pub fn sunsubscribe(&self, channel: &[u8], id: u64) {
        self.shard_channels.write().remove_client(channel, id);
    }

    pub fn psubscribe(&self, pattern: &[u8], client: &Arc<Client>) {
        add(&mut *self.patterns.write(), pattern, client);
    }

    pub fn punsubscribe(&self, pattern: &[u8], id: u64) {
        self.patterns.write().remove_client(pattern, id);
    }

    /// Takes a closing session out of every channel and pattern it subscribed to.
    pub fn forget(&self, session: &Session) {
        let id = session.id();
        if !session.subs.channels.is_empty() {
            let mut channels = self.channels.write();
            for c in &session.subs.channels {
                channels.remove_client(c, id);
            }
        }
        if !session.subs.patterns.is_empty() {
            let mut patterns = self.patterns.write();
            for p in &session.subs.patterns {
                patterns.remove_client(p, id);
            }
        }
        if !session.subs.shard_channels.is_empty() {
            let mut channels = self.shard_channels.write();
            for c in &session.subs.shard_channels {
                channels.remove_client(c, id);
            }
        }
    }

    /// Whether `denied(name, is_pattern)` holds for any channel, shard channel or pattern the
    /// client `id` is subscribed to (ACL SETUSER narrowing a user's channels walks these).
    #[allow(dead_code)] // Through `Engine::acl_set_user`, which ACL SETUSER calls.
    pub(crate) fn any_subscription(&self, id: u64, mut denied: impl FnMut(&[u8], bool) -> bool) -> bool {
        self.patterns.read().iter().any(|(p, subs)| subs.contains_key(&id) && denied(p, true))
            || self.channels.read().iter().any(|(c, subs)| subs.contains_key(&id) && denied(c, false))
            || self.shard_channels.read().iter().any(|(c, subs)| subs.contains_key(&id) && denied(c, false))
    }

    /// Delivers `message` to the subscribers of `channel` and of every pattern that matches
    /// it; answers how many deliveries were made (a client subscribed both ways counts
    /// twice, as in Redis). A receiver over its output limit is disconnected instead.
    pub fn publish(&self, channel: &[u8], message: &[u8], limit: BufferLimit, now_ms: u64) -> usize {
        let mut delivered = deliver(&self.channels.read(), b"message", channel, message, limit, now_ms);
        let patterns = self.patterns.read();
        for (pattern, subs) in patterns.iter() {
            if !glob::matches(pattern, channel) {
                continue;
            }
            let mut msg = Encoded::new(&[b"pmessage", pattern, channel, message]);
            for client in subs.values() {
                delivered += client.push(msg.bytes(client.resp.load(Relaxed) == 3), limit, now_ms) as usize;
            }
        }
        delivered
    }

    /// Delivers `message` to the subscribers of shard channel `channel` (SPUBLISH), as
    /// `smessage`; answers how many received it.
    pub fn spublish(&self, channel: &[u8], message: &[u8], limit: BufferLimit, now_ms: u64) -> usize {
        deliver(&self.shard_channels.read(), b"smessage", channel, message, limit, now_ms)
    }

    /// Channels (`shard`: shard channels) with at least one subscriber, matching `pattern`
    /// when given (PUBSUB CHANNELS, SHARDCHANNELS). A killed client (on its way out, e.g.
    /// over its output limit) no longer counts.
    pub fn channels(&self, shard: bool, pattern: Option<&[u8]>) -> Vec<Vec<u8>> {
        let map = if shard { &self.shard_channels } else { &self.channels };
        map.read()
            .iter()
            .filter(|(c, subs)| subs.values().any(|s| !s.is_killed()) && pattern.is_none_or(|p| glob::matches(p, c)))
            .map(|(c, _)| c.to_vec())
            .collect()
    }

    /// Subscribers of a channel (`shard`: a shard channel), patterns not counted (PUBSUB
    /// NUMSUB, SHARDNUMSUB).
    pub fn numsub(&self, shard: bool, channel: &[u8]) -> usize {
        let map = if shard { &self.shard_channels } else { &self.channels };
        map.read().get(channel).map_or(0, |subs| subs.values().filter(|s| !s.is_killed()).count())
    }

    /// Distinct patterns with at least one subscriber (PUBSUB NUMPAT).
    pub fn numpat(&self) -> usize {
        self.patterns.read().len()
    }
}

/// Sends `[kind, channel, message]` to each subscriber of `channel` in `map`; answers how
/// many received it (a receiver over its output limit is disconnected instead).
fn deliver(
    map: &HashMap<Box<[u8]>, Subscribers>,
    kind: &[u8],
    channel: &[u8],
    message: &[u8],
    limit: BufferLimit,
    now_ms: u64,
) -> usize {
    let Some(subs) = map.get(channel) else { return 0 };
    let mut msg = Encoded::new(&[kind, channel, message]);
    subs.values().map(|client| client.push(msg.bytes(client.resp.load(Relaxed) == 3), limit, now_ms) as usize).sum()
}
