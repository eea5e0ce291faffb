//! Event icons (the founding thesis's marks for sends, receive calls, arrivals and probes),
//! drawn when a row's events have room for them; and the event a click finds.

use shared::model::EventKind;
use shared::model::time::Time;

use super::super::rows::Row;
use super::context::Scene;
use super::draw::{DrawItem, Icon, colors};

/// Icons are drawn when a row's visible events are at least this many pixels apart on average.
pub const ICON_SPACING_PX: f64 = 10.0;

/// The icon of an event kind, if it has one.
pub fn icon_of(kind: EventKind) -> Option<Icon> {
    match kind {
        EventKind::MsgSend => Some(Icon::Send),
        EventKind::RecvCall | EventKind::RecvPost => Some(Icon::ReceiveCall),
        EventKind::MsgArr => Some(Icon::Arrival),
        EventKind::Probe => Some(Icon::Probe),
        _ => None,
    }
}

/// The icons of the process rows in view whose visible events have room for them; a send or
/// arrival without a partner is drawn in the fault colour. With `kept` (the workspace's event
/// filter), only the events it keeps have icons.
pub fn draw(scene: &Scene, kept: Option<&[bool]>, items: &mut Vec<DrawItem>) {
    let model = scene.model;
    let (window_start, window_end) = scene.scale.window();
    let (from, to) = (
        window_start.max(0.0).floor() as u64,
        window_end.max(0.0).ceil() as u64,
    );
    for row in scene.visible_rows() {
        let Some(&Row::Process(p)) = scene.rows.rows.get(row) else {
            continue;
        };
        let (lo, hi) = (model.row_events[p], model.row_events[p + 1]);
        let times = &model.event_time[lo..hi];
        let a = lo + times.partition_point(|&t| t < from);
        let b = lo + times.partition_point(|&t| t <= to);
        if (b - a) as f64 * ICON_SPACING_PX > scene.g.plot_width() {
            continue;
        }
        let y = scene.g.row_top(row) + scene.g.row_height / 2.0;
        for k in a..b {
            let Some(icon) = icon_of(model.event_kind[k]) else {
                continue;
            };
            if kept.is_some_and(|kept| !kept.get(k).copied().unwrap_or(true)) {
                continue;
            }
            items.push(DrawItem::Icon {
                x: scene.x_of(model.event_time[k]),
                y,
                icon,
                color: if model.unmatched[k] {
                    colors::FAULT
                } else {
                    colors::ICON
                },
            });
        }
    }
}

/// Where event `event` is drawn (canvas x and its row's middle), if its process is shown.
pub fn position(scene: &Scene, event: usize) -> Option<(f64, f64)> {
    let process = scene.model.row_of_event(event)?;
    let time = *scene.model.event_time.get(event)?;
    Some((scene.x_of(time), scene.row_center(process)?))
}

/// The event with an icon of process `process` nearest to canvas x, within a few pixels.
pub fn hit(scene: &Scene, process: usize, x: f64) -> Option<usize> {
    const TOLERANCE_PX: f64 = 5.0;
    // Crowded rows are not searched further than this many events each way: zoom in first.
    const MAX_STEPS: usize = 64;
    let model = scene.model;
    let (lo, hi) = (
        *model.row_events.get(process)?,
        *model.row_events.get(process + 1)?,
    );
    let times = model.event_time.get(lo..hi)?;
    let tick = scene.tick_at(x).max(0.0);
    let at = lo + times.partition_point(|&t| (t as f64) < tick);
    let distance = |k: usize| {
        (scene.g.label_width + scene.scale.time_to_px(Time(model.event_time[k])) - x).abs()
    };
    let has_icon = |k: usize| icon_of(model.event_kind[k]).is_some();
    let right = (at..hi)
        .take(MAX_STEPS)
        .take_while(|&k| distance(k) <= TOLERANCE_PX)
        .filter(|&k| has_icon(k));
    let left = (lo..at)
        .rev()
        .take(MAX_STEPS)
        .take_while(|&k| distance(k) <= TOLERANCE_PX)
        .filter(|&k| has_icon(k));
    right
        .chain(left)
        .min_by(|&a, &b| distance(a).total_cmp(&distance(b)))
}
