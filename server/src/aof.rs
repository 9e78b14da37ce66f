//! The append-only file: the engine's propagated write commands appended to disk, fsynced by
//! policy, loaded at start-up, and rewritten compactly in the background.
//!
//! Format: a sequence of blocks. A block is the RESP encoding of one or more commands (each an
//! array of bulk strings, readable with `cat -v`), followed by one checksum record
//! `*2\r\n$6\r\nVCHECK\r\n$8\r\n<crc32 of the block's command bytes, 8 hex digits>\r\n`.
//! A block is replayed only when its checksum matches, so flipped bits are detected. A crash
//! mid-write leaves an incomplete last block: loading cuts the file back to the end of the
//! last complete block, keeping the cut bytes in a copy, and reports what it dropped. A bad
//! or damaged checksum record, or a complete block after damaged bytes, is corruption: the
//! server refuses to start. Loading (and Redis's formats) is in `aof_load`.
//!
//! One writer thread owns the file. Connections wait (`wait_durable`) until the bytes of their
//! writes are written (`everysec`, `no`) or fsynced (`always`) before their replies go out, so
//! several clients' writes share one write and one fsync (group commit).
//!
//! Under `always`, nobody else may see a write before it is fsynced either: a reply (a
//! reader's, a pub/sub message, an admin API answer) produced while the log had reached offset
//! X goes out only once X is fsynced (`must_hold`). One global watermark, as Redis does it
//! (it fsyncs in beforeSleep, before any reply of that event-loop iteration is written): it
//! covers every way of seeing the keyspace (GET, KEYS, DBSIZE, INFO, EXEC, a message published
//! after a SET) without the engine tracking which keys a reply read, and a reader waits only
//! while some write is not yet fsynced, sharing the writers' group commit.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::mpsc;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use parking_lot::Mutex;
use serde::Serialize;
use tokio::sync::watch;
use tracing::{error, info, warn};
use vitrine_engine::Engine;

/// When `appendfsync` syncs the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fsync {
    Always,
    Everysec,
    No,
}

impl Fsync {
    pub fn parse(s: &str) -> anyhow::Result<Fsync> {
        match s.to_ascii_lowercase().as_str() {
            "always" => Ok(Fsync::Always),
            "everysec" => Ok(Fsync::Everysec),
            "no" => Ok(Fsync::No),
            _ => bail!("invalid --appendfsync '{s}': expected always, everysec or no"),
        }
    }

    const ALL: [Fsync; 3] = [Fsync::Always, Fsync::Everysec, Fsync::No];

    pub fn name(self) -> &'static str {
        match self {
            Fsync::Always => "always",
            Fsync::Everysec => "everysec",
            Fsync::No => "no",
        }
    }
}

/// Prefix of rewrite temp files; any left by a crash are removed at start-up.
pub(crate) const TEMP_PREFIX: &str = "temp-rewriteaof-";
/// The checksum record's fixed length: `*2\r\n$6\r\nVCHECK\r\n$8\r\n` + 8 hex + `\r\n`.
pub(crate) const TRAILER_LEN: usize = 30;

/// CRC-32 (IEEE), bitwise table built once.
pub fn crc32(data: &[u8]) -> u32 {
    static TABLE: OnceLock<[u32; 256]> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, slot) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            }
            *slot = c;
        }
        t
    });
    let mut crc = !0u32;
    for &b in data {
        crc = table[((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
}

/// The checksum record that ends a block of `commands`.
pub(crate) fn trailer(commands: &[u8]) -> Vec<u8> {
    format!("*2\r\n$6\r\nVCHECK\r\n$8\r\n{:08x}\r\n", crc32(commands)).into_bytes()
}

/// `commands` (RESP) followed by their checksum record.
pub fn encode_block(out: &mut Vec<u8>, commands: &[u8]) {
    if commands.is_empty() {
        return;
    }
    out.extend_from_slice(commands);
    out.extend_from_slice(&trailer(commands));
}

/// What loading found.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Recovery {
    /// Bytes read (all parts, for Redis's multi-part directory).
    pub file_bytes: u64,
    pub blocks: u64,
    pub commands: u64,
    /// Always 0: a command the engine refuses on replay stops the start instead (kept for
    /// readers of earlier versions).
    pub failed_commands: u64,
    /// A truncated tail that was cut off (or, in a Redis file, left out): where it began and
    /// how long it was.
    pub truncated_at: Option<u64>,
    pub dropped_bytes: u64,
    /// `vitrine`, `resp` (a plain RESP file), `rdb-preamble` (an RDB image, then RESP),
    /// `redis-multi-part`, or empty (no file).
    pub format: String,
    /// The file (or the Redis manifest) loaded.
    pub source: String,
    /// The file whose tail was torn.
    pub truncated_file: Option<String>,
    /// The fsynced copy of exactly the bytes cut off, and its size.
    pub torn_copy: Option<String>,
    pub torn_copy_bytes: u64,
    /// Where a plain RESP file loaded from Vitrine's own path was kept when Vitrine's own
    /// format replaced it.
    pub kept_copy: Option<String>,
    /// Keys loaded from an RDB part (Redis's `aof-use-rdb-preamble yes`).
    pub rdb_keys: u64,
}

/// Removes rewrite temp files a crash left in `dir`.
pub fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            info!("removing stale rewrite temp file {}", entry.path().display());
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

pub(crate) fn fsync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Durability progress the writer publishes.
#[derive(Debug, Clone, Default)]
struct Progress {
    written: u64,
    synced: u64,
    error: Option<String>,
}

/// State shown by INFO persistence and /api/stats.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AofStatus {
    pub enabled: bool,
    pub appendfsync: &'static str,
    pub path: String,
    pub file_size: u64,
    pub base_size: u64,
    pub rewrite_in_progress: bool,
    pub rewrites: u64,
    pub last_rewrite_ms: Option<u64>,
    pub last_rewrite_status: Option<String>,
    /// Milliseconds since the last fsync while unsynced data is pending (0 when synced).
    pub fsync_lag_ms: u64,
    pub last_write_error: Option<String>,
    pub recovery: Recovery,
}

/// The policy in force: `CONFIG SET appendfsync` changes it at run time.
fn current_fsync(engine: &Engine) -> Fsync {
    engine.config().get("appendfsync").and_then(|v| Fsync::parse(&v).ok()).unwrap_or(Fsync::Everysec)
}

/// The running append-only file.
pub struct Aof {
    progress: watch::Receiver<Progress>,
    kick: Mutex<mpsc::Sender<()>>,
    status: Arc<Mutex<AofStatus>>,
    /// Since when written data waits for an fsync (`None` when all is synced).
    unsynced_since: Arc<Mutex<Option<Instant>>>,
    force_sync: Arc<std::sync::atomic::AtomicBool>,
    watermark: Watermark,
}

/// What `must_hold` reads before every reply, on cache lines of its own: writers lock `kick`
/// tens of thousands of times a second, and a reader's check must not miss on that line.
#[repr(align(128))]
struct Watermark {
    engine: Arc<Engine>,
    /// `Progress::synced`, readable without the watch channel's lock.
    synced: AtomicU64,
    /// The policy as last parsed, `(config version << 2) | index in Fsync::ALL`, so the check
    /// costs a few atomic loads, not a parse, until `CONFIG SET` changes it.
    policy: AtomicU64,
}

impl Watermark {
    /// The policy in force (see `policy`).
    fn fsync(&self) -> Fsync {
        let config = self.engine.config();
        // Read before the value: a change after this load leaves a stale version behind, so
        // the next call parses again.
        let version = config.host_params_version();
        let cached = self.policy.load(Acquire);
        if cached >> 2 == version {
            return Fsync::ALL[(cached & 3) as usize];
        }
        let fsync = current_fsync(&self.engine);
        let index = Fsync::ALL.iter().position(|f| *f == fsync).unwrap_or(0) as u64;
        self.policy.store(version << 2 | index, Release);
        fsync
    }
}

impl std::fmt::Debug for Aof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Aof").field("path", &self.status.lock().path).finish_non_exhaustive()
    }
}

// The handle is passed to whoever needs it (connections, the admin API, shutdown) rather than
// kept in a global, so two servers in one process (tests) each have their own, or none.

/// The AOF's state for `/api/stats` (`{"enabled": false}` when it is off).
pub fn status_json(aof: Option<&Aof>) -> serde_json::Value {
    match aof {
        Some(aof) => {
            let mut s = aof.status.lock();
            if let Some(since) = *aof.unsynced_since.lock() {
                s.fsync_lag_ms = since.elapsed().as_millis() as u64;
            } else {
                s.fsync_lag_ms = 0;
            }
            serde_json::to_value(&*s).unwrap_or_default()
        }
        None => serde_json::json!({ "enabled": false }),
    }
}

/// At shutdown: writes and fsyncs everything propagated so far (waits up to `limit`).
pub async fn sync_at_shutdown(aof: Option<&Aof>, engine: &Engine, limit: Duration) {
    let Some(aof) = aof else { return };
    // Nothing is written before this point, whatever the policy, that has not been fsynced.
    aof.force_sync.store(true, std::sync::atomic::Ordering::Release);
    let target = engine.propagation().appended();
    let _ = aof.kick.lock().send(());
    let mut rx = aof.progress.clone();
    let synced = async {
        loop {
            if rx.borrow_and_update().synced >= target || rx.changed().await.is_err() {
                return;
            }
        }
    };
    if tokio::time::timeout(limit, synced).await.is_err() {
        warn!("the append-only file was not fsynced within {limit:?} at shutdown");
    }
}

/// Waits until the propagated bytes up to `offset` are as durable as `appendfsync` promises.
/// `Err` when the AOF failed: the caller must not acknowledge.
pub async fn wait_durable(aof: Option<&Aof>, offset: u64) -> Result<(), String> {
    let Some(aof) = aof else { return Ok(()) };
    let _ = aof.kick.lock().send(());
    let mut rx = aof.progress.clone();
    loop {
        let always = aof.watermark.fsync() == Fsync::Always;
        {
            let p = rx.borrow_and_update();
            let done = if always { p.synced } else { p.written };
            if done >= offset {
                return Ok(());
            }
            if let Some(e) = &p.error {
                return Err(e.clone());
            }
        }
        if rx.changed().await.is_err() {
            return Err("the append-only file writer stopped".into());
        }
    }
}

/// Whether replies that may show the keyspace as of propagation offset `seen` (what
/// `Propagation::appended` said after they were made) must wait, with `wait_durable(seen)`,
/// before they go out: under `appendfsync always`, while `seen` is not yet fsynced. Otherwise
/// (no AOF, `everysec`, `no`, or nothing pending) false, for two or three atomic loads.
///
/// Every write appends to the log while it still holds its keys' locks, so a reply that saw a
/// write was made after that write's bytes were counted in `appended`: `seen` covers them.
/// When the file cannot be written or fsynced, `wait_durable` fails and the reply is never
/// sent (its connection closes, as a writer's does; Redis exits on such an error).
pub fn must_hold(aof: Option<&Aof>, seen: u64) -> bool {
    let Some(aof) = aof else { return false };
    seen > aof.watermark.synced.load(Acquire) && aof.watermark.fsync() == Fsync::Always
}

/// `wait_durable(seen)` when `must_hold(seen)`: for replies that write nothing themselves.
pub async fn hold_replies(aof: Option<&Aof>, seen: u64) -> Result<(), String> {
    if must_hold(aof, seen) {
        wait_durable(aof, seen).await
    } else {
        Ok(())
    }
}

/// Rewrite triggers (Redis's auto-aof-rewrite-percentage and -min-size).
const AUTO_REWRITE_PERCENTAGE: u64 = 100;
const AUTO_REWRITE_MIN_SIZE: u64 = 64 << 20;

/// Opens the file, loads it into `engine`, turns propagation on and starts the writer thread.
pub fn start(dir: &Path, filename: &str, fsync: Fsync, engine: Arc<Engine>, now_ms: u64) -> anyhow::Result<Arc<Aof>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create --dir {}", dir.display()))?;
    remove_stale_temp_files(dir);
    let path = dir.join(filename);
    // Redis's default, as `--aof-load-truncated` sets it.
    let load_truncated = engine.config().get("aof-load-truncated").is_none_or(|v| v == "yes");
    let recovery = crate::aof_load::load(dir, filename, &engine, now_ms, load_truncated)?;
    info!(
        blocks = recovery.blocks,
        commands = recovery.commands,
        bytes = recovery.file_bytes,
        "loaded the append-only file {}",
        path.display()
    );
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open the append-only file {}", path.display()))?;
    let size = file.metadata()?.len();
    if size == 0 {
        file.sync_all()?;
        fsync_dir(dir)?;
    }
    engine.propagation().set_enabled(true);
    let start = engine.propagation().appended();
    let (ptx, prx) = watch::channel(Progress { written: start, synced: start, error: None });
    let (ktx, krx) = mpsc::channel();
    let status = Arc::new(Mutex::new(AofStatus {
        enabled: true,
        appendfsync: fsync.name(),
        path: path.display().to_string(),
        file_size: size,
        base_size: size,
        recovery,
        ..AofStatus::default()
    }));
    let unsynced_since = Arc::new(Mutex::new(None));
    let force_sync = Arc::new(std::sync::atomic::AtomicBool::new(false));
    engine.config().set_host_param("appendfsync", fsync.name());
    let aof = Arc::new(Aof {
        progress: prx,
        kick: Mutex::new(ktx),
        status: status.clone(),
        unsynced_since: unsynced_since.clone(),
        force_sync: force_sync.clone(),
        watermark: Watermark {
            engine: engine.clone(),
            synced: AtomicU64::new(start),
            policy: AtomicU64::new(u64::MAX),
        },
    });
    let writer = Writer {
        engine,
        dir: dir.to_path_buf(),
        path,
        file,
        progress: ptx,
        status,
        pending: Vec::new(),
        pending_end: start,
        unsynced_since,
        force_sync,
        aof: Arc::downgrade(&aof),
        rewrite: None,
    };
    writer.publish_info();
    std::thread::Builder::new().name("vitrine-aof".into()).spawn(move || writer.run(krx))?;
    Ok(aof)
}

struct Rewrite {
    /// Propagation offset the image covers; bytes after it go to `buf`.
    from: u64,
    buf: Vec<u8>,
    done: mpsc::Receiver<anyhow::Result<(File, PathBuf)>>,
}

struct Writer {
    engine: Arc<Engine>,
    dir: PathBuf,
    path: PathBuf,
    file: File,
    progress: watch::Sender<Progress>,
    status: Arc<Mutex<AofStatus>>,
    /// Encoded blocks not yet written (kept across a failed write, to retry).
    pending: Vec<u8>,
    /// Propagation offset `pending` ends at.
    pending_end: u64,
    unsynced_since: Arc<Mutex<Option<Instant>>>,
    force_sync: Arc<std::sync::atomic::AtomicBool>,
    /// For the watermark it moves (`Watermark::synced`). Weak, so that when the server drops
    /// its last handle the `kick` sender goes with it and this thread ends.
    aof: Weak<Aof>,
    rewrite: Option<Rewrite>,
}

impl Writer {
    fn run(mut self, kicks: mpsc::Receiver<()>) {
        loop {
            match kicks.recv_timeout(Duration::from_millis(100)) {
                Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                // The server is gone (its shutdown already synced the file): write what is
                // left and end, so a process that starts servers one after another (tests)
                // does not keep a writer and an open file for each.
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    self.step();
                    return;
                }
            }
            while kicks.try_recv().is_ok() {}
            self.step();
        }
    }

    fn step(&mut self) {
        let fsync = current_fsync(&self.engine);
        self.status.lock().appendfsync = fsync.name();
        let (bytes, end) = self.engine.propagation().take();
        if !bytes.is_empty() {
            let start = end - bytes.len() as u64;
            if let Some(rw) = &mut self.rewrite {
                let skip = rw.from.saturating_sub(start).min(bytes.len() as u64) as usize;
                rw.buf.extend_from_slice(&bytes[skip..]);
            }
            encode_block(&mut self.pending, &bytes);
            self.pending_end = end;
        }
        let mut error = None;
        if !self.pending.is_empty() {
            match self.write_pending() {
                Ok(()) => {}
                Err(e) => error = Some(e),
            }
        }
        let unsynced = *self.unsynced_since.lock();
        let forced = self.force_sync.swap(false, std::sync::atomic::Ordering::AcqRel);
        if error.is_none() && (unsynced.is_some() || forced) {
            let due = forced
                || match fsync {
                    Fsync::Always => true,
                    Fsync::Everysec => unsynced.is_some_and(|since| since.elapsed() >= Duration::from_secs(1)),
                    Fsync::No => false,
                };
            if due {
                if let Err(e) = self.sync_data() {
                    error = Some(format!("fsync: {e}"));
                } else {
                    *self.unsynced_since.lock() = None;
                    let written = self.progress.borrow().written;
                    // Before the watch wakes the waiters: a reply made once they run finds
                    // these bytes synced and does not wait for them again.
                    if let Some(aof) = self.aof.upgrade() {
                        aof.watermark.synced.store(written, Release);
                    }
                    self.progress.send_modify(|p| p.synced = written);
                }
            }
        }
        match error {
            Some(e) => {
                let text = format!("MISCONF Errors writing to the AOF file: {e}");
                if self.status.lock().last_write_error.is_none() {
                    error!("{text}; refusing writes until it succeeds again");
                }
                self.engine.propagation().refuse_writes(Some(text.clone()));
                self.status.lock().last_write_error = Some(text.clone());
                // INFO shows the error before a waiting client learns of it (its connection
                // closes), so a client that then asks INFO why finds the answer.
                self.publish_info();
                self.progress.send_modify(|p| p.error = Some(text));
            }
            None => {
                if self.progress.borrow().error.is_some() {
                    info!("append-only file writes succeed again; accepting writes");
                    self.engine.propagation().refuse_writes(None);
                    self.progress.send_modify(|p| p.error = None);
                    self.status.lock().last_write_error = None;
                }
            }
        }
        self.rewrite_step();
        self.publish_info();
    }

    fn sync_data(&self) -> std::io::Result<()> {
        fsync_fault::before_fsync()?;
        self.file.sync_data()
    }

    fn write_pending(&mut self) -> Result<(), String> {
        let before = self.file.metadata().map(|m| m.len()).map_err(|e| format!("stat: {e}"))?;
        if let Err(e) = self.file.write_all(&self.pending) {
            // Cut a partial write off so a retry does not leave a torn block mid-file.
            let _ = self.file.set_len(before);
            return Err(format!("write: {e}"));
        }
        self.pending.clear();
        if current_fsync(&self.engine) != Fsync::No {
            self.unsynced_since.lock().get_or_insert_with(Instant::now);
        }
        let end = self.pending_end;
        self.progress.send_modify(|p| p.written = end);
        if let Ok(m) = self.file.metadata() {
            self.status.lock().file_size = m.len();
        }
        Ok(())
    }

    fn rewrite_step(&mut self) {
        if let Some(rw) = &self.rewrite {
            match rw.done.try_recv() {
                Err(mpsc::TryRecvError::Empty) => return,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.finish_rewrite(Err(anyhow::anyhow!("rewrite thread died")))
                }
                Ok(result) => self.finish_rewrite(result),
            }
            return;
        }
        let requested = self.engine.propagation().take_rewrite_request();
        let (size, base) = {
            let s = self.status.lock();
            (s.file_size, s.base_size)
        };
        let auto = size >= AUTO_REWRITE_MIN_SIZE && size >= base.max(1) * (100 + AUTO_REWRITE_PERCENTAGE) / 100;
        if requested || auto {
            self.begin_rewrite();
        }
    }

    fn begin_rewrite(&mut self) {
        let now = crate::now_ms();
        let (image, from) = self.engine.rewrite_image(now);
        info!(bytes = image.len(), "append-only file rewrite started");
        let temp = self.dir.join(format!("{TEMP_PREFIX}{}.aof", std::process::id()));
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let result = (|| -> anyhow::Result<(File, PathBuf)> {
                let mut f = OpenOptions::new().create(true).write(true).truncate(true).open(&temp)?;
                let mut block = Vec::with_capacity(image.len() + TRAILER_LEN);
                encode_block(&mut block, &image);
                f.write_all(&block)?;
                f.sync_all()?;
                Ok((f, temp.clone()))
            })();
            if result.is_err() {
                let _ = std::fs::remove_file(&temp);
            }
            let _ = tx.send(result);
        });
        self.rewrite = Some(Rewrite { from, buf: Vec::new(), done: rx });
        self.status.lock().rewrite_in_progress = true;
    }

    fn finish_rewrite(&mut self, result: anyhow::Result<(File, PathBuf)>) {
        let rw = self.rewrite.take().expect("a rewrite in progress");
        let outcome = result.and_then(|(mut f, temp)| {
            // Writes that happened meanwhile (all already in the old file too, since the
            // writer appends before collecting them here).
            let mut block = Vec::new();
            encode_block(&mut block, &rw.buf);
            let switched = (|| -> anyhow::Result<File> {
                f.write_all(&block)?;
                f.sync_all()?;
                std::fs::rename(&temp, &self.path)?;
                fsync_dir(&self.dir)?;
                Ok(OpenOptions::new().append(true).open(&self.path)?)
            })();
            if switched.is_err() {
                let _ = std::fs::remove_file(&temp);
            }
            switched
        });
        let now = crate::now_ms();
        let mut s = self.status.lock();
        s.rewrite_in_progress = false;
        s.last_rewrite_ms = Some(now);
        match outcome {
            Ok(file) => {
                self.file = file;
                let size = self.file.metadata().map(|m| m.len()).unwrap_or(0);
                s.file_size = size;
                s.base_size = size;
                s.rewrites += 1;
                s.last_rewrite_status = Some("ok".into());
                info!(bytes = size, "append-only file rewritten");
            }
            Err(e) => {
                error!("append-only file rewrite failed: {e:#}");
                s.last_rewrite_status = Some(format!("err: {e}"));
            }
        }
    }

    /// Refreshes the INFO persistence lines the engine shows.
    fn publish_info(&self) {
        let mut s = self.status.lock();
        s.fsync_lag_ms = self.unsynced_since.lock().map(|t| t.elapsed().as_millis() as u64).unwrap_or(0);
        let r = &s.recovery;
        let text = format!(
            "aof_enabled:1\r\naof_rewrite_in_progress:{}\r\naof_last_bgrewrite_status:{}\r\naof_rewrites:{}\r\naof_last_write_status:{}\r\naof_last_write_error:{}\r\naof_current_size:{}\r\naof_base_size:{}\r\naof_fsync:{}\r\naof_fsync_lag_ms:{}\r\naof_loaded_commands:{}\r\naof_recovery_truncated_at:{}\r\naof_recovery_dropped_bytes:{}\r\naof_last_load_truncated_bytes:{}\r\naof_torn_copy:{}\r\naof_torn_copy_bytes:{}\r\naof_loaded_format:{}\r\naof_loaded_from:{}\r\naof_kept_copy:{}\r\n",
            s.rewrite_in_progress as u8,
            if s.last_rewrite_status.as_deref().is_none_or(|t| t == "ok") { "ok" } else { "err" },
            s.rewrites,
            if s.last_write_error.is_some() { "err" } else { "ok" },
            s.last_write_error.as_deref().unwrap_or(""),
            s.file_size,
            s.base_size,
            s.appendfsync,
            s.fsync_lag_ms,
            r.commands,
            r.truncated_at.map(|o| o.to_string()).unwrap_or_else(|| "-1".into()),
            r.dropped_bytes,
            r.dropped_bytes,
            r.torn_copy.as_deref().unwrap_or(""),
            r.torn_copy_bytes,
            r.format,
            r.source,
            r.kept_copy.as_deref().unwrap_or(""),
        );
        drop(s);
        self.engine.propagation().set_host_info(text);
    }
}

/// Test-only control of the writer's fsync: hold it (the writer waits just before syncing
/// until released) or make it fail, so a test can see what clients get meanwhile. Reached
/// only through `vitrine_server::testing`; until a test arms it, it costs each fsync one
/// atomic load. Process-wide: a test using it must be the only one in its process with an
/// append-only file.
pub mod fsync_fault {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Condvar, Mutex};
    use std::time::Duration;

    /// Set once a test has held or failed an fsync; never cleared, so a release is seen.
    static ARMED: AtomicBool = AtomicBool::new(false);

    struct State {
        hold: bool,
        /// The writer is waiting at the hold.
        held: bool,
        fail: Option<String>,
    }

    static STATE: Mutex<State> = Mutex::new(State { hold: false, held: false, fail: None });
    static CHANGED: Condvar = Condvar::new();

    fn state() -> std::sync::MutexGuard<'static, State> {
        STATE.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds (true) or releases (false) every fsync from now on.
    pub fn hold(on: bool) {
        ARMED.store(true, Ordering::SeqCst);
        state().hold = on;
        CHANGED.notify_all();
    }

    /// Makes every fsync fail with `error` (`None`: they succeed again).
    pub fn fail(error: Option<&str>) {
        ARMED.store(true, Ordering::SeqCst);
        state().fail = error.map(str::to_string);
    }

    /// Waits up to `limit` until the writer is held before an fsync; false if it is not.
    pub fn wait_held(limit: Duration) -> bool {
        let guard = state();
        let (guard, _) = CHANGED.wait_timeout_while(guard, limit, |s| !s.held).unwrap_or_else(|e| e.into_inner());
        guard.held
    }

    pub(super) fn before_fsync() -> std::io::Result<()> {
        if !ARMED.load(Ordering::Relaxed) {
            return Ok(());
        }
        let mut s = state();
        while s.hold {
            s.held = true;
            CHANGED.notify_all();
            s = CHANGED.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.held = false;
        match &s.fail {
            Some(e) => Err(std::io::Error::other(e.clone())),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vitrine_engine::testing::encode_command;

    #[test]
    fn trailer_has_the_documented_length() {
        let mut raw = Vec::new();
        encode_command(&mut raw, &["SET", "k", "v"]);
        let mut b = Vec::new();
        encode_block(&mut b, &raw);
        let raw_len = b.len() - TRAILER_LEN;
        assert!(b[raw_len..].starts_with(b"*2\r\n$6\r\nVCHECK\r\n$8\r\n"));
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn the_dashboards_recovery_type_lists_the_fields_the_server_emits() {
        let ts = include_str!("../../web/src/lib/types.ts");
        let body = ts.split("export interface AofRecovery {").nth(1).and_then(|t| t.split('}').next()).unwrap();
        let mut fields: Vec<&str> = body
            .lines()
            .filter_map(|l| l.trim().split_once(':').map(|(name, _)| name))
            .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
            .collect();
        fields.sort_unstable();
        let json = serde_json::to_value(Recovery::default()).unwrap();
        let mut emitted: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        emitted.sort_unstable();
        assert_eq!(fields, emitted);
    }
}
