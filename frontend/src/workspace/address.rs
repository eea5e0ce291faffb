//! The address is the view: the page's address carries the workspace (`?view=` and the view
//! state as JSON, percent-encoded), rewritten with `history.replaceState` once the view has
//! settled, so a reload or Back reopens the same window, tab, filters and replay; and the
//! share button's clipboard.
//!
//! The encoding and the query handling are pure, tested natively; the browser calls are thin.

use std::time::Duration;

use leptos::prelude::*;
use shared::view::state::ViewState;
use wasm_bindgen::{JsCast, JsValue};

use super::Workspace;
use super::store::Store;

/// How long the view must stay unchanged before the address follows it (a wheel zoom or a drag
/// writes the address once, at its end).
const SETTLE: Duration = Duration::from_millis(300);

/// The query parameter holding the view.
const PARAM: &str = "view";

/// `text` percent-encoded for a query value: everything but the unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A percent-encoded query value decoded (`+` read as a space), or `None` if it is not UTF-8.
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The view's JSON in a query string (`?a=1&view=…`), if there is one.
pub fn view_param(search: &str) -> Option<String> {
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|kv| kv.strip_prefix(PARAM)?.strip_prefix('='))
        .and_then(decode)
}

/// The query string `search` with its view replaced by `json` (other parameters kept).
pub fn with_view(search: &str, json: &str) -> String {
    let mut parts: Vec<String> = search
        .trim_start_matches('?')
        .split('&')
        .filter(|kv| !kv.is_empty() && kv.split('=').next() != Some(PARAM))
        .map(str::to_owned)
        .collect();
    parts.push(format!("{PARAM}={}", encode(json)));
    format!("?{}", parts.join("&"))
}

/// The view state the page's address carries for run `run`, if it carries one that reads.
pub fn view_in_address(run: &str) -> Option<ViewState> {
    let search = web_sys::window()?.location().search().ok()?;
    let state = shared::view::state::parse(&view_param(&search)?).ok()?;
    (state.run == run).then_some(state)
}

/// Keeps the page's address the workspace's view once it settles: the window, the tab, the
/// filters, the replay clock and speed (not the event under the pointer). Only while the page
/// is still at the path it was opened at, so a late write never lands on another page.
pub fn keep_address(store: Store) {
    let Some(path) = web_sys::window().and_then(|w| w.location().pathname().ok()) else {
        return;
    };
    let pending = StoredValue::new(None::<TimeoutHandle>);
    // The view as it opened: while the view is still that, a plain address stays plain (the
    // run's own link), and only a changed view is written.
    let opened = StoredValue::new(store.with_untracked(|ws| {
        let mut state = ws.to_view_state();
        state.hovered = None;
        serde_json::to_string(&state).ok()
    }));
    Effect::new(move |_| {
        let mut state = store.with(Workspace::to_view_state);
        state.hovered = None;
        let Ok(json) = serde_json::to_string(&state) else {
            return;
        };
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        let path = path.clone();
        let handle = set_timeout_with_handle(
            move || {
                let plain = opened.with_value(|o| o.as_deref() == Some(json.as_str()));
                if !(plain && address_is_plain()) {
                    write(&path, &json);
                }
            },
            SETTLE,
        )
        .ok();
        pending.set_value(handle);
    });
    on_cleanup(move || {
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
    });
}

/// Whether the address carries no view.
fn address_is_plain() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_none_or(|search| view_param(&search).is_none())
}

/// Replaces the address's view, if the page is still at `path`.
fn write(path: &str, json: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    if location.pathname().ok().as_deref() != Some(path) {
        return;
    }
    let search = location.search().unwrap_or_default();
    let url = format!("{path}{}", with_view(&search, json));
    if let Ok(history) = window.history() {
        // The router's own state stays with the entry.
        let state = history.state().unwrap_or(JsValue::NULL);
        let _ = history.replace_state_with_url(&state, "", Some(&url));
    }
}

/// Writes `text` to the clipboard (`navigator.clipboard.writeText`).
pub async fn copy_to_clipboard(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let get = |target: &JsValue, key: &str| js_sys::Reflect::get(target, &JsValue::from_str(key));
    let clipboard = get(&window, "navigator")
        .and_then(|n| get(&n, "clipboard"))
        .ok()
        .filter(|c| !c.is_undefined())
        .ok_or("this browser gives the page no clipboard")?;
    let write = get(&clipboard, "writeText")
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or("this browser gives the page no clipboard")?;
    let promise = write
        .call1(&clipboard, &JsValue::from_str(text))
        .map_err(|_| "the clipboard refused the link".to_owned())?;
    let promise: js_sys::Promise = promise
        .dyn_into()
        .map_err(|_| "the clipboard refused the link".to_owned())?;
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map(|_| ())
        .map_err(|_| "the clipboard refused the link".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_round_trips_through_the_query_keeping_other_parameters() {
        let json = r#"{"run":"abc","event_filter":"process=\"task 1\" time=80ms..120ms","replay_speed":"× 0.01"}"#;
        let search = with_view("?detail=server&view=old", json);
        assert!(search.starts_with("?detail=server&view="), "{search}");
        assert!(!search[1..].contains(['"', ' ', '?', '#']), "{search}");
        assert_eq!(view_param(&search).as_deref(), Some(json));
        assert_eq!(view_param("?detail=server"), None);
        assert_eq!(decode("a+b%C3%97"), Some("a b×".to_owned()));
        assert_eq!(decode("%E"), None);
    }
}
