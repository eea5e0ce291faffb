//! Clock repair (analysis.md §4): piecewise-linear offset interpolation between synchronisation
//! points, and the controlled logical clock (CLC) that removes clock-condition violations —
//! forward amortization with a γ controller, then backward amortization by a linear ramp.
//!
//! Repaired times are `f64` ticks (the CLC moves events by fractions of a tick); the original
//! trace is never changed, so views can show and diff both.

use serde::{Deserialize, Serialize};

use crate::graph::pairing::Pairing;
use crate::model::{EventIdx, Trace};

/// Offset interpolation: with offsets (t_k, o_k), t' = t + o_k + slope_k·(t − t_k) in interval
/// k, slope_k = (o_{k+1} − o_k)/(t_{k+1} − t_k); before the first and past the last record the
/// nearest interval is used (a single record is a constant offset).
pub fn interpolate(t: f64, offsets: &[(f64, f64)]) -> f64 {
    match offsets {
        [] => t,
        [(_, o)] => t + o,
        _ => {
            let k = offsets
                .partition_point(|&(tk, _)| tk <= t)
                .saturating_sub(1)
                .min(offsets.len() - 2);
            let (t0, o0) = offsets[k];
            let (t1, o1) = offsets[k + 1];
            let slope = if t1 > t0 { (o1 - o0) / (t1 - t0) } else { 0.0 };
            t + o0 + slope * (t - t0)
        }
    }
}

/// Options of the controlled logical clock.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClcOptions {
    /// The forward amortization factor γ ≤ 1: how much of a local interval survives a jump.
    pub gamma: f64,
    /// The minimum message latency: a receive must be at least this long after its send.
    pub min_latency: f64,
    /// The minimum spacing of consecutive events of a process (0 keeps equal timestamps equal).
    pub min_spacing: f64,
    /// The backward ramp's maximal slope (Scalasca's max_error, 0.01); `None` skips it.
    pub backward_slope: Option<f64>,
}

impl Default for ClcOptions {
    fn default() -> Self {
        ClcOptions {
            gamma: 0.99999,
            min_latency: 0.0,
            min_spacing: 0.0,
            backward_slope: Some(0.01),
        }
    }
}

/// An event the repair moved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Move {
    /// The event.
    pub event: EventIdx,
    /// Its recorded time.
    pub from: f64,
    /// Its repaired time.
    pub to: f64,
}

/// The result of a clock repair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repair {
    /// Every event's repaired time.
    pub times: Vec<f64>,
    /// The events that moved, in index order.
    pub moves: Vec<Move>,
    /// Clock-condition violations before the repair.
    pub violations_before: usize,
    /// Clock-condition violations after it (0 unless a causality cycle makes repair impossible).
    pub violations_after: usize,
    /// The largest shift.
    pub max_shift: f64,
}

/// Counts messages whose arrival is earlier than send + `min_latency` under `times`.
pub fn count_violations(pairing: &Pairing, times: &[f64], min_latency: f64) -> usize {
    pairing
        .messages
        .iter()
        .filter(|m| times[m.arrival.index()] < times[m.send.index()] + min_latency - 1e-9)
        .count()
}

/// Vertices in an order where each event follows its recorded predecessor and each arrival its
/// send; message edges that would close a cycle are left out (their violation stays).
fn causal_order(trace: &Trace, send_of: &[Option<EventIdx>]) -> Vec<usize> {
    let n = trace.events.len();
    let mut first = vec![false; n];
    for p in trace.process_ids() {
        let range = trace.process_events(p);
        if !range.is_empty() {
            first[range.start] = true;
        }
    }
    let mut arrival_of = vec![None; n];
    for (a, s) in send_of.iter().enumerate() {
        if let Some(s) = s {
            arrival_of[s.index()] = Some(a);
        }
    }
    let mut indegree: Vec<u8> = (0..n)
        .map(|i| u8::from(!first[i]) + u8::from(send_of[i].is_some()))
        .collect();
    let mut order: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut done = vec![false; n];
    // Arrivals whose message edge was ignored to break a cycle: their send no longer counts.
    let mut released = vec![false; n];
    let mut head = 0;
    loop {
        while head < order.len() {
            let v = order[head];
            head += 1;
            done[v] = true;
            let next = (v + 1 < n && !first[v + 1]).then_some(v + 1);
            let arrival = arrival_of[v].filter(|&a| !released[a]);
            for w in [next, arrival].into_iter().flatten() {
                indegree[w] -= 1;
                if indegree[w] == 0 {
                    order.push(w);
                }
            }
        }
        // A cycle: release the earliest blocked arrival by ignoring its message edge.
        match (0..n)
            .find(|&v| !done[v] && indegree[v] > 0 && send_of[v].is_some_and(|s| !done[s.index()]))
        {
            Some(v) if order.len() < n => {
                released[v] = true;
                indegree[v] -= 1;
                if indegree[v] == 0 {
                    order.push(v);
                }
            }
            _ => return order,
        }
    }
}

/// The trace on the repaired clock, when the repair moved anything: each time rounded up to a
/// whole tick (which keeps every order and every satisfied clock condition). `None` when
/// nothing moved or the repair would reorder a process.
pub fn repaired_trace(trace: &Trace, repair: &Repair) -> Option<Trace> {
    if repair.moves.is_empty() {
        return None;
    }
    let times = repair
        .times
        .iter()
        .map(|&t| crate::model::time::Time(t.max(0.0).ceil() as u64))
        .collect();
    trace.with_times(times)
}

/// Repairs clock-condition violations with the controlled logical clock.
pub fn controlled_logical_clock(trace: &Trace, pairing: &Pairing, options: ClcOptions) -> Repair {
    let n = trace.events.len();
    let recorded: Vec<f64> = trace.events.time().iter().map(|t| t.0 as f64).collect();
    let mut send_of = vec![None; n];
    for m in &pairing.messages {
        send_of[m.arrival.index()] = Some(m.send);
    }
    let violations_before = count_violations(pairing, &recorded, options.min_latency);
    let mut first = vec![false; n];
    for p in trace.process_ids() {
        let range = trace.process_events(p);
        if !range.is_empty() {
            first[range.start] = true;
        }
    }
    // Forward amortization, in causal order.
    let order = causal_order(trace, &send_of);
    let mut clock = recorded.clone();
    let mut jumps: Vec<(usize, f64)> = Vec::new();
    for &v in &order {
        let mut c = recorded[v];
        if !first[v] {
            let prev = clock[v - 1];
            let interval = recorded[v] - recorded[v - 1];
            c = c
                .max(prev + options.min_spacing)
                .max(prev + options.gamma * interval);
        }
        if let Some(s) = send_of[v] {
            let needed = clock[s.index()] + options.min_latency;
            if needed > c {
                // The jump Δ: how far the receive moves past its forward-amortized place.
                jumps.push((v, needed - c));
                c = needed;
            }
        }
        clock[v] = c;
    }
    // Backward amortization: before each receive that jumped by Δ at r*, a linear ramp over
    // [t_l, r*) with t_l = r* − Δ/m (clamped to the process's first event, m recomputed).
    if let Some(max_slope) = options.backward_slope.filter(|m| *m > 0.0) {
        for &(r, delta) in jumps.iter().rev() {
            let p = trace.events.process()[r];
            let start = trace.process_events(p).start;
            let r_star = recorded[r];
            if delta <= 0.0 {
                continue;
            }
            let first_time = recorded[start];
            let mut t_l = r_star - delta / max_slope;
            let mut slope = max_slope;
            if t_l < first_time {
                t_l = first_time;
                slope = if r_star > t_l {
                    delta / (r_star - t_l)
                } else {
                    0.0
                };
            }
            // Only events in [t_l, r*) move: start at the first one (times within a process
            // are in order in a valid trace; an out-of-order one is caught by the check).
            let first_moved = start + recorded[start..r].partition_point(|&t| t < t_l);
            for e in first_moved..r {
                if recorded[e] >= t_l && recorded[e] < r_star {
                    let ramped = recorded[e] + slope * (recorded[e] - t_l);
                    clock[e] = clock[e].max(ramped);
                }
            }
        }
        // Moving sends later may have broken their receives: amortize forward again.
        for _ in 0..8 {
            let mut changed = false;
            for &v in &order {
                let mut c = clock[v];
                if !first[v] {
                    c = c.max(clock[v - 1] + options.min_spacing);
                }
                if let Some(s) = send_of[v] {
                    c = c.max(clock[s.index()] + options.min_latency);
                }
                if c > clock[v] {
                    clock[v] = c;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
    let moves: Vec<Move> = (0..n)
        .filter(|&i| (clock[i] - recorded[i]).abs() > 1e-9)
        .map(|i| Move {
            event: EventIdx(i as u32),
            from: recorded[i],
            to: clock[i],
        })
        .collect();
    Repair {
        violations_after: count_violations(pairing, &clock, options.min_latency),
        max_shift: moves
            .iter()
            .map(|m| (m.to - m.from).abs())
            .fold(0.0, f64::max),
        times: clock,
        moves,
        violations_before,
    }
}
