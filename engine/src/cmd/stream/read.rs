//! The stream reads: XRANGE, XREVRANGE and XLEN.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::store::stream::StreamId;

use super::{entries_reply, parse_count, read_stream};

/// XRANGE: the entries with IDs from `start` to `end` (inclusive, `(` for exclusive; `-` and
/// `+` for the ends), oldest first, at most COUNT of them.
///
/// ```text
/// XRANGE key start end [COUNT count]
/// ```
pub fn xrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range(ctx, args, false)
}

/// XREVRANGE: as XRANGE, newest first, with the bounds given end first.
///
/// ```text
/// XREVRANGE key end start [COUNT count]
/// ```
pub fn xrevrange(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    range(ctx, args, true)
}

fn range(ctx: &mut Ctx<'_>, args: &mut Args<'_>, rev: bool) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (a, b) = (args.bytes()?, args.bytes()?);
    let (start, end) = if rev { (b, a) } else { (a, b) };
    // Redis parses the start fully (and moves an exclusive one) before the end.
    let start = StreamId::parse_bound(start, 0, true)?;
    let end = StreamId::parse_bound(end, u64::MAX, false)?;
    let mut count: Option<i64> = None;
    while !args.is_empty() {
        if args.flag("COUNT") && !args.is_empty() {
            count = Some(parse_count(args.bytes()?)?);
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let Some(stream) = read_stream(ctx, key)? else { return Ok(Reply::Array(vec![])) };
    let take = match count {
        // COUNT 0 (or below) answers the null array, as Redis does.
        Some(0) => return Ok(Reply::NilArray),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => usize::MAX,
    };
    Ok(entries_reply(stream.range(start, end, rev).take(take)))
}

/// XLEN: how many entries the stream holds (0 when there is no key).
///
/// ```text
/// XLEN key
/// ```
pub fn xlen(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let len = read_stream(ctx, key)?.map_or(0, |s| s.len());
    Ok(Reply::Int(len as i64))
}
