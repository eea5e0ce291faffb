//! Region bars: each process's regions (functions, phases, message-passing calls) as
//! intervals by nesting depth, ready to draw as nested bars at any zoom.
//!
//! Intervals of one process and depth never overlap, so they are sorted by start and by end
//! alike; a window's bars are found by binary search, and a pixel shows at most one bar per
//! depth (the first that reaches it), so drawing costs the pixels, not the regions.

use shared::Trace;
use shared::model::EventKind;

/// How many nesting levels are drawn (deeper regions are kept out of the chart).
pub const MAX_DEPTH: usize = 3;

/// One region interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionBar {
    /// When it was entered.
    pub start: u64,
    /// When it was left (or the process's last event, when never left).
    pub end: u64,
    /// The region (an index into `Trace::regions`).
    pub region: u32,
}

/// Every process's region intervals by depth.
#[derive(Debug, Clone, Default)]
pub struct RegionBars {
    /// The bars of process `p` at depth `d` are `offsets[p * MAX_DEPTH + d]..offsets[.. + 1]`.
    offsets: Vec<usize>,
    bars: Vec<RegionBar>,
    /// How many depths hold a bar (0 when the trace has no regions).
    pub depths: usize,
}

impl RegionBars {
    /// Collects the intervals from the trace's enter and leave events; a leave without its
    /// enter is ignored, a region never left ends at its process's last event.
    pub fn new(trace: &Trace) -> RegionBars {
        let e = &trace.events;
        let n = trace.processes.len();
        let mut per: Vec<Vec<RegionBar>> = vec![Vec::new(); n * MAX_DEPTH];
        let mut stack: Vec<(u32, u64)> = Vec::new();
        let mut depths = 0;
        for p in trace.process_ids() {
            stack.clear();
            let events = trace.process_events(p);
            let last_time = events.clone().last().map_or(0, |i| e.time()[i].0);
            let mut close = |depth: usize, (region, start): (u32, u64), end: u64| {
                if depth < MAX_DEPTH {
                    per[p.index() * MAX_DEPTH + depth].push(RegionBar { start, end, region });
                    depths = depths.max(depth + 1);
                }
            };
            for i in events {
                match (e.kind()[i], e.region().at(i)) {
                    (EventKind::Enter, Some(r)) => stack.push((r.0, e.time()[i].0)),
                    (EventKind::Leave, Some(_)) => {
                        if let Some(open) = stack.pop() {
                            close(stack.len(), open, e.time()[i].0);
                        }
                    }
                    _ => {}
                }
            }
            while let Some(open) = stack.pop() {
                close(stack.len(), open, last_time);
            }
        }
        let mut offsets = Vec::with_capacity(per.len() + 1);
        let mut bars = Vec::with_capacity(per.iter().map(Vec::len).sum());
        for mut list in per {
            offsets.push(bars.len());
            list.sort_by_key(|b| b.start);
            bars.extend(list);
        }
        offsets.push(bars.len());
        RegionBars {
            offsets,
            bars,
            depths,
        }
    }

    fn of(&self, process: usize, depth: usize) -> &[RegionBar] {
        let k = process * MAX_DEPTH + depth;
        match (self.offsets.get(k), self.offsets.get(k + 1)) {
            (Some(&a), Some(&b)) if depth < MAX_DEPTH => &self.bars[a..b],
            _ => &[],
        }
    }

    /// The bars of `process` at `depth` that show in the window `[from, to]` at
    /// `ticks_per_px`: each one that reaches a pixel first, clipped to the window.
    pub fn visible(
        &self,
        process: usize,
        depth: usize,
        (from, to): (f64, f64),
        ticks_per_px: f64,
    ) -> Vec<RegionBar> {
        let bars = self.of(process, depth);
        let mut out = Vec::new();
        let mut at = from.max(0.0);
        while at <= to {
            // The first bar still open at `at`.
            let k = bars.partition_point(|b| (b.end as f64) < at);
            let Some(&bar) = bars.get(k) else { break };
            if bar.start as f64 > to {
                break;
            }
            out.push(bar);
            // Skip whatever else falls into the pixel this bar ends in.
            at = (bar.end as f64).max(at) + ticks_per_px.max(f64::MIN_POSITIVE);
        }
        out
    }

    /// Every bar of `process` at `depth` that reaches into `[from, to]`, unthinned.
    pub fn in_window(&self, process: usize, depth: usize, (from, to): (f64, f64)) -> &[RegionBar] {
        let bars = self.of(process, depth);
        let first = bars.partition_point(|b| (b.end as f64) < from);
        let end = bars.partition_point(|b| (b.start as f64) <= to);
        bars.get(first..end.max(first)).unwrap_or(&[])
    }

    /// The bar of `process` at `depth` holding `tick`.
    pub fn at(&self, process: usize, depth: usize, tick: u64) -> Option<RegionBar> {
        let bars = self.of(process, depth);
        let k = bars.partition_point(|b| b.end < tick);
        bars.get(k).filter(|b| b.start <= tick).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_nest_by_depth_and_thin_out_per_pixel() {
        // Each round: step [b+1, b+60] holds compute [b+2, b+10+w] and MPI_Recv
        // [b+25, b+40+w/2].
        let trace = shared::model::synthetic::ring_on_nodes(4, 2, 400);
        let bars = RegionBars::new(&trace);
        assert_eq!(bars.depths, 2);
        let names = |list: &[RegionBar]| -> Vec<String> {
            list.iter()
                .map(|b| trace.regions[b.region as usize].name.clone())
                .collect()
        };
        let round0 = bars.visible(0, 1, (0.0, 99.0), 1.0);
        assert_eq!(names(&round0), ["compute", "MPI_Recv"]);
        assert_eq!((round0[0].start, round0[0].end), (2, 10));
        assert_eq!(names(&bars.visible(0, 0, (0.0, 99.0), 1.0)), ["step"]);
        // Ten rounds of two inner regions in one 10 px-wide window: at most one bar a pixel.
        let squeezed = bars.visible(0, 1, (0.0, 1000.0), 100.0);
        assert!(squeezed.len() <= 11, "{}", squeezed.len());
        assert!(squeezed.len() >= 9, "{}", squeezed.len());
        assert_eq!(bars.at(0, 1, 5).map(|b| b.start), Some(2));
        // Unthinned, the same window holds all twenty inner bars.
        assert_eq!(bars.in_window(0, 1, (0.0, 1000.0)).len(), 20);
        assert_eq!(names(bars.in_window(0, 1, (20.0, 30.0))), ["MPI_Recv"]);
        assert_eq!(bars.at(0, 1, 15), None);
        assert_eq!(bars.at(0, 2, 5), None);
    }

    #[test]
    fn the_worked_example_has_no_regions() {
        assert_eq!(
            RegionBars::new(&super::super::test_data::worked_example()).depths,
            0
        );
    }
}
