//! XINFO STREAM (and FULL), XINFO GROUPS, XINFO CONSUMERS and XINFO HELP, in Redis 7.2's
//! shapes (7.2 adds a consumer's `inactive` and `active-time` to what 7.0 shows).

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::stream::groups::{Group, StreamFacts};
use crate::store::stream::{Stream, StreamId, MAX_ID, MIN_ID};

use super::xgroup::{entry_reply, lossy, no_group, read_stream};

/// The stream at `key` for XINFO: "no such key" when missing.
fn stream_of<'a>(ctx: &'a mut Ctx<'_>, key: &[u8]) -> Result<&'a Stream, CmdError> {
    read_stream(ctx, key)?.ok_or(CmdError::NoSuchKey)
}

fn id_reply(id: StreamId) -> Reply {
    Reply::bulk(id.to_bytes())
}

fn field(name: &str, value: Reply) -> (Reply, Reply) {
    (Reply::bulk(name), value)
}

/// A count as Redis replies it.
fn int(n: impl TryInto<i64>) -> Reply {
    Reply::Int(n.try_into().unwrap_or(i64::MAX))
}

/// A group's entries-read counter, nil when unknown.
fn entries_read(g: &Group) -> Reply {
    g.entries_read.map_or(Reply::Nil, int)
}

/// A group's lag, nil when it cannot be known.
fn lag(g: &Group, facts: &StreamFacts) -> Reply {
    g.lag(facts).map_or(Reply::Nil, int)
}

/// XINFO GROUPS: each group's name, consumers, pending count, last-delivered ID,
/// entries-read and lag.
///
/// ```text
/// XINFO GROUPS key
/// ```
pub fn xinfo_groups(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let s = stream_of(ctx, key)?;
    let facts = s.facts();
    let groups = s.groups.iter().flat_map(|gs| gs.iter());
    Ok(Reply::Array(
        groups
            .map(|(name, g)| {
                Reply::Map(vec![
                    field("name", Reply::bulk(name)),
                    field("consumers", int(g.consumers().len())),
                    field("pending", int(g.pel().len())),
                    field("last-delivered-id", id_reply(g.last_id)),
                    field("entries-read", entries_read(g)),
                    field("lag", lag(g, &facts)),
                ])
            })
            .collect(),
    ))
}

/// XINFO CONSUMERS: each consumer of a group with its pending count, idle time (since it was
/// last seen) and inactive time (since it last got an entry; -1 if never).
///
/// ```text
/// XINFO CONSUMERS key group
/// ```
pub fn xinfo_consumers(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let group = args.bytes()?;
    let now = ctx.now as i64;
    let s = stream_of(ctx, key)?;
    let Some(g) = s.groups.as_ref().and_then(|gs| gs.get(group)) else { return Err(no_group(key, group)) };
    Ok(Reply::Array(
        g.consumers()
            .values()
            .map(|c| {
                let idle = (now - c.seen_time as i64).max(0);
                let inactive = c.active_time.map_or(-1, |t| now - t as i64);
                Reply::Map(vec![
                    field("name", Reply::bulk(&c.name)),
                    field("pending", int(c.pel.len())),
                    field("idle", Reply::Int(idle)),
                    field("inactive", Reply::Int(inactive)),
                ])
            })
            .collect(),
    ))
}

/// XINFO STREAM: the stream's length, bookkeeping, group count and first and last entries;
/// with FULL, its entries (COUNT of them, 10 by default, 0 for all) and every group with its
/// pending entries and consumers.
///
/// ```text
/// XINFO STREAM key [FULL [COUNT count]]
/// ```
pub fn xinfo_stream(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let opts = args.rest();
    // Redis names the subcommand as it was typed.
    let sub = lossy(ctx.argv[1]);
    let syntax =
        || CmdError::err(format!("unknown subcommand or wrong number of arguments for '{sub}'. Try XINFO HELP."));
    let full = !opts.is_empty();
    let mut count = 10i64;
    if full {
        if (opts.len() != 1 && opts.len() != 3) || !opts[0].eq_ignore_ascii_case(b"FULL") {
            return Err(syntax());
        }
        if opts.len() == 3 {
            if !opts[1].eq_ignore_ascii_case(b"COUNT") {
                return Err(syntax());
            }
            count = parse_i64(opts[2]).ok_or(CmdError::NotInteger)?;
            if count < 0 {
                count = 10;
            }
        }
    }
    let s = stream_of(ctx, key)?;
    let facts = s.facts();
    let keys = s.blocks();
    let mut map = vec![
        field("length", int(s.len())),
        field("radix-tree-keys", int(keys)),
        // Redis's radix tree has inner nodes besides its keys; one more than the keys is what
        // a small stream shows.
        field("radix-tree-nodes", int(keys + 1)),
        field("last-generated-id", id_reply(s.last_id())),
        field("max-deleted-entry-id", id_reply(s.max_deleted_id())),
        field("entries-added", int(s.entries_added())),
        field("recorded-first-entry-id", id_reply(s.first_id())),
    ];
    if !full {
        map.push(field("groups", int(s.groups.as_ref().map_or(0, |g| g.len()))));
        let first = s.first().map_or(Reply::Nil, |(id, f)| entry_reply(id, &f));
        let last = s.last().map_or(Reply::Nil, |(id, f)| entry_reply(id, &f));
        map.push(field("first-entry", first));
        map.push(field("last-entry", last));
        return Ok(Reply::Map(map));
    }
    let limit = if count == 0 { usize::MAX } else { count as usize };
    let entries = s.range(MIN_ID, MAX_ID, false).take(limit).map(|(id, f)| entry_reply(id, &f)).collect();
    map.push(field("entries", Reply::Array(entries)));
    let groups = s.groups.iter().flat_map(|gs| gs.iter()).map(|(name, g)| full_group(name, g, &facts, limit)).collect();
    map.push(field("groups", Reply::Array(groups)));
    Ok(Reply::Map(map))
}

/// One group of XINFO STREAM FULL: at most `limit` pending entries, for it and per consumer.
fn full_group(name: &[u8], g: &Group, facts: &StreamFacts, limit: usize) -> Reply {
    let pending = g
        .pel()
        .iter()
        .take(limit)
        .map(|(id, n)| {
            Reply::Array(vec![id_reply(*id), Reply::bulk(&n.consumer), int(n.delivery_time), int(n.delivery_count)])
        })
        .collect();
    let consumers = g
        .consumers()
        .values()
        .map(|c| {
            let own = c
                .pel
                .iter()
                .take(limit)
                .filter_map(|id| g.pel().get(id).map(|n| (id, n)))
                .map(|(id, n)| Reply::Array(vec![id_reply(*id), int(n.delivery_time), int(n.delivery_count)]))
                .collect();
            Reply::Map(vec![
                field("name", Reply::bulk(&c.name)),
                field("seen-time", int(c.seen_time)),
                field("active-time", c.active_time.map_or(Reply::Int(-1), int)),
                field("pel-count", int(c.pel.len())),
                field("pending", Reply::Array(own)),
            ])
        })
        .collect();
    Reply::Map(vec![
        field("name", Reply::bulk(name)),
        field("last-delivered-id", id_reply(g.last_id)),
        field("entries-read", entries_read(g)),
        field("lag", lag(g, facts)),
        field("pel-count", int(g.pel().len())),
        field("pending", Reply::Array(pending)),
        field("consumers", Reply::Array(consumers)),
    ])
}

/// XINFO HELP.
///
/// ```text
/// XINFO HELP
/// ```
pub fn xinfo_help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(crate::cmd::help_reply(&[
        "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        "HELP",
        "    Prints this help.",
    ]))
}
