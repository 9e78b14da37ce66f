//! Visiting a hash a part at a time: HRANDFIELD and HSCAN.

use std::mem::size_of;

use crate::args::Args;
use crate::cmd::collection::{rand_count_with, random_positions, scan_cursor, scan_reply, ScanOf, ScanOptions};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

use super::read_hash;

/// HRANDFIELD: random fields. Without a count, one field (nil if no such key). With a
/// positive count, that many distinct fields (at most the whole hash); with a negative one,
/// that many picks that may repeat. WITHVALUES adds each value (RESP3: [field, value] pairs).
///
/// ```text
/// HRANDFIELD key [count [WITHVALUES]]
/// ```
pub fn hrandfield(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let engine = ctx.engine;
    let random = || engine.store().common.random();
    if args.is_empty() {
        let Some(h) = read_hash(ctx, key)? else {
            return Ok(Reply::Nil);
        };
        let pick = (random() % h.len() as u64) as usize;
        return Ok(Reply::opt_bulk(h.get_index(pick).map(|(f, _)| f)));
    }
    let (count, with_values) = rand_count_with(args, b"WITHVALUES")?;
    let resp3 = ctx.session.resp3;
    let limit = engine.config().proto_max_bulk_len();
    let Some(h) = read_hash(ctx, key)? else {
        return Ok(Reply::Array(vec![]));
    };
    let per_pick = h.heap_size() / h.len() + size_of::<Reply>() * (1 + with_values as usize);
    let positions = random_positions(h.len(), count, per_pick, limit, random)?;
    let mut out = Vec::with_capacity(positions.len() * if with_values && !resp3 { 2 } else { 1 });
    for (field, value) in positions.into_iter().filter_map(|p| h.get_index(p)) {
        match (with_values, resp3) {
            (false, _) => out.push(Reply::bulk(field)),
            (true, false) => out.extend([Reply::bulk(field), Reply::bulk(value)]),
            (true, true) => out.push(Reply::Array(vec![Reply::bulk(field), Reply::bulk(value)])),
        }
    }
    Ok(Reply::Array(out))
}

/// HSCAN: one step of an iteration over a hash's fields and values; answers the next
/// cursor (0 when done) and alternating fields and values. A small hash comes whole in one
/// step, as in Redis.
///
/// ```text
/// HSCAN key cursor [MATCH pattern] [COUNT count]
/// ```
pub fn hscan(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let cursor = scan_cursor(args.bytes()?)?;
    // As in Redis: a missing key answers an empty page before the options are looked at.
    let Some(h) = read_hash(ctx, key)? else {
        return Ok(scan_reply(0, vec![]));
    };
    let opts = ScanOptions::parse(args, ScanOf::Hash)?;
    let mut items = Vec::new();
    let next = h.scan(cursor, opts.count, |f, v| {
        if opts.matches(f) {
            items.extend([Reply::bulk(f), Reply::bulk(v)]);
        }
    });
    Ok(scan_reply(next, items))
}
