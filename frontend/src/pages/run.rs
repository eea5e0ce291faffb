//! `/runs/{id}`: one run's summary and its Gantt chart.

use std::sync::Arc;

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use shared::api::RunDetail;

use crate::api;
use crate::components::gantt::GanttChart;

/// The run page.
#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let run = LocalResource::new(move || {
        let id = id();
        async move { api::get_run(&id).await.map(Arc::new) }
    });
    view! {
        {move || match run.get() {
            None => view! { <p>"Loading the run…"</p> }.into_any(),
            Some(Err(message)) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Some(Ok(detail)) => view! { <RunView detail=detail/> }.into_any(),
        }}
    }
}

#[component]
fn RunView(detail: Arc<RunDetail>) -> impl IntoView {
    let s = &detail.run.summary;
    let facts = format!(
        "{} · {} nodes · {} processes · {} events · {} messages · {}",
        s.format.name(),
        s.nodes,
        s.processes,
        s.events,
        s.messages,
        s.time.duration_text
    );
    let unmatched = s.unmatched_sends + s.unmatched_arrivals;
    let trace = Arc::new(detail.trace.clone());
    view! {
        <h1 data-testid="run-name">{s.name.clone()}</h1>
        <p class="facts">{facts}</p>
        {(unmatched > 0).then(|| view! {
            <p class="warning">{format!("{unmatched} message events found no partner.")}</p>
        })}
        <GanttChart trace=trace/>
    }
}
