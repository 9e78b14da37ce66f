//! MEMORY's subcommands: a key's accounted size, the STATS breakdown with Redis's field names,
//! the DOCTOR report, and the allocator subcommands Vitrine answers without an allocator of its own.

use std::sync::atomic::Ordering::Relaxed;

use crate::args::Args;
use crate::engine::Ctx;
use crate::error::CmdError;
use crate::reply::Reply;

use super::container_help;

const MEMORY_HELP: &[&str] = &[
    "DOCTOR",
    "    Return memory problems reports.",
    "MALLOC-STATS",
    "    Return internal statistics report from the memory allocator.",
    "PURGE",
    "    Attempt to purge dirty pages for reclamation by the allocator.",
    "STATS",
    "    Return information about the memory usage of the server.",
    "USAGE <key> [SAMPLES <count>]",
    "    Return memory in bytes used by <key> and its value. Nested values are",
    "    sampled up to <count> times (default: 5, 0 means sample all).",
];

/// A key's accounted bytes (its entry, key and value); nil for a missing key. Values are
/// measured exactly, so SAMPLES changes nothing, but it is validated as Redis validates it
/// (for a missing key too).
///
/// ```text
/// MEMORY USAGE key [SAMPLES count]
/// ```
pub fn memory_usage(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let key = args.key()?;
    while let Some(opt) = args.peek() {
        if !opt.eq_ignore_ascii_case(b"SAMPLES") || args.len() < 2 {
            return Err(CmdError::Syntax);
        }
        args.bytes()?;
        if args.int()? < 0 {
            return Err(CmdError::Syntax);
        }
    }
    let now = ctx.now;
    Ok(ctx.db.shard(key).size_of(key, now).map_or(Reply::Nil, |n| Reply::Int(n as i64)))
}

/// A breakdown of memory use (see `memory_stats_reply`).
///
/// ```text
/// MEMORY STATS
/// ```
pub fn memory_stats(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(memory_stats_reply(ctx))
}

/// A short report of memory problems (see `memory_doctor_text`).
///
/// ```text
/// MEMORY DOCTOR
/// ```
pub fn memory_doctor(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Verbatim(memory_doctor_text(ctx)))
}

/// The allocator's own report (jemalloc's statistics on the server, as Redis prints them);
/// Redis's answer for an allocator without statistics where the host has none.
///
/// ```text
/// MEMORY MALLOC-STATS
/// ```
pub fn memory_malloc_stats(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let text = ctx.engine.allocator_hooks().map(|h| (h.stats_text)()).filter(|t| !t.is_empty());
    Ok(Reply::Verbatim(text.unwrap_or_else(|| "Stats not supported for the current allocator".into())))
}

/// Asks the host's allocator to give its dirty pages back to the system (OK with no
/// allocator to ask, as Redis without jemalloc).
///
/// ```text
/// MEMORY PURGE
/// ```
pub fn memory_purge(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    match ctx.engine.allocator_hooks() {
        Some(h) if !(h.purge)() => Err(CmdError::err("Error purging dirty pages")),
        _ => Ok(Reply::Ok),
    }
}

/// MEMORY's subcommands.
///
/// ```text
/// MEMORY HELP
/// ```
pub fn memory_help(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(container_help(ctx, MEMORY_HELP))
}

/// MEMORY STATS with Redis 7.0's fields in its order (see `MemoryFigures`: `dataset.bytes`
/// is the accounted data, `total.allocated` the data and overhead). Vitrine's per-key
/// overhead is inside the accounted bytes, so each database's `overhead.hashtable.*` is 0;
/// the features Vitrine lacks (replication, AOF buffers, Lua) take 0 bytes, as in Redis
/// without them.
fn memory_stats_reply(ctx: &mut Ctx<'_>) -> Reply {
    let m = ctx.engine.memory_figures();
    let host = ctx.engine.host_facts();
    let snap = ctx.engine.snapshot_in(&mut ctx.db, ctx.now);
    let keys = snap.keys;
    let pct = |part: u64, whole: u64| if whole == 0 { 0.0 } else { part as f64 * 100.0 / whole as f64 };
    let ratio = |a: u64, b: u64| Reply::Double(if b == 0 { 0.0 } else { a as f64 / b as f64 });
    let int = |n: u64| Reply::Int(i64::try_from(n).unwrap_or(i64::MAX));
    let signed = |a: u64, b: u64| Reply::Int(a as i64 - b as i64);
    let beyond_startup = m.used_memory.saturating_sub(m.startup);
    let mut fields: Vec<(String, Reply)> = [
        ("peak.allocated", int(m.peak)),
        ("total.allocated", int(m.used_memory)),
        ("startup.allocated", int(m.startup)),
        ("replication.backlog", int(0)),
        ("clients.slaves", int(0)),
        ("clients.normal", int(0)),
        ("cluster.links", int(0)),
        ("aof.buffer", int(0)),
        ("lua.caches", int(0)),
        ("functions.caches", int(0)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for db in snap.keyspace {
        let overhead = ["overhead.hashtable.main", "overhead.hashtable.expires", "overhead.hashtable.slot-to-keys"];
        let map = overhead.iter().map(|k| (Reply::bulk(*k), int(0))).collect();
        fields.push((format!("db.{}", db.db), Reply::Map(map)));
    }
    let (allocated, active, resident) = (host.allocator_bytes, host.allocator_active, host.allocator_resident);
    fields.extend(
        [
            ("overhead.total", int(m.overhead)),
            ("keys.count", int(keys)),
            ("keys.bytes-per-key", int(beyond_startup.checked_div(keys).unwrap_or(0))),
            ("dataset.bytes", int(m.dataset)),
            ("dataset.percentage", Reply::Double(pct(m.dataset, beyond_startup))),
            ("peak.percentage", Reply::Double(pct(m.used_memory, m.peak))),
            ("allocator.allocated", int(allocated)),
            ("allocator.active", int(active)),
            ("allocator.resident", int(resident)),
            ("allocator-fragmentation.ratio", ratio(active, allocated)),
            ("allocator-fragmentation.bytes", signed(active, allocated)),
            ("allocator-rss.ratio", ratio(resident, active)),
            ("allocator-rss.bytes", signed(resident, active)),
            ("rss-overhead.ratio", ratio(m.rss, resident)),
            ("rss-overhead.bytes", signed(m.rss, resident)),
            ("fragmentation", Reply::Double(m.fragmentation_ratio)),
            ("fragmentation.bytes", Reply::Int(m.fragmentation_bytes)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v)),
    );
    Reply::Map(fields.into_iter().map(|(k, v)| (Reply::bulk(k), v)).collect())
}

/// Redis below this much memory declines to diagnose anything.
const DOCTOR_MIN_BYTES: u64 = 5 * 1024 * 1024;

/// MEMORY DOCTOR: Redis's report texts, with the checks that matter to a cache with a
/// memory limit (nearly full under noeviction, writes refused, allocator far above the
/// accounted bytes).
fn memory_doctor_text(ctx: &Ctx<'_>) -> String {
    let engine = ctx.engine;
    let used = engine.store().used_memory() as u64;
    let max = engine.config().maxmemory();
    let policy = engine.config().policy();
    let oom = engine.stats().rejected_oom.load(Relaxed);
    let allocator = engine.host_facts().allocator_bytes;
    let mut issues = Vec::new();
    if max > 0 && policy == crate::store::limits::Policy::NoEviction && used.saturating_mul(10) >= max.saturating_mul(9)
    {
        issues.push(format!(
            " * Near the memory limit: {used} of {max} bytes are used and the maxmemory-policy is noeviction, so writes will soon be refused. Raise maxmemory or choose an eviction policy.\n\n"
        ));
    }
    if oom > 0 {
        issues.push(format!(
            " * Refused writes: {oom} commands were refused with OOM since the stats were last reset.\n\n"
        ));
    }
    if allocator > DOCTOR_MIN_BYTES && allocator.saturating_mul(2) > used.saturating_mul(3) {
        issues.push(format!(
            " * High allocator overhead: the allocator holds {allocator} bytes for {used} bytes of data (more than 1.5 times). Fragmentation or per-connection buffers may be the cause.\n\n"
        ));
    }
    if !issues.is_empty() {
        let mut report = String::from("Sam, I detected a few issues in this Vitrine instance memory implants:\n\n");
        issues.iter().for_each(|i| report.push_str(i));
        report.push_str("I'm here to keep you safe, Sam. I want to help you.\n");
        report
    } else if used < DOCTOR_MIN_BYTES {
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.".into()
    } else {
        "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base."
            .into()
    }
}
