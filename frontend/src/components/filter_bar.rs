//! The workspace's filter bar: the event filter (`kind=send,arr process=A time=10..50`,
//! `message=0>1`) every view and panel applies — the charts draw the events it keeps, the
//! analysis panels' lists (messages, wait states, diagnostics, event statistics) keep only
//! them. Checked before it is set; a click elsewhere (a matrix cell) shows here too.

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;

use crate::workspace::Command;
use crate::workspace::store::Store;

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
    let trace = StoredValue::new(trace);
    let apply = move || {
        let value = text.get_untracked();
        if value.trim().is_empty() {
            error.set(None);
            store.dispatch(Command::SetEventFilter(None));
            return;
        }
        match shared::analyses::patterns::Filter::parse(&value, &trace.get_value()) {
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
                    placeholder="kind=send,arr process=A time=10..50 message=0>1"
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            apply();
                        }
                    }
                />
            </label>
            <button data-testid="event-filter-apply" on:click=move |_| apply()>"Filter"</button>
            <button data-testid="event-filter-clear" on:click=move |_| {
                text.set(String::new());
                apply();
            }>"All events"</button>
            {move || error.get().map(|m| view! {
                <span class="error" role="alert" data-testid="event-filter-error">{m}</span>
            })}
        </div>
    }
}
