//! The analysis panels' charts, as SVG: histograms with their quartiles, the parallelism
//! profile, and a what-if scenario's measured and predicted runs on one time scale. Each chart
//! saves as SVG or PNG.

use leptos::prelude::*;
use shared::Trace;
use shared::analyses::metrics::ParallelismProfile;
use shared::analyses::whatif::WhatIf;
use shared::model::time::Time;
use shared::view::selection::SubjectHistogram;
use wasm_bindgen::JsCast as _;

use crate::components::gantt::axis;
use crate::components::gantt::canvas;
use crate::components::gantt::time_scale::TimeScale;

/// A chart's plot width and the margin left of it, in CSS pixels.
const WIDTH: f64 = 440.0;
const LEFT: f64 = 44.0;
const XMLNS: &str = "http://www.w3.org/2000/svg";

/// A panel holding one chart, with SVG and PNG downloads of it.
fn chart_panel(id: String, title: String, chart: AnyView, note: Option<String>) -> AnyView {
    let (panel_id, svg_test, png_test) = (
        format!("panel-{id}"),
        format!("svg-{id}"),
        format!("png-{id}"),
    );
    let (for_svg, for_png) = (id.clone(), id.clone());
    view! {
        <section class="analysis-panel" data-testid=panel_id>
            <header>
                <h3>{title}</h3>
                <span>
                    <button class="csv" data-testid=svg_test title="Save this chart as SVG"
                        on:click=move |_| save_svg(&for_svg)>"SVG"</button>
                    " "
                    <button class="csv" data-testid=png_test title="Save this chart as PNG"
                        on:click=move |_| save_png(&for_png)>"PNG"</button>
                </span>
            </header>
            <div class="chart" data-chart=id>{chart}</div>
            {note.map(|n| view! { <p class="analysis-note">{n}</p> })}
        </section>
    }
    .into_any()
}

/// The chart `id`'s SVG element as a standalone document.
fn svg_text(id: &str) -> Option<String> {
    let document = web_sys::window()?.document()?;
    let svg = document
        .query_selector(&format!("[data-chart=\"{id}\"] svg"))
        .ok()??;
    web_sys::XmlSerializer::new()
        .ok()?
        .serialize_to_string(&svg)
        .ok()
}

fn svg_url(svg: &str) -> String {
    format!(
        "data:image/svg+xml;charset=utf-8,{}",
        js_sys::encode_uri_component(svg)
    )
}

/// Saves chart `id` as `id.svg`.
fn save_svg(id: &str) {
    if let Some(svg) = svg_text(id) {
        canvas::download(&svg_url(&svg), &format!("{id}.svg"));
    }
}

/// Saves chart `id` as `id.png` at twice its size: the SVG drawn on a canvas once loaded.
fn save_png(id: &str) {
    let Some(svg) = svg_text(id) else {
        return;
    };
    let Ok(image) = web_sys::HtmlImageElement::new() else {
        return;
    };
    let name = format!("{id}.png");
    let loaded = image.clone();
    let onload = wasm_bindgen::closure::Closure::once_into_js(move || {
        let (w, h) = (
            loaded.natural_width().max(1),
            loaded.natural_height().max(1),
        );
        let Some(canvas) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.create_element("canvas").ok())
            .and_then(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        canvas.set_width(2 * w);
        canvas.set_height(2 * h);
        let Some(ctx) = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
        else {
            return;
        };
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(0.0, 0.0, f64::from(2 * w), f64::from(2 * h));
        let _ = ctx.draw_image_with_html_image_element_and_dw_and_dh(
            &loaded,
            0.0,
            0.0,
            f64::from(2 * w),
            f64::from(2 * h),
        );
        if let Ok(href) = canvas.to_data_url_with_type("image/png") {
            canvas::download(&href, &name);
        }
    });
    image.set_onload(Some(onload.unchecked_ref()));
    image.set_src(&svg_url(&svg));
}

/// A value axis's labels: `(value, text)` at round steps across `[start, end]`.
fn value_ticks(start: f64, end: f64, unit: &str, trace: &Trace) -> Vec<(f64, String)> {
    if unit == "ticks" {
        let scale = TimeScale::fit(
            Time(start.max(0.0) as u64),
            Time(end.max(0.0) as u64),
            WIDTH,
        );
        return axis::ticks(&scale, trace.clock)
            .into_iter()
            .map(|t| (t.tick, t.label))
            .collect();
    }
    let step = axis::nice_step((end - start) / 5.0);
    let first = (start / step).ceil() * step;
    (0..)
        .map(|k| first + f64::from(k) * step)
        .take_while(|v| *v <= end + 1e-9)
        .map(|v| (v, bytes_text(v)))
        .collect()
}

/// A byte count in decimal units (kB, MB, GB), so round values read round.
fn bytes_text(v: f64) -> String {
    let (value, unit) = match v.abs() {
        a if a >= 1e9 => (v / 1e9, "GB"),
        a if a >= 1e6 => (v / 1e6, "MB"),
        a if a >= 1e3 => (v / 1e3, "kB"),
        _ => (v, "B"),
    };
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

/// A histogram with its quartiles marked (Q1, median, Q3 dashed; the median solid).
pub fn histogram(trace: &Trace, h: &SubjectHistogram) -> AnyView {
    const HEIGHT: f64 = 110.0;
    let hist = &h.histogram;
    let end = hist.start + hist.width * hist.counts.len() as f64;
    let scale = TimeScale::fit(
        Time(hist.start.max(0.0) as u64),
        Time(end.max(0.0) as u64),
        WIDTH,
    );
    let x = |v: f64| LEFT + scale.tick_to_px(v);
    let most = hist.counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let bars = hist
        .counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(k, &c)| {
            let from = hist.start + hist.width * k as f64;
            let (x0, x1) = (x(from), x(from + hist.width));
            let bar = HEIGHT * c as f64 / most;
            let title = format!("{c} in [{}, {})", label(trace, &h.unit, from), label(trace, &h.unit, from + hist.width));
            view! {
                <rect x=x0 + 0.5 y=HEIGHT - bar + 8.0 width=(x1 - x0 - 1.0).max(1.0) height=bar fill="#5b8def"><title>{title}</title></rect>
            }
        })
        .collect_view();
    let s = hist.summary;
    let marks = [(s.q1, "Q1", "4 3"), (s.median, "median", ""), (s.q3, "Q3", "4 3")]
        .into_iter()
        .map(|(v, name, dash)| {
            view! {
                <line x1=x(v) x2=x(v) y1=4.0 y2=HEIGHT + 8.0 stroke="#c0392b" stroke-width=1.5 stroke-dasharray=dash>
                    <title>{format!("{name} {}", label(trace, &h.unit, v))}</title>
                </line>
            }
        })
        .collect_view();
    let ticks = value_ticks(hist.start, end, &h.unit, trace)
        .into_iter()
        .map(|(v, text)| {
            view! {
                <line x1=x(v) x2=x(v) y1=HEIGHT + 8.0 y2=HEIGHT + 12.0 stroke="#888"/>
                <text x=x(v) y=HEIGHT + 24.0 font-size="11" text-anchor="middle" fill="#555">{text}</text>
            }
        })
        .collect_view();
    let title = format!(
        "{} {} ({})",
        h.subject,
        h.name,
        if h.unit == "bytes" {
            "bytes"
        } else {
            "duration"
        }
    );
    let chart = view! {
        <svg xmlns=XMLNS width=LEFT + WIDTH + 16.0 height=HEIGHT + 32.0 role="img" aria-label=title.clone()>
            <rect x="0" y="0" width=LEFT + WIDTH + 16.0 height=HEIGHT + 32.0 fill="#ffffff"/>
            <text x="4" y="16" font-size="11" fill="#555">{format!("{}", hist.counts.iter().copied().max().unwrap_or(0))}</text>
            <text x="4" y=HEIGHT + 8.0 font-size="11" fill="#555">"0"</text>
            <line x1=LEFT x2=LEFT + WIDTH y1=HEIGHT + 8.0 y2=HEIGHT + 8.0 stroke="#888"/>
            {bars}
            {marks}
            {ticks}
        </svg>
    }
    .into_any();
    let note = format!(
        "{} values · Q1 {} · median {} · Q3 {} · max {} (quartiles of type 7; red lines)",
        s.count,
        label(trace, &h.unit, s.q1),
        label(trace, &h.unit, s.median),
        label(trace, &h.unit, s.q3),
        label(trace, &h.unit, s.max)
    );
    let id = format!(
        "histogram-{}-{}",
        h.subject,
        h.name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>()
    );
    chart_panel(id, title, chart, Some(note))
}

/// A value of a histogram's unit as text.
fn label(trace: &Trace, unit: &str, v: f64) -> String {
    if unit == "bytes" {
        bytes_text(v)
    } else {
        crate::components::gantt::details::time_text(trace, v.round().max(0.0) as u64)
    }
}

/// The parallelism profile: the share of the run with k processors busy, k = 0…n.
pub fn parallelism(profile: &ParallelismProfile) -> AnyView {
    const HEIGHT: f64 = 90.0;
    let total: u64 = profile.time_with.iter().sum::<u64>().max(1);
    let n = profile.time_with.len().max(1);
    let slot = (WIDTH / n as f64).min(48.0);
    let bars = profile
        .time_with
        .iter()
        .enumerate()
        .map(|(k, &t)| {
            let share = t as f64 / total as f64;
            let bar = HEIGHT * share;
            let x = LEFT + slot * k as f64;
            let every = (n / 12).max(1);
            view! {
                <rect x=x + 1.0 y=HEIGHT - bar + 8.0 width=(slot - 2.0).max(1.0) height=bar fill="#2e9e6a">
                    <title>{format!("{k} busy: {:.1} % of the run", 100.0 * share)}</title>
                </rect>
                {(k % every == 0).then(|| view! {
                    <text x=x + slot / 2.0 y=HEIGHT + 22.0 font-size="11" text-anchor="middle" fill="#555">{k}</text>
                })}
            }
        })
        .collect_view();
    let chart = view! {
        <svg xmlns=XMLNS width=LEFT + slot * n as f64 + 16.0 height=HEIGHT + 30.0 role="img" aria-label="parallelism profile">
            <rect x="0" y="0" width=LEFT + slot * n as f64 + 16.0 height=HEIGHT + 30.0 fill="#ffffff"/>
            <text x="4" y="16" font-size="11" fill="#555">"100 %"</text>
            <text x="4" y=HEIGHT + 8.0 font-size="11" fill="#555">"0"</text>
            <line x1=LEFT x2=LEFT + slot * n as f64 y1=HEIGHT + 8.0 y2=HEIGHT + 8.0 stroke="#888"/>
            {bars}
        </svg>
    }
    .into_any();
    chart_panel(
        "parallelism".to_owned(),
        format!(
            "Parallelism profile (mean {:.2} processors busy)",
            profile.mean
        ),
        chart,
        Some("Share of the run's time with k processors busy, k = 0, 1, … across.".to_owned()),
    )
}

/// The most processes the what-if chart draws a row for.
const WHAT_IF_ROWS: usize = 24;

/// A scenario's run drawn twice on one time scale: measured (above) and predicted (below),
/// each process's computations as bars and the run's end as a line.
pub fn what_if(trace: &Trace, w: &WhatIf) -> AnyView {
    const ROW: f64 = 14.0;
    /// Room for the process names left of the plot.
    const NAMES: f64 = 96.0;
    let shown: Vec<u32> = w
        .processes
        .iter()
        .take(WHAT_IF_ROWS)
        .map(|p| p.process.0)
        .collect();
    let rows = shown.len().max(1) as f64;
    let lane = rows * ROW;
    let end = w.baseline.max(w.execution_time).max(1.0);
    let scale = TimeScale::fit(Time(0), Time(end.ceil() as u64), WIDTH);
    let x = |t: f64| NAMES + scale.tick_to_px(t);
    let tops = [18.0, 18.0 + lane + 30.0];
    let mut bars = Vec::new();
    for s in &w.spans {
        let Some(row) = shown.iter().position(|&p| p == s.process.0) else {
            continue;
        };
        for (top, (a, b), color) in [
            (tops[0], s.measured, "#5b8def"),
            (tops[1], s.predicted, "#e67e22"),
        ] {
            let y = top + row as f64 * ROW + 2.0;
            bars.push(view! {
                <rect x=x(a) y=y width=(x(b) - x(a)).max(0.5) height=ROW - 4.0 fill=color/>
            });
        }
    }
    let names = shown
        .iter()
        .enumerate()
        .flat_map(|(row, &p)| {
            let name = trace
                .processes
                .get(p as usize)
                .map_or_else(|| p.to_string(), |p| p.name.clone());
            tops.map(|top| {
                view! {
                    <text x=NAMES - 4.0 y=top + row as f64 * ROW + ROW / 2.0 + 4.0 font-size="11" text-anchor="end" fill="#333">{name.clone()}</text>
                }
            })
        })
        .collect_view();
    let ends = [
        (tops[0], w.baseline, "measured"),
        (tops[1], w.execution_time, "predicted"),
    ]
    .map(|(top, t, what)| {
        view! {
            <text x=NAMES y=top - 5.0 font-size="11" fill="#333">{format!("{what}: ends at {}", crate::components::gantt::details::time_text(trace, t.round().max(0.0) as u64))}</text>
            <line x1=x(t) x2=x(t) y1=top y2=top + lane stroke="#c0392b" stroke-width=1.5/>
        }
    });
    let axis_y = tops[1] + lane + 4.0;
    let ticks = axis::ticks(&scale, trace.clock)
        .into_iter()
        .map(|t| {
            view! {
                <line x1=x(t.tick) x2=x(t.tick) y1=tops[0] y2=axis_y stroke="#e3e5ea"/>
                <text x=x(t.tick) y=axis_y + 12.0 font-size="11" text-anchor="middle" fill="#555">{t.label}</text>
            }
        })
        .collect_view();
    let height = axis_y + 20.0;
    let chart = view! {
        <svg xmlns=XMLNS width=NAMES + WIDTH + 16.0 height=height role="img" aria-label="measured and predicted runs">
            <rect x="0" y="0" width=NAMES + WIDTH + 16.0 height=height fill="#ffffff"/>
            {ticks}
            {bars}
            {names}
            {ends}
        </svg>
    }
    .into_any();
    let hidden = w.processes.len().saturating_sub(WHAT_IF_ROWS);
    chart_panel(
        "what-if-chart".to_owned(),
        "Measured and predicted runs (computations)".to_owned(),
        chart,
        Some(if hidden > 0 {
            format!("The first {WHAT_IF_ROWS} processes; {hidden} more not drawn.")
        } else {
            "Blue: as recorded; orange: as the scenario predicts. One time scale.".to_owned()
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::bytes_text;

    #[test]
    fn byte_counts_read_round() {
        let texts: Vec<String> = [0.0, 800.0, 2000.0, 2500.0, 4_177_920.0, 3e9]
            .into_iter()
            .map(bytes_text)
            .collect();
        assert_eq!(texts, ["0 B", "800 B", "2 kB", "2.5 kB", "4.18 MB", "3 GB"]);
    }
}
