//! The lazy viewport index (stored as chunks, read as views need them) answers exactly what the
//! in-memory index answers, reading only what the window needs.

use proptest::prelude::*;
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::graph::states::{HubTargets, process_state_spans, state_spans_of};
use shared::model::Trace;
use shared::view::lod::{self, LazyIndex, MemoryChunks, Shape};
use shared::view::viewport::{ViewportIndex, ViewportRequest};

fn both(trace: &Trace, shape: Shape) -> (ViewportIndex, LazyIndex, MemoryChunks) {
    let pairing = pair_messages(trace);
    let index = ViewportIndex::new(trace, &pairing, &ExecutionGraph::new(trace, &pairing));
    let mut chunks = MemoryChunks::default();
    let lazy = lod::build(trace, &pairing, shape, &mut |key, bytes| {
        chunks.insert(key, bytes)
    });
    // The directory survives its encoding.
    let lazy = LazyIndex::decode(&lazy.encode()).expect("the directory decodes");
    (index, lazy, chunks)
}

fn check(index: &ViewportIndex, lazy: &LazyIndex, chunks: &MemoryChunks, r: &ViewportRequest) {
    let expected = index.query(r);
    let got = lazy.query(chunks, r);
    match (expected, got) {
        (Ok(e), Ok(g)) => assert_eq!(g, e, "request {r:?}"),
        (Err(e), Err(g)) => assert_eq!(g.to_string(), e.to_string(), "request {r:?}"),
        (e, g) => panic!("request {r:?}: in memory {e:?}, lazy {g:?}"),
    }
}

/// A small shape, so that small traces have several chunks and levels of detail.
const FINE: Shape = Shape {
    span_chunk: 3,
    message_chunk: 2,
    lod_block: 3,
    per_bucket: 1,
};

#[test]
fn a_large_ring_is_answered_alike_and_its_first_view_reads_few_chunks() {
    // 8 processes, 50,000 events each: every row and pair has levels of detail.
    let trace = shared::model::synthetic::ring(8, 400_000);
    let (index, lazy, chunks) = both(&trace, Shape::default());
    assert!(lazy.rows.iter().all(|r| r.lod.is_some()));
    assert!(lazy.pairs.iter().all(|p| p.lod.is_some()));
    let (first, last) = trace.time_bounds().expect("events");
    let whole = ViewportRequest::quantised(first.0, last.0 + 1, 0, 7, 1200);
    let before = chunks.loads();
    check(&index, &lazy, &chunks, &whole);
    let first_view = chunks.loads() - before;
    // At most two blocks of samples a row; two blocks of samples a pair and the messages at
    // its bundle's ends: however many spans and messages the run has.
    let bound = 2 * lazy.rows.len() + 5 * lazy.pairs.len();
    assert!(
        first_view <= bound && first_view * 5 < chunks.len(),
        "the first view read {first_view} of {} chunks (at most {bound} expected)",
        chunks.len()
    );
    // Zooming in, level by level, across the run; then windows off the grid.
    let span = last.0 - first.0;
    for zoom in 0..14 {
        let width = span >> zoom;
        for k in 0..5u64 {
            let start = first.0 + (span - width) / 4 * k;
            let r = ViewportRequest::quantised(start, start + width.max(1), 0, 7, 1000);
            check(&index, &lazy, &chunks, &r);
        }
    }
    for (start, end, width) in [(3, 12_345, 777), (1_000, 300_000, 1_999), (0, span, 64)] {
        let r = ViewportRequest {
            start,
            end,
            first_row: 2,
            last_row: 5,
            width_px: width,
        };
        check(&index, &lazy, &chunks, &r);
    }
}

/// Random busy traces: each process a long run of sends, receives and probes at random gaps,
/// so rows and pairs have many spans and messages (levels of detail even with small chunks).
fn arb_busy_trace() -> impl Strategy<Value = Trace> {
    let step = (0u8..3, 0u32..4, 0u64..12, 0u64..30, 0u64..5000);
    let process = prop::collection::vec(step, 10..120);
    prop::collection::vec(process, 2..5).prop_map(|processes| {
        use shared::model::time::{Clock, Time};
        use shared::model::{EventKind, EventRecord, ProcessId, TraceBuilder};
        let n = processes.len() as u32;
        let mut b = TraceBuilder::new("busy", Clock::NANOSECONDS);
        for p in 0..n {
            let node = b.add_node(format!("node {p}"));
            let _ = b.add_process(format!("p{p}"), node);
        }
        for (p, steps) in processes.iter().enumerate() {
            let p = p as u32;
            let mut t = 0;
            let push = |b: &mut TraceBuilder, t: u64, kind, peer: Option<u32>, size| {
                let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
                r.peer = peer.map(ProcessId);
                r.size = size;
                let _ = b.push(r);
            };
            push(&mut b, 0, EventKind::ProcInit, None, 0);
            for &(kind, peer, gap, wait, size) in steps {
                t += gap;
                let peer = (p + 1 + peer % (n - 1)) % n;
                match kind {
                    0 => push(&mut b, t, EventKind::MsgSend, Some(peer), size),
                    1 => {
                        push(&mut b, t, EventKind::RecvCall, None, 0);
                        t += wait;
                        push(&mut b, t, EventKind::MsgArr, Some(peer), size);
                    }
                    _ => push(&mut b, t, EventKind::Probe, None, 0),
                }
            }
            push(&mut b, t + 1, EventKind::ProcExit, None, 0);
        }
        b.build()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Random traces (collectives and clock violations included), cut into tiny chunks, and
    /// random windows on the quantised grid and off it.
    #[test]
    fn lazy_answers_are_the_in_memory_answers(
        trace in crate::analysis2::arb_trace(),
        start in 0u64..50, len in 1u64..60, width in 1u32..40, first in 0u32..5, rows in 0u32..5,
        quantise in any::<bool>(),
    ) {
        let (index, lazy, chunks) = both(&trace, FINE);
        let r = if quantise {
            ViewportRequest::quantised(start, start + len, first, first + rows, width)
        } else {
            ViewportRequest { start, end: start + len, first_row: first, last_row: first + rows, width_px: width }
        };
        check(&index, &lazy, &chunks, &r);
    }

    /// Busy traces, where most rows and pairs are drawn from their levels of detail.
    #[test]
    fn lazy_answers_from_levels_of_detail_are_the_in_memory_answers(
        trace in arb_busy_trace(),
        level in 0u32..7, at in 0u64..400, width in 1u32..200, first in 0u32..5, rows in 0u32..5,
    ) {
        // Pixels of 2^level ticks starting on a multiple of them: the grid levels answer.
        let (index, lazy, chunks) = both(&trace, FINE);
        let start = (at << level) >> 2;
        let start = start - start % (1 << level);
        let r = ViewportRequest {
            start,
            end: start + (u64::from(width) << level),
            first_row: first,
            last_row: first + rows,
            width_px: width,
        };
        check(&index, &lazy, &chunks, &r);
    }

    /// Busy traces and windows off the grid: rows and pairs overlapping many chunks are read at
    /// their pixel boundaries from the chunks that hold them.
    #[test]
    fn lazy_answers_read_at_pixel_boundaries_are_the_in_memory_answers(
        trace in arb_busy_trace(),
        start in 0u64..700, len in 1u64..1_500, width in 1u32..300, first in 0u32..5, rows in 0u32..5,
    ) {
        let (index, lazy, chunks) = both(&trace, FINE);
        let r = ViewportRequest { start, end: start + len, first_row: first, last_row: first + rows, width_px: width };
        check(&index, &lazy, &chunks, &r);
    }

    /// The state spans made one process at a time are the execution graph's.
    #[test]
    fn streamed_state_spans_are_the_graphs(trace in crate::analysis2::arb_trace()) {
        let pairing = pair_messages(&trace);
        let graph = ExecutionGraph::new(&trace, &pairing);
        let targets = HubTargets::new(&trace);
        let (mut sequence, mut spans, mut streamed) = (Vec::new(), Vec::new(), Vec::new());
        for p in trace.process_ids() {
            process_state_spans(&trace, &targets, p, &mut sequence, &mut spans);
            streamed.extend_from_slice(&spans);
        }
        prop_assert_eq!(streamed, state_spans_of(&trace, &graph));
    }
}
