//! The one error type of the API, answered in the one JSON shape, [`shared::view::api::ApiError`].

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use shared::TraceError;
use shared::view::api::ApiError;

/// Every way a request can fail.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The thing asked for does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The request is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// The request lacks the right secret.
    #[error("{0}")]
    Forbidden(String),
    /// The upload is not a trace Tracescope can read.
    #[error("the trace could not be read: {0}")]
    InvalidTrace(#[from] TraceError),
    /// The request took longer than its deadline.
    #[error("the request took longer than the server's limit of {0} s")]
    Timeout(u64),
    /// The request body sent nothing for this many seconds.
    #[error("the upload sent nothing for {0} s; the server stopped waiting for it")]
    BodyStalled(u64),
    /// The upload is larger than the server accepts.
    #[error("the upload is larger than this server's limit of {limit} bytes")]
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The run has more events than the server's memory budget pays analyses for.
    #[error("{0}")]
    TooLargeToAnalyse(String),
    /// The server cannot do it now for a reason of the machine's (a read-only temporary
    /// directory); the sentence says what fixes it.
    #[error("{0}")]
    Unavailable(String),
    /// The server's memory budget stayed full while the request waited for room: it may be
    /// asked again after `retry_after` seconds (503 with `Retry-After`).
    #[error("{message}")]
    Busy {
        /// What was asked for, what is reserved, and when to try again.
        message: String,
        /// Seconds after which the request may be sent again.
        retry_after: u64,
    },
    /// The database failed.
    #[error("database error")]
    Sqlx(#[from] sqlx::Error),
    /// Anything else that is our fault.
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl From<crate::ingest::IngestError> for AppError {
    fn from(e: crate::ingest::IngestError) -> AppError {
        use crate::ingest::IngestError;
        match e {
            IngestError::InvalidTrace(e) => AppError::InvalidTrace(e),
            IngestError::Database(e) => AppError::Sqlx(e),
            IngestError::Unavailable(message) => AppError::Unavailable(message),
            IngestError::Internal(e) => AppError::Internal(e),
        }
    }
}

/// A 404 for anything that cannot be a run id, before it reaches the database.
pub fn check_run_id(id: &str) -> Result<(), AppError> {
    if crate::ingest::is_id(id, 22) {
        Ok(())
    } else {
        Err(AppError::no_run(id))
    }
}

impl AppError {
    /// The 404 for a run that does not exist.
    pub fn no_run(id: &str) -> AppError {
        AppError::NotFound(format!("there is no run {id:?}"))
    }

    /// The 503 for `what` (e.g. "this import"), which found no room in the memory budget.
    pub fn busy(full: &crate::memory::Full, what: &str) -> AppError {
        use crate::memory::mib;
        // Asking again before a few seconds more have passed would most likely wait as long.
        let retry_after = full.waited.as_secs().max(1);
        AppError::Busy {
            message: format!(
                "the server is busy: {what} needs about {} of memory, and other imports and \
                 analyses hold {} of its budget of {} (waited {:.1} s). Try again in \
                 {retry_after} s; `serve --max-memory-bytes` raises the budget.",
                mib(full.asked),
                mib(full.reserved),
                mib(full.total),
                full.waited.as_secs_f64()
            ),
            retry_after,
        }
    }

    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            AppError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            AppError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            AppError::Timeout(_) | AppError::BodyStalled(_) => {
                (StatusCode::REQUEST_TIMEOUT, "timeout")
            }
            // A trace that would need more than the import budget: too large, not broken.
            AppError::InvalidTrace(e) if e.exceeded.is_some() => {
                (StatusCode::PAYLOAD_TOO_LARGE, "over_budget")
            }
            AppError::InvalidTrace(_) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_trace"),
            AppError::TooLargeToAnalyse(_) => (StatusCode::PAYLOAD_TOO_LARGE, "over_budget"),
            AppError::PayloadTooLarge { .. } => {
                (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large")
            }
            AppError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            AppError::Busy { .. } => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            AppError::Sqlx(_) | AppError::Internal(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "internal")
            }
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        match &self {
            // Internal causes are logged here and never sent to the client.
            AppError::Sqlx(e) => tracing::error!(error = %e, "database error"),
            AppError::Internal(e) => tracing::error!(error = ?e, "internal error"),
            AppError::Unavailable(message) => tracing::error!(%message, "unavailable"),
            _ => {}
        }
        let trace_error = match &self {
            AppError::InvalidTrace(e) => Some(e.clone()),
            _ => None,
        };
        let body = ApiError {
            code: code.to_owned(),
            message: self.to_string(),
            trace_error,
        };
        let mut response = (status, axum::Extension(ErrorCode(code)), Json(body)).into_response();
        if let AppError::Busy { retry_after, .. } = self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(retry_after),
            );
        }
        response
    }
}

/// The code of an error answered, kept on the response for the metrics.
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

/// Answers every API failure in the one error shape: a rejection axum or tower-http wrote as
/// plain text (a body that is not UTF-8 or too large, a method the route does not have, a
/// missing content type) becomes `{code, message}` with the same status and its text.
pub async fn as_json(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let code = match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "invalid_request",
        s if s.is_server_error() => "internal",
        _ => "bad_request",
    };
    // The rejection's own text is short; anything longer is cut.
    let text = axum::body::to_bytes(response.into_body(), 4096)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let message = match (status, text.is_empty()) {
        (StatusCode::METHOD_NOT_ALLOWED, _) => {
            "this API route does not take that method".to_owned()
        }
        (_, true) => status
            .canonical_reason()
            .unwrap_or("the request was refused")
            .to_owned(),
        (_, false) => text,
    };
    let body = ApiError {
        code: code.to_owned(),
        message,
        trace_error: None,
    };
    (status, axum::Extension(ErrorCode(code)), Json(body)).into_response()
}

/// `Query<T>` whose rejection is answered in the one error shape, not as plain text.
pub struct ApiQuery<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for ApiQuery<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, AppError> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(value)| ApiQuery(value))
            .map_err(|rejection| AppError::BadRequest(rejection.body_text()))
    }
}
