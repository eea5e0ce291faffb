//! `GET /api/runs/{id}/analysis`: the run's analysis report, the same object as `tracescope
//! analyze --json` (summary, metrics, critical path and WCPA with the phase table, NPT ranking,
//! wait states, critical-path profile, clock violations). The default report is computed once
//! and kept in `run_analyses`; `?min_latency=` or `?what_if=` compute a fresh one.
//!
//! `GET /api/runs/{id}/analysis/{part}?start=&end=&processes=&limit=` answers one part of the
//! analysis restricted to a time window and a set of processes (`0,2-5`), as
//! `shared::view::selection` defines it: `summary`, `critical-path`, `wcpa` (with its phase table),
//! `npt`, `statistics`, `matrix`, `wait-states`, `diagnostics`. Lists hold at most `limit`
//! items (default 1,000) and say how many there are. `diagnostics` also counts them by kind and
//! severity and pages through all of them with `offset=`, `kind=` and `severity=` (the report
//! itself keeps only the first few of each kind). The run's trace and whole-run analyses
//! are built on first use, from the run's workspace (`crate::cache::RunWorkspace`).

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;

use super::error::{ApiQuery, AppError};
use super::runs::IMMUTABLE;
use shared::analyses::metrics::AnalysisOptions;
use shared::analyses::validate::ValidationOptions;

use crate::{AppState, db, ingest};

/// The routes under `/api/runs/{id}/analysis`.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/runs/{id}/analysis", get(analysis))
        .route("/runs/{id}/analysis/{part}", get(part))
        .route("/compare/{a}/{b}", get(compare))
}

/// Two runs compared: their reports' metrics, processes, critical paths and NPT rankings side
/// by side (`shared::view::compare`).
async fn compare(
    State(state): State<AppState>,
    Path((a, b)): Path<(String, String)>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&a)?;
    super::error::check_run_id(&b)?;
    let first = super::workspace::workspace(&state, &a).await?;
    let second = super::workspace::workspace(&state, &b).await?;
    let json = tokio::task::spawn_blocking(move || -> Result<String, AppError> {
        let comparison =
            shared::view::compare::compare(first.prepared().report(), second.prepared().report());
        Ok(serde_json::to_string(&comparison).map_err(anyhow::Error::from)?)
    })
    .await
    .map_err(|e| anyhow::anyhow!("the comparison task failed: {e}"))??;
    Ok(json_response(json))
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
    super::error::check_run_id(&id)?;
    let default = params.min_latency.is_none() && params.what_if.is_none();
    if default && let Some(json) = db::get_analysis_json(&state.pool, &id).await? {
        return Ok(json_response(json));
    }
    let workspace = super::workspace::workspace(&state, &id).await?;
    let json = tokio::task::spawn_blocking(move || -> Result<String, AppError> {
        let prepared = workspace.prepared();
        let report = if default {
            prepared.report().clone()
        } else {
            prepared.report_with(AnalysisOptions {
                validation: ValidationOptions {
                    min_latency: params.min_latency.unwrap_or(0),
                },
                ..AnalysisOptions::default()
            })
        };
        let report = match &params.what_if {
            Some(scenario) => shared::report::with_what_if(report, &prepared.cx, scenario)
                .map_err(|e| AppError::BadRequest(e.to_string()))?,
            None => report,
        };
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

/// The parts answered for a selection.
const PARTS: [&str; 9] = [
    "summary",
    "critical-path",
    "wcpa",
    "npt",
    "statistics",
    "histograms",
    "matrix",
    "wait-states",
    "diagnostics",
];

/// The default and the largest number of list items in a part.
const DEFAULT_LIMIT: usize = 1_000;
const MAX_LIMIT: usize = 100_000;

/// Query parameters of a part: the selection and a list limit.
#[derive(Deserialize, Default)]
struct PartParams {
    /// The window's first tick (default: the first event).
    start: Option<u64>,
    /// The tick after the window (default: just after the last event).
    end: Option<u64>,
    /// Process numbers and ranges, e.g. `0,2-5` (default: all).
    processes: Option<String>,
    /// The most list items answered.
    limit: Option<usize>,
    /// An event filter (`kind=send process=A`): narrows the lists of events.
    filter: Option<String>,
    /// The position of a list's first item among all (`diagnostics` pages with it).
    offset: Option<usize>,
    /// Only diagnostics of this kind (`unmatched_send`, …).
    kind: Option<String>,
    /// Only diagnostics of this severity (`error`, `warning`, `note`).
    severity: Option<String>,
}

async fn part(
    State(state): State<AppState>,
    Path((id, part)): Path<(String, String)>,
    ApiQuery(params): ApiQuery<PartParams>,
) -> Result<Response, AppError> {
    super::error::check_run_id(&id)?;
    if !PARTS.contains(&part.as_str()) {
        return Err(AppError::NotFound(format!(
            "there is no analysis part {part:?}; the parts are {}",
            PARTS.join(", ")
        )));
    }
    use shared::analyses::validate::{DiagnosticKind, Severity};
    let kind = match params.kind.as_deref() {
        None | Some("") => None,
        Some(name) => Some(DiagnosticKind::from_name(name).ok_or_else(|| {
            AppError::BadRequest(format!(
                "there is no diagnostic kind {name:?}; the kinds are {}",
                DiagnosticKind::ALL.map(DiagnosticKind::name).join(", ")
            ))
        })?),
    };
    let severity = match params.severity.as_deref() {
        None | Some("") => None,
        Some(name) => Some(Severity::from_name(name).ok_or_else(|| {
            AppError::BadRequest(format!(
                "there is no severity {name:?}; the severities are error, warning, note"
            ))
        })?),
    };
    let workspace = super::workspace::workspace(&state, &id).await?;
    let json = tokio::task::spawn_blocking(move || -> Result<String, AppError> {
        workspace.with_dependent(|trace, prepared| {
            let selection = shared::view::selection::Selection::new(
                trace,
                params.start,
                params.end,
                params.processes.as_deref(),
            )
            .and_then(|s| s.with_filter(trace, params.filter.as_deref()))
            .map_err(|e| AppError::BadRequest(e.to_string()))?;
            let limit = params.limit.unwrap_or(DEFAULT_LIMIT).min(MAX_LIMIT);
            let cx = &prepared.cx;
            let analysis = &prepared.report().analysis;
            use shared::view::selection as s;
            let json = match part.as_str() {
                "summary" => serde_json::to_string(&s::summary(cx, &selection)),
                "critical-path" => serde_json::to_string(&s::path_in(
                    cx,
                    &analysis.critical_path.segments,
                    &selection,
                    limit,
                )),
                "wcpa" => serde_json::to_string(&s::path_in(
                    cx,
                    &analysis.wcpa.segments,
                    &selection,
                    limit,
                )),
                "npt" => serde_json::to_string(&s::npt(cx, &selection)),
                "statistics" => serde_json::to_string(&s::statistics(cx, &selection)),
                "histograms" => serde_json::to_string(&s::histograms(cx, &selection)),
                "matrix" => serde_json::to_string(&s::matrix(cx, &selection)),
                "wait-states" => {
                    serde_json::to_string(&s::waits_in(cx, prepared.waits(), &selection, limit))
                }
                _ => serde_json::to_string(&s::diagnostics_in(
                    trace,
                    prepared.diagnostics(),
                    &selection,
                    s::DiagnosticsPage {
                        offset: params.offset.unwrap_or(0),
                        limit,
                        kind,
                        severity,
                    },
                )),
            };
            Ok(json.map_err(anyhow::Error::from)?)
        })
    })
    .await
    .map_err(|e| anyhow::anyhow!("the selection task failed: {e}"))??;
    Ok(json_response(json))
}
