//! `/compare/{a}/{b}`: two runs side by side — before and after tuning, the case studies'
//! workflow. Two Gantt charts on one time scale, aligned at their starts (zoom or pan either,
//! the other follows), and the runs' metrics as deltas: execution time, each process's
//! computation and waiting, the critical path's composition, the NPT ranking's moves.
//!
//! The address is the permalink: `?window=FROM-TO` (ticks from the runs' starts) restores the
//! zoom.

use std::sync::Arc;

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use shared::view::compare::{Comparison, Delta};

use crate::api;
use crate::components::analysis::tables::{Row, Table};
use crate::components::gantt::GanttChart;
use crate::pages::run::{LoadedRun, load_run};
use crate::workspace::data::RunData;
use crate::workspace::store::Store;
use crate::workspace::{Command, Workspace};

/// The window both charts show, in ticks from each run's start.
type Offsets = RwSignal<(u64, u64)>;

/// The `window` the address asks for, as `(from, to)` ticks from the runs' starts.
fn window_asked() -> Option<(u64, u64)> {
    let search = web_sys::window()?.location().search().ok()?;
    let value = search
        .trim_start_matches('?')
        .split('&')
        .find_map(|kv| kv.strip_prefix("window="))?;
    let (from, to) = value.split_once('-')?;
    let (from, to) = (from.parse().ok()?, to.parse().ok()?);
    (to > from).then_some((from, to))
}

/// Writes the window into the address (no new history entry): the address stays a permalink.
fn remember_window((from, to): (u64, u64)) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(path) = window.location().pathname() else {
        return;
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}?window={from}-{to}")),
        );
    }
}

/// The compare page.
#[component]
pub fn ComparePage() -> impl IntoView {
    let params = use_params_map();
    let ids = move || {
        params.with(|p| {
            (
                p.get("a").unwrap_or_default(),
                p.get("b").unwrap_or_default(),
            )
        })
    };
    let loaded = LocalResource::new(move || {
        let (a, b) = ids();
        async move {
            let first = load_run(&a).await?;
            let second = load_run(&b).await?;
            let comparison = api::get_compare(&a, &b).await?;
            Ok::<_, String>((first, second, Arc::new(comparison)))
        }
    });
    view! {
        {move || match loaded.get() {
            None => view! { <p>"Loading both runs…"</p> }.into_any(),
            Some(Err(message)) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            Some(Ok((a, b, comparison))) => compare_view(a, b, comparison).into_any(),
        }}
    }
}

fn compare_view(a: LoadedRun, b: LoadedRun, comparison: Arc<Comparison>) -> impl IntoView {
    let length = |r: &LoadedRun| {
        let t = &r.run.summary.time;
        t.end.0.saturating_sub(t.start.0).max(1)
    };
    let longest = length(&a).max(length(&b));
    let offsets: Offsets = RwSignal::new(window_asked().unwrap_or((0, longest)));
    Effect::new(move |first: Option<()>| {
        let w = offsets.get();
        if first.is_some() {
            remember_window(w);
        }
    });
    let (name_a, name_b) = (a.run.summary.name.clone(), b.run.summary.name.clone());
    let (href_a, href_b) = (format!("/runs/{}", a.run.id), format!("/runs/{}", b.run.id));
    view! {
        <div class="compare" data-testid="compare">
            <h1>"Comparing two runs"</h1>
            <p class="facts">
                "Before: " <a href=href_a>{name_a}</a> " · after: " <a href=href_b>{name_b}</a>
                " · one time scale, both charts from their runs' starts: zoom or pan either, the other follows. This address reopens the comparison as it is."
            </p>
            <div class="compare-side" data-testid="compare-before">
                <h2>"Before"</h2>
                <CompareChart loaded=a longest=longest offsets=offsets/>
            </div>
            <div class="compare-side" data-testid="compare-after">
                <h2>"After"</h2>
                <CompareChart loaded=b longest=longest offsets=offsets/>
            </div>
            {deltas(&comparison)}
        </div>
    }
}

/// One run's Gantt chart, its window following the shared offsets.
#[component]
fn CompareChart(loaded: LoadedRun, longest: u64, offsets: Offsets) -> impl IntoView {
    let LoadedRun { run, trace, remote } = loaded;
    let start = run.summary.time.start.0;
    // The bounds reach as far as the longer run, so both charts can show the same span.
    let bounds = (start, start.saturating_add(longest));
    let n_processes = u32::try_from(trace.processes.len()).unwrap_or(u32::MAX);
    let store = Store::provide(Workspace::new(run.id.clone(), bounds, n_processes));
    let data = RunData::new(Some(run.id.clone()));
    // The shared offsets move this chart's window…
    Effect::new(move |_| {
        let (from, to) = offsets.get();
        let want = (start.saturating_add(from), start.saturating_add(to));
        if store.with_untracked(|ws| ws.window) != want {
            store.dispatch(Command::SetWindow(want.0, want.1));
        }
    });
    // …and this chart's window moves the shared offsets.
    Effect::new(move |_| {
        let (from, to) = store.with(|ws| ws.window);
        let mine = (from.saturating_sub(start), to.saturating_sub(start));
        if offsets.get_untracked() != mine {
            offsets.set(mine);
        }
    });
    view! { <GanttChart trace=trace run_id=Some(run.id.clone()) data=data remote=remote/> }
}

/// A number with its unit, for a delta table.
fn amount(value: Option<f64>, unit: &str) -> String {
    match value {
        None => "—".to_owned(),
        Some(v) => match unit {
            "s" => shared::model::time::format_seconds(v),
            "%" => format!("{v:.1} %"),
            "ticks" => format!("{v:.0}"),
            _ if v.fract() == 0.0 => format!("{v:.0}"),
            _ => format!("{v:.2}"),
        },
    }
}

/// after − before and after / before, as text.
fn change(d: &Delta) -> String {
    match (d.change(), d.ratio()) {
        (Some(c), Some(r)) => format!(
            "{}{} (×{r:.2})",
            if c >= 0.0 { "+" } else { "−" },
            amount(Some(c.abs()), &d.unit)
        ),
        (Some(c), _) => format!(
            "{}{}",
            if c >= 0.0 { "+" } else { "−" },
            amount(Some(c.abs()), &d.unit)
        ),
        _ => "—".to_owned(),
    }
}

fn delta_rows(list: &[Delta]) -> Vec<Row> {
    list.iter()
        .map(|d| Row {
            cells: vec![
                d.name.clone(),
                amount(d.before, &d.unit),
                amount(d.after, &d.unit),
                change(d),
            ],
            bar: None,
            action: None,
        })
        .collect()
}

/// The comparison's tables.
pub fn tables(c: &Comparison) -> Vec<Table> {
    let unit = &c.time_unit;
    let process_rows = c
        .processes
        .iter()
        .map(|p| Row {
            cells: vec![
                p.name.clone(),
                amount(p.computation.before, unit),
                amount(p.computation.after, unit),
                change(&p.computation),
                amount(p.waiting.before, unit),
                amount(p.waiting.after, unit),
                change(&p.waiting),
            ],
            bar: None,
            action: None,
        })
        .collect();
    let rank = |r: Option<usize>, s: Option<f64>| match (r, s) {
        (Some(r), Some(s)) => format!("#{r} ({:.1} %)", 100.0 * s),
        _ => "—".to_owned(),
    };
    let npt_rows = c
        .npt
        .iter()
        .map(|r| Row {
            cells: vec![
                r.name.clone(),
                rank(r.rank_before, r.share_before),
                rank(r.rank_after, r.share_after),
                match (r.rank_before, r.rank_after) {
                    (Some(b), Some(a)) if a < b => format!("up {}", b - a),
                    (Some(b), Some(a)) if a > b => format!("down {}", a - b),
                    (Some(_), Some(_)) => "same".to_owned(),
                    (None, Some(_)) => "new".to_owned(),
                    _ => "gone".to_owned(),
                },
            ],
            bar: None,
            action: None,
        })
        .collect();
    vec![
        Table {
            id: "compare-metrics",
            title: "Headline metrics".to_owned(),
            columns: vec!["Metric", "Before", "After", "Change"],
            rows: delta_rows(&c.metrics),
            note: Some(format!(
                "Times in {}. {}",
                if unit == "s" { "seconds" } else { "ticks" },
                c.metrics
                    .iter()
                    .filter(|d| !d.definition.is_empty())
                    .map(|d| format!("{}: {}.", d.name, d.definition))
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
        },
        Table {
            id: "compare-processes",
            title: "Per process (matched by name)".to_owned(),
            columns: vec![
                "Process",
                "Computing before",
                "after",
                "change",
                "Waiting before",
                "after",
                "change",
            ],
            rows: process_rows,
            note: None,
        },
        Table {
            id: "compare-critical-path",
            title: "Critical path composition".to_owned(),
            columns: vec!["Part", "Before", "After", "Change"],
            rows: delta_rows(&c.critical_path),
            note: None,
        },
        Table {
            id: "compare-npt",
            title: "NPT ranking of regions (exclusive)".to_owned(),
            columns: vec!["Region", "Before", "After", "Move"],
            rows: npt_rows,
            note: None,
        },
    ]
}

fn deltas(c: &Comparison) -> impl IntoView + use<> {
    let panels = tables(c)
        .into_iter()
        .map(crate::components::analysis::static_panel)
        .collect_view();
    view! { <div class="analysis-panels compare-deltas" data-testid="compare-deltas">{panels}</div> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_read_with_sign_unit_and_ratio() {
        let d = Delta {
            name: "Execution time".to_owned(),
            unit: "ticks".to_owned(),
            before: Some(69.0),
            after: Some(53.0),
            ratio: None,
            definition: String::new(),
        };
        assert_eq!(change(&d), "−16 (×0.77)");
        let p = Delta {
            unit: "%".to_owned(),
            before: Some(50.0),
            after: Some(62.5),
            ..d.clone()
        };
        assert_eq!(change(&p), "+12.5 % (×1.25)");
        let gone = Delta { after: None, ..d };
        assert_eq!(
            (amount(gone.after, "ticks"), change(&gone)),
            ("—".to_owned(), "—".to_owned())
        );
    }
}
