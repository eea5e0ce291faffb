//! Level of detail: the viewport answers every span and message in the window exactly once,
//! as itself or inside a summary, in a size bounded by the pixels.

use proptest::prelude::*;
use shared::graph::ExecutionGraph;
use shared::model::Trace;
use shared::pairing::pair_messages;
use shared::states::State::{Blocked, Computing};
use shared::viewport::{Bin, ViewportError, ViewportIndex, ViewportRequest};

use crate::load;

fn index_of(trace: &Trace) -> ViewportIndex {
    let pairing = pair_messages(trace);
    ViewportIndex::new(trace, &pairing, &ExecutionGraph::new(trace, &pairing))
}

fn request(start: u64, end: u64, width_px: u32) -> ViewportRequest {
    ViewportRequest {
        start,
        end,
        first_row: 0,
        last_row: u32::MAX,
        width_px,
    }
}

#[test]
fn worked_example_at_full_resolution_is_every_span_and_message() {
    let index = index_of(&load("t4-worked-example.json"));
    let view = index.query(&request(0, 69, 69)).expect("answers");
    // analysis.md §10: A computes [0,35], [48,53], blocks [35,48]; B computes [0,20], [33,43],
    // [54,69], blocks [20,33], [43,54].
    let a = &view.rows[0];
    assert_eq!(a.span_start, [0, 35, 48]);
    assert_eq!(a.span_end, [35, 48, 53]);
    assert_eq!(a.span_states(), [Computing, Blocked, Computing]);
    let b = &view.rows[1];
    assert_eq!(b.span_start, [0, 20, 33, 43, 54]);
    assert_eq!(
        b.span_states(),
        [Computing, Blocked, Computing, Blocked, Computing]
    );
    assert!(a.bins().is_empty() && b.bins().is_empty());
    assert_eq!(view.messages.send.len(), 3);
    assert!(view.bundles.is_empty());
}

#[test]
fn worked_example_two_pixels_wide_is_summarised_by_dominant_state() {
    let index = index_of(&load("t4-worked-example.json"));
    // Pixel 0 is [0,35), pixel 1 is [35,69).
    let view = index.query(&request(0, 69, 2)).expect("answers");
    let a = &view.rows[0];
    // A's [0,35] fills pixel 0; pixel 1 holds blocked 13 ticks and computing 5.
    assert_eq!(
        (a.span_start.as_slice(), a.span_end.as_slice()),
        (&[0][..], &[35][..])
    );
    assert_eq!(
        a.bins(),
        [Bin {
            px_first: 1,
            px_last: 1,
            state: Blocked,
            count: 2
        }]
    );
    // B: pixel 0 computes 30 of 43 ticks (3 spans), pixel 1 computes 15, blocks 11 (2 spans):
    // one merged bin.
    let b = &view.rows[1];
    assert!(b.span_start.is_empty());
    assert_eq!(
        b.bins(),
        [Bin {
            px_first: 0,
            px_last: 1,
            state: Computing,
            count: 5
        }]
    );
    // One pixel: every message with the same ends is one bundle.
    let one = index.query(&request(0, 69, 1)).expect("answers");
    let bundled: u32 = one.bundles.iter().map(|b| b.count).sum();
    assert_eq!(bundled as usize + one.messages.send.len(), 3);
    assert!(
        one.bundles
            .iter()
            .all(|b| b.count >= 2 && b.first_send <= b.last_send)
    );
}

#[test]
fn bad_requests_are_refused() {
    let index = index_of(&load("t4-worked-example.json"));
    assert_eq!(
        index.query(&request(5, 5, 10)),
        Err(ViewportError::EmptyWindow { start: 5, end: 5 })
    );
    assert_eq!(index.query(&request(0, 9, 0)), Err(ViewportError::Width(0)));
    let mut rows = request(0, 9, 10);
    rows.first_row = 2;
    rows.last_row = 1;
    assert!(matches!(
        index.query(&rows),
        Err(ViewportError::Rows { .. })
    ));
    // Rows past the trace answer nothing rather than fail.
    rows.first_row = 7;
    rows.last_row = 9;
    assert!(index.query(&rows).expect("answers").rows.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_span_and_message_is_answered_once_within_the_pixels(
        a in 0u64..13_000, len in 1u64..15_000, width in 1u32..3_000, first in 0u32..8, rows in 0u32..8,
    ) {
        // 125 rounds of 100 ns: the trace spans about 12,500 ticks.
        let trace = shared::synthetic::ring(8, 4_000);
        let index = index_of(&trace);
        let pairing = pair_messages(&trace);
        let spans = shared::states::state_spans(&trace);
        let (b, last) = (a + len, first + rows);
        let mut req = request(a, b, width);
        req.first_row = first;
        req.last_row = last;
        let view = index.query(&req).expect("answers");
        for row in &view.rows {
            let expected = spans
                .iter()
                .filter(|s| s.process.0 == row.process && s.start.0 < b && s.end.0 > a)
                .count();
            let counted: usize = row.span_start.len()
                + row.bins().iter().map(|b| b.count as usize).sum::<usize>();
            prop_assert_eq!(counted, expected, "row {}", row.process);
            prop_assert!(row.span_start.len() + row.bins().len() <= 2 * width as usize + 2);
            prop_assert!(row.bins().iter().all(|b| b.px_first <= b.px_last && b.px_last < width));
        }
        let time = trace.events.time();
        let process = trace.events.process();
        let in_rows = |p: u32| p >= first && p <= last;
        let expected = pairing
            .messages
            .iter()
            .filter(|m| {
                let (s, r) = (m.send.0 as usize, m.arrival.0 as usize);
                time[s].0 < b && time[r].0 >= a && (in_rows(process[s].0) || in_rows(process[r].0))
            })
            .count();
        let answered = view.messages.send.len()
            + view.bundles.iter().map(|b| b.count as usize).sum::<usize>();
        prop_assert_eq!(answered, expected);
    }
}
