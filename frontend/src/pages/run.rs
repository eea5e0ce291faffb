//! `/runs/{id}`: one run's summary and its views: the Gantt chart, the Hasse diagram and the
//! topology.

use std::sync::Arc;

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use shared::Trace;
use shared::view::api::{RunDetail, RunInfo};
use shared::view::state::{ViewKind, ViewState};

use crate::api;
use crate::components::analysis::AnalysisView;
use crate::components::chips::NarrowingChips;
use crate::components::filter_bar::FilterBar;
use crate::components::gantt::GanttChart;
use crate::components::hasse::HasseView;
use crate::components::replay::ReplayBar;
use crate::components::topology::TopologyView;
use crate::components::view_help::ViewHelp;
use crate::workspace::data::RunData;
use crate::workspace::store::Store;
use crate::workspace::{Command, Workspace};

/// Runs with more events than this are drawn by the server's viewport API instead of being
/// loaded into the browser (a million-event run opens in about 1.7 s in the browser; see the
/// frame-time benchmark).
pub const LARGE_RUN_EVENTS: u64 = 2_000_000;

/// A run as the page holds it: the whole model, or (for a large run) its outline only.
#[derive(Debug, Clone)]
pub struct LoadedRun {
    /// The run's stored facts.
    pub run: Arc<RunInfo>,
    /// The run's model (its outline only, when `remote`).
    pub trace: Arc<Trace>,
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
    let RunDetail { run, trace } = if remote {
        api::get_run_outline(id).await?
    } else {
        api::get_run(id).await?
    };
    Ok(LoadedRun {
        run: Arc::new(run),
        trace: Arc::new(trace),
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
            Some(Ok(loaded)) => view! { <RunView loaded=loaded/> }.into_any(),
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
                view! { <RunView loaded=loaded state=Some(state)/> }.into_any()
            }
        }}
    }
}

/// Keeps `data.kept` the events the workspace's event filter keeps, for every view — and, while
/// the repaired clocks are shown, only the events the repair moved (the others drawn faint).
fn keep_filtered_events(
    store: Store,
    data: RunData,
    trace: Arc<Trace>,
    clocks: RwSignal<Option<Arc<ClockFix>>>,
) {
    Effect::new(move |_| {
        let filter = store.with(|ws| ws.event_filter.clone());
        let moved = clocks.get().map(|fix| fix.moved.clone());
        let filtered = filter
            .and_then(|text| shared::analyses::patterns::Filter::parse(&text, &trace).ok())
            .map(|f| {
                (0..trace.events.len())
                    .map(|i| f.matches(&trace, shared::model::EventIdx(i as u32)))
                    .collect::<Vec<bool>>()
            });
        let kept = match (filtered, moved) {
            (Some(f), Some(m)) => Some(Arc::new(
                f.iter().zip(m.iter()).map(|(a, b)| *a && *b).collect(),
            )),
            (Some(f), None) => Some(Arc::new(f)),
            (None, m) => m,
        };
        data.kept.set(kept);
    });
}

/// The run on clocks repaired by the controlled logical clock (analysis.md, clock repair).
#[derive(Debug)]
pub struct ClockFix {
    /// The run with the repaired times.
    pub trace: Arc<Trace>,
    /// Which events the repair moved, by index.
    pub moved: Arc<Vec<bool>>,
    /// How many it moved.
    pub moves: usize,
    /// The largest shift, in ticks.
    pub max_shift: f64,
}

/// Repairs the run's clocks in the browser: `None` when no message arrives before it was sent
/// (nothing to repair) or the repair would reorder a process.
fn repair_clocks(trace: &Trace) -> Option<ClockFix> {
    use shared::analyses::clocks::{ClcOptions, controlled_logical_clock, repaired_trace};
    let pairing = shared::graph::pairing::pair_messages(trace);
    let repair = controlled_logical_clock(trace, &pairing, ClcOptions::default());
    let fixed = repaired_trace(trace, &repair)?;
    let mut moved = vec![false; trace.events.len()];
    for m in &repair.moves {
        if let Some(slot) = moved.get_mut(m.event.index()) {
            *slot = true;
        }
    }
    Some(ClockFix {
        trace: Arc::new(fixed),
        moved: Arc::new(moved),
        moves: repair.moves.len(),
        max_shift: repair.max_shift,
    })
}

/// A toggle between the recorded clocks and the repaired ones for the Gantt chart; the repair
/// is computed on first use.
fn clock_toggle(
    store: Store,
    trace: Arc<Trace>,
    remote: bool,
    clocks: RwSignal<Option<Arc<ClockFix>>>,
) -> impl IntoView {
    // None: not tried yet; Some(None): nothing to repair.
    let tried = StoredValue::new(None::<Option<Arc<ClockFix>>>);
    let message = RwSignal::new(None::<String>);
    let toggle = move |_| {
        if clocks.get_untracked().is_some() {
            clocks.set(None);
            message.set(None);
            return;
        }
        if tried.get_value().is_none() {
            tried.set_value(Some(repair_clocks(&trace).map(Arc::new)));
        }
        match tried.get_value().flatten() {
            Some(fix) => {
                // Show the whole repaired run: repairs only ever move events later.
                if let Some((start, end)) = fix.trace.time_bounds() {
                    store.dispatch(Command::SetWindow(start.0, end.0.saturating_add(1)));
                }
                message.set(Some(format!(
                    "{} events moved (up to {:.0} ticks): only they keep their icons in the chart.",
                    fix.moves, fix.max_shift
                )));
                clocks.set(Some(fix));
            }
            None => message.set(Some(
                "Nothing to repair: every message arrives after it was sent.".to_owned(),
            )),
        }
    };
    view! {
        <span class="clock-toggle">
            <button data-testid="toggle-repaired-clocks" disabled=remote
                aria-pressed=move || clocks.with(Option::is_some).to_string()
                title=if remote { "The repair needs the run in the browser (this run is drawn by the server)" } else { "Show the Gantt chart on clocks repaired by the controlled logical clock: no message arrives before it was sent" }
                on:click=toggle>"Repaired clocks"</button>
            {move || message.get().map(|m| view! { <span class="readout" data-testid="repaired-clocks-note">{m}</span> })}
        </span>
    }
}

/// `display` for a view's pane: shown when it is the workspace's view. Both stay mounted, so a
/// view keeps what it built while the other is shown.
fn shown(store: Store, kind: ViewKind) -> &'static str {
    if store.with(|ws| ws.view == kind) {
        "block"
    } else {
        "none"
    }
}

/// The tabs that switch the workspace's view.
fn view_tabs(store: Store) -> impl IntoView {
    let tab = move |kind: ViewKind, label: &'static str, id: &'static str| {
        view! {
            <button
                role="tab"
                class="view-tab"
                data-testid=id
                aria-selected=move || store.with(|ws| ws.view == kind).to_string()
                on:click=move |_| store.dispatch(Command::ShowView(kind))
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="view-tabs" role="tablist" aria-label="Views of this run">
            {tab(ViewKind::Gantt, "Gantt chart", "tab-gantt")}
            {tab(ViewKind::Hasse, "Happened-before (Hasse)", "tab-hasse")}
            {tab(ViewKind::Topology, "Topology and load", "tab-topology")}
            {tab(ViewKind::Analysis, "Analysis", "tab-analysis")}
            {crate::components::view_help::help_button(store)}
        </div>
    }
}

/// Links that download the run in the formats it can be written in.
fn downloads(id: &str) -> impl IntoView + use<> {
    let link = |format: &'static str, label: &'static str, title: &'static str| {
        let href = api::export_url(id, format);
        view! {
            <a href=href download="" title=title data-testid=format!("export-{format}")>{label}</a>
        }
    };
    view! {
        <span class="downloads">
            "Download as "
            {link("chrome-json", "Chrome JSON", "Opens in Perfetto and chrome://tracing, with message arrows")}
            " · "
            {link("native", "Tracescope JSON", "Tracescope's own JSON format")}
            " · "
            {link("binary", "binary", "Tracescope's compact binary format")}
        </span>
    }
}

/// A list of the other stored runs: picking one opens the comparison of this run (before) with
/// it (after).
fn compare_picker(id: String) -> impl IntoView {
    let runs = LocalResource::new(|| api::list_runs(String::new()));
    let this = id.clone();
    let navigate = leptos_router::hooks::use_navigate();
    let go = move |ev| {
        let other = event_target_value(&ev);
        if other.is_empty() {
            return;
        }
        navigate(&format!("/compare/{this}/{other}"), Default::default());
    };
    view! {
        <select class="compare-picker" data-testid="compare-with" aria-label="Compare with another run" on:change=go>
            <option value="">"Compare with…"</option>
            {move || runs.get().and_then(Result::ok).map(|list| {
                list.runs
                    .into_iter()
                    .filter(|r| r.id != id)
                    .map(|r| view! { <option value=r.id.clone()>{r.summary.name.clone()}</option> })
                    .collect_view()
            })}
        </select>
    }
}

/// The run's facts, its workspace (shown as the Gantt chart), and a button that shares the
/// whole workspace. With `state` (a permalink's), the workspace opens as it was shared.
#[component]
pub fn RunView(
    loaded: LoadedRun,
    #[prop(default = None)] state: Option<ViewState>,
) -> impl IntoView {
    let LoadedRun { run, trace, remote } = loaded;
    let s = &run.summary;
    let bounds = (s.time.start.0, s.time.end.0);
    let n_processes = u32::try_from(trace.processes.len()).unwrap_or(u32::MAX);
    // The address's view (a reload, Back) wins over a permalink's stored one: it is newer.
    let state = crate::workspace::address::view_in_address(&run.id).or(state);
    let workspace = match &state {
        Some(state) => Workspace::from_view_state(state, bounds, n_processes),
        None => {
            let mut ws = Workspace::new(run.id.clone(), bounds, n_processes);
            let groups = crate::components::gantt::rows::groups_of(&trace);
            ws.collapsed =
                crate::components::gantt::rows::folded_by_default(trace.processes.len(), &groups);
            ws
        }
    };
    let store = Store::provide(workspace);
    crate::workspace::address::keep_address(store);
    let data = RunData::new(Some(run.id.clone()));
    let clocks = RwSignal::new(None::<Arc<ClockFix>>);
    keep_filtered_events(store, data, trace.clone(), clocks);
    let count = |n: u64, one: &str, many: &str| crate::words::count(n as usize, one, many);
    let facts = format!(
        "{} · {} · {} · {} · {} · {}",
        s.format.name(),
        count(s.nodes, "node", "nodes"),
        count(s.processes, "process", "processes"),
        count(s.events, "event", "events"),
        count(s.messages, "message", "messages"),
        s.time.duration_text
    );
    let unmatched = s.unmatched_sends + s.unmatched_arrivals;
    // The stored link, and whether it reached the clipboard (or why not).
    let share_link = RwSignal::new(None::<Result<(String, Result<(), String>), String>>);
    let share = move |_| {
        let state = store.with_untracked(Workspace::to_view_state);
        leptos::task::spawn_local(async move {
            let link = api::create_view(&state).await.map(|created| {
                let origin = web_sys::window()
                    .and_then(|w| w.location().origin().ok())
                    .unwrap_or_default();
                format!("{origin}{}", created.path)
            });
            let shared = match link {
                Ok(link) => {
                    let copied = crate::workspace::address::copy_to_clipboard(&link).await;
                    Ok((link, copied))
                }
                Err(e) => Err(e),
            };
            share_link.set(Some(shared));
        });
    };
    // The workspace as a permalink would store it, for tests and tools to read back.
    let state_json =
        move || store.with(|ws| serde_json::to_string(&ws.to_view_state()).unwrap_or_default());
    view! {
        <div class="run-workspace" data-testid="workspace" data-state=state_json>
            <h1 data-testid="run-name">{s.name.clone()}</h1>
            <p class="facts">{facts}</p>
            {(unmatched > 0).then(|| view! {
                <p class="warning">{format!("{unmatched} message events found no partner.")}</p>
            })}
            {(!run.notes.is_empty()).then(|| {
                let n = run.notes.len();
                view! {
                    <details class="import-notes" data-testid="import-notes">
                        <summary>{format!("What the importer noted ({n})")}</summary>
                        <ul>{run.notes.iter().map(|note| view! { <li>{note.clone()}</li> }).collect_view()}</ul>
                    </details>
                }
            })}
            <div class="share">
                <button on:click=share data-testid="share" title="Store this view and copy a link to it">
                    "Share this view"
                </button>
                {downloads(&run.id)}
                {compare_picker(run.id.clone())}
                {clock_toggle(store, trace.clone(), remote, clocks)}
            </div>
            <p class="share-result" role="status" data-testid="share-status">
                {move || match share_link.get() {
                    None => view! { <span></span> }.into_any(),
                    Some(Ok((link, copied))) => view! {
                        <span>{match copied {
                            Ok(()) => "Link copied to the clipboard: ".to_owned(),
                            Err(why) => format!("Copy this link ({why}): "),
                        }}</span>
                        <a data-testid="share-link" href=link.clone()>{link.clone()}</a>
                    }.into_any(),
                    Some(Err(message)) => view! { <span class="error" role="alert">{message}</span> }.into_any(),
                }}
            </p>
            {view_tabs(store)}
            <ReplayBar trace=trace.clone() remote=remote/>
            <FilterBar trace=trace.clone()/>
            <NarrowingChips trace=trace.clone()/>
            <ViewHelp/>
            <div class="view-pane" data-testid="gantt-pane" style:display=move || shown(store, ViewKind::Gantt)>
                {
                    let (recorded, id) = (trace.clone(), run.id.clone());
                    move || {
                        let shown = clocks.get().map_or_else(|| recorded.clone(), |fix| fix.trace.clone());
                        view! { <GanttChart trace=shown run_id=Some(id.clone()) data=data remote=remote/> }
                    }
                }
            </div>
            <div class="view-pane" data-testid="hasse-pane" style:display=move || shown(store, ViewKind::Hasse)>
                <HasseView trace=trace.clone() data=data run_id=Some(run.id.clone()) remote=remote/>
            </div>
            <div class="view-pane" data-testid="topology-pane" style:display=move || shown(store, ViewKind::Topology)>
                <TopologyView trace=trace.clone() data=data run_id=Some(run.id.clone()) remote=remote/>
            </div>
            <div class="view-pane" data-testid="analysis-pane" style:display=move || shown(store, ViewKind::Analysis)>
                <AnalysisView trace=trace data=data run_id=Some(run.id.clone())/>
            </div>
        </div>
    }
}
