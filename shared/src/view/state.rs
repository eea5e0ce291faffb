//! View states: what a permalink restores — the whole workspace of a run's views: the view
//! shown, the time window, the rows (which processes, in which order, which nodes folded, how
//! far scrolled), the selected and hovered event, the selected range, the overlays, the
//! filters, the replay clock and the open panels.
//!
//! A state is stored as JSON with a `version`. Reading is lenient so that every link ever shared
//! keeps opening: unknown fields are ignored, missing fields take their defaults, and older
//! versions are upgraded to [`CURRENT_VERSION`] by [`parse`].
//!
//! Versions:
//! - 1: overlays and filters were free strings (`critical_path`, `region:solve`).
//! - 2: overlays and filters are typed; the process set, folded nodes, hovered event, range,
//!   replay clock and open panels are added. Version 1's overlay names read as the same
//!   overlays, its `process:N` filters as the process set and its `region:N` filters as region
//!   filters; strings that name nothing known are dropped.

use serde::{Deserialize, Serialize};

/// The version [`ViewState`] is written with.
pub const CURRENT_VERSION: u32 = 2;

/// The largest stored state accepted, in bytes of JSON.
pub const MAX_STATE_BYTES: usize = 16 * 1024;

/// Which view a state opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    /// The Gantt chart with message arrows.
    #[default]
    Gantt,
    /// The happened-before (Hasse) diagram.
    Hasse,
    /// The network topology with CPU and link load.
    Topology,
    /// The replay with a global clock.
    Replay,
    /// The analysis tables.
    Analysis,
}

/// A half-open time window `[start, end)` in trace ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The first tick shown.
    pub start: u64,
    /// The tick after the last one shown.
    pub end: u64,
}

/// A range of display rows `[first, last]`: `first` is the row at the top of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rows {
    /// The first row shown.
    pub first: u32,
    /// The last row shown.
    pub last: u32,
}

/// Which path an overlay or a path segment belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PathName {
    /// The critical path.
    #[default]
    CriticalPath,
    /// The weighted critical path.
    Wcpa,
}

/// What is selected: an event, a segment of a path, or a bar (a state or region bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Selection {
    /// One event, by its index in the trace's event columns.
    Event {
        /// The event's index.
        index: u64,
    },
    /// One segment of a path, by its position on the path.
    PathSegment {
        /// The path (version 1 had only the critical path).
        #[serde(default)]
        path: PathName,
        /// The segment's position.
        index: u64,
    },
    /// What a process is doing at a tick: its state bar, or its region bar at a nesting depth.
    Bar {
        /// The process.
        process: u32,
        /// The tick.
        tick: u64,
        /// The region's nesting depth (0 is outermost); `None` is the state bar.
        #[serde(default)]
        depth: Option<u32>,
    },
}

/// A selected range: a window of ticks over some processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    /// The first tick.
    pub start: u64,
    /// The tick after the range.
    pub end: u64,
    /// The processes, ascending.
    pub processes: Vec<u32>,
}

/// What is drawn over a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Overlay {
    /// The critical path.
    CriticalPath,
    /// The weighted critical path in its phases' colours.
    Wcpa,
    /// The wait states, where they were spent.
    WaitStates,
}

/// What a view leaves out or plays down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Filter {
    /// Only one region's bars in colour (the others grey).
    Region {
        /// The region's id.
        id: u32,
    },
    /// No message arrows or bundles.
    HideMessages,
}

/// A panel beside or over the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Panel {
    /// The shortcuts.
    Help,
    /// The process picker.
    Processes,
}

/// Everything a permalink restores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewState {
    /// The schema version this state was written with.
    pub version: u32,
    /// The run's id.
    pub run: String,
    /// The view.
    #[serde(default)]
    pub kind: ViewKind,
    /// The time window; `None` shows the whole trace.
    #[serde(default)]
    pub window: Option<Window>,
    /// The rows in view; `None` is scrolled to the top.
    #[serde(default)]
    pub rows: Option<Rows>,
    /// The processes shown, in row order; `None` shows all in the trace's order.
    #[serde(default)]
    pub processes: Option<Vec<u32>>,
    /// The folded (collapsed) node groups, by their position among the groups.
    #[serde(default)]
    pub collapsed: Vec<u32>,
    /// The selection, if any.
    #[serde(default)]
    pub selection: Option<Selection>,
    /// The event under the pointer, if any.
    #[serde(default)]
    pub hovered: Option<u64>,
    /// The selected range, if any.
    #[serde(default)]
    pub range: Option<Range>,
    /// Overlays drawn on the view.
    #[serde(default)]
    pub overlays: Vec<Overlay>,
    /// Filters.
    #[serde(default)]
    pub filters: Vec<Filter>,
    /// The replay clock, in ticks, if set.
    #[serde(default)]
    pub replay: Option<u64>,
    /// The open panels.
    #[serde(default)]
    pub panels: Vec<Panel>,
    /// The Hasse view's x axis.
    #[serde(default)]
    pub hasse_axis: super::hasse::Axis,
    /// An event filter every view applies (`kind=send,arr node=0 process=A time=10..50`,
    /// `shared::analyses::patterns::Filter`).
    #[serde(default)]
    pub event_filter: Option<String>,
    /// The replay speed as the replay bar names it (`× 0.01`, `100 events/s`); `None` lets the
    /// page pick one that plays the window in 10 to 100 seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_speed: Option<String>,
}

impl ViewState {
    /// The whole trace of `run` in the Gantt chart.
    pub fn new(run: impl Into<String>) -> ViewState {
        ViewState {
            version: CURRENT_VERSION,
            hasse_axis: super::hasse::Axis::default(),
            event_filter: None,
            replay_speed: None,
            run: run.into(),
            kind: ViewKind::Gantt,
            window: None,
            rows: None,
            processes: None,
            collapsed: Vec::new(),
            selection: None,
            hovered: None,
            range: None,
            overlays: Vec::new(),
            filters: Vec::new(),
            replay: None,
            panels: Vec::new(),
        }
    }
}

/// Why a view state cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// Not JSON, or a field has the wrong type.
    #[error("the view state is not valid: {0}")]
    Invalid(String),
    /// Written by a newer Tracescope than this one.
    #[error("the view state has version {0}, newer than this server's {CURRENT_VERSION}")]
    TooNew(u32),
    /// Larger than [`MAX_STATE_BYTES`].
    #[error("the view state is {0} bytes, more than the {MAX_STATE_BYTES} accepted")]
    TooLarge(usize),
    /// Its values contradict each other (an empty window, rows out of order).
    #[error("the view state is inconsistent: {0}")]
    Inconsistent(&'static str),
}

/// Reads a stored or submitted state of any version, upgraded to [`CURRENT_VERSION`].
pub fn parse(json: &str) -> Result<ViewState, ViewError> {
    if json.len() > MAX_STATE_BYTES {
        return Err(ViewError::TooLarge(json.len()));
    }
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| ViewError::Invalid(e.to_string()))?;
    // A state without a version predates versioning: it is read as version 1.
    let version = match value.get("version") {
        None => 1,
        Some(v) => v
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| ViewError::Invalid("`version` must be a small integer".to_owned()))?,
    };
    if version > CURRENT_VERSION {
        return Err(ViewError::TooNew(version));
    }
    let mut value = value;
    if let Some(object) = value.as_object_mut() {
        if version == 1 {
            upgrade_from_1(object);
        }
        object.insert("version".to_owned(), CURRENT_VERSION.into());
    }
    let state: ViewState =
        serde_json::from_value(value).map_err(|e| ViewError::Invalid(e.to_string()))?;
    check(&state)?;
    Ok(state)
}

/// Version 1 → 2: overlay and filter strings become typed values (see the module's notes).
fn upgrade_from_1(object: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::Value;
    let strings = |value: Option<Value>| -> Vec<String> {
        match value {
            Some(Value::Array(items)) => items
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    };
    let overlays: Vec<Value> = strings(object.remove("overlays"))
        .into_iter()
        .filter(|name| matches!(name.as_str(), "critical_path" | "wcpa" | "wait_states"))
        .map(Value::String)
        .collect();
    object.insert("overlays".to_owned(), Value::Array(overlays));
    let mut filters = Vec::new();
    let mut processes = Vec::new();
    for filter in strings(object.remove("filters")) {
        match filter.split_once(':') {
            Some(("process", n)) => processes.extend(n.trim().parse::<u32>().ok()),
            Some(("region", n)) => {
                if let Ok(id) = n.trim().parse::<u32>() {
                    filters.push(serde_json::json!({"type": "region", "id": id}));
                }
            }
            _ => {}
        }
    }
    object.insert("filters".to_owned(), Value::Array(filters));
    if !processes.is_empty() {
        object.insert("processes".to_owned(), processes.into());
    }
}

fn check(state: &ViewState) -> Result<(), ViewError> {
    if state.run.is_empty() || state.run.len() > 64 {
        return Err(ViewError::Inconsistent(
            "the run id must be 1 to 64 characters",
        ));
    }
    if state.window.is_some_and(|w| w.start >= w.end) {
        return Err(ViewError::Inconsistent(
            "the window must end after it starts",
        ));
    }
    if state.rows.is_some_and(|r| r.first > r.last) {
        return Err(ViewError::Inconsistent(
            "the first row must not follow the last",
        ));
    }
    if state.range.as_ref().is_some_and(|r| r.start >= r.end) {
        return Err(ViewError::Inconsistent(
            "the range must end after it starts",
        ));
    }
    if state
        .processes
        .as_ref()
        .is_some_and(|p| p.is_empty() || p.len() > MAX_STATE_BYTES / 2)
    {
        return Err(ViewError::Inconsistent(
            "the process set must name at least one process",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_round_trips_through_json() {
        let mut state = ViewState::new("abc");
        state.kind = ViewKind::Hasse;
        state.window = Some(Window { start: 10, end: 20 });
        state.rows = Some(Rows { first: 2, last: 5 });
        state.selection = Some(Selection::PathSegment {
            path: PathName::Wcpa,
            index: 3,
        });
        state.overlays = vec![Overlay::CriticalPath, Overlay::WaitStates];
        state.processes = Some(vec![3, 1, 2]);
        state.collapsed = vec![0];
        state.hovered = Some(17);
        state.range = Some(Range {
            start: 4,
            end: 9,
            processes: vec![1, 2],
        });
        state.filters = vec![Filter::Region { id: 2 }, Filter::HideMessages];
        state.replay = Some(12);
        state.panels = vec![Panel::Processes];
        let json = serde_json::to_string(&state).expect("serializes");
        assert_eq!(parse(&json), Ok(state));
    }

    #[test]
    fn missing_fields_default_and_unknown_fields_are_ignored() {
        let state =
            parse(r#"{"version":1,"run":"abc","window":{"start":5,"end":9},"zoom_hint":7}"#)
                .expect("lenient");
        assert_eq!(state.kind, ViewKind::Gantt);
        assert_eq!(state.window, Some(Window { start: 5, end: 9 }));
        assert!(state.overlays.is_empty() && state.selection.is_none());
        // No version at all: read as the first.
        assert_eq!(
            parse(r#"{"run":"abc"}"#).map(|s| s.version),
            Ok(CURRENT_VERSION)
        );
    }

    #[test]
    fn version_one_links_keep_their_meaning() {
        let state = parse(
            r#"{"version":1,"run":"abc","selection":{"type":"path_segment","index":4},
                "overlays":["critical_path","sparkles"],
                "filters":["region:2","process:5","process:1","colour:red"]}"#,
        )
        .expect("upgrades");
        assert_eq!(state.version, CURRENT_VERSION);
        // A version-1 path segment was on the critical path.
        assert_eq!(
            state.selection,
            Some(Selection::PathSegment {
                path: PathName::CriticalPath,
                index: 4
            })
        );
        assert_eq!(state.overlays, [Overlay::CriticalPath]);
        assert_eq!(state.filters, [Filter::Region { id: 2 }]);
        assert_eq!(state.processes, Some(vec![5, 1]));
        // Version 2 refuses what version 1 tolerated only as a string.
        assert!(matches!(
            parse(r#"{"version":2,"run":"a","overlays":["sparkles"]}"#),
            Err(ViewError::Invalid(_))
        ));
    }

    #[test]
    fn bad_states_are_refused_with_the_reason() {
        assert_eq!(
            parse(r#"{"version":99,"run":"a"}"#),
            Err(ViewError::TooNew(99))
        );
        assert!(matches!(parse("{"), Err(ViewError::Invalid(_))));
        assert!(matches!(
            parse(r#"{"version":1}"#),
            Err(ViewError::Invalid(_))
        ));
        assert!(matches!(
            parse(r#"{"run":"a","window":{"start":9,"end":9}}"#),
            Err(ViewError::Inconsistent(_))
        ));
        assert!(matches!(
            parse(r#"{"run":"a","kind":"sideways"}"#),
            Err(ViewError::Invalid(_))
        ));
        assert!(matches!(
            parse(r#"{"version":2,"run":"a","range":{"start":3,"end":3,"processes":[]}}"#),
            Err(ViewError::Inconsistent(_))
        ));
        assert!(matches!(
            parse(r#"{"version":2,"run":"a","processes":[]}"#),
            Err(ViewError::Inconsistent(_))
        ));
        let huge = format!(
            r#"{{"run":"a","filters":["{}"]}}"#,
            "x".repeat(MAX_STATE_BYTES)
        );
        assert!(matches!(parse(&huge), Err(ViewError::TooLarge(_))));
    }
}

/// Where a run of a gallery demo opens: the view that shows its lesson (the servants' idle
/// time in the farm, the batched messages of the image reconstruction), set by the demo and
/// turned into a [`ViewState`] once the run's processes are known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct StartView {
    /// The rows shown, in this order: the processes whose name is one of these or starts with
    /// one and then ` @ `, `.` or `[` (`servant` takes `servant @ T800 #3`); empty shows every
    /// process.
    #[serde(default)]
    pub rows: Vec<String>,
    /// Whether message arrows are hidden.
    #[serde(default)]
    pub hide_messages: bool,
    /// Whether the critical path is drawn over the chart.
    #[serde(default)]
    pub critical_path: bool,
    /// The window as fractions of the run, `(from, to)`; `None` shows all of it.
    #[serde(default)]
    pub window: Option<(f64, f64)>,
    /// What the view shows, for the button that opens it.
    #[serde(default)]
    pub lesson: String,
}

impl StartView {
    /// Whether a process named `name` is one of `pattern`'s rows.
    fn takes(pattern: &str, name: &str) -> bool {
        name.strip_prefix(pattern).is_some_and(|rest| {
            rest.is_empty()
                || rest.starts_with(" @ ")
                || rest.starts_with('.')
                || rest.starts_with('[')
        })
    }

    /// The view of `run` whose processes are named `names` and whose events span `bounds`
    /// (ticks): rows unfolded, the processes the start view names in its order (all when it
    /// names none, or none of them is in the run).
    pub fn view_state(&self, run: &str, names: &[&str], bounds: Option<(u64, u64)>) -> ViewState {
        let mut state = ViewState::new(run);
        let mut processes: Vec<u32> = Vec::new();
        for pattern in &self.rows {
            for (k, name) in names.iter().enumerate() {
                if Self::takes(pattern, name) && !processes.contains(&(k as u32)) {
                    processes.push(k as u32);
                }
            }
        }
        if !processes.is_empty() {
            state.processes = Some(processes);
        }
        if self.hide_messages {
            state.filters.push(Filter::HideMessages);
        }
        if self.critical_path {
            state.overlays.push(Overlay::CriticalPath);
        }
        if let (Some((from, to)), Some((start, end))) = (self.window, bounds) {
            let span = end.saturating_sub(start) as f64;
            let at = |f: f64| start.saturating_add((span * f.clamp(0.0, 1.0)) as u64);
            let (a, b) = (at(from.min(to)), at(from.max(to)));
            if b > a {
                state.window = Some(Window { start: a, end: b });
            }
        }
        state
    }
}

#[cfg(test)]
mod start_view_tests {
    use super::*;

    #[test]
    fn a_start_view_picks_its_rows_by_name_in_its_order_and_cuts_its_window() {
        let names = [
            "main",
            "farmer @ T800 #0",
            "servant @ T800 #0",
            "servantry",
            "servant @ T800 #1",
            "worker[0]",
            "delta.par[1]",
        ];
        let start = StartView {
            rows: vec![
                "servant".into(),
                "farmer".into(),
                "delta".into(),
                "worker".into(),
            ],
            hide_messages: true,
            critical_path: true,
            window: Some((0.5, 0.25)),
            lesson: String::new(),
        };
        let state = start.view_state("r1", &names, Some((100, 500)));
        // `servantry` is not a servant; `delta.par[1]` is one of delta's branches.
        assert_eq!(state.processes, Some(vec![2, 4, 1, 6, 5]));
        assert_eq!(state.filters, vec![Filter::HideMessages]);
        assert_eq!(state.overlays, vec![Overlay::CriticalPath]);
        assert_eq!(
            state.window,
            Some(Window {
                start: 200,
                end: 300
            })
        );
        assert!(state.collapsed.is_empty());
        // Naming nothing in the run shows everything.
        let none = StartView {
            rows: vec!["nobody".into()],
            ..StartView::default()
        };
        assert_eq!(none.view_state("r1", &names, None).processes, None);
    }
}
