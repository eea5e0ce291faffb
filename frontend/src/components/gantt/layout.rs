//! The Gantt chart's layout: a pure function from the trace and the viewport to a display list.
//!
//! Nothing here knows the DOM or the canvas, so the layout is tested natively.
//! Coordinates are CSS pixels with the origin at the canvas's top left.

use shared::Trace;
use shared::pairing::pair_messages;
use shared::states::{State, state_spans};
use shared::time::{Clock, Duration, Time};

use super::time_scale::{TimeScale, axis_step};

/// Sizes of the chart's parts, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// Canvas width.
    pub width: f64,
    /// Canvas height.
    pub height: f64,
    /// Width of the row-label column on the left.
    pub label_width: f64,
    /// Height of the time axis at the top.
    pub axis_height: f64,
    /// Height of one process row.
    pub row_height: f64,
    /// How far the rows are scrolled up.
    pub scroll_y: f64,
}

impl Geometry {
    /// The default geometry for a canvas of this size.
    pub fn new(width: f64, height: f64) -> Geometry {
        Geometry {
            width,
            height,
            label_width: 140.0,
            axis_height: 30.0,
            row_height: 32.0,
            scroll_y: 0.0,
        }
    }

    /// The width of the plot area right of the labels.
    pub fn plot_width(&self) -> f64 {
        (self.width - self.label_width).max(1.0)
    }

    /// The height all rows need, axis included.
    pub fn content_height(&self, n_rows: usize) -> f64 {
        self.axis_height + self.row_height * n_rows as f64
    }

    /// The top of row `row`.
    pub fn row_top(&self, row: usize) -> f64 {
        self.axis_height + self.row_height * row as f64 - self.scroll_y
    }
}

/// Colours of the chart, as CSS colours.
pub mod colors {
    /// Computing bars.
    pub const COMPUTING: &str = "#2e8b57";
    /// Blocked (waiting in a receive) bars.
    pub const BLOCKED: &str = "#e8a33d";
    /// Message arrows.
    pub const MESSAGE: &str = "#1f3a93";
    /// Text.
    pub const TEXT: &str = "#1d2330";
    /// Grid lines and separators.
    pub const GRID: &str = "#d8dce3";
    /// The label column and axis background.
    pub const PANEL: &str = "#f3f5f8";
}

/// One thing to draw.
#[derive(Debug, Clone, PartialEq)]
pub enum DrawItem {
    /// A filled rectangle.
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        color: &'static str,
    },
    /// A straight line.
    Line {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        color: &'static str,
        width: f64,
    },
    /// A line with an arrow head at its end.
    Arrow {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        color: &'static str,
    },
    /// Text whose left edge (or right edge, when `align_right`) is at x, baseline-middle at y.
    Text {
        x: f64,
        y: f64,
        text: String,
        color: &'static str,
        align_right: bool,
    },
    /// Restricts the following items to a rectangle (`None` lifts it).
    Clip(Option<(f64, f64, f64, f64)>),
}

/// What the chart shows, computed once per trace.
#[derive(Debug, Clone, PartialEq)]
pub struct GanttModel {
    /// One row per process: its label.
    pub rows: Vec<String>,
    /// State bars: row, start, end, state.
    pub spans: Vec<(usize, Time, Time, State)>,
    /// Messages: sender row, send time, receiver row, arrival time.
    pub messages: Vec<(usize, Time, usize, Time)>,
    /// The first and last event times.
    pub bounds: (Time, Time),
    /// The trace's clock, for axis labels.
    pub clock: Clock,
}

impl GanttModel {
    /// Builds the chart's model of a trace.
    pub fn new(trace: &Trace) -> GanttModel {
        let rows = trace
            .processes
            .iter()
            .map(|p| match trace.nodes.get(p.node.index()) {
                Some(node) => format!("{} @ {}", p.name, node.name),
                None => p.name.clone(),
            })
            .collect();
        let spans = state_spans(trace)
            .into_iter()
            .map(|s| (s.process.index(), s.start, s.end, s.state))
            .collect();
        let e = &trace.events;
        let messages = pair_messages(trace)
            .messages
            .iter()
            .map(|m| {
                let (s, a) = (m.send.index(), m.arrival.index());
                (
                    e.process()[s].index(),
                    e.time()[s],
                    e.process()[a].index(),
                    e.time()[a],
                )
            })
            .collect();
        GanttModel {
            rows,
            spans,
            messages,
            bounds: trace.time_bounds().unwrap_or_default(),
            clock: trace.clock,
        }
    }

    /// A scale that shows the whole trace across the plot.
    pub fn fit(&self, geometry: &Geometry) -> TimeScale {
        TimeScale::fit(self.bounds.0, self.bounds.1, geometry.plot_width())
    }
}

/// Lays out the chart: axis, row labels, state bars and message arrows inside the viewport.
pub fn layout(model: &GanttModel, scale: &TimeScale, g: &Geometry) -> Vec<DrawItem> {
    let mut items = Vec::new();
    let plot_left = g.label_width;
    let plot = (
        plot_left,
        g.axis_height,
        g.plot_width(),
        (g.height - g.axis_height).max(0.0),
    );
    let x_of = |t: Time| plot_left + scale.time_to_px(t);
    let row_visible = |row: usize| {
        let top = g.row_top(row);
        top + g.row_height > g.axis_height && top < g.height
    };

    items.push(DrawItem::Clip(Some(plot)));
    for (row, _) in model
        .rows
        .iter()
        .enumerate()
        .filter(|(row, _)| row_visible(*row))
    {
        let y = g.row_top(row) + g.row_height;
        items.push(DrawItem::Line {
            x1: plot_left,
            y1: y,
            x2: g.width,
            y2: y,
            color: colors::GRID,
            width: 1.0,
        });
    }
    let (window_start, window_end) = scale.window();
    for &(row, start, end, state) in &model.spans {
        if !row_visible(row) || (end.0 as f64) < window_start || (start.0 as f64) > window_end {
            continue;
        }
        let x1 = x_of(start).max(plot_left - 1.0);
        let x2 = x_of(end).min(g.width + 1.0);
        let (inset, color) = match state {
            State::Computing => (6.0, colors::COMPUTING),
            State::Blocked => (11.0, colors::BLOCKED),
        };
        let y = g.row_top(row) + inset;
        // A bar narrower than a pixel still shows: it is drawn one pixel wide.
        items.push(DrawItem::Rect {
            x: x1,
            y,
            w: (x2 - x1).max(1.0),
            h: g.row_height - 2.0 * inset,
            color,
        });
    }
    for &(from_row, send, to_row, arrival) in &model.messages {
        let (lo, hi) = (send.min(arrival).0 as f64, send.max(arrival).0 as f64);
        if hi < window_start || lo > window_end || !(row_visible(from_row) || row_visible(to_row)) {
            continue;
        }
        let center = |row: usize| g.row_top(row) + g.row_height / 2.0;
        items.push(DrawItem::Arrow {
            x1: x_of(send),
            y1: center(from_row),
            x2: x_of(arrival),
            y2: center(to_row),
            color: colors::MESSAGE,
        });
    }
    items.push(DrawItem::Clip(None));

    // The label column.
    items.push(DrawItem::Rect {
        x: 0.0,
        y: g.axis_height,
        w: plot_left,
        h: plot.3,
        color: colors::PANEL,
    });
    items.push(DrawItem::Clip(Some((
        0.0,
        g.axis_height,
        plot_left,
        plot.3,
    ))));
    for (row, label) in model
        .rows
        .iter()
        .enumerate()
        .filter(|(row, _)| row_visible(*row))
    {
        let y = g.row_top(row) + g.row_height / 2.0;
        items.push(DrawItem::Text {
            x: 8.0,
            y,
            text: label.clone(),
            color: colors::TEXT,
            align_right: false,
        });
    }
    items.push(DrawItem::Clip(None));

    // The time axis.
    items.push(DrawItem::Rect {
        x: 0.0,
        y: 0.0,
        w: g.width,
        h: g.axis_height,
        color: colors::PANEL,
    });
    items.push(DrawItem::Line {
        x1: 0.0,
        y1: g.axis_height,
        x2: g.width,
        y2: g.axis_height,
        color: colors::GRID,
        width: 1.0,
    });
    let unit = if model.clock.ticks_per_second.is_some() {
        ""
    } else {
        "ticks"
    };
    items.push(DrawItem::Text {
        x: 8.0,
        y: g.axis_height / 2.0,
        text: format!("time {unit}"),
        color: colors::TEXT,
        align_right: false,
    });
    items.push(DrawItem::Clip(Some((
        plot_left,
        0.0,
        g.plot_width(),
        g.axis_height,
    ))));
    let step = axis_step(scale, 90.0);
    let first = (window_start.max(0.0) / step as f64).ceil() as u64;
    let mut tick = first.saturating_mul(step);
    while (tick as f64) <= window_end {
        let x = x_of(Time(tick));
        items.push(DrawItem::Line {
            x1: x,
            y1: g.axis_height - 6.0,
            x2: x,
            y2: g.axis_height,
            color: colors::TEXT,
            width: 1.0,
        });
        let text = match model.clock.ticks_per_second {
            Some(_) => model.clock.format_duration(Duration(tick)),
            None => tick.to_string(),
        };
        items.push(DrawItem::Text {
            x: x + 3.0,
            y: g.axis_height / 2.0 - 2.0,
            text,
            color: colors::TEXT,
            align_right: false,
        });
        let Some(next) = tick.checked_add(step) else {
            break;
        };
        tick = next;
    }
    items.push(DrawItem::Clip(None));
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worked_example() -> Trace {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/tests/data/t4-worked-example.json"
        );
        let bytes = std::fs::read(path).expect("worked example");
        shared::import::import(&bytes, None, "t4")
            .expect("parses")
            .trace
    }

    fn rects(items: &[DrawItem], color: &str) -> Vec<(f64, f64, f64)> {
        items
            .iter()
            .filter_map(|item| match item {
                DrawItem::Rect {
                    x, y, w, color: c, ..
                } if *c == color => Some((*x, *y, *w)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn worked_example_draws_bars_arrows_labels_and_axis() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(&g);
        let items = layout(&model, &scale, &g);
        // At 10 px per tick: A computes [0,35] and [48,53], B [0,20], [33,43], [54,69].
        let computing: Vec<(f64, f64)> = rects(&items, colors::COMPUTING)
            .iter()
            .map(|r| (r.0, r.2))
            .collect();
        assert_eq!(
            computing,
            [
                (140.0, 350.0),
                (620.0, 50.0),
                (140.0, 200.0),
                (470.0, 100.0),
                (680.0, 150.0)
            ]
        );
        assert_eq!(rects(&items, colors::BLOCKED).len(), 3);
        let arrows: Vec<(f64, f64)> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Arrow { x1, x2, .. } => Some((*x1, *x2)),
                _ => None,
            })
            .collect();
        // m1 25→33, m3 51→54, m2 38→48.
        assert_eq!(arrows, [(390.0, 470.0), (650.0, 680.0), (520.0, 620.0)]);
        let texts: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            texts.contains(&"A @ T800 #0") && texts.contains(&"B @ T800 #1"),
            "{texts:?}"
        );
        for label in ["0", "10", "60"] {
            assert!(texts.contains(&label), "axis label {label} in {texts:?}");
        }
    }

    #[test]
    fn zooming_in_culls_what_left_the_window() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        // Show [0, 10]: only the first computing bar of each process and no arrow.
        let scale = model.fit(&g).zoomed(10.0 / 69.0, 0.0);
        let items = layout(&model, &scale, &g);
        assert_eq!(rects(&items, colors::COMPUTING).len(), 2);
        assert!(!items.iter().any(|i| matches!(i, DrawItem::Arrow { .. })));
    }

    #[test]
    fn rows_scrolled_out_of_view_are_not_drawn() {
        let model = GanttModel::new(&worked_example());
        let mut g = Geometry::new(830.0, 30.0 + 32.0);
        g.scroll_y = 32.0;
        let items = layout(&model, &model.fit(&g), &g);
        // Only B's row is visible: its three computing bars.
        assert_eq!(rects(&items, colors::COMPUTING).len(), 3);
    }
}
