//! What the chart asks the server for as the workspace changes — whichever view changed it:
//! the report when a path overlay is on or an event is selected, the wait states when their
//! overlay is on, an event's wait states when it is selected, a range's statistics when one is
//! selected.

use leptos::prelude::*;
use shared::view::state::{Overlay, Range};

use super::chart::{Chart, RangeStats};
use crate::api;

/// Follows the workspace: each effect asks for what its part of the workspace needs.
pub fn follow_the_workspace(chart: &Chart) {
    if chart.remote.is_some() {
        // A run drawn by the server has no events in the browser to attach results to.
        return;
    }
    let (store, data) = (chart.store, chart.data);
    let bounds = store.with_untracked(|ws| ws.bounds);
    let overlays = Memo::new(move |_| store.with(|ws| ws.overlays.clone()));
    Effect::new(move |_| {
        let on = overlays.get();
        if on.contains(&Overlay::CriticalPath) || on.contains(&Overlay::Wcpa) {
            data.load_report();
        }
        if on.contains(&Overlay::WaitStates) {
            data.load_waits(bounds);
        }
    });
    let selected = Memo::new(move |_| store.with(|ws| ws.selected_event()));
    Effect::new({
        let chart = chart.clone();
        move |_| {
            if let Some(event) = selected.get() {
                data.load_report();
                load_event_waits(&chart, event as usize);
            }
        }
    });
    let range = Memo::new(move |_| store.with(|ws| ws.range.clone()));
    Effect::new({
        let chart = chart.clone();
        move |_| match range.get() {
            Some(range) => load_range_stats(&chart, range),
            None => chart.local.range_stats.set(None),
        }
    });
}

/// Asks for the wait states charged at or caused by `event`. A wait is charged at one end of
/// a message and caused at the other: both ends are asked for.
fn load_event_waits(chart: &Chart, event: usize) {
    let Some(id) = chart.run_id.clone() else {
        return;
    };
    let model = &chart.model;
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
    let event_waits = chart.local.event_waits;
    event_waits.set(None);
    leptos::task::spawn_local(async move {
        let query = api::SelectionQuery {
            start,
            end: end.saturating_add(1),
            processes: processes.join(","),
            limit: 1000,
            filter: String::new(),
        };
        let waits = api::get_wait_states(&id, &query)
            .await
            .map(|w| w.wait_states);
        event_waits.set(Some((event, waits)));
    });
}

/// Asks for a range's summary and communication matrix.
fn load_range_stats(chart: &Chart, range: Range) {
    let Some(id) = chart.run_id.clone() else {
        return;
    };
    let stats = chart.local.range_stats;
    stats.set(None);
    let query = api::SelectionQuery {
        start: range.start,
        end: range.end,
        processes: api::process_list(&range.processes),
        limit: 1000,
        filter: String::new(),
    };
    leptos::task::spawn_local(async move {
        let summary = api::get_selection_summary(&id, &query).await;
        let matrix = api::get_matrix(&id, &query).await;
        stats.set(Some(summary.and_then(|summary| {
            matrix.map(|matrix| RangeStats { summary, matrix })
        })));
    });
}
