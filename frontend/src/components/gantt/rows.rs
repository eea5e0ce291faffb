//! The chart's rows: processes grouped by node, each group collapsible to one row.
//!
//! Groups are runs of consecutive processes on the same node. The rows show a chosen set of
//! processes in a chosen order (all, in the trace's order, by default), with a node's header
//! before each run of its processes. A trace with one process per node has no group rows.

use shared::Trace;

/// Processes `first..end`, all on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The node's name.
    pub name: String,
    /// The group's first process.
    pub first: usize,
    /// One past its last process.
    pub end: usize,
}

impl Group {
    /// How many processes it holds.
    pub fn len(&self) -> usize {
        self.end - self.first
    }
}

/// The groups of a trace's processes: runs of consecutive processes on one node, or none when
/// no node holds two processes in a row (the rows then are the processes themselves).
pub fn groups_of(trace: &Trace) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (p, process) in trace.processes.iter().enumerate() {
        match groups.last_mut() {
            Some(last) if trace.processes[last.first].node == process.node => last.end = p + 1,
            _ => groups.push(Group {
                name: trace
                    .nodes
                    .get(process.node.index())
                    .map_or_else(|| format!("node {}", process.node.0), |n| n.name.clone()),
                first: p,
                end: p + 1,
            }),
        }
    }
    if groups.iter().all(|g| g.len() < 2) {
        groups.clear();
    }
    groups
}

/// Above this many rows (what the canvas shows at once), a run with node groups opens folded.
pub const FOLD_ABOVE_ROWS: usize = 20;
/// ... when it has at least this many nodes (folded, fewer would say too little).
pub const FOLD_FROM_GROUPS: usize = 8;

/// The groups a run opens with folded: all of them when its rows would not fit on the canvas
/// unfolded and there are enough nodes for one row each to tell a story (a 64-node mesh opens
/// as 64 node rows, not a wall of processes; two boards open unfolded), else none.
pub fn folded_by_default(n_processes: usize, groups: &[Group]) -> Vec<u32> {
    let unfolded = Rows::expanded(n_processes, groups).n_rows();
    if groups.len() < FOLD_FROM_GROUPS || unfolded <= FOLD_ABOVE_ROWS {
        return Vec::new();
    }
    (0..groups.len() as u32).collect()
}

/// One row of the chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// A group's header: its node; when folded, a summary of its processes.
    Group(usize),
    /// A process.
    Process(usize),
    /// A counter track (an index into the model's counters), under its process's row.
    Counter(usize),
}

/// At most this many of a folded group's processes are drawn as strips in its row.
pub const MAX_STRIPS: usize = 8;

/// A process that is not shown has this row.
const HIDDEN: u32 = u32::MAX;

/// The rows shown: the processes shown, in their order, under their nodes' headers, some
/// nodes folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows {
    /// The rows, top to bottom.
    pub rows: Vec<Row>,
    /// The processes shown, in row order (a folded group's members included).
    order: Vec<usize>,
    /// Row `r` stands for `order[spans[r].0..spans[r].1]`: a process row for one, a folded
    /// header for its members, an open header for none.
    spans: Vec<(u32, u32)>,
    /// Each process's row (its own, or its folded group's), or [`HIDDEN`].
    row_of_process: Vec<u32>,
    /// Whether each group is folded.
    pub collapsed: Vec<bool>,
}

/// The group of process `p` (groups are ascending runs of processes).
fn group_of(groups: &[Group], p: usize) -> Option<usize> {
    let g = groups.partition_point(|g| g.end <= p);
    groups.get(g).filter(|g| g.first <= p).map(|_| g)
}

impl Rows {
    /// The rows of `n_processes` processes in `groups`: `shown` in its order (all, in the
    /// trace's order, when `None`), a header before each run of shown processes of one node
    /// (when there are groups), the groups in `collapsed` folded into their header, and under
    /// each unfolded process the counter tracks `tracks[p]` lists.
    pub fn new(
        n_processes: usize,
        groups: &[Group],
        shown: Option<&[u32]>,
        collapsed: &[u32],
        tracks: &[Vec<u32>],
    ) -> Rows {
        let folded: Vec<bool> = (0..groups.len())
            .map(|g| collapsed.contains(&(g as u32)))
            .collect();
        let order: Vec<usize> = match shown {
            Some(list) => list
                .iter()
                .map(|&p| p as usize)
                .filter(|&p| p < n_processes)
                .collect(),
            None => (0..n_processes).collect(),
        };
        let mut rows = Vec::with_capacity(order.len() + groups.len());
        let mut spans = Vec::with_capacity(rows.capacity());
        let mut row_of_process = vec![HIDDEN; n_processes];
        let mut current: Option<(usize, usize)> = None; // (group, header row)
        for (k, &p) in order.iter().enumerate() {
            if row_of_process[p] != HIDDEN {
                continue;
            }
            let k = k as u32;
            let group = group_of(groups, p);
            if let Some(g) = group
                && current.map(|c| c.0) != Some(g)
            {
                current = Some((g, rows.len()));
                rows.push(Row::Group(g));
                spans.push((k, k));
            }
            match current.filter(|&(g, _)| Some(g) == group && folded[g]) {
                Some((_, header)) => {
                    row_of_process[p] = header as u32;
                    spans[header].1 = k + 1;
                }
                None => {
                    row_of_process[p] = rows.len() as u32;
                    rows.push(Row::Process(p));
                    spans.push((k, k + 1));
                    for &c in tracks.get(p).map_or(&[][..], Vec::as_slice) {
                        rows.push(Row::Counter(c as usize));
                        spans.push((k + 1, k + 1));
                    }
                }
            }
        }
        Rows {
            rows,
            order,
            spans,
            row_of_process,
            collapsed: folded,
        }
    }

    /// Every process in its own row, groups open.
    pub fn expanded(n_processes: usize, groups: &[Group]) -> Rows {
        Rows::new(n_processes, groups, None, &[], &[])
    }

    /// How many rows there are.
    pub fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// The row of process `p`, if it is shown.
    pub fn row_of(&self, p: usize) -> Option<usize> {
        self.row_of_process
            .get(p)
            .filter(|&&r| r != HIDDEN)
            .map(|&r| r as usize)
    }

    /// The processes row `row` stands for: a process's own, a folded group's members (an open
    /// group's header stands for none: its processes have their own rows).
    pub fn processes(&self, row: usize) -> &[usize] {
        self.spans
            .get(row)
            .and_then(|&(a, b)| self.order.get(a as usize..b as usize))
            .unwrap_or(&[])
    }

    /// The processes of rows `first..=last`, ascending.
    pub fn processes_in(&self, first: usize, last: usize) -> Vec<u32> {
        let mut all: Vec<u32> = (first..=last)
            .flat_map(|r| self.processes(r).iter().map(|&p| p as u32))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The first and last rows of `processes`, when any is shown.
    pub fn rows_of(&self, processes: &[u32]) -> Option<(usize, usize)> {
        let rows = processes.iter().filter_map(|&p| self.row_of(p as usize));
        let (lo, hi) = rows.fold((usize::MAX, 0), |(lo, hi), r| (lo.min(r), hi.max(r)));
        (lo <= hi).then_some((lo, hi))
    }

    /// The processes drawn in row `row`: one for a process row, up to [`MAX_STRIPS`] evenly
    /// spaced members for a folded group (each drawn as a strip), none for an open header.
    pub fn drawn(&self, row: usize) -> Vec<usize> {
        let members = self.processes(row);
        let step = members.len().div_ceil(MAX_STRIPS).max(1);
        members.iter().copied().step_by(step).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups() -> Vec<Group> {
        // Processes 0–2 on node a, 3 on b, 4–5 on c.
        vec![
            Group {
                name: "a".into(),
                first: 0,
                end: 3,
            },
            Group {
                name: "b".into(),
                first: 3,
                end: 4,
            },
            Group {
                name: "c".into(),
                first: 4,
                end: 6,
            },
        ]
    }

    #[test]
    fn processes_sit_under_their_nodes_header() {
        let g = groups();
        let rows = Rows::expanded(6, &g);
        use Row::{Group as G, Process as P};
        assert_eq!(
            rows.rows,
            [G(0), P(0), P(1), P(2), G(1), P(3), G(2), P(4), P(5)]
        );
        let row_of: Vec<Option<usize>> = (0..6).map(|p| rows.row_of(p)).collect();
        assert_eq!(row_of, [1, 2, 3, 5, 7, 8].map(Some));
        assert!(rows.processes(0).is_empty(), "an open header is no process");
        assert_eq!(rows.processes_in(0, 5), [0, 1, 2, 3]);
    }

    #[test]
    fn a_collapsed_group_is_one_row_for_all_its_processes() {
        let g = groups();
        let rows = Rows::new(6, &g, None, &[0], &[]);
        use Row::{Group as G, Process as P};
        assert_eq!(rows.rows, [G(0), G(1), P(3), G(2), P(4), P(5)]);
        let row_of: Vec<Option<usize>> = (0..6).map(|p| rows.row_of(p)).collect();
        assert_eq!(row_of, [0, 0, 0, 2, 4, 5].map(Some));
        assert_eq!(rows.processes(0), [0, 1, 2]);
        assert_eq!(rows.drawn(0), [0, 1, 2]);
        assert_eq!(rows.processes_in(0, 2), [0, 1, 2, 3]);
        assert_eq!(rows.rows_of(&[3, 1]), Some((0, 2)));
    }

    #[test]
    fn a_process_subset_keeps_its_order_under_its_nodes_headers() {
        let g = groups();
        // 4 (node c), then 1 and 0 (node a), then 5 (node c again): a header per run.
        let rows = Rows::new(6, &g, Some(&[4, 1, 0, 5]), &[], &[]);
        use Row::{Group as G, Process as P};
        assert_eq!(rows.rows, [G(2), P(4), G(0), P(1), P(0), G(2), P(5)]);
        assert_eq!(rows.row_of(3), None, "process 3 is hidden");
        assert_eq!(rows.row_of(0), Some(4));
        // Folding node a folds only its run.
        let folded = Rows::new(6, &g, Some(&[4, 1, 0, 5]), &[0], &[]);
        assert_eq!(folded.rows, [G(2), P(4), G(0), G(2), P(5)]);
        assert_eq!(folded.processes(2), [1, 0]);
        assert_eq!(folded.rows_of(&[0, 5]), Some((2, 4)));
        assert_eq!(folded.rows_of(&[3]), None);
    }

    #[test]
    fn a_big_collapsed_group_draws_a_sample_of_strips() {
        let g = [Group {
            name: "n".into(),
            first: 0,
            end: 100,
        }];
        let rows = Rows::new(100, &g, None, &[0], &[]);
        assert_eq!(rows.n_rows(), 1);
        let drawn = rows.drawn(0);
        assert!(drawn.len() <= MAX_STRIPS && drawn.len() >= MAX_STRIPS - 1);
        assert_eq!(drawn.first(), Some(&0));
    }

    #[test]
    fn one_process_per_node_means_no_groups() {
        let trace = super::super::test_data::worked_example();
        assert!(groups_of(&trace).is_empty());
        let trace = shared::model::synthetic::ring_on_nodes(12, 4, 1_000);
        let g = groups_of(&trace);
        assert_eq!(g.len(), 3);
        assert!(g.iter().all(|g| g.len() == 4));
    }

    #[test]
    fn many_nodes_open_folded_and_few_open_unfolded() {
        let group = |k: usize, per: usize| Group {
            name: format!("node {k}"),
            first: k * per,
            end: (k + 1) * per,
        };
        // 64 nodes of 3 processes: 256 rows unfolded, so every node folds (64 rows).
        let mesh: Vec<Group> = (0..64).map(|k| group(k, 3)).collect();
        let folded = folded_by_default(192, &mesh);
        assert_eq!(folded.len(), 64);
        assert_eq!(Rows::new(192, &mesh, None, &folded, &[]).n_rows(), 64);
        // Two boards of four: ten rows fit, nothing folds; two boards of twelve do not fit,
        // but two rows would hide every process: nothing folds either.
        let boards: Vec<Group> = (0..2).map(|k| group(k, 4)).collect();
        assert!(folded_by_default(8, &boards).is_empty());
        let boards: Vec<Group> = (0..2).map(|k| group(k, 12)).collect();
        assert!(folded_by_default(24, &boards).is_empty());
        // No groups, nothing to fold.
        assert!(folded_by_default(500, &[]).is_empty());
    }

    #[test]
    fn counter_tracks_sit_under_their_unfolded_process() {
        let g = groups();
        // Process 1 has counters 0 and 1, process 4 has counter 2.
        let tracks = vec![vec![], vec![0, 1], vec![], vec![], vec![2], vec![]];
        let rows = Rows::new(6, &g, None, &[], &tracks);
        use Row::{Counter as C, Group as G, Process as P};
        assert_eq!(
            rows.rows,
            [
                G(0),
                P(0),
                P(1),
                C(0),
                C(1),
                P(2),
                G(1),
                P(3),
                G(2),
                P(4),
                C(2),
                P(5)
            ]
        );
        assert_eq!(rows.row_of(2), Some(5));
        assert!(
            rows.processes(3).is_empty(),
            "a track draws no process bars"
        );
        assert_eq!(rows.processes_in(2, 5), [1, 2]);
        // Folded with its node, a process's tracks go too.
        let folded = Rows::new(6, &g, None, &[0], &tracks);
        assert_eq!(folded.rows, [G(0), G(1), P(3), G(2), P(4), C(2), P(5)]);
    }
}
