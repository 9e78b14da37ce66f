//! The admin HTTP server: `router(state)` builds the whole axum app (JSON API under `/api`,
//! Prometheus `/metrics`, health checks, and the dashboard as static files), and `serve` runs
//! it until shutdown. Tests call `router` and drive it with `tower::ServiceExt::oneshot`.
//!
//! Every route is added through [`RouteTable`], which records its method and path; the
//! OpenAPI document (`openapi.json`) is checked against that record by a test, so the two
//! cannot drift apart.
//!
//! Modules: [`stats`] (snapshot, history, SSE stream, recent evictions), [`keys`] (browse,
//! read, write, edit, delete), [`key_jobs`] (bulk delete/TTL jobs), [`key_files`] (export and import of selected keys), [`timing`] (slow log, latency), [`radar`] (compatibility radar, hot keys), [`running`] (the running script, the busy guard), [`scripts`] (what Lua scripts do), [`admin`] (console command, config, flush, command table),
//! [`bench_api`] (the benchmark runner's routes), [`metrics`], [`security`] (token, Host and
//! cross-site checks, who a request acts as), [`auth_api`] (signing in as an ACL user),
//! [`permissions`] (each route's Redis commands, checked against the user's ACL), [`acl_api`]
//! (the users and the ACL log), [`dashboard`] (static files), [`error`] (`ApiError`), [`accept`] (the
//! accept loop, header timeout and connection cap).

pub mod accept;
pub mod acl_api;
pub mod admin;
pub mod auth_api;
pub mod bench_api;
pub mod clients;
pub mod dashboard;
pub mod error;
pub mod key_files;
pub mod key_jobs;
pub mod keys;
pub mod memory;
pub mod metrics;
pub mod permissions;
pub mod radar;
pub mod running;
pub mod scripts;
pub mod security;
pub mod sessions;
pub mod stats;
pub mod timing;

use std::net::{IpAddr, SocketAddr};
use std::ops::Deref;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::handler::Handler;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter};
use axum::{Json, Router};
use serde_json::json;
use tokio::sync::watch;
use tower::ServiceBuilder;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutBody, TimeoutLayer};
use tower_http::trace::TraceLayer;
use vitrine_engine::{Engine, Reply};

use crate::aof::Aof;
use crate::bench::Bench;
use crate::now_ms;
pub use permissions::Principal;
pub use security::Security;

/// Largest request body accepted (JSON bodies, including `PUT /api/keys/{key}` values);
/// larger ones get 413.
pub const MAX_BODY: usize = 1024 * 1024;

/// What the admin server needs to know besides the engine.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `--admin-token`: when set, `/api/*` and `/metrics` need `Authorization: Bearer <token>`;
    /// when not, they need the RESP password while `requirepass` is set.
    pub token: Option<String>,
    /// The address the admin port is bound to (Host headers naming it are accepted).
    pub bind_ip: IpAddr,
    /// Where the built dashboard lives (`--web-dir`); served when it has an `index.html`.
    pub web_dir: PathBuf,
    /// `--dir`: where finished benchmark runs are kept.
    pub data_dir: PathBuf,
    /// The RESP address the benchmark runner connects to (a loopback address of our own port).
    pub resp_addr: SocketAddr,
    /// Timeouts and the connection cap of the admin port.
    pub limits: accept::Limits,
    /// The server's append-only file, when on: answers that show keys wait on its fsyncs.
    pub aof: Option<Arc<Aof>>,
}

/// Shared by every handler; cheap to clone.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub engine: Arc<Engine>,
    pub security: Security,
    pub history: stats::History,
    pub(crate) bench: Arc<Bench>,
    pub web_dir: PathBuf,
    /// Console sessions kept between `POST /api/command` requests (see `sessions`).
    pub sessions: sessions::Sessions,
    /// Users signed in with `POST /api/auth/login` (see `auth_api`).
    pub logins: auth_api::Logins,
    pub limits: accept::Limits,
    /// See [`HttpOptions::aof`].
    pub aof: Option<Arc<Aof>>,
    /// Bulk key jobs, running and recently finished.
    pub key_jobs: key_jobs::Jobs,
    ready: AtomicBool,
    /// Turns true when the process shuts down; long-lived responses (SSE) end then.
    pub shutdown: watch::Receiver<bool>,
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// Loads the benchmark history from `options.data_dir` (a missing file is an empty
    /// history; an unreadable one is set aside with a warning).
    pub fn new(engine: Arc<Engine>, options: HttpOptions, shutdown: watch::Receiver<bool>) -> AppState {
        let bench = Arc::new(Bench::load(&options.data_dir, options.resp_addr, engine.clone(), shutdown.clone()));
        AppState(Arc::new(Shared {
            security: Security::new(options.token, options.bind_ip),
            history: stats::History::default(),
            bench,
            web_dir: options.web_dir,
            sessions: sessions::Sessions::default(),
            logins: auth_api::Logins::default(),
            limits: options.limits,
            aof: options.aof,
            key_jobs: key_jobs::Jobs::default(),
            ready: AtomicBool::new(false),
            shutdown,
            engine,
        }))
    }

    /// Marks the process ready (`/readyz` answers 200) or not.
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed) && !*self.shutdown.borrow()
    }

    /// Runs one command through the engine's dispatch (stats, memory admission, eviction,
    /// and whatever later hooks such as the append-only file), in a session of its own that
    /// counts as a client while it runs and is already authenticated, with the admin token's
    /// rights (the server's own work, and tests).
    pub fn call<A: AsRef<[u8]>>(&self, argv: &[A]) -> Reply {
        self.call_in_as(&Principal::Admin, 0, argv)
    }

    /// `call`, in database `db`.
    pub fn call_in<A: AsRef<[u8]>>(&self, db: usize, argv: &[A]) -> Reply {
        self.call_in_as(&Principal::Admin, db, argv)
    }

    /// `call` for a request: the session acts as `principal`, so a signed-in user's commands
    /// are checked by its ACL as a RESP client's would be.
    pub fn call_as<A: AsRef<[u8]>>(&self, principal: &Principal, argv: &[A]) -> Reply {
        self.call_in_as(principal, 0, argv)
    }

    /// `call_as`, in database `db`.
    pub fn call_in_as<A: AsRef<[u8]>>(&self, principal: &Principal, db: usize, argv: &[A]) -> Reply {
        let now = now_ms();
        let mut session = sessions::open_session(&self.engine, principal, now);
        let reply = vitrine_engine::inspect::call_in(&self.engine, &mut session, db, argv, now);
        self.engine.end_session(&session);
        reply
    }
}

/// Routes as they are added: the router, and each route's method and full path (for the
/// OpenAPI check).
pub struct RouteTable {
    api: Router<AppState>,
    top: Router<AppState>,
    routes: Vec<(Method, String)>,
}

impl RouteTable {
    fn new() -> RouteTable {
        RouteTable { api: Router::new(), top: Router::new(), routes: Vec::new() }
    }

    /// Adds a route under `/api` (`path` is relative to it).
    pub fn api<H, T>(&mut self, method: Method, path: &'static str, handler: H)
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.routes.push((method.clone(), format!("/api{path}")));
        let api = std::mem::replace(&mut self.api, Router::new());
        self.api = api.route(path, on(filter(&method), handler));
    }

    /// Adds a route outside `/api` (`/metrics`, `/healthz`).
    pub fn top<H, T>(&mut self, method: Method, path: &'static str, handler: H)
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.routes.push((method.clone(), path.to_string()));
        let top = std::mem::replace(&mut self.top, Router::new());
        self.top = top.route(path, on(filter(&method), handler));
    }

    /// Every route: method and full path, in axum's syntax (`/api/keys/{*key}`).
    pub fn routes(&self) -> &[(Method, String)] {
        &self.routes
    }
}

fn filter(method: &Method) -> MethodFilter {
    match *method {
        Method::GET => MethodFilter::GET,
        Method::POST => MethodFilter::POST,
        Method::PUT => MethodFilter::PUT,
        Method::PATCH => MethodFilter::PATCH,
        Method::DELETE => MethodFilter::DELETE,
        _ => panic!("the admin API does not route {method}"),
    }
}

/// Every route of the admin server, from each area's module.
pub fn route_table() -> RouteTable {
    let mut t = RouteTable::new();
    stats::routes(&mut t);
    keys::routes(&mut t);
    key_jobs::routes(&mut t);
    key_files::routes(&mut t);
    admin::routes(&mut t);
    clients::routes(&mut t);
    bench_api::routes(&mut t);
    timing::routes(&mut t);
    radar::routes(&mut t);
    memory::routes(&mut t);
    running::routes(&mut t);
    scripts::routes(&mut t);
    auth_api::routes(&mut t);
    acl_api::routes(&mut t);
    t.api(Method::GET, "/openapi.json", openapi);
    t.top(Method::GET, "/metrics", metrics::metrics);
    t.top(Method::GET, "/healthz", healthz);
    t.top(Method::GET, "/readyz", readyz);
    t
}

/// The whole admin app.
pub fn router(state: AppState) -> Router {
    let table = route_table();
    let api = table
        .api
        .fallback(error::no_route)
        .method_not_allowed_fallback(error::wrong_method)
        .layer(axum::middleware::from_fn_with_state(state.clone(), hold_until_durable))
        .layer(axum::middleware::from_fn_with_state(state.clone(), running::refuse_while_busy))
        .layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("no-store")));
    let app = table
        .top
        .nest("/api", api)
        .method_not_allowed_fallback(error::wrong_method)
        .fallback_service(dashboard::router(&state.web_dir));
    let limits = state.limits;
    // A body that stalls fails its read (408 from `ApiError`); one that trickles, or any
    // request not answered in time, gets 408 from the outer timeout. Neither limits a
    // response body, so the SSE stream lives on.
    let body_timeout = ServiceBuilder::new()
        .layer(RequestBodyTimeoutLayer::new(limits.body_timeout))
        .map_request(|req: Request<TimeoutBody<Body>>| req.map(Body::new));
    // `guard` (outer) says who the request acts as; `enforce` checks that user's ACL.
    app.layer(axum::middleware::from_fn_with_state(state.clone(), permissions::enforce))
        .layer(axum::middleware::from_fn_with_state(state.clone(), security::guard))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(body_timeout)
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, limits.request_timeout))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
        .layer(SetResponseHeaderLayer::if_not_present(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Under `appendfsync always`, an answer that shows or changes keys (the key browser, the
/// console, flush) waits, as a RESP reply does, until every write it could show is fsynced
/// (`aof::must_hold`), so a console write is acknowledged only once it is durable too; when
/// the file cannot be synced it is withheld (503 with the AOF's error). Stats, settings and
/// benchmark routes are not held: they show totals, not keys, and must go on showing a write
/// error while the file fails.
async fn hold_until_durable(
    State(state): State<AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = req.uri().path();
    // Nested under `/api`, the router sees the rest of the path.
    let path = path.strip_prefix("/api").unwrap_or(path);
    let shows_keys = path == "/keys"
        || path.starts_with("/keys/")
        || path == "/command"
        || path == "/flush"
        || path == "/key-import";
    let response = next.run(req).await;
    if !shows_keys {
        return response;
    }
    match crate::aof::hold_replies(state.aof.as_deref(), state.engine.propagation().appended()).await {
        Ok(()) => response,
        Err(e) => error::ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "persistence_error", e).into_response(),
    }
}

/// The hand-written OpenAPI 3 description of this API.
pub const OPENAPI: &str = include_str!("openapi.json");

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

/// Liveness: the process answers.
async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

/// Readiness: listening on every port and not shutting down.
async fn readyz(State(state): State<AppState>) -> Response {
    if state.is_ready() {
        Json(json!({ "status": "ready" })).into_response()
    } else {
        let status = if *state.shutdown.borrow() { "shutting_down" } else { "starting" };
        (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": status }))).into_response()
    }
}

/// Runs the admin server on `listener` until `shutdown` turns true, then lets in-flight
/// requests finish (streams end on their own at shutdown).
pub async fn serve(listener: tokio::net::TcpListener, state: AppState, shutdown: watch::Receiver<bool>) {
    let limits = state.limits;
    accept::serve(listener, router(state), limits, shutdown).await;
}

/// Refuses to expose the admin API beyond loopback without a token, unless the operator
/// said `--admin-insecure`.
pub fn check_exposure(bind_ip: IpAddr, token: Option<&str>, insecure: bool) -> anyhow::Result<()> {
    if bind_ip.is_loopback() || token.is_some_and(|t| !t.is_empty()) || insecure {
        return Ok(());
    }
    anyhow::bail!(
        "refusing to serve the admin HTTP API on {bind_ip} without a token: anyone who can reach that address \
         could read and change the cache. Set --admin-token (or VITRINE_ADMIN_TOKEN), bind it to 127.0.0.1 \
         with --http-bind, or pass --admin-insecure to accept the risk"
    )
}
