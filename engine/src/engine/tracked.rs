//! CLIENT TRACKING from dispatch: the keys a write modified are invalidated, a tracking
//! client's reads remembered, and what the store removed on its own queued for invalidation.

use std::sync::Arc;

use smallvec::SmallVec;

use super::{Ctx, Engine, WrittenKeys};
use crate::propagate::Propagation;
use crate::session::Session;
use crate::store::RemovalLog;
use crate::table::Command;
use crate::tracking::{Sender, Tracking};

impl Engine {
    /// Invalidates the keys a successful write modified (those it left as they were, and
    /// those missing before and after, are not: Redis signals only modified keys).
    #[cold]
    #[inline(never)]
    pub(super) fn invalidate_written(&self, ctx: &mut Ctx<'_>, tracked: WrittenKeys<'_>) {
        let (now, unchanged) = (ctx.now, ctx.unchanged);
        let modified = tracked.into_iter().filter(|&(i, key, existed)| {
            !(i < 64 && unchanged & (1 << i) != 0) && (existed || ctx.db.shard(key).contains(key, now))
        });
        let modified: SmallVec<[&[u8]; 2]> = modified.map(|(_, k, _)| k).collect();
        let send = self.tracking_sender(now);
        let session = &mut *ctx.session;
        self.tracking.invalidate(modified.into_iter(), Some(session.id()), &mut session.tracking.deferred, &send);
    }

    /// Remembers the keys a read-only command named for its tracking client (default mode),
    /// whatever it answered, as Redis does; read-only scripts' own keys are not (their
    /// commands' are).
    #[cold]
    #[inline(never)]
    pub(super) fn remember_read(&self, cmd: &Command, session: &Session, argv: &[&[u8]]) {
        if !matches!(cmd.name, "EVAL_RO" | "EVALSHA_RO" | "FCALL_RO") {
            self.tracking.remember(session.id(), cmd.keys(argv));
        }
    }

    /// What sending invalidations needs: the registry and the output limits now.
    pub(crate) fn tracking_sender(&self, now_ms: u64) -> Sender<'_> {
        let config = self.config();
        Sender {
            clients: &self.clients,
            normal: config.normal_output_limit(),
            pubsub: config.pubsub_output_limit(),
            now_ms,
        }
    }

    /// After a command while some client tracks: CLIENT CACHING's flag lasts one command (or
    /// one transaction; any CLIENT subcommand keeps it, as Redis's `resetClient`), the keys
    /// the store removed meanwhile and the BCAST prefixes' keys are invalidated, and the
    /// table is brought back under `tracking-table-max-keys`.
    #[cold]
    #[inline(never)]
    pub(super) fn after_tracked_command(&self, session: &mut Session, argv: &[&[u8]], now_ms: u64) {
        if session.tracking.caching && !session.tx.in_multi() && !argv[0].eq_ignore_ascii_case(b"CLIENT") {
            session.tracking.caching = false;
        }
        if self.tracking.any() {
            let send = self.tracking_sender(now_ms);
            self.tracking.flush(&send);
            self.tracking.enforce_limit(self.config().tracking_table_max_keys(), &send);
        }
    }

    /// FLUSHDB and FLUSHALL: every tracking client is told its cache is void.
    pub(crate) fn tracking_flushed(&self, session: &mut Session, now_ms: u64) {
        if self.tracking.any() {
            let send = self.tracking_sender(now_ms);
            self.tracking.flush_all(session.id(), &mut session.tracking.deferred, &send);
        }
    }
}

/// What the store removes on its own goes to the append-only log (`Propagation`) and to
/// CLIENT TRACKING's queue of keys to invalidate.
pub(super) struct Removals {
    pub(super) propagation: Arc<Propagation>,
    pub(super) tracking: Arc<Tracking>,
}

impl RemovalLog for Removals {
    fn removed(&self, db: usize, key: &[u8]) {
        self.propagation.removed(db, key);
        self.tracking.note_removed(key);
    }

    fn removed_fields(&self, db: usize, key: &[u8], fields: &[Box<[u8]>]) {
        self.propagation.removed_fields(db, key, fields);
        self.tracking.note_removed(key);
    }
}
