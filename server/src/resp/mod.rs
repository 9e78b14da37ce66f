//! The RESP port: listening sockets and the accept loop; each accepted socket becomes a
//! [`Connection`] (`connection.rs`) that moves bytes between it and `Engine::feed`, holding
//! commands back when needed (`held.rs`).
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
//! `guard::OutputPolicy`). Past a hard limit the client is closed; otherwise its remaining commands
//! wait in the input buffer, nothing more is read, and they run once the client has read
//! half of its replies. A wrong password holds the connection back the same way for a delay.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use socket2::{Domain, Protocol, SockRef, Socket, TcpKeepalive, Type};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::time::{timeout, Instant};
use tracing::{debug, error, warn};
use vitrine_engine::{Engine, Session};

use crate::aof::Aof;
use crate::event_loops::EventLoops;
use crate::now_ms;
use connection::{Connection, Open, FLUSH_TIMEOUT};

mod connection;
mod held;

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
                engine.count_rejected_connection();
                debug!("refused connection from {peer}: max number of clients reached");
                tokio::spawn(refuse(stream));
                continue;
            }
            Some(Refusal::ProtectedMode) => {
                engine.count_rejected_connection();
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
        let job = move || match TcpStream::from_std(stream) {
            Ok(stream) => {
                tokio::spawn(Connection::new(open, stream, shutdown, done, auth_deadline).run());
            }
            Err(e) => debug!("cannot register the connection from {peer}: {e}"),
        };
        // A busy script holds its loop's thread: newcomers go where they can be served.
        if engine.script_busy() {
            loops.run_on_spare(job);
        } else {
            loops.run_on_next(job);
        }
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
    if engine.connected_clients() >= config.maxclients() {
        return Some(Refusal::MaxClients);
    }
    if crate::guard::protected_mode_denies(config.protected_mode(), engine.auth_required(), peer) {
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
