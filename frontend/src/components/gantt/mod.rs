//! The Gantt chart: one row per process, computing and blocked bars, message arrows, a time axis.
//!
//! The layout ([`layout`]) and the viewport ([`time_scale`]) are plain Rust; this component only
//! holds the viewport in a signal, turns wheel and drag input into viewport changes, and paints
//! once per animation frame.

pub mod layout;
pub mod paint;
pub mod time_scale;

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use shared::Trace;
use wasm_bindgen::JsCast as _;
use web_sys::CanvasRenderingContext2d;

use layout::{GanttModel, Geometry};
use time_scale::TimeScale;

/// The canvas height for `n_rows` rows, capped so very tall traces scroll inside the canvas.
fn canvas_height(n_rows: usize) -> f64 {
    Geometry::new(0.0, 0.0)
        .content_height(n_rows)
        .clamp(120.0, 640.0)
        + 8.0
}

/// Draws `trace` as a zoomable Gantt chart, opening at `initial_window` (ticks `[start, end)`)
/// when given, and writing the window it shows, in whole ticks, into `window` when given.
///
/// ```ignore
/// view! { <GanttChart trace=Arc::new(trace)/> }
/// ```
#[component]
pub fn GanttChart(
    trace: Arc<Trace>,
    #[prop(default = None)] initial_window: Option<(u64, u64)>,
    #[prop(optional)] window: Option<RwSignal<Option<(u64, u64)>>>,
) -> impl IntoView {
    let model = Arc::new(GanttModel::new(&trace));
    let n_rows = model.rows.len();
    let height = canvas_height(n_rows);
    let canvas_ref = NodeRef::<Canvas>::new();
    // `None` until the canvas has a width: the first paint fits the whole trace.
    let scale = RwSignal::new(None::<TimeScale>);
    let scroll_y = RwSignal::new(0.0f64);
    let paint_count = RwSignal::new(0u32);
    let shown_window = RwSignal::new(None::<(u64, u64)>);
    let cursor = RwSignal::new(None::<String>);
    let drag = Rc::new(Cell::new(None::<(f64, f64)>));
    let frame_pending = Rc::new(Cell::new(false));
    // Consumed by the first paint; "Fit" later shows the whole trace.
    let opening = Rc::new(Cell::new(initial_window));

    let geometry = move |canvas: &web_sys::HtmlCanvasElement| {
        let mut g = Geometry::new(f64::from(canvas.client_width()), height);
        let max_scroll = (g.content_height(n_rows) - height).max(0.0);
        g.scroll_y = scroll_y.get_untracked().clamp(0.0, max_scroll);
        g
    };

    let paint_now = {
        let model = Arc::clone(&model);
        move || {
            let Some(canvas) = canvas_ref.get_untracked() else {
                return;
            };
            let g = geometry(&canvas);
            let current = match (scale.get_untracked(), opening.take()) {
                (_, Some((start, end))) => TimeScale::fit(
                    shared::time::Time(start),
                    shared::time::Time(end),
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
            paint::paint(
                &ctx,
                g.width,
                g.height,
                &layout::layout(&model, &current, &g),
            );
            if scale.get_untracked() != Some(current) {
                scale.set(Some(current));
            }
            let (start, end) = current.window();
            let shown = (start.max(0.0).round() as u64, end.max(0.0).round() as u64);
            shown_window.set(Some(shown));
            if let Some(window) = window {
                window.set(Some(shown));
            }
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
    let resize = window_event_listener(leptos::ev::resize, move |_| scale.update(|_| {}));
    on_cleanup(move || resize.remove());

    let plot_x = move |ev: &web_sys::MouseEvent| {
        let left = canvas_ref
            .get_untracked()
            .map_or(0.0, |c| c.get_bounding_client_rect().left());
        f64::from(ev.client_x()) - left - Geometry::new(0.0, 0.0).label_width
    };
    let on_wheel = move |ev: web_sys::WheelEvent| {
        ev.prevent_default();
        let factor = (ev.delta_y() * 0.002).exp();
        let anchor = plot_x(&ev);
        scale.update(|s| *s = s.map(|s| s.zoomed(factor, anchor)));
    };
    let on_pointer_down = {
        let drag = Rc::clone(&drag);
        move |ev: web_sys::PointerEvent| {
            drag.set(Some((f64::from(ev.client_x()), f64::from(ev.client_y()))));
            if let Some(canvas) = canvas_ref.get_untracked() {
                let _ = canvas.set_pointer_capture(ev.pointer_id());
            }
        }
    };
    let on_pointer_move = {
        let drag = Rc::clone(&drag);
        let model = Arc::clone(&model);
        move |ev: web_sys::PointerEvent| {
            let readout = scale
                .get_untracked()
                .and_then(|s| s.px_to_time(plot_x(&ev)));
            cursor.set(readout.map(|t| match model.clock.ticks_per_second {
                Some(_) => format!(
                    "cursor at {}",
                    model.clock.format_duration(shared::time::Duration(t.0))
                ),
                None => format!("cursor at tick {}", t.0),
            }));
            let Some((x0, y0)) = drag.get() else { return };
            let (x, y) = (f64::from(ev.client_x()), f64::from(ev.client_y()));
            drag.set(Some((x, y)));
            scale.update(|s| *s = s.map(|s| s.panned(x - x0)));
            let max_scroll = (Geometry::new(0.0, 0.0).content_height(n_rows) - height).max(0.0);
            scroll_y.update(|sy| *sy = (*sy - (y - y0)).clamp(0.0, max_scroll));
        }
    };
    let on_pointer_up = move |_: web_sys::PointerEvent| drag.set(None);
    let fit = move |_| scale.set(None);

    view! {
        <div class="gantt">
            <div class="gantt-toolbar">
                <button on:click=fit title="Show the whole trace">"Fit"</button>
                <span class="hint">"Wheel to zoom at the cursor, drag to pan."</span>
                <span class="readout" data-testid="cursor-readout">{move || cursor.get()}</span>
            </div>
            <canvas
                node_ref=canvas_ref
                class="gantt-canvas"
                style=format!("height: {height}px")
                data-testid="gantt-canvas"
                data-paint-count=move || paint_count.get().to_string()
                data-window=move || shown_window.get().map(|(a, b)| format!("{a}-{b}"))
                on:wheel=on_wheel
                on:pointerdown=on_pointer_down
                on:pointermove=on_pointer_move
                on:pointerup=on_pointer_up.clone()
                on:pointercancel=on_pointer_up
            ></canvas>
            <div class="gantt-legend">
                <span class="swatch" style=format!("background: {}", layout::colors::COMPUTING)></span>"computing"
                <span class="swatch" style=format!("background: {}", layout::colors::BLOCKED)></span>"blocked in receive"
                <span class="swatch arrow" style=format!("background: {}", layout::colors::MESSAGE)></span>"message"
            </div>
        </div>
    }
}
