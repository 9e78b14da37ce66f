//! `Session`: one connection's state (protocol, database, authentication, its client entry,
//! transaction, subscriptions, what it is blocked on). The session layer: it sits above the
//! store, stats and config, and below the command families, which reach it through `Ctx`.

pub mod tx;

use std::any::Any;
use std::sync::Arc;

use crate::blocking::Blocked;
use crate::clients::Client;
use crate::pubsub::Subscriptions;
use crate::reply::Reply;
use tx::Transaction;

/// Per-connection state.
pub struct Session {
    pub resp3: bool,
    pub db: usize,
    pub authenticated: bool,
    /// The ACL user this connection acts as (AUTH, HELLO ... AUTH switch it).
    pub(crate) user: SessionUser,
    /// Set by QUIT: the host writes the pending replies and closes.
    pub closing: bool,
    pub client: Arc<Client>,
    /// MULTI queue and WATCHed keys (`session::tx`; the commands are `cmd::tx`).
    pub tx: Transaction,
    /// Channels and patterns subscribed to (`pubsub`; the commands are `cmd::pubsub`).
    pub subs: Subscriptions,
    /// What a blocking command (BLPOP, ...) waits for; `feed` runs nothing more meanwhile.
    pub blocked: Option<Blocked>,
    /// While an EXEC runs with propagation on: its writes, logged as MULTI ... EXEC.
    pub(crate) prop_batch: Option<crate::propagate::Batch>,
    /// What a write logs instead of its own arguments, when they do not fix its effect
    /// (XADD's `*` ID, an approximate trim): set by the handler, taken by dispatch.
    pub(crate) log_as: Option<Vec<Vec<Vec<u8>>>>,
    /// Wrong passwords given on this connection (AUTH, HELLO ... AUTH). `feed` stops after
    /// each, so the host can hold the connection back before the next guess runs.
    pub auth_failures: u32,
    /// CLIENT REPLY: which replies `feed` sends.
    pub reply_mode: ReplyMode,
    /// `feed` stopped before a command because clients are paused (CLIENT PAUSE): the
    /// command and those after it wait in the host's buffer until `Engine::pause_end`.
    pub paused: bool,
    /// CLIENT TRACKING: the mode, CLIENT CACHING's flag, invalidations sent after the reply.
    pub tracking: crate::tracking::SessionTracking,
    /// This connection's calls not yet in the shared counters (see `CallTally`).
    pub(crate) tally: crate::timing::CallTally,
    /// While a script runs: what its `redis.call`s do (`script::usage` keeps it).
    #[cfg(feature = "scripting")]
    pub(crate) script_log: Option<Box<dyn ScriptLog>>,
}

/// What a running script's log takes from each `redis.call` (the command's name, its keys,
/// the database it ran in). Kept on the session so a call logs without a lock; the scripting
/// layer above implements it (`script::usage::RunLog`) and reads it back with `into_any`.
#[cfg(feature = "scripting")]
pub(crate) trait ScriptLog: Send + Sync {
    fn command(&mut self, name: &'static str, keys: &mut dyn Iterator<Item = &[u8]>, db: usize);
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

/// The user a session acts as. The ACL sits above sessions, so the user is held opaquely
/// (the engine's ACL layer puts an `acl::User` in and reads it back); `free` and `epoch` are
/// what dispatch looks at on every command, without touching the user itself.
pub(crate) struct SessionUser {
    /// `None`: an internal session with no user (the AOF loader), never checked.
    pub(crate) user: Option<Arc<dyn Any + Send + Sync>>,
    /// The ACL registry's epoch when `user` was read; another value means it may be stale.
    pub(crate) epoch: u64,
    /// The user may run anything (or there is none): dispatch skips the check.
    pub(crate) free: bool,
}

/// CLIENT REPLY's modes. `SkipNext` is SKIP's own command; the next one is then `Skip`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum ReplyMode {
    #[default]
    On,
    Off,
    SkipNext,
    Skip,
}

impl Session {
    pub fn id(&self) -> u64 {
        self.client.id
    }

    /// Writes `reply` to `out` as CLIENT REPLY allows: OFF drops every reply, SKIP the next
    /// command's (REPLY OFF and SKIP themselves get none). As in Redis the mode is looked at
    /// when the reply is made, so a blocked command's late reply (served, timed out or
    /// unblocked) obeys the mode in force then, and SKIP's skipped command is the blocked one.
    #[inline]
    pub fn send(&mut self, reply: &Reply, out: &mut Vec<u8>) {
        match self.reply_mode {
            ReplyMode::On => reply.encode(self.resp3, out),
            ReplyMode::Off => {}
            ReplyMode::SkipNext => self.reply_mode = ReplyMode::Skip,
            ReplyMode::Skip => self.reply_mode = ReplyMode::On,
        }
    }
}
