//! ZPOPMIN and ZPOPMAX.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::num::parse_i64;
use crate::reply::Reply;

use super::range::scored_reply;
use super::write;

/// Removes and answers the members with the lowest scores (one without a count).
///
/// ```text
/// ZPOPMIN key [count]
/// ```
pub fn zpopmin(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    pop_generic(ctx, args, false)
}

/// Removes and answers the members with the highest scores (one without a count).
///
/// ```text
/// ZPOPMAX key [count]
/// ```
pub fn zpopmax(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    pop_generic(ctx, args, true)
}

fn pop_generic(ctx: &mut Ctx<'_>, args: &mut Args<'_>, max: bool) -> Result<Reply, CmdError> {
    let resp3 = ctx.session.resp3;
    let key = args.key()?;
    if args.len() > 1 {
        return Err(CmdError::Syntax);
    }
    let count = match args.peek() {
        None => None,
        Some(arg) => match parse_i64(arg) {
            Some(n) if n >= 0 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => return Err(CmdError::err("value is out of range, must be positive")),
        },
    };
    let Some(popped) = write(ctx, key, |z| z.pop(count.unwrap_or(1), max))? else {
        return Ok(Reply::Array(Vec::new()));
    };
    // One element without a count is a flat [member, score] in RESP3 too, as in Redis 7.0.
    let items = popped.iter().map(|(m, s)| (&**m, *s));
    Ok(scored_reply(items, true, resp3 && count.is_some()))
}
