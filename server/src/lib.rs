//! `vitrine-server` as a library: [`run`] serves a [`ServerConfig`] until a shutdown future
//! resolves, and [`Server::start`] splits that in two so a caller (a test starting the server
//! in-process on port 0) learns the bound addresses before it waits. The binary (`main.rs`)
//! only parses the configuration, starts tracing and the runtime, and installs the allocator.
//!
//! This crate is the only place that reads the wall clock ([`now_ms`]); the engine is always
//! handed the time.

// The binary installs `alloc::Split` as the global allocator; the library only reads its
// statistics, so an embedding program keeps its own allocator.
pub mod alloc;
mod aof;
mod aof_load;
mod banner;
mod bench;
mod clock;
mod config;
mod event_loops;
mod guard;
mod http;
mod maintenance;
mod rdb;
mod resp;
#[doc(hidden)]
pub mod testing;

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tracing::{info, warn};
use vitrine_engine::Engine;
use vitrine_engine::HostFacts;

use crate::config::write_atomically;
pub use crate::config::ServerConfig;

/// How long shutdown waits for connections to close before the runtime drops them.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(3);

/// Serves `config` until `shutdown` resolves, then drains connections and returns.
///
/// `shutdown` resolves with the name of what asked for the stop (logged as "received
/// {name}, shutting down"), or with an error when waiting for it failed, which ends the
/// server with that error at once, as a signal handler that cannot be installed does.
pub async fn run(
    config: ServerConfig,
    shutdown: impl Future<Output = std::io::Result<&'static str>>,
) -> anyhow::Result<()> {
    Server::start(config).await?.serve(shutdown).await
}

/// A server whose ports are bound and whose tasks are running; [`Server::serve`] waits for
/// the shutdown and drains it.
pub struct Server {
    config: ServerConfig,
    engine: Arc<Engine>,
    resp_addrs: Vec<SocketAddr>,
    http_addr: SocketAddr,
    http_state: http::AppState,
    http_task: JoinHandle<()>,
    aof: Option<Arc<aof::Aof>>,
    /// Held until the connections have drained: a loop's thread ends, dropping the
    /// connections still on it, once every handle to the loops is gone, and the accept loops
    /// drop theirs as soon as the shutdown starts.
    loops: event_loops::EventLoops,
    shutdown_tx: watch::Sender<bool>,
    /// Notified by the SHUTDOWN command (the engine's shutdown hook).
    stop: Arc<tokio::sync::Notify>,
    /// `recv` returns `None` once every accept loop and connection has ended.
    done_rx: mpsc::Receiver<()>,
}

impl Server {
    /// Loads the AOF (when `--appendonly yes`), binds the RESP and admin ports, starts every
    /// task, logs the startup banner and writes the port files. Must run inside a tokio
    /// runtime; the RESP connections run on event loops of their own (`--threads`).
    pub async fn start(config: ServerConfig) -> anyhow::Result<Server> {
        let engine_config = config.engine_config()?;
        let threads = config.worker_threads();
        let http_ip: IpAddr = config
            .http_bind
            .parse()
            .map_err(|e| anyhow::anyhow!("invalid --http-bind address '{}': {e}", config.http_bind))?;
        let admin_token = config.admin_token()?;
        http::check_exposure(http_ip, admin_token.as_deref(), config.admin_insecure)?;
        let engine = Arc::new(Engine::new(engine_config, now_ms(), random_seed()));
        clock::lend_clock(&engine);
        engine.set_micros_clock(now_us);
        config.apply_acl(&engine)?;
        // Loaded before any port opens: a client never sees a half-loaded cache, and a file that
        // cannot be read stops the start instead of serving an empty one over it.
        let aof = if config.appendonly == "yes" {
            let fsync = aof::Fsync::parse(&config.appendfsync)?;
            Some(aof::start(&config.dir_absolute(), &config.appendfilename, fsync, engine.clone(), now_ms())?)
        } else {
            None
        };
        let listeners = resp::bind(&config.bind_addrs(), config.port)?;
        let port = listeners[0].local_addr()?.port();
        // Bound before anything is announced, so a taken admin port fails the start cleanly.
        let http_listener =
            tokio::net::TcpListener::bind(SocketAddr::new(http_ip, config.http_port)).await.map_err(|e| {
                anyhow::anyhow!(
                    "cannot listen on {} for the admin HTTP API: {e} (choose another port with --http-port; 0 picks a free one)",
                    SocketAddr::new(http_ip, config.http_port)
                )
            })?;
        let http_addr = http_listener.local_addr()?;
        engine.config().set_host_param("port", &port.to_string());
        engine.config().set_host_param("http-port", &http_addr.port().to_string());
        let resp_addrs: Vec<SocketAddr> = listeners.iter().filter_map(|l| l.local_addr().ok()).collect();
        if let Some(path) = &config.port_file {
            write_atomically(path, &format!("{port}\n"))?;
        }

        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        // Every accept loop and connection holds a clone of `done_tx`.
        let (done_tx, done_rx) = mpsc::channel::<()>(1);
        let facts = HostFacts {
            process_id: std::process::id(),
            tcp_port: port,
            threads: threads as u32,
            executable: std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default(),
            allocator_name: alloc::name(),
            run_id: maintenance::run_id(),
            os: maintenance::os_name(),
            build_id: maintenance::build_id(),
            config_file: config
                .config_file
                .as_ref()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()).display().to_string())
                .unwrap_or_default(),
            monotonic_clock: clock::describe(),
            multiplexing_api: maintenance::MULTIPLEXING_API.into(),
            ..HostFacts::default()
        };
        engine
            .set_allocator_hooks(vitrine_engine::AllocatorHooks { stats_text: alloc::stats_text, purge: alloc::purge });
        tokio::spawn(maintenance::run(engine.clone(), facts, shutdown_rx.clone()));
        resp::clamp_maxclients_to_fd_limit(&engine);
        // The admin port's connections get descriptors of their own, taken from RESP's share.
        let admin_connections =
            http::accept::fd_budget(config.http_max_connections as usize, guard::open_files_limit());
        http::accept::reserve_admin_fds(&engine, admin_connections);
        let options =
            resp::ConnOptions { keepalive_s: config.tcp_keepalive, auth_timeout_s: config.unauthenticated_timeout };
        let loops = event_loops::EventLoops::start(threads)?;
        for listener in listeners {
            tokio::spawn(resp::accept_loop(
                listener,
                engine.clone(),
                options,
                aof.clone(),
                loops.clone(),
                shutdown_rx.clone(),
                done_tx.clone(),
            ));
        }
        drop(done_tx);

        // The admin HTTP API: its own port, the same engine. The benchmark runner in it connects
        // to our RESP port over loopback.
        let resp_target = banner::reachable(
            resp_addrs.first().copied().unwrap_or(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)),
        );
        let http_options = http::HttpOptions {
            token: admin_token,
            bind_ip: http_ip,
            web_dir: config.web_dir.clone(),
            data_dir: config.dir.clone(),
            resp_addr: resp_target,
            limits: http::accept::Limits {
                header_timeout: Duration::from_secs(config.http_header_timeout),
                body_timeout: Duration::from_secs(config.http_body_timeout),
                request_timeout: Duration::from_secs(config.http_request_timeout),
                max_connections: admin_connections,
            },
            aof: aof.clone(),
        };
        let http_state = http::AppState::new(engine.clone(), http_options, shutdown_rx.clone());
        tokio::spawn(http::stats::run_sampler(http_state.clone(), shutdown_rx.clone()));
        let http_task = tokio::spawn(http::serve(http_listener, http_state.clone(), shutdown_rx.clone()));
        http_state.set_ready(true);
        let cfg = engine.config();
        if let Some(warning) = guard::protected_mode_warning(&resp_addrs, cfg.protected_mode(), engine.auth_required()) {
            warn!("{warning}");
        }
        info!(
            "{}",
            banner::banner(&banner::Listening {
                version: vitrine_engine::VERSION,
                maxmemory: cfg.maxmemory(),
                policy: cfg.policy().name(),
                threads,
                resp: &resp_addrs,
                password_set: engine.auth_required(),
                http: http_addr,
                token_required: http_state.security.token_required(),
                web: banner::WebBuild::of(&config.web_dir),
            })
        );
        // Written last, so a script or test that waits for it finds the block above in the log.
        if let Some(path) = &config.http_port_file {
            write_atomically(path, &format!("{}\n", http_addr.port()))?;
        }
        // SHUTDOWN stops the server as a signal does (a permit is kept if nobody waits yet).
        let stop = Arc::new(tokio::sync::Notify::new());
        {
            let stop = stop.clone();
            engine.set_shutdown_hook(move || stop.notify_one());
        }
        Ok(Server {
            config,
            engine,
            resp_addrs,
            http_addr,
            http_state,
            http_task,
            aof,
            loops,
            shutdown_tx,
            stop,
            done_rx,
        })
    }

    /// The RESP addresses bound (one per `--bind` address that could be bound), with the
    /// port the system chose when `--port 0`.
    pub fn resp_addrs(&self) -> &[SocketAddr] {
        &self.resp_addrs
    }

    /// The admin HTTP address bound.
    pub fn http_addr(&self) -> SocketAddr {
        self.http_addr
    }

    /// Waits for `shutdown` (see [`run`]), then stops accepting, wakes and drains the
    /// connections and admin requests (each for up to 3 s), syncs the AOF and removes the
    /// port files. A RESP connection runs no more commands; it sends the replies it has
    /// already made (for up to 1 s, so a client that does not read cannot hold the stop)
    /// and closes, a blocked client without a reply.
    pub async fn serve(self, shutdown: impl Future<Output = std::io::Result<&'static str>>) -> anyhow::Result<()> {
        // `_loops` lives to the end: the connections keep their loops until the server is done.
        let Server {
            config, engine, http_state, http_task, aof, loops: _loops, shutdown_tx, stop, mut done_rx, ..
        } = self;
        let signal = tokio::select! {
            signal = shutdown => signal?,
            () = stop.notified() => "SHUTDOWN",
        };
        info!("received {signal}, shutting down");
        http_state.set_ready(false);
        http_state.bench.cancel_active();
        shutdown_tx.send_replace(true);
        // Connections look at the shutdown flag when woken; wake the idle ones.
        engine.wake_all_clients();
        if tokio::time::timeout(DRAIN_TIMEOUT, done_rx.recv()).await.is_err() {
            warn!("connections still open after {DRAIN_TIMEOUT:?}; closing them");
        }
        if tokio::time::timeout(DRAIN_TIMEOUT, http_task).await.is_err() {
            warn!("admin HTTP requests still open after {DRAIN_TIMEOUT:?}; closing them");
        }
        aof::sync_at_shutdown(aof.as_deref(), &engine, DRAIN_TIMEOUT).await;
        if let Some(path) = &config.port_file {
            let _ = std::fs::remove_file(path);
        }
        if let Some(path) = &config.http_port_file {
            let _ = std::fs::remove_file(path);
        }
        info!("bye");
        Ok(())
    }
}

/// The wall clock in unix milliseconds: the only clock the engine ever sees.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The wall clock in unix microseconds, for MONITOR's timestamps.
pub(crate) fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

/// A seed for the engine's hashers and samplers that a client cannot predict: `RandomState`
/// is keyed from the OS's random source, mixed with the time and pid.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.write_u32(std::process::id());
    h.finish()
}
