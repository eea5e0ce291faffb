//! `/`: upload a trace (file picker or drag and drop) and list the stored runs.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;
use shared::view::api::RunInfo;

use crate::api;

/// The home page.
#[component]
pub fn HomePage() -> impl IntoView {
    let runs = LocalResource::new(api::list_runs);
    let (status, set_status) = signal(None::<Result<String, String>>);
    let (dragging, set_dragging) = signal(false);
    // The upload's progress bar, from 0 to 1, while one is under way.
    let bar = RwSignal::new(None::<f64>);
    let navigate = use_navigate();

    let upload = move |file: web_sys::File| {
        let navigate = navigate.clone();
        let name = file.name();
        set_status.set(Some(Ok(format!("Uploading {name}…"))));
        bar.set(Some(0.0));
        let key = upload_key();
        // Poll the server's progress for this upload until the upload answers.
        let done = RwSignal::new(false);
        let poll = {
            let key = key.clone();
            move || {
                let key = key.clone();
                let name = name.clone();
                spawn_local(async move {
                    if let Ok(progress) = api::upload_progress(&key).await
                        && !done.get_untracked()
                    {
                        set_status.set(Some(Ok(progress_text(&name, &progress))));
                        bar.set(progress_fraction(&progress));
                    }
                });
            }
        };
        let interval = set_interval_with_handle(poll, std::time::Duration::from_millis(250)).ok();
        spawn_local(async move {
            let result = api::upload_run(file, &key).await;
            done.set(true);
            bar.set(None);
            if let Some(interval) = interval {
                interval.clear();
            }
            match result {
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
            {move || bar.get().map(|fraction| view! {
                <progress
                    class="upload-progress"
                    data-testid="upload-progress"
                    max="1"
                    value=fraction.to_string()
                ></progress>
            })}
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

/// A random key under which the server reports an upload's progress.
fn upload_key() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..24)
        .map(|_| {
            let i = (js_sys::Math::random() * ALPHABET.len() as f64) as usize;
            char::from(ALPHABET[i.min(ALPHABET.len() - 1)])
        })
        .collect()
}

/// What the page says while an upload is under way.
pub fn progress_text(name: &str, progress: &shared::view::api::UploadProgress) -> String {
    use shared::view::api::UploadPhase;
    let mb = |bytes: u64| bytes as f64 / 1e6;
    match progress.phase {
        UploadPhase::Receiving => match progress.bytes_total {
            Some(total) => format!(
                "Uploading {name}: {:.1} of {:.1} MB",
                mb(progress.bytes_read),
                mb(total)
            ),
            None => format!("Uploading {name}: {:.1} MB", mb(progress.bytes_read)),
        },
        UploadPhase::Parsing => format!("Reading {name} ({:.1} MB)…", mb(progress.bytes_read)),
        UploadPhase::Analysing => format!("Analysing {name}…"),
        UploadPhase::Storing | UploadPhase::Done => format!("Storing {name}…"),
        UploadPhase::Failed => format!("{name} could not be stored."),
    }
}

/// How far an upload has come, from 0 to 1: receiving the bytes is most of it, then reading,
/// analysing and storing (the server reports phases, not their shares).
pub fn progress_fraction(progress: &shared::view::api::UploadProgress) -> Option<f64> {
    use shared::view::api::UploadPhase;
    Some(match progress.phase {
        UploadPhase::Receiving => match progress.bytes_total {
            Some(total) if total > 0 => 0.6 * (progress.bytes_read as f64 / total as f64).min(1.0),
            _ => 0.0,
        },
        UploadPhase::Parsing => 0.7,
        UploadPhase::Analysing => 0.85,
        UploadPhase::Storing => 0.95,
        UploadPhase::Done => 1.0,
        UploadPhase::Failed => return None,
    })
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

#[cfg(test)]
mod tests {
    use shared::view::api::{UploadPhase, UploadProgress};

    use super::{progress_fraction, progress_text};

    #[test]
    fn progress_reads_as_megabytes_and_phases() {
        let mut progress = UploadProgress {
            phase: UploadPhase::Receiving,
            bytes_read: 12_300_000,
            bytes_total: Some(50_000_000),
        };
        assert_eq!(
            progress_text("a.otf2", &progress),
            "Uploading a.otf2: 12.3 of 50.0 MB"
        );
        progress.bytes_total = None;
        assert_eq!(
            progress_text("a.otf2", &progress),
            "Uploading a.otf2: 12.3 MB"
        );
        progress.phase = UploadPhase::Analysing;
        assert_eq!(progress_text("a.otf2", &progress), "Analysing a.otf2…");
    }

    #[test]
    fn the_bar_fills_with_the_bytes_then_the_phases() {
        let mut progress = UploadProgress {
            phase: UploadPhase::Receiving,
            bytes_read: 25,
            bytes_total: Some(100),
        };
        assert_eq!(progress_fraction(&progress), Some(0.15));
        progress.phase = UploadPhase::Storing;
        assert_eq!(progress_fraction(&progress), Some(0.95));
        progress.phase = UploadPhase::Failed;
        assert_eq!(progress_fraction(&progress), None);
    }
}
