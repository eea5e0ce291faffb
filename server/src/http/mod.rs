//! The HTTP surface: `/api/*` routes, and the static site with an `index.html` fallback so
//! client-side routes such as `/runs/{id}` load the app.

pub mod analysis;
pub mod error;
pub mod guard;
pub mod runs;
pub mod uploads;
pub mod viewport;
pub mod views;
pub mod workspace;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use axum::routing::get;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::AppState;
use error::AppError;

/// The application's router.
pub fn router(state: AppState) -> Router {
    let index = ServeFile::new(state.site_dir.join("index.html"));
    let site = ServeDir::new(&state.site_dir).fallback(index);
    let api = Router::new()
        .route("/health", get(health))
        .merge(runs::router())
        .merge(views::router())
        .merge(viewport::router())
        .merge(uploads::router())
        .merge(analysis::router())
        .fallback(|| async { AppError::NotFound("no such API route".to_owned()) })
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::metrics::track,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            deadline,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            deleted_under_the_read,
        ))
        .layer(axum::middleware::map_response(error::as_json))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::metrics::count_errors,
        ));
    let mut app = Router::new()
        .route("/metrics", get(metrics))
        .nest("/api", api)
        .fallback_service(site)
        .layer(CompressionLayer::new())
        // Foreign hosts and cross-origin writes are refused before anything else runs; the
        // refusal still carries the security headers and the request id.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::guard,
        ));
    for (name, value) in SECURITY_HEADERS {
        app = app.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ));
    }
    // The request id is set first, so the request's span and the response carry it.
    app.layer(tower_http::request_id::PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(tower_http::request_id::SetRequestIdLayer::x_request_id(
            RequestIds::new(),
        ))
        .with_state(state)
}

/// What every response says about how a browser may use it. The policy allows what the app
/// needs and nothing more: its own scripts, styles (Leptos writes `style` attributes), images
/// it made itself (`blob:`: the Simulator's pictures of the files a program wrote) and
/// module worker, WebAssembly compilation, requests to its own origin; no framing, no plugins,
/// no other origins. Run and region names come from uploaded files: they are text, never code.
/// The page is cross-origin isolated (COOP and COEP): the browser then lets the Simulator's
/// Web Workers share memory (`SharedArrayBuffer`) to run one network on several cores.
pub const SECURITY_HEADERS: [(HeaderName, &str); 6] = [
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::REFERRER_POLICY, "same-origin"),
    (
        HeaderName::from_static("cross-origin-opener-policy"),
        "same-origin",
    ),
    (
        HeaderName::from_static("cross-origin-embedder-policy"),
        "require-corp",
    ),
];

/// Cancels an API request past its deadline (uploads have their own, longer one).
async fn deadline(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let is_upload =
        request.method() == axum::http::Method::POST && request.uri().path().ends_with("/runs");
    let limit = if is_upload {
        state.timeouts.upload
    } else {
        state.timeouts.api
    };
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => AppError::Timeout(limit.as_secs()).into_response(),
    }
}

/// The run ids a request's path names: `runs/{id}…` or `compare/{a}/{b}`.
fn runs_named(path: &str) -> Vec<&str> {
    let mut segments = path.split('/').filter(|s| !s.is_empty());
    while let Some(segment) = segments.next() {
        match segment {
            "runs" => return segments.next().into_iter().collect(),
            "compare" => return segments.take(2).collect(),
            _ => {}
        }
    }
    Vec::new()
}

/// A read that failed because its run was deleted under it (a chunk, a blob file or a row of
/// the run gone between the request's first look and its last read; a report stored for a
/// run gone meanwhile) is answered 404, as it would have been a moment later: a server error
/// only when the run is still there.
async fn deleted_under_the_read(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let ids: Vec<String> = runs_named(request.uri().path())
        .into_iter()
        .filter(|id| crate::ingest::is_id(id, 22))
        .map(str::to_owned)
        .collect();
    let response = next.run(request).await;
    if !response.status().is_server_error() {
        return response;
    }
    for id in &ids {
        if let Ok(false) = crate::db::run_exists(&state.pool, id).await {
            tracing::info!(run = %id, "the run was deleted while it was read: answered 404");
            state.workspaces.remove(id);
            state.lazy_runs.remove(id);
            state.answers.remove_run(id);
            return AppError::no_run(id).into_response();
        }
    }
    response
}

/// `GET /metrics`: the server's metrics for Prometheus (OpenMetrics text).
async fn metrics(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> impl axum::response::IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.encode(),
    )
}

async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<axum::Json<shared::view::api::Health>, AppError> {
    let runs = crate::db::count_runs(&state.pool).await?;
    Ok(axum::Json(shared::view::api::Health {
        status: "ok".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        store: state.pool.engine().to_owned(),
        runs: u64::try_from(runs).unwrap_or(0),
    }))
}

/// Request ids: a random prefix per server instance and a counter, so ids from several
/// instances behind one load balancer never collide.
#[derive(Clone)]
struct RequestIds {
    prefix: std::sync::Arc<str>,
    next: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl RequestIds {
    fn new() -> RequestIds {
        let mut bytes = [0u8; 4];
        // Without randomness the ids are still unique within this instance.
        let _ = getrandom::fill(&mut bytes);
        let prefix: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        RequestIds {
            prefix: prefix.into(),
            next: std::sync::Arc::default(),
        }
    }
}

impl tower_http::request_id::MakeRequestId for RequestIds {
    fn make_request_id<B>(
        &mut self,
        _request: &axum::http::Request<B>,
    ) -> Option<tower_http::request_id::RequestId> {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n}", self.prefix))
            .ok()
            .map(tower_http::request_id::RequestId::new)
    }
}

/// The span every request is logged in: its method, path and request id.
fn request_span<B>(request: &axum::http::Request<B>) -> tracing::Span {
    let id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("-");
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
        request_id = %id
    )
}
