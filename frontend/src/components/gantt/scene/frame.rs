//! The chart's frame: row backgrounds and grid lines under the bars, the label column and
//! the time axis over them.

use super::super::axis;
use super::super::counters::value_text;
use super::super::rows::Row;
use super::context::Scene;
use super::draw::{DrawItem, colors};

/// The node headers' backgrounds and the line under each row in view.
pub fn grid(scene: &Scene, items: &mut Vec<DrawItem>) {
    let g = scene.g;
    for row in scene.visible_rows() {
        if let Some(Row::Group(_)) = scene.rows.rows.get(row) {
            items.push(DrawItem::Rect {
                x: g.label_width,
                y: g.row_top(row),
                w: g.plot_width(),
                h: g.row_height,
                color: colors::GROUP,
            });
        }
        let y = g.row_top(row) + g.row_height;
        items.push(DrawItem::Line {
            x1: g.label_width,
            y1: y,
            x2: g.width,
            y2: y,
            color: colors::GRID,
            width: 1.0,
        });
    }
}

/// The label column: a process's name (with its node, when nodes are not grouped), or a
/// node's header with its fold mark and size.
pub fn labels(scene: &Scene, items: &mut Vec<DrawItem>) {
    let (g, model, rows) = (scene.g, scene.model, scene.rows);
    let plot = scene.plot();
    items.push(DrawItem::Rect {
        x: 0.0,
        y: g.axis_height,
        w: g.label_width,
        h: plot.3,
        color: colors::PANEL,
    });
    items.push(DrawItem::Clip(Some((
        0.0,
        g.axis_height,
        g.label_width,
        plot.3,
    ))));
    for row in scene.visible_rows() {
        let text = match rows.rows.get(row) {
            Some(&Row::Process(p)) if model.groups.is_empty() => model.rows[p].clone(),
            Some(&Row::Process(p)) => format!("    {}", model.names[p]),
            Some(&Row::Counter(c)) => match model.counters.get(c) {
                Some(track) => format!("      ↳ {}", track.label()),
                None => continue,
            },
            Some(&Row::Group(gi)) => {
                let group = &model.groups[gi];
                let folded = rows.collapsed.get(gi) == Some(&true);
                // A folded header stands for its members; an open one heads the rows below it.
                let n = if folded {
                    rows.processes(row).len()
                } else {
                    rows.rows[row + 1..]
                        .iter()
                        .take_while(|r| matches!(r, Row::Process(p) if (group.first..group.end).contains(p)))
                        .count()
                };
                let mark = if folded { '▸' } else { '▾' };
                format!("{mark} {} ({n})", group.name)
            }
            None => continue,
        };
        items.push(DrawItem::Text {
            x: 8.0,
            y: g.row_top(row) + g.row_height / 2.0,
            text: fit_label(text, g.label_width - 14.0),
            color: colors::TEXT,
            align_right: false,
        });
    }
    items.push(DrawItem::Clip(None));
}

/// A label cut to `width_px` with an ellipsis (the whole label shows on hover).
pub fn fit_label(text: String, width_px: f64) -> String {
    let max = (width_px / axis::CHAR_PX).floor().max(2.0) as usize;
    if text.chars().count() <= max {
        return text;
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// The whole label of row `row`, as the label column writes it before cutting.
pub fn row_label(scene: &Scene, row: usize) -> Option<String> {
    let (model, rows) = (scene.model, scene.rows);
    Some(match rows.rows.get(row)? {
        Row::Process(p) => model.rows.get(*p)?.clone(),
        Row::Counter(c) => {
            let track = model.counters.get(*c)?;
            let process = model.rows.get(track.process)?;
            format!(
                "{} of {process}: up to {}{} (drawn from 0 to that)",
                track.name,
                value_text(track.range.1),
                track.unit
            )
        }
        Row::Group(g) => model.groups.get(*g)?.name.clone(),
    })
}

/// The time axis: steps round in the trace's unit, each label inside the plot.
pub fn axis(scene: &Scene, items: &mut Vec<DrawItem>) {
    let (g, model, scale) = (scene.g, scene.model, scene.scale);
    items.push(DrawItem::Rect {
        x: 0.0,
        y: 0.0,
        w: g.width,
        h: g.axis_height,
        color: colors::PANEL,
    });
    items.push(DrawItem::Line {
        x1: 0.0,
        y1: g.axis_height,
        x2: g.width,
        y2: g.axis_height,
        color: colors::GRID,
        width: 1.0,
    });
    let unit = if model.clock.ticks_per_second.is_some() {
        "time"
    } else {
        "time (ticks)"
    };
    items.push(DrawItem::Text {
        x: 8.0,
        y: g.axis_height / 2.0,
        text: unit.to_owned(),
        color: colors::TEXT,
        align_right: false,
    });
    items.push(DrawItem::Clip(Some((
        g.label_width,
        0.0,
        g.plot_width(),
        g.axis_height,
    ))));
    let ticks = axis::ticks(scale, model.clock);
    for tick in &ticks {
        let x = scene.x_at(tick.tick);
        items.push(DrawItem::Line {
            x1: x,
            y1: g.axis_height - 6.0,
            x2: x,
            y2: g.axis_height,
            color: colors::TEXT,
            width: 1.0,
        });
    }
    for tick in ticks {
        items.push(DrawItem::Text {
            x: g.label_width + tick.label_x,
            y: g.axis_height / 2.0 - 2.0,
            text: tick.label,
            color: colors::TEXT,
            align_right: false,
        });
    }
    items.push(DrawItem::Clip(None));
}
