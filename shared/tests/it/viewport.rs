//! Level of detail: the viewport answers every span and message in the window exactly once,
//! as itself or inside a summary, in a size bounded by the pixels.

use proptest::prelude::*;
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::graph::states::State::{Blocked, Computing};
use shared::model::Trace;
use shared::view::viewport::{
    MIN_ARROW_BUDGET, Run, TILE_PX, ViewportError, ViewportIndex, ViewportRequest,
};

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
    // [54,69], blocks [20,33], [43,54]. One tick a pixel: the runs are the spans.
    let a = &view.rows[0];
    assert_eq!(a.state, "cbc-");
    assert_eq!(a.width, [35, 13, 5, 16]);
    assert_eq!(a.count, [1, 1, 1, 0]);
    let b = &view.rows[1];
    assert_eq!(b.state, "cbcbc");
    assert_eq!(b.width, [20, 13, 10, 11, 15]);
    assert_eq!(
        b.runs()[3],
        Run {
            px_first: 43,
            px_last: 53,
            state: Some(Blocked),
            more: false,
            count: 1
        }
    );
    assert_eq!(view.messages.send_px.len(), 3);
    assert!(view.bundles.is_empty());
    assert_eq!(view.bucket_px, 1);
}

#[test]
fn the_span_under_a_tick_is_found() {
    let index = index_of(&load("t4-worked-example.json"));
    assert_eq!(index.span_at(0, 40), Some((35, 48, Blocked)));
    assert_eq!(index.span_at(1, 0), Some((0, 20, Computing)));
    assert_eq!(index.span_at(0, 60), None, "A has ended");
    assert_eq!(index.span_at(7, 0), None, "no such row");
}

#[test]
fn worked_example_zoomed_in_past_a_tick_a_pixel_keeps_every_pixel_painted() {
    let index = index_of(&load("t4-worked-example.json"));
    let view = index.query(&request(0, 69, 1000)).expect("answers");
    let a = view.rows[0].runs();
    // A tick `t` begins in pixel ⌊t · 1000 / 69⌋: A blocks from tick 35 (pixel 507), computes
    // from 48 (695) and has nothing from 53 (768).
    let states: Vec<_> = a.iter().map(|r| (r.px_first, r.state)).collect();
    assert_eq!(
        states,
        [
            (0, Some(Computing)),
            (507, Some(Blocked)),
            (695, Some(Computing)),
            (768, None)
        ]
    );
    assert_eq!(a.last().map(|r| r.px_last), Some(999));
    assert_eq!(a.iter().map(|r| r.count).sum::<u32>(), 3);
}

#[test]
fn worked_example_two_pixels_wide_is_summarised_by_dominant_state() {
    let index = index_of(&load("t4-worked-example.json"));
    // Pixel 0 is [0,35), pixel 1 is [35,69).
    let view = index.query(&request(0, 69, 2)).expect("answers");
    // A's [0,35] fills pixel 0; pixel 1 holds blocked 13 ticks and computing 5: "more here".
    let a = &view.rows[0];
    assert_eq!(a.state, "cB");
    assert_eq!(a.count, [1, 2]);
    // B: pixel 0 computes 22 of 35 ticks (3 spans start), pixel 1 computes 23, blocks 11 (2
    // spans start): one merged run.
    let b = &view.rows[1];
    assert_eq!(
        b.runs(),
        [Run {
            px_first: 0,
            px_last: 1,
            state: Some(Computing),
            more: true,
            count: 5
        }]
    );
    // One pixel: every message with the same ends is one bundle.
    let one = index.query(&request(0, 69, 1)).expect("answers");
    let bundled: u32 = one.bundles.count.iter().sum();
    assert_eq!(bundled as usize + one.messages.send_px.len(), 3);
    assert!(one.bundles.count.iter().all(|&c| c >= 2));
    assert!(
        (0..one.bundles.len()).all(|k| one.bundles.first_send_px[k] <= one.bundles.last_send_px[k])
    );
}

#[test]
fn a_dense_window_bundles_coarser_until_the_arrows_fit_the_budget() {
    // 64 processes, 200,000 events: about 50,000 messages.
    let trace = shared::model::synthetic::ring(64, 200_000);
    let index = index_of(&trace);
    let end = trace
        .events
        .time()
        .iter()
        .map(|t| t.0)
        .max()
        .expect("events")
        + 1;
    // A quarter of the trace: a message of each pair every pixel or two, too many to draw.
    let view = index.query(&request(0, end / 4, 500)).expect("answers");
    let arrows = view.messages.from.len() + view.bundles.len();
    assert!(arrows <= MIN_ARROW_BUDGET.max(1_000), "{arrows} arrows");
    assert!(view.bucket_px > 1 && view.bucket_px.is_power_of_two());
    let answered = view.messages.from.len()
        + view
            .bundles
            .count
            .iter()
            .map(|&c| c as usize)
            .sum::<usize>();
    let time = trace.events.time();
    let expected = pair_messages(&trace)
        .messages
        .iter()
        .filter(|m| time[m.send.0 as usize].0 < end / 4)
        .count();
    assert_eq!(answered, expected);
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
    fn quantised_windows_cover_the_request_on_a_shared_grid(
        start in 0u64..1u64 << 40, len in 1u64..1u64 << 36, width in 1u32..4_000, pan in 0u64..64,
    ) {
        let q = ViewportRequest::quantised(start, start + len, 0, 7, width);
        let per_px = (q.end - q.start) / u64::from(q.width_px);
        prop_assert!(per_px.is_power_of_two());
        prop_assert_eq!((q.end - q.start) % u64::from(q.width_px), 0);
        prop_assert!(q.start <= start && q.end >= start + len, "{:?}", q);
        // At least the resolution asked for, and not much more pixels.
        prop_assert!(per_px <= (len / u64::from(width)).max(1));
        prop_assert!(q.width_px <= 2 * width + 2 * TILE_PX, "{:?}", q);
        prop_assert_eq!(q.start % (per_px * u64::from(TILE_PX)), 0);
        // Panning by less than a pixel of the grid keeps the same request unless it crosses a
        // tile edge.
        let panned = ViewportRequest::quantised(start + pan.min(per_px - 1), start + len + pan.min(per_px - 1), 0, 7, width);
        if (start + pan.min(per_px - 1)) / (per_px * u64::from(TILE_PX)) == start / (per_px * u64::from(TILE_PX))
            && (start + len + pan.min(per_px - 1)).div_ceil(per_px * u64::from(TILE_PX)) == (start + len).div_ceil(per_px * u64::from(TILE_PX))
        {
            prop_assert_eq!(panned, q);
        }
    }

    #[test]
    fn every_span_and_message_is_answered_once_within_the_pixels(
        a in 0u64..13_000, len in 1u64..15_000, width in 1u32..3_000, first in 0u32..8, rows in 0u32..8,
    ) {
        // 125 rounds of 100 ns: the trace spans about 12,500 ticks.
        let trace = shared::model::synthetic::ring(8, 4_000);
        let index = index_of(&trace);
        let pairing = pair_messages(&trace);
        let spans = shared::graph::states::state_spans(&trace);
        let (b, last) = (a + len, first + rows);
        let mut req = request(a, b, width);
        req.first_row = first;
        req.last_row = last;
        let view = index.query(&req).expect("answers");
        let span = u128::from(len);
        let w = u128::from(width);
        let pixel_start = |p: u32| a + (u128::from(p) * span).div_ceil(w) as u64;
        for row in &view.rows {
            let mine: Vec<_> = spans.iter().filter(|s| s.process.0 == row.process).collect();
            let runs = row.runs();
            prop_assert!(runs.len() <= width as usize);
            prop_assert_eq!(row.width.iter().sum::<u32>(), width, "row {} covers the width", row.process);
            let expected = mine.iter().filter(|s| s.start.0 < b && s.end.0 > a).count();
            let counted: usize = runs.iter().map(|r| r.count as usize).sum();
            prop_assert_eq!(counted, expected, "row {}", row.process);
            // Pixel by pixel against a brute force over the spans.
            for run in &runs {
                let mut count = 0;
                for p in run.px_first..=run.px_last {
                    let (ps, pe) = (pixel_start(p), pixel_start(p + 1));
                    let state = if ps == pe {
                        mine.iter().find(|s| s.start.0 < ps && s.end.0 >= ps).map(|s| s.state)
                    } else {
                        let (mut computing, mut blocked) = (0, 0);
                        for s in &mine {
                            let overlap = s.end.0.min(pe).saturating_sub(s.start.0.max(ps));
                            // Every state but computing is time the process did not run.
                            match s.state {
                                Computing => computing += overlap,
                                _ => blocked += overlap,
                            }
                        }
                        (computing + blocked > 0)
                            .then_some(if computing >= blocked { Computing } else { Blocked })
                    };
                    let starting = mine
                        .iter()
                        .filter(|s| s.end.0 > a && (ps..pe).contains(&s.start.0.max(a)))
                        .count();
                    prop_assert_eq!(run.state, state, "row {} pixel {}", row.process, p);
                    prop_assert_eq!(run.more, starting >= 2, "row {} pixel {}", row.process, p);
                    count += starting;
                }
                prop_assert_eq!(run.count as usize, count, "row {} run {:?}", row.process, run);
            }
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
        let answered = view.messages.send_px.len()
            + view.bundles.count.iter().map(|&c| c as usize).sum::<usize>();
        prop_assert_eq!(answered, expected);
        let arrows = view.messages.send_px.len() + view.bundles.len();
        prop_assert!(
            arrows <= (2 * width as usize).max(MIN_ARROW_BUDGET) || view.bucket_px >= width,
            "{} arrows at {} px buckets", arrows, view.bucket_px
        );
    }
}
