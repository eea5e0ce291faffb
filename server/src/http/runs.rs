//! Runs: upload a trace, list and search runs, fetch one run with its model (as JSON, or in
//! the binary format the page loads in the background), delete a run.

use std::io::Read as _;

use axum::Json;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use flate2::read::GzDecoder;
use serde::Deserialize;
use shared::view::api::{CreatedRun, RunList, UploadPhase, UploadProgress};

use super::error::{ApiQuery, AppError};
use super::uploads;
use crate::AppState;
use crate::{db, ingest};

/// The routes under `/api/runs`.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route(
            "/runs",
            // The upload enforces `max_upload_bytes` itself while it streams the body.
            get(list_runs)
                .post(create_run)
                .layer(DefaultBodyLimit::disable()),
        )
        .route("/runs/{id}", get(get_run).delete(delete_run))
        .route("/runs/{id}/info", get(get_run_info))
        .route("/runs/{id}/model", get(get_run_model))
        .route("/runs/{id}/export/{format}", get(export_run))
}

/// `GET /api/runs/{id}/export/{format}`: the run's model as a file to download —
/// `chrome-json` (opens in Perfetto and chrome://tracing), `native`, `binary` or `tmon` —,
/// named after the run.
async fn export_run(
    State(state): State<AppState>,
    Path((id, format)): Path<(String, String)>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    let (mime, extension) = match format.as_str() {
        "chrome-json" => ("application/json", "chrome.json"),
        "native" => ("application/json", "tracescope.json"),
        "binary" => ("application/octet-stream", "tscb"),
        "tmon" => ("application/octet-stream", "tmon"),
        other => {
            return Err(AppError::BadRequest(format!(
                "unknown export format {other:?}: expected chrome-json, native, binary or tmon"
            )));
        }
    };
    let workspace = super::workspace::workspace(&state, &id).await?;
    let (bytes, name) = tokio::task::spawn_blocking(move || -> Result<_, AppError> {
        let trace = workspace.trace();
        let bytes = match format.as_str() {
            "chrome-json" => shared::formats::chrome::write(trace).into_bytes(),
            "native" => shared::formats::native::write(trace).into_bytes(),
            "binary" => shared::formats::binary::write(trace),
            _ => {
                shared::formats::tmon::write(trace)
                    .map_err(|e| {
                        AppError::BadRequest(format!(
                            "this run cannot be written as Tmon records: {e}"
                        ))
                    })?
                    .0
            }
        };
        Ok((bytes, trace.name.clone()))
    })
    .await
    .map_err(|e| anyhow::anyhow!("the export task failed: {e}"))??;
    // A file name of the run's name, safe in a header.
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let stem = if stem.trim_matches(['_', '.']).is_empty() {
        "run".to_owned()
    } else {
        stem
    };
    Ok((
        [
            (header::CONTENT_TYPE, mime.to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{stem}.{extension}\""),
            ),
            (header::CACHE_CONTROL, IMMUTABLE.to_owned()),
        ],
        bytes,
    )
        .into_response())
}

/// Query parameters of an upload.
#[derive(Deserialize)]
struct UploadParams {
    /// The uploaded file's name, used as the run's name when the trace has none.
    name: Option<String>,
    /// The format to read, instead of detecting it (e.g. `paraver`).
    format: Option<String>,
    /// A key under which `GET /api/uploads/{key}` reports this upload's progress.
    upload: Option<String>,
    /// The unit of a Pajé trace's dates: `s`, `ms`, `us` or `ns`.
    time_unit: Option<String>,
}

/// Receives the body into a temporary file (unnamed, so it goes when it is closed, even if the
/// server dies), within the size limit, reporting bytes read under `key`: an upload waits on
/// disk, not in memory, however slowly it arrives.
async fn spool_body(
    state: &AppState,
    key: Option<&str>,
    headers: &HeaderMap,
    body: Body,
) -> Result<std::fs::File, AppError> {
    use http_body_util::BodyExt as _;
    use tokio::io::AsyncWriteExt as _;
    let limit = state.max_upload_bytes;
    let total = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if total.is_some_and(|n| n > limit as u64) {
        return Err(AppError::PayloadTooLarge { limit });
    }
    let report = |phase, bytes_read: usize| {
        if let Some(key) = key {
            let progress = UploadProgress {
                phase,
                bytes_read: bytes_read as u64,
                bytes_total: total,
            };
            state.uploads.set(key, progress);
        }
    };
    let spool_failed =
        |e: std::io::Error| AppError::Unavailable(crate::spool::unwritable_temporary(&e));
    let file = tokio::task::spawn_blocking(tempfile::tempfile)
        .await
        .map_err(|e| anyhow::anyhow!("the spool task failed: {e}"))?
        .map_err(spool_failed)?;
    let mut file = tokio::fs::File::from_std(file);
    let mut received = 0usize;
    let mut body = body;
    let mut reported = 0usize;
    report(UploadPhase::Receiving, 0);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| match crate::listen::body_stalled(&e) {
            Some(seconds) => AppError::BodyStalled(seconds),
            None => AppError::BadRequest(format!("the upload broke off: {e}")),
        })?;
        if let Ok(data) = frame.into_data() {
            if received + data.len() > limit {
                return Err(AppError::PayloadTooLarge { limit });
            }
            file.write_all(&data).await.map_err(spool_failed)?;
            received += data.len();
            // Report about every MiB, not every frame.
            if received - reported >= 1 << 20 {
                reported = received;
                report(UploadPhase::Receiving, reported);
            }
        }
    }
    file.flush().await.map_err(spool_failed)?;
    report(UploadPhase::Parsing, received);
    Ok(file.into_std().await)
}

async fn create_run(
    State(state): State<AppState>,
    ApiQuery(params): ApiQuery<UploadParams>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<CreatedRun>), AppError> {
    let key = match params.upload.as_deref() {
        Some(key) if !uploads::is_upload_key(key) => {
            return Err(AppError::BadRequest(
                "the upload key must be 16 to 64 characters of A-Z, a-z, 0-9, - and _".to_owned(),
            ));
        }
        key => key.map(str::to_owned),
    };
    let result = create_run_inner(&state, params, key.as_deref(), &headers, body).await;
    if let Some(key) = &key {
        let phase = if result.is_ok() {
            UploadPhase::Done
        } else {
            UploadPhase::Failed
        };
        state.uploads.finish(key, phase).await;
    }
    result
}

async fn create_run_inner(
    state: &AppState,
    params: UploadParams,
    key: Option<&str>,
    headers: &HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<CreatedRun>), AppError> {
    let format = match params.format.as_deref() {
        Some(name) => Some(
            shared::formats::Format::from_name(name)
                .ok_or_else(|| AppError::BadRequest(format!("unknown format {name:?}")))?,
        ),
        None => None,
    };
    let time_unit = match params.time_unit.as_deref() {
        Some(name) => Some(
            shared::formats::paje::TimeUnit::from_name(name).ok_or_else(|| {
                AppError::BadRequest(format!(
                    "unknown time unit {name:?}: expected s, ms, us or ns"
                ))
            })?,
        ),
        None => None,
    };
    let mut spooled = spool_body(state, key, headers, body).await?;
    let name = params.name.unwrap_or_else(|| "uploaded trace".to_owned());
    let tracker = std::sync::Arc::clone(&state.uploads);
    let owned_key = key.map(str::to_owned);
    let options = shared::formats::ImportOptions {
        budget: state.budget,
        time_unit,
    };
    // The import reserves what it may take of the server's memory before it starts, and
    // holds it until the run is stored (its index is in memory until then) or refused.
    let budget = state.budget;
    let (cost, mut spooled) = tokio::task::spawn_blocking(move || {
        ingest::import_cost(&mut spooled, &budget).map(|cost| (cost, spooled))
    })
    .await
    .map_err(|e| anyhow::anyhow!("the import task failed: {e}"))??;
    let reservation = state
        .memory
        .reserve(cost, || {
            state.workspaces.evict_idle();
        })
        .await
        .map_err(|full| AppError::busy(&full, "this import"))?;
    let prepared = tokio::task::spawn_blocking(move || {
        ingest::prepare_file(&mut spooled, &name, format, &options, &|phase| {
            if let Some(key) = &owned_key {
                tracker.phase(key, phase);
            }
        })
    })
    .await
    .map_err(|e| anyhow::anyhow!("the import task failed: {e}"))??;
    if let Some(key) = key {
        state.uploads.phase(key, UploadPhase::Storing);
    }
    let stored = ingest::store(&state.pool, &state.blobs, prepared).await?;
    drop(reservation);
    state.metrics.ingest_runs.inc();
    state.metrics.ingest_bytes.inc_by(stored.run.source_bytes);
    state
        .metrics
        .ingest_events
        .inc_by(stored.run.summary.events);
    Ok((
        StatusCode::CREATED,
        Json(CreatedRun {
            id: stored.run.id.clone(),
            run: stored.run,
            delete_token: stored.delete_token,
        }),
    ))
}

/// Query parameters of the runs list.
#[derive(Deserialize)]
struct ListParams {
    /// A substring of the run's name.
    q: Option<String>,
    /// The format's name, e.g. `otf2`.
    format: Option<String>,
    /// The page size (default 50, at most 200).
    limit: Option<u32>,
    /// How many matching runs to skip.
    offset: Option<u64>,
}

async fn list_runs(
    State(state): State<AppState>,
    ApiQuery(params): ApiQuery<ListParams>,
) -> Result<Json<RunList>, AppError> {
    let query = db::RunQuery {
        name: params.q.filter(|q| !q.is_empty()),
        format: params.format.filter(|f| !f.is_empty()),
        limit: params.limit.unwrap_or(50).clamp(1, 200),
        offset: params.offset.unwrap_or(0),
    };
    let (runs, total) = db::list_runs(&state.pool, &query).await?;
    Ok(Json(RunList { runs, total }))
}

/// The header that carries a run's delete token.
pub const DELETE_TOKEN_HEADER: &str = "x-delete-token";

async fn delete_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<StatusCode, AppError> {
    let not_found = || AppError::no_run(&id);
    super::error::check_run_id(&id)?;
    let token = headers
        .get(DELETE_TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            AppError::Forbidden(format!(
                "deleting a run needs the {DELETE_TOKEN_HEADER} header with the token returned at upload"
            ))
        })?;
    let blob_names = db::blob_names(&state.pool, &id).await?;
    match db::delete_run(&state.pool, &id, &ingest::token_hash(token)).await? {
        db::Deleted::Yes => {
            state.workspaces.remove(&id);
            state.lazy_runs.remove(&id);
            state.answers.remove_run(&id);
            state.blobs.release(&state.pool, &blob_names).await;
            Ok(StatusCode::NO_CONTENT)
        }
        db::Deleted::NoSuchRun => Err(not_found()),
        db::Deleted::WrongToken => Err(AppError::Forbidden(
            "the delete token is not this run's".to_owned(),
        )),
    }
}

/// Run data never changes once stored (a run is only ever deleted), so caches may keep it.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// One run's metadata (name, format, counts, span), without its model.
async fn get_run_info(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    let not_found = || AppError::no_run(&id);
    super::error::check_run_id(&id)?;
    let run = db::get_run(&state.pool, &id).await?.ok_or_else(not_found)?;
    Ok(([(header::CACHE_CONTROL, IMMUTABLE)], Json(run)))
}

/// One run with its model as JSON: a model stored as gzip JSON (runs stored before migration
/// 0005) is spliced into the answer as is; one stored in the binary format is decoded and
/// written as JSON.
async fn get_run(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let not_found = || AppError::no_run(&id);
    super::error::check_run_id(&id)?;
    let etag = format!("\"{id}\"");
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes())
    {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response());
    }
    let run = db::get_run(&state.pool, &id).await?.ok_or_else(not_found)?;
    let model = db::get_model(&state.pool, &id)
        .await?
        .ok_or_else(not_found)?;
    let model = state
        .blobs
        .read_model(model)
        .await
        .map_err(|e| anyhow::anyhow!("the model of run {id} could not be read: {e}"))?;
    let model_json = match model {
        // A model stored as JSON is spliced into the answer as is.
        db::StoredModel::GzipJson(gz) => {
            let mut json = String::new();
            GzDecoder::new(gz.as_slice())
                .read_to_string(&mut json)
                .map_err(|e| anyhow::anyhow!("stored model of run {id} is unreadable: {e}"))?;
            json
        }
        binary @ (db::StoredModel::BinaryGz(_) | db::StoredModel::InDirectory(_)) => {
            let id = id.clone();
            tokio::task::spawn_blocking(move || {
                let trace = crate::ingest::decode_model(&binary, &id)?;
                serde_json::to_string(&trace)
                    .map_err(|e| crate::ingest::IngestError::from(anyhow::Error::from(e)))
            })
            .await
            .map_err(|e| anyhow::anyhow!("encoding the run's model failed: {e}"))??
        }
    };
    let run_json = serde_json::to_string(&run).map_err(anyhow::Error::from)?;
    let body = format!("{{\"run\":{run_json},\"trace\":{model_json}}}");
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (header::CACHE_CONTROL, IMMUTABLE.to_owned()),
            (header::ETAG, etag),
        ],
        body,
    )
        .into_response())
}

/// The header that gives the size of the model's binary encoding before compression, so a
/// browser (which inflates a gzip body before the page reads it) can show its progress.
pub const MODEL_BYTES_HEADER: &str = "x-model-bytes";

/// Whether the request accepts a gzip body.
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or("").trim();
            // `gzip;q=0` refuses it.
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

/// The size a single-member gzip stream inflates to, from its trailer (ISIZE: the size modulo
/// 2^32, exact for any model a browser loads).
fn gzip_inflated_size(gz: &[u8]) -> Option<u64> {
    let trailer = gz.get(gz.len().checked_sub(4)?..)?;
    Some(u64::from(u32::from_le_bytes(trailer.try_into().ok()?)))
}

/// `GET /api/runs/{id}/model`: the run's model in the binary format (`shared::formats::binary`),
/// what the page fetches in the background after it has drawn the run from its index. A model
/// stored in that format is sent as stored, gzip and all (`Content-Encoding: gzip`, so the
/// browser inflates it natively and the server does no work); a model stored as JSON (runs
/// stored before migration 0005) is decoded and encoded. `x-model-bytes` gives the inflated
/// size for progress.
async fn get_run_model(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let not_found = || AppError::no_run(&id);
    super::error::check_run_id(&id)?;
    let model = db::get_model(&state.pool, &id)
        .await?
        .ok_or_else(not_found)?;
    let model = state
        .blobs
        .read_model(model)
        .await
        .map_err(|e| anyhow::anyhow!("the model of run {id} could not be read: {e}"))?;
    let gzip = accepts_gzip(&headers);
    let (body, inflated, encoded) = match model {
        db::StoredModel::BinaryGz(gz) if gzip => {
            let inflated = gzip_inflated_size(&gz);
            (gz, inflated, true)
        }
        other => {
            let id = id.clone();
            let bytes = tokio::task::spawn_blocking(move || {
                crate::ingest::decode_model(&other, &id)
                    .map(|trace| shared::formats::binary::write(&trace))
            })
            .await
            .map_err(|e| anyhow::anyhow!("encoding the run's model failed: {e}"))??;
            let inflated = bytes.len() as u64;
            (bytes, Some(inflated), false)
        }
    };
    let mut response = (
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
            (header::CACHE_CONTROL, IMMUTABLE.to_owned()),
            (header::VARY, "accept-encoding".to_owned()),
        ],
        body,
    )
        .into_response();
    let headers = response.headers_mut();
    if encoded {
        // The compression layer leaves a body that already has an encoding alone.
        headers.insert(
            header::CONTENT_ENCODING,
            header::HeaderValue::from_static("gzip"),
        );
    }
    if let Some(n) = inflated {
        headers.insert(MODEL_BYTES_HEADER, header::HeaderValue::from(n));
    }
    Ok(response)
}
