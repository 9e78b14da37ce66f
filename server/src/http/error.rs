//! `ApiError`, the one error type of the admin API: logs what went wrong (with details for
//! internal errors) and answers `{"error": {"code": "...", "message": "..."}}` with the right
//! status (a 401 also says which secret it wants: `"secret": "token"` or `"password"`). Also `ApiJson` and `ApiQuery`, extractors whose rejections become `ApiError`s so a
//! bad body or query string gets the same JSON shape as every other error.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::json;
use tracing::{debug, error};
use vitrine_engine::inspect::{Refusal, Status};

/// An error answer: status, a stable machine-readable code, and a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// 401 only: the secret the server wants, `token` (the admin token) or `password` (the
    /// RESP password, when no admin token is set), so a client can say which to enter.
    pub secret: Option<&'static str>,
    /// 403 `noperm` only: the Redis command (full name, `config|set`) the ACL refused.
    pub command: Option<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into(), secret: None, command: None }
    }

    /// 400: malformed JSON, a bad query parameter.
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 401: no or a wrong bearer token; `secret` is `token` or `password`.
    pub fn unauthorized(secret: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { secret: Some(secret), ..ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message) }
    }

    /// 408: the request (or its body) did not arrive in time.
    pub fn timeout(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::REQUEST_TIMEOUT, "timeout", message)
    }

    /// 403: a cross-site state-changing request.
    pub fn forbidden(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, code, message)
    }

    /// 403: the signed-in user may not run `command` (its full name); `message` is the
    /// NOPERM text a RESP client would get.
    pub fn noperm(message: impl Into<String>, command: impl Into<String>) -> ApiError {
        ApiError { command: Some(command.into()), ..ApiError::new(StatusCode::FORBIDDEN, "noperm", message) }
    }

    /// 404: no such key, run or route.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 409: the request conflicts with the current state (a run is already going).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// 422: well-formed JSON that says something invalid (a value out of range, a missing
    /// confirmation, an unknown setting).
    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }

    /// 500: something failed inside. The details go to the log, not to the client.
    // No route fails inside today (DEL's unexpected reply became an engine refusal); kept,
    // with its test, for the next one rather than have it written again differently.
    #[allow(dead_code)]
    pub fn internal(context: &str, detail: impl std::fmt::Display) -> ApiError {
        error!("admin API: {context}: {detail}");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", format!("{context} failed; see the server log"))
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_client_error() {
            debug!(status = self.status.as_u16(), code = self.code, "admin API: {}", self.message);
        }
        let mut body = json!({ "error": { "code": self.code, "message": self.message } });
        if let Some(secret) = self.secret {
            body["error"]["secret"] = json!(secret);
        }
        if let Some(command) = &self.command {
            body["error"]["command"] = json!(command);
        }
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A view the engine refused (`vitrine_engine::inspect`): the same status, code and message.
impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        // A command the engine refused to a user acting through the API (its session runs
        // as the signed-in user): the same 403 as the API's own check.
        if r.message.starts_with("NOPERM") {
            return ApiError::new(StatusCode::FORBIDDEN, "noperm", r.message);
        }
        let status = match r.status {
            Status::BadRequest => StatusCode::BAD_REQUEST,
            Status::NotFound => StatusCode::NOT_FOUND,
            Status::Conflict => StatusCode::CONFLICT,
            Status::Unprocessable => StatusCode::UNPROCESSABLE_ENTITY,
            Status::InsufficientStorage => StatusCode::INSUFFICIENT_STORAGE,
        };
        ApiError::new(status, r.code, r.message)
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        if caused_by::<tower_http::timeout::TimeoutError>(&rejection) {
            return ApiError::timeout("the request body stopped arriving");
        }
        let text = rejection.body_text();
        match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("request body is larger than {} bytes", super::MAX_BODY),
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send the body as JSON with `Content-Type: application/json`",
            ),
            StatusCode::UNPROCESSABLE_ENTITY => ApiError::unprocessable("invalid_body", text),
            _ => ApiError::bad_request("bad_json", text),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::bad_request("bad_parameter", rejection.body_text())
    }
}

/// Whether `E` is somewhere in the chain of `error`'s sources (a body read that failed
/// because `RequestBodyTimeoutLayer` gave up on it).
fn caused_by<E: std::error::Error + 'static>(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        if e.is::<E>() {
            return true;
        }
        next = e.source();
    }
    false
}

/// `axum::Json`, with rejections answered as `ApiError`s.
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let axum::Json(value) = axum::Json::<T>::from_request(req, state).await?;
        Ok(ApiJson(value))
    }
}

/// `axum::extract::Query`, with rejections answered as `ApiError`s.
pub struct ApiQuery<T>(pub T);

impl<T, S> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let axum::extract::Query(value) = axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// The JSON error body for routes that do not exist.
pub async fn no_route(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no such endpoint: {}", uri.path()))
}

/// The JSON error body for a known route called with the wrong method.
pub async fn wrong_method(method: axum::http::Method) -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", format!("{method} is not allowed here"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn errors_have_the_documented_shape() {
        let response = ApiError::conflict("busy").into_response();
        assert_eq!(response.status(), StatusCode::CONFLICT);
        let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v, json!({ "error": { "code": "conflict", "message": "busy" } }));
    }

    #[tokio::test]
    async fn internal_errors_hide_details() {
        let response = ApiError::internal("writing the history", "disk /secret/path full").into_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(!text.contains("/secret/path"), "{text}");
        assert!(text.contains("\"internal\""), "{text}");
    }

    #[test]
    fn unauthorized_asks_for_a_bearer_token() {
        let response = ApiError::unauthorized("password", "no").into_response();
        assert_eq!(response.headers()[header::WWW_AUTHENTICATE], "Bearer");
    }
}
