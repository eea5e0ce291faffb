//! Level of detail for the Gantt chart: what a time window and a range of process rows look like
//! at a width in pixels, in a size that follows the pixels, not the trace.
//!
//! [`ViewportIndex`] is built once per trace (state spans and messages, struct of arrays, sorted,
//! with per-row prefix sums of state durations). [`ViewportIndex::query`] then answers a window:
//! - a state span at least one pixel wide, or alone in its pixel, is returned as itself;
//! - where several spans share a pixel, the pixel is summarised (its dominant state by time,
//!   the number of spans, "more here"), and neighbouring summarised pixels with the same dominant
//!   state are merged into one [`Bin`]; each pixel costs one binary search, so a row costs
//!   O(width · log spans) however many spans the window holds;
//! - messages are walked per (sender, receiver) pair, a pixel at a time (one binary search per
//!   pixel): a message alone in its pixel, with no message of its pair in the pixels next to it,
//!   is returned as itself; runs of neighbouring pixels holding messages of the pair become one
//!   [`Bundle`] (count, bytes, first and last message). A dense stream is one bundle however long
//!   the window, so the answer grows with pairs and pixels, not with messages.
//!
//! Times stay integer ticks; pixel positions are integers `0..width`.

use serde::{Deserialize, Serialize};

use crate::graph::ExecutionGraph;
use crate::model::Trace;
use crate::pairing::Pairing;
use crate::states::{State, state_spans_of};

/// The widest viewport answered, in pixels.
pub const MAX_WIDTH_PX: u32 = 16_384;

/// What to show: a window `[start, end)` in ticks, rows `first_row..=last_row`, `width_px` wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewportRequest {
    /// The first tick.
    pub start: u64,
    /// The tick after the last.
    pub end: u64,
    /// The first process row.
    pub first_row: u32,
    /// The last process row (clamped to the trace).
    pub last_row: u32,
    /// The width in pixels.
    pub width_px: u32,
}

/// Why a viewport cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewportError {
    /// The window is empty or reversed.
    #[error("the window must end after it starts (start {start}, end {end})")]
    EmptyWindow {
        /// The requested start.
        start: u64,
        /// The requested end.
        end: u64,
    },
    /// The width is 0 or above [`MAX_WIDTH_PX`].
    #[error("the width must be 1 to {MAX_WIDTH_PX} pixels, not {0}")]
    Width(u32),
    /// The rows are reversed.
    #[error("the first row ({first}) must not follow the last ({last})")]
    Rows {
        /// The requested first row.
        first: u32,
        /// The requested last row.
        last: u32,
    },
}

/// Pixels in one row whose spans are too small to draw one by one, all with the same dominant
/// state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bin {
    /// The first pixel.
    pub px_first: u32,
    /// The last pixel.
    pub px_last: u32,
    /// The state that covers most of each of these pixels.
    pub state: State,
    /// How many spans the pixels summarise ("more here").
    pub count: u32,
}

/// One row of the viewport: spans drawn as they are, and summarised pixels, both as columns
/// (states as one letter each: `c` computing, `b` blocked) so the answer stays small.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RowView {
    /// The process.
    pub process: u32,
    /// Each drawn span's start (not clipped to the window).
    pub span_start: Vec<u64>,
    /// Each drawn span's end.
    pub span_end: Vec<u64>,
    /// Each drawn span's state, one letter per span.
    pub span_state: String,
    /// Each bin's first pixel.
    pub bin_px: Vec<u32>,
    /// Each bin's width in pixels.
    pub bin_width: Vec<u32>,
    /// Each bin's dominant state, one letter per bin.
    pub bin_state: String,
    /// How many spans each bin summarises.
    pub bin_count: Vec<u32>,
}

/// The letter of a state in [`RowView`]'s columns.
pub fn state_letter(state: State) -> char {
    match state {
        State::Computing => 'c',
        State::Blocked => 'b',
    }
}

/// The state of a letter in [`RowView`]'s columns.
pub fn letter_state(letter: char) -> Option<State> {
    match letter {
        'c' => Some(State::Computing),
        'b' => Some(State::Blocked),
        _ => None,
    }
}

impl RowView {
    /// The drawn spans' states.
    pub fn span_states(&self) -> Vec<State> {
        self.span_state.chars().filter_map(letter_state).collect()
    }

    /// The bins, as items.
    pub fn bins(&self) -> Vec<Bin> {
        self.bin_state
            .chars()
            .filter_map(letter_state)
            .enumerate()
            .map(|(i, state)| Bin {
                px_first: self.bin_px[i],
                px_last: self.bin_px[i] + self.bin_width[i] - 1,
                state,
                count: self.bin_count[i],
            })
            .collect()
    }

    fn push_bin(&mut self, px: u32, state: State, count: u32) {
        let letter = state_letter(state);
        if let (Some(last), Some(first), Some(width), Some(n)) = (
            self.bin_state.chars().last(),
            self.bin_px.last(),
            self.bin_width.last_mut(),
            self.bin_count.last_mut(),
        ) && last == letter
            && first + *width >= px
        {
            *width = px - first + 1;
            *n = n.saturating_add(count);
            return;
        }
        self.bin_px.push(px);
        self.bin_width.push(1);
        self.bin_state.push(letter);
        self.bin_count.push(count);
    }
}

/// Messages drawn one by one, as columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct MessageColumns {
    /// The sending process.
    pub from: Vec<u32>,
    /// The receiving process.
    pub to: Vec<u32>,
    /// The send time.
    pub send: Vec<u64>,
    /// The arrival time.
    pub arrival: Vec<u64>,
    /// The size in bytes.
    pub bytes: Vec<u64>,
}

/// Messages of one sender and receiver sent in a run of neighbouring pixels. Sends and arrivals
/// are those of the run's first and last message in send order (on a FIFO channel, the earliest
/// and latest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    /// The sending process.
    pub from: u32,
    /// The receiving process.
    pub to: u32,
    /// How many messages.
    pub count: u32,
    /// Their bytes in all.
    pub bytes: u64,
    /// The first send.
    pub first_send: u64,
    /// The last send.
    pub last_send: u64,
    /// The first arrival.
    pub first_arrival: u64,
    /// The last arrival.
    pub last_arrival: u64,
}

/// The answer to a [`ViewportRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Viewport {
    /// The window answered (as requested).
    pub start: u64,
    /// The tick after the last.
    pub end: u64,
    /// The width in pixels.
    pub width_px: u32,
    /// The rows `first_row..=last_row` (clamped), in order.
    pub rows: Vec<RowView>,
    /// Messages with an end in the rows that cross the window, drawn one by one.
    pub messages: MessageColumns,
    /// Messages bundled per sender, receiver and send pixel.
    pub bundles: Vec<Bundle>,
}

/// A trace prepared for viewport queries.
#[derive(Debug, Clone, Default)]
pub struct ViewportIndex {
    /// Spans of row `r` are `row_start[r]..row_start[r + 1]`.
    row_start: Vec<usize>,
    span_start: Vec<u64>,
    span_end: Vec<u64>,
    span_state: Vec<State>,
    /// Per span: computing ticks of the row's spans before it (prefix sum, per row).
    computing_before: Vec<u64>,
    /// Per span: blocked ticks of the row's spans before it.
    blocked_before: Vec<u64>,
    /// Messages sorted by (sender, receiver, send time); pair `q`'s are
    /// `pair_start[q]..pair_start[q + 1]`.
    pair_start: Vec<usize>,
    pair_from: Vec<u32>,
    pair_to: Vec<u32>,
    /// Per pair: the longest send → arrival time, bounding the search for messages in flight
    /// when a window starts.
    pair_max_transit: Vec<u64>,
    msg_send: Vec<u64>,
    msg_arrival: Vec<u64>,
    /// Bytes of all messages before each one (prefix sum, one more entry than messages).
    bytes_before: Vec<u64>,
}

impl ViewportIndex {
    /// Prepares `trace` (with its pairing and execution graph) for queries.
    pub fn new(trace: &Trace, pairing: &Pairing, graph: &ExecutionGraph) -> ViewportIndex {
        let spans = state_spans_of(trace, graph);
        let n_rows = trace.processes.len();
        let mut index = ViewportIndex {
            row_start: Vec::with_capacity(n_rows + 1),
            span_start: Vec::with_capacity(spans.len()),
            span_end: Vec::with_capacity(spans.len()),
            span_state: Vec::with_capacity(spans.len()),
            computing_before: Vec::with_capacity(spans.len()),
            blocked_before: Vec::with_capacity(spans.len()),
            ..ViewportIndex::default()
        };
        // `state_spans_of` yields spans by process, then by time.
        let mut next = 0;
        for row in 0..n_rows {
            index.row_start.push(index.span_start.len());
            let (mut computing, mut blocked) = (0u64, 0u64);
            while next < spans.len() && spans[next].process.0 as usize == row {
                let s = spans[next];
                index.span_start.push(s.start.0);
                index.span_end.push(s.end.0);
                index.span_state.push(s.state);
                index.computing_before.push(computing);
                index.blocked_before.push(blocked);
                let length = s.end.0 - s.start.0;
                match s.state {
                    State::Computing => computing += length,
                    State::Blocked => blocked += length,
                }
                next += 1;
            }
        }
        index.row_start.push(index.span_start.len());

        let time = trace.events.time();
        let process = trace.events.process();
        let size = trace.events.size();
        let mut order: Vec<(u32, u32, u64, u32)> = pairing
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let (s, r) = (m.send.0 as usize, m.arrival.0 as usize);
                (process[s].0, process[r].0, time[s].0, i as u32)
            })
            .collect();
        order.sort_unstable();
        index.bytes_before.push(0);
        for (k, &(from, to, send, i)) in order.iter().enumerate() {
            let m = pairing.messages[i as usize];
            let arrival = time[m.arrival.0 as usize].0;
            if k == 0 || (order[k - 1].0, order[k - 1].1) != (from, to) {
                index.pair_start.push(k);
                index.pair_from.push(from);
                index.pair_to.push(to);
                index.pair_max_transit.push(0);
            }
            if let Some(transit) = index.pair_max_transit.last_mut() {
                *transit = (*transit).max(arrival.saturating_sub(send));
            }
            index.msg_send.push(send);
            index.msg_arrival.push(arrival);
            let before = index.bytes_before[k];
            index
                .bytes_before
                .push(before.saturating_add(size[m.send.0 as usize]));
        }
        index.pair_start.push(order.len());
        index
    }

    /// The number of process rows.
    pub fn n_rows(&self) -> u32 {
        self.row_start.len().saturating_sub(1) as u32
    }

    /// The number of state spans.
    pub fn n_spans(&self) -> usize {
        self.span_start.len()
    }

    /// The number of messages.
    pub fn n_messages(&self) -> usize {
        self.msg_send.len()
    }

    /// The number of (sender, receiver) pairs that exchange messages.
    pub fn n_pairs(&self) -> usize {
        self.pair_from.len()
    }

    /// Answers a viewport.
    pub fn query(&self, request: &ViewportRequest) -> Result<Viewport, ViewportError> {
        let &ViewportRequest {
            start,
            end,
            first_row,
            last_row,
            width_px,
        } = request;
        if start >= end {
            return Err(ViewportError::EmptyWindow { start, end });
        }
        if width_px == 0 || width_px > MAX_WIDTH_PX {
            return Err(ViewportError::Width(width_px));
        }
        if first_row > last_row {
            return Err(ViewportError::Rows {
                first: first_row,
                last: last_row,
            });
        }
        let scale = Scale::new(start, end, width_px);
        let last = last_row.min(self.n_rows().saturating_sub(1));
        let rows = if self.n_rows() == 0 || first_row > last {
            Vec::new()
        } else {
            (first_row..=last).map(|r| self.row(r, &scale)).collect()
        };
        let (messages, bundles) = self.messages(&scale, first_row, last);
        Ok(Viewport {
            start,
            end,
            width_px,
            rows,
            messages,
            bundles,
        })
    }

    fn row(&self, row: u32, scale: &Scale) -> RowView {
        let (lo, hi) = (
            self.row_start[row as usize],
            self.row_start[row as usize + 1],
        );
        let starts = &self.span_start[lo..hi];
        let ends = &self.span_end[lo..hi];
        let mut out = RowView {
            process: row,
            ..RowView::default()
        };
        // The first span that ends after the window starts.
        let mut i = ends.partition_point(|&e| e <= scale.start);
        while i < starts.len() && starts[i] < scale.end {
            let visible_start = starts[i].max(scale.start);
            let visible_end = ends[i].min(scale.end);
            if scale.is_wide(visible_start, visible_end) {
                self.push_span(&mut out, lo + i);
                i += 1;
                continue;
            }
            // A narrow span: summarise every span that starts in its pixel, except a last one
            // that reaches on for a pixel or more (it is drawn as itself next).
            let px = scale.px(visible_start);
            let pixel_end = scale.pixel_end(px);
            let mut j = i + starts[i..].partition_point(|&s| s < pixel_end);
            if j - i > 1 && scale.is_wide(pixel_end, ends[j - 1].min(scale.end)) {
                j -= 1;
            }
            if j - i == 1 {
                self.push_span(&mut out, lo + i);
                i = j;
                continue;
            }
            let (computing, blocked) = self.state_ticks(lo + i, lo + j);
            let state = if computing >= blocked {
                State::Computing
            } else {
                State::Blocked
            };
            out.push_bin(px, state, (j - i) as u32);
            i = j;
        }
        out
    }

    fn push_span(&self, out: &mut RowView, k: usize) {
        out.span_start.push(self.span_start[k]);
        out.span_end.push(self.span_end[k]);
        out.span_state.push(state_letter(self.span_state[k]));
    }

    /// Computing and blocked ticks of spans `a..b` (global indices, one row).
    fn state_ticks(&self, a: usize, b: usize) -> (u64, u64) {
        let last = b - 1;
        let length = self.span_end[last] - self.span_start[last];
        let (mut computing, mut blocked) = (
            self.computing_before[last] - self.computing_before[a],
            self.blocked_before[last] - self.blocked_before[a],
        );
        match self.span_state[last] {
            State::Computing => computing += length,
            State::Blocked => blocked += length,
        }
        (computing, blocked)
    }

    fn messages(
        &self,
        scale: &Scale,
        first_row: u32,
        last_row: u32,
    ) -> (MessageColumns, Vec<Bundle>) {
        let mut columns = MessageColumns::default();
        let mut bundles: Vec<Bundle> = Vec::new();
        let in_rows = |p: u32| p >= first_row && p <= last_row;
        for q in 0..self.pair_from.len() {
            let (from, to) = (self.pair_from[q], self.pair_to[q]);
            if !(in_rows(from) || in_rows(to)) {
                continue;
            }
            let (lo, hi) = (self.pair_start[q], self.pair_start[q + 1]);
            let sends = &self.msg_send[lo..hi];
            // Messages sent before the window that are still in flight at its start: each is
            // answered as itself (at most a few per pair).
            let earliest = scale.start.saturating_sub(self.pair_max_transit[q]);
            let in_window = lo + sends.partition_point(|&s| s < scale.start);
            let end = lo + sends.partition_point(|&s| s < scale.end);
            for k in lo + sends.partition_point(|&s| s < earliest)..in_window {
                if self.msg_arrival[k] >= scale.start {
                    self.push_message(&mut columns, from, to, k);
                }
            }
            // The pair's open run: its first message and the last pixel it reaches.
            let mut run: Option<(usize, u32)> = None;
            let mut i = in_window;
            while i < end {
                let px = scale.px(self.msg_send[i]);
                let pixel_end = scale.pixel_end(px);
                let j = i + self.msg_send[i..end].partition_point(|&s| s < pixel_end);
                run = match run {
                    Some((first, last)) if last + 1 >= px => Some((first, px)),
                    previous => {
                        if let Some((first, _)) = previous {
                            self.close_run(&mut columns, &mut bundles, (from, to), first..i);
                        }
                        Some((i, px))
                    }
                };
                i = j;
            }
            if let Some((first, _)) = run {
                self.close_run(&mut columns, &mut bundles, (from, to), first..end);
            }
        }
        (columns, bundles)
    }

    fn push_message(&self, columns: &mut MessageColumns, from: u32, to: u32, k: usize) {
        columns.from.push(from);
        columns.to.push(to);
        columns.send.push(self.msg_send[k]);
        columns.arrival.push(self.msg_arrival[k]);
        columns
            .bytes
            .push(self.bytes_before[k + 1] - self.bytes_before[k]);
    }

    /// Answers the messages `run` of one pair, sent in neighbouring pixels: one message as
    /// itself, more as a bundle.
    fn close_run(
        &self,
        columns: &mut MessageColumns,
        bundles: &mut Vec<Bundle>,
        (from, to): (u32, u32),
        run: std::ops::Range<usize>,
    ) {
        let (a, b) = (run.start, run.end);
        if b - a == 1 {
            self.push_message(columns, from, to, a);
            return;
        }
        bundles.push(Bundle {
            from,
            to,
            count: u32::try_from(b - a).unwrap_or(u32::MAX),
            bytes: self.bytes_before[b] - self.bytes_before[a],
            first_send: self.msg_send[a],
            last_send: self.msg_send[b - 1],
            first_arrival: self.msg_arrival[a],
            last_arrival: self.msg_arrival[b - 1],
        });
    }
}

/// Ticks ⇄ integer pixels of one viewport, in exact integer arithmetic.
struct Scale {
    start: u64,
    end: u64,
    width: u32,
}

impl Scale {
    fn new(start: u64, end: u64, width: u32) -> Scale {
        Scale { start, end, width }
    }

    fn span(&self) -> u128 {
        u128::from(self.end - self.start)
    }

    /// The pixel holding tick `t` (`start <= t < end`).
    fn px(&self, t: u64) -> u32 {
        let offset = u128::from(t.saturating_sub(self.start));
        ((offset * u128::from(self.width) / self.span()) as u32).min(self.width - 1)
    }

    /// The first tick after pixel `px`.
    fn pixel_end(&self, px: u32) -> u64 {
        let ticks = (u128::from(px) + 1) * self.span();
        let offset = ticks.div_ceil(u128::from(self.width));
        self.start.saturating_add(offset as u64).min(self.end)
    }

    /// Whether `[a, b)` covers at least one pixel's worth of ticks.
    fn is_wide(&self, a: u64, b: u64) -> bool {
        u128::from(b.saturating_sub(a)) * u128::from(self.width) >= self.span()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_partition_the_window() {
        let scale = Scale::new(100, 1100, 7);
        let mut previous_end = 100;
        for px in 0..7 {
            assert_eq!(
                scale.px(previous_end),
                px,
                "pixel {px} starts where {} ended",
                px.max(1) - 1
            );
            let end = scale.pixel_end(px);
            assert!(end > previous_end);
            assert_eq!(scale.px(end - 1), px);
            previous_end = end;
        }
        assert_eq!(previous_end, 1100);
    }
}
