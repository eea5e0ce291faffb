//! The chart's rows: processes grouped by node, each group collapsible to one row.
//!
//! Groups are runs of consecutive processes on the same node, so the rows keep the trace's
//! process order and any run of rows covers a contiguous range of processes (one viewport
//! query). A trace with one process per node has no group rows at all.

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

    /// Whether it holds none (never, for groups built from a trace).
    pub fn is_empty(&self) -> bool {
        self.end == self.first
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

/// One row of the chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// A group's header: its node; when collapsed, a summary of its processes.
    Group(usize),
    /// A process.
    Process(usize),
}

/// At most this many of a collapsed group's processes are drawn as strips in its row.
pub const MAX_STRIPS: usize = 8;

/// The rows shown, given which groups are collapsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows {
    /// The rows, top to bottom.
    pub rows: Vec<Row>,
    /// Each process's row: its own, or its collapsed group's.
    pub row_of_process: Vec<u32>,
    /// Whether each group is collapsed.
    pub collapsed: Vec<bool>,
}

impl Rows {
    /// The rows of `n_processes` processes in `groups`, with `collapsed[g]` groups folded
    /// (missing entries are expanded).
    pub fn new(n_processes: usize, groups: &[Group], collapsed: &[bool]) -> Rows {
        let collapsed: Vec<bool> = (0..groups.len())
            .map(|g| collapsed.get(g).copied().unwrap_or(false))
            .collect();
        let mut rows = Vec::with_capacity(n_processes + groups.len());
        let mut row_of_process = vec![0u32; n_processes];
        if groups.is_empty() {
            for (p, row) in row_of_process.iter_mut().enumerate() {
                *row = p as u32;
                rows.push(Row::Process(p));
            }
        }
        for (g, group) in groups.iter().enumerate() {
            let header = rows.len() as u32;
            rows.push(Row::Group(g));
            let members = group.first.min(n_processes)..group.end.min(n_processes);
            for (p, row) in members.clone().zip(&mut row_of_process[members]) {
                if collapsed[g] {
                    *row = header;
                } else {
                    *row = rows.len() as u32;
                    rows.push(Row::Process(p));
                }
            }
        }
        Rows {
            rows,
            row_of_process,
            collapsed,
        }
    }

    /// Every process in its own row, groups expanded.
    pub fn expanded(n_processes: usize, groups: &[Group]) -> Rows {
        Rows::new(n_processes, groups, &[])
    }

    /// How many rows there are.
    pub fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// The row of process `p`.
    pub fn row_of(&self, p: usize) -> usize {
        self.row_of_process.get(p).map_or(0, |&r| r as usize)
    }

    /// The processes row `row` stands for: a process's own, a collapsed group's members (an
    /// expanded group's header stands for none: its processes have their own rows).
    pub fn processes(&self, row: usize, groups: &[Group]) -> Option<(usize, usize)> {
        match *self.rows.get(row)? {
            Row::Process(p) => Some((p, p)),
            Row::Group(g) => {
                let group = groups.get(g)?;
                (*self.collapsed.get(g)? && !group.is_empty()).then(|| (group.first, group.end - 1))
            }
        }
    }

    /// The processes of rows `first..=last`, as one range (the rows keep process order).
    pub fn process_range(
        &self,
        first: usize,
        last: usize,
        groups: &[Group],
    ) -> Option<(usize, usize)> {
        let lo = (first..=last).find_map(|r| self.processes(r, groups))?.0;
        let hi = (first..=last)
            .rev()
            .find_map(|r| self.processes(r, groups))?
            .1;
        Some((lo, hi))
    }

    /// The processes drawn in row `row`: one for a process row, up to [`MAX_STRIPS`] evenly
    /// spaced members for a collapsed group (each drawn as a strip), none for an expanded
    /// group's header.
    pub fn drawn(&self, row: usize, groups: &[Group]) -> Vec<usize> {
        match self.processes(row, groups) {
            None => Vec::new(),
            Some((p, q)) if p == q => vec![p],
            Some((first, last)) => {
                let n = last - first + 1;
                let step = n.div_ceil(MAX_STRIPS);
                (first..=last).step_by(step).collect()
            }
        }
    }

    /// Collapses or expands group `g`.
    pub fn toggled(&self, n_processes: usize, groups: &[Group], g: usize) -> Rows {
        let mut collapsed = self.collapsed.clone();
        if let Some(c) = collapsed.get_mut(g) {
            *c = !*c;
        }
        Rows::new(n_processes, groups, &collapsed)
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
        assert_eq!(rows.row_of_process, [1, 2, 3, 5, 7, 8]);
        assert_eq!(rows.processes(0, &g), None, "an open header is no process");
        assert_eq!(rows.process_range(0, 5, &g), Some((0, 3)));
    }

    #[test]
    fn a_collapsed_group_is_one_row_for_all_its_processes() {
        let g = groups();
        let rows = Rows::expanded(6, &g).toggled(6, &g, 0);
        use Row::{Group as G, Process as P};
        assert_eq!(rows.rows, [G(0), G(1), P(3), G(2), P(4), P(5)]);
        assert_eq!(rows.row_of_process, [0, 0, 0, 2, 4, 5]);
        assert_eq!(rows.processes(0, &g), Some((0, 2)));
        assert_eq!(rows.drawn(0, &g), [0, 1, 2]);
        assert_eq!(rows.process_range(0, 2, &g), Some((0, 3)));
        assert_eq!(rows.toggled(6, &g, 0), Rows::expanded(6, &g));
    }

    #[test]
    fn a_big_collapsed_group_draws_a_sample_of_strips() {
        let g = [Group {
            name: "n".into(),
            first: 0,
            end: 100,
        }];
        let rows = Rows::new(100, &g, &[true]);
        assert_eq!(rows.n_rows(), 1);
        let drawn = rows.drawn(0, &g);
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
}
