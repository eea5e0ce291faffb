//! The display list: what a layer asks the painter to draw, and the chart's colours.

/// Colours of the chart, as CSS colours.
pub mod colors {
    /// Computing bars.
    pub const COMPUTING: &str = "#2e8b57";
    /// Blocked (waiting in a receive, or on a channel) bars.
    pub const BLOCKED: &str = "#e8a33d";
    /// Ready bars: a process that could run, waiting for its processor.
    pub const READY: &str = "#8fd3a7";
    /// Bars of a process waiting on a timer.
    pub const TIMER: &str = "#6f9fd8";
    /// Bars of a PAR's parent waiting for its branches.
    pub const CHILDREN: &str = "#b39ddb";
    /// Bars of a stopped (or ended) process.
    pub const STOPPED: &str = "#9e9e9e";
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
    /// Wait states (the wait-state overlay).
    pub const WAIT: &str = "#ff4fd8";
    /// The ring around the selected event.
    pub const SELECTED: &str = "#000000";
    /// The ring around the event under the pointer.
    pub const HOVERED: &str = "#6b7280";
    /// The replay clock's line.
    pub const REPLAY: &str = "#0b7285";
    /// Region bars a filter plays down.
    pub const FILTERED: &str = "#e3e6eb";
    /// A counter track's area.
    pub const COUNTER: &str = "#9fb8d8";
    /// The selected event's causal past, behind the bars (the Hasse view's ring colour).
    pub const AREA_PAST: &str = "rgba(31, 119, 180, 0.18)";
    /// The selected event's causal future, behind the bars.
    pub const AREA_FUTURE: &str = "rgba(232, 89, 12, 0.18)";
    /// The span of values a busy pixel of a counter track holds.
    pub const COUNTER_RANGE: &str = "#4a6fa0";
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
    /// A circle's outline centred at `(x, y)`.
    Ring {
        x: f64,
        y: f64,
        r: f64,
        color: &'static str,
        width: f64,
    },
    /// A filled circle centred at `(x, y)`.
    Disc {
        x: f64,
        y: f64,
        r: f64,
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

/// The corners of an arrow head at `to` on a line from `from`: its tip and its two barbs,
/// 8 px back and 0.45 rad either side (the painter and the SVG export draw the same).
pub fn arrow_head(from: (f64, f64), to: (f64, f64)) -> [(f64, f64); 3] {
    let angle = (to.1 - from.1).atan2(to.0 - from.0);
    let (len, spread) = (8.0, 0.45);
    [
        to,
        (
            to.0 - len * (angle - spread).cos(),
            to.1 - len * (angle - spread).sin(),
        ),
        (
            to.0 - len * (angle + spread).cos(),
            to.1 - len * (angle + spread).sin(),
        ),
    ]
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
