//! The Gantt chart: one row per process, computing and blocked bars, message arrows and
//! bundles, a time axis, the critical path overlay, pop-ups and range statistics.
//!
//! The layout ([`layout`]), the viewport ([`time_scale`]), the keys ([`keys`]) and the pop-up
//! texts ([`details`]) are plain Rust; this component only holds the state in signals, turns
//! wheel, drag, click and key input into changes, and paints once per animation frame.

pub mod details;
pub mod keys;
pub mod layout;
pub mod paint;
pub mod regions;
pub mod remote;
pub mod rows;
pub mod time_scale;

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use shared::Trace;
use shared::analyses::metrics::Segment;
use shared::view::selection::{CommMatrix, SelectionSummary};
use wasm_bindgen::JsCast as _;
use web_sys::CanvasRenderingContext2d;

use self::rows::Row;
use crate::api;
use keys::KeyAction;
use layout::{GanttModel, Geometry, Overlays, PathBar, RangeSelection};
use time_scale::TimeScale;

/// Test data shared by the chart's native tests.
#[cfg(test)]
pub(crate) mod test_data {
    /// The founding worked example (analysis.md §10), as the tests of `shared` read it.
    pub fn worked_example() -> shared::Trace {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/..",
            "/shared/tests/data/t4-worked-example.json"
        );
        let bytes = std::fs::read(path).expect("worked example");
        shared::formats::import(&bytes, None, "t4")
            .expect("parses")
            .trace
    }
}

/// The page's clock in milliseconds (`performance.now()`).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Appends a frame's layout-and-paint time to `window.__tracescopeFrameTimes` when a
/// measurement (the frame-time benchmark) has put an array there; otherwise does nothing.
fn record_frame_time(ms: f64) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(times) = js_sys::Reflect::get(&window, &"__tracescopeFrameTimes".into()) else {
        return;
    };
    if let Ok(times) = times.dyn_into::<js_sys::Array>() {
        times.push(&ms.into());
    }
}

/// The canvas height for `n_rows` rows, capped so very tall traces scroll inside the canvas.
fn canvas_height(n_rows: usize) -> f64 {
    Geometry::new(0.0, 0.0)
        .content_height(n_rows)
        .clamp(120.0, 640.0)
        + 8.0
}

/// A pop-up: where it opens (canvas coordinates) and what it shows.
#[derive(Debug, Clone, PartialEq)]
struct Popup {
    x: f64,
    y: f64,
    body: PopupBody,
}

/// What a pop-up shows.
#[derive(Debug, Clone, PartialEq)]
enum PopupBody {
    /// Fixed lines (a state bar, a path segment).
    Lines(Vec<String>),
    /// An event: its facts, its partner, and what the analyses say about it as they load.
    Event(usize),
}

/// The wait states charged at or caused by an event, from the server.
type EventWaits = (
    usize,
    Result<Vec<shared::analyses::waits::WaitState>, String>,
);

/// Which path the overlay shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathKind {
    Critical,
    Wcpa,
}

/// A path as the server computed it: its segments, bars and length (or weight).
#[derive(Debug, Clone, PartialEq)]
struct LoadedPath {
    name: &'static str,
    segments: Vec<Segment>,
    bars: Vec<PathBar>,
    length: f64,
    /// The WCPA phase table (empty for the critical path).
    phases: Vec<shared::analyses::metrics::Share>,
}

/// Both paths of a run.
#[derive(Debug, Clone, PartialEq)]
struct Paths {
    critical: LoadedPath,
    wcpa: LoadedPath,
}

impl Paths {
    fn get(&self, kind: PathKind) -> &LoadedPath {
        match kind {
            PathKind::Critical => &self.critical,
            PathKind::Wcpa => &self.wcpa,
        }
    }

    /// Both paths from the run's analysis report.
    fn from_report(trace: &Trace, report: shared::report::Report) -> Paths {
        let critical = report.analysis.critical_path;
        let wcpa = report.analysis.wcpa;
        Paths {
            critical: LoadedPath {
                name: "Critical path",
                bars: details::path_bars(trace, &critical.segments, details::critical_color),
                length: critical.length as f64,
                segments: critical.segments,
                phases: Vec::new(),
            },
            wcpa: LoadedPath {
                name: "WCPA",
                bars: details::path_bars(trace, &wcpa.segments, details::phase_color),
                length: wcpa.weight,
                segments: wcpa.segments,
                phases: wcpa.phases,
            },
        }
    }
}

/// The statistics of the selected range, from the server.
#[derive(Debug, Clone, PartialEq)]
struct RangeStats {
    summary: SelectionSummary,
    matrix: CommMatrix,
}

/// Draws `trace` as a zoomable Gantt chart, opening at `initial_window` (ticks `[start, end)`)
/// when given, and writing the window it shows, in whole ticks, into `window` when given. With
/// `run_id`, the critical path overlay and range statistics come from the server's analysis.
///
/// ```ignore
/// view! { <GanttChart trace=Arc::new(trace)/> }
/// ```
#[component]
pub fn GanttChart(
    trace: Arc<Trace>,
    #[prop(default = None)] run_id: Option<String>,
    #[prop(default = None)] initial_window: Option<(u64, u64)>,
    #[prop(optional)] window: Option<RwSignal<Option<(u64, u64)>>>,
    #[prop(default = None)] remote_bounds: Option<(u64, u64)>,
) -> impl IntoView {
    let model = {
        let mut model = GanttModel::new(&trace);
        if let Some((start, end)) = remote_bounds {
            model.bounds = (
                shared::model::time::Time(start),
                shared::model::time::Time(end),
            );
        }
        Arc::new(model)
    };
    // A large run's bars and messages come from the server's viewport API.
    let remote = remote_bounds.map(|_| Rc::new(remote::RemoteViews::default()));
    let in_flight = Rc::new(std::cell::RefCell::new(std::collections::HashSet::new()));
    let answers = RwSignal::new(0u32);
    let height = canvas_height(model.expanded().n_rows());
    // The rows shown: processes under their nodes, some nodes collapsed.
    let rows = RwSignal::new(Arc::new(model.expanded()));
    let n_rows = move || rows.with_untracked(|r| r.n_rows());
    let content_height = move || Geometry::new(0.0, 0.0).content_height(n_rows());
    let max_scroll = move || (content_height() - height).max(0.0);
    let canvas_ref = NodeRef::<Canvas>::new();
    let scroller_ref = NodeRef::<leptos::html::Div>::new();
    // `None` until the canvas has a width: the first paint fits the whole trace.
    let scale = RwSignal::new(None::<TimeScale>);
    let scroll_y = RwSignal::new(0.0f64);
    let paint_count = RwSignal::new(0u32);
    let shown_window = RwSignal::new(None::<(u64, u64)>);
    let cursor = RwSignal::new(None::<String>);
    let cursor_x = Rc::new(Cell::new(None::<f64>));
    let selection = RwSignal::new(None::<RangeSelection>);
    let paths = RwSignal::new(None::<Arc<Paths>>);
    let show_path = RwSignal::new(None::<PathKind>);
    // The path shown, when one is and it has loaded.
    let shown_path = move || {
        let kind = show_path.get_untracked()?;
        paths.get_untracked().map(|p| p.get(kind).clone())
    };
    let path_error = RwSignal::new(None::<String>);
    let popup = RwSignal::new(None::<Popup>);
    let event_waits = RwSignal::new(None::<EventWaits>);
    let paths_loading = StoredValue::new(false);
    let help = RwSignal::new(false);
    let range_stats = RwSignal::new(None::<Result<RangeStats, String>>);
    // The pointer's press: where, and whether it selects (Shift) or pans.
    let press = Rc::new(Cell::new(None::<(f64, f64, bool)>));
    let last = Rc::new(Cell::new(None::<(f64, f64)>));
    let frame_pending = Rc::new(Cell::new(false));
    // Consumed by the first paint; "Fit" later shows the whole trace.
    let opening = Rc::new(Cell::new(initial_window));

    let geometry = move |canvas: &web_sys::HtmlCanvasElement| {
        let mut g = Geometry::new(f64::from(canvas.client_width()), height);
        g.scroll_y = scroll_y.get_untracked().clamp(0.0, max_scroll());
        g
    };

    // Asks the server for the viewports a frame wanted; each answer repaints.
    let fetch_wanted = {
        let remote = remote.clone();
        let run_id = run_id.clone();
        move || {
            let (Some(remote), Some(id)) = (remote.clone(), run_id.clone()) else {
                return;
            };
            for request in remote.take_wanted() {
                let key = (
                    request.start,
                    request.end,
                    request.first_row,
                    request.last_row,
                    request.width_px,
                );
                if !in_flight.borrow_mut().insert(key) {
                    continue;
                }
                let (remote, in_flight, id) =
                    (Rc::clone(&remote), Rc::clone(&in_flight), id.clone());
                leptos::task::spawn_local(async move {
                    let answer = api::get_viewport(&id, &request).await;
                    in_flight.borrow_mut().remove(&key);
                    match answer {
                        Ok(view) => {
                            remote.insert(&request, view);
                            answers.update(|n| *n += 1);
                        }
                        Err(message) => path_error.set(Some(message)),
                    }
                });
            }
        }
    };

    let paint_now = {
        let model = Arc::clone(&model);
        let remote = remote.clone();
        move || {
            let Some(canvas) = canvas_ref.get_untracked() else {
                return;
            };
            let began = now_ms();
            let g = geometry(&canvas);
            let current = match (scale.get_untracked(), opening.take()) {
                (_, Some((start, end))) => TimeScale::fit(
                    shared::model::time::Time(start),
                    shared::model::time::Time(end),
                    g.plot_width(),
                ),
                (Some(s), None) => s.resized(g.plot_width()),
                (None, None) => model.fit(&g),
            };
            let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
            canvas.set_width((g.width * dpr).round() as u32);
            canvas.set_height((g.height * dpr).round() as u32);
            let Ok(Some(ctx)) = canvas.get_context("2d") else {
                return;
            };
            let Ok(ctx) = ctx.dyn_into::<CanvasRenderingContext2d>() else {
                return;
            };
            let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
            let overlays = Overlays {
                selection: selection.get_untracked(),
                path: shown_path().map(|p| p.bars).unwrap_or_default(),
            };
            paint::paint(
                &ctx,
                g.width,
                g.height,
                &layout::layout(
                    &model,
                    &rows.get_untracked(),
                    match &remote {
                        Some(remote) => remote.as_ref(),
                        None => &model.index,
                    },
                    &current,
                    &g,
                    &overlays,
                ),
            );
            fetch_wanted();
            if scale.get_untracked() != Some(current) {
                scale.set(Some(current));
            }
            let (start, end) = current.window();
            let shown = (start.max(0.0).round() as u64, end.max(0.0).round() as u64);
            if shown_window.get_untracked() != Some(shown) {
                shown_window.set(Some(shown));
                if let Some(window) = window {
                    window.set(Some(shown));
                }
            }
            record_frame_time(now_ms() - began);
            paint_count.update(|n| *n += 1);
        }
    };

    // One paint per animation frame, whatever changed.
    Effect::new({
        let frame_pending = Rc::clone(&frame_pending);
        let paint_now = paint_now.clone();
        move |_| {
            scale.track();
            scroll_y.track();
            rows.track();
            answers.track();
            selection.track();
            show_path.track();
            paths.track();
            if canvas_ref.get().is_none() || frame_pending.replace(true) {
                return;
            }
            let frame_pending = Rc::clone(&frame_pending);
            let paint_now = paint_now.clone();
            request_animation_frame(move || {
                frame_pending.set(false);
                paint_now();
            });
        }
    });
    // The scrollbar follows the rows however they were scrolled (drag, jump, wheel).
    Effect::new(move |_| {
        let y = scroll_y.get().clamp(0.0, max_scroll());
        if let Some(scroller) = scroller_ref.get()
            && (f64::from(scroller.scroll_top()) - y).abs() >= 1.0
        {
            scroller.set_scroll_top(y.round() as i32);
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| scale.update(|_| {}));
    on_cleanup(move || resize.remove());

    let canvas_xy = move |ev: &web_sys::MouseEvent| {
        let rect = canvas_ref
            .get_untracked()
            .map(|c| c.get_bounding_client_rect());
        let (left, top) = rect.map_or((0.0, 0.0), |r| (r.left(), r.top()));
        (
            f64::from(ev.client_x()) - left,
            f64::from(ev.client_y()) - top,
        )
    };
    let label_width = Geometry::new(0.0, 0.0).label_width;
    let plot_width = move || {
        canvas_ref
            .get_untracked()
            .map_or(1.0, |c| geometry(&c).plot_width())
    };
    let row_of = move |y: f64| {
        canvas_ref
            .get_untracked()
            .and_then(|c| layout::row_at(&geometry(&c), n_rows(), y))
    };

    // Fits the selection, or the whole trace.
    let fit = move || match selection.get_untracked() {
        Some(sel) if sel.end > sel.start => scale.set(Some(TimeScale::fit(
            shared::model::time::Time(sel.start.max(0.0).floor() as u64),
            shared::model::time::Time(sel.end.max(0.0).ceil() as u64),
            plot_width(),
        ))),
        _ => scale.set(None),
    };

    // Loads both paths, once.
    let load_paths = {
        let trace = Arc::clone(&trace);
        let run_id = run_id.clone();
        move || {
            if paths.get_untracked().is_some() || paths_loading.get_value() {
                return;
            }
            paths_loading.set_value(true);
            let Some(id) = run_id.clone() else {
                path_error.set(Some("the paths need a stored run".to_owned()));
                return;
            };
            let trace = Arc::clone(&trace);
            leptos::task::spawn_local(async move {
                match api::get_report(&id)
                    .await
                    .map(|report| Paths::from_report(&trace, report))
                {
                    Ok(loaded) => paths.set(Some(Arc::new(loaded))),
                    Err(message) => path_error.set(Some(message)),
                }
            });
        }
    };

    // Shows or hides a path.
    let toggle_path = {
        let load_paths = load_paths.clone();
        move |kind: PathKind| {
            let on = show_path.get_untracked() != Some(kind);
            show_path.set(on.then_some(kind));
            if on {
                load_paths();
            }
        }
    };

    // Opens an event's pop-up at `(x, y)` and asks the server for its wait states and the
    // paths (for its share of them).
    let open_event = {
        let run_id = run_id.clone();
        let model = Arc::clone(&model);
        let load_paths = load_paths.clone();
        move |event: usize, x: f64, y: f64| {
            popup.set(Some(Popup {
                x,
                y,
                body: PopupBody::Event(event),
            }));
            let Some(id) = run_id.clone() else { return };
            load_paths();
            // Wait states are charged at one end of a message and caused at the other: ask for
            // both ends.
            let ends: Vec<(usize, u64)> = std::iter::once(event)
                .chain(model.partner_of(event))
                .filter_map(|k| Some((model.row_of_event(k)?, *model.event_time.get(k)?)))
                .collect();
            let (Some(start), Some(end)) = (
                ends.iter().map(|e| e.1).min(),
                ends.iter().map(|e| e.1).max(),
            ) else {
                return;
            };
            let processes: Vec<String> = ends.iter().map(|e| e.0.to_string()).collect();
            event_waits.set(None);
            leptos::task::spawn_local(async move {
                let query = api::SelectionQuery {
                    start,
                    end: end.saturating_add(1),
                    processes: processes.join(","),
                    limit: 1000,
                };
                let waits = api::get_wait_states(&id, &query)
                    .await
                    .map(|w| w.wait_states);
                event_waits.set(Some((event, waits)));
            });
        }
    };

    let load_range_stats = {
        let run_id = run_id.clone();
        let model = Arc::clone(&model);
        move |sel: RangeSelection| {
            let Some(id) = run_id.clone() else { return };
            // The selected rows stand for a contiguous range of processes.
            let Some((first, last)) = rows
                .with_untracked(|r| r.process_range(sel.first_row, sel.last_row, &model.groups))
            else {
                return;
            };
            let start = sel.start.max(0.0).floor() as u64;
            let query = api::SelectionQuery {
                start,
                end: (sel.end.max(0.0).ceil() as u64).max(start + 1),
                processes: format!("{first}-{last}"),
                limit: 1000,
            };
            range_stats.set(None);
            leptos::task::spawn_local(async move {
                let summary = api::get_selection_summary(&id, &query).await;
                let matrix = api::get_matrix(&id, &query).await;
                range_stats.set(Some(summary.and_then(|summary| {
                    matrix.map(|matrix| RangeStats { summary, matrix })
                })));
            });
        }
    };

    let keydown = window_event_listener(leptos::ev::keydown, {
        let cursor_x = Rc::clone(&cursor_x);
        move |ev: web_sys::KeyboardEvent| {
            let typing = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| {
                    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                });
            if typing || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
                return;
            }
            let Some(action) = keys::action(&ev.key()) else {
                return;
            };
            ev.prevent_default();
            match action {
                KeyAction::Fit => fit(),
                KeyAction::Help => help.update(|h| *h = !*h),
                KeyAction::Escape => {
                    help.set(false);
                    popup.set(None);
                    selection.set(None);
                    range_stats.set(None);
                }
                navigation => {
                    let width = plot_width();
                    let anchor = cursor_x.get().unwrap_or(width / 2.0);
                    scale.update(|s| *s = s.map(|s| keys::navigate(&s, navigation, anchor, width)));
                }
            }
        }
    });
    on_cleanup(move || keydown.remove());

    let on_wheel = move |ev: web_sys::WheelEvent| {
        ev.prevent_default();
        let (x, _) = canvas_xy(&ev);
        // Over the labels the wheel scrolls the rows; over the plot it zooms at the cursor.
        if x < label_width {
            scroll_y.update(|y| *y = (*y + ev.delta_y()).clamp(0.0, max_scroll()));
            return;
        }
        let factor = (ev.delta_y() * 0.002).exp();
        let anchor = x - label_width;
        scale.update(|s| *s = s.map(|s| s.zoomed(factor, anchor)));
    };
    let on_pointer_down = {
        let press = Rc::clone(&press);
        let last = Rc::clone(&last);
        move |ev: web_sys::PointerEvent| {
            let (x, y) = canvas_xy(&ev);
            press.set(Some((x, y, ev.shift_key())));
            last.set(Some((x, y)));
            if let Some(canvas) = canvas_ref.get_untracked() {
                let _ = canvas.set_pointer_capture(ev.pointer_id());
            }
        }
    };
    let on_pointer_move = {
        let press = Rc::clone(&press);
        let last = Rc::clone(&last);
        let cursor_x = Rc::clone(&cursor_x);
        let trace = Arc::clone(&trace);
        move |ev: web_sys::PointerEvent| {
            let (x, y) = canvas_xy(&ev);
            cursor_x.set(Some(x - label_width));
            let readout = scale
                .get_untracked()
                .and_then(|s| s.px_to_time(x - label_width));
            cursor.set(readout.map(|t| match trace.clock.ticks_per_second {
                Some(_) => format!("cursor at {}", details::time_text(&trace, t.0)),
                None => format!("cursor at tick {}", t.0),
            }));
            let Some((x0, y0, selecting)) = press.get() else {
                return;
            };
            if selecting {
                let Some(s) = scale.get_untracked() else {
                    return;
                };
                let (r0, r1) = (row_of(y0), row_of(y));
                let rows = match (r0, r1) {
                    (Some(a), Some(b)) => (a.min(b), a.max(b)),
                    (Some(a), None) | (None, Some(a)) => (a, a),
                    (None, None) => return,
                };
                let (t0, t1) = (
                    s.px_to_tick(x0 - label_width),
                    s.px_to_tick(x - label_width),
                );
                selection.set(Some(RangeSelection {
                    start: t0.min(t1).max(0.0),
                    end: t0.max(t1).max(0.0),
                    first_row: rows.0,
                    last_row: rows.1,
                }));
                return;
            }
            let Some((lx, ly)) = last.get() else { return };
            last.set(Some((x, y)));
            scale.update(|s| *s = s.map(|s| s.panned(x - lx)));
            scroll_y.update(|sy| *sy = (*sy - (y - ly)).clamp(0.0, max_scroll()));
        }
    };
    // Shows an event's partner: pans it into the window, scrolls its row into view, and opens
    // its pop-up.
    let jump_to = {
        let model = Arc::clone(&model);
        let open_event = open_event.clone();
        move |event: usize| {
            let (Some(canvas), Some(s)) = (canvas_ref.get_untracked(), scale.get_untracked())
            else {
                return;
            };
            let (Some(process), Some(&time)) =
                (model.row_of_event(event), model.event_time.get(event))
            else {
                return;
            };
            // The partner's node may be collapsed: open it.
            let current = rows.get_untracked();
            if let Some(Row::Group(gi)) = current.rows.get(current.row_of(process)).copied() {
                rows.set(Arc::new(current.toggled(
                    model.rows.len(),
                    &model.groups,
                    gi,
                )));
            }
            let row = rows.with_untracked(|r| r.row_of(process));
            let mut g = geometry(&canvas);
            let (start, end) = s.window();
            let t = time as f64;
            let s = if t < start || t > end {
                s.panned(g.plot_width() / 2.0 - s.tick_to_px(t))
            } else {
                s
            };
            scale.set(Some(s));
            let top = g.row_top(row);
            if top < g.axis_height || top + g.row_height > g.height {
                let target = (g.row_height * row as f64
                    - (g.height - g.axis_height - g.row_height) / 2.0)
                    .clamp(0.0, max_scroll());
                scroll_y.set(target);
                g.scroll_y = target;
            }
            open_event(
                event,
                g.label_width + s.tick_to_px(t),
                g.row_top(row) + g.row_height / 2.0,
            );
        }
    };
    let on_pointer_up = {
        let open_event = open_event.clone();
        let press = Rc::clone(&press);
        let model = Arc::clone(&model);
        let trace = Arc::clone(&trace);
        let load_range_stats = load_range_stats.clone();
        move |ev: web_sys::PointerEvent| {
            let Some((x0, y0, selecting)) = press.take() else {
                return;
            };
            let (x, y) = canvas_xy(&ev);
            let moved = (x - x0).abs() + (y - y0).abs() > 3.0;
            if selecting && moved {
                if let Some(sel) = selection.get_untracked() {
                    load_range_stats(sel);
                }
                return;
            }
            if moved {
                return;
            }
            // A click: the event under it, else the path segment, else the bar.
            let (Some(s), Some(canvas)) = (scale.get_untracked(), canvas_ref.get_untracked())
            else {
                return;
            };
            let g = geometry(&canvas);
            let shown_rows = rows.get_untracked();
            let row = layout::row_at(&g, shown_rows.n_rows(), y)
                .and_then(|row| shown_rows.rows.get(row).copied());
            // A click on a node's label opens or closes it.
            if let Some(Row::Group(gi)) = row
                && x < label_width
            {
                rows.set(Arc::new(shown_rows.toggled(
                    model.rows.len(),
                    &model.groups,
                    gi,
                )));
                return;
            }
            let process = match row {
                Some(Row::Process(p)) => Some(p),
                _ => None,
            };
            if let Some(event) = process.and_then(|p| layout::event_hit(&model, &s, &g, p, x)) {
                open_event(event, x, y);
                return;
            }
            let segment = shown_path().and_then(|p| {
                layout::path_hit(&p.bars, &shown_rows, &s, &g, x, y)
                    .map(|k| details::segment_lines(&trace, p.name, &p.segments[k], p.length))
            });
            let display_row = layout::row_at(&g, shown_rows.n_rows(), y);
            let lines = segment.or_else(|| {
                let p = process?;
                let (depth, bar) = layout::region_hit(&model, &s, &g, (display_row?, p), (x, y))?;
                Some(details::region_lines(
                    &trace,
                    p,
                    depth,
                    (bar.start, bar.end, bar.region),
                ))
            });
            let lines = lines.or_else(|| {
                let p = process?;
                let tick = s.px_to_time(x - label_width)?;
                let span = model.index.span_at(p as u32, tick.0)?;
                Some(details::span_lines(&trace, p, span))
            });
            popup.set(lines.map(|lines| Popup {
                x,
                y,
                body: PopupBody::Lines(lines),
            }));
        }
    };
    let on_pointer_cancel = {
        let press = Rc::clone(&press);
        move |_: web_sys::PointerEvent| press.set(None)
    };
    let trace_for_popup = Arc::clone(&trace);
    let model_for_popup = Arc::clone(&model);
    let trace_for_readout = Arc::clone(&trace);
    let trace_for_stats = Arc::clone(&trace);
    let fit_button = fit;
    let toggle_critical = toggle_path.clone();
    let toggle_wcpa = toggle_path.clone();

    view! {
        <div class="gantt">
            <div class="gantt-toolbar">
                <button on:click=move |_| fit_button() title="Fit the selection, or the whole trace (F)">"Fit"</button>
                <button
                    on:click=move |_| toggle_critical(PathKind::Critical)
                    data-testid="toggle-critical-path"
                    disabled=remote_bounds.is_some()
                    aria-pressed=move || (show_path.get() == Some(PathKind::Critical)).to_string()
                    title="Highlight the critical path"
                >"Critical path"</button>
                <button
                    on:click=move |_| toggle_wcpa(PathKind::Wcpa)
                    data-testid="toggle-wcpa"
                    disabled=remote_bounds.is_some()
                    aria-pressed=move || (show_path.get() == Some(PathKind::Wcpa)).to_string()
                    title="Highlight the weighted critical path in its phases' colours"
                >"WCPA"</button>
                <button on:click=move |_| help.update(|h| *h = !*h) title="Every shortcut (?)">"?"</button>
                {remote_bounds.map(|_| view! {
                    <span class="readout" data-testid="detail-source" title="This run is large: the chart is drawn from the server's viewport API, a window at a time; event details and path overlays need the run in the browser">
                        "drawn by the server"
                    </span>
                })}
                <span class="readout" data-testid="window-readout">
                    {move || shown_window.get().map(|w| details::window_text(&trace_for_readout, w))}
                </span>
                <span class="readout" data-testid="cursor-readout">{move || cursor.get()}</span>
                {move || path_error.get().map(|m| view! { <span class="error" role="alert">{m}</span> })}
            </div>
            <div class="gantt-stage">
                <canvas
                    node_ref=canvas_ref
                    class="gantt-canvas"
                    style=format!("height: {height}px")
                    data-testid="gantt-canvas"
                    data-paint-count=move || paint_count.get().to_string()
                    data-rows=move || rows.with(|r| r.n_rows()).to_string()
                    data-scroll=move || scroll_y.get().round().to_string()
                    data-window=move || shown_window.get().map(|(a, b)| format!("{a}-{b}"))
                    data-path-segments=move || {
                        show_path.track();
                        paths.track();
                        shown_path().map(|p| p.bars.len().to_string())
                    }
                    on:wheel=on_wheel
                    on:pointerdown=on_pointer_down
                    on:pointermove=on_pointer_move
                    on:pointerup=on_pointer_up
                    on:pointercancel=on_pointer_cancel
                ></canvas>
                <div
                    node_ref=scroller_ref
                    class="gantt-vscroll"
                    data-testid="gantt-scrollbar"
                    style=move || {
                        rows.track();
                        format!(
                            "height: {height}px; visibility: {}",
                            if max_scroll() > 0.0 { "visible" } else { "hidden" }
                        )
                    }
                    on:scroll=move |_| {
                        if let Some(scroller) = scroller_ref.get_untracked() {
                            scroll_y.set(f64::from(scroller.scroll_top()));
                        }
                    }
                >
                    <div style=move || {
                        rows.track();
                        format!("height: {}px", height + max_scroll())
                    }></div>
                </div>
                {move || popup.get().map(|p| view! {
                    <div
                        class="gantt-popup"
                        data-testid="popup"
                        role="dialog"
                        style=format!("left: {}px; top: {}px", p.x + 12.0, p.y + 12.0)
                    >
                        <button class="close" on:click=move |_| popup.set(None) aria-label="Close">"×"</button>
                        {match p.body {
                            PopupBody::Lines(lines) => lines
                                .into_iter()
                                .map(|line| view! { <div>{line}</div> })
                                .collect_view()
                                .into_any(),
                            PopupBody::Event(event) => event_popup(
                                Arc::clone(&trace_for_popup),
                                Arc::clone(&model_for_popup),
                                event,
                                paths,
                                event_waits,
                                jump_to.clone(),
                            )
                            .into_any(),
                        }}
                    </div>
                })}
                {move || help.get().then(|| view! {
                    <div class="gantt-help" data-testid="help" role="dialog">
                        <h2>"Shortcuts"</h2>
                        <table>
                            {keys::SHORTCUTS.iter().map(|(k, what)| view! {
                                <tr><th>{*k}</th><td>{*what}</td></tr>
                            }).collect_view()}
                        </table>
                    </div>
                })}
            </div>
            <div class="gantt-legend">
                <span class="swatch" style=format!("background: {}", layout::colors::COMPUTING)></span>"computing"
                <span class="swatch" style=format!("background: {}", layout::colors::BLOCKED)></span>"blocked in receive"
                <span class="swatch arrow" style=format!("background: {}", layout::colors::MESSAGE)></span>"message"
                <span class="swatch" style=format!("background: {}", layout::colors::BUNDLE)></span>"bundled messages"
                <span class="swatch more" style=format!("background: {}", layout::colors::MORE)></span>"more here"
                <span class="swatch" style=format!("background: {}", layout::colors::PATH)></span>"critical path"
                <span class="icons">"◀ send · ▷ receive call · ▶ arrival"</span>
                <span class="swatch" style=format!("background: {}", layout::colors::FAULT)></span>"no partner, or arrives before it is sent"
            </div>
            {region_legend(&model.region_names)}
            {move || {
                show_path.track();
                paths.track();
                shown_path().filter(|p| !p.phases.is_empty()).map(|p| view! {
                    <table class="run-table wcpa-phases" data-testid="wcpa-phases">
                        <tr><th>"WCPA phase"</th><th>"weight"</th><th>"share"</th></tr>
                        {p.phases.iter().map(|phase| view! {
                            <tr>
                                <td>
                                    <span class="swatch" style=format!("background: {}", layout::name_color(&phase.name))></span>
                                    {phase.name.clone()}
                                </td>
                                <td>{format!("{:.2}", phase.weight)}</td>
                                <td>{format!("{:.1} %", 100.0 * phase.share)}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                })
            }}
            {move || range_stats.get().map(|stats| match stats {
                Err(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
                Ok(stats) => range_stats_view(&trace_for_stats, &stats).into_any(),
            })}
        </div>
    }
}

/// At most this many regions are named in the legend.
const LEGEND_REGIONS: usize = 16;

/// The regions' colours (stable for a name across runs), when the trace has regions.
fn region_legend(names: &[String]) -> Option<impl IntoView + use<>> {
    if names.is_empty() {
        return None;
    }
    let more = names.len().saturating_sub(LEGEND_REGIONS);
    let shown: Vec<String> = names.iter().take(LEGEND_REGIONS).cloned().collect();
    Some(view! {
        <div class="gantt-legend regions" data-testid="region-legend">
            "regions (bars under each row, outermost first):"
            {shown.into_iter().map(|name| view! {
                <span class="swatch" style=format!("background: {}", layout::name_color(&name))></span>
                <span>{name}</span>
            }).collect_view()}
            {(more > 0).then(|| format!("and {more} more"))}
        </div>
    })
}

/// An event's pop-up: its facts and partner at once, its share of the paths and its wait
/// states as they arrive from the server, and a button that shows its partner.
fn event_popup(
    trace: Arc<Trace>,
    model: Arc<GanttModel>,
    event: usize,
    paths: RwSignal<Option<Arc<Paths>>>,
    event_waits: RwSignal<Option<EventWaits>>,
    jump_to: impl Fn(usize) + Clone + 'static,
) -> impl IntoView {
    let partner = model.partner_of(event);
    let lines = move || {
        let mut lines = details::event_lines(&trace, event, partner, model.blocked_around(event));
        if let Some(paths) = paths.get() {
            for path in [&paths.critical, &paths.wcpa] {
                lines.extend(details::event_path_lines(
                    &trace,
                    path.name,
                    &path.segments,
                    path.length,
                    event,
                ));
            }
        }
        match event_waits.get() {
            Some((e, Ok(waits))) if e == event => {
                lines.extend(details::event_wait_lines(&trace, &waits, event));
            }
            Some((e, Err(message))) if e == event => {
                lines.push(format!("wait states: {message}"));
            }
            _ => {}
        }
        lines
            .into_iter()
            .map(|line| view! { <div>{line}</div> })
            .collect_view()
    };
    view! {
        <div data-testid="event-details" data-event=event.to_string()>{lines}</div>
        {partner.map(|p| view! {
            <button
                class="link"
                data-testid="go-to-partner"
                on:click=move |ev| {
                    ev.stop_propagation();
                    jump_to(p);
                }
            >"Go to partner"</button>
        })}
    }
}

/// The selected range's statistics: counts, each process's busy and blocked shares, and the
/// communication matrix.
fn range_stats_view(trace: &Trace, stats: &RangeStats) -> impl IntoView {
    let s = &stats.summary;
    let name = |p: shared::model::ProcessId| {
        trace
            .processes
            .get(p.index())
            .map_or_else(|| format!("process {}", p.0), |p| p.name.clone())
    };
    let head = format!(
        "{} – {}: {} processes, {} events, {} messages sent ({}), {} received",
        details::time_text(trace, s.start),
        details::time_text(trace, s.end),
        s.processes,
        s.events,
        s.messages_sent,
        layout::bytes_text(s.bytes_sent),
        s.messages_received
    );
    let processes = s
        .per_process
        .iter()
        .map(|p| {
            view! {
                <tr>
                    <td>{p.name.clone()}</td>
                    <td>{format!("{:.1} %", 100.0 * p.busy_share)}</td>
                    <td>{format!("{:.1} %", 100.0 * p.blocked_share)}</td>
                </tr>
            }
        })
        .collect_view();
    let m = &stats.matrix;
    let cells = (0..m.count.len())
        .map(|k| {
            view! {
                <tr>
                    <td>{name(m.from[k])}</td>
                    <td>{name(m.to[k])}</td>
                    <td>{m.count[k]}</td>
                    <td>{layout::bytes_text(m.bytes[k])}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="range-stats" data-testid="range-stats" data-messages=s.messages_sent.to_string()>
            <h2>"Selected range"</h2>
            <p>{head}</p>
            <table class="run-table">
                <tr><th>"process"</th><th>"busy"</th><th>"blocked"</th></tr>
                {processes}
            </table>
            <h3>"Messages sent in the range"</h3>
            <table class="run-table" data-testid="range-matrix">
                <tr><th>"from"</th><th>"to"</th><th>"messages"</th><th>"bytes"</th></tr>
                {cells}
            </table>
        </section>
    }
}
