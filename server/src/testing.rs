//! For the crate's own integration tests (`server/tests/`), not an API: the admin router over
//! a fresh engine ([`TestApp`]), requests with a loopback `Host` and responses read back as
//! JSON, a RESP listener on the same engine ([`RespListener`]), the append-only file's fsync
//! fault hook ([`fsync_fault`]), and the limits the tests probe.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::Router;
use tokio::sync::watch;
use tower::ServiceExt;
use vitrine_engine::{Config, Engine};

pub use crate::aof::fsync_fault;
use crate::aof::{Aof, Fsync};
pub use crate::bench::{HISTORY_FILE, MAX_HISTORY_BYTES};
use crate::event_loops::EventLoops;
pub use crate::http::accept::Limits;
pub use crate::http::auth_api::IDLE_LIMIT as LOGIN_IDLE_LIMIT;
pub use crate::http::metrics::CONTENT_TYPE as METRICS_CONTENT_TYPE;
pub use crate::http::stats::{run_sampler, HISTORY_SECONDS};
pub use crate::http::{check_exposure, router, AppState, HttpOptions, MAX_BODY, OPENAPI};
pub use vitrine_engine::inspect::keys::{MAX_VALUE_BYTES, MAX_VALUE_ELEMENTS};

/// The wall clock in unix milliseconds, as the server hands it to the engine.
pub fn now_ms() -> u64 {
    crate::now_ms()
}

/// Every route of the admin API: method and full path, in axum's syntax (`/api/keys/{*key}`),
/// for the check of the OpenAPI document.
pub fn routes() -> Vec<(Method, String)> {
    crate::http::route_table().routes().to_vec()
}

/// Starts an append-only file in `dir` under `appendfsync always`, loaded into `engine`.
pub fn start_aof(dir: &std::path::Path, engine: Arc<Engine>) -> anyhow::Result<Arc<Aof>> {
    crate::aof::start(dir, "appendonly.aof", Fsync::Always, engine, now_ms())
}

/// Whether a reply that saw propagation offset `seen` waits for an fsync (`aof::must_hold`).
pub fn must_hold(aof: &Aof, seen: u64) -> bool {
    crate::aof::must_hold(Some(aof), seen)
}

/// The RESP port over `engine` (and `aof`) on a free loopback port, its connections on one
/// event loop of their own; stopped when dropped.
pub struct RespListener {
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    _loops: EventLoops,
}

impl RespListener {
    /// Must run inside a tokio runtime.
    pub fn start(engine: Arc<Engine>, aof: Option<Arc<Aof>>) -> RespListener {
        let listeners = crate::resp::bind(&[("127.0.0.1".to_string(), false)], 0).expect("bind");
        let addr = listeners[0].local_addr().expect("a bound address");
        let (stop, stop_rx) = watch::channel(false);
        let (done, _) = tokio::sync::mpsc::channel(1);
        let loops = EventLoops::start(1).expect("an event loop");
        let options = crate::resp::ConnOptions { keepalive_s: 0, auth_timeout_s: 0 };
        for l in listeners {
            let task = crate::resp::accept_loop(
                l,
                engine.clone(),
                options,
                aof.clone(),
                loops.clone(),
                stop_rx.clone(),
                done.clone(),
            );
            tokio::spawn(task);
        }
        RespListener { addr, stop, _loops: loops }
    }
}

impl Drop for RespListener {
    fn drop(&mut self) {
        self.stop.send_replace(true);
    }
}

/// A directory removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(what: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "vitrine-http-test-{what}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An app over a fresh engine, with what it needs kept alive.
pub struct TestApp {
    pub state: AppState,
    pub app: Router,
    pub dir: TempDir,
    pub shutdown: watch::Sender<bool>,
    /// Sent as `Authorization: Bearer` by `send` when the request has no `Authorization`.
    pub bearer: Option<String>,
}

pub struct Setup {
    pub token: Option<String>,
    pub bind_ip: IpAddr,
    pub config: Config,
    pub resp_addr: SocketAddr,
    pub web_dir: Option<PathBuf>,
    pub limits: Limits,
    /// An append-only file the app's key answers wait on (`aof::start`); none by default.
    pub aof: Option<Arc<crate::aof::Aof>>,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            token: None,
            bind_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
            config: Config::default(),
            // Nothing listens here; tests that run benchmarks give a real address.
            resp_addr: SocketAddr::from(([127, 0, 0, 1], 1)),
            web_dir: None,
            limits: Limits::default(),
            aof: None,
        }
    }
}

impl Default for TestApp {
    fn default() -> TestApp {
        TestApp::new()
    }
}

impl TestApp {
    pub fn new() -> TestApp {
        TestApp::with(Setup::default())
    }

    pub fn with(mut setup: Setup) -> TestApp {
        let dir = TempDir::new("app");
        let engine = Arc::new(Engine::new(std::mem::take(&mut setup.config), now_ms(), 7));
        crate::clock::lend_clock(&engine);
        engine.set_micros_clock(crate::now_us);
        TestApp::over(engine, setup, dir)
    }

    pub fn over(engine: Arc<Engine>, setup: Setup, dir: TempDir) -> TestApp {
        let (shutdown, shutdown_rx) = watch::channel(false);
        let options = HttpOptions {
            token: setup.token,
            bind_ip: setup.bind_ip,
            web_dir: setup.web_dir.unwrap_or_else(|| dir.0.join("no-web-dir")),
            data_dir: dir.0.clone(),
            resp_addr: setup.resp_addr,
            limits: setup.limits,
            aof: setup.aof,
        };
        let state = AppState::new(engine, options, shutdown_rx);
        state.set_ready(true);
        TestApp { app: router(state.clone()), state, dir, shutdown, bearer: None }
    }

    /// The same app, signing every request with `secret` (the token or the RESP password).
    pub fn signed(self, secret: &str) -> TestApp {
        TestApp { bearer: Some(secret.to_string()), ..self }
    }

    /// Sends a request through the router.
    pub async fn send(&self, mut req: Request<Body>) -> Reply {
        if let Some(secret) = &self.bearer {
            if !req.headers().contains_key(header::AUTHORIZATION) {
                let value = format!("Bearer {secret}").parse().expect("a header value");
                req.headers_mut().insert(header::AUTHORIZATION, value);
            }
        }
        let response = self.app.clone().oneshot(req).await.expect("the router never fails");
        let status = response.status();
        let headers = response.headers().clone();
        let body = axum::body::to_bytes(response.into_body(), 64 << 20).await.expect("read body");
        Reply { status, headers, body }
    }

    pub async fn get(&self, uri: &str) -> Reply {
        self.send(req(Method::GET, uri, None)).await
    }

    pub async fn json(&self, method: Method, uri: &str, body: serde_json::Value) -> Reply {
        self.send(req(method, uri, Some(body))).await
    }
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Asserts the status and returns the JSON body.
    #[track_caller]
    pub fn expect(&self, status: StatusCode) -> serde_json::Value {
        assert_eq!(self.status, status, "body: {}", self.text());
        self.json()
    }

    /// Asserts an error answer: status, the documented shape, and its code.
    #[track_caller]
    pub fn expect_error(&self, status: StatusCode, code: &str) {
        let v = self.expect(status);
        assert_eq!(v["error"]["code"], code, "body: {v}");
        assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "body: {v}");
    }
}

/// A request with `Host: localhost:8080` and, with a body, `Content-Type: application/json`.
pub fn req(method: Method, uri: &str, body: Option<serde_json::Value>) -> Request<Body> {
    let builder = Request::builder().method(method).uri(uri).header(header::HOST, "localhost:8080");
    match body {
        Some(b) => builder
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(b.to_string()))
            .expect("valid request"),
        None => builder.body(Body::empty()).expect("valid request"),
    }
}

/// A request with a raw body and headers of the caller's choosing (Host is added).
pub fn raw(method: Method, uri: &str, headers: &[(&str, &str)], body: impl Into<Body>) -> Request<Body> {
    let mut builder = Request::builder().method(method).uri(uri);
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        builder = builder.header(header::HOST, "localhost:8080");
    }
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder.body(body.into()).expect("valid request")
}
