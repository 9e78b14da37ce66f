//! RESP-port safeguards that are decisions rather than I/O, kept apart from the connection loop
//! so each is unit-tested: protected mode (and the warning when it will refuse every remote
//! client), the unauthenticated-client deadline, clamping `maxclients` to the
//! file-descriptor limit, how much unsent output a connection may build (and when that closes
//! it), and the delay after a wrong password.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use vitrine_engine::BufferLimit;

/// Redis 7.0's reply (networking.c) to a non-loopback client while protected mode is on and no
/// password is set; the connection is closed after it.
pub const DENIED_REPLY: &[u8] = b"-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Set up an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n";

/// Whether protected mode refuses a client from `peer`: on, no password, and the peer is not a
/// loopback address (IPv4-mapped IPv6 loopback included). As in Redis 7.0 the bind addresses
/// do not enter the decision: with a loopback-only bind no remote peer can connect anyway.
pub fn protected_mode_denies(protected_mode: bool, password_set: bool, peer: IpAddr) -> bool {
    protected_mode && !password_set && !is_loopback(peer)
}

/// The warning for a start that will refuse every remote client: a RESP listener on an address
/// other hosts can reach (a wildcard or any non-loopback address), protected mode on, no
/// password. `None` when some client other than loopback can be served, or none can connect.
pub fn protected_mode_warning(listeners: &[SocketAddr], protected_mode: bool, password_set: bool) -> Option<String> {
    let exposed: Vec<String> = listeners.iter().filter(|a| !is_loopback(a.ip())).map(|a| a.to_string()).collect();
    if !protected_mode || password_set || exposed.is_empty() {
        return None;
    }
    Some(format!(
        "protected mode is on and no password is set: clients that are not on loopback will be refused \
         with -DENIED on {} until --requirepass is set or protected mode is turned off \
         (--protected-mode no, or CONFIG SET protected-mode no from loopback)",
        exposed.join(", ")
    ))
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
    }
}

/// The soft `Max open files` limit from `/proc/self/limits` (Linux; `None` elsewhere or when
/// unlimited), read without libc.
pub fn open_files_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    parse_open_files_limit(&text)
}

fn parse_open_files_limit(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..].split_whitespace().next()?.parse().ok()
}

/// File descriptors kept for the server itself (listeners, admin port, AOF, logs), as Redis's
/// `CONFIG_MIN_RESERVED_FDS` (32).
pub const RESERVED_FDS: u64 = 32;

/// `maxclients` clamped so that clients plus the reserved descriptors fit in `fd_limit`.
/// Returns the value to use (never below 1).
pub fn clamp_maxclients(maxclients: u64, fd_limit: Option<u64>) -> u64 {
    match fd_limit {
        Some(limit) if maxclients + RESERVED_FDS > limit => limit.saturating_sub(RESERVED_FDS).max(1),
        _ => maxclients,
    }
}

/// Unsent replies at which a client's commands stop running when the normal class sets no hard
/// limit: back-pressure instead of unbounded output buffering. Its commands run again once
/// the client has read half of it.
pub const OUTPUT_PAUSE: usize = 64 * 1024 * 1024;

/// Unsent replies at which an ordinary client is disconnected when `client-output-buffer-limit
/// normal` sets no hard limit (Redis's default `0 0 0` means unlimited). Commands stop at
/// [`OUTPUT_PAUSE`], so only one reply larger than this (a huge LRANGE) can reach it.
pub const NORMAL_OUTPUT_SAFETY_CAP: usize = 1024 * 1024 * 1024;

/// Unsent replies at which a client that has never authenticated (while a password is set)
/// is closed. Redis 7 closes such a client once its reply list passes 1 KiB (the fix for
/// CVE-2025-21605), and does not count the 16 KiB reply buffer in front of that list; this
/// counts everything unsent, so it allows the two together.
pub const UNAUTHENTICATED_OUTPUT_LIMIT: usize = 16 * 1024 + 1024;

/// What a connection may buffer of unsent replies right now, by the `normal` class of
/// `client-output-buffer-limit` (read again for every check, so `CONFIG SET` reaches open
/// connections as in Redis) and whether the client has authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputPolicy {
    /// Unsent bytes at which the client's commands stop running (`Engine::feed_until`).
    pub stop_at: usize,
    /// Unsent bytes at which the client is closed.
    pub close_at: usize,
    /// The soft limit (0 = none) and how long a client may stay at or over it.
    pub soft: usize,
    pub soft_for: Duration,
}

impl OutputPolicy {
    /// - A client that has not authenticated while a password is required: closed past
    ///   [`UNAUTHENTICATED_OUTPUT_LIMIT`].
    /// - A hard limit: closed at it, as Redis does; commands stop there, so the replies of one
    ///   read never grow far past it.
    /// - No hard limit: commands pause at the soft limit, or at [`OUTPUT_PAUSE`] when that is
    ///   smaller or there is none, until the client reads; [`NORMAL_OUTPUT_SAFETY_CAP`] closes.
    ///
    /// A soft limit closes a client that stays at or over it for longer than its seconds.
    pub fn new(normal: BufferLimit, authenticated: bool) -> OutputPolicy {
        let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        let (soft, soft_for) = (to_usize(normal.soft), Duration::from_secs(normal.soft_seconds));
        if !authenticated {
            let limit = UNAUTHENTICATED_OUTPUT_LIMIT;
            return OutputPolicy { stop_at: limit, close_at: limit, soft: 0, soft_for: Duration::ZERO };
        }
        if normal.hard > 0 {
            let hard = to_usize(normal.hard);
            return OutputPolicy { stop_at: hard, close_at: hard, soft, soft_for };
        }
        let pause = if soft > 0 { soft.min(OUTPUT_PAUSE) } else { OUTPUT_PAUSE };
        OutputPolicy { stop_at: pause, close_at: NORMAL_OUTPUT_SAFETY_CAP, soft, soft_for }
    }

    /// Unsent bytes at or under which commands held back by `stop_at` run again: half of it,
    /// so the buffer is compacted and refilled in large steps, not one reply at a time.
    pub fn resume_at(&self) -> usize {
        self.stop_at / 2
    }
}

/// When a connection's unsent output went over the soft limit, for the soft seconds.
#[derive(Debug, Default, Clone, Copy)]
pub struct SoftLimitClock {
    since: Option<Instant>,
}

impl SoftLimitClock {
    /// Whether `pending` bytes, now, break the soft limit: at or over it for longer than its
    /// seconds, as Redis's `checkClientOutputBufferLimits` (under it, the clock restarts).
    /// `now` is only asked for when the output is over the soft limit.
    pub fn exceeded(&mut self, policy: &OutputPolicy, pending: usize, now: impl FnOnce() -> Instant) -> bool {
        if policy.soft == 0 || pending < policy.soft {
            self.since = None;
            return false;
        }
        let now = now();
        let since = *self.since.get_or_insert(now);
        now.duration_since(since) > policy.soft_for
    }

    /// When to check again if nothing else happens, while the output is over the soft limit.
    pub fn deadline(&self, policy: &OutputPolicy) -> Option<Instant> {
        let since = self.since.filter(|_| policy.soft > 0)?;
        since.checked_add(policy.soft_for + Duration::from_millis(1))
    }
}

/// The first wrong password's delay, doubled for each one after it on the same connection up
/// to [`AUTH_DELAY_CAP`].
pub const AUTH_DELAY_BASE: Duration = Duration::from_millis(100);
pub const AUTH_DELAY_CAP: Duration = Duration::from_secs(1);

/// How long a connection is held back after its `failures`-th wrong password: its reply is
/// sent, and its next command runs, only then. One connection then guesses about once a
/// second instead of hundreds of thousands of times; a person who mistypes waits 100 ms.
pub fn auth_failure_delay(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    let doublings = (failures - 1).min(16);
    AUTH_DELAY_BASE.saturating_mul(1 << doublings).min(AUTH_DELAY_CAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_mode_denies_only_remote_peers_without_a_password() {
        let remote: IpAddr = "10.0.0.7".parse().unwrap();
        let remote6: IpAddr = "2001:db8::1".parse().unwrap();
        for local in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            assert!(!protected_mode_denies(true, false, local.parse().unwrap()), "{local}");
        }
        assert!(protected_mode_denies(true, false, remote));
        assert!(protected_mode_denies(true, false, remote6));
        assert!(protected_mode_denies(true, false, "::ffff:10.0.0.7".parse().unwrap()));
        assert!(!protected_mode_denies(true, true, remote), "a password lifts it");
        assert!(!protected_mode_denies(false, false, remote), "--protected-mode no lifts it");
    }

    #[test]
    fn warns_when_remote_clients_will_all_be_denied() {
        let any: SocketAddr = "0.0.0.0:6379".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:6379".parse().unwrap();
        let v6_local: SocketAddr = "[::1]:6379".parse().unwrap();
        let text = protected_mode_warning(&[local, any], true, false).expect("warns");
        assert!(text.contains("refused with -DENIED on 0.0.0.0:6379 until --requirepass"), "{text}");
        assert!(text.contains("--protected-mode no") && text.contains("CONFIG SET protected-mode no"), "{text}");
        assert!(protected_mode_warning(&["10.0.0.7:6379".parse().unwrap()], true, false).is_some());
        assert!(protected_mode_warning(&[local, v6_local], true, false).is_none(), "loopback only");
        assert!(protected_mode_warning(&[any], true, true).is_none(), "a password");
        assert!(protected_mode_warning(&[any], false, false).is_none(), "protected mode off");
    }

    #[test]
    fn denied_text_is_redis_7s() {
        // Redis 7.0 networking.c: a 1066-character string literal.
        assert_eq!(DENIED_REPLY.len(), 1066);
        assert!(DENIED_REPLY.starts_with(b"-DENIED Redis is running in protected mode"));
    }

    #[test]
    fn open_files_limit_from_proc_limits() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max processes             63353                63353                processes \n\
                    Max open files            64                   1048576              files     \n";
        assert_eq!(parse_open_files_limit(text), Some(64));
        let unlimited = "Max open files            unlimited            unlimited            files     \n";
        assert_eq!(parse_open_files_limit(unlimited), None);
        if cfg!(target_os = "linux") {
            assert!(open_files_limit().is_some());
        }
    }

    #[test]
    fn maxclients_clamped_to_the_fd_limit() {
        assert_eq!(clamp_maxclients(10_000, Some(1_048_576)), 10_000);
        assert_eq!(clamp_maxclients(10_000, Some(1024)), 992);
        assert_eq!(clamp_maxclients(10_000, Some(10)), 1);
        assert_eq!(clamp_maxclients(10_000, None), 10_000);
    }

    fn limit(hard: u64, soft: u64, soft_seconds: u64) -> BufferLimit {
        BufferLimit { hard, soft, soft_seconds }
    }

    #[test]
    fn output_policy_by_the_normal_class() {
        const MB: u64 = 1024 * 1024;
        // Redis's default, 0 0 0: pause at OUTPUT_PAUSE, the safety cap closes.
        let p = OutputPolicy::new(limit(0, 0, 0), true);
        assert_eq!((p.stop_at, p.close_at, p.soft), (OUTPUT_PAUSE, NORMAL_OUTPUT_SAFETY_CAP, 0));
        // A hard limit closes at it, and commands stop there.
        let p = OutputPolicy::new(limit(64 * MB, 16 * MB, 10), true);
        assert_eq!((p.stop_at, p.close_at), (64 << 20, 64 << 20));
        assert_eq!((p.soft, p.soft_for), (16 << 20, Duration::from_secs(10)));
        let p = OutputPolicy::new(limit(512 * MB, 0, 0), true);
        assert_eq!(p.stop_at, 512 << 20, "the user's hard limit, even above OUTPUT_PAUSE");
        // Soft only: pause at the soft limit, at most OUTPUT_PAUSE.
        let p = OutputPolicy::new(limit(0, 16 * MB, 3), true);
        assert_eq!((p.stop_at, p.close_at), (16 << 20, NORMAL_OUTPUT_SAFETY_CAP));
        assert_eq!(OutputPolicy::new(limit(0, 256 * MB, 3), true).stop_at, OUTPUT_PAUSE);
        assert_eq!(p.resume_at(), 8 << 20);
        // Not authenticated: the small limit whatever the class says.
        for class in [limit(0, 0, 0), limit(64 * MB, 16 * MB, 10)] {
            let p = OutputPolicy::new(class, false);
            assert_eq!(
                (p.stop_at, p.close_at, p.soft),
                (UNAUTHENTICATED_OUTPUT_LIMIT, UNAUTHENTICATED_OUTPUT_LIMIT, 0)
            );
        }
    }

    #[test]
    fn soft_limit_closes_only_after_its_seconds_over_it() {
        let p = OutputPolicy::new(limit(0, 1000, 2), true);
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut clock = SoftLimitClock::default();
        assert!(!clock.exceeded(&p, 999, || at(0)));
        assert_eq!(clock.deadline(&p), None);
        assert!(!clock.exceeded(&p, 1000, || at(0)), "the clock starts");
        assert_eq!(clock.deadline(&p), Some(at(2001)));
        assert!(!clock.exceeded(&p, 5000, || at(2000)), "2 s over it is not more than 2 s");
        assert!(clock.exceeded(&p, 1000, || at(2001)));
        // Under the limit in between restarts the clock.
        let mut clock = SoftLimitClock::default();
        assert!(!clock.exceeded(&p, 1000, || at(0)));
        assert!(!clock.exceeded(&p, 10, || at(1500)));
        assert!(!clock.exceeded(&p, 1000, || at(2500)));
        assert!(!clock.exceeded(&p, 1000, || at(4000)));
        assert!(clock.exceeded(&p, 1000, || at(4501)));
        // No soft limit: never.
        let none = OutputPolicy::new(limit(0, 0, 0), true);
        assert!(!SoftLimitClock::default().exceeded(&none, usize::MAX, || at(0)));
    }

    #[test]
    fn wrong_passwords_wait_longer_each_time_up_to_a_second() {
        let ms = |n: u32| auth_failure_delay(n).as_millis();
        assert_eq!(ms(0), 0);
        assert_eq!([ms(1), ms(2), ms(3), ms(4), ms(5), ms(6)], [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(auth_failure_delay(u32::MAX), AUTH_DELAY_CAP);
    }
}
