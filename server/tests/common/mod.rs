//! Shared by the socket-level tests: start the real `vitrine` binary on a free port, talk raw
//! RESP to it with bounded reads, and stop it when the test ends.
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::path::PathBuf;
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
    dir: PathBuf,
}

impl Server {
    /// Starts `vitrine --port 0 --port-file <tmp> <args>` and waits for the port file.
    pub fn start(args: &[&str]) -> Server {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "vitrine-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("create test dir");
        let port_file = dir.join("port");
        let log = std::fs::File::create(dir.join("log")).expect("create log file");
        let mut command = Command::new(env!("CARGO_BIN_EXE_vitrine"));
        command
            .args(["--port", "0", "--bind", "127.0.0.1", "--port-file"])
            .arg(&port_file)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        // Settings from the developer's environment must not leak into a test.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("VITRINE_") {
                command.env_remove(name);
            }
        }
        let child = command.spawn().expect("spawn vitrine");
        let mut server = Server { child, port: 0, dir };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                if let Ok(port) = text.trim().parse() {
                    server.port = port;
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
        let s = TcpStream::connect_timeout(&self.addr(), IO_TIMEOUT).expect("connect");
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_nodelay(true).unwrap();
        s
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
