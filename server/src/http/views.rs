//! Permalinks: `POST /api/views` stores a view state and answers its short id; `GET
//! /api/views/{id}` reads it back, upgraded to the current version. `/v/{id}` is a page of the
//! app (served by the site fallback) that loads the state and opens the view.

use axum::Json;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use shared::view::api::CreatedView;
use shared::view::state::{self as view, ViewState};

use super::error::AppError;
use super::runs::IMMUTABLE;
use crate::AppState;
use crate::{db, ingest};

/// The routes under `/api/views`.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route(
            "/views",
            post(create_view).layer(DefaultBodyLimit::max(view::MAX_STATE_BYTES)),
        )
        .route("/views/{id}", get(get_view))
}

fn invalid(e: view::ViewError) -> AppError {
    AppError::BadRequest(e.to_string())
}

async fn create_view(
    State(state): State<AppState>,
    body: String,
) -> Result<(StatusCode, Json<CreatedView>), AppError> {
    let view_state = view::parse(&body).map_err(invalid)?;
    super::error::check_run_id(&view_state.run)?;
    if db::get_run(&state.pool, &view_state.run).await?.is_none() {
        return Err(AppError::no_run(&view_state.run));
    }
    let id = ingest::new_view_id()?;
    let created_ms = ingest::now_ms();
    // The run may be deleted between the check above and this insert.
    if !db::insert_view(&state.pool, &id, &view_state, created_ms).await? {
        return Err(AppError::no_run(&view_state.run));
    }
    Ok((
        StatusCode::CREATED,
        Json(CreatedView {
            path: format!("/v/{id}"),
            id,
        }),
    ))
}

async fn get_view(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    let not_found = || AppError::NotFound(format!("there is no view {id:?}"));
    if !ingest::is_id(&id, 16) {
        return Err(not_found());
    }
    let json = db::get_view_json(&state.pool, &id)
        .await?
        .ok_or_else(not_found)?;
    // Stored states were valid when written; one that no longer parses is our bug, not the
    // client's, so it is logged and answered as an internal error.
    let view_state: ViewState =
        view::parse(&json).map_err(|e| anyhow::anyhow!("stored view {id} no longer reads: {e}"))?;
    Ok(([(header::CACHE_CONTROL, IMMUTABLE)], Json(view_state)))
}
