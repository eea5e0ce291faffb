//! The chart's model of a trace, built once per run: row labels, node groups, region bars,
//! the level-of-detail index, and each event's time, kind and partner.

use shared::Trace;
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::graph::states::State;
use shared::model::EventKind;
use shared::model::time::{Clock, Time};
use shared::view::viewport::ViewportIndex;

use super::counters::CounterTrack;
use super::regions::RegionBars;
use super::rows::{Group, Rows, groups_of};

/// The partner of an event that has none.
pub const NO_PARTNER: u32 = u32::MAX;

/// What the chart shows, computed once per trace: row labels and the level-of-detail index
/// (`shared::view::viewport`, the same code the server's viewport API runs), so a frame costs the
/// pixels it draws, not the events in the trace.
#[derive(Debug, Clone)]
pub struct GanttModel {
    /// One label per process: its name and node.
    pub rows: Vec<String>,
    /// Each process's name.
    pub names: Vec<String>,
    /// The processes grouped by node (none when each node holds one process).
    pub groups: Vec<Group>,
    /// Each process's regions, by nesting depth.
    pub regions: RegionBars,
    /// Each region's name.
    pub region_names: Vec<String>,
    /// Each region's colour, no two alike (`palette::assign`).
    pub region_colors: Vec<&'static str>,
    /// State spans and messages, ready for any window.
    pub index: ViewportIndex,
    /// Events of row `r` are `row_events[r]..row_events[r + 1]`, in time order.
    pub row_events: Vec<usize>,
    /// Each event's time.
    pub event_time: Vec<u64>,
    /// Each event's kind.
    pub event_kind: Vec<EventKind>,
    /// Whether each event is a send or arrival that found no partner.
    pub unmatched: Vec<bool>,
    /// Each message event's partner (a send's arrival, an arrival's send), or [`NO_PARTNER`].
    pub partner: Vec<u32>,
    /// The first and last event times.
    pub bounds: (Time, Time),
    /// The trace's clock, for axis labels.
    pub clock: Clock,
    /// The width the row labels want, in CSS pixels (the longest label, within limits).
    pub label_px: f64,
    /// The counter tracks.
    pub counters: Vec<CounterTrack>,
    /// The tracks under each process.
    pub tracks: Vec<Vec<u32>>,
}

/// A process's label: its name at its node, without saying twice what the two names share
/// (OTF2 writes `MPI Rank 0 · Master thread` on `MPI Rank 0 @ quartz10`).
fn row_label(process: &str, node: &str) -> String {
    // A node named after its one process (Pajé's `Tremblay (HOST)` for `Tremblay`) says both.
    if node.starts_with(process) {
        return node.to_owned();
    }
    let group = process.split(" · ").next().unwrap_or(process);
    let node = node
        .strip_prefix(group)
        .and_then(|rest| rest.strip_prefix(" @ "))
        .filter(|_| group != process)
        .unwrap_or(node);
    format!("{process} @ {node}")
}

/// The narrowest and widest label column.
pub const LABEL_PX: (f64, f64) = (140.0, 320.0);

/// The label column's width for these labels: the longest one's estimated width plus room for
/// indentation and a fold mark, within [`LABEL_PX`].
fn label_px(rows: &[String], groups: &[Group], counters: &[CounterTrack]) -> f64 {
    let longest = rows
        .iter()
        .map(|r| r.chars().count())
        .chain(groups.iter().map(|g| g.name.chars().count() + 8))
        .chain(counters.iter().map(|c| c.label().chars().count() + 8))
        .max()
        .unwrap_or(0);
    (longest as f64 * super::axis::CHAR_PX + 24.0).clamp(LABEL_PX.0, LABEL_PX.1)
}

impl GanttModel {
    /// Builds the chart's model of a trace.
    pub fn new(trace: &Trace) -> GanttModel {
        let rows: Vec<String> = trace
            .processes
            .iter()
            .map(|p| match trace.nodes.get(p.node.index()) {
                Some(node) => row_label(&p.name, &node.name),
                None => p.name.clone(),
            })
            .collect();
        let pairing = pair_messages(trace);
        let graph = ExecutionGraph::new(trace, &pairing);
        let e = &trace.events;
        let mut row_events = Vec::with_capacity(trace.processes.len() + 1);
        for p in trace.process_ids() {
            row_events.push(trace.process_events(p).start);
        }
        row_events.push(e.len());
        let mut unmatched = vec![false; e.len()];
        for v in pairing
            .unmatched_sends
            .iter()
            .chain(&pairing.unmatched_arrivals)
        {
            if let Some(u) = unmatched.get_mut(v.index()) {
                *u = true;
            }
        }
        let mut partner = vec![NO_PARTNER; e.len()];
        for m in &pairing.messages {
            let (send, arrival) = (m.send.index(), m.arrival.index());
            if let (Some(a), Some(b)) = (u32::try_from(arrival).ok(), u32::try_from(send).ok()) {
                partner[send] = a;
                partner[arrival] = b;
            }
        }
        let counters = CounterTrack::all(trace);
        let region_names: Vec<String> = trace.regions.iter().map(|r| r.name.clone()).collect();
        let groups = groups_of(trace);
        // Under node headers a process row shows its name alone, indented.
        let shown: Vec<String> = if groups.is_empty() {
            rows.clone()
        } else {
            trace
                .processes
                .iter()
                .map(|p| format!("    {}", p.name))
                .collect()
        };
        let label_px = label_px(&shown, &groups, &counters);
        GanttModel {
            label_px,
            rows,
            names: trace.processes.iter().map(|p| p.name.clone()).collect(),
            groups,
            regions: RegionBars::new(trace),
            region_colors: super::palette::assign(&region_names),
            region_names,
            index: ViewportIndex::new(trace, &pairing, &graph),
            row_events,
            event_time: e.time().iter().map(|t| t.0).collect(),
            event_kind: e.kind().to_vec(),
            unmatched,
            partner,
            bounds: trace.time_bounds().unwrap_or_default(),
            clock: trace.clock,
            tracks: CounterTrack::by_process(&counters, trace.processes.len()),
            counters,
        }
    }

    /// The partner of message event `event` (a send's arrival, an arrival's send).
    pub fn partner_of(&self, event: usize) -> Option<usize> {
        self.partner
            .get(event)
            .filter(|&&p| p != NO_PARTNER)
            .map(|&p| p as usize)
    }

    /// The blocked span a receive call starts or an arrival ends, if any.
    pub fn blocked_around(&self, event: usize) -> Option<(u64, u64)> {
        let row = u32::try_from(self.row_of_event(event)?).ok()?;
        let time = *self.event_time.get(event)?;
        match self.event_kind.get(event)? {
            EventKind::RecvCall | EventKind::RecvPost => match self.index.span_at(row, time)? {
                (start, end, State::Blocked) if start == time => Some((start, end)),
                _ => None,
            },
            EventKind::MsgArr => match self.index.span_at(row, time.checked_sub(1)?)? {
                (start, end, State::Blocked) if end == time => Some((start, end)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The row (process) of event `event`.
    pub fn row_of_event(&self, event: usize) -> Option<usize> {
        let row = self.row_events.partition_point(|&start| start <= event);
        (row >= 1 && event < self.event_time.len()).then(|| row - 1)
    }

    /// Every process in its own row, its counter tracks under it.
    pub fn expanded(&self) -> Rows {
        Rows::new(self.rows.len(), &self.groups, None, &[], &self.tracks)
    }

    /// A scale that shows the whole trace across `plot_width` pixels.
    #[cfg(test)]
    pub fn fit(&self, plot_width: f64) -> super::time_scale::TimeScale {
        super::time_scale::TimeScale::fit(self.bounds.0, self.bounds.1, plot_width)
    }
}

#[cfg(test)]
mod tests {
    use super::row_label;

    #[test]
    fn row_labels_say_the_node_once() {
        assert_eq!(
            row_label("MPI Rank 0 · Master thread", "MPI Rank 0 @ quartz10"),
            "MPI Rank 0 · Master thread @ quartz10"
        );
        assert_eq!(row_label("worker", "T800 #3"), "worker @ T800 #3");
        assert_eq!(row_label("Tremblay", "Tremblay (HOST)"), "Tremblay (HOST)");
        assert_eq!(row_label("rank", "node 0"), "rank @ node 0");
    }
}
