//! What surrounds the canvas: the toolbar (fit, overlays, filters, the process picker), the
//! pop-up of the selection, the help, the legends, the WCPA phase table and the selected
//! range's statistics. Each reads the workspace and changes it only by commands.

use std::sync::Arc;

use leptos::prelude::*;
use shared::view::state::{Filter, Overlay, Panel, PathName, Selection};

use super::chart::{Chart, RangeStats};
use super::details;
use super::input;
use super::keys;
use super::palette::name_color;
use super::scene::draw::{bytes_text, colors};
use super::scene::icons;
use super::scene::regions as scene_regions;
use crate::workspace::Command;

/// The most processes the picker lists.
const PICKER_PROCESSES: usize = 2_000;

/// At most this many regions are named in the legend.
const LEGEND_REGIONS: usize = 40;

/// A toggle button of an overlay.
fn overlay_button(
    chart: &Chart,
    overlay: Overlay,
    label: &'static str,
    testid: &'static str,
    title: &'static str,
) -> impl IntoView + use<> {
    let store = chart.store;
    let (remote, data, bounds) = (
        chart.remote.is_some(),
        chart.data,
        store.with_untracked(|ws| ws.bounds),
    );
    view! {
        <button
            data-testid=testid
            disabled=remote
            title=title
            aria-pressed=move || store.with(|ws| ws.has_overlay(overlay)).to_string()
            on:click=move |_| {
                match overlay {
                    Overlay::WaitStates => data.load_waits(bounds),
                    Overlay::CriticalPath | Overlay::Wcpa => data.load_report(),
                }
                store.dispatch(Command::ToggleOverlay(overlay));
            }
        >{label}</button>
    }
}

/// The toolbar: fit, the overlays, the filters, the processes, the help, and the readouts.
/// The chart's toolbar; `exports` are the buttons that save the chart.
pub fn toolbar<E: IntoView + 'static>(chart: &Chart, exports: E) -> impl IntoView + use<E> {
    let store = chart.store;
    let (trace, error, cursor) = (chart.trace.clone(), chart.local.error, chart.local.cursor);
    let n = chart.model.rows.len();
    let shown = move || store.with(|ws| ws.processes.as_ref().map_or(n, Vec::len));
    view! {
        <div class="gantt-toolbar">
            <button on:click=move |_| store.dispatch(Command::Fit) title="Fit the selected range, or the whole trace (F)">"Fit"</button>
            {overlay_button(chart, Overlay::CriticalPath, "Critical path", "toggle-critical-path", "Highlight the critical path")}
            {overlay_button(chart, Overlay::Wcpa, "WCPA", "toggle-wcpa", "Highlight the weighted critical path in its phases' colours")}
            {overlay_button(chart, Overlay::WaitStates, "Wait states", "toggle-waits", "Mark where processes lost time waiting (Late Sender, Late Receiver, collectives)")}
            {region_filter(chart)}
            <button
                data-testid="toggle-messages"
                aria-pressed=move || store.with(|ws| !ws.hides_messages()).to_string()
                title="Show or hide the message arrows"
                on:click=move |_| store.dispatch(Command::ToggleFilter(Filter::HideMessages))
            >"Messages"</button>
            <button
                data-testid="toggle-processes"
                aria-pressed=move || store.with(|ws| ws.has_panel(Panel::Processes)).to_string()
                title="Choose which processes have rows"
                on:click=move |_| store.dispatch(Command::TogglePanel(Panel::Processes))
            >{move || format!("Processes ({}/{n})", shown())}</button>
            {fold_buttons(chart)}
            {row_filter(chart)}
            {exports}
            <button on:click=move |_| store.dispatch(Command::TogglePanel(Panel::Help)) title="Every shortcut (?)">"?"</button>
            {chart.remote.is_some().then(|| view! {
                <span class="readout" data-testid="detail-source" title="The chart is drawn from the server's index, a window at a time, until the run is in the page (a run of more than 2 million events stays on the server); event details and path overlays need the run in the page">
                    "drawn by the server"
                </span>
            })}
            {analysis_progress(chart)}
            <span class="readout" data-testid="window-readout">
                {move || details::window_text(&trace, store.with(|ws| ws.window))}
            </span>
            <span class="readout" data-testid="cursor-readout">{move || cursor.get()}</span>
            {move || error.get().map(|m| view! { <span class="error" role="alert">{m}</span> })}
        </div>
        {process_picker(chart)}
    }
}

/// What the overlays switched on are waiting for, while the server computes it.
fn analysis_progress(chart: &Chart) -> impl IntoView + use<> {
    let (store, data) = (chart.store, chart.data);
    move || {
        let (path, waits) = store.with(|ws| {
            (
                ws.has_overlay(Overlay::CriticalPath) || ws.has_overlay(Overlay::Wcpa),
                ws.has_overlay(Overlay::WaitStates),
            )
        });
        let waiting_for = if path && data.report.with(Option::is_none) {
            Some("Computing the execution graph and its paths…")
        } else if waits && data.waits.with(Option::is_none) {
            Some("Finding the wait states…")
        } else {
            None
        };
        waiting_for.map(|text| {
            view! {
                <span class="readout busy" role="status" data-testid="analysis-progress">
                    <progress></progress>
                    {text}
                </span>
            }
        })
    }
}

/// The processes whose labels hold `text` (any case), in the trace's order; all when `text` is
/// blank.
pub fn matching_rows(labels: &[String], text: &str) -> Option<Vec<u32>> {
    let text = text.trim().to_lowercase();
    (!text.is_empty()).then(|| {
        labels
            .iter()
            .enumerate()
            .filter(|(_, l)| l.to_lowercase().contains(&text))
            .map(|(p, _)| p as u32)
            .collect()
    })
}

/// A box that keeps the rows whose process or node names hold what is typed.
fn row_filter(chart: &Chart) -> impl IntoView + use<> {
    let (store, model) = (chart.store, Arc::clone(&chart.model));
    let typed = RwSignal::new(String::new());
    let none = RwSignal::new(false);
    view! {
        <span class="filter">
            <input
                type="search"
                class="row-filter"
                placeholder="Filter rows by name"
                data-testid="row-filter"
                prop:value=move || typed.get()
                on:input=move |ev| {
                    let text = event_target_value(&ev);
                    let rows = matching_rows(&model.rows, &text);
                    none.set(rows.as_ref().is_some_and(Vec::is_empty));
                    typed.set(text);
                    // No match shows every row (a view of no row is none), and says so.
                    store.dispatch(Command::ShowProcesses(rows.filter(|r| !r.is_empty())));
                }
            />
            {move || none.get().then(|| view! { <span class="readout">"no row matches"</span> })}
        </span>
    }
}

/// "Fold all" and "Unfold all", when processes are grouped by node.
fn fold_buttons(chart: &Chart) -> Option<impl IntoView + use<>> {
    let n_groups = chart.model.groups.len() as u32;
    if n_groups == 0 {
        return None;
    }
    let store = chart.store;
    let all_folded = move || store.with(|ws| ws.collapsed.len() as u32 >= n_groups);
    let none_folded = move || store.with(|ws| ws.collapsed.is_empty());
    Some(view! {
        <span class="fold-buttons">
            <button
                data-testid="fold-all"
                disabled=all_folded
                title="Fold every node into one row"
                on:click=move |_| store.dispatch(Command::SetCollapsed((0..n_groups).collect()))
            >"Fold all nodes"</button>
            <button
                data-testid="unfold-all"
                disabled=none_folded
                title="Give every process its own row"
                on:click=move |_| store.dispatch(Command::SetCollapsed(Vec::new()))
            >"Unfold all"</button>
        </span>
    })
}

/// The region filter: all regions in colour, or one.
fn region_filter(chart: &Chart) -> Option<impl IntoView + use<>> {
    let names = chart.model.region_names.clone();
    if names.is_empty() {
        return None;
    }
    let store = chart.store;
    let selected = move || {
        store.with(|ws| {
            ws.region_filter()
                .map_or_else(String::new, |id| id.to_string())
        })
    };
    Some(view! {
        <label class="filter">
            "Regions "
            <select
                data-testid="region-filter"
                prop:value=selected
                on:change=move |ev| {
                    let id = event_target_value(&ev).parse::<u32>().ok();
                    store.dispatch(Command::FilterRegion(id));
                }
            >
                <option value="">"all"</option>
                {names.into_iter().enumerate().map(|(id, name)| view! {
                    <option value=id.to_string()>{name}</option>
                }).collect_view()}
            </select>
        </label>
    })
}

/// The process picker: a box per process (the first [`PICKER_PROCESSES`]), all or none.
fn process_picker(chart: &Chart) -> impl IntoView + use<> {
    let store = chart.store;
    let labels: Vec<(u32, String)> = chart
        .model
        .rows
        .iter()
        .take(PICKER_PROCESSES)
        .enumerate()
        .map(|(p, label)| (p as u32, label.clone()))
        .collect();
    let more = chart.model.rows.len().saturating_sub(PICKER_PROCESSES);
    move || {
        store.with(|ws| ws.has_panel(Panel::Processes)).then(|| {
            let boxes = labels
                .iter()
                .map(|(p, label)| {
                    let p = *p;
                    view! {
                        <label class="process-choice">
                            <input
                                type="checkbox"
                                data-process=p.to_string()
                                prop:checked=move || store.with(|ws| ws.shows_process(p))
                                on:change=move |_| store.dispatch(Command::ToggleProcess(p))
                            />
                            {label.clone()}
                        </label>
                    }
                })
                .collect_view();
            view! {
                <div class="process-picker" data-testid="process-picker">
                    <button on:click=move |_| store.dispatch(Command::ShowProcesses(None))>"Show all"</button>
                    {(more > 0).then(|| view! { <span class="hint">{format!("(the first {PICKER_PROCESSES}; {more} more not listed)")}</span> })}
                    <div class="process-list">{boxes}</div>
                </div>
            }
        })
    }
}

/// The help: every shortcut.
pub fn help(chart: &Chart) -> impl IntoView + use<> {
    let store = chart.store;
    move || {
        store.with(|ws| ws.has_panel(Panel::Help)).then(|| {
            view! {
                <div class="gantt-help" data-testid="help" role="dialog">
                    <h2>"Shortcuts"</h2>
                    <table>
                        {keys::SHORTCUTS.iter().map(|(k, what)| view! {
                            <tr><th>{*k}</th><td>{*what}</td></tr>
                        }).collect_view()}
                    </table>
                    <h2>"The event filter"</h2>
                    <p>"Terms key=value, separated by spaces, all kept together. Names as the page shows them, quoted when they hold a space; times in ticks or with a unit."</p>
                    <table data-testid="help-filter">
                        {crate::components::filter_bar::FILTER_EXAMPLES.iter().map(|(k, what)| view! {
                            <tr><th><code>{*k}</code></th><td>{*what}</td></tr>
                        }).collect_view()}
                    </table>
                </div>
            }
        })
    }
}

/// Where the selection's pop-up points (canvas coordinates), if it is in view.
fn popup_anchor(chart: &Chart, selection: Selection) -> Option<(f64, f64)> {
    chart.with_scene(|s| match selection {
        Selection::Event { index } => icons::position(s, index as usize),
        Selection::PathSegment { path, index } => {
            let paths = chart.paths.get_untracked()?;
            let bar = paths.get(path).bars.get(index as usize).copied()?;
            Some((s.x_of(bar.start / 2 + bar.end / 2), s.row_center(bar.to)?))
        }
        Selection::Bar { process, tick, .. } => {
            Some((s.x_of(tick), s.row_center(process as usize)?))
        }
    })
}

/// The lines of a selected path segment or bar (`None` while there is nothing to say).
fn selection_lines(chart: &Chart, selection: Selection) -> Option<Vec<String>> {
    let (model, trace) = (&chart.model, &chart.trace);
    match selection {
        Selection::Event { .. } => None,
        Selection::PathSegment { path, index } => {
            let paths = chart.paths.get()?;
            let p = paths.get(path);
            let segment = p.segments.get(index as usize)?;
            Some(details::segment_lines(trace, p.name, segment, p.length))
        }
        Selection::Bar {
            process,
            tick,
            depth: Some(d),
        } => {
            let p = process as usize;
            let bar = model.regions.at(p, d as usize, tick)?;
            Some(details::region_lines(
                trace,
                p,
                d as usize,
                (bar.start, bar.end, bar.region),
            ))
        }
        Selection::Bar {
            process,
            tick,
            depth: None,
        } => Some(details::span_lines(
            trace,
            process as usize,
            model.index.span_at(process, tick)?,
        )),
    }
}

/// The selection's pop-up, next to what is selected; it follows it as the view moves and
/// hides while it is out of view.
pub fn popup(chart: &Chart) -> impl IntoView + use<> {
    let chart = chart.clone();
    let store = chart.store;
    let selected = Memo::new(move |_| store.with(|ws| ws.selected));
    move || {
        let selection = selected.get()?;
        let style = {
            let chart = chart.clone();
            move || {
                store.track();
                chart.rows.track();
                match popup_anchor(&chart, selection) {
                    Some((x, y)) => format!("left: {}px; top: {}px", x + 12.0, y + 12.0),
                    None => "display: none".to_owned(),
                }
            }
        };
        let body = match selection {
            Selection::Event { index } => event_popup(&chart, index as usize).into_any(),
            _ => {
                let chart = chart.clone();
                (move || {
                    selection_lines(&chart, selection)
                        .unwrap_or_default()
                        .into_iter()
                        .map(|line| view! { <div>{line}</div> })
                        .collect_view()
                })
                .into_any()
            }
        };
        Some(view! {
            <div class="gantt-popup" data-testid="popup" role="dialog" style=style>
                <button class="close" on:click=move |_| store.dispatch(Command::Select(None)) aria-label="Close">"×"</button>
                {body}
            </div>
        })
    }
}

/// An event's pop-up: its facts and partner at once, its share of the paths and its wait
/// states as they arrive from the server, and a button that shows its partner.
fn event_popup(chart: &Chart, event: usize) -> impl IntoView + use<> {
    let (trace, model) = (chart.trace.clone(), chart.model.clone());
    let (paths, event_waits) = (chart.paths, chart.local.event_waits);
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
    let chart = chart.clone();
    view! {
        <div data-testid="event-details" data-event=event.to_string()>{lines}</div>
        {partner.map(|p| view! {
            <button
                class="link"
                data-testid="go-to-partner"
                on:click=move |ev| {
                    ev.stop_propagation();
                    input::show_event(&chart, p);
                }
            >"Go to partner"</button>
        })}
    }
}

/// The chart's legend: what each colour and mark means, then the colours of the regions in
/// view.
pub fn legend(chart: &Chart) -> impl IntoView + use<> {
    // Whether the selected event's causal past and future are shaded (the Hasse view computed
    // them).
    let (areas, store) = (chart.data.areas, chart.store);
    let shading = Memo::new(move |_| {
        let selected = store.with(|ws| ws.selected_event());
        areas.with(|a| a.as_ref().is_some_and(|a| Some(a.event) == selected))
    });
    // A trace that records the scheduler's waits (the emulator's) has more states to tell.
    let scheduler = chart
        .model
        .event_kind
        .iter()
        .any(|&k| k == shared::model::EventKind::Wait);
    let swatch = |color: &'static str, class: &'static str, text: &'static str| {
        let style = if class == "outline" {
            format!("border: 2px solid {color}")
        } else {
            format!("background: {color}")
        };
        view! {
            <span class="legend-item">
                <span class=format!("swatch {class}") style=style></span>
                {text}
            </span>
        }
    };
    view! {
        <div class="gantt-legend">
            {swatch(colors::COMPUTING, "", "computing")}
            {if scheduler {
                view! {
                    {swatch(colors::READY, "", "ready, waiting for the processor")}
                    {swatch(colors::BLOCKED, "", "blocked on a channel (input, output, ALT)")}
                    {swatch(colors::TIMER, "", "waiting on a timer")}
                    {swatch(colors::CHILDREN, "", "waiting for PAR branches")}
                    {swatch(colors::STOPPED, "", "stopped or ended")}
                }.into_any()
            } else {
                view! { {swatch(colors::BLOCKED, "", "blocked in receive")} }.into_any()
            }}
            {swatch(colors::MESSAGE, "arrow", "message")}
            {swatch(colors::BUNDLE, "", "bundled messages")}
            {swatch(colors::MORE, "more", "more here")}
            {swatch(colors::PATH, "outline", "critical path")}
            {swatch(colors::WAIT, "outline", "wait state")}
            <span class="legend-item icons">"◀ send · ▷ receive call · ▶ arrival"</span>
            {swatch(colors::FAULT, "", "no partner, or arrives before it is sent")}
            {move || shading.get().then(|| view! {
                {swatch(colors::AREA_PAST, "", "causal past")}
                {swatch(colors::AREA_FUTURE, "", "causal future")}
            })}
        </div>
        {region_legend(chart)}
    }
}

/// At most this many region bars are read to find the regions in view.
const LEGEND_SCAN_BARS: usize = 200_000;

/// The regions with a bar in the window on the rows in view, in the order they first appear:
/// every bar counts, also those too thin to be drawn at this zoom (up to
/// [`LEGEND_SCAN_BARS`]).
fn regions_in_view(chart: &Chart) -> Vec<u32> {
    let model = &chart.model;
    if model.regions.depths == 0 {
        return Vec::new();
    }
    chart.with_scene(|scene| {
        let window = scene.scale.window();
        let mut seen = vec![false; model.region_names.len()];
        let mut out = Vec::new();
        let mut budget = LEGEND_SCAN_BARS;
        for (_, p) in scene_regions::rows_with_bars(scene) {
            for depth in 0..model.regions.depths {
                for bar in model
                    .regions
                    .in_window(p, depth, window)
                    .iter()
                    .take(budget)
                {
                    budget -= 1;
                    if let Some(s) = seen.get_mut(bar.region as usize)
                        && !*s
                    {
                        *s = true;
                        out.push(bar.region);
                    }
                }
            }
        }
        out
    })
}

/// The colours of the regions in view (when the trace has regions): one entry each, wrapping.
fn region_legend(chart: &Chart) -> Option<impl IntoView + use<>> {
    if chart.model.region_names.is_empty() {
        return None;
    }
    let in_view = {
        let chart = chart.clone();
        let (store, rows, width) = (chart.store, chart.rows, chart.local.width);
        // What is in view changes with the window, the scroll and the canvas's width, not
        // with every paint (or hover).
        let view = Memo::new(move |_| {
            let width = width.get();
            store.with(|ws| (ws.window, ws.top_row, width.to_bits()))
        });
        Memo::new(move |_| {
            view.track();
            rows.track();
            regions_in_view(&chart)
        })
    };
    let model = Arc::clone(&chart.model);
    Some(move || {
        let ids = in_view.get();
        let more = ids.len().saturating_sub(LEGEND_REGIONS);
        let entries: Vec<(String, &'static str)> = ids
            .iter()
            .take(LEGEND_REGIONS)
            .filter_map(|&r| {
                let name = model.region_names.get(r as usize)?.clone();
                Some((name, *model.region_colors.get(r as usize)?))
            })
            .collect();
        view! {
            <div class="gantt-legend regions" data-testid="region-legend">
                <span class="legend-title">"regions in view (bars under each row, outermost first):"</span>
                {entries.into_iter().map(|(name, color)| {
                    let title = name.clone();
                    view! {
                        <span class="legend-item" data-color=color title=title>
                            <span class="swatch" style=format!("background: {color}")></span>
                            {name}
                        </span>
                    }
                }).collect_view()}
                {(more > 0).then(|| view! { <span class="legend-item">{format!("and {more} more")}</span> })}
                {ids.is_empty().then(|| view! { <span class="legend-item">"none"</span> })}
            </div>
        }
    })
}

/// The WCPA phase table, while the WCPA overlay is shown.
pub fn wcpa_phases(chart: &Chart) -> impl IntoView + use<> {
    let (store, paths, trace) = (chart.store, chart.paths, chart.trace.clone());
    move || {
        let on = store.with(|ws| ws.has_overlay(Overlay::Wcpa));
        let paths = paths.get().filter(|_| on)?;
        let phases = &paths.get(PathName::Wcpa).phases;
        Some(view! {
            <table class="run-table wcpa-phases" data-testid="wcpa-phases">
                <tr><th>"WCPA phase"</th><th>"weight (weighted time)"</th><th>"share"</th></tr>
                {phases.iter().map(|phase| view! {
                    <tr>
                        <td>
                            <span class="swatch" style=format!("background: {}", name_color(&phase.name))></span>
                            {if phase.name == "(none)" { "(outside any phase)".to_owned() } else { phase.name.clone() }}
                        </td>
                        <td>{details::weight_text(&trace, phase.weight)}</td>
                        <td>{details::share_text(phase.share, 1.0)}</td>
                    </tr>
                }).collect_view()}
            </table>
        })
    }
}

/// The selected range's statistics, as they arrive.
pub fn range_stats(chart: &Chart) -> impl IntoView + use<> {
    let (trace, stats) = (chart.trace.clone(), chart.local.range_stats);
    move || {
        stats.get().map(|stats| match stats {
            Err(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Ok(stats) => range_stats_view(&trace, &stats).into_any(),
        })
    }
}

/// The selected range's statistics: counts, each process's busy and blocked shares, and the
/// communication matrix.
fn range_stats_view(trace: &shared::Trace, stats: &RangeStats) -> impl IntoView + use<> {
    let s = &stats.summary;
    let name = |p: shared::model::ProcessId| {
        trace
            .processes
            .get(p.index())
            .map_or_else(|| format!("process {}", p.0), |p| p.name.clone())
    };
    let head = format!(
        "{} – {}: {}, {}, {} sent ({}), {} received",
        details::time_text(trace, s.start),
        details::time_text(trace, s.end),
        crate::words::count(s.processes, "process", "processes"),
        crate::words::count(s.events as usize, "event", "events"),
        crate::words::count(s.messages_sent as usize, "message", "messages"),
        bytes_text(s.bytes_sent),
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
                    <td>{bytes_text(m.bytes[k])}</td>
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

#[cfg(test)]
mod tests {
    use super::matching_rows;

    #[test]
    fn the_row_filter_matches_names_in_any_case() {
        let labels: Vec<String> = ["start @ T800 #0", "sender @ T800 #0", "iserver @ host"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(matching_rows(&labels, "SEND"), Some(vec![1]));
        assert_eq!(matching_rows(&labels, "t800"), Some(vec![0, 1]));
        assert_eq!(matching_rows(&labels, "  "), None);
        assert_eq!(matching_rows(&labels, "nothing"), Some(vec![]));
    }
}
