//! What the tests read about a running server beyond its replies: its memory from
//! `/proc/PID/status`, single fields of `INFO`, and the error of a start-up it refused.

use std::io::Write;
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{cmd, read_line, read_n, show};

/// A field of `/proc/PID/status` in bytes (`VmRSS:`, `VmHWM:` for the peak).
pub fn status_bytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc/PID/status");
    let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field} in status"));
    let kb: u64 = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a number of kB");
    kb * 1024
}

/// Reads one bulk-string reply.
pub fn read_bulk(s: &mut TcpStream) -> Vec<u8> {
    let header = read_line(s);
    let len: usize = std::str::from_utf8(&header[1..header.len() - 2])
        .ok()
        .filter(|_| header[0] == b'$')
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("expected a bulk reply, got {}", show(&header)));
    let mut body = read_n(s, len + 2);
    body.truncate(len);
    body
}

/// One numeric field of `INFO <section>`, or `None` when INFO does not have it.
pub fn info_field(s: &mut TcpStream, section: &str, name: &str) -> Option<u64> {
    s.write_all(&cmd(&["INFO", section])).expect("write INFO");
    let text = String::from_utf8(read_bulk(s)).expect("INFO is text");
    text.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|r| r.strip_prefix(':')))
        .and_then(|v| v.trim().parse().ok())
}

/// Runs `command` (the server, its stderr going to `log`), expects it to exit with an error
/// within 10 s (it is killed otherwise), and returns what it wrote to `log`.
pub fn refused_start(command: &mut Command, log: &Path) -> String {
    let mut child = command.spawn().expect("start the server");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the server") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let err = std::fs::read_to_string(log).unwrap_or_default();
    assert!(status.is_some_and(|s| !s.success()), "it started instead of refusing: {err}");
    err
}
