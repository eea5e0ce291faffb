//! Messages: single messages as arrows from send to arrival, bundles (messages too dense to
//! draw one by one) as bands labelled with their count and bytes. A message that arrives
//! before it is sent is flagged; one inside a folded node (from its row to itself) is left
//! out, as is one whose other end is not shown.

use super::context::Scene;
use super::draw::{DrawItem, bytes_text, colors};

/// Whether a message from `from` to `to` is drawn: both ends shown, not within one folded row.
fn drawn(scene: &Scene, from: u32, to: u32) -> Option<(f64, f64)> {
    let (a, b) = (
        scene.rows.row_of(from as usize)?,
        scene.rows.row_of(to as usize)?,
    );
    if from != to && a == b {
        return None;
    }
    Some((
        scene.row_center(from as usize)?,
        scene.row_center(to as usize)?,
    ))
}

/// The messages and bundles of every viewport answer.
pub fn draw(scene: &Scene, items: &mut Vec<DrawItem>) {
    for (k, (_, view)) in scene.answers.iter().enumerate() {
        let x_of = scene.viewport_x(view);
        let m = &view.messages;
        for i in 0..m.from.len() {
            if scene.drawn_before(k, m.from[i], m.to[i]) {
                continue;
            }
            let Some((y1, y2)) = drawn(scene, m.from[i], m.to[i]) else {
                continue;
            };
            // A message that arrives before it is sent breaks the clock condition: flag it.
            let color = if m.arrival_px[i] < m.send_px[i] {
                colors::FAULT
            } else {
                colors::MESSAGE
            };
            items.push(DrawItem::Arrow {
                x1: x_of(m.send_px[i]),
                y1,
                x2: x_of(m.arrival_px[i]),
                y2,
                color,
            });
        }
        let b = &view.bundles;
        for i in 0..b.len() {
            if scene.drawn_before(k, b.from[i], b.to[i]) {
                continue;
            }
            let Some((y1, y2)) = drawn(scene, b.from[i], b.to[i]) else {
                continue;
            };
            let (x1a, x1b) = (x_of(b.first_send_px[i]), x_of(b.last_send_px[i] + 1));
            let (x2a, x2b) = (x_of(b.first_arrival_px[i]), x_of(b.last_arrival_px[i] + 1));
            items.push(DrawItem::Band {
                x1a,
                x1b,
                y1,
                x2a,
                x2b,
                y2,
                color: colors::BUNDLE,
            });
            // Label a bundle when it has room: its count and bytes, never silently dropped.
            let mid = ((x1a + x1b + x2a + x2b) / 4.0, (y1 + y2) / 2.0);
            if x1b - x1a >= 40.0 || (y2 - y1).abs() >= 2.0 * scene.g.row_height {
                items.push(DrawItem::Text {
                    x: mid.0,
                    y: mid.1,
                    text: format!("{} msgs, {}", b.count[i], bytes_text(b.bytes[i])),
                    color: colors::TEXT,
                    align_right: false,
                });
            }
        }
    }
}
