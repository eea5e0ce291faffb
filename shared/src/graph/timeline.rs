//! Piecewise-constant functions of time built from busy intervals: how many processes compute on
//! each node, which nodes are busy, and how many nodes are busy at once.
//!
//! They answer the integrals the analyses need (busy time of a node or of all nodes over an
//! interval, CPU share of a timesliced process, concurrency for Quartz's NPT) with a binary search
//! and a short walk instead of a scan of the trace.

use crate::graph::states::{State, StateSpan};
use crate::model::{NodeId, Trace};

/// A piecewise-constant function: `values[i]` holds on [`times[i]`, `times[i + 1]`), the last
/// value holds from the last time on, and the function is 0 before the first time.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepFn {
    times: Vec<u64>,
    values: Vec<f64>,
    /// The integral from `times[0]` to `times[i]`.
    cum: Vec<f64>,
}

impl StepFn {
    /// The function that starts at 0 and jumps by each (time, delta).
    pub fn from_deltas(mut deltas: Vec<(u64, f64)>) -> StepFn {
        deltas.sort_by_key(|&(t, _)| t);
        StepFn::from_sorted(deltas)
    }

    /// The sum of functions: the same as `from_deltas` of their deltas one after the other, by a
    /// merge of their breakpoints (each function's are sorted already) instead of a sort.
    pub fn sum(fns: &[&StepFn]) -> StepFn {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        // (time, function) of each function's next breakpoint: equal times in function order,
        // as the stable sort of the concatenated deltas has them.
        let mut next: BinaryHeap<Reverse<(u64, usize)>> = fns
            .iter()
            .enumerate()
            .filter_map(|(k, f)| f.times.first().map(|&t| Reverse((t, k))))
            .collect();
        let mut cursor = vec![0usize; fns.len()];
        let merged = std::iter::from_fn(move || {
            let Reverse((t, k)) = next.pop()?;
            let f = fns[k];
            let i = cursor[k];
            let last = if i == 0 { 0.0 } else { f.values[i - 1] };
            cursor[k] = i + 1;
            if let Some(&t_next) = f.times.get(i + 1) {
                next.push(Reverse((t_next, k)));
            }
            Some((t, f.values[i] - last))
        });
        StepFn::from_sorted(merged)
    }

    /// The function that starts at 0 and jumps by each (time, delta), in time order.
    fn from_sorted(deltas: impl IntoIterator<Item = (u64, f64)>) -> StepFn {
        let mut f = StepFn::default();
        let mut value = 0.0;
        for (t, delta) in deltas {
            value += delta;
            if f.times.last() == Some(&t) {
                if let Some(last) = f.values.last_mut() {
                    *last = value;
                }
            } else {
                f.times.push(t);
                f.values.push(value);
            }
        }
        // Sums of ±1 are exact in f64; snap the rounding noise of fractional deltas to zero.
        for v in &mut f.values {
            if v.abs() < 1e-9 {
                *v = 0.0;
            }
        }
        f.cum = Vec::with_capacity(f.times.len());
        let mut acc = 0.0;
        for i in 0..f.times.len() {
            f.cum.push(acc);
            if let Some(&next) = f.times.get(i + 1) {
                acc += f.values[i] * (next - f.times[i]) as f64;
            }
        }
        f
    }

    /// The same breakpoints with each value mapped.
    pub fn map(&self, op: impl Fn(f64) -> f64) -> StepFn {
        let mut deltas = Vec::with_capacity(self.times.len());
        let mut last = 0.0;
        for (&t, &v) in self.times.iter().zip(&self.values) {
            let v = op(v);
            deltas.push((t, v - last));
            last = v;
        }
        StepFn::from_deltas(deltas)
    }

    /// The breakpoints as (time, jump), which `from_deltas` turns back into the function
    /// (the tests' reference for `sum`).
    #[cfg(test)]
    fn deltas(&self) -> Vec<(u64, f64)> {
        let mut last = 0.0;
        self.times
            .iter()
            .zip(&self.values)
            .map(|(&t, &v)| {
                let d = (t, v - last);
                last = v;
                d
            })
            .collect()
    }

    /// The index of the piece holding at `t`, or `None` before the first breakpoint.
    fn piece(&self, t: u64) -> Option<usize> {
        self.times.partition_point(|&x| x <= t).checked_sub(1)
    }

    /// [`StepFn::piece`], searched outward from `hint` (the last answer's partition point)
    /// by galloping, and `hint` moved to this answer: queries that move a little forward in
    /// time cost a few comparisons on cached memory instead of a binary search of the whole
    /// function. The answer is the same as `piece`'s.
    fn piece_near(&self, t: u64, hint: &mut usize) -> Option<usize> {
        let times = &self.times;
        let len = times.len();
        let h = (*hint).min(len);
        // The partition point (the number of breakpoints at or before t) lies in [lo, hi].
        let (lo, hi) = if h == 0 || times[h - 1] <= t {
            let (mut lo, mut step) = (h, 1);
            loop {
                let probe = lo + step;
                if probe > len {
                    break (lo, len);
                }
                if times[probe - 1] <= t {
                    lo = probe;
                    step *= 2;
                } else {
                    break (lo, probe - 1);
                }
            }
        } else {
            let (mut hi, mut step) = (h - 1, 1);
            loop {
                if step > hi {
                    break (0, hi);
                }
                let probe = hi - step;
                if times[probe] <= t {
                    break (probe + 1, hi);
                }
                hi = probe;
                step *= 2;
            }
        };
        let point = lo + times[lo..hi].partition_point(|&x| x <= t);
        *hint = point;
        point.checked_sub(1)
    }

    /// The integral from the first breakpoint to `t`.
    fn primitive(&self, t: u64) -> f64 {
        self.primitive_of(t, self.piece(t))
    }

    /// The integral from the first breakpoint to `t`, which lies in `piece`.
    fn primitive_of(&self, t: u64, piece: Option<usize>) -> f64 {
        match piece {
            None => 0.0,
            Some(i) => self.cum[i] + self.values[i] * (t - self.times[i]) as f64,
        }
    }

    /// The integral over [a, b] (0 when b ≤ a).
    pub fn integral(&self, a: u64, b: u64) -> f64 {
        if b <= a {
            0.0
        } else {
            self.primitive(b) - self.primitive(a)
        }
    }

    /// [`StepFn::integral`], its ends searched from `hints` (see [`StepFn::piece_near`]).
    fn integral_near(&self, a: u64, b: u64, hints: &mut [usize; 2]) -> f64 {
        if b <= a {
            0.0
        } else {
            let [ha, hb] = hints;
            self.primitive_of(b, self.piece_near(b, hb))
                - self.primitive_of(a, self.piece_near(a, ha))
        }
    }

    /// The pieces of the function inside [a, b], as (start, end, value).
    pub fn pieces(&self, a: u64, b: u64) -> impl Iterator<Item = (u64, u64, f64)> + '_ {
        self.pieces_from(a, b, self.piece(a))
    }

    /// [`StepFn::pieces`], the first searched from `hint` (see [`StepFn::piece_near`]).
    fn pieces_near(
        &self,
        a: u64,
        b: u64,
        hint: &mut usize,
    ) -> impl Iterator<Item = (u64, u64, f64)> + '_ {
        self.pieces_from(a, b, self.piece_near(a, hint))
    }

    /// The pieces inside [a, b], given the piece holding at `a`.
    fn pieces_from(
        &self,
        a: u64,
        b: u64,
        first: Option<usize>,
    ) -> impl Iterator<Item = (u64, u64, f64)> + '_ {
        let mut i = first.unwrap_or(0);
        let mut cursor = a;
        let mut before_first = first.is_none();
        std::iter::from_fn(move || {
            while cursor < b {
                let (value, end) = if before_first {
                    (0.0, self.times.first().copied().unwrap_or(b))
                } else {
                    (
                        self.values.get(i).copied().unwrap_or(0.0),
                        self.times.get(i + 1).copied().unwrap_or(b),
                    )
                };
                let end = end.min(b);
                let start = cursor;
                if before_first {
                    before_first = false;
                } else {
                    i += 1;
                }
                if end > start {
                    cursor = end;
                    return Some((start, end, value));
                }
            }
            None
        })
    }
}

/// The integral over [a, b] of `op(f(t), g(t))`.
pub fn integrate2(f: &StepFn, g: &StepFn, a: u64, b: u64, op: impl Fn(f64, f64) -> f64) -> f64 {
    integrate_pieces(f.pieces(a, b), g.pieces(a, b), op)
}

/// The integral of `op(f, g)` over two functions' pieces covering the same interval.
fn integrate_pieces(
    f_pieces: impl Iterator<Item = (u64, u64, f64)>,
    g_pieces: impl Iterator<Item = (u64, u64, f64)>,
    op: impl Fn(f64, f64) -> f64,
) -> f64 {
    let mut total = 0.0;
    let mut g_pieces = g_pieces.peekable();
    for (f_start, f_end, f_value) in f_pieces {
        let mut t = f_start;
        while t < f_end {
            let Some(&(_, g_end, g_value)) = g_pieces.peek() else {
                break;
            };
            let end = g_end.min(f_end);
            total += op(f_value, g_value) * (end - t) as f64;
            t = end;
            if g_end <= f_end {
                g_pieces.next();
            }
        }
    }
    total
}

/// The busy functions of a whole trace.
///
/// A node's busy function is the step function of its computing spans unless the trace carries
/// CPU samples for it, and the sum of all nodes' busy functions is the busy-node count unless
/// some node is sampled: those functions are stored once, not copied (each costs 24 bytes a
/// breakpoint, about one breakpoint an event).
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// How many processes compute on each node at each time.
    pub computing: Vec<StepFn>,
    /// Each node's busy fraction from its spans: 1 while any of its processes computes; `None`
    /// where it is the node's `computing` function itself (no two processes ever computed at
    /// once on the node: every MPI rank on its own processor).
    busy_from_spans: Vec<Option<StepFn>>,
    /// Each node's sampled CPU utilization, where the trace carries samples for it.
    sampled: Vec<Option<StepFn>>,
    /// The sum of all nodes' busy fractions, when some node is sampled (else `busy_nodes`).
    sampled_total: Option<StepFn>,
    /// How many nodes have a computing process, from the spans alone (an integer count).
    busy_nodes: StepFn,
    /// Nodes that host at least one process: the "processors" of the analyses.
    pub n_processors: usize,
}

impl Timeline {
    /// Builds the busy functions from the computing spans (and CPU samples where present).
    pub fn new(trace: &Trace, spans: &[StateSpan]) -> Timeline {
        let n_nodes = trace.nodes.len();
        let mut deltas: Vec<Vec<(u64, f64)>> = vec![Vec::new(); n_nodes];
        for span in spans.iter().filter(|s| s.state == State::Computing) {
            let Some(process) = trace.processes.get(span.process.index()) else {
                continue;
            };
            if let Some(d) = deltas.get_mut(process.node.index()) {
                d.push((span.start.0, 1.0));
                d.push((span.end.0, -1.0));
            }
        }
        let computing: Vec<StepFn> = deltas.into_iter().map(StepFn::from_deltas).collect();
        let busy_from_spans: Vec<Option<StepFn>> = computing
            .iter()
            .map(|f| {
                // Mapping a function of only 0 and 1 gives it back exactly (same breakpoints,
                // values and running integral): it is kept once.
                let zero_or_one = f.values.iter().all(|&m| m == 0.0 || m == 1.0);
                (!zero_or_one).then(|| f.map(|m| if m > 0.0 { 1.0 } else { 0.0 }))
            })
            .collect();
        let spans_busy =
            |node: usize| -> &StepFn { busy_from_spans[node].as_ref().unwrap_or(&computing[node]) };
        let mut samples: Vec<Vec<(u64, f64)>> = vec![Vec::new(); n_nodes];
        for s in &trace.cpu_samples {
            if let Some(d) = samples.get_mut(s.node.index()) {
                d.push((s.sample.start.0, f64::from(s.sample.utilization)));
                d.push((s.sample.end.0, -f64::from(s.sample.utilization)));
            }
        }
        let sampled: Vec<Option<StepFn>> = samples
            .into_iter()
            .map(|d| (!d.is_empty()).then(|| StepFn::from_deltas(d)))
            .collect();
        let busy_nodes = StepFn::sum(&(0..n_nodes).map(spans_busy).collect::<Vec<_>>());
        let sampled_total = sampled.iter().any(Option::is_some).then(|| {
            let node_busy: Vec<&StepFn> = (0..n_nodes)
                .map(|k| sampled[k].as_ref().unwrap_or(spans_busy(k)))
                .collect();
            StepFn::sum(&node_busy)
        });
        let mut hosts = vec![false; n_nodes];
        for p in &trace.processes {
            if let Some(h) = hosts.get_mut(p.node.index()) {
                *h = true;
            }
        }
        Timeline {
            computing,
            busy_from_spans,
            sampled,
            sampled_total,
            busy_nodes,
            n_processors: hosts.iter().filter(|&&h| h).count(),
        }
    }

    /// A node's busy fraction: 1 while any of its processes computes, or its sampled CPU
    /// utilization when the trace carries CPU samples for it.
    pub fn node_busy(&self, node: NodeId) -> Option<&StepFn> {
        let k = node.index();
        match (self.sampled.get(k), self.busy_from_spans.get(k)) {
            (Some(Some(f)), _) => Some(f),
            (_, Some(Some(f))) => Some(f),
            _ => self.computing.get(k),
        }
    }

    /// The sum of all nodes' busy fractions.
    pub fn total_busy(&self) -> &StepFn {
        self.sampled_total.as_ref().unwrap_or(&self.busy_nodes)
    }

    /// How many nodes have a computing process, from the spans alone (an integer count).
    pub fn busy_nodes(&self) -> &StepFn {
        &self.busy_nodes
    }

    /// The busy time of a node over [a, b].
    pub fn node_busy_time(&self, node: NodeId, a: u64, b: u64) -> f64 {
        self.node_busy(node).map_or(0.0, |f| f.integral(a, b))
    }

    /// The busy time of every node but `node` over [a, b] (B_o of decision D-a).
    pub fn others_busy_time(&self, node: NodeId, a: u64, b: u64) -> f64 {
        (self.total_busy().integral(a, b) - self.node_busy_time(node, a, b)).max(0.0)
    }

    /// [`Timeline::others_busy_time`] for one of a stream of queries that mostly move forward
    /// in time, searched from `hints`: the same value, found faster.
    pub fn others_busy_time_near(&self, node: NodeId, a: u64, b: u64, hints: &mut Hints) -> f64 {
        let own = match (self.node_busy(node), hints.node_busy.get_mut(node.index())) {
            (Some(f), Some(h)) => f.integral_near(a, b, h),
            (Some(f), None) => f.integral(a, b),
            (None, _) => 0.0,
        };
        (self.total_busy().integral_near(a, b, &mut hints.total) - own).max(0.0)
    }

    /// The running busy integrals at `t` (of all nodes, and of `node`), searched from `hints`:
    /// two of them, at a and b, give [`Timeline::others_busy_between`], so a stream of edges
    /// that share ends (a process's consecutive events) searches each end once.
    pub fn busy_at(&self, node: NodeId, t: u64, hints: &mut Hints) -> BusyAt {
        let total = self.total_busy();
        let own = match (self.node_busy(node), hints.node_busy.get_mut(node.index())) {
            (Some(f), Some(h)) => f.primitive_of(t, f.piece_near(t, &mut h[1])),
            (Some(f), None) => f.primitive(t),
            (None, _) => 0.0,
        };
        BusyAt {
            total: total.primitive_of(t, total.piece_near(t, &mut hints.total[1])),
            own,
        }
    }

    /// The busy time of every node but the one `a` and `b` were read for over [a, b], b > a:
    /// the same value as [`Timeline::others_busy_time`].
    pub fn others_busy_between(a: BusyAt, b: BusyAt) -> f64 {
        ((b.total - a.total) - (b.own - a.own)).max(0.0)
    }

    /// The CPU time a process computing on `node` throughout [a, b] got, when the node's
    /// processes timeslice (thesis §3.3): the integral of 1 / (processes computing on the node).
    pub fn cpu_time(&self, node: NodeId, a: u64, b: u64) -> f64 {
        self.computing
            .get(node.index())
            .map_or(0.0, |m| cpu_share(m.pieces(a, b)))
    }

    /// [`Timeline::cpu_time`], searched from `hints`.
    pub fn cpu_time_near(&self, node: NodeId, a: u64, b: u64, hints: &mut Hints) -> f64 {
        match (
            self.computing.get(node.index()),
            hints.computing.get_mut(node.index()),
        ) {
            (Some(m), Some(h)) => cpu_share(m.pieces_near(a, b, h)),
            (Some(m), None) => cpu_share(m.pieces(a, b)),
            (None, _) => 0.0,
        }
    }

    /// Quartz's normalized processor time of a process computing on `node` throughout [a, b]:
    /// its CPU share divided by the number of busy processors, itself included (decision D-b).
    pub fn normalized_time(&self, node: NodeId, a: u64, b: u64) -> f64 {
        let Some(m) = self.computing.get(node.index()) else {
            return 0.0;
        };
        integrate2(m, &self.busy_nodes, a, b, normalized_share)
    }

    /// [`Timeline::normalized_time`], searched from `hints`.
    pub fn normalized_time_near(&self, node: NodeId, a: u64, b: u64, hints: &mut Hints) -> f64 {
        match (
            self.computing.get(node.index()),
            hints.computing.get_mut(node.index()),
        ) {
            (Some(m), Some(h)) => integrate_pieces(
                m.pieces_near(a, b, h),
                self.busy_nodes.pieces_near(a, b, &mut hints.busy_nodes),
                normalized_share,
            ),
            (Some(_), None) => self.normalized_time(node, a, b),
            (None, _) => 0.0,
        }
    }

    /// Search hints for one stream of queries of this timeline.
    pub fn hints(&self) -> Hints {
        Hints {
            total: [0; 2],
            busy_nodes: 0,
            node_busy: vec![[0; 2]; self.computing.len()],
            computing: vec![0; self.computing.len()],
        }
    }
}

/// The running busy integrals at one time: of all nodes, and of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BusyAt {
    total: f64,
    own: f64,
}

/// Where one stream of queries last found itself in each of a [`Timeline`]'s functions, so that
/// the next query, a little later in time, starts its search there (queries walk each process's
/// events in time order; a binary search of a whole trace's breakpoints misses the cache at every
/// step). One per stream: two streams sharing hints would pull each other back and forth.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    total: [usize; 2],
    busy_nodes: usize,
    node_busy: Vec<[usize; 2]>,
    computing: Vec<usize>,
}

/// The CPU time of a process over pieces of its node's computing count (1 / count each).
fn cpu_share(pieces: impl Iterator<Item = (u64, u64, f64)>) -> f64 {
    pieces
        .map(|(s, e, m)| {
            if m > 0.0 {
                (e - s) as f64 / m
            } else {
                (e - s) as f64
            }
        })
        .sum()
}

/// Quartz's share: 1 / (processes computing on the node × busy nodes).
fn normalized_share(m: f64, k: f64) -> f64 {
    if m > 0.0 && k > 0.0 {
        1.0 / (m * k)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Summing functions by merging their breakpoints gives, to the bit, what sorting their
        /// concatenated deltas gives.
        #[test]
        fn a_merged_sum_is_the_sorted_one(
            fns in prop::collection::vec(
                prop::collection::vec((0u64..100, -3i32..4, 0u8..3), 0..20),
                0..6,
            ),
        ) {
            let fns: Vec<StepFn> = fns
                .iter()
                .map(|d| StepFn::from_deltas(
                    d.iter().map(|&(t, x, q)| (t, f64::from(x) / f64::from(q + 1))).collect(),
                ))
                .collect();
            let refs: Vec<&StepFn> = fns.iter().collect();
            let sorted = StepFn::from_deltas(fns.iter().flat_map(StepFn::deltas).collect());
            let merged = StepFn::sum(&refs);
            prop_assert_eq!(&merged.times, &sorted.times);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&merged.values), bits(&sorted.values));
            prop_assert_eq!(bits(&merged.cum), bits(&sorted.cum));
        }

        /// A search from any hint finds the piece a binary search finds, and leaves the hint
        /// where the next search can start: the hinted integrals and pieces equal the plain
        /// ones to the bit, so the analyses that use them cannot change.
        #[test]
        fn searching_from_a_hint_finds_what_a_binary_search_finds(
            deltas in prop::collection::vec((0u64..200, -3i32..4), 0..40),
            queries in prop::collection::vec((0u64..220, 0u64..40), 1..60),
            start in 0usize..50,
        ) {
            let f = StepFn::from_deltas(deltas.iter().map(|&(t, d)| (t, f64::from(d))).collect());
            let (mut hint, mut hints, mut piece_hint) = (start, [start, start / 2], start);
            for (a, len) in queries {
                let b = a + len;
                prop_assert_eq!(f.piece_near(a, &mut hint), f.piece(a));
                prop_assert_eq!(hint, f.times.partition_point(|&x| x <= a));
                prop_assert_eq!(
                    f.integral_near(a, b, &mut hints).to_bits(),
                    f.integral(a, b).to_bits()
                );
                prop_assert_eq!(
                    f.pieces_near(a, b, &mut piece_hint).collect::<Vec<_>>(),
                    f.pieces(a, b).collect::<Vec<_>>()
                );
            }
        }
    }

    #[test]
    fn integrals_of_a_step_function() {
        // 1 on [0,10), 3 on [10,20), 0 after.
        let f = StepFn::from_deltas(vec![(0, 1.0), (10, 2.0), (20, -3.0)]);
        assert_eq!(f.integral(0, 10), 10.0);
        assert_eq!(f.integral(5, 15), 5.0 + 15.0);
        assert_eq!(f.integral(0, 100), 40.0);
        assert_eq!(f.integral(30, 40), 0.0);
        let pieces: Vec<_> = f.pieces(5, 25).collect();
        assert_eq!(pieces, [(5, 10, 1.0), (10, 20, 3.0), (20, 25, 0.0)]);
    }

    #[test]
    fn pieces_before_the_first_breakpoint_are_zero() {
        let f = StepFn::from_deltas(vec![(10, 2.0), (20, -2.0)]);
        let pieces: Vec<_> = f.pieces(0, 15).collect();
        assert_eq!(pieces, [(0, 10, 0.0), (10, 15, 2.0)]);
        assert_eq!(
            StepFn::default().pieces(0, 5).collect::<Vec<_>>(),
            [(0, 5, 0.0)]
        );
    }

    #[test]
    fn integrating_a_product_walks_both_functions() {
        let f = StepFn::from_deltas(vec![(0, 1.0), (10, 1.0)]);
        let g = StepFn::from_deltas(vec![(0, 2.0), (5, -1.0), (15, 3.0)]);
        // f·g: [0,5) 1·2, [5,10) 1·1, [10,15) 2·1, [15,20) 2·4.
        assert_eq!(
            integrate2(&f, &g, 0, 20, |a, b| a * b),
            10.0 + 5.0 + 10.0 + 40.0
        );
    }
}
