//! The dashboard as static files: when `--web-dir` (default `web/dist`, relative to the
//! working directory) holds a built app with an `index.html`, every path that is not an API
//! route is served from it, with `index.html` as the fallback so the single-page app's own
//! routes work on reload. Until the app is built, `/` shows a small page that says so and
//! points at the API; other paths are a JSON 404.

use std::path::Path;

use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

use super::error::ApiError;

/// The fallback for every non-API path.
pub fn router(web_dir: &Path) -> Router {
    let index = web_dir.join("index.html");
    if index.is_file() {
        tracing::info!("serving the dashboard from {}", web_dir.display());
        Router::new().fallback_service(ServeDir::new(web_dir).fallback(ServeFile::new(index)))
    } else {
        tracing::info!("no dashboard build in {} (index.html missing): serving a placeholder", web_dir.display());
        Router::new().fallback(|req: Request| async move { placeholder(&req) })
    }
}

fn placeholder(req: &Request) -> Response {
    let path = req.uri().path();
    if path != "/" && path != "/index.html" {
        return ApiError::not_found(format!("no such page: {path}")).into_response();
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", "use GET").into_response();
    }
    let mut response = Html(PLACEHOLDER).into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'"),
    );
    response
}

const PLACEHOLDER: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vitrine</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
code { background: #f2f2f2; padding: 0 .25rem; border-radius: 3px; }
@media (prefers-color-scheme: dark) { body { background: #111; color: #ddd; } code { background: #222; } }
</style>
</head>
<body>
<h1>Vitrine</h1>
<p>The dashboard is not built yet. Build it into <code>web/dist</code> (or point <code>--web-dir</code> at a build) and restart the server.</p>
<p>The admin API works now: <a href="/api/stats">/api/stats</a>, <a href="/api/openapi.json">/api/openapi.json</a>, <a href="/metrics">/metrics</a>.</p>
</body>
</html>
"#;
