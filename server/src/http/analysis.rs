//! `GET /api/runs/{id}/analysis`: the run's analysis report, the same object as `tracescope
//! analyze --json` (summary, metrics, critical path and WCPA with the phase table, NPT ranking,
//! wait states, critical-path profile, clock violations). The default report is computed once
//! and kept in `run_analyses`; `?min_latency=` or `?what_if=` compute a fresh one.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::error::{ApiQuery, AppError};
use super::runs::IMMUTABLE;
use crate::{AppState, analyze, db, ingest};

/// The routes under `/api/runs/{id}/analysis`.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/runs/{id}/analysis", get(analysis))
}

/// Query parameters: the `analyze` command's options.
#[derive(Deserialize, Default)]
struct AnalysisParams {
    /// The clock condition's minimum message latency, in ticks.
    min_latency: Option<u64>,
    /// A what-if scenario, e.g. `transit=0`.
    what_if: Option<String>,
}

async fn analysis(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiQuery(params): ApiQuery<AnalysisParams>,
) -> Result<Response, AppError> {
    let not_found = || AppError::no_run(&id);
    ingest::check_run_id(&id)?;
    let default = params.min_latency.is_none() && params.what_if.is_none();
    if default && let Some(json) = db::get_analysis_json(&state.pool, &id).await? {
        return Ok(json_response(json));
    }
    let run = db::get_run(&state.pool, &id).await?.ok_or_else(not_found)?;
    let model_gz = db::get_model_json_gz(&state.pool, &id)
        .await?
        .ok_or_else(not_found)?;
    let owned_id = id.clone();
    let json = tokio::task::spawn_blocking(move || -> Result<String, AppError> {
        let trace = ingest::decode_model(&model_gz, &owned_id)?;
        let imported = shared::import::Imported {
            format: run.summary.format,
            trace,
            notes: Vec::new(),
        };
        let request = analyze::Request {
            options: shared::analysis::AnalysisOptions {
                validation: shared::validate::ValidationOptions {
                    min_latency: params.min_latency.unwrap_or(0),
                },
            },
            what_if: params.what_if,
            format: None,
        };
        let report = analyze::analyze_imported(&imported, &run.summary.name, &request)
            .map_err(|e| AppError::BadRequest(e.to_string()))?;
        Ok(serde_json::to_string(&report).map_err(anyhow::Error::from)?)
    })
    .await
    .map_err(|e| anyhow::anyhow!("the analysis task failed: {e}"))??;
    if default {
        let created_ms = ingest::now_ms();
        db::put_analysis_json(&state.pool, &id, &json, created_ms).await?;
    }
    Ok(json_response(json))
}

fn json_response(json: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, IMMUTABLE),
        ],
        json,
    )
        .into_response()
}
