//! The one way an endpoint gets a run's data: its workspace from the cache, built on first use.

use super::error::AppError;

/// The run's workspace (its trace, its one analysis context and what is derived from it), from
/// the cache or built from its stored model on a blocking thread, once however many requests
/// ask at the same time.
pub(crate) async fn workspace(
    state: &crate::AppState,
    id: &str,
) -> Result<std::sync::Arc<crate::cache::RunWorkspace>, AppError> {
    state
        .workspaces
        .get_or_build(id, || async {
            let run = crate::db::get_run(&state.pool, id)
                .await?
                .ok_or_else(|| AppError::no_run(id))?;
            let events = run.summary.events;
            if events > state.max_analysed_events {
                return Err(AppError::TooLargeToAnalyse(format!(
                    "run {id} has {events} events, more than the {} whose analyses this server's \
                     memory budget pays for ({} bytes an event; `serve --max-memory-bytes` \
                     raises it); its Gantt chart is drawn from its stored index",
                    state.max_analysed_events,
                    shared::formats::budget::ANALYSIS_BYTES_PER_EVENT
                )));
            }
            let model = crate::db::get_model(&state.pool, id)
                .await?
                .ok_or_else(|| AppError::no_run(id))?;
            let owned_id = id.to_owned();
            tokio::task::spawn_blocking(move || {
                let trace = crate::ingest::decode_model(&model, &owned_id)?;
                Ok(crate::cache::RunWorkspace::load(
                    trace,
                    run.summary.name,
                    run.summary.format,
                ))
            })
            .await
            .map_err(|e| anyhow::anyhow!("building the run's workspace failed: {e}"))?
        })
        .await
}
