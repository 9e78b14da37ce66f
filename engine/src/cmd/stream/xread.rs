//! XREAD, with BLOCK: the entries after given IDs in one or more streams, waiting for new ones
//! when there are none (served, like BLPOP, by `crate::blocking`: an XADD signals the key and
//! the waiters are served first come, first served), and the serving of such a waiter.

use crate::args::Args;
use crate::blocking::BlockOp;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::stream::{Stream, StreamId, MAX_ID};
use crate::store::Locked;

use super::{entries_reply, parse_count, stream_of};

/// XREAD: for each stream, the entries with IDs above the one given (`$`: the stream's last
/// ID, so only what comes next; `+`: from its last entry, as Redis 7.4), at most COUNT per
/// stream. With BLOCK, when none has any, waits up to that many milliseconds (0 = for ever)
/// for an XADD. RESP2 answers an array of `[key, entries]`, RESP3 a map; nil when nothing.
///
/// ```text
/// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
/// ```
pub fn xread(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let argv = args.rest();
    let mut timeout: Option<i64> = None;
    let mut count = 0i64;
    let mut streams_at = None;
    let mut i = 0;
    while i < argv.len() {
        let more = argv.len() - 1 - i;
        let opt = argv[i];
        let is = |name: &str| opt.eq_ignore_ascii_case(name.as_bytes());
        if is("BLOCK") && more > 0 {
            i += 1;
            let ms = parse_i64(argv[i]).ok_or_else(|| CmdError::err("timeout is not an integer or out of range"))?;
            if ms < 0 {
                return Err(CmdError::err("timeout is negative"));
            }
            timeout = Some(ms);
        } else if is("COUNT") && more > 0 {
            i += 1;
            count = parse_count(argv[i])?;
        } else if is("STREAMS") && more > 0 {
            if !more.is_multiple_of(2) {
                return Err(CmdError::err(
                    "Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
                ));
            }
            streams_at = Some(i + 1);
            break;
        } else if is("GROUP") && more >= 2 {
            return Err(CmdError::err("The GROUP option is only supported by XREADGROUP. You called XREAD instead."));
        } else if is("NOACK") {
            return Err(CmdError::err("The NOACK option is only supported by XREADGROUP. You called XREAD instead."));
        } else {
            return Err(CmdError::Syntax);
        }
        i += 1;
    }
    let Some(at) = streams_at else { return Err(CmdError::Syntax) };
    let n = (argv.len() - at) / 2;
    let (keys, ids) = argv[at..].split_at(n);
    let now = ctx.now;
    let mut after = Vec::with_capacity(n);
    for (&key, &id) in keys.iter().zip(ids) {
        let stream = match ctx.db.read(key, now) {
            Some(entry) => Some(stream_of(entry)?),
            None => None,
        };
        let gt =
            match id {
                b"$" => stream.map_or(StreamId::default(), Stream::last_id),
                b"+" => match stream {
                    // From the last entry on: everything after the ID just below the last one.
                    Some(s) => s.last_id().prev().ok_or_else(|| CmdError::err("the stream last element ID is 0-0"))?,
                    None => StreamId::default(),
                },
                b">" => return Err(CmdError::err(
                    "The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.",
                )),
                _ => StreamId::parse(id, 0, true)?,
            };
        after.push((key.to_vec(), gt));
    }
    let count = count as usize;
    let resp3 = ctx.session.resp3;
    let mut found = Vec::new();
    for (key, gt) in &after {
        let Some(entry) = ctx.db.peek(key, now) else { continue };
        let Ok(stream) = stream_of(entry) else { continue };
        if stream.last().is_some_and(|(top, _)| top > *gt) {
            found.push((key.clone(), read_after(stream, *gt, count)));
        }
    }
    if !found.is_empty() {
        return Ok(streams_reply(found, resp3));
    }
    if let Some(ms) = timeout {
        let deadline = if ms == 0 { None } else { Some(now.saturating_add(ms as u64)) };
        let keys: Vec<&[u8]> = keys.to_vec();
        crate::cmd::list::block(ctx, &keys, deadline, BlockOp::XRead { after, count, resp3 });
    }
    Ok(Reply::NilArray)
}

/// The entries after `gt`, at most `count` (0 = all).
fn read_after(stream: &Stream, gt: StreamId, count: usize) -> Reply {
    let Some(start) = gt.next() else { return Reply::Array(vec![]) };
    let take = if count == 0 { usize::MAX } else { count };
    entries_reply(stream.range(start, MAX_ID, false).take(take))
}

/// XREAD's reply: per stream, its key and entries; an array of pairs in RESP2, a map in RESP3.
fn streams_reply(found: Vec<(Vec<u8>, Reply)>, resp3: bool) -> Reply {
    if resp3 {
        Reply::Map(found.into_iter().map(|(k, v)| (Reply::Bulk(k), v)).collect())
    } else {
        Reply::Array(found.into_iter().map(|(k, v)| Reply::Array(vec![Reply::Bulk(k), v])).collect())
    }
}

/// Serves a blocked XREAD from `key` (see `crate::blocking`), on the key's locked shard:
/// `None` while the stream has nothing past the ID the reader waits after (it keeps
/// waiting), else its reply, holding this one stream.
pub(crate) fn serve_blocked(db: &mut Locked<'_>, key: &[u8], op: &BlockOp, now: u64) -> Option<Reply> {
    let BlockOp::XRead { after, count, resp3 } = op else { return None };
    let gt = after.iter().find(|(k, _)| k == key)?.1;
    let entry = db.peek(key, now)?;
    let stream = stream_of(entry).ok()?;
    // As Redis, against the last ID: a reader is answered (maybe with no entries) once an
    // XADD went past its ID, even if a trim removed the entry again.
    if stream.last_id() <= gt {
        return None;
    }
    Some(streams_reply(vec![(key.to_vec(), read_after(stream, gt, *count))], *resp3))
}
