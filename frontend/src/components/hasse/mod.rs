//! The Hasse (happened-before) view: the run's events as vertices on their process's row, the
//! covering relation of happened-before as edges, on an x axis of longest-path layers, Lamport
//! time or physical time (a causality history diagram, where an edge back in time is a clock
//! violation, drawn in the fault colour).
//!
//! It shares the run's workspace with the Gantt chart: the time window (zooming here zooms
//! there), the rows, and the selection — clicking a vertex selects its event in both views, and
//! the selected event's causal past and future are ringed. Dependence queries (SIMPLE's
//! language, `shared::analyses::dependence`) mark their instances.

pub mod layout;

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;
use shared::analyses::causality::{Causality, HasseKind};
use shared::analyses::{dependence, motifs};
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::model::EventIdx;
use shared::view::hasse::{Axis, CausalAreas, Collapse, Diagram, HasseWindow, WindowQuery};
use shared::view::state::{Selection, ViewKind};

use self::layout::{Frame, Geometry, Layout};
use crate::api;
use crate::components::gantt::{canvas, details, paint};
use crate::workspace::Command;
use crate::workspace::data::{CausalSpans, RunData};
use crate::workspace::store::Store;

/// What the canvas publishes for tests and tools.
#[derive(Debug, Clone, Default, PartialEq)]
struct Probe {
    hits: String,
    /// Marks the event filter keeps.
    kept: usize,
    pre: u64,
    post: u64,
    backwards: usize,
}

/// The causality of a run, built once when the view is first shown.
struct Built {
    causality: Causality,
    diagram: Diagram,
    /// Each event's message partner (its send's arrival, its arrival's send).
    partner: Vec<Option<u32>>,
    /// The runs kept expanded when the diagram was made.
    expanded: Vec<EventIdx>,
}

/// What the view keeps between frames.
#[derive(Clone, Copy)]
struct View {
    store: Store,
    trace: StoredValue<Arc<Trace>>,
    built: RwSignal<Option<Arc<Built>>>,
    expanded: RwSignal<Vec<EventIdx>>,
    marked: RwSignal<Vec<(EventIdx, bool)>>,
    canvas: NodeRef<leptos::html::Canvas>,
    layout: StoredValue<Layout>,
    label: RwSignal<String>,
    stats: RwSignal<String>,
    /// What tests read off the canvas: the first marks as `[event, x, y]`, the pre- and
    /// post-area counts and the edges back in time.
    probe: RwSignal<Probe>,
    resized: RwSignal<u32>,
    /// The window last drawn.
    shown: StoredValue<Arc<HasseWindow>>,
    /// The last window computed in the browser, with what it was computed for.
    cached: StoredValue<Option<(WindowKey, Arc<HasseWindow>)>>,
    /// Which events the workspace's event filter keeps.
    kept: RwSignal<Option<Arc<Vec<bool>>>>,
    /// The selected event's causal past and future.
    areas: RwSignal<Option<Arc<CausalAreas>>>,
    /// For a run drawn by the server: its id, and its last answer.
    remote: Option<Remote>,
}

/// What a window was computed for: the diagram (by address), the time window, the rows, the
/// axis and the plot's width.
#[derive(Debug, Clone, PartialEq)]
struct WindowKey {
    diagram: usize,
    window: (u64, u64),
    rows: Vec<u32>,
    axis: Axis,
    width: u64,
}

/// A run whose diagram the server draws.
#[derive(Clone, Copy)]
struct Remote {
    run: StoredValue<String>,
    answer: RwSignal<Option<(WindowQuery, Arc<HasseWindow>)>>,
    asked: StoredValue<Option<WindowQuery>>,
}

/// The Hasse view of a run held in the browser (`remote`: only its outline is here).
#[component]
pub fn HasseView(
    trace: Arc<Trace>,
    data: RunData,
    #[prop(default = None)] run_id: Option<String>,
    #[prop(default = false)] remote: bool,
) -> impl IntoView {
    let store = Store::expect();
    let remote = match (remote, run_id) {
        (true, Some(run)) => Some(Remote {
            run: StoredValue::new(run),
            answer: RwSignal::new(None),
            asked: StoredValue::new(None),
        }),
        _ => None,
    };
    let view = View {
        store,
        trace: StoredValue::new(trace),
        built: RwSignal::new(None),
        expanded: RwSignal::new(Vec::new()),
        marked: RwSignal::new(Vec::new()),
        canvas: NodeRef::new(),
        layout: StoredValue::new(Layout::default()),
        label: RwSignal::new(String::new()),
        stats: RwSignal::new(String::new()),
        probe: RwSignal::new(Probe {
            hits: "[]".to_owned(),
            ..Probe::default()
        }),
        resized: RwSignal::new(0),
        shown: StoredValue::new(Arc::new(HasseWindow {
            marks: Vec::new(),
            edges: Vec::new(),
            extent: (0, 1),
            vertices: 0,
            edges_over_budget: 0,
        })),
        remote,
        kept: data.kept,
        areas: RwSignal::new(None),
        cached: StoredValue::new(None),
    };
    build_when_shown(view);
    publish_areas(view, data);
    schedule_paints(view);
    canvas::count_resizes(view.resized);
    view! {
        <div class="hasse" data-testid="hasse">
            {toolbar(view)}
            <canvas
                node_ref=view.canvas
                class="hasse-canvas"
                data-testid="hasse-canvas"
                title=move || view.label.get()
                data-hits=move || view.probe.with(|p| p.hits.clone())
                data-pre=move || view.probe.with(|p| p.pre.to_string())
                data-post=move || view.probe.with(|p| p.post.to_string())
                data-backwards=move || view.probe.with(|p| p.backwards.to_string())
                data-kept=move || view.probe.with(|p| p.kept.to_string())
                on:click=move |ev| on_click(view, &ev)
                on:pointermove=move |ev| on_hover(view, &ev)
                on:wheel=move |ev| on_wheel(view, &ev)
            ></canvas>
            {remote.is_none().then(|| details_panel(view, data))}
            {remote.is_none().then(|| query_panel(view))}
            {remote.is_none().then(|| motif_panel(view))}
            {remote.is_some().then(|| view! {
                <p class="hasse-legend" data-testid="hasse-remote">
                    "This run is drawn by the server: the causal past and future, queries and motifs need the run in the browser."
                </p>
            })}
        </div>
    }
}

/// Builds the causality the first time the view is shown, and the diagram again whenever a
/// run is expanded.
fn build_when_shown(view: View) {
    Effect::new(move |_| {
        let shown = view.store.with(|ws| ws.view == ViewKind::Hasse);
        let expanded = view.expanded.get();
        if !shown || view.remote.is_some() {
            return;
        }
        let before = view.built.get_untracked();
        if before.as_ref().is_some_and(|b| b.expanded == expanded) {
            return;
        }
        let trace = view.trace.get_value();
        let pairing = pair_messages(&trace);
        let graph = ExecutionGraph::new(&trace, &pairing);
        let (causality, partner) = match before {
            Some(b) => (b.causality.clone(), b.partner.clone()),
            None => {
                let mut partner = vec![None; trace.events.len()];
                for m in &pairing.messages {
                    partner[m.send.index()] = Some(m.arrival.0);
                    partner[m.arrival.index()] = Some(m.send.0);
                }
                (Causality::new(&trace, &graph), partner)
            }
        };
        let collapse = Collapse::Runs {
            expanded: &expanded,
        };
        let diagram = Diagram::new(&trace, &graph, &causality, collapse);
        view.built.set(Some(Arc::new(Built {
            causality,
            diagram,
            partner,
            expanded,
        })));
    });
}

/// Computes (or, for a run drawn by the server, fetches) the selected event's causal past and
/// future, and publishes them as time spans per process for the Gantt chart to shade.
fn publish_areas(view: View, data: RunData) {
    Effect::new(move |_| {
        let selected = view.store.with(|ws| match ws.selected {
            Some(Selection::Event { index }) => u32::try_from(index).ok().map(EventIdx),
            _ => None,
        });
        let built = view.built.get();
        let publish = move |areas: Option<Arc<CausalAreas>>| {
            let spans = areas.as_ref().map(|a| {
                let spans = |list: &[(u32, u64, u64)]| {
                    list.iter()
                        .map(|&(p, start, end)| (p as usize, start, end))
                        .collect()
                };
                Arc::new(CausalSpans {
                    event: u64::from(a.event.0),
                    pre: spans(&a.pre_spans),
                    post: spans(&a.post_spans),
                })
            });
            view.areas.set(areas);
            if data.areas.with_untracked(|a| a != &spans) {
                data.areas.set(spans);
            }
        };
        let Some(e) = selected else {
            publish(None);
            return;
        };
        if let Some(built) = built {
            let trace = view.trace.get_value();
            publish(
                built
                    .diagram
                    .areas(&trace, &built.causality, e)
                    .map(Arc::new),
            );
        } else if let Some(remote) = view.remote {
            let id = remote.run.get_value();
            leptos::task::spawn_local(async move {
                let answer = api::get_hasse_areas(&id, e.0).await.ok();
                // Only if the selection is still this event.
                if selected_event(view.store) == Some(e) {
                    publish(answer.map(Arc::new));
                }
            });
        }
    });
}

fn schedule_paints(view: View) {
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        view.store.track();
        view.built.track();
        view.marked.track();
        view.resized.track();
        view.kept.track();
        view.areas.track();
        if let Some(remote) = view.remote {
            remote.answer.track();
        }
        if pending.get_value() {
            return;
        }
        pending.set_value(true);
        request_animation_frame(move || {
            // The view may be gone by the frame (its run swapped, the page left): its signals
            // are disposed, and reading them would panic.
            if pending.is_disposed() {
                return;
            }
            pending.set_value(false);
            paint_now(view);
        });
    });
}

/// Selects `event` in the run's workspace (so in every view).
fn select_event(store: Store, event: EventIdx) {
    store.dispatch(Command::Select(Some(Selection::Event {
        index: u64::from(event.0),
    })));
}

fn selected_event(store: Store) -> Option<EventIdx> {
    store.with_untracked(|ws| match ws.selected {
        Some(Selection::Event { index }) => u32::try_from(index).ok().map(EventIdx),
        _ => None,
    })
}

fn paint_now(view: View) {
    let Some(canvas) = view.canvas.get_untracked() else {
        return;
    };
    let began = canvas::now_ms();
    let built = view.built.get_untracked();
    if built.is_none() && view.remote.is_none() {
        return;
    }
    let rect = canvas.get_bounding_client_rect();
    if rect.width() < 1.0 {
        return;
    }
    let trace = view.trace.get_value();
    let n_rows = view.store.with_untracked(|ws| {
        ws.processes
            .as_ref()
            .map_or(trace.processes.len(), Vec::len)
    });
    let g = Geometry::new(rect.width(), 26.0 + 30.0 * n_rows.clamp(2, 24) as f64);
    let height = format!("height: {}px", g.height);
    if canvas.get_attribute("style").as_deref() != Some(height.as_str()) {
        let _ = canvas.set_attribute("style", &height);
    }
    let Some(ctx) = canvas::context_for(&canvas, g.width, g.height) else {
        return;
    };
    let names: Vec<String> = trace.processes.iter().map(|p| p.name.clone()).collect();
    let (rows, top_row, window) = view.store.with_untracked(|ws| {
        let rows = ws
            .processes
            .clone()
            .unwrap_or_else(|| (0..trace.processes.len() as u32).collect());
        (rows, ws.top_row as usize, ws.window)
    });
    let areas = view.areas.get_untracked();
    let marked: Vec<(u32, bool)> = match &built {
        Some(built) => view.marked.with_untracked(|m| {
            m.iter()
                .filter_map(|&(e, holds)| Some((*built.diagram.vertex_of.get(e.index())?, holds)))
                .collect()
        }),
        None => Vec::new(),
    };
    let kept = view.kept.get_untracked();
    let replay = view.store.with_untracked(|ws| ws.replay);
    let times = (view.remote.is_none()).then(|| trace.events.time());
    let frame = Frame {
        replay: replay.map(|t| (t, times)),
        kept: kept.as_deref().map(Vec::as_slice),
        rows: &rows,
        top_row: top_row.min(rows.len().saturating_sub(g.n_rows())),
        window,
        axis: view.store.with_untracked(|ws| ws.hasse_axis),
        clock: trace.clock,
        areas: areas.as_deref(),
        marked: &marked,
    };
    let win = match &built {
        Some(built) => {
            // The same frame (a new selection, filter or marks) reuses its window.
            let key = WindowKey {
                diagram: Arc::as_ptr(built) as usize,
                window: frame.window,
                rows: layout::shown_rows(&frame, &g).to_vec(),
                axis: frame.axis,
                width: layout::plot_width(&g).to_bits(),
            };
            match view.cached.with_value(|c| {
                c.as_ref()
                    .filter(|(k, _)| *k == key)
                    .map(|(_, w)| Arc::clone(w))
            }) {
                Some(win) => win,
                None => {
                    let win = Arc::new(layout::window_of(&built.diagram, &frame, &g));
                    view.cached.set_value(Some((key, Arc::clone(&win))));
                    win
                }
            }
        }
        None => match remote_window(view, &frame, &g) {
            Some(win) => win,
            None => return,
        },
    };
    let laid = layout::layout(&win, &names, &frame, &g);
    paint::paint(&ctx, g.width, g.height, &laid.items);
    let mut stats = stats_text(&laid, areas.as_deref());
    let shown = layout::shown_rows(&frame, &g).len();
    if shown < rows.len() {
        stats.push_str(&format!(
            " · rows {}–{} of {} (shift + wheel scrolls)",
            frame.top_row + 1,
            frame.top_row + shown,
            rows.len()
        ));
    }
    view.stats.set(stats);
    let hits: Vec<String> = laid
        .hits
        .iter()
        .zip(&win.marks)
        .take(500)
        .map(|(h, m)| format!("[{},{:.1},{:.1}]", m.event.0, h.x, h.y))
        .collect();
    let kept_marks = win
        .marks
        .iter()
        .filter(|m| {
            kept.as_deref()
                .is_none_or(|k| k.get(m.event.index()).copied().unwrap_or(true))
        })
        .count();
    let probe = Probe {
        kept: kept_marks,
        hits: format!("[{}]", hits.join(",")),
        pre: areas.as_ref().map_or(0, |a| a.pre_events),
        post: areas.as_ref().map_or(0, |a| a.post_events),
        backwards: laid.edges_backwards,
    };
    view.shown.set_value(win);
    canvas::record_frame_time("__tracescopeHasseFrameTimes", canvas::now_ms() - began);
    if view.probe.with_untracked(|p| *p != probe) {
        view.probe.set(probe);
    }
    view.layout.set_value(laid);
}

/// The server's answer for this frame; asks for it when the last answer is of another frame
/// (and draws that one meanwhile).
fn remote_window(view: View, frame: &Frame<'_>, g: &Geometry) -> Option<Arc<HasseWindow>> {
    let remote = view.remote?;
    let shown = layout::shown_rows(frame, g);
    let query = WindowQuery {
        start: frame.window.0,
        end: frame.window.1,
        processes: shown
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(","),
        first_row: 0,
        rows: shown.len() as u32,
        axis: frame.axis,
        width_px: layout::plot_width(g).round().max(1.0) as u32,
    };
    let answer = remote.answer.get_untracked();
    if answer.as_ref().is_none_or(|(q, _)| *q != query)
        && remote.asked.get_value().as_ref() != Some(&query)
    {
        remote.asked.set_value(Some(query.clone()));
        let id = remote.run.get_value();
        let asked = query.clone();
        leptos::task::spawn_local(async move {
            match api::get_hasse(&id, &asked).await {
                Ok(win) => remote.answer.set(Some((asked, Arc::new(win)))),
                Err(message) => view.stats.set(message),
            }
        });
    }
    answer.map(|(_, win)| win)
}

fn stats_text(laid: &Layout, areas: Option<&CausalAreas>) -> String {
    let mut text = format!(
        "{} vertices · {} edges drawn",
        laid.vertices_shown, laid.edges_drawn
    );
    if laid.edges_over_budget > 0 {
        text.push_str(&format!(" ({} more not drawn)", laid.edges_over_budget));
    }
    if laid.edges_backwards > 0 {
        text.push_str(&format!(" · {} back in time", laid.edges_backwards));
    }
    if let Some(a) = areas {
        text.push_str(&format!(
            " · causal past {} events, future {} events",
            a.pre_events, a.post_events
        ));
    }
    text
}

fn canvas_point(view: View, ev: &web_sys::MouseEvent) -> Option<(f64, f64)> {
    Some(canvas::point_in(&view.canvas.get_untracked()?, ev))
}

fn on_click(view: View, ev: &web_sys::MouseEvent) {
    let Some((x, y)) = canvas_point(view, ev) else {
        return;
    };
    let hit = view.layout.with_value(|l| layout::hit_at(l, x, y));
    let Some(hit) = hit else {
        view.store.dispatch(Command::Select(None));
        return;
    };
    let event = view.shown.with_value(|w| {
        w.marks
            .iter()
            .find(|m| m.vertex == hit.vertex)
            .map(|m| m.event)
    });
    let Some(event) = event else {
        return;
    };
    // A collapsed run opens up (in the browser's own diagram).
    let run = view
        .built
        .get_untracked()
        .and_then(|b| b.diagram.vertices.get(hit.vertex as usize).copied())
        .filter(|v| v.count > 1);
    if let Some(v) = run {
        view.expanded.update(|e| {
            if let Err(at) = e.binary_search(&v.event) {
                e.insert(at, v.event);
            }
        });
    }
    select_event(view.store, event);
}

fn on_hover(view: View, ev: &web_sys::PointerEvent) {
    let Some((x, y)) = canvas_point(view, ev) else {
        return;
    };
    let Some(built) = view.built.get_untracked() else {
        let text = view
            .layout
            .with_value(|l| layout::hit_at(l, x, y))
            .map(|h| format!("{} events here", h.events));
        view.label.set(text.unwrap_or_default());
        return;
    };
    let trace = view.trace.get_value();
    let text = view.layout.with_value(|l| {
        if let Some(hit) = layout::hit_at(l, x, y) {
            Some(vertex_text(&trace, &built, hit.vertex, hit.events))
        } else {
            layout::edge_at(l, x, y).map(|e| edge_text(&trace, &built, e.edge as usize))
        }
    });
    view.label.set(text.unwrap_or_default());
}

/// An event's vector clock, its non-zero entries by process name: `A: 2, B: 3`.
fn clock_text(trace: &Trace, causality: &Causality, event: EventIdx) -> String {
    causality
        .vector_clock(event)
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(p, c)| {
            let name = trace.processes.get(p).map_or("?", |p| p.name.as_str());
            format!("{name}: {c}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn vertex_text(trace: &Trace, built: &Built, vertex: u32, events: u64) -> String {
    let v = built.diagram.vertices[vertex as usize];
    let process = trace
        .processes
        .get(v.process.index())
        .map_or("?", |p| p.name.as_str());
    let clock = clock_text(trace, &built.causality, v.event);
    let what = if events > 1 {
        format!("{events} events from {}", v.kind.name())
    } else {
        v.kind.name().to_owned()
    };
    format!(
        "{what} on {process} at tick {} · layer {} · Lamport {} · vector clock {{{}}}",
        v.time.0, v.layer, v.lamport, clock
    )
}

fn edge_text(trace: &Trace, built: &Built, edge: usize) -> String {
    let e = built.diagram.edges[edge];
    let (from, to) = (
        built.diagram.vertices[e.from as usize],
        built.diagram.vertices[e.to as usize],
    );
    let name = |p: shared::model::ProcessId| {
        trace
            .processes
            .get(p.index())
            .map_or("?", |p| p.name.as_str())
            .to_owned()
    };
    match e.kind {
        HasseKind::Program => format!("program order on {}", name(from.process)),
        HasseKind::Collective => {
            format!("collective: {} → {}", name(from.process), name(to.process))
        }
        HasseKind::Message => {
            let send = from.event.index();
            let transit = i128::from(to.time.0) - i128::from(from.time.0);
            format!(
                "message {} → {} · tag {} · {} · transit {transit} ticks{}",
                name(from.process),
                name(to.process),
                trace.events.tag().at(send),
                crate::components::gantt::scene::draw::bytes_text(trace.events.size().at(send)),
                if e.backwards {
                    " (arrives before it is sent: a clock violation)"
                } else {
                    ""
                }
            )
        }
    }
}

fn on_wheel(view: View, ev: &web_sys::WheelEvent) {
    ev.prevent_default();
    if ev.shift_key() {
        // Shift + wheel scrolls the rows.
        let top = view.store.with_untracked(|ws| ws.top_row);
        let next = if ev.delta_y() > 0.0 {
            top.saturating_add(1)
        } else {
            top.saturating_sub(1)
        };
        view.store.dispatch(Command::ScrollTo(next));
        return;
    }
    let Some((x, _)) = canvas_point(view, ev) else {
        return;
    };
    let Some(canvas) = view.canvas.get_untracked() else {
        return;
    };
    let g = Geometry::new(canvas.get_bounding_client_rect().width(), 0.0);
    let anchor = ((x - g.gutter) / (g.width - g.gutter).max(1.0)).clamp(0.0, 1.0);
    let factor = if ev.delta_y() > 0.0 { 1.25 } else { 0.8 };
    view.store.dispatch(Command::Zoom { factor, anchor });
}

fn toolbar(view: View) -> impl IntoView {
    let button = move |axis: Axis, label: &'static str, id: &'static str| {
        view! {
            <button
                class:active=move || view.store.with(|ws| ws.hasse_axis == axis)
                aria-pressed=move || view.store.with(|ws| ws.hasse_axis == axis).to_string()
                data-testid=id
                on:click=move |_| view.store.dispatch(Command::SetHasseAxis(axis))
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="hasse-toolbar" role="toolbar" aria-label="Hasse view">
            <span class="hasse-axis">
                "x axis: "
                {button(Axis::Layer, "Layers", "hasse-axis-layer")}
                {button(Axis::Lamport, "Lamport time", "hasse-axis-lamport")}
                {button(Axis::Physical, "Physical time", "hasse-axis-physical")}
            </span>
            <button
                data-testid="hasse-fit"
                on:click=move |_| {
                    let (start, end) = view.store.with_untracked(|ws| ws.bounds);
                    view.store.dispatch(Command::SetWindow(start, end.saturating_add(1)));
                }
            >
                "Whole run"
            </button>
            <button
                data-testid="hasse-export"
                title="Save the diagram as shown as an SVG file"
                on:click=move |_| export_svg(view)
            >
                "Export SVG"
            </button>
            <span class="hasse-stats" data-testid="hasse-stats">{move || view.stats.get()}</span>
        </div>
        <p class="hasse-legend">
            <span class="swatch pre"></span>"causal past"
            <span class="swatch post"></span>"causal future"
            <span class="swatch fault"></span>"back in time (a clock violation)"
            " · a box is a run of local events: click it to expand · wheel zooms, shift + wheel scrolls the rows"
        </p>
    }
}

/// The motif search: request–response pairs, broadcasts and chains of messages, marked on the
/// diagram and listed.
fn motif_panel(view: View) -> impl IntoView {
    let text = RwSignal::new("request-response".to_owned());
    let result = RwSignal::new(None::<Result<Vec<motifs::MotifMatch>, String>>);
    let run = move |_| {
        let trace = view.trace.get_value();
        let answer = motifs::Motif::parse(&text.get_untracked())
            .map(|motif| motifs::find(&trace, &pair_messages(&trace), motif));
        if let Ok(found) = &answer {
            view.marked.set(
                found
                    .iter()
                    .flat_map(|m| m.events.iter().map(|&e| (e, true)))
                    .collect(),
            );
        }
        result.set(Some(answer));
    };
    let go_to = move |event: EventIdx| select_event(view.store, event);
    view! {
        <details class="hasse-query">
            <summary>"Motif search"</summary>
            <input
                data-testid="hasse-motif"
                list="hasse-motifs"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            />
            <datalist id="hasse-motifs">
                <option value="request-response"></option>
                <option value="broadcast 3"></option>
                <option value="chain 4"></option>
            </datalist>
            <button data-testid="hasse-motif-run" on:click=run>"Find"</button>
            {move || match result.get() {
                None => view! { <span></span> }.into_any(),
                Some(Err(message)) => view! {
                    <p class="error" role="alert">{message}</p>
                }.into_any(),
                Some(Ok(found)) => {
                    let n = found.len();
                    view! {
                        <p data-testid="hasse-motif-count">{format!("{n} found")}</p>
                        <ul class="hasse-instances">
                            {found.into_iter().take(50).map(|m| {
                                let first = m.events[0];
                                let label = format!("{} events from event {}", m.events.len(), first.0);
                                view! {
                                    <li><button class="link" on:click=move |_| go_to(first)>{label}</button></li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }
            }}
        </details>
    }
}

/// The selected event's pop-up, as the Gantt chart's (what and where, partner, its share of
/// the critical path and the WCPA, its wait states) with its logical times and vector clock.
fn details_panel(view: View, data: RunData) -> impl IntoView {
    move || {
        let event = view.store.with(|ws| match ws.selected {
            Some(Selection::Event { index }) => usize::try_from(index).ok(),
            _ => None,
        })?;
        let built = view.built.get()?;
        let trace = view.trace.get_value();
        if event >= trace.events.len() {
            return None;
        }
        data.load_report();
        data.load_waits(view.store.with_untracked(|ws| ws.bounds));
        let partner = built.partner[event].map(|p| p as usize);
        let mut lines = details::event_lines(&trace, event, partner, None);
        if let Some(Ok(report)) = data.report.get() {
            let a = &report.analysis;
            lines.extend(details::event_path_lines(
                &trace,
                "Critical path",
                &a.critical_path.segments,
                a.critical_path.length as f64,
                event,
            ));
            lines.extend(details::event_path_lines(
                &trace,
                "WCPA",
                &a.wcpa.segments,
                a.wcpa.weight,
                event,
            ));
        }
        if let Some(Ok(waits)) = data.waits.get() {
            lines.extend(details::event_wait_lines(&trace, &waits, event));
        }
        let v = built.diagram.vertices[built.diagram.vertex_of[event] as usize];
        // Inside a local run each event is one Lamport tick after the one before.
        let lamport = u64::from(v.lamport) + (event as u64 - u64::from(v.event.0));
        lines.push(format!(
            "logical time: layer {} · Lamport {lamport}",
            v.layer
        ));
        let clock = clock_text(&trace, &built.causality, EventIdx(event as u32));
        lines.push(format!("vector clock: {{{clock}}}"));
        Some(view! {
            <div class="hasse-details" data-testid="hasse-popup" role="dialog">
                <button class="close" on:click=move |_| view.store.dispatch(Command::Select(None)) aria-label="Close">"×"</button>
                {lines.into_iter().map(|line| view! { <div>{line}</div> }).collect_view()}
            </div>
        })
    }
}

/// Saves the diagram as shown as `hasse.svg`.
fn export_svg(view: View) {
    let svg = view
        .layout
        .with_value(|l| crate::components::svg::document(&l.items, l.size.0, l.size.1));
    let href = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        js_sys::encode_uri_component(&svg)
    );
    canvas::download(&href, "hasse.svg");
}

fn query_panel(view: View) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let result = RwSignal::new(None::<Result<Vec<dependence::Evaluation>, String>>);
    let run = move |_| {
        let Some(built) = view.built.get_untracked() else {
            return;
        };
        let trace = view.trace.get_value();
        let answer = dependence::parse(&text.get_untracked())
            .map(|deps| {
                deps.iter()
                    .map(|d| dependence::evaluate(&trace, &built.causality, d))
                    .collect::<Vec<_>>()
            })
            .map_err(|e| e.to_string());
        if let Ok(evaluations) = &answer {
            view.marked.set(
                evaluations
                    .iter()
                    .flat_map(|e| &e.instances)
                    .map(|i| (i.cause, i.satisfied))
                    .collect(),
            );
        }
        result.set(Some(answer));
    };
    let go_to = move |event: EventIdx| select_event(view.store, event);
    view! {
        <details class="hasse-query" open>
            <summary>"Dependence query"</summary>
            <textarea
                data-testid="hasse-query"
                rows="2"
                placeholder="DEPENDENCE reply IS msg_send ON PROCESS A -> msg_arr ON PROCESS B END"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            ></textarea>
            <button data-testid="hasse-query-run" on:click=run>"Evaluate"</button>
            {move || match result.get() {
                None => view! { <span></span> }.into_any(),
                Some(Err(message)) => view! {
                    <p class="error" role="alert" data-testid="hasse-query-error">{message}</p>
                }.into_any(),
                Some(Ok(evaluations)) => view! {
                    <ul class="hasse-instances" data-testid="hasse-instances">
                        {evaluations.into_iter().map(|e| {
                            let head = format!(
                                "{}: {} ({} of {} instances hold)",
                                e.name,
                                if e.satisfied { "holds" } else { "violated" },
                                e.instances.iter().filter(|i| i.satisfied).count(),
                                e.instances.len()
                            );
                            view! {
                                <li>
                                    {head}
                                    <ul>
                                        {e.instances.into_iter().map(|i| {
                                            let cause = i.cause;
                                            let label = format!(
                                                "event {} → {} {}",
                                                cause.0,
                                                i.effects.len(),
                                                if i.satisfied { "holds" } else { "violated" }
                                            );
                                            view! {
                                                <li><button class="link" on:click=move |_| go_to(cause)>{label}</button></li>
                                            }
                                        }).collect_view()}
                                    </ul>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any(),
            }}
        </details>
    }
}
