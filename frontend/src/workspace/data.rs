//! What the server computed for a run, loaded once on first need and shared by every view of
//! it: the analysis report (paths, phases, rankings) and the run's wait states.

use std::sync::Arc;

use leptos::prelude::*;
use shared::analyses::waits::WaitState;
use shared::report::Report;

use crate::api;

/// The most wait states the overlay asks for (the longest first).
pub const MAX_OVERLAY_WAITS: usize = 20_000;

/// Where an event's causal past and future lie: per process, the ticks `[start, end]` from its
/// first to its last event in the area.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CausalSpans {
    /// The event.
    pub event: u64,
    /// (process, start, end) of the causal past.
    pub pre: Vec<(usize, u64, u64)>,
    /// (process, start, end) of the causal future.
    pub post: Vec<(usize, u64, u64)>,
}

/// A run's analysis results as they arrive.
#[derive(Debug, Clone, Copy)]
pub struct RunData {
    run: StoredValue<Option<String>>,
    /// The analysis report: `None` until asked for and answered.
    pub report: RwSignal<Option<Result<Arc<Report>, String>>>,
    /// Every wait state of the run (up to [`MAX_OVERLAY_WAITS`]): `None` until answered.
    pub waits: RwSignal<Option<Result<Arc<Vec<WaitState>>, String>>>,
    /// The selected event's causal past and future as time spans per process, once the Hasse
    /// view has built the run's causality (the Gantt chart shades them).
    pub areas: RwSignal<Option<Arc<CausalSpans>>>,
    /// Which events the workspace's event filter keeps, by event index (`None`: no filter).
    pub kept: RwSignal<Option<Arc<Vec<bool>>>>,
    /// Whether the Gantt chart has painted a whole frame (every bar it asked the server for
    /// in): the run page loads the model only then, so the first paint has the network and the
    /// main thread to itself.
    pub drawn: RwSignal<bool>,
    asked: StoredValue<(bool, bool)>,
}

impl RunData {
    /// The results of stored run `run` (`None`: a run the server does not hold).
    pub fn new(run: Option<String>) -> RunData {
        RunData {
            run: StoredValue::new(run),
            report: RwSignal::new(None),
            waits: RwSignal::new(None),
            areas: RwSignal::new(None),
            kept: RwSignal::new(None),
            drawn: RwSignal::new(false),
            asked: StoredValue::new((false, false)),
        }
    }

    /// Asks for the report, once.
    pub fn load_report(&self) {
        if self.asked.get_value().0 {
            return;
        }
        self.asked.update_value(|a| a.0 = true);
        let report = self.report;
        let Some(id) = self.run.get_value() else {
            report.set(Some(Err("the analyses need a stored run".to_owned())));
            return;
        };
        leptos::task::spawn_local(async move {
            report.set(Some(api::get_report(&id).await.map(Arc::new)));
        });
    }

    /// Asks for the wait states, once.
    pub fn load_waits(&self, bounds: (u64, u64)) {
        if self.asked.get_value().1 {
            return;
        }
        self.asked.update_value(|a| a.1 = true);
        let waits = self.waits;
        let Some(id) = self.run.get_value() else {
            waits.set(Some(Err("the wait states need a stored run".to_owned())));
            return;
        };
        leptos::task::spawn_local(async move {
            let query = api::SelectionQuery {
                start: bounds.0,
                end: bounds.1.saturating_add(1),
                processes: String::new(),
                limit: MAX_OVERLAY_WAITS,
                filter: String::new(),
            };
            let answer = api::get_wait_states(&id, &query).await;
            waits.set(Some(answer.map(|w| Arc::new(w.wait_states))));
        });
    }
}
