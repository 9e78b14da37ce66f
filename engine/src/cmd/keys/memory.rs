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

/// Redis below this much memory (`used_memory`) declines to diagnose the allocator.
const DOCTOR_MIN_BYTES: u64 = 5 * 1024 * 1024;

/// Redis reports a fragmentation only past this many bytes (and its ratio).
const DOCTOR_FRAG_BYTES: i64 = 10 << 20;

/// MEMORY DOCTOR: Redis's checks and texts on the memory figures (a peak over 150% of what
/// is used now, fragmentation and RSS overheads past their ratios and 10 MB), once
/// `used_memory` reaches 5 MB; and, always, the checks that matter to a cache with a memory
/// limit (nearly full under noeviction, writes refused).
fn memory_doctor_text(ctx: &Ctx<'_>) -> String {
    let engine = ctx.engine;
    let used = engine.store().used_memory() as u64;
    let max = engine.config().maxmemory();
    let policy = engine.config().policy();
    let oom = engine.stats().rejected_oom.load(Relaxed);
    let m = engine.memory_figures();
    let host = engine.host_facts();
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
    let past =
        |a: u64, b: u64, ratio: f64| b > 0 && a as f64 / b as f64 > ratio && a as i64 - b as i64 > DOCTOR_FRAG_BYTES;
    let allocator = if host.allocator_name.is_empty() { "libc" } else { host.allocator_name.as_str() };
    if m.used_memory >= DOCTOR_MIN_BYTES {
        if m.peak as f64 / m.used_memory as f64 > 1.5 {
            issues.push(" * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Vitrine instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Vitrine instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n".into());
        }
        if past(m.rss, m.used_memory, 1.4) {
            issues.push(format!(" * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Vitrine process is much larger than the sum of the logical allocations Vitrine performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Note: The currently used allocator is \"{allocator}\".\n\n"));
        }
        if past(host.allocator_active, host.allocator_bytes, 1.1) {
            issues.push(" * High allocator fragmentation: This instance has an allocator external fragmentation greater than 1.1. This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot.\n\n".into());
        }
        if past(host.allocator_resident, host.allocator_active, 1.1) {
            issues.push(" * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n".into());
        }
        if past(m.rss, host.allocator_resident, 1.1) {
            issues.push(" * High process RSS overhead: This instance has non-allocator RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the Vitrine process is much larger than the RSS the allocator holds).\n\n".into());
        }
    }
    if !issues.is_empty() {
        let mut report = String::from("Sam, I detected a few issues in this Vitrine instance memory implants:\n\n");
        issues.iter().for_each(|i| report.push_str(i));
        report.push_str("I'm here to keep you safe, Sam. I want to help you.\n");
        report
    } else if m.used_memory < DOCTOR_MIN_BYTES {
        "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.".into()
    } else {
        "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base."
            .into()
    }
}
