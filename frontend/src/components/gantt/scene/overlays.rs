//! Analysis overlays: a path (critical path or WCPA) as outlines around the bars it runs along
//! and lines between processes,
//! and the wait states as marks along the top of the rows where the time was lost; and the
//! path segment a click finds.

use super::context::Scene;
use super::draw::{DrawItem, colors};

/// One segment of a path overlay: on one process (computation, blocked) or from the sender
/// to the receiver (a message's transit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathBar {
    /// The process it starts on.
    pub from: usize,
    /// The process it ends on.
    pub to: usize,
    /// Its first tick.
    pub start: u64,
    /// Its last tick.
    pub end: u64,
    /// Its colour (the path's, or its WCPA phase's).
    pub color: &'static str,
}

/// One wait state: the ticks `[start, end)` a process lost waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitBar {
    /// The process that waited.
    pub process: usize,
    /// When the wait began.
    pub start: u64,
    /// When it ended.
    pub end: u64,
}

/// The selected event's causal past or future on one process: ticks `[start, end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AreaBar {
    /// The process.
    pub process: usize,
    /// The area's first tick there.
    pub start: u64,
    /// Its last tick there.
    pub end: u64,
    /// The past (`true`) or the future.
    pub past: bool,
}

/// Shades the causal past and future behind the bars, a band per process.
pub fn draw_areas(scene: &Scene, areas: &[AreaBar], items: &mut Vec<DrawItem>) {
    let half = scene.g.row_height / 2.0 - 1.0;
    for a in areas {
        if !in_window(scene, a.start, a.end) {
            continue;
        }
        let Some(y) = scene.row_center(a.process) else {
            continue;
        };
        let (x1, x2) = (scene.x_of(a.start), scene.x_of(a.end));
        items.push(DrawItem::Rect {
            x: x1 - 4.0,
            y: y - half,
            w: (x2 - x1) + 8.0,
            h: 2.0 * half,
            color: if a.past {
                colors::AREA_PAST
            } else {
                colors::AREA_FUTURE
            },
        });
    }
}

/// Half the height of a path segment's outline on its process.
const PATH_HALF: f64 = 5.0;

/// Whether `[start, end]` reaches into the window.
fn in_window(scene: &Scene, start: u64, end: u64) -> bool {
    let (window_start, window_end) = scene.scale.window();
    (end as f64) >= window_start && (start as f64) <= window_end
}

/// The path's segments in the window whose processes are shown.
pub fn draw_path(scene: &Scene, path: &[PathBar], items: &mut Vec<DrawItem>) {
    for bar in path {
        if !in_window(scene, bar.start, bar.end) {
            continue;
        }
        let (Some(y1), Some(y2)) = (scene.row_center(bar.from), scene.row_center(bar.to)) else {
            continue;
        };
        let (x1, x2) = (scene.x_of(bar.start), scene.x_of(bar.end));
        if bar.from == bar.to && x2 - x1 >= 3.0 {
            // An outline around the state bar, which stays readable inside it.
            for y in [y1 - PATH_HALF, y1 + PATH_HALF] {
                items.push(DrawItem::Line {
                    x1,
                    y1: y,
                    x2,
                    y2: y,
                    color: bar.color,
                    width: 2.0,
                });
            }
        } else if bar.from == bar.to {
            items.push(DrawItem::Rect {
                x: x1,
                y: y1 - PATH_HALF,
                w: (x2 - x1).max(2.0),
                h: 2.0 * PATH_HALF,
                color: bar.color,
            });
        } else {
            items.push(DrawItem::Line {
                x1,
                y1,
                x2,
                y2,
                color: bar.color,
                width: 2.0,
            });
        }
    }
}

/// The wait states in the window, as marks along the top of their processes' rows.
pub fn draw_waits(scene: &Scene, waits: &[WaitBar], items: &mut Vec<DrawItem>) {
    // Hatching costs a line per few pixels: past this many lines a frame keeps the strips only.
    const MAX_HATCH_LINES: usize = 4000;
    let mut hatch_lines = 0;
    for w in waits {
        if !in_window(scene, w.start, w.end) {
            continue;
        }
        let Some(row) = scene.rows.row_of(w.process) else {
            continue;
        };
        let (x1, x2) = (scene.x_of(w.start), scene.x_of(w.end));
        let top = scene.g.row_top(row) + 1.0;
        items.push(DrawItem::Rect {
            x: x1,
            y: top,
            w: (x2 - x1).max(1.0),
            h: 3.0,
            color: colors::WAIT,
        });
        let lines = hatch(
            x1.max(0.0),
            x2.min(scene.g.width),
            top + 3.0,
            scene.g.row_height - 5.0,
        );
        if hatch_lines + lines.len() <= MAX_HATCH_LINES {
            hatch_lines += lines.len();
            items.extend(lines);
        }
    }
}

/// The gap between hatch lines, in pixels.
const HATCH_GAP: f64 = 6.0;

/// Diagonal hatch lines across `[x1, x2] × [top, top + h]` (rising to the right, 45°), each
/// clipped to the box.
fn hatch(x1: f64, x2: f64, top: f64, h: f64) -> Vec<DrawItem> {
    let mut out = Vec::new();
    if x2 - x1 < 2.0 || h <= 0.0 {
        return out;
    }
    let bottom = top + h;
    // A line starts at (x0, bottom) and rises to (x0 + h, top); x0 on a grid of the gap.
    let mut x0 = (x1 / HATCH_GAP).floor() * HATCH_GAP - h;
    while x0 < x2 {
        let (a, b) = (x0.max(x1), (x0 + h).min(x2));
        if a < b {
            out.push(DrawItem::Line {
                x1: a,
                y1: bottom - (a - x0),
                x2: b,
                y2: bottom - (b - x0),
                color: colors::WAIT,
                width: 1.0,
            });
        }
        x0 += HATCH_GAP;
    }
    out
}

fn distance_to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length2 = dx * dx + dy * dy;
    let t = if length2 == 0.0 {
        0.0
    } else {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / length2).clamp(0.0, 1.0)
    };
    let (cx, cy) = (a.0 + t * dx, a.1 + t * dy);
    ((p.0 - cx).powi(2) + (p.1 - cy).powi(2)).sqrt()
}

/// The path segment under the point `(x, y)` (canvas coordinates), within a few pixels.
pub fn path_hit(scene: &Scene, path: &[PathBar], x: f64, y: f64) -> Option<usize> {
    const TOLERANCE_PX: f64 = 4.0;
    let half = scene.g.row_height / 2.0;
    path.iter().position(|bar| {
        let (Some(y1), Some(y2)) = (scene.row_center(bar.from), scene.row_center(bar.to)) else {
            return false;
        };
        let (x1, x2) = (scene.x_of(bar.start), scene.x_of(bar.end));
        if bar.from == bar.to {
            (y - y1).abs() <= half && x >= x1 - TOLERANCE_PX && x <= x2 + TOLERANCE_PX
        } else {
            distance_to_segment((x, y), (x1, y1), (x2, y2)) <= TOLERANCE_PX
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hatch_lines_stay_in_their_box() {
        let lines = hatch(10.0, 70.0, 5.0, 12.0);
        // One line every 6 px across the box and its height: (60 + 12) / 6 = 12, give or take
        // the grid's phase.
        assert!((11..=13).contains(&lines.len()), "{}", lines.len());
        for line in &lines {
            let DrawItem::Line { x1, y1, x2, y2, .. } = *line else {
                panic!("a line");
            };
            assert!(10.0 <= x1 && x1 < x2 && x2 <= 70.0, "{line:?}");
            assert!(
                (5.0..=17.0).contains(&y1) && (5.0..=17.0).contains(&y2),
                "{line:?}"
            );
            assert!(((x2 - x1) - (y1 - y2)).abs() < 1e-9, "45°: {line:?}");
        }
        assert!(
            hatch(10.0, 11.0, 5.0, 12.0).is_empty(),
            "too narrow to hatch"
        );
    }
}
