//! The Gantt chart's layout: a pure function from the trace and the viewport to a display list.
//!
//! Nothing here knows the DOM or the canvas, so the layout is tested natively.
//! Coordinates are CSS pixels with the origin at the canvas's top left.

use shared::Trace;
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::graph::states::State;
use shared::model::EventKind;
use shared::model::time::{Clock, Duration, Time};
use shared::view::viewport::{
    MAX_ROWS, MAX_WIDTH_PX, ViewportIndex, ViewportRequest, letter_state,
};

use super::regions::{RegionBar, RegionBars};
use super::remote::Views;
use super::rows::{Group, Row, Rows, groups_of};
use super::time_scale::{TimeScale, axis_step};

/// Sizes of the chart's parts, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// Canvas width.
    pub width: f64,
    /// Canvas height.
    pub height: f64,
    /// Width of the row-label column on the left.
    pub label_width: f64,
    /// Height of the time axis at the top.
    pub axis_height: f64,
    /// Height of one process row.
    pub row_height: f64,
    /// How far the rows are scrolled up.
    pub scroll_y: f64,
}

impl Geometry {
    /// The default geometry for a canvas of this size.
    pub fn new(width: f64, height: f64) -> Geometry {
        Geometry {
            width,
            height,
            label_width: 140.0,
            axis_height: 30.0,
            row_height: 32.0,
            scroll_y: 0.0,
        }
    }

    /// The width of the plot area right of the labels.
    pub fn plot_width(&self) -> f64 {
        (self.width - self.label_width).max(1.0)
    }

    /// The height all rows need, axis included.
    pub fn content_height(&self, n_rows: usize) -> f64 {
        self.axis_height + self.row_height * n_rows as f64
    }

    /// The top of row `row`.
    pub fn row_top(&self, row: usize) -> f64 {
        self.axis_height + self.row_height * row as f64 - self.scroll_y
    }

    /// The rows `first..=last` at least partly inside the plot, out of `n_rows`.
    pub fn visible_rows(&self, n_rows: usize) -> Option<(usize, usize)> {
        let plot = (self.height - self.axis_height).max(0.0);
        if n_rows == 0 || plot <= 0.0 {
            return None;
        }
        let first = (self.scroll_y / self.row_height).floor().max(0.0) as usize;
        let last = (((self.scroll_y + plot) / self.row_height).ceil() as usize)
            .saturating_sub(1)
            .min(n_rows - 1);
        (first <= last).then_some((first, last))
    }
}

/// Colours of the chart, as CSS colours.
pub mod colors {
    /// Computing bars.
    pub const COMPUTING: &str = "#2e8b57";
    /// Blocked (waiting in a receive) bars.
    pub const BLOCKED: &str = "#e8a33d";
    /// Message arrows.
    pub const MESSAGE: &str = "#1f3a93";
    /// Text.
    pub const TEXT: &str = "#1d2330";
    /// Grid lines and separators.
    pub const GRID: &str = "#d8dce3";
    /// The label column and axis background.
    pub const PANEL: &str = "#f3f5f8";
    /// The "more here" mark on pixels that summarise several spans.
    pub const MORE: &str = "#1d2330";
    /// Bundled messages.
    pub const BUNDLE: &str = "rgba(31, 58, 147, 0.25)";
    /// Events that found no partner, and messages that arrive before they are sent.
    pub const FAULT: &str = "#c2185b";
    /// Event icons.
    pub const ICON: &str = "#1d2330";
    /// The critical path overlay.
    pub const PATH: &str = "#d62728";
    /// A node's header row.
    pub const GROUP: &str = "#eef1f6";
    /// The selected range.
    pub const SELECTION: &str = "rgba(31, 58, 147, 0.12)";
    /// The selected range's edges.
    pub const SELECTION_EDGE: &str = "#1f3a93";
}

/// A range of time and rows chosen with Shift + drag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeSelection {
    /// The first tick (fractional).
    pub start: f64,
    /// The last tick.
    pub end: f64,
    /// The first row.
    pub first_row: usize,
    /// The last row.
    pub last_row: usize,
}

/// One segment of a path overlay (critical path or WCPA): on one process (computation,
/// blocked) or from the sender to the receiver (a message's transit). Rows here are processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathBar {
    /// The row it starts on.
    pub from_row: usize,
    /// The row it ends on.
    pub to_row: usize,
    /// Its first tick.
    pub start: u64,
    /// Its last tick.
    pub end: u64,
    /// Its colour (the path's, or its WCPA phase's).
    pub color: &'static str,
}

/// Colours for names (regions, phases), stable for a name across runs and sessions.
pub const NAME_PALETTE: [&str; 10] = [
    "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#ff7f0e", "#7f7f7f",
    "#1f77b4", "#2ca02c",
];

/// The colour of a name: FNV-1a of its bytes picks from [`NAME_PALETTE`].
pub fn name_color(name: &str) -> &'static str {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    NAME_PALETTE[(hash % NAME_PALETTE.len() as u64) as usize]
}

/// What is drawn over the bars: the selection and a path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlays {
    /// The selected range.
    pub selection: Option<RangeSelection>,
    /// The path's segments, in time order.
    pub path: Vec<PathBar>,
}

/// The row under `y`, if any.
pub fn row_at(g: &Geometry, n_rows: usize, y: f64) -> Option<usize> {
    if y < g.axis_height {
        return None;
    }
    let row = ((y - g.axis_height + g.scroll_y) / g.row_height).floor();
    (row >= 0.0 && (row as usize) < n_rows).then_some(row as usize)
}

/// The path segment under the point `(x, y)` (canvas coordinates), within a few pixels.
pub fn path_hit(
    path: &[PathBar],
    rows: &Rows,
    scale: &TimeScale,
    g: &Geometry,
    x: f64,
    y: f64,
) -> Option<usize> {
    const TOLERANCE_PX: f64 = 4.0;
    let x_of = |t: u64| g.label_width + scale.time_to_px(Time(t));
    let center = |process: usize| g.row_top(rows.row_of(process)) + g.row_height / 2.0;
    path.iter().position(|bar| {
        let (x1, x2) = (x_of(bar.start), x_of(bar.end));
        if bar.from_row == bar.to_row {
            (y - center(bar.from_row)).abs() <= g.row_height / 2.0
                && x >= x1 - TOLERANCE_PX
                && x <= x2 + TOLERANCE_PX
        } else {
            distance_to_segment((x, y), (x1, center(bar.from_row)), (x2, center(bar.to_row)))
                <= TOLERANCE_PX
        }
    })
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

/// One thing to draw.
#[derive(Debug, Clone, PartialEq)]
pub enum DrawItem {
    /// A filled rectangle.
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        color: &'static str,
    },
    /// A straight line.
    Line {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        color: &'static str,
        width: f64,
    },
    /// A line with an arrow head at its end.
    Arrow {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        color: &'static str,
    },
    /// Text whose left edge (or right edge, when `align_right`) is at x, baseline-middle at y.
    Text {
        x: f64,
        y: f64,
        text: String,
        color: &'static str,
        align_right: bool,
    },
    /// Messages bundled together: a band from `[x1a, x1b]` at `y1` to `[x2a, x2b]` at `y2`.
    Band {
        x1a: f64,
        x1b: f64,
        y1: f64,
        x2a: f64,
        x2b: f64,
        y2: f64,
        color: &'static str,
    },
    /// An event's icon centred at `(x, y)`.
    Icon {
        x: f64,
        y: f64,
        icon: Icon,
        color: &'static str,
    },
    /// Restricts the following items to a rectangle (`None` lifts it).
    Clip(Option<(f64, f64, f64, f64)>),
}

/// The event icons of the founding thesis's Gantt charts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Icon {
    /// A send: a filled triangle pointing left.
    Send,
    /// A receive call: an open triangle pointing right.
    ReceiveCall,
    /// A message's arrival: a filled triangle pointing right.
    Arrival,
    /// A user probe: a vertical mark.
    Probe,
}

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

/// The partner of an event that has none.
pub const NO_PARTNER: u32 = u32::MAX;

/// The event with an icon on row `row` nearest to `x` (canvas coordinates), within a few pixels.
pub fn event_hit(
    model: &GanttModel,
    scale: &TimeScale,
    g: &Geometry,
    row: usize,
    x: f64,
) -> Option<usize> {
    const TOLERANCE_PX: f64 = 5.0;
    // Crowded rows are not searched further than this many events each way: zoom in first.
    const MAX_STEPS: usize = 64;
    let (lo, hi) = (*model.row_events.get(row)?, *model.row_events.get(row + 1)?);
    let times = model.event_time.get(lo..hi)?;
    let tick = scale.px_to_tick(x - g.label_width).max(0.0);
    let at = lo + times.partition_point(|&t| (t as f64) < tick);
    let distance =
        |k: usize| (g.label_width + scale.time_to_px(Time(model.event_time[k])) - x).abs();
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

/// Icons are drawn when a row's visible events are at least this many pixels apart on average.
pub const ICON_SPACING_PX: f64 = 10.0;

/// What the chart shows, computed once per trace: row labels and the level-of-detail index
/// (`shared::view::viewport`, the same code the server's viewport API runs), so a frame costs the
/// pixels it draws, not the events in the trace.
#[derive(Debug, Clone)]
pub struct GanttModel {
    /// One label per process: its name and node.
    pub rows: Vec<String>,
    /// Each process's name.
    pub names: Vec<String>,
    /// The processes grouped by node (none when each node holds one process).
    pub groups: Vec<Group>,
    /// Each process's regions, by nesting depth.
    pub regions: RegionBars,
    /// Each region's name.
    pub region_names: Vec<String>,
    /// State spans and messages, ready for any window.
    pub index: ViewportIndex,
    /// Events of row `r` are `row_events[r]..row_events[r + 1]`, in time order.
    pub row_events: Vec<usize>,
    /// Each event's time.
    pub event_time: Vec<u64>,
    /// Each event's kind.
    pub event_kind: Vec<EventKind>,
    /// Whether each event is a send or arrival that found no partner.
    pub unmatched: Vec<bool>,
    /// Each message event's partner (a send's arrival, an arrival's send), or [`NO_PARTNER`].
    pub partner: Vec<u32>,
    /// The first and last event times.
    pub bounds: (Time, Time),
    /// The trace's clock, for axis labels.
    pub clock: Clock,
}

impl GanttModel {
    /// Builds the chart's model of a trace.
    pub fn new(trace: &Trace) -> GanttModel {
        let rows = trace
            .processes
            .iter()
            .map(|p| match trace.nodes.get(p.node.index()) {
                Some(node) => format!("{} @ {}", p.name, node.name),
                None => p.name.clone(),
            })
            .collect();
        let pairing = pair_messages(trace);
        let graph = ExecutionGraph::new(trace, &pairing);
        let e = &trace.events;
        let mut row_events = Vec::with_capacity(trace.processes.len() + 1);
        for p in trace.process_ids() {
            row_events.push(trace.process_events(p).start);
        }
        row_events.push(e.len());
        let mut unmatched = vec![false; e.len()];
        for v in pairing
            .unmatched_sends
            .iter()
            .chain(&pairing.unmatched_arrivals)
        {
            if let Some(u) = unmatched.get_mut(v.index()) {
                *u = true;
            }
        }
        let mut partner = vec![NO_PARTNER; e.len()];
        for m in &pairing.messages {
            let (send, arrival) = (m.send.index(), m.arrival.index());
            if let (Some(a), Some(b)) = (u32::try_from(arrival).ok(), u32::try_from(send).ok()) {
                partner[send] = a;
                partner[arrival] = b;
            }
        }
        GanttModel {
            rows,
            names: trace.processes.iter().map(|p| p.name.clone()).collect(),
            groups: groups_of(trace),
            regions: RegionBars::new(trace),
            region_names: trace.regions.iter().map(|r| r.name.clone()).collect(),
            index: ViewportIndex::new(trace, &pairing, &graph),
            row_events,
            event_time: e.time().iter().map(|t| t.0).collect(),
            event_kind: e.kind().to_vec(),
            unmatched,
            partner,
            bounds: trace.time_bounds().unwrap_or_default(),
            clock: trace.clock,
        }
    }

    /// The partner of message event `event` (a send's arrival, an arrival's send).
    pub fn partner_of(&self, event: usize) -> Option<usize> {
        self.partner
            .get(event)
            .filter(|&&p| p != NO_PARTNER)
            .map(|&p| p as usize)
    }

    /// The blocked span a receive call starts or an arrival ends, if any.
    pub fn blocked_around(&self, event: usize) -> Option<(u64, u64)> {
        let row = u32::try_from(self.row_of_event(event)?).ok()?;
        let time = *self.event_time.get(event)?;
        match self.event_kind.get(event)? {
            EventKind::RecvCall | EventKind::RecvPost => match self.index.span_at(row, time)? {
                (start, end, State::Blocked) if start == time => Some((start, end)),
                _ => None,
            },
            EventKind::MsgArr => match self.index.span_at(row, time.checked_sub(1)?)? {
                (start, end, State::Blocked) if end == time => Some((start, end)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The row (process) of event `event`.
    pub fn row_of_event(&self, event: usize) -> Option<usize> {
        let row = self.row_events.partition_point(|&start| start <= event);
        (row >= 1 && event < self.event_time.len()).then(|| row - 1)
    }

    /// Every process in its own row.
    pub fn expanded(&self) -> Rows {
        Rows::expanded(self.rows.len(), &self.groups)
    }

    /// A scale that shows the whole trace across the plot.
    pub fn fit(&self, geometry: &Geometry) -> TimeScale {
        TimeScale::fit(self.bounds.0, self.bounds.1, geometry.plot_width())
    }
}

/// Lays out the chart: axis, row labels, state bars and message arrows inside the viewport.
pub fn layout(
    model: &GanttModel,
    rows: &Rows,
    views: &dyn Views,
    scale: &TimeScale,
    g: &Geometry,
    overlays: &Overlays,
) -> Vec<DrawItem> {
    let mut items = Vec::new();
    let plot_left = g.label_width;
    let plot = (
        plot_left,
        g.axis_height,
        g.plot_width(),
        (g.height - g.axis_height).max(0.0),
    );
    let x_of = |t: Time| plot_left + scale.time_to_px(t);
    let visible = g.visible_rows(rows.n_rows());
    let visible_range: Vec<usize> =
        visible.map_or_else(Vec::new, |(first, last)| (first..=last).collect());

    items.push(DrawItem::Clip(Some(plot)));
    for &row in &visible_range {
        if let Some(Row::Group(_)) = rows.rows.get(row) {
            items.push(DrawItem::Rect {
                x: plot_left,
                y: g.row_top(row),
                w: g.plot_width(),
                h: g.row_height,
                color: colors::GROUP,
            });
        }
        let y = g.row_top(row) + g.row_height;
        items.push(DrawItem::Line {
            x1: plot_left,
            y1: y,
            x2: g.width,
            y2: y,
            color: colors::GRID,
            width: 1.0,
        });
    }
    let (window_start, window_end) = scale.window();
    if let Some((first, last)) = visible {
        let places = Places::new(model, rows, g, (first, last));
        bars_and_arrows(model, views, rows, &places, scale, g, &mut items);
        region_bars(model, rows, scale, g, (first, last), &mut items);
        icons(model, rows, scale, g, (first, last), &mut items);
    }
    let x_at = |t: u64| plot_left + scale.time_to_px(Time(t));
    let center = |process: usize| g.row_top(rows.row_of(process)) + g.row_height / 2.0;
    for bar in &overlays.path {
        if (bar.end as f64) < window_start || (bar.start as f64) > window_end {
            continue;
        }
        if bar.from_row == bar.to_row {
            items.push(DrawItem::Rect {
                x: x_at(bar.start),
                y: center(bar.from_row) - 2.5,
                w: (x_at(bar.end) - x_at(bar.start)).max(2.0),
                h: 5.0,
                color: bar.color,
            });
        } else {
            items.push(DrawItem::Line {
                x1: x_at(bar.start),
                y1: center(bar.from_row),
                x2: x_at(bar.end),
                y2: center(bar.to_row),
                color: bar.color,
                width: 3.0,
            });
        }
    }
    if let Some(sel) = overlays.selection {
        let (x1, x2) = (
            plot_left + scale.tick_to_px(sel.start),
            plot_left + scale.tick_to_px(sel.end),
        );
        let (y1, y2) = (
            g.row_top(sel.first_row),
            g.row_top(sel.last_row) + g.row_height,
        );
        items.push(DrawItem::Rect {
            x: x1,
            y: y1,
            w: (x2 - x1).max(1.0),
            h: y2 - y1,
            color: colors::SELECTION,
        });
        for x in [x1, x2] {
            items.push(DrawItem::Line {
                x1: x,
                y1,
                x2: x,
                y2,
                color: colors::SELECTION_EDGE,
                width: 1.0,
            });
        }
    }
    items.push(DrawItem::Clip(None));

    // The label column.
    items.push(DrawItem::Rect {
        x: 0.0,
        y: g.axis_height,
        w: plot_left,
        h: plot.3,
        color: colors::PANEL,
    });
    items.push(DrawItem::Clip(Some((
        0.0,
        g.axis_height,
        plot_left,
        plot.3,
    ))));
    for row in visible_range {
        let y = g.row_top(row) + g.row_height / 2.0;
        let text = match rows.rows.get(row) {
            Some(&Row::Process(p)) if model.groups.is_empty() => model.rows[p].clone(),
            Some(&Row::Process(p)) => format!("    {}", model.names[p]),
            Some(&Row::Group(gi)) => {
                let group = &model.groups[gi];
                let (mark, n) = (
                    if rows.collapsed.get(gi) == Some(&true) {
                        '▸'
                    } else {
                        '▾'
                    },
                    group.len(),
                );
                format!("{mark} {} ({n})", group.name)
            }
            None => continue,
        };
        items.push(DrawItem::Text {
            x: 8.0,
            y,
            text,
            color: colors::TEXT,
            align_right: false,
        });
    }
    items.push(DrawItem::Clip(None));

    // The time axis.
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
        ""
    } else {
        "ticks"
    };
    items.push(DrawItem::Text {
        x: 8.0,
        y: g.axis_height / 2.0,
        text: format!("time {unit}"),
        color: colors::TEXT,
        align_right: false,
    });
    items.push(DrawItem::Clip(Some((
        plot_left,
        0.0,
        g.plot_width(),
        g.axis_height,
    ))));
    let step = axis_step(scale, 90.0);
    let first = (window_start.max(0.0) / step as f64).ceil() as u64;
    let mut tick = first.saturating_mul(step);
    while (tick as f64) <= window_end {
        let x = x_of(Time(tick));
        items.push(DrawItem::Line {
            x1: x,
            y1: g.axis_height - 6.0,
            x2: x,
            y2: g.axis_height,
            color: colors::TEXT,
            width: 1.0,
        });
        let text = match model.clock.ticks_per_second {
            Some(_) => model.clock.format_duration(Duration(tick)),
            None => tick.to_string(),
        };
        items.push(DrawItem::Text {
            x: x + 3.0,
            y: g.axis_height / 2.0 - 2.0,
            text,
            color: colors::TEXT,
            align_right: false,
        });
        let Some(next) = tick.checked_add(step) else {
            break;
        };
        tick = next;
    }
    items.push(DrawItem::Clip(None));
    items
}

/// The state bars and message arrows of rows `first..=last`, from one viewport query at the
/// plot's resolution: runs of pixels as bars (a dark mark on pixels that summarise several
/// spans), single messages as arrows, bundles as bands labelled with their count.
fn bars_and_arrows(
    model: &GanttModel,
    views: &dyn Views,
    rows: &Rows,
    places: &Places,
    scale: &TimeScale,
    g: &Geometry,
    items: &mut Vec<DrawItem>,
) {
    for (k, &(first, last)) in places.chunks.iter().enumerate() {
        // A message between two chunks is answered by both: draw it with the first.
        let earlier = &places.chunks[..k];
        let drawn_before = |p: u32| {
            earlier
                .iter()
                .any(|&(a, b)| p as usize >= a && p as usize <= b)
        };
        chunk(
            model,
            views,
            rows,
            places,
            scale,
            g,
            (first, last),
            &drawn_before,
            items,
        );
    }
}

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
        State::Blocked => (top + inset + computing / 4.0, computing / 2.0),
    }
}

/// The nested region bars of the process rows `first..=last`, in their regions' colours, at
/// the bottom of each row (outermost first).
fn region_bars(
    model: &GanttModel,
    rows: &Rows,
    scale: &TimeScale,
    g: &Geometry,
    (first, last): (usize, usize),
    items: &mut Vec<DrawItem>,
) {
    let depths = model.regions.depths;
    if depths == 0 {
        return;
    }
    let window = scale.window();
    let x_of = |t: u64| g.label_width + scale.time_to_px(Time(t));
    for row in first..=last {
        let Some(&Row::Process(p)) = rows.rows.get(row) else {
            continue;
        };
        let bottom = g.row_top(row) + g.row_height - 1.0;
        for depth in 0..depths {
            let y = bottom - REGION_PX * (depths - depth) as f64;
            for bar in model
                .regions
                .visible(p, depth, window, scale.ticks_per_px())
            {
                let (x1, x2) = (x_of(bar.start), x_of(bar.end));
                items.push(DrawItem::Rect {
                    x: x1,
                    y,
                    w: (x2 - x1).max(1.0),
                    h: REGION_PX - 0.5,
                    color: model
                        .region_names
                        .get(bar.region as usize)
                        .map_or(colors::GRID, |name| name_color(name)),
                });
            }
        }
    }
}

/// The region bar under `(x, y)` on display row `row` of process `process`: its depth and bar.
pub fn region_hit(
    model: &GanttModel,
    scale: &TimeScale,
    g: &Geometry,
    (row, process): (usize, usize),
    (x, y): (f64, f64),
) -> Option<(usize, RegionBar)> {
    let depths = model.regions.depths;
    let bottom = g.row_top(row) + g.row_height - 1.0;
    let from_bottom = bottom - y;
    if depths == 0 || from_bottom < 0.0 || from_bottom >= REGION_PX * depths as f64 {
        return None;
    }
    let depth = depths - 1 - (from_bottom / REGION_PX).floor() as usize;
    let tick = scale.px_to_time(x - g.label_width)?;
    model
        .regions
        .at(process, depth, tick.0)
        .map(|bar| (depth, bar))
}

/// Where each drawn process's bars go: its row, or its strip in a collapsed group's row; and
/// the ranges of processes to ask the viewport index for (each at most `MAX_ROWS` long).
struct Places {
    /// Drawn processes in ascending order, with the top and height of their bars' box.
    drawn: Vec<(usize, f64, f64)>,
    /// Process ranges `first..=last` to query.
    chunks: Vec<(usize, usize)>,
}

impl Places {
    fn new(model: &GanttModel, rows: &Rows, g: &Geometry, (first, last): (usize, usize)) -> Places {
        let mut drawn = Vec::new();
        for row in first..=last {
            let top = g.row_top(row);
            let processes = rows.drawn(row, &model.groups);
            match rows.rows.get(row) {
                Some(Row::Group(_)) => {
                    let h = (g.row_height - 8.0) / processes.len().max(1) as f64;
                    for (j, p) in processes.into_iter().enumerate() {
                        drawn.push((p, top + 4.0 + j as f64 * h, h));
                    }
                }
                _ => drawn.extend(processes.into_iter().map(|p| (p, top, g.row_height))),
            }
        }
        let mut chunks: Vec<(usize, usize)> = Vec::new();
        for &(p, _, _) in &drawn {
            match chunks.last_mut() {
                Some((a, b)) if p - *a < MAX_ROWS as usize => *b = p,
                _ => chunks.push((p, p)),
            }
        }
        Places { drawn, chunks }
    }

    /// The box of process `p`'s bars, if it is drawn.
    fn place(&self, p: usize) -> Option<(f64, f64)> {
        let k = self.drawn.binary_search_by_key(&p, |d| d.0).ok()?;
        Some((self.drawn[k].1, self.drawn[k].2))
    }
}

/// The bars and messages of one range of processes.
#[allow(clippy::too_many_arguments)]
fn chunk(
    model: &GanttModel,
    views: &dyn Views,
    rows: &Rows,
    places: &Places,
    scale: &TimeScale,
    g: &Geometry,
    (first, last): (usize, usize),
    drawn_before: &dyn Fn(u32) -> bool,
    items: &mut Vec<DrawItem>,
) {
    let (window_start, window_end) = scale.window();
    // Whole ticks covering the window, at (about) one viewport pixel per CSS pixel.
    let start = window_start.max(0.0).floor() as u64;
    let end = (window_end.max(0.0).ceil() as u64).max(start + 1);
    let span_px = (end - start) as f64 / scale.ticks_per_px();
    let width_px = span_px.round().clamp(1.0, f64::from(MAX_WIDTH_PX)) as u32;
    let request = ViewportRequest {
        start,
        end,
        first_row: first as u32,
        last_row: last as u32,
        width_px,
    };
    let Some(view) = views.view(&request) else {
        return;
    };
    // The answer may cover more (or, while a better one loads, other) ticks than asked for:
    // place it by its own window.
    let x0 = g.label_width + scale.tick_to_px(view.start as f64);
    let px =
        (view.end - view.start) as f64 / scale.ticks_per_px() / f64::from(view.width_px.max(1));
    let x_of = |p: i64| x0 + p as f64 * px;
    for row in &view.rows {
        let Some((top, height)) = places.place(row.process as usize) else {
            continue;
        };
        // A strip of a collapsed group is filled whatever the state; a row insets its bars.
        let strip = height < g.row_height;
        let mut at = 0u32;
        for ((letter, &width), _) in row.state.chars().zip(&row.width).zip(&row.count) {
            let (x, w) = (x_of(i64::from(at)), f64::from(width) * px);
            at += width;
            let Some((Some(state), more)) = letter_state(letter) else {
                continue;
            };
            let (y, h) = state_box(state, top, height, strip, model.regions.depths);
            let color = match state {
                State::Computing => colors::COMPUTING,
                State::Blocked => colors::BLOCKED,
            };
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
    let center = |p: u32| g.row_top(rows.row_of(p as usize)) + g.row_height / 2.0;
    let m = &view.messages;
    for k in 0..m.from.len() {
        // Messages inside a collapsed node would be arrows from its row to itself: left out.
        let inside = |from: u32, to: u32| {
            from != to && rows.row_of(from as usize) == rows.row_of(to as usize)
        };
        if drawn_before(m.from[k]) || drawn_before(m.to[k]) || inside(m.from[k], m.to[k]) {
            continue;
        }
        // A message that arrives before it is sent breaks the clock condition: flag it.
        let color = if m.arrival_px[k] < m.send_px[k] {
            colors::FAULT
        } else {
            colors::MESSAGE
        };
        items.push(DrawItem::Arrow {
            x1: x_of(m.send_px[k]),
            y1: center(m.from[k]),
            x2: x_of(m.arrival_px[k]),
            y2: center(m.to[k]),
            color,
        });
    }
    let b = &view.bundles;
    for k in 0..b.len() {
        if drawn_before(b.from[k])
            || drawn_before(b.to[k])
            || (b.from[k] != b.to[k]
                && rows.row_of(b.from[k] as usize) == rows.row_of(b.to[k] as usize))
        {
            continue;
        }
        let (y1, y2) = (center(b.from[k]), center(b.to[k]));
        let (x1a, x1b) = (x_of(b.first_send_px[k]), x_of(b.last_send_px[k] + 1));
        let (x2a, x2b) = (x_of(b.first_arrival_px[k]), x_of(b.last_arrival_px[k] + 1));
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
        if x1b - x1a >= 40.0 || (y2 - y1).abs() >= 2.0 * g.row_height {
            items.push(DrawItem::Text {
                x: mid.0,
                y: mid.1,
                text: format!("{} msgs, {}", b.count[k], bytes_text(b.bytes[k])),
                color: colors::TEXT,
                align_right: false,
            });
        }
    }
}

/// The event icons of rows `first..=last` whose visible events have room for them (at least
/// [`ICON_SPACING_PX`] apart on average); a send or arrival without a partner is drawn in the
/// fault colour.
fn icons(
    model: &GanttModel,
    rows: &Rows,
    scale: &TimeScale,
    g: &Geometry,
    (first, last): (usize, usize),
    items: &mut Vec<DrawItem>,
) {
    let (window_start, window_end) = scale.window();
    let (from, to) = (
        window_start.max(0.0).floor() as u64,
        window_end.max(0.0).ceil() as u64,
    );
    for row in first..=last {
        let Some(&Row::Process(p)) = rows.rows.get(row) else {
            continue;
        };
        let (lo, hi) = (model.row_events[p], model.row_events[p + 1]);
        let times = &model.event_time[lo..hi];
        let a = lo + times.partition_point(|&t| t < from);
        let b = lo + times.partition_point(|&t| t <= to);
        if (b - a) as f64 * ICON_SPACING_PX > g.plot_width() {
            continue;
        }
        let y = g.row_top(row) + g.row_height / 2.0;
        for k in a..b {
            let Some(icon) = icon_of(model.event_kind[k]) else {
                continue;
            };
            items.push(DrawItem::Icon {
                x: g.label_width + scale.time_to_px(Time(model.event_time[k])),
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

/// Bytes for people: `812 B`, `12.5 kB`, `3.1 MB`.
pub fn bytes_text(bytes: u64) -> String {
    let b = bytes as f64;
    if b < 1e3 {
        format!("{bytes} B")
    } else if b < 1e6 {
        format!("{:.1} kB", b / 1e3)
    } else if b < 1e9 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} GB", b / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::worked_example;
    use super::*;

    fn rects(items: &[DrawItem], color: &str) -> Vec<(f64, f64, f64)> {
        items
            .iter()
            .filter_map(|item| match item {
                DrawItem::Rect {
                    x, y, w, color: c, ..
                } if *c == color => Some((*x, *y, *w)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn worked_example_draws_bars_arrows_labels_and_axis() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(&g);
        let items = layout(
            &model,
            &model.expanded(),
            &model.index,
            &scale,
            &g,
            &Overlays::default(),
        );
        // At 10 px per tick: A computes [0,35] and [48,53], B [0,20], [33,43], [54,69].
        let computing: Vec<(f64, f64)> = rects(&items, colors::COMPUTING)
            .iter()
            .map(|r| (r.0, r.2))
            .collect();
        assert_eq!(
            computing,
            [
                (140.0, 350.0),
                (620.0, 50.0),
                (140.0, 200.0),
                (470.0, 100.0),
                (680.0, 150.0)
            ]
        );
        assert_eq!(rects(&items, colors::BLOCKED).len(), 3);
        let arrows: Vec<(f64, f64)> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Arrow { x1, x2, .. } => Some((*x1, *x2)),
                _ => None,
            })
            .collect();
        // m1 25→33, m3 51→54, m2 38→48.
        assert_eq!(arrows, [(390.0, 470.0), (650.0, 680.0), (520.0, 620.0)]);
        let texts: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            texts.contains(&"A @ T800 #0") && texts.contains(&"B @ T800 #1"),
            "{texts:?}"
        );
        for label in ["0", "10", "60"] {
            assert!(texts.contains(&label), "axis label {label} in {texts:?}");
        }
    }

    #[test]
    fn zooming_in_culls_what_left_the_window() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        // Show [0, 10]: only the first computing bar of each process and no arrow.
        let scale = model.fit(&g).zoomed(10.0 / 69.0, 0.0);
        let items = layout(
            &model,
            &model.expanded(),
            &model.index,
            &scale,
            &g,
            &Overlays::default(),
        );
        assert_eq!(rects(&items, colors::COMPUTING).len(), 2);
        assert!(!items.iter().any(|i| matches!(i, DrawItem::Arrow { .. })));
    }

    #[test]
    fn rows_scrolled_out_of_view_are_not_drawn() {
        let model = GanttModel::new(&worked_example());
        let mut g = Geometry::new(830.0, 30.0 + 32.0);
        g.scroll_y = 32.0;
        let items = layout(
            &model,
            &model.expanded(),
            &model.index,
            &model.fit(&g),
            &g,
            &Overlays::default(),
        );
        // Only B's row is visible: its three computing bars.
        assert_eq!(rects(&items, colors::COMPUTING).len(), 3);
    }

    #[test]
    fn a_dense_trace_draws_what_the_pixels_hold_and_labels_bundles() {
        // 64 processes, 200,000 events, all of it in 860 px: far more spans and messages than
        // pixels.
        let trace = shared::model::synthetic::ring(64, 200_000);
        let model = GanttModel::new(&trace);
        let g = Geometry::new(140.0 + 860.0, 640.0);
        let items = layout(
            &model,
            &model.expanded(),
            &model.index,
            &model.fit(&g),
            &g,
            &Overlays::default(),
        );
        let visible_rows = ((640.0 - 30.0) / 32.0_f64).ceil() as usize;
        let bars = rects(&items, colors::COMPUTING).len() + rects(&items, colors::BLOCKED).len();
        assert!(bars > 0 && bars <= visible_rows * 860, "{bars} bars");
        let arrows = items
            .iter()
            .filter(|i| matches!(i, DrawItem::Arrow { .. } | DrawItem::Band { .. }))
            .count();
        assert!(arrows > 0 && arrows <= 2 * 860, "{arrows} arrows and bands");
        assert!(
            !rects(&items, colors::MORE).is_empty(),
            "crowded pixels are marked"
        );
        assert!(
            items
                .iter()
                .any(|i| matches!(i, DrawItem::Text { text, .. } if text.contains(" msgs, "))),
            "bundles say how many messages they hold"
        );
    }

    fn texts(items: &[DrawItem]) -> Vec<&str> {
        items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn ten_thousand_rows_grouped_by_node_draw_only_the_rows_in_view() {
        let trace = shared::model::synthetic::ring_on_nodes(10_000, 16, 100_000);
        let model = GanttModel::new(&trace);
        assert_eq!(model.groups.len(), 625);
        let rows = model.expanded();
        assert_eq!(rows.n_rows(), 10_000 + 625);
        let mut g = Geometry::new(140.0 + 860.0, 640.0);
        // Scrolled to the middle: rows 5,000 to 5,019 fill the 610 px plot.
        g.scroll_y = 5_000.0 * g.row_height;
        assert_eq!(g.visible_rows(rows.n_rows()), Some((5_000, 5_019)));
        let items = layout(
            &model,
            &rows,
            &model.index,
            &model.fit(&g),
            &g,
            &Overlays::default(),
        );
        let labels: Vec<&str> = texts(&items)
            .into_iter()
            .filter(|t| t.starts_with("    rank") || t.starts_with('▾'))
            .collect();
        assert_eq!(labels.len(), 20, "{labels:?}");
        // 17 rows a node: node 294's header is row 4,998, so row 5,000 is its second rank
        // (4,705) and node 295's header is row 5,015.
        assert_eq!(labels[0], "    rank 4705");
        assert!(labels.contains(&"▾ node 295 (16)"), "{labels:?}");
        let bars = rects(&items, colors::COMPUTING).len() + rects(&items, colors::BLOCKED).len();
        assert!(bars > 0 && bars <= 20 * 860, "{bars} bars");
    }

    #[test]
    fn a_collapsed_node_is_one_row_of_strips_and_its_messages_end_there() {
        let trace = shared::model::synthetic::ring_on_nodes(12, 4, 2_400);
        let model = GanttModel::new(&trace);
        let rows = model.expanded().toggled(12, &model.groups, 0);
        // Node 0's four ranks share row 0; node 1's header is row 1, its ranks rows 2–5.
        assert_eq!(rows.row_of_process[..5], [0, 0, 0, 0, 2]);
        let g = Geometry::new(140.0 + 860.0, 640.0);
        let items = layout(
            &model,
            &rows,
            &model.index,
            &model.fit(&g),
            &g,
            &Overlays::default(),
        );
        assert!(texts(&items).contains(&"▸ node 0 (4)"));
        // Strips of (32 − 8) / 4 = 6 px inside row 0 (y 30 to 62), a pixel apart.
        let strip_tops: std::collections::BTreeSet<i64> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Rect { y, h, color, .. } if *color == colors::COMPUTING && *y < 62.0 => {
                    assert_eq!(*h, 5.0);
                    Some(*y as i64)
                }
                _ => None,
            })
            .collect();
        assert_eq!(strip_tops.into_iter().collect::<Vec<_>>(), [34, 40, 46, 52]);
        // Rank 3 sends to rank 4 (row 2) and rank 11 to rank 0 (row 0's middle, y = 46).
        let ends: Vec<(f64, f64)> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Arrow { y1, y2, .. } => Some((*y1, *y2)),
                DrawItem::Band { y1, y2, .. } => Some((*y1, *y2)),
                _ => None,
            })
            .collect();
        assert!(ends.contains(&(46.0, 30.0 + 2.0 * 32.0 + 16.0)), "{ends:?}");
        // Rank 0 sends to rank 1, both in the collapsed row: no arrow from the row to itself.
        assert!(!ends.contains(&(46.0, 46.0)), "{ends:?}");
    }

    #[test]
    fn regions_are_nested_bars_in_their_names_colours_and_answer_clicks() {
        let trace = shared::model::synthetic::ring_on_nodes(4, 2, 400);
        let model = GanttModel::new(&trace);
        let rows = model.expanded();
        let g = Geometry::new(140.0 + 1010.0, 400.0);
        let scale = model.fit(&g);
        let items = layout(
            &model,
            &rows,
            &model.index,
            &scale,
            &g,
            &Overlays::default(),
        );
        // Row 1 is rank 0 (row 0 is node 0's header): its bottom is at 30 + 2·32 − 1 = 93, so
        // step (depth 0) is drawn from y = 87 and compute (depth 1) from y = 90.
        let at_y = |y: f64| {
            items
                .iter()
                .filter(|i| matches!(i, DrawItem::Rect { y: top, h, .. } if *top == y && *h == REGION_PX - 0.5))
                .count()
        };
        assert_eq!(at_y(87.0), 10, "ten rounds of step on rank 0");
        assert_eq!(at_y(90.0), 20, "ten of compute and ten of MPI_Recv");
        // Rank 0 computes in round 0 from 2 to 10 (1 px a tick): a click there finds it.
        let x = g.label_width + scale.tick_to_px(5.0);
        let (depth, bar) = region_hit(&model, &scale, &g, (1, 0), (x, 91.0)).expect("a region");
        assert_eq!((depth, bar.start, bar.end), (1, 2, 10));
        assert_eq!(model.region_names[bar.region as usize], "compute");
        assert_eq!(
            region_hit(&model, &scale, &g, (1, 0), (x, 88.0)).map(|h| h.0),
            Some(0)
        );
        assert_eq!(region_hit(&model, &scale, &g, (1, 0), (x, 60.0)), None);
    }

    #[test]
    fn bytes_read_for_people() {
        assert_eq!(bytes_text(812), "812 B");
        assert_eq!(bytes_text(12_500), "12.5 kB");
        assert_eq!(bytes_text(3_100_000), "3.1 MB");
    }

    #[test]
    fn clicks_find_the_path_segment_and_the_row_under_them() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(&g);
        // T4a: A computes 0–25, m1 runs 25–33 from A to B, B computes 33–38.
        let path = [
            PathBar {
                from_row: 0,
                to_row: 0,
                start: 0,
                end: 25,
                color: colors::PATH,
            },
            PathBar {
                from_row: 0,
                to_row: 1,
                start: 25,
                end: 33,
                color: colors::PATH,
            },
            PathBar {
                from_row: 1,
                to_row: 1,
                start: 33,
                end: 38,
                color: colors::PATH,
            },
        ];
        // Row A's middle is y = 30 + 16; tick 10 is x = 140 + 100.
        assert_eq!(
            path_hit(&path, &model.expanded(), &scale, &g, 240.0, 46.0),
            Some(0)
        );
        // Halfway along m1's line: tick 29, between the rows' middles (46 and 78).
        assert_eq!(
            path_hit(&path, &model.expanded(), &scale, &g, 140.0 + 290.0, 62.0),
            Some(1)
        );
        assert_eq!(
            path_hit(&path, &model.expanded(), &scale, &g, 140.0 + 355.0, 78.0),
            Some(2)
        );
        assert_eq!(
            path_hit(&path, &model.expanded(), &scale, &g, 140.0 + 600.0, 78.0),
            None
        );
        assert_eq!(row_at(&g, 2, 46.0), Some(0));
        assert_eq!(row_at(&g, 2, 80.0), Some(1));
        assert_eq!(row_at(&g, 2, 10.0), None);
        assert_eq!(row_at(&g, 2, 120.0), None);
        let overlays = Overlays {
            selection: None,
            path: path.to_vec(),
        };
        let items = layout(
            &model,
            &model.expanded(),
            &model.index,
            &scale,
            &g,
            &overlays,
        );
        assert_eq!(
            rects(&items, colors::PATH).len(),
            2,
            "two computations on the path"
        );
    }

    #[test]
    fn clicks_find_the_nearest_event_with_an_icon() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let scale = model.fit(&g);
        // 10 px a tick: A's send at 25 is at x = 390, its receive call at 35 at x = 490.
        assert_eq!(event_hit(&model, &scale, &g, 0, 392.0), Some(1));
        assert_eq!(event_hit(&model, &scale, &g, 0, 487.0), Some(2));
        assert_eq!(event_hit(&model, &scale, &g, 0, 420.0), None);
        // B's arrival of m1 at 33 (event 8); its process start at 0 has no icon.
        assert_eq!(event_hit(&model, &scale, &g, 1, 470.0), Some(8));
        assert_eq!(event_hit(&model, &scale, &g, 1, 141.0), None);
        assert_eq!(event_hit(&model, &scale, &g, 2, 470.0), None);
        // B's receive call at 20 blocks until m1 arrives at 33; A's send blocks nothing.
        assert_eq!(model.blocked_around(7), Some((20, 33)));
        assert_eq!(model.blocked_around(8), Some((20, 33)));
        assert_eq!(model.blocked_around(1), None);
    }

    fn icons_of(items: &[DrawItem]) -> Vec<(Icon, &'static str)> {
        items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Icon { icon, color, .. } => Some((*icon, *color)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn events_get_the_thesis_icons_when_there_is_room() {
        let model = GanttModel::new(&worked_example());
        let g = Geometry::new(140.0 + 690.0, 200.0);
        let icons = icons_of(&layout(
            &model,
            &model.expanded(),
            &model.index,
            &model.fit(&g),
            &g,
            &Overlays::default(),
        ));
        let count = |icon| icons.iter().filter(|(i, _)| *i == icon).count();
        // Three messages: three sends, three receive calls, three arrivals; all matched.
        assert_eq!(
            (
                count(Icon::Send),
                count(Icon::ReceiveCall),
                count(Icon::Arrival)
            ),
            (3, 3, 3)
        );
        assert!(icons.iter().all(|(_, c)| *c == colors::ICON));
        // Squeezed into 40 px, 13 events have no room: no icons.
        let narrow = Geometry::new(140.0 + 40.0, 200.0);
        assert!(
            icons_of(&layout(
                &model,
                &model.expanded(),
                &model.index,
                &model.fit(&narrow),
                &narrow,
                &Overlays::default()
            ))
            .is_empty()
        );
    }

    #[test]
    fn unmatched_events_and_backward_messages_are_flagged() {
        let json = br#"{"format": "tracescope", "version": 1, "name": "faults",
            "nodes": [{"name": "n0"}, {"name": "n1"}],
            "processes": [{"name": "A", "node": 0}, {"name": "B", "node": 1}],
            "events": [
                {"process": 0, "time": 0, "kind": "proc_init"},
                {"process": 0, "time": 50, "kind": "msg_send", "to": 1, "tag": 1, "size": 8},
                {"process": 0, "time": 60, "kind": "msg_send", "to": 1, "tag": 9, "size": 8},
                {"process": 0, "time": 100, "kind": "proc_exit"},
                {"process": 1, "time": 0, "kind": "proc_init"},
                {"process": 1, "time": 10, "kind": "recv_call", "tag": 1},
                {"process": 1, "time": 20, "kind": "msg_arr", "from": 0, "tag": 1, "size": 8},
                {"process": 1, "time": 100, "kind": "proc_exit"}
            ]}"#;
        let trace = shared::formats::import(json, None, "faults.json")
            .expect("parses")
            .trace;
        let model = GanttModel::new(&trace);
        let g = Geometry::new(140.0 + 500.0, 200.0);
        let items = layout(
            &model,
            &model.expanded(),
            &model.index,
            &model.fit(&g),
            &g,
            &Overlays::default(),
        );
        // The send at 60 (tag 9) has no arrival.
        let faults: Vec<Icon> = icons_of(&items)
            .into_iter()
            .filter(|(_, c)| *c == colors::FAULT)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(faults, [Icon::Send]);
        // The tag-1 message arrives at 20, before it is sent at 50.
        let arrows: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Arrow { color, .. } => Some(*color),
                _ => None,
            })
            .collect();
        assert_eq!(arrows, [colors::FAULT]);
    }

    #[test]
    fn names_keep_their_colours() {
        assert_eq!(name_color("init"), name_color("init"));
        let colours: std::collections::HashSet<_> = ["init", "compute", "exchange", "reduce", "io"]
            .iter()
            .map(|n| name_color(n))
            .collect();
        assert!(
            colours.len() >= 3,
            "names spread over the palette: {colours:?}"
        );
    }
}
