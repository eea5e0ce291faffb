//! `/simulate`: run an occam or assembly program on an emulated transputer network in a Web
//! Worker (`static/sim-worker.js` driving the `simulator-wasm` crate), with a progress readout;
//! the finished run's trace is stored like an upload, and a link opens it in the Gantt view
//! (the page keeps the program's output on screen). The demo gallery (the founding case
//! studies in occam) opens a program with one click; occam is compiled as it is typed, the
//! line of an error marked in the editor.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::Closure;

use crate::api;

/// A ready-made program: its name, the program's own short name, topology and source.
struct Example {
    name: &'static str,
    program: &'static str,
    topology: &'static str,
    until: &'static str,
    source: fn() -> String,
}

const EXAMPLES: [Example; 4] = [
    Example {
        name: "Mesh 4×4: compute and pass words east",
        program: "meshwork",
        topology: "mesh 4x4",
        until: "100ms",
        source: || {
            format!(
                "WIDTH = 4\n{}",
                include_str!("../../../simulator-wasm/programs/meshwork.s")
            )
        },
    },
    Example {
        name: "COMSTIME on one T800 (20,000 iterations)",
        program: "COMSTIME",
        topology: "single",
        until: "1s",
        source: || {
            include_str!("../../../simulator-wasm/programs/comstime.s").replacen(
                "N = 1000",
                "N = 20000",
                1,
            )
        },
    },
    Example {
        name: "Hello through the iserver (a pipe of two)",
        program: "hello",
        topology: "pipe 2",
        until: "10ms",
        source: || include_str!("../../../simulator-wasm/programs/hello-loaded.s").to_owned(),
    },
    Example {
        name: "Keys and files through the iserver",
        program: "keys-to-file",
        topology: "single",
        until: "10ms",
        source: || include_str!("../../../simulator-wasm/programs/keys-to-file.s").to_owned(),
    },
];

/// Stores the view `start` gives of run `id` (its processes and span from the run's outline)
/// and answers its permalink's path.
async fn lesson_view(id: &str, start: &shared::view::state::StartView) -> Result<String, String> {
    let detail = api::get_run_outline(id).await?;
    let names: Vec<&str> = detail
        .trace
        .processes
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let time = &detail.run.summary.time;
    let state = start.view_state(id, &names, Some((time.start.0, time.end.0)));
    Ok(api::create_view(&state).await?.path)
}

/// A demo of the gallery, as the worker lists it (`simulator_wasm::demos::Listing`).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
struct DemoInfo {
    name: String,
    title: String,
    origin: String,
    about: String,
    source: String,
    nodes: Vec<u32>,
    networks: Vec<String>,
    until_ns: u64,
    /// The view its run opens on.
    #[serde(default)]
    start: Option<shared::view::state::StartView>,
}

/// The demos in the worker's "demos" message.
fn demo_list(data: &wasm_bindgen::JsValue) -> Vec<DemoInfo> {
    js_sys::JSON::stringify(&field(data, "demos"))
        .ok()
        .and_then(|s| s.as_string())
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

/// A file the program wrote: its name, size and a URL the worker made for it.
#[derive(Debug, Clone, PartialEq)]
struct WrittenFile {
    name: String,
    size: u64,
    url: String,
    /// A PNG of a PPM image, to show.
    preview: Option<String>,
}

/// The files in the worker's "done" message.
fn written_files(data: &wasm_bindgen::JsValue) -> Vec<WrittenFile> {
    let list = js_sys::Array::from(&field(data, "files"));
    list.iter()
        .map(|f| WrittenFile {
            name: text(&f, "name"),
            size: number(&f, "size") as u64,
            url: text(&f, "url"),
            preview: field(&f, "preview").as_string(),
        })
        .collect()
}

/// What the worker last said.
#[derive(Clone, Debug, Default, PartialEq)]
struct Progress {
    fraction: f64,
    virtual_ns: f64,
    instructions: f64,
    host_seconds: f64,
    /// Threads the network runs on.
    workers: u64,
}

impl Progress {
    /// The worker's fields (`progress` or `done` messages).
    fn of(data: &wasm_bindgen::JsValue, fraction: f64) -> Progress {
        Progress {
            fraction,
            virtual_ns: number(data, "virtualNs"),
            instructions: number(data, "instructions"),
            host_seconds: number(data, "hostSeconds"),
            workers: (number(data, "workers") as u64).max(1),
        }
    }

    fn text(&self) -> String {
        let rate = if self.host_seconds > 0.0 {
            self.instructions / self.host_seconds
        } else {
            0.0
        };
        format!(
            "{:.0} % · virtual time {} · {} · {} on {} · {}",
            self.fraction * 100.0,
            virtual_time(self.virtual_ns),
            plural(self.instructions as u64, "instruction"),
            rate_text(rate),
            plural(self.workers, "worker"),
            speed_text(self.virtual_ns, self.host_seconds)
        )
    }
}

/// How fast the emulated network runs against the real one: virtual time over host time.
fn speed_text(virtual_ns: f64, host_seconds: f64) -> String {
    if host_seconds <= 0.0 {
        return "real-time speed not known yet".to_owned();
    }
    let times = virtual_ns / (host_seconds * 1e9);
    if times >= 10.0 {
        format!("{times:.0}× real time")
    } else if times >= 0.01 {
        format!("{times:.2}× real time")
    } else {
        format!("{:.0}× slower than real time", 1.0 / times.max(1e-12))
    }
}

/// Virtual nanoseconds for people: `5.714 ms`.
fn virtual_time(ns: f64) -> String {
    shared::model::time::Clock::NANOSECONDS
        .format_duration(shared::model::time::Duration(ns.max(0.0) as u64))
}

/// `1 node`, `64 nodes`, `1,234 instructions`.
fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{} {what}s", group(n))
    }
}

/// Instructions a second, in the unit that suits them.
fn rate_text(per_second: f64) -> String {
    if per_second >= 1e5 {
        format!("{:.1} M instructions/s", per_second / 1e6)
    } else if per_second >= 100.0 {
        format!("{:.1} k instructions/s", per_second / 1e3)
    } else {
        format!("{per_second:.0} instructions/s")
    }
}

/// How a finished run ended: its outcome, on how many nodes, and when in virtual time, saying
/// so when it ended before the time it was given.
fn outcome_text(outcome: &str, nodes: u64, virtual_ns: f64, until_ns: f64) -> String {
    let early = if until_ns > 0.0 && virtual_ns < until_ns * 0.999 {
        format!(", early: it had {}", virtual_time(until_ns))
    } else {
        String::new()
    };
    format!(
        "Finished ({outcome}) on {} at {} of virtual time{early}",
        plural(nodes, "node"),
        virtual_time(virtual_ns)
    )
}

/// `1234567` as `1,234,567`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn field(data: &wasm_bindgen::JsValue, name: &str) -> wasm_bindgen::JsValue {
    js_sys::Reflect::get(data, &name.into()).unwrap_or(wasm_bindgen::JsValue::UNDEFINED)
}

fn number(data: &wasm_bindgen::JsValue, name: &str) -> f64 {
    field(data, name).as_f64().unwrap_or(0.0)
}

fn text(data: &wasm_bindgen::JsValue, name: &str) -> String {
    field(data, name).as_string().unwrap_or_default()
}

/// Starts the page's worker: it loads and compiles the emulator at once, so a run does not
/// wait for that, and it stays for the next run (whose code the engine has by then optimised).
fn start_worker() -> Result<web_sys::Worker, String> {
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    web_sys::Worker::new_with_options("/sim-worker.js", &options)
        .map_err(|_| "this browser cannot start a module Web Worker".to_owned())
}

/// Ends the page's worker, if one runs.
fn stop(worker: StoredValue<Option<web_sys::Worker>, LocalStorage>) {
    worker.update_value(|w| {
        if let Some(w) = w.take() {
            w.terminate();
        }
    });
}

/// The page's state: the form, the run's progress and outcome, the worker.
#[derive(Clone, Copy)]
struct Sim {
    source: RwSignal<String>,
    topology: RwSignal<String>,
    until: RwSignal<String>,
    chip: RwSignal<String>,
    mhz: RwSignal<String>,
    link_mbit: RwSignal<String>,
    /// Web Workers to share the run among: `auto` or a number.
    workers: RwSignal<String>,
    running: RwSignal<bool>,
    /// The finished run's trace is on its way to the server (Stop no longer applies).
    storing: RwSignal<bool>,
    /// The picked example's index (its program names the run).
    example: RwSignal<usize>,
    tracing: RwSignal<bool>,
    progress: RwSignal<Option<Progress>>,
    status: RwSignal<Option<Result<String, String>>>,
    output: RwSignal<String>,
    /// What the program reads from the keyboard (escapes `\r`, `\n`, `\xNN`).
    keys: RwSignal<String>,
    /// The files the program wrote.
    files: RwSignal<Vec<WrittenFile>>,
    stored: RwSignal<Option<String>>,
    /// The run stored before this one, to compare with.
    previous: RwSignal<Option<String>>,
    /// The stored run's view of what its demo teaches: its permalink path and what it shows.
    lesson: RwSignal<Option<(String, String)>>,
    /// `occam` or `assembly`.
    language: RwSignal<&'static str>,
    /// The demo gallery, once the worker has listed it, and the picked demo.
    demos: RwSignal<Vec<DemoInfo>>,
    demo: RwSignal<Option<usize>>,
    /// The occam compiler's verdict on the source as it stands: its error (empty when it
    /// compiles) and how long it took, milliseconds.
    check: RwSignal<Option<(String, f64)>>,
    /// The run under way: its name and its virtual time limit.
    current: StoredValue<(String, u64)>,
    worker: StoredValue<Option<web_sys::Worker>, LocalStorage>,
}

impl Sim {
    /// The first example, ready to run, with the worker starting.
    fn new() -> Sim {
        Sim {
            source: RwSignal::new((EXAMPLES[0].source)()),
            topology: RwSignal::new(EXAMPLES[0].topology.to_owned()),
            until: RwSignal::new(EXAMPLES[0].until.to_owned()),
            chip: RwSignal::new("T800".to_owned()),
            mhz: RwSignal::new("20".to_owned()),
            link_mbit: RwSignal::new("20".to_owned()),
            workers: RwSignal::new("auto".to_owned()),
            running: RwSignal::new(false),
            storing: RwSignal::new(false),
            example: RwSignal::new(0),
            tracing: RwSignal::new(true),
            progress: RwSignal::new(None),
            status: RwSignal::new(None),
            output: RwSignal::new(String::new()),
            keys: RwSignal::new("hello, transputer\\r".to_owned()),
            files: RwSignal::new(Vec::new()),
            stored: RwSignal::new(None),
            previous: RwSignal::new(None),
            lesson: RwSignal::new(None),
            language: RwSignal::new("assembly"),
            demos: RwSignal::new(Vec::new()),
            demo: RwSignal::new(None),
            check: RwSignal::new(None),
            current: StoredValue::new((String::new(), 0)),
            worker: StoredValue::new_local(None),
        }
    }

    /// The worker, started (and asked for the gallery) when there is none.
    fn ensure_worker(self) -> Result<web_sys::Worker, String> {
        if let Some(w) = self.worker.with_value(Option::clone) {
            return Ok(w);
        }
        let w = start_worker()?;
        let on_message = self.on_message();
        w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        let ask = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&ask, &"type".into(), &"demos".into());
        let _ = w.post_message(&ask);
        self.worker.set_value(Some(w.clone()));
        Ok(w)
    }

    /// Has the worker start and warm up the helpers a run on `workers` workers needs, while
    /// the user is still at the form (a helper takes ~0.2 s to load and warm up: the first
    /// shared run would otherwise pay for it).
    fn prepare_helpers(self, workers: &str) {
        let Ok(n) = workers.parse::<u32>() else {
            return;
        };
        if n < 2 {
            return;
        }
        let Ok(w) = self.ensure_worker() else { return };
        let ask = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&ask, &"type".into(), &"helpers".into());
        let _ = js_sys::Reflect::set(&ask, &"workers".into(), &n.into());
        let _ = w.post_message(&ask);
    }

    /// Asks the worker to compile the occam source as it stands.
    fn check_source(self) {
        if self.language.get_untracked() != "occam" {
            self.check.set(None);
            return;
        }
        let Ok(w) = self.ensure_worker() else { return };
        let ask = js_sys::Object::new();
        let set = |key: &str, value: wasm_bindgen::JsValue| {
            let _ = js_sys::Reflect::set(&ask, &key.into(), &value);
        };
        set("type", "check".into());
        set("source", self.source.get_untracked().into());
        set("topology", self.topology.get_untracked().into());
        let _ = w.post_message(&ask);
    }

    /// Opens demo `k` of the gallery on its default network.
    fn pick_demo(self, k: usize) {
        let Some(d) = self.demos.with_untracked(|list| list.get(k).cloned()) else {
            return;
        };
        self.demo.set(Some(k));
        self.language.set("occam");
        self.source.set(d.source.clone());
        self.topology.set(
            d.networks
                .first()
                .cloned()
                .unwrap_or_else(|| "single".to_owned()),
        );
        self.until.set(if d.until_ns.is_multiple_of(1_000_000_000) {
            format!("{}s", d.until_ns / 1_000_000_000)
        } else {
            format!("{}ms", d.until_ns.div_ceil(1_000_000))
        });
        self.status.set(None);
        self.check_source();
    }

    /// Ends the run with an error.
    fn fail(&self, message: String) {
        self.running.set(false);
        self.status.set(Some(Err(message)));
    }

    /// The run finished (`data` is the worker's "done" message): its output, and its trace
    /// stored when one was recorded. The run is over: Stop no longer applies, and storing the
    /// trace goes on to the end.
    fn finished(&self, data: &wasm_bindgen::JsValue, name: String, until_ns: u64) {
        let sim = *self;
        let done = Progress::of(data, 1.0);
        let outcome = outcome_text(
            &text(data, "outcome"),
            number(data, "nodes") as u64,
            done.virtual_ns,
            until_ns as f64,
        );
        sim.output.set(text(data, "output"));
        sim.files.set(written_files(data));
        sim.progress.set(Some(done));
        sim.running.set(false);
        if !sim.tracing.get_untracked() {
            sim.status
                .set(Some(Ok(format!("{outcome} (no trace recorded)."))));
            return;
        }
        // The worker hands the trace over in the binary format.
        let trace = js_sys::Uint8Array::new(&field(data, "trace")).to_vec();
        sim.storing.set(true);
        sim.status.set(Some(Ok(format!(
            "{outcome}. Storing the trace ({:.1} MB)…",
            trace.len() as f64 / 1e6
        ))));
        spawn_local(async move {
            let key = format!("sim-{}", js_sys::Date::now() as u64);
            let stored = api::upload_run(api::Upload::Bytes(name, trace), &key, None).await;
            sim.storing.set(false);
            match stored {
                Ok(created) => {
                    sim.status
                        .set(Some(Ok(format!("{outcome}. The trace is stored."))));
                    sim.lesson.set(None);
                    let start = sim.demo.get_untracked().and_then(|k| {
                        sim.demos
                            .with_untracked(|list| list.get(k).and_then(|d| d.start.clone()))
                    });
                    if let Some(start) = start {
                        // Where the run opens: the view its demo teaches with (the whole
                        // trace is a link beside it).
                        match lesson_view(&created.id, &start).await {
                            Ok(path) => sim.lesson.set(Some((path, start.lesson.clone()))),
                            Err(message) => {
                                leptos::logging::warn!("the demo's starting view: {message}")
                            }
                        }
                    }
                    sim.stored.set(Some(created.id));
                }
                Err(message) => sim.fail(message),
            }
        });
    }

    /// What the worker says: the gallery, a compile check, a run's progress and end.
    fn on_message(self) -> Closure<dyn FnMut(web_sys::MessageEvent)> {
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let data = ev.data();
            let (name, until_ns) = self.current.get_value();
            match text(&data, "type").as_str() {
                "demos" => self.demos.set(demo_list(&data)),
                "checked" => {
                    // Only the verdict on the source as it still stands.
                    if self.source.with_untracked(|s| *s == text(&data, "source")) {
                        self.check
                            .set(Some((text(&data, "error"), number(&data, "ms"))));
                    }
                }
                "assembled" => self.status.set(Some(Ok(format!(
                    "Running on {}…",
                    plural(number(&data, "nodes") as u64, "node")
                )))),
                "progress" => self
                    .progress
                    .set(Some(Progress::of(&data, number(&data, "progress")))),
                "writing" => self.status.set(Some(Ok(format!(
                    "Stopped at {} of virtual time; writing the trace…",
                    virtual_time(number(&data, "virtualNs"))
                )))),
                "done" => self.finished(&data, name, until_ns),
                _ => {
                    self.fail(text(&data, "message"));
                    stop(self.worker);
                }
            }
        })
    }

    /// The worker's start message: the program, the network and how long to run.
    fn start_message(&self, until_ns: u64, name: String) -> js_sys::Object {
        let message = js_sys::Object::new();
        let set = |key: &str, value: wasm_bindgen::JsValue| {
            let _ = js_sys::Reflect::set(&message, &key.into(), &value);
        };
        let number = |s: RwSignal<String>| s.get_untracked().parse::<f64>().unwrap_or(20.0);
        set("type", "run".into());
        set("language", self.language.get_untracked().into());
        set("source", self.source.get_untracked().into());
        set("topology", self.topology.get_untracked().into());
        set("chip", self.chip.get_untracked().into());
        set("mhz", number(self.mhz).into());
        set("linkMbit", number(self.link_mbit).into());
        set("untilNs", (until_ns as f64).into());
        set("name", name.into());
        set("tracing", self.tracing.get_untracked().into());
        set("keys", self.keys.get_untracked().into());
        set("workers", self.workers.get_untracked().into());
        message
    }

    /// The run's name: the program (its demo's or example's, marked when edited) and the
    /// network.
    fn run_name(&self) -> String {
        let demo = self
            .demo
            .get_untracked()
            .and_then(|k| self.demos.with_untracked(|list| list.get(k).cloned()));
        let (program, original) = match demo {
            Some(d) => (format!("demo:{}", d.name), d.source),
            None => {
                let example = &EXAMPLES[self.example.get_untracked().min(EXAMPLES.len() - 1)];
                (example.program.to_owned(), (example.source)())
            }
        };
        let edited = self.source.with_untracked(|s| *s != original);
        format!(
            "{program}{} on {}",
            if edited { " (edited)" } else { "" },
            self.topology.get_untracked().trim()
        )
    }

    /// Compiles (or assembles) and runs the program in the worker.
    fn run(self) {
        let until_ns = match shared::model::time::parse_duration_ns(&self.until.get_untracked()) {
            Ok(ns) => ns,
            Err(message) => return self.status.set(Some(Err(message))),
        };
        let w = match self.ensure_worker() {
            Ok(w) => w,
            Err(message) => return self.status.set(Some(Err(message))),
        };
        self.running.set(true);
        self.output.set(String::new());
        self.files.set(Vec::new());
        let compiling = if self.language.get_untracked() == "occam" {
            "Compiling…"
        } else {
            "Assembling…"
        };
        self.status.set(Some(Ok(compiling.to_owned())));
        self.progress.set(None);
        if let Some(id) = self.stored.get_untracked() {
            self.previous.set(Some(id));
        }
        self.stored.set(None);
        let name = self.run_name();
        self.current.set_value((name.clone(), until_ns));
        if let Err(e) = w.post_message(&self.start_message(until_ns, name)) {
            self.fail(format!("the worker did not take the program: {e:?}"));
        }
    }
}

/// The form: example, network, chip, clock, links, workers, keys, run time, tracing, run and stop.
fn controls(sim: Sim) -> impl IntoView {
    let pick = move |ev: leptos::ev::Event| {
        let index: usize = event_target_value(&ev).parse().unwrap_or(0);
        if let Some(example) = EXAMPLES.get(index) {
            sim.example.set(index);
            sim.demo.set(None);
            sim.language.set("assembly");
            sim.check.set(None);
            sim.source.set((example.source)());
            sim.topology.set(example.topology.to_owned());
            sim.until.set(example.until.to_owned());
        }
    };
    let Sim {
        topology,
        keys,
        until,
        chip,
        mhz,
        link_mbit,
        workers,
        running,
        storing,
        tracing,
        status,
        worker,
        ..
    } = sim;
    view! {
        <div class="sim-controls">
            <label>"Assembly example "
                <select data-testid="sim-example" on:change=pick>
                    <option value="" disabled=true selected=move || sim.demo.get().is_some()>"(a demo is open)"</option>
                    {EXAMPLES
                        .iter()
                        .enumerate()
                        .map(|(k, e)| view! { <option value=k.to_string()>{e.name}</option> })
                        .collect_view()}
                </select>
            </label>
            {move || nodes_picker(sim)}
            <label>"Network "
                <input data-testid="sim-topology" prop:value=move || topology.get()
                    on:input=move |ev| {
                        topology.set(event_target_value(&ev));
                        sim.check_source();
                    }/>
            </label>
            <label>"Chip "
                <select on:change=move |ev| chip.set(event_target_value(&ev))>
                    <option value="T800">"T800"</option>
                    <option value="T414">"T414"</option>
                </select>
            </label>
            <label>"MHz " <input class="narrow" prop:value=move || mhz.get()
                on:input=move |ev| mhz.set(event_target_value(&ev))/></label>
            <label>"Links Mbit/s "
                <select on:change=move |ev| link_mbit.set(event_target_value(&ev))>
                    <option value="20">"20"</option>
                    <option value="10">"10"</option>
                    <option value="5">"5"</option>
                </select>
            </label>
            <label title="Web Workers sharing the run, each on its own core: auto takes one per 256 nodes (the workers meet whenever a packet crosses between them, every window in a busy farm, which costs more than a few nodes' work); the trace is the same on any number">"Workers "
                <select data-testid="sim-workers" on:change=move |ev| {
                    let value = event_target_value(&ev);
                    sim.prepare_helpers(&value);
                    workers.set(value);
                }>
                    {["auto", "1", "2", "4", "8"]
                        .into_iter()
                        .map(|n| view! { <option value=n selected=move || workers.get() == n>{n}</option> })
                        .collect_view()}
                </select>
            </label>
            <label title="What the program reads from the keyboard (SP.GETKEY, SP.GETS on stream 0); \\r is Return">"Keys "
                <input class="keys" data-testid="sim-keys" prop:value=move || keys.get()
                    on:input=move |ev| keys.set(event_target_value(&ev))/>
            </label>
            <label>"Run for " <input class="narrow" data-testid="sim-until" prop:value=move || until.get()
                on:input=move |ev| until.set(event_target_value(&ev))/></label>
            <label>
                <input type="checkbox" data-testid="sim-tracing" prop:checked=move || tracing.get()
                    on:change=move |ev| tracing.set(event_target_checked(&ev))/>
                " record a trace"
            </label>
            <button data-testid="sim-run" on:click=move |_| sim.run()
                disabled=move || running.get() || storing.get()>"Run"</button>
            <button data-testid="sim-stop" disabled=move || !running.get()
                on:click=move |_| {
                    stop(worker);
                    running.set(false);
                    status.set(Some(Ok("Stopped.".to_owned())));
                }>"Stop"</button>
        </div>
    }
}

/// A demo's node counts, each with its network (shown while a demo is open).
fn nodes_picker(sim: Sim) -> Option<impl IntoView> {
    let d = sim
        .demo
        .get()
        .and_then(|k| sim.demos.with(|list| list.get(k).cloned()))?;
    let current = sim.topology.get_untracked();
    let networks = d.networks.clone();
    let pick = move |ev: leptos::ev::Event| {
        let k: usize = event_target_value(&ev).parse().unwrap_or(0);
        if let Some(network) = networks.get(k) {
            sim.topology.set(network.clone());
            sim.check_source();
        }
    };
    Some(view! {
        <label>"Nodes "
            <select data-testid="sim-nodes" on:change=pick>
                {d.nodes.iter().zip(&d.networks).enumerate().map(|(k, (n, network))| {
                    let selected = *network == current;
                    view! { <option value=k.to_string() selected=selected>{format!("{n} ({network})")}</option> }
                }).collect_view()}
            </select>
        </label>
    })
}

/// The demo gallery: a card per demo (title and origin); the open demo's paragraph below.
fn gallery(sim: Sim) -> impl IntoView {
    let (demos, demo) = (sim.demos, sim.demo);
    view! {
        <div class="sim-gallery" data-testid="sim-gallery">
            {move || demos.get().into_iter().enumerate().map(|(k, d)| {
                let picked = move || demo.get() == Some(k);
                view! {
                    <button class="sim-demo" class:picked=picked data-testid="sim-demo"
                        data-demo=d.name.clone() title=d.origin.clone()
                        on:click=move |_| sim.pick_demo(k)>
                        {d.title.clone()}
                    </button>
                }
            }).collect_view()}
        </div>
        {move || demo.get().and_then(|k| demos.with(|list| list.get(k).cloned())).map(|d| view! {
            <p class="sim-about" data-testid="sim-about">
                <em>{d.origin}</em>". "{d.about}
                {move || sim.lesson.get().map(|(path, lesson)| view! {
                    " "
                    <A href=path attr:class="button" attr:data-testid="sim-lesson"
                        attr:title=lesson>"Show me in the trace →"</A>
                })}
            </p>
        })}
    }
}

/// occam's reserved words, for the editor's highlighting.
const OCCAM_KEYWORDS: [&str; 42] = [
    "SEQ",
    "PAR",
    "PRI",
    "PLACED",
    "PROCESSOR",
    "ALT",
    "IF",
    "CASE",
    "ELSE",
    "WHILE",
    "SKIP",
    "STOP",
    "PROC",
    "FUNCTION",
    "VALOF",
    "RESULT",
    "VAL",
    "IS",
    "FOR",
    "INT",
    "INT32",
    "BOOL",
    "BYTE",
    "REAL32",
    "REAL64",
    "CHAN",
    "OF",
    "TIMER",
    "AFTER",
    "TRUE",
    "FALSE",
    "NOT",
    "AND",
    "OR",
    "ROUND",
    "TRUNC",
    "SIZE",
    "PLUS",
    "MINUS",
    "TIMES",
    "REM",
    "BITNOT",
];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The source as HTML with its comments, strings, numbers and (occam's) reserved words in
/// spans the stylesheet colours; a trailing newline so the layer is as tall as the text.
fn highlight(source: &str, occam: bool) -> String {
    let comment = if occam { "--" } else { ";" };
    let mut out = String::with_capacity(source.len() * 2);
    for line in source.split('\n') {
        let (code, rest) = match line.find(comment) {
            Some(at) if !line[..at].contains('"') => (&line[..at], &line[at..]),
            _ => (line, ""),
        };
        let mut word = String::new();
        let mut in_string = false;
        let flush = |word: &mut String, out: &mut String| {
            if word.is_empty() {
                return;
            }
            let class = if occam && OCCAM_KEYWORDS.contains(&word.as_str()) {
                Some("k")
            } else if word
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '#')
            {
                Some("n")
            } else {
                None
            };
            match class {
                Some(c) => out.push_str(&format!("<span class=\"{c}\">{}</span>", escape(word))),
                None => out.push_str(&escape(word)),
            }
            word.clear();
        };
        for c in code.chars() {
            if c == '"' {
                flush(&mut word, &mut out);
                out.push_str(if in_string {
                    "&quot;</span>"
                } else {
                    "<span class=\"s\">&quot;"
                });
                in_string = !in_string;
            } else if in_string {
                out.push_str(&escape(&c.to_string()));
            } else if c.is_ascii_alphanumeric() || c == '.' || c == '#' || c == '_' {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push_str(&escape(&c.to_string()));
            }
        }
        flush(&mut word, &mut out);
        if in_string {
            out.push_str("</span>");
        }
        if !rest.is_empty() {
            out.push_str(&format!("<span class=\"c\">{}</span>", escape(rest)));
        }
        out.push('\n');
    }
    out
}

/// The line an assembler error names (`… line 12 …`), if any.
fn error_line(message: &str) -> Option<usize> {
    let at = message.find("line ")? + 5;
    let digits: String = message[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The source editor: the program with line numbers beside it and its syntax coloured (a
/// layer under a transparent text area), the line an error names marked: the run's error, or
/// the occam compiler's as the program is typed.
fn editor(sim: Sim) -> impl IntoView {
    let (source, status, check, language) = (sim.source, sim.status, sim.check, sim.language);
    let gutter = NodeRef::<leptos::html::Div>::new();
    let layer = NodeRef::<leptos::html::Pre>::new();
    let error = Memo::new(move |_| {
        let run_error = status.with(|s| match s {
            Some(Err(message)) => Some(message.clone()),
            _ => None,
        });
        run_error.or_else(|| {
            check.with(|c| {
                c.as_ref()
                    .filter(|(e, _)| !e.is_empty())
                    .map(|(e, _)| e.clone())
            })
        })
    });
    let bad_line = Memo::new(move |_| error.with(|e| e.as_deref().and_then(error_line)));
    let n_lines = Memo::new(move |_| source.with(|s| s.lines().count().max(1)));
    view! {
        <div class="sim-editor">
            <div class="sim-gutter" node_ref=gutter aria-hidden="true" data-testid="sim-gutter">
                {move || {
                    let bad = bad_line.get();
                    (1..=n_lines.get())
                        .map(|k| view! {
                            <div class:bad=bad == Some(k) data-bad=(bad == Some(k)).then_some("true")
                                title=move || (bad == Some(k)).then(|| error.get().unwrap_or_default())>{k}</div>
                        })
                        .collect_view()
                }}
            </div>
            <div class="sim-code">
                <pre class="sim-highlight" node_ref=layer aria-hidden="true"
                    inner_html=move || source.with(|s| highlight(s, language.get() == "occam"))></pre>
                <textarea data-testid="sim-source" class="sim-source" spellcheck="false" wrap="off"
                    prop:value=move || source.get()
                    on:input=move |ev| {
                        source.set(event_target_value(&ev));
                        // A run's error is about the program as it was.
                        if status.with_untracked(|s| matches!(s, Some(Err(_)))) {
                            status.set(None);
                        }
                        sim.check_source();
                    }
                    on:scroll=move |ev| {
                        let area: web_sys::HtmlTextAreaElement = event_target(&ev);
                        if let Some(g) = gutter.get_untracked() {
                            g.set_scroll_top(area.scroll_top());
                        }
                        if let Some(l) = layer.get_untracked() {
                            l.set_scroll_top(area.scroll_top());
                            l.set_scroll_left(area.scroll_left());
                        }
                    }></textarea>
            </div>
        </div>
        {move || match (error.get(), check.get()) {
            (Some(e), _) => Some(view! { <p class="sim-check bad" data-testid="sim-check">{e}</p> }.into_any()),
            (None, Some((_, ms))) => Some(view! {
                <p class="sim-check" data-testid="sim-check">{format!("Compiles ({ms:.0} ms).")}</p>
            }.into_any()),
            (None, None) => None,
        }}
    }
}

/// The Simulator page.
#[component]
pub fn SimulatePage() -> impl IntoView {
    let sim = Sim::new();
    let _ = sim.ensure_worker();
    on_cleanup(move || stop(sim.worker));
    let Sim {
        progress,
        status,
        stored,
        previous,
        lesson,
        output,
        files,
        ..
    } = sim;
    view! {
        <section class="simulator">
            <h1>"Transputer simulator"</h1>
            <p class="hint">
                "Pick a demo (occam, placed on the network's processors) or an assembly example (it runs on every \
                 node: A = the node's number, B = the number of nodes); node 0's link 0 is the host (iserver). \
                 Links are modelled packet by packet, time is virtual."
            </p>
            {gallery(sim)}
            {controls(sim)}
            {editor(sim)}
            {move || progress.get().map(|p| view! {
                <div class="sim-progress">
                    <progress data-testid="sim-progress" max="1" value=p.fraction.to_string()></progress>
                    <span data-testid="sim-readout">{p.text()}</span>
                </div>
            })}
            {move || status.get().map(|s| match s {
                Ok(t) => view! { <p class="status" data-testid="sim-status">{t}</p> }.into_any(),
                Err(t) => view! { <p class="error" data-testid="sim-error">{t}</p> }.into_any(),
            })}
            {move || stored.get().map(|id| view! {
                <p class="sim-links">
                    {match lesson.get() {
                        Some((path, what)) => view! {
                            <A href=path attr:data-testid="sim-open">"Open the trace in the Gantt view →"</A>
                            <span class="hint">" (" {what} "; "
                                <A href=format!("/runs/{id}") attr:data-testid="sim-open-all">"the whole trace"</A>
                            ")"</span>
                        }.into_any(),
                        None => view! {
                            <A href=format!("/runs/{id}") attr:data-testid="sim-open">"Open the trace in the Gantt view →"</A>
                        }.into_any(),
                    }}
                    {previous.get().map(|before| view! {
                        <A href=format!("/compare/{before}/{id}") attr:data-testid="sim-compare">"Compare with the previous run →"</A>
                    })}
                </p>
            })}
            {move || (!output.get().is_empty()).then(|| view! {
                <pre class="sim-output" data-testid="sim-output">{output.get()}</pre>
            })}
            {move || (!files.get().is_empty()).then(|| view! {
                <div class="sim-files" data-testid="sim-files">
                    "Files the program wrote: "
                    {files.get().into_iter().map(|f| {
                        let label = format!("{} ({} bytes)", f.name, f.size);
                        let download = f.name.rsplit('/').next().unwrap_or(&f.name).to_owned();
                        let preview = f.preview.map(|src| view! {
                            <img class="sim-image" data-testid="sim-image" src=src alt=f.name.clone()/>
                        });
                        view! { <a href=f.url download=download>{label}</a>" "{preview} }
                    }).collect_view()}
                </div>
            })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readouts_read_as_people_write_them() {
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(error_line("line 2: unknown instruction `bogus`"), Some(2));
        assert_eq!(error_line("the worker stopped"), None);
        assert_eq!(plural(1, "node"), "1 node");
        assert_eq!(plural(64, "node"), "64 nodes");
        assert_eq!(rate_text(16.04e6), "16.0 M instructions/s");
        assert_eq!(rate_text(42_000.0), "42.0 k instructions/s");
        assert_eq!(rate_text(0.0), "0 instructions/s");
        assert_eq!(
            outcome_text("idle", 64, 5_714_225.0, 100e6),
            "Finished (idle) on 64 nodes at 5.714 ms of virtual time, early: it had 100 ms"
        );
        assert_eq!(
            outcome_text("exited 0", 1, 2e6, 2e6),
            "Finished (exited 0) on 1 node at 2 ms of virtual time"
        );
        let p = Progress {
            fraction: 0.5,
            virtual_ns: 2_000_000.0,
            instructions: 3_000_000.0,
            host_seconds: 0.1,
            workers: 1,
        };
        assert_eq!(
            p.text(),
            "50 % · virtual time 2 ms · 3,000,000 instructions · 30.0 M instructions/s on 1 worker · 0.02× real time"
        );
        assert_eq!(speed_text(2e9, 0.5), "4.00× real time");
        assert_eq!(speed_text(30e9, 1.0), "30× real time");
        assert_eq!(speed_text(1e6, 1.0), "1000× slower than real time");
    }
}
