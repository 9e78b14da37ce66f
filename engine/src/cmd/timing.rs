//! SLOWLOG and LATENCY: the slow log, the latency monitor's events and the per-command
//! latency histograms, answered as Redis 7 answers them (the data is `crate::timing`'s,
//! recorded by dispatch).

use std::fmt::Write;

use super::help_reply;
use crate::args::Args;
use crate::engine::{Ctx, Engine};
use crate::error::CmdError;
use crate::reply::Reply;
use crate::table;
use crate::timing::{LatencyHistogram, LatencySeries};

/// The newest entries of the slow log (10 by default, -1 for all).
///
/// ```text
/// SLOWLOG GET [count]
/// ```
pub fn slowlog_get(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    const MSG: &str = "count should be greater than or equal to -1";
    if args.len() > 1 {
        // Redis's handler takes at most a count (the row's arity allows more).
        return Err(CmdError::err(format!(
            "unknown subcommand or wrong number of arguments for '{}'. Try SLOWLOG HELP.",
            String::from_utf8_lossy(ctx.argv[1]),
        )));
    }
    let count = match args.rest().first() {
        None => 10,
        Some(arg) => match crate::num::parse_i64(arg) {
            Some(-1) => usize::MAX,
            Some(n) if n >= 0 => n as usize,
            _ => return Err(CmdError::err(MSG)),
        },
    };
    let entries = ctx.engine.timing().slowlog(count);
    Ok(Reply::Array(
        entries
            .into_iter()
            .map(|e| {
                Reply::Array(vec![
                    Reply::Int(e.id as i64),
                    Reply::Int(e.time as i64),
                    Reply::Int(e.duration_us as i64),
                    Reply::Array(e.argv.into_iter().map(Reply::bulk).collect()),
                    Reply::bulk(e.client_addr),
                    Reply::bulk(e.client_name),
                ])
            })
            .collect(),
    ))
}

/// The number of entries in the slow log.
///
/// ```text
/// SLOWLOG LEN
/// ```
pub fn slowlog_len(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Int(ctx.engine.timing().slowlog_len() as i64))
}

/// Clears the slow log.
///
/// ```text
/// SLOWLOG RESET
/// ```
pub fn slowlog_reset(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    ctx.engine.timing().slowlog_reset();
    Ok(Reply::Ok)
}

/// SLOWLOG's subcommands, as Redis lists them.
///
/// ```text
/// SLOWLOG HELP
/// ```
pub fn slowlog_help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(help_reply(&[
        "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        "HELP",
        "    Prints this help.",
    ]))
}

/// The latest sample of every latency event: name, unix time, latency (ms), all-time max.
///
/// ```text
/// LATENCY LATEST
/// ```
pub fn latency_latest(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let events = ctx.engine.timing().latency_events();
    Ok(Reply::Array(
        events
            .into_iter()
            .map(|(name, s)| {
                let (time, ms) = s.latest();
                Reply::Array(vec![
                    Reply::bulk(name),
                    Reply::Int(time as i64),
                    Reply::Int(ms as i64),
                    Reply::Int(s.max as i64),
                ])
            })
            .collect(),
    ))
}

/// An event's samples, oldest first: (unix time, ms) pairs.
///
/// ```text
/// LATENCY HISTORY event
/// ```
pub fn latency_history(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let event = String::from_utf8_lossy(args.bytes()?).into_owned();
    let series = ctx.engine.timing().latency_event(&event).unwrap_or_default();
    Ok(Reply::Array(
        series.samples().map(|(t, ms)| Reply::Array(vec![Reply::Int(t as i64), Reply::Int(ms as i64)])).collect(),
    ))
}

/// Forgets the events named (all without names); how many were forgotten.
///
/// ```text
/// LATENCY RESET [event [event ...]]
/// ```
pub fn latency_reset(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let names = args.rest();
    let timing = ctx.engine.timing();
    let n = if names.is_empty() {
        timing.latency_reset(None)
    } else {
        names.iter().map(|e| timing.latency_reset(Some(e))).sum()
    };
    Ok(Reply::Int(n as i64))
}

/// An ASCII graph of an event's samples.
///
/// ```text
/// LATENCY GRAPH event
/// ```
pub fn latency_graph(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let raw = args.bytes()?;
    let event = String::from_utf8_lossy(raw).into_owned();
    let Some(series) = ctx.engine.timing().latency_event(&event) else {
        return Err(CmdError::err(format!("No samples available for event '{event}'")));
    };
    Ok(Reply::Verbatim(graph(&event, &series, ctx.now / 1000)))
}

/// A human readable analysis of the latency events.
///
/// ```text
/// LATENCY DOCTOR
/// ```
pub fn latency_doctor(ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(Reply::Verbatim(doctor(ctx.engine, ctx.now / 1000)))
}

/// Per-command latency distributions: every command timed, or the ones named (a container
/// names its subcommands too; unknown names are skipped).
///
/// ```text
/// LATENCY HISTOGRAM [command [command ...]]
/// ```
pub fn latency_histogram(ctx: &mut Ctx<'_>, args: &mut Args<'_>) -> Result<Reply, CmdError> {
    let timing = ctx.engine.timing();
    let rows = table::rows();
    let mut wanted: Vec<usize> = Vec::new();
    let names = args.rest();
    if names.is_empty() {
        wanted.extend(0..rows.len());
    } else {
        for name in names {
            let Some(index) = lookup_full(name) else { continue };
            wanted.push(index);
            let cmd = rows[index];
            for sub in cmd.subcommands {
                if let Some(i) = rows.iter().position(|r| std::ptr::eq(*r, sub)) {
                    wanted.push(i);
                }
            }
        }
    }
    let mut out = Vec::new();
    for index in wanted {
        if let Some(h) = timing.histogram(index) {
            out.push((Reply::bulk(rows[index].name.to_ascii_lowercase()), histogram_reply(&h)));
        }
    }
    Ok(Reply::Map(out))
}

/// A percentile as INFO latencystats names it: `%f` without trailing zeros (`50`, `99.9`).
pub fn percentile_name(p: f64) -> String {
    let text = format!("{p:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A command by its full name (`get`, `client|list`), as Redis's `lookupCommandBySds`.
fn lookup_full(name: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(name).ok()?;
    let mut parts = text.splitn(2, '|');
    let (index, cmd) = table::lookup(parts.next()?.as_bytes())?;
    match parts.next() {
        None => Some(index),
        Some(sub) => table::lookup_subcommand(index, cmd, sub.as_bytes()).map(|(i, _)| i),
    }
}

fn histogram_reply(h: &LatencyHistogram) -> Reply {
    Reply::Map(vec![
        (Reply::bulk("calls"), Reply::Int(h.calls as i64)),
        (
            Reply::bulk("histogram_usec"),
            Reply::Map(h.buckets.iter().map(|&(us, n)| (Reply::Int(us as i64), Reply::Int(n as i64))).collect()),
        ),
    ])
}

/// LATENCY's subcommands, as Redis lists them.
///
/// ```text
/// LATENCY HELP
/// ```
pub fn latency_help(_ctx: &mut Ctx<'_>, _args: &mut Args<'_>) -> Result<Reply, CmdError> {
    Ok(help_reply(&[
        "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
        "    If no commands are specified then all histograms are replied.",
        "HELP",
        "    Prints this help.",
    ]))
}

/// Redis's sparkline of an event: a title line, 80 dashes, four rows of `_o#|` and each
/// sample's age as a vertical label.
fn graph(event: &str, series: &LatencySeries, now_s: u64) -> String {
    let samples: Vec<(u64, u64)> = series.samples().collect();
    let (min, max) = samples.iter().fold((u64::MAX, 0), |(lo, hi), s| (lo.min(s.1), hi.max(s.1)));
    let min = if samples.is_empty() { 0 } else { min };
    let mut out = format!("{event} - high {max} ms, low {min} ms (all time high {} ms)\n", series.max);
    out.push_str(&"-".repeat(80));
    out.push('\n');
    let labels: Vec<String> = samples
        .iter()
        .map(|&(t, _)| {
            let age = now_s.saturating_sub(t);
            match age {
                0..=59 => format!("{age}s"),
                60..=3599 => format!("{}m", age / 60),
                3600..=86399 => format!("{}h", age / 3600),
                _ => format!("{}d", age / 86400),
            }
        })
        .collect();
    let values: Vec<f64> = samples.iter().map(|s| s.1 as f64).collect();
    for (n, start) in (0..values.len()).step_by(80).enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let end = (start + 80).min(values.len());
        sparkline(&mut out, &values, &labels, min as f64, max as f64, start..end);
    }
    out
}

/// Renders samples `range` as Redis's filled sparkline of four rows (three steps each).
fn sparkline(out: &mut String, values: &[f64], labels: &[String], min: f64, max: f64, range: std::ops::Range<usize>) {
    const FILL: [char; 3] = ['_', 'o', '#'];
    const ROWS: i64 = 4;
    let steps = 3 * ROWS;
    let relmax = if max - min == 0.0 { 1.0 } else { max - min };
    let step_of = |v: f64| (((v - min) * steps as f64 / relmax) as i64).clamp(0, steps - 1);
    for row in 0..ROWS {
        let line: String = range
            .clone()
            .map(|j| {
                let at = step_of(values[j]) - (ROWS - row - 1) * 3;
                match at {
                    0..=2 => FILL[at as usize],
                    a if a > 2 => '|',
                    _ => ' ',
                }
            })
            .collect();
        let _ = writeln!(out, "{line}");
    }
    // One blank line, then the labels read downwards.
    let _ = writeln!(out, "{}", " ".repeat(range.len()));
    let longest = range.clone().map(|j| labels[j].len()).max().unwrap_or(0);
    for i in 0..longest {
        let line: String = range.clone().map(|j| labels[j].as_bytes().get(i).map_or(' ', |&b| b as char)).collect();
        let _ = writeln!(out, "{line}");
    }
}

/// Mean, mean absolute deviation and the period (seconds per sample) of an event.
fn analyze(series: &LatencySeries, now_s: u64) -> (usize, u64, u64, f64) {
    let samples: Vec<(u64, u64)> = series.samples().collect();
    if samples.is_empty() {
        return (0, 0, 0, 0.0);
    }
    let n = samples.len() as u64;
    let avg = samples.iter().map(|s| s.1).sum::<u64>() / n;
    let mad = samples.iter().map(|s| s.1.abs_diff(avg)).sum::<u64>() / n;
    let oldest = samples.iter().map(|s| s.0).min().unwrap_or(now_s);
    let period = now_s.saturating_sub(oldest).max(1);
    (samples.len(), avg, mad, period as f64 / n as f64)
}

/// Redis's LATENCY DOCTOR report, for the events Vitrine records.
fn doctor(engine: &Engine, now_s: u64) -> String {
    let events = engine.timing().latency_events();
    let config = engine.config();
    let threshold = config.latency_monitor_threshold();
    if events.is_empty() && threshold == 0 {
        return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n".into();
    }
    let mut out = String::new();
    let (mut slowlog_enabled, mut slowlog_tuning, mut slowlog_inspect, mut scheduler) = (false, false, false, false);
    let (mut hz, mut large_objects, mut mass_eviction) = (false, false, false);
    let mut advices = 0;
    for (i, (event, series)) in events.iter().enumerate() {
        if i == 0 {
            out.push_str("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
        }
        let (n, avg, mad, period) = analyze(series, now_s);
        let _ = write!(
            out,
            "{}. {event}: {n} latency spikes (average {avg}ms, mean deviation {mad}ms, period {period:.2} sec). Worst all time event {}ms.",
            i + 1,
            series.max
        );
        match event.as_str() {
            "command" => {
                let slower_than = config.slowlog_log_slower_than();
                if slower_than < 0 {
                    slowlog_enabled = true;
                    advices += 1;
                } else if (slower_than / 1000) as u64 > threshold {
                    slowlog_tuning = true;
                    advices += 1;
                }
                slowlog_inspect = true;
                large_objects = true;
                advices += 2;
            }
            "fast-command" => {
                scheduler = true;
                advices += 1;
            }
            "expire-cycle" => {
                hz = true;
                large_objects = true;
                advices += 2;
            }
            "eviction-cycle" => {
                mass_eviction = true;
                advices += 1;
            }
            _ => {}
        }
        out.push('\n');
    }
    if events.is_empty() && advices == 0 {
        out.push_str("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n");
        return out;
    }
    if advices == 0 {
        out.push_str("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n");
        return out;
    }
    out.push_str("\nI have a few advices for you:\n\n");
    if slowlog_enabled {
        let _ = writeln!(out, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than {}'. If the Slow log is disabled Redis is not able to log slow commands execution for you.", threshold * 1000);
    }
    if slowlog_tuning {
        let _ = writeln!(out, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than {}'.", threshold * 1000);
    }
    if slowlog_inspect {
        out.push_str("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n");
    }
    if scheduler {
        out.push_str("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n  1) Lower the system load.\n  2) Use a computer / VM just for Redis if you are running other software in the same system.\n  3) Check if you have a \"noisy neighbour\" problem.\n  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n");
    }
    if hz && config.hz() < 100 {
        out.push_str("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n");
    }
    if large_objects {
        out.push_str("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n");
    }
    if mass_eviction {
        out.push_str("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n");
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::clock::Clock;
    use crate::testing::{arr, bulk, bulks, encode_command, err, int, ok, TestEngine};
    use crate::Reply;

    fn info(t: &mut TestEngine, section: &str) -> String {
        match t.run(&["INFO", section]) {
            Reply::Verbatim(text) => text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn slowlog_obeys_its_threshold_and_length_and_resets() {
        let mut t = TestEngine::default();
        t.clock.set_step(5_000);
        t.run(&["SET", "k", "v"]);
        assert_eq!(t.run(&["SLOWLOG", "LEN"]), int(0), "10 ms is the default threshold");
        t.run(&["CONFIG", "SET", "slowlog-log-slower-than", "10000"]);
        t.clock.set_step(10_000);
        t.run(&["CLIENT", "SETNAME", "app"]);
        t.run(&["GET", "k"]);
        // Newest first: id, unix time, µs, argv, address, name.
        let Reply::Array(entries) = t.run(&["SLOWLOG", "GET"]) else { panic!() };
        assert_eq!(entries.len(), 2, "CLIENT SETNAME and GET took 10 ms each (CONFIG SET 5 ms)");
        let now_s = (t.now / 1000) as i64;
        assert_eq!(
            entries[0],
            arr(vec![int(1), int(now_s), int(10_000), bulks(&["GET", "k"]), bulk("127.0.0.1:1"), bulk("app")])
        );
        // The SLOWLOG GET itself was slow: logged after it answered.
        let Reply::Array(newest) = t.run(&["SLOWLOG", "GET", "1"]) else { panic!() };
        assert!(matches!(&newest[..], [Reply::Array(e)] if e[0] == int(2) && e[3] == bulks(&["SLOWLOG", "GET"])));
        assert_eq!(t.run(&["SLOWLOG", "GET", "0"]), arr(vec![]));
        let Reply::Array(all) = t.run(&["SLOWLOG", "GET", "-1"]) else { panic!() };
        assert_eq!(all.len(), 5, "the SLOWLOG GETs themselves are slow too");
        for bad in ["-2", "x"] {
            assert_eq!(t.run(&["SLOWLOG", "GET", bad]), err("ERR count should be greater than or equal to -1"));
        }
        assert_eq!(
            t.run(&["SLOWLOG", "get", "1", "2"]),
            err("ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP.")
        );
        t.run(&["CONFIG", "SET", "slowlog-max-len", "2"]);
        assert_eq!(t.run(&["SLOWLOG", "LEN"]), int(2), "trimmed at the next command");
        assert_eq!(t.run(&["SLOWLOG", "RESET"]), ok());
        assert_eq!(t.run(&["SLOWLOG", "LEN"]), int(1), "RESET itself is logged after it runs");
        t.run(&["CONFIG", "SET", "slowlog-log-slower-than", "-1"]);
        t.run(&["SLOWLOG", "RESET"]);
        t.run(&["GET", "k"]);
        assert_eq!(t.run(&["SLOWLOG", "LEN"]), int(0), "-1 turns it off");
        t.clock.set_step(0);
        t.run(&["CONFIG", "SET", "slowlog-log-slower-than", "0"]);
        t.run(&["PING"]);
        assert_eq!(t.run(&["SLOWLOG", "LEN"]), int(2), "0 logs every command");
    }

    #[test]
    fn slowlog_keeps_each_transaction_command_not_exec() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "slowlog-log-slower-than", "0"]);
        t.run(&["SLOWLOG", "RESET"]);
        t.run(&["MULTI"]);
        t.run(&["SET", "a", "1"]);
        t.run(&["INCR", "a"]);
        t.run(&["EXEC"]);
        let Reply::Array(entries) = t.run(&["SLOWLOG", "GET"]) else { panic!() };
        let names: Vec<Reply> = entries
            .iter()
            .map(|e| match e {
                Reply::Array(f) => match &f[3] {
                    Reply::Array(a) => a[0].clone(),
                    _ => panic!(),
                },
                _ => panic!(),
            })
            .collect();
        assert_eq!(names, vec![bulk("INCR"), bulk("SET"), bulk("MULTI"), bulk("SLOWLOG")]);
    }

    #[test]
    fn commandstats_count_time_rejections_and_errors_as_redis() {
        let mut t = TestEngine::default();
        t.clock.set_step(7);
        t.run(&["SET", "k", "v"]);
        t.run(&["SET", "k", "v"]);
        t.run(&["GET"]);
        t.run(&["LPUSH", "k", "x"]);
        t.run(&["NOSUCH"]);
        let text = info(&mut t, "commandstats");
        assert!(
            text.contains("cmdstat_set:calls=2,usec=14,usec_per_call=7.00,rejected_calls=0,failed_calls=0\r\n"),
            "{text}"
        );
        assert!(
            text.contains("cmdstat_get:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n"),
            "{text}"
        );
        assert!(
            text.contains("cmdstat_lpush:calls=1,usec=7,usec_per_call=7.00,rejected_calls=0,failed_calls=1\r\n"),
            "{text}"
        );
        let text = info(&mut t, "errorstats");
        assert_eq!(text, "# Errorstats\r\nerrorstat_ERR:count=2\r\nerrorstat_WRONGTYPE:count=1\r\n");
        assert!(info(&mut t, "default").contains("# Errorstats"));
        let text = info(&mut t, "latencystats");
        assert!(text.contains("latency_percentiles_usec_set:p50=7.000,p99=7.000,p99.9=7.000\r\n"), "{text}");
        assert!(!text.contains("usec_get:"), "a rejected command is not timed");
        t.run(&["CONFIG", "SET", "latency-tracking-info-percentiles", "50 100"]);
        assert!(info(&mut t, "latencystats").contains("latency_percentiles_usec_set:p50=7.000,p100=7.000\r\n"));
        t.run(&["CONFIG", "SET", "latency-tracking", "no"]);
        assert_eq!(info(&mut t, "latencystats"), "# Latencystats\r\n");
        t.run(&["CONFIG", "RESETSTAT"]);
        assert_eq!(info(&mut t, "errorstats"), "# Errorstats\r\n");
        assert!(!info(&mut t, "commandstats").contains("cmdstat_set"));
    }

    /// Dispatch tallies a pipeline's calls per connection (`CallTally`) and adds them to the
    /// shared figures when the command changes, before a command without keys, and when
    /// `feed` returns: INFO in the same pipeline, and another connection afterwards, must
    /// both see every call, with its time and in the histogram.
    #[test]
    fn a_pipelines_calls_are_counted_before_info_reads_them() {
        let mut t = TestEngine::default();
        t.clock.set_step(3);
        let mut input = Vec::new();
        for argv in [&["SET", "k", "v"][..], &["GET", "k"], &["GET", "k"], &["GET", "k"], &["INFO", "commandstats"]] {
            encode_command(&mut input, argv);
        }
        let mut out = Vec::new();
        let used = t.engine.feed(&mut t.session, &input, &mut out, t.now).unwrap();
        assert_eq!(used, input.len());
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("cmdstat_get:calls=3,usec=9,"), "{text}");
        assert!(text.contains("cmdstat_set:calls=1,usec=3,"), "{text}");
        assert!(!text.contains("cmdstat_info"), "INFO does not count itself: {text}");
        // A run of durations that changes midway lands in the histogram in full.
        t.clock.set_step(1000);
        input.clear();
        encode_command(&mut input, &["GET", "k"]);
        t.engine.feed(&mut t.session, &input, &mut out, t.now).unwrap();
        let mut other = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
        let Reply::Verbatim(text) = t.engine.call(&mut other, &["INFO", "commandstats"], t.now) else {
            panic!("INFO answers text")
        };
        assert!(text.contains("cmdstat_get:calls=4,usec=1009,"), "{text}");
        assert!(text.contains("cmdstat_info:calls=1,"), "{text}");
        let histogram = t.engine.timing().histogram(crate::table::lookup(b"GET").unwrap().0).expect("GET was timed");
        assert_eq!(histogram.calls, 4);
        assert_eq!(t.engine.snapshot(t.now).commands_processed, 7);
    }

    #[test]
    fn latency_monitor_records_commands_over_its_threshold() {
        let mut t = TestEngine::default();
        assert!(matches!(t.run(&["LATENCY", "DOCTOR"]), Reply::Verbatim(s) if s.starts_with("I'm sorry, Dave")));
        t.clock.set_step(30_000);
        t.run(&["SET", "k", "v"]);
        assert_eq!(t.run(&["LATENCY", "LATEST"]), arr(vec![]), "off by default");
        t.run(&["CONFIG", "SET", "latency-monitor-threshold", "20"]);
        t.run(&["GET", "k"]);
        t.advance(1000);
        t.run(&["KEYS", "*"]);
        let now_s = (t.now / 1000) as i64;
        assert_eq!(
            t.run(&["LATENCY", "LATEST"]),
            arr(vec![
                arr(vec![bulk("command"), int(now_s), int(30), int(30)]),
                arr(vec![bulk("fast-command"), int(now_s - 1), int(30), int(30)])
            ]),
            "CONFIG SET and GET (fast) in one second, KEYS in the next"
        );
        let Reply::Array(history) = t.run(&["LATENCY", "HISTORY", "command"]) else { panic!() };
        assert_eq!(history.len(), 2);
        assert_eq!(t.run(&["LATENCY", "HISTORY", "nope"]), arr(vec![]));
        assert!(
            matches!(t.run(&["LATENCY", "GRAPH", "command"]), Reply::Verbatim(s) if s.starts_with("command - high 30 ms, low 30 ms (all time high 30 ms)\n"))
        );
        assert_eq!(t.run(&["LATENCY", "GRAPH", "nope"]), err("ERR No samples available for event 'nope'"));
        assert!(matches!(t.run(&["LATENCY", "DOCTOR"]), Reply::Verbatim(s) if s.contains("1. command: ")));
        assert_eq!(t.run(&["LATENCY", "RESET", "COMMAND", "nope"]), int(1));
        assert_eq!(t.run(&["LATENCY", "RESET"]), int(2), "fast-command, and the RESET's own sample");
    }

    #[test]
    fn a_pipeline_reads_the_clock_once_per_command() {
        let mut t = TestEngine::default();
        t.clock.set_step(5);
        let mut out = Vec::new();
        let input = b"SET a 1\r\nNOSUCH\r\nSET b 2\r\nGET a\r\n";
        t.engine.feed(&mut t.session, input, &mut out, t.now).unwrap();
        // Five readings for four commands: the start, and one as each ended (NOSUCH, refused,
        // is not timed; its reading starts the next SET). Each timed command took one step.
        t.clock.set_step(0);
        let text = info(&mut t, "commandstats");
        assert!(text.contains("cmdstat_set:calls=2,usec=10,usec_per_call=5.00,"), "{text}");
        assert!(text.contains("cmdstat_get:calls=1,usec=5,usec_per_call=5.00,"), "{text}");
        assert_eq!(t.clock.now_us(), 25);
    }

    #[test]
    fn the_expire_and_eviction_cycles_are_monitored_too() {
        let mut t = TestEngine::default();
        t.run(&[
            "CONFIG",
            "SET",
            "latency-monitor-threshold",
            "1",
            "maxmemory",
            "1mb",
            "maxmemory-policy",
            "allkeys-lru",
        ]);
        t.clock.set_step(2_000);
        t.engine.sweep(t.now, 10);
        t.run(&["SET", "k", "v"]);
        let Reply::Array(latest) = t.run(&["LATENCY", "LATEST"]) else { panic!() };
        let names: Vec<Reply> = latest
            .iter()
            .map(|e| match e {
                Reply::Array(f) => f[0].clone(),
                _ => panic!(),
            })
            .collect();
        // In the order first seen: the sweep, SET's room, then SET itself.
        assert_eq!(names, vec![bulk("expire-cycle"), bulk("eviction-cycle"), bulk("command")]);
        assert_eq!(
            t.run(&["LATENCY", "HISTORY", "expire-cycle"]),
            arr(vec![arr(vec![int((t.now / 1000) as i64), int(2)])])
        );
    }

    #[test]
    fn latency_histogram_answers_each_timed_command() {
        let mut t = TestEngine::default();
        t.clock.set_step(3);
        t.run(&["SET", "k", "v"]);
        t.run(&["CONFIG", "GET", "hz"]);
        let histogram = |calls: i64, us: i64| {
            Reply::Map(vec![
                (bulk("calls"), int(calls)),
                (bulk("histogram_usec"), Reply::Map(vec![(int(us), int(calls))])),
            ])
        };
        assert_eq!(t.run(&["LATENCY", "HISTOGRAM", "set", "nosuch"]), Reply::Map(vec![(bulk("set"), histogram(1, 3))]));
        assert_eq!(t.run(&["LATENCY", "HISTOGRAM", "config"]), Reply::Map(vec![(bulk("config|get"), histogram(1, 3))]));
        let Reply::Map(all) = t.run(&["LATENCY", "HISTOGRAM"]) else { panic!() };
        assert_eq!(all.len(), 3, "set, config|get and latency|histogram: {all:?}");
    }
}
