//! The handle every part of one chart shares: the run, its model, the workspace store, the
//! rows shown, the canvas, and the chart's own short-lived state (what it loaded, what the
//! pointer is doing).

use std::collections::HashSet;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use shared::Trace;
use shared::analyses::metrics::{Segment, Share};
use shared::analyses::waits::WaitState;
use shared::view::selection::{CommMatrix, SelectionSummary};
use shared::view::state::PathName;

use super::details;
use super::model::GanttModel;
use super::remote::RemoteViews;
use super::rows::Rows;
use super::scene::context::Scene;
use super::scene::geometry::Geometry;
use super::scene::overlays::{PathBar, WaitBar};
use super::scene::selection::RangeMark;
use super::time_scale::TimeScale;
use crate::workspace::data::RunData;
use crate::workspace::store::Store;

/// A path as the server computed it: its segments, bars and length (or weight).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedPath {
    /// Its name in pop-ups.
    pub name: &'static str,
    /// Its segments.
    pub segments: Vec<Segment>,
    /// Its overlay bars, one per segment.
    pub bars: Vec<PathBar>,
    /// Its length (critical path) or weight (WCPA).
    pub length: f64,
    /// The WCPA phase table (empty for the critical path).
    pub phases: Vec<Share>,
}

/// Both paths of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Paths {
    /// The critical path.
    pub critical: LoadedPath,
    /// The weighted critical path.
    pub wcpa: LoadedPath,
}

impl Paths {
    /// One of them.
    pub fn get(&self, name: PathName) -> &LoadedPath {
        match name {
            PathName::CriticalPath => &self.critical,
            PathName::Wcpa => &self.wcpa,
        }
    }

    /// Both paths from the run's analysis report.
    pub fn from_report(trace: &Trace, report: &shared::report::Report) -> Paths {
        let critical = &report.analysis.critical_path;
        let wcpa = &report.analysis.wcpa;
        Paths {
            critical: LoadedPath {
                name: "Critical path",
                bars: details::path_bars(trace, &critical.segments, details::critical_color),
                length: critical.length as f64,
                segments: critical.segments.clone(),
                phases: Vec::new(),
            },
            wcpa: LoadedPath {
                name: "WCPA",
                bars: details::path_bars(trace, &wcpa.segments, details::phase_color),
                length: wcpa.weight,
                segments: wcpa.segments.clone(),
                phases: wcpa.phases.clone(),
            },
        }
    }
}

/// The wait states charged at or caused by an event, from the server.
pub type EventWaits = (usize, Result<Vec<WaitState>, String>);

/// The statistics of the selected range, from the server.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeStats {
    /// Counts and each process's shares.
    pub summary: SelectionSummary,
    /// Messages between the processes.
    pub matrix: CommMatrix,
}

/// A key of a viewport request in flight.
pub type RequestKey = (u64, u64, u32, u32, u32);

/// What the chart fetched, and what its pointer is doing: nothing another view needs.
#[derive(Clone, Copy)]
pub struct Local {
    /// The last error to show.
    pub error: RwSignal<Option<String>>,
    /// How many frames were painted.
    pub paint_count: RwSignal<u32>,
    /// When (`performance.now()`, ms) the chart first painted a whole frame: every answer it
    /// asked the server for in.
    pub drawn_at: RwSignal<Option<f64>>,
    /// How many viewport answers arrived (each repaints).
    pub answers: RwSignal<u32>,
    /// Viewport requests on their way.
    pub in_flight: StoredValue<HashSet<RequestKey>>,
    /// Whether a paint is scheduled.
    pub frame_pending: StoredValue<bool>,
    /// The range being dragged (it joins the workspace when the drag ends).
    pub dragging: RwSignal<Option<RangeMark>>,
    /// The cursor's time, for the readout.
    pub cursor: RwSignal<Option<String>>,
    /// The cursor's x in the plot.
    pub cursor_x: StoredValue<Option<f64>>,
    /// The whole label of the row under the pointer, over the label column.
    pub label: RwSignal<Option<String>>,
    /// The canvas's width in CSS pixels at its last paint (set when it changes).
    pub width: RwSignal<f64>,
    /// The scale and label column the canvas's `data-axis` was last written for.
    pub axis_key: StoredValue<Option<(TimeScale, f64)>>,
    /// The pointer's press: where, and whether it selects (Shift) or pans.
    pub press: StoredValue<Option<(f64, f64, bool)>>,
    /// The pointer's last position while pressed.
    pub last: StoredValue<Option<(f64, f64)>>,
    /// The fractions of a tick and of a row a drag or the wheel has moved and not yet applied.
    pub rest: StoredValue<(f64, f64)>,
    /// The wait states at and caused by the selected event.
    pub event_waits: RwSignal<Option<EventWaits>>,
    /// The selected range's statistics.
    pub range_stats: RwSignal<Option<Result<RangeStats, String>>>,
}

impl Default for Local {
    /// Nothing loaded, the pointer at rest.
    fn default() -> Local {
        Local {
            error: RwSignal::new(None),
            paint_count: RwSignal::new(0),
            drawn_at: RwSignal::new(None),
            answers: RwSignal::new(0),
            in_flight: StoredValue::new(Default::default()),
            frame_pending: StoredValue::new(Default::default()),
            dragging: RwSignal::new(None),
            cursor: RwSignal::new(None),
            cursor_x: StoredValue::new(Default::default()),
            label: RwSignal::new(None),
            axis_key: StoredValue::new(None),
            width: RwSignal::new(0.0),
            press: StoredValue::new(Default::default()),
            last: StoredValue::new(Default::default()),
            rest: StoredValue::new(Default::default()),
            event_waits: RwSignal::new(None),
            range_stats: RwSignal::new(None),
        }
    }
}

/// What every part of one chart shares: the run, its model, the store, the canvas.
#[derive(Clone)]
pub struct Chart {
    /// The run (its outline only, when it is drawn by the server).
    pub trace: Arc<Trace>,
    /// The chart's model of it.
    pub model: Arc<GanttModel>,
    /// The run's stored id, when the server holds it.
    pub run_id: Option<String>,
    /// The run's workspace.
    pub store: Store,
    /// The run's analysis results.
    pub data: RunData,
    /// The server's viewport answers, for a run drawn by the server.
    pub remote: Option<StoredValue<RemoteViews, LocalStorage>>,
    /// The rows shown (from the workspace's process set and folded nodes).
    pub rows: Memo<Arc<Rows>>,
    /// The canvas.
    pub canvas: NodeRef<Canvas>,
    /// The canvas's height in CSS pixels.
    pub height: f64,
    /// Both paths, once the report is in.
    pub paths: Memo<Option<Arc<Paths>>>,
    /// The wait states as overlay bars, once they are in.
    pub waits: Memo<Arc<Vec<WaitBar>>>,
    /// What the chart fetched and its pointer is doing.
    pub local: Local,
}

impl Chart {
    /// The chart of `trace` (its outline, with `remote`) in the workspace of `store`.
    pub fn new(
        trace: Arc<Trace>,
        run_id: Option<String>,
        data: RunData,
        remote: bool,
        store: Store,
    ) -> Chart {
        let mut model = GanttModel::new(&trace);
        if remote {
            let bounds = store.with_untracked(|ws| ws.bounds);
            model.bounds = (
                shared::model::time::Time(bounds.0),
                shared::model::time::Time(bounds.1),
            );
        }
        let model = Arc::new(model);
        let rows = {
            let model = Arc::clone(&model);
            Memo::new(move |_| {
                store.with(|ws| {
                    Arc::new(Rows::new(
                        model.rows.len(),
                        &model.groups,
                        ws.processes.as_deref(),
                        &ws.collapsed,
                        &model.tracks,
                    ))
                })
            })
        };
        let paths = {
            let trace = Arc::clone(&trace);
            Memo::new(move |_| {
                data.report.with(|r| match r {
                    Some(Ok(report)) => Some(Arc::new(Paths::from_report(&trace, report))),
                    _ => None,
                })
            })
        };
        let waits = {
            let trace = Arc::clone(&trace);
            Memo::new(move |_| {
                data.waits.with(|w| match w {
                    Some(Ok(waits)) => Arc::new(wait_bars(&trace, waits)),
                    _ => Arc::new(Vec::new()),
                })
            })
        };
        Chart {
            height: canvas_height(model.expanded().n_rows()),
            trace,
            model,
            run_id,
            store,
            data,
            remote: remote.then(|| StoredValue::new_local(RemoteViews::default())),
            rows,
            canvas: NodeRef::new(),
            paths,
            waits,
            local: Local::default(),
        }
    }

    /// Which path the workspace shows, if one.
    pub fn shown_path_name(&self) -> Option<PathName> {
        use shared::view::state::Overlay;
        self.store.with_untracked(|ws| {
            if ws.has_overlay(Overlay::Wcpa) {
                Some(PathName::Wcpa)
            } else if ws.has_overlay(Overlay::CriticalPath) {
                Some(PathName::CriticalPath)
            } else {
                None
            }
        })
    }

    /// The path the workspace shows, if one is on and loaded.
    pub fn shown_path(&self) -> Option<LoadedPath> {
        let name = self.shown_path_name()?;
        self.paths
            .get_untracked()
            .map(|paths| paths.get(name).clone())
    }

    /// The chart's geometry on its canvas (width from the page, scroll from the workspace).
    pub fn geometry(&self) -> Geometry {
        let width = self
            .canvas
            .get_untracked()
            .map_or(0.0, |c| f64::from(c.client_width()));
        let mut g = Geometry::new(width, self.height);
        // Room for the labels, but never more than a third of the canvas.
        g.label_width = self.model.label_px.min((width / 3.0).max(g.label_width));
        let n_rows = self.rows.with_untracked(|r| r.n_rows());
        let top = self
            .store
            .with_untracked(|ws| ws.top_row)
            .min(self.max_top_row(n_rows));
        g.scroll_y = f64::from(top) * g.row_height;
        g
    }

    /// The lowest top row: the last rows fill the canvas.
    pub fn max_top_row(&self, n_rows: usize) -> u32 {
        let g = Geometry::new(0.0, self.height);
        let hidden = (g.content_height(n_rows) - self.height).max(0.0);
        (hidden / g.row_height).ceil() as u32
    }

    /// The time scale of the workspace's window across the plot.
    pub fn scale(&self, g: &Geometry) -> TimeScale {
        let (start, end) = self.store.with_untracked(|ws| ws.window);
        TimeScale::fit(
            shared::model::time::Time(start),
            shared::model::time::Time(end),
            g.plot_width(),
        )
    }

    /// The command that zooms the workspace's window by `factor` about `anchor` (a share of the
    /// plot from its left edge), held at the finest readable resolution
    /// ([`super::time_scale::zoom_floor`]); `None` when the window is there already.
    pub fn zoom(
        &self,
        g: &Geometry,
        factor: f64,
        anchor: f64,
    ) -> Option<crate::workspace::Command> {
        let floor = super::time_scale::zoom_floor(g.plot_width(), self.model.clock);
        let (start, end) = self.store.with_untracked(|ws| ws.window);
        let factor = super::time_scale::floored_zoom(factor, end.saturating_sub(start), floor)?;
        Some(crate::workspace::Command::Zoom { factor, anchor })
    }

    /// Runs `f` on the current frame's context for hit tests (no viewport answers).
    pub fn with_scene<R>(&self, f: impl FnOnce(&Scene) -> R) -> R {
        let g = self.geometry();
        let scale = self.scale(&g);
        let rows = self.rows.get_untracked();
        f(&Scene::for_hits(&self.model, &rows, &scale, &g))
    }
}

/// The canvas height for `n_rows` rows, capped so very tall traces scroll inside the canvas.
fn canvas_height(n_rows: usize) -> f64 {
    Geometry::new(0.0, 0.0)
        .content_height(n_rows)
        .clamp(120.0, 640.0)
        + 8.0
}

/// Wait states as bars: each one ends where its cause happened (the late send, the late
/// receive, the last entry) and lasts as long as it was.
fn wait_bars(trace: &Trace, waits: &[WaitState]) -> Vec<WaitBar> {
    let times = trace.events.time();
    waits
        .iter()
        .filter_map(|w| {
            let end = times.get(w.cause.index())?.0;
            let length = w.time.max(0.0).round() as u64;
            Some(WaitBar {
                process: w.process.index(),
                start: end.saturating_sub(length),
                end,
            })
        })
        .collect()
}
