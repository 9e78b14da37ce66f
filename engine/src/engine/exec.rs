//! EXEC's dispatch: a transaction's queued commands run atomically on one set of locks, with
//! admission for the whole batch and its writes logged as one MULTI ... EXEC.

use std::sync::atomic::Ordering::Relaxed;

use super::{Engine, Job};
use crate::cmd::tx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::session::tx::Queued;
use crate::session::Session;
use crate::table::{self, ALL_SHARDS, DENYOOM, WRITE};

impl Engine {
    /// Runs a transaction's queued commands atomically: admission for the whole batch, one
    /// lock over the shards of all their keys (all shards when one walks the keyspace), each
    /// command on those locks, then the memory limit enforced once. EXECABORT when the
    /// batch cannot get the memory it needs.
    pub(crate) fn exec_queued(&self, session: &mut Session, queue: &[Queued], now_ms: u64) -> Result<Reply, CmdError> {
        let stats = self.stats();
        // The session keeps each command's table index only (it sits below the table).
        let queue: Vec<Job<'_>> =
            queue.iter().map(|q| Job { cmd: table::row(q.index), index: q.index, argv: &q.argv }).collect();
        if queue.iter().any(|q| q.cmd.flags & WRITE != 0) {
            if let Some(why) = self.propagation().refusal() {
                return Err(CmdError::Other(format!("EXECABORT Transaction discarded because of: {why}")));
            }
        }
        let argvs: Vec<Vec<&[u8]>> = queue.iter().map(|q| q.argv.iter().map(Vec::as_slice).collect()).collect();
        let batch = || queue.iter().zip(argvs.iter());
        // Held until the batch is done, so concurrent writers cannot claim the same room.
        let _room = if batch().any(|(q, _)| q.cmd.flags & DENYOOM != 0) {
            let mut need: usize = batch()
                .filter(|(q, _)| q.cmd.flags & DENYOOM != 0)
                .map(|(q, argv)| self.estimate_growth(q.cmd, argv))
                .sum();
            let config = self.config();
            if config.policy() != crate::store::limits::Policy::NoEviction && config.maxmemory() > 0 {
                // The estimate assumes every key new; a batch larger than the whole limit
                // may still fit once the keys it replaces are counted, and evicting
                // everything is as far as admission can go. `enforce_limit` has the last word.
                need = need.min(config.maxmemory() as usize);
            }
            match self.store.make_room(need, now_ms) {
                Ok(room) => room,
                Err(e) => {
                    stats.rejected_oom.fetch_add(1, Relaxed);
                    return Err(CmdError::Other(format!("EXECABORT Transaction discarded because of: {e}")));
                }
            }
        } else {
            self.store.no_reservation()
        };
        let walks = batch().any(|(q, argv)| {
            (q.cmd.keys(argv).next().is_none() && !tx::keyspace_free(q.cmd)) || q.cmd.flags & ALL_SHARDS != 0
        });
        // Keys are locked by stripe, the same in every database, so a SELECT inside the
        // transaction needs no other locks.
        // Waiting for shards a busy script holds ends in BUSY, as for a command alone.
        let busy = || self.script_run.is_busy();
        let locked = if walks {
            self.store.lock_all_unless(session.db, &busy)
        } else {
            self.store.lock_keys_unless(session.db, batch().flat_map(|(q, argv)| q.cmd.keys(argv)), &busy)
        };
        let Some(mut locked) = locked else {
            return Err(self.script_run.busy_error().unwrap_or(CmdError::Other(crate::busy::BUSY_EVAL.into())));
        };
        let mut replies = Vec::with_capacity(queue.len());
        let logging = self.propagation().enabled();
        if logging {
            session.prop_batch = Some(crate::propagate::Batch::default());
        }
        // One clock reading per command: each begins when the one before it ended.
        let mut clock = self.timing().now_us();
        for (q, argv) in batch() {
            // The rules may have changed since the command was queued: it is checked again
            // (free when nothing changed for an unrestricted user), its slot the refusal.
            if let Err(e) = self.acl_admit(session, q.index, q.cmd, argv, super::acl::Place::Exec, now_ms) {
                stats.error_replies.fetch_add(1, Relaxed);
                stats.rejected_calls.add(q.index, 1);
                replies.push(e.into());
                continue;
            }
            session.client.last_cmd.store(q.index, Relaxed);
            let db = session.db;
            // Each queued command's keys count as accessed, and a refused option is on the
            // compatibility radar, as for a command run alone.
            let mut in_db = locked.reborrow_in(db);
            in_db.count_accesses(q.cmd.keys(argv), now_ms);
            let reply = match self.run_locked(q.cmd, session, in_db, argv, now_ms) {
                Ok(reply) => reply,
                Err(e) => {
                    if super::refuses_an_option(&e) {
                        self.note_refused(crate::radar::Kind::Option, Some(q.cmd), session, argv, now_ms);
                    }
                    e.into()
                }
            };
            // Timed one by one, as Redis's `call()` times each queued command.
            self.record_call(q.index, q.cmd, session, argv, &mut clock, now_ms, false);
            if let Reply::Error(text) = &reply {
                stats.failed_calls.add(q.index, 1);
                stats.error_replies.fetch_add(1, Relaxed);
                self.timing().count_error(text);
            }
            replies.push(reply);
        }
        if let Some(batch) = session.prop_batch.take().filter(|_| logging) {
            self.propagation().append_batch(batch);
        }
        drop(locked);
        // After writes, and after a CONFIG SET maxmemory that could not evict while the
        // transaction held the shards.
        self.store.enforce_limit(now_ms);
        Ok(Reply::Array(replies))
    }
}
