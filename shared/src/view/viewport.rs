//! Level of detail for the Gantt chart: what a time window and a range of process rows look like
//! at a width in pixels, in a size that follows the pixels, not the trace.
//!
//! [`ViewportIndex`] is built once per trace (state spans and messages, struct of arrays, sorted,
//! with per-row prefix sums of state durations). [`ViewportIndex::query`] then answers a window
//! in pixel coordinates (the caller converts back with the window and width it asked for):
//! - each row is a list of **runs** of neighbouring pixels that cover `0..width`: a pixel's state
//!   is the state that covers most of it (by time, from the prefix sums), or none; a pixel where
//!   two or more spans start is "more here" (an upper-case letter); every span is counted in the
//!   pixel where its visible part starts, so the counts add up to the spans in the window.
//!   Pixels inside one long span are skipped in one step, so a row costs at most one binary
//!   search per run, and the answer has at most `width` runs per row;
//! - messages are walked per (sender, receiver) pair, a bucket of pixels at a time: a message
//!   alone in its bucket, with no message of its pair in the buckets next to it, is answered as
//!   itself; runs of neighbouring buckets holding messages of the pair become one bundle (count,
//!   bytes, first and last message). Buckets start one pixel wide and double until the messages
//!   and bundles fit a budget of `2 · width` (at least 256), so the arrows never outgrow the
//!   pixels and no message is ever dropped.
//!
//! Times stay integer ticks in the index; the answer gives pixel positions (`i64` for message
//! ends that lie outside the window).

use serde::{Deserialize, Serialize};

use crate::graph::execution::ExecutionGraph;
use crate::graph::pairing::Pairing;
use crate::graph::states::{State, state_spans_of};
use crate::model::Trace;

/// The widest viewport answered, in pixels.
pub const MAX_WIDTH_PX: u32 = 32_768;

/// The most rows one viewport answers.
pub const MAX_ROWS: u32 = 4_096;

/// The fewest arrows (messages and bundles) a viewport may hold before it bundles more coarsely.
pub const MIN_ARROW_BUDGET: usize = 256;

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

/// Pixels in a quantisation tile: quantised windows start on multiples of this many pixels.
pub const TILE_PX: u32 = 256;

impl ViewportRequest {
    /// A request that covers `[start, end)` at `width_px` or finer, on a grid that neighbouring
    /// requests share, so caches (the browser's, the server's ETags) hit while panning and
    /// zooming: ticks per pixel is a power of two (at least 1, at most the requested
    /// resolution), the window starts on a multiple of [`TILE_PX`] pixels and is a whole number
    /// of tiles wide. The answer is at most `2 · width_px + 2 · TILE_PX` pixels wide; the
    /// caller draws the part it wants.
    pub fn quantised(
        start: u64,
        end: u64,
        first_row: u32,
        last_row: u32,
        width_px: u32,
    ) -> ViewportRequest {
        let end = end.max(start.saturating_add(1));
        let width = u64::from(width_px.max(1));
        // The largest power of two not above the requested ticks per pixel.
        let wanted = (end - start) / width;
        let per_px = if wanted <= 1 {
            1
        } else {
            1u64 << (63 - wanted.leading_zeros())
        };
        let tile = per_px.saturating_mul(u64::from(TILE_PX));
        let q_start = start - start % tile;
        let tiles = (end - q_start).div_ceil(tile);
        let q_end = q_start.saturating_add(tiles.saturating_mul(tile));
        let px = tiles.saturating_mul(u64::from(TILE_PX));
        ViewportRequest {
            start: q_start,
            end: q_end,
            first_row,
            last_row,
            width_px: u32::try_from(px).unwrap_or(u32::MAX),
        }
    }
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
    /// The rows are reversed or too many.
    #[error(
        "rows {first} to {last}: the first must not follow the last, and at most {MAX_ROWS} rows are answered at once"
    )]
    Rows {
        /// The requested first row.
        first: u32,
        /// The requested last row.
        last: u32,
    },
}

/// One run of neighbouring pixels in a row, all with the same state and level of detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// The first pixel.
    pub px_first: u32,
    /// The last pixel.
    pub px_last: u32,
    /// The state that covers most of each pixel, or `None` where no span is.
    pub state: Option<State>,
    /// Whether two or more spans start in each pixel ("more here").
    pub more: bool,
    /// How many spans start (are visible first) in these pixels.
    pub count: u32,
}

/// One row of the viewport as columns of pixel runs covering `0..width`, left to right.
///
/// `state` has one letter per run: `c` computing, `b` blocked, `-` nothing; upper case (`C`,
/// `B`) marks pixels that each summarise two or more spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RowView {
    /// The process.
    pub process: u32,
    /// Each run's width in pixels.
    pub width: Vec<u32>,
    /// Each run's state letter.
    pub state: String,
    /// How many spans each run holds (counted where their visible part starts).
    pub count: Vec<u32>,
}

/// Each state's letter in [`RowView::state`] (lower case; upper case for "more here").
const LETTERS: [(State, char); 6] = [
    (State::Computing, 'c'),
    (State::Blocked, 'b'),
    (State::Ready, 'r'),
    (State::Timer, 't'),
    (State::Children, 'p'),
    (State::Stopped, 's'),
];

/// The letter of a state in [`RowView::state`]: lower case, upper case for "more here".
pub fn state_letter(state: Option<State>, more: bool) -> char {
    let Some(state) = state else {
        return '-';
    };
    let letter = LETTERS
        .iter()
        .find(|(s, _)| *s == state)
        .map_or('b', |&(_, l)| l);
    if more {
        letter.to_ascii_uppercase()
    } else {
        letter
    }
}

/// The state and "more here" of a letter in [`RowView::state`].
pub fn letter_state(letter: char) -> Option<(Option<State>, bool)> {
    if letter == '-' {
        return Some((None, false));
    }
    let lower = letter.to_ascii_lowercase();
    LETTERS
        .iter()
        .find(|&&(_, l)| l == lower)
        .map(|&(s, _)| (Some(s), letter != lower))
}

impl RowView {
    /// The runs, as items.
    pub fn runs(&self) -> Vec<Run> {
        let mut px = 0;
        self.state
            .chars()
            .zip(self.width.iter().zip(&self.count))
            .filter_map(|(letter, (&width, &count))| {
                let (state, more) = letter_state(letter)?;
                let run = Run {
                    px_first: px,
                    px_last: px + width.max(1) - 1,
                    state,
                    more,
                    count,
                };
                px += width;
                Some(run)
            })
            .collect()
    }

    /// Appends `width` pixels of one letter, merged into the last run when it has the same.
    pub(crate) fn push(&mut self, letter: char, width: u32, count: u32) {
        if width == 0 {
            return;
        }
        if self.state.ends_with(letter)
            && let (Some(w), Some(n)) = (self.width.last_mut(), self.count.last_mut())
        {
            *w += width;
            *n = n.saturating_add(count);
            return;
        }
        self.state.push(letter);
        self.width.push(width);
        self.count.push(count);
    }
}

/// Messages drawn one by one, as columns (pixel positions in the viewport; an arrival after the
/// window, or a send before it, lies outside `0..width`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct MessageColumns {
    /// The sending process.
    pub from: Vec<u32>,
    /// The receiving process.
    pub to: Vec<u32>,
    /// The pixel of the send.
    pub send_px: Vec<i64>,
    /// The pixel of the arrival.
    pub arrival_px: Vec<i64>,
    /// The size in bytes.
    pub bytes: Vec<u64>,
}

/// Messages of one sender and receiver sent in a run of neighbouring buckets of pixels, as
/// columns. Sends and arrivals are those of each bundle's first and last message in send order
/// (on a FIFO channel, the earliest and latest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct BundleColumns {
    /// The sending process.
    pub from: Vec<u32>,
    /// The receiving process.
    pub to: Vec<u32>,
    /// How many messages.
    pub count: Vec<u32>,
    /// Their bytes in all.
    pub bytes: Vec<u64>,
    /// The pixel of the first send.
    pub first_send_px: Vec<i64>,
    /// The pixel of the last send.
    pub last_send_px: Vec<i64>,
    /// The pixel of the first arrival.
    pub first_arrival_px: Vec<i64>,
    /// The pixel of the last arrival.
    pub last_arrival_px: Vec<i64>,
}

impl BundleColumns {
    /// The number of bundles.
    pub fn len(&self) -> usize {
        self.count.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count.is_empty()
    }
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
    /// Messages bundled per sender, receiver and run of neighbouring buckets.
    pub bundles: BundleColumns,
    /// The width in pixels of the buckets messages were bundled by (1 unless the window holds
    /// more arrows than the budget).
    pub bucket_px: u32,
}

/// The rows a valid request answers (`None` when it reaches none), or why it is invalid.
pub(crate) fn checked_rows(
    request: &ViewportRequest,
    n_rows: u32,
) -> Result<Option<std::ops::RangeInclusive<u32>>, ViewportError> {
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
    let last = last_row.min(n_rows.saturating_sub(1));
    if first_row > last_row || (first_row <= last && last - first_row >= MAX_ROWS) {
        return Err(ViewportError::Rows {
            first: first_row,
            last: last_row,
        });
    }
    Ok((n_rows > 0 && first_row <= last).then_some(first_row..=last))
}

/// Whether `arrows` fit the budget of a viewport `width_px` wide, or the buckets (`bucket`
/// pixels) can grow no more.
pub(crate) fn fits_budget(arrows: usize, width_px: u32, bucket: u32) -> bool {
    arrows <= (2 * width_px as usize).max(MIN_ARROW_BUDGET) || bucket >= width_px
}

/// A trace prepared for viewport queries.
#[derive(Debug, Clone, Default)]
pub struct ViewportIndex {
    /// Spans of row `r` are `row_start[r]..row_start[r + 1]`.
    pub(crate) row_start: Vec<usize>,
    pub(crate) span_start: Vec<u64>,
    pub(crate) span_end: Vec<u64>,
    pub(crate) span_state: Vec<State>,
    /// Per span: computing ticks of the row's spans before it (prefix sum, per row).
    pub(crate) computing_before: Vec<u64>,
    /// Per span: blocked ticks of the row's spans before it.
    pub(crate) blocked_before: Vec<u64>,
    /// Messages sorted by (sender, receiver, send time); pair `q`'s are
    /// `pair_start[q]..pair_start[q + 1]`.
    pub(crate) pair_start: Vec<usize>,
    pub(crate) pair_from: Vec<u32>,
    pub(crate) pair_to: Vec<u32>,
    /// Per pair: the longest send → arrival time, bounding the search for messages in flight
    /// when a window starts.
    pub(crate) pair_max_transit: Vec<u64>,
    pub(crate) msg_send: Vec<u64>,
    pub(crate) msg_arrival: Vec<u64>,
    /// Bytes of all messages before each one (prefix sum, one more entry than messages).
    pub(crate) bytes_before: Vec<u64>,
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
                    _ => blocked += length,
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
                .push(before.saturating_add(size.at(m.send.0 as usize)));
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

    /// The state span of `row` holding tick `tick` (start, end, state), if any.
    pub fn span_at(&self, row: u32, tick: u64) -> Option<(u64, u64, State)> {
        let (lo, hi) = (
            *self.row_start.get(row as usize)?,
            *self.row_start.get(row as usize + 1)?,
        );
        let k = lo + self.span_end[lo..hi].partition_point(|&e| e <= tick);
        (k < hi && self.span_start[k] <= tick)
            .then(|| (self.span_start[k], self.span_end[k], self.span_state[k]))
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
        let rows = checked_rows(request, self.n_rows())?;
        let scale = Scale::new(start, end, width_px);
        let rows = rows.map_or_else(Vec::new, |rows| rows.map(|r| self.row(r, &scale)).collect());
        let last = last_row.min(self.n_rows().saturating_sub(1));
        let mut bucket = 1;
        let (messages, bundles) = loop {
            let (messages, bundles) = self.messages(&scale, first_row, last, bucket);
            if fits_budget(messages.from.len() + bundles.len(), width_px, bucket) {
                break (messages, bundles);
            }
            bucket *= 2;
        };
        Ok(Viewport {
            start,
            end,
            width_px,
            rows,
            messages,
            bundles,
            bucket_px: bucket,
        })
    }

    pub(crate) fn row(&self, row: u32, scale: &Scale) -> RowView {
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
        let mut i = 0;
        let mut px = 0;
        while px < scale.width {
            let (pixel_start, pixel_end) = (scale.pixel_start(px), scale.pixel_end(px));
            if pixel_start == pixel_end {
                // Zoomed in past one tick a pixel: this pixel lies inside the tick before it.
                let tick = pixel_start.saturating_sub(1);
                let k = ends.partition_point(|&e| e <= tick);
                let state =
                    (k < starts.len() && starts[k] <= tick).then(|| self.span_state[lo + k]);
                out.push(state_letter(state, false), 1, 0);
                px += 1;
                continue;
            }
            // The first span that ends inside or after this pixel.
            i += ends[i..].partition_point(|&e| e <= pixel_start);
            if i == starts.len() || starts[i] >= scale.end {
                out.push('-', scale.width - px, 0);
                break;
            }
            if starts[i] >= pixel_end {
                let next = scale.px(starts[i]);
                out.push('-', next - px, 0);
                px = next;
                continue;
            }
            // Spans `i..j` overlap this pixel; those that start in it (or, in the first pixel,
            // are visible first) are counted here.
            let j = i + starts[i..].partition_point(|&s| s < pixel_end);
            let carried = usize::from(starts[i] < pixel_start && px > 0);
            let count = (j - i - carried) as u32;
            let (computing, blocked) = self.clipped_ticks(lo + i, lo + j, pixel_start, pixel_end);
            let state = if computing >= blocked {
                State::Computing
            } else {
                State::Blocked
            };
            out.push(state_letter(Some(state), count >= 2), 1, count);
            // The last span may cover the pixels after this one: skip those it fills.
            let last_end = ends[j - 1].min(scale.end);
            if last_end > pixel_end {
                let last_px = scale.px(last_end - 1);
                let filled_until = if scale.pixel_end(last_px) <= last_end {
                    last_px + 1
                } else {
                    last_px
                };
                let letter = state_letter(Some(self.span_state[lo + j - 1]), false);
                out.push(letter, filled_until.saturating_sub(px + 1), 0);
                px = filled_until.max(px + 1);
                i = j - 1;
            } else {
                px += 1;
                i = j;
            }
        }
        out
    }

    /// Computing and blocked ticks of spans `a..b` (global indices, one row) inside
    /// `[from, to)`, which all of them overlap.
    fn clipped_ticks(&self, a: usize, b: usize, from: u64, to: u64) -> (u64, u64) {
        let last = b - 1;
        let mut ticks = [
            self.computing_before[last] - self.computing_before[a],
            self.blocked_before[last] - self.blocked_before[a],
        ];
        let slot = |k: usize| match self.span_state[k] {
            State::Computing => 0,
            _ => 1,
        };
        ticks[slot(last)] += self.span_end[last] - self.span_start[last];
        let before = from.saturating_sub(self.span_start[a]);
        ticks[slot(a)] = ticks[slot(a)].saturating_sub(before);
        let after = self.span_end[last].saturating_sub(to);
        ticks[slot(last)] = ticks[slot(last)].saturating_sub(after);
        (ticks[0], ticks[1])
    }

    fn messages(
        &self,
        scale: &Scale,
        first_row: u32,
        last_row: u32,
        bucket: u32,
    ) -> (MessageColumns, BundleColumns) {
        let mut columns = MessageColumns::default();
        let mut bundles = BundleColumns::default();
        let in_rows = |p: u32| p >= first_row && p <= last_row;
        for q in 0..self.pair_from.len() {
            if in_rows(self.pair_from[q]) || in_rows(self.pair_to[q]) {
                self.pair_arrows(q, scale, bucket, &mut columns, &mut bundles);
            }
        }
        (columns, bundles)
    }

    /// Appends pair `q`'s arrows: its messages in flight when the window starts, one by one,
    /// then its messages sent in the window, bundled by runs of neighbouring buckets.
    pub(crate) fn pair_arrows(
        &self,
        q: usize,
        scale: &Scale,
        bucket: u32,
        columns: &mut MessageColumns,
        bundles: &mut BundleColumns,
    ) {
        let (from, to) = (self.pair_from[q], self.pair_to[q]);
        let (lo, hi) = (self.pair_start[q], self.pair_start[q + 1]);
        let sends = &self.msg_send[lo..hi];
        // Messages sent before the window that are still in flight at its start: each is
        // answered as itself (at most a few per pair).
        let earliest = scale.start.saturating_sub(self.pair_max_transit[q]);
        let in_window = lo + sends.partition_point(|&s| s < scale.start);
        let end = lo + sends.partition_point(|&s| s < scale.end);
        for k in lo + sends.partition_point(|&s| s < earliest)..in_window {
            if self.msg_arrival[k] >= scale.start {
                self.push_message(columns, scale, (from, to), k);
            }
        }
        // The pair's open run: its first message and the last bucket it reaches.
        let mut run: Option<(usize, u32)> = None;
        let mut i = in_window;
        while i < end {
            let b = scale.px(self.msg_send[i]) / bucket;
            let bucket_end = scale.pixel_end((b * bucket + bucket - 1).min(scale.width - 1));
            let j = i + self.msg_send[i..end].partition_point(|&s| s < bucket_end);
            run = match run {
                Some((first, last)) if last + 1 >= b => Some((first, b)),
                previous => {
                    if let Some((first, _)) = previous {
                        self.close_run(columns, bundles, scale, (from, to), first..i);
                    }
                    Some((i, b))
                }
            };
            i = j;
        }
        if let Some((first, _)) = run {
            self.close_run(columns, bundles, scale, (from, to), first..end);
        }
    }

    fn push_message(
        &self,
        columns: &mut MessageColumns,
        scale: &Scale,
        (from, to): (u32, u32),
        k: usize,
    ) {
        columns.from.push(from);
        columns.to.push(to);
        columns.send_px.push(scale.px_signed(self.msg_send[k]));
        columns
            .arrival_px
            .push(scale.px_signed(self.msg_arrival[k]));
        columns
            .bytes
            .push(self.bytes_before[k + 1] - self.bytes_before[k]);
    }

    /// Answers the messages `run` of one pair, sent in neighbouring buckets: one message as
    /// itself, more as a bundle.
    fn close_run(
        &self,
        columns: &mut MessageColumns,
        bundles: &mut BundleColumns,
        scale: &Scale,
        pair: (u32, u32),
        run: std::ops::Range<usize>,
    ) {
        let (a, b) = (run.start, run.end);
        if b - a == 1 {
            self.push_message(columns, scale, pair, a);
            return;
        }
        bundles.from.push(pair.0);
        bundles.to.push(pair.1);
        bundles.count.push(u32::try_from(b - a).unwrap_or(u32::MAX));
        bundles
            .bytes
            .push(self.bytes_before[b] - self.bytes_before[a]);
        bundles
            .first_send_px
            .push(scale.px_signed(self.msg_send[a]));
        bundles
            .last_send_px
            .push(scale.px_signed(self.msg_send[b - 1]));
        bundles
            .first_arrival_px
            .push(scale.px_signed(self.msg_arrival[a]));
        bundles
            .last_arrival_px
            .push(scale.px_signed(self.msg_arrival[b - 1]));
    }
}

/// Ticks ⇄ integer pixels of one viewport, in exact integer arithmetic.
pub(crate) struct Scale {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) width: u32,
}

impl Scale {
    pub(crate) fn new(start: u64, end: u64, width: u32) -> Scale {
        Scale { start, end, width }
    }

    fn span(&self) -> u128 {
        u128::from(self.end - self.start)
    }

    /// The pixel holding tick `t` (`start <= t < end`).
    pub(crate) fn px(&self, t: u64) -> u32 {
        let offset = u128::from(t.saturating_sub(self.start));
        ((offset * u128::from(self.width) / self.span()) as u32).min(self.width - 1)
    }

    /// The pixel holding any tick `t`, inside the window or not (rounded down).
    pub(crate) fn px_signed(&self, t: u64) -> i64 {
        let offset = i128::from(t) - i128::from(self.start);
        let px = (offset * i128::from(self.width)).div_euclid(self.span() as i128);
        px.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }

    /// The first tick of pixel `px`.
    pub(crate) fn pixel_start(&self, px: u32) -> u64 {
        match px.checked_sub(1) {
            Some(previous) => self.pixel_end(previous),
            None => self.start,
        }
    }

    /// The first tick after pixel `px`.
    pub(crate) fn pixel_end(&self, px: u32) -> u64 {
        let ticks = (u128::from(px) + 1) * self.span();
        let offset = ticks.div_ceil(u128::from(self.width));
        self.start.saturating_add(offset as u64).min(self.end)
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
