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
            // The model and its analyses reserve what they take of the server's memory
            // before they are read, and keep it while the workspace is cached or in use.
            let reservation = state
                .memory
                .reserve(
                    events.saturating_mul(shared::formats::budget::ANALYSIS_BYTES_PER_EVENT),
                    || {
                        state.workspaces.evict_idle();
                    },
                )
                .await
                .map_err(|full| AppError::busy(&full, "reading this run and its analyses"))?;
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
                let workspace =
                    crate::cache::RunWorkspace::load(trace, run.summary.name, run.summary.format);
                workspace.charge("model", reservation);
                Ok(workspace)
            })
            .await
            .map_err(|e| anyhow::anyhow!("building the run's workspace failed: {e}"))?
        })
        .await
}

/// This machine's available memory in bytes (Linux: `MemAvailable` in `/proc/meminfo`).
pub(crate) fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses (413, with a sentence) to build the run's Hasse diagram when it would take more
/// than what the memory budget leaves after the run's analyses, or more than the machine has
/// available: its vector clocks cost about 4 bytes × processes², which a trace of few events
/// and many processes makes gigabytes. Checked before anything is allocated; nothing to check
/// once the diagram is built.
pub(crate) async fn check_hasse(
    state: &crate::AppState,
    workspace: &std::sync::Arc<crate::cache::RunWorkspace>,
) -> Result<(), AppError> {
    let owned = std::sync::Arc::clone(workspace);
    let cost = tokio::task::spawn_blocking(move || owned.prepared().hasse_cost())
        .await
        .map_err(|e| anyhow::anyhow!("the Hasse cost task failed: {e}"))?;
    let Some(cost) = cost else {
        return Ok(());
    };
    let trace = workspace.trace();
    let events = trace.events.len() as u64;
    let analyses = events.saturating_mul(shared::formats::budget::ANALYSIS_BYTES_PER_EVENT);
    let budget = state.max_memory_bytes.saturating_sub(analyses);
    let available = available_memory();
    let gib = |bytes: u64| bytes as f64 / f64::from(1u32 << 30);
    let what = format!(
        "the Hasse diagram of this run ({} processes, {events} events) would take about {:.2} GiB \
         to build (its vector clocks take 4 bytes × processes² and more)",
        trace.processes.len(),
        gib(cost)
    );
    if cost > budget {
        return Err(AppError::TooLargeToAnalyse(format!(
            "{what}, more than this server's memory budget leaves after the run's analyses \
             ({:.2} GiB of {:.2} GiB; `serve --max-memory-bytes` raises it). The Gantt chart and \
             the analyses are not affected.",
            gib(budget),
            gib(state.max_memory_bytes)
        )));
    }
    if let Some(available) = available.filter(|&a| cost > a) {
        return Err(AppError::TooLargeToAnalyse(format!(
            "{what}, more than this machine has available now ({:.2} GiB). The Gantt chart and \
             the analyses are not affected.",
            gib(available)
        )));
    }
    // The diagram reserves what it takes of the server's memory before it is built, and
    // keeps it with the workspace that holds it.
    if !workspace.is_charged("hasse") {
        let reservation = state
            .memory
            .reserve(cost, || {
                state.workspaces.evict_idle();
            })
            .await
            .map_err(|full| AppError::busy(&full, "this run's Hasse diagram"))?;
        workspace.charge("hasse", reservation);
    }
    Ok(())
}
