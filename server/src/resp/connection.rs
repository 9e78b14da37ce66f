//! One RESP connection: a [`Connection`] owns its socket, its input and output buffers and
//! its session, and [`Connection::run`] moves bytes between the socket and `Engine::feed`
//! until the connection ends (see the module above for the protocol it follows).
//!
//! Each turn of `run` first looks at what other tasks may have changed (a kill, the shutdown,
//! pub/sub messages, a blocked command served), then either runs commands it held back or
//! waits for one event: a wake-up, room to write, bytes to read, or a timer. The hot path is
//! one read, one `feed`, one write, with no allocation of its own.

use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use futures_util::task::AtomicWaker;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};
use tokio::time::{sleep_until, timeout, Instant};
use tracing::{debug, info, warn};
use vitrine_engine::{Engine, ProtocolError, Session};

use super::held::{block_deadline, compact, HeldBack};
use crate::aof::Aof;
use crate::guard::{OutputPolicy, SoftLimitClock};
use crate::now_ms;

/// Bytes read at a time, and the input buffer's size while idle.
pub(super) const READ_CHUNK: usize = 16 * 1024;

/// Buffers that grew past this while serving a large request or reply are given back once
/// empty, so an idle connection holds `READ_CHUNK`-sized buffers, not its high-water mark.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// How long a closing connection may take to flush its last replies (QUIT, a protocol error).
pub(super) const FLUSH_TIMEOUT: Duration = Duration::from_secs(10);

/// The same at shutdown, kept well under the server's drain timeout (3 s) so that a client
/// that does not read cannot hold the shutdown.
const SHUTDOWN_FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// Sleeps until the `Option<Instant>` given, or for ever without one. A macro rather than an
/// `async fn`: each use is a future type of its own with one caller, which the compiler
/// inlines into the select, as it does not a shared function polled from four branches
/// (about 100 instructions more per request at pipeline 1, callgrind).
macro_rules! sleep_or_never {
    ($at:expr) => {{
        let at: Option<Instant> = $at;
        async move {
            match at {
                Some(at) => sleep_until(at).await,
                None => std::future::pending().await,
            }
        }
    }};
}

/// Unsent output below which waiting pub/sub messages are moved into it. A subscriber that
/// stops reading leaves them in its outbox, where `client-output-buffer-limit pubsub`
/// counts them and disconnects it once they break the limit.
const PUSH_ROOM: usize = 64 * 1024;

/// An open session; closing it (on every path out of the connection task, panics included)
/// unregisters the client.
pub(super) struct Open {
    pub(super) engine: Arc<Engine>,
    pub(super) session: Session,
    /// The server's append-only file, when on: replies wait on its fsyncs.
    pub(super) aof: Option<Arc<Aof>>,
}

impl Drop for Open {
    fn drop(&mut self) {
        self.engine.end_session(&self.session);
    }
}

/// How other tasks wake a connection's task (CLIENT KILL, pub/sub messages, shutdown): a
/// flag and the task's waker. Lighter than tokio's `Notify`, whose `Notified` future takes a
/// lock to register and unregister its waiter each time the connection's select is polled
/// (5% of the per-request instructions at pipeline 1); here a poll is an atomic load while
/// nothing is pending, plus a waker comparison.
#[derive(Default)]
struct WakeSignal {
    pending: AtomicBool,
    waker: AtomicWaker,
}

impl WakeSignal {
    fn notify(&self) {
        self.pending.store(true, SeqCst);
        self.waker.wake();
    }

    /// Completes once `notify` has been called since the last completion; a notification
    /// that arrives while nobody waits is kept, so none is lost.
    fn woken(&self) -> impl std::future::Future<Output = ()> + '_ {
        std::future::poll_fn(move |cx| {
            if self.pending.load(SeqCst) && self.pending.swap(false, SeqCst) {
                return Poll::Ready(());
            }
            self.waker.register(cx.waker());
            // A notify between the check and the registration would otherwise be missed.
            if self.pending.swap(false, SeqCst) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

/// Why a connection ended.
#[derive(Debug)]
enum End {
    /// The client closed its side (its last replies are still sent, for a half-close).
    Eof,
    Io(io::Error),
    /// QUIT: flush the replies, then close.
    Quit,
    /// Broken framing: flush the replies (the error is the last one), then close.
    Protocol(ProtocolError),
    /// Unprocessed input over `client-query-buffer-limit`.
    QueryBufferFull(usize),
    /// No input for `timeout` seconds.
    Idle,
    /// Still not authenticated after `--unauthenticated-timeout` seconds.
    AuthTimeout,
    /// Unsent replies (this many) over an output limit: the client does not read.
    OutputBufferFull(usize, OutputPolicy),
    /// CLIENT KILL from this connection itself: its reply is flushed first.
    KilledSelf,
    /// CLIENT KILL from another connection.
    Killed,
    Shutdown,
}

impl End {
    /// An append-only file failure: the client gets no acknowledgement, its connection closes.
    fn aof(error: String) -> End {
        End::Io(io::Error::other(error))
    }

    /// How long the replies made so far may take to be sent before closing, when they are
    /// sent at all. After EOF too: a client that half-closes once it has sent its commands
    /// (`nc -q`, `printf ... | nc`) still reads the replies. At shutdown too: the commands
    /// they answer have run (and are in the append-only file), so their clients are told;
    /// commands not yet run stay unanswered.
    fn flush_limit(&self) -> Option<Duration> {
        match self {
            End::Quit | End::Protocol(_) | End::KilledSelf | End::Eof => Some(FLUSH_TIMEOUT),
            End::Shutdown => Some(SHUTDOWN_FLUSH_TIMEOUT),
            _ => None,
        }
    }
}

/// What a connection's turn was woken by.
enum Event {
    /// Another task called the session's waker (CLIENT KILL, a message, a served block,
    /// the shutdown), or a held-back delay or the soft output limit's seconds ran out.
    Woken,
    Wrote(io::Result<usize>),
    Read(io::Result<usize>),
    BlockTimeout,
    Idle,
    AuthTimeout,
}

/// What a turn of the connection waits for besides a wake-up (see [`Connection::wait`]).
struct Wait {
    writing: bool,
    reading: bool,
    block_at: Option<Instant>,
    idle_at: Option<Instant>,
    auth_at: Option<Instant>,
    recheck_at: Option<Instant>,
}

/// A RESP connection's task state.
pub(super) struct Connection {
    open: Open,
    stream: TcpStream,
    /// Bytes read and not yet consumed by `feed` (a partial command, or commands held back).
    input: Vec<u8>,
    /// Replies; the first `sent` bytes are already written.
    out: Vec<u8>,
    sent: usize,
    last_input: Instant,
    held: HeldBack,
    soft_clock: SoftLimitClock,
    /// Woken by CLIENT KILL from another connection, pub/sub messages for this one, a
    /// served blocking command and the shutdown; the top of each turn looks at all of them.
    wake: Arc<WakeSignal>,
    shutdown: watch::Receiver<bool>,
    auth_deadline: Option<Instant>,
    /// Dropped when the connection ends: the server waits for every clone to go.
    _done: mpsc::Sender<()>,
}

impl Connection {
    pub(super) fn new(
        open: Open,
        stream: TcpStream,
        shutdown: watch::Receiver<bool>,
        done: mpsc::Sender<()>,
        auth_deadline: Option<Instant>,
    ) -> Connection {
        let wake = Arc::new(WakeSignal::default());
        {
            let wake = wake.clone();
            open.session.client.set_waker(move || wake.notify());
        }
        // Redis starts a client's reply buffer peak (`rbp`) at the buffer's size.
        open.session.client.io.out_peak.store(READ_CHUNK, std::sync::atomic::Ordering::Relaxed);
        let connection = Connection {
            open,
            stream,
            input: Vec::with_capacity(READ_CHUNK),
            out: Vec::with_capacity(READ_CHUNK),
            sent: 0,
            last_input: Instant::now(),
            held: HeldBack::default(),
            soft_clock: SoftLimitClock::default(),
            wake,
            shutdown,
            auth_deadline,
            _done: done,
        };
        // CLIENT LIST shows the buffers' sizes from the first command on.
        connection.report_io();
        connection
    }

    /// Serves the connection until it ends, then closes it.
    pub(super) async fn run(mut self) {
        let end = loop {
            if let Err(end) = self.turn().await {
                break end;
            }
        };
        self.close(end).await;
    }

    /// One turn: what other tasks changed, then held-back commands or the next event.
    async fn turn(&mut self) -> Result<(), End> {
        self.check_alive()?;
        // Each waits (for the append-only file) only when it has something to send.
        if self.take_pushes() {
            self.hold_for_pushes().await?;
        }
        if self.retry_blocked() {
            self.logged_is_durable().await?;
        }
        // Read again for every turn, so CONFIG SET reaches open connections.
        let policy = self.policy();
        let delayed = self.held.delayed();
        // Commands held back by a full output buffer or a wrong password's delay run once
        // the client has read enough, or the delay has passed.
        if self.held.commands && !delayed && !self.paused() && self.pending() <= policy.resume_at() {
            return self.run_held(&policy).await;
        }
        self.check_output(&policy)?;
        // The select is here rather than in a method of its own, and the waits above are
        // awaited only when due: each future nested in a turn cost instructions per request
        // (together about 1% at pipeline 1, callgrind).
        let wait = self.wait(&policy, delayed);
        let (mut rd, mut wr) = self.stream.split();
        let event = tokio::select! {
            biased;
            () = self.wake.woken() => Event::Woken,
            written = wr.write(&self.out[self.sent..]), if wait.writing => Event::Wrote(written),
            read = rd.read_buf(&mut self.input), if wait.reading => Event::Read(read),
            () = sleep_or_never!(wait.block_at) => Event::BlockTimeout,
            () = sleep_or_never!(wait.idle_at) => Event::Idle,
            () = sleep_or_never!(wait.auth_at) => Event::AuthTimeout,
            () = sleep_or_never!(wait.recheck_at) => Event::Woken,
        };
        if matches!(event, Event::Read(_)) {
            self.open.engine.count_read();
        }
        match event {
            Event::Woken => Ok(()),
            Event::Wrote(written) => self.on_written(written),
            Event::Read(Ok(0)) => Err(End::Eof),
            Event::Read(Ok(n)) => self.serve_input(n).await,
            Event::Read(Err(e)) => Err(End::Io(e)),
            Event::BlockTimeout => self.block_timed_out().await,
            Event::Idle => Err(End::Idle),
            Event::AuthTimeout => Err(End::AuthTimeout),
        }
    }

    /// Its commands wait for a CLIENT PAUSE to end (`Engine::pause_end`; CLIENT UNPAUSE
    /// wakes every connection).
    #[inline]
    fn paused(&self) -> bool {
        self.open.session.paused && self.open.engine.pause_end(now_ms()).is_some()
    }

    /// When the pause holding this connection's commands ends, on tokio's clock.
    fn pause_deadline(&self) -> Option<Instant> {
        if !self.open.session.paused {
            return None;
        }
        let now = now_ms();
        let end = self.open.engine.pause_end(now)?;
        Instant::now().checked_add(Duration::from_millis(end - now))
    }

    /// Tells the engine how full this connection's buffers are (CLIENT LIST's `qbuf`,
    /// `qbuf-free`, `obl`, `omem`, `tot-mem`).
    #[inline]
    fn report_io(&self) {
        let (input, out) = (&self.input, &self.out);
        self.open.session.client.io.report(input.len(), input.capacity() - input.len(), self.pending(), out.capacity());
    }

    /// Killed by another client, or the server is shutting down.
    #[inline]
    fn check_alive(&self) -> Result<(), End> {
        if self.open.session.client.is_killed() {
            return Err(End::Killed);
        }
        // Shutdown is checked here rather than awaited in the select below: a watch
        // receiver's `changed()` registers a waiter under a lock on every turn, a tenth of
        // the per-request instructions at pipeline 1 (callgrind). Whoever shuts down wakes
        // every connection (`Engine::wake_all_clients`), so a sleeping one comes here too.
        if self.shutdown.has_changed().unwrap_or(true) {
            return Err(End::Shutdown);
        }
        Ok(())
    }

    /// Moves the session's waiting pub/sub messages to the output when there is room; says
    /// whether there were any.
    #[inline]
    fn take_pushes(&mut self) -> bool {
        if self.pending() >= PUSH_ROOM {
            return false;
        }
        let before = self.out.len();
        self.open.session.client.take_pushes(&mut self.out);
        self.out.len() > before
    }

    /// A message may tell of a write (its publisher's SET just before the PUBLISH): under
    /// appendfsync always it waits for that write's fsync, as every reply does.
    async fn hold_for_pushes(&self) -> Result<(), End> {
        let seen = self.open.engine.propagation().appended();
        crate::aof::hold_replies(self.open.aof.as_deref(), seen).await.map_err(End::aof)
    }

    /// A blocking command (BLPOP, ...) that has been served: its reply, then the commands
    /// that waited behind it; says whether it was. The wake-up that brings us here is the
    /// client's waker. The pop done on this client's behalf (and any writes after it) must
    /// then be in the append-only file before the reply says so.
    #[inline]
    fn retry_blocked(&mut self) -> bool {
        let Open { engine, session, .. } = &mut self.open;
        if session.blocked.is_some() && engine.retry_blocked(session, &mut self.out, now_ms()) {
            self.held.commands = !self.input.is_empty();
            return true;
        }
        false
    }

    /// The blocked command's timeout: its null reply, then the commands behind it.
    async fn block_timed_out(&mut self) -> Result<(), End> {
        self.open.engine.unblock_timeout(&mut self.open.session, &mut self.out);
        self.held.commands = !self.input.is_empty();
        self.logged_is_durable().await
    }

    /// Runs the commands held back in `input` (see [`HeldBack`]) as a read would, up to the
    /// output limit again. One of them may block.
    async fn run_held(&mut self, policy: &OutputPolicy) -> Result<(), End> {
        // The replies before them go first (a wrong password's, held for its delay).
        self.try_flush()?;
        let fed = self.feed(policy);
        // Before `consume`, as for a read: a QUIT or broken frame among them ends the
        // connection with a flush, which must not send a write's reply before it is durable.
        self.logged_is_durable().await?;
        self.consume(fed, policy)?;
        self.check_output(policy)
    }

    /// Bytes just read: run every complete command, wait until the writes among them are
    /// durable, and write the replies.
    async fn serve_input(&mut self, n: usize) -> Result<(), End> {
        self.last_input = Instant::now();
        self.open.engine.count_net_input(n as u64);
        // The limits as they are now: this task may have slept through a CONFIG SET.
        let policy = self.policy();
        let logged_before = self.open.engine.propagation().appended();
        let fed = self.feed(&policy);
        if let Some(logged) = self.to_acknowledge(logged_before) {
            crate::aof::wait_durable(self.open.aof.as_deref(), logged).await.map_err(End::aof)?;
        }
        self.consume(fed, &policy)?;
        self.check_output(&policy)?;
        let query_buffer_limit = self.open.engine.config().client_query_buffer_limit();
        if self.input.len() as u64 > query_buffer_limit {
            return Err(End::QueryBufferFull(self.input.len()));
        }
        if self.input.is_empty() && self.input.capacity() > SHRINK_ABOVE {
            self.input = Vec::with_capacity(READ_CHUNK);
        }
        // The replies almost always fit the socket's buffer: write them now rather than on
        // the next turn, which saves a pass through the select (and its wakers) per request.
        // What does not fit waits for the write event. A wrong password's reply waits for
        // its delay.
        if self.held.until.is_none() {
            self.try_flush()?;
        }
        self.report_io();
        Ok(())
    }

    /// Runs the complete commands in `input` until the unsent replies reach the policy's
    /// limit; says how many bytes they took.
    #[inline]
    fn feed(&mut self, policy: &OutputPolicy) -> Result<usize, ProtocolError> {
        compact(&mut self.out, &mut self.sent);
        let stop_at = self.sent + policy.stop_at;
        let Open { engine, session, .. } = &mut self.open;
        engine.feed_until(session, &self.input, &mut self.out, now_ms(), stop_at)
    }

    /// Drops the input `feed` used, and notes what it left: the end of the connection (QUIT,
    /// CLIENT KILL of itself, broken framing) or commands held back.
    #[inline]
    fn consume(&mut self, fed: Result<usize, ProtocolError>, policy: &OutputPolicy) -> Result<(), End> {
        self.input.drain(..fed.map_err(End::Protocol)?);
        let session = &self.open.session;
        if session.closing {
            return Err(End::Quit);
        }
        if session.client.is_killed() {
            return Err(End::KilledSelf);
        }
        let output_full = self.out.len() >= self.sent + policy.stop_at;
        self.held.after_feed(session, !self.input.is_empty(), output_full);
        Ok(())
    }

    /// Writes are acknowledged only once the append-only file holds them (fsynced, under
    /// appendfsync always); on an AOF failure the client gets no acknowledgement at all.
    /// Under appendfsync always, a reader's replies also wait until every write they could
    /// have seen is fsynced, so nobody sees a write that a crash then loses
    /// (`aof::must_hold`). Says up to which offset the replies wait, if they do.
    #[inline]
    fn to_acknowledge(&self, logged_before: u64) -> Option<u64> {
        let logged_after = self.open.engine.propagation().appended();
        let wait = logged_after != logged_before || crate::aof::must_hold(self.open.aof.as_deref(), logged_after);
        wait.then_some(logged_after)
    }

    /// Waits until the append-only file holds everything logged so far (fsynced, under
    /// appendfsync always), for replies that follow writes done on this client's behalf (a
    /// served blocking pop, held-back commands). No file: nothing to wait for.
    async fn logged_is_durable(&self) -> Result<(), End> {
        let logged = self.open.engine.propagation().appended();
        crate::aof::wait_durable(self.open.aof.as_deref(), logged).await.map_err(End::aof)
    }

    /// Closes a client whose unsent replies broke an output limit.
    #[inline]
    fn check_output(&mut self, policy: &OutputPolicy) -> Result<(), End> {
        let pending = self.pending();
        if self.held.over_limit(policy, pending, &mut self.soft_clock) {
            return Err(End::OutputBufferFull(pending, *policy));
        }
        Ok(())
    }

    /// What the connection waits for next: a wake-up (always), room to write the pending
    /// replies, bytes to read (unless the output is full or commands are held back), and its
    /// timers.
    #[inline]
    fn wait(&mut self, policy: &OutputPolicy, delayed: bool) -> Wait {
        let pending = self.pending();
        let reading = pending < policy.stop_at && !self.held.commands && !delayed;
        if reading && self.input.capacity() - self.input.len() < READ_CHUNK {
            self.input.reserve(READ_CHUNK);
        }
        Wait {
            writing: pending > 0 && !delayed,
            reading,
            block_at: block_deadline(&self.open.session),
            idle_at: self.idle_deadline(),
            auth_at: if self.open.session.authenticated { None } else { self.auth_deadline },
            // The end of a wrong password's delay, or when the soft limit's seconds run out,
            // or a CLIENT PAUSE ends.
            recheck_at: if delayed {
                self.held.until
            } else {
                let soft = self.soft_clock.deadline(policy).map(Instant::from_std);
                match (soft, self.pause_deadline()) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                }
            },
        }
    }

    /// When the connection is closed for having sent nothing for `timeout` seconds. As in
    /// Redis, a subscriber waiting for messages is not idle, nor a blocked (or paused) client.
    #[inline]
    fn idle_deadline(&self) -> Option<Instant> {
        let session = &self.open.session;
        if session.subs.any() || session.blocked.is_some() || session.paused {
            return None;
        }
        match self.open.engine.config().timeout_s() {
            0 => None,
            s => self.last_input.checked_add(Duration::from_secs(s)),
        }
    }

    #[inline]
    fn on_written(&mut self, written: io::Result<usize>) -> Result<(), End> {
        self.open.engine.count_write();
        match written {
            Ok(0) => Err(End::Io(io::ErrorKind::WriteZero.into())),
            Ok(n) => {
                // A client taking its replies is not idle, though it sends nothing while its
                // commands are held back (Redis counts writes as interaction too).
                self.last_input = Instant::now();
                self.wrote(n);
                Ok(())
            }
            Err(e) => Err(End::Io(e)),
        }
    }

    /// Writes what the socket takes of the pending replies now, without waiting.
    #[inline]
    fn try_flush(&mut self) -> Result<(), End> {
        if self.pending() == 0 {
            return Ok(());
        }
        self.open.engine.count_write();
        match self.stream.try_write(&self.out[self.sent..]) {
            Ok(n) => {
                self.wrote(n);
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            Err(e) => Err(End::Io(e)),
        }
    }

    /// Accounts for `n` reply bytes written: the output buffer is emptied (and given back if
    /// a large reply grew it) once everything in it has been sent.
    #[inline]
    fn wrote(&mut self, n: usize) {
        self.open.engine.count_net_output(n as u64);
        // CLIENT LIST's `rbp`: the buffer is at its fullest when written from.
        self.open.session.client.io.note_out_fill(self.out.len());
        self.sent += n;
        if self.sent == self.out.len() {
            self.sent = 0;
            self.out.clear();
            if self.out.capacity() > SHRINK_ABOVE {
                self.out = Vec::with_capacity(READ_CHUNK);
            }
        }
        self.report_io();
    }

    #[inline]
    fn pending(&self) -> usize {
        self.out.len() - self.sent
    }

    #[inline]
    fn policy(&self) -> OutputPolicy {
        OutputPolicy::new(self.open.engine.config().normal_output_limit(), self.open.session.authenticated)
    }

    /// Logs why the connection ended and, when the end allows it, sends the last replies and
    /// closes the write side. Dropping `self` then ends the session.
    async fn close(mut self, end: End) {
        self.log_end(&end);
        let Some(limit) = end.flush_limit() else { return };
        let id = self.open.session.id();
        if self.pending() > 0 {
            let rest = &self.out[self.sent..];
            self.open.engine.count_write();
            match timeout(limit, self.stream.write_all(rest)).await {
                Ok(Ok(())) => {
                    self.open.engine.count_net_output(rest.len() as u64);
                }
                Ok(Err(e)) => debug!(id, "final write: {e}"),
                Err(_) => debug!(id, "final write timed out"),
            }
        }
        let _ = timeout(limit, self.stream.shutdown()).await;
    }

    fn log_end(&self, end: &End) {
        let session = &self.open.session;
        let (id, addr) = (session.id(), &session.client.addr);
        let config = self.open.engine.config();
        match end {
            End::Protocol(ProtocolError::LooksLikeHttp) => {
                warn!(id, %addr, "possible security attack: an HTTP request on the RESP port; connection closed")
            }
            End::Protocol(e) => debug!(id, %addr, "protocol error: {e}"),
            End::QueryBufferFull(len) => warn!(
                id,
                %addr,
                "closing client that reached max query buffer length ({len} bytes > client-query-buffer-limit {})",
                config.client_query_buffer_limit()
            ),
            End::OutputBufferFull(len, policy) => {
                self.open.engine.count_output_limit_disconnection();
                let limit = if *len >= policy.close_at {
                    format!("{} bytes", policy.close_at)
                } else {
                    format!("soft {} bytes for more than {} s", policy.soft, policy.soft_for.as_secs())
                };
                let who = if session.authenticated { "client" } else { "unauthenticated client" };
                warn!(id, %addr, "{who} closed for overcoming of output buffer limits ({len} bytes unsent; limit {limit})")
            }
            End::AuthTimeout => info!(id, %addr, "closing client that did not authenticate in time"),
            End::Idle => info!(id, %addr, "closing idle client after {} s", config.timeout_s()),
            End::Io(e) => debug!(id, "connection error: {e}"),
            _ => debug!(id, "client closed ({end:?})"),
        }
    }
}
