//! What the user picked, drawn over everything else in the plot: the selected range, a ring
//! around the selected event and a lighter one around the event under the pointer, and the
//! replay clock's line.

use super::context::Scene;
use super::draw::{DrawItem, colors};
use super::icons;

/// A range of time and processes, as a rectangle over the rows it spans.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeMark {
    /// The first tick (fractional while it is being dragged).
    pub start: f64,
    /// The last tick.
    pub end: f64,
    /// The first display row.
    pub first_row: usize,
    /// The last display row.
    pub last_row: usize,
}

/// The selection marks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Marks {
    /// The selected range.
    pub range: Option<RangeMark>,
    /// The selected event.
    pub selected: Option<usize>,
    /// The event under the pointer.
    pub hovered: Option<usize>,
    /// The replay clock.
    pub replay: Option<u64>,
}

/// Draws the marks.
pub fn draw(scene: &Scene, marks: &Marks, items: &mut Vec<DrawItem>) {
    let g = scene.g;
    if let Some(sel) = &marks.range {
        let (x1, x2) = (scene.x_at(sel.start), scene.x_at(sel.end));
        let (y1, y2) = (
            g.row_top(sel.first_row),
            g.row_top(sel.last_row) + g.row_height,
        );
        items.push(DrawItem::Rect {
            x: x1,
            y: y1,
            w: (x2 - x1).max(1.0),
            h: y2 - y1,
            color: colors::SELECTION,
        });
        for x in [x1, x2] {
            items.push(DrawItem::Line {
                x1: x,
                y1,
                x2: x,
                y2,
                color: colors::SELECTION_EDGE,
                width: 1.0,
            });
        }
    }
    let rings = [
        (marks.hovered, colors::HOVERED, 1.5),
        (marks.selected, colors::SELECTED, 2.0),
    ];
    for (event, color, width) in rings {
        if let Some((x, y)) = event.and_then(|e| icons::position(scene, e)) {
            items.push(DrawItem::Ring {
                x,
                y,
                r: 7.0,
                color,
                width,
            });
        }
    }
    if let Some(tick) = marks.replay {
        let x = scene.x_of(tick);
        items.push(DrawItem::Line {
            x1: x,
            y1: g.axis_height,
            x2: x,
            y2: g.height,
            color: colors::REPLAY,
            width: 2.0,
        });
    }
}
