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

/// `/v/{id}`: a permalink. Loads the stored view state, then its run, and opens the view.
#[component]
pub fn ViewPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let loaded = LocalResource::new(move || {
        let id = id();
        async move {
            let state = api::get_view(&id).await?;
            let detail = api::get_run(&state.run).await?;
            Ok::<_, String>((Arc::new(detail), state))
        }
    });
    view! {
        {move || match loaded.get() {
            None => view! { <p>"Loading the shared view…"</p> }.into_any(),
            Some(Err(message)) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Some(Ok((detail, state))) => {
                let window = state.window.map(|w| (w.start, w.end));
                view! { <RunView detail=detail initial_window=window/> }.into_any()
            }
        }}
    }
}

/// The run's facts, its Gantt chart, and a button that shares the view shown.
#[component]
pub fn RunView(
    detail: Arc<RunDetail>,
    #[prop(default = None)] initial_window: Option<(u64, u64)>,
) -> impl IntoView {
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
    let window = RwSignal::new(None::<(u64, u64)>);
    let share_link = RwSignal::new(None::<Result<String, String>>);
    let run_id = detail.run.id.clone();
    let share = move |_| {
        let mut state = shared::view::ViewState::new(run_id.clone());
        state.window = window
            .get_untracked()
            .filter(|(start, end)| start < end)
            .map(|(start, end)| shared::view::Window { start, end });
        leptos::task::spawn_local(async move {
            let link = api::create_view(&state).await.map(|created| {
                let origin = web_sys::window()
                    .and_then(|w| w.location().origin().ok())
                    .unwrap_or_default();
                format!("{origin}{}", created.path)
            });
            share_link.set(Some(link));
        });
    };
    view! {
        <h1 data-testid="run-name">{s.name.clone()}</h1>
        <p class="facts">{facts}</p>
        {(unmatched > 0).then(|| view! {
            <p class="warning">{format!("{unmatched} message events found no partner.")}</p>
        })}
        <div class="share">
            <button on:click=share data-testid="share" title="Store this view and show a link to it">
                "Share this view"
            </button>
            {move || match share_link.get() {
                None => view! { <span></span> }.into_any(),
                Some(Ok(link)) => view! {
                    <a data-testid="share-link" href=link.clone()>{link.clone()}</a>
                }.into_any(),
                Some(Err(message)) => view! { <span class="error" role="alert">{message}</span> }.into_any(),
            }}
        </div>
        <GanttChart trace=trace run_id=Some(detail.run.id.clone()) initial_window=initial_window window=window/>
    }
}
