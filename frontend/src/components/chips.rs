//! The chips above the views: every filter that narrows them — the processes shown (a topology
//! node, a matrix cell, the process picker), the event filter (the filter bar, a matrix cell),
//! the region kept in colour — each with a button that clears it, in the order they were set.
//! Esc clears the last one once nothing else is open, so a click that narrowed every view is
//! never silent and never a trap.

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;

use crate::workspace::Narrowing;
use crate::workspace::store::Store;

/// The most process names a chip lists before it says how many more.
const NAMES_SHOWN: usize = 3;

/// The chips of the narrowings in force (nothing when the views show everything).
#[component]
pub fn NarrowingChips(trace: Arc<Trace>) -> impl IntoView {
    let store = Store::expect();
    let trace = StoredValue::new(trace);
    move || {
        let narrowed = store.with(|ws| ws.narrowed.clone());
        (!narrowed.is_empty()).then(|| {
            view! {
                <div class="narrowing-chips" data-testid="narrowing-chips" role="group" aria-label="Filters narrowing every view">
                    <span class="chips-lead">"Every view shows only:"</span>
                    {narrowed.into_iter().map(|n| chip(store, &trace.get_value(), n)).collect_view()}
                    <span class="chips-hint">"(Esc clears the last)"</span>
                </div>
            }
        })
    }
}

/// One chip: what is kept, and a clear button named for what it clears.
fn chip(store: Store, trace: &Trace, n: Narrowing) -> impl IntoView + use<> {
    let (test_id, text, clear) = store.with_untracked(|ws| match n {
        Narrowing::Processes => {
            let shown = ws.processes.clone().unwrap_or_default();
            let mut names: Vec<String> = shown
                .iter()
                .take(NAMES_SHOWN)
                .map(|&p| {
                    trace
                        .processes
                        .get(p as usize)
                        .map_or_else(|| format!("process {p}"), |p| p.name.clone())
                })
                .collect();
            if shown.len() > NAMES_SHOWN {
                names.push(format!("{} more", shown.len() - NAMES_SHOWN));
            }
            let of = ws.n_processes;
            (
                "chip-processes",
                format!("{} of {of} processes: {}", shown.len(), names.join(", ")),
                "Clear the process filter: show every process",
            )
        }
        Narrowing::Events => (
            "chip-events",
            format!("events {}", ws.event_filter.clone().unwrap_or_default()),
            "Clear the event filter: show every event",
        ),
        Narrowing::Region => {
            let name = ws
                .region_filter()
                .and_then(|r| trace.regions.get(r as usize))
                .map_or_else(String::new, |r| r.name.clone());
            (
                "chip-region",
                format!("region {name} in colour"),
                "Clear the region filter: colour every region",
            )
        }
    });
    view! {
        <span class="filter-chip" data-testid=test_id>
            <span>{text}</span>
            <button aria-label=clear title=clear on:click=move |_| store.dispatch(n.clear())>"×"</button>
        </span>
    }
}
