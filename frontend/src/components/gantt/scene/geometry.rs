//! The chart's geometry: the sizes of its parts and where rows sit, in CSS pixels with the
//! origin at the canvas's top left.

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

    /// The rows `first..=last` at least partly inside the plot, out of `n_rows`.
    pub fn visible_rows(&self, n_rows: usize) -> Option<(usize, usize)> {
        let plot = (self.height - self.axis_height).max(0.0);
        if n_rows == 0 || plot <= 0.0 {
            return None;
        }
        let first = (self.scroll_y / self.row_height).floor().max(0.0) as usize;
        let last = (((self.scroll_y + plot) / self.row_height).ceil() as usize)
            .saturating_sub(1)
            .min(n_rows - 1);
        (first <= last).then_some((first, last))
    }
}

/// The row under `y`, if any.
pub fn row_at(g: &Geometry, n_rows: usize, y: f64) -> Option<usize> {
    if y < g.axis_height {
        return None;
    }
    let row = ((y - g.axis_height + g.scroll_y) / g.row_height).floor();
    (row >= 0.0 && (row as usize) < n_rows).then_some(row as usize)
}
