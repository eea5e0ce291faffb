//! The canvas and its frame loop: one paint per animation frame whatever changed, the
//! vertical scrollbar that follows the workspace's scroll, and the viewport requests a frame
//! of a server-drawn run wanted.

use leptos::prelude::*;
use wasm_bindgen::JsCast as _;
use web_sys::CanvasRenderingContext2d;

use super::chart::Chart;
use super::input;
use super::paint;
use super::panels;
use super::remote::Views;
use super::scene::context::Scene;
use super::scene::overlays::AreaBar;
use super::scene::selection::{Marks, RangeMark};
use super::scene::{Overlays, layout};
use crate::api;
use crate::workspace::Command;
use shared::view::state::Overlay;

/// The page's clock in milliseconds (`performance.now()`).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Appends a frame's layout-and-paint time to the array `window[name]` when a measurement
/// (the frame-time benchmark) has put one there; otherwise does nothing.
pub fn record_frame_time(name: &str, ms: f64) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(times) = js_sys::Reflect::get(&window, &name.into()) else {
        return;
    };
    if let Ok(times) = times.dyn_into::<js_sys::Array>() {
        times.push(&ms.into());
    }
}

/// What the workspace asks to draw over the bars, as the scene takes it.
fn overlays(chart: &Chart) -> Overlays {
    let rows = chart.rows.get_untracked();
    let dragging = chart.local.dragging.get_untracked();
    chart.store.with_untracked(|ws| {
        let range = dragging.or_else(|| {
            let range = ws.range.as_ref()?;
            let (first_row, last_row) = rows.rows_of(&range.processes)?;
            Some(RangeMark {
                start: range.start as f64,
                end: range.end as f64,
                first_row,
                last_row,
            })
        });
        let index = |e: Option<u64>| e.and_then(|e| usize::try_from(e).ok());
        Overlays {
            path: chart.shown_path().map(|p| p.bars).unwrap_or_default(),
            waits: if ws.has_overlay(Overlay::WaitStates) {
                chart.waits.get_untracked().to_vec()
            } else {
                Vec::new()
            },
            marks: Marks {
                range,
                selected: index(ws.selected_event()),
                hovered: index(ws.hovered),
                replay: ws.replay,
            },
            region: ws.region_filter(),
            hide_messages: ws.hides_messages(),
            areas: area_bars(chart, ws.selected_event()),
            kept: chart.data.kept.get_untracked(),
        }
    })
}

/// The selected event's causal past and future, once the Hasse view has computed them.
fn area_bars(chart: &Chart, selected: Option<u64>) -> Vec<AreaBar> {
    chart.data.areas.with_untracked(|areas| {
        let Some(spans) = areas.as_ref().filter(|s| Some(s.event) == selected) else {
            return Vec::new();
        };
        let bar = |past: bool| {
            move |&(process, start, end): &(usize, u64, u64)| AreaBar {
                process,
                start,
                end,
                past,
            }
        };
        spans
            .pre
            .iter()
            .map(bar(true))
            .chain(spans.post.iter().map(bar(false)))
            .collect()
    })
}

/// Where a pointer event is on `canvas`, in CSS pixels from its top left corner.
pub fn point_in(canvas: &web_sys::HtmlCanvasElement, ev: &web_sys::MouseEvent) -> (f64, f64) {
    let rect = canvas.get_bounding_client_rect();
    (
        f64::from(ev.client_x()) - rect.left(),
        f64::from(ev.client_y()) - rect.top(),
    )
}

/// Saves `href` (a data URL) as the file `name`, through a temporary link.
pub fn download(href: &str, name: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = document.create_element("a") else {
        return;
    };
    let _ = a.set_attribute("href", href);
    let _ = a.set_attribute("download", name);
    if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
        a.click();
    }
}

/// The 2D context of `canvas` sized for `width` × `height` CSS pixels at the device's pixel
/// ratio, its transform mapping CSS pixels to device pixels. Resizing a canvas reallocates and
/// clears its bitmap, so it is resized only when its size changed.
pub fn context_for(
    canvas: &web_sys::HtmlCanvasElement,
    width: f64,
    height: f64,
) -> Option<CanvasRenderingContext2d> {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let (w, h) = ((width * dpr).round() as u32, (height * dpr).round() as u32);
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    let ctx = canvas
        .get_context("2d")
        .ok()??
        .dyn_into::<CanvasRenderingContext2d>()
        .ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    Some(ctx)
}

/// The frame as it is drawn now: the display list the painter replays.
pub fn display_list(chart: &Chart) -> Vec<super::scene::draw::DrawItem> {
    let g = chart.geometry();
    let scale = chart.scale(&g);
    let rows = chart.rows.get_untracked();
    let overlays = overlays(chart);
    let draw = |views: &dyn Views| {
        let scene = Scene::new(&chart.model, &rows, views, &scale, &g);
        layout(&scene, &overlays)
    };
    match chart.remote {
        Some(remote) => remote.with_value(|r| draw(r)),
        None => draw(&chart.model.index),
    }
}

/// Paints one frame now.
fn paint_now(chart: &Chart) {
    let Some(Some(canvas)) = chart.canvas.try_get_untracked() else {
        return;
    };
    let began = now_ms();
    let g = chart.geometry();
    let scale = chart.scale(&g);
    let Some(ctx) = context_for(&canvas, g.width, g.height) else {
        return;
    };
    paint::paint(&ctx, g.width, g.height, &display_list(chart));
    note_whole_frame(chart, g.width);
    fetch_wanted(chart);
    record_frame_time("__tracescopeFrameTimes", now_ms() - began);
    publish_axis(chart, &canvas, &g, &scale);
    if chart.local.width.get_untracked() != g.width {
        chart.local.width.set(g.width);
    }
    chart.local.paint_count.update(|n| *n += 1);
}

/// Notes the first frame painted whole — drawn from the model in the browser, or with every
/// viewport answer it asked the server for — on a visible canvas: the page's first real paint.
fn note_whole_frame(chart: &Chart, width: f64) {
    if chart.local.drawn_at.get_untracked().is_some() || width <= 0.0 {
        return;
    }
    let whole = chart
        .remote
        .is_none_or(|remote| remote.with_value(|r| !r.has_wanted()));
    if whole {
        chart.local.drawn_at.set(Some(now_ms()));
        chart.data.drawn.set(true);
    }
}

/// Writes the axis's labels and where they start (canvas CSS pixels) into `data-axis`, for
/// tests and tools to read what the canvas shows; only when they changed.
fn publish_axis(
    chart: &Chart,
    canvas: &web_sys::HtmlCanvasElement,
    g: &super::scene::geometry::Geometry,
    scale: &super::time_scale::TimeScale,
) {
    // The labels follow the scale and the label column only: nothing to do when neither moved.
    let key = (*scale, g.label_width);
    if chart.local.axis_key.get_value() == Some(key) {
        return;
    }
    chart.local.axis_key.set_value(Some(key));
    let labels: Vec<(String, f64)> = super::axis::ticks(scale, chart.model.clock)
        .into_iter()
        .map(|t| (t.label, (g.label_width + t.label_x).round()))
        .collect();
    let text = serde_json::to_string(&labels).unwrap_or_default();
    if canvas.get_attribute("data-axis").as_deref() != Some(text.as_str()) {
        let _ = canvas.set_attribute("data-axis", &text);
        let _ = canvas.set_attribute("data-plot-left", &g.label_width.to_string());
    }
}

/// Asks the server for the viewports the last frame wanted; each answer repaints.
fn fetch_wanted(chart: &Chart) {
    let (Some(remote), Some(id)) = (chart.remote, chart.run_id.clone()) else {
        return;
    };
    let in_flight = chart.local.in_flight;
    for request in remote.with_value(|r| r.take_wanted()) {
        let key = (
            request.start,
            request.end,
            request.first_row,
            request.last_row,
            request.width_px,
        );
        let mut fresh = false;
        in_flight.update_value(|set| fresh = set.insert(key));
        if !fresh {
            continue;
        }
        let id = id.clone();
        let (answers, error) = (chart.local.answers, chart.local.error);
        leptos::task::spawn_local(async move {
            let answer = api::get_viewport(&id, &request).await;
            // The chart may be gone by now (built again on the model that arrived meanwhile,
            // or the page left): its stored values are disposed, and reading them would panic.
            in_flight.try_update_value(|set| {
                set.remove(&key);
            });
            match answer {
                Ok(view) => {
                    if remote
                        .try_with_value(|r| r.insert(&request, view))
                        .is_some()
                    {
                        answers.try_update(|n| *n += 1);
                    }
                }
                Err(message) => {
                    error.try_set(Some(message));
                }
            }
        });
    }
}

/// One paint per animation frame, whatever changed; a resize repaints too.
pub fn schedule_paints(chart: &Chart) {
    let resized = RwSignal::new(0u32);
    Effect::new({
        let chart = chart.clone();
        move |_| {
            chart.store.track();
            chart.rows.track();
            chart.paths.track();
            chart.waits.track();
            chart.local.answers.track();
            chart.local.dragging.track();
            chart.data.areas.track();
            chart.data.kept.track();
            resized.track();
            if chart.canvas.get().is_none() || chart.local.frame_pending.get_value() {
                return;
            }
            chart.local.frame_pending.set_value(true);
            let chart = chart.clone();
            request_animation_frame(move || {
                // The chart asked for this frame may be gone by now (the run swapped for its
                // repaired clocks, the page left): its signals are disposed, and reading them
                // would panic.
                if chart.local.width.is_disposed() {
                    return;
                }
                chart.local.frame_pending.set_value(false);
                paint_now(&chart);
            });
        }
    });
    count_resizes(resized);
}

/// Counts the window's resizes in `resized` (a view repaints when it changes) until the
/// calling component is cleaned up.
pub fn count_resizes(resized: RwSignal<u32>) {
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n += 1);
    });
    on_cleanup(move || resize.remove());
}

/// The canvas, its scrollbar, the pop-up and the help, with the attributes the tests read.
pub fn stage(chart: &Chart) -> impl IntoView + use<> {
    let scroller = NodeRef::<leptos::html::Div>::new();
    let (store, rows, height) = (chart.store, chart.rows, chart.height);
    let row_height = super::scene::geometry::Geometry::new(0.0, 0.0).row_height;
    let max_top = {
        let chart = chart.clone();
        move || chart.max_top_row(rows.with(|r| r.n_rows()))
    };
    let scroll_px = {
        let max_top = max_top.clone();
        move || f64::from(store.with(|ws| ws.top_row).min(max_top())) * row_height
    };
    // The scrollbar follows the rows however they were scrolled (drag, wheel, a link).
    Effect::new({
        let scroll_px = scroll_px.clone();
        move |_| {
            let y = scroll_px();
            if let Some(el) = scroller.get()
                && (f64::from(el.scroll_top()) - y).abs() >= 1.0
            {
                el.set_scroll_top(y.round() as i32);
            }
        }
    });
    let paths = chart.paths;
    let (paint_count, label) = (chart.local.paint_count, chart.local.label);
    let drawn_at = chart.local.drawn_at;
    let path_segments = {
        let chart = chart.clone();
        move || {
            store.track();
            paths.track();
            chart.shown_path().map(|p| p.bars.len().to_string())
        }
    };
    let (max_top_style, max_top_height) = (max_top.clone(), max_top.clone());
    view! {
        <div class="gantt-stage">
            <canvas
                node_ref=chart.canvas
                class="gantt-canvas"
                style=format!("height: {height}px")
                data-testid="gantt-canvas"
                data-paint-count=move || paint_count.get().to_string()
                data-drawn-at=move || drawn_at.get().map(|t| format!("{t:.0}"))
                data-rows=move || rows.with(|r| r.n_rows()).to_string()
                data-scroll=move || scroll_px().round().to_string()
                data-window=move || store.with(|ws| format!("{}-{}", ws.window.0, ws.window.1))
                data-path-segments=path_segments
                title=move || label.get()
                on:wheel=input::on_wheel(chart)
                on:pointerdown=input::on_pointer_down(chart)
                on:pointermove=input::on_pointer_move(chart)
                on:pointerup=input::on_pointer_up(chart)
                on:pointercancel=input::on_pointer_cancel(chart)
                on:pointerleave=move |_| store.dispatch(Command::Hover(None))
            ></canvas>
            <div
                node_ref=scroller
                class="gantt-vscroll"
                data-testid="gantt-scrollbar"
                style=move || format!(
                    "height: {height}px; visibility: {}",
                    if max_top_style() > 0 { "visible" } else { "hidden" }
                )
                on:scroll=move |_| {
                    if let Some(el) = scroller.get_untracked() {
                        let row = (f64::from(el.scroll_top()) / row_height).round() as u32;
                        store.dispatch(Command::ScrollTo(row.min(max_top())));
                    }
                }
            >
                <div style=move || {
                    rows.track();
                    format!("height: {}px", height + f64::from(max_top_height()) * row_height)
                }></div>
            </div>
            {panels::popup(chart)}
            {panels::help(chart)}
        </div>
    }
}
