//! The region layer: each process's regions as nested bars at the bottom of its row
//! (outermost first) in their names' colours — all grey but one when a region filter is on —
//! and the region bar a click finds.

use super::super::regions::RegionBar;
use super::super::rows::Row;
use super::bars::REGION_PX;
use super::context::Scene;
use super::draw::{DrawItem, colors};

/// The process rows in view that show region bars, with their process (a folded node's row
/// shows its state strips only).
pub fn rows_with_bars<'a>(scene: &'a Scene<'a>) -> impl Iterator<Item = (usize, usize)> + 'a {
    scene
        .visible_rows()
        .filter_map(|row| match scene.rows.rows.get(row) {
            Some(&Row::Process(p)) => Some((row, p)),
            _ => None,
        })
}

/// Calls `f(row, depth, bar)` for each region bar drawn in the rows and window in view, one
/// per pixel at most.
fn each_drawn(scene: &Scene, mut f: impl FnMut(usize, usize, RegionBar)) {
    let model = scene.model;
    let window = scene.scale.window();
    let tick_px = scene.scale.px_to_span(1.0);
    for (row, p) in rows_with_bars(scene) {
        for depth in 0..model.regions.depths {
            for bar in model.regions.visible(p, depth, window, tick_px) {
                f(row, depth, bar);
            }
        }
    }
}

/// The region bars of the process rows in view; with `only`, other regions are grey.
pub fn draw(scene: &Scene, only: Option<u32>, items: &mut Vec<DrawItem>) {
    let model = scene.model;
    let depths = model.regions.depths;
    each_drawn(scene, |row, depth, bar| {
        let bottom = scene.g.row_top(row) + scene.g.row_height - 1.0;
        let y = bottom - REGION_PX * (depths - depth) as f64;
        let (x1, x2) = (scene.x_of(bar.start), scene.x_of(bar.end));
        let color = match only {
            Some(id) if id != bar.region => colors::FILTERED,
            _ => model
                .region_colors
                .get(bar.region as usize)
                .copied()
                .unwrap_or(colors::GRID),
        };
        items.push(DrawItem::Rect {
            x: x1,
            y,
            w: (x2 - x1).max(1.0),
            h: REGION_PX - 0.5,
            color,
        });
    });
}

/// The region bar under `(x, y)` on display row `row` of process `process`: its depth and bar.
pub fn hit(
    scene: &Scene,
    (row, process): (usize, usize),
    (x, y): (f64, f64),
) -> Option<(usize, RegionBar)> {
    let depths = scene.model.regions.depths;
    let bottom = scene.g.row_top(row) + scene.g.row_height - 1.0;
    let from_bottom = bottom - y;
    if depths == 0 || from_bottom < 0.0 || from_bottom >= REGION_PX * depths as f64 {
        return None;
    }
    let depth = depths - 1 - (from_bottom / REGION_PX).floor() as usize;
    let tick = scene.time_at(x)?;
    scene
        .model
        .regions
        .at(process, depth, tick)
        .map(|bar| (depth, bar))
}
