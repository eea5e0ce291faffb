//! Two runs side by side (before and after tuning, the case studies' workflow): their headline
//! metrics, each process's computation and waiting, the critical path's composition and the NPT
//! ranking of regions, as deltas. Processes and regions are matched by name (the runs are
//! different traces: ids mean nothing across them).
//!
//! Times are in seconds when both runs' clocks have a unit, in ticks otherwise.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analyses::metrics::Share;
use crate::report::Report;

/// A quantity in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// What it is.
    pub name: String,
    /// Its unit: `s`, `ticks`, `bytes`, `%` or empty for a count or ratio.
    pub unit: String,
    /// In the first run (none: absent there).
    pub before: Option<f64>,
    /// In the second run (none: absent there).
    pub after: Option<f64>,
    /// after / before, when both exist and before is not 0 (the same as [`Delta::ratio`]).
    #[serde(default)]
    pub ratio: Option<f64>,
    /// What the figure is, when it is a headline figure (its definition from
    /// [`crate::analyses::metrics::Figures::definitions`], the same on both sides unless the
    /// runs count different kinds of processors).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub definition: String,
}

impl Delta {
    /// The delta with its `ratio` field filled in.
    pub fn with_ratio(mut self) -> Delta {
        self.ratio = self.ratio();
        self
    }

    /// after − before, when both exist.
    pub fn change(&self) -> Option<f64> {
        Some(self.after? - self.before?)
    }

    /// after / before, when both exist and before is not 0.
    pub fn ratio(&self) -> Option<f64> {
        let before = self.before?;
        (before != 0.0)
            .then(|| self.after.map(|a| a / before))
            .flatten()
    }
}

/// One process in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessDelta {
    /// Its name (the match key).
    pub name: String,
    /// Time computing (CPU time).
    pub computation: Delta,
    /// Time blocked in receives.
    pub waiting: Delta,
}

/// A ranked item (a region's NPT) in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankDelta {
    /// Its name (the match key).
    pub name: String,
    /// Its place in the first run's ranking (1 = heaviest), when there.
    pub rank_before: Option<usize>,
    /// Its place in the second run's ranking, when there.
    pub rank_after: Option<usize>,
    /// Its share of the first run's total, from 0 to 1.
    pub share_before: Option<f64>,
    /// Its share of the second run's total.
    pub share_after: Option<f64>,
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The time unit of every time below: `s` or `ticks`.
    pub time_unit: String,
    /// Headline metrics.
    pub metrics: Vec<Delta>,
    /// Per process, the first run's order, then processes only the second has.
    pub processes: Vec<ProcessDelta>,
    /// The critical path's composition: computation, transit, then its share per region.
    pub critical_path: Vec<Delta>,
    /// NPT per region (exclusive), the second run's order, then regions it lost.
    pub npt: Vec<RankDelta>,
}

/// Whether both runs' clocks have a unit (times are then compared in seconds).
fn in_seconds(a: &Report, b: &Report) -> bool {
    [a, b]
        .iter()
        .all(|r| r.summary.time.ticks_per_second.is_some_and(|tps| tps > 0))
}

/// A run's time `t` (ticks) in seconds, or in ticks.
fn time(report: &Report, t: f64, seconds: bool) -> f64 {
    match report.summary.time.ticks_per_second {
        Some(tps) if seconds && tps > 0 => t / tps as f64,
        _ => t,
    }
}

/// Compares run `a` (before) with run `b` (after).
pub fn compare(a: &Report, b: &Report) -> Comparison {
    let seconds = in_seconds(a, b);
    let unit = if seconds { "s" } else { "ticks" };
    let t = |r: &Report, x: f64| time(r, x, seconds);
    let both = |name: &str, unit: &str, f: &dyn Fn(&Report) -> f64| {
        Delta {
            name: name.to_owned(),
            unit: unit.to_owned(),
            before: Some(f(a)),
            after: Some(f(b)),
            ratio: None,
            definition: String::new(),
        }
        .with_ratio()
    };
    let wait_total = |r: &Report| r.wait_states.states.iter().map(|w| w.time).sum::<f64>();
    let metrics = vec![
        both("Execution time", unit, &|r| {
            t(r, r.analysis.execution_time as f64)
        }),
        both("Computation (all processes)", unit, &|r| {
            t(r, r.analysis.total_computation)
        }),
        both("Waiting in wait states", unit, &|r| t(r, wait_total(r))),
        both("Critical path", unit, &|r| {
            t(r, r.analysis.critical_path.length as f64)
        }),
        // The headline figures, each on its run's own processors (`Analysis::figures`): a
        // faster run with the same work has a speedup higher by exactly the ratio of the times.
        both("Processors", "", &|r| r.analysis.figures.processors as f64),
        both("Work", unit, &|r| t(r, r.analysis.figures.work)),
        both("Speedup over serial work", "", &|r| {
            r.analysis.figures.speedup
        }),
        both("Efficiency per processor", "%", &|r| {
            100.0 * r.analysis.figures.efficiency
        }),
        both("Load balance", "%", &|r| {
            100.0 * r.analysis.figures.load_balance
        }),
        both("Serialisation efficiency", "%", &|r| {
            100.0 * r.analysis.figures.serialisation
        }),
        both("Transfer efficiency", "%", &|r| {
            100.0 * r.analysis.figures.transfer
        }),
        both("Parallel efficiency (POP)", "%", &|r| {
            100.0 * r.analysis.figures.parallel_efficiency
        }),
        both("Messages", "", &|r| r.summary.messages as f64),
        both("Events", "", &|r| r.summary.events as f64),
    ];
    let metrics = metrics
        .into_iter()
        .map(|mut d| {
            let (da, db) = (
                a.analysis.figures.definition(&d.name),
                b.analysis.figures.definition(&d.name),
            );
            d.definition = match (da, db) {
                (Some(da), Some(db)) if da == db => da,
                (Some(da), Some(db)) => format!("before: {da}; after: {db}"),
                _ => String::new(),
            };
            d
        })
        .collect();
    Comparison {
        time_unit: unit.to_owned(),
        metrics,
        processes: processes(a, b, &t, unit),
        critical_path: critical_path(a, b, &t, unit),
        npt: npt(
            &a.analysis.npt.regions_exclusive,
            &b.analysis.npt.regions_exclusive,
        ),
    }
}

/// Per process by name: computation and waiting in both runs.
fn processes(
    a: &Report,
    b: &Report,
    t: &dyn Fn(&Report, f64) -> f64,
    unit: &str,
) -> Vec<ProcessDelta> {
    let mut order: Vec<String> = Vec::new();
    let mut rows: HashMap<String, ProcessDelta> = HashMap::new();
    for (report, after) in [(a, false), (b, true)] {
        for p in &report.analysis.process_times {
            let row = rows.entry(p.name.clone()).or_insert_with(|| {
                order.push(p.name.clone());
                let empty = |name: &str| Delta {
                    name: name.to_owned(),
                    unit: unit.to_owned(),
                    before: None,
                    after: None,
                    ratio: None,
                    definition: String::new(),
                };
                ProcessDelta {
                    name: p.name.clone(),
                    computation: empty("computation"),
                    waiting: empty("waiting"),
                }
            });
            let (computation, waiting) = (t(report, p.computation), t(report, p.blocked as f64));
            let add = |slot: &mut Option<f64>, v: f64| *slot = Some(slot.unwrap_or(0.0) + v);
            if after {
                add(&mut row.computation.after, computation);
                add(&mut row.waiting.after, waiting);
            } else {
                add(&mut row.computation.before, computation);
                add(&mut row.waiting.before, waiting);
            }
        }
    }
    order
        .into_iter()
        .filter_map(|name| rows.remove(&name))
        .map(|p| ProcessDelta {
            computation: p.computation.with_ratio(),
            waiting: p.waiting.with_ratio(),
            ..p
        })
        .collect()
}

/// The critical path's computation and transit, then its share per region (by name).
fn critical_path(
    a: &Report,
    b: &Report,
    t: &dyn Fn(&Report, f64) -> f64,
    unit: &str,
) -> Vec<Delta> {
    let (ca, cb) = (&a.analysis.critical_path, &b.analysis.critical_path);
    let mut out = vec![
        Delta {
            name: "computation".to_owned(),
            unit: unit.to_owned(),
            before: Some(t(a, ca.computation)),
            after: Some(t(b, cb.computation)),
            ratio: None,
            definition: String::new(),
        }
        .with_ratio(),
        Delta {
            name: "message transit".to_owned(),
            unit: unit.to_owned(),
            before: Some(t(a, ca.transit)),
            after: Some(t(b, cb.transit)),
            ratio: None,
            definition: String::new(),
        }
        .with_ratio(),
    ];
    for row in npt(&ca.by_region, &cb.by_region) {
        out.push(
            Delta {
                name: format!("in {}", row.name),
                unit: "%".to_owned(),
                before: row.share_before.map(|s| 100.0 * s),
                after: row.share_after.map(|s| 100.0 * s),
                ratio: None,
                definition: String::new(),
            }
            .with_ratio(),
        );
    }
    out
}

/// Two rankings matched by name (same-named rows summed): the second's order, then the first's
/// rows it lacks.
fn npt(before: &[Share], after: &[Share]) -> Vec<RankDelta> {
    let merged = |list: &[Share]| {
        let mut order: Vec<String> = Vec::new();
        let mut share: HashMap<String, f64> = HashMap::new();
        for s in list {
            if !share.contains_key(&s.name) {
                order.push(s.name.clone());
            }
            *share.entry(s.name.clone()).or_default() += s.share;
        }
        order.sort_by(|x, y| share[y].total_cmp(&share[x]).then(x.cmp(y)));
        let rank: HashMap<String, usize> = order
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i + 1))
            .collect();
        (order, share, rank)
    };
    let (order_a, share_a, rank_a) = merged(before);
    let (order_b, share_b, rank_b) = merged(after);
    order_b
        .iter()
        .chain(order_a.iter().filter(|n| !share_b.contains_key(*n)))
        .map(|name| RankDelta {
            name: name.clone(),
            rank_before: rank_a.get(name).copied(),
            rank_after: rank_b.get(name).copied(),
            share_before: share_a.get(name).copied(),
            share_after: share_b.get(name).copied(),
        })
        .collect()
}
