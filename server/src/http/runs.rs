//! Runs: upload a trace, list runs, fetch one run with its model.

use std::io::{Read as _, Write as _};

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use base64::Engine as _;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde::Deserialize;
use shared::api::{CreatedRun, RunInfo, RunList};

use super::error::AppError;
use crate::AppState;
use crate::db::{self, NewRun};

/// The routes under `/api/runs`.
pub fn router(state: &AppState) -> axum::Router<AppState> {
    axum::Router::new()
        .route(
            "/runs",
            get(list_runs)
                .post(create_run)
                .layer(DefaultBodyLimit::max(state.max_upload_bytes)),
        )
        .route("/runs/{id}", get(get_run))
}

/// Query parameters of an upload.
#[derive(Deserialize)]
struct UploadParams {
    /// The uploaded file's name, used as the run's name when the trace has none.
    name: Option<String>,
    /// The format to read, instead of detecting it (e.g. `paraver`).
    format: Option<String>,
}

/// A new random run id: 128 bits as 22 base64url characters.
pub fn new_run_id() -> Result<String, AppError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a run id: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

fn is_run_id(id: &str) -> bool {
    id.len() == 22
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 4), Compression::fast());
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// What parsing an upload produces, ready to store.
struct Prepared {
    summary: shared::summary::TraceSummary,
    source_gz: Vec<u8>,
    model_json_gz: Vec<u8>,
}

/// Imports, summarises and compresses an upload (CPU-bound: runs on a blocking thread).
fn prepare(
    body: &[u8],
    name: &str,
    format: Option<shared::import::Format>,
) -> Result<Prepared, AppError> {
    let imported = shared::import::import(body, format, name)?;
    let pairing = shared::pairing::pair_messages(&imported.trace);
    let summary = shared::summary::summarize(&imported.trace, imported.format, &pairing);
    let model_json = serde_json::to_vec(&imported.trace).map_err(anyhow::Error::from)?;
    Ok(Prepared {
        summary,
        source_gz: gzip(body).map_err(anyhow::Error::from)?,
        model_json_gz: gzip(&model_json).map_err(anyhow::Error::from)?,
    })
}

async fn create_run(
    State(state): State<AppState>,
    Query(params): Query<UploadParams>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<CreatedRun>), AppError> {
    let body = body.map_err(|rejection| match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => AppError::PayloadTooLarge {
            limit: state.max_upload_bytes,
        },
        _ => AppError::BadRequest(rejection.body_text()),
    })?;
    let format = match params.format.as_deref() {
        Some(name) => Some(
            shared::import::Format::from_name(name)
                .ok_or_else(|| AppError::BadRequest(format!("unknown format {name:?}")))?,
        ),
        None => None,
    };
    let name = params.name.unwrap_or_else(|| "uploaded trace".to_owned());
    let source_bytes = body.len() as u64;
    let prepared = tokio::task::spawn_blocking(move || prepare(&body, &name, format))
        .await
        .map_err(|e| anyhow::anyhow!("the import task failed: {e}"))??;
    let id = new_run_id()?;
    let created_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let new_run = NewRun {
        id: &id,
        created_ms,
        source_bytes,
        summary: &prepared.summary,
        source_gz: &prepared.source_gz,
        model_json_gz: &prepared.model_json_gz,
    };
    db::insert_run(&state.pool, &new_run).await?;
    let run = RunInfo {
        id: id.clone(),
        created_ms,
        source_bytes,
        summary: prepared.summary,
    };
    Ok((StatusCode::CREATED, Json(CreatedRun { id, run })))
}

async fn list_runs(State(state): State<AppState>) -> Result<Json<RunList>, AppError> {
    Ok(Json(RunList {
        runs: db::list_runs(&state.pool, 200).await?,
    }))
}

/// One run with its model. The stored model JSON is spliced into the answer as is, so a large
/// trace is never parsed and re-serialized to be served.
async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let not_found = || AppError::NotFound(format!("there is no run {id:?}"));
    if !is_run_id(&id) {
        return Err(not_found());
    }
    let run = db::get_run(&state.pool, &id).await?.ok_or_else(not_found)?;
    let model_gz = db::get_model_json_gz(&state.pool, &id)
        .await?
        .ok_or_else(not_found)?;
    let mut model_json = String::new();
    GzDecoder::new(model_gz.as_slice())
        .read_to_string(&mut model_json)
        .map_err(|e| anyhow::anyhow!("stored model of run {id} is unreadable: {e}"))?;
    let run_json = serde_json::to_string(&run).map_err(anyhow::Error::from)?;
    let body = format!("{{\"run\":{run_json},\"trace\":{model_json}}}");
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_22_url_safe_characters_and_differ() {
        let a = new_run_id().expect("randomness");
        let b = new_run_id().expect("randomness");
        assert!(is_run_id(&a) && is_run_id(&b), "{a} {b}");
        assert_ne!(a, b);
        assert!(!is_run_id("../../etc/passwd"));
    }
}
