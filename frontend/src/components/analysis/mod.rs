//! The analysis view: the engine's answers as tables beside the chart — the headline metrics
//! and POP factors, the critical path and WCPA (with its phase table), Quartz's normalized
//! processor time, the communication matrix and the wait states — every one computed by the
//! server for the workspace's current window and process set, every row a click into the
//! other views, every table a CSV download.

pub mod charts;
pub mod csv;
pub mod tables;

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;
use shared::analyses::whatif::WhatIf;
use shared::view::selection::{
    CommMatrix, DiagnosticsInSelection, PathInSelection, SelectionSummary, SubjectHistogram,
    SubjectStatistics, WaitsInSelection,
};
use shared::view::state::{Overlay, Selection, ViewKind};

use self::tables::{Action, Table};
use crate::api::{self, SelectionQuery};
use crate::components::gantt::canvas;
use crate::workspace::Command;
use crate::workspace::data::RunData;
use crate::workspace::store::Store;

/// The most rows a list answers.
const LIMIT: usize = 500;

/// The selection's parts, as they arrive.
#[derive(Debug, Clone, Default)]
struct Parts {
    summary: Option<SelectionSummary>,
    critical: Option<PathInSelection>,
    wcpa: Option<PathInSelection>,
    npt: Option<shared::analyses::metrics::Npt>,
    matrix: Option<CommMatrix>,
    waits: Option<WaitsInSelection>,
    statistics: Option<Vec<SubjectStatistics>>,
    histograms: Option<Vec<SubjectHistogram>>,
    diagnostics: Option<DiagnosticsInSelection>,
    /// The selection they answer (the diagnostics panel pages through the rest with it).
    query: Option<SelectionQuery>,
    error: Option<String>,
}

/// The analysis view of a stored run.
#[component]
pub fn AnalysisView(trace: Arc<Trace>, data: RunData, run_id: Option<String>) -> impl IntoView {
    let store = Store::expect();
    let parts = RwSignal::new(None::<Arc<Parts>>);
    let asked = StoredValue::new(None::<SelectionQuery>);
    let run = StoredValue::new(run_id);
    Effect::new(move |_| {
        if store.with(|ws| ws.view != ViewKind::Analysis) {
            return;
        }
        data.load_report();
        let query = store.with(|ws| SelectionQuery {
            start: ws.window.0,
            end: ws.window.1,
            processes: ws
                .processes
                .as_deref()
                .map(api::process_list)
                .unwrap_or_default(),
            limit: LIMIT,
            filter: ws.event_filter.clone().unwrap_or_default(),
        });
        if asked.get_value().as_ref() == Some(&query) {
            return;
        }
        asked.set_value(Some(query.clone()));
        let Some(id) = run.get_value() else {
            return;
        };
        leptos::task::spawn_local(async move {
            let answer = fetch(&id, &query).await;
            // Only if the selection is still this one.
            if asked.get_value().as_ref() == Some(&query) {
                parts.set(Some(Arc::new(answer)));
            }
        });
    });
    let trace = StoredValue::new(trace);
    view! {
        <div class="analysis" data-testid="analysis">
            <p class="analysis-scope" data-testid="analysis-scope">{move || scope_text(store, trace)}</p>
            {what_if_box(store, trace, run)}
            {move || body(store, data, trace, run, parts.get())}
        </div>
    }
}

/// The what-if presets: label and scenario.
const PRESETS: [(&str, &str); 5] = [
    ("Instant messages", "transit=0"),
    ("Messages twice as fast", "transit*0.5"),
    (
        "A network of 1,000 ticks latency, 100 bytes a tick",
        "latency=1000,bandwidth=100",
    ),
    ("A region twice as fast (edit its name)", "region=NAME*0.5"),
    ("One edge's duration (edit the event)", "edge=0:duration=0"),
];

/// A scenario box: presets or any scenario of the what-if language, replayed by the server.
fn what_if_box(
    store: Store,
    trace: StoredValue<Arc<Trace>>,
    run: StoredValue<Option<String>>,
) -> impl IntoView {
    let text = RwSignal::new(PRESETS[0].1.to_owned());
    let answer = RwSignal::new(None::<Result<Arc<WhatIf>, String>>);
    let go = move |_| {
        let Some(id) = run.get_value() else {
            return;
        };
        let scenario = text.get_untracked();
        leptos::task::spawn_local(async move {
            let result = api::get_what_if(&id, &scenario).await.and_then(|report| {
                report
                    .what_if
                    .map(Arc::new)
                    .ok_or_else(|| "the server replayed no scenario".to_owned())
            });
            answer.set(Some(result));
        });
    };
    let presets = PRESETS
        .iter()
        .map(|(label, scenario)| view! { <option value=*scenario>{*label}</option> })
        .collect_view();
    view! {
        <details class="what-if" data-testid="what-if">
            <summary>"What if… (replay the run with other weights)"</summary>
            <div class="what-if-form">
                <select aria-label="Presets" data-testid="what-if-preset"
                    on:change=move |ev| text.set(event_target_value(&ev))>{presets}</select>
                <input type="text" data-testid="what-if-scenario" aria-label="Scenario"
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))/>
                <button data-testid="what-if-run" on:click=go>"Replay"</button>
            </div>
            <p class="analysis-note">"Edits separated by ; — transit=V, transit*F, latency=L,bandwidth=B, message=EVENT:transit=V, edge=EVENT:duration=V, region=NAME*F, phase=NAME*F."</p>
            {move || answer.get().map(|a| match a {
                Ok(w) => {
                    let trace = trace.get_value();
                    view! {
                        <div class="analysis-panels">
                            {panel(Some(store), tables::what_if(&trace, &w))}
                            {charts::what_if(&trace, &w)}
                            {panel(Some(store), tables::what_if_processes(&trace, &w))}
                        </div>
                    }
                    .into_any()
                }
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
        </details>
    }
}

/// Every part of the selection, asked for together.
async fn fetch(id: &str, query: &SelectionQuery) -> Parts {
    let (summary, critical, wcpa, npt, matrix, waits) = ask_all(id, query).await;
    let statistics: api::ApiResult<Vec<SubjectStatistics>> =
        api::get_part(id, "statistics", query).await;
    // Only the counts and first examples of each kind: the panel pages through the rest.
    let diagnostics: api::ApiResult<DiagnosticsInSelection> = api::get_part(
        id,
        "diagnostics",
        &SelectionQuery {
            limit: 0,
            ..query.clone()
        },
    )
    .await;
    let histograms: api::ApiResult<Vec<SubjectHistogram>> =
        api::get_part(id, "histograms", query).await;
    let error = [
        summary.as_ref().err(),
        critical.as_ref().err(),
        wcpa.as_ref().err(),
        npt.as_ref().err(),
        matrix.as_ref().err(),
        waits.as_ref().err(),
        statistics.as_ref().err(),
        histograms.as_ref().err(),
        diagnostics.as_ref().err(),
    ]
    .into_iter()
    .flatten()
    .next()
    .cloned();
    Parts {
        summary: summary.ok(),
        critical: critical.ok(),
        wcpa: wcpa.ok(),
        npt: npt.ok(),
        matrix: matrix.ok(),
        waits: waits.ok(),
        statistics: statistics.ok(),
        histograms: histograms.ok(),
        diagnostics: diagnostics.ok(),
        query: Some(query.clone()),
        error,
    }
}

type Answers = (
    api::ApiResult<SelectionSummary>,
    api::ApiResult<PathInSelection>,
    api::ApiResult<PathInSelection>,
    api::ApiResult<shared::analyses::metrics::Npt>,
    api::ApiResult<CommMatrix>,
    api::ApiResult<WaitsInSelection>,
);

/// The six parts the tables need most, asked one after the other (each answers in
/// milliseconds once the run's context is built).
async fn ask_all(id: &str, query: &SelectionQuery) -> Answers {
    (
        api::get_selection_summary(id, query).await,
        api::get_part(id, "critical-path", query).await,
        api::get_part(id, "wcpa", query).await,
        api::get_part(id, "npt", query).await,
        api::get_matrix(id, query).await,
        api::get_wait_states(id, query).await,
    )
}

/// What the tables are computed for, in words.
fn scope_text(store: Store, trace: StoredValue<Arc<Trace>>) -> String {
    let (window, processes, filter) = store.with(|ws| {
        (
            ws.window,
            ws.processes.as_ref().map(Vec::len),
            ws.event_filter.clone(),
        )
    });
    let trace = trace.get_value();
    let who = match processes {
        Some(n) => format!("{n} of {} processes", trace.processes.len()),
        None => format!("all {} processes", trace.processes.len()),
    };
    let events = filter.map_or_else(String::new, |f| {
        format!(" The lists of messages, wait states, diagnostics and events keep only the events «{f}».")
    });
    format!(
        "Computed for the window {} – {} and {who}: zoom, pan or pick processes in any view to change it.{events} Click a row to see it in the views.",
        canvas_time(&trace, window.0),
        canvas_time(&trace, window.1)
    )
}

fn canvas_time(trace: &Trace, t: u64) -> String {
    crate::components::gantt::details::time_text(trace, t)
}

fn body(
    store: Store,
    data: RunData,
    trace: StoredValue<Arc<Trace>>,
    run: StoredValue<Option<String>>,
    parts: Option<Arc<Parts>>,
) -> AnyView {
    let trace_now = trace.get_value();
    let trace = &trace_now;
    let report = data.report.get();
    let Some(parts) = parts else {
        return view! { <p>"Computing the analyses…"</p> }.into_any();
    };
    let mut items: Vec<AnyView> = Vec::new();
    let mut add = |table: Table| items.push(panel(Some(store), table).into_any());
    if let Some(Ok(report)) = &report {
        add(tables::headline(
            trace,
            &report.analysis,
            parts.summary.as_ref(),
        ));
        add(tables::pop(&report.analysis));
    }
    if let Some(path) = &parts.critical {
        add(tables::segments(trace, path, false));
        add(tables::shares(
            "critical-path-processes",
            "Critical path by process",
            "Process",
            (&path.by_process, Some(trace)),
            true,
        ));
        add(tables::shares(
            "critical-path-regions",
            "Critical path by region",
            "Region",
            (&path.by_region, Some(trace)),
            false,
        ));
        add(tables::shares(
            "critical-path-phases",
            "Critical path by phase",
            "Phase",
            (&path.by_phase, Some(trace)),
            false,
        ));
    }
    if let Some(path) = &parts.wcpa {
        add(tables::shares(
            "wcpa-phases",
            &format!("WCPA phase table (weight {:.1})", path.weight),
            "Phase",
            (&path.by_phase, None),
            false,
        ));
        add(tables::segments(trace, path, true));
    }
    if let Some(npt) = &parts.npt {
        add(tables::npt(trace, npt));
    }
    let mut items = items;
    if let Some(npt) = &parts.npt {
        items.push(tree_panel(store, trace, npt));
    }
    if let Some(Ok(report)) = &report {
        items.push(charts::parallelism(&report.analysis.parallelism_profile));
    }
    if let Some(m) = &parts.matrix {
        items.extend(heatmap(store, trace, m));
        items.push(panel(Some(store), tables::matrix(trace, m)).into_any());
    }
    items.extend(wait_panels(store, trace, &parts));
    if let Some(list) = &parts.histograms {
        items.extend(list.iter().map(|h| charts::histogram(trace, h)));
    }
    if let Some(st) = &parts.statistics {
        items.push(panel(Some(store), tables::statistics(trace, st)).into_any());
    }
    if let (Some(d), Some(query)) = (&parts.diagnostics, &parts.query) {
        items.push(diagnostics_panel(store, trace, run, query, d));
    }
    let error = parts.error.clone();
    view! {
        {error.map(|e| view! { <p class="error" role="alert">{e}</p> })}
        <div class="analysis-panels">{items}</div>
    }
    .into_any()
}

/// How many more diagnostics of a kind "Show more" asks for.
const DIAGNOSTICS_PAGE: usize = 100;

/// The validation panel: counts by kind and severity (errors first, with a legend of the
/// severities), each kind's first examples, and a "Show more" that pages through the rest of
/// that kind from the server (a trace may have millions of diagnostics).
fn diagnostics_panel(
    store: Store,
    trace: &Trace,
    run: StoredValue<Option<String>>,
    query: &SelectionQuery,
    d: &DiagnosticsInSelection,
) -> AnyView {
    let summary = tables::diagnostics(d);
    let csv = csv_button(&summary);
    let title = summary.title.clone();
    let groups = d
        .counts
        .iter()
        .enumerate()
        .map(|(at, c)| {
            let loaded = RwSignal::new(c.first.clone());
            let busy = RwSignal::new(false);
            let failed = RwSignal::new(None::<String>);
            let (kind, severity, count) = (c.kind.name(), c.severity.name(), c.count);
            // What the kind is and what it may throw off, in the page's words.
            let kind_words = crate::words::sentence(kind);
            let affects = c
                .kind
                .affects()
                .iter()
                .map(|a| crate::words::analysis(a))
                .collect::<Vec<_>>()
                .join(", ");
            let query = query.clone();
            let more = move |_| {
                let Some(id) = run.get_value() else {
                    return;
                };
                if busy.get_untracked() {
                    return;
                }
                busy.set(true);
                let offset = loaded.with_untracked(Vec::len);
                let query = SelectionQuery {
                    limit: DIAGNOSTICS_PAGE,
                    ..query.clone()
                };
                leptos::task::spawn_local(async move {
                    match api::get_diagnostics(&id, &query, Some(kind), Some(severity), offset)
                        .await
                    {
                        // Only if nothing was appended meanwhile.
                        Ok(page) if loaded.with_untracked(Vec::len) == offset => {
                            loaded.update(|l| l.extend(page.diagnostics));
                            failed.set(None);
                        }
                        Ok(_) => {}
                        Err(e) => failed.set(Some(e)),
                    }
                    busy.set(false);
                });
            };
            let trace = trace.clone();
            let rows = move || {
                loaded.with(|list| {
                    tables::diagnostic_rows(&trace, list)
                        .into_iter()
                        .map(|row| {
                            let action = row.action.clone();
                            view! {
                                <tr class:clickable=action.is_some() on:click=move |_| {
                                    if let Some(a) = &action {
                                        act(store, a);
                                    }
                                }>
                                    {row.cells.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                                </tr>
                            }
                        })
                        .collect_view()
                })
            };
            let left = move || count.saturating_sub(loaded.with(Vec::len));
            view! {
                <details class="diagnostic-group" data-testid="diagnostic-group" data-kind=kind data-severity=severity open=at < 3>
                    <summary>
                        <span class=format!("severity severity-{severity}")>{severity}</span>
                        " " <strong>{kind_words}</strong> " — " {count.to_string()}
                        <span class="affects">" · may affect: " {affects}</span>
                    </summary>
                    <div class="table-scroll">
                        <table>
                            <thead><tr><th>"Process"</th><th>"Time"</th><th>"What"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                    {move || (left() > 0).then(|| view! {
                        <button class="show-more" data-testid="diagnostics-more" on:click=more.clone() disabled=move || busy.get()>
                            {move || format!("Show more ({} more of {count})", left())}
                        </button>
                    })}
                    {move || failed.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                </details>
            }
        })
        .collect_view();
    let empty = d.counts.is_empty();
    view! {
        <section class="analysis-panel" data-testid="panel-diagnostics">
            <header>
                <h3>{title}</h3>
                {csv}
            </header>
            <p class="analysis-note severity-legend">
                <span class="severity severity-error">"error"</span> " the trace is certainly inconsistent · "
                <span class="severity severity-warning">"warning"</span> " suspicious, or a trace cut short · "
                <span class="severity severity-note">"note"</span> " legal, worth knowing"
            </p>
            {groups}
            {empty.then(|| view! { <p class="analysis-note">"Nothing in this selection."</p> })}
        </section>
    }
    .into_any()
}

/// The wait states' panels: by kind, process and call site, their root causes, the list.
fn wait_panels(store: Store, trace: &Trace, parts: &Parts) -> Vec<AnyView> {
    let Some(w) = &parts.waits else {
        return Vec::new();
    };
    vec![
        {
            // The patterns by the names the wait-state list uses (`Late Sender`).
            let by_kind: Vec<_> = w
                .by_kind
                .iter()
                .map(|s| shared::analyses::metrics::Share {
                    name: crate::words::wait_kind(&s.name),
                    ..s.clone()
                })
                .collect();
            tables::shares(
                "wait-kinds",
                "Waiting by kind",
                "Kind",
                (&by_kind, Some(trace)),
                false,
            )
        },
        tables::shares(
            "wait-processes",
            "Waiting by process",
            "Process",
            (&w.by_process, Some(trace)),
            true,
        ),
        tables::shares(
            "wait-call-sites",
            "Waiting by call site (the region of the waiting call)",
            "Call site",
            (&w.by_call_site, Some(trace)),
            false,
        ),
        tables::delay_costs(trace, w),
        tables::waits(trace, w),
    ]
    .into_iter()
    .map(|t| panel(Some(store), t).into_any())
    .collect()
}

/// The NPT tree as a panel: processes, their regions and the regions' phases; a few processes
/// open at first (their regions shown), phases folded; sorted by inclusive or exclusive time.
fn tree_panel(store: Store, trace: &Trace, npt: &shared::analyses::metrics::Npt) -> AnyView {
    /// Processes opened at first when there are at most this many.
    const OPEN_AT_FIRST: usize = 16;
    let by_exclusive = RwSignal::new(false);
    let (csv_table, keys) = tables::npt_tree(trace, npt, false);
    let first: std::collections::HashSet<String> = if npt.tree.len() <= OPEN_AT_FIRST {
        keys.iter().filter(|k| !k.contains('/')).cloned().collect()
    } else {
        Default::default()
    };
    let open = RwSignal::new(first);
    let trace = trace.clone();
    let npt = npt.clone();
    let rows = move || {
        let (table, keys) = tables::npt_tree(&trace, &npt, by_exclusive.get());
        let opened = open.get();
        let parents: std::collections::HashSet<&str> = keys
            .iter()
            .filter_map(|k| k.rsplit_once('/').map(|(parent, _)| parent))
            .collect();
        let parents: std::collections::HashSet<String> =
            parents.into_iter().map(str::to_owned).collect();
        table
            .rows
            .into_iter()
            .zip(keys)
            .filter(|(_, key)| {
                // Shown when every ancestor is open.
                key.match_indices('/')
                    .all(|(at, _)| opened.contains(&key[..at]))
            })
            .map(|(row, key)| {
                let depth = key.matches('/').count();
                let toggle = parents.contains(&key).then(|| {
                    let is_open = opened.contains(&key);
                    (key, is_open)
                });
                tree_row(store, row, depth, toggle, open)
            })
            .collect_view()
    };
    let sort = move |ev| by_exclusive.set(event_target_value(&ev) == "exclusive");
    view! {
        <section class="analysis-panel" data-testid="panel-npt-tree">
            <header>
                <h3>"Where the time goes (NPT)"</h3>
                <span>
                    <select aria-label="Sort by" data-testid="npt-tree-sort" on:change=sort>
                        <option value="inclusive">"by inclusive"</option>
                        <option value="exclusive">"by exclusive"</option>
                    </select>
                    " "
                    {csv_button(&csv_table)}
                </span>
            </header>
            <div class="table-scroll">
                <table class="tree">
                    <thead><tr><th>"Process / region / phase"</th><th>"Inclusive"</th><th>"Exclusive"</th><th>"Share"</th><th></th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {csv_table.note.map(|n| view! { <p class="analysis-note">{n}</p> })}
        </section>
    }
    .into_any()
}

/// A row of the NPT tree: indented by depth, with a fold button when it has children.
fn tree_row(
    store: Store,
    row: tables::Row,
    depth: usize,
    toggle: Option<(String, bool)>,
    open: RwSignal<std::collections::HashSet<String>>,
) -> impl IntoView {
    let action = row.action.clone();
    let mut cells = row.cells.into_iter();
    let name = cells.next().unwrap_or_default();
    let fold = toggle.map(|(key, is_open)| {
        let label = if is_open { "▾" } else { "▸" };
        view! {
            <button class="fold" aria-expanded=is_open.to_string() aria-label="Show or hide what is inside"
                on:click=move |ev| {
                    ev.stop_propagation();
                    open.update(|o| {
                        if !o.remove(&key) {
                            o.insert(key.clone());
                        }
                    });
                }>{label}</button>
        }
    });
    let bar = row.bar.map(|b| {
        view! { <td class="bar-cell"><span class="bar" style:width=format!("{:.1}%", 100.0 * b.clamp(0.0, 1.0))></span></td> }
    });
    view! {
        <tr class=format!("clickable depth-{depth}") on:click=move |_| {
            if let Some(a) = &action {
                act(store, a);
            }
        }>
            <td style:padding-left=format!("{}rem", 1.1 * depth as f64)>{fold}" "{name}</td>
            {cells.map(|c| view! { <td>{c}</td> }).collect_view()}
            {bar}
        </tr>
    }
}

/// A button that downloads `table` as `<id>.csv`.
fn csv_button(table: &Table) -> impl IntoView + use<> {
    let csv = tables::csv(table);
    let file = format!("{}.csv", table.id);
    let label = format!("Download {} as CSV", table.title);
    let download = move |_| {
        let href = format!(
            "data:text/csv;charset=utf-8,{}",
            js_sys::encode_uri_component(&csv)
        );
        canvas::download(&href, &file);
    };
    view! {
        <button class="csv" data-testid=format!("csv-{}", table.id) on:click=download aria-label=label title="Download this table as CSV: numbers in seconds, bytes and percent, the unit in each heading">"CSV"</button>
    }
}

/// A table as a panel whose rows lead nowhere (a page without a workspace).
pub fn static_panel(table: Table) -> AnyView {
    panel(None, table).into_any()
}

/// One table as a panel: its title, a CSV download, the table with bars and clickable rows.
fn panel(store: Option<Store>, table: Table) -> impl IntoView {
    let csv = csv_button(&table);
    let has_bars = table.rows.iter().any(|r| r.bar.is_some());
    let empty = table.rows.is_empty();
    let columns = table.columns.clone();
    let rows = table
        .rows
        .into_iter()
        .map(|row| {
            let action = row.action.clone();
            let clickable = action.is_some();
            let bar = row.bar.map(|b| {
                view! {
                    <td class="bar-cell"><span class="bar" style:width=format!("{:.1}%", 100.0 * b.clamp(0.0, 1.0))></span></td>
                }
            });
            view! {
                <tr class:clickable=clickable on:click=move |_| {
                    if let (Some(store), Some(a)) = (store, &action) {
                        act(store, a);
                    }
                }>
                    {row.cells.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                    {bar}
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="analysis-panel" data-testid=format!("panel-{}", table.id)>
            <header>
                <h3>{table.title}</h3>
                {csv}
            </header>
            <div class="table-scroll">
                <table>
                    <thead><tr>
                        {columns.into_iter().map(|c| view! { <th>{c}</th> }).collect_view()}
                        {has_bars.then(|| view! { <th></th> })}
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {empty.then(|| view! { <p class="analysis-note">"Nothing in this selection."</p> })}
            {table.note.map(|n| view! { <p class="analysis-note">{n}</p> })}
        </section>
    }
}

/// The most processes the matrix is drawn as a grid for (beyond, its pairs table remains).
const MAX_GRID: usize = 40;

/// The communication matrix as a heatmap: senders down, receivers across, each cell's colour
/// its share of the busiest pair's bytes; a click shows that pair's messages.
fn heatmap(store: Store, trace: &Trace, m: &CommMatrix) -> Option<AnyView> {
    let mut ids: Vec<u32> = m.from.iter().chain(&m.to).map(|p| p.0).collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() || ids.len() > MAX_GRID {
        return None;
    }
    let name = |p: u32| {
        trace
            .processes
            .get(p as usize)
            .map_or_else(|| p.to_string(), |p| p.name.clone())
    };
    let most = m.bytes.iter().copied().max().unwrap_or(0).max(1);
    let cell =
        |from: u32, to: u32| (0..m.count.len()).find(|&i| m.from[i].0 == from && m.to[i].0 == to);
    let header = ids
        .iter()
        .map(|&p| view! { <th title=name(p)>{name(p)}</th> })
        .collect_view();
    let rows = ids
        .iter()
        .map(|&from| {
            let cells = ids
                .iter()
                .map(|&to| match cell(from, to) {
                    Some(i) => {
                        let share = m.bytes[i] as f64 / most as f64;
                        let text = format!("{} · {} B", m.count[i], m.bytes[i]);
                        let title = format!("{} → {}: {text}", name(from), name(to));
                        let ink = if share > 0.55 { "#ffffff" } else { "#1b1f27" };
                        view! {
                            <td class="heat clickable" title=title style:color=ink
                                data-testid=format!("matrix-cell-{from}-{to}")
                                style:background=crate::components::topology::layout::load_color(share as f32)
                                on:click=move |_| act(store, &Action::Messages { from, to })>
                                {m.count[i]}
                            </td>
                        }
                        .into_any()
                    }
                    None => view! { <td class="heat"></td> }.into_any(),
                })
                .collect_view();
            view! { <tr><th>{name(from)}</th>{cells}</tr> }
        })
        .collect_view();
    Some(
        view! {
            <section class="analysis-panel" data-testid="panel-heatmap">
                <header><h3>"Who sends to whom (messages; colour: bytes)"</h3></header>
                <div class="table-scroll">
                    <table class="heatmap">
                        <thead><tr><th>"from \\ to"</th>{header}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                <p class="analysis-note">"Click a cell for its messages in the Gantt chart."</p>
            </section>
        }
        .into_any(),
    )
}

/// What a row click does in the workspace.
fn act(store: Store, action: &Action) {
    match action {
        Action::Segment { start, end, wcpa } => {
            let overlay = if *wcpa {
                Overlay::Wcpa
            } else {
                Overlay::CriticalPath
            };
            if !store.with_untracked(|ws| ws.has_overlay(overlay)) {
                store.dispatch(Command::ToggleOverlay(overlay));
            }
            // A little around the segment, so its ends show.
            let pad = ((end - start) / 10).max(1);
            store.dispatch(Command::SetWindow(
                start.saturating_sub(pad),
                end.saturating_add(pad),
            ));
            store.dispatch(Command::ShowView(ViewKind::Gantt));
        }
        Action::Processes(processes) => {
            store.dispatch(Command::ShowProcesses(Some(processes.clone())));
            store.dispatch(Command::ShowView(ViewKind::Gantt));
        }
        Action::Messages { from, to } => {
            let mut processes = vec![*from, *to];
            processes.dedup();
            store.dispatch(Command::ShowProcesses(Some(processes)));
            store.dispatch(Command::SetEventFilter(Some(format!(
                "message={from}>{to}"
            ))));
            store.dispatch(Command::ShowView(ViewKind::Gantt));
        }
        Action::Region { process, region } => {
            store.dispatch(Command::ShowProcesses(Some(vec![*process])));
            store.dispatch(Command::FilterRegion(Some(*region)));
            store.dispatch(Command::ShowView(ViewKind::Gantt));
        }
        Action::Event(index) => {
            store.dispatch(Command::Select(Some(Selection::Event { index: *index })));
            store.dispatch(Command::ShowView(ViewKind::Gantt));
        }
    }
}
