//! The pending entries of a group: XACK, XPENDING (summary and extended), XCLAIM and
//! XAUTOCLAIM. Claims are logged as their effect, an XCLAIM per entry that recreates it
//! exactly (Redis's `streamPropagateXCLAIM`).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::stream::{Stream, StreamId};

use super::xgroup::{
    entry_reply, groups_mut, lacks_consumer, log_effects, modify_stream, no_key_or_group, read_stream, setid_effect,
    xclaim_effect,
};

/// XACK: acknowledges entries of a group, removing them from its pending list; answers how
/// many were pending. No key or no group acknowledges nothing.
///
/// ```text
/// XACK key group id [id ...]
/// ```
pub fn xack(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let group = args.bytes()?;
    let id_args = args.rest();
    let exists = read_stream(ctx, key)?.is_some_and(|s| super::xgroup::has_group(s, group));
    if !exists {
        log_effects(ctx, vec![]);
        return Ok(Reply::Int(0));
    }
    // All or nothing: every ID parses before any is acknowledged.
    let ids = id_args.iter().map(|a| StreamId::parse(a, 0, true)).collect::<Result<Vec<_>, _>>()?;
    let acked = modify_stream(ctx, key, |s| {
        Ok(groups_mut(s).modify(group, |g| ids.iter().filter(|&&id| g.ack(id)).count()).unwrap_or(0))
    })?
    .unwrap_or(0);
    if acked == 0 {
        log_effects(ctx, vec![]);
    }
    Ok(Reply::Int(acked as i64))
}

/// XPENDING: with only a key and group, a summary of the group's pending entries (count,
/// smallest and largest ID, count per consumer); with a range and count, the entries
/// themselves (ID, owner, idle time, deliveries), optionally only those idle for IDLE ms or
/// more, or only one consumer's.
///
/// ```text
/// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
/// ```
pub fn xpending(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let argv = ctx.argv;
    let (key, group) = (argv[1], argv[2]);
    if argv.len() != 3 && !(6..=9).contains(&argv.len()) {
        return Err(CmdError::Syntax);
    }
    // The range's arguments are checked before the key, as Redis reports syntax first.
    let mut range = None;
    if argv.len() >= 6 {
        let mut at = 3;
        let mut min_idle = 0;
        if argv[3].eq_ignore_ascii_case(b"IDLE") {
            min_idle = parse_i64(argv[4]).ok_or(CmdError::NotInteger)?;
            if argv.len() < 8 {
                return Err(CmdError::Syntax);
            }
            at += 2;
        }
        let count = parse_i64(argv[at + 2]).ok_or(CmdError::NotInteger)?.max(0);
        let start = StreamId::parse_bound(argv[at], 0, true)?;
        let end = StreamId::parse_bound(argv[at + 1], u64::MAX, false)?;
        let consumer = argv.get(at + 3).copied();
        range = Some((min_idle, start, end, count, consumer));
    }
    let now = ctx.now as i64;
    let Some(s) = read_stream(ctx, key)? else { return Err(no_key_or_group(key, group, "")) };
    let Some(g) = s.groups.as_ref().and_then(|gs| gs.get(group)) else {
        return Err(no_key_or_group(key, group, ""));
    };
    let Some((min_idle, start, end, count, consumer)) = range else {
        let pel = g.pel();
        let (Some((first, _)), Some((last, _))) = (pel.first_key_value(), pel.last_key_value()) else {
            return Ok(Reply::Array(vec![Reply::Int(0), Reply::Nil, Reply::Nil, Reply::NilArray]));
        };
        let owners = g
            .consumers()
            .values()
            .filter(|c| !c.pel.is_empty())
            .map(|c| Reply::Array(vec![Reply::bulk(&c.name), Reply::bulk(c.pel.len().to_string())]))
            .collect();
        return Ok(Reply::Array(vec![
            Reply::Int(pel.len() as i64),
            Reply::bulk(first.to_bytes()),
            Reply::bulk(last.to_bytes()),
            Reply::Array(owners),
        ]));
    };
    let ids: Box<dyn Iterator<Item = StreamId>> = match consumer {
        Some(name) => match g.consumer(name) {
            Some(c) if start <= end => Box::new(c.pel.range(start..=end).copied()),
            Some(_) => Box::new(std::iter::empty()),
            None => return Ok(Reply::Array(vec![])),
        },
        None if start <= end => Box::new(g.pel().range(start..=end).map(|(id, _)| *id)),
        None => Box::new(std::iter::empty()),
    };
    let mut out = Vec::new();
    for id in ids {
        if out.len() as i64 >= count {
            break;
        }
        let Some(nack) = g.pel().get(&id) else { continue };
        let idle = now - nack.delivery_time as i64;
        if min_idle != 0 && idle < min_idle {
            continue;
        }
        out.push(Reply::Array(vec![
            Reply::bulk(id.to_bytes()),
            Reply::bulk(&nack.consumer),
            Reply::Int(idle.max(0)),
            Reply::Int(nack.delivery_count as i64),
        ]));
    }
    Ok(Reply::Array(out))
}

/// XCLAIM's options after its IDs.
#[derive(Default)]
struct ClaimOptions {
    /// The delivery time to set (IDLE or TIME); `None`: now.
    time: Option<i64>,
    retry_count: Option<i64>,
    force: bool,
    just_id: bool,
    last_id: StreamId,
}

/// XCLAIM: gives pending entries idle for at least `min-idle-time` ms to `consumer` (created
/// when missing) and answers them (or their IDs with JUSTID). Entries deleted from the stream
/// leave the pending list. IDLE/TIME set the delivery time, RETRYCOUNT the delivery count,
/// FORCE claims entries not pending yet, LASTID moves the group's last ID forward.
///
/// ```text
/// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
/// ```
pub fn xclaim(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let argv = ctx.argv;
    let (key, group, consumer) = (argv[1], argv[2], argv[3]);
    let has = read_stream(ctx, key)?.is_some_and(|s| super::xgroup::has_group(s, group));
    if !has {
        return Err(no_key_or_group(key, group, ""));
    }
    let min_idle = parse_i64(argv[4]).ok_or_else(|| CmdError::err("Invalid min-idle-time argument for XCLAIM"))?.max(0);
    let mut ids = Vec::new();
    let mut j = 5;
    while j < argv.len() {
        match StreamId::parse(argv[j], 0, true) {
            Ok(id) => ids.push(id),
            Err(_) => break,
        }
        j += 1;
    }
    let now = ctx.now as i64;
    let mut opts = ClaimOptions::default();
    while j < argv.len() {
        let more = argv.len() - 1 - j;
        let opt = argv[j];
        let int = |arg: &[u8], what: &str| {
            parse_i64(arg).ok_or_else(|| CmdError::err(format!("Invalid {what} option argument for XCLAIM")))
        };
        if opt.eq_ignore_ascii_case(b"FORCE") {
            opts.force = true;
        } else if opt.eq_ignore_ascii_case(b"JUSTID") {
            opts.just_id = true;
        } else if opt.eq_ignore_ascii_case(b"IDLE") && more > 0 {
            j += 1;
            opts.time = Some(now.saturating_sub(int(argv[j], "IDLE")?));
        } else if opt.eq_ignore_ascii_case(b"TIME") && more > 0 {
            j += 1;
            opts.time = Some(int(argv[j], "TIME")?);
        } else if opt.eq_ignore_ascii_case(b"RETRYCOUNT") && more > 0 {
            j += 1;
            opts.retry_count = Some(int(argv[j], "RETRYCOUNT")?);
        } else if opt.eq_ignore_ascii_case(b"LASTID") && more > 0 {
            j += 1;
            opts.last_id = StreamId::parse(argv[j], 0, true)?;
        } else {
            return Err(CmdError::err(format!("Unrecognized XCLAIM option '{}'", super::xgroup::lossy(opt))));
        }
        j += 1;
    }
    // A bogus time (negative, or in the future) is taken as now rather than refused.
    let time = match opts.time {
        Some(t) if (0..=now).contains(&t) => t as u64,
        _ => now as u64,
    };
    let now = now as u64;
    let new_consumer = lacks_consumer(ctx, key, group, consumer);
    let claimed =
        modify_stream(ctx, key, |s| Ok(claim(s, key, group, consumer, min_idle as u64, &ids, time, &opts, now)))?;
    if new_consumer {
        ctx.notify(class::STREAM, "xgroup-createconsumer", key);
    }
    let (replies, effects) = claimed.unwrap_or_default();
    log_effects(ctx, effects);
    Ok(Reply::Array(replies))
}

/// XCLAIM's work on the stream: the replies and the commands to log.
#[allow(clippy::too_many_arguments)]
fn claim(
    s: &mut Stream,
    key: &[u8],
    group: &[u8],
    consumer: &[u8],
    min_idle: u64,
    ids: &[StreamId],
    time: u64,
    opts: &ClaimOptions,
    now: u64,
) -> (Vec<Reply>, Vec<Vec<Vec<u8>>>) {
    let mut replies = Vec::new();
    let mut effects = Vec::new();
    let mut moved_last = false;
    groups_mut(s).modify(group, |g| {
        if opts.last_id > g.last_id {
            g.last_id = opts.last_id;
            moved_last = true;
        }
        g.touch_consumer(consumer, now);
    });
    for &id in ids {
        let fields: Option<Vec<Vec<u8>>> = s.get(id).map(|f| f.iter().map(|v| v.to_vec()).collect());
        let logged = groups_mut(s).modify(group, |g| {
            let pending = g.pel().get(&id).cloned();
            let Some(fields) = &fields else {
                // Gone from the stream: it leaves the pending list, logged so a replay
                // drops it too.
                let nack = pending?;
                g.ack(id);
                return Some((
                    None,
                    xclaim_effect(key, group, &nack.consumer, id, nack.delivery_time, nack.delivery_count, g.last_id),
                ));
            };
            let count = match &pending {
                Some(nack) => {
                    if min_idle > 0 && (now as i64).wrapping_sub(nack.delivery_time as i64) < min_idle as i64 {
                        return None;
                    }
                    nack.delivery_count
                }
                // Redis creates a forced entry as delivered once, then counts this claim.
                None if opts.force => 1,
                None => return None,
            };
            let count = match opts.retry_count {
                Some(n) if n >= 0 => n as u64,
                _ if opts.just_id => count,
                _ => count + 1,
            };
            let nack = g.assign(id, consumer, time, count);
            let (t, c) = (nack.delivery_time, nack.delivery_count);
            if let Some(cons) = g.consumer_mut(consumer) {
                cons.active_time = Some(now);
            }
            let reply = if opts.just_id { Reply::bulk(id.to_bytes()) } else { entry_reply_owned(id, fields) };
            Some((Some(reply), xclaim_effect(key, group, consumer, id, t, c, g.last_id)))
        });
        if let Some(Some((reply, effect))) = logged {
            replies.extend(reply);
            effects.push(effect);
        }
    }
    if moved_last && effects.is_empty() {
        let g = s.groups.as_ref().and_then(|gs| gs.get(group));
        if let Some(g) = g {
            effects.push(setid_effect(key, group, g.last_id, g.entries_read));
        }
    }
    (replies, effects)
}

fn entry_reply_owned(id: StreamId, fields: &[Vec<u8>]) -> Reply {
    let fields: Vec<&[u8]> = fields.iter().map(|f| &f[..]).collect();
    entry_reply(id, &fields)
}

/// XAUTOCLAIM: scans the group's pending list from `start` and claims for `consumer` up to
/// COUNT entries (100 by default) idle for at least `min-idle-time` ms, looking at no more
/// than ten times COUNT. Answers the ID to continue from (0-0 at the end), the entries (or
/// their IDs with JUSTID), and the IDs that were pending but deleted from the stream (they
/// leave the pending list).
///
/// ```text
/// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
/// ```
pub fn xautoclaim(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let argv = ctx.argv;
    let (key, group, consumer) = (argv[1], argv[2], argv[3]);
    let min_idle =
        parse_i64(argv[4]).ok_or_else(|| CmdError::err("Invalid min-idle-time argument for XAUTOCLAIM"))?.max(0) as u64;
    let start = StreamId::parse_bound(argv[5], 0, true)?;
    let (mut count, mut just_id) = (100u64, false);
    let mut j = 6;
    while j < argv.len() {
        let more = argv.len() - 1 - j;
        if argv[j].eq_ignore_ascii_case(b"COUNT") && more > 0 {
            // Redis bounds COUNT so that count * 10 attempts cannot overflow.
            let max = (i64::MAX / 16) as u64;
            count = parse_i64(argv[j + 1])
                .and_then(|n| u64::try_from(n).ok())
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| CmdError::err("COUNT must be > 0"))?;
            j += 1;
        } else if argv[j].eq_ignore_ascii_case(b"JUSTID") {
            just_id = true;
        } else {
            return Err(CmdError::Syntax);
        }
        j += 1;
    }
    let has = read_stream(ctx, key)?.is_some_and(|s| super::xgroup::has_group(s, group));
    if !has {
        return Err(no_key_or_group(key, group, ""));
    }
    let now = ctx.now;
    let new_consumer = lacks_consumer(ctx, key, group, consumer);
    let done =
        modify_stream(ctx, key, |s| Ok(autoclaim(s, key, group, consumer, min_idle, start, count, just_id, now)))?;
    if new_consumer {
        ctx.notify(class::STREAM, "xgroup-createconsumer", key);
    }
    let Some((next, claimed, deleted, effects)) = done else { return Ok(Reply::NilArray) };
    log_effects(ctx, effects);
    Ok(Reply::Array(vec![
        Reply::bulk(next.to_bytes()),
        Reply::Array(claimed),
        Reply::Array(deleted.into_iter().map(|id| Reply::bulk(id.to_bytes())).collect()),
    ]))
}

type Autoclaimed = (StreamId, Vec<Reply>, Vec<StreamId>, Vec<Vec<Vec<u8>>>);

/// XAUTOCLAIM's work on the stream: the cursor, the claimed, the deleted and the log.
#[allow(clippy::too_many_arguments)]
fn autoclaim(
    s: &mut Stream,
    key: &[u8],
    group: &[u8],
    consumer: &[u8],
    min_idle: u64,
    start: StreamId,
    mut count: u64,
    just_id: bool,
    now: u64,
) -> Autoclaimed {
    groups_mut(s).modify(group, |g| {
        g.touch_consumer(consumer, now);
    });
    let mut attempts = count.saturating_mul(10);
    let (mut claimed, mut deleted, mut effects) = (Vec::new(), Vec::new(), Vec::new());
    // Where the scan goes on from (`None` past the largest ID there is), and the cursor the
    // reply gives: the first pending entry not looked at, or 0-0 when the scan reached the end.
    let mut from = Some(start);
    let mut next = StreamId::default();
    while let Some(cur) = from {
        let pending = s.groups.as_ref().and_then(|gs| gs.get(group)).and_then(|g| g.pel().range(cur..).next());
        let Some(id) = pending.map(|(id, _)| *id) else { break };
        if attempts == 0 || count == 0 {
            next = id;
            break;
        }
        attempts -= 1;
        from = id.next();
        let fields: Option<Vec<Vec<u8>>> = s.get(id).map(|f| f.iter().map(|v| v.to_vec()).collect());
        let step = groups_mut(s).modify(group, |g| {
            let nack = g.pel().get(&id).cloned()?;
            let Some(fields) = &fields else {
                // Gone from the stream: it leaves the pending list (and counts).
                g.ack(id);
                let (t, c) = (nack.delivery_time, nack.delivery_count);
                return Some((None, xclaim_effect(key, group, &nack.consumer, id, t, c, g.last_id)));
            };
            if min_idle > 0 && (now as i64).wrapping_sub(nack.delivery_time as i64) < min_idle as i64 {
                return None;
            }
            let delivered = if just_id { nack.delivery_count } else { nack.delivery_count + 1 };
            g.assign(id, consumer, now, delivered);
            if let Some(c) = g.consumer_mut(consumer) {
                c.active_time = Some(now);
            }
            let reply = if just_id { Reply::bulk(id.to_bytes()) } else { entry_reply_owned(id, fields) };
            Some((Some(reply), xclaim_effect(key, group, consumer, id, now, delivered, g.last_id)))
        });
        match step.flatten() {
            Some((Some(reply), effect)) => {
                claimed.push(reply);
                effects.push(effect);
                count -= 1;
            }
            Some((None, effect)) => {
                deleted.push(id);
                effects.push(effect);
                count -= 1;
            }
            None => {}
        }
    }
    (next, claimed, deleted, effects)
}
