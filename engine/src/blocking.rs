//! Blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP; BZPOPMIN, BZPOPMAX, BZMPOP; XREAD): the registry of clients waiting
//! for data, with Redis's semantics and no threads or clock of our own. Serving them is
//! dispatch's (`engine/blocked.rs`, which pops through `cmd::list::serve_blocked`): this
//! service layer imports no command family and no `Engine`.
//!
//! How a client blocks: the command's handler finds every key missing, records what it
//! waits for in `Session::blocked` and answers a placeholder. `Engine::feed` (a real
//! connection) then registers the client here, in FIFO order per key, and stops running that
//! connection's pipelined commands; `Engine::call` (console, playground) and commands inside
//! EXEC drop the record and answer the placeholder at once, as Redis does inside MULTI.
//!
//! How it is served, as Redis's `handleClientsBlockedOnKeys`: a shard that creates a list
//! while anyone waits signals the key (`store::ready`). After each command the engine takes
//! the signalled keys and, for each, serves its waiters first come first served: it locks the
//! key's shard (and a BLMOVE's destination), pops on the waiter's behalf, keeps the reply
//! for it and wakes its connection through the client's waker. The connection's host then
//! calls `Engine::retry_blocked`, which hands the reply over; or, when the deadline it keeps
//! passes first, `Engine::unblock_timeout`. Serving happens before the writing command's
//! reply is sent, so a pushed element goes to the longest-waiting client, not to whoever
//! asks next.
//!
//! Lock order: shards, then this registry, then the ready keys; the registry is never held
//! while a shard is locked by the same thread afterwards.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::clients::Client;
use crate::reply::Reply;
use crate::store::ready::ReadyKeys;

/// What a blocked command waits for (`Session::blocked`).
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    /// The command as it was sent.
    pub argv: Vec<Vec<u8>>,
    /// The database its keys are in (the session's when it blocked).
    pub db: usize,
    /// The keys it waits on, in the order given.
    pub keys: Vec<Vec<u8>>,
    /// When it gives up (unix ms); `None` waits for ever.
    pub deadline_ms: Option<u64>,
    /// What to do once a key has data.
    pub op: BlockOp,
}

/// The work a blocked command does once one of its keys has data.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockOp {
    /// BLPOP / BRPOP: pop from the head (`left`) or the tail; the reply is `[key, element]`.
    Pop { left: bool },
    /// BLMPOP: pop up to `count` from the head (`left`) or the tail; the reply is
    /// `[key, [element ...]]`.
    MPop { left: bool, count: usize },
    /// BZPOPMIN / BZPOPMAX (`flat`: `[key, member, score]`) and BZMPOP (`[key, [[member,
    /// score] ...]]`): pop up to `count` of the highest (`max`) or lowest scored members.
    ZPop { max: bool, count: usize, flat: bool },
    /// BLMOVE / BRPOPLPUSH: pop from the source and push onto `dst`; the reply is the element.
    Move { dst: Vec<u8>, from_left: bool, to_left: bool },
    /// XREAD BLOCK: for each key, the ID it reads after (`$` already resolved to the stream's
    /// last ID when it blocked); up to `count` entries (0 = all) of the first key to get some.
    /// The reply is `[[key, entries]]`, or in RESP3 (`resp3`, the protocol when it blocked)
    /// `{key: entries}`.
    XRead { after: Vec<(Vec<u8>, crate::store::stream::StreamId)>, count: usize, resp3: bool },
    /// XREADGROUP with `>`: deliver up to `count` (0 = all) new entries to `consumer` of
    /// `group`; the reply is `[[key, entries]]` (a map in RESP3, hence `resp3`).
    XReadGroup { group: Vec<u8>, consumer: Vec<u8>, count: usize, noack: bool, resp3: bool },
}

/// A registered waiter.
pub(crate) struct Waiter {
    pub(crate) ticket: u64,
    db: usize,
    keys: Vec<Vec<u8>>,
    pub(crate) op: BlockOp,
    pub(crate) client: Arc<Client>,
    /// It gives up at a deadline (Redis keeps such clients in its timeout table).
    timed: bool,
}

#[derive(Default)]
pub(crate) struct Inner {
    /// Waiting client ids per database and key, longest waiting first.
    by_key: HashMap<(usize, Vec<u8>), VecDeque<u64>>,
    pub(crate) waiters: HashMap<u64, Waiter>,
    /// Replies of clients served and not yet told (their connection was woken).
    pub(crate) served: HashMap<u64, Reply>,
}

impl Inner {
    /// The `nth` client waiting on `key` of `db` (0 = the longest waiting).
    pub(crate) fn nth(&self, db: usize, key: &[u8], nth: usize) -> Option<(u64, &Waiter)> {
        let id = *self.by_key.get(&(db, key.to_vec()))?.get(nth)?;
        self.waiters.get(&id).map(|w| (id, w))
    }

    pub(crate) fn remove(&mut self, id: u64) -> Option<Waiter> {
        let waiter = self.waiters.remove(&id)?;
        for key in &waiter.keys {
            let entry = (waiter.db, key.clone());
            if let Some(queue) = self.by_key.get_mut(&entry) {
                queue.retain(|&w| w != id);
                if queue.is_empty() {
                    self.by_key.remove(&entry);
                }
            }
        }
        Some(waiter)
    }
}

/// The clients blocked right now, by key.
#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) inner: Mutex<Inner>,
    tickets: AtomicU64,
}

impl Registry {
    /// How many clients are blocked (INFO's `blocked_clients`).
    pub(crate) fn len(&self) -> usize {
        self.inner.lock().waiters.len()
    }

    /// How many of them wait with a timeout (INFO's `clients_in_timeout_table`).
    pub(crate) fn with_timeout(&self) -> usize {
        self.inner.lock().waiters.values().filter(|w| w.timed).count()
    }

    /// Every (database, key) some client waits on.
    pub(crate) fn waited_keys(&self) -> Vec<(usize, Vec<u8>)> {
        self.inner.lock().by_key.keys().cloned().collect()
    }

    pub(crate) fn register(&self, ready: &ReadyKeys, client: Arc<Client>, blocked: &Blocked) {
        let id = client.id;
        let ticket = self.tickets.fetch_add(1, Relaxed);
        let mut inner = self.inner.lock();
        if inner.remove(id).is_some() {
            ready.remove_waiting();
        }
        inner.served.remove(&id);
        let mut keys: Vec<Vec<u8>> = Vec::with_capacity(blocked.keys.len());
        for key in &blocked.keys {
            // BLPOP k k waits once on k.
            if !keys.contains(key) {
                keys.push(key.clone());
                inner.by_key.entry((blocked.db, key.clone())).or_default().push_back(id);
            }
        }
        inner.waiters.insert(
            id,
            Waiter {
                ticket,
                db: blocked.db,
                keys,
                op: blocked.op.clone(),
                client,
                timed: blocked.deadline_ms.is_some(),
            },
        );
        ready.add_waiting();
    }

    /// Forgets client `id`: its registration, or the reply it was served and not yet told.
    pub(crate) fn forget(&self, ready: &ReadyKeys, id: u64) -> Forgotten {
        let mut inner = self.inner.lock();
        if inner.remove(id).is_some() {
            ready.remove_waiting();
            return Forgotten::Waiting;
        }
        match inner.served.remove(&id) {
            Some(reply) => Forgotten::Served(reply),
            None => Forgotten::Unknown,
        }
    }

    /// Ends client `id`'s wait with `reply` (CLIENT UNBLOCK), as if it had been served:
    /// its connection is woken and hands the reply over. False when it was not waiting.
    pub(crate) fn unblock(&self, ready: &ReadyKeys, id: u64, reply: Reply) -> bool {
        let mut inner = self.inner.lock();
        let Some(waiter) = inner.remove(id) else { return false };
        ready.remove_waiting();
        inner.served.insert(id, reply);
        drop(inner);
        waiter.client.wake();
        true
    }

    pub(crate) fn take_served(&self, id: u64) -> Option<Reply> {
        let mut inner = self.inner.lock();
        if inner.served.is_empty() {
            return None;
        }
        inner.served.remove(&id)
    }
}

pub(crate) enum Forgotten {
    Waiting,
    Served(Reply),
    Unknown,
}
