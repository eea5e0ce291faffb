//! The render context: what every layer reads to draw its part of a frame or to answer a
//! click — the model, the rows, the time scale, the geometry, the rows in view, where each
//! drawn process's bars go, and the viewport answers for them (asked once per frame).

use std::sync::Arc;

use shared::model::time::Time;
use shared::view::viewport::{MAX_ROWS, MAX_WIDTH_PX, Viewport, ViewportRequest};

use super::super::model::GanttModel;
use super::super::remote::Views;
use super::super::rows::{Row, Rows};
use super::super::time_scale::TimeScale;
use super::geometry::Geometry;

/// One frame's (or one click's) view of the chart.
pub struct Scene<'a> {
    /// The chart's model of the trace.
    pub model: &'a GanttModel,
    /// The rows shown.
    pub rows: &'a Rows,
    /// The time scale: the only tick↔pixel converter.
    pub scale: &'a TimeScale,
    /// The sizes of the chart's parts.
    pub g: &'a Geometry,
    /// The display rows `first..=last` in view.
    pub visible: Option<(usize, usize)>,
    /// Drawn processes ascending, with the top and height of their bars' box.
    drawn: Vec<(usize, f64, f64)>,
    /// The viewport answers for the drawn processes, by process range `first..=last`.
    pub answers: Vec<((usize, usize), Arc<Viewport>)>,
}

impl<'a> Scene<'a> {
    /// The context of a frame: asks `views` for the bars and messages of the rows in view.
    pub fn new(
        model: &'a GanttModel,
        rows: &'a Rows,
        views: &dyn Views,
        scale: &'a TimeScale,
        g: &'a Geometry,
    ) -> Scene<'a> {
        let mut scene = Scene::for_hits(model, rows, scale, g);
        let request = |(first, last): (usize, usize)| {
            let (window_start, window_end) = scale.window();
            // Whole ticks covering the window, at (about) one viewport pixel per CSS pixel.
            let start = window_start.max(0.0).floor() as u64;
            let end = (window_end.max(0.0).ceil() as u64).max(start + 1);
            let width_px = scale
                .span_to_px((end - start) as f64)
                .round()
                .clamp(1.0, f64::from(MAX_WIDTH_PX)) as u32;
            ViewportRequest {
                start,
                end,
                first_row: first as u32,
                last_row: last as u32,
                width_px,
            }
        };
        scene.answers = scene
            .chunks()
            .into_iter()
            .filter_map(|chunk| Some((chunk, views.view(&request(chunk))?)))
            .collect();
        scene
    }

    /// The context of a click: no viewport answers (hit tests read the model).
    pub fn for_hits(
        model: &'a GanttModel,
        rows: &'a Rows,
        scale: &'a TimeScale,
        g: &'a Geometry,
    ) -> Scene<'a> {
        let visible = g.visible_rows(rows.n_rows());
        let mut drawn = Vec::new();
        for row in visible.map_or(0..0, |(first, last)| first..last + 1) {
            let top = g.row_top(row);
            let processes = rows.drawn(row);
            match rows.rows.get(row) {
                Some(Row::Group(_)) => {
                    let h = (g.row_height - 8.0) / processes.len().max(1) as f64;
                    for (j, p) in processes.into_iter().enumerate() {
                        drawn.push((p, top + 4.0 + j as f64 * h, h));
                    }
                }
                _ => drawn.extend(processes.into_iter().map(|p| (p, top, g.row_height))),
            }
        }
        drawn.sort_by_key(|d| d.0);
        Scene {
            model,
            rows,
            scale,
            g,
            visible,
            drawn,
            answers: Vec::new(),
        }
    }

    /// Process ranges `first..=last` covering the drawn processes, each at most `MAX_ROWS`
    /// long (one viewport query each).
    fn chunks(&self) -> Vec<(usize, usize)> {
        let mut chunks: Vec<(usize, usize)> = Vec::new();
        for &(p, _, _) in &self.drawn {
            match chunks.last_mut() {
                Some((a, b)) if p - *a < MAX_ROWS as usize => *b = p,
                _ => chunks.push((p, p)),
            }
        }
        chunks
    }

    /// The rows in view, top to bottom.
    pub fn visible_rows(&self) -> std::ops::Range<usize> {
        self.visible.map_or(0..0, |(first, last)| first..last + 1)
    }

    /// The box (top, height) of process `p`'s bars, if it is drawn.
    pub fn place(&self, p: usize) -> Option<(f64, f64)> {
        let k = self.drawn.binary_search_by_key(&p, |d| d.0).ok()?;
        Some((self.drawn[k].1, self.drawn[k].2))
    }

    /// The plot area: left, top, width, height.
    pub fn plot(&self) -> (f64, f64, f64, f64) {
        let g = self.g;
        (
            g.label_width,
            g.axis_height,
            g.plot_width(),
            (g.height - g.axis_height).max(0.0),
        )
    }

    /// The canvas x of a tick.
    pub fn x_of(&self, tick: u64) -> f64 {
        self.g.label_width + self.scale.time_to_px(Time(tick))
    }

    /// The canvas x of a fractional tick.
    pub fn x_at(&self, tick: f64) -> f64 {
        self.g.label_width + self.scale.tick_to_px(tick)
    }

    /// The fractional tick at canvas x.
    pub fn tick_at(&self, x: f64) -> f64 {
        self.scale.px_to_tick(x - self.g.label_width)
    }

    /// The tick at canvas x, rounded, if it is not before tick 0.
    pub fn time_at(&self, x: f64) -> Option<u64> {
        self.scale.px_to_time(x - self.g.label_width).map(|t| t.0)
    }

    /// The middle of process `p`'s row, if it is shown.
    pub fn row_center(&self, p: usize) -> Option<f64> {
        let row = self.rows.row_of(p)?;
        Some(self.g.row_top(row) + self.g.row_height / 2.0)
    }

    /// Where a viewport answer's pixel `p` is on the canvas: the answer is placed by its own
    /// window (it may cover more, or while a better one loads other, ticks than asked for).
    pub fn viewport_x(&self, view: &Viewport) -> impl Fn(i64) -> f64 + use<> {
        let x0 = self.x_at(view.start as f64);
        let px =
            self.scale.span_to_px((view.end - view.start) as f64) / f64::from(view.width_px.max(1));
        move |p: i64| x0 + p as f64 * px
    }

    /// Whether a message between processes `from` and `to` is drawn by an earlier chunk than
    /// `k` (a message between two chunks is answered by both).
    pub fn drawn_before(&self, k: usize, from: u32, to: u32) -> bool {
        self.answers[..k].iter().any(|((a, b), _)| {
            (*a..=*b).contains(&(from as usize)) || (*a..=*b).contains(&(to as usize))
        })
    }
}
