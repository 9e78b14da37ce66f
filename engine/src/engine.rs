//! `Engine`: the cache as a value. `feed` turns request bytes into reply bytes, `call` runs
//! one already-split command, `sweep` expires keys actively, `snapshot` reports stats. One
//! dispatch path does lookup, arity, auth, memory admission, locking, stats and encoding.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use smallvec::SmallVec;

use crate::args::Args;
use crate::blocking;
use crate::clients::Clients;
use crate::clock::Clock;
use crate::cmd::pubsub;
use crate::cmd::tx;
use crate::config::Config;
use crate::error::{c_str, c_str_lossy, CmdError, ProtocolError};
use crate::monitor::{Monitors, Seen};
use crate::prefetch::Prefetcher;
use crate::propagate::Propagation;
use crate::pubsub::{PubSub, Subscriptions};
use crate::radar::{self, Radar};
use crate::reply::{encode_error, Reply};
use crate::resp::{looks_like_http, parse_command_into, CommandArgs, Limits};
use crate::session::tx::Transaction;
use crate::session::{ReplyMode, Session};
use crate::stats::{AllocatorHooks, HostFacts, MemoryFigures, Stats};
use crate::store::entry::{alloc_size, ENTRY_OVERHEAD, TTL_OVERHEAD};
use crate::store::{KeyEvent, Locked, Store, SweepReport};
use crate::table::{self, Command, ADMIN, ALL_SHARDS, DENYOOM, FAST, NOAUTH, READONLY, WRITE};
use crate::timing::{SlowLogSettings, Timing};
use crate::tracking::Tracking;

mod acl;
mod acl_host;
mod blocked;
mod exec;
mod notified;
mod snapshot;
mod tracked;

pub(crate) use acl::Place as AclPlace;

/// Shards per engine: enough that threads rarely meet on one lock, few enough that SCAN and
/// sampling stay cheap.
pub const SHARDS: usize = 64;

/// A write's keys before it runs: each with its position among the command's keys and
/// whether it existed (see `keys_before_write`).
type WrittenKeys<'k> = SmallVec<[(usize, &'k [u8], bool); 2]>;

/// A queued command with its table row, as EXEC runs it.
struct Job<'q> {
    cmd: &'static Command,
    index: usize,
    argv: &'q [Vec<u8>],
}

/// What a handler gets: the engine, the caller's session, the command's row (a subcommand's
/// for a container: its name for error texts), the locked shards of the keys the command
/// names, the time, and the full argv (name included).
pub struct Ctx<'a> {
    pub engine: &'a Engine,
    pub cmd: &'static Command,
    pub session: &'a mut Session,
    pub db: Locked<'a>,
    pub now: u64,
    pub argv: &'a [&'a [u8]],
    /// Keys (bit `i` for the command's `i`th key, in `Command::keys` order) that a successful
    /// write left as they were, so WATCHes on them survive, as Redis signals only the keys it
    /// modified (SMOVE of a member the destination already has). Zero: every key counts.
    pub unchanged: u64,
}

impl Ctx<'_> {
    /// Publishes keyspace event `event` of class `class` (`crate::notify::class`) about `key`
    /// in the session's database, when `notify-keyspace-events` wants it.
    #[inline]
    pub fn notify(&self, class: u32, event: &'static str, key: &[u8]) {
        self.engine.notify(class, event, self.session.db, key, self.now);
    }

    /// `event` about `key`, then `del` when the write emptied the collection there (which
    /// the store then deleted), as Redis follows a removal that empties a key.
    pub fn notify_removal(&mut self, class: u32, event: &'static str, key: &[u8]) {
        self.engine.notify_removal(&mut self.db, class, event, key, self.now);
    }

    /// `notify` for a key in database `db` (MOVE's and COPY's destination).
    #[inline]
    pub fn notify_in(&self, db: usize, class: u32, event: &'static str, key: &[u8]) {
        self.engine.notify(class, event, db, key, self.now);
    }

    /// Tells dispatch this write did not modify its `i`th key (see `unchanged`).
    pub fn leave_unchanged(&mut self, i: usize) {
        if i < 64 {
            self.unchanged |= 1 << i;
        }
    }
}

pub struct Engine {
    pub(crate) store: Store,
    config: Config,
    stats: Stats,
    /// Durations: the host's clock, the slow log, latency events and histograms, errorstats.
    pub(crate) timing: Timing,
    /// Shared with the store, which logs its evictions and expirations to it.
    propagation: Arc<Propagation>,
    pub(crate) clients: Clients,
    pub(crate) pubsub: PubSub,
    /// CLIENT TRACKING's table (client-side caching); shared with the store's removals.
    pub(crate) tracking: Arc<Tracking>,
    /// Keyspace notifications published lately (the dashboard's Events view).
    pub(crate) notifier: crate::notify::Notifier,
    pub(crate) blocking: blocking::Registry,
    host: RwLock<HostFacts>,
    /// The largest `used_memory` (data and overhead) seen, for `used_memory_peak`.
    peak_memory: AtomicU64,
    allocator: std::sync::OnceLock<AllocatorHooks>,
    start_ms: u64,
    pub(crate) monitors: Monitors,
    /// Unknown commands and refused options, per client library (the compatibility radar).
    pub(crate) radar: Radar,
    /// ACL users, their permissions and the ACL log (`acl`).
    /// Shared with the config, whose `requirepass` is the default user's password.
    #[allow(dead_code)] // until dispatch checks permissions (issue 22, part B)
    pub(crate) acl: Arc<crate::acl::Acl>,
    pause: Pause,
    /// The host's wall clock in microseconds (MONITOR's timestamps); without one, the
    /// command's millisecond time.
    micros: OnceLock<fn() -> u64>,
    /// The script cache and the Lua VM (EVAL, SCRIPT).
    #[cfg(feature = "scripting")]
    pub(crate) scripts: crate::script::Scripts,
    /// The script running now, if any, and whether it is busy (see `busy`). Shared with the
    /// VMs' instruction hooks.
    pub(crate) script_run: Arc<crate::busy::ScriptRun>,
    /// The host's way to stop the process (SHUTDOWN); none in the playground.
    shutdown_hook: OnceLock<Box<dyn Fn() + Send + Sync>>,
}

/// CLIENT PAUSE: until when (engine ms; 0 = no pause) and whether only writes wait.
#[derive(Default)]
struct Pause {
    until_ms: AtomicU64,
    write_only: AtomicBool,
}

impl Engine {
    /// A new, empty engine. `seed` keys the hash functions and samplers; pass something
    /// unpredictable in a server.
    pub fn new(config: Config, now_ms: u64, seed: u64) -> Engine {
        let propagation = Arc::new(Propagation::default());
        let tracking = Arc::new(Tracking::default());
        tracking.seed(seed);
        let removals = Arc::new(tracked::Removals { propagation: propagation.clone(), tracking: tracking.clone() });
        let store = Store::new(
            config.memory_limits().clone(),
            removals,
            config.notify_flags().clone(),
            SHARDS,
            config.databases(),
            seed,
            now_ms,
        );
        let acl = Arc::new(crate::acl::Acl::new());
        let default_password = acl.clone();
        config.on_requirepass(Box::new(move |pass| default_password.set_default_password(pass)));
        Engine {
            stats: Stats::new(table::rows().len(), store.counters().clone()),
            timing: Timing::new(table::rows().len()),
            store,
            config,
            propagation,
            clients: Clients::default(),
            pubsub: PubSub::default(),
            tracking,
            notifier: Default::default(),
            blocking: blocking::Registry::default(),
            host: RwLock::new(HostFacts::default()),
            peak_memory: AtomicU64::new(0),
            allocator: std::sync::OnceLock::new(),
            start_ms: now_ms,
            monitors: Monitors::default(),
            radar: Radar::default(),
            acl,
            pause: Pause::default(),
            micros: OnceLock::new(),
            #[cfg(feature = "scripting")]
            scripts: crate::script::Scripts::default(),
            script_run: Arc::default(),
            shutdown_hook: OnceLock::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Lends the engine the host's monotonic clock, so commands are timed (INFO commandstats,
    /// SLOWLOG, LATENCY). Without one every duration is 0. The first clock set stays.
    pub fn set_clock(&self, clock: Arc<dyn Clock>) {
        self.timing.set_clock(clock);
    }

    pub(crate) fn timing(&self) -> &Timing {
        &self.timing
    }

    pub(crate) fn stats(&self) -> &Stats {
        &self.stats
    }

    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// Keys stored right now (every database), without building a snapshot.
    pub fn key_count(&self) -> usize {
        self.store.len()
    }

    // What the host counts into the engine's stats, so INFO and every view show it: bytes on
    // the wire, connections it refused, clients it closed for their output; and the client
    // count it checks `maxclients` against.

    /// Bytes read from a client.
    pub fn count_net_input(&self, bytes: u64) {
        self.stats().net_input_bytes.fetch_add(bytes, Relaxed);
    }

    /// Bytes written to a client.
    pub fn count_net_output(&self, bytes: u64) {
        self.stats().net_output_bytes.fetch_add(bytes, Relaxed);
    }

    /// A read from a client's socket, whatever it returned (data, end of file, an error).
    pub fn count_read(&self) {
        self.stats().reads_processed.fetch_add(1, Relaxed);
    }

    /// A write to a client's socket, whatever it took.
    pub fn count_write(&self) {
        self.stats().writes_processed.fetch_add(1, Relaxed);
    }

    /// Samples every client's buffers for INFO's `client_recent_max_input_buffer` and
    /// `client_recent_max_output_buffer`, and starts CLIENT LIST's `rbp` period over every
    /// 5 s; the host calls this about once a second, as Redis's `clientsCron` looks at each
    /// client (see `Clients::track_buffers`).
    pub fn track_client_buffers(&self, now_ms: u64) {
        self.clients.track_buffers(now_ms);
    }

    /// A connection refused (`maxclients`, protected mode).
    pub fn count_rejected_connection(&self) {
        self.stats().rejected_connections.fetch_add(1, Relaxed);
    }

    /// A client closed for passing its output buffer limit.
    pub fn count_output_limit_disconnection(&self) {
        self.stats().client_output_buffer_limit_disconnections.fetch_add(1, Relaxed);
    }

    /// Clients connected right now (sessions open).
    pub fn connected_clients(&self) -> u64 {
        self.stats().connected_clients.load(Relaxed)
    }

    pub fn start_ms(&self) -> u64 {
        self.start_ms
    }

    /// Facts the host reports (pid, port, RSS, allocator bytes), shown by INFO and snapshots.
    pub fn set_host_facts(&self, facts: HostFacts) {
        *self.host.write() = facts;
        // Sampled here (each second on the server) as well as at each read, as Redis samples
        // its peak in its cron.
        self.memory_figures();
    }

    /// INFO memory's figures now (see `MemoryFigures`), raising the recorded peak.
    pub fn memory_figures(&self) -> MemoryFigures {
        let host = self.host.read();
        let figures = MemoryFigures::new(self.store.used_memory() as u64, &host, self.peak_memory.load(Relaxed));
        self.peak_memory.fetch_max(figures.used_memory, Relaxed);
        figures
    }

    /// Lets MEMORY MALLOC-STATS and MEMORY PURGE reach the host's allocator (once; later
    /// calls are ignored).
    pub fn set_allocator_hooks(&self, hooks: AllocatorHooks) {
        let _ = self.allocator.set(hooks);
    }

    pub(crate) fn allocator_hooks(&self) -> Option<AllocatorHooks> {
        self.allocator.get().copied()
    }

    pub fn host_facts(&self) -> HostFacts {
        self.host.read().clone()
    }

    /// Opens a session for a new connection (registered for CLIENT LIST and counted).
    pub fn new_session(&self, addr: &str, laddr: &str, now_ms: u64) -> Session {
        let client = self.clients.register(addr, laddr, now_ms);
        self.stats().connections_received.fetch_add(1, Relaxed);
        self.stats().connected_clients.fetch_add(1, Relaxed);
        // Every connection starts as `default`, authenticated unless that user needs a password.
        let default = self.acl.default_user();
        Session {
            resp3: false,
            db: 0,
            authenticated: default.on && default.nopass,
            user: self.session_user_state(default),
            closing: false,
            client,
            tx: Transaction::default(),
            subs: Subscriptions::default(),
            blocked: None,
            prop_batch: None,
            log_as: None,
            auth_failures: 0,
            reply_mode: ReplyMode::On,
            paused: false,
            tally: Default::default(),
            tracking: Default::default(),
            #[cfg(feature = "scripting")]
            script_log: None,
        }
    }

    /// Gives the engine a wall clock in microseconds, for MONITOR's timestamps (the engine
    /// keeps no clock of its own; without one they are the command's millisecond time).
    pub fn set_micros_clock(&self, clock: fn() -> u64) {
        let _ = self.micros.set(clock);
    }

    fn now_us(&self, now_ms: u64) -> u64 {
        self.micros.get().map_or(now_ms.saturating_mul(1000), |f| f())
    }

    /// Pauses clients until `until_ms` (CLIENT PAUSE): all commands, or only those that
    /// write (`write_only`). A pause already running keeps the later end and the stricter
    /// mode, as Redis does.
    pub(crate) fn pause_clients(&self, until_ms: u64, write_only: bool, now_ms: u64) {
        let running = self.pause.until_ms.load(Relaxed) > now_ms;
        let write_only = write_only && (!running || self.pause.write_only.load(Relaxed));
        let was_strict = running && !self.pause.write_only.load(Relaxed);
        self.pause.write_only.store(write_only, Relaxed);
        let until = if running { until_ms.max(self.pause.until_ms.load(Relaxed)) } else { until_ms };
        self.pause.until_ms.store(until, Relaxed);
        if was_strict && write_only {
            self.wake_all_clients();
        }
    }

    /// Ends the pause (CLIENT UNPAUSE); the paused clients' connections are woken.
    pub(crate) fn unpause_clients(&self) {
        self.pause.until_ms.store(0, Relaxed);
        self.wake_all_clients();
    }

    /// When the running CLIENT PAUSE ends (engine ms), if one runs: a host holding a
    /// `session.paused` connection's input tries it again then (or when woken).
    pub fn pause_end(&self, now_ms: u64) -> Option<u64> {
        let until = self.pause.until_ms.load(Relaxed);
        (until > now_ms).then_some(until)
    }

    /// Whether the command `argv` must wait for the pause to end: every command under
    /// PAUSE ALL, those `may_write` names under PAUSE WRITE.
    fn paused_by(&self, session: &Session, argv: &[&[u8]], now_ms: u64) -> bool {
        if self.pause.until_ms.load(Relaxed) <= now_ms {
            return false;
        }
        !self.pause.write_only.load(Relaxed) || Self::may_write(session, argv)
    }

    /// Whether `argv` is a command CLIENT PAUSE WRITE holds: one that writes or may replicate
    /// (PUBLISH, PFCOUNT, EVAL and FCALL, as Redis's `may_replicate`), or an EXEC with one
    /// queued.
    fn may_write(session: &Session, argv: &[&[u8]]) -> bool {
        let Some((index, cmd)) = table::lookup(argv[0]) else { return false };
        let cmd = match argv.get(1) {
            Some(sub) if cmd.is_container() => table::lookup_subcommand(index, cmd, sub).map_or(cmd, |(_, c)| c),
            _ => cmd,
        };
        if cmd.name == "EXEC" {
            let mut queued = session.tx.queue.iter().flatten();
            return queued.any(|q| table::rows().get(q.index).is_some_and(|c| may_replicate(c)));
        }
        may_replicate(cmd)
    }

    /// Clients in MONITOR mode.
    pub fn monitor_count(&self) -> usize {
        self.monitors.count()
    }

    /// The dashboard's monitor: commands run after the event `since` (0 = all kept), oldest
    /// first. Reading keeps the engine recording them for a few seconds more.
    pub fn monitor_events(&self, since: u64, now_ms: u64) -> Vec<crate::MonitorEvent> {
        self.monitors.events_since(since, now_ms)
    }

    /// Shows a command that ran to the monitors, as Redis's `call` does: not administrative
    /// commands, and with AUTH's and HELLO ... AUTH's credentials redacted.
    fn feed_monitors(&self, cmd: &Command, session: &Session, argv: &[&[u8]], now_ms: u64) {
        if cmd.flags & ADMIN != 0 {
            return;
        }
        let redacted: Vec<&[u8]>;
        let argv = match cmd.name {
            "AUTH" => {
                redacted = argv.iter().enumerate().map(|(i, a)| if i == 0 { *a } else { &b"(redacted)"[..] }).collect();
                &redacted[..]
            }
            "HELLO" => {
                let at = argv.iter().position(|a| a.eq_ignore_ascii_case(b"AUTH"));
                redacted = argv
                    .iter()
                    .enumerate()
                    .map(|(i, a)| match at {
                        Some(at) if i > at && i <= at + 2 => &b"(redacted)"[..],
                        _ => *a,
                    })
                    .collect();
                &redacted[..]
            }
            _ => argv,
        };
        let seen = Seen { client: &session.client, db: session.db, argv, time_us: self.now_us(now_ms), now_ms };
        self.monitors.feed(&seen, self.config().normal_output_limit());
    }

    /// The write commands propagated for the host's append-only file (see `crate::propagate`).
    pub fn propagation(&self) -> &Propagation {
        &self.propagation
    }

    /// A compact image of the whole keyspace as commands (the script cache first, see
    /// `crate::script`; a FUNCTION LOAD per library; a SELECT per non-empty database, then
    /// one command per key, plus PEXPIREAT), taken under every stripe's lock and the script
    /// cache's, and the
    /// propagation offset it corresponds to: everything appended up to that offset is in the
    /// image, everything after it is not. It ends in the database the log is in at that
    /// offset, so what was appended after it runs where it ran.
    pub fn rewrite_image(&self, now_ms: u64) -> (Vec<u8>, u64) {
        let mut all = self.store.lock_all(0);
        let mut out = Vec::new();
        // Held until the offset is read: a script enters the cache and the log under it.
        #[cfg(feature = "scripting")]
        let scripts = self.scripts.cache.lock();
        #[cfg(feature = "scripting")]
        for script in scripts.scripts() {
            crate::script::encode_record(&mut out, &script);
        }
        // The function libraries first (as Redis's rewrite), so the keys' replay finds them;
        // they change only under a write's locks, so they are as of the same offset.
        crate::cmd::functions::load_commands(self, &mut out);
        let mut selected = None;
        for counts in all.all_dbs() {
            if counts.keys == 0 {
                continue;
            }
            crate::propagate::encode_command(&mut out, &[&b"SELECT"[..], counts.db.to_string().as_bytes()]);
            selected = Some(counts.db);
            all.reborrow_in(counts.db)
                .for_each(now_ms, |key, entry| crate::propagate::encode_entry(&mut out, key, entry, 128));
        }
        let (log_db, offset) = self.propagation().position();
        if let Some(db) = log_db.filter(|&db| Some(db) != selected) {
            crate::propagate::encode_command(&mut out, &[&b"SELECT"[..], db.to_string().as_bytes()]);
        }
        #[cfg(feature = "scripting")]
        drop(scripts);
        drop(all);
        (out, offset)
    }

    /// Wakes every connection's task through the waker its host set (at shutdown, so each
    /// notices it).
    pub fn wake_all_clients(&self) {
        for client in self.clients.all() {
            client.wake();
        }
    }

    /// Closes a session opened with `new_session`.
    pub fn end_session(&self, session: &Session) {
        // Its watches and subscriptions go with it.
        tx::forget_watches(self, session);
        self.pubsub.forget(session);
        self.forget_blocked(session);
        if session.tracking.mode.is_some() {
            self.tracking.disable(session.id());
        }
        if session.client.monitor.load(Relaxed) {
            self.monitors.remove(session.id(), 0);
        }
        self.clients.unregister(session.id());
        self.stats().connected_clients.fetch_sub(1, Relaxed);
    }

    /// The decoder limits currently configured.
    pub fn limits(&self) -> Limits {
        Limits { max_bulk_len: self.config().proto_max_bulk_len().min(usize::MAX as u64) as usize, ..Limits::default() }
    }

    /// Decodes and runs every complete command in `input`, appending each reply to `out`.
    /// Returns how many bytes were consumed; an incomplete command at the end waits for more
    /// bytes. Stops early after QUIT (`session.closing`), after a wrong password
    /// (`session.auth_failures`, see `feed_until`), and after a command that blocks
    /// (`session.blocked`, see `crate::blocking`): the bytes consumed end with it, the commands
    /// after it wait in the host's buffer until `retry_blocked` or `unblock_timeout` ends the
    /// wait, as Redis holds a blocked client's input. On a protocol error, `out` holds the
    /// replies to the commands before it and the error's reply; the host then closes (for
    /// HTTP-looking input nothing is added: Redis closes silently).
    pub fn feed(
        &self,
        session: &mut Session,
        input: &[u8],
        out: &mut Vec<u8>,
        now_ms: u64,
    ) -> Result<usize, ProtocolError> {
        self.feed_until(session, input, out, now_ms, usize::MAX)
    }

    /// `feed`, stopping before the next command once `out` holds `out_limit` bytes or more,
    /// and after a wrong password (`session.auth_failures`): the bytes consumed end with the
    /// last command run, and the rest waits in the host's buffer. So a host bounds what one
    /// read can make it buffer (a few bytes of `GET` can ask for gigabytes of replies), and
    /// can slow guessing down, by calling again once its output has drained or its delay
    /// has passed.
    pub fn feed_until(
        &self,
        session: &mut Session,
        input: &[u8],
        out: &mut Vec<u8>,
        now_ms: u64,
        out_limit: usize,
    ) -> Result<usize, ProtocolError> {
        let result = self.feed_commands(session, input, out, now_ms, out_limit);
        self.flush_calls(session);
        result
    }

    /// `feed_until`'s loop; the caller adds the batch's tally of calls to the stats.
    fn feed_commands(
        &self,
        session: &mut Session,
        input: &[u8],
        out: &mut Vec<u8>,
        now_ms: u64,
        out_limit: usize,
    ) -> Result<usize, ProtocolError> {
        let mut limits = self.limits();
        let mut pos = 0;
        // One argument vector for the whole batch; commands of up to 8 arguments are then
        // passed on as a stack array, so a GET or SET allocates nothing to be decoded.
        let mut args: CommandArgs<'_> = Vec::new();
        let mut prefetch = Prefetcher::default();
        session.paused = false;
        // When the next command begins (see `dispatch_at`).
        let mut clock = self.timing.now_us();
        while pos < input.len() && !session.closing && session.blocked.is_none() && out.len() < out_limit {
            // Before AUTH only small requests are accepted (Redis's unauthenticated limits).
            limits.unauthenticated = !session.authenticated;
            let used = match parse_command_into(&input[pos..], &limits, &mut args) {
                Ok(Some(used)) => used,
                Ok(None) => break,
                Err(e) => {
                    self.stats().protocol_errors.fetch_add(1, Relaxed);
                    if e != ProtocolError::LooksLikeHttp {
                        encode_error(out, &e.to_string());
                    }
                    return Err(e);
                }
            };
            pos += used;
            prefetch.before_command(&self.store, session.db, input, pos);
            if args.is_empty() {
                continue;
            }
            if looks_like_http(&args) {
                self.stats().protocol_errors.fetch_add(1, Relaxed);
                return Err(ProtocolError::LooksLikeHttp);
            }
            let mut stack: [&[u8]; 8] = [&[]; 8];
            let heap: Vec<&[u8]>;
            let argv: &[&[u8]] = if args.len() <= stack.len() {
                for (slot, a) in stack.iter_mut().zip(args.iter()) {
                    *slot = a.as_ref();
                }
                &stack[..args.len()]
            } else {
                heap = args.iter().map(|a| a.as_ref()).collect();
                &heap
            };
            if self.paused_by(session, argv, now_ms) {
                // Not consumed: it runs when the pause ends (Redis postpones the client).
                pos -= used;
                session.paused = true;
                break;
            }
            let failures = session.auth_failures;
            let reply = self.dispatch_at(session, argv, now_ms, &mut clock);
            if self.tracking.any() || session.tracking.caching {
                self.after_tracked_command(session, argv, now_ms);
            }
            // Pub/sub messages published before this reply go before it, as in Redis.
            session.client.take_pushes(out);
            if self.blocked_here(session, argv) {
                // The placeholder reply is not sent: the client waits (unless the data came
                // in the meantime, and then its reply is already in `out`).
                if !self.block(session, out, now_ms) {
                    break;
                }
                continue;
            }
            // CLIENT REPLY OFF/SKIP may drop it.
            session.send(&reply, out);
            if !session.tracking.deferred.is_empty() {
                // Invalidations of the client's own writes follow its reply, as in Redis.
                self.tracking.send_deferred(
                    session.id(),
                    &mut session.tracking.deferred,
                    &self.tracking_sender(now_ms),
                );
                session.client.take_pushes(out);
            }
            if session.auth_failures != failures {
                break;
            }
        }
        Ok(pos)
    }

    /// Runs one already-split command (the HTTP console and the playground use this).
    pub fn call<A: AsRef<[u8]>>(&self, session: &mut Session, argv: &[A], now_ms: u64) -> Reply {
        let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_ref()).collect();
        if argv.is_empty() {
            return Reply::Error("ERR empty command".into());
        }
        // A paused server takes no writes from the admin API or the playground either. They
        // are refused, not held: an HTTP call cannot wait out a pause of minutes, and reads
        // and CLIENT UNPAUSE stay possible so the dashboard can end one (Redis holds every
        // command of a client under PAUSE ALL).
        if let Some(until) = self.pause_end(now_ms) {
            if Self::may_write(session, &argv) {
                return Reply::Error(format!(
                    "ERR writes are paused by CLIENT PAUSE for {} ms more (CLIENT UNPAUSE ends it)",
                    until - now_ms
                ));
            }
        }
        let reply = self.dispatch(session, &argv, now_ms);
        if self.tracking.any() || session.tracking.caching {
            self.after_tracked_command(session, &argv, now_ms);
            let send = self.tracking_sender(now_ms);
            self.tracking.send_deferred(session.id(), &mut session.tracking.deferred, &send);
        }
        // Nothing waits here: a blocking command answers at once, as its timeout would.
        session.blocked = None;
        // Nor can a reply-per-call caller stream a monitor's lines.
        if session.client.monitor.load(Relaxed) {
            self.monitors.remove(session.id(), now_ms);
            return Reply::Error("ERR MONITOR isn't allowed for DENY BLOCKING client".into());
        }
        reply
    }

    /// Whether the command `feed` just ran blocked. A blocking command run inside EXEC also
    /// records what it would wait for, but answers at once (as Redis does in a transaction):
    /// that record names another command than the one `feed` ran, and is dropped here.
    fn blocked_here(&self, session: &mut Session, argv: &[&[u8]]) -> bool {
        match &session.blocked {
            None => false,
            Some(b) if b.argv.len() == argv.len() && b.argv.iter().zip(argv).all(|(a, b)| a == b) => true,
            Some(_) => {
                session.blocked = None;
                false
            }
        }
    }

    /// Lookup, arity, auth, memory admission, locking, stats: the one path every command takes.
    pub(crate) fn dispatch(&self, session: &mut Session, argv: &[&[u8]], now_ms: u64) -> Reply {
        let mut clock = self.timing.now_us();
        let reply = self.dispatch_at(session, argv, now_ms, &mut clock);
        self.flush_calls(session);
        reply
    }

    /// `dispatch` with the clock's reading when the command began in `clock`, which is left
    /// holding the reading when it ended. In a pipeline the next command begins then, so the
    /// clock is read once per command (a reading costs tens of ns, as much as a whole GET at
    /// pipeline 16); a command's duration then includes decoding it and encoding the reply
    /// before it, a few hundred ns at most.
    pub(crate) fn dispatch_at(&self, session: &mut Session, argv: &[&[u8]], now_ms: u64, clock: &mut u64) -> Reply {
        let start = *clock;
        let reply = self.dispatch_timed(session, argv, now_ms, clock);
        if *clock == start && self.timing.enabled() {
            // Refused before it ran: not timed, but the next command begins now.
            *clock = self.timing.now_us();
        }
        if let Reply::Error(text) = &reply {
            self.timing.count_error(text);
        }
        reply
    }

    fn dispatch_timed(&self, session: &mut Session, argv: &[&[u8]], now_ms: u64, clock: &mut u64) -> Reply {
        let stats = self.stats();
        session.tally.processed += 1;
        session.client.last_ms.store(now_ms, Relaxed);
        let Some((mut index, mut cmd)) = table::lookup(argv[0]) else {
            stats.error_replies.fetch_add(1, Relaxed);
            session.tx.refuse();
            self.note_refused(radar::Kind::Command, None, session, argv, now_ms);
            return CmdError::UnknownCommand { name: c_str_lossy(argv[0], 128), args: quoted_args(&argv[1..]) }.into();
        };
        // A container named alone is its own row (its arity refuses it, except COMMAND's).
        if cmd.is_container() && argv.len() > 1 {
            match table::lookup_subcommand(index, cmd, argv[1]) {
                Some(sub) => (index, cmd) = sub,
                None => {
                    stats.error_replies.fetch_add(1, Relaxed);
                    session.tx.refuse();
                    self.note_refused(radar::Kind::Subcommand, Some(cmd), session, argv, now_ms);
                    return CmdError::UnknownSubcommand { cmd: cmd.name.into(), sub: c_str_lossy(argv[1], 128) }.into();
                }
            }
        }
        if self.script_run.is_busy() {
            if let Some(e) = self.refuse_while_busy(cmd, argv) {
                stats.error_replies.fetch_add(1, Relaxed);
                stats.rejected_calls.add(index, 1);
                session.tx.refuse();
                return e.into();
            }
        }
        if session.tx.in_multi() || (!session.resp3 && session.subs.any()) {
            if let Some(reply) = self.gate(cmd, index, session, argv, now_ms) {
                if reply.is_error() {
                    stats.error_replies.fetch_add(1, Relaxed);
                    stats.rejected_calls.add(index, 1);
                }
                return reply;
            }
        }
        session.client.last_cmd.store(index, Relaxed);
        let mut rejected = false;
        let result = self.run(index, cmd, session, argv, now_ms, &mut rejected);
        if rejected {
            // Refused before it ran (arity, auth, memory): not a call, as in Redis.
            stats.rejected_calls.add(index, 1);
        } else {
            let blocked = session.blocked.is_some();
            self.record_call(index, cmd, session, argv, clock, now_ms, blocked);
        }
        match result {
            Ok(reply) => {
                if reply.is_error() {
                    stats.failed_calls.add(index, 1);
                    stats.error_replies.fetch_add(1, Relaxed);
                }
                reply
            }
            Err(e) => {
                if !rejected {
                    stats.failed_calls.add(index, 1);
                }
                stats.error_replies.fetch_add(1, Relaxed);
                if e == CmdError::Oom {
                    stats.rejected_oom.fetch_add(1, Relaxed);
                }
                if e == CmdError::WrongPass {
                    stats.acl_access_denied_auth.fetch_add(1, Relaxed);
                    session.auth_failures = session.auth_failures.saturating_add(1);
                }
                if refuses_an_option(&e) {
                    self.note_refused(radar::Kind::Option, Some(cmd), session, argv, now_ms);
                }
                e.into()
            }
        }
    }

    /// While a script is busy, only Redis's `allow-busy` commands (SCRIPT KILL, FUNCTION
    /// KILL, AUTH, HELLO, MULTI, ...) and SHUTDOWN NOSAVE run; the rest get BUSY.
    #[cold]
    #[inline(never)]
    fn refuse_while_busy(&self, cmd: &Command, argv: &[&[u8]]) -> Option<CmdError> {
        let nosave = cmd.name == "SHUTDOWN" && argv[1..].iter().any(|a| a.eq_ignore_ascii_case(b"NOSAVE"));
        if nosave || cmd.meta().flags.contains(&"allow_busy") {
            return None;
        }
        self.script_run.busy_error()
    }

    /// Lets SHUTDOWN stop the host: `hook` starts its shutdown (the first one set stays).
    pub fn set_shutdown_hook(&self, hook: impl Fn() + Send + Sync + 'static) {
        let _ = self.shutdown_hook.set(Box::new(hook));
    }

    /// Starts the host's shutdown; false when the host has none.
    pub(crate) fn request_shutdown(&self) -> bool {
        self.shutdown_hook.get().map(|hook| hook()).is_some()
    }

    /// A script runs now (busy or not): it holds every shard until it ends.
    pub fn script_running(&self) -> bool {
        self.script_run.is_running()
    }

    /// A script has run past `busy-reply-threshold` and still runs: other clients get BUSY.
    pub fn script_busy(&self) -> bool {
        self.script_run.is_busy()
    }

    /// The script running now (SCRIPT KILL, FUNCTION KILL, the dashboard's banner).
    pub(crate) fn script_run(&self) -> &crate::busy::ScriptRun {
        &self.script_run
    }

    /// The compatibility radar (see `radar`).
    pub(crate) fn radar(&self) -> &Radar {
        &self.radar
    }

    /// Counts a refused command on the radar: an unknown command (`cmd` None), an unknown
    /// subcommand of the container `cmd`, or an option `cmd` refused. Out of line and cold,
    /// so dispatch's common path stays as it was.
    #[cold]
    #[inline(never)]
    fn note_refused(
        &self,
        kind: radar::Kind,
        cmd: Option<&'static Command>,
        session: &Session,
        argv: &[&[u8]],
        now_ms: u64,
    ) {
        let (name, option, args) = match (kind, cmd) {
            (radar::Kind::Option, Some(cmd)) => (
                cmd.full_name().replace('|', " ").to_ascii_uppercase(),
                radar::offending_option(cmd, argv),
                &argv[cmd.args_start().min(argv.len())..],
            ),
            (radar::Kind::Subcommand, Some(cmd)) if argv.len() > 1 => {
                (format!("{} {}", cmd.name, c_str_lossy(argv[1], 64).to_ascii_uppercase()), None, &argv[2..])
            }
            _ => (c_str_lossy(argv[0], 64).to_ascii_uppercase(), None, &argv[1..]),
        };
        self.radar.record(kind, &name, option, &session.client, args, now_ms);
    }

    /// Counts one call of the command at row `index` that began at `clock` (the host clock's
    /// µs; left holding the reading when it ended) and feeds its duration to INFO commandstats, the latency histograms, the latency
    /// monitor and the slow log, as Redis's `call()` does. A command that blocked is counted
    /// but not timed (its wait is not its work). EXEC is not logged as slow itself: each of
    /// its commands is.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_call(
        &self,
        index: usize,
        cmd: &'static Command,
        session: &mut Session,
        argv: &[&[u8]],
        clock: &mut u64,
        now_ms: u64,
        blocked: bool,
    ) {
        if session.tally.command != index {
            self.flush_calls(session);
            session.tally.command = index;
        }
        session.tally.calls += 1;
        if !self.timing.enabled() {
            return;
        }
        let end = self.timing.now_us();
        let duration = end.saturating_sub(*clock);
        *clock = end;
        session.tally.usec += duration;
        if blocked {
            return;
        }
        let config = self.config();
        if config.latency_tracking() {
            session.tally.add_duration(&self.timing, duration);
        }
        self.monitor_sample(if cmd.flags & FAST != 0 { "fast-command" } else { "command" }, duration, now_ms);
        let slower_than = config.slowlog_log_slower_than();
        if slower_than >= 0 && duration >= slower_than as u64 && cmd.name != "EXEC" {
            let settings = SlowLogSettings { slower_than, max_len: config.slowlog_max_len() };
            let name = session.client.name.lock().clone().unwrap_or_default();
            let name = String::from_utf8_lossy(&name);
            self.timing.slowlog_push(&settings, argv, duration, now_ms, (&session.client.addr, &name));
        }
    }

    /// Adds the session's tally of calls (see `CallTally`) to the shared counters and
    /// histograms, and empties it.
    pub(crate) fn flush_calls(&self, session: &mut Session) {
        let stats = self.stats();
        let tally = &mut session.tally;
        if tally.processed > 0 {
            stats.commands_processed.fetch_add(tally.processed, Relaxed);
            tally.processed = 0;
        }
        if tally.calls > 0 {
            stats.calls.add(tally.command, tally.calls);
            if tally.usec > 0 {
                stats.usec.add(tally.command, tally.usec);
            }
            tally.calls = 0;
            tally.usec = 0;
        }
        tally.flush_histogram(&self.timing);
    }

    /// The checks every command passes before it runs or is queued: arity, auth, then the
    /// user's permissions (Redis's order: an ACL refusal comes before OOM and the rest).
    #[inline]
    fn admit(
        &self,
        index: usize,
        cmd: &Command,
        session: &mut Session,
        argv: &[&[u8]],
        place: acl::Place,
        now_ms: u64,
    ) -> Result<(), CmdError> {
        let argc = argv.len() as i32;
        if (cmd.arity > 0 && argc != cmd.arity) || (cmd.arity < 0 && argc < -cmd.arity) {
            return Err(CmdError::WrongArity(cmd.full_name()));
        }
        if !session.authenticated && cmd.flags & NOAUTH == 0 {
            return Err(CmdError::NoAuth);
        }
        self.acl_admit(session, index, cmd, argv, place, now_ms)
    }

    /// Inside MULTI, or subscribed over RESP2: the checks (a refused command marks the
    /// transaction), then the pub/sub context's rule, then queuing. `None` = run it now.
    fn gate(
        &self,
        cmd: &'static Command,
        index: usize,
        session: &mut Session,
        argv: &[&[u8]],
        now_ms: u64,
    ) -> Option<Reply> {
        let place = if session.tx.in_multi() { acl::Place::Queued } else { acl::Place::TopLevel };
        let refused = self.admit(index, cmd, session, argv, place, now_ms).err().or_else(|| {
            (!session.resp3 && session.subs.any() && !pubsub::allowed_while_subscribed(cmd))
                .then(|| pubsub::not_allowed_while_subscribed(cmd))
        });
        if let Some(e) = refused {
            session.tx.refuse();
            return Some(e.into());
        }
        if session.tx.in_multi() {
            return tx::queue(self, cmd, index, session, argv, now_ms);
        }
        None
    }

    /// Runs a command; `rejected` says it was refused before its handler ran.
    fn run(
        &self,
        index: usize,
        cmd: &'static Command,
        session: &mut Session,
        argv: &[&[u8]],
        now_ms: u64,
        rejected: &mut bool,
    ) -> Result<Reply, CmdError> {
        *rejected = true;
        self.admit(index, cmd, session, argv, acl::Place::TopLevel, now_ms)?;
        // A monitor is a replica to Redis, which may not touch the keyspace.
        if session.client.monitor.load(Relaxed) && (cmd.flags & (WRITE | READONLY) != 0 || may_replicate(cmd)) {
            return Err(CmdError::err("Replica can't interact with the keyspace"));
        }
        if cmd.flags & WRITE != 0 {
            if let Some(why) = self.propagation().refusal() {
                return Err(CmdError::Other(why));
            }
        }
        // Held until the write is done, so concurrent writers cannot claim the same room.
        let _room = if cmd.flags & DENYOOM != 0 {
            let start = self.monitor_start();
            let room = self.store.make_room(self.estimate_growth(cmd, argv), now_ms);
            self.monitor_event("eviction-cycle", start, now_ms);
            Some(room?)
        } else {
            None
        };
        *rejected = false;
        // One key (most commands) is locked alone. A keyless write (FLUSHALL) takes every
        // shard while it is logged, so no other write lands between its effect and its place
        // in the log; SORT's patterns read any key.
        let single_key = if cmd.flags & ALL_SHARDS == 0 { cmd.single_key(argv) } else { None };
        // Locking a key counts an access to it for the hot keys view (`store::hotkeys`).
        // A client that waits for shards a busy script holds gives up with BUSY (`busy`).
        let busy = || self.script_run.is_busy();
        let db = if let Some(key) = single_key {
            self.store.lock_key_unless(session.db, key, now_ms, &busy)
        } else if cmd.flags & ALL_SHARDS != 0
            || (cmd.flags & WRITE != 0 && self.propagation().enabled() && cmd.keys(argv).next().is_none())
        {
            self.store.lock_all_unless(session.db, &busy)
        } else {
            self.store.lock_keys_unless(session.db, cmd.keys(argv), &busy).map(|mut db| {
                db.count_accesses(cmd.keys(argv), now_ms);
                db
            })
        };
        let Some(db) = db else {
            *rejected = true;
            return Err(self.script_run.busy_error().unwrap_or(CmdError::Other(crate::busy::BUSY_EVAL.into())));
        };
        let result = self.run_locked(cmd, session, db, argv, now_ms);
        // Events the store raised with nothing after them (a read's keymiss or expiry).
        self.publish_store_events(now_ms);
        // Clients blocked on keys this command (or an EXEC) filled get their data now,
        // before this command's reply goes out (see `crate::blocking`).
        self.serve_ready(now_ms);
        // A script (ALL_SHARDS, not WRITE itself) may have written too.
        if cmd.flags & (WRITE | ALL_SHARDS) != 0 {
            // The estimate can fall short (or another writer raced us): evict until the
            // limit holds again before this write is acknowledged.
            self.store.enforce_limit(now_ms);
            self.publish_store_events(now_ms);
        }
        result
    }

    /// Runs a command's handler on shards already locked: its own (`run`), or a reborrow of
    /// an EXEC's. A write that changes a watched key marks the sessions watching it.
    pub(crate) fn run_locked<'a>(
        &'a self,
        cmd: &'static Command,
        session: &'a mut Session,
        mut db: Locked<'a>,
        argv: &'a [&'a [u8]],
        now_ms: u64,
    ) -> Result<Reply, CmdError> {
        // A command without keys may read the counters (INFO, LATENCY, COMMAND, CONFIG
        // RESETSTAT): this connection's earlier calls are counted before it runs.
        if cmd.key_specs.is_empty() {
            self.flush_calls(session);
        }
        // The value types read the encoding thresholds from this thread's copy.
        self.config.encodings().enter();
        let [watched, tracked] = self.keys_before_write(cmd, &mut db, argv, now_ms);
        if session.client.no_touch.load(Relaxed) && cmd.name != "TOUCH" {
            db.set_no_touch(true);
        }
        let mut ctx = Ctx { engine: self, cmd, session, db, now: now_ms, argv, unchanged: 0 };
        let mut args = Args::new(&argv[cmd.args_start()..]);
        let result = (cmd.handler)(&mut ctx, &mut args);
        let log_as = ctx.session.log_as.take();
        // A read that changed its value (PFCOUNT refreshing its cached cardinality) says
        // what to log, as Redis propagates a `may-replicate` command that made the data dirty.
        let read_logs = cmd.flags & WRITE == 0 && log_as.as_ref().is_some_and(|c| !c.is_empty());
        if (cmd.flags & WRITE != 0 || read_logs) && self.propagation().enabled() {
            if let Ok(reply) = &result {
                if !reply.is_error() {
                    self.propagate(ctx.session, argv, reply, log_as, now_ms);
                }
            }
        }
        if !watched.is_empty() && matches!(result, Ok(ref r) if !r.is_error()) {
            for (i, key, existed) in watched {
                // Missing before and after: nothing changed (DEL of a missing key).
                let unchanged = i < 64 && ctx.unchanged & (1 << i) != 0;
                if !unchanged && (existed || ctx.db.shard(key).contains(key, now_ms)) {
                    self.store.watches.touch(ctx.db.db(), key);
                }
            }
        }
        if !tracked.is_empty() && matches!(result, Ok(ref r) if !r.is_error()) {
            self.invalidate_written(&mut ctx, tracked);
        }
        if cmd.flags & READONLY != 0 && ctx.session.tracking.remembers() {
            self.remember_read(cmd, ctx.session, argv);
        }
        if self.monitors.any() {
            self.feed_monitors(cmd, ctx.session, argv, now_ms);
        }
        result
    }

    /// Logs a successful write in canonical form, while its shards are still locked (so the
    /// log's order is the order writes took effect); inside EXEC, into the transaction's batch.
    /// `log_as`: what the handler said to log instead (see `Session::log_as`).
    fn propagate(
        &self,
        session: &mut Session,
        argv: &[&[u8]],
        reply: &Reply,
        log_as: Option<Vec<Vec<Vec<u8>>>>,
        now_ms: u64,
    ) {
        let cmds = match log_as {
            // The handler says its write changed nothing (an XTRIM that trimmed nothing).
            Some(cmds) if cmds.is_empty() => return,
            Some(cmds) => cmds,
            None => crate::propagate::rewrite_for_log(argv, reply, now_ms),
        };
        let mut bytes = Vec::new();
        for c in &cmds {
            crate::propagate::encode_command(&mut bytes, c);
        }
        match &mut session.prop_batch {
            Some(batch) => batch.push(session.db, &bytes),
            None => self.propagation().append_raw(session.db, &bytes),
        }
    }

    /// The keys of a write, each with its position among the command's keys and whether it
    /// exists now (before the write): those somebody WATCHes, and all of them while a client
    /// tracks (for CLIENT TRACKING's invalidations). Both empty, at the cost of two atomic
    /// loads, while nobody watches or tracks anything.
    fn keys_before_write<'k>(
        &self,
        cmd: &Command,
        db: &mut Locked<'_>,
        argv: &'k [&'k [u8]],
        now_ms: u64,
    ) -> [WrittenKeys<'k>; 2] {
        let write = cmd.flags & WRITE != 0;
        let (watching, tracking) = (write && self.store.watches.any(), write && self.tracking.any());
        let mut found = [SmallVec::new(), SmallVec::new()];
        if !watching && !tracking {
            return found;
        }
        let db_index = db.db();
        for (i, k) in cmd.keys(argv).enumerate() {
            let watched = watching && self.store.watches.is_watched(db_index, k);
            if watched || tracking {
                let key = (i, k, db.shard(k).contains(k, now_ms));
                if watched {
                    found[0].push(key);
                }
                if tracking {
                    found[1].push(key);
                }
            }
        }
        found
    }

    /// How many bytes a write may add, at most: every argument stored anew, plus a fresh
    /// entry per key. Conservative on purpose so the limit holds after the write. A key
    /// lives inside its entry's allocation, which the allocator rounds up to a size class
    /// that can be a quarter larger than the key (jemalloc's classes are at most 25% apart);
    /// `ENTRY_OVERHEAD` covers that for short keys, the quarter term for long ones.
    fn estimate_growth(&self, cmd: &Command, argv: &[&[u8]]) -> usize {
        let args: usize = argv[1..].iter().map(|a| alloc_size(a.len())).sum();
        let (keys, key_bytes) = cmd.keys(argv).fold((0, 0), |(n, bytes), k| (n + 1, bytes + k.len()));
        let extra = cmd.grow.map(|f| f(argv)).unwrap_or(0);
        args + keys * (ENTRY_OVERHEAD + TTL_OVERHEAD) + key_bytes / 4 + extra
    }

    /// One active-expiry round (the host calls this `hz` times a second).
    pub(crate) fn sweep(&self, now_ms: u64, budget: usize) -> SweepReport {
        self.stats().sample_rates(now_ms);
        let start = self.monitor_start();
        // A running script holds every shard: the round ends rather than wait for it (the
        // host's timer would otherwise be stuck for the script's whole run).
        let report = self.store.sweep(now_ms, budget, &|| self.script_run.is_running());
        self.publish_store_events(now_ms);
        self.monitor_event("expire-cycle", start, now_ms);
        if self.tracking.any() {
            // Keys the cycle expired are invalidated now; the table's bound is kept here
            // too, as Redis's cron does.
            let send = self.tracking_sender(now_ms);
            self.tracking.flush(&send);
            self.tracking.enforce_limit(self.config().tracking_table_max_keys(), &send);
        }
        report
    }

    /// The clock's reading when the latency monitor is on (`latency-monitor-threshold` > 0),
    /// so the work that follows can be timed as one of its events; `None` (no clock read)
    /// when it is off.
    fn monitor_start(&self) -> Option<u64> {
        (self.config().latency_monitor_threshold() > 0 && self.timing.enabled()).then(|| self.timing.now_us())
    }

    /// Records `event` if the work since `start` took the monitor's threshold or longer.
    fn monitor_event(&self, event: &str, start: Option<u64>, now_ms: u64) {
        let Some(start) = start else { return };
        self.monitor_sample(event, self.timing.now_us().saturating_sub(start), now_ms);
    }

    /// Records `event`, which took `us`, if the monitor is on and that is its threshold or more.
    fn monitor_sample(&self, event: &str, us: u64, now_ms: u64) {
        let threshold = self.config().latency_monitor_threshold();
        if threshold > 0 && us / 1000 >= threshold {
            self.timing.latency_add(event, now_ms / 1000, us / 1000);
        }
    }

    /// The most recent evictions and expirations.
    pub(crate) fn recent_events(&self) -> Vec<KeyEvent> {
        self.store.recent_events()
    }
}

/// Redis's `may_replicate` test for CLIENT PAUSE WRITE: writes, and the commands that may
/// add to the replication stream without the write flag.
fn may_replicate(cmd: &Command) -> bool {
    cmd.flags & WRITE != 0 || matches!(cmd.name, "PUBLISH" | "SPUBLISH" | "PFCOUNT" | "EVAL" | "EVALSHA" | "FCALL")
}

/// Whether a handler's error refused an argument it does not take (`ERR syntax error`, its
/// variants, and EXPIRE's `ERR Unsupported option`): the compatibility radar counts these.
fn refuses_an_option(e: &CmdError) -> bool {
    match e {
        CmdError::Syntax => true,
        CmdError::Other(text) => text.starts_with("ERR syntax error") || text.starts_with("ERR Unsupported option"),
        _ => false,
    }
}

/// The arguments an "unknown command" error quotes, as Redis builds them: each as `%.*s`
/// (up to a NUL byte), while the quoted text (`'arg' ` each) is under 128 bytes, the last
/// one cut to what is left of those 128.
fn quoted_args(args: &[&[u8]]) -> Vec<String> {
    const BUDGET: usize = 128;
    let mut used = 0;
    let mut quoted = Vec::new();
    for arg in args {
        if used >= BUDGET {
            break;
        }
        let shown = c_str(arg, BUDGET - used);
        used += shown.len() + 3;
        quoted.push(String::from_utf8_lossy(shown).into_owned());
    }
    quoted
}

#[cfg(test)]
mod tests {
    use crate::testing::{err, TestEngine};
    use crate::Reply;

    #[test]
    fn unknown_command_quotes_arguments_as_redis() {
        let mut t = TestEngine::default();
        let prefix = "ERR unknown command 'NOSUCH', with args beginning with: ";
        // Each argument as C's `%.*s` prints it: up to a NUL byte.
        assert_eq!(t.run(&[&b"NOSUCH"[..], b"a\0b", b"\xff\xfe"]), err(&format!("{prefix}'a' '\u{fffd}\u{fffd}' ")));
        // Quoted while the text is under 128 bytes; the last is cut to what is left.
        let (x, y) = ("x".repeat(100), "y".repeat(100));
        let want = format!("{prefix}'{x}' '{}' ", &y[..25]);
        assert_eq!(t.run(&["NOSUCH", &x, &y, "z"]), err(&want));
        let name = "N".repeat(140);
        let want = format!("ERR unknown command '{}', with args beginning with: ", &name[..128]);
        assert_eq!(t.run(&[&name]), err(&want));
    }

    #[test]
    fn a_container_dispatches_to_its_subcommand_row() {
        let mut t = TestEngine::default();
        // Unknown: quoted as `%.128s` (up to a NUL, 128 bytes), the container in upper case.
        assert_eq!(t.run(&["object", "NoSuch", "k"]), err("ERR unknown subcommand 'NoSuch'. Try OBJECT HELP."));
        assert_eq!(t.run(&[&b"memory"[..], b"us\0age", b"k"]), err("ERR unknown subcommand 'us'. Try MEMORY HELP."));
        // Arity is the subcommand's, named by its full name; the container alone has its own.
        assert_eq!(t.run(&["OBJECT", "encoding"]), err("ERR wrong number of arguments for 'object|encoding' command"));
        assert_eq!(t.run(&["pubsub"]), err("ERR wrong number of arguments for 'pubsub' command"));
        assert_eq!(t.run(&["PUBSUB", "NUMPAT", "x"]), err("ERR wrong number of arguments for 'pubsub|numpat' command"));
        // A subcommand named like a plain command is not that command.
        assert_eq!(t.run(&["CLIENT", "GET"]), err("ERR unknown subcommand 'GET'. Try CLIENT HELP."));
        // Inside MULTI both refusals mark the transaction, as an unknown command does.
        for bad in [&["CONFIG", "NOPE"][..], &["CONFIG", "GET"]] {
            t.run(&["MULTI"]);
            assert!(t.run(bad).is_error());
            assert_eq!(t.run(&["CLIENT", "ID"]), Reply::status("QUEUED"));
            assert_eq!(t.run(&["EXEC"]), err("EXECABORT Transaction discarded because of previous errors."));
        }
        // Queued, a subcommand runs as itself.
        t.run(&["MULTI"]);
        t.run(&["CLIENT", "SETNAME", "queued"]);
        t.run(&["CLIENT", "GETNAME"]);
        assert_eq!(t.run(&["EXEC"]), Reply::Array(vec![Reply::Ok, crate::testing::bulk("queued")]));
    }

    #[test]
    fn feed_until_stops_once_the_output_reaches_the_limit_and_goes_on_from_there() {
        let mut t = TestEngine::default();
        t.run(&["SET", "big", &"b".repeat(1000)]);
        let get = b"*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n";
        let input: Vec<u8> = get.iter().copied().cycle().take(get.len() * 10).collect();
        let reply_len = "$1000\r\n".len() + 1000 + 2;
        let mut out = b"already sent".to_vec();
        let start = out.len();
        // The command that reaches the limit runs; the next one waits.
        let used = t.engine.feed_until(&mut t.session, &input, &mut out, t.now, start + 2 * reply_len + 1).unwrap();
        assert_eq!((used, out.len()), (3 * get.len(), start + 3 * reply_len));
        let used = t.engine.feed_until(&mut t.session, &input[used..], &mut out, t.now, start).unwrap();
        assert_eq!(used, 0, "nothing runs while the output is over the limit");
        let rest = t.engine.feed_until(&mut t.session, &input[3 * get.len()..], &mut out, t.now, usize::MAX).unwrap();
        assert_eq!(rest, 7 * get.len());
        assert_eq!(out.len(), start + 10 * reply_len);
    }

    #[test]
    fn feed_stops_after_a_wrong_password_and_counts_it() {
        let mut t = TestEngine::default();
        t.run(&["CONFIG", "SET", "requirepass", "secret"]);
        let mut s = t.engine.new_session("127.0.0.1:2", "127.0.0.1:6379", t.now);
        let input = b"AUTH a\r\nAUTH b\r\nAUTH secret\r\nPING\r\n";
        let mut out = Vec::new();
        let used = t.engine.feed(&mut s, input, &mut out, t.now).unwrap();
        assert_eq!(used, b"AUTH a\r\n".len(), "the next guess waits for the host");
        assert_eq!((s.auth_failures, s.authenticated), (1, false));
        let wrongpass = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
        assert_eq!(String::from_utf8_lossy(&out), wrongpass);
        let used2 = t.engine.feed(&mut s, &input[used..], &mut out, t.now).unwrap();
        let used3 = t.engine.feed(&mut s, &input[used + used2..], &mut out, t.now).unwrap();
        assert_eq!(used + used2 + used3, input.len());
        assert_eq!(String::from_utf8_lossy(&out), format!("{wrongpass}{wrongpass}+OK\r\n+PONG\r\n"));
        // HELLO ... AUTH counts too; the count is per connection, the stat for the server.
        assert_eq!(
            t.run(&["HELLO", "3", "AUTH", "default", "nope"]),
            err(wrongpass.trim_start_matches('-').trim_end())
        );
        assert_eq!(t.session.auth_failures, 1);
        assert_eq!(t.engine.snapshot(t.now).acl_access_denied_auth, 3);
        t.run(&["CONFIG", "RESETSTAT"]);
        assert_eq!(t.engine.snapshot(t.now).acl_access_denied_auth, 3, "RESETSTAT keeps it, as Redis 7.2");
    }
}
