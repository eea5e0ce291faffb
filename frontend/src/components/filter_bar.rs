//! The workspace's filter bar: the event filter (`kind=send,arr process=A time=10..50`,
//! `message=0>1`, the events of a pattern `pattern=(send,arr)+` or of a message motif
//! `motif=request-response`) every view and panel applies — the charts draw the events it keeps, the
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
                    placeholder="kind=send,arr process=A time=10..50 message=0>1 motif=chain:3"
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
            <datalist id="filter-examples">
                <option value="kind=send,arr">"sends and arrivals"</option>
                <option value="pattern=(recv,arr)+">"a pattern of event kinds"</option>
                <option value="motif=request-response">"requests and their responses"</option>
                <option value="motif=chain:3">"messages passed on, 3 or more in a row"</option>
                <option value="motif=broadcast:3">"sends to 3 or more processes in a row"</option>
            </datalist>
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
