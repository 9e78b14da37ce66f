//! List commands: pushes and pops at both ends, ranges and indexes, LINSERT/LSET/LREM/LTRIM,
//! LPOS, LMOVE/RPOPLPUSH, LMPOP, and the blocking BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP (see
//! `crate::blocking` for how a blocked client waits and is served). A list that loses its
//! last element is deleted, as in Redis. Argument checks come in Redis 7.0's order, so the
//! same bad command gets the same error.
//!
//! `push_pop` holds the pushes and pops at either end; `index` LLEN, LRANGE, LINDEX, LSET,
//! LINSERT, LREM, LTRIM and LPOS; `blocking` the moves (LMOVE, RPOPLPUSH) and the blocking
//! commands with the serving of a blocked client; `mpop` LMPOP and BLMPOP. The typed access and single-element pop
//! the sub-families share live here.

mod blocking;
mod index;
mod mpop;
mod push_pop;
#[cfg(test)]
mod tests;

// The sorted sets' blocking pops (BZPOPMIN, BZMPOP) block and read timeouts as these do.
pub use blocking::{blmove, blpop, brpop, brpoplpush, lmove, move_growth, rpoplpush};
pub(crate) use blocking::{block, serve_blocked, timeout_deadline};
pub use index::{lindex, linsert, llen, lpos, lrange, lrem, lset, ltrim};
pub use mpop::{blmpop, lmpop};
pub use push_pop::{lpop, lpush, lpushx, push_growth, rpop, rpush, rpushx};

use crate::engine::Engine;
use crate::error::CmdError;
use crate::notify::class;
use crate::store::entry::{Entry, ValueRef};
use crate::store::list::ListValue;
use crate::store::Locked;

// --- Shared by the list commands --------------------------------------------------------------

/// The list an entry holds, or WRONGTYPE.
pub(super) fn list_of(entry: Entry<'_>) -> Result<&ListValue, CmdError> {
    match entry.value {
        ValueRef::List(l) => Ok(l),
        _ => Err(CmdError::WrongType),
    }
}

/// Changes the list at `key` through `f` (re-measured by the shard), deleting the key when
/// the list is left empty. `Ok(None)` when there is no key; WRONGTYPE when it is no list.
pub(super) fn modify<R>(
    db: &mut Locked<'_>,
    key: &[u8],
    now: u64,
    f: impl FnOnce(&mut ListValue) -> R,
) -> Result<Option<R>, CmdError> {
    crate::cmd::collection::modify(db, key, now, f)
}

/// Stores a new list (with the default TTL, as every key written without one).
pub(super) fn create(engine: &Engine, db: &mut Locked<'_>, key: &[u8], list: ListValue, now: u64) {
    crate::cmd::collection::create(engine, db, key, list, now);
}

/// The events of a pop from `key` (Redis's `listElementsRemoved`): `lpop` or `rpop`, then
/// `del` when it emptied the list.
pub(super) fn notify_popped(engine: &Engine, db: &mut Locked<'_>, key: &[u8], left: bool, now: u64) {
    engine.notify_removal(db, class::LIST, if left { "lpop" } else { "rpop" }, key, now);
}

/// The event of a push to `key`.
pub(super) fn notify_pushed(engine: &Engine, db: &Locked<'_>, key: &[u8], left: bool, now: u64) {
    engine.notify(class::LIST, if left { "lpush" } else { "rpush" }, db.db(), key, now);
}

/// Pops one element from the head (`left`) or tail; `Ok(None)` when there is no list.
pub(super) fn pop_one(db: &mut Locked<'_>, key: &[u8], left: bool, now: u64) -> Result<Option<Box<[u8]>>, CmdError> {
    Ok(modify(db, key, now, |l| if left { l.pop_front() } else { l.pop_back() })?.flatten())
}
