//! String commands: GET and the SET family, MGET/MSET, GETEX/GETDEL, APPEND, ranges, LCS, integer
//! counters and INCRBYFLOAT (computed in x87 extended precision, as Redis does on x86-64).
//!
//! `get_set` holds GET, SET and its options, the SET variants and GETSET/GETDEL/GETEX;
//! `multi` MGET, MSET and MSETNX; `numeric` INCR/DECR and INCRBYFLOAT; `range` APPEND, STRLEN,
//! GETRANGE (and SUBSTR) and SETRANGE; `lcs` LCS; `conditional` DELIFEQ, DELEX, DIGEST and
//! the comparisons of SET's IFEQ/IFNE/IFDEQ/IFDNE. The helpers the family shares (typed access,
//! length limits, default expiry, storing a value) live here.

mod conditional;
mod get_set;
mod lcs;
mod multi;
mod numeric;
mod range;
#[cfg(test)]
mod tests;

pub use conditional::{delex, delifeq, digest_cmd as digest};
pub use get_set::{get, getdel, getex, getset, psetex, set, setex, setnx};
pub use lcs::lcs;
pub use multi::{mget, mset, msetnx};
pub use numeric::{decr, decrby, incr, incrby, incrbyfloat};
pub use range::{append, getrange, setrange, setrange_growth, strlen, substr};

use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::notify::class;
use crate::store::entry::{Entry, Value, ValueRef};

// --- Shared by the family ---------------------------------------------------------------------

/// The string an entry holds, or WRONGTYPE.
#[allow(unreachable_patterns)]
pub(crate) fn str_of(entry: Entry<'_>) -> Result<&[u8], CmdError> {
    match entry.value {
        ValueRef::Str(s) => Ok(s),
        _ => Err(CmdError::WrongType),
    }
}

/// The string a value holds, for changing in place, or WRONGTYPE.
#[allow(unreachable_patterns)]
pub(crate) fn str_mut(value: &mut Value) -> Result<&mut Vec<u8>, CmdError> {
    match value {
        Value::Str(s) => Ok(s),
        _ => Err(CmdError::WrongType),
    }
}

/// Redis's `checkStringLength`: a string may not grow past `proto-max-bulk-len`.
pub(super) fn check_length(size: u64, append: u64, max: u64) -> Result<(), CmdError> {
    match size.checked_add(append) {
        Some(total) if total <= max => Ok(()),
        _ => Err(CmdError::StringTooLong),
    }
}

/// The expiry a key written without an explicit one gets: `default-ttl` from now, or none.
pub(crate) fn default_expiry(ctx: &Ctx<'_>) -> u64 {
    default_expiry_at(ctx.engine, ctx.now)
}

/// [`default_expiry`] for callers without a `Ctx` (a blocked pop served on another client's
/// write).
pub(crate) fn default_expiry_at(engine: &Engine, now: u64) -> u64 {
    match engine.config().default_ttl_ms() {
        0 => 0,
        ttl => now.saturating_add(ttl),
    }
}

/// Writes a string with an absolute expiry (0 = none). A time already past deletes the key
/// instead, so a SET with EXAT/PXAT in the past leaves nothing behind.
pub(crate) fn store(ctx: &mut Ctx<'_>, key: &[u8], value: &[u8], expire_at: u64) {
    let now = ctx.now;
    let shard = ctx.db.shard(key);
    if expire_at != 0 && expire_at <= now {
        // Redis 7.0 adds the key and lets it expire: it was new when nothing was there.
        if shard.remove(key).is_none() {
            ctx.notify(class::NEW, "new", key);
        }
    } else {
        shard.insert_str(key, value, expire_at, now);
    }
}
