//! `/`: upload a trace (file picker or drag and drop) and list the stored runs.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;
use shared::api::RunInfo;

use crate::api;

/// The home page.
#[component]
pub fn HomePage() -> impl IntoView {
    let runs = LocalResource::new(api::list_runs);
    let (status, set_status) = signal(None::<Result<String, String>>);
    let (dragging, set_dragging) = signal(false);
    let navigate = use_navigate();

    let upload = move |file: web_sys::File| {
        let navigate = navigate.clone();
        set_status.set(Some(Ok(format!("Uploading {}…", file.name()))));
        spawn_local(async move {
            match api::upload_run(file).await {
                Ok(created) => navigate(&format!("/runs/{}", created.id), Default::default()),
                Err(message) => set_status.set(Some(Err(message))),
            }
        });
    };
    let on_change = {
        let upload = upload.clone();
        move |ev: leptos::ev::Event| {
            let input: web_sys::HtmlInputElement = event_target(&ev);
            if let Some(file) = input.files().and_then(|files| files.get(0)) {
                upload(file);
            }
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        set_dragging.set(false);
        if let Some(file) = ev
            .data_transfer()
            .and_then(|dt| dt.files())
            .and_then(|files| files.get(0))
        {
            upload(file);
        }
    };

    view! {
        <section
            class="dropzone"
            class:dragging=dragging
            on:dragover=move |ev: leptos::ev::DragEvent| {
                ev.prevent_default();
                set_dragging.set(true);
            }
            on:dragleave=move |_| set_dragging.set(false)
            on:drop=on_drop
        >
            <h1>"Upload a trace"</h1>
            <p>"Drop a trace file here, or pick one."</p>
            <label class="file-button">
                "Choose a trace file"
                <input type="file" data-testid="trace-file" on:change=on_change/>
            </label>
            {move || status.get().map(|s| match s {
                Ok(text) => view! { <p class="status" role="status">{text}</p> }.into_any(),
                Err(text) => view! { <p class="error" role="alert">{text}</p> }.into_any(),
            })}
        </section>
        <section class="runs">
            <h2>"Stored runs"</h2>
            {move || match runs.get() {
                None => view! { <p>"Loading…"</p> }.into_any(),
                Some(Err(message)) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
                Some(Ok(list)) if list.runs.is_empty() => view! { <p>"No runs yet."</p> }.into_any(),
                Some(Ok(list)) => view! { <RunTable runs=list.runs/> }.into_any(),
            }}
        </section>
    }
}

/// The runs list as a table.
#[component]
fn RunTable(runs: Vec<RunInfo>) -> impl IntoView {
    view! {
        <table class="run-table">
            <thead>
                <tr><th>"Name"</th><th>"Format"</th><th>"Processes"</th><th>"Events"</th><th>"Messages"</th><th>"Span"</th></tr>
            </thead>
            <tbody>
                {runs.into_iter().map(|run| {
                    let s = run.summary;
                    view! {
                        <tr>
                            <td><a href=format!("/runs/{}", run.id)>{s.name}</a></td>
                            <td>{s.format.name()}</td>
                            <td>{s.processes}</td>
                            <td>{s.events}</td>
                            <td>{s.messages}</td>
                            <td>{s.time.duration_text}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
