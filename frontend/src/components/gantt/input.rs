//! Input: the wheel, the pointer and the keys become workspace commands. A drag pans (in
//! whole ticks and rows, carrying the fractions over), Shift + drag selects a range, a click
//! selects what is under it (an event, a path segment, a region or a state bar) or folds a
//! node, and the pointer's event is the hovered one.

use leptos::prelude::*;
use shared::view::state::{Range, Selection};
use wasm_bindgen::JsCast as _;

use super::axis;
use super::chart::Chart;
use super::keys::{self, KeyAction};
use super::rows::Row;
use super::scene::geometry::{Geometry, row_at};
use super::scene::selection::RangeMark;
use super::scene::{bars, frame, icons, overlays, regions};
use crate::workspace::Command;

/// Pixels the pointer may move and still click.
const CLICK_SLOP_PX: f64 = 3.0;

/// `(x, y)` of a mouse event in the canvas's CSS pixels.
fn canvas_xy(chart: &Chart, ev: &web_sys::MouseEvent) -> (f64, f64) {
    let rect = chart
        .canvas
        .get_untracked()
        .map(|c| c.get_bounding_client_rect());
    let (left, top) = rect.map_or((0.0, 0.0), |r| (r.left(), r.top()));
    (
        f64::from(ev.client_x()) - left,
        f64::from(ev.client_y()) - top,
    )
}

/// Moves the window by `dx` pixels of content and the rows by `dy` pixels, carrying what does
/// not make a whole tick or row to the next move.
fn pan_by(chart: &Chart, g: &Geometry, dx: f64, dy: f64) {
    let scale = chart.scale(g);
    let (tick_rest, row_rest) = chart.local.rest.get_value();
    let ticks = tick_rest - scale.px_to_span(dx);
    let rows = row_rest + dy / g.row_height;
    let (whole_ticks, whole_rows) = (ticks.trunc(), rows.trunc());
    chart
        .local
        .rest
        .set_value((ticks - whole_ticks, rows - whole_rows));
    if whole_ticks != 0.0 {
        chart.store.dispatch(Command::Pan(whole_ticks as i64));
    }
    if whole_rows != 0.0 {
        scroll_rows(chart, whole_rows as i64);
    }
}

/// Scrolls by `rows` rows (up when negative), within the rows there are.
fn scroll_rows(chart: &Chart, rows: i64) {
    let max = chart.max_top_row(chart.rows.with_untracked(|r| r.n_rows()));
    let top = chart.store.with_untracked(|ws| ws.top_row);
    let next = (i64::from(top) + rows).clamp(0, i64::from(max)) as u32;
    chart.store.dispatch(Command::ScrollTo(next));
}

/// The wheel: over the labels it scrolls the rows, over the plot it zooms at the cursor.
pub fn on_wheel(chart: &Chart) -> impl Fn(web_sys::WheelEvent) + use<> {
    let chart = chart.clone();
    move |ev| {
        ev.prevent_default();
        let (x, _) = canvas_xy(&chart, &ev);
        let g = chart.geometry();
        if x < g.label_width {
            pan_by(&chart, &g, 0.0, ev.delta_y());
            return;
        }
        let anchor = (x - g.label_width) / g.plot_width();
        if let Some(zoom) = chart.zoom(&g, (ev.delta_y() * 0.002).exp(), anchor) {
            chart.store.dispatch(zoom);
        }
    }
}

/// A press: remembered, and the pointer captured so a drag may leave the canvas.
pub fn on_pointer_down(chart: &Chart) -> impl Fn(web_sys::PointerEvent) + use<> {
    let chart = chart.clone();
    move |ev| {
        let (x, y) = canvas_xy(&chart, &ev);
        chart.local.press.set_value(Some((x, y, ev.shift_key())));
        chart.local.last.set_value(Some((x, y)));
        chart.local.rest.set_value((0.0, 0.0));
        if let Some(canvas) = chart.canvas.get_untracked() {
            let _ = canvas.set_pointer_capture(ev.pointer_id());
        }
    }
}

/// A move: the cursor readout and the hovered event; while pressed, a pan or a range.
pub fn on_pointer_move(chart: &Chart) -> impl Fn(web_sys::PointerEvent) + use<> {
    let chart = chart.clone();
    move |ev| {
        let (x, y) = canvas_xy(&chart, &ev);
        let g = chart.geometry();
        chart.local.cursor_x.set_value(Some(x - g.label_width));
        // Over the label column, the whole label of the row (labels may be cut).
        let label = (x < g.label_width)
            .then(|| {
                chart.with_scene(|scene| {
                    let row = row_at(scene.g, scene.rows.n_rows(), y)?;
                    frame::row_label(scene, row)
                })
            })
            .flatten();
        if chart.local.label.with_untracked(|l| *l != label) {
            chart.local.label.set(label);
        }
        let scale = chart.scale(&g);
        let tick = scale.px_to_time(x - g.label_width);
        // As precise as a pixel: the cursor cannot point finer.
        let clock = chart.trace.clock;
        let labeller = axis::Labeller::new(
            clock,
            scale.window().1,
            axis::step_ticks(&scale, clock, 1.0),
        );
        chart
            .local
            .cursor
            .set(tick.map(|t| match clock.ticks_per_second {
                Some(_) => format!("cursor at {}", labeller.label(t.0 as f64)),
                None => format!("cursor at tick {}", t.0),
            }));
        let Some((x0, y0, selecting)) = chart.local.press.get_value() else {
            let hovered = event_under(&chart, x, y);
            chart
                .store
                .dispatch(Command::Hover(hovered.map(|e| e as u64)));
            return;
        };
        if selecting {
            let n_rows = chart.rows.with_untracked(|r| r.n_rows());
            let rows = match (row_at(&g, n_rows, y0), row_at(&g, n_rows, y)) {
                (Some(a), Some(b)) => (a.min(b), a.max(b)),
                (Some(a), None) | (None, Some(a)) => (a, a),
                (None, None) => return,
            };
            let scale = chart.scale(&g);
            let (t0, t1) = (
                scale.px_to_tick(x0 - g.label_width),
                scale.px_to_tick(x - g.label_width),
            );
            chart.local.dragging.set(Some(RangeMark {
                start: t0.min(t1).max(0.0),
                end: t0.max(t1).max(0.0),
                first_row: rows.0,
                last_row: rows.1,
            }));
            return;
        }
        let Some((lx, ly)) = chart.local.last.get_value() else {
            return;
        };
        chart.local.last.set_value(Some((x, y)));
        pan_by(&chart, &g, x - lx, -(y - ly));
    }
}

/// The event with an icon under `(x, y)`, if any.
fn event_under(chart: &Chart, x: f64, y: f64) -> Option<usize> {
    chart.with_scene(|scene| {
        let row = row_at(scene.g, scene.rows.n_rows(), y)?;
        match scene.rows.rows.get(row)? {
            Row::Process(p) => icons::hit(scene, *p, x),
            Row::Group(_) | Row::Counter(_) => None,
        }
    })
}

/// A release: the end of a range (which joins the workspace) or of a pan, or a click.
pub fn on_pointer_up(chart: &Chart) -> impl Fn(web_sys::PointerEvent) + use<> {
    let chart = chart.clone();
    move |ev| {
        let Some((x0, y0, selecting)) = chart.local.press.get_value() else {
            return;
        };
        chart.local.press.set_value(None);
        let (x, y) = canvas_xy(&chart, &ev);
        let moved = (x - x0).abs() + (y - y0).abs() > CLICK_SLOP_PX;
        if selecting && moved {
            if let Some(mark) = chart.local.dragging.get_untracked() {
                let processes = chart
                    .rows
                    .with_untracked(|r| r.processes_in(mark.first_row, mark.last_row));
                let start = mark.start.floor() as u64;
                chart.store.dispatch(Command::SelectRange(Some(Range {
                    start,
                    end: (mark.end.ceil() as u64).max(start + 1),
                    processes,
                })));
            }
            chart.local.dragging.set(None);
            return;
        }
        chart.local.dragging.set(None);
        if !moved {
            click(&chart, x, y);
        }
    }
}

/// A cancelled press does nothing.
pub fn on_pointer_cancel(chart: &Chart) -> impl Fn(web_sys::PointerEvent) + use<> {
    let chart = chart.clone();
    move |_| {
        chart.local.press.set_value(None);
        chart.local.dragging.set(None);
    }
}

/// A click at `(x, y)`: on a node's label it folds the node; on the plot it selects the event
/// under it, else the path segment, else the region bar, else the state bar (else nothing).
fn click(chart: &Chart, x: f64, y: f64) {
    let path = chart.shown_path_name().zip(chart.shown_path());
    let command = chart.with_scene(|scene| {
        let display_row = row_at(scene.g, scene.rows.n_rows(), y);
        let row = display_row.and_then(|r| scene.rows.rows.get(r).copied());
        if let Some(Row::Group(g)) = row
            && x < scene.g.label_width
        {
            return Command::ToggleGroup(g as u32);
        }
        let process = match row {
            Some(Row::Process(p)) => Some(p),
            _ => None,
        };
        let tick = scene.time_at(x);
        let selection = process
            .and_then(|p| icons::hit(scene, p, x))
            .map(|e| Selection::Event { index: e as u64 })
            .or_else(|| {
                let (name, path) = path.as_ref()?;
                let index = overlays::path_hit(scene, &path.bars, x, y)?;
                Some(Selection::PathSegment {
                    path: *name,
                    index: index as u64,
                })
            })
            .or_else(|| {
                let (p, row) = (process?, display_row?);
                let (depth, _) = regions::hit(scene, (row, p), (x, y))?;
                Some(Selection::Bar {
                    process: p as u32,
                    tick: tick?,
                    depth: Some(depth as u32),
                })
            })
            .or_else(|| {
                let p = process?;
                bars::hit(scene, p, x)?;
                Some(Selection::Bar {
                    process: p as u32,
                    tick: tick?,
                    depth: None,
                })
            });
        Command::Select(selection)
    });
    chart.store.dispatch(command);
}

/// Shows event `event`: its process shown and unfolded, its time in the window, its row in
/// view, and it selected.
pub fn show_event(chart: &Chart, event: usize) {
    let (Some(process), Some(&time)) = (
        chart.model.row_of_event(event),
        chart.model.event_time.get(event),
    ) else {
        return;
    };
    let store = chart.store;
    if !store.with_untracked(|ws| ws.shows_process(process as u32)) {
        store.dispatch(Command::ToggleProcess(process as u32));
    }
    let folded = chart
        .rows
        .with_untracked(|rows| match rows.row_of(process) {
            Some(r) => match rows.rows.get(r) {
                Some(Row::Group(g)) => Some(*g as u32),
                _ => None,
            },
            None => None,
        });
    if let Some(g) = folded {
        store.dispatch(Command::ToggleGroup(g));
    }
    let (start, end) = store.with_untracked(|ws| ws.window);
    if time < start || time >= end {
        let half = (end - start) / 2;
        let from = time.saturating_sub(half);
        store.dispatch(Command::SetWindow(from, from + (end - start)));
    }
    if let Some(row) = chart.rows.with_untracked(|r| r.row_of(process)) {
        let g = chart.geometry();
        let top = store.with_untracked(|ws| ws.top_row) as usize;
        let in_view = ((g.height - g.axis_height) / g.row_height).floor().max(1.0) as usize;
        if row < top || row >= top + in_view {
            let centred = row.saturating_sub(in_view / 2) as u32;
            let max = chart.max_top_row(chart.rows.with_untracked(|r| r.n_rows()));
            store.dispatch(Command::ScrollTo(centred.min(max)));
        }
    }
    store.dispatch(Command::Select(Some(Selection::Event {
        index: event as u64,
    })));
}

/// The keys, as `keys` maps them, while no text field has the focus.
pub fn listen_to_keys(chart: &Chart) {
    let chart = chart.clone();
    let handle = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        let typing = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if typing || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let Some(action) = keys::action(&ev.key()) else {
            return;
        };
        ev.prevent_default();
        let g = chart.geometry();
        let scale = chart.scale(&g);
        let cursor = chart.local.cursor_x.get_value();
        let anchor = cursor.map_or(0.5, |x| (x / g.plot_width()).clamp(0.0, 1.0));
        let cursor_tick = cursor
            .filter(|_| action == KeyAction::Replay && !ev.shift_key())
            .and_then(|x| scale.px_to_time(x))
            .map(|t| t.0);
        let (start, end) = chart.store.with_untracked(|ws| ws.window);
        let command = match keys::command(action, anchor, end - start, cursor_tick) {
            // The keys zoom no finer than the wheel.
            Command::Zoom { factor, anchor } => chart.zoom(&g, factor, anchor),
            other => Some(other),
        };
        if let Some(command) = command {
            chart.store.dispatch(command);
        }
    });
    on_cleanup(move || handle.remove());
}
