//! Serving blocked clients (see `crate::blocking` for the semantics): dispatch's part, as it
//! locks shards, pops through the list and sorted set families (`cmd::list::serve_blocked`,
//! `cmd::zset::serve_blocked`) and reads streams (`cmd::stream::serve_blocked`) and logs to the propagation, none of which the blocking
//! registry below may import.

use crate::blocking::{BlockOp, Forgotten};
use crate::cmd;
use crate::engine::Engine;
use crate::propagate::popped_from;
use crate::reply::Reply;
use crate::session::Session;

impl Engine {
    /// Called by `feed` when its command has just blocked: registers the session, then looks
    /// at its keys once more (data may have arrived since the handler looked). Returns true
    /// when it was served at once; the reply is then in `out` and the session unblocked.
    pub(crate) fn block(&self, session: &mut Session, out: &mut Vec<u8>, now_ms: u64) -> bool {
        let Some(blocked) = &session.blocked else { return false };
        let ready = &self.store.common.ready;
        self.blocking.register(ready, session.client.clone(), blocked);
        let keys = blocked.keys.iter().map(|k| (blocked.db, k.clone())).collect();
        self.serve_keys(keys, now_ms);
        self.take_served(session, out)
    }

    /// For a blocked session whose connection was woken: when a key it waits on has received
    /// data, its reply (served in FIFO order among the clients waiting on that key) goes to
    /// `out`, the session is unblocked and this answers true. Otherwise it stays blocked and
    /// this answers false. The host then feeds the commands it held back.
    pub fn retry_blocked(&self, session: &mut Session, out: &mut Vec<u8>, now_ms: u64) -> bool {
        let Some(keys) = session.blocked.as_ref().map(|b| b.keys.iter().map(|k| (b.db, k.clone())).collect()) else {
            return false;
        };
        if self.take_served(session, out) {
            return true;
        }
        // Nothing served yet: look again, in case the wake-up came before the serving (or
        // the host calls this without being woken). Serving stays first come, first served.
        // Serving writes (BLMOVE's destination), with this engine's encoding thresholds.
        self.config().encodings().enter();
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
        session.send(&reply, out);
    }

    /// CLIENT UNBLOCK: ends client `id`'s wait, with the reply a timeout gives or with
    /// Redis's UNBLOCKED error. False when that client is not blocked.
    pub(crate) fn unblock_client(&self, id: u64, error: bool) -> bool {
        let reply =
            if error { Reply::Error("UNBLOCKED client unblocked via CLIENT UNBLOCK".into()) } else { Reply::NilArray };
        self.blocking.unblock(&self.store.common.ready, id, reply)
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

    /// How many blocked clients wait with a timeout (Redis's `clients_in_timeout_table`).
    pub fn blocked_clients_with_timeout(&self) -> usize {
        if self.store.common.ready.any_waiting() {
            self.blocking.with_timeout()
        } else {
            0
        }
    }

    /// Has every client blocked on a key of one of `dbs` look at it again after the current
    /// command (SWAPDB brought other keys under those names).
    pub(crate) fn recheck_blocked(&self, dbs: &[usize]) {
        let ready = &self.store.common.ready;
        if !ready.any_waiting() {
            return;
        }
        for (db, key) in self.blocking.waited_keys() {
            if dbs.contains(&db) {
                ready.signal(db, &key);
            }
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
                session.send(&reply, out);
                true
            }
            None => false,
        }
    }

    /// Serves the waiters of `keys`, and of any key that serving itself fills (a BLMOVE
    /// pushing onto a list that others wait on).
    pub(crate) fn serve_keys(&self, mut keys: Vec<(usize, Vec<u8>)>, now_ms: u64) {
        let ready = &self.store.common.ready;
        loop {
            for (db, key) in &keys {
                self.serve_key(*db, key, now_ms);
            }
            if !ready.has_pending() {
                return;
            }
            keys = ready.take();
        }
    }

    /// Serves the clients waiting on `key`, longest waiting first, while it holds data. A
    /// client waiting for another type (a BLPOP on a key that became a sorted set) is passed
    /// over, as Redis serves only the clients blocked for the key's type.
    fn serve_key(&self, db_index: usize, key: &[u8], now_ms: u64) {
        // Waiters passed over: they stay first in line for when the key holds their type.
        let mut skip = 0;
        loop {
            // Who is first, and which shards serving it needs (a move's destination too).
            let (id, ticket, dst) = {
                let inner = self.blocking.inner.lock();
                let Some((id, waiter)) = inner.nth(db_index, key, skip) else { return };
                let dst = match &waiter.op {
                    BlockOp::Move { dst, .. } => Some(dst.clone()),
                    BlockOp::Pop { .. }
                    | BlockOp::MPop { .. }
                    | BlockOp::ZPop { .. }
                    | BlockOp::XRead { .. }
                    | BlockOp::XReadGroup { .. } => None,
                };
                (id, waiter.ticket, dst)
            };
            let keys = std::iter::once(key).chain(dst.as_deref());
            let mut db = self.store.lock_keys(db_index, keys);
            let mut inner = self.blocking.inner.lock();
            // Still first in line and the same registration? (It may have timed out, or
            // been served from another key, while nothing was locked.)
            match inner.nth(db_index, key, skip) {
                Some((head, waiter)) if head == id && waiter.ticket == ticket => {}
                _ => continue,
            }
            let Some(waiter) = inner.waiters.get(&id) else { continue };
            // What a served XREADGROUP logs (an XCLAIM per delivered entry).
            let mut effects = Vec::new();
            let served = match &waiter.op {
                BlockOp::ZPop { max, count, flat } => {
                    cmd::zset::serve_blocked(self, &mut db, key, *max, *count, *flat, now_ms)
                }
                op @ BlockOp::XRead { .. } => cmd::stream::serve_blocked(&mut db, key, op, now_ms),
                op @ BlockOp::XReadGroup { .. } => {
                    cmd::stream::serve_readgroup(self, &mut db, key, op, now_ms).map(|(reply, logged)| {
                        effects = logged;
                        reply
                    })
                }
                op => cmd::list::serve_blocked(self, &mut db, key, op, now_ms),
            };
            let Some(reply) = served else {
                // The key holds no data of this waiter's type (anymore): it keeps waiting,
                // and the next one may want the type the key holds.
                skip += 1;
                continue;
            };
            if !reply.is_error() && self.propagation().enabled() {
                // Logged as the non-blocking command that has the same effect.
                let side = |left: bool| if left { "LEFT" } else { "RIGHT" };
                match &waiter.op {
                    BlockOp::Pop { left } => {
                        self.propagation().append(db_index, &[if *left { &b"LPOP"[..] } else { b"RPOP" }, key]);
                    }
                    BlockOp::MPop { left, .. } => {
                        // As many as were served (the reply's second element).
                        let n = popped_from(&reply).map_or(0, |(_, n)| n);
                        let pop = if *left { &b"LPOP"[..] } else { b"RPOP" };
                        self.propagation().append(db_index, &[pop, key, n.to_string().as_bytes()]);
                    }
                    BlockOp::ZPop { max, flat, .. } => {
                        // BZPOPMIN/BZPOPMAX serve one member; BZMPOP as many as its reply holds.
                        let n = if *flat { 1 } else { popped_from(&reply).map_or(0, |(_, n)| n) };
                        let pop = if *max { &b"ZPOPMAX"[..] } else { b"ZPOPMIN" };
                        self.propagation().append(db_index, &[pop, key, n.to_string().as_bytes()]);
                    }
                    // A read: nothing to log.
                    BlockOp::XRead { .. } => {}
                    BlockOp::XReadGroup { .. } => {
                        for cmd in &effects {
                            self.propagation().append(db_index, cmd);
                        }
                    }
                    BlockOp::Move { dst, from_left, to_left } => self.propagation().append(
                        db_index,
                        &[&b"LMOVE"[..], key, dst, side(*from_left).as_bytes(), side(*to_left).as_bytes()],
                    ),
                }
            }
            if !reply.is_error() {
                // Keys changed outside any command's own write: WATCH must still see them.
                self.store.watches.touch(db_index, key);
                self.tracking.note_removed(key);
                if let Some(dst) = &dst {
                    self.store.watches.touch(db_index, dst);
                    self.tracking.note_removed(dst);
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
