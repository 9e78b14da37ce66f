//! The block the server logs once it is up: where the RESP port, the dashboard and the
//! playground are, and what a client needs to reach them. Formatted by a pure function so
//! every case (wildcard binds, IPv6, a password, a token, an unbuilt dashboard) is tested.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;

/// How much of the web app the `--web-dir` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebBuild {
    /// No `index.html`: the admin port serves a placeholder page.
    Missing,
    /// The dashboard is built but the playground's WebAssembly is not (yet): scripts/start
    /// builds it after the server is up, so a person can open the dashboard sooner.
    NoPlayground,
    /// The dashboard and the playground.
    Complete,
}

impl WebBuild {
    /// Looks at `dir` as the dashboard router does (an `index.html`), and for any `*.wasm`
    /// among the built assets (Vite puts them in `assets/`).
    pub fn of(dir: &Path) -> WebBuild {
        if !dir.join("index.html").is_file() {
            WebBuild::Missing
        } else if has_wasm(dir, 3) {
            WebBuild::Complete
        } else {
            WebBuild::NoPlayground
        }
    }
}

/// Whether `dir` or a directory up to `depth` levels below it holds a `*.wasm` file.
fn has_wasm(dir: &Path, depth: u32) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().any(|entry| {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => depth > 0 && has_wasm(&path, depth - 1),
            Ok(_) => path.extension().is_some_and(|e| e == "wasm"),
            Err(_) => false,
        }
    })
}

/// What the block says.
#[derive(Debug, Clone)]
pub struct Listening<'a> {
    pub version: &'a str,
    pub maxmemory: u64,
    pub policy: &'a str,
    pub threads: usize,
    /// Every RESP listener's bound address.
    pub resp: &'a [SocketAddr],
    pub password_set: bool,
    /// The admin port's bound address.
    pub http: SocketAddr,
    pub token_required: bool,
    pub web: WebBuild,
}

/// The block, one line per place. Wildcard addresses are shown as a loopback URL a person can
/// click, with a note that they listen on every interface. The password is never printed.
pub fn banner(l: &Listening<'_>) -> String {
    let mut out = format!(
        "vitrine {} is up ({}, {}, {} event loop{})",
        l.version,
        memory_text(l.maxmemory),
        l.policy,
        l.threads,
        if l.threads == 1 { "" } else { "s" }
    );
    let addrs: Vec<String> = l.resp.iter().map(|a| a.to_string()).collect();
    let all = if l.resp.iter().any(|a| a.ip().is_unspecified()) { " (all interfaces)" } else { "" };
    out.push_str(&format!("\n  RESP        {}{all}", addrs.join(", ")));
    if let Some(first) = l.resp.first() {
        let target = reachable(*first);
        let host = match target.ip() {
            IpAddr::V4(ip) if ip == Ipv4Addr::LOCALHOST => String::new(),
            ip => format!("-h {ip} "),
        };
        let auth = if l.password_set { "   (password required)" } else { "" };
        out.push_str(&format!("\n              redis-cli {host}-p {}{auth}", target.port()));
    }
    let url = format!("http://{}", reachable(l.http));
    let mut notes = Vec::new();
    if l.http.ip().is_unspecified() {
        notes.push("listening on all interfaces");
    }
    if l.web == WebBuild::Missing {
        notes.push("not built: run scripts/start");
    }
    out.push_str(&format!("\n  dashboard   {url}/"));
    if !notes.is_empty() {
        out.push_str(&format!(" ({})", notes.join("; ")));
    }
    match l.web {
        WebBuild::Missing => {}
        WebBuild::NoPlayground => out.push_str(&format!(
            "\n  playground  {url}/playground (building: scripts/start builds it after the server is up)"
        )),
        WebBuild::Complete => out.push_str(&format!("\n  playground  {url}/playground")),
    }
    let admin = match (l.token_required, l.http.ip().is_loopback()) {
        (true, _) => "token required (the dashboard asks for it; API clients send Authorization: Bearer)",
        // Read at start; CONFIG SET requirepass changes it at run time.
        (false, _) if l.password_set => {
            "the RESP password, as there is no admin token (the dashboard asks for it; API clients send \
             Authorization: Bearer <password>)"
        }
        (false, true) => "no token (this machine only)",
        (false, false) => "no token: anyone who can reach the admin port can read and change the cache",
    };
    out.push_str(&format!("\n  admin API   {admin}"));
    out
}

/// Where a person on this machine reaches a listener: a wildcard address (`0.0.0.0`, `::`)
/// becomes the loopback address of its family.
pub fn reachable(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), addr.port()),
        _ => addr,
    }
}

/// `maxmemory` as a person writes it: `8mb`, `1gb`, or bytes when it is not a round amount.
fn memory_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "gb"), (1 << 20, "mb"), (1 << 10, "kb")];
    if bytes == 0 {
        return "no maxmemory".to_string();
    }
    match UNITS.iter().find(|(size, _)| bytes.is_multiple_of(*size)) {
        Some((size, unit)) => format!("maxmemory {}{unit}", bytes / size),
        None => format!("maxmemory {bytes} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    fn listening<'a>(resp: &'a [SocketAddr], http: &str) -> Listening<'a> {
        Listening {
            version: "0.1.0",
            maxmemory: 0,
            policy: "noeviction",
            threads: 1,
            resp,
            password_set: false,
            http: addr(http),
            token_required: false,
            web: WebBuild::Complete,
        }
    }

    #[test]
    fn the_container_demo_block() {
        let resp = [addr("0.0.0.0:6379")];
        let l = Listening {
            maxmemory: 8 << 20,
            policy: "allkeys-lru",
            password_set: true,
            ..listening(&resp, "0.0.0.0:8080")
        };
        assert_eq!(
            banner(&l),
            "vitrine 0.1.0 is up (maxmemory 8mb, allkeys-lru, 1 event loop)\n  \
             RESP        0.0.0.0:6379 (all interfaces)\n  \
             \x20           redis-cli -p 6379   (password required)\n  \
             dashboard   http://127.0.0.1:8080/ (listening on all interfaces)\n  \
             playground  http://127.0.0.1:8080/playground\n  \
             admin API   the RESP password, as there is no admin token (the dashboard asks for it; API clients \
             send Authorization: Bearer <password>)"
        );
    }

    #[test]
    fn the_local_default_block() {
        let resp = [addr("127.0.0.1:6379")];
        let l = Listening { threads: 3, web: WebBuild::NoPlayground, ..listening(&resp, "127.0.0.1:8080") };
        assert_eq!(
            banner(&l),
            "vitrine 0.1.0 is up (no maxmemory, noeviction, 3 event loops)\n  \
             RESP        127.0.0.1:6379\n  \
             \x20           redis-cli -p 6379\n  \
             dashboard   http://127.0.0.1:8080/\n  \
             playground  http://127.0.0.1:8080/playground (building: scripts/start builds it after the server is up)\n  \
             admin API   no token (this machine only)"
        );
    }

    #[test]
    fn an_unbuilt_dashboard_and_a_token() {
        let resp = [addr("127.0.0.1:7000")];
        let l = Listening { web: WebBuild::Missing, token_required: true, ..listening(&resp, "127.0.0.1:9090") };
        let text = banner(&l);
        assert!(text.contains("\n  dashboard   http://127.0.0.1:9090/ (not built: run scripts/start)\n"), "{text}");
        assert!(!text.contains("playground"), "{text}");
        assert!(text.contains("redis-cli -p 7000\n"), "{text}");
        assert!(text.ends_with(
            "admin API   token required (the dashboard asks for it; API clients send Authorization: Bearer)"
        ));
    }

    #[test]
    fn other_addresses_are_named_for_redis_cli() {
        let resp = [addr("[::]:6379"), addr("0.0.0.0:6379")];
        let text = banner(&listening(&resp, "[::]:8080"));
        assert!(text.contains("RESP        [::]:6379, 0.0.0.0:6379 (all interfaces)\n"), "{text}");
        assert!(text.contains("redis-cli -h ::1 -p 6379\n"), "{text}");
        assert!(text.contains("dashboard   http://[::1]:8080/ (listening on all interfaces)\n"), "{text}");
        let l = Listening { web: WebBuild::Missing, ..listening(&resp, "[::]:8080") };
        let text = banner(&l);
        assert!(
            text.contains(
                "dashboard   http://[::1]:8080/ (listening on all interfaces; not built: run scripts/start)\n"
            ),
            "{text}"
        );
        let resp = [addr("10.0.0.5:6379")];
        let text = banner(&listening(&resp, "10.0.0.5:8080"));
        assert!(text.contains("redis-cli -h 10.0.0.5 -p 6379\n"), "{text}");
        assert!(text.contains("dashboard   http://10.0.0.5:8080/\n"), "{text}");
    }

    #[test]
    fn round_memory_amounts_read_as_written() {
        assert_eq!(memory_text(8 << 20), "maxmemory 8mb");
        assert_eq!(memory_text(1 << 30), "maxmemory 1gb");
        assert_eq!(memory_text(1536), "maxmemory 1536 bytes");
        assert_eq!(memory_text(1000), "maxmemory 1000 bytes");
        assert_eq!(memory_text(3 << 10), "maxmemory 3kb");
    }

    #[test]
    fn the_web_dir_says_what_is_built() {
        let dir = std::env::temp_dir().join(format!("vitrine-banner-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("assets")).unwrap();
        assert_eq!(WebBuild::of(&dir), WebBuild::Missing);
        std::fs::write(dir.join("index.html"), "<!doctype html>").unwrap();
        std::fs::write(dir.join("assets/index-abc.js"), "").unwrap();
        assert_eq!(WebBuild::of(&dir), WebBuild::NoPlayground);
        std::fs::write(dir.join("assets/vitrine_wasm_bg-abc.wasm"), "").unwrap();
        assert_eq!(WebBuild::of(&dir), WebBuild::Complete);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(WebBuild::of(&dir), WebBuild::Missing, "a missing directory");
    }
}
