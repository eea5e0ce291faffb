//! Small in-memory caches of per-run data that is expensive to rebuild (viewport indexes,
//! loaded analysis contexts): the most recently used runs, a fixed number of them.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use shared::analysis::{Analysis, AnalysisOptions, Context, analyze_context};
use shared::model::Trace;
use shared::waits::WaitState;

/// The `capacity` most recently used runs' `T`, by run id.
pub struct RunCache<T> {
    capacity: usize,
    entries: Mutex<VecDeque<(String, Arc<T>)>>,
}

impl<T> RunCache<T> {
    /// An empty cache of at most `capacity` runs.
    pub fn new(capacity: usize) -> RunCache<T> {
        RunCache {
            capacity,
            entries: Mutex::new(VecDeque::new()),
        }
    }

    /// The run's entry, now the most recently used.
    pub fn get(&self, id: &str) -> Option<Arc<T>> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let at = entries.iter().position(|(k, _)| k == id)?;
        let entry = entries.remove(at)?;
        let value = Arc::clone(&entry.1);
        entries.push_front(entry);
        Some(value)
    }

    /// Keeps `value` for the run, dropping the least recently used beyond the capacity.
    pub fn put(&self, id: &str, value: Arc<T>) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(k, _)| k != id);
        entries.push_front((id.to_owned(), value));
        entries.truncate(self.capacity);
    }

    /// Forgets the run (after it is deleted).
    pub fn remove(&self, id: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(k, _)| k != id);
    }
}

/// What the selection endpoints need of a run, built from its trace once.
pub struct Prepared<'a> {
    /// Pairing, graph, states, timeline and attribution.
    pub cx: Context<'a>,
    /// The whole-run analysis (critical path, WCPA, diagnostics).
    pub analysis: Analysis,
    /// Every wait state.
    pub waits: Vec<WaitState>,
}

self_cell::self_cell!(
    /// A run's trace with its [`Prepared`] analyses, which borrow it.
    pub struct LoadedRun {
        owner: Trace,
        #[covariant]
        dependent: Prepared,
    }
);

impl LoadedRun {
    /// Analyses `trace` (the default options, as the stored report).
    pub fn load(trace: Trace) -> LoadedRun {
        LoadedRun::new(trace, |trace| {
            let cx = Context::new(trace);
            let analysis = analyze_context(&cx, AnalysisOptions::default());
            let waits = shared::waits::wait_states(&cx);
            Prepared {
                cx,
                analysis,
                waits,
            }
        })
    }
}
