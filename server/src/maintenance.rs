//! The background task: active expiry `hz` times a second, and once a second the facts only
//! the process knows (pid, port, RSS, ...) handed to the engine for INFO and the dashboard.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;
use vitrine_engine::HostFacts;
use vitrine_engine::{inspect, Engine};

use crate::now_ms;

/// Most time one expiry cycle may take at `active-expire-effort 1`, as Redis's slow cycle (25%
/// of a 100 ms tick at hz 10).
const CYCLE_TIME_LIMIT: Duration = Duration::from_millis(25);

const FACTS_EVERY: Duration = Duration::from_secs(1);

/// Runs until shutdown. `facts` carries the fixed facts (pid, port, threads, executable);
/// RSS and the allocators' bytes are read afresh each second.
pub async fn run(engine: Arc<Engine>, mut facts: HostFacts, mut shutdown: watch::Receiver<bool>) {
    facts.rss_bytes = rss_bytes();
    facts.allocator_bytes = crate::alloc::allocated_bytes();
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
            if !crate::alloc::release_freed_memory() {
                tracing::debug!("jemalloc refused to decay its arenas");
            }
            facts.rss_bytes = rss_bytes();
            facts.allocator_bytes = crate::alloc::allocated_bytes();
            engine.set_host_facts(facts.clone());
            facts_at = Instant::now();
        }
    }
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
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line["VmRSS:".len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
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

    #[test]
    fn an_empty_engine_takes_one_sweep() {
        let engine = Engine::new(Config::default(), now_ms(), 1);
        assert_eq!(expire_cycle(&engine), 1);
    }
}
