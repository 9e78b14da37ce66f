//! The registry of connected clients, for `CLIENT LIST/INFO/KILL/ID` and the client count.
//! Each session holds an `Arc<Client>`; the registry holds the same, so a `CLIENT KILL` on one
//! connection can flag another, and the host's waker makes that connection notice at once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::config::BufferLimit;

type Waker = Box<dyn Fn() + Send + Sync>;

/// What the server knows of one connection.
pub struct Client {
    pub id: u64,
    pub addr: String,
    pub laddr: String,
    pub created_ms: u64,
    pub last_ms: AtomicU64,
    /// The command table's index of the last command run (usize::MAX = none yet); the
    /// table names it (see [`Client::describe`]).
    pub last_cmd: AtomicUsize,
    pub resp: AtomicU8,
    pub name: Mutex<Option<Vec<u8>>>,
    pub lib_name: Mutex<Option<Vec<u8>>>,
    pub lib_ver: Mutex<Option<Vec<u8>>>,
    /// The ACL user the connection is authenticated as (CLIENT LIST's `user`, CLIENT KILL
    /// USER); the session's own copy is the one checked.
    pub user: Mutex<Arc<str>>,
    killed: AtomicBool,
    waker: Mutex<Option<Waker>>,
    /// Pub/sub messages published to this client, waiting for its connection to send them.
    pub outbox: Outbox,
    /// Channels and patterns subscribed to (CLIENT LIST's `sub` and `psub`).
    pub sub: AtomicUsize,
    pub psub: AtomicUsize,
    /// Shard channels subscribed to (CLIENT LIST's `ssub`).
    pub ssub: AtomicUsize,
    /// Commands queued by MULTI, or -1 outside a transaction (CLIENT LIST's `multi`).
    pub multi: AtomicI64,
    /// The database the client has selected (CLIENT LIST's `db`); the session's copy is
    /// the one commands use, this one is for other clients to see.
    pub db: AtomicUsize,
    /// CLIENT NO-EVICT ON (flag `e`).
    pub no_evict: AtomicBool,
    /// CLIENT NO-TOUCH ON (flag `T`): its reads leave keys' LRU/LFU as they were.
    pub no_touch: AtomicBool,
    /// In MONITOR mode (flag `O`): every command run by others is pushed to it.
    pub monitor: AtomicBool,
    /// Bytes of commands queued by MULTI (CLIENT LIST's `multi-mem`).
    pub multi_mem: AtomicUsize,
    /// CLIENT TRACKING's state as CLIENT LIST shows it (`tracking::FLAG_*` bits: `t`, `R`,
    /// `B`), and its redirect (`redir`: -1 while off, 0 for none); `tracking` sets them.
    pub tracking: AtomicU8,
    pub redirect: AtomicI64,
    /// What the host reports of the connection's buffers (CLIENT LIST's `qbuf`, ...).
    pub io: IoFigures,
}

/// A connection's buffers as its host last saw them: the engine has no socket, so the
/// server reports these after each read and write; zero where the host has none (the
/// playground).
#[derive(Default)]
pub struct IoFigures {
    /// Unprocessed input bytes, and the room left in the input buffer.
    pub qbuf: AtomicUsize,
    pub qbuf_free: AtomicUsize,
    /// Replies made and not yet written.
    pub obl: AtomicUsize,
    /// The output buffer's capacity (CLIENT LIST's `rbs`, and part of `tot-mem`).
    pub out_cap: AtomicUsize,
    /// The most bytes the output buffer held at a write since the period began (CLIENT
    /// LIST's `rbp`, Redis's peak use of its reply buffer over the last 5 s; see
    /// `Clients::track_buffers`, which starts each period).
    pub out_peak: AtomicUsize,
}

impl IoFigures {
    /// The host's report after a read, a feed or a write.
    pub fn report(&self, qbuf: usize, qbuf_free: usize, obl: usize, out_cap: usize) {
        self.qbuf.store(qbuf, Relaxed);
        self.qbuf_free.store(qbuf_free, Relaxed);
        self.obl.store(obl, Relaxed);
        self.out_cap.store(out_cap, Relaxed);
    }

    /// The output buffer held `bytes` when the host wrote from it. A load and, only for a
    /// new peak, a store: the client's own line, not a read-modify-write.
    #[inline]
    pub fn note_out_fill(&self, bytes: usize) {
        if bytes > self.out_peak.load(Relaxed) {
            self.out_peak.store(bytes, Relaxed);
        }
    }

    /// The input buffer's size (Redis's query buffer allocation, for
    /// `client_recent_max_input_buffer`).
    fn input_size(&self) -> usize {
        self.qbuf.load(Relaxed) + self.qbuf_free.load(Relaxed)
    }
}

/// Redis's reply buffer and list blocks are 16 KiB (`PROTO_REPLY_CHUNK_BYTES`).
const REPLY_CHUNK: usize = 16 * 1024;

/// CLIENT LIST's `oll`, Redis's count of reply blocks queued behind its 16 KiB reply buffer.
/// A connection here has one contiguous output buffer, so this counts what Redis would queue
/// for the same unsent bytes: the 16 KiB blocks past the first 16 KiB, and the waiting
/// pub/sub messages as one more.
fn output_list_len(obl: usize, pushes: usize) -> usize {
    obl.saturating_sub(REPLY_CHUNK).div_ceil(REPLY_CHUNK) + usize::from(pushes > 0)
}

/// The fixed part of a client's memory in `tot-mem`: the session and its registry entry.
const CLIENT_STRUCT_BYTES: usize = 1024;

/// CLIENT LIST/KILL's TYPE classes, as Redis's getClientType sorts a client.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClientType {
    Normal,
    Replica,
    PubSub,
    Master,
}

impl ClientType {
    /// Redis's names (`slave` and `replica` are one class); `None` for anything else.
    pub fn parse(name: &[u8]) -> Option<ClientType> {
        match name.to_ascii_lowercase().as_slice() {
            b"normal" => Some(ClientType::Normal),
            b"slave" | b"replica" => Some(ClientType::Replica),
            b"pubsub" => Some(ClientType::PubSub),
            b"master" => Some(ClientType::Master),
            _ => None,
        }
    }
}

/// Pub/sub messages for one client, already encoded for its protocol. PUBLISH appends and
/// wakes the client's connection, which moves them to its output. The pubsub class of
/// `client-output-buffer-limit` bounds it: a subscriber that does not read is disconnected.
#[derive(Default)]
pub struct Outbox {
    buf: Mutex<Vec<u8>>,
    len: AtomicUsize,
    /// When the buffer went over the soft limit (unix ms; 0 = it is under it).
    soft_since: AtomicU64,
}

impl Client {
    pub fn is_killed(&self) -> bool {
        self.killed.load(Relaxed)
    }

    /// Marks the connection for closing and wakes its task.
    pub fn kill(&self) {
        self.killed.store(true, Relaxed);
        if let Some(w) = self.waker.lock().as_ref() {
            w();
        }
    }

    /// The host's way to be told when this client is killed (e.g. notify a task).
    pub fn set_waker(&self, waker: impl Fn() + Send + Sync + 'static) {
        *self.waker.lock() = Some(Box::new(waker));
    }

    /// Wakes the connection's task without killing it (pub/sub messages are waiting).
    pub fn wake(&self) {
        if let Some(w) = self.waker.lock().as_ref() {
            w();
        }
    }

    /// Queues an encoded pub/sub message and wakes the connection. When the queue would
    /// break `limit`, the client is killed instead and the message dropped (Redis closes a
    /// subscriber over `client-output-buffer-limit pubsub`). Returns whether it was queued.
    pub fn push(&self, msg: &[u8], limit: BufferLimit, now_ms: u64) -> bool {
        if self.is_killed() {
            return false;
        }
        let mut buf = self.outbox.buf.lock();
        let used = (buf.len() + msg.len()) as u64;
        if limit.exceeded(used, &self.outbox.soft_since, now_ms) {
            *buf = Vec::new();
            self.outbox.len.store(0, Relaxed);
            drop(buf);
            self.kill();
            return false;
        }
        buf.extend_from_slice(msg);
        self.outbox.len.store(buf.len(), Relaxed);
        drop(buf);
        self.wake();
        true
    }

    /// Bytes of pub/sub messages waiting to be sent.
    pub fn pending_pushes(&self) -> usize {
        self.outbox.len.load(Relaxed)
    }

    /// Moves the waiting pub/sub messages to the end of `out`; returns how many bytes.
    pub fn take_pushes(&self, out: &mut Vec<u8>) -> usize {
        if self.pending_pushes() == 0 {
            return 0;
        }
        let mut buf = self.outbox.buf.lock();
        let n = buf.len();
        if out.is_empty() {
            std::mem::swap(out, &mut buf);
        } else {
            out.extend_from_slice(&buf);
            buf.clear();
        }
        self.outbox.len.store(0, Relaxed);
        self.outbox.soft_since.store(0, Relaxed);
        n
    }

    /// Whether the client is subscribed to any channel, pattern or shard channel.
    pub fn is_subscriber(&self) -> bool {
        self.sub.load(Relaxed) + self.psub.load(Relaxed) + self.ssub.load(Relaxed) > 0
    }

    /// The class CLIENT LIST TYPE and CLIENT KILL TYPE select (a monitor is a normal client).
    pub fn kind(&self) -> ClientType {
        if self.is_subscriber() {
            ClientType::PubSub
        } else {
            ClientType::Normal
        }
    }

    /// Seconds since the connection opened.
    pub fn age_s(&self, now_ms: u64) -> u64 {
        now_ms.saturating_sub(self.created_ms) / 1000
    }

    /// CLIENT LIST's `omem`: replies and pushes waiting to be written.
    pub fn output_bytes(&self) -> usize {
        self.io.obl.load(Relaxed) + self.pending_pushes()
    }

    /// CLIENT LIST's `tot-mem`: buffers, queued commands and the client itself.
    pub fn total_memory(&self, argv_mem: usize) -> usize {
        let io = &self.io;
        io.qbuf.load(Relaxed)
            + io.qbuf_free.load(Relaxed)
            + io.out_cap.load(Relaxed).max(io.obl.load(Relaxed))
            + self.pending_pushes()
            + argv_mem
            + self.multi_mem.load(Relaxed)
            + CLIENT_STRUCT_BYTES
    }

    /// CLIENT LIST's `flags`: `O` monitor, `P` subscriber, `x` in MULTI, `t` tracking, `R`
    /// its redirect gone, `B` broadcasting, `e` no-evict,
    /// `T` no-touch, else `N`.
    pub fn flags(&self) -> String {
        let mut f = String::new();
        if self.monitor.load(Relaxed) {
            f.push('O');
        }
        if self.is_subscriber() {
            f.push('P');
        }
        if self.multi.load(Relaxed) >= 0 {
            f.push('x');
        }
        // CLIENT TRACKING: on, its redirect gone, BCAST (`crate::tracking`'s bits).
        let tracking = self.tracking.load(Relaxed);
        for (bit, c) in [(1, 't'), (2, 'R'), (4, 'B')] {
            if tracking & bit != 0 {
                f.push(c);
            }
        }
        if self.no_evict.load(Relaxed) {
            f.push('e');
        }
        if self.no_touch.load(Relaxed) {
            f.push('T');
        }
        if f.is_empty() {
            f.push('N');
        }
        f
    }

    /// One `CLIENT LIST` line, with Redis's field names; `name_of` names the last command's
    /// table index (the table sits above this registry); `argv_mem` is the bytes of the
    /// command running now (the caller's own line), else 0.
    pub fn describe(&self, now_ms: u64, name_of: fn(usize) -> Option<String>, argv_mem: usize) -> String {
        let text = |m: &Mutex<Option<Vec<u8>>>| {
            m.lock().as_ref().map(|v| String::from_utf8_lossy(v).replace(' ', "_")).unwrap_or_default()
        };
        let cmd = name_of(self.last_cmd.load(Relaxed)).unwrap_or_else(|| "NULL".into());
        format!(
            "id={} addr={} laddr={} fd=-1 name={} age={} idle={} flags={} db={} sub={} psub={} ssub={} multi={} qbuf={} qbuf-free={} argv-mem={} multi-mem={} rbs={} rbp={} obl={} oll={} omem={} tot-mem={} events={} cmd={} user={} redir={} resp={} lib-name={} lib-ver={}",
            self.id,
            self.addr,
            self.laddr,
            text(&self.name),
            now_ms.saturating_sub(self.created_ms) / 1000,
            now_ms.saturating_sub(self.last_ms.load(Relaxed)) / 1000,
            self.flags(),
            self.db.load(Relaxed),
            self.sub.load(Relaxed),
            self.psub.load(Relaxed),
            self.ssub.load(Relaxed),
            self.multi.load(Relaxed),
            self.io.qbuf.load(Relaxed),
            self.io.qbuf_free.load(Relaxed),
            argv_mem,
            self.multi_mem.load(Relaxed),
            self.io.out_cap.load(Relaxed),
            self.io.out_peak.load(Relaxed),
            self.io.obl.load(Relaxed).min(REPLY_CHUNK),
            output_list_len(self.io.obl.load(Relaxed), self.pending_pushes()),
            self.output_bytes(),
            self.total_memory(argv_mem),
            if self.output_bytes() > 0 { "rw" } else { "r" },
            cmd,
            self.user.lock(),
            self.redirect.load(Relaxed),
            self.resp.load(Relaxed),
            text(&self.lib_name),
            text(&self.lib_ver),
        )
    }
}

/// All connected clients by id.
#[derive(Default)]
pub struct Clients {
    next_id: AtomicU64,
    by_id: Mutex<BTreeMap<u64, Arc<Client>>>,
    peaks: Mutex<BufferPeaks>,
}

/// Seconds of samples behind INFO's `client_recent_max_*_buffer` (Redis's
/// `CLIENTS_PEAK_MEM_USAGE_SLOTS`).
const PEAK_SLOTS: usize = 8;

/// How long a CLIENT LIST `rbp` period lasts (Redis resets `buf_peak` every 5 s).
const OUT_PEAK_PERIOD_MS: u64 = 5000;

/// The largest input and output buffers seen in each of the last seconds, by unix second
/// modulo `PEAK_SLOTS`, as Redis keeps them.
#[derive(Default)]
struct BufferPeaks {
    input: [usize; PEAK_SLOTS],
    output: [usize; PEAK_SLOTS],
    /// When the current `rbp` period began (unix ms).
    out_period_ms: u64,
}

impl Clients {
    pub fn register(&self, addr: &str, laddr: &str, now_ms: u64) -> Arc<Client> {
        let id = self.next_id.fetch_add(1, Relaxed) + 1;
        let client = Arc::new(Client {
            id,
            addr: addr.to_string(),
            laddr: laddr.to_string(),
            created_ms: now_ms,
            last_ms: AtomicU64::new(now_ms),
            last_cmd: AtomicUsize::new(usize::MAX),
            resp: AtomicU8::new(2),
            name: Mutex::new(None),
            lib_name: Mutex::new(None),
            lib_ver: Mutex::new(None),
            user: Mutex::new(Arc::from("default")),
            killed: AtomicBool::new(false),
            waker: Mutex::new(None),
            outbox: Outbox::default(),
            sub: AtomicUsize::new(0),
            psub: AtomicUsize::new(0),
            ssub: AtomicUsize::new(0),
            multi: AtomicI64::new(-1),
            db: AtomicUsize::new(0),
            no_evict: AtomicBool::new(false),
            no_touch: AtomicBool::new(false),
            monitor: AtomicBool::new(false),
            multi_mem: AtomicUsize::new(0),
            tracking: AtomicU8::new(0),
            redirect: AtomicI64::new(-1),
            io: IoFigures::default(),
        });
        self.by_id.lock().insert(id, client.clone());
        client
    }

    pub fn unregister(&self, id: u64) {
        self.by_id.lock().remove(&id);
    }

    pub fn get(&self, id: u64) -> Option<Arc<Client>> {
        self.by_id.lock().get(&id).cloned()
    }

    pub fn all(&self) -> Vec<Arc<Client>> {
        self.by_id.lock().values().cloned().collect()
    }

    /// One sample of every client's buffers, as Redis's `clientsCron` takes: the input
    /// buffer's size and the unsent output (CLIENT LIST's `omem`) go into this second's
    /// slot, and the next slot is cleared for the second after. Every 5 s each client's
    /// `rbp` period starts over from what its output buffer holds now.
    pub fn track_buffers(&self, now_ms: u64) {
        let clients = self.all();
        let mut peaks = self.peaks.lock();
        let slot = (now_ms / 1000) as usize % PEAK_SLOTS;
        peaks.input[(slot + 1) % PEAK_SLOTS] = 0;
        peaks.output[(slot + 1) % PEAK_SLOTS] = 0;
        let new_period = now_ms.saturating_sub(peaks.out_period_ms) >= OUT_PEAK_PERIOD_MS;
        if new_period {
            peaks.out_period_ms = now_ms;
        }
        for c in &clients {
            peaks.input[slot] = peaks.input[slot].max(c.io.input_size());
            peaks.output[slot] = peaks.output[slot].max(c.output_bytes());
            if new_period {
                c.io.out_peak.store(c.io.obl.load(Relaxed), Relaxed);
            }
        }
    }

    /// The largest input and output buffers sampled in the last `PEAK_SLOTS` seconds.
    pub fn recent_max_buffers(&self) -> (usize, usize) {
        let peaks = self.peaks.lock();
        (peaks.input.iter().copied().max().unwrap_or(0), peaks.output.iter().copied().max().unwrap_or(0))
    }
}
