//! Keyboard navigation, as in Perfetto and Tracy: W/S zoom in and out at the cursor (or the
//! middle), A/D pan, F fits the selection (or the whole trace), `?` shows every shortcut.
//! Pure functions of the key and the scale, tested natively.

use super::time_scale::TimeScale;

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
    /// Close the overlay, the pop-up and the selection.
    Escape,
}

/// Each shortcut and what it does, for the help overlay.
pub const SHORTCUTS: [(&str, &str); 11] = [
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
    ("Esc", "close the pop-up, the help and the selection"),
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
        "Escape" => Some(KeyAction::Escape),
        _ => None,
    }
}

/// One key press's zoom factor (W zooms in by it, S out).
pub const ZOOM_STEP: f64 = 0.8;
/// One key press's pan, as a share of the plot's width.
pub const PAN_STEP: f64 = 0.2;

/// The scale after a navigation key, zooming at `anchor_px` (the cursor, or the middle).
/// Keys that do not navigate leave it as it is.
pub fn navigate(scale: &TimeScale, action: KeyAction, anchor_px: f64, width_px: f64) -> TimeScale {
    match action {
        KeyAction::ZoomIn => scale.zoomed(ZOOM_STEP, anchor_px),
        KeyAction::ZoomOut => scale.zoomed(1.0 / ZOOM_STEP, anchor_px),
        KeyAction::PanLeft => scale.panned(PAN_STEP * width_px),
        KeyAction::PanRight => scale.panned(-PAN_STEP * width_px),
        KeyAction::Fit | KeyAction::Help | KeyAction::Escape => *scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::model::time::Time;

    #[test]
    fn wasd_zoom_at_the_anchor_and_pan_by_a_fifth() {
        let scale = TimeScale::fit(Time(0), Time(1000), 500.0);
        let zoomed = navigate(&scale, KeyAction::ZoomIn, 250.0, 500.0);
        let (a, b) = zoomed.window();
        assert!(
            (a - 100.0).abs() < 1e-9 && (b - 900.0).abs() < 1e-9,
            "{a}..{b}"
        );
        let back = navigate(&zoomed, KeyAction::ZoomOut, 250.0, 500.0);
        let (a, b) = back.window();
        assert!(a.abs() < 1e-9 && (b - 1000.0).abs() < 1e-9, "{a}..{b}");
        let right = navigate(&scale, KeyAction::PanRight, 0.0, 500.0);
        assert!((right.window().0 - 200.0).abs() < 1e-9);
        let left = navigate(&right, KeyAction::PanLeft, 0.0, 500.0);
        assert!(left.window().0.abs() < 1e-9);
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
