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

/// Runs with more events than this stay on the server: the page draws them from the server's
/// index and never loads their model (a million-event run's model takes about 1.7 s to prepare
/// in the browser; see the frame-time benchmark).
pub const LARGE_RUN_EVENTS: u64 = 2_000_000;

/// A run as the page holds it: the whole model, or its outline only.
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

/// Whether the page loads the run's model into the browser (after its first paint).
fn model_wanted(run: &RunInfo) -> bool {
    run.summary.events <= LARGE_RUN_EVENTS && !server_detail_asked()
}

/// Loads what a run page opens with, whatever the run's size: the run's facts and its outline
/// (nodes, processes, regions; no events), all the Gantt chart needs to draw the run from the
/// server's index. The model follows in the background ([`follow_with_the_model`]).
pub async fn load_outline(id: &str) -> Result<LoadedRun, String> {
    let RunDetail { run, trace } = api::get_run_outline(id).await?;
    Ok(LoadedRun {
        run: Arc::new(run),
        trace: Arc::new(trace),
        remote: true,
    })
}

/// Loads a run whole before it is shown (the comparison's two runs): its facts, then its model
/// in the binary format, or only its outline when it stays on the server.
pub async fn load_run(id: &str) -> Result<LoadedRun, String> {
    let info = api::get_run_info(id).await?;
    if !model_wanted(&info) {
        return load_outline(id).await;
    }
    let trace = api::get_model(id, |_, _| {}).await?;
    Ok(LoadedRun {
        run: Arc::new(info),
        trace: Arc::new(trace),
        remote: false,
    })
}

/// Where the run's model is, as the page loads it in the background.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelState {
    /// On its way: bytes received, and of how many when the server said.
    Loading(u64, Option<u64>),
    /// Arrived, and being decoded and prepared for the views.
    Preparing,
    /// In the browser: every view works on it.
    Ready,
    /// Kept on the server (too large for the browser, or `?detail=server`): the views draw
    /// from the server's answers.
    OnServer,
    /// Could not be loaded: the views stay drawn from the server's answers.
    Failed(String),
}

impl ModelState {
    /// The state's name in the workspace's `data-model` attribute, for tests and tools.
    fn name(&self) -> &'static str {
        match self {
            ModelState::Loading(..) | ModelState::Preparing => "loading",
            ModelState::Ready => "ready",
            ModelState::OnServer => "server",
            ModelState::Failed(_) => "failed",
        }
    }
}

/// How long the page waits for the chart's first whole frame before it loads the model anyway
/// (the chart may be hidden behind another view, or have nothing to draw).
const MODEL_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// Loads the run's model once the Gantt chart has painted its first whole frame from the
/// server's index (or after [`MODEL_WAIT`]), reporting progress in `state`; when it has arrived,
/// `shown` becomes the whole model, drawn in the browser, and the views that need it work.
fn follow_with_the_model(
    id: String,
    data: RunData,
    state: RwSignal<ModelState>,
    shown: RwSignal<(Arc<Trace>, bool)>,
) {
    if state.get_untracked() != ModelState::Loading(0, None) {
        return;
    }
    let started = StoredValue::new(false);
    let start = move || {
        // The page may be gone by the time the wait ends.
        if started.try_get_value() != Some(false) {
            return;
        }
        started.set_value(true);
        let id = id.clone();
        leptos::task::spawn_local(async move {
            let loaded = api::get_model(&id, move |received, total| {
                state.try_set(ModelState::Loading(received, total));
            })
            .await;
            let trace = match loaded {
                Ok(trace) => trace,
                Err(message) => {
                    state.try_set(ModelState::Failed(message));
                    return;
                }
            };
            state.try_set(ModelState::Preparing);
            // Let the page paint "Preparing" before the views rebuild on the model, which takes
            // the main thread for a while on a large run.
            set_timeout(
                move || {
                    // The causal areas the server answered for the selected event belong to
                    // the view drawn by the server: on the model, the Hasse view computes them
                    // when it is shown, as for a run that opened with its model.
                    data.areas.try_set(None);
                    if shown.try_set((Arc::new(trace), false)).is_none() {
                        state.try_set(ModelState::Ready);
                    }
                },
                std::time::Duration::from_millis(30),
            );
        });
    };
    let on_drawn = start.clone();
    Effect::new(move |_| {
        if data.drawn.get() {
            on_drawn();
        }
    });
    set_timeout(start, MODEL_WAIT);
}

/// The line that says where the model is while it loads, with a progress bar.
fn model_progress(state: RwSignal<ModelState>) -> impl IntoView {
    let mb = |bytes: u64| format!("{:.1} MB", bytes as f64 / 1e6);
    move || {
        let (text, value, max) = match state.get() {
            ModelState::Loading(received, total) => (
                format!(
                    "Loading the run into the page: {}{}",
                    mb(received),
                    total.map(|t| format!(" of {}", mb(t))).unwrap_or_default()
                ),
                Some(received as f64),
                total.map(|t| t as f64),
            ),
            ModelState::Preparing => (
                "Preparing the views on the whole run…".to_owned(),
                None,
                None,
            ),
            ModelState::Failed(message) => (
                format!(
                    "The run could not be loaded into the page ({message}): it stays drawn by the server."
                ),
                None,
                None,
            ),
            ModelState::Ready | ModelState::OnServer => return None,
        };
        Some(view! {
            <span class="readout busy model-progress" data-testid="model-progress" role="status">
                {(value.is_some() || max.is_some()).then(|| view! {
                    <progress aria-label="The run's model loading"
                        value=value.unwrap_or(0.0).to_string()
                        max=max.unwrap_or(1.0).max(value.unwrap_or(0.0)).to_string()></progress>
                })}
                " " {text}
            </span>
        })
    }
}

/// The run page.
#[component]
pub fn RunPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let run = LocalResource::new(move || {
        let id = id();
        async move { load_outline(&id).await }
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
            let loaded = load_outline(&state.run).await?;
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
    shown: RwSignal<(Arc<Trace>, bool)>,
    clocks: RwSignal<Option<Arc<ClockFix>>>,
) {
    Effect::new(move |_| {
        let trace = shown.with(|(trace, _)| Arc::clone(trace));
        if trace.events.is_empty() {
            // Only the outline is here: there are no events to keep.
            data.kept.set(None);
            return;
        }
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
                title=if remote { "The repair needs the run in the page (it is drawn by the server until it has loaded)" } else { "Show the Gantt chart on clocks repaired by the controlled logical clock: no message arrives before it was sent" }
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
    let model = RwSignal::new(if remote && model_wanted(&run) {
        ModelState::Loading(0, None)
    } else if remote {
        ModelState::OnServer
    } else {
        ModelState::Ready
    });
    // The run as the views draw it: its outline, drawn by the server, until the model arrives.
    let shown = RwSignal::new((trace.clone(), remote));
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
    keep_filtered_events(store, data, shown, clocks);
    follow_with_the_model(run.id.clone(), data, model, shown);
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
    let run_id = run.id.clone();
    // The workspace as a permalink would store it, for tests and tools to read back.
    let state_json =
        move || store.with(|ws| serde_json::to_string(&ws.to_view_state()).unwrap_or_default());
    view! {
        <div class="run-workspace" data-testid="workspace" data-state=state_json
            data-model=move || model.with(ModelState::name)>
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
                {move || {
                    let (trace, remote) = shown.get();
                    clock_toggle(store, trace, remote, clocks)
                }}
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
            // The progress stands over the tabs' empty right end, so the page does not move when
            // it goes.
            <div class="tabs-line">
                {view_tabs(store)}
                {model_progress(model)}
            </div>
            {move || {
                let (trace, remote) = shown.get();
                views(store, data, clocks, &run_id, trace, remote)
            }}
        </div>
    }
}

/// The replay bar, the filter bar and the views of the run as it is shown (its outline, drawn by
/// the server, or its model): built again when the model arrives, in the same workspace.
fn views(
    store: Store,
    data: RunData,
    clocks: RwSignal<Option<Arc<ClockFix>>>,
    id: &str,
    trace: Arc<Trace>,
    remote: bool,
) -> impl IntoView + use<> {
    let id = id.to_owned();
    view! {
        <ReplayBar trace=trace.clone() remote=remote/>
        <FilterBar trace=trace.clone()/>
        <NarrowingChips trace=trace.clone()/>
        <ViewHelp/>
        <div class="view-pane" data-testid="gantt-pane" style:display=move || shown(store, ViewKind::Gantt)>
            {
                let (recorded, id) = (trace.clone(), id.clone());
                move || {
                    let shown = clocks.get().map_or_else(|| recorded.clone(), |fix| fix.trace.clone());
                    view! { <GanttChart trace=shown run_id=Some(id.clone()) data=data remote=remote/> }
                }
            }
        </div>
        <div class="view-pane" data-testid="hasse-pane" style:display=move || shown(store, ViewKind::Hasse)>
            <HasseView trace=trace.clone() data=data run_id=Some(id.clone()) remote=remote/>
        </div>
        <div class="view-pane" data-testid="topology-pane" style:display=move || shown(store, ViewKind::Topology)>
            <TopologyView trace=trace.clone() data=data run_id=Some(id.clone()) remote=remote/>
        </div>
        <div class="view-pane" data-testid="analysis-pane" style:display=move || shown(store, ViewKind::Analysis)>
            <AnalysisView trace=trace data=data run_id=Some(id)/>
        </div>
    }
}
