//! `vitrine`: the server process. Reads the configuration (flags, `VITRINE_*` environment
//! variables, an optional redis.conf-style file), starts tracing and a tokio runtime, serves
//! the RESP port and runs the background task until SIGINT or SIGTERM.
//!
//! This crate is the only place that reads the wall clock ([`now_ms`]); the engine is always
//! handed the time.

mod config;
mod maintenance;
mod resp;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::{mpsc, watch};
use tracing::{error, info, warn};
use tracing_subscriber::EnvFilter;
use vitrine_engine::stats::HostFacts;
use vitrine_engine::{Config, Engine};

use crate::config::{write_atomically, ServerConfig};

/// How long shutdown waits for connections to close before the runtime drops them.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(3);

fn main() -> ExitCode {
    let (config, engine_config) = match ServerConfig::from_process().and_then(|c| {
        let engine_config = c.engine_config()?;
        Ok((c, engine_config))
    }) {
        Ok(both) => both,
        Err(e) => {
            eprintln!("vitrine: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let threads = config.worker_threads();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name("vitrine-worker")
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            error!("cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(config, engine_config, threads));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: ServerConfig, engine_config: Config, threads: usize) -> anyhow::Result<()> {
    let engine = Arc::new(Engine::new(engine_config, now_ms(), random_seed()));
    let listeners = resp::bind(&config.bind_addrs(), config.port)?;
    let port = listeners[0].local_addr()?.port();
    engine.config().set_host_param("port", &port.to_string());
    let addrs: Vec<String> = listeners.iter().filter_map(|l| l.local_addr().ok()).map(|a| a.to_string()).collect();
    info!(
        threads,
        maxmemory = engine.config().maxmemory(),
        policy = engine.config().policy().name(),
        "vitrine {} listening on RESP {}",
        vitrine_engine::VERSION,
        addrs.join(", ")
    );
    if let Some(path) = &config.port_file {
        write_atomically(path, &format!("{port}\n"))?;
    }

    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    // Every accept loop and connection holds a clone of `done_tx`; `recv` returns `None`
    // once they have all ended.
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let facts = HostFacts {
        process_id: std::process::id(),
        tcp_port: port,
        rss_bytes: 0,
        allocator_bytes: 0,
        threads: threads as u32,
        executable: std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default(),
    };
    tokio::spawn(maintenance::run(engine.clone(), facts, shutdown_rx.clone()));
    let options = resp::ConnOptions { keepalive_s: config.tcp_keepalive };
    for listener in listeners {
        tokio::spawn(resp::accept_loop(listener, engine.clone(), options, shutdown_rx.clone(), done_tx.clone()));
    }
    drop(done_tx);

    let signal = shutdown_signal().await?;
    info!("received {signal}, shutting down");
    shutdown_tx.send_replace(true);
    if tokio::time::timeout(DRAIN_TIMEOUT, done_rx.recv()).await.is_err() {
        warn!("connections still open after {DRAIN_TIMEOUT:?}; closing them");
    }
    if let Some(path) = &config.port_file {
        let _ = std::fs::remove_file(path);
    }
    info!("bye");
    Ok(())
}

async fn shutdown_signal() -> std::io::Result<&'static str> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.map(|()| "SIGINT"),
            _ = term.recv() => Ok("SIGTERM"),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.map(|()| "ctrl-c")
    }
}

/// The wall clock in unix milliseconds: the only clock the engine ever sees.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
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
