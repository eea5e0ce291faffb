//! Messages: single messages as arrows from send to arrival, bundles (messages too dense to
//! draw one by one) as bands labelled with their count and bytes where a label fits without
//! covering another. A message that arrives
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

/// Where labels went this frame, so that no two overprint: boxes (left, top, right, bottom).
#[derive(Default)]
struct Placed(Vec<(f64, f64, f64, f64)>);

impl Placed {
    /// Takes the box of a label of `text` centred at `(x, y)` if it is inside `(left, right)`
    /// and clear of every label placed before; its left edge when it is.
    fn take(&mut self, text: &str, (x, y): (f64, f64), (left, right): (f64, f64)) -> Option<f64> {
        let w = super::super::axis::label_px(text);
        let b = (x - w / 2.0, y - 8.0, x + w / 2.0, y + 8.0);
        let inside = b.0 >= left && b.2 <= right;
        let clear = self
            .0
            .iter()
            .all(|p| b.2 + 4.0 <= p.0 || p.2 + 4.0 <= b.0 || b.3 <= p.1 || p.3 <= b.1);
        (inside && clear).then(|| {
            self.0.push(b);
            b.0
        })
    }
}

/// The messages and bundles of every viewport answer.
pub fn draw(scene: &Scene, items: &mut Vec<DrawItem>) {
    let mut placed = Placed::default();
    let plot = (scene.g.label_width, scene.g.width);
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
            // Label a bundle with its count and bytes when the label has room: inside the
            // plot and over no other label (the band's pop-up has the numbers either way).
            let mid = ((x1a + x1b + x2a + x2b) / 4.0, (y1 + y2) / 2.0);
            if x1b - x1a >= 40.0 || (y2 - y1).abs() >= 2.0 * scene.g.row_height {
                let text = format!("{} msgs, {}", b.count[i], bytes_text(b.bytes[i]));
                if let Some(x) = placed.take(&text, mid, plot) {
                    items.push(DrawItem::Text {
                        x,
                        y: mid.1,
                        text,
                        color: colors::TEXT,
                        align_right: false,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Placed;

    #[test]
    fn labels_never_overprint_or_leave_the_plot() {
        let mut placed = Placed::default();
        let plot = (140.0, 1000.0);
        assert!(
            placed
                .take("20001 msgs, 1.2 MB", (500.0, 100.0), plot)
                .is_some()
        );
        // The same place, and a place overlapping it: dropped.
        assert!(
            placed
                .take("20001 msgs, 1.2 MB", (500.0, 100.0), plot)
                .is_none()
        );
        assert!(placed.take("9 msgs, 72 B", (540.0, 106.0), plot).is_none());
        // A row below, or far to the right: placed.
        assert!(placed.take("9 msgs, 72 B", (540.0, 130.0), plot).is_some());
        assert!(placed.take("9 msgs, 72 B", (800.0, 100.0), plot).is_some());
        // Cut by the plot's edges: dropped.
        assert!(placed.take("9 msgs, 72 B", (990.0, 300.0), plot).is_none());
        assert!(placed.take("9 msgs, 72 B", (150.0, 300.0), plot).is_none());
    }
}
