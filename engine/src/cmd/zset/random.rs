//! ZRANDMEMBER: random members of a sorted set, with Redis 7's count semantics.

use std::mem::size_of;

use crate::args::Args;
use crate::cmd::collection::{rand_count_with, random_positions};
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

use super::range::scored_reply;
use super::read;

/// ZRANDMEMBER: random members. Without a count, one member (nil if no such key). With a
/// positive count, that many distinct members (at most the whole set); with a negative one,
/// that many picks that may repeat. WITHSCORES adds each score (RESP3: [member, score]
/// pairs). A read: nothing is logged.
///
/// ```text
/// ZRANDMEMBER key [count [WITHSCORES]]
/// ```
pub fn zrandmember(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let engine = ctx.engine;
    let random = || engine.store().common.random();
    if args.is_empty() {
        let Some(z) = read(ctx, key)? else {
            return Ok(Reply::Nil);
        };
        let pick = (random() % z.len() as u64) as usize;
        return Ok(Reply::opt_bulk(z.get_index(pick).map(|(m, _)| m)));
    }
    // Redis's order: the count, the options, the doubled reply's range, then the key.
    let (count, withscores) = rand_count_with(args, b"WITHSCORES")?;
    let resp3 = ctx.session.resp3;
    let limit = engine.config().proto_max_bulk_len();
    let Some(z) = read(ctx, key)? else {
        return Ok(Reply::Array(vec![]));
    };
    let per_pick = z.heap_size() / z.len() + size_of::<Reply>() * (1 + withscores as usize);
    let positions = random_positions(z.len(), count, per_pick, limit, random)?;
    Ok(scored_reply(positions.into_iter().filter_map(|p| z.get_index(p)), withscores, resp3))
}
