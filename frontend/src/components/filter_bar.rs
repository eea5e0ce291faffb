//! The workspace's filter bar: the event filter (`kind=send,arr process="task 1" time=80ms..120ms`,
//! `region=MPI_Send`, `node=n1`,
//! `message=0>1`, the events of a pattern `pattern=(send,arr)+` or of a message motif
//! `motif=request-response`) every view and panel applies — the charts draw the events it keeps, the
//! analysis panels' lists (messages, wait states, diagnostics, event statistics) keep only
//! them. Checked before it is set; a click elsewhere (a matrix cell) shows here too.

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;

use crate::workspace::Command;
use crate::workspace::store::Store;

/// The filter language by example, as the help and the box's suggestions show it: each term a
/// `key=value`, names quoted when they hold a space, times in ticks or with a unit.
pub const FILTER_EXAMPLES: [(&str, &str); 11] = [
    (
        "kind=send,arr",
        "sends and arrivals (kinds: init exit send recv arr probe enter leave post)",
    ),
    (
        "process=\"task 1\",servant[3]",
        "two processes, by name as shown (quoted when it holds a space) or number",
    ),
    ("node=n1", "the processes of a node, by name or number"),
    (
        "region=MPI_Send",
        "the events inside a region's calls, its entry and exit included",
    ),
    (
        "time=80ms..120ms",
        "a time window with units (s, ms, us or µs, ns), as the axis reads",
    ),
    ("time=10..50", "a time window in ticks (plain numbers)"),
    (
        "message=0>1",
        "the messages from one process to another, sends and arrivals",
    ),
    (
        "pattern=(recv,arr)+",
        "the events of a pattern of event kinds",
    ),
    ("motif=request-response", "requests and their responses"),
    ("motif=chain:3", "messages passed on, 3 or more in a row"),
    ("motif=broadcast:3", "sends to 3 or more processes in a row"),
];

/// The filter bar of a run's workspace.
#[component]
pub fn FilterBar(trace: Arc<Trace>) -> impl IntoView {
    let store = Store::expect();
    let text = RwSignal::new(String::new());
    // The box shows the workspace's filter, whoever set it.
    Effect::new(move |_| {
        text.set(store.with(|ws| ws.event_filter.clone().unwrap_or_default()));
    });
    let error = RwSignal::new(None::<String>);
    let local = !trace.events.is_empty();
    let trace = StoredValue::new(trace);
    // How many events the workspace's filter keeps (the model's events are here unless the run
    // is large).
    let kept = Memo::new(move |_| {
        let text = store.with(|ws| ws.event_filter.clone())?;
        let trace = trace.get_value();
        let filter = shared::analyses::patterns::Filter::parse(&text, &trace).ok()?;
        local.then(|| filter.apply(&trace).len())
    });
    let apply = move || {
        let value = text.get_untracked();
        if value.trim().is_empty() {
            error.set(None);
            store.dispatch(Command::SetEventFilter(None));
            return;
        }
        let trace = trace.get_value();
        match shared::analyses::patterns::Filter::parse(&value, &trace) {
            Ok(_) => {
                error.set(None);
                store.dispatch(Command::SetEventFilter(Some(value)));
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    view! {
        <div class="filter-bar" role="search">
            <label>
                "Events in every view and panel: "
                <input
                    data-testid="event-filter"
                    placeholder="kind=send process=\"task 1\" time=80ms..120ms region=MPI_Send"
                    aria-describedby="filter-syntax"
                    list="filter-examples"
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            apply();
                        }
                    }
                />
            </label>
            // The examples while the box is empty; then the keys and names that complete what
            // is typed (names quoted when they hold a space).
            <datalist id="filter-examples" data-testid="event-filter-suggestions">
                {move || {
                    let typed = text.get();
                    if typed.trim().is_empty() {
                        FILTER_EXAMPLES.iter().map(|(value, what)| view! {
                            <option value=*value>{*what}</option>
                        }).collect_view().into_any()
                    } else {
                        shared::analyses::patterns::completions(&typed, &trace.get_value(), 20)
                            .into_iter()
                            .map(|value| view! { <option value=value></option> })
                            .collect_view()
                            .into_any()
                    }
                }}
            </datalist>
            <span id="filter-syntax" class="visually-hidden">
                "Terms key=value separated by spaces; quote names with spaces; times take units (80ms, 1.5s); press ? for the language."
            </span>
            <button data-testid="event-filter-apply" on:click=move |_| apply()>"Filter"</button>
            <button data-testid="event-filter-clear" on:click=move |_| {
                text.set(String::new());
                apply();
            }>"All events"</button>
            {move || kept.get().map(|n| view! {
                <span class="readout" data-testid="event-filter-count">{format!("{n} events kept")}</span>
            })}
            {move || error.get().map(|m| view! {
                <span class="error" role="alert" data-testid="event-filter-error">{m}</span>
            })}
        </div>
    }
}
