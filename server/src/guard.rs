//! RESP-port safeguards that are decisions rather than I/O, kept apart from the connection loop
//! so each is unit-tested: protected mode (and the warning when it will refuse every remote
//! client), the unauthenticated-client deadline, and clamping `maxclients` to the
//! file-descriptor limit.

use std::net::{IpAddr, SocketAddr};

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
}
