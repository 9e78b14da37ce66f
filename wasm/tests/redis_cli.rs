//! The playground prints replies exactly as redis-cli does, checked against redis-cli itself:
//! the lines of `tests/cli/format.txt` are typed into `redis-cli --no-raw` (terminal
//! formatting, from stdin) connected to the real `vitrine` server, and into a playground; the
//! two outputs must be the same bytes. The lines avoid anything whose reply depends on the
//! server's random seed or its clock (key order, TTLs, uptime).
//!
//! Needs the server binary (`VITRINE_BIN`, which scripts/test sets) and redis-cli (Debian's
//! redis-tools). Without them the test says so and passes, except under CI, where it fails.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use vitrine_wasm::Playground;

fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|c| c.is_file())
}

/// The prerequisites, or `None` (after saying why) when the test cannot run here.
fn prerequisites() -> Option<(PathBuf, PathBuf)> {
    let vitrine = std::env::var_os("VITRINE_BIN").map(PathBuf::from).filter(|p| p.is_file());
    let redis_cli = find_in_path("redis-cli");
    match (vitrine, redis_cli) {
        (Some(v), Some(c)) => Some((v, c)),
        (v, c) => {
            let why = format!(
                "needs VITRINE_BIN (the vitrine binary; {}) and redis-cli on PATH ({})",
                if v.is_some() { "found" } else { "missing" },
                if c.is_some() { "found" } else { "missing" }
            );
            assert!(!is_ci(), "redis_cli test: {why}, and CI must run it (scripts/test provides both)");
            eprintln!("SKIPPED playground_prints_what_redis_cli_prints: {why}");
            None
        }
    }
}

/// `vitrine` on a free port, killed when dropped.
struct Server {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Server {
    fn start(binary: &PathBuf) -> Server {
        let dir = std::env::temp_dir().join(format!("vitrine-wasm-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let port_file = dir.join("port");
        let _ = std::fs::remove_file(&port_file);
        let mut command = Command::new(binary);
        command
            .args(["--port", "0", "--bind", "127.0.0.1", "--http-port", "0", "--port-file"])
            .arg(&port_file)
            .arg("--dir")
            .arg(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("VITRINE_") {
                command.env_remove(name);
            }
        }
        let child = command.spawn().expect("spawn vitrine");
        let mut server = Server { child, port: 0, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        while server.port == 0 {
            if let Some(port) = std::fs::read_to_string(&port_file).ok().and_then(|t| t.trim().parse().ok()) {
                server.port = port;
            } else if let Ok(Some(status)) = server.child.try_wait() {
                panic!("vitrine exited at start: {status}");
            } else if Instant::now() > deadline {
                panic!("vitrine did not write its port file within 10 s");
            } else {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn playground_prints_what_redis_cli_prints() {
    let Some((vitrine, redis_cli)) = prerequisites() else { return };
    let lines_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cli/format.txt");
    let lines = std::fs::read_to_string(&lines_path).expect("tests/cli/format.txt");

    let server = Server::start(&vitrine);
    let output = Command::new(redis_cli)
        .args(["-h", "127.0.0.1", "-p", &server.port.to_string(), "--no-raw"])
        .stdin(std::fs::File::open(&lines_path).expect("open lines"))
        .stderr(Stdio::inherit())
        .output()
        .expect("run redis-cli");
    assert!(output.status.success(), "redis-cli failed: {}", output.status);
    let expected = String::from_utf8_lossy(&output.stdout);

    let mut pg = Playground::new(1_700_000_000_000.0, 1.0);
    let mut got = String::new();
    for line in lines.lines().filter(|l| !l.trim().is_empty()) {
        let out: Value = serde_json::from_str(&pg.console(line, 1_700_000_000_000.0)).unwrap();
        got.push_str(out["text"].as_str().unwrap());
    }
    if got != expected {
        let (g, e): (Vec<&str>, Vec<&str>) = (got.lines().collect(), expected.lines().collect());
        let at = g.iter().zip(&e).position(|(a, b)| a != b).unwrap_or(g.len().min(e.len()));
        panic!(
            "the playground and redis-cli differ at output line {}:\n  playground: {:?}\n  redis-cli:  {:?}",
            at + 1,
            g.get(at),
            e.get(at)
        );
    }
}
