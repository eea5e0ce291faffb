//! The replay: a global clock over the run that every view follows — a cursor on the Gantt
//! chart, the topology's load at that instant and its messages in flight — with play and
//! pause, steps from event to event, a speed in trace time or in events a second, a scrubber
//! over the window, rewind and a loop. Space plays or pauses, `,` and `.` step. The clock is
//! the workspace's, so a permalink keeps it.
//!
//! The stepping and the clock's advance are pure functions of the run's sorted event times,
//! tested natively.

use std::sync::Arc;

use leptos::prelude::*;
use shared::Trace;

use crate::components::gantt::{canvas, details};
use crate::workspace::Command;
use crate::workspace::store::Store;

/// How fast the clock runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    /// Trace seconds per wall-clock second (ticks a second for a trace without a unit).
    TraceTime(f64),
    /// Events passed per wall-clock second.
    Events(f64),
}

/// The speeds offered, with their labels.
pub const SPEEDS: [(&str, Speed); 12] = [
    ("× 0.0001", Speed::TraceTime(1e-4)),
    ("× 0.001", Speed::TraceTime(1e-3)),
    ("× 0.01", Speed::TraceTime(1e-2)),
    ("× 0.1", Speed::TraceTime(0.1)),
    ("× 1 (real time)", Speed::TraceTime(1.0)),
    ("× 10", Speed::TraceTime(10.0)),
    ("× 100", Speed::TraceTime(100.0)),
    ("× 1000", Speed::TraceTime(1000.0)),
    ("10 events/s", Speed::Events(10.0)),
    ("100 events/s", Speed::Events(100.0)),
    ("1,000 events/s", Speed::Events(1000.0)),
    ("10,000 events/s", Speed::Events(10_000.0)),
];

/// The speed that plays a window of `ticks` in 10 to 100 seconds: the slowest trace-time
/// speed that is fast enough, or 100 events a second for a trace without a time unit.
pub fn default_speed(ticks: u64, ticks_per_second: Option<u64>) -> usize {
    let Some(tps) = ticks_per_second.filter(|&t| t > 0) else {
        return 9;
    };
    let seconds = ticks as f64 / tps as f64;
    SPEEDS
        .iter()
        .position(|(_, s)| matches!(s, Speed::TraceTime(r) if seconds / r <= 100.0))
        .unwrap_or(7)
}

/// The time of the first event after `t` (forward) or the last before it, in `times` (sorted).
pub fn step(times: &[u64], t: u64, forward: bool) -> Option<u64> {
    if forward {
        let i = times.partition_point(|&x| x <= t);
        times.get(i).copied()
    } else {
        let i = times.partition_point(|&x| x < t);
        i.checked_sub(1).map(|i| times[i])
    }
}

/// The clock after `seconds` of wall time at `speed`, from `tick` with `carry` (the fraction
/// of a tick or an event left over from the last frame): the new tick and carry.
pub fn advance(
    times: &[u64],
    (tick, carry): (u64, f64),
    seconds: f64,
    speed: Speed,
    ticks_per_second: Option<u64>,
) -> (u64, f64) {
    match speed {
        Speed::TraceTime(ratio) => {
            let tps = ticks_per_second.filter(|&t| t > 0).unwrap_or(1) as f64;
            let ticks = carry + seconds * ratio * tps;
            let whole = ticks.floor();
            (tick.saturating_add(whole as u64), ticks - whole)
        }
        Speed::Events(rate) => {
            let events = carry + seconds * rate;
            let whole = events.floor() as usize;
            if whole == 0 {
                return (tick, events);
            }
            let i = times.partition_point(|&x| x <= tick) + whole - 1;
            match times.get(i) {
                Some(&t) => (t, events - whole as f64),
                None => (times.last().copied().unwrap_or(tick).max(tick), 0.0),
            }
        }
    }
}

/// What the replay plays: the selected range when there is one, else the time window.
fn played(ws: &crate::workspace::Workspace) -> (u64, u64) {
    match &ws.range {
        Some(r) if r.end > r.start => (r.start, r.end),
        _ => ws.window,
    }
}

/// The replay's state in the page.
#[derive(Clone, Copy)]
struct Replay {
    store: Store,
    trace: StoredValue<Arc<Trace>>,
    /// Every event's time, sorted, once first needed (empty for a run drawn by the server).
    times: StoredValue<Option<Arc<Vec<u64>>>>,
    remote: bool,
    playing: RwSignal<bool>,
    speed: RwSignal<usize>,
    looping: RwSignal<bool>,
    /// The wall time of the last frame, and the carry.
    last: StoredValue<Option<(f64, f64)>>,
}

impl Replay {
    /// Every event's time, sorted: built on first use.
    fn times(&self) -> Arc<Vec<u64>> {
        if let Some(times) = self.times.get_value() {
            return times;
        }
        let times = if self.remote {
            Vec::new()
        } else {
            self.trace.with_value(|trace| {
                let mut t: Vec<u64> = trace.events.time().iter().map(|t| t.0).collect();
                t.sort_unstable();
                t
            })
        };
        let times = Arc::new(times);
        self.times.set_value(Some(times.clone()));
        times
    }

    fn clock(&self) -> Option<u64> {
        self.store.with_untracked(|ws| ws.replay)
    }

    fn window(&self) -> (u64, u64) {
        self.store.with_untracked(played)
    }

    fn set(&self, tick: u64) {
        self.store.dispatch(Command::SetReplay(Some(tick)));
    }

    /// One step to the next or previous event (a two-hundredth of the window for a run whose
    /// events are on the server).
    fn step(&self, forward: bool) {
        self.playing.set(false);
        let (start, end) = self.window();
        let now = self.clock().unwrap_or(start);
        let times = self.times();
        let next = if times.is_empty() {
            let d = ((end - start) / 200).max(1);
            Some(if forward {
                now.saturating_add(d)
            } else {
                now.saturating_sub(d)
            })
        } else {
            step(&times, now, forward)
        };
        if let Some(t) = next {
            self.set(t);
        }
    }

    fn toggle(&self) {
        if self.playing.get_untracked() {
            self.playing.set(false);
            return;
        }
        let (start, end) = self.window();
        if self.clock().is_none_or(|t| t >= end || t < start) {
            self.set(start);
        }
        self.last.set_value(None);
        self.playing.set(true);
        schedule(*self);
    }
}

/// Advances the clock once a frame while playing. The clock moves in a task just after the
/// frame, not inside it: the views then ask to paint in the next frame, and paint every frame
/// (a paint asked for during a frame's callbacks would wait for the frame after).
fn schedule(replay: Replay) {
    request_animation_frame(move || {
        set_timeout(move || tick(replay), std::time::Duration::ZERO);
    });
}

/// One step of the clock while playing.
fn tick(replay: Replay) {
    // The replay may be gone by the frame (its run swapped, the page left).
    if replay.playing.is_disposed() || !replay.playing.get_untracked() {
        return;
    }
    let now = canvas::now_ms();
    let (start, end) = replay.window();
    let tick = replay.clock().unwrap_or(start);
    let (last, carry) = replay.last.get_value().unwrap_or((now, 0.0));
    let speed = SPEEDS[replay.speed.get_untracked().min(SPEEDS.len() - 1)].1;
    let tps = replay.trace.with_value(|t| t.clock.ticks_per_second);
    let times = replay.times();
    let seconds = ((now - last) / 1000.0).clamp(0.0, 0.25);
    let (mut next, carry) = advance(&times, (tick, carry), seconds, speed, tps);
    let mut playing = true;
    if next >= end {
        if replay.looping.get_untracked() {
            next = start;
        } else {
            next = end;
            playing = false;
        }
    }
    replay.last.set_value(Some((now, carry)));
    if next != tick {
        replay.set(next);
    }
    if playing {
        schedule(replay);
    } else {
        replay.playing.set(false);
    }
}

/// Whether a key press is meant for a form field rather than the page (with `buttons`, a
/// focused button too: Space presses it).
fn for_a_field(ev: &web_sys::KeyboardEvent, buttons: bool) -> bool {
    use wasm_bindgen::JsCast as _;
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| match el.tag_name().as_str() {
            "INPUT" => el.get_attribute("type").as_deref() != Some("range") || buttons,
            "TEXTAREA" | "SELECT" => true,
            "BUTTON" => buttons,
            _ => false,
        })
}

/// The replay bar: shown above every view of a run.
#[component]
pub fn ReplayBar(trace: Arc<Trace>, #[prop(default = false)] remote: bool) -> impl IntoView {
    let store = Store::expect();
    let window_ticks = store.with_untracked(|ws| ws.window.1 - ws.window.0);
    // The speed the workspace names (a permalink's, or the user's pick), else one that plays
    // the window in 10 to 100 seconds.
    let named = store.with_untracked(|ws| {
        ws.replay_speed
            .as_deref()
            .and_then(|name| SPEEDS.iter().position(|(label, _)| *label == name))
    });
    let replay = Replay {
        store,
        speed: RwSignal::new(
            named.unwrap_or_else(|| default_speed(window_ticks, trace.clock.ticks_per_second)),
        ),
        trace: StoredValue::new(trace),
        times: StoredValue::new(None),
        remote,
        playing: RwSignal::new(false),
        looping: RwSignal::new(false),
        last: StoredValue::new(None),
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        match ev.key().as_str() {
            " " if !for_a_field(&ev, true) => {
                ev.prevent_default();
                replay.toggle();
            }
            "," if !for_a_field(&ev, false) => replay.step(false),
            "." if !for_a_field(&ev, false) => replay.step(true),
            _ => {}
        }
    });
    on_cleanup(move || {
        keys.remove();
        replay.playing.set(false);
    });
    bar(replay)
}

fn bar(replay: Replay) -> impl IntoView {
    let store = replay.store;
    let clock_text = move || {
        let trace = replay.trace.get_value();
        match store.with(|ws| ws.replay) {
            Some(t) => details::time_text(&trace, t),
            None => "off".to_owned(),
        }
    };
    let scrub_value = move || {
        store
            .with(|ws| ws.replay.unwrap_or(played(ws).0))
            .to_string()
    };
    let on_scrub = move |ev: leptos::ev::Event| {
        if let Ok(t) = event_target_value(&ev).parse::<u64>() {
            replay.playing.set(false);
            replay.set(t);
        }
    };
    let options = SPEEDS
        .iter()
        .enumerate()
        // Each option says whether it is the speed, so the box shows it even when its value is
        // set before the options exist.
        .map(|(i, (label, _))| {
            view! { <option value=i.to_string() selected=move || replay.speed.get() == i>{*label}</option> }
        })
        .collect_view();
    view! {
        <div class="replay" role="toolbar" aria-label="Replay" data-testid="replay">
            <button data-testid="replay-rewind" title="Back to the window's start"
                on:click=move |_| { replay.playing.set(false); replay.set(replay.window().0); }>"|◀ start"</button>
            <button data-testid="replay-back" title="The previous event (,)"
                on:click=move |_| replay.step(false)>"◀ event"</button>
            <button data-testid="replay-play" class="replay-play" title="Play or pause (Space)"
                aria-pressed=move || replay.playing.get().to_string()
                on:click=move |_| replay.toggle()>
                {move || if replay.playing.get() { "Pause" } else { "▶ Play" }}
            </button>
            <button data-testid="replay-forward" title="The next event (.)"
                on:click=move |_| replay.step(true)>"event ▶"</button>
            <input type="range" class="replay-scrub" data-testid="replay-scrub" aria-label="Replay clock"
                min=move || store.with(|ws| played(ws).0.to_string())
                max=move || store.with(|ws| played(ws).1.to_string())
                prop:value=scrub_value
                on:input=on_scrub/>
            <span class="replay-clock" data-testid="replay-clock"
                data-tick=move || store.with(|ws| ws.replay.map(|t| t.to_string()).unwrap_or_default())>
                {clock_text}
            </span>
            <label>"speed "
                <select data-testid="replay-speed" prop:value=move || replay.speed.get().to_string()
                    on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                            let i = i.min(SPEEDS.len() - 1);
                            replay.speed.set(i);
                            store.dispatch(Command::SetReplaySpeed(Some(SPEEDS[i].0.to_owned())));
                        }
                    }>
                    {options}
                </select>
            </label>
            <label title="Loop over the selected range, or the window"><input type="checkbox" data-testid="replay-loop"
                prop:checked=move || replay.looping.get()
                on:change=move |ev| replay.looping.set(event_target_checked(&ev))/>" loop"</label>
            <button data-testid="replay-off" title="Clear the clock: the views show the whole window again"
                on:click=move |_| { replay.playing.set(false); store.dispatch(Command::SetReplay(None)); }>"Clock off"</button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMES: [u64; 6] = [0, 10, 10, 25, 40, 100];

    #[test]
    fn steps_go_from_event_to_event() {
        assert_eq!(step(&TIMES, 0, true), Some(10));
        assert_eq!(step(&TIMES, 10, true), Some(25));
        assert_eq!(step(&TIMES, 12, true), Some(25));
        assert_eq!(step(&TIMES, 100, true), None);
        assert_eq!(step(&TIMES, 25, false), Some(10));
        assert_eq!(step(&TIMES, 26, false), Some(25));
        assert_eq!(step(&TIMES, 0, false), None);
    }

    #[test]
    fn trace_time_runs_at_its_ratio_and_keeps_the_fraction() {
        // 1 µs ticks, × 0.001: 16 ms of wall time is 16 µs of trace time, 16 ticks.
        let (tick, carry) = advance(
            &TIMES,
            (100, 0.0),
            0.016,
            Speed::TraceTime(1e-3),
            Some(1_000_000),
        );
        assert_eq!(tick, 116);
        assert!(carry.abs() < 1e-6);
        // Half a tick a frame: every other frame moves.
        let (t1, c1) = advance(&TIMES, (0, 0.0), 0.5, Speed::TraceTime(1.0), None);
        assert_eq!((t1, c1), (0, 0.5));
        let (t2, c2) = advance(&TIMES, (t1, c1), 0.5, Speed::TraceTime(1.0), None);
        assert_eq!((t2, c2), (1, 0.0));
    }

    #[test]
    fn events_per_second_passes_whole_events() {
        // 100 events a second for 25 ms: 2.5 events, so two (10 and 10 are both passed).
        let (tick, carry) = advance(&TIMES, (0, 0.0), 0.025, Speed::Events(100.0), None);
        assert_eq!(tick, 10);
        assert!((carry - 0.5).abs() < 1e-9);
        let (tick, _) = advance(&TIMES, (tick, carry), 0.015, Speed::Events(100.0), None);
        assert_eq!(tick, 40, "two more: 25 and 40");
        let (tick, _) = advance(&TIMES, (40, 0.0), 10.0, Speed::Events(100.0), None);
        assert_eq!(tick, 100, "stops at the last event");
    }

    #[test]
    fn the_default_speed_plays_the_window_in_at_most_100_seconds() {
        // 5.7 ms in ns: × 0.0001 plays it in 57 s.
        assert_eq!(
            SPEEDS[default_speed(5_700_000, Some(1_000_000_000))].0,
            "× 0.0001"
        );
        // 30 s: × 1 plays it in 30 s.
        assert_eq!(
            SPEEDS[default_speed(30_000_000_000, Some(1_000_000_000))].0,
            "× 1 (real time)"
        );
        assert_eq!(SPEEDS[default_speed(69, None)].0, "100 events/s");
    }
}
