//! Sampled series: hardware counters, metrics and variables, each of one process, as the
//! importers read them (OTF2 metrics, Chrome counter events, Pajé variables).

use serde::{Deserialize, Serialize};

use super::ids::ProcessId;
use super::time::Time;

/// How a counter's values read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKind {
    /// A value at the sample's time (a variable, a gauge, a utilization).
    Gauge,
    /// A running total since the start (a hardware counter such as `PAPI_TOT_CYC`): what it
    /// counts per second between two samples is its rate.
    Accumulated,
}

/// A sampled series of one process: a hardware counter, a metric, a variable. Its samples are
/// a struct of arrays in time order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counter {
    /// What it measures, e.g. `PAPI_TOT_CYC` or `power_used`.
    pub name: String,
    /// Its unit as the trace writes it (`#` for a count, `W`, `bytes`), possibly empty.
    pub unit: String,
    /// The process (row) it belongs to.
    pub process: ProcessId,
    /// How its values read.
    pub kind: CounterKind,
    /// The samples' times, non-decreasing.
    pub times: Vec<Time>,
    /// The samples' values, one per time, finite.
    pub values: Vec<f64>,
}

impl Counter {
    /// An empty series.
    pub fn new(
        name: impl Into<String>,
        unit: impl Into<String>,
        process: ProcessId,
        kind: CounterKind,
    ) -> Counter {
        Counter {
            name: name.into(),
            unit: unit.into(),
            process,
            kind,
            times: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Puts the samples in time order (a stable sort: equal times keep their order).
    pub fn sort(&mut self) {
        if self.times.windows(2).all(|w| w[0] <= w[1]) {
            return;
        }
        let mut order: Vec<usize> = (0..self.times.len().min(self.values.len())).collect();
        order.sort_by_key(|&k| self.times[k]);
        self.times = order.iter().map(|&k| self.times[k]).collect();
        self.values = order.iter().map(|&k| self.values[k]).collect();
    }

    /// Why the series is not well formed, if it is not.
    pub(crate) fn problem(&self, n_processes: usize) -> Option<String> {
        if self.process.index() >= n_processes {
            return Some(format!(
                "counter {} names process {}, which does not exist",
                self.name, self.process.0
            ));
        }
        if self.times.len() != self.values.len() {
            return Some(format!(
                "counter {} has {} times and {} values",
                self.name,
                self.times.len(),
                self.values.len()
            ));
        }
        if self.times.windows(2).any(|w| w[0] > w[1]) {
            return Some(format!(
                "counter {}'s samples are not in time order",
                self.name
            ));
        }
        if self.values.iter().any(|v| !v.is_finite()) {
            return Some(format!(
                "counter {} has a value that is not finite",
                self.name
            ));
        }
        None
    }
}
