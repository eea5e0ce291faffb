//! View states: what a permalink restores (run, view kind, time window, rows, selection,
//! overlays, filters).
//!
//! A state is stored as JSON with a `version`. Reading is lenient so that every link ever shared
//! keeps opening: unknown fields are ignored, missing fields take their defaults, and older
//! versions are upgraded to [`CURRENT_VERSION`] by [`parse`]. Version 1 is the first; when a
//! later version changes a field's meaning, [`parse`] gains an upgrade step for the old one.

use serde::{Deserialize, Serialize};

/// The version [`ViewState`] is written with.
pub const CURRENT_VERSION: u32 = 1;

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

/// A range of process rows `[first, last]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rows {
    /// The first row shown.
    pub first: u32,
    /// The last row shown.
    pub last: u32,
}

/// What is selected: an event (by its index in the model) or a critical-path segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Selection {
    /// One event, by its index in the trace's event columns.
    Event {
        /// The event's index.
        index: u64,
    },
    /// One segment of the critical path, by its position on the path.
    PathSegment {
        /// The segment's position.
        index: u64,
    },
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
    /// The process rows; `None` shows all.
    #[serde(default)]
    pub rows: Option<Rows>,
    /// The selection, if any.
    #[serde(default)]
    pub selection: Option<Selection>,
    /// Overlays drawn on the view, e.g. `critical_path`, `wait_states`.
    #[serde(default)]
    pub overlays: Vec<String>,
    /// Filters, e.g. `process:3`, `region:solve`.
    #[serde(default)]
    pub filters: Vec<String>,
}

impl ViewState {
    /// The whole trace of `run` in the Gantt chart.
    pub fn new(run: impl Into<String>) -> ViewState {
        ViewState {
            version: CURRENT_VERSION,
            run: run.into(),
            kind: ViewKind::Gantt,
            window: None,
            rows: None,
            selection: None,
            overlays: Vec::new(),
            filters: Vec::new(),
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
        object.insert("version".to_owned(), CURRENT_VERSION.into());
    }
    let state: ViewState =
        serde_json::from_value(value).map_err(|e| ViewError::Invalid(e.to_string()))?;
    check(&state)?;
    Ok(state)
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
        state.selection = Some(Selection::PathSegment { index: 3 });
        state.overlays = vec!["critical_path".to_owned()];
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
        let huge = format!(
            r#"{{"run":"a","filters":["{}"]}}"#,
            "x".repeat(MAX_STATE_BYTES)
        );
        assert!(matches!(parse(&huge), Err(ViewError::TooLarge(_))));
    }
}
