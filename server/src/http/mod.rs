//! The HTTP surface: `/api/*` routes, and the static site with an `index.html` fallback so
//! client-side routes such as `/runs/{id}` load the app.

pub mod analysis;
pub mod error;
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
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            deadline,
        ))
        .layer(axum::middleware::map_response(error::as_json));
    let mut app = Router::new()
        .nest("/api", api)
        .fallback_service(site)
        .layer(CompressionLayer::new());
    for (name, value) in SECURITY_HEADERS {
        app = app.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ));
    }
    app.layer(TraceLayer::new_for_http()).with_state(state)
}

/// What every response says about how a browser may use it. The policy allows what the app
/// needs and nothing more: its own scripts, styles (Leptos writes `style` attributes), images
/// it made itself (`blob:`: the Simulator's pictures of the files a program wrote) and
/// module worker, WebAssembly compilation, requests to its own origin; no framing, no plugins,
/// no other origins. Run and region names come from uploaded files: they are text, never code.
pub const SECURITY_HEADERS: [(HeaderName, &str); 4] = [
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::REFERRER_POLICY, "same-origin"),
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

async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Result<axum::Json<shared::view::api::Health>, AppError> {
    sqlx::query("SELECT 1").execute(&state.pool).await?;
    Ok(axum::Json(shared::view::api::Health {
        status: "ok".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    }))
}
