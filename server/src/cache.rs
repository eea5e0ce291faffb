//! The run workspace: everything the API answers about one run, built once from its stored model
//! and kept for the most recently used runs.
//!
//! [`RunWorkspace`] owns the run's trace and its analysis [`Context`] (pairing, execution graph,
//! states, timelines, attribution), built exactly once per run however many endpoints ask and
//! however concurrently; the wait states, the default report and the viewport index are derived
//! from that one context on first use. This is the only place the server builds a context.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use shared::analyses::metrics::AnalysisOptions;
use shared::analyses::waits::{WaitState, wait_states};
use shared::formats::Format;
use shared::graph::context::Context;
use shared::model::Trace;
use shared::report::{Report, ReportRequest};
use shared::view::viewport::ViewportIndex;
use tokio::sync::OnceCell;

/// A run's slot: its id and its value, built once.
type Slot<T> = (String, Arc<OnceCell<Arc<T>>>);

/// The `capacity` most recently used runs' `T`, by run id, each built once (single flight:
/// concurrent requests for a run that is not cached yet wait for one build).
pub struct RunCache<T> {
    capacity: usize,
    entries: Mutex<VecDeque<Slot<T>>>,
    builds: AtomicU64,
    /// Lookups answered from the cache, and lookups that built (the server's metrics).
    hits: prometheus_client::metrics::counter::Counter,
    misses: prometheus_client::metrics::counter::Counter,
}

impl<T> RunCache<T> {
    /// An empty cache of at most `capacity` runs, counting its lookups in `metrics` as
    /// `name`'s.
    pub fn new(
        capacity: usize,
        metrics: &crate::metrics::Metrics,
        name: &'static str,
    ) -> RunCache<T> {
        RunCache {
            capacity,
            entries: Mutex::new(VecDeque::new()),
            builds: AtomicU64::new(0),
            hits: metrics.cache_counter(name, "hit"),
            misses: metrics.cache_counter(name, "miss"),
        }
    }

    /// The run's entry, built by `build` if it is not cached (then kept, dropping the least
    /// recently used beyond the capacity). A failed build is not kept.
    pub async fn get_or_build<E, F, Fut>(&self, id: &str, build: F) -> Result<Arc<T>, E>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<T, E>>,
    {
        let cell = {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            let cell = match entries.iter().position(|(k, _)| k == id) {
                Some(at) => entries.remove(at).map(|(_, cell)| cell),
                None => None,
            }
            .unwrap_or_default();
            entries.push_front((id.to_owned(), Arc::clone(&cell)));
            entries.truncate(self.capacity);
            cell
        };
        if let Some(value) = cell.get() {
            self.hits.inc();
            return Ok(Arc::clone(value));
        }
        let value = cell
            .get_or_try_init(|| async {
                self.builds.fetch_add(1, Ordering::Relaxed);
                self.misses.inc();
                build().await.map(Arc::new)
            })
            .await?;
        Ok(Arc::clone(value))
    }

    /// How many times an entry was built since the cache was made (for tests and logs).
    pub fn builds(&self) -> u64 {
        self.builds.load(Ordering::Relaxed)
    }

    /// Drops the entries no request is using now (built, and held by the cache alone), so
    /// that what they hold (a workspace's memory reservation) is given back; answers how many.
    pub fn evict_idle(&self) -> usize {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let before = entries.len();
        entries.retain(|(_, cell)| {
            !(Arc::strong_count(cell) == 1
                && cell
                    .get()
                    .is_some_and(|value| Arc::strong_count(value) == 1))
        });
        before - entries.len()
    }

    /// Forgets the run (after it is deleted).
    pub fn remove(&self, id: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(k, _)| k != id);
    }
}

/// The most bytes of answers [`AnswerCache`] keeps.
pub const ANSWER_CACHE_BYTES: usize = 32 << 20;

/// Answers already serialized, by their ETag (which names the run and the request), the most
/// recently made kept within [`ANSWER_CACHE_BYTES`]: a run never changes, so the Gantt chart's
/// first view of a run, which every visitor asks for alike, is computed once.
#[derive(Default)]
pub struct AnswerCache {
    entries: Mutex<(
        rustc_hash::FxHashMap<String, axum::body::Bytes>,
        VecDeque<String>,
        usize,
    )>,
}

impl AnswerCache {
    /// The answer kept under `key`.
    pub fn get(&self, key: &str) -> Option<axum::body::Bytes> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.0.get(key).cloned()
    }

    /// Keeps `answer` under `key`, dropping the oldest answers beyond the byte limit (an
    /// answer larger than the limit is not kept).
    pub fn insert(&self, key: String, answer: axum::body::Bytes) {
        if answer.len() > ANSWER_CACHE_BYTES {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (map, order, bytes) = &mut *entries;
        *bytes += answer.len();
        if let Some(old) = map.insert(key.clone(), answer) {
            *bytes -= old.len();
        } else {
            order.push_back(key);
        }
        while *bytes > ANSWER_CACHE_BYTES {
            let Some(oldest) = order.pop_front() else {
                break;
            };
            if let Some(old) = map.remove(&oldest) {
                *bytes -= old.len();
            }
        }
    }

    /// Forgets every answer about run `id` (after it is deleted); keys begin `"{id}-`.
    pub fn remove_run(&self, id: &str) {
        let prefix = format!("\"{id}-");
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (map, order, bytes) = &mut *entries;
        order.retain(|key| {
            if !key.starts_with(&prefix) {
                return true;
            }
            if let Some(old) = map.remove(key) {
                *bytes -= old.len();
            }
            false
        });
    }
}

/// What the API derives from one run's context, each part computed on first use.
pub struct Prepared<'a> {
    /// Pairing, graph, states, timeline and attribution: built once, read by everything else.
    pub cx: Context<'a>,
    /// The run's name, for its report.
    name: String,
    /// The format it was read from, for its report.
    format: Format,
    waits: OnceLock<Vec<WaitState>>,
    report: OnceLock<Report>,
    diagnostics: OnceLock<Vec<shared::analyses::validate::Diagnostic>>,
    index: OnceLock<ViewportIndex>,
    hasse: OnceLock<(
        shared::analyses::causality::Causality,
        shared::view::hasse::Diagram,
    )>,
    hasse_cost: OnceLock<u64>,
    topology: OnceLock<(
        shared::view::topology::Topology,
        shared::view::topology::Load,
    )>,
}

impl Prepared<'_> {
    /// Every wait state of the run.
    pub fn waits(&self) -> &[WaitState] {
        self.waits.get_or_init(|| wait_states(&self.cx))
    }

    /// The run's report with the default options (what `tracescope analyze --json` prints).
    pub fn report(&self) -> &Report {
        self.report
            .get_or_init(|| self.report_with(AnalysisOptions::default()))
    }

    /// Every diagnostic of the run with the default options, in the order validation finds
    /// them (the report keeps only counts and the first few of each kind), built on first use.
    pub fn diagnostics(&self) -> &[shared::analyses::validate::Diagnostic] {
        self.diagnostics.get_or_init(|| {
            shared::analyses::validate::validate(
                self.cx.trace,
                &self.cx.pairing,
                &self.cx.graph,
                AnalysisOptions::default().validation,
            )
        })
    }

    /// The report with other options, from the same context.
    pub fn report_with(&self, options: AnalysisOptions) -> Report {
        let request = ReportRequest {
            file: &self.name,
            format: self.format,
            notes: &[],
            options,
        };
        shared::report::build(&self.cx, self.waits(), &request)
    }

    /// What building [`Prepared::hasse`] would allocate, in bytes (`None` once it is built):
    /// counted in one pass, so a request can be refused before it allocates.
    pub fn hasse_cost(&self) -> Option<u64> {
        if self.hasse.get().is_some() {
            return None;
        }
        Some(*self.hasse_cost.get_or_init(|| {
            shared::view::hasse::Diagram::estimated_bytes(self.cx.trace, &self.cx.graph)
        }))
    }

    /// The run's causality and the Hasse view's diagram (local runs collapsed), built on
    /// first use (check [`Prepared::hasse_cost`] first).
    pub fn hasse(
        &self,
    ) -> &(
        shared::analyses::causality::Causality,
        shared::view::hasse::Diagram,
    ) {
        self.hasse.get_or_init(|| {
            let causality =
                shared::analyses::causality::Causality::new(self.cx.trace, &self.cx.graph);
            let diagram = shared::view::hasse::Diagram::new(
                self.cx.trace,
                &self.cx.graph,
                &causality,
                shared::view::hasse::Collapse::Runs { expanded: &[] },
            );
            (causality, diagram)
        })
    }

    /// The topology view's layout and load functions, built on first use.
    pub fn topology(
        &self,
    ) -> &(
        shared::view::topology::Topology,
        shared::view::topology::Load,
    ) {
        self.topology.get_or_init(|| {
            let topology = shared::view::topology::Topology::new(self.cx.trace, &self.cx.pairing);
            let load = shared::view::topology::Load::new(&self.cx, &topology);
            (topology, load)
        })
    }

    /// The Gantt chart's level-of-detail index.
    pub fn index(&self) -> &ViewportIndex {
        self.index
            .get_or_init(|| ViewportIndex::new(self.cx.trace, &self.cx.pairing, &self.cx.graph))
    }
}

self_cell::self_cell!(
    /// A run's trace with its [`Prepared`] context and derived parts, which borrow it.
    struct Loaded {
        owner: Trace,
        #[covariant]
        dependent: Prepared,
    }
);

/// A run's trace, its context and derived parts, and what they hold of the server's memory
/// budget.
pub struct RunWorkspace {
    /// Declared first, so dropped first: the memory is freed before it is given back.
    loaded: Loaded,
    /// What the workspace holds of the server's memory budget, by what it pays for (`model`,
    /// `hasse`): given back when the workspace is dropped.
    charges: Mutex<Vec<(&'static str, crate::memory::Reservation)>>,
}

impl RunWorkspace {
    /// Keeps `reservation` for as long as the workspace lives, as what pays for `what`; a
    /// second reservation for the same thing (two requests that raced) is given back at once.
    pub fn charge(&self, what: &'static str, reservation: crate::memory::Reservation) {
        let mut charges = self.charges.lock().unwrap_or_else(|e| e.into_inner());
        if !charges.iter().any(|(w, _)| *w == what) {
            charges.push((what, reservation));
        }
    }

    /// Whether the workspace holds a reservation for `what`.
    pub fn is_charged(&self, what: &str) -> bool {
        let charges = self.charges.lock().unwrap_or_else(|e| e.into_inner());
        charges.iter().any(|(w, _)| *w == what)
    }

    /// Builds the context of `trace` (the run named `name`, read from `format`).
    pub fn load(trace: Trace, name: String, format: Format) -> RunWorkspace {
        let loaded = Loaded::new(trace, |trace| Prepared {
            cx: Context::new(trace),
            name,
            format,
            waits: OnceLock::new(),
            report: OnceLock::new(),
            diagnostics: OnceLock::new(),
            index: OnceLock::new(),
            hasse: OnceLock::new(),
            hasse_cost: OnceLock::new(),
            topology: OnceLock::new(),
        });
        RunWorkspace {
            loaded,
            charges: Mutex::new(Vec::new()),
        }
    }

    /// The run's trace.
    pub fn trace(&self) -> &Trace {
        self.loaded.borrow_owner()
    }

    /// The run's context and derived parts.
    pub fn prepared(&self) -> &Prepared<'_> {
        self.loaded.borrow_dependent()
    }

    /// Calls `f` with the run's trace and its context and derived parts.
    pub fn with_dependent<R>(&self, f: impl FnOnce(&Trace, &Prepared<'_>) -> R) -> R {
        f(self.trace(), self.prepared())
    }
}
