//! The Hasse view's diagram: the happened-before covering relation as drawn — events as
//! vertices on their process's row, Hasse edges as lines — with local runs (consecutive events
//! of one process that no message or collective touches) collapsed into one vertex with a
//! count, as ShiViz does, and each vertex placed on three x axes: its longest-path layer in
//! the collapsed diagram, its Lamport time, and its physical time.
//!
//! Everything here is computed from the engine's [`Causality`] and [`hasse_edges`]; the view
//! only lays it out.

use serde::{Deserialize, Serialize};

use crate::analyses::causality::{Causality, HasseKind, hasse_edges, lamport_clocks};
use crate::graph::execution::ExecutionGraph;
use crate::model::time::Time;
use crate::model::{EventIdx, EventKind, ProcessId, Trace};

/// The quantity the diagram's x axis shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Longest-path layers of the drawn diagram (ShiViz's layout).
    #[default]
    Layer,
    /// Lamport clocks of the events.
    Lamport,
    /// Physical time: a causality history diagram.
    Physical,
}

/// A drawn vertex: one event, or a collapsed local run of `count` events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vertex {
    /// The (first) event.
    pub event: EventIdx,
    /// How many events it stands for (1 unless a collapsed run).
    pub count: u32,
    /// Its process.
    pub process: ProcessId,
    /// The first event's kind.
    pub kind: EventKind,
    /// Its longest-path layer in the drawn diagram.
    pub layer: u32,
    /// The first event's Lamport time.
    pub lamport: u32,
    /// The first event's time.
    pub time: Time,
    /// The last event's time (= `time` for one event).
    pub last_time: Time,
}

/// A drawn edge between two vertices (indices into [`Diagram::vertices`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// The earlier vertex.
    pub from: u32,
    /// The later vertex.
    pub to: u32,
    /// What it stands for.
    pub kind: HasseKind,
    /// Whether it goes back in physical time (a clock-condition violation).
    pub backwards: bool,
}

/// The diagram of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagram {
    /// The vertices, grouped by process in program order.
    pub vertices: Vec<Vertex>,
    /// The Hasse edges between different vertices.
    pub edges: Vec<Edge>,
    /// How many layers the diagram has.
    pub layers: u32,
    /// Each event's vertex (index into `vertices`).
    pub vertex_of: Vec<u32>,
    /// Each process's vertices: `process_start[p]..process_start[p + 1]` (for windows).
    #[serde(skip)]
    process_start: Vec<u32>,
    /// Events of the vertices before each vertex (for counting a range in O(1)).
    #[serde(skip)]
    events_before: Vec<u64>,
    /// The edges that are not program order, by index into `edges` (sorted by target).
    #[serde(skip)]
    cross: Vec<u32>,
    /// Each vertex's program-order in-edge, by index into `edges` (`u32::MAX`: none).
    #[serde(skip)]
    program_in: Vec<u32>,
}

/// How the diagram collapses local runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collapse<'a> {
    /// Every event is its own vertex.
    None,
    /// Local runs of two or more events are one vertex, but for the runs whose first event is
    /// listed (ascending), which stay expanded.
    Runs {
        /// First events of runs kept expanded, ascending.
        expanded: &'a [EventIdx],
    },
}

impl Diagram {
    /// The bytes building the run's causality ([`Causality::new`]) and then its diagram
    /// ([`Diagram::new`]) allocate at most, counted before anything is built: the causality's
    /// vector clocks (about 4 × processes² bytes for a trace of many processes), the Hasse edges
    /// (a collective of p processes has p² of them), and per event its vertex, its Lamport
    /// clock and the builder's working arrays. Saturates rather than wraps.
    pub fn estimated_bytes(trace: &Trace, graph: &ExecutionGraph) -> u64 {
        let n = graph.len() as u64;
        let edges = crate::analyses::causality::max_hasse_edges(graph);
        let per_edge = (std::mem::size_of::<crate::analyses::causality::HasseEdge>()
            + std::mem::size_of::<Edge>()) as u64;
        // A vertex, its `vertex_of` entry, `talks`, the layers and Lamport clocks, `first_in`.
        let per_event = std::mem::size_of::<Vertex>() as u64 + 4 + 1 + 4 + 4 + 4;
        Causality::estimated_bytes(trace, graph)
            .saturating_add(edges.saturating_mul(per_edge))
            .saturating_add(n.saturating_mul(per_event))
    }

    /// The diagram of `trace` (its execution graph `graph`, causality `causality`).
    pub fn new(
        trace: &Trace,
        graph: &ExecutionGraph,
        causality: &Causality,
        collapse: Collapse<'_>,
    ) -> Diagram {
        let n = trace.events.len();
        let hasse = hasse_edges(graph, causality);
        // Events a message or collective touches are always vertices of their own.
        let mut talks = vec![false; n];
        for h in hasse.iter().filter(|h| h.kind != HasseKind::Program) {
            talks[h.from.index()] = true;
            talks[h.to.index()] = true;
        }
        for (i, peer) in trace.events.peer().iter().enumerate() {
            talks[i] |= peer.is_some();
        }
        let lamport = lamport_clocks(graph);
        let times = trace.events.time();
        let kinds = trace.events.kind();
        let mut vertices: Vec<Vertex> = Vec::new();
        let mut vertex_of = vec![0u32; n];
        for p in trace.process_ids() {
            let range = trace.process_events(p);
            let mut i = range.start;
            while i < range.end {
                // A local run [i, j): events no message or collective touches.
                let mut j = i;
                while j < range.end && !talks[j] {
                    j += 1;
                }
                let kept = match collapse {
                    Collapse::None => true,
                    Collapse::Runs { expanded } => {
                        j - i < 2 || expanded.binary_search(&EventIdx(i as u32)).is_ok()
                    }
                };
                let mut push = |a: usize, b: usize| {
                    let id = vertices.len() as u32;
                    vertex_of[a..b].fill(id);
                    vertices.push(Vertex {
                        event: EventIdx(a as u32),
                        count: (b - a) as u32,
                        process: p,
                        kind: kinds[a],
                        layer: 0,
                        lamport: lamport.get(a).copied().unwrap_or(0),
                        time: times[a],
                        last_time: times[b - 1],
                    });
                };
                // A talking event is a vertex of its own; a kept run one vertex per event.
                if j == i {
                    push(i, i + 1);
                } else if kept {
                    (i..j).for_each(|k| push(k, k + 1));
                } else {
                    push(i, j);
                }
                i = j.max(i + 1);
            }
        }
        let mut edges: Vec<Edge> = hasse
            .iter()
            .filter_map(|h| {
                let (from, to) = (vertex_of[h.from.index()], vertex_of[h.to.index()]);
                (from != to).then_some(Edge {
                    from,
                    to,
                    kind: h.kind,
                    backwards: times[h.to.index()] < times[h.from.index()],
                })
            })
            .collect();
        edges.sort_unstable_by_key(|e| (e.to, e.from));
        edges.dedup_by_key(|e| (e.to, e.from, e.kind));
        // Layers in the drawn diagram: edges end at a vertex's first event, so visiting first
        // events in topological order sees every source's layer before it is needed.
        let mut first_in = vec![0u32; vertices.len() + 1];
        for e in &edges {
            first_in[e.to as usize + 1] += 1;
        }
        for k in 1..first_in.len() {
            first_in[k] += first_in[k - 1];
        }
        for v in graph.topological_order() {
            let id = vertex_of[v.index()] as usize;
            if vertices[id].event != v {
                continue;
            }
            let ins = &edges[first_in[id] as usize..first_in[id + 1] as usize];
            vertices[id].layer = ins
                .iter()
                .map(|e| vertices[e.from as usize].layer + 1)
                .max()
                .unwrap_or(0);
        }
        let layers = vertices.iter().map(|v| v.layer + 1).max().unwrap_or(0);
        let mut process_start = vec![0u32; trace.processes.len() + 1];
        for v in &vertices {
            process_start[v.process.index() + 1] += 1;
        }
        for p in 1..process_start.len() {
            process_start[p] += process_start[p - 1];
        }
        let mut events_before = Vec::with_capacity(vertices.len() + 1);
        events_before.push(0u64);
        for v in &vertices {
            events_before.push(events_before.last().copied().unwrap_or(0) + u64::from(v.count));
        }
        let mut cross = Vec::new();
        let mut program_in = vec![u32::MAX; vertices.len()];
        for (k, e) in edges.iter().enumerate() {
            if e.kind == HasseKind::Program {
                program_in[e.to as usize] = k as u32;
            } else {
                cross.push(k as u32);
            }
        }
        Diagram {
            vertices,
            edges,
            layers,
            vertex_of,
            process_start,
            events_before,
            cross,
            program_in,
        }
    }

    /// A vertex's position on `axis`: its layer, its Lamport time, or its time in ticks.
    pub fn x(&self, vertex: &Vertex, axis: Axis) -> u64 {
        match axis {
            Axis::Layer => u64::from(vertex.layer),
            Axis::Lamport => u64::from(vertex.lamport),
            Axis::Physical => vertex.time.0,
        }
    }

    /// The extent of `axis`: `[first, last]` over every vertex.
    pub fn extent(&self, axis: Axis) -> (u64, u64) {
        let xs = self.vertices.iter().map(|v| self.x(v, axis));
        let first = xs.clone().min().unwrap_or(0);
        let last = xs.max().unwrap_or(0);
        (first, last)
    }
}

/// The most edges a window answers; the rest are counted.
pub const MAX_WINDOW_EDGES: usize = 40_000;

/// One drawn mark: the vertices of one row that land on one pixel column.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mark {
    /// The row (0: the first row asked for).
    pub row: u32,
    /// Its x in pixels from the plot's left edge, in `[0, width]`.
    pub px: f64,
    /// The first vertex drawn there.
    pub vertex: u32,
    /// That vertex's (first) event.
    pub event: EventIdx,
    /// That event's kind.
    pub kind: EventKind,
    /// How many events the mark stands for.
    pub events: u64,
}

/// Edges between two marks, bundled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkEdge {
    /// The earlier mark (index into [`HasseWindow::marks`]).
    pub from: u32,
    /// The later mark.
    pub to: u32,
    /// What the edges stand for.
    pub kind: HasseKind,
    /// Whether one of them goes back in physical time.
    pub backwards: bool,
    /// How many diagram edges it bundles.
    pub count: u32,
    /// The first of them (index into [`Diagram::edges`]).
    pub edge: u32,
}

/// A window of the diagram at a width: what the Hasse view draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HasseWindow {
    /// The marks, row by row.
    pub marks: Vec<Mark>,
    /// The edges between marks.
    pub edges: Vec<MarkEdge>,
    /// The axis values at the plot's left and right edges.
    pub extent: (u64, u64),
    /// How many vertices the marks stand for.
    pub vertices: u64,
    /// Edges with both ends shown past [`MAX_WINDOW_EDGES`].
    pub edges_over_budget: u64,
}

/// Whether a vertex's events overlap the window `[start, end]` (end tick included).
pub fn in_window(v: &Vertex, window: (u64, u64)) -> bool {
    v.last_time.0 >= window.0 && v.time.0 <= window.1
}

impl Diagram {
    /// The vertices of process `p` whose events overlap `[start, end]`: a range, since a
    /// process's vertices are in program order and so in time, layer and Lamport order.
    fn visible(&self, p: usize, window: (u64, u64)) -> std::ops::Range<usize> {
        let (Some(&vs), Some(&ve)) = (self.process_start.get(p), self.process_start.get(p + 1))
        else {
            return 0..0;
        };
        let list = &self.vertices[vs as usize..ve as usize];
        let a = list.partition_point(|v| v.last_time.0 < window.0);
        let b = list.partition_point(|v| v.time.0 <= window.1).max(a);
        vs as usize + a..vs as usize + b
    }

    /// The window `[start, end]` (ticks) of the rows `rows` (processes, top to bottom) at
    /// `width` pixels on `axis`: on the logical axes the vertices in the window spread over
    /// the width by their value, on the physical axis by their time; the vertices of a row
    /// that land on one pixel are one mark with a count, and edges between the same two marks
    /// are one with a count.
    ///
    /// The work is O(rows · min(width, vertices) · log n + visible cross-process edges): a
    /// row's marks are found by binary search, not by visiting its vertices.
    pub fn window(&self, rows: &[u32], window: (u64, u64), axis: Axis, width: f64) -> HasseWindow {
        let width = if width.is_finite() && width >= 1.0 {
            width
        } else {
            1.0
        };
        let n_processes = self.process_start.len().saturating_sub(1);
        let extent = match axis {
            Axis::Physical => (window.0, window.1.max(window.0 + 1)),
            axis => {
                // Over every process (not only the rows shown), so scrolling keeps the scale.
                let (mut first, mut last) = (u64::MAX, 0);
                for p in 0..n_processes {
                    let r = self.visible(p, window);
                    if !r.is_empty() {
                        first = first.min(self.x(&self.vertices[r.start], axis));
                        last = last.max(self.x(&self.vertices[r.end - 1], axis));
                    }
                }
                if first == u64::MAX {
                    (0, 1)
                } else {
                    (first, last.max(first + 1))
                }
            }
        };
        let per_px = (extent.1 - extent.0) as f64 / width;
        let px_of = |v: &Vertex| (self.x(v, axis).saturating_sub(extent.0)) as f64 / per_px;
        let mut out = HasseWindow {
            marks: Vec::new(),
            edges: Vec::new(),
            extent,
            vertices: 0,
            edges_over_budget: 0,
        };
        // Per row: its visible range; per visible vertex: its mark + 1 (0: not drawn; zeroed
        // memory costs nothing until a row writes its range).
        let mut row_of = vec![u32::MAX; n_processes];
        let mut mark_of = vec![0u32; self.vertices.len()];
        let mut ranges = Vec::with_capacity(rows.len());
        for (row, &p) in rows.iter().enumerate() {
            let range = if (p as usize) < n_processes && row_of[p as usize] == u32::MAX {
                row_of[p as usize] = row as u32;
                self.visible(p as usize, window)
            } else {
                0..0
            };
            out.vertices += range.len() as u64;
            let mut i = range.start;
            while i < range.end {
                let px = px_of(&self.vertices[i]);
                let k = px.round();
                // The mark's end: galloping from i (the next pixel is usually near, and
                // memory near i is warm), then a binary search in the last stride.
                // round(px) ≤ k ⇔ px < k + 0.5 (px ≥ 0), without a call to round per probe.
                let same = |v: &Vertex| px_of(v) < k + 0.5;
                let mut step = 1;
                while i + step < range.end && same(&self.vertices[i + step]) {
                    step *= 2;
                }
                let lo = i + step / 2 + 1;
                let hi = (i + step).min(range.end);
                let j = lo + self.vertices[lo.min(hi)..hi].partition_point(same);
                let v = &self.vertices[i];
                out.marks.push(Mark {
                    row: row as u32,
                    px: px.min(width),
                    vertex: i as u32,
                    event: v.event,
                    kind: v.kind,
                    events: self.events_before[j] - self.events_before[i],
                });
                mark_of[i..j].fill(out.marks.len() as u32);
                i = j;
            }
            ranges.push(range);
        }
        let mark_of = |vertex: usize| mark_of[vertex].checked_sub(1);
        // Program order within a row: an edge between consecutive marks when the later one's
        // first vertex has its program in-edge (the others fall inside one mark).
        for m in 1..out.marks.len() {
            let (prev, mark) = (out.marks[m - 1], out.marks[m]);
            let edge = self.program_in[mark.vertex as usize];
            if prev.row != mark.row || edge == u32::MAX {
                continue;
            }
            if out.edges.len() >= MAX_WINDOW_EDGES {
                out.edges_over_budget += 1;
                continue;
            }
            out.edges.push(MarkEdge {
                from: (m - 1) as u32,
                to: m as u32,
                kind: HasseKind::Program,
                backwards: self.edges[edge as usize].backwards,
                count: 1,
                edge,
            });
        }
        // Messages and collectives arrive sorted by target vertex, so those into one target
        // mark are together: bundling looks only among them.
        let mut target = u32::MAX;
        let mut into_target: Vec<(u32, HasseKind, usize)> = Vec::new();
        for range in &ranges {
            if range.is_empty() {
                continue;
            }
            let edges = &self.edges;
            let from = self
                .cross
                .partition_point(|&k| (edges[k as usize].to as usize) < range.start);
            let to = self
                .cross
                .partition_point(|&k| (edges[k as usize].to as usize) < range.end);
            for &k in &self.cross[from..to] {
                let e = edges[k as usize];
                let (Some(a), Some(b)) = (mark_of(e.from as usize), mark_of(e.to as usize)) else {
                    continue;
                };
                if a == b {
                    continue;
                }
                if b != target {
                    target = b;
                    into_target.clear();
                }
                if let Some(&(_, _, at)) = into_target
                    .iter()
                    .find(|&&(source, kind, _)| source == a && kind == e.kind)
                {
                    let edge: &mut MarkEdge = &mut out.edges[at];
                    edge.count += 1;
                    edge.backwards |= e.backwards;
                    continue;
                }
                if out.edges.len() >= MAX_WINDOW_EDGES {
                    out.edges_over_budget += 1;
                    continue;
                }
                into_target.push((a, e.kind, out.edges.len()));
                out.edges.push(MarkEdge {
                    from: a,
                    to: b,
                    kind: e.kind,
                    backwards: e.backwards,
                    count: 1,
                    edge: k,
                });
            }
        }
        out
    }
}

/// `GET /api/runs/{id}/hasse`: a window of the run's Hasse diagram (local runs collapsed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowQuery {
    /// The window's first tick.
    pub start: u64,
    /// Its last tick (included).
    pub end: u64,
    /// The processes on the rows, top to bottom, as comma-separated ids (empty: all, in the
    /// trace's order).
    #[serde(default)]
    pub processes: String,
    /// The first row drawn.
    #[serde(default)]
    pub first_row: u32,
    /// How many rows are drawn.
    pub rows: u32,
    /// The x axis.
    #[serde(default)]
    pub axis: Axis,
    /// The plot's width in pixels.
    pub width_px: u32,
}

/// The most rows and pixels one window query answers.
pub const MAX_QUERY_ROWS: u32 = 2_000;
/// The widest plot one window query answers.
pub const MAX_QUERY_WIDTH: u32 = 16_384;

impl WindowQuery {
    /// The processes of the rows drawn, checked against the trace's `n_processes`.
    pub fn rows_drawn(&self, n_processes: usize) -> Result<Vec<u32>, String> {
        if self.rows > MAX_QUERY_ROWS || self.width_px == 0 || self.width_px > MAX_QUERY_WIDTH {
            return Err(format!(
                "expected 1 to {MAX_QUERY_ROWS} rows and a width of 1 to {MAX_QUERY_WIDTH} pixels"
            ));
        }
        if self.end < self.start {
            return Err(format!(
                "the window ends ({}) before it starts ({})",
                self.end, self.start
            ));
        }
        let all: Vec<u32> = if self.processes.trim().is_empty() {
            (0..n_processes as u32).collect()
        } else {
            self.processes
                .split(',')
                .map(|p| {
                    p.trim()
                        .parse::<u32>()
                        .ok()
                        .filter(|&p| (p as usize) < n_processes)
                        .ok_or_else(|| {
                            format!("expected process ids below {n_processes}, found {p:?}")
                        })
                })
                .collect::<Result<_, _>>()?
        };
        let first = (self.first_row as usize).min(all.len());
        let last = (first + self.rows as usize).min(all.len());
        Ok(all[first..last].to_vec())
    }
}

/// The selected event's causal past and future on the diagram: on each process, the vertices
/// before `pre_end[p]` are in its past (their last event happened before it) and those from
/// `post_start[p]` on are in its future (their first event happened after it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CausalAreas {
    /// The event.
    pub event: EventIdx,
    /// Its vertex.
    pub vertex: u32,
    /// Per process: the first vertex not in the past.
    pub pre_end: Vec<u32>,
    /// Per process: the first vertex in the future.
    pub post_start: Vec<u32>,
    /// Events in the past.
    pub pre_events: u64,
    /// Events in the future.
    pub post_events: u64,
    /// Per process with a past: (process, first tick, last tick) of it.
    pub pre_spans: Vec<(u32, u64, u64)>,
    /// Per process with a future: (process, first tick, last tick) of it.
    pub post_spans: Vec<(u32, u64, u64)>,
}

impl Diagram {
    /// The causal past and future of event `e` (`None` for an event the trace lacks).
    pub fn areas(&self, trace: &Trace, causality: &Causality, e: EventIdx) -> Option<CausalAreas> {
        let own = *self.vertex_of.get(e.index())?;
        let n = self.process_start.len().saturating_sub(1);
        let mut pre_end: Vec<u32> = self.process_start[..n].to_vec();
        let mut post_start: Vec<u32> = self.process_start[1..].to_vec();
        // Program positions are positions among a process's events in the trace.
        for r in causality.pre_area(e) {
            let q = r.process.index();
            let last = trace.process_events(r.process).start + r.end as usize - 1;
            let v = self.vertex_of[last] as usize;
            let full = self.vertices[v].event.index() + self.vertices[v].count as usize - 1 <= last;
            pre_end[q] = (v + usize::from(full)) as u32;
        }
        for r in causality.post_area(e) {
            let q = r.process.index();
            let first = trace.process_events(r.process).start + r.start as usize;
            let v = self.vertex_of[first] as usize;
            let whole = self.vertices[v].event.index() == first;
            post_start[q] = (v + usize::from(!whole)) as u32;
        }
        let p = self.vertices[own as usize].process.index();
        pre_end[p] = pre_end[p].min(own);
        post_start[p] = post_start[p].max(own + 1);
        let mut out = CausalAreas {
            event: e,
            vertex: own,
            pre_end,
            post_start,
            pre_events: 0,
            post_events: 0,
            pre_spans: Vec::new(),
            post_spans: Vec::new(),
        };
        for q in 0..n {
            let (start, end) = (
                self.process_start[q] as usize,
                self.process_start[q + 1] as usize,
            );
            let pre = start..(out.pre_end[q] as usize).clamp(start, end);
            let post = (out.post_start[q] as usize).clamp(start, end)..end;
            out.pre_events += self.events_before[pre.end] - self.events_before[pre.start];
            out.post_events += self.events_before[post.end] - self.events_before[post.start];
            if !pre.is_empty() {
                out.pre_spans.push((
                    q as u32,
                    self.vertices[pre.start].time.0,
                    self.vertices[pre.end - 1].last_time.0,
                ));
            }
            if !post.is_empty() {
                out.post_spans.push((
                    q as u32,
                    self.vertices[post.start].time.0,
                    self.vertices[post.end - 1].last_time.0,
                ));
            }
        }
        Some(out)
    }
}
