//! Shared by the socket-level tests: start the real `vitrine` binary (and, for the differential
//! tests, a real `redis-server`) on a free port, talk raw RESP to it with bounded reads, and
//! stop it when the test ends.
#![allow(dead_code)]

pub mod aof;
pub mod http;
pub mod proc;

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest any single read in a test waits.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A running server, killed (and its files removed) when dropped.
pub struct Server {
    child: Child,
    pub port: u16,
    /// The admin HTTP port (0 when the test chose its own `--http-port`).
    pub http_port: u16,
    dir: PathBuf,
}

impl Server {
    /// Starts `vitrine --port 0 --port-file <tmp> <args>` and waits for the port file. Unless
    /// `args` choose their own, the admin HTTP port is a free one too (`--http-port 0`, read
    /// from `--http-port-file`) and `--dir` is the test's scratch directory.
    pub fn start(args: &[&str]) -> Server {
        Server::start_inner(None, args)
    }

    /// Like [`Server::start`], with the process's open-files limit set to `fd_limit` first
    /// (`sh -c 'ulimit -n N; exec vitrine ...'`).
    pub fn start_with_fd_limit(fd_limit: u32, args: &[&str]) -> Server {
        Server::start_inner(Some(fd_limit), args)
    }

    fn start_inner(fd_limit: Option<u32>, args: &[&str]) -> Server {
        let dir = scratch_dir("vitrine");
        let port_file = dir.join("port");
        let http_port_file = dir.join("http-port");
        let log = std::fs::File::create(dir.join("log")).expect("create log file");
        let mut command = match fd_limit {
            None => Command::new(env!("CARGO_BIN_EXE_vitrine")),
            Some(n) => {
                let mut sh = Command::new("sh");
                sh.args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\""), env!("CARGO_BIN_EXE_vitrine")]);
                sh
            }
        };
        command.args(["--port", "0", "--bind", "127.0.0.1", "--port-file"]).arg(&port_file);
        let own_http_port = args.contains(&"--http-port");
        if !own_http_port {
            command.args(["--http-port", "0", "--http-port-file"]).arg(&http_port_file);
        }
        if !args.contains(&"--dir") {
            command.arg("--dir").arg(&dir);
        }
        command.args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
        // Settings from the developer's environment must not leak into a test.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("VITRINE_") {
                command.env_remove(name);
            }
        }
        let child = command.spawn().expect("spawn vitrine");
        let mut server = Server { child, port: 0, http_port: 0, dir };
        let deadline = Instant::now() + START_TIMEOUT;
        let read_port = |path: &Path| std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse::<u16>().ok());
        loop {
            if let Some(port) = read_port(&port_file) {
                let http_port = if own_http_port { Some(0) } else { read_port(&http_port_file) };
                if let Some(http_port) = http_port {
                    server.port = port;
                    server.http_port = http_port;
                    return server;
                }
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("vitrine exited at start ({status}):\n{}", server.log());
            }
            if Instant::now() > deadline {
                panic!("vitrine did not write its port file within {START_TIMEOUT:?}:\n{}", server.log());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// A client connection with bounded reads and writes and Nagle off.
    pub fn connect(&self) -> TcpStream {
        connect_to(self.addr())
    }

    /// What the server logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `limit` for the process to exit by itself.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A client connection to `addr` with bounded reads and writes and Nagle off.
pub fn connect_to(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect_timeout(&addr, IO_TIMEOUT).expect("connect");
    s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

/// A scratch directory for one server process, unique within this test run.
fn scratch_dir(what: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "{what}-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// A real `redis-server`, the reference the differential tests compare Vitrine with: on a free
/// 127.0.0.1 port (never 6379), with no persistence, killed (and its directory removed) when
/// dropped.
pub struct RedisServer {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

impl RedisServer {
    /// How many ports to try: the free port is picked by binding port 0 and letting it go,
    /// so another process may take it before redis-server binds it.
    const ATTEMPTS: usize = 5;

    /// Starts `redis-server` from PATH. When it is not installed this says so and answers
    /// `None` so the caller can skip, except under CI (`CI` set and not `false`/`0`), where
    /// the comparison must run and a missing redis-server fails the test.
    pub fn start_or_skip(test: &str) -> Option<RedisServer> {
        Some(RedisServer::start(&tool_or_skip(test, "redis-server", "redis-server")?))
    }

    /// Starts `binary` on a free port and waits (bounded) until it answers PING.
    pub fn start(binary: &Path) -> RedisServer {
        let mut failures = String::new();
        for attempt in 1..=Self::ATTEMPTS {
            let port = free_port();
            let dir = scratch_dir("redis");
            let log = std::fs::File::create(dir.join("log")).expect("create log file");
            let child = Command::new(binary)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no"])
                .arg("--dir")
                .arg(&dir)
                .stdin(Stdio::null())
                .stdout(log.try_clone().expect("clone log file"))
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
            let mut server = RedisServer { child, port, dir };
            match server.wait_ready() {
                Ok(()) => return server,
                Err(why) => {
                    failures.push_str(&format!("attempt {attempt} on port {port}: {why}\n{}\n", server.log()));
                }
            }
        }
        panic!("redis-server did not start:\n{failures}");
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// A client connection with bounded reads and writes and Nagle off.
    pub fn connect(&self) -> TcpStream {
        connect_to(self.addr())
    }

    /// What redis-server logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    /// Waits until this process (not whatever else might hold the port) answers PING.
    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("exited at start ({status})"));
            }
            if let Ok(pid) = ping_and_pid(self.addr()) {
                if pid == Some(self.child.id()) {
                    return Ok(());
                }
                return Err(format!("another process (pid {pid:?}) answers on the port"));
            }
            if Instant::now() > deadline {
                return Err(format!("no PONG within {START_TIMEOUT:?}"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// PINGs the server at `addr` and answers its `process_id` from `INFO server`.
fn ping_and_pid(addr: SocketAddr) -> std::io::Result<Option<u32>> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_millis(200))?;
    s.set_read_timeout(Some(Duration::from_secs(1)))?;
    s.write_all(&cmd(&["PING"]))?;
    let pong = read_line_io(&mut s)?;
    if pong != b"+PONG\r\n" {
        return Err(std::io::Error::other(format!("PING answered {:?}", show(&pong))));
    }
    s.write_all(&cmd(&["INFO", "server"]))?;
    let header = read_line_io(&mut s)?;
    let len: usize = header
        .strip_prefix(b"$")
        .and_then(|h| h.strip_suffix(b"\r\n"))
        .and_then(|n| std::str::from_utf8(n).ok()?.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("INFO answered {:?}", show(&header))))?;
    let mut body = vec![0; len + 2];
    s.read_exact(&mut body)?;
    let text = String::from_utf8_lossy(&body);
    Ok(text.lines().find_map(|l| l.strip_prefix("process_id:")).and_then(|pid| pid.trim().parse().ok()))
}

/// Reads one line through `\r\n`, reporting errors instead of failing the test.
fn read_line_io(s: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while !line.ends_with(b"\r\n") {
        s.read_exact(&mut byte)?;
        line.push(byte[0]);
    }
    Ok(line)
}

/// A port nobody listens on right now (never Redis's default, 6379).
pub fn free_port() -> u16 {
    loop {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local addr").port();
        if port != 6379 {
            return port;
        }
    }
}

/// The first executable file named `name` on PATH.
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        {
            candidate.is_file()
        }
    })
}

/// A program on PATH, or in /usr/sbin (where Debian keeps `ip`, and which a non-root PATH
/// may lack).
pub fn find_program(name: &str) -> Option<PathBuf> {
    find_in_path(name).or_else(|| Some(Path::new("/usr/sbin").join(name)).filter(|p| p.is_file()))
}

/// The program `name` ([`find_program`]). When it is missing this says so and answers `None`
/// so the caller can skip, except under CI (see [`is_ci`]), where the test must run and a
/// missing program fails it: scripts/test installs every one (`package` is the Debian package
/// that has it).
pub fn tool_or_skip(test: &str, name: &str, package: &str) -> Option<PathBuf> {
    let found = find_program(name);
    if found.is_none() {
        assert!(
            !is_ci(),
            "{test}: {name} is not installed, and CI must run this test (scripts/test installs {package})"
        );
        eprintln!("SKIPPED {test}: {name} is not installed (Debian's {package} has it)");
    }
    found
}

/// Whether this runs under CI, where tests that would skip locally must run.
pub fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A command as a RESP multibulk array.
pub fn cmd(args: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        out.extend_from_slice(a.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out
}

pub fn send(s: &mut TcpStream, bytes: &[u8]) {
    s.write_all(bytes).expect("write");
    s.flush().expect("flush");
}

/// Reads exactly `n` bytes (or fails the test after the read timeout).
pub fn read_n(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut buf = vec![0; n];
    let mut got = 0;
    while got < n {
        match s.read(&mut buf[got..]) {
            Ok(0) => panic!("connection closed after {got} of {n} bytes: {:?}", show(&buf[..got])),
            Ok(k) => got += k,
            Err(e) => panic!("read failed after {got} of {n} bytes ({e}): {:?}", show(&buf[..got])),
        }
    }
    buf
}

/// Reads exactly as many bytes as `expected` and compares.
pub fn expect(s: &mut TcpStream, expected: &[u8]) {
    let got = read_n(s, expected.len());
    assert_eq!(show(&got), show(expected));
}

/// Sends `request` and expects exactly `reply` back.
pub fn roundtrip(s: &mut TcpStream, request: &[u8], reply: &[u8]) {
    send(s, request);
    expect(s, reply);
}

/// Expects the server to close the connection without sending anything more.
pub fn expect_closed(s: &mut TcpStream) {
    let mut buf = [0u8; 256];
    match s.read(&mut buf) {
        Ok(0) => {}
        Ok(n) => panic!("expected the connection closed, got {:?}", show(&buf[..n])),
        // Closing with unread input makes the kernel send RST instead of FIN.
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        Err(e) => panic!("expected the connection closed, got {e}"),
    }
}

/// Expects nothing to arrive within `wait` (the connection still open).
pub fn expect_silence(s: &mut TcpStream, wait: Duration) {
    s.set_read_timeout(Some(wait)).unwrap();
    let mut buf = [0u8; 256];
    let result = s.read(&mut buf);
    s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    match result {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        Ok(0) => panic!("connection closed unexpectedly"),
        Ok(n) => panic!("unexpected bytes: {:?}", show(&buf[..n])),
        Err(e) => panic!("read failed: {e}"),
    }
}

/// Reads one reply line (through `\r\n`).
pub fn read_line(s: &mut TcpStream) -> Vec<u8> {
    let mut line = Vec::new();
    while !line.ends_with(b"\r\n") {
        line.extend(read_n(s, 1));
    }
    line
}

pub fn half_close(s: &TcpStream) {
    let _ = s.shutdown(Shutdown::Write);
}

/// Bytes as text for assertion messages (`\r\n` stays visible).
pub fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace('\r', "\\r").replace('\n', "\\n")
}
