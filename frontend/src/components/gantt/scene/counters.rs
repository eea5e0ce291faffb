//! The counter layer: each counter track in view as an area under its step values (the
//! greatest value per pixel), with the least-to-greatest span of a busy pixel darker; the
//! label column names its scale's top.

use super::super::rows::Row;
use super::context::Scene;
use super::draw::{DrawItem, colors};

/// The counter tracks in view.
pub fn draw(scene: &Scene, items: &mut Vec<DrawItem>) {
    let model = scene.model;
    let window = scene.scale.window();
    let tick_px = scene.scale.px_to_span(1.0);
    for row in scene.visible_rows() {
        let Some(&Row::Counter(c)) = scene.rows.rows.get(row) else {
            continue;
        };
        let Some(track) = model.counters.get(c) else {
            continue;
        };
        let top = scene.g.row_top(row) + 4.0;
        let bottom = scene.g.row_top(row) + scene.g.row_height - 3.0;
        let (lo, hi) = (track.range.0.min(0.0), track.range.1.max(0.0));
        let span = if hi > lo { hi - lo } else { 1.0 };
        let y_of = |v: f64| bottom - (v - lo) / span * (bottom - top);
        let zero = y_of(0.0);
        for (a, b, least, most) in track.columns(window, tick_px) {
            let (x1, x2) = (scene.x_at(a), scene.x_at(b));
            let w = (x2 - x1).max(1.0);
            let y = y_of(most);
            items.push(DrawItem::Rect {
                x: x1,
                y: y.min(zero),
                w,
                h: (zero - y).abs().max(1.0),
                color: colors::COUNTER,
            });
            if most > least {
                let y_least = y_of(least);
                items.push(DrawItem::Rect {
                    x: x1,
                    y,
                    w,
                    h: (y_least - y).max(1.0),
                    color: colors::COUNTER_RANGE,
                });
            }
        }
    }
}
