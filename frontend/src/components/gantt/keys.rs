//! Keyboard navigation, as in Perfetto and Tracy: W/S zoom in and out at the cursor (or the
//! middle), A/D pan, F fits the selection (or the whole trace), T sets the replay clock, `?`
//! shows every shortcut. Pure functions from a key to a workspace command, tested natively.

use crate::workspace::Command;
use shared::view::state::Panel;

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAction {
    /// Zoom in.
    ZoomIn,
    /// Zoom out.
    ZoomOut,
    /// Move the window earlier.
    PanLeft,
    /// Move the window later.
    PanRight,
    /// Fit the selection, or the whole trace.
    Fit,
    /// Show or hide the help overlay.
    Help,
    /// Set the replay clock at the cursor.
    Replay,
    /// Close the overlay, the pop-up and the selection.
    Escape,
}

/// Each shortcut and what it does, for the help overlay.
pub const SHORTCUTS: [(&str, &str); 13] = [
    ("W / S", "zoom in / out at the cursor"),
    ("A / D", "move earlier / later"),
    ("Wheel", "zoom at the cursor"),
    (
        "Wheel over the labels",
        "scroll the rows (or use the scrollbar)",
    ),
    ("Drag", "pan (and scroll rows)"),
    ("Shift + drag", "select a range of time and rows"),
    ("F", "fit the selection, or the whole trace"),
    ("Click", "details of an event, a bar or a path segment"),
    ("Click a node's label", "collapse or expand its processes"),
    ("T", "set the replay clock at the cursor"),
    ("Shift + T", "clear the replay clock"),
    (
        "Esc",
        "close the pop-up, the help and the selection; then clear the last filter chip",
    ),
    ("?", "show or hide this help"),
];

/// The action of a key (as `KeyboardEvent.key` names it), if any.
pub fn action(key: &str) -> Option<KeyAction> {
    match key {
        "w" | "W" => Some(KeyAction::ZoomIn),
        "s" | "S" => Some(KeyAction::ZoomOut),
        "a" | "A" => Some(KeyAction::PanLeft),
        "d" | "D" => Some(KeyAction::PanRight),
        "f" | "F" => Some(KeyAction::Fit),
        "?" => Some(KeyAction::Help),
        "t" | "T" => Some(KeyAction::Replay),
        "Escape" => Some(KeyAction::Escape),
        _ => None,
    }
}

/// One key press's zoom factor (W zooms in by it, S out).
pub const ZOOM_STEP: f64 = 0.8;
/// One key press's pan, as a share of the plot's width.
pub const PAN_STEP: f64 = 0.2;

/// The command of a key: `anchor` is where a zoom is centred (a share of the window from its
/// left edge: the cursor, or the middle), `window_ticks` the window's width, `cursor_tick` the
/// tick under the cursor (for the replay clock; `None` clears it).
pub fn command(
    action: KeyAction,
    anchor: f64,
    window_ticks: u64,
    cursor_tick: Option<u64>,
) -> Command {
    let pan = (PAN_STEP * window_ticks as f64).round().max(1.0) as i64;
    match action {
        KeyAction::ZoomIn => Command::Zoom {
            factor: ZOOM_STEP,
            anchor,
        },
        KeyAction::ZoomOut => Command::Zoom {
            factor: 1.0 / ZOOM_STEP,
            anchor,
        },
        KeyAction::PanLeft => Command::Pan(-pan),
        KeyAction::PanRight => Command::Pan(pan),
        KeyAction::Fit => Command::Fit,
        KeyAction::Help => Command::TogglePanel(Panel::Help),
        KeyAction::Escape => Command::Escape,
        KeyAction::Replay => Command::SetReplay(cursor_tick),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wasd_zoom_at_the_anchor_and_pan_by_a_fifth() {
        use crate::workspace::{Workspace, apply};
        let ws = Workspace::new("run", (0, 1000), 2);
        let key = |ws: &Workspace, action| {
            apply(ws, command(action, 0.5, ws.window.1 - ws.window.0, None))
        };
        let zoomed = key(&ws, KeyAction::ZoomIn);
        assert_eq!(zoomed.window, (100, 900));
        assert_eq!(key(&zoomed, KeyAction::ZoomOut).window, (0, 1000));
        let right = key(&ws, KeyAction::PanRight);
        assert_eq!(right.window, (200, 1200));
        assert_eq!(key(&right, KeyAction::PanLeft).window, (0, 1000));
        assert_eq!(
            command(KeyAction::Replay, 0.5, 10, Some(7)),
            Command::SetReplay(Some(7))
        );
    }

    #[test]
    fn keys_map_to_actions_in_either_case() {
        assert_eq!(action("w"), Some(KeyAction::ZoomIn));
        assert_eq!(action("D"), Some(KeyAction::PanRight));
        assert_eq!(action("?"), Some(KeyAction::Help));
        assert_eq!(action("x"), None);
        assert!(SHORTCUTS.iter().any(|(k, _)| k.contains('?')));
    }
}
