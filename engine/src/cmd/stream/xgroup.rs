//! Consumer groups' management (XGROUP CREATE, CREATECONSUMER, DELCONSUMER, DESTROY, SETID,
//! HELP) and what the group commands share: the stream and group lookups with Redis's
//! errors, an entry's reply, and the effects a group command logs.

use crate::args::Args;
use crate::cmd::collection;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::notify::class;
use crate::num::parse_i64;
use crate::reply::Reply;
use crate::store::stream::{Stream, StreamGroups, StreamId};

pub(super) use super::read_stream;

// --- Shared by the group commands -------------------------------------------------------------

/// Runs `f` on the stream at `key` (re-measured afterwards); `Ok(None)` when there is no
/// key, WRONGTYPE for another type.
pub(super) fn modify_stream<R>(
    ctx: &mut Ctx<'_>,
    key: &[u8],
    f: impl FnOnce(&mut Stream) -> Result<R, CmdError>,
) -> Result<Option<R>, CmdError> {
    let now = ctx.now;
    collection::modify(&mut ctx.db, key, now, f)?.transpose()
}

/// The stream's groups, created empty on first use.
pub(super) fn groups_mut(s: &mut Stream) -> &mut StreamGroups {
    s.groups.get_or_insert_with(Default::default)
}

/// Drops the groups' box once the last group is gone, so the stream's memory returns to what
/// it was before any group.
pub(super) fn tidy_groups(s: &mut Stream) {
    if s.groups.as_ref().is_some_and(|g| g.is_empty()) {
        s.groups = None;
    }
}

/// Whether group `name` exists on `s`.
pub(super) fn has_group(s: &Stream, name: &[u8]) -> bool {
    s.groups.as_ref().is_some_and(|g| g.get(name).is_some())
}

/// `NOGROUP No such key 'k' or consumer group 'g'` followed by `tail` (XREADGROUP adds
/// where it comes from).
pub(super) fn no_key_or_group(key: &[u8], group: &[u8], tail: &str) -> CmdError {
    CmdError::Other(format!("NOGROUP No such key '{}' or consumer group '{}'{tail}", lossy(key), lossy(group)))
}

/// `NOGROUP No such consumer group 'g' for key name 'k'` (XGROUP, XINFO CONSUMERS).
pub(super) fn no_group(key: &[u8], group: &[u8]) -> CmdError {
    CmdError::Other(format!("NOGROUP No such consumer group '{}' for key name '{}'", lossy(group), lossy(key)))
}

/// An argument as Redis's `%s` prints it: up to its first NUL.
pub(super) fn lossy(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// One entry as the stream commands answer it: `[id, [field, value, ...]]`.
pub(super) fn entry_reply(id: StreamId, fields: &[&[u8]]) -> Reply {
    super::entry_reply((id, fields.to_vec()))
}

/// A pending entry whose stream entry was deleted: `[id, nil]`.
pub(super) fn deleted_entry_reply(id: StreamId) -> Reply {
    Reply::Array(vec![Reply::bulk(id.to_bytes()), Reply::NilArray])
}

/// Sets what the command logs to the append-only file instead of its own argv (nothing at
/// all when `cmds` is empty), as Redis propagates group changes as their effects.
pub(super) fn log_effects(ctx: &mut Ctx<'_>, cmds: Vec<Vec<Vec<u8>>>) {
    ctx.session.log_as = Some(cmds);
}

/// The XCLAIM that recreates pending entry `id` as it is now (Redis's
/// `streamPropagateXCLAIM`): idempotent, with the group's last ID.
pub(super) fn xclaim_effect(
    key: &[u8],
    group: &[u8],
    consumer: &[u8],
    id: StreamId,
    time: u64,
    count: u64,
    last_id: StreamId,
) -> Vec<Vec<u8>> {
    vec![
        b"XCLAIM".to_vec(),
        key.to_vec(),
        group.to_vec(),
        consumer.to_vec(),
        b"0".to_vec(),
        id.to_bytes(),
        b"TIME".to_vec(),
        time.to_string().into_bytes(),
        b"RETRYCOUNT".to_vec(),
        count.to_string().into_bytes(),
        b"FORCE".to_vec(),
        b"JUSTID".to_vec(),
        b"LASTID".to_vec(),
        last_id.to_bytes(),
    ]
}

/// `XGROUP SETID key group id ENTRIESREAD n` (Redis's `streamPropagateGroupID`).
pub(super) fn setid_effect(key: &[u8], group: &[u8], last_id: StreamId, entries_read: Option<u64>) -> Vec<Vec<u8>> {
    let read = entries_read.map_or(-1, |n| n as i64);
    vec![
        b"XGROUP".to_vec(),
        b"SETID".to_vec(),
        key.to_vec(),
        group.to_vec(),
        last_id.to_bytes(),
        b"ENTRIESREAD".to_vec(),
        read.to_string().into_bytes(),
    ]
}

// --- XGROUP -------------------------------------------------------------------------------

/// Redis's reply to a subcommand it cannot parse.
fn subcommand_syntax(ctx: &Ctx<'_>) -> CmdError {
    CmdError::err(format!(
        "unknown subcommand or wrong number of arguments for '{}'. Try XGROUP HELP.",
        lossy(ctx.argv.get(1).copied().unwrap_or_default()).chars().take(128).collect::<String>()
    ))
}

/// The options after `XGROUP CREATE|SETID key group id`: MKSTREAM (CREATE only) and
/// ENTRIESREAD n (`None` = -1, unknown).
fn group_options(ctx: &Ctx<'_>, create: bool) -> Result<(bool, Option<u64>), CmdError> {
    let argv = ctx.argv;
    let (mut mkstream, mut entries_read) = (false, None);
    let mut i = 5;
    while i < argv.len() {
        if create && argv[i].eq_ignore_ascii_case(b"MKSTREAM") {
            mkstream = true;
            i += 1;
        } else if argv[i].eq_ignore_ascii_case(b"ENTRIESREAD") && i + 1 < argv.len() {
            let n = parse_i64(argv[i + 1]).ok_or(CmdError::NotInteger)?;
            if n < 0 && n != -1 {
                return Err(CmdError::err("value for ENTRIESREAD must be positive or -1"));
            }
            entries_read = u64::try_from(n).ok();
            i += 2;
        } else {
            return Err(subcommand_syntax(ctx));
        }
    }
    Ok((mkstream, entries_read))
}

/// The stream for an XGROUP subcommand, with Redis's checks: another type is WRONGTYPE, a
/// missing key its "requires the key to exist" error.
fn existing(ctx: &mut Ctx<'_>, key: &[u8]) -> Result<(), CmdError> {
    match read_stream(ctx, key)? {
        Some(_) => Ok(()),
        None => Err(CmdError::err(
            "The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.",
        )),
    }
}

/// The stream and group for SETID, CREATECONSUMER and DELCONSUMER: NOGROUP when missing.
fn existing_group(ctx: &mut Ctx<'_>, key: &[u8], group: &[u8]) -> Result<(), CmdError> {
    existing(ctx, key)?;
    match read_stream(ctx, key)? {
        Some(s) if has_group(s, group) => Ok(()),
        _ => Err(no_group(key, group)),
    }
}

/// XGROUP CREATE: creates a consumer group at an ID (`$`: the stream's last), creating an
/// empty stream with MKSTREAM.
///
/// ```text
/// XGROUP CREATE key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]
/// ```
pub fn xgroup_create(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let group = args.bytes()?;
    let id_arg = args.bytes()?;
    let (mkstream, entries_read) = group_options(ctx, true)?;
    let exists = read_stream(ctx, key)?.is_some();
    if !exists && !mkstream {
        existing(ctx, key)?;
    }
    if ctx.argv.len() > 8 {
        return Err(subcommand_syntax(ctx));
    }
    let id = if id_arg == b"$" {
        read_stream(ctx, key)?.map_or(StreamId::default(), |s| s.last_id())
    } else {
        StreamId::parse(id_arg, 0, true)?
    };
    if !exists {
        collection::create(ctx.engine, &mut ctx.db, key, Stream::new(), ctx.now);
    }
    let created = modify_stream(ctx, key, |s| Ok(groups_mut(s).create(group, id, entries_read)))?.unwrap_or(false);
    if !created {
        return Err(CmdError::Other("BUSYGROUP Consumer Group name already exists".into()));
    }
    // Logged with `$` resolved, and with MKSTREAM kept (the stream may be new).
    let mut cmd: Vec<Vec<u8>> = ctx.argv.iter().map(|a| a.to_vec()).collect();
    cmd[4] = id.to_bytes();
    log_effects(ctx, vec![cmd]);
    ctx.notify(class::STREAM, "xgroup-create", key);
    Ok(Reply::Ok)
}

/// XGROUP SETID: moves a group's last-delivered ID (`$`: the stream's last), and sets its
/// entries-read counter (unknown unless ENTRIESREAD gives it).
///
/// ```text
/// XGROUP SETID key group <id | $> [ENTRIESREAD entries-read]
/// ```
pub fn xgroup_setid(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let group = args.bytes()?;
    let id_arg = args.bytes()?;
    let (_, entries_read) = group_options(ctx, false)?;
    existing_group(ctx, key, group)?;
    if ctx.argv.len() != 5 && ctx.argv.len() != 7 {
        return Err(subcommand_syntax(ctx));
    }
    let id = modify_stream(ctx, key, |s| {
        let id = if id_arg == b"$" { s.last_id() } else { StreamId::parse(id_arg, 0, false)? };
        groups_mut(s).modify(group, |g| {
            g.last_id = id;
            g.entries_read = entries_read;
        });
        Ok(id)
    })?
    .unwrap_or_default();
    let mut cmd: Vec<Vec<u8>> = ctx.argv.iter().map(|a| a.to_vec()).collect();
    cmd[4] = id.to_bytes();
    log_effects(ctx, vec![cmd]);
    ctx.notify(class::STREAM, "xgroup-setid", key);
    Ok(Reply::Ok)
}

/// XGROUP DESTROY: removes a group, its consumers and pending entries; answers 1, or 0 when
/// there was no such group. Clients blocked reading it get NOGROUP.
///
/// ```text
/// XGROUP DESTROY key group
/// ```
pub fn xgroup_destroy(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let group = args.bytes()?;
    existing(ctx, key)?;
    let destroyed = modify_stream(ctx, key, |s| {
        let gone = s.groups.as_mut().is_some_and(|g| g.destroy(group));
        tidy_groups(s);
        Ok(gone)
    })?
    .unwrap_or(false);
    if !destroyed {
        log_effects(ctx, vec![]);
        return Ok(Reply::Int(0));
    }
    // Waiters on this group must learn it is gone (they are answered NOGROUP).
    ctx.engine.store.common.ready.signal(ctx.db.db(), key);
    ctx.notify(class::STREAM, "xgroup-destroy", key);
    Ok(Reply::Int(1))
}

/// Whether `group` of the stream at `key` exists and lacks `consumer`: a command about to
/// create it (XREADGROUP, XCLAIM, XAUTOCLAIM) then publishes `xgroup-createconsumer`, as
/// Redis does.
pub(super) fn lacks_consumer(ctx: &mut Ctx<'_>, key: &[u8], group: &[u8], consumer: &[u8]) -> bool {
    matches!(read_stream(ctx, key), Ok(Some(s))
        if s.groups.as_ref().and_then(|gs| gs.get(group)).is_some_and(|g| g.consumer(consumer).is_none()))
}

/// XGROUP CREATECONSUMER: creates a consumer in a group; answers 1, or 0 when it exists.
///
/// ```text
/// XGROUP CREATECONSUMER key group consumer
/// ```
pub fn xgroup_createconsumer(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let group = args.bytes()?;
    let consumer = args.bytes()?;
    existing_group(ctx, key, group)?;
    let now = ctx.now;
    let created = modify_stream(ctx, key, |s| Ok(groups_mut(s).modify(group, |g| g.create_consumer(consumer, now))))?
        .flatten()
        .unwrap_or(false);
    if created {
        ctx.notify(class::STREAM, "xgroup-createconsumer", key);
    } else {
        log_effects(ctx, vec![]);
    }
    Ok(Reply::Int(created as i64))
}

/// XGROUP DELCONSUMER: deletes a consumer and its pending entries; answers how many it had.
///
/// ```text
/// XGROUP DELCONSUMER key group consumer
/// ```
pub fn xgroup_delconsumer(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let group = args.bytes()?;
    let consumer = args.bytes()?;
    existing_group(ctx, key, group)?;
    let pending = modify_stream(ctx, key, |s| Ok(groups_mut(s).modify(group, |g| g.delete_consumer(consumer))))?
        .flatten()
        .flatten();
    if pending.is_none() {
        log_effects(ctx, vec![]);
    } else {
        ctx.notify(class::STREAM, "xgroup-delconsumer", key);
    }
    Ok(Reply::Int(pending.unwrap_or(0) as i64))
}

/// XGROUP HELP.
///
/// ```text
/// XGROUP HELP
/// ```
pub fn xgroup_help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(crate::cmd::help_reply(&[
        "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        "HELP",
        "    Prints this help.",
    ]))
}
