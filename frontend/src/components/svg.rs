//! A display list as an SVG document: the same items the canvas painter draws, with the same
//! geometry, for exporting what a view shows.

use std::fmt::Write as _;

use super::gantt::scene::draw::{DrawItem, Icon};

/// Text with `&`, `<`, `>` and `"` escaped for XML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn arrow_head(out: &mut String, from: (f64, f64), to: (f64, f64), color: &str) {
    let [tip, left, right] = super::gantt::scene::draw::arrow_head(from, to);
    let _ = write!(
        out,
        r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
        tip.0, tip.1, left.0, left.1, right.0, right.1,
    );
}

fn icon(out: &mut String, (x, y): (f64, f64), icon: Icon, color: &str) {
    const R: f64 = 5.0;
    let _ = match icon {
        Icon::Send => write!(
            out,
            r#"<polygon points="{:.1},{y:.1} {:.1},{:.1} {:.1},{:.1}" fill="{color}"/>"#,
            x - R,
            x + R,
            y - R,
            x + R,
            y + R
        ),
        Icon::Arrival | Icon::ReceiveCall => {
            let fill = if icon == Icon::Arrival {
                color
            } else {
                "#ffffff"
            };
            write!(
                out,
                r#"<polygon points="{:.1},{y:.1} {:.1},{:.1} {:.1},{:.1}" fill="{fill}" stroke="{color}" stroke-width="1.5"/>"#,
                x + R,
                x - R,
                y - R,
                x - R,
                y + R
            )
        }
        Icon::Probe => write!(
            out,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{color}" stroke-width="1.5"/>"#,
            y - R - 3.0,
            y + R + 3.0
        ),
    };
}

/// The SVG document of `items` on a `width` × `height` white page.
pub fn document(items: &[DrawItem], width: f64, height: f64) -> String {
    let mut out = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="system-ui, sans-serif" font-size="12"><rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let mut clip = 0;
    let mut open_group = false;
    for item in items {
        let _ = match item {
            DrawItem::Rect { x, y, w, h, color } => write!(
                out,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{color}"/>"#
            ),
            DrawItem::Line {
                x1,
                y1,
                x2,
                y2,
                color,
                width,
            } => write!(
                out,
                r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{color}" stroke-width="{width}"/>"#
            ),
            DrawItem::Arrow {
                x1,
                y1,
                x2,
                y2,
                color,
            } => {
                let _ = write!(
                    out,
                    r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{color}" stroke-width="1.5"/>"#
                );
                arrow_head(&mut out, (*x1, *y1), (*x2, *y2), color);
                Ok(())
            }
            DrawItem::Text {
                x,
                y,
                text,
                color,
                align_right,
            } => write!(
                out,
                r#"<text x="{x:.1}" y="{y:.1}" fill="{color}" dominant-baseline="middle" text-anchor="{}">{}</text>"#,
                if *align_right { "end" } else { "start" },
                escape(text)
            ),
            DrawItem::Band {
                x1a,
                x1b,
                y1,
                x2a,
                x2b,
                y2,
                color,
            } => write!(
                out,
                r#"<polygon points="{x1a:.1},{y1:.1} {x1b:.1},{y1:.1} {x2b:.1},{y2:.1} {x2a:.1},{y2:.1}" fill="{color}"/>"#
            ),
            DrawItem::Icon {
                x,
                y,
                icon: i,
                color,
            } => {
                icon(&mut out, (*x, *y), *i, color);
                Ok(())
            }
            DrawItem::Ring {
                x,
                y,
                r,
                color,
                width,
            } => write!(
                out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="none" stroke="{color}" stroke-width="{width}"/>"#
            ),
            DrawItem::Disc { x, y, r, color } => write!(
                out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{color}"/>"#
            ),
            DrawItem::Clip(rect) => {
                if open_group {
                    out.push_str("</g>");
                    open_group = false;
                }
                if let Some((x, y, w, h)) = rect {
                    clip += 1;
                    let _ = write!(
                        out,
                        r#"<clipPath id="c{clip}"><rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}"/></clipPath><g clip-path="url(#c{clip})">"#
                    );
                    open_group = true;
                }
                Ok(())
            }
        };
    }
    if open_group {
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_becomes_an_element_and_text_is_escaped() {
        let items = vec![
            DrawItem::Rect {
                x: 1.0,
                y: 2.0,
                w: 3.0,
                h: 4.0,
                color: "#112233",
            },
            DrawItem::Arrow {
                x1: 0.0,
                y1: 0.0,
                x2: 10.0,
                y2: 0.0,
                color: "#1f3a93",
            },
            DrawItem::Text {
                x: 5.0,
                y: 5.0,
                text: "a < b & c".to_owned(),
                color: "#000000",
                align_right: false,
            },
            DrawItem::Icon {
                x: 20.0,
                y: 20.0,
                icon: Icon::Send,
                color: "#000000",
            },
            DrawItem::Clip(Some((0.0, 0.0, 50.0, 50.0))),
            DrawItem::Ring {
                x: 1.0,
                y: 1.0,
                r: 3.0,
                color: "#ff0000",
                width: 2.0,
            },
        ];
        let svg = document(&items, 100.0, 60.0);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\""));
        assert!(svg.ends_with("</g></svg>"));
        assert!(
            svg.contains(
                "<rect x=\"1.0\" y=\"2.0\" width=\"3.0\" height=\"4.0\" fill=\"#112233\"/>"
            )
        );
        assert!(svg.contains("a &lt; b &amp; c"));
        // The arrow is a line and a head; the icon a polygon; the ring a circle.
        assert_eq!(svg.matches("<polygon").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 1);
        assert_eq!(svg.matches("clip-path=\"url(#c1)\"").count(), 1);
    }
}
