//! `/runs/{id}`: one run's summary and its Gantt chart.

use std::sync::Arc;

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use shared::view::api::RunDetail;

use crate::api;
use crate::components::gantt::GanttChart;

/// Runs with more events than this are drawn by the server's viewport API instead of being
/// loaded into the browser (a million-event run opens in about 1.7 s in the browser; see the
/// frame-time benchmark).
pub const LARGE_RUN_EVENTS: u64 = 2_000_000;

/// A run as the page holds it: the whole model, or (for a large run) its outline only.
#[derive(Debug, Clone)]
pub struct LoadedRun {
    /// The run, with its model or its outline.
    pub detail: Arc<RunDetail>,
    /// Whether the model stays on the server (only the outline is here).
    pub remote: bool,
}

/// Whether the page's address asks for server-side drawing (`?detail=server`), whatever the
/// run's size.
fn server_detail_asked() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|q| q.split(['?', '&']).any(|kv| kv == "detail=server"))
}

/// Loads a run: its metadata first, then its model, or only its outline when it is large.
pub async fn load_run(id: &str) -> Result<LoadedRun, String> {
    let info = api::get_run_info(id).await?;
    let remote = info.summary.events > LARGE_RUN_EVENTS || server_detail_asked();
    let detail = if remote {
        api::get_run_outline(id).await?
    } else {
        api::get_run(id).await?
    };
    Ok(LoadedRun {
        detail: Arc::new(detail),
        remote,
    })
}

/// The run page.
#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let run = LocalResource::new(move || {
        let id = id();
        async move { load_run(&id).await }
    });
    view! {
        {move || match run.get() {
            None => view! { <p>"Loading the run…"</p> }.into_any(),
            Some(Err(message)) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Some(Ok(loaded)) => view! { <RunView detail=loaded.detail remote=loaded.remote/> }.into_any(),
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
            let loaded = load_run(&state.run).await?;
            Ok::<_, String>((loaded, state))
        }
    });
    view! {
        {move || match loaded.get() {
            None => view! { <p>"Loading the shared view…"</p> }.into_any(),
            Some(Err(message)) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Some(Ok((loaded, state))) => {
                let window = state.window.map(|w| (w.start, w.end));
                view! { <RunView detail=loaded.detail remote=loaded.remote initial_window=window/> }.into_any()
            }
        }}
    }
}

/// The run's facts, its Gantt chart, and a button that shares the view shown.
#[component]
pub fn RunView(
    detail: Arc<RunDetail>,
    #[prop(default = false)] remote: bool,
    #[prop(default = None)] initial_window: Option<(u64, u64)>,
) -> impl IntoView {
    let remote_bounds = remote.then_some((
        detail.run.summary.time.start.0,
        detail.run.summary.time.end.0,
    ));
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
        let mut state = shared::view::state::ViewState::new(run_id.clone());
        state.window = window
            .get_untracked()
            .filter(|(start, end)| start < end)
            .map(|(start, end)| shared::view::state::Window { start, end });
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
        <GanttChart
            trace=trace
            run_id=Some(detail.run.id.clone())
            initial_window=initial_window
            window=window
            remote_bounds=remote_bounds
        />
    }
}
