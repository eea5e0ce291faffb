//! The Gantt chart: one row per process, computing and blocked bars, message arrows and
//! bundles, nested regions, a time axis, path and wait-state overlays, pop-ups and range
//! statistics.
//!
//! The chart keeps no state of its own that another view could care about: the window, the
//! rows, the selection, the overlays and the filters are the run's workspace
//! ([`crate::workspace`]), read from its store and changed by commands. What is left here is
//! the canvas's machinery: the model ([`model`]), the scene with one module per layer
//! ([`scene`]), the painter ([`paint`]), the frame loop ([`canvas`]), the input handlers
//! ([`input`]), the panels around the canvas ([`panels`]) and what they load ([`loaders`]).

pub mod axis;
pub mod canvas;
pub mod chart;
pub mod counters;
pub mod details;
pub mod export;
pub mod find;
pub mod input;
pub mod keys;
pub mod loaders;
pub mod model;
pub mod paint;
pub mod palette;
pub mod panels;
pub mod regions;
pub mod remote;
pub mod rows;
pub mod scene;
pub mod time_scale;

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;

use self::chart::Chart;
use crate::workspace::data::RunData;
use crate::workspace::store::Store;

/// Test data shared by the chart's native tests.
#[cfg(test)]
pub(crate) mod test_data {
    /// The founding worked example (docs/analysis.md), as the tests of `shared` read it.
    pub fn worked_example() -> shared::Trace {
        let bytes =
            std::fs::read(crate::test_data("t4-worked-example.json")).expect("worked example");
        shared::formats::import(&bytes, None, "t4")
            .expect("parses")
            .trace
    }
}

#[component]
pub fn GanttChart(
    trace: Arc<Trace>,
    #[prop(default = None)] run_id: Option<String>,
    data: RunData,
    #[prop(default = false)] remote: bool,
) -> impl IntoView {
    let chart = Chart::new(trace, run_id, data, remote, Store::expect());
    canvas::schedule_paints(&chart);
    loaders::follow_the_workspace(&chart);
    find::follow_overlays(&chart);
    input::listen_to_keys(&chart);
    view! {
        <div class="gantt">
            {panels::toolbar(&chart, export::buttons(&chart))}
            {canvas::stage(&chart)}
            {panels::legend(&chart)}
            {panels::wcpa_phases(&chart)}
            {panels::range_stats(&chart)}
        </div>
    }
}
