//! The help of the views other than the Gantt chart (which has its own, with every shortcut):
//! what a click, the wheel and the keys do on the Hasse view, the topology and the analysis, and
//! the event filter's language. `?` (the key, or the button beside the tabs) opens it on every
//! tab.

use leptos::prelude::*;
use shared::view::state::{Panel, ViewKind};

use crate::components::filter_bar::FILTER_EXAMPLES;
use crate::workspace::Command;
use crate::workspace::store::Store;

/// What each view does with the mouse and the keys.
fn lines(view: ViewKind) -> &'static [(&'static str, &'static str)] {
    match view {
        ViewKind::Hasse => &[
            (
                "Click an event",
                "its details, with its causal past and future marked",
            ),
            (
                "Wheel",
                "zoom at the pointer (the window is the Gantt chart's)",
            ),
            ("Shift + wheel", "scroll the rows"),
            ("x axis", "layers, Lamport time or physical time"),
            ("Whole run", "fit the whole run"),
            (
                "Motifs, queries",
                "find message patterns, or evaluate a dependence query",
            ),
            (
                "W / S, A / D, F, T",
                "zoom, move, fit and set the replay clock, as on the Gantt chart",
            ),
            ("Esc", "close the details; then clear the last filter chip"),
        ],
        ViewKind::Topology => &[
            (
                "Click a node",
                "its busy share, processes and messages; every view then shows only its processes (a chip above the views says so)",
            ),
            ("Pointer over a node", "its name"),
            ("Replay", "the messages in flight at the replay clock"),
            ("SVG / PNG", "save the picture as shown"),
            ("Esc", "close the pop-up; then clear the last filter chip"),
        ],
        ViewKind::Analysis => &[
            (
                "Scope",
                "every table is computed for the window and the processes in view",
            ),
            (
                "Click a row",
                "show it in the views (its time, its processes or its messages)",
            ),
            (
                "CSV",
                "download a table: numbers in seconds, bytes and percent, the unit in each heading",
            ),
            ("What if…", "replay the run with other weights and compare"),
            ("Esc", "clear the last filter chip"),
        ],
        ViewKind::Gantt | ViewKind::Replay => &[],
    }
}

/// The `?` button beside the tabs: opens or closes the help of the view shown.
pub fn help_button(store: Store) -> impl IntoView {
    view! {
        <button
            class="view-help-toggle"
            data-testid="view-help-toggle"
            aria-label="Help for this view (?)"
            title="Help for this view (?)"
            aria-pressed=move || store.with(|ws| ws.has_panel(Panel::Help)).to_string()
            on:click=move |_| store.dispatch(Command::TogglePanel(Panel::Help))
        >"?"</button>
    }
}

/// The help of the view shown, when it is open and the view is not the Gantt chart.
#[component]
pub fn ViewHelp() -> impl IntoView {
    let store = Store::expect();
    move || {
        let (open, view) = store.with(|ws| (ws.has_panel(Panel::Help), ws.view));
        (open && view != ViewKind::Gantt).then(|| {
            view! {
                <div class="view-help" data-testid="view-help" role="dialog" aria-label="Help for this view">
                    <button class="close" aria-label="Close the help" on:click=move |_| store.dispatch(Command::TogglePanel(Panel::Help))>"×"</button>
                    <h2>"This view"</h2>
                    <table>
                        {lines(view).iter().map(|(k, what)| view! {
                            <tr><th>{*k}</th><td>{*what}</td></tr>
                        }).collect_view()}
                    </table>
                    <h2>"The event filter"</h2>
                    <table>
                        {FILTER_EXAMPLES.iter().map(|(k, what)| view! {
                            <tr><th><code>{*k}</code></th><td>{*what}</td></tr>
                        }).collect_view()}
                    </table>
                </div>
            }
        })
    }
}
