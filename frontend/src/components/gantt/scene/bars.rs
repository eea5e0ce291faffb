//! The state bars: computing and blocked runs of pixels from the viewport answers (a dark
//! mark on pixels that summarise several spans), strips for a folded node's processes; and
//! what a click on a bar finds.

use shared::graph::states::State;
use shared::view::viewport::letter_state;

use super::context::Scene;
use super::draw::{DrawItem, colors};

/// The height of one level of region bars.
pub const REGION_PX: f64 = 3.0;

/// The box of a state bar in a row (or strip) at `top` of `height`: computing bars fill most of
/// it, blocked bars half as high in their middle, and region bars (when the trace has
/// `depths` levels of them) take the bottom of a row.
fn state_box(state: State, top: f64, height: f64, strip: bool, depths: usize) -> (f64, f64) {
    if strip {
        // A pixel between strips keeps the processes apart.
        let gap = if height >= 3.0 { 1.0 } else { 0.0 };
        return (top, (height - gap).max(1.0));
    }
    let regions = if depths == 0 {
        0.0
    } else {
        REGION_PX * depths as f64 + 1.0
    };
    let inset = if depths == 0 { 6.0 } else { 4.0 };
    let computing = (height - regions - 2.0 * inset).max(2.0);
    match state {
        State::Computing => (top + inset, computing),
        // Ready to run: nearly as tall as computing, as it would be running.
        State::Ready => (top + inset + computing / 8.0, computing * 3.0 / 4.0),
        State::Blocked | State::Timer => (top + inset + computing / 4.0, computing / 2.0),
        // Waiting for branches, or stopped: a thin line, the row's work is elsewhere.
        State::Children | State::Stopped => (
            top + inset + computing * 3.0 / 8.0,
            (computing / 4.0).max(1.0),
        ),
    }
}

/// A state's colour.
pub fn state_color(state: State) -> &'static str {
    match state {
        State::Computing => colors::COMPUTING,
        State::Blocked => colors::BLOCKED,
        State::Ready => colors::READY,
        State::Timer => colors::TIMER,
        State::Children => colors::CHILDREN,
        State::Stopped => colors::STOPPED,
    }
}

/// The state bars of every drawn process.
pub fn draw(scene: &Scene, items: &mut Vec<DrawItem>) {
    let depths = scene.model.regions.depths;
    for (_, view) in &scene.answers {
        let x_of = scene.viewport_x(view);
        let px = x_of(1) - x_of(0);
        for row in &view.rows {
            let Some((top, height)) = scene.place(row.process as usize) else {
                continue;
            };
            // A strip of a folded group is filled whatever the state; a row insets its bars.
            let strip = height < scene.g.row_height;
            let mut at = 0u32;
            for (letter, &width) in row.state.chars().zip(&row.width) {
                let (x, w) = (x_of(i64::from(at)), f64::from(width) * px);
                at += width;
                let Some((Some(state), more)) = letter_state(letter) else {
                    continue;
                };
                let (y, h) = state_box(state, top, height, strip, depths);
                let color = state_color(state);
                items.push(DrawItem::Rect {
                    x,
                    y,
                    w: w.max(1.0),
                    h,
                    color,
                });
                if more && !strip {
                    items.push(DrawItem::Rect {
                        x,
                        y: top + 3.0,
                        w: w.max(1.0),
                        h: 2.0,
                        color: colors::MORE,
                    });
                }
            }
        }
    }
}

/// The state span `(start, end, state)` of process `process` under canvas x, if any.
pub fn hit(scene: &Scene, process: usize, x: f64) -> Option<(u64, u64, State)> {
    let tick = scene.time_at(x)?;
    scene.model.index.span_at(process as u32, tick)
}
