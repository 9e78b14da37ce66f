//! The RESP port: listening sockets, the accept loop, and the per-connection loop that moves
//! bytes between a socket and `Engine::feed`.
//!
//! A connection is one task. Each read appends to the connection's input buffer and hands all
//! of it to `feed`, which runs every complete command, appends the replies to the output
//! buffer and says how many bytes it used; the rest (a partial command) waits for more bytes.
//! Reading and writing are not strictly alternated: while replies are still being written the
//! task keeps reading, so a client that writes a long pipeline before reading any reply cannot
//! deadlock against us, as it could if we waited for every write to finish before reading
//! again.
//!
//! What one connection may buffer is bounded while its replies are produced, not after: `feed`
//! stops before the next command once the unsent replies reach the normal class's limit (see
//! [`OutputPolicy`]). Past a hard limit the client is closed; otherwise its remaining commands
//! wait in the input buffer, nothing more is read, and they run once the client has read
//! half of its replies. A wrong password holds the connection back the same way for a delay.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use anyhow::Context;
use futures_util::task::AtomicWaker;
use socket2::{Domain, Protocol, SockRef, Socket, TcpKeepalive, Type};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::time::{sleep_until, timeout, Instant};
use tracing::{debug, error, info, warn};
use vitrine_engine::{Engine, ProtocolError, Session};

use crate::aof::Aof;
use crate::event_loops::EventLoops;
use crate::guard::{OutputPolicy, SoftLimitClock};
use crate::now_ms;

/// Bytes read at a time, and the input buffer's size while idle.
const READ_CHUNK: usize = 16 * 1024;

/// Buffers that grew past this while serving a large request or reply are given back once
/// empty, so an idle connection holds `READ_CHUNK`-sized buffers, not its high-water mark.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// How long a closing connection may take to flush its last replies (QUIT, a protocol error).
const FLUSH_TIMEOUT: Duration = Duration::from_secs(10);

/// Pause after an accept error (e.g. EMFILE: out of file descriptors) before trying again,
/// so a persistent error does not spin a core or flood the log.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

/// Redis's reply to a connection over `maxclients`.
const MAX_CLIENTS_REPLY: &[u8] = b"-ERR max number of clients reached\r\n";

/// Socket settings for accepted connections.
#[derive(Debug, Clone, Copy)]
pub struct ConnOptions {
    /// `tcp-keepalive` seconds (0 = off).
    pub keepalive_s: u64,
    /// Seconds an unauthenticated client may stay connected while a password is set (0 = no limit).
    pub auth_timeout_s: u64,
}

/// Binds every address of `--bind` on `port`. With port 0 the first address picks a free
/// port and the others use the same one. An address marked optional (`-::1`) is skipped when
/// it cannot be bound (e.g. no IPv6); at least one address must bind.
pub fn bind(addrs: &[(String, bool)], port: u16) -> anyhow::Result<Vec<TcpListener>> {
    let mut listeners: Vec<TcpListener> = Vec::new();
    let mut port = port;
    for (addr, optional) in addrs {
        let ip = parse_bind_addr(addr).with_context(|| format!("invalid --bind address '{addr}'"))?;
        match listen(SocketAddr::new(ip, port)) {
            Ok(listener) => {
                port = listener.local_addr()?.port();
                listeners.push(listener);
            }
            Err(e) if *optional => warn!("skipping optional bind address {addr}: {e}"),
            Err(e) => return Err(e).with_context(|| format!("cannot listen on {}", SocketAddr::new(ip, port))),
        }
    }
    anyhow::ensure!(!listeners.is_empty(), "no --bind address could be bound");
    Ok(listeners)
}

/// An IP address as Redis's `bind` accepts it: a literal, `*` (every IPv4 address) or `::*`
/// (every IPv6 address).
fn parse_bind_addr(addr: &str) -> anyhow::Result<IpAddr> {
    Ok(match addr {
        "*" => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        "::*" => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
        _ => addr.parse()?,
    })
}

fn listen(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    if addr.is_ipv6() {
        // So `bind * ::*` can hold the same port on both families.
        socket.set_only_v6(true)?;
    }
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    socket.set_nonblocking(true)?;
    TcpListener::from_std(socket.into())
}

/// Accepts connections until shutdown. Errors never end the loop: they are logged and, for
/// ones that may persist (out of file descriptors), followed by a short pause. `done` is
/// cloned into every connection so the caller can wait for all of them to end.
pub async fn accept_loop(
    listener: TcpListener,
    engine: Arc<Engine>,
    options: ConnOptions,
    aof: Option<Arc<Aof>>,
    loops: EventLoops,
    mut shutdown: watch::Receiver<bool>,
    done: mpsc::Sender<()>,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.changed() => return,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) if is_connection_error(&e) => {
                debug!("accept: {e}");
                continue;
            }
            Err(e) => {
                error!("accept failed: {e}; retrying in {ACCEPT_ERROR_PAUSE:?}");
                tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                continue;
            }
        };
        match refusal(&engine, peer.ip()) {
            None => {}
            Some(Refusal::MaxClients) => {
                engine.stats().rejected_connections.fetch_add(1, Relaxed);
                debug!("refused connection from {peer}: max number of clients reached");
                tokio::spawn(refuse(stream));
                continue;
            }
            Some(Refusal::ProtectedMode) => {
                engine.stats().rejected_connections.fetch_add(1, Relaxed);
                warn!(%peer, "refused connection: protected mode is on and no password is set");
                tokio::spawn(deny_protected(stream));
                continue;
            }
        }
        configure(&stream, options);
        let local = match stream.local_addr() {
            Ok(a) => a.to_string(),
            Err(_) => String::new(),
        };
        let session = engine.new_session(&peer.to_string(), &local, now_ms());
        let open = Open { engine: engine.clone(), session, aof: aof.clone() };
        debug!(id = open.session.id(), %peer, "client connected");
        let auth_deadline = auth_deadline(&open.session, options);
        // Handed to an event loop as a std socket: a tokio socket belongs to the reactor of
        // the runtime that registered it, and the loop's runtime must own this one.
        let stream = match stream.into_std() {
            Ok(s) => s,
            Err(e) => {
                debug!("cannot hand over the connection from {peer}: {e}");
                continue;
            }
        };
        let (shutdown, done) = (shutdown.clone(), done.clone());
        loops.run_on_next(move || match TcpStream::from_std(stream) {
            Ok(stream) => {
                tokio::spawn(serve(open, stream, shutdown, done, auth_deadline));
            }
            Err(e) => debug!("cannot register the connection from {peer}: {e}"),
        });
    }
}

/// Why a new connection is turned away before it gets a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// `maxclients` connections are open already.
    MaxClients,
    /// Protected mode is on, no password is set and the peer is not on loopback.
    ProtectedMode,
}

/// Whether a connection from `peer` is refused, by the engine's settings at this moment, so
/// `CONFIG SET maxclients` or `CONFIG SET protected-mode` applies to the next accept. The
/// session is opened by the accept loop, not in the connection's task, so the client count
/// read here already includes every connection accepted before.
fn refusal(engine: &Engine, peer: IpAddr) -> Option<Refusal> {
    let config = engine.config();
    if engine.stats().connected_clients.load(Relaxed) >= config.maxclients() {
        return Some(Refusal::MaxClients);
    }
    if crate::guard::protected_mode_denies(config.protected_mode(), config.auth_required(), peer) {
        return Some(Refusal::ProtectedMode);
    }
    None
}

/// Errors that concern one incoming connection only, not the listener.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused
    )
}

/// Protected mode: Redis's -DENIED text, then close.
async fn deny_protected(mut stream: TcpStream) {
    let _ = timeout(FLUSH_TIMEOUT, async {
        stream.write_all(crate::guard::DENIED_REPLY).await?;
        stream.shutdown().await
    })
    .await;
}

/// When an unauthenticated connection is closed if it has not authenticated by then
/// (`--unauthenticated-timeout`); `None` when no password is set or the limit is off.
fn auth_deadline(session: &Session, options: ConnOptions) -> Option<Instant> {
    if session.authenticated || options.auth_timeout_s == 0 {
        return None;
    }
    Instant::now().checked_add(Duration::from_secs(options.auth_timeout_s))
}

/// Clamps `maxclients` to what the process's file-descriptor limit can hold (read from
/// /proc/self/limits), logging when it lowers it, as Redis does at start.
pub fn clamp_maxclients_to_fd_limit(engine: &Engine) {
    let configured = engine.config().maxclients();
    let limit = crate::guard::open_files_limit();
    let clamped = crate::guard::clamp_maxclients(configured, limit);
    if clamped != configured {
        warn!(
            "maxclients lowered from {configured} to {clamped}: the open files limit is {} ({} kept for the server)",
            limit.unwrap_or(0),
            crate::guard::RESERVED_FDS
        );
        if let Err(e) = engine.config().set("maxclients", &clamped.to_string()) {
            warn!("cannot lower maxclients: {e}");
        }
    }
}

async fn refuse(mut stream: TcpStream) {
    let _ = timeout(FLUSH_TIMEOUT, async {
        stream.write_all(MAX_CLIENTS_REPLY).await?;
        stream.shutdown().await
    })
    .await;
}

fn configure(stream: &TcpStream, options: ConnOptions) {
    if let Err(e) = stream.set_nodelay(true) {
        debug!("TCP_NODELAY: {e}");
    }
    if options.keepalive_s > 0 {
        // As Redis: first probe after `tcp-keepalive` idle seconds, then every third of that.
        let idle = Duration::from_secs(options.keepalive_s);
        let keepalive = TcpKeepalive::new().with_time(idle);
        #[cfg(any(target_os = "linux", target_os = "macos", target_os = "freebsd", windows))]
        let keepalive = keepalive.with_interval((idle / 3).max(Duration::from_secs(1)));
        if let Err(e) = SockRef::from(stream).set_tcp_keepalive(&keepalive) {
            debug!("SO_KEEPALIVE: {e}");
        }
    }
}

/// An open session; closing it (on every path out of the connection task, panics included)
/// unregisters the client.
struct Open {
    engine: Arc<Engine>,
    session: Session,
    /// The server's append-only file, when on: replies wait on its fsyncs.
    aof: Option<Arc<Aof>>,
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

async fn serve(
    mut open: Open,
    mut stream: TcpStream,
    shutdown: watch::Receiver<bool>,
    _done: mpsc::Sender<()>,
    auth_deadline: Option<Instant>,
) {
    let engine = open.engine.clone();
    let aof = open.aof.clone();
    let aof = aof.as_deref();
    let session = &mut open.session;
    let id = session.id();
    // Woken by CLIENT KILL from another connection and by pub/sub messages for this one;
    // the top of the loop looks at both. notify_one keeps a permit if the task is busy, so a
    // wake is never missed.
    let wake = Arc::new(WakeSignal::default());
    {
        let wake = wake.clone();
        session.client.set_waker(move || wake.notify());
    }
    let stats = engine.stats();
    let config = engine.config();
    let (mut rd, mut wr) = stream.split();
    let mut input: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    let mut out: Vec<u8> = Vec::with_capacity(READ_CHUNK);
    // Bytes at the start of `out` already written.
    let mut sent = 0usize;
    let mut last_input = Instant::now();
    let mut held = HeldBack::default();
    let mut soft_clock = SoftLimitClock::default();

    let end = loop {
        if session.client.is_killed() {
            break End::Killed;
        }
        // Shutdown is checked here rather than awaited in the select below: a watch
        // receiver's `changed()` registers a waiter under a lock on every turn, a tenth of
        // the per-request instructions at pipeline 1 (callgrind). Whoever shuts down wakes
        // every connection (`Engine::wake_all_clients`), so a sleeping one comes here too.
        if shutdown.has_changed().unwrap_or(true) {
            break End::Shutdown;
        }
        let before_pushes = out.len();
        take_pushes(session, &mut out, sent);
        // A message may tell of a write (its publisher's SET just before the PUBLISH): under
        // appendfsync always it waits for that write's fsync, as every reply does (below).
        if out.len() > before_pushes {
            if let Err(e) = crate::aof::hold_replies(aof, engine.propagation().appended()).await {
                break End::Io(io::Error::other(e));
            }
        }
        // A blocking command (BLPOP, ...) that has been served: its reply, then the commands
        // that waited behind it. The wake-up that brings us here is the client's waker.
        if session.blocked.is_some() && engine.retry_blocked(session, &mut out, now_ms()) {
            held.commands = !input.is_empty();
            // The pop done on this client's behalf (and any writes after it) must be in the
            // append-only file before the reply says so.
            if let Err(end) = logged_is_durable(aof, &engine).await {
                break end;
            }
        }
        let unblock_at = block_deadline(session);
        let block_timeout = async move {
            match unblock_at {
                Some(at) => sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        // Read again for every turn, so CONFIG SET reaches open connections.
        let policy = OutputPolicy::new(config.normal_output_limit(), session.authenticated);
        let delayed = held.delayed();
        // Commands held back by a full output buffer or a wrong password's delay run once
        // the client has read enough, or the delay has passed.
        if held.commands && !delayed && out.len() - sent <= policy.resume_at() {
            // The replies before them go first (a wrong password's, held for its delay).
            if out.len() > sent {
                match wr.try_write(&out[sent..]) {
                    Ok(n) => wrote(n, &mut out, &mut sent, &engine),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => break End::Io(e),
                }
            }
            if let Err(end) = run_held(&engine, session, &mut input, &mut out, &mut sent, &policy, &mut held) {
                break end;
            }
            if held.over_limit(&policy, out.len() - sent, &mut soft_clock) {
                break End::OutputBufferFull(out.len() - sent, policy);
            }
            if let Err(end) = logged_is_durable(aof, &engine).await {
                break end;
            }
            continue;
        }
        let pending = out.len() - sent;
        if held.over_limit(&policy, pending, &mut soft_clock) {
            break End::OutputBufferFull(pending, policy);
        }
        let reading = pending < policy.stop_at && !held.commands && !delayed;
        if reading && input.capacity() - input.len() < READ_CHUNK {
            input.reserve(READ_CHUNK);
        }
        // As in Redis, a subscriber waiting for messages is not idle, nor a blocked client.
        let idle_s = if session.subs.any() || session.blocked.is_some() { 0 } else { config.timeout_s() };
        let idle_at = if idle_s > 0 { last_input.checked_add(Duration::from_secs(idle_s)) } else { None };
        let idle = async move {
            match idle_at {
                Some(at) => sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let auth_at = if session.authenticated { None } else { auth_deadline };
        let auth_timeout = async move {
            match auth_at {
                Some(at) => sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        // The end of a wrong password's delay, or when the soft limit's seconds run out.
        let recheck_at = if delayed { held.until } else { soft_clock.deadline(&policy).map(Instant::from_std) };
        let recheck = async move {
            match recheck_at {
                Some(at) => sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = wake.woken() => {}
            written = wr.write(&out[sent..]), if pending > 0 && !delayed => match written {
                Ok(0) => break End::Io(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    // A client taking its replies is not idle, though it sends nothing while
                    // its commands are held back (Redis counts writes as interaction too).
                    last_input = Instant::now();
                    wrote(n, &mut out, &mut sent, &engine)
                }
                Err(e) => break End::Io(e),
            },
            read = rd.read_buf(&mut input), if reading => match read {
                Ok(0) => break End::Eof,
                Ok(n) => {
                    last_input = Instant::now();
                    stats.net_input_bytes.fetch_add(n as u64, Relaxed);
                    // The limits as they are now: this task may have slept through a CONFIG SET.
                    let policy = OutputPolicy::new(config.normal_output_limit(), session.authenticated);
                    compact(&mut out, &mut sent);
                    let logged_before = engine.propagation().appended();
                    let fed = engine.feed_until(session, &input, &mut out, now_ms(), sent + policy.stop_at);
                    let logged_after = engine.propagation().appended();
                    // Writes are acknowledged only once the append-only file holds them
                    // (fsynced, under appendfsync always); on an AOF failure the client gets no
                    // acknowledgement at all. Under appendfsync always, a reader's replies also
                    // wait until every write they could have seen is fsynced, so nobody sees a
                    // write that a crash then loses (`aof::must_hold`).
                    if logged_after != logged_before || crate::aof::must_hold(aof, logged_after) {
                        if let Err(e) = crate::aof::wait_durable(aof, logged_after).await {
                            break End::Io(io::Error::other(e));
                        }
                    }
                    match fed {
                        Ok(consumed) => {
                            input.drain(..consumed);
                        }
                        Err(e) => break End::Protocol(e),
                    }
                    if session.closing {
                        break End::Quit;
                    }
                    if session.client.is_killed() {
                        break End::KilledSelf;
                    }
                    held.after_feed(session, !input.is_empty(), out.len() >= sent + policy.stop_at);
                    if held.over_limit(&policy, out.len() - sent, &mut soft_clock) {
                        break End::OutputBufferFull(out.len() - sent, policy);
                    }
                    if input.len() as u64 > config.client_query_buffer_limit() {
                        break End::QueryBufferFull(input.len());
                    }
                    if input.is_empty() && input.capacity() > SHRINK_ABOVE {
                        input = Vec::with_capacity(READ_CHUNK);
                    }
                    // The replies almost always fit the socket's buffer: write them now
                    // rather than on the next turn of the loop, which saves a pass through
                    // the select (and its wakers) per request. What does not fit waits for
                    // the write branch. A wrong password's reply waits for its delay.
                    if out.len() > sent && held.until.is_none() {
                        match wr.try_write(&out[sent..]) {
                            Ok(n) => wrote(n, &mut out, &mut sent, &engine),
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                            Err(e) => break End::Io(e),
                        }
                    }
                }
                Err(e) => break End::Io(e),
            },
            () = block_timeout => {
                engine.unblock_timeout(session, &mut out);
                held.commands = !input.is_empty();
                if let Err(end) = logged_is_durable(aof, &engine).await {
                    break end;
                }
            }
            () = idle => break End::Idle,
            () = auth_timeout => break End::AuthTimeout,
            () = recheck => {}
        }
    };

    // After EOF too: a client that half-closes once it has sent its commands (`nc -q`,
    // `printf ... | nc`) still reads the replies.
    let flush = matches!(end, End::Quit | End::Protocol(_) | End::KilledSelf | End::Eof);
    match &end {
        End::Protocol(ProtocolError::LooksLikeHttp) => {
            warn!(id, addr = %session.client.addr, "possible security attack: an HTTP request on the RESP port; connection closed")
        }
        End::Protocol(e) => debug!(id, addr = %session.client.addr, "protocol error: {e}"),
        End::QueryBufferFull(len) => warn!(
            id,
            addr = %session.client.addr,
            "closing client that reached max query buffer length ({len} bytes > client-query-buffer-limit {})",
            config.client_query_buffer_limit()
        ),
        End::OutputBufferFull(len, policy) => {
            stats.client_output_buffer_limit_disconnections.fetch_add(1, Relaxed);
            let limit = if *len >= policy.close_at {
                format!("{} bytes", policy.close_at)
            } else {
                format!("soft {} bytes for more than {} s", policy.soft, policy.soft_for.as_secs())
            };
            let who = if session.authenticated { "client" } else { "unauthenticated client" };
            warn!(
                id,
                addr = %session.client.addr,
                "{who} closed for overcoming of output buffer limits ({len} bytes unsent; limit {limit})"
            )
        }
        End::AuthTimeout => info!(id, addr = %session.client.addr, "closing client that did not authenticate in time"),
        End::Idle => info!(id, addr = %session.client.addr, "closing idle client after {} s", config.timeout_s()),
        End::Io(e) => debug!(id, "connection error: {e}"),
        _ => debug!(id, "client closed ({end:?})"),
    }
    if flush && sent < out.len() {
        let rest = &out[sent..];
        match timeout(FLUSH_TIMEOUT, wr.write_all(rest)).await {
            Ok(Ok(())) => {
                stats.net_output_bytes.fetch_add(rest.len() as u64, Relaxed);
            }
            Ok(Err(e)) => debug!(id, "final write: {e}"),
            Err(_) => debug!(id, "final write timed out"),
        }
    }
    if flush {
        let _ = timeout(FLUSH_TIMEOUT, wr.shutdown()).await;
    }
}

/// Accounts for `n` reply bytes written: the output buffer is emptied (and given back if a
/// large reply grew it) once everything in it has been sent.
fn wrote(n: usize, out: &mut Vec<u8>, sent: &mut usize, engine: &Engine) {
    engine.stats().net_output_bytes.fetch_add(n as u64, Relaxed);
    *sent += n;
    if *sent == out.len() {
        *sent = 0;
        out.clear();
        if out.capacity() > SHRINK_ABOVE {
            *out = Vec::with_capacity(READ_CHUNK);
        }
    }
}

/// When the session's blocked command gives up, on tokio's clock; `None` when nothing is
/// blocked or it waits for ever.
fn block_deadline(session: &Session) -> Option<Instant> {
    let at = session.blocked.as_ref()?.deadline_ms?;
    Some(Instant::now() + Duration::from_millis(at.saturating_sub(now_ms())))
}

/// Commands a connection holds back instead of running: the rest of its input after its
/// output reached the limit, after a blocked command answered, or after a wrong password (and
/// then the delay before anything more is sent or run).
#[derive(Default)]
struct HeldBack {
    /// Complete commands may wait in the input buffer: run them before reading more.
    commands: bool,
    /// They wait because the unsent replies reached the limit.
    by_output: bool,
    /// The end of a wrong password's delay.
    until: Option<Instant>,
    /// `session.auth_failures` when last looked at.
    failures: u32,
}

impl HeldBack {
    /// After `feed_until`: whether it stopped with input left because the output reached its
    /// limit or a password was wrong (a partial command at the end is not held back: it waits
    /// for bytes), and the delay a new wrong password costs.
    fn after_feed(&mut self, session: &Session, input_left: bool, output_full: bool) {
        let failed = session.auth_failures != self.failures;
        if failed {
            self.failures = session.auth_failures;
            self.until = Instant::now().checked_add(crate::guard::auth_failure_delay(self.failures));
        }
        self.commands = input_left && session.blocked.is_none() && (output_full || failed);
        self.by_output = self.commands && output_full;
    }

    /// Whether `pending` unsent bytes close the connection: at the close limit (checked right
    /// after the replies are made, before any is written, as Redis does), or over the soft
    /// limit for longer than its seconds. Commands held back for want of room count as
    /// reaching the limit they stopped at, as their replies would have in Redis, which
    /// does not pause a client.
    fn over_limit(&self, policy: &OutputPolicy, pending: usize, soft_clock: &mut SoftLimitClock) -> bool {
        let demand = if self.by_output { pending.max(policy.stop_at) } else { pending };
        pending >= policy.close_at || soft_clock.exceeded(policy, demand, std::time::Instant::now)
    }

    /// Whether a wrong password's delay is still running.
    fn delayed(&mut self) -> bool {
        match self.until {
            Some(at) if Instant::now() < at => true,
            Some(_) => {
                self.until = None;
                false
            }
            None => false,
        }
    }
}

/// Runs the commands held back in `input` (see [`HeldBack`]) as a read would, up to the
/// output limit again. One of them may block.
fn run_held(
    engine: &Engine,
    session: &mut Session,
    input: &mut Vec<u8>,
    out: &mut Vec<u8>,
    sent: &mut usize,
    policy: &OutputPolicy,
    held: &mut HeldBack,
) -> Result<(), End> {
    compact(out, sent);
    let consumed = engine.feed_until(session, input, out, now_ms(), *sent + policy.stop_at).map_err(End::Protocol)?;
    input.drain(..consumed);
    if session.closing {
        return Err(End::Quit);
    }
    if session.client.is_killed() {
        return Err(End::KilledSelf);
    }
    held.after_feed(session, !input.is_empty(), out.len() >= *sent + policy.stop_at);
    Ok(())
}

/// Waits until the append-only file holds everything logged so far (fsynced, under appendfsync
/// always), for replies that follow writes done on this client's behalf (a served blocking
/// pop, held-back commands). No file: nothing to wait for.
async fn logged_is_durable(aof: Option<&Aof>, engine: &Engine) -> Result<(), End> {
    crate::aof::wait_durable(aof, engine.propagation().appended()).await.map_err(|e| End::Io(io::Error::other(e)))
}

/// Drops the sent bytes at the front of `out` once they are at least half of it, so a buffer
/// refilled while partly sent stays within twice its unsent bytes; the copy costs no more than
/// the bytes already written.
fn compact(out: &mut Vec<u8>, sent: &mut usize) {
    if *sent >= READ_CHUNK && *sent * 2 >= out.len() {
        out.drain(..*sent);
        *sent = 0;
    }
}

/// Unsent output below which waiting pub/sub messages are moved into it. A subscriber that
/// stops reading leaves them in its outbox, where `client-output-buffer-limit pubsub`
/// counts them and disconnects it once they break the limit.
const PUSH_ROOM: usize = 64 * 1024;

/// Moves the session's waiting pub/sub messages to the end of `out` when there is room.
fn take_pushes(session: &Session, out: &mut Vec<u8>, sent: usize) {
    if out.len() - sent < PUSH_ROOM {
        session.client.take_pushes(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_addresses_as_redis_writes_them() {
        assert_eq!(parse_bind_addr("*").unwrap(), IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        assert_eq!(parse_bind_addr("::*").unwrap(), IpAddr::V6(Ipv6Addr::UNSPECIFIED));
        assert_eq!(parse_bind_addr("::1").unwrap(), IpAddr::V6(Ipv6Addr::LOCALHOST));
        assert_eq!(parse_bind_addr("127.0.0.1").unwrap(), IpAddr::V4(Ipv4Addr::LOCALHOST));
        assert!(parse_bind_addr("localhost").is_err());
    }

    #[tokio::test]
    async fn optional_addresses_that_cannot_bind_are_skipped() {
        // 192.0.2.0/24 is TEST-NET-1: never an address of this machine.
        let addrs = [("127.0.0.1".to_string(), false), ("192.0.2.7".to_string(), true)];
        let listeners = bind(&addrs, 0).unwrap();
        assert_eq!(listeners.len(), 1);
        assert_ne!(listeners[0].local_addr().unwrap().port(), 0);

        let required = [("192.0.2.7".to_string(), false)];
        let err = format!("{:#}", bind(&required, 0).unwrap_err());
        assert!(err.contains("cannot listen on 192.0.2.7"), "{err}");
    }

    #[tokio::test]
    async fn accepted_sockets_get_tcp_keepalive_and_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (server_side, _) = listener.accept().await.unwrap();
        configure(&server_side, ConnOptions { keepalive_s: 300, auth_timeout_s: 0 });
        let sock = SockRef::from(&server_side);
        assert!(sock.keepalive().unwrap());
        assert!(server_side.nodelay().unwrap());
        drop(client);

        let client = TcpStream::connect(listener.local_addr().unwrap()).await.unwrap();
        let (server_side, _) = listener.accept().await.unwrap();
        configure(&server_side, ConnOptions { keepalive_s: 0, auth_timeout_s: 0 });
        assert!(!SockRef::from(&server_side).keepalive().unwrap(), "tcp-keepalive 0 = off");
        drop(client);
    }

    #[test]
    fn config_set_protected_mode_decides_the_next_accept() {
        let engine = Engine::new(vitrine_engine::Config::default(), 0, 1);
        let mut local = engine.new_session("127.0.0.1:40000", "127.0.0.1:6379", 0);
        let remote: IpAddr = "10.251.0.1".parse().unwrap();
        assert_eq!(refusal(&engine, remote), Some(Refusal::ProtectedMode), "on by default");
        assert_eq!(refusal(&engine, IpAddr::V4(Ipv4Addr::LOCALHOST)), None);
        let set = |session: &mut Session, value: &str| {
            let reply = engine.call(session, &["CONFIG", "SET", "protected-mode", value], 0);
            assert_eq!(reply, vitrine_engine::Reply::Ok);
        };
        set(&mut local, "no");
        assert_eq!(refusal(&engine, remote), None);
        set(&mut local, "yes");
        assert_eq!(refusal(&engine, remote), Some(Refusal::ProtectedMode));
        engine.call(&mut local, &["CONFIG", "SET", "requirepass", "pw"], 0);
        assert_eq!(refusal(&engine, remote), None, "a password lifts it");
        engine.call(&mut local, &["CONFIG", "SET", "maxclients", "1"], 0);
        assert_eq!(refusal(&engine, remote), Some(Refusal::MaxClients), "the open session fills maxclients 1");
    }

    #[tokio::test]
    async fn every_address_shares_the_first_ones_port() {
        let addrs = [("127.0.0.1".to_string(), false), ("127.0.0.2".to_string(), true)];
        let listeners = bind(&addrs, 0).unwrap();
        let ports: Vec<u16> = listeners.iter().map(|l| l.local_addr().unwrap().port()).collect();
        assert!(ports.iter().all(|p| *p == ports[0]), "{ports:?}");
    }
}
