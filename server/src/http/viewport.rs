//! `GET /api/runs/{id}/viewport`: the Gantt chart's level-of-detail answer for a time window,
//! a range of rows and a width in pixels (see `shared::viewport`); and
//! `GET /api/runs/{id}/outline`: the run with its model's nodes, processes and regions but no
//! events, all a browser needs to draw a large run through the viewport API.
//!
//! A run's [`ViewportIndex`] and outline are built on first use from the stored model and kept
//! in a small in-memory cache (the last 4 runs). Runs never change, so answers carry `Cache-Control: immutable` and an ETag
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
    axum::Router::new()
        .route("/runs/{id}/viewport", get(viewport))
        .route("/runs/{id}/outline", get(outline))
}

/// What the viewport routes keep of a run: its index, and its model without events.
pub struct ViewportRun {
    /// The level-of-detail index.
    pub index: ViewportIndex,
    /// The model's nodes, processes, regions, links and clock; no events or samples.
    pub outline: shared::Trace,
}

async fn index_of(state: &AppState, id: &str) -> Result<Arc<ViewportRun>, AppError> {
    super::cached_run(state, &state.viewports, id, |trace| {
        let pairing = shared::pairing::pair_messages(&trace);
        let graph = shared::graph::ExecutionGraph::new(&trace, &pairing);
        let index = ViewportIndex::new(&trace, &pairing, &graph);
        let outline = trace.outline();
        ViewportRun { index, outline }
    })
    .await
}

/// The run's metadata and its model's outline (no events): a `RunDetail` whose trace has none.
async fn outline(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    ingest::check_run_id(&id)?;
    let run = crate::db::get_run(&state.pool, &id)
        .await?
        .ok_or_else(|| AppError::no_run(&id))?;
    let loaded = index_of(&state, &id).await?;
    Ok((
        [(header::CACHE_CONTROL, IMMUTABLE.to_owned())],
        Json(shared::api::RunDetail {
            run,
            trace: loaded.outline.clone(),
        }),
    )
        .into_response())
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
        .index
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
