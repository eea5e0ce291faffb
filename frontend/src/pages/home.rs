//! `/`: get a trace in — pick files or a folder, drop them, or open a sample in one click — and
//! find, open or delete the stored runs.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;
use shared::view::api::RunInfo;

use crate::api::{self, Upload};
use crate::samples::{SAMPLES, Sample};
use crate::upload;

/// What the page says about the upload under way: a message (or an error) and a bar from 0 to 1.
#[derive(Clone, Copy)]
struct Status {
    text: RwSignal<Option<Result<String, String>>>,
    bar: RwSignal<Option<f64>>,
    /// The unit of a Pajé upload's dates (`s`, `ms`, `us`, `ns`), or `None` to let the server
    /// decide (seconds, milliseconds for EZTrace).
    time_unit: RwSignal<Option<&'static str>>,
}

impl Status {
    fn say(&self, text: impl Into<String>) {
        self.text.set(Some(Ok(text.into())));
    }

    fn fail(&self, text: impl Into<String>) {
        self.bar.set(None);
        self.text.set(Some(Err(text.into())));
    }
}

/// Uploads `upload` with progress in `status`, keeps the run's delete token in this browser,
/// and opens the run.
fn send(upload: Upload, status: Status, navigate: impl Fn(&str) + 'static) {
    let name = upload.name();
    status.say(format!("Uploading {name}…"));
    status.bar.set(Some(0.0));
    let key = upload_key();
    // Poll the server's progress for this upload until the upload answers.
    let done = RwSignal::new(false);
    let poll = {
        let key = key.clone();
        move || {
            let (key, name) = (key.clone(), name.clone());
            spawn_local(async move {
                if let Ok(progress) = api::upload_progress(&key).await
                    && !done.get_untracked()
                {
                    status.say(progress_text(&name, &progress));
                    status.bar.set(progress_fraction(&progress));
                }
            });
        }
    };
    let interval = set_interval_with_handle(poll, std::time::Duration::from_millis(250)).ok();
    spawn_local(async move {
        let result = api::upload_run(upload, &key, status.time_unit.get_untracked()).await;
        done.set(true);
        status.bar.set(None);
        if let Some(interval) = interval {
            interval.clear();
        }
        match result {
            Ok(created) => {
                tokens::keep(&created.id, &created.delete_token);
                navigate(&format!("/runs/{}", created.id));
            }
            Err(message) => status.fail(message),
        }
    });
}

/// A picked file's path: its place in a picked folder, else its name.
fn relative_path(file: &web_sys::File) -> String {
    js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

/// A file's bytes.
async fn read(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("{} could not be read", file.name()))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Uploads what was picked or dropped: one file as it is; several (a folder, a `.prv` with its
/// `.pcf` and `.row`) packed into one archive here first.
fn take_files(files: Vec<web_sys::File>, status: Status, navigate: impl Fn(&str) + 'static) {
    match files.as_slice() {
        [] => {}
        [one] if relative_path(one) == one.name() => {
            send(Upload::File(one.clone()), status, navigate)
        }
        _ => {
            let all: Vec<String> = files.iter().map(relative_path).collect();
            // An archive folder's other files are neither read nor sent.
            let (files, paths): (Vec<web_sys::File>, Vec<String>) = files
                .into_iter()
                .zip(all.iter().cloned())
                .filter(|(_, path)| upload::wanted(&all, path))
                .unzip();
            if let Some(problem) = upload::problem(&paths) {
                status.fail(problem);
                return;
            }
            status.say(format!("Packing {} files…", files.len()));
            spawn_local(async move {
                let mut packed = Vec::with_capacity(files.len());
                for (file, path) in files.iter().zip(&paths) {
                    match read(file).await {
                        Ok(bytes) => packed.push((path.clone(), bytes)),
                        Err(message) => return status.fail(message),
                    }
                }
                match upload::pack(&packed) {
                    Ok(tar) => send(
                        Upload::Bytes(upload::archive_name(&paths), tar),
                        status,
                        navigate,
                    ),
                    Err(message) => status.fail(message),
                }
            });
        }
    }
}

/// Fetches a sample's files from the site and uploads them (packed, when several).
fn open_sample(sample: Sample, status: Status, navigate: impl Fn(&str) + 'static) {
    status.say(format!("Fetching {}…", sample.title));
    spawn_local(async move {
        let mut files = Vec::with_capacity(sample.files.len());
        for path in sample.files {
            match api::fetch_bytes(&format!("/samples/{path}")).await {
                Ok(bytes) => files.push(bytes),
                Err(message) => return status.fail(message),
            }
        }
        let name = crate::samples::upload_name(&sample);
        let bytes = if files.len() == 1 {
            files.pop().unwrap_or_default()
        } else {
            let paths = crate::samples::archive_paths(sample.files);
            match upload::pack(&paths.into_iter().zip(files).collect::<Vec<_>>()) {
                Ok(tar) => tar,
                Err(message) => return status.fail(message),
            }
        };
        send(Upload::Bytes(name, bytes), status, navigate);
    });
}

fn file_list(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// The home page.
#[component]
pub fn HomePage() -> impl IntoView {
    let status = Status {
        text: RwSignal::new(None),
        bar: RwSignal::new(None),
        time_unit: RwSignal::new(None),
    };
    let navigate = use_navigate();
    let go = move |path: &str| navigate(path, Default::default());
    view! {
        <section class="home-intro">
            <h1>"See why a parallel program is slow"</h1>
            <p>
                "Open a trace of a message-passing program to see its processes on a time line with their messages, "
                "its critical path and where it waited — or "
                <a href="/simulate">"run a workload on an emulated transputer network"</a>
                " right in this page."
            </p>
        </section>
        <div class="home-grid">
            <UploadPanel status=status go=go.clone()/>
            <SamplesPanel status=status go=go/>
        </div>
        <RunsPanel/>
    }
}

/// The drop zone, the pickers and the upload's progress.
#[component]
fn UploadPanel(status: Status, go: impl Fn(&str) + Clone + 'static) -> impl IntoView {
    let (dragging, set_dragging) = signal(false);
    // A folder picker: `webkitdirectory`, which the view macro does not know.
    let folder = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    let on_pick = {
        let go = go.clone();
        move |ev: leptos::ev::Event| {
            let input: web_sys::HtmlInputElement = event_target(&ev);
            take_files(file_list(input.files()), status, go.clone());
            // The same files picked again upload again.
            input.set_value("");
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        set_dragging.set(false);
        let files = file_list(ev.data_transfer().and_then(|dt| dt.files()));
        take_files(files, status, go.clone());
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
            <h2>"Open a trace"</h2>
            <p>"Drop trace files here, or pick them. An OTF2 archive is a folder: pick the folder, or its files together. A Paraver trace is its .prv with its .pcf and .row. A Charm++ Projections trace is its .sts with its .log files."</p>
            <div class="pickers">
                <label class="file-button">
                    "Choose trace files"
                    <input type="file" multiple data-testid="trace-file" on:change=on_pick.clone()/>
                </label>
                <label class="file-button secondary">
                    "Choose a folder"
                    <input type="file" node_ref=folder data-testid="trace-folder" on:change=on_pick/>
                </label>
            </div>
            {move || status.bar.get().map(|fraction| view! {
                <progress
                    class="upload-progress"
                    data-testid="upload-progress"
                    max="1"
                    value=fraction.to_string()
                ></progress>
            })}
            {move || status.text.get().map(|s| match s {
                Ok(text) => view! { <p class="status" role="status">{text}</p> }.into_any(),
                Err(text) => view! { <p class="error" role="alert">{text}</p> }.into_any(),
            })}
            <details class="upload-options">
                <summary>"Options"</summary>
                <label>
                    "Pajé dates are in "
                    <select
                        data-testid="time-unit"
                        on:change=move |ev| {
                            let value = event_target_value(&ev);
                            let unit = shared::formats::paje::TimeUnit::from_name(&value);
                            status.time_unit.set(unit.map(|u| u.name()));
                        }
                    >
                        <option value="auto" selected>"seconds (milliseconds for EZTrace)"</option>
                        <option value="s">"seconds"</option>
                        <option value="ms">"milliseconds"</option>
                        <option value="us">"microseconds"</option>
                        <option value="ns">"nanoseconds"</option>
                    </select>
                </label>
            </details>
            <FormatsList/>
        </section>
    }
}

/// The sample traces, one click each.
#[component]
fn SamplesPanel(status: Status, go: impl Fn(&str) + Clone + 'static) -> impl IntoView {
    view! {
        <section class="samples">
            <h2>"Or open a sample"</h2>
            <ul class="sample-list">
                {SAMPLES.into_iter().map(|sample| {
                    let go = go.clone();
                    view! {
                        <li>
                            <button
                                class="link"
                                data-testid=format!("sample-{}", sample.id)
                                on:click=move |_| open_sample(sample, status, go.clone())
                            >{sample.title}</button>
                            <span class="format-tag">{sample.format}</span>
                            <span class="about">{sample.about}</span>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <p class="about">
                "Written by real tools; where each comes from and its licence: "
                <a href="/samples/traces/SOURCES.md">"SOURCES.md"</a>
                ". Transputer demos run in the "<a href="/simulate">"Simulator"</a>"."
            </p>
        </section>
    }
}

/// The formats read, and what each needs.
#[component]
fn FormatsList() -> impl IntoView {
    const FORMATS: [(&str, &str); 9] = [
        (
            "OTF2",
            "Score-P and other OTF2 writers: the archive folder (traces.otf2, traces.def, traces/), or a .tar/.tar.gz of it",
        ),
        (
            "Chrome JSON",
            "Chrome, Perfetto and Catapult trace events: .json or .json.gz",
        ),
        (
            "Paraver",
            "Extrae/MPItrace: the .prv, with its .pcf (names) and .row (labels) picked together",
        ),
        ("ShiViz", "GoVector and ShiViz logs with vector clocks"),
        (
            "Pajé",
            "PajeNG, SimGrid, StarPU, ViTE: the .trace text file",
        ),
        (
            "Projections",
            "Charm++ Projections logs: the NAME.sts with its NAME.N.log or .log.gz files, picked together or as a folder",
        ),
        ("Tmon", "the transputer monitor's records (Jiang 1990)"),
        (
            "Tracescope",
            "this tool's JSON or binary model (convert --to native)",
        ),
        ("gzip", "any of the above gzip-compressed"),
    ];
    view! {
        <details class="formats" data-testid="formats">
            <summary>"Formats read: OTF2, Chrome JSON, Paraver, ShiViz, Pajé, Projections, Tmon, Tracescope — what each needs"</summary>
            <table class="run-table">
                {FORMATS.into_iter().map(|(name, needs)| view! {
                    <tr><th>{name}</th><td>{needs}</td></tr>
                }).collect_view()}
            </table>
        </details>
    }
}

/// The stored runs: a search box and the list, with Delete for the runs this browser uploaded.
#[component]
fn RunsPanel() -> impl IntoView {
    let search = RwSignal::new(String::new());
    let refresh = RwSignal::new(0u32);
    let runs = LocalResource::new(move || {
        refresh.track();
        api::list_runs(search.get())
    });
    let error = RwSignal::new(None::<String>);
    view! {
        <section class="runs">
            <div class="runs-head">
                <h2>"Stored runs"</h2>
                <input
                    type="search"
                    placeholder="Search by name"
                    data-testid="run-search"
                    prop:value=move || search.get()
                    on:input=move |ev| search.set(event_target_value(&ev))
                />
            </div>
            {move || error.get().map(|m| view! { <p class="error" role="alert">{m}</p> })}
            {move || match runs.get() {
                None => view! { <p>"Loading…"</p> }.into_any(),
                Some(Err(message)) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
                Some(Ok(list)) if list.runs.is_empty() => view! {
                    <p>{if search.get_untracked().is_empty() { "No runs yet." } else { "No run matches." }}</p>
                }.into_any(),
                Some(Ok(list)) => view! { <RunTable runs=list.runs refresh=refresh error=error/> }.into_any(),
            }}
        </section>
    }
}

/// The delete tokens of the runs this browser uploaded, in its local storage.
mod tokens {
    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok()?
    }

    fn key(id: &str) -> String {
        format!("tracescope.delete-token.{id}")
    }

    /// Keeps a run's delete token.
    pub fn keep(id: &str, token: &str) {
        if let Some(s) = storage() {
            let _ = s.set_item(&key(id), token);
        }
    }

    /// A run's delete token, if this browser uploaded it.
    pub fn get(id: &str) -> Option<String> {
        storage()?.get_item(&key(id)).ok()?
    }

    /// Forgets a deleted run's token.
    pub fn forget(id: &str) {
        if let Some(s) = storage() {
            let _ = s.remove_item(&key(id));
        }
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
fn RunTable(
    runs: Vec<RunInfo>,
    refresh: RwSignal<u32>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let delete = move |id: String, name: String| {
        let confirmed = web_sys::window()
            .and_then(|w| {
                w.confirm_with_message(&format!("Delete the run {name}?"))
                    .ok()
            })
            .unwrap_or(false);
        let Some(token) = tokens::get(&id).filter(|_| confirmed) else {
            return;
        };
        spawn_local(async move {
            match api::delete_run(&id, &token).await {
                Ok(()) => {
                    tokens::forget(&id);
                    error.set(None);
                    refresh.update(|n| *n += 1);
                }
                Err(message) => error.set(Some(message)),
            }
        });
    };
    view! {
        <table class="run-table" data-testid="run-table">
            <thead>
                <tr><th>"Name"</th><th>"Format"</th><th>"Processes"</th><th>"Events"</th><th>"Messages"</th><th>"Span"</th><th></th></tr>
            </thead>
            <tbody>
                {runs.into_iter().map(|run| {
                    let s = run.summary;
                    let (id, name) = (run.id.clone(), s.name.clone());
                    let mine = tokens::get(&run.id).is_some();
                    view! {
                        <tr>
                            <td><a href=format!("/runs/{}", run.id)>{s.name}</a></td>
                            <td>{s.format.name()}</td>
                            <td>{s.processes}</td>
                            <td>{s.events}</td>
                            <td>{s.messages}</td>
                            <td>{s.time.duration_text}</td>
                            <td>{mine.then(|| view! {
                                <button
                                    class="link danger"
                                    data-testid="delete-run"
                                    title="Delete this run (you uploaded it from this browser)"
                                    on:click=move |_| delete(id.clone(), name.clone())
                                >"Delete"</button>
                            })}</td>
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
