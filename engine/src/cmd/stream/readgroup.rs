//! XREADGROUP: reading a stream as a consumer of a group, new entries (`>`, which become
//! pending unless NOACK) or the consumer's own history (any other ID), with BLOCK served like
//! XREAD BLOCK (see `crate::blocking`): a blocked reader is served by `serve_blocked` once an
//! XADD gives its group something new, and answered with Redis 7.0's errors when its group is
//! destroyed or its key deleted meanwhile.

use crate::args::Args;
use crate::blocking::BlockOp;
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::entry::ValueRef;
use crate::store::stream::{Stream, StreamId, MAX_ID};
use crate::store::Locked;

use super::xgroup::{
    deleted_entry_reply, entry_reply, groups_mut, lacks_consumer, log_effects, modify_stream, no_key_or_group,
    read_stream, setid_effect, xclaim_effect,
};

/// What one XREADGROUP asked for, besides its keys and IDs.
struct Request<'a> {
    group: &'a [u8],
    consumer: &'a [u8],
    /// Entries per stream at most; 0 = all.
    count: usize,
    noack: bool,
}

/// XREADGROUP: reads entries for a consumer of a group: `>` delivers entries no consumer of
/// the group got yet (adding them to the pending list unless NOACK), another ID re-reads the
/// consumer's own pending entries after it (deleted ones as `[id, nil]`). With BLOCK and
/// nothing new, waits up to that many milliseconds (0 = for ever).
///
/// ```text
/// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]
/// ```
pub fn xreadgroup(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let argv = ctx.argv;
    let (mut block_ms, mut count, mut streams_at) = (None, 0usize, None);
    let (mut group, mut consumer, mut noack) = (None, None, false);
    let mut i = 1;
    while i < argv.len() {
        let more = argv.len() - i - 1;
        let opt = argv[i];
        if opt.eq_ignore_ascii_case(b"BLOCK") && more > 0 {
            i += 1;
            block_ms = Some(timeout_ms(argv[i])?);
        } else if opt.eq_ignore_ascii_case(b"COUNT") && more > 0 {
            i += 1;
            let n = parse_i64(argv[i]).ok_or(CmdError::NotInteger)?;
            count = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        } else if opt.eq_ignore_ascii_case(b"STREAMS") && more > 0 {
            if !more.is_multiple_of(2) {
                return Err(CmdError::err(
                    "Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.",
                ));
            }
            streams_at = Some(i + 1);
            break;
        } else if opt.eq_ignore_ascii_case(b"GROUP") && more >= 2 {
            group = Some(argv[i + 1]);
            consumer = Some(argv[i + 2]);
            i += 2;
        } else if opt.eq_ignore_ascii_case(b"NOACK") {
            noack = true;
        } else {
            return Err(CmdError::Syntax);
        }
        i += 1;
    }
    let Some(streams_at) = streams_at else { return Err(CmdError::Syntax) };
    let (Some(group), Some(consumer)) = (group, consumer) else {
        return Err(CmdError::err("Missing GROUP option for XREADGROUP"));
    };
    let n = (argv.len() - streams_at) / 2;
    let keys = &argv[streams_at..streams_at + n];
    // Each stream's checks in turn, as Redis: its type, its group, then its ID.
    let mut ids: Vec<Option<StreamId>> = Vec::with_capacity(n);
    for (k, &key) in keys.iter().enumerate() {
        let has = read_stream(ctx, key)?.is_some_and(|s| super::xgroup::has_group(s, group));
        if !has {
            return Err(no_key_or_group(key, group, " in XREADGROUP with GROUP option"));
        }
        let arg = argv[streams_at + n + k];
        ids.push(match arg {
            b"$" => {
                return Err(CmdError::err(
                    "The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.",
                ))
            }
            b">" => None,
            _ => Some(StreamId::parse(arg, 0, true)?),
        });
    }
    let req = Request { group, consumer, count, noack };
    let mut served = Vec::new();
    let mut effects = Vec::new();
    let now = ctx.now;
    for (&key, id) in keys.iter().zip(&ids) {
        let new_consumer = lacks_consumer(ctx, key, group, consumer);
        let read = modify_stream(ctx, key, |s| Ok(read_one(s, key, &req, *id, now)))?;
        if new_consumer {
            ctx.notify(class::STREAM, "xgroup-createconsumer", key);
        }
        if let Some((entries, cmds)) = read {
            effects.extend(cmds);
            if let Some(entries) = entries {
                served.push((key, entries));
            }
        }
    }
    log_effects(ctx, effects);
    if !served.is_empty() {
        return Ok(streams_reply(ctx.session.resp3, served));
    }
    if let Some(deadline) = block_ms {
        let deadline = deadline.map(|ms| ctx.now.saturating_add(ms));
        let op = BlockOp::XReadGroup {
            group: group.to_vec(),
            consumer: consumer.to_vec(),
            count,
            noack,
            resp3: ctx.session.resp3,
        };
        crate::cmd::list::block(ctx, keys, deadline, op);
    }
    Ok(Reply::NilArray)
}

/// A BLOCK argument in milliseconds, as Redis reads it; `None` waits for ever.
fn timeout_ms(arg: &[u8]) -> Result<Option<u64>, CmdError> {
    let ms = parse_i64(arg).ok_or_else(|| CmdError::err("timeout is not an integer or out of range"))?;
    if ms < 0 {
        return Err(CmdError::err("timeout is negative"));
    }
    Ok((ms > 0).then_some(ms as u64))
}

/// The reply of a read that served `served` streams: an array of `[key, entries]` in RESP2,
/// a map in RESP3.
fn streams_reply(resp3: bool, served: Vec<(&[u8], Vec<Reply>)>) -> Reply {
    if resp3 {
        Reply::Map(served.into_iter().map(|(k, e)| (Reply::bulk(k), Reply::Array(e))).collect())
    } else {
        Reply::Array(served.into_iter().map(|(k, e)| Reply::Array(vec![Reply::bulk(k), Reply::Array(e)])).collect())
    }
}

/// One stream of an XREADGROUP: the consumer is created (or marked seen), then served its
/// history after `id`, or (`None`, for `>`) the entries after the group's last ID when there
/// are any. Answers the entries served (`None`: nothing to serve, the stream is left out of
/// the reply) and the commands to log.
fn read_one(
    s: &mut Stream,
    key: &[u8],
    req: &Request<'_>,
    id: Option<StreamId>,
    now: u64,
) -> (Option<Vec<Reply>>, Vec<Vec<Vec<u8>>>) {
    let mut effects = Vec::new();
    let created = groups_mut(s).modify(req.group, |g| {
        let created = g.create_consumer(req.consumer, now);
        g.touch_consumer(req.consumer, now);
        created
    });
    if created == Some(true) && req.noack {
        // Redis logs this consumer's creation on its own only with NOACK (otherwise the
        // XCLAIMs of its deliveries create it).
        effects.push(
            [&b"XGROUP"[..], b"CREATECONSUMER", key, req.group, req.consumer].iter().map(|a| a.to_vec()).collect(),
        );
    }
    let entries = match id {
        Some(after) => Some(history(s, req, after, now)),
        None => deliver_new(s, key, req, now, &mut effects),
    };
    (entries, effects)
}

/// The consumer's pending entries after `after`, each delivered once more (its time and
/// count updated, as Redis does, though Redis logs nothing of it).
fn history(s: &mut Stream, req: &Request<'_>, after: StreamId, now: u64) -> Vec<Reply> {
    let Some(start) = after.next() else { return Vec::new() };
    let ids: Vec<StreamId> = s
        .groups
        .as_ref()
        .and_then(|gs| gs.get(req.group))
        .and_then(|g| g.consumer(req.consumer))
        .map(|c| c.pel.range(start..).copied().take(if req.count == 0 { usize::MAX } else { req.count }).collect())
        .unwrap_or_default();
    let mut out = Vec::with_capacity(ids.len());
    let mut redelivered = Vec::new();
    for id in ids {
        match s.get(id) {
            Some(fields) => {
                out.push(entry_reply(id, &fields));
                redelivered.push(id);
            }
            None => out.push(deleted_entry_reply(id)),
        }
    }
    groups_mut(s).modify(req.group, |g| {
        for id in redelivered {
            if let Some(nack) = g.nack_mut(id) {
                nack.delivery_time = now;
                nack.delivery_count += 1;
            }
        }
    });
    out
}

/// Delivers the entries after the group's last ID (up to the request's count): the group
/// moves past them and, unless NOACK, each becomes pending for the consumer, logged as the
/// XCLAIM that recreates it, then one XGROUP SETID logs the group's new position.
/// `None` when there is nothing new.
fn deliver_new(
    s: &mut Stream,
    key: &[u8],
    req: &Request<'_>,
    now: u64,
    effects: &mut Vec<Vec<Vec<u8>>>,
) -> Option<Vec<Reply>> {
    let last = s.groups.as_ref()?.get(req.group)?.last_id;
    if s.is_empty() || s.last_id() <= last {
        return None;
    }
    let start = last.next()?;
    let facts = s.facts();
    let take = if req.count == 0 { usize::MAX } else { req.count };
    let mut out = Vec::new();
    let mut ids = Vec::new();
    for (id, fields) in s.range(start, MAX_ID, false).take(take) {
        out.push(entry_reply(id, &fields));
        ids.push(id);
    }
    if ids.is_empty() {
        return None;
    }
    groups_mut(s).modify(req.group, |g| {
        for &id in &ids {
            g.advance(id, &facts);
            if !req.noack {
                let nack = g.assign(id, req.consumer, now, 1);
                let (time, count) = (nack.delivery_time, nack.delivery_count);
                if let Some(c) = g.consumer_mut(req.consumer) {
                    c.active_time = Some(now);
                }
                effects.push(xclaim_effect(key, req.group, req.consumer, id, time, count, g.last_id));
            }
        }
        // The group's new position with its entries-read counter, which the XCLAIMs'
        // LASTID cannot carry: without it a restart would lose the lag. (Redis 7.0-7.2 log
        // it only with NOACK; later versions always, for the same reason.)
        effects.push(setid_effect(key, req.group, g.last_id, g.entries_read));
    });
    Some(out)
}

/// Serves a client blocked in XREADGROUP on `key` (see `crate::blocking`), on the key's
/// locked shard: `None` while there is nothing new for its group (it keeps waiting);
/// otherwise its reply and the commands to log. A destroyed group or a deleted key ends the
/// wait with Redis 7.0's errors.
pub(crate) fn serve_blocked(
    _engine: &Engine,
    db: &mut Locked<'_>,
    key: &[u8],
    op: &BlockOp,
    now: u64,
) -> Option<(Reply, Vec<Vec<Vec<u8>>>)> {
    let BlockOp::XReadGroup { group, consumer, count, noack, resp3 } = op else { return None };
    let ready = match db.peek(key, now) {
        None => return Some((Reply::Error("UNBLOCKED the stream key no longer exists".into()), Vec::new())),
        Some(entry) => match entry.value {
            ValueRef::Stream(s) => match s.groups.as_ref().and_then(|g| g.get(group)) {
                None => {
                    let text = "NOGROUP the consumer group this client was blocked on no longer exists";
                    return Some((Reply::Error(text.into()), Vec::new()));
                }
                Some(g) => s.last_id() > g.last_id,
            },
            // Another type under this name: the client keeps waiting, as Redis's does.
            _ => return None,
        },
    };
    if !ready {
        return None;
    }
    let req = Request { group, consumer, count: *count, noack: *noack };
    let served = crate::cmd::collection::modify(db, key, now, |s: &mut Stream| read_one(s, key, &req, None, now));
    match served {
        Ok(Some((Some(entries), effects))) => Some((streams_reply(*resp3, vec![(key, entries)]), effects)),
        _ => None,
    }
}
