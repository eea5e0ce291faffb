//! The Hasse view's layout: from the drawn diagram, the rows shown, the time window and the x
//! axis, a display list for the Gantt chart's painter and the targets a pointer can hit. Pure,
//! so it is tested natively.
//!
//! Vertices whose time lies in the window are drawn on their process's row; on the logical
//! axes (layers, Lamport time) they spread over the plot by that value, on the physical axis
//! the window's [`TimeScale`] places them. Vertices that land on one pixel of one row are one
//! mark with a count, and edges past the drawing budget are counted, so nothing is dropped
//! without being said.

use shared::analyses::causality::HasseKind;
use shared::model::time::{Clock, Time};
use shared::view::hasse::{Axis, CausalAreas, Diagram, HasseWindow};

use crate::components::gantt::axis;
use crate::components::gantt::scene::draw::{DrawItem, colors};
use crate::components::gantt::scene::icons::icon_of;
use crate::components::gantt::time_scale::TimeScale;

/// Colours of the causal past and future of the selected event.
pub mod area_colors {
    /// The pre-area (causal past).
    pub const PRE: &str = "#1f77b4";
    /// The post-area (causal future).
    pub const POST: &str = "#e8590c";
    /// A dependence instance that holds.
    pub const HOLDS: &str = "#2e8b57";
}

/// Where a vertex stands relative to the selected event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Area {
    /// Concurrent with it (or nothing is selected).
    #[default]
    Concurrent,
    /// In its causal past.
    Pre,
    /// In its causal future.
    Post,
    /// The selected event's own vertex.
    Selected,
}

/// The plot's size and spacing, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// The canvas's width.
    pub width: f64,
    /// The canvas's height.
    pub height: f64,
    /// The width of the row labels on the left.
    pub gutter: f64,
    /// The height of the axis band on top.
    pub axis: f64,
    /// One row's height.
    pub row_height: f64,
}

impl Geometry {
    /// The geometry of a canvas of this size.
    pub fn new(width: f64, height: f64) -> Geometry {
        Geometry {
            width,
            height,
            gutter: 170.0,
            axis: 26.0,
            row_height: 30.0,
        }
    }

    fn plot_width(&self) -> f64 {
        (self.width - self.gutter - 2.0 * PAD).max(1.0)
    }

    /// How many rows fit.
    pub fn n_rows(&self) -> usize {
        ((self.height - self.axis) / self.row_height)
            .floor()
            .max(1.0) as usize
    }
}

/// The plot's width in CSS pixels: the canvas less the labels and the end padding.
pub fn plot_width(g: &Geometry) -> f64 {
    g.plot_width()
}

/// Space kept at both ends of the plot so end vertices are not cut.
const PAD: f64 = 14.0;

/// What the view shows: rows, window, axis and marks.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The processes on the rows, top to bottom.
    pub rows: &'a [u32],
    /// The first row shown.
    pub top_row: usize,
    /// The time window `[start, end)` in ticks.
    pub window: (u64, u64),
    /// The x axis.
    pub axis: Axis,
    /// The trace's clock (for the physical axis's labels).
    pub clock: Clock,
    /// The selected event's causal past and future.
    pub areas: Option<&'a CausalAreas>,
    /// Vertices of dependence instances: (vertex, holds).
    pub marked: &'a [(u32, bool)],
    /// Which events the workspace's event filter keeps, by event (`None`: all).
    pub kept: Option<&'a [bool]>,
    /// The replay clock, and every event's time (`None` for a run drawn by the server): the
    /// events at or before the clock are ringed as the past when no event is selected.
    pub replay: Option<(u64, Option<&'a [Time]>)>,
}

/// A mark the pointer can hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Its centre.
    pub x: f64,
    /// Its centre.
    pub y: f64,
    /// The vertex it shows (the first of its pixel).
    pub vertex: u32,
    /// How many events it stands for.
    pub events: u64,
}

/// A drawn edge, for hovering.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdgeHit {
    /// From.
    pub a: (f64, f64),
    /// To.
    pub b: (f64, f64),
    /// The edge's index in the diagram.
    pub edge: u32,
}

/// The laid-out frame.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// What to paint, in order.
    pub items: Vec<DrawItem>,
    /// The marks, for clicks.
    pub hits: Vec<Hit>,
    /// The drawn edges, for hovering.
    pub edges: Vec<EdgeHit>,
    /// Vertices in the window on the rows shown.
    pub vertices_shown: usize,
    /// Edges drawn.
    pub edges_drawn: usize,
    /// Edges with both ends shown but past the window's budget.
    pub edges_over_budget: usize,
    /// Edges drawn that go back in physical time.
    pub edges_backwards: usize,
    /// The canvas's size in CSS pixels (for exporting).
    pub size: (f64, f64),
}

/// Where the x axis's values land.
enum XScale {
    Time(TimeScale),
    Logical { first: u64, per_px: f64 },
}

/// The rows a frame shows: its processes from the top row, as many as fit.
pub fn shown_rows<'a>(frame: &Frame<'a>, g: &Geometry) -> &'a [u32] {
    let top = frame.top_row.min(frame.rows.len());
    let n = g.n_rows().min(frame.rows.len() - top);
    &frame.rows[top..top + n]
}

/// The window of diagram `d` a frame shows, at the plot's width.
pub fn window_of(d: &Diagram, frame: &Frame<'_>, g: &Geometry) -> HasseWindow {
    d.window(
        shown_rows(frame, g),
        frame.window,
        frame.axis,
        g.plot_width(),
    )
}

/// Lays out one frame: the window `win` (the marks and edges of [`shown_rows`]) of a run
/// whose processes are named `names`.
pub fn layout(win: &HasseWindow, names: &[String], frame: &Frame<'_>, g: &Geometry) -> Layout {
    let mut out = Layout {
        size: (g.width, g.height),
        ..Layout::default()
    };
    let shown = shown_rows(frame, g);
    rows_and_labels(&mut out.items, names, shown, g);
    let scale = match frame.axis {
        Axis::Physical => XScale::Time(TimeScale::fit(
            Time(frame.window.0),
            Time(frame.window.1),
            g.plot_width(),
        )),
        _ => XScale::Logical {
            first: win.extent.0,
            per_px: (win.extent.1 - win.extent.0).max(1) as f64 / g.plot_width(),
        },
    };
    axis_labels(&mut out.items, &scale, frame, g);
    out.vertices_shown = win.vertices as usize;
    out.hits = win
        .marks
        .iter()
        .map(|m| Hit {
            x: g.gutter + PAD + m.px,
            y: g.axis + (f64::from(m.row) + 0.5) * g.row_height,
            vertex: m.vertex,
            events: m.events,
        })
        .collect();
    edges(&mut out, win);
    out.edges_over_budget = win.edges_over_budget as usize;
    vertices(&mut out.items, win, &out.hits, frame, shown);
    if let (Some((t, _)), XScale::Time(scale)) = (frame.replay, &scale) {
        // The replay clock's cursor, on the physical axis.
        let x = g.gutter + PAD + scale.time_to_px(Time(t));
        if (g.gutter..=g.width).contains(&x) {
            out.items.push(DrawItem::Line {
                x1: x,
                y1: g.axis,
                x2: x,
                y2: g.height,
                color: colors::REPLAY,
                width: 2.0,
            });
        }
    }
    out
}

fn rows_and_labels(items: &mut Vec<DrawItem>, names: &[String], shown: &[u32], g: &Geometry) {
    for (r, &p) in shown.iter().enumerate() {
        let y = g.axis + (r as f64 + 0.5) * g.row_height;
        if r % 2 == 1 {
            items.push(DrawItem::Rect {
                x: 0.0,
                y: y - g.row_height / 2.0,
                w: g.width,
                h: g.row_height,
                color: colors::PANEL,
            });
        }
        items.push(DrawItem::Line {
            x1: g.gutter,
            y1: y,
            x2: g.width,
            y2: y,
            color: colors::GRID,
            width: 1.0,
        });
        let name = names.get(p as usize).map_or("?", String::as_str);
        items.push(DrawItem::Text {
            x: 8.0,
            y,
            text: fit(name, g.gutter - 16.0),
            color: colors::TEXT,
            align_right: false,
        });
    }
}

/// `text` cut with an ellipsis to fit `px` at the chart's font.
fn fit(text: &str, px: f64) -> String {
    let max = (px / axis::CHAR_PX).floor().max(1.0) as usize;
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let kept: String = text.chars().take(max.saturating_sub(1)).collect();
        format!("{kept}…")
    }
}

/// An axis tick at `x`, on the bottom edge of the axis band.
fn tick_mark(x: f64, g: &Geometry) -> DrawItem {
    DrawItem::Line {
        x1: x,
        y1: g.axis - 6.0,
        x2: x,
        y2: g.axis,
        color: colors::TEXT,
        width: 1.0,
    }
}

fn axis_labels(items: &mut Vec<DrawItem>, scale: &XScale, frame: &Frame<'_>, g: &Geometry) {
    let y = g.axis / 2.0;
    let left = g.gutter + PAD;
    match scale {
        XScale::Time(s) => {
            for t in axis::ticks(s, frame.clock) {
                let x = left + s.tick_to_px(t.tick);
                items.push(tick_mark(x, g));
                items.push(DrawItem::Text {
                    x: left + t.label_x,
                    y,
                    text: t.label,
                    color: colors::TEXT,
                    align_right: false,
                });
            }
        }
        XScale::Logical { first, per_px } => {
            let unit = if frame.axis == Axis::Layer {
                "layer"
            } else {
                "Lamport"
            };
            let step = axis::nice_step(per_px * 90.0).max(1.0) as u64;
            let last = first + (g.plot_width() * per_px) as u64;
            let mut v = first.div_ceil(step) * step;
            while v <= last {
                let x = left + (v - first) as f64 / per_px;
                items.push(tick_mark(x, g));
                let text = if v == first.div_ceil(step) * step {
                    format!("{unit} {v}")
                } else {
                    v.to_string()
                };
                if x + axis::label_px(&text) + 4.0 < g.width {
                    items.push(DrawItem::Text {
                        x: x + 4.0,
                        y,
                        text,
                        color: colors::TEXT,
                        align_right: false,
                    });
                }
                v += step;
            }
        }
    }
}

/// Above this many edges a frame draws messages as plain lines, which the painter strokes as
/// one path per colour, instead of one arrow each.
const ARROWS_UP_TO: usize = 3_000;

/// Marks closer than this (pixels) on a row are drawn as ticks, without icons or counts.
const DENSE_PX: f64 = 12.0;

fn edges(out: &mut Layout, win: &HasseWindow) {
    let dense = win.edges.len() > ARROWS_UP_TO;
    for e in &win.edges {
        let (from, to) = (out.hits[e.from as usize], out.hits[e.to as usize]);
        let (a, b) = ((from.x, from.y), (to.x, to.y));
        out.edges_drawn += e.count as usize;
        out.edges.push(EdgeHit { a, b, edge: e.edge });
        // A bundle of several edges is a thicker line without a head.
        let width = if e.count > 1 { 2.5 } else { 1.0 };
        let line = |color| DrawItem::Line {
            x1: a.0,
            y1: a.1,
            x2: b.0,
            y2: b.1,
            color,
            width,
        };
        let arrow = |color| DrawItem::Arrow {
            x1: a.0,
            y1: a.1,
            x2: b.0,
            y2: b.1,
            color,
        };
        if e.backwards {
            // Back in time: a clock violation, drawn thick in the fault colour.
            out.edges_backwards += 1;
            out.items.push(DrawItem::Line {
                x1: a.0,
                y1: a.1,
                x2: b.0,
                y2: b.1,
                color: colors::FAULT,
                width: 2.5,
            });
            out.items.push(arrow(colors::FAULT));
        } else if e.kind == HasseKind::Program {
            out.items.push(line(colors::HOVERED));
        } else if e.count > 1 || dense {
            out.items.push(line(colors::MESSAGE));
        } else {
            out.items.push(arrow(colors::MESSAGE));
        }
    }
}

/// Where a mark's vertex stands relative to the selected event.
fn area_of(frame: &Frame<'_>, shown: &[u32], mark: &shared::view::hasse::Mark) -> Area {
    if frame.areas.is_none() {
        // Without a selected event, the replay clock's past.
        return match frame.replay {
            Some((t, Some(times))) if times.get(mark.event.index()).is_some_and(|e| e.0 <= t) => {
                Area::Pre
            }
            _ => Area::Concurrent,
        };
    }
    frame.areas.map_or(Area::Concurrent, |a| {
        let p = shown.get(mark.row as usize).copied().unwrap_or(0) as usize;
        if mark.vertex == a.vertex {
            Area::Selected
        } else if a.pre_end.get(p).is_some_and(|&end| mark.vertex < end) {
            Area::Pre
        } else if a
            .post_start
            .get(p)
            .is_some_and(|&start| mark.vertex >= start)
        {
            Area::Post
        } else {
            Area::Concurrent
        }
    })
}

fn vertices(
    items: &mut Vec<DrawItem>,
    win: &HasseWindow,
    hits: &[Hit],
    frame: &Frame<'_>,
    shown: &[u32],
) {
    // Dense marks of a row merge into one bar (x from, x to, y, colour): one rectangle, not
    // one each; a bar takes the colour of the causal area its marks are in.
    type Bar = Option<(f64, f64, f64, &'static str)>;
    let mut bar: Bar = None;
    let flush = |items: &mut Vec<DrawItem>, bar: &mut Bar| {
        if let Some((x1, x2, y, color)) = bar.take() {
            items.push(DrawItem::Rect {
                x: x1 - 1.0,
                y: y - 7.0,
                w: x2 - x1 + 2.0,
                h: 14.0,
                color,
            });
        }
    };
    let mut marked: Vec<(u32, bool)> = frame.marked.to_vec();
    marked.sort_unstable();
    for (k, (hit, mark)) in hits.iter().zip(&win.marks).enumerate() {
        if frame
            .kept
            .is_some_and(|kept| !kept.get(mark.event.index()).copied().unwrap_or(true))
        {
            // Left out by the event filter: a faint dot keeps the row's shape.
            items.push(DrawItem::Rect {
                x: hit.x - 2.0,
                y: hit.y - 2.0,
                w: 4.0,
                h: 4.0,
                color: colors::FILTERED,
            });
            continue;
        }
        let area = area_of(frame, shown, mark);
        let (x, y) = (hit.x, hit.y);
        // The room to the neighbouring marks of the row.
        let room = [k.checked_sub(1), Some(k + 1)]
            .into_iter()
            .flatten()
            .filter_map(|n| {
                win.marks
                    .get(n)
                    .filter(|m| m.row == mark.row)
                    .map(|_| hits[n].x)
            })
            .map(|nx| (nx - x).abs())
            .fold(f64::INFINITY, f64::min);
        if room < DENSE_PX {
            // Too close to its neighbours for an icon or a count: part of a bar.
            let color = match area {
                Area::Concurrent => colors::ICON,
                Area::Pre => area_colors::PRE,
                Area::Post => area_colors::POST,
                Area::Selected => colors::SELECTED,
            };
            match &mut bar {
                Some((_, x2, by, c)) if *by == y && *c == color && x - *x2 <= 3.0 => *x2 = x,
                _ => {
                    flush(items, &mut bar);
                    bar = Some((x, x, y, color));
                }
            }
            continue;
        } else if hit.events > 1 {
            // A collapsed run, or several vertices on one pixel: a box with the count.
            let text = hit.events.to_string();
            let w = axis::label_px(&text) + 6.0;
            items.push(DrawItem::Rect {
                x: x - w / 2.0,
                y: y - 8.0,
                w,
                h: 16.0,
                color: colors::COUNTER,
            });
            items.push(DrawItem::Text {
                x: x - w / 2.0 + 3.0,
                y,
                text,
                color: colors::TEXT,
                align_right: false,
            });
        } else {
            match icon_of(mark.kind) {
                Some(icon) => items.push(DrawItem::Icon {
                    x,
                    y,
                    icon,
                    color: colors::ICON,
                }),
                None => items.push(DrawItem::Rect {
                    x: x - 3.0,
                    y: y - 3.0,
                    w: 6.0,
                    h: 6.0,
                    color: colors::ICON,
                }),
            }
        }
        let ring = match area {
            Area::Concurrent => None,
            Area::Pre => Some((area_colors::PRE, 2.0)),
            Area::Post => Some((area_colors::POST, 2.0)),
            Area::Selected => Some((colors::SELECTED, 3.0)),
        };
        if let Some((color, width)) = ring {
            items.push(DrawItem::Ring {
                x,
                y,
                r: 10.0,
                color,
                width,
            });
        }
        let at = marked.partition_point(|m| m.0 < hit.vertex);
        if let Some(&(_, holds)) = marked.get(at).filter(|m| m.0 == hit.vertex) {
            items.push(DrawItem::Ring {
                x,
                y,
                r: 13.0,
                color: if holds {
                    area_colors::HOLDS
                } else {
                    colors::FAULT
                },
                width: 2.0,
            });
        }
    }
    flush(items, &mut bar);
}

/// The mark nearest `(x, y)` within 12 pixels.
pub fn hit_at(layout: &Layout, x: f64, y: f64) -> Option<Hit> {
    layout
        .hits
        .iter()
        .map(|h| (h, (h.x - x).hypot(h.y - y)))
        .filter(|(_, d)| *d <= 12.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(h, _)| *h)
}

/// The drawn edge nearest `(x, y)` within 4 pixels.
pub fn edge_at(layout: &Layout, x: f64, y: f64) -> Option<EdgeHit> {
    let distance = |e: &EdgeHit| {
        let (dx, dy) = (e.b.0 - e.a.0, e.b.1 - e.a.1);
        let len2 = (dx * dx + dy * dy).max(1e-9);
        let t = (((x - e.a.0) * dx + (y - e.a.1) * dy) / len2).clamp(0.0, 1.0);
        (e.a.0 + t * dx - x).hypot(e.a.1 + t * dy - y)
    };
    layout
        .edges
        .iter()
        .map(|e| (e, distance(e)))
        .filter(|(_, d)| *d <= 4.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(e, _)| *e)
}

#[cfg(test)]
mod tests {
    use shared::analyses::causality::Causality;
    use shared::graph::context::Context;
    use shared::view::hasse::{Axis, Collapse, Diagram};

    use super::*;
    use crate::components::gantt::test_data::worked_example;

    fn diagram(trace: &shared::Trace, collapse: Collapse<'_>) -> Diagram {
        let cx = Context::new(trace);
        let c = Causality::new(trace, &cx.graph);
        Diagram::new(trace, &cx.graph, &c, collapse)
    }

    fn frame<'a>(rows: &'a [u32], axis: Axis, window: (u64, u64)) -> Frame<'a> {
        Frame {
            rows,
            top_row: 0,
            window,
            axis,
            clock: Clock::default(),
            areas: None,
            marked: &[],
            kept: None,
            replay: None,
        }
    }

    #[test]
    fn the_replay_clock_rings_the_past_and_draws_its_cursor_on_the_physical_axis() {
        let trace = worked_example();
        let d = diagram(&trace, Collapse::None);
        let names: Vec<String> = trace.processes.iter().map(|p| p.name.clone()).collect();
        let g = Geometry::new(1200.0, 200.0);
        let times = trace.events.time();
        let past = times.iter().filter(|t| t.0 <= 36).count();
        let rings = |f: &Frame<'_>| {
            let laid = layout(&window_of(&d, f, &g), &names, f, &g);
            let rings = laid
                .items
                .iter()
                .filter(|i| matches!(i, DrawItem::Ring { color, .. } if *color == area_colors::PRE))
                .count();
            let cursor = laid
                .items
                .iter()
                .any(|i| matches!(i, DrawItem::Line { color, .. } if *color == colors::REPLAY));
            (rings, cursor)
        };
        let mut f = frame(&[0, 1], Axis::Physical, (0, 69));
        f.replay = Some((36, Some(times)));
        assert_eq!(rings(&f), (past, true));
        // On a logical axis: the past, no cursor.
        f.axis = Axis::Layer;
        assert_eq!(rings(&f), (past, false));
        // Without the events' times (a run drawn by the server): the cursor only.
        f.axis = Axis::Physical;
        f.replay = Some((36, None));
        assert_eq!(rings(&f), (0, true));
    }

    #[test]
    fn every_vertex_and_edge_of_the_worked_example_is_drawn_once() {
        let trace = worked_example();
        let d = diagram(&trace, Collapse::None);
        let names: Vec<String> = trace.processes.iter().map(|p| p.name.clone()).collect();
        let g = Geometry::new(1200.0, 200.0);
        for axis in [Axis::Layer, Axis::Lamport, Axis::Physical] {
            let f = frame(&[0, 1], axis, (0, 69));
            let laid = layout(&window_of(&d, &f, &g), &names, &f, &g);
            assert_eq!(laid.vertices_shown, 13, "{axis:?}");
            assert_eq!(laid.hits.len(), 13, "{axis:?}: one mark per vertex");
            assert_eq!(laid.edges_drawn, d.edges.len(), "{axis:?}");
            // Marks stay inside the plot.
            assert!(laid.hits.iter().all(|h| h.x >= g.gutter && h.x <= g.width));
        }
        // Layers spread evenly: layer k at gutter + pad + k · (plot / 7).
        let f = frame(&[0, 1], Axis::Layer, (0, 69));
        let laid = layout(&window_of(&d, &f, &g), &names, &f, &g);
        let x_of = |event: u32| {
            laid.hits
                .iter()
                .find(|h| d.vertices[h.vertex as usize].event.0 == event)
                .map(|h| h.x)
        };
        let per_layer = (1200.0 - 170.0 - 28.0) / 7.0;
        let x0 = x_of(0).expect("A's start");
        assert!((x_of(1).expect("A's send") - x0 - per_layer).abs() < 1e-6);
    }

    #[test]
    fn a_narrow_window_keeps_only_its_vertices_and_a_narrow_plot_counts_what_shares_a_pixel() {
        let trace = worked_example();
        let d = diagram(&trace, Collapse::None);
        let names: Vec<String> = trace.processes.iter().map(|p| p.name.clone()).collect();
        let g = Geometry::new(1200.0, 200.0);
        // 30..50: A's receive call (35) and arrival (48), B's arrival (33), send (38) and
        // receive call (43).
        let f = frame(&[0, 1], Axis::Physical, (30, 50));
        let laid = layout(&window_of(&d, &f, &g), &names, &f, &g);
        assert_eq!(laid.vertices_shown, 5);
        // Only B's row: 3 of them.
        let f = frame(&[1], Axis::Physical, (30, 50));
        let laid = layout(&window_of(&d, &f, &g), &names, &f, &g);
        assert_eq!(laid.vertices_shown, 3);
        // A plot a few pixels wide: fewer marks, but every event counted.
        let tiny = Geometry::new(170.0 + 28.0 + 3.0, 200.0);
        let f = frame(&[0, 1], Axis::Layer, (0, 69));
        let laid = layout(&window_of(&d, &f, &tiny), &names, &f, &tiny);
        assert!(laid.hits.len() < 13);
        assert_eq!(laid.hits.iter().map(|h| h.events).sum::<u64>(), 13);
    }

    #[test]
    fn the_pointer_finds_the_nearest_mark_and_edge() {
        let trace = worked_example();
        let d = diagram(&trace, Collapse::None);
        let names: Vec<String> = trace.processes.iter().map(|p| p.name.clone()).collect();
        let (f, g) = (
            frame(&[0, 1], Axis::Layer, (0, 69)),
            Geometry::new(1200.0, 200.0),
        );
        let laid = layout(&window_of(&d, &f, &g), &names, &f, &g);
        let h = laid.hits[3];
        assert_eq!(hit_at(&laid, h.x + 3.0, h.y - 2.0), Some(h));
        assert_eq!(hit_at(&laid, h.x + 40.0, h.y + 40.0), None);
        let e = laid.edges[0];
        let mid = ((e.a.0 + e.b.0) / 2.0, (e.a.1 + e.b.1) / 2.0);
        assert_eq!(
            edge_at(&laid, mid.0, mid.1 + 1.0).map(|x| x.edge),
            Some(e.edge)
        );
    }
}
