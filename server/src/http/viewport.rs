//! `GET /api/runs/{id}/viewport`: the Gantt chart's level-of-detail answer for a time window,
//! a range of rows and a width in pixels (see `shared::viewport`).
//!
//! A run's [`ViewportIndex`] is built on first use from the stored model and kept in a small
//! in-memory cache (the last 4 runs). Runs never change, so answers carry `Cache-Control: immutable` and an ETag
//! made of the run and the request.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use shared::viewport::{ViewportIndex, ViewportRequest};

use super::error::{ApiQuery, AppError};
use super::runs::IMMUTABLE;
use crate::{AppState, ingest};

/// The routes under `/api/runs/{id}/viewport`.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/runs/{id}/viewport", get(viewport))
}

async fn index_of(state: &AppState, id: &str) -> Result<Arc<ViewportIndex>, AppError> {
    super::cached_run(state, &state.viewports, id, |trace| {
        let pairing = shared::pairing::pair_messages(&trace);
        let graph = shared::graph::ExecutionGraph::new(&trace, &pairing);
        ViewportIndex::new(&trace, &pairing, &graph)
    })
    .await
}

async fn viewport(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(request): ApiQuery<ViewportRequest>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    ingest::check_run_id(&id)?;
    let etag = format!(
        "\"{id}-{}-{}-{}-{}-{}\"",
        request.start, request.end, request.first_row, request.last_row, request.width_px
    );
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes())
    {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response());
    }
    let index = index_of(&state, &id).await?;
    let view = index
        .query(&request)
        .map_err(|e| AppError::BadRequest(e.to_string()))?;
    Ok((
        [
            (header::CACHE_CONTROL, IMMUTABLE.to_owned()),
            (header::ETAG, etag),
        ],
        Json(view),
    )
        .into_response())
}
