//! Stream commands without consumer groups: XADD, XTRIM, XDEL, XSETID (`write`), XRANGE,
//! XREVRANGE, XLEN (`read`), and XREAD with its blocking form and the serving of a blocked
//! reader (`xread`). A stream emptied by XDEL or XTRIM stays a key, as in Redis. Arguments are
//! checked in Redis 7.0's order, so the same bad command gets the same error.
//!
//! Consumer groups: `xgroup` (XGROUP and what the group commands share), `readgroup`
//! (XREADGROUP and its blocking), `claim` (XACK, XPENDING, XCLAIM, XAUTOCLAIM), `info` (XINFO).

mod claim;
#[cfg(test)]
mod group_tests;
mod info;
mod read;
mod readgroup;
#[cfg(test)]
mod tests;
mod write;
mod xgroup;
mod xread;

pub use claim::{xack, xautoclaim, xclaim, xpending};
pub use info::{xinfo_consumers, xinfo_groups, xinfo_help, xinfo_stream};
pub(crate) use readgroup::serve_blocked as serve_readgroup;
pub use readgroup::xreadgroup;
pub use xgroup::{xgroup_create, xgroup_createconsumer, xgroup_delconsumer, xgroup_destroy, xgroup_help, xgroup_setid};

pub use read::{xlen, xrange, xrevrange};
pub use write::{add_growth, xadd, xdel, xsetid, xtrim};
pub(crate) use xread::serve_blocked;
pub use xread::xread;

use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::store::entry::{Entry, ValueRef};
use crate::store::stream::{Stream, StreamEntry};

/// The stream an entry holds, or WRONGTYPE.
pub(crate) fn stream_of(entry: Entry<'_>) -> Result<&Stream, CmdError> {
    match entry.value {
        ValueRef::Stream(s) => Ok(s),
        _ => Err(CmdError::WrongType),
    }
}

/// The stream at `key` for a read (counts a hit or miss): `None` when there is no key.
pub(crate) fn read_stream<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<Option<&'a Stream>, CmdError> {
    crate::cmd::collection::read::<Stream>(ctx, key)
}

/// One entry as Redis replies it: `[id, [field, value, ...]]`.
pub(crate) fn entry_reply((id, fields): StreamEntry<'_>) -> Reply {
    Reply::Array(vec![Reply::Bulk(id.to_bytes()), Reply::Array(fields.into_iter().map(Reply::bulk).collect())])
}

/// Entries as Redis replies them (an array of `entry_reply`).
pub(crate) fn entries_reply<'a>(entries: impl Iterator<Item = StreamEntry<'a>>) -> Reply {
    Reply::Array(entries.map(entry_reply).collect())
}

/// A COUNT argument as XRANGE and XREAD read it: an integer, negative meaning 0.
pub(crate) fn parse_count(arg: &[u8]) -> Result<i64, CmdError> {
    crate::num::parse_i64(arg).map(|n| n.max(0)).ok_or(CmdError::NotInteger)
}
