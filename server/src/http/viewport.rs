//! `GET /api/runs/{id}/viewport`: the Gantt chart's level-of-detail answer for a time window,
//! a range of rows and a width in pixels (see `shared::view::viewport`); and
//! `GET /api/runs/{id}/outline`: the run with its model's nodes, processes and regions but no
//! events, all a browser needs to draw a large run through the viewport API; and
//! `GET /api/runs/{id}/hasse`: a window of the run's Hasse diagram at a width; and
//! `GET /api/runs/{id}/topology`: the run's network or communication graph, laid out, with
//! `/topology/load` (each vertex's and edge's load over a window or at an instant) and
//! `/topology/strip` (one edge's load over time).
//!
//! The viewport and the outline of a run stored with its lazy index (`crate::lazy`) read its
//! directory and the chunks a window needs, never its model; runs stored before read the run's
//! workspace (`crate::cache::RunWorkspace`), where the viewport index is built from the run's
//! one analysis context on first use, as the other endpoints here do. Runs never change, so answers carry `Cache-Control: immutable` and an ETag
//! made of the run and the request.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use shared::view::viewport::ViewportRequest;

use super::error::{ApiQuery, AppError};
use super::runs::IMMUTABLE;
use crate::AppState;

/// The routes under `/api/runs/{id}/viewport`.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/runs/{id}/viewport", get(viewport))
        .route("/runs/{id}/outline", get(outline))
        .route("/runs/{id}/hasse", get(hasse))
        .route("/runs/{id}/hasse/areas", get(hasse_areas))
        .route("/runs/{id}/topology", get(topology))
        .route("/runs/{id}/topology/load", get(topology_load))
        .route("/runs/{id}/topology/strip", get(topology_strip))
}

/// The run's topology, laid out (`shared::view::topology::Topology`).
async fn topology(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    let workspace = super::workspace::workspace(&state, &id).await?;
    let topology = tokio::task::spawn_blocking(move || workspace.prepared().topology().0.clone())
        .await
        .map_err(|e| anyhow::anyhow!("the topology task failed: {e}"))?;
    Ok((
        [(header::CACHE_CONTROL, IMMUTABLE.to_owned())],
        Json(topology),
    )
        .into_response())
}

/// Query of `GET /api/runs/{id}/topology/load` and `/strip`.
#[derive(serde::Deserialize)]
struct LoadQuery {
    /// The window's start in ticks (default: the run's start).
    start: Option<u64>,
    /// The window's end in ticks, exclusive (default: the run's end); at or before `start`,
    /// the load at the instant `start`.
    end: Option<u64>,
    /// The edge of a strip.
    edge: Option<usize>,
    /// How many slices a strip has (1 to 4096; default 100).
    buckets: Option<usize>,
}

impl LoadQuery {
    fn window(
        &self,
        trace: &shared::Trace,
    ) -> (shared::model::time::Time, shared::model::time::Time) {
        use shared::model::time::Time;
        let (first, last) = trace.time_bounds().unwrap_or((Time(0), Time(0)));
        (
            Time(self.start.unwrap_or(first.0)),
            Time(self.end.unwrap_or(last.0)),
        )
    }
}

/// Each vertex's and edge's load over a window, or at an instant
/// (`shared::view::topology::LoadFrame`).
async fn topology_load(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<LoadQuery>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    let workspace = super::workspace::workspace(&state, &id).await?;
    let frame = tokio::task::spawn_blocking(move || {
        let (start, end) = query.window(workspace.trace());
        workspace.prepared().topology().1.frame(start, end)
    })
    .await
    .map_err(|e| anyhow::anyhow!("the topology task failed: {e}"))?;
    Ok(([(header::CACHE_CONTROL, IMMUTABLE.to_owned())], Json(frame)).into_response())
}

/// One edge's load over a window in equal slices, each direction (Tmon's link view).
async fn topology_strip(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<LoadQuery>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    let buckets = query.buckets.unwrap_or(100);
    if !(1..=4096).contains(&buckets) {
        return Err(AppError::BadRequest(format!(
            "expected buckets from 1 to 4096, found {buckets}"
        )));
    }
    let edge = query
        .edge
        .ok_or_else(|| AppError::BadRequest("expected edge=N, the edge's index".to_owned()))?;
    let workspace = super::workspace::workspace(&state, &id).await?;
    let strip = tokio::task::spawn_blocking(move || {
        let (topology, load) = workspace.prepared().topology();
        if edge >= topology.edges.len() {
            return None;
        }
        let (start, end) = query.window(workspace.trace());
        Some(load.strip(edge, start, end, buckets))
    })
    .await
    .map_err(|e| anyhow::anyhow!("the topology task failed: {e}"))?
    .ok_or_else(|| AppError::NotFound(format!("the run's topology has no edge {edge}")))?;
    Ok(([(header::CACHE_CONTROL, IMMUTABLE.to_owned())], Json(strip)).into_response())
}

/// Query of `GET /api/runs/{id}/hasse/areas`.
#[derive(serde::Deserialize)]
struct AreasQuery {
    /// The event whose causal past and future are asked for.
    event: u32,
}

/// The causal past and future of an event on the run's Hasse diagram
/// (`shared::view::hasse::CausalAreas`).
async fn hasse_areas(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<AreasQuery>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    let workspace = super::workspace::workspace(&state, &id).await?;
    super::workspace::check_hasse(&state, &workspace).await?;
    let areas = tokio::task::spawn_blocking(move || {
        let (causality, diagram) = workspace.prepared().hasse();
        diagram.areas(
            workspace.trace(),
            causality,
            shared::model::EventIdx(query.event),
        )
    })
    .await
    .map_err(|e| anyhow::anyhow!("the Hasse task failed: {e}"))?
    .ok_or_else(|| AppError::NotFound(format!("the run has no event {}", query.event)))?;
    Ok(([(header::CACHE_CONTROL, IMMUTABLE.to_owned())], Json(areas)).into_response())
}

/// A window of the run's Hasse diagram (`shared::view::hasse::WindowQuery`), built from the
/// run's cached causality on first use.
async fn hasse(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(query): ApiQuery<shared::view::hasse::WindowQuery>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    let workspace = super::workspace::workspace(&state, &id).await?;
    super::workspace::check_hasse(&state, &workspace).await?;
    let rows = query
        .rows_drawn(workspace.trace().processes.len())
        .map_err(AppError::BadRequest)?;
    let window = tokio::task::spawn_blocking(move || {
        workspace.prepared().hasse().1.window(
            &rows,
            (query.start, query.end),
            query.axis,
            f64::from(query.width_px),
        )
    })
    .await
    .map_err(|e| anyhow::anyhow!("the Hasse task failed: {e}"))?;
    Ok((
        [(header::CACHE_CONTROL, IMMUTABLE.to_owned())],
        Json(window),
    )
        .into_response())
}

/// The run's metadata and its model's outline (no events): a `RunDetail` whose trace has none.
async fn outline(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    let run = crate::db::get_run(&state.pool, &id)
        .await?
        .ok_or_else(|| AppError::no_run(&id))?;
    let lazy = crate::lazy::lazy_run(&state, &id).await?;
    let trace = match &*lazy {
        Some(lazy) => lazy.outline.clone(),
        None => super::workspace::workspace(&state, &id)
            .await?
            .trace()
            .outline(),
    };
    Ok((
        [(header::CACHE_CONTROL, IMMUTABLE.to_owned())],
        Json(shared::view::api::RunDetail { run, trace }),
    )
        .into_response())
}

async fn viewport(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(request): ApiQuery<ViewportRequest>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
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
    // A run stored with its index reads the chunks the window needs (blocking reads).
    let lazy = crate::lazy::lazy_run(&state, &id).await?;
    // The run exists (checked just now): an answer made before is the answer.
    let answered = |json: axum::body::Bytes, etag: String| {
        (
            [
                (header::CACHE_CONTROL, IMMUTABLE.to_owned()),
                (header::ETAG, etag),
                (header::CONTENT_TYPE, "application/json".to_owned()),
            ],
            json,
        )
            .into_response()
    };
    if let Some(json) = state.answers.get(&etag) {
        return Ok(answered(json, etag));
    }
    let drawn = tokio::task::spawn_blocking(move || {
        Option::as_ref(&*lazy).map(|run| run.index.query(&run.chunks, &request))
    })
    .await
    .map_err(|e| anyhow::anyhow!("the viewport task failed: {e}"))?;
    let view = match drawn {
        Some(answer) => answer.map_err(|e| match e {
            shared::view::lod::LazyError::Viewport(e) => AppError::BadRequest(e.to_string()),
            e @ shared::view::lod::LazyError::Chunk(_) => AppError::Internal(anyhow::anyhow!(e)),
        })?,
        None => {
            let workspace = super::workspace::workspace(&state, &id).await?;
            // The index is built on the first query; it takes seconds on a large run.
            tokio::task::spawn_blocking(move || workspace.prepared().index().query(&request))
                .await
                .map_err(|e| anyhow::anyhow!("the viewport task failed: {e}"))?
                .map_err(|e| AppError::BadRequest(e.to_string()))?
        }
    };
    let json = axum::body::Bytes::from(
        serde_json::to_vec(&view).map_err(|e| anyhow::anyhow!("the viewport answer: {e}"))?,
    );
    state.answers.insert(etag.clone(), json.clone());
    Ok(answered(json, etag))
}
