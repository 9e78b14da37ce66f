//! Real tools against a real server: redis-cli's monitoring modes (`--stat`, `--bigkeys`,
//! `--memkeys`, `--latency`, `--latency-history`) and redis_exporter, each reading Vitrine
//! the way it reads a Redis. Each is skipped when its program is missing, except under CI
//! (scripts/test installs them).

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::Server;

/// A server holding a key of every type, the biggest of each type named `big-<type>`.
fn populated() -> Server {
    let server = Server::start(&[]);
    let mut c = redis::Client::open(server.url()).unwrap().get_connection().unwrap();
    let q = |c: &mut redis::Connection, args: &[&str]| {
        let mut cmd = redis::cmd(args[0]);
        args[1..].iter().for_each(|a| {
            cmd.arg(*a);
        });
        cmd.query::<redis::Value>(c).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    };
    let big = "x".repeat(5000);
    q(&mut c, &["SET", "big-string", &big]);
    q(&mut c, &["SET", "small-string", "v"]);
    q(&mut c, &["SET", "ttl-string", "v", "EX", "900"]);
    for i in 0..50 {
        let (n, m) = (i.to_string(), format!("member-{i}"));
        q(&mut c, &["RPUSH", "big-list", &m]);
        q(&mut c, &["SADD", "big-set", &m]);
        q(&mut c, &["ZADD", "big-zset", &n, &m]);
        q(&mut c, &["HSET", "big-hash", &m, &n]);
    }
    q(&mut c, &["RPUSH", "small-list", "a"]);
    q(&mut c, &["SADD", "small-set", "a"]);
    q(&mut c, &["ZADD", "small-zset", "1", "a"]);
    q(&mut c, &["HSET", "small-hash", "f", "v"]);
    server
}

/// redis-cli, or `None` to skip (see `common::tool_or_skip`).
fn redis_cli(test: &str) -> Option<PathBuf> {
    common::tool_or_skip(test, "redis-cli", "redis-tools")
}

/// Runs a command to its end, or for at most `limit` under `timeout` (SIGTERM), with its
/// stdout line-buffered (`stdbuf -oL`: the endless modes print to a pipe in blocks, which
/// the kill would lose).
fn run(program: &PathBuf, args: &[&str], limit: Duration) -> Output {
    let secs = format!("{:.1}", limit.as_secs_f64());
    Command::new("timeout")
        .arg(&secs)
        .args(["stdbuf", "-oL"])
        .arg(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run timeout/stdbuf {program:?}: {e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs redis-cli in `mode` (at most `limit`) against a [`populated`] server: its exit
/// status, stdout and stderr; `None` when redis-cli is missing (skipped).
fn cli_run(test: &str, mode: &[&str], limit: Duration) -> Option<(std::process::ExitStatus, String, String)> {
    let cli = redis_cli(test)?;
    let server = populated();
    let port = server.port.to_string();
    let mut args = vec!["-p", &port];
    args.extend_from_slice(mode);
    let out = run(&cli, &args, limit);
    Some((out.status, text(&out.stdout), text(&out.stderr)))
}

#[test]
fn redis_cli_bigkeys_names_the_biggest_key_of_each_type() {
    let test = "redis_cli_bigkeys_names_the_biggest_key_of_each_type";
    let Some((status, stdout, stderr)) = cli_run(test, &["--bigkeys"], Duration::from_secs(20)) else { return };
    assert!(status.success() && stderr.is_empty(), "{status:?}\n{stdout}\n{stderr}");
    assert!(stdout.contains("Sampled 11 keys in the keyspace!"), "{stdout}");
    for (ty, unit) in [
        ("string", "5000 bytes"),
        ("list", "50 items"),
        ("set", "50 members"),
        ("zset", "50 members"),
        ("hash", "50 fields"),
    ] {
        let line = format!("Biggest {ty:>6} found '\"big-{ty}\"' has {unit}");
        assert!(stdout.contains(&line), "no `{line}` in\n{stdout}");
    }
}

#[test]
fn redis_cli_memkeys_names_the_biggest_key_of_each_type_in_bytes() {
    let test = "redis_cli_memkeys_names_the_biggest_key_of_each_type_in_bytes";
    let Some((status, stdout, stderr)) = cli_run(test, &["--memkeys"], Duration::from_secs(20)) else { return };
    assert!(status.success() && stderr.is_empty(), "{status:?}\n{stdout}\n{stderr}");
    for ty in ["string", "list", "set", "zset", "hash"] {
        let prefix = format!("Biggest {ty:>6} found '\"big-{ty}\"' has ");
        let line =
            stdout.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no {prefix} in\n{stdout}"));
        // MEMORY USAGE's bytes: the 5000-byte string takes more than its value, the others
        // (50 members) more than a few hundred bytes.
        let bytes: u64 = line[prefix.len()..].trim_end_matches(" bytes").parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(bytes > if ty == "string" { 5000 } else { 500 }, "{line}");
    }
}

#[test]
fn redis_cli_stat_prints_keys_memory_and_requests() {
    // --stat runs until stopped: `timeout` ends it after two or three rows.
    let test = "redis_cli_stat_prints_keys_memory_and_requests";
    let Some((_, stdout, stderr)) = cli_run(test, &["--stat", "-i", "1"], Duration::from_millis(2500)) else { return };
    assert!(stderr.is_empty(), "{stderr}");
    assert!(stdout.contains("------- data ------"), "{stdout}");
    let rows: Vec<Vec<&str>> =
        stdout.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).filter(|w| w.first() == Some(&"11")).collect();
    assert!(!rows.is_empty(), "no row with the 11 keys:\n{stdout}");
    for row in rows {
        // keys, mem (used_memory_human: data and overhead, so megabytes, not bytes), clients,
        // blocked, requests (+delta), connections.
        let mem = row[1];
        assert!(mem.ends_with('M') || mem.ends_with('K'), "{row:?}");
        assert!(row[2].parse::<u32>().is_ok_and(|n| n >= 1), "{row:?}");
        assert!(row[4].parse::<u64>().is_ok_and(|n| n > 0), "{row:?}");
    }
}

/// The `min max avg samples` lines redis-cli prints for latency when its output is no terminal.
fn latency_lines(stdout: &str) -> Vec<(u64, u64, f64, u64)> {
    stdout
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w[..] {
                [min, max, avg, n] => Some((min.parse().ok()?, max.parse().ok()?, avg.parse().ok()?, n.parse().ok()?)),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn redis_cli_latency_and_latency_history_measure_round_trips() {
    // Without a terminal --latency samples for a second and prints one line.
    let test = "redis_cli_latency_and_latency_history_measure_round_trips";
    let Some((_, stdout, stderr)) = cli_run(test, &["--latency"], Duration::from_secs(3)) else { return };
    assert!(stderr.is_empty(), "{stderr}");
    let lines = latency_lines(&stdout);
    assert!(!lines.is_empty(), "no latency line in {stdout:?}");
    for (min, max, avg, n) in lines {
        assert!(n > 0 && min <= max && avg <= max as f64 && max < 1000, "{stdout}");
    }
    // --latency-history prints a line per interval (1 s here) until stopped.
    let history = ["--latency-history", "-i", "1"];
    let Some((_, stdout, stderr)) = cli_run(test, &history, Duration::from_millis(3500)) else { return };
    assert!(stderr.is_empty(), "{stderr}");
    let lines = latency_lines(&stdout);
    assert!(!lines.is_empty(), "no latency-history line in {stdout:?}");
    assert!(lines.iter().all(|&(min, max, _, n)| n > 0 && min <= max), "{stdout}");
}

/// redis_exporter: on PATH, or where `go install` (scripts/lib.sh's `ensure_redis_exporter`)
/// puts it, `$GOBIN` or `$GOPATH/bin` (default `~/go/bin`).
fn redis_exporter(test: &str) -> Option<PathBuf> {
    let go_bin = std::env::var_os("GOBIN").map(PathBuf::from).into_iter().chain(
        std::env::var_os("GOPATH")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join("go")))
            .map(|p| p.join("bin")),
    );
    let found = common::find_in_path("redis_exporter")
        .or_else(|| go_bin.map(|d| d.join("redis_exporter")).find(|p| p.is_file()));
    if found.is_none() {
        assert!(
            !common::is_ci(),
            "{test}: redis_exporter is not installed, and CI must run this test (scripts/test installs it)"
        );
        eprintln!(
            "SKIPPED {test}: redis_exporter is not installed (scripts/lib.sh's ensure_redis_exporter installs it)"
        );
    }
    found
}

/// Kills the exporter when the test ends, however it ends.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The value of the first sample of `series` (its name with labels, exactly) in a scrape.
fn sample(metrics: &str, series: &str) -> Option<f64> {
    metrics.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.trim().parse().ok())
}

#[test]
fn redis_exporter_scrapes_vitrine_without_errors() {
    let Some(exporter) = redis_exporter("redis_exporter_scrapes_vitrine_without_errors") else { return };
    let server = populated();
    let web_port = common::free_port();
    let child = Child(
        Command::new(exporter)
            .arg(format!("--redis.addr=redis://127.0.0.1:{}", server.port))
            .arg(format!("--web.listen-address=127.0.0.1:{web_port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start redis_exporter"),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let metrics = loop {
        match common::http::try_request(web_port, "GET", "/metrics", &[]) {
            Ok(r) if r.status == 200 => break r.text(),
            _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            other => panic!("redis_exporter did not serve /metrics: {:?}", other.map(|r| r.status)),
        }
    };
    let value = |series: &str| sample(&metrics, series).unwrap_or_else(|| panic!("no {series} in\n{metrics}"));
    assert_eq!(value("redis_up"), 1.0);
    assert_eq!(value("redis_exporter_last_scrape_error{err=\"\"}"), 0.0);
    assert_eq!(value("redis_target_scrape_request_errors_total"), 0.0);
    assert_eq!(value("redis_db_keys{db=\"db0\"}"), 11.0);
    assert_eq!(value("redis_db_keys_expiring{db=\"db0\"}"), 1.0);
    // Data and overhead: more than the 5000-byte string and the rest, less than a gigabyte.
    let used = value("redis_memory_used_bytes");
    assert!(used > 100_000.0 && used < 1e9, "{used}");
    // RSS over used_memory, as in Redis: single digits on a small server, not ~50,000.
    let frag = value("redis_mem_fragmentation_ratio");
    assert!(frag > 0.5 && frag < 100.0, "{frag}");
    assert_eq!(value("redis_commands_total{cmd=\"set\"}"), 3.0);
    assert_eq!(value("redis_commands_total{cmd=\"rpush\"}"), 51.0);
    assert!(value("redis_cpu_user_seconds_total") >= 0.0);
    assert_eq!(value("redis_config_maxclients"), 10000.0);
    assert!(value("redis_connected_clients") >= 1.0);
    assert_eq!(value("redis_aof_enabled"), 0.0);
    assert_eq!(value("redis_rdb_last_bgsave_status"), 1.0);
    // Not checked yet: SLOWLOG and LATENCY (another part of this issue adds them), whose
    // series (redis_slowlog_length, redis_latency_percentiles_usec) the exporter leaves out
    // while Vitrine answers them with an unknown-command error; it logs that once and still
    // reports the scrape as clean, which the assertions above check.
    drop(child);
}
