//! The topology view: the network the run ran on (or, for a trace without links, its
//! communication graph), each vertex coloured by its CPU load and each link lane by its load in
//! that direction, over the workspace's time window — or at the replay clock, when one is set.
//!
//! It shares the run's workspace with the other views: clicking a vertex shows only its
//! processes in the Gantt chart and the Hasse view; the pop-up gives its processes, busy share,
//! traffic, busiest interval and share of the critical path; clicking a link shows its load
//! over time (Tmon's link view).

pub mod layout;

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;
use shared::graph::context::Context;
use shared::model::time::Time;
use shared::view::state::ViewKind;
use shared::view::topology::{Kind, Load, LoadFrame, Topology};

use self::layout::{Pick, Placement};
use crate::api;
use crate::components::gantt::{canvas, details, paint};
use crate::workspace::Command;
use crate::workspace::data::RunData;
use crate::workspace::store::Store;

/// How many slices a link's load strip has.
const STRIP_BUCKETS: usize = 120;

/// The topology, and (for a run held in the browser) its load functions and the messages on
/// its edges.
struct Built {
    topology: Topology,
    load: Option<Load>,
    transits: Vec<layout::Transit>,
    longest: u64,
}

/// What the view keeps between frames.
#[derive(Clone, Copy)]
struct View {
    store: Store,
    trace: StoredValue<Arc<Trace>>,
    run: StoredValue<Option<String>>,
    remote: bool,
    built: RwSignal<Option<Arc<Built>>>,
    error: RwSignal<Option<String>>,
    /// The load drawn, and the window or instant it is for.
    frame: RwSignal<Option<Arc<LoadFrame>>>,
    picked: RwSignal<Option<Pick>>,
    /// The picked edge's load over the window, each direction.
    strip: RwSignal<Option<Vec<[f32; 2]>>>,
    canvas: NodeRef<leptos::html::Canvas>,
    placement: StoredValue<Placement>,
    /// The display list last painted (for the SVG export).
    items: StoredValue<Vec<crate::components::gantt::scene::draw::DrawItem>>,
    resized: RwSignal<u32>,
    /// Frames painted (the vertices' places are known after the first).
    painted: RwSignal<u32>,
    /// Messages drawn in flight in the last frame, and the replay clock they were drawn at.
    dots: RwSignal<(usize, Option<u64>)>,
    /// What is under the pointer, named.
    hovered: RwSignal<Option<String>>,
}

/// The topology view of a run (`remote`: only its outline is in the browser, the server
/// computes the load).
#[component]
pub fn TopologyView(
    trace: Arc<Trace>,
    data: RunData,
    #[prop(default = None)] run_id: Option<String>,
    #[prop(default = false)] remote: bool,
) -> impl IntoView {
    let view = View {
        store: Store::expect(),
        trace: StoredValue::new(trace),
        run: StoredValue::new(run_id),
        remote,
        built: RwSignal::new(None),
        error: RwSignal::new(None),
        frame: RwSignal::new(None),
        picked: RwSignal::new(None),
        strip: RwSignal::new(None),
        canvas: NodeRef::new(),
        placement: StoredValue::new(Placement::default()),
        items: StoredValue::new(Vec::new()),
        resized: RwSignal::new(0),
        painted: RwSignal::new(0),
        dots: RwSignal::new((0, None)),
        hovered: RwSignal::new(None),
    };
    build_when_shown(view);
    follow_the_clock(view);
    follow_the_pick(view);
    schedule_paints(view);
    Effect::new(move |_| {
        if view.store.with(|ws| ws.view == ViewKind::Topology) {
            data.load_report();
        }
    });
    canvas::count_resizes(view.resized);
    view! {
        <div class="topology" data-testid="topology">
            {toolbar(view)}
            <canvas
                node_ref=view.canvas
                class="topology-canvas"
                data-testid="topology-canvas"
                data-vertices=move || vertices_json(view)
                data-load=move || load_json(view)
                data-dots=move || view.dots.get().0.to_string()
                data-dots-at=move || view.dots.get().1.map_or_else(String::new, |t| t.to_string())
                title=move || view.hovered.get().unwrap_or_else(|| hover_title(view))
                on:click=move |ev| on_click(view, &ev)
                on:pointermove=move |ev| on_hover(view, &ev)
            ></canvas>
            {move || view.error.get().map(|message| view! {
                <p class="error" role="alert">{message}</p>
            })}
            {move || details(view, data)}
        </div>
    }
}

/// Builds the topology the first time the view is shown: in the browser from the run's
/// context, or from the server for a run it draws.
fn build_when_shown(view: View) {
    Effect::new(move |_| {
        let shown = view.store.with(|ws| ws.view == ViewKind::Topology);
        if !shown || view.built.with_untracked(Option::is_some) {
            return;
        }
        if view.remote {
            let Some(id) = view.run.get_value() else {
                return;
            };
            leptos::task::spawn_local(async move {
                match api::get_topology(&id).await {
                    Ok(topology) => view.built.set(Some(Arc::new(Built {
                        topology,
                        load: None,
                        transits: Vec::new(),
                        longest: 0,
                    }))),
                    Err(e) => view.error.set(Some(e)),
                }
            });
            return;
        }
        let trace = view.trace.get_value();
        let cx = Context::new(&trace);
        let topology = Topology::new(&trace, &cx.pairing);
        let load = Load::new(&cx, &topology);
        let (transits, longest) = layout::transits(&trace, &cx.pairing, &topology);
        view.built.set(Some(Arc::new(Built {
            topology,
            load: Some(load),
            transits,
            longest,
        })));
    });
}

/// The window the load is for: the replay clock's instant when set, else the time window.
fn load_window(store: Store) -> (u64, u64) {
    store.with(|ws| match ws.replay {
        Some(t) => (t, t),
        None => ws.window,
    })
}

/// Recomputes (or fetches) the load whenever the window or the replay clock moves.
fn follow_the_clock(view: View) {
    Effect::new(move |_| {
        let (start, end) = load_window(view.store);
        let Some(built) = view.built.get() else {
            return;
        };
        if let Some(load) = &built.load {
            view.frame
                .set(Some(Arc::new(load.frame(Time(start), Time(end)))));
            return;
        }
        let Some(id) = view.run.get_value() else {
            return;
        };
        leptos::task::spawn_local(async move {
            if let Ok(frame) = api::get_topology_load(&id, start, end).await {
                // Only if the window has not moved on meanwhile.
                if load_window(view.store) == (start, end) {
                    view.frame.set(Some(Arc::new(frame)));
                }
            }
        });
    });
}

/// When an edge is picked, its load over the window; when a vertex is, only its processes
/// are shown in the other views.
fn follow_the_pick(view: View) {
    Effect::new(move |_| {
        let picked = view.picked.get();
        let window = view.store.with(|ws| ws.window);
        let Some(built) = view.built.get_untracked() else {
            return;
        };
        let Some(Pick::Edge(edge)) = picked else {
            view.strip.set(None);
            return;
        };
        if let Some(load) = &built.load {
            view.strip.set(Some(load.strip(
                edge as usize,
                Time(window.0),
                Time(window.1),
                STRIP_BUCKETS,
            )));
            return;
        }
        let Some(id) = view.run.get_value() else {
            return;
        };
        leptos::task::spawn_local(async move {
            let strip = api::get_topology_strip(&id, edge, window, STRIP_BUCKETS).await;
            view.strip.set(strip.ok());
        });
    });
}

fn schedule_paints(view: View) {
    let pending = StoredValue::new(false);
    Effect::new(move |_| {
        view.built.track();
        view.frame.track();
        view.picked.track();
        view.resized.track();
        let shown = view.store.with(|ws| ws.view == ViewKind::Topology);
        if !shown || pending.get_value() {
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

fn paint_now(view: View) {
    let Some(canvas) = view.canvas.get_untracked() else {
        return;
    };
    let Some(built) = view.built.get_untracked() else {
        return;
    };
    let began = canvas::now_ms();
    let rect = canvas.get_bounding_client_rect();
    if rect.width() < 1.0 {
        return;
    }
    let width = rect.width();
    // As tall as the window leaves below the canvas's top, so the whole network is in view.
    let room = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .map_or(700.0, |h| h - rect.top() - 16.0);
    let height = room.min(width * 0.75).clamp(360.0, 1000.0);
    let style = format!("height: {height}px");
    if canvas.get_attribute("style").as_deref() != Some(style.as_str()) {
        let _ = canvas.set_attribute("style", &style);
    }
    let Some(ctx) = canvas::context_for(&canvas, width, height) else {
        return;
    };
    let placement = layout::place(&built.topology, width, height);
    let frame = view.frame.get_untracked();
    let clock = view.store.with_untracked(|ws| ws.replay);
    let dots = match clock {
        Some(t) => layout::dots_at(&built.transits, built.longest, t),
        None => Vec::new(),
    };
    let items = layout::scene(
        &built.topology,
        frame.as_deref(),
        &placement,
        view.picked.get_untracked(),
        &dots,
    );
    view.dots.set((dots.len(), clock));
    paint::paint(&ctx, width, height, &items);
    view.placement.set_value(placement);
    view.items.set_value(items);
    view.painted.update(|n| *n += 1);
    canvas::record_frame_time("__tracescopeTopologyFrameTimes", canvas::now_ms() - began);
}

/// Where a pointer event is on the canvas, in CSS pixels.
fn pointer(view: View, ev: &web_sys::MouseEvent) -> Option<(f64, f64)> {
    Some(canvas::point_in(&view.canvas.get_untracked()?, ev))
}

fn on_click(view: View, ev: &web_sys::MouseEvent) {
    let Some((x, y)) = pointer(view, ev) else {
        return;
    };
    let Some(built) = view.built.get_untracked() else {
        return;
    };
    let picked = view
        .placement
        .with_value(|p| layout::hit(&built.topology, p, x, y));
    view.picked.set(picked);
    if let Some(Pick::Vertex(v)) = picked {
        let processes: Vec<u32> = built.topology.vertices[v as usize]
            .processes
            .iter()
            .map(|p| p.0)
            .collect();
        if !processes.is_empty() {
            view.store.dispatch(Command::ShowProcesses(Some(processes)));
        }
    }
}

/// Names what is under the pointer (every vertex, though labels are thinned on large
/// networks).
fn on_hover(view: View, ev: &web_sys::MouseEvent) {
    let Some((x, y)) = pointer(view, ev) else {
        return;
    };
    let Some(built) = view.built.get_untracked() else {
        return;
    };
    let t = &built.topology;
    let name = view
        .placement
        .with_value(|p| layout::hit(t, p, x, y))
        .map(|pick| match pick {
            Pick::Vertex(v) => t.vertices[v as usize].label.clone(),
            Pick::Edge(e) => {
                let e = &t.edges[e as usize];
                format!(
                    "{} ↔ {}",
                    t.vertices[e.a as usize].label, t.vertices[e.b as usize].label
                )
            }
        });
    if view.hovered.get_untracked() != name {
        view.hovered.set(name);
    }
}

/// What the view shows, for the pointer over empty space.
fn hover_title(view: View) -> String {
    view.built.with(|b| match b {
        Some(b) => format!(
            "{}: click a node for its processes and load, a link for its load over time",
            kind_text(&b.topology)
        ),
        None => String::new(),
    })
}

/// What the view shows, in words.
fn kind_text(topology: &Topology) -> String {
    match topology.kind {
        Kind::Network => format!(
            "Network: {} · {} · {}",
            topology.shape.name(),
            crate::words::count(topology.vertices.len(), "node", "nodes"),
            crate::words::count(topology.edges.len(), "link", "links")
        ),
        Kind::Communication => {
            let n = topology.vertices.len();
            let vertices = if topology.vertices.iter().any(|v| v.process.is_some()) {
                crate::words::count(n, "process", "processes")
            } else {
                crate::words::count(n, "node", "nodes")
            };
            format!(
                "Communication graph (this trace has no links): {vertices} · {} that exchanged messages",
                crate::words::count(topology.edges.len(), "pair", "pairs")
            )
        }
    }
}

/// The vertices' centres and names as JSON, for tests and tools: `[[x, y, "name"], …]`.
fn vertices_json(view: View) -> String {
    view.painted.track();
    view.built.with(|b| {
        let Some(b) = b else {
            return "[]".to_owned();
        };
        let placement = view.placement.get_value();
        let list: Vec<(f64, f64, &str)> = placement
            .centres
            .iter()
            .zip(&b.topology.vertices)
            .map(|(&(x, y), v)| (x.round(), y.round(), v.label.as_str()))
            .collect();
        serde_json::to_string(&list).unwrap_or_default()
    })
}

/// The load drawn as JSON: `{"start", "end", "vertices": […]}`.
fn load_json(view: View) -> String {
    view.frame.with(|f| match f {
        Some(f) => serde_json::json!({
            "start": f.start.0,
            "end": f.end.0,
            "vertices": f.vertices,
        })
        .to_string(),
        None => "{}".to_owned(),
    })
}

fn toolbar(view: View) -> impl IntoView {
    let what = move || {
        let clock = view.store.with(|ws| ws.replay);
        let trace = view.trace.get_value();
        let built = view
            .built
            .with(|b| b.as_ref().map(|b| kind_text(&b.topology)));
        let when = match clock {
            Some(t) => format!(
                "load at the replay clock, {}",
                details::time_text(&trace, t)
            ),
            None => {
                let (start, end) = view.store.with(|ws| ws.window);
                format!(
                    "mean load over {} – {}",
                    details::time_text(&trace, start),
                    details::time_text(&trace, end)
                )
            }
        };
        match built {
            Some(kind) => format!("{kind} · {when}"),
            None => "Laying out the topology…".to_owned(),
        }
    };
    view! {
        <div class="topology-toolbar" role="toolbar" aria-label="Topology view">
            <span class="topology-kind" data-testid="topology-kind">{what}</span>
            <button
                data-testid="topology-export"
                title="Save the topology as shown as an SVG file"
                on:click=move |_| export_svg(view)
            >
                "Export SVG"
            </button>
            <button
                data-testid="topology-export-png"
                title="Save the topology as shown as a PNG image"
                on:click=move |_| export_png(view)
            >
                "Export PNG"
            </button>
        </div>
    }
}

/// The pop-up of the picked vertex or edge.
fn details(view: View, data: RunData) -> Option<AnyView> {
    let picked = view.picked.get()?;
    let built = view.built.get()?;
    let trace = view.trace.get_value();
    let frame = view.frame.get();
    let window = view.store.with(|ws| ws.window);
    let close = move |_| view.picked.set(None);
    let body = match picked {
        Pick::Vertex(v) => {
            vertex_details(&built, &trace, frame.as_deref(), v as usize, window, data).into_any()
        }
        Pick::Edge(e) => {
            edge_details(view, &built, &trace, frame.as_deref(), e as usize).into_any()
        }
    };
    Some(
        view! {
            <aside class="topology-details" data-testid="topology-details" role="dialog">
                <button class="close" aria-label="Close" on:click=close>"×"</button>
                {body}
            </aside>
        }
        .into_any(),
    )
}

/// A percentage with one decimal (never "-0.0").
fn percent(share: f64) -> String {
    format!("{:.1} %", (100.0 * share).max(0.0))
}

fn vertex_details(
    built: &Built,
    trace: &Trace,
    frame: Option<&LoadFrame>,
    v: usize,
    window: (u64, u64),
    data: RunData,
) -> impl IntoView + use<> {
    let vertex = &built.topology.vertices[v];
    let busy = frame
        .and_then(|f| f.vertices.get(v))
        .map_or_else(|| "…".to_owned(), |&u| percent(f64::from(u)));
    let (mut sent, mut received) = ((0u64, 0u64), (0u64, 0u64));
    for e in &built.topology.edges {
        let out = if e.a as usize == v {
            Some(0)
        } else if e.b as usize == v {
            Some(1)
        } else {
            None
        };
        if let Some(d) = out {
            sent.0 += e.messages[d];
            sent.1 += e.bytes[d];
            received.0 += e.messages[1 - d];
            received.1 += e.bytes[1 - d];
        }
    }
    let busiest = built.load.as_ref().and_then(|load| {
        busiest_interval(load, v, window).map(|(a, b, u)| {
            format!(
                "{} – {} at {}",
                details::time_text(trace, a),
                details::time_text(trace, b),
                percent(f64::from(u))
            )
        })
    });
    let processes: Vec<String> = vertex
        .processes
        .iter()
        .filter_map(|p| trace.processes.get(p.index()).map(|p| p.name.clone()))
        .collect();
    let members: Vec<u32> = vertex.processes.iter().map(|p| p.0).collect();
    let critical = move || {
        data.report.with(|r| match r {
            Some(Ok(report)) => {
                let share: f64 = report
                    .analysis
                    .critical_path
                    .by_process
                    .iter()
                    .filter(|s| s.id.is_some_and(|id| members.contains(&id)))
                    .map(|s| s.share)
                    .sum();
                percent(share)
            }
            Some(Err(_)) => "not available".to_owned(),
            None => "…".to_owned(),
        })
    };
    view! {
        <h3 data-testid="topology-details-title">{vertex.label.clone()}</h3>
        <dl>
            <dt>"Busy"</dt><dd data-testid="topology-busy">{busy}</dd>
            <dt>"Processes"</dt><dd>{format!("{} — {}", processes.len(), processes.join(", "))}</dd>
            <dt>"Sent"</dt><dd>{format!("{}, {} bytes", crate::words::count(sent.0 as usize, "message", "messages"), sent.1)}</dd>
            <dt>"Received"</dt><dd>{format!("{}, {} bytes", crate::words::count(received.0 as usize, "message", "messages"), received.1)}</dd>
            <dt>"Busiest interval"</dt><dd>{busiest.unwrap_or_else(|| "—".to_owned())}</dd>
            <dt>"Share of the critical path"</dt><dd data-testid="topology-critical">{critical}</dd>
        </dl>
    }
}

/// The busiest of 50 equal slices of the window for vertex `v`: (start, end, load).
fn busiest_interval(load: &Load, v: usize, (start, end): (u64, u64)) -> Option<(u64, u64, f32)> {
    let slices = 50u64;
    let len = end.saturating_sub(start);
    (0..slices)
        .filter_map(|k| {
            let a = start + len * k / slices;
            let b = start + len * (k + 1) / slices;
            (b > a).then(|| (a, b, load.vertex(v, Time(a), Time(b))))
        })
        .max_by(|x, y| x.2.total_cmp(&y.2))
        .filter(|&(_, _, u)| u > 0.0)
}

fn edge_details(
    view: View,
    built: &Built,
    trace: &Trace,
    frame: Option<&LoadFrame>,
    e: usize,
) -> impl IntoView + use<> {
    let edge = &built.topology.edges[e];
    let name = |v: u32| built.topology.vertices[v as usize].label.clone();
    let (a, b) = (name(edge.a), name(edge.b));
    let load = frame
        .and_then(|f| f.edges.get(e))
        .copied()
        .unwrap_or([0.0; 2]);
    let speed = edge
        .link
        .and_then(|l| trace.links.get(l.index()))
        .and_then(|l| l.bits_per_second)
        .map(|bps| format!(" · {} Mbit/s", bps / 1_000_000));
    let title = match edge.link {
        Some(l) => format!("Link {} : {a} ↔ {b}{}", l.0, speed.unwrap_or_default()),
        None => format!("{a} ↔ {b}"),
    };
    let rows = [(format!("{a} → {b}"), 0usize), (format!("{b} → {a}"), 1)].map(|(dir, d)| {
        view! {
            <tr>
                <td>{dir}</td>
                <td>{percent(f64::from(load[d]))}</td>
                <td>{edge.messages[d]}</td>
                <td>{edge.bytes[d]}</td>
            </tr>
        }
    });
    view! {
        <h3 data-testid="topology-details-title">{title}</h3>
        <table class="topology-edge">
            <thead><tr><th>"Direction"</th><th>"Busy"</th><th>"Messages"</th><th>"Bytes"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
        <p class="topology-strip-title">"Load over the window (upper: first direction, lower: second)"</p>
        {move || strip_svg(view)}
    }
}

/// The picked link's load over the window as two bar rows, scaled to the strip's peak (the
/// colours keep the absolute load).
fn strip_svg(view: View) -> impl IntoView {
    let strip = view.strip.get().unwrap_or_default();
    let peak = strip
        .iter()
        .flat_map(|l| l.iter().copied())
        .fold(0.0f32, f32::max);
    let scale = 1.0 / f64::from(peak.max(0.01));
    let n = strip.len().max(1) as f64;
    let (width, lane) = (480.0, 28.0);
    let w = width / n;
    let bars = strip
        .iter()
        .enumerate()
        .flat_map(|(k, loads)| {
            loads.iter().enumerate().map(move |(d, &u)| {
                let h = lane * (f64::from(u.clamp(0.0, 1.0)) * scale).min(1.0);
                let y = d as f64 * (lane + 6.0) + lane - h;
                view! {
                    <rect x=format!("{:.2}", k as f64 * w) y=format!("{y:.2}") width=format!("{:.2}", w.max(0.5)) height=format!("{h:.2}") fill=layout::lane_color(u)/>
                }
            })
        })
        .collect_view();
    view! {
        <svg class="topology-strip" data-testid="topology-strip" data-peak=peak.to_string() width=width height=2.0 * lane + 6.0 role="img" aria-label="the link's load over the window">
            <rect x="0" y="0" width=width height=lane fill="#f4f5f7"/>
            <rect x="0" y=lane + 6.0 width=width height=lane fill="#f4f5f7"/>
            {bars}
        </svg>
        <p class="topology-strip-title">{format!("Bars to scale: full height is the peak, {}", percent(f64::from(peak)))}</p>
    }
}

fn export_svg(view: View) {
    let size = view.placement.with_value(|p| p.size);
    let svg = view
        .items
        .with_value(|items| crate::components::svg::document(items, size.0, size.1));
    let href = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        js_sys::encode_uri_component(&svg)
    );
    canvas::download(&href, "topology.svg");
}

/// The canvas as painted (at the device's pixel ratio), as a PNG file.
fn export_png(view: View) {
    let Some(canvas) = view.canvas.get_untracked() else {
        return;
    };
    if let Ok(href) = canvas.to_data_url_with_type("image/png") {
        canvas::download(&href, "topology.png");
    }
}
