//! The admin port's accept loop and its limits: how long a client may take to send a request's
//! headers (hyper's `header_read_timeout`, which also closes idle keep-alive connections), how
//! many connections may be open at once, and how many file descriptors that may use, so that
//! slow or numerous admin clients can never take the descriptors the RESP port needs.
//!
//! `axum::serve` has neither a header timeout nor a connection cap, so this loop drives
//! hyper's HTTP/1 connections itself, with the same graceful shutdown. (HTTP/2 is not served:
//! browsers only speak it over TLS, and its streams would escape the header timeout.)

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;
use tracing::{debug, error, warn};
use vitrine_engine::Engine;

/// The admin port's limits (`--http-header-timeout`, `--http-body-timeout`,
/// `--http-request-timeout`, `--http-max-connections`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub request_timeout: Duration,
    /// Connections open at once, after [`fd_budget`].
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_connections: 128,
        }
    }
}

/// The share of the open-files limit the admin port may use: an eighth (32 of 256, 128 of 1024).
pub const FD_SHARE: u64 = 8;

/// Admin connections allowed under `fd_limit`: the configured cap, lowered to an eighth of the
/// limit (at least 1).
pub fn fd_budget(cap: usize, fd_limit: Option<u64>) -> usize {
    match fd_limit {
        Some(limit) => cap.min(usize::try_from(limit / FD_SHARE).unwrap_or(usize::MAX)).max(1),
        None => cap,
    }
}

/// `maxclients` lowered, when needed, so that RESP clients, the admin port's budget and the
/// descriptors kept for the server itself all fit in `fd_limit` together. `None` when it fits.
pub fn maxclients_beside_admin(maxclients: u64, admin: usize, fd_limit: Option<u64>) -> Option<u64> {
    let limit = fd_limit?;
    let others = crate::guard::RESERVED_FDS + admin as u64;
    (maxclients + others > limit).then(|| limit.saturating_sub(others).max(1))
}

/// Lowers `maxclients` so the admin port's `budget` of descriptors is its own (logged, as the
/// RESP port's own clamp to the limit is). Run after `resp::clamp_maxclients_to_fd_limit`.
pub fn reserve_admin_fds(engine: &Engine, budget: usize) {
    let configured = engine.config().maxclients();
    let limit = crate::guard::open_files_limit();
    if let Some(lowered) = maxclients_beside_admin(configured, budget, limit) {
        warn!(
            "maxclients lowered from {configured} to {lowered}: the open files limit is {} and the admin port \
             keeps {budget} of them for its own connections",
            limit.unwrap_or(0)
        );
        if let Err(e) = engine.config().set("maxclients", &lowered.to_string()) {
            warn!("cannot lower maxclients: {e}");
        }
    }
}

/// Pause after an accept error such as EMFILE before trying again, as the RESP loop does.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

/// What a connection over the cap is told before it is closed.
const BUSY_RESPONSE: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
Connection: close\r\nRetry-After: 1\r\nContent-Length: 98\r\n\r\n\
{\"error\":{\"code\":\"too_many_connections\",\"message\":\"the admin port has too many open connections\"}}";

/// Serves `app` on `listener` until `shutdown` turns true, then lets open requests finish
/// (the caller bounds how long it waits).
pub async fn serve(listener: TcpListener, app: Router, limits: Limits, mut shutdown: watch::Receiver<bool>) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
    let mut last_busy_warning: Option<tokio::time::Instant> = None;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.wait_for(|&stop| stop) => break,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                error!("admin port: accept failed: {e}; retrying in {ACCEPT_ERROR_PAUSE:?}");
                tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                continue;
            }
        };
        // The newest connection is the one turned away: the open ones are either answering
        // or will be closed by the header timeout.
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refuse(stream);
            let now = tokio::time::Instant::now();
            if last_busy_warning.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(10)) {
                warn!(%peer, "admin port: {} connections open, refusing more", limits.max_connections);
                last_busy_warning = Some(now);
            }
            continue;
        };
        if let Err(e) = stream.set_nodelay(true) {
            debug!("admin port: TCP_NODELAY: {e}");
        }
        let service = app.clone().map_request(|req: Request<Incoming>| req.map(Body::new));
        let service = TowerToHyperService::new(service);
        let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                debug!(%peer, "admin connection ended: {e}");
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// Answers 503 without waiting (a client that does not read loses it) and closes.
fn refuse(stream: TcpStream) {
    let _ = stream.try_write(BUSY_RESPONSE);
}

fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_response_is_well_formed() {
        let text = std::str::from_utf8(BUSY_RESPONSE).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("Content-Length: {}", body.len())), "{head}");
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["error"]["code"], "too_many_connections");
    }

    #[test]
    fn the_admin_budget_is_a_share_of_the_fd_limit() {
        assert_eq!(fd_budget(128, None), 128);
        assert_eq!(fd_budget(128, Some(1_048_576)), 128);
        assert_eq!(fd_budget(128, Some(1024)), 128);
        assert_eq!(fd_budget(128, Some(256)), 32);
        assert_eq!(fd_budget(128, Some(64)), 8);
        assert_eq!(fd_budget(128, Some(4)), 1);
    }

    #[test]
    fn maxclients_leaves_the_admin_budget_free() {
        // 256 descriptors: 32 for the server, 32 for the admin port, 192 for RESP clients.
        assert_eq!(maxclients_beside_admin(224, 32, Some(256)), Some(192));
        assert_eq!(maxclients_beside_admin(10_000, 128, Some(1_048_576)), None);
        assert_eq!(maxclients_beside_admin(992, 128, Some(1024)), Some(864));
        assert_eq!(maxclients_beside_admin(32, 8, Some(64)), Some(24));
        assert_eq!(maxclients_beside_admin(10, 8, Some(20)), Some(1));
        assert_eq!(maxclients_beside_admin(10_000, 128, None), None);
    }
}
