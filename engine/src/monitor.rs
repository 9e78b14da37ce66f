//! MONITOR: every command run is shown to the clients in monitor mode, as a line in Redis's
//! format (`+1339518083.107412 [0 127.0.0.1:60866] "keys" "*"`), pushed to their outbox like
//! a pub/sub message; and, for the dashboard, kept as structured events in a bounded ring
//! while a page watches (the server streams them, the playground polls them).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::clients::Client;
use crate::config::BufferLimit;

/// Events the dashboard's ring keeps: enough for a page that polls every second or so.
pub const RING_CAPACITY: usize = 1000;

/// How long the ring keeps recording after the dashboard last read it: a page that went
/// away stops costing anything soon after.
const RING_LINGER_MS: u64 = 10_000;

/// Arguments the dashboard's event keeps per command, and bytes per argument.
const EVENT_MAX_ARGS: usize = 32;
const EVENT_MAX_ARG_BYTES: usize = 256;

/// One command as the dashboard's monitor shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorEvent {
    /// Increasing, so a reader asks for what came after the last one it saw.
    pub seq: u64,
    pub time_us: u64,
    pub db: usize,
    pub client_id: u64,
    /// `ip:port`, or `lua`.
    pub addr: String,
    pub name: Option<String>,
    /// The arguments, each as Redis's monitor line quotes it (cut when long).
    pub args: Vec<String>,
}

/// The clients in monitor mode and the dashboard's ring.
#[derive(Default)]
pub struct Monitors {
    clients: Mutex<Vec<Arc<Client>>>,
    /// Monitor clients plus 1 while the ring records: dispatch's one-load fast path.
    active: AtomicUsize,
    ring: Mutex<VecDeque<MonitorEvent>>,
    next_seq: AtomicU64,
    /// Until when (engine ms) the ring records; 0 = it does not.
    ring_until: AtomicU64,
}

/// What dispatch tells the monitors about one command.
pub struct Seen<'a> {
    pub client: &'a Client,
    pub db: usize,
    pub argv: &'a [&'a [u8]],
    pub time_us: u64,
    pub now_ms: u64,
}

impl Monitors {
    /// Whether anyone looks (one relaxed load, on every command).
    #[inline]
    pub fn any(&self) -> bool {
        self.active.load(Relaxed) > 0
    }

    fn recount(&self, clients: usize, now_ms: u64) {
        let ring = usize::from(self.ring_until.load(Relaxed) > now_ms);
        self.active.store(clients + ring, Relaxed);
    }

    /// Puts a client in monitor mode (MONITOR); again is a no-op.
    pub fn add(&self, client: Arc<Client>, now_ms: u64) {
        let mut clients = self.clients.lock();
        if !clients.iter().any(|c| c.id == client.id) {
            client.monitor.store(true, Relaxed);
            clients.push(client);
        }
        self.recount(clients.len(), now_ms);
    }

    /// Takes a client out of monitor mode (RESET, disconnect).
    pub fn remove(&self, id: u64, now_ms: u64) {
        let mut clients = self.clients.lock();
        clients.retain(|c| {
            if c.id == id {
                c.monitor.store(false, Relaxed);
            }
            c.id != id
        });
        self.recount(clients.len(), now_ms);
    }

    /// Shows one command to every monitor (its own client too, as Redis does) and to the
    /// ring while it records. `limit` is the normal class's output buffer limit: a monitor
    /// that does not read is disconnected past it.
    pub fn feed(&self, seen: &Seen<'_>, limit: BufferLimit) {
        let clients = self.clients.lock().clone();
        if !clients.is_empty() {
            let line = line(seen.time_us, seen.db, &seen.client.addr, seen.argv);
            for c in clients.iter().filter(|c| !c.is_killed()) {
                c.push(&line, limit, seen.now_ms);
            }
        }
        let until = self.ring_until.load(Relaxed);
        if until == 0 {
            return;
        }
        if until <= seen.now_ms {
            // Nobody read the ring for a while: stop recording until somebody does.
            self.ring_until.store(0, Relaxed);
            self.ring.lock().clear();
            self.recount(clients.len(), seen.now_ms);
            return;
        }
        let event = MonitorEvent {
            seq: self.next_seq.fetch_add(1, Relaxed) + 1,
            time_us: seen.time_us,
            db: seen.db,
            client_id: seen.client.id,
            addr: seen.client.addr.clone(),
            name: seen.client.name.lock().as_ref().map(|n| String::from_utf8_lossy(n).into_owned()),
            args: seen
                .argv
                .iter()
                .take(EVENT_MAX_ARGS)
                .map(|a| {
                    let mut s = Vec::new();
                    repr(&mut s, &a[..a.len().min(EVENT_MAX_ARG_BYTES)]);
                    String::from_utf8_lossy(&s).into_owned()
                })
                .collect(),
        };
        let mut ring = self.ring.lock();
        if ring.len() == RING_CAPACITY {
            ring.pop_front();
        }
        ring.push_back(event);
    }

    /// The ring's events after `since` (a `seq`; 0 = all it holds), oldest first; reading
    /// keeps the ring recording for a while longer.
    pub fn events_since(&self, since: u64, now_ms: u64) -> Vec<MonitorEvent> {
        let was = self.ring_until.swap(now_ms + RING_LINGER_MS, Relaxed);
        if was == 0 {
            self.recount(self.clients.lock().len(), now_ms);
        }
        self.ring.lock().iter().filter(|e| e.seq > since).cloned().collect()
    }

    /// Clients in monitor mode.
    pub fn count(&self) -> usize {
        self.clients.lock().len()
    }
}

/// One monitor line: `+<sec>.<µs> [<db> <addr>] "arg" "arg"\r\n`.
pub fn line(time_us: u64, db: usize, addr: &str, argv: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("+{}.{:06} [{} {}] ", time_us / 1_000_000, time_us % 1_000_000, db, addr).into_bytes();
    for (i, a) in argv.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        repr(&mut out, a);
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// A byte string quoted as Redis's `sdscatrepr`: `\\`, `\"`, `\n`, `\r`, `\t`, `\a`, `\b`
/// escaped, other printable ASCII as is, the rest as `\xhh`.
pub fn repr(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for &c in s {
        match c {
            b'\\' | b'"' => out.extend_from_slice(&[b'\\', c]),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            7 => out.extend_from_slice(b"\\a"),
            8 => out.extend_from_slice(b"\\b"),
            b' '..=b'~' => out.push(c),
            _ => out.extend_from_slice(format!("\\x{c:02x}").as_bytes()),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_quote_arguments_as_sdscatrepr() {
        let l = line(1_339_518_083_107_412, 0, "127.0.0.1:60866", &[b"keys", b"*"]);
        assert_eq!(l, b"+1339518083.107412 [0 127.0.0.1:60866] \"keys\" \"*\"\r\n");
        let l = line(5, 3, "lua", &[b"set", b"a\"b\\", b"\n\r\t\x07\x08\x00\xff "]);
        assert_eq!(
            String::from_utf8(l).unwrap(),
            "+0.000005 [3 lua] \"set\" \"a\\\"b\\\\\" \"\\n\\r\\t\\a\\b\\x00\\xff \"\r\n"
        );
    }
}
