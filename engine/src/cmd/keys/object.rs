//! OBJECT's subcommands: a value's encoding, LFU counter, idle time and reference count, read
//! without counting as an access.

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;
use crate::store::evict::lfu_decay;

use super::container_help;

const OBJECT_HELP: &[&str] = &[
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>.",
];

const LFU_SELECTED: &str = "An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.";
const LFU_NOT_SELECTED: &str = "An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.";

/// What OBJECT reads of a value (without counting as an access).
enum ObjectField {
    Encoding,
    Freq,
    IdleTime,
    RefCount,
}

/// OBJECT's key subcommands: nil for a missing key, else the field asked for.
fn object_field(ctx: &mut Ctx<'_>, args: &mut Args<'_>, field: ObjectField) -> Result<Reply, CmdError> {
    let key = args.key()?;
    let (engine, now) = (ctx.engine, ctx.now);
    let Some(entry) = ctx.db.peek(key, now) else {
        return Ok(Reply::Nil);
    };
    let policy = engine.config().policy();
    Ok(match field {
        ObjectField::Encoding => Reply::bulk(entry.value.encoding()),
        ObjectField::Freq if !policy.is_lfu() => return Err(CmdError::err(LFU_NOT_SELECTED)),
        ObjectField::Freq => Reply::Int(lfu_decay(&entry, now, engine.config().lfu_decay_time()).into()),
        ObjectField::IdleTime if policy.is_lfu() => return Err(CmdError::err(LFU_SELECTED)),
        ObjectField::IdleTime => {
            Reply::Int(i64::try_from(engine.store().common.idle_ms(&entry, now) / 1000).unwrap_or(i64::MAX))
        }
        // Values are never shared between keys here, so each has exactly one owner.
        ObjectField::RefCount => Reply::Int(1),
    })
}

/// The internal representation of a key's value, as Redis names it; nil for a missing key.
///
/// ```text
/// OBJECT ENCODING key
/// ```
pub fn object_encoding(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    object_field(ctx, args, ObjectField::Encoding)
}

/// A key's LFU counter, decayed to now (only under an LFU policy).
///
/// ```text
/// OBJECT FREQ key
/// ```
pub fn object_freq(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    object_field(ctx, args, ObjectField::Freq)
}

/// Seconds since a key was last accessed (not under an LFU policy).
///
/// ```text
/// OBJECT IDLETIME key
/// ```
pub fn object_idletime(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    object_field(ctx, args, ObjectField::IdleTime)
}

/// References to a key's value: always 1 here.
///
/// ```text
/// OBJECT REFCOUNT key
/// ```
pub fn object_refcount(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    object_field(ctx, args, ObjectField::RefCount)
}

/// OBJECT's subcommands.
///
/// ```text
/// OBJECT HELP
/// ```
pub fn object_help(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(container_help(ctx, OBJECT_HELP))
}
