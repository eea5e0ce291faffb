//! The one way an endpoint gets a run's data: its workspace from the cache, built on first use.

use super::error::AppError;

/// The run's workspace (its trace, its one analysis context and what is derived from it), from
/// the cache or built from its stored model on a blocking thread, once however many requests
/// ask at the same time.
pub(crate) async fn workspace(
    state: &crate::AppState,
    id: &str,
) -> Result<std::sync::Arc<crate::cache::RunWorkspace>, AppError> {
    // The cache may hold a run another instance has deleted since.
    if !crate::db::run_exists(&state.pool, id).await? {
        state.workspaces.remove(id);
        return Err(AppError::no_run(id));
    }
    state
        .workspaces
        .get_or_build(id, || async {
            let run = crate::db::get_run(&state.pool, id)
                .await?
                .ok_or_else(|| AppError::no_run(id))?;
            let events = run.summary.events;
            if events > state.max_analysed_events {
                let per_event = shared::formats::budget::ANALYSIS_BYTES_PER_EVENT;
                let gib = |bytes: u64| bytes as f64 / f64::from(1u32 << 30);
                return Err(AppError::TooLargeToAnalyse(format!(
                    "this run has {events} events: its analyses would take about {:.1} GiB, more \
                     than this server's memory budget of {:.1} GiB pays for ({per_event} bytes \
                     an event; `serve --max-memory-bytes` raises it). Its Gantt chart is drawn \
                     from its stored index.",
                    gib(events.saturating_mul(per_event)),
                    gib(state.max_analysed_events.saturating_mul(per_event)),
                )));
            }
            let model = crate::db::get_model(&state.pool, id)
                .await?
                .ok_or_else(|| AppError::no_run(id))?;
            let model = state
                .blobs
                .read_model(model)
                .await
                .map_err(|e| anyhow::anyhow!("the model of run {id} could not be read: {e}"))?;
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
