//! The background task: active expiry `hz` times a second, and once a second the facts only
//! the process knows (pid, port, RSS, ...) handed to the engine for INFO and the dashboard.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use vitrine_engine::{inspect, Engine};
use vitrine_engine::{CpuTimes, HostFacts};

use crate::now_ms;

/// The readiness API tokio's event loops use (mio's), as INFO's `multiplexing_api` names it.
pub const MULTIPLEXING_API: &str = if cfg!(any(target_os = "linux", target_os = "android")) {
    "epoll"
} else if cfg!(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "netbsd",
    target_os = "openbsd",
    target_os = "dragonfly"
)) {
    "kqueue"
} else {
    "poll"
};

/// INFO's `run_id`: 40 random hex digits drawn at start. std's `RandomState` keys its hashers
/// from the OS's random source, so each hasher's output on no input is a random word.
pub fn run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    (0..3)
        .map(|_| format!("{:016x}", std::collections::hash_map::RandomState::new().build_hasher().finish()))
        .collect::<String>()[..40]
        .to_string()
}

/// INFO's `os` as Redis prints it from `uname`: the kernel's name, release and machine
/// (`Linux 6.1.0 x86_64`), read from procfs (no unsafe `uname` call); the build's OS name
/// where there is no procfs.
pub fn os_name() -> String {
    let read = |name: &str| std::fs::read_to_string(format!("/proc/sys/kernel/{name}")).ok();
    match (read("ostype"), read("osrelease")) {
        (Some(os), Some(release)) => format!("{} {} {}", os.trim(), release.trim(), std::env::consts::ARCH),
        _ => std::env::consts::OS.to_string(),
    }
}

/// INFO's `redis_build_id`: a hash of the version and of the executable's size and
/// modification time, so two builds of one version differ (Redis hashes its version, the
/// build host and the build date).
pub fn build_id() -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut h);
    if let Some(meta) = std::env::current_exe().ok().and_then(|p| std::fs::metadata(p).ok()) {
        meta.len().hash(&mut h);
        meta.modified().ok().hash(&mut h);
    }
    format!("{:x}", h.finish())
}

/// Most time one expiry cycle may take at `active-expire-effort 1`, as Redis's slow cycle (25%
/// of a 100 ms tick at hz 10).
const CYCLE_TIME_LIMIT: Duration = Duration::from_millis(25);

const FACTS_EVERY: Duration = Duration::from_secs(1);

/// Runs until shutdown. `facts` carries the fixed facts (pid, port, threads, executable);
/// RSS and the allocators' bytes are read afresh each second.
pub async fn run(engine: Arc<Engine>, mut facts: HostFacts, mut shutdown: watch::Receiver<bool>) {
    read_facts(&mut facts);
    facts.total_system_memory = total_system_memory();
    // The server is ready and holds no data yet: Redis's `used_memory_startup`.
    facts.allocator_startup_bytes = facts.allocator_bytes;
    engine.set_host_facts(facts.clone());
    let mut facts_at = Instant::now();
    loop {
        // Read each tick so `CONFIG SET hz` takes effect at once.
        let hz = u64::from(engine.config().hz().max(1));
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(1000 / hz)) => {}
            _ = shutdown.changed() => return,
        }
        expire_cycle(&engine);
        if facts_at.elapsed() >= FACTS_EVERY {
            engine.track_client_buffers(now_ms());
            if !crate::alloc::release_freed_memory() {
                tracing::debug!("jemalloc refused to decay its arenas");
            }
            read_facts(&mut facts);
            engine.set_host_facts(facts.clone());
            facts_at = Instant::now();
        }
    }
}

/// The facts that change: RSS, the allocators' figures, CPU time.
fn read_facts(facts: &mut HostFacts) {
    facts.rss_bytes = rss_bytes();
    let usage = crate::alloc::usage();
    facts.allocator_bytes = usage.allocated;
    facts.allocator_active = usage.active;
    facts.allocator_resident = usage.resident;
    facts.cpu = cpu_times();
}

/// CPU seconds of the process, its waited-for children and its main thread, from procfs
/// (`/proc/self/stat`, and the main thread's `/proc/self/task/<pid>/stat`), as INFO's
/// `# CPU` reports them; 0 where there is no procfs.
pub fn cpu_times() -> CpuTimes {
    let read = |path: &str| std::fs::read_to_string(path).ok().and_then(|s| parse_stat(&s));
    let process = read("/proc/self/stat").unwrap_or_default();
    let main = read(&format!("/proc/self/task/{}/stat", std::process::id())).unwrap_or_default();
    CpuTimes {
        sys: process.stime,
        user: process.utime,
        sys_children: process.cstime,
        user_children: process.cutime,
        sys_main_thread: main.stime,
        user_main_thread: main.utime,
    }
}

/// The CPU times of a `stat` file, in seconds.
#[derive(Debug, Default, PartialEq)]
struct StatTimes {
    utime: f64,
    stime: f64,
    cutime: f64,
    cstime: f64,
}

/// procfs counts CPU time in USER_HZ ticks, which Linux fixes at 100 a second for every
/// architecture (whatever the kernel's own HZ).
const USER_HZ: f64 = 100.0;

/// utime, stime, cutime and cstime (fields 14 to 17) of a `/proc/.../stat` line. The command
/// name (field 2, in parentheses) may hold spaces and parentheses, so fields are counted after
/// its last closing parenthesis.
fn parse_stat(stat: &str) -> Option<StatTimes> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Field 3 (state) is the first after the name, so field n is at n - 3.
    let secs = |n: usize| -> Option<f64> { Some(fields.get(n - 3)?.parse::<f64>().ok()? / USER_HZ) };
    Some(StatTimes { utime: secs(14)?, stime: secs(15)?, cutime: secs(16)?, cstime: secs(17)? })
}

/// One active-expiry cycle (the engine's, as the playground runs it), bounded by time here:
/// sweeps while more than a quarter of the sampled keys were expired (so many more probably
/// are) and the time limit allows; returns how many sweeps ran.
fn expire_cycle(engine: &Engine) -> usize {
    let start = Instant::now();
    let limit = cycle_time_limit(engine.config().active_expire_effort());
    inspect::expiry_cycle(engine, now_ms(), usize::MAX, || start.elapsed() < limit).rounds
}

/// The time one cycle may take at an `active-expire-effort`: Redis's slow cycle gets 25% of a
/// tick plus 2 points per step of effort above 1 (43% at 10), so 25 ms grows by 2/25 a step.
fn cycle_time_limit(effort: u32) -> Duration {
    let steps = effort.clamp(1, 10) - 1;
    CYCLE_TIME_LIMIT * (25 + 2 * steps) / 25
}

/// The process's resident set size, from `/proc/self/status` (`VmRSS`, in kB, so the page
/// size does not matter); 0 where there is no procfs.
pub fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status").ok().and_then(|s| parse_vm_rss(&s)).unwrap_or(0)
}

fn parse_vm_rss(status: &str) -> Option<u64> {
    parse_kb(status, "VmRSS:")
}

/// The machine's RAM, from `/proc/meminfo` (`MemTotal`); 0 where there is no procfs.
fn total_system_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| parse_kb(&s, "MemTotal:")).unwrap_or(0)
}

/// The `<field> <n> kB` line of a procfs file, in bytes.
fn parse_kb(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vitrine_engine::Config;

    #[test]
    fn effort_lengthens_the_cycle_as_redis() {
        assert_eq!(cycle_time_limit(1), Duration::from_millis(25));
        assert_eq!(cycle_time_limit(10), Duration::from_millis(43));
        assert_eq!(cycle_time_limit(0), Duration::from_millis(25));
    }

    #[test]
    fn vm_rss_is_parsed_in_bytes() {
        let status = "Name:\tvitrine\nVmPeak:\t  20000 kB\nVmRSS:\t    1234 kB\nThreads:\t4\n";
        assert_eq!(parse_vm_rss(status), Some(1234 * 1024));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn rss_of_this_process_is_plausible() {
        let rss = rss_bytes();
        assert!(rss > 100 * 1024 && rss < 64 << 30, "rss {rss}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn total_system_memory_is_plausible() {
        let total = total_system_memory();
        assert!(total > 64 << 20 && total < 1 << 50, "{total}");
    }

    #[test]
    fn stat_gives_cpu_seconds() {
        let stat = "4242 (vitrine (main) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 30 7 4 20 0 9 0";
        let want = StatTimes { utime: 2.5, stime: 0.3, cutime: 0.07, cstime: 0.04 };
        assert_eq!(parse_stat(stat), Some(want));
        assert_eq!(parse_stat("4242 (x) S 1"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn cpu_times_grow_with_work() {
        // procfs counts in 10 ms ticks and the machine may be busy: spin until a tick or
        // two has passed, for at most 5 s.
        let before = cpu_times();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        let mut after = before;
        while after.user + after.sys <= before.user + before.sys + 0.015 && start.elapsed() < Duration::from_secs(5) {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
            after = cpu_times();
        }
        assert!(after.user + after.sys > before.user + before.sys, "{before:?} -> {after:?}");
        assert!(after.user_main_thread + after.sys_main_thread > 0.0 || after.user > 0.0, "{after:?}");
    }

    #[test]
    fn an_empty_engine_takes_one_sweep() {
        let engine = Engine::new(Config::default(), now_ms(), 1);
        assert_eq!(expire_cycle(&engine), 1);
    }
}
