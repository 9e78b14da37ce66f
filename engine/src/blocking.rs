//! Blocking list commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH): clients waiting for data, and
//! serving them when it arrives, with Redis's semantics and no threads or clock of our own.
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
use crate::cmd::list;
use crate::engine::{Engine, Session};
use crate::reply::Reply;
use crate::store::ready::ReadyKeys;

/// What a blocked command waits for (`Session::blocked`).
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    /// The command as it was sent.
    pub argv: Vec<Vec<u8>>,
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
    /// BLMOVE / BRPOPLPUSH: pop from the source and push onto `dst`; the reply is the element.
    Move { dst: Vec<u8>, from_left: bool, to_left: bool },
}

/// A registered waiter.
struct Waiter {
    ticket: u64,
    keys: Vec<Vec<u8>>,
    op: BlockOp,
    client: Arc<Client>,
}

#[derive(Default)]
struct Inner {
    /// Waiting client ids per key, longest waiting first.
    by_key: HashMap<Vec<u8>, VecDeque<u64>>,
    waiters: HashMap<u64, Waiter>,
    /// Replies of clients served and not yet told (their connection was woken).
    served: HashMap<u64, Reply>,
}

impl Inner {
    fn head(&self, key: &[u8]) -> Option<(u64, &Waiter)> {
        let id = *self.by_key.get(key)?.front()?;
        self.waiters.get(&id).map(|w| (id, w))
    }

    fn remove(&mut self, id: u64) -> Option<Waiter> {
        let waiter = self.waiters.remove(&id)?;
        for key in &waiter.keys {
            if let Some(queue) = self.by_key.get_mut(key) {
                queue.retain(|&w| w != id);
                if queue.is_empty() {
                    self.by_key.remove(key);
                }
            }
        }
        Some(waiter)
    }
}

/// The clients blocked right now, by key.
#[derive(Default)]
pub(crate) struct Registry {
    inner: Mutex<Inner>,
    tickets: AtomicU64,
}

impl Registry {
    /// How many clients are blocked (INFO's `blocked_clients`).
    pub(crate) fn len(&self) -> usize {
        self.inner.lock().waiters.len()
    }

    fn register(&self, ready: &ReadyKeys, client: Arc<Client>, blocked: &Blocked) {
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
                inner.by_key.entry(key.clone()).or_default().push_back(id);
            }
        }
        inner.waiters.insert(id, Waiter { ticket, keys, op: blocked.op.clone(), client });
        ready.add_waiting();
    }

    /// Forgets client `id`: its registration, or the reply it was served and not yet told.
    fn forget(&self, ready: &ReadyKeys, id: u64) -> Forgotten {
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

    fn take_served(&self, id: u64) -> Option<Reply> {
        let mut inner = self.inner.lock();
        if inner.served.is_empty() {
            return None;
        }
        inner.served.remove(&id)
    }
}

enum Forgotten {
    Waiting,
    Served(Reply),
    Unknown,
}

impl Engine {
    /// Called by `feed` when its command has just blocked: registers the session, then looks
    /// at its keys once more (data may have arrived since the handler looked). Returns true
    /// when it was served at once; the reply is then in `out` and the session unblocked.
    pub(crate) fn block(&self, session: &mut Session, out: &mut Vec<u8>, now_ms: u64) -> bool {
        let Some(blocked) = &session.blocked else { return false };
        let ready = &self.store.common.ready;
        self.blocking.register(ready, session.client.clone(), blocked);
        let keys = blocked.keys.clone();
        self.serve_keys(keys, now_ms);
        self.take_served(session, out)
    }

    /// For a blocked session whose connection was woken: when a key it waits on has received
    /// data, its reply (served in FIFO order among the clients waiting on that key) goes to
    /// `out`, the session is unblocked and this answers true. Otherwise it stays blocked and
    /// this answers false. The host then feeds the commands it held back.
    pub fn retry_blocked(&self, session: &mut Session, out: &mut Vec<u8>, now_ms: u64) -> bool {
        let Some(keys) = session.blocked.as_ref().map(|b| b.keys.clone()) else { return false };
        if self.take_served(session, out) {
            return true;
        }
        // Nothing served yet: look again, in case the wake-up came before the serving (or
        // the host calls this without being woken). Serving stays first come, first served.
        self.serve_keys(keys, now_ms);
        self.take_served(session, out)
    }

    /// For a blocked session whose deadline has passed: unblocks it with the null reply
    /// (`*-1` in RESP2, `_` in RESP3), or with the data it was served if that came first.
    pub fn unblock_timeout(&self, session: &mut Session, out: &mut Vec<u8>) {
        if session.blocked.take().is_none() {
            return;
        }
        let reply = match self.blocking.forget(&self.store.common.ready, session.id()) {
            Forgotten::Served(reply) => reply,
            Forgotten::Waiting | Forgotten::Unknown => Reply::NilArray,
        };
        reply.encode(session.resp3, out);
    }

    /// A closing session stops waiting (a reply served to it and not yet sent is dropped).
    pub(crate) fn forget_blocked(&self, session: &Session) {
        if self.store.common.ready.any_waiting() || session.blocked.is_some() {
            self.blocking.forget(&self.store.common.ready, session.id());
        }
    }

    /// How many clients are blocked.
    pub fn blocked_clients(&self) -> usize {
        if self.store.common.ready.any_waiting() {
            self.blocking.len()
        } else {
            0
        }
    }

    /// Serves the clients waiting on keys that received data (called after every command;
    /// one atomic load when nothing is pending).
    pub(crate) fn serve_ready(&self, now_ms: u64) {
        let ready = &self.store.common.ready;
        if ready.has_pending() {
            let keys = ready.take();
            self.serve_keys(keys, now_ms);
        }
    }

    fn take_served(&self, session: &mut Session, out: &mut Vec<u8>) -> bool {
        match self.blocking.take_served(session.id()) {
            Some(reply) => {
                session.blocked = None;
                reply.encode(session.resp3, out);
                true
            }
            None => false,
        }
    }

    /// Serves the waiters of `keys`, and of any key that serving itself fills (a BLMOVE
    /// pushing onto a list that others wait on).
    fn serve_keys(&self, mut keys: Vec<Vec<u8>>, now_ms: u64) {
        let ready = &self.store.common.ready;
        loop {
            for key in &keys {
                self.serve_key(key, now_ms);
            }
            if !ready.has_pending() {
                return;
            }
            keys = ready.take();
        }
    }

    /// Serves the clients waiting on `key`, longest waiting first, while it holds data.
    fn serve_key(&self, key: &[u8], now_ms: u64) {
        loop {
            // Who is first, and which shards serving it needs (a move's destination too).
            let (id, ticket, dst) = {
                let inner = self.blocking.inner.lock();
                let Some((id, waiter)) = inner.head(key) else { return };
                let dst = match &waiter.op {
                    BlockOp::Move { dst, .. } => Some(dst.clone()),
                    BlockOp::Pop { .. } => None,
                };
                (id, waiter.ticket, dst)
            };
            let keys = std::iter::once(key).chain(dst.as_deref());
            let mut db = self.store.lock_keys(keys);
            let mut inner = self.blocking.inner.lock();
            // Still first in line and the same registration? (It may have timed out, or
            // been served from another key, while nothing was locked.)
            match inner.head(key) {
                Some((head, waiter)) if head == id && waiter.ticket == ticket => {}
                _ => continue,
            }
            let Some(waiter) = inner.waiters.get(&id) else { continue };
            let Some(reply) = list::serve_blocked(self, &mut db, key, &waiter.op, now_ms) else {
                // The key holds no list data (anymore): the rest keep waiting.
                return;
            };
            if !reply.is_error() && self.propagation().enabled() {
                // Logged as the non-blocking command that has the same effect.
                let side = |left: bool| if left { "LEFT" } else { "RIGHT" };
                match &waiter.op {
                    BlockOp::Pop { left } => {
                        self.propagation().append(&[if *left { &b"LPOP"[..] } else { b"RPOP" }, key]);
                    }
                    BlockOp::Move { dst, from_left, to_left } => self.propagation().append(&[
                        &b"LMOVE"[..],
                        key,
                        dst,
                        side(*from_left).as_bytes(),
                        side(*to_left).as_bytes(),
                    ]),
                }
            }
            if !reply.is_error() {
                // Keys changed outside any command's own write: WATCH must still see them.
                self.store.watches.touch(key);
                if let Some(dst) = &dst {
                    self.store.watches.touch(dst);
                }
            }
            if let Some(waiter) = inner.remove(id) {
                self.store.common.ready.remove_waiting();
                inner.served.insert(id, reply);
                waiter.client.wake();
            }
        }
    }
}
