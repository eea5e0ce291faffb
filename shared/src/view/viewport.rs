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
        // The letters are ASCII: the last byte is the last letter (`ends_with` of a char
        // encodes it and compares bytes through a call: a tenth of a whole-run viewport's time).
        if self.state.as_bytes().last().copied() == u8::try_from(letter).ok().filter(u8::is_ascii)
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
        // The arrows are counted at each bucket width until they fit, then drawn once.
        let in_rows = |p: u32| p >= first_row && p <= last;
        let shapes: Vec<ArrowShape> = (0..self.pair_from.len())
            .filter(|&q| in_rows(self.pair_from[q]) || in_rows(self.pair_to[q]))
            .map(|q| self.arrow_shape(q, &scale))
            .collect();
        let mut bucket = 1;
        loop {
            let arrows: usize = shapes.iter().map(|s| s.arrows(bucket)).sum();
            if fits_budget(arrows, width_px, bucket) {
                break;
            }
            bucket *= 2;
        }
        let (messages, bundles) = self.messages(&scale, first_row, last, bucket);
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
            i += gallop(&ends[i..], |&e| e <= pixel_start);
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
            let j = i + gallop(&starts[i..], |&s| s < pixel_end);
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
            let j = i + gallop(&self.msg_send[i..end], |&s| s < bucket_end);
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

    /// What decides how many arrows [`ViewportIndex::pair_arrows`] answers for pair `q` at
    /// any bucket width: its messages in flight at the window's start (one arrow each), and
    /// the pixels in which it sends (one arrow a run of neighbouring buckets holding some).
    /// Found once a query, so that trying wider buckets costs a pass over pixels, not over
    /// messages.
    pub(crate) fn arrow_shape(&self, q: usize, scale: &Scale) -> ArrowShape {
        let (lo, hi) = (self.pair_start[q], self.pair_start[q + 1]);
        let sends = &self.msg_send[lo..hi];
        let earliest = scale.start.saturating_sub(self.pair_max_transit[q]);
        let in_window = lo + sends.partition_point(|&s| s < scale.start);
        let end = lo + sends.partition_point(|&s| s < scale.end);
        let in_flight = (lo + sends.partition_point(|&s| s < earliest)..in_window)
            .filter(|&k| self.msg_arrival[k] >= scale.start)
            .count();
        let mut pixels = Vec::new();
        let mut i = in_window;
        while i < end {
            let px = scale.px(self.msg_send[i]);
            pixels.push(px);
            let pixel_end = scale.pixel_end(px);
            i += gallop(&self.msg_send[i..end], |&s| s < pixel_end);
        }
        ArrowShape { in_flight, pixels }
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

/// `slice.partition_point(pred)` found from the slice's start by doubling steps, then
/// bisection: a walk over pixels finds the next pixel's items a few places on, where a
/// bisection of the whole rest takes the logarithm of the row.
fn gallop<T>(slice: &[T], mut pred: impl FnMut(&T) -> bool) -> usize {
    let mut step = 1;
    let mut lo = 0;
    while lo + step <= slice.len() && pred(&slice[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(slice.len());
    lo + slice[lo..hi].partition_point(pred)
}

/// How many arrows one pair answers in a window, at any bucket width (see
/// [`ViewportIndex::arrow_shape`]).
pub(crate) struct ArrowShape {
    /// Messages in flight at the window's start.
    pub(crate) in_flight: usize,
    /// The pixels in which the pair sends, in order.
    pub(crate) pixels: Vec<u32>,
}

impl ArrowShape {
    /// The arrows at buckets `bucket` pixels wide: the messages in flight, and one for each run
    /// of neighbouring buckets that hold a send (as [`ViewportIndex::pair_arrows`] makes them).
    pub(crate) fn arrows(&self, bucket: u32) -> usize {
        let mut runs = 0;
        let mut last: Option<u32> = None;
        for &px in &self.pixels {
            let b = px / bucket;
            if last.is_none_or(|l| l + 1 < b) {
                runs += 1;
            }
            last = Some(b);
        }
        self.in_flight + runs
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

    // Each conversion takes 64-bit arithmetic when its product fits (every window of less
    // than 2^64 / width ticks: a run of days in nanoseconds), else 128-bit, with the same
    // result: a 128-bit division is a call of tens of cycles, and a whole-run viewport makes
    // hundreds of thousands of them (a fifth of its time on the 16-node ray tracer).

    /// The pixel holding tick `t` (`start <= t < end`).
    pub(crate) fn px(&self, t: u64) -> u32 {
        let offset = t.saturating_sub(self.start);
        let span = self.end - self.start;
        let px = match offset.checked_mul(u64::from(self.width)) {
            Some(product) => product / span,
            None => (u128::from(offset) * u128::from(self.width) / self.span()) as u64,
        };
        (px.min(u64::from(self.width) - 1)) as u32
    }

    /// The pixel holding any tick `t`, inside the window or not (rounded down).
    pub(crate) fn px_signed(&self, t: u64) -> i64 {
        let span = self.end - self.start;
        let width = u64::from(self.width);
        let fast = if t >= self.start {
            (t - self.start)
                .checked_mul(width)
                .and_then(|p| i64::try_from(p / span).ok())
        } else {
            (self.start - t)
                .checked_mul(width)
                .and_then(|p| i64::try_from(p.div_ceil(span)).ok())
                .map(|p| -p)
        };
        fast.unwrap_or_else(|| {
            let offset = i128::from(t) - i128::from(self.start);
            let px = (offset * i128::from(self.width)).div_euclid(self.span() as i128);
            px.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
        })
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
        let span = self.end - self.start;
        let offset = match (u64::from(px) + 1).checked_mul(span) {
            Some(ticks) => ticks.div_ceil(u64::from(self.width)),
            None => {
                let ticks = (u128::from(px) + 1) * self.span();
                ticks.div_ceil(u128::from(self.width)) as u64
            }
        };
        self.start.saturating_add(offset).min(self.end)
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

    /// The arrows counted from a pair's shape are those its arrows are made of, at every
    /// bucket width (the count picks the width, the making draws at it).
    #[test]
    fn arrow_shapes_count_the_arrows_made() {
        let trace = crate::model::synthetic::ring(6, 4_000);
        let cx = crate::graph::context::Context::new(&trace);
        let index = ViewportIndex::new(&trace, &cx.pairing, &cx.graph);
        let (first, last) = trace.time_bounds().expect("events");
        let span = last.0 - first.0;
        for (start, end, width) in [
            (first.0, last.0 + 1, 1600),
            (first.0, last.0 + 1, 37),
            (first.0 + span / 3, first.0 + span / 2, 500),
            (first.0 + span / 2, first.0 + span / 2 + 50, 900),
        ] {
            let scale = Scale::new(start, end, width);
            for q in 0..index.n_pairs() {
                let shape = index.arrow_shape(q, &scale);
                for bucket in [1, 2, 4, 8, 64, 1024, 2048] {
                    let (mut m, mut b) = (MessageColumns::default(), BundleColumns::default());
                    index.pair_arrows(q, &scale, bucket, &mut m, &mut b);
                    assert_eq!(
                        shape.arrows(bucket),
                        m.from.len() + b.len(),
                        "pair {q}, {start}..{end} at {width} px, buckets of {bucket}"
                    );
                }
            }
        }
    }

    #[test]
    fn galloping_finds_the_partition_point() {
        let v: Vec<u32> = (0..300).map(|k| k / 3).collect();
        for x in 0..=101 {
            assert_eq!(gallop(&v, |&e| e < x), v.partition_point(|&e| e < x), "{x}");
        }
        assert_eq!(gallop(&[] as &[u32], |&e| e < 1), 0);
    }

    /// The 64-bit paths answer what the 128-bit arithmetic answers, on windows whose products
    /// fit and on windows near the end of the clock whose products do not.
    #[test]
    fn the_fast_conversions_agree_with_128_bit_arithmetic() {
        let wide = |scale: &Scale, t: u64| -> (u32, i64) {
            let span = scale.span();
            let offset = u128::from(t.saturating_sub(scale.start));
            let px = ((offset * u128::from(scale.width) / span) as u32).min(scale.width - 1);
            let signed = (i128::from(t) - i128::from(scale.start)) * i128::from(scale.width);
            let signed = signed.div_euclid(span as i128);
            (
                px,
                signed.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            )
        };
        let wide_end = |scale: &Scale, px: u32| -> u64 {
            let ticks = (u128::from(px) + 1) * scale.span();
            let offset = ticks.div_ceil(u128::from(scale.width)) as u64;
            scale.start.saturating_add(offset).min(scale.end)
        };
        for (start, end, width) in [
            (0, 60_079_051, 1600),
            (1_000, 1_007, 1600),
            (5, u64::MAX / 3, 16_384),
            (u64::MAX - (1 << 40), u64::MAX, 1600),
            (0, u64::MAX, 7),
        ] {
            let scale = Scale::new(start, end, width);
            let span = end - start;
            for t in [
                0,
                start.saturating_sub(1),
                start,
                start + span / 3,
                start + span / 2 + 1,
                end - 1,
                end,
                end.saturating_add(12_345),
                u64::MAX,
            ] {
                assert_eq!(
                    (scale.px(t), scale.px_signed(t)),
                    wide(&scale, t),
                    "{start}..{end} at {width} px, tick {t}"
                );
            }
            for px in [0, 1, width / 2, width - 2, width - 1] {
                assert_eq!(scale.pixel_end(px), wide_end(&scale, px), "pixel {px}");
            }
        }
    }
}
