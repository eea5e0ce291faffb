//! The thin painter: replays a display list on a 2D canvas context. It decides nothing.

use web_sys::CanvasRenderingContext2d;

use super::scene::draw::{DrawItem, Icon};

/// The fill colour last set on the context, so that a run of same-coloured rectangles sets it
/// once (each call into the canvas costs a crossing out of wasm).
struct Fill<'a> {
    ctx: &'a CanvasRenderingContext2d,
    current: &'a str,
}

impl<'a> Fill<'a> {
    fn set(&mut self, color: &'a str) {
        if self.current != color {
            self.ctx.set_fill_style_str(color);
            self.current = color;
        }
    }

    /// Someone else set the fill colour.
    fn forget(&mut self) {
        self.current = "";
    }
}

/// Paints `items` on `ctx`, whose transform already maps CSS pixels to device pixels.
pub fn paint(ctx: &CanvasRenderingContext2d, width: f64, height: f64, items: &[DrawItem]) {
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, width, height);
    ctx.set_font("12px system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    let mut fill = Fill {
        ctx,
        current: "#ffffff",
    };
    let mut clipped = false;
    let mut k = 0;
    while k < items.len() {
        let item = &items[k];
        k += 1;
        match item {
            DrawItem::Rect { x, y, w, h, color } => {
                fill.set(color);
                ctx.fill_rect(*x, *y, *w, *h);
            }
            DrawItem::Line { color, width, .. } => {
                // A run of lines of one colour and width is one path.
                ctx.set_stroke_style_str(color);
                ctx.set_line_width(*width);
                ctx.begin_path();
                let mut line = item;
                loop {
                    if let DrawItem::Line { x1, y1, x2, y2, .. } = line {
                        ctx.move_to(*x1, *y1);
                        ctx.line_to(*x2, *y2);
                    }
                    match items.get(k) {
                        Some(
                            next @ DrawItem::Line {
                                color: c, width: w, ..
                            },
                        ) if c == color && w == width => {
                            line = next;
                            k += 1;
                        }
                        _ => break,
                    }
                }
                ctx.stroke();
            }
            DrawItem::Arrow {
                x1,
                y1,
                x2,
                y2,
                color,
            } => {
                fill.forget();
                arrow(ctx, (*x1, *y1), (*x2, *y2), color);
            }
            DrawItem::Band {
                x1a,
                x1b,
                y1,
                x2a,
                x2b,
                y2,
                color,
            } => {
                fill.set(color);
                ctx.begin_path();
                ctx.move_to(*x1a, *y1);
                ctx.line_to(*x1b, *y1);
                ctx.line_to(*x2b, *y2);
                ctx.line_to(*x2a, *y2);
                ctx.close_path();
                ctx.fill();
            }
            DrawItem::Icon { x, y, icon, color } => {
                fill.forget();
                event_icon(ctx, (*x, *y), *icon, color);
            }
            DrawItem::Text {
                x,
                y,
                text,
                color,
                align_right,
            } => {
                fill.set(color);
                ctx.set_text_align(if *align_right { "right" } else { "left" });
                let _ = ctx.fill_text(text, *x, *y);
            }
            DrawItem::Ring {
                x,
                y,
                r,
                color,
                width,
            } => {
                ctx.set_stroke_style_str(color);
                ctx.set_line_width(*width);
                ctx.begin_path();
                let _ = ctx.arc(*x, *y, *r, 0.0, std::f64::consts::TAU);
                ctx.stroke();
            }
            DrawItem::Disc { x, y, r, color } => {
                fill.set(color);
                ctx.begin_path();
                let _ = ctx.arc(*x, *y, *r, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
            DrawItem::Clip(rect) => {
                // Restoring the context restores its fill colour too.
                fill.forget();
                if clipped {
                    ctx.restore();
                    clipped = false;
                }
                if let Some((x, y, w, h)) = rect {
                    ctx.save();
                    ctx.begin_path();
                    ctx.rect(*x, *y, *w, *h);
                    ctx.clip();
                    clipped = true;
                }
            }
        }
    }
    if clipped {
        ctx.restore();
    }
}

fn arrow(ctx: &CanvasRenderingContext2d, from: (f64, f64), to: (f64, f64), color: &str) {
    ctx.set_stroke_style_str(color);
    ctx.set_fill_style_str(color);
    ctx.set_line_width(1.5);
    ctx.begin_path();
    ctx.move_to(from.0, from.1);
    ctx.line_to(to.0, to.1);
    ctx.stroke();
    let [tip, left, right] = super::scene::draw::arrow_head(from, to);
    ctx.begin_path();
    ctx.move_to(tip.0, tip.1);
    ctx.line_to(left.0, left.1);
    ctx.line_to(right.0, right.1);
    ctx.close_path();
    ctx.fill();
}

/// The thesis's event icons, 5 px from the centre: sends point left (filled), receive calls
/// point right (open), arrivals point right (filled), probes are a vertical mark.
fn event_icon(ctx: &CanvasRenderingContext2d, (x, y): (f64, f64), icon: Icon, color: &str) {
    const R: f64 = 5.0;
    ctx.set_fill_style_str(color);
    ctx.set_stroke_style_str(color);
    ctx.set_line_width(1.5);
    ctx.begin_path();
    match icon {
        Icon::Send => {
            ctx.move_to(x - R, y);
            ctx.line_to(x + R, y - R);
            ctx.line_to(x + R, y + R);
            ctx.close_path();
            ctx.fill();
        }
        Icon::Arrival | Icon::ReceiveCall => {
            ctx.move_to(x + R, y);
            ctx.line_to(x - R, y - R);
            ctx.line_to(x - R, y + R);
            ctx.close_path();
            if icon == Icon::Arrival {
                ctx.fill();
            } else {
                ctx.set_fill_style_str("#ffffff");
                ctx.fill();
                ctx.stroke();
            }
        }
        Icon::Probe => {
            ctx.move_to(x, y - R - 3.0);
            ctx.line_to(x, y + R + 3.0);
            ctx.stroke();
        }
    }
}
