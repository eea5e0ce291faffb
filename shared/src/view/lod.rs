//! The Gantt chart's viewport index kept as chunks and read lazily, so that opening a large run
//! reads only what its first view needs.
//!
//! [`build`] turns a trace into a small directory ([`LazyIndex`]) and chunks, handed to a sink
//! as they are made (the store writes them while importing):
//! - **span chunks**: each process row's state spans, [`SPAN_CHUNK`] at a time, delta-coded;
//! - **message chunks**: each (sender, receiver) pair's messages in send order, [`MESSAGE_CHUNK`]
//!   at a time;
//! - **levels of detail**: for a row (pair) with many spans (messages), its prefix functions
//!   sampled at every multiple of `2^l` ticks, for each level `l` from the finest (about
//!   [`LOD_PER_BUCKET`] spans a bucket) to the coarsest (one bucket): a row's computing ticks,
//!   blocked ticks, spans started and spans ended before the tick; a pair's messages sent
//!   before it. [`LOD_BLOCK`] samples a chunk.
//!
//! [`LazyIndex::query`] answers exactly what [`ViewportIndex::query`] answers for the same
//! trace (tests compare them), reading chunks through a [`ChunkSource`]:
//! - a window quantised at `2^l` ticks a pixel ([`ViewportRequest::quantised`]) at or above a
//!   row's finest level is drawn from the samples at its pixel boundaries alone: a pixel's
//!   computing and blocked ticks, the spans it overlaps (started before its end, not ended by
//!   its start) and whether one is carried in from the left are differences of samples;
//! - a pair's messages are bundled the same way from the message counts at the pixel
//!   boundaries, reading the messages only at the bundles' ends and those in flight when the
//!   window starts;
//! - a window off the grid, or finer than a row's levels, that overlaps more than two of its
//!   chunks reads the same prefix functions at its pixel boundaries from the chunks holding
//!   them (a chunk at most per boundary, however many spans the window holds);
//! - anything else (a window of a few chunks, pixels narrower than a tick, a row whose spans
//!   are out of order) is answered by the in-memory algorithm on the chunks it overlaps.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::viewport::{
    ArrowShape, BundleColumns, MessageColumns, RowView, Scale, Viewport, ViewportError,
    ViewportIndex, ViewportRequest, checked_rows, fits_budget, state_letter,
};
use crate::graph::pairing::Pairing;
use crate::graph::states::{HubTargets, State, StateSpan, process_state_spans};
use crate::model::Trace;

/// State spans in a span chunk.
pub const SPAN_CHUNK: usize = 4096;
/// Messages in a message chunk.
pub const MESSAGE_CHUNK: usize = 4096;
/// Samples in a level-of-detail chunk.
pub const LOD_BLOCK: usize = 4096;
/// A row's (pair's) finest level of detail has at least this many spans (messages) a bucket
/// on average; rows with fewer than two chunks of them have no levels (their chunks are read).
pub const LOD_PER_BUCKET: u64 = 8;
/// The version of the directory and chunk encodings.
pub const LAZY_INDEX_VERSION: u32 = 1;

/// How a lazy index is cut: chunk sizes and how fine its levels go (stored in its directory,
/// so tests can cut small traces as finely as large ones are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// Spans a span chunk.
    pub span_chunk: u32,
    /// Messages a message chunk.
    pub message_chunk: u32,
    /// Samples a level-of-detail chunk.
    pub lod_block: u32,
    /// Spans (messages) a bucket, on average, at the finest level.
    pub per_bucket: u32,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape {
            span_chunk: SPAN_CHUNK as u32,
            message_chunk: MESSAGE_CHUNK as u32,
            lod_block: LOD_BLOCK as u32,
            per_bucket: LOD_PER_BUCKET as u32,
        }
    }
}

impl Shape {
    fn valid(&self) -> bool {
        self.span_chunk > 0 && self.message_chunk > 0 && self.lod_block > 0 && self.per_bucket > 0
    }
}

/// What a chunk holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ChunkKind {
    /// A row's state spans.
    Spans,
    /// A pair's messages.
    Messages,
    /// A row's samples at one level.
    RowLod,
    /// A pair's samples at one level.
    PairLod,
}

impl ChunkKind {
    /// The kind's stored code.
    pub fn code(self) -> u8 {
        match self {
            ChunkKind::Spans => 1,
            ChunkKind::Messages => 2,
            ChunkKind::RowLod => 3,
            ChunkKind::PairLod => 4,
        }
    }

    /// The kind of a stored code.
    pub fn from_code(code: u8) -> Option<ChunkKind> {
        match code {
            1 => Some(ChunkKind::Spans),
            2 => Some(ChunkKind::Messages),
            3 => Some(ChunkKind::RowLod),
            4 => Some(ChunkKind::PairLod),
            _ => None,
        }
    }
}

/// Names one chunk of a run's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkKey {
    /// What it holds.
    pub kind: ChunkKind,
    /// The row or pair.
    pub part: u32,
    /// The level of detail (0 for span and message chunks).
    pub level: u8,
    /// Its place among the part's chunks (of that level).
    pub block: u32,
}

impl ChunkKey {
    /// The level and block as one sortable number (level in the high bits).
    pub fn seq(self) -> i64 {
        (i64::from(self.level) << 32) | i64::from(self.block)
    }

    /// The key of a stored kind code, part and [`ChunkKey::seq`].
    pub fn from_stored(code: u8, part: u32, seq: i64) -> Option<ChunkKey> {
        Some(ChunkKey {
            kind: ChunkKind::from_code(code)?,
            part,
            level: u8::try_from(seq >> 32).ok()?,
            block: u32::try_from(seq & 0xffff_ffff).ok()?,
        })
    }
}

/// Levels of detail of one row or pair: samples at multiples of `2^l` ticks for
/// `finest <= l <= coarsest`, each level from `t_min >> l` to `t_max` rounded up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LodLevels {
    /// The finest level.
    pub finest: u8,
    /// The coarsest level (at most two samples).
    pub coarsest: u8,
    /// The earliest tick of the row (pair).
    pub t_min: u64,
    /// The latest tick.
    pub t_max: u64,
}

impl LodLevels {
    /// The first and last sample's bucket number at level `l`.
    fn buckets(&self, l: u8) -> (u64, u64) {
        let first = self.t_min.checked_shr(u32::from(l)).unwrap_or(0);
        let last = (u128::from(self.t_max) + (1u128 << l) - 1) >> l;
        (first, last as u64)
    }

    /// The levels for a row (pair) of `n` items between `t_min` and `t_max`, if it has enough.
    fn for_items(n: u64, chunk: u32, per_bucket: u32, t_min: u64, t_max: u64) -> Option<LodLevels> {
        if n < 2 * u64::from(chunk) {
            return None;
        }
        let mut levels = LodLevels {
            finest: 0,
            coarsest: 0,
            t_min,
            t_max,
        };
        let most = (n / u64::from(per_bucket)).max(1);
        while levels.finest < 64 && {
            let (a, b) = levels.buckets(levels.finest);
            b - a > most
        } {
            levels.finest += 1;
        }
        levels.coarsest = levels.finest;
        while levels.coarsest < 64 && {
            let (a, b) = levels.buckets(levels.coarsest);
            b - a > 1
        } {
            levels.coarsest += 1;
        }
        Some(levels)
    }
}

/// A row of the directory: where its span chunks lie in time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RowEntry {
    /// How many spans.
    pub n_spans: u64,
    /// Each chunk's first span's start.
    pub chunk_start: Vec<u64>,
    /// Each chunk's last span's end.
    pub chunk_end: Vec<u64>,
    /// The row's computing ticks, blocked ticks, spans started and spans ended, in all.
    pub totals: [u64; 4],
    /// Its levels of detail, if it has enough spans.
    pub lod: Option<LodLevels>,
    /// Whether its spans follow each other in time (each starts at or after the previous
    /// ends). A row whose do not (a trace with clock violations) has no levels of detail and
    /// is read whole, so its answers stay the in-memory index's.
    pub ordered: bool,
}

/// A pair of the directory: its processes, and where its message chunks lie in time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PairEntry {
    /// The sender.
    pub from: u32,
    /// The receiver.
    pub to: u32,
    /// How many messages.
    pub n_messages: u64,
    /// The longest send → arrival time.
    pub max_transit: u64,
    /// Their bytes in all.
    pub total_bytes: u64,
    /// Each chunk's first send.
    pub chunk_first_send: Vec<u64>,
    /// Each chunk's last send.
    pub chunk_last_send: Vec<u64>,
    /// Its levels of detail, if it has enough messages.
    pub lod: Option<LodLevels>,
}

/// A run's viewport index as a directory of chunks: what opening a run reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LazyIndex {
    /// [`LAZY_INDEX_VERSION`].
    pub version: u32,
    /// How it is cut.
    pub shape: Shape,
    /// One per process row.
    pub rows: Vec<RowEntry>,
    /// One per (sender, receiver) pair with messages, by sender then receiver.
    pub pairs: Vec<PairEntry>,
}

/// A span chunk as stored: starts as differences, lengths, states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
struct StoredSpans {
    computing_before: u64,
    blocked_before: u64,
    start_delta: Vec<i64>,
    length: Vec<u64>,
    state: Vec<State>,
}

/// A message chunk as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
struct StoredMessages {
    bytes_before: u64,
    send_delta: Vec<u64>,
    transit: Vec<i64>,
    size: Vec<u64>,
}

/// Samples as stored: each column as differences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
struct StoredSamples {
    columns: Vec<Vec<u64>>,
}

/// A row's spans, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SpanColumns {
    start: Vec<u64>,
    end: Vec<u64>,
    state: Vec<State>,
    computing_before: Vec<u64>,
    blocked_before: Vec<u64>,
}

/// A pair's messages, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PairMessages {
    send: Vec<u64>,
    arrival: Vec<u64>,
    /// Bytes of the pair's messages before each one.
    bytes_before: Vec<u64>,
    size: Vec<u64>,
}

/// A decoded chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    /// Span columns.
    Spans(SpanColumns),
    /// Message columns.
    Messages(PairMessages),
    /// Sample columns (4 for a row: computing, blocked, started, ended; 1 for a pair: sent).
    Samples(Vec<Vec<u64>>),
}

fn deltas(values: &[u64]) -> Vec<u64> {
    let mut previous = 0;
    values
        .iter()
        .map(|&v| {
            let d = v - previous;
            previous = v;
            d
        })
        .collect()
}

fn undeltas(deltas: &[u64]) -> Result<Vec<u64>, String> {
    let mut sum = 0u64;
    deltas
        .iter()
        .map(|&d| {
            sum = sum
                .checked_add(d)
                .ok_or_else(|| "a sample overflows".to_owned())?;
            Ok(sum)
        })
        .collect()
}

impl Chunk {
    /// Decodes a stored chunk of `kind`.
    pub fn decode(kind: ChunkKind, bytes: &[u8]) -> Result<Chunk, String> {
        let bad = |e: postcard::Error| format!("a {kind:?} chunk does not decode: {e}");
        match kind {
            ChunkKind::Spans => {
                let s: StoredSpans = postcard::from_bytes(bytes).map_err(bad)?;
                let n = s.start_delta.len();
                if s.length.len() != n || s.state.len() != n {
                    return Err("a span chunk's columns differ in length".to_owned());
                }
                let mut c = SpanColumns::default();
                let (mut start, mut computing, mut blocked) =
                    (0u64, s.computing_before, s.blocked_before);
                for k in 0..n {
                    // Deltas are stored modulo 2^64 (a start past 2^63 is a "negative" delta
                    // from 0, and a row's starts may also step back), so wrapping addition
                    // gives every start back exactly.
                    start = start.wrapping_add_signed(s.start_delta[k]);
                    let end = start
                        .checked_add(s.length[k])
                        .ok_or("a span ends beyond the clock")?;
                    c.start.push(start);
                    c.end.push(end);
                    c.state.push(s.state[k]);
                    c.computing_before.push(computing);
                    c.blocked_before.push(blocked);
                    match s.state[k] {
                        State::Computing => computing = computing.saturating_add(s.length[k]),
                        _ => blocked = blocked.saturating_add(s.length[k]),
                    }
                }
                Ok(Chunk::Spans(c))
            }
            ChunkKind::Messages => {
                let s: StoredMessages = postcard::from_bytes(bytes).map_err(bad)?;
                let n = s.send_delta.len();
                if s.transit.len() != n || s.size.len() != n {
                    return Err("a message chunk's columns differ in length".to_owned());
                }
                let mut c = PairMessages::default();
                let (mut send, mut bytes_before) = (0u64, s.bytes_before);
                for k in 0..n {
                    send = send
                        .checked_add(s.send_delta[k])
                        .ok_or("a send lies beyond the clock")?;
                    // Transits are stored modulo 2^64 (an arrival 2^63 ticks or more away from
                    // its send wraps), so wrapping addition gives every arrival back exactly.
                    let arrival = send.wrapping_add_signed(s.transit[k]);
                    c.send.push(send);
                    c.arrival.push(arrival);
                    c.bytes_before.push(bytes_before);
                    c.size.push(s.size[k]);
                    bytes_before = bytes_before.saturating_add(s.size[k]);
                }
                Ok(Chunk::Messages(c))
            }
            ChunkKind::RowLod | ChunkKind::PairLod => {
                let s: StoredSamples = postcard::from_bytes(bytes).map_err(bad)?;
                let want = if kind == ChunkKind::RowLod { 4 } else { 1 };
                if s.columns.len() != want
                    || s.columns.iter().any(|c| c.len() != s.columns[0].len())
                {
                    return Err("a sample chunk has the wrong columns".to_owned());
                }
                let columns = s
                    .columns
                    .iter()
                    .map(|c| undeltas(c))
                    .collect::<Result<_, _>>()?;
                Ok(Chunk::Samples(columns))
            }
        }
    }
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing plain vectors into memory cannot fail.
    postcard::to_allocvec(value).unwrap_or_default()
}

impl LazyIndex {
    /// The directory's bytes.
    pub fn encode(&self) -> Vec<u8> {
        encode(self)
    }

    /// A directory from its bytes.
    pub fn decode(bytes: &[u8]) -> Result<LazyIndex, String> {
        let index: LazyIndex = postcard::from_bytes(bytes)
            .map_err(|e| format!("the run's index directory does not decode: {e}"))?;
        if index.version != LAZY_INDEX_VERSION {
            return Err(format!(
                "the run's index has version {}, this build reads {LAZY_INDEX_VERSION}",
                index.version
            ));
        }
        if !index.shape.valid() {
            return Err(format!(
                "the run's index has an empty chunk size: {:?}",
                index.shape
            ));
        }
        Ok(index)
    }

    /// The number of process rows.
    pub fn n_rows(&self) -> u32 {
        self.rows.len() as u32
    }
}

/// Builds the lazy index of `trace`, cut as `shape` says (a shape with a zero size is taken as
/// the default): its directory, with every chunk handed to `sink` as it is made (one row's
/// spans, then one pair's messages, in memory at a time).
pub fn build(
    trace: &Trace,
    pairing: &Pairing,
    shape: Shape,
    sink: &mut dyn FnMut(ChunkKey, Vec<u8>),
) -> LazyIndex {
    let shape = if shape.valid() {
        shape
    } else {
        Shape::default()
    };
    let mut index = LazyIndex {
        version: LAZY_INDEX_VERSION,
        shape,
        rows: Vec::new(),
        pairs: Vec::new(),
    };
    let targets = HubTargets::new(trace);
    let (mut sequence, mut spans) = (Vec::new(), Vec::new());
    for process in trace.process_ids() {
        process_state_spans(trace, &targets, process, &mut sequence, &mut spans);
        index.rows.push(build_row(shape, process.0, &spans, sink));
    }
    drop(spans);
    drop(sequence);
    build_pairs(trace, pairing, &mut index, sink);
    index
}

fn build_row(
    shape: Shape,
    row: u32,
    spans: &[StateSpan],
    sink: &mut dyn FnMut(ChunkKey, Vec<u8>),
) -> RowEntry {
    let mut entry = RowEntry {
        n_spans: spans.len() as u64,
        ..RowEntry::default()
    };
    let (mut computing, mut blocked) = (0u64, 0u64);
    for (block, chunk) in spans.chunks(shape.span_chunk as usize).enumerate() {
        let mut stored = StoredSpans {
            computing_before: computing,
            blocked_before: blocked,
            ..StoredSpans::default()
        };
        let mut previous = 0;
        for s in chunk {
            stored
                .start_delta
                .push(s.start.0.wrapping_sub(previous) as i64);
            previous = s.start.0;
            let length = s.end.0 - s.start.0;
            stored.length.push(length);
            stored.state.push(s.state);
            match s.state {
                State::Computing => computing += length,
                _ => blocked += length,
            }
        }
        entry.chunk_start.push(chunk[0].start.0);
        entry.chunk_end.push(chunk[chunk.len() - 1].end.0);
        let key = ChunkKey {
            kind: ChunkKind::Spans,
            part: row,
            level: 0,
            block: block as u32,
        };
        sink(key, encode(&stored));
    }
    let n = spans.len() as u64;
    entry.totals = [computing, blocked, n, n];
    entry.ordered = spans.windows(2).all(|w| w[0].end <= w[1].start);
    if let (Some(first), Some(last), true) = (spans.first(), spans.last(), entry.ordered) {
        entry.lod = LodLevels::for_items(
            n,
            shape.span_chunk,
            shape.per_bucket,
            first.start.0,
            last.end.0,
        );
    }
    if let Some(levels) = entry.lod {
        let finest = row_samples(spans, &levels);
        write_levels(
            shape,
            ChunkKind::RowLod,
            row,
            &levels,
            finest,
            entry.totals.to_vec(),
            sink,
        );
    }
    entry
}

/// A row's computing, blocked, started and ended counts before each multiple of
/// `2^finest` ticks from its first sample to its last.
fn row_samples(spans: &[StateSpan], levels: &LodLevels) -> Vec<Vec<u64>> {
    let (first, last) = levels.buckets(levels.finest);
    let mut columns = vec![Vec::new(); 4];
    let (mut started, mut ended) = (0usize, 0usize);
    let (mut computing, mut blocked) = (0u64, 0u64);
    for b in first..=last {
        let tick = (u128::from(b) << levels.finest).min(u128::from(u64::MAX)) as u64;
        while ended < spans.len() && spans[ended].end.0 <= tick {
            let s = spans[ended];
            match s.state {
                State::Computing => computing += s.end.0 - s.start.0,
                _ => blocked += s.end.0 - s.start.0,
            }
            ended += 1;
        }
        while started < spans.len() && spans[started].start.0 < tick {
            started += 1;
        }
        let (mut c, mut k) = (computing, blocked);
        if started > ended {
            // The span open at the tick counts up to it.
            let s = spans[ended];
            match s.state {
                State::Computing => c += tick - s.start.0,
                _ => k += tick - s.start.0,
            }
        }
        for (column, value) in columns.iter_mut().zip([c, k, started as u64, ended as u64]) {
            column.push(value);
        }
    }
    columns
}

/// Writes the samples of every level from the finest's, each coarser level taking every
/// other sample of the one below (values before the first sample are 0, after the last the
/// totals).
fn write_levels(
    shape: Shape,
    kind: ChunkKind,
    part: u32,
    levels: &LodLevels,
    finest: Vec<Vec<u64>>,
    totals: Vec<u64>,
    sink: &mut dyn FnMut(ChunkKey, Vec<u8>),
) {
    let mut current = finest;
    for level in levels.finest..=levels.coarsest {
        if level > levels.finest {
            let (below_first, below_last) = levels.buckets(level - 1);
            let (first, last) = levels.buckets(level);
            current = (0..current.len())
                .map(|col| {
                    (first..=last)
                        .map(|b| {
                            let at = 2 * u128::from(b);
                            if at < u128::from(below_first) {
                                0
                            } else if at > u128::from(below_last) {
                                totals[col]
                            } else {
                                current[col][(at - u128::from(below_first)) as usize]
                            }
                        })
                        .collect()
                })
                .collect();
        }
        let n = current[0].len();
        let size = shape.lod_block as usize;
        for (block, from) in (0..n).step_by(size).enumerate() {
            let to = (from + size).min(n);
            let stored = StoredSamples {
                columns: current.iter().map(|c| deltas(&c[from..to])).collect(),
            };
            let key = ChunkKey {
                kind,
                part,
                level,
                block: block as u32,
            };
            sink(key, encode(&stored));
        }
    }
}

fn build_pairs(
    trace: &Trace,
    pairing: &Pairing,
    index: &mut LazyIndex,
    sink: &mut dyn FnMut(ChunkKey, Vec<u8>),
) {
    let time = trace.events.time();
    let process = trace.events.process();
    let size = trace.events.size();
    // Each message's pair, then the messages grouped by pair (a counting sort): 8 bytes a
    // message.
    let mut pair_of: FxHashMap<(u32, u32), u32> = FxHashMap::default();
    let mut keys: Vec<(u32, u32)> = Vec::new();
    let msg_pair: Vec<u32> = pairing
        .messages
        .iter()
        .map(|m| {
            let key = (process[m.send.index()].0, process[m.arrival.index()].0);
            *pair_of.entry(key).or_insert_with(|| {
                keys.push(key);
                keys.len() as u32 - 1
            })
        })
        .collect();
    let mut by_key: Vec<u32> = (0..keys.len() as u32).collect();
    by_key.sort_unstable_by_key(|&q| keys[q as usize]);
    let mut rank = vec![0u32; keys.len()];
    for (r, &q) in by_key.iter().enumerate() {
        rank[q as usize] = r as u32;
    }
    let mut start = vec![0usize; keys.len() + 1];
    for &q in &msg_pair {
        start[rank[q as usize] as usize + 1] += 1;
    }
    for r in 0..keys.len() {
        start[r + 1] += start[r];
    }
    let mut fill = start.clone();
    let mut order = vec![0u32; msg_pair.len()];
    for (i, &q) in msg_pair.iter().enumerate() {
        let r = rank[q as usize] as usize;
        order[fill[r]] = i as u32;
        fill[r] += 1;
    }
    drop(msg_pair);
    for (r, &q) in by_key.iter().enumerate() {
        let messages = &mut order[start[r]..start[r + 1]];
        // By send time, then message (as the in-memory index sorts them).
        messages.sort_by_key(|&i| (time[pairing.messages[i as usize].send.index()].0, i));
        let (from, to) = keys[q as usize];
        let send = |i: u32| time[pairing.messages[i as usize].send.index()].0;
        let arrival = |i: u32| time[pairing.messages[i as usize].arrival.index()].0;
        let mut entry = PairEntry {
            from,
            to,
            n_messages: messages.len() as u64,
            ..PairEntry::default()
        };
        for (block, chunk) in messages
            .chunks(index.shape.message_chunk as usize)
            .enumerate()
        {
            let mut stored = StoredMessages {
                bytes_before: entry.total_bytes,
                ..StoredMessages::default()
            };
            let mut previous = 0;
            for &i in chunk.iter() {
                let (s, a) = (send(i), arrival(i));
                stored.send_delta.push(s - previous);
                previous = s;
                stored.transit.push(a.wrapping_sub(s) as i64);
                let bytes = size.at(pairing.messages[i as usize].send.index());
                stored.size.push(bytes);
                entry.total_bytes = entry.total_bytes.saturating_add(bytes);
                entry.max_transit = entry.max_transit.max(a.saturating_sub(s));
            }
            entry.chunk_first_send.push(send(chunk[0]));
            entry.chunk_last_send.push(send(chunk[chunk.len() - 1]));
            let key = ChunkKey {
                kind: ChunkKind::Messages,
                part: r as u32,
                level: 0,
                block: block as u32,
            };
            sink(key, encode(&stored));
        }
        if let (Some(&first), Some(&last)) = (messages.first(), messages.last()) {
            entry.lod = LodLevels::for_items(
                entry.n_messages,
                index.shape.message_chunk,
                index.shape.per_bucket,
                send(first),
                send(last).saturating_add(1),
            );
        }
        if let Some(levels) = entry.lod {
            let (a, b) = levels.buckets(levels.finest);
            let mut sent = 0usize;
            let samples: Vec<u64> = (a..=b)
                .map(|bucket| {
                    let tick =
                        (u128::from(bucket) << levels.finest).min(u128::from(u64::MAX)) as u64;
                    while sent < messages.len() && send(messages[sent]) < tick {
                        sent += 1;
                    }
                    sent as u64
                })
                .collect();
            write_levels(
                index.shape,
                ChunkKind::PairLod,
                r as u32,
                &levels,
                vec![samples],
                vec![entry.n_messages],
                sink,
            );
        }
        index.pairs.push(entry);
    }
}

/// Where a lazy index reads its chunks.
pub trait ChunkSource {
    /// The chunk named `key`, decoded.
    fn chunk(&self, key: ChunkKey) -> Result<Arc<Chunk>, String>;
}

/// Why a lazy viewport cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LazyError {
    /// The request is invalid.
    #[error(transparent)]
    Viewport(#[from] ViewportError),
    /// A chunk could not be read.
    #[error("the run's stored index could not be read: {0}")]
    Chunk(String),
}

/// The level `l` of a request whose pixels are `2^l` ticks wide and start on multiples of
/// `2^l`, if it is one.
fn pixel_level(request: &ViewportRequest) -> Option<u8> {
    let span = request.end - request.start;
    let width = u64::from(request.width_px);
    let per_px = span / width;
    (span.is_multiple_of(width) && per_px.is_power_of_two() && request.start.is_multiple_of(per_px))
        .then(|| per_px.trailing_zeros() as u8)
}

/// A part's chunks read through a source, the last one kept: readers walk a part's chunks in
/// order, so most reads hit it.
struct Held<'a> {
    source: &'a dyn ChunkSource,
    kind: ChunkKind,
    part: u32,
    last: Option<(u8, u32, Arc<Chunk>)>,
}

impl<'a> Held<'a> {
    fn new(source: &'a dyn ChunkSource, kind: ChunkKind, part: u32) -> Held<'a> {
        Held {
            source,
            kind,
            part,
            last: None,
        }
    }

    /// The part's chunk `block` of `level`.
    fn get(&mut self, level: u8, block: u32) -> Result<Arc<Chunk>, LazyError> {
        if let Some((l, b, chunk)) = &self.last
            && *l == level
            && *b == block
        {
            return Ok(Arc::clone(chunk));
        }
        let key = ChunkKey {
            kind: self.kind,
            part: self.part,
            level,
            block,
        };
        let chunk = self.source.chunk(key).map_err(LazyError::Chunk)?;
        self.last = Some((level, block, Arc::clone(&chunk)));
        Ok(chunk)
    }
}

impl Chunk {
    fn spans(&self) -> Result<&SpanColumns, LazyError> {
        match self {
            Chunk::Spans(c) => Ok(c),
            _ => Err(LazyError::Chunk(
                "a span chunk holds something else".to_owned(),
            )),
        }
    }

    fn messages(&self) -> Result<&PairMessages, LazyError> {
        match self {
            Chunk::Messages(m) => Ok(m),
            _ => Err(LazyError::Chunk(
                "a message chunk holds something else".to_owned(),
            )),
        }
    }

    fn samples(&self) -> Result<&[Vec<u64>], LazyError> {
        match self {
            Chunk::Samples(columns) => Ok(columns),
            _ => Err(LazyError::Chunk(
                "a sample chunk holds something else".to_owned(),
            )),
        }
    }
}

/// Reads samples of one row or pair: the value of its prefix functions at a tick on a level's
/// grid, loading each block once.
struct Sampler<'a> {
    held: Held<'a>,
    levels: LodLevels,
    totals: &'a [u64],
    block_size: usize,
}

impl Sampler<'_> {
    /// The values at `tick`, a multiple of `2^level` with `level >= finest`.
    fn at(&mut self, tick: u64, level: u8, out: &mut [u64]) -> Result<(), LazyError> {
        let level = level.min(self.levels.coarsest);
        let (first, last) = self.levels.buckets(level);
        let b = tick.checked_shr(u32::from(level)).unwrap_or(0);
        if b < first {
            out.fill(0);
            return Ok(());
        }
        if b > last {
            out.copy_from_slice(self.totals);
            return Ok(());
        }
        let i = (b - first) as usize;
        let block = (i / self.block_size) as u32;
        let chunk = self.held.get(level, block)?;
        for (value, column) in out.iter_mut().zip(chunk.samples()?) {
            *value = *column
                .get(i % self.block_size)
                .ok_or_else(|| LazyError::Chunk("a sample chunk is short".to_owned()))?;
        }
        Ok(())
    }
}

impl LazyIndex {
    /// Answers a viewport, reading chunks from `source`: the same answer as the in-memory
    /// [`ViewportIndex::query`] of the trace.
    pub fn query(
        &self,
        source: &dyn ChunkSource,
        request: &ViewportRequest,
    ) -> Result<Viewport, LazyError> {
        let rows = checked_rows(request, self.n_rows())?;
        let scale = Scale::new(request.start, request.end, request.width_px);
        let level = pixel_level(request);
        let mut views = Vec::new();
        for r in rows.clone().into_iter().flatten() {
            views.push(self.row(source, r, &scale, level)?);
        }
        let last = request.last_row.min(self.n_rows().saturating_sub(1));
        let in_rows = |p: u32| p >= request.first_row && p <= last;
        let mut plans = Vec::new();
        for (q, pair) in self.pairs.iter().enumerate() {
            if in_rows(pair.from) || in_rows(pair.to) {
                plans.push(self.plan_pair(source, q, &scale, level)?);
            }
        }
        let mut bucket = 1;
        loop {
            let mut arrows = 0;
            for plan in &plans {
                arrows += self.count_arrows(plan, &scale, bucket);
            }
            if fits_budget(arrows, request.width_px, bucket) {
                break;
            }
            bucket *= 2;
        }
        let (mut messages, mut bundles) = (MessageColumns::default(), BundleColumns::default());
        for plan in &plans {
            self.pair_arrows(source, plan, &scale, bucket, &mut messages, &mut bundles)?;
        }
        Ok(Viewport {
            start: request.start,
            end: request.end,
            width_px: request.width_px,
            rows: views,
            messages,
            bundles,
            bucket_px: bucket,
        })
    }

    fn row(
        &self,
        source: &dyn ChunkSource,
        r: u32,
        scale: &Scale,
        level: Option<u8>,
    ) -> Result<RowView, LazyError> {
        let entry = &self.rows[r as usize];
        if let (Some(levels), Some(level)) = (entry.lod, level)
            && level >= levels.finest
        {
            let sampler = self.sampler(source, ChunkKind::RowLod, r, levels, &entry.totals);
            return row_from_prefix(r, Prefix::Samples(sampler, level), scale);
        }
        // The chunks overlapping the window (all of a row out of order).
        let (lo, hi) = if entry.ordered {
            (
                entry.chunk_end.partition_point(|&e| e <= scale.start),
                entry.chunk_start.partition_point(|&s| s < scale.end),
            )
        } else {
            (0, entry.chunk_start.len())
        };
        if entry.ordered && probes_pay(scale, lo, hi) {
            let probe = self.probe(source, ChunkKind::Spans, r, &entry.chunk_start);
            return row_from_prefix(r, Prefix::Chunks(probe), scale);
        }
        // Few spans: the in-memory algorithm on them.
        let mut local = ViewportIndex::default();
        let mut held = Held::new(source, ChunkKind::Spans, r);
        for block in lo..hi.max(lo) {
            let chunk = held.get(0, block as u32)?;
            let c = chunk.spans()?;
            local.span_start.extend_from_slice(&c.start);
            local.span_end.extend_from_slice(&c.end);
            local.span_state.extend_from_slice(&c.state);
            local
                .computing_before
                .extend_from_slice(&c.computing_before);
            local.blocked_before.extend_from_slice(&c.blocked_before);
        }
        local.row_start = vec![0, local.span_start.len()];
        let mut view = local.row(0, scale);
        view.process = r;
        Ok(view)
    }
}

/// Whether reading a window's prefix functions at its pixel boundaries (a chunk at most per
/// boundary) beats reading the `hi - lo` chunks it overlaps: when it overlaps more than two and
/// its pixels are at least a tick wide.
fn probes_pay(scale: &Scale, lo: usize, hi: usize) -> bool {
    hi.saturating_sub(lo) > 2 && scale.end - scale.start >= u64::from(scale.width)
}

/// A row drawn from its prefix functions at the pixel boundaries: a pixel's computing and
/// blocked ticks, the spans it overlaps (started before its end, not ended by its start) and
/// whether one is carried in from the left are differences of them — what the in-memory
/// algorithm finds span by span.
fn row_from_prefix(r: u32, mut prefix: Prefix<'_>, scale: &Scale) -> Result<RowView, LazyError> {
    let mut view = RowView {
        process: r,
        ..RowView::default()
    };
    let (mut left, mut right) = ([0u64; 4], [0u64; 4]);
    prefix.at(scale.start, &mut left)?;
    for px in 0..scale.width {
        prefix.at(scale.pixel_end(px), &mut right)?;
        // Computing, blocked, started, ended before each end of the pixel.
        let overlapping = right[2].saturating_sub(left[3]);
        let carried = left[2].saturating_sub(left[3]);
        if overlapping == 0 {
            view.push('-', 1, 0);
        } else {
            let computing = right[0].saturating_sub(left[0]);
            let blocked = right[1].saturating_sub(left[1]);
            let state = if computing >= blocked {
                State::Computing
            } else {
                State::Blocked
            };
            let count = overlapping.saturating_sub(if px > 0 { carried } else { 0 });
            let count = u32::try_from(count).unwrap_or(u32::MAX);
            view.push(state_letter(Some(state), count >= 2), 1, count);
        }
        left = right;
    }
    Ok(view)
}

/// Where a row's (pair's) prefix functions are read: its samples, at ticks on a level's grid,
/// or its chunks, at any tick (the chunk holding the tick, loaded once in a row).
enum Prefix<'a> {
    Samples(Sampler<'a>, u8),
    Chunks(ChunkProbe<'a>),
}

impl Prefix<'_> {
    fn at(&mut self, tick: u64, out: &mut [u64]) -> Result<(), LazyError> {
        match self {
            Prefix::Samples(sampler, level) => sampler.at(tick, *level, out),
            Prefix::Chunks(probe) => probe.at(tick, out),
        }
    }
}

/// Reads a row's (pair's) prefix functions at any tick from the chunk that holds it: a row's
/// computing and blocked ticks, spans started and ended before the tick; a pair's messages sent
/// before it. The row must be ordered (a pair's sends always are).
struct ChunkProbe<'a> {
    held: Held<'a>,
    /// Items a chunk.
    chunk_len: u64,
    /// Each chunk's first start (send).
    firsts: &'a [u64],
}

impl ChunkProbe<'_> {
    fn at(&mut self, tick: u64, out: &mut [u64]) -> Result<(), LazyError> {
        // The last chunk whose first item starts before the tick: every item before it has
        // ended by then, none after it has started.
        let Some(k) = self.firsts.partition_point(|&f| f < tick).checked_sub(1) else {
            out.fill(0);
            return Ok(());
        };
        let chunk = self.held.get(0, k as u32)?;
        let base = k as u64 * self.chunk_len;
        match (&*chunk, out) {
            (Chunk::Spans(c), [computing, blocked, started, ended]) => {
                let s = c.start.partition_point(|&t| t < tick);
                let e = c.end.partition_point(|&t| t <= tick);
                let (mut before_c, mut before_b) = c.before(e);
                if s > e {
                    // The span open at the tick counts up to it.
                    let open = tick.saturating_sub(c.start[e]);
                    match c.state[e] {
                        State::Computing => before_c = before_c.saturating_add(open),
                        _ => before_b = before_b.saturating_add(open),
                    }
                }
                *computing = before_c;
                *blocked = before_b;
                *started = base + s as u64;
                *ended = base + e as u64;
                Ok(())
            }
            (Chunk::Messages(m), [sent]) => {
                *sent = base + m.send.partition_point(|&t| t < tick) as u64;
                Ok(())
            }
            _ => Err(LazyError::Chunk(format!(
                "a {:?} chunk holds something else",
                self.held.kind
            ))),
        }
    }
}

impl SpanColumns {
    /// Computing and blocked ticks of the row's spans before span `k` (`k` up to the chunk's
    /// length).
    fn before(&self, k: usize) -> (u64, u64) {
        match (self.computing_before.get(k), self.blocked_before.get(k)) {
            (Some(&c), Some(&b)) => (c, b),
            _ => {
                let Some(last) = self.start.len().checked_sub(1) else {
                    return (0, 0);
                };
                let length = self.end[last].saturating_sub(self.start[last]);
                let (c, b) = (self.computing_before[last], self.blocked_before[last]);
                match self.state[last] {
                    State::Computing => (c.saturating_add(length), b),
                    _ => (c, b.saturating_add(length)),
                }
            }
        }
    }
}

impl LazyIndex {
    fn sampler<'a>(
        &self,
        source: &'a dyn ChunkSource,
        kind: ChunkKind,
        part: u32,
        levels: LodLevels,
        totals: &'a [u64],
    ) -> Sampler<'a> {
        Sampler {
            held: Held::new(source, kind, part),
            levels,
            totals,
            block_size: self.shape.lod_block as usize,
        }
    }

    fn probe<'a>(
        &self,
        source: &'a dyn ChunkSource,
        kind: ChunkKind,
        part: u32,
        firsts: &'a [u64],
    ) -> ChunkProbe<'a> {
        let chunk_len = match kind {
            ChunkKind::Messages => self.shape.message_chunk,
            _ => self.shape.span_chunk,
        };
        ChunkProbe {
            held: Held::new(source, kind, part),
            chunk_len: u64::from(chunk_len),
            firsts,
        }
    }
}

/// How one pair's arrows are found for a query.
enum PairPlan {
    /// From the counts at the pixel boundaries.
    Sampled {
        q: usize,
        /// Messages sent before each pixel boundary.
        sent: Vec<u64>,
        /// The messages in flight when the window starts, by index in the pair.
        in_flight: Vec<u64>,
    },
    /// From the messages near the window, in a one-pair in-memory index, with how many
    /// arrows they make at any bucket width.
    Local(Box<ViewportIndex>, ArrowShape),
}

/// A pair's messages read one at a time, each chunk loaded once in a row.
struct MessageReader<'a> {
    held: Held<'a>,
    total_bytes: u64,
    n: u64,
    chunk: u64,
}

impl MessageReader<'_> {
    /// The send, arrival and bytes before message `k` (`k == n`: the bytes of all).
    fn at(&mut self, k: u64) -> Result<(u64, u64, u64), LazyError> {
        if k >= self.n {
            return Ok((0, 0, self.total_bytes));
        }
        let chunk = self.held.get(0, (k / self.chunk) as u32)?;
        let m = chunk.messages()?;
        let i = (k % self.chunk) as usize;
        match (m.send.get(i), m.arrival.get(i), m.bytes_before.get(i)) {
            (Some(&s), Some(&a), Some(&b)) => Ok((s, a, b)),
            _ => Err(LazyError::Chunk("a message chunk is short".to_owned())),
        }
    }
}

impl LazyIndex {
    fn reader<'a>(&self, source: &'a dyn ChunkSource, q: usize) -> MessageReader<'a> {
        let pair = &self.pairs[q];
        MessageReader {
            held: Held::new(source, ChunkKind::Messages, q as u32),
            total_bytes: pair.total_bytes,
            n: pair.n_messages,
            chunk: u64::from(self.shape.message_chunk),
        }
    }

    fn plan_pair(
        &self,
        source: &dyn ChunkSource,
        q: usize,
        scale: &Scale,
        level: Option<u8>,
    ) -> Result<PairPlan, LazyError> {
        let pair = &self.pairs[q];
        let earliest = scale.start.saturating_sub(pair.max_transit);
        let totals = [pair.n_messages];
        let lo = pair.chunk_last_send.partition_point(|&s| s < earliest);
        let hi = pair.chunk_first_send.partition_point(|&s| s < scale.end);
        let prefix = match (pair.lod, level) {
            (Some(levels), Some(level)) if level >= levels.finest => Some(Prefix::Samples(
                self.sampler(source, ChunkKind::PairLod, q as u32, levels, &totals),
                level,
            )),
            _ if probes_pay(scale, lo, hi) => Some(Prefix::Chunks(self.probe(
                source,
                ChunkKind::Messages,
                q as u32,
                &pair.chunk_first_send,
            ))),
            _ => None,
        };
        if let Some(mut prefix) = prefix {
            let mut sent = Vec::with_capacity(scale.width as usize + 1);
            let mut value = [0u64];
            prefix.at(scale.start, &mut value)?;
            sent.push(value[0]);
            for px in 0..scale.width {
                prefix.at(scale.pixel_end(px), &mut value)?;
                sent.push(value[0]);
            }
            // The messages sent from `earliest` up to the window, still in flight at its start.
            let mut in_flight = Vec::new();
            let mut reader = self.reader(source, q);
            let mut k = lo as u64 * u64::from(self.shape.message_chunk);
            while k < sent[0] {
                let (send, arrival, _) = reader.at(k)?;
                if send >= earliest && arrival >= scale.start {
                    in_flight.push(k);
                }
                k += 1;
            }
            return Ok(PairPlan::Sampled { q, sent, in_flight });
        }
        let mut local = ViewportIndex {
            pair_from: vec![pair.from],
            pair_to: vec![pair.to],
            pair_max_transit: vec![pair.max_transit],
            ..ViewportIndex::default()
        };
        let mut after = 0;
        let mut held = Held::new(source, ChunkKind::Messages, q as u32);
        for block in lo..hi.max(lo) {
            let chunk = held.get(0, block as u32)?;
            let m = chunk.messages()?;
            local.msg_send.extend_from_slice(&m.send);
            local.msg_arrival.extend_from_slice(&m.arrival);
            local.bytes_before.extend_from_slice(&m.bytes_before);
            if let (Some(&b), Some(&s)) = (m.bytes_before.last(), m.size.last()) {
                after = b.saturating_add(s);
            }
        }
        local.bytes_before.push(after);
        local.pair_start = vec![0, local.msg_send.len()];
        let shape = local.arrow_shape(0, scale);
        Ok(PairPlan::Local(Box::new(local), shape))
    }

    /// The runs of neighbouring buckets (`bucket` pixels) holding messages, as ranges of the
    /// pair's messages.
    fn sampled_runs(sent: &[u64], width: u32, bucket: u32) -> Vec<(u64, u64)> {
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut open = false;
        let mut px = 0;
        while px < width {
            let next = (px + bucket).min(width);
            let (a, b) = (sent[px as usize], sent[next as usize]);
            if b > a {
                match runs.last_mut() {
                    Some(run) if open => run.1 = b,
                    _ => runs.push((a, b)),
                }
                open = true;
            } else {
                open = false;
            }
            px = next;
        }
        runs
    }

    fn count_arrows(&self, plan: &PairPlan, scale: &Scale, bucket: u32) -> usize {
        match plan {
            PairPlan::Sampled {
                sent, in_flight, ..
            } => in_flight.len() + Self::sampled_runs(sent, scale.width, bucket).len(),
            PairPlan::Local(_, shape) => shape.arrows(bucket),
        }
    }

    fn pair_arrows(
        &self,
        source: &dyn ChunkSource,
        plan: &PairPlan,
        scale: &Scale,
        bucket: u32,
        columns: &mut MessageColumns,
        bundles: &mut BundleColumns,
    ) -> Result<(), LazyError> {
        let (q, sent, in_flight) = match plan {
            PairPlan::Local(local, _) => {
                local.pair_arrows(0, scale, bucket, columns, bundles);
                return Ok(());
            }
            PairPlan::Sampled { q, sent, in_flight } => (*q, sent, in_flight),
        };
        let pair = &self.pairs[q];
        let mut reader = self.reader(source, q);
        let mut single = |k: u64, columns: &mut MessageColumns| -> Result<(), LazyError> {
            let (send, arrival, before) = reader.at(k)?;
            let (_, _, after) = reader.at(k + 1)?;
            columns.from.push(pair.from);
            columns.to.push(pair.to);
            columns.send_px.push(scale.px_signed(send));
            columns.arrival_px.push(scale.px_signed(arrival));
            columns.bytes.push(after - before);
            Ok(())
        };
        for &k in in_flight {
            single(k, columns)?;
        }
        for (a, b) in Self::sampled_runs(sent, scale.width, bucket) {
            if b - a == 1 {
                single(a, columns)?;
                continue;
            }
            let mut reader = self.reader(source, q);
            let (first_send, first_arrival, before) = reader.at(a)?;
            let (last_send, last_arrival, _) = reader.at(b - 1)?;
            let (_, _, after) = reader.at(b)?;
            bundles.from.push(pair.from);
            bundles.to.push(pair.to);
            bundles.count.push(u32::try_from(b - a).unwrap_or(u32::MAX));
            bundles.bytes.push(after - before);
            bundles.first_send_px.push(scale.px_signed(first_send));
            bundles.last_send_px.push(scale.px_signed(last_send));
            bundles
                .first_arrival_px
                .push(scale.px_signed(first_arrival));
            bundles.last_arrival_px.push(scale.px_signed(last_arrival));
        }
        Ok(())
    }
}

/// A lazy index's chunks kept in memory, as built, counting the loads (for tests and
/// benchmarks; the server reads its chunks from the store).
#[derive(Debug, Default)]
pub struct MemoryChunks {
    chunks: FxHashMap<ChunkKey, Vec<u8>>,
    loads: std::sync::atomic::AtomicUsize,
}

impl MemoryChunks {
    /// Keeps a chunk (a sink for [`build`]).
    pub fn insert(&mut self, key: ChunkKey, bytes: Vec<u8>) {
        self.chunks.insert(key, bytes);
    }

    /// How many chunks are kept.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// Whether none are.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// How many chunks were loaded so far.
    pub fn loads(&self) -> usize {
        self.loads.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl ChunkSource for MemoryChunks {
    fn chunk(&self, key: ChunkKey) -> Result<Arc<Chunk>, String> {
        self.loads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let bytes = self
            .chunks
            .get(&key)
            .ok_or_else(|| format!("no chunk {key:?}"))?;
        Chunk::decode(key.kind, bytes).map(Arc::new)
    }
}
