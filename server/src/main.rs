//! `vitrine`: the server process. Reads the configuration (flags, `VITRINE_*` environment
//! variables, an optional redis.conf-style file), starts tracing and a tokio runtime, and runs
//! the server (the `vitrine_server` library) until SIGINT or SIGTERM.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use tracing::error;
use tracing_subscriber::EnvFilter;
use vitrine_server::{alloc, ServerConfig};

/// jemalloc for small blocks (keyspace nodes), glibc for large ones (see `alloc`).
#[global_allocator]
static ALLOC: alloc::Split = alloc::Split;

fn main() -> ExitCode {
    alloc::init();
    // The engine settings are checked here too, before tracing starts, so a bad flag is
    // reported as a usage error on stderr, not as a log line.
    let config = match ServerConfig::from_process().and_then(|c| c.engine_config().map(|_| c)) {
        Ok(config) => config,
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
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.worker_threads())
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
    let result = runtime.block_on(vitrine_server::run(config, shutdown_signal()));
    runtime.shutdown_timeout(Duration::from_secs(1));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Resolves on the first SIGINT or SIGTERM with its name. The handlers are installed when it
/// is first polled, once the server has started: a signal during start-up (a long AOF load)
/// still ends the process at once.
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
