//! The run workspace: the one state every view of a run reads and writes — the time window,
//! the rows (process set and order, folded nodes, scroll), the selected and hovered event, the
//! selected range, the overlays, the filters, the replay clock, the active view and the open
//! panels.
//!
//! Views never change it directly: they send a [`Command`], and [`apply`] (a pure function,
//! tested natively) makes the next state. So selecting in one view selects in all, and a
//! permalink ([`Workspace::to_view_state`], [`Workspace::from_view_state`]) saves and restores
//! all of it. The reactive wrapper the views hold is [`store::Store`].
//!
//! Time here is whole trace ticks; only a view's `TimeScale` turns it into pixels.

pub mod address;
pub mod data;
pub mod store;

use shared::view::state::{
    Filter, Overlay, Panel, Range, Rows, Selection, ViewKind, ViewState, Window,
};

/// The shared state of one run's views.
#[derive(Debug, Clone, PartialEq)]
pub struct Workspace {
    /// The run's id.
    pub run: String,
    /// The run's first and last tick (from the run, not saved).
    pub bounds: (u64, u64),
    /// How many processes the run has (from the run, not saved).
    pub n_processes: u32,
    /// The view shown.
    pub view: ViewKind,
    /// The time window `[start, end)`, whole ticks, `end > start`.
    pub window: (u64, u64),
    /// The display row at the top of the view.
    pub top_row: u32,
    /// The processes shown, in row order; `None` shows all in the trace's order.
    pub processes: Option<Vec<u32>>,
    /// The folded node groups, ascending.
    pub collapsed: Vec<u32>,
    /// The selected event, path segment or bar.
    pub selected: Option<Selection>,
    /// The event under the pointer.
    pub hovered: Option<u64>,
    /// The selected range.
    pub range: Option<Range>,
    /// The overlays shown, ascending.
    pub overlays: Vec<Overlay>,
    /// The filters in force, ascending.
    pub filters: Vec<Filter>,
    /// The replay clock.
    pub replay: Option<u64>,
    /// The open panels, ascending.
    pub panels: Vec<Panel>,
    /// The Hasse view's x axis.
    pub hasse_axis: shared::view::hasse::Axis,
    /// The event filter every view applies (checked text, or none).
    pub event_filter: Option<String>,
    /// The replay speed as the replay bar names it, once the user picked one.
    pub replay_speed: Option<String>,
    /// The narrowings in force (shown processes, event filter, region kept in colour), in the
    /// order they were set, so Esc clears the last (not saved: a permalink restores them in
    /// this order).
    pub narrowed: Vec<Narrowing>,
}

/// A filter that narrows every view, shown as a chip above the views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrowing {
    /// Only some processes have rows (a topology node, a matrix cell, the process picker).
    Processes,
    /// The event filter.
    Events,
    /// Only one region's bars in colour.
    Region,
}

impl Narrowing {
    /// Every narrowing.
    pub const ALL: [Narrowing; 3] = [Narrowing::Processes, Narrowing::Events, Narrowing::Region];

    /// Whether `ws` has it in force, and with what value (to tell a change).
    fn value(self, ws: &Workspace) -> Option<String> {
        match self {
            Narrowing::Processes => ws.processes.as_ref().map(|p| format!("{p:?}")),
            Narrowing::Events => ws.event_filter.clone(),
            Narrowing::Region => ws.region_filter().map(|r| r.to_string()),
        }
    }

    /// The command that clears it.
    pub fn clear(self) -> Command {
        match self {
            Narrowing::Processes => Command::ShowProcesses(None),
            Narrowing::Events => Command::SetEventFilter(None),
            Narrowing::Region => Command::FilterRegion(None),
        }
    }
}

/// A change to the workspace.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Shows `[start, end)` (widened to one tick when empty).
    SetWindow(u64, u64),
    /// Shows the selected range's time, or the whole run when there is none.
    Fit,
    /// Zooms by `factor` (> 1 zooms out) keeping the tick at `anchor` (a share of the window
    /// from its left edge) in place. A zoom always changes the window by at least one tick.
    Zoom {
        /// The zoom factor.
        factor: f64,
        /// Where the zoom is centred, from 0 (left edge) to 1 (right edge).
        anchor: f64,
    },
    /// Moves the window later by this many ticks (earlier when negative).
    Pan(i64),
    /// Scrolls so this display row is at the top.
    ScrollTo(u32),
    /// Shows these processes in this order (`None`: all, in the trace's order).
    ShowProcesses(Option<Vec<u32>>),
    /// Hides a shown process or shows a hidden one (at the end).
    ToggleProcess(u32),
    /// Folds or unfolds a node group.
    ToggleGroup(u32),
    /// Folds exactly these node groups (an empty list unfolds all).
    SetCollapsed(Vec<u32>),
    /// Selects an event, a path segment or a bar (or nothing).
    Select(Option<Selection>),
    /// The event under the pointer (or none).
    Hover(Option<u64>),
    /// Selects a range (or none).
    SelectRange(Option<Range>),
    /// Shows or hides an overlay; the two paths are never shown together.
    ToggleOverlay(Overlay),
    /// Keeps only one region's bars in colour (or all, with `None`).
    FilterRegion(Option<u32>),
    /// Turns a filter without parameters on or off.
    ToggleFilter(Filter),
    /// Sets the replay clock (or clears it).
    SetReplay(Option<u64>),
    /// Shows a view.
    ShowView(ViewKind),
    /// Sets the Hasse view's x axis.
    SetHasseAxis(shared::view::hasse::Axis),
    /// Sets the event filter every view applies (or clears it).
    SetEventFilter(Option<String>),
    /// Opens or closes a panel.
    TogglePanel(Panel),
    /// Sets the replay speed (by its name in the replay bar), or lets the page pick one.
    SetReplaySpeed(Option<String>),
    /// Closes the help, the selection and the range.
    Escape,
}

/// The widest window, as a multiple of the run's length (zooming out stops there).
const MAX_ZOOM_OUT: u64 = 4;

impl Workspace {
    /// The whole run `run` (ticks `bounds`, `n_processes` processes) in the Gantt chart.
    pub fn new(run: impl Into<String>, bounds: (u64, u64), n_processes: u32) -> Workspace {
        let bounds = (bounds.0, bounds.1.max(bounds.0.saturating_add(1)));
        Workspace {
            run: run.into(),
            bounds,
            n_processes,
            view: ViewKind::Gantt,
            window: bounds,
            top_row: 0,
            processes: None,
            collapsed: Vec::new(),
            selected: None,
            hovered: None,
            range: None,
            overlays: Vec::new(),
            filters: Vec::new(),
            replay: None,
            panels: Vec::new(),
            hasse_axis: shared::view::hasse::Axis::default(),
            event_filter: None,
            narrowed: Vec::new(),
            replay_speed: None,
        }
    }

    /// The workspace a permalink stored, on the run it names (`bounds` and `n_processes` are
    /// the run's). Processes the run does not have are dropped.
    pub fn from_view_state(state: &ViewState, bounds: (u64, u64), n_processes: u32) -> Workspace {
        let mut ws = Workspace::new(state.run.clone(), bounds, n_processes);
        let commands = [
            Command::ShowView(state.kind),
            Command::SetHasseAxis(state.hasse_axis),
            Command::SetEventFilter(state.event_filter.clone()),
            Command::ShowProcesses(state.processes.clone()),
            Command::ScrollTo(state.rows.map_or(0, |r| r.first)),
            Command::Select(state.selection),
            Command::Hover(state.hovered),
            Command::SelectRange(state.range.clone()),
            Command::SetReplay(state.replay),
            Command::SetReplaySpeed(state.replay_speed.clone()),
        ];
        for command in commands {
            ws = apply(&ws, command);
        }
        if let Some(w) = state.window {
            ws = apply(&ws, Command::SetWindow(w.start, w.end));
        }
        ws.collapsed = sorted(state.collapsed.clone());
        ws.overlays = sorted(state.overlays.clone());
        ws.filters = sorted(state.filters.clone());
        ws.panels = sorted(state.panels.clone());
        ws.narrowed = Narrowing::ALL
            .into_iter()
            .filter(|n| n.value(&ws).is_some())
            .collect();
        ws
    }

    /// The permalink's state: all of the workspace (the window even when it is the whole run,
    /// so the link shows the same pixels).
    pub fn to_view_state(&self) -> ViewState {
        let mut state = ViewState::new(self.run.clone());
        state.kind = self.view;
        state.window = Some(Window {
            start: self.window.0,
            end: self.window.1,
        });
        state.rows = (self.top_row > 0).then_some(Rows {
            first: self.top_row,
            last: self.top_row,
        });
        state.processes.clone_from(&self.processes);
        state.collapsed.clone_from(&self.collapsed);
        state.selection = self.selected;
        state.hovered = self.hovered;
        state.range.clone_from(&self.range);
        state.overlays.clone_from(&self.overlays);
        state.filters.clone_from(&self.filters);
        state.replay = self.replay;
        state.panels.clone_from(&self.panels);
        state.hasse_axis = self.hasse_axis;
        state.event_filter.clone_from(&self.event_filter);
        state.replay_speed.clone_from(&self.replay_speed);
        state
    }

    /// Whether an overlay is shown.
    pub fn has_overlay(&self, overlay: Overlay) -> bool {
        self.overlays.contains(&overlay)
    }

    /// Whether a panel is open.
    pub fn has_panel(&self, panel: Panel) -> bool {
        self.panels.contains(&panel)
    }

    /// The region kept in colour, if one is.
    pub fn region_filter(&self) -> Option<u32> {
        self.filters.iter().find_map(|f| match f {
            Filter::Region { id } => Some(*id),
            Filter::HideMessages => None,
        })
    }

    /// Whether message arrows are hidden.
    pub fn hides_messages(&self) -> bool {
        self.filters.contains(&Filter::HideMessages)
    }

    /// Whether process `p` is shown.
    pub fn shows_process(&self, p: u32) -> bool {
        self.processes
            .as_ref()
            .is_none_or(|shown| shown.contains(&p))
    }

    /// The selected event, if an event is selected.
    pub fn selected_event(&self) -> Option<u64> {
        match self.selected {
            Some(Selection::Event { index }) => Some(index),
            _ => None,
        }
    }

    fn set_window(&mut self, start: u64, end: u64) {
        let widest = (self.bounds.1 - self.bounds.0)
            .saturating_mul(MAX_ZOOM_OUT)
            .max(1);
        let width = end.saturating_sub(start).clamp(1, widest);
        // The window may run past the run's end, never so far that nothing of it is left.
        let start = start.min(self.bounds.1.saturating_sub(1));
        self.window = (start, start.saturating_add(width));
    }
}

/// A list as a sorted set.
fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items.dedup();
    items
}

/// Adds `item` to the sorted set `items`, or removes it.
fn toggle<T: Ord>(items: &mut Vec<T>, item: T) {
    match items.binary_search(&item) {
        Ok(k) => {
            items.remove(k);
        }
        Err(k) => items.insert(k, item),
    }
}

/// The workspace after `command`.
pub fn apply(ws: &Workspace, command: Command) -> Workspace {
    let mut next = ws.clone();
    match command {
        Command::SetWindow(start, end) => next.set_window(start, end),
        Command::Fit => match &ws.range {
            Some(range) => next.set_window(range.start, range.end),
            None => next.window = ws.bounds,
        },
        Command::Zoom { factor, anchor } => {
            let (start, end) = ws.window;
            let width = end - start;
            let factor = if factor.is_finite() && factor > 0.0 {
                factor
            } else {
                1.0
            };
            let mut new_width = (width as f64 * factor).round().max(1.0) as u64;
            // Whole ticks: a zoom that rounds to no change moves by one tick.
            if factor > 1.0 && new_width <= width {
                new_width = width + 1;
            } else if factor < 1.0 && new_width >= width {
                new_width = width.saturating_sub(1).max(1);
            }
            let anchor = anchor.clamp(0.0, 1.0);
            let at = start as f64 + anchor * width as f64;
            let new_start = (at - anchor * new_width as f64).round().max(0.0) as u64;
            next.set_window(new_start, new_start.saturating_add(new_width));
        }
        Command::Pan(ticks) => {
            let (start, end) = ws.window;
            let new_start = (i128::from(start) + i128::from(ticks)).max(0) as u64;
            next.set_window(new_start, new_start.saturating_add(end - start));
        }
        Command::ScrollTo(row) => next.top_row = row,
        Command::ShowProcesses(processes) => {
            next.processes = processes.and_then(|list| {
                let mut seen = std::collections::HashSet::new();
                let kept: Vec<u32> = list
                    .into_iter()
                    .filter(|&p| p < ws.n_processes && seen.insert(p))
                    .collect();
                // None shown is not a view: show all.
                (!kept.is_empty()).then_some(kept)
            });
            next.top_row = 0;
        }
        Command::ToggleProcess(p) if p < ws.n_processes => {
            let mut shown = ws
                .processes
                .clone()
                .unwrap_or_else(|| (0..ws.n_processes).collect());
            match shown.iter().position(|&q| q == p) {
                Some(k) => {
                    shown.remove(k);
                }
                None => shown.push(p),
            }
            // The last process stays: a view of no process is no view.
            if !shown.is_empty() {
                let all = shown.len() == ws.n_processes as usize && shown.is_sorted();
                next.processes = (!all).then_some(shown);
            }
        }
        Command::ToggleProcess(_) => {}
        Command::ToggleGroup(g) => toggle(&mut next.collapsed, g),
        Command::SetCollapsed(groups) => {
            next.collapsed = sorted(groups);
            next.top_row = 0;
        }
        Command::Select(selection) => next.selected = selection,
        Command::Hover(event) => next.hovered = event,
        Command::SelectRange(range) => {
            next.range = range.filter(|r| r.end > r.start && !r.processes.is_empty());
        }
        Command::ToggleOverlay(overlay) => {
            let other_path = match overlay {
                Overlay::CriticalPath => Some(Overlay::Wcpa),
                Overlay::Wcpa => Some(Overlay::CriticalPath),
                Overlay::WaitStates => None,
            };
            if let Some(other) = other_path
                && !ws.has_overlay(overlay)
            {
                next.overlays.retain(|o| *o != other);
            }
            toggle(&mut next.overlays, overlay);
        }
        Command::FilterRegion(region) => {
            next.filters.retain(|f| !matches!(f, Filter::Region { .. }));
            if let Some(id) = region {
                next.filters = sorted([next.filters, vec![Filter::Region { id }]].concat());
            }
        }
        Command::ToggleFilter(filter) => toggle(&mut next.filters, filter),
        Command::SetReplay(tick) => next.replay = tick,
        Command::ShowView(view) => next.view = view,
        Command::SetHasseAxis(axis) => next.hasse_axis = axis,
        Command::SetEventFilter(filter) => {
            next.event_filter = filter.filter(|f| !f.trim().is_empty());
        }
        Command::TogglePanel(panel) => toggle(&mut next.panels, panel),
        Command::SetReplaySpeed(speed) => next.replay_speed = speed,
        Command::Escape => {
            // Esc closes what is open first (the help, a selection, a range); with nothing
            // open, it clears the narrowing set last.
            if ws.has_panel(Panel::Help) || ws.selected.is_some() || ws.range.is_some() {
                next.panels.retain(|p| *p != Panel::Help);
                next.selected = None;
                next.range = None;
            } else if let Some(&last) = ws.narrowed.last() {
                return apply(ws, last.clear());
            }
        }
    }
    // The narrowings in the order they were set: one unchanged keeps its place, one set or
    // changed moves to the end, one cleared leaves.
    let kept = |n: &Narrowing| n.value(&next).is_some() && n.value(ws) == n.value(&next);
    let mut order: Vec<Narrowing> = ws.narrowed.iter().copied().filter(kept).collect();
    for n in Narrowing::ALL {
        if n.value(&next).is_some() && !order.contains(&n) {
            order.push(n);
        }
    }
    next.narrowed = order;
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::view::state::PathName;

    fn ws() -> Workspace {
        Workspace::new("run", (0, 1000), 4)
    }

    fn run(ws: &Workspace, commands: impl IntoIterator<Item = Command>) -> Workspace {
        commands.into_iter().fold(ws.clone(), |w, c| apply(&w, c))
    }

    #[test]
    fn zoom_keeps_the_anchor_and_always_moves_by_a_whole_tick() {
        let w = apply(
            &ws(),
            Command::Zoom {
                factor: 0.5,
                anchor: 0.5,
            },
        );
        assert_eq!(w.window, (250, 750));
        let w = apply(
            &w,
            Command::Zoom {
                factor: 2.0,
                anchor: 0.0,
            },
        );
        assert_eq!(w.window, (250, 1250));
        // Two ticks wide: a 10 % zoom out still widens it.
        let narrow = apply(&ws(), Command::SetWindow(10, 12));
        let out = apply(
            &narrow,
            Command::Zoom {
                factor: 1.1,
                anchor: 0.5,
            },
        );
        assert_eq!(out.window.1 - out.window.0, 3);
        let inward = apply(
            &narrow,
            Command::Zoom {
                factor: 0.9,
                anchor: 0.0,
            },
        );
        assert_eq!(inward.window, (10, 11));
        // One tick is the narrowest; four runs' lengths the widest.
        let w = apply(
            &inward,
            Command::Zoom {
                factor: 0.1,
                anchor: 0.0,
            },
        );
        assert_eq!(w.window, (10, 11));
        let w = apply(
            &ws(),
            Command::Zoom {
                factor: 100.0,
                anchor: 0.0,
            },
        );
        assert_eq!(w.window, (0, 4000));
    }

    #[test]
    fn pan_and_fit_stay_on_the_run() {
        let w = run(&ws(), [Command::SetWindow(100, 200), Command::Pan(-300)]);
        assert_eq!(w.window, (0, 100));
        let w = apply(&w, Command::Pan(5000));
        assert_eq!(w.window, (999, 1099));
        assert_eq!(apply(&w, Command::Fit).window, (0, 1000));
        let with_range = apply(
            &w,
            Command::SelectRange(Some(Range {
                start: 40,
                end: 60,
                processes: vec![1],
            })),
        );
        assert_eq!(apply(&with_range, Command::Fit).window, (40, 60));
        // Escape drops the range, the selection and the help, nothing else.
        let w = run(
            &with_range,
            [
                Command::TogglePanel(Panel::Help),
                Command::TogglePanel(Panel::Processes),
                Command::Select(Some(Selection::Event { index: 3 })),
                Command::Escape,
            ],
        );
        assert_eq!((w.range.clone(), w.selected), (None, None));
        assert_eq!(w.panels, [Panel::Processes]);
        assert_eq!(w.window, (999, 1099));
    }

    #[test]
    fn escape_clears_the_narrowing_set_last_once_nothing_is_open() {
        let w = run(
            &ws(),
            [
                Command::SetEventFilter(Some("kind=send".to_owned())),
                Command::ShowProcesses(Some(vec![2])),
                Command::FilterRegion(Some(1)),
                // Setting the event filter again moves it last.
                Command::SetEventFilter(Some("kind=arr".to_owned())),
                Command::Select(Some(Selection::Event { index: 3 })),
            ],
        );
        assert_eq!(
            w.narrowed,
            [Narrowing::Processes, Narrowing::Region, Narrowing::Events]
        );
        // The first Esc closes the selection, the next ones clear the narrowings, last first.
        let w = apply(&w, Command::Escape);
        assert_eq!((w.selected, w.narrowed.len()), (None, 3));
        let w = apply(&w, Command::Escape);
        assert_eq!(w.event_filter, None);
        assert_eq!(w.processes, Some(vec![2]));
        let w = apply(&w, Command::Escape);
        assert_eq!(w.region_filter(), None);
        let w = apply(&w, Command::Escape);
        assert_eq!((w.processes.clone(), w.narrowed.clone()), (None, vec![]));
        // A permalink restores them in a fixed order.
        let restored = Workspace::from_view_state(
            &run(
                &ws(),
                [
                    Command::ShowProcesses(Some(vec![1])),
                    Command::SetEventFilter(Some("kind=send".to_owned())),
                ],
            )
            .to_view_state(),
            (0, 1000),
            4,
        );
        assert_eq!(restored.narrowed, [Narrowing::Processes, Narrowing::Events]);
    }

    #[test]
    fn the_process_set_keeps_its_order_and_never_empties() {
        let w = apply(&ws(), Command::ShowProcesses(Some(vec![3, 1, 3, 9])));
        assert_eq!(w.processes, Some(vec![3, 1]));
        assert!(w.shows_process(1) && !w.shows_process(0));
        let w = apply(&w, Command::ToggleProcess(1));
        assert_eq!(w.processes, Some(vec![3]));
        // The last process stays.
        assert_eq!(
            apply(&w, Command::ToggleProcess(3)).processes,
            Some(vec![3])
        );
        let w = apply(&w, Command::ToggleProcess(0));
        assert_eq!(w.processes, Some(vec![3, 0]));
        // Hiding one of all, then showing it again at the end: all, in the trace's order.
        let w = run(
            &ws(),
            [Command::ToggleProcess(3), Command::ToggleProcess(3)],
        );
        assert_eq!(w.processes, None);
        assert_eq!(
            apply(&ws(), Command::ShowProcesses(Some(vec![]))).processes,
            None
        );
    }

    #[test]
    fn one_path_at_a_time_and_filters_are_sets() {
        let w = run(
            &ws(),
            [
                Command::ToggleOverlay(Overlay::WaitStates),
                Command::ToggleOverlay(Overlay::CriticalPath),
                Command::ToggleOverlay(Overlay::Wcpa),
            ],
        );
        assert_eq!(w.overlays, [Overlay::Wcpa, Overlay::WaitStates]);
        let w = apply(&w, Command::ToggleOverlay(Overlay::Wcpa));
        assert_eq!(w.overlays, [Overlay::WaitStates]);
        let w = run(
            &w,
            [
                Command::FilterRegion(Some(4)),
                Command::ToggleFilter(Filter::HideMessages),
                Command::FilterRegion(Some(2)),
            ],
        );
        assert_eq!(w.region_filter(), Some(2));
        assert!(w.hides_messages());
        let w = apply(&w, Command::FilterRegion(None));
        assert_eq!(w.filters, [Filter::HideMessages]);
    }

    #[test]
    fn groups_fold_all_at_once_and_unfold_all() {
        let w = run(
            &ws(),
            [
                Command::ScrollTo(2),
                Command::SetCollapsed(vec![3, 1, 3, 0]),
            ],
        );
        assert_eq!(w.collapsed, [0, 1, 3]);
        assert_eq!(w.top_row, 0, "folding moves rows: back to the top");
        let w = apply(&w, Command::ToggleGroup(1));
        assert_eq!(w.collapsed, [0, 3]);
        assert!(
            apply(&w, Command::SetCollapsed(Vec::new()))
                .collapsed
                .is_empty()
        );
    }

    #[test]
    fn a_permalink_restores_every_field() {
        let w = run(
            &ws(),
            [
                Command::SetWindow(120, 480),
                Command::ShowProcesses(Some(vec![2, 0])),
                Command::ScrollTo(1),
                Command::ToggleGroup(1),
                Command::Select(Some(Selection::PathSegment {
                    path: PathName::Wcpa,
                    index: 2,
                })),
                Command::Hover(Some(7)),
                Command::SelectRange(Some(Range {
                    start: 130,
                    end: 140,
                    processes: vec![0, 2],
                })),
                Command::ToggleOverlay(Overlay::Wcpa),
                Command::FilterRegion(Some(1)),
                Command::SetReplay(Some(300)),
                Command::ShowView(ViewKind::Hasse),
                Command::SetHasseAxis(shared::view::hasse::Axis::Lamport),
                Command::SetEventFilter(Some("kind=send".to_owned())),
                Command::TogglePanel(Panel::Processes),
                Command::SetReplaySpeed(Some("× 0.01".to_owned())),
            ],
        );
        assert_eq!(w.hasse_axis, shared::view::hasse::Axis::Lamport);
        let json = serde_json::to_string(&w.to_view_state()).expect("serializes");
        let state = shared::view::state::parse(&json).expect("parses");
        // Every saved field comes back; the order the narrowings were set in is not saved (a
        // permalink restores them processes, events, region).
        let restored = Workspace::from_view_state(&state, (0, 1000), 4);
        assert_eq!(
            restored.narrowed,
            [Narrowing::Processes, Narrowing::Events, Narrowing::Region]
        );
        assert_eq!(
            restored,
            Workspace {
                narrowed: restored.narrowed.clone(),
                ..w
            }
        );
        // A fresh workspace round-trips too, window included.
        assert_eq!(
            Workspace::from_view_state(&ws().to_view_state(), (0, 1000), 4),
            ws()
        );
        // A link from another run's shape drops the processes this one lacks.
        let narrow = Workspace::from_view_state(&state, (0, 1000), 1);
        assert_eq!(narrow.processes, Some(vec![0]));
    }
}
