//! The topology view's model: the network a trace ran on, or its communication graph, laid out
//! for drawing, with each vertex's and edge's traffic; and its load over any window.
//!
//! A trace that carries links (the emulator's runs, Tmon records, Pajé links between
//! containers) is drawn as its **network**: the emulator's shapes are recognised from their
//! link numbering (`simulator-wasm`'s `topology` module fixes it) and placed on their grids —
//! pipe, ring, mesh, torus, cylinder, hypercube, tree —, any other wiring by a force-directed
//! layout. A trace without links is drawn as its **communication graph**: its nodes (or, when
//! it has one node, its processes) as vertices, joined where messages pass, laid out by force.
//! Positions are in the unit square (y down), the same for the same trace on every run.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::graph::context::Context;
use crate::graph::pairing::Pairing;
use crate::graph::states::State;
use crate::graph::timeline::StepFn;
use crate::model::time::Time;
use crate::model::{Direction, LinkId, NodeId, ProcessId, Trace};

/// What the vertices and edges are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The machine's nodes and the links between them.
    Network,
    /// The nodes (or processes) and who sent messages to whom.
    Communication,
}

/// The shape a layout recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "shape")]
pub enum Shape {
    /// Nodes in a line, link 1 to the next.
    Pipe {
        /// Nodes.
        n: u32,
    },
    /// A pipe closed into a circle.
    Ring {
        /// Nodes.
        n: u32,
    },
    /// A grid: links 0–3 north, east, south, west; `wrap_x` joins each row's ends, `wrap_y`
    /// each column's (neither: a mesh; one: a cylinder; both: a torus).
    Grid {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
        /// Whether rows wrap around.
        wrap_x: bool,
        /// Whether columns wrap around.
        wrap_y: bool,
    },
    /// A hypercube: link d joins the nodes that differ in bit d.
    Hypercube {
        /// Dimensions.
        dimension: u32,
    },
    /// A tree: link 0 to the parent, links 1 and 2 to the children.
    Tree,
    /// Any other graph, laid out by force.
    Graph,
}

impl Shape {
    /// The shape's name as the emulator spells it (`mesh 4x4`, `cylinder 8x9`, …).
    pub fn name(self) -> String {
        match self {
            Shape::Pipe { n } => format!("pipe {n}"),
            Shape::Ring { n } => format!("ring {n}"),
            Shape::Grid {
                width,
                height,
                wrap_x,
                wrap_y,
            } => {
                let kind = match (wrap_x, wrap_y) {
                    (false, false) => "mesh",
                    (true, true) => "torus",
                    _ => "cylinder",
                };
                format!("{kind} {width}x{height}")
            }
            Shape::Hypercube { dimension } => format!("hypercube {dimension}"),
            Shape::Tree => "tree".to_owned(),
            Shape::Graph => "graph".to_owned(),
        }
    }
}

/// A vertex: a node, or a process in the communication graph of a one-node trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vertex {
    /// Its name.
    pub label: String,
    /// The node it is (or that its process runs on).
    pub node: NodeId,
    /// The process it is, in a communication graph of processes.
    pub process: Option<ProcessId>,
    /// The processes it draws.
    pub processes: Vec<ProcessId>,
    /// Position in the unit square, y down.
    pub x: f32,
    /// Position in the unit square, y down.
    pub y: f32,
}

/// An edge: a link, or the messages between two vertices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// One end (a vertex index).
    pub a: u32,
    /// The other end.
    pub b: u32,
    /// The link it is, in a network.
    pub link: Option<LinkId>,
    /// Whether it closes a ring, row or column (drawn around the outside).
    pub wrap: bool,
    /// Messages from a to b, and from b to a.
    pub messages: [u64; 2],
    /// Bytes from a to b, and from b to a.
    pub bytes: [u64; 2],
}

/// The topology of a trace, laid out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// Network or communication graph.
    pub kind: Kind,
    /// The shape recognised.
    pub shape: Shape,
    /// The vertices.
    pub vertices: Vec<Vertex>,
    /// The edges.
    pub edges: Vec<Edge>,
}

impl Topology {
    /// The topology of `trace`, whose messages are `pairing`.
    pub fn new(trace: &Trace, pairing: &Pairing) -> Topology {
        let mut topology = if trace.links.is_empty() {
            communication(trace, pairing)
        } else {
            network(trace)
        };
        topology.count_messages(trace, pairing);
        topology
    }

    /// The vertex each process is drawn in.
    pub fn vertex_of_process(&self, n_processes: usize) -> Vec<Option<u32>> {
        let mut of = vec![None; n_processes];
        for (v, vertex) in self.vertices.iter().enumerate() {
            for p in &vertex.processes {
                if let Some(slot) = of.get_mut(p.index()) {
                    *slot = Some(v as u32);
                }
            }
        }
        of
    }

    /// Each message counted on the edge between its sender's and receiver's vertices (the
    /// link joining them, in a network; messages between vertices no link joins are not
    /// drawn).
    fn count_messages(&mut self, trace: &Trace, pairing: &Pairing) {
        let of = self.vertex_of_process(trace.processes.len());
        let mut edge_of: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        for (i, e) in self.edges.iter().enumerate() {
            edge_of.entry((e.a, e.b)).or_insert(i);
            edge_of.entry((e.b, e.a)).or_insert(i);
        }
        let process = trace.events.process();
        let size = trace.events.size();
        for m in &pairing.messages {
            let from = of.get(process[m.send.index()].index()).copied().flatten();
            let to = of
                .get(process[m.arrival.index()].index())
                .copied()
                .flatten();
            let (Some(from), Some(to)) = (from, to) else {
                continue;
            };
            if let Some(&i) = edge_of.get(&(from, to)) {
                let e = &mut self.edges[i];
                let d = usize::from(e.a != from);
                e.messages[d] += 1;
                e.bytes[d] += size.at(m.send.index());
            }
        }
    }
}

/// The network of a trace with links.
fn network(trace: &Trace) -> Topology {
    let mut processes: Vec<Vec<ProcessId>> = vec![Vec::new(); trace.nodes.len()];
    for (i, p) in trace.processes.iter().enumerate() {
        if let Some(list) = processes.get_mut(p.node.index()) {
            list.push(ProcessId(i as u32));
        }
    }
    let mut vertices: Vec<Vertex> = trace
        .nodes
        .iter()
        .zip(processes)
        .enumerate()
        .map(|(i, (node, processes))| Vertex {
            label: node.name.clone(),
            node: NodeId(i as u32),
            process: None,
            processes,
            x: 0.0,
            y: 0.0,
        })
        .collect();
    let mut edges: Vec<Edge> = trace
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| Edge {
            a: l.a.node.0,
            b: l.b.node.0,
            link: Some(LinkId(i as u32)),
            wrap: false,
            messages: [0; 2],
            bytes: [0; 2],
        })
        .collect();
    // The emulator's host is a node of its own, wired to node 0's link 0: it stands beside
    // the network and takes no part in recognising its shape.
    let host: Vec<bool> = trace.nodes.iter().map(|n| n.name == "host").collect();
    let compute: Vec<u32> = (0..trace.nodes.len() as u32)
        .filter(|&i| !host[i as usize])
        .collect();
    let wires: Vec<(u32, u8, u32, u8)> = trace
        .links
        .iter()
        .filter(|l| !host[l.a.node.index()] && !host[l.b.node.index()])
        .map(|l| (l.a.node.0, l.a.link, l.b.node.0, l.b.link))
        .collect();
    let dense = compute.iter().enumerate().all(|(i, &n)| n == i as u32);
    let n = compute.len() as u32;
    let placed = if dense && n > 0 {
        recognise(n, &wires)
    } else {
        None
    };
    let shape = match placed {
        Some((shape, positions, wraps)) => {
            for (v, (x, y)) in positions.into_iter().enumerate() {
                vertices[v].x = x;
                vertices[v].y = y;
            }
            for e in &mut edges {
                e.wrap = wraps.contains(&(e.a.min(e.b), e.a.max(e.b)));
            }
            // The host stands left of node 0, most of a step away.
            let (x0, y0) = (vertices[0].x, vertices[0].y);
            let step = compute
                .iter()
                .skip(1)
                .map(|&c| {
                    let v = &vertices[c as usize];
                    ((v.x - x0).powi(2) + (v.y - y0).powi(2)).sqrt()
                })
                .filter(|d| *d > 0.0)
                .fold(f32::MAX, f32::min);
            let step = if step == f32::MAX { 1.0 } else { step };
            for (i, _) in host.iter().enumerate().filter(|(_, h)| **h) {
                vertices[i].x = x0 - 0.8 * step;
                vertices[i].y = y0;
            }
            shape
        }
        None => {
            let pairs: Vec<(u32, u32)> = edges.iter().map(|e| (e.a, e.b)).collect();
            let positions = force_layout(vertices.len(), &pairs);
            for (v, (x, y)) in positions.into_iter().enumerate() {
                vertices[v].x = x;
                vertices[v].y = y;
            }
            Shape::Graph
        }
    };
    normalise(&mut vertices);
    Topology {
        kind: Kind::Network,
        shape,
        vertices,
        edges,
    }
}

/// Positions and wrapping wires, by shape.
type Placed = (Shape, Vec<(f32, f32)>, Vec<(u32, u32)>);

/// Recognises the emulator's shapes from their link numbering; `None` for anything else.
fn recognise(n: u32, wires: &[(u32, u8, u32, u8)]) -> Option<Placed> {
    ring_or_pipe(n, wires)
        .or_else(|| grid(n, wires))
        .or_else(|| hypercube(n, wires))
        .or_else(|| tree(n, wires))
}

/// A wire as (from, to) with `from`'s link `out` and `to`'s link `into`, in either order.
fn oriented(wire: (u32, u8, u32, u8), out: u8, into: u8) -> Option<(u32, u32)> {
    let (a, la, b, lb) = wire;
    if (la, lb) == (out, into) {
        Some((a, b))
    } else if (lb, la) == (out, into) {
        Some((b, a))
    } else {
        None
    }
}

fn ring_or_pipe(n: u32, wires: &[(u32, u8, u32, u8)]) -> Option<Placed> {
    let mut next = vec![false; n as usize];
    for &w in wires {
        let (a, b) = oriented(w, 1, 2)?;
        if b != (a + 1) % n || next[a as usize] {
            return None;
        }
        next[a as usize] = true;
    }
    let closed = wires.len() as u32 == n && n > 2;
    if !closed && wires.len() as u32 != n - 1 {
        return None;
    }
    if closed {
        // A circle, node 0 at the top, clockwise.
        let positions = (0..n)
            .map(|i| {
                let angle = std::f32::consts::TAU * i as f32 / n as f32;
                (0.5 + 0.5 * angle.sin(), 0.5 - 0.5 * angle.cos())
            })
            .collect();
        return Some((Shape::Ring { n }, positions, vec![]));
    }
    // A line, folded into rows of 16 (every other row right to left) when long.
    let per_row = n.min(16);
    let positions = (0..n)
        .map(|i| {
            let (row, col) = (i / per_row, i % per_row);
            let col = if row % 2 == 1 { per_row - 1 - col } else { col };
            (col as f32, row as f32)
        })
        .collect();
    Some((Shape::Pipe { n }, positions, vec![]))
}

fn grid(n: u32, wires: &[(u32, u8, u32, u8)]) -> Option<Placed> {
    let mut east = Vec::new();
    let mut south = Vec::new();
    for &w in wires {
        if let Some(pair) = oriented(w, 1, 3) {
            east.push(pair);
        } else if let Some(pair) = oriented(w, 2, 0) {
            south.push(pair);
        } else {
            return None;
        }
    }
    // The width: how far south goes (the most common step), or the whole row without rows.
    let width = if south.is_empty() {
        n
    } else {
        let mut steps: BTreeMap<u32, usize> = BTreeMap::new();
        for &(a, b) in &south {
            *steps.entry((b + n - a) % n).or_default() += 1;
        }
        steps
            .into_iter()
            .max_by_key(|&(step, k)| (k, u32::MAX - step))?
            .0
    };
    if width == 0 || !n.is_multiple_of(width) {
        return None;
    }
    let height = n / width;
    let (mut wrap_x, mut wrap_y) = (false, false);
    let mut wraps = Vec::new();
    for &(a, b) in &east {
        let (x, y) = (a % width, a / width);
        if b != y * width + (x + 1) % width {
            return None;
        }
        if x == width - 1 {
            wrap_x = true;
            wraps.push((a.min(b), a.max(b)));
        }
    }
    for &(a, b) in &south {
        let (x, y) = (a % width, a / width);
        if b != ((y + 1) % height) * width + x {
            return None;
        }
        if y == height - 1 {
            wrap_y = true;
            wraps.push((a.min(b), a.max(b)));
        }
    }
    let positions = (0..n)
        .map(|i| ((i % width) as f32, (i / width) as f32))
        .collect();
    Some((
        Shape::Grid {
            width,
            height,
            wrap_x,
            wrap_y,
        },
        positions,
        wraps,
    ))
}

fn hypercube(n: u32, wires: &[(u32, u8, u32, u8)]) -> Option<Placed> {
    if !n.is_power_of_two() || n < 2 {
        return None;
    }
    let dimension = n.trailing_zeros();
    for &(a, la, b, lb) in wires {
        if la != lb || u32::from(la) >= dimension || a ^ b != 1 << la {
            return None;
        }
    }
    // Even bits across, odd bits down: each 2D face of the cube is a square of the grid.
    let positions = (0..n)
        .map(|i| {
            let (mut x, mut y) = (0u32, 0u32);
            for bit in 0..dimension {
                let v = (i >> bit) & 1;
                if bit % 2 == 0 {
                    x |= v << (bit / 2);
                } else {
                    y |= v << (bit / 2);
                }
            }
            (x as f32, y as f32)
        })
        .collect();
    Some((Shape::Hypercube { dimension }, positions, vec![]))
}

fn tree(n: u32, wires: &[(u32, u8, u32, u8)]) -> Option<Placed> {
    let mut children: Vec<[Option<u32>; 2]> = vec![[None; 2]; n as usize];
    let mut has_parent = vec![false; n as usize];
    for &w in wires {
        let (parent, child, slot) = match (oriented(w, 1, 0), oriented(w, 2, 0)) {
            (Some((p, c)), _) => (p, c, 0),
            (_, Some((p, c))) => (p, c, 1),
            _ => return None,
        };
        if has_parent[child as usize] || children[parent as usize][slot].is_some() {
            return None;
        }
        has_parent[child as usize] = true;
        children[parent as usize][slot] = Some(child);
    }
    if has_parent[0] || has_parent.iter().skip(1).any(|h| !h) {
        return None;
    }
    // Depth down; leaves left to right in order, each parent over the middle of its children.
    let mut positions = vec![(0.0f32, 0.0f32); n as usize];
    let mut next_leaf = 0.0f32;
    let mut stack = vec![(0u32, 0u32, false)];
    let mut seen = 0;
    while let Some((v, depth, done)) = stack.pop() {
        let kids: Vec<u32> = children[v as usize].iter().flatten().copied().collect();
        if done {
            let x = if kids.is_empty() {
                next_leaf += 1.0;
                next_leaf - 1.0
            } else {
                kids.iter().map(|&k| positions[k as usize].0).sum::<f32>() / kids.len() as f32
            };
            positions[v as usize] = (x, depth as f32);
            continue;
        }
        seen += 1;
        if seen > n {
            return None;
        }
        stack.push((v, depth, true));
        for &k in kids.iter().rev() {
            stack.push((k, depth + 1, false));
        }
    }
    (seen == n).then_some((Shape::Tree, positions, vec![]))
}

/// The most vertices laid out by force: each step of the simulation is quadratic, so larger
/// graphs (a trace of 300,000 threads) are placed on a square grid in index order instead.
pub const MAX_FORCE_VERTICES: usize = 2_000;

/// A force-directed layout of `n` vertices joined by `edges`, from a circle: deterministic.
fn force_layout(n: usize, edges: &[(u32, u32)]) -> Vec<(f32, f32)> {
    use force_graph::{EdgeData, ForceGraph, NodeData};
    if n <= 2 {
        return (0..n).map(|i| (i as f32, 0.0)).collect();
    }
    if n > MAX_FORCE_VERTICES {
        let side = (n as f64).sqrt().ceil() as usize;
        return (0..n)
            .map(|i| ((i % side) as f32, (i / side) as f32))
            .collect();
    }
    let mut graph: ForceGraph<usize, ()> = ForceGraph::new(Default::default());
    let radius = 40.0 * n as f32;
    let ids: Vec<_> = (0..n)
        .map(|i| {
            let angle = std::f32::consts::TAU * i as f32 / n as f32;
            graph.add_node(NodeData {
                x: radius * angle.sin(),
                y: -radius * angle.cos(),
                user_data: i,
                ..Default::default()
            })
        })
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for &(a, b) in edges {
        if a != b && seen.insert((a.min(b), a.max(b))) {
            graph.add_edge(ids[a as usize], ids[b as usize], EdgeData::default());
        }
    }
    // The simulation is quadratic per step: fewer steps for larger graphs.
    let steps = (200_000 / (n * n).max(1)).clamp(20, 400);
    for _ in 0..steps {
        graph.update(0.02);
    }
    let mut positions = vec![(0.0, 0.0); n];
    graph.visit_nodes(|node| positions[node.data.user_data] = (node.x(), node.y()));
    positions
}

/// Scales the positions into the unit square, keeping their aspect.
fn normalise(vertices: &mut [Vertex]) {
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for v in vertices.iter() {
        x0 = x0.min(v.x);
        y0 = y0.min(v.y);
        x1 = x1.max(v.x);
        y1 = y1.max(v.y);
    }
    let span = (x1 - x0).max(y1 - y0);
    if !span.is_finite() || span <= 0.0 {
        for v in vertices.iter_mut() {
            v.x = 0.5;
            v.y = 0.5;
        }
        return;
    }
    // Centre the shorter side.
    let (dx, dy) = ((span - (x1 - x0)) / 2.0, (span - (y1 - y0)) / 2.0);
    for v in vertices.iter_mut() {
        v.x = (v.x - x0 + dx) / span;
        v.y = (v.y - y0 + dy) / span;
    }
}

/// The communication graph of a trace without links.
fn communication(trace: &Trace, pairing: &Pairing) -> Topology {
    let used: std::collections::BTreeSet<u32> = trace.processes.iter().map(|p| p.node.0).collect();
    let by_node = used.len() > 1;
    let mut vertices: Vec<Vertex> = Vec::new();
    let mut vertex_of_process = vec![0u32; trace.processes.len()];
    if by_node {
        let mut index: BTreeMap<u32, u32> = BTreeMap::new();
        for (i, p) in trace.processes.iter().enumerate() {
            let v = *index.entry(p.node.0).or_insert_with(|| {
                vertices.push(Vertex {
                    label: trace
                        .nodes
                        .get(p.node.index())
                        .map_or_else(|| format!("node {}", p.node.0), |n| n.name.clone()),
                    node: p.node,
                    process: None,
                    processes: Vec::new(),
                    x: 0.0,
                    y: 0.0,
                });
                vertices.len() as u32 - 1
            });
            vertices[v as usize].processes.push(ProcessId(i as u32));
            vertex_of_process[i] = v;
        }
    } else {
        for (i, p) in trace.processes.iter().enumerate() {
            vertices.push(Vertex {
                label: p.name.clone(),
                node: p.node,
                process: Some(ProcessId(i as u32)),
                processes: vec![ProcessId(i as u32)],
                x: 0.0,
                y: 0.0,
            });
            vertex_of_process[i] = i as u32;
        }
    }
    let process = trace.events.process();
    let mut pairs: std::collections::BTreeSet<(u32, u32)> = std::collections::BTreeSet::new();
    for m in &pairing.messages {
        let a = vertex_of_process[process[m.send.index()].index()];
        let b = vertex_of_process[process[m.arrival.index()].index()];
        if a != b {
            pairs.insert((a.min(b), a.max(b)));
        }
    }
    let edges: Vec<Edge> = pairs
        .iter()
        .map(|&(a, b)| Edge {
            a,
            b,
            link: None,
            wrap: false,
            messages: [0; 2],
            bytes: [0; 2],
        })
        .collect();
    let pairs: Vec<(u32, u32)> = pairs.into_iter().collect();
    for (v, (x, y)) in force_layout(vertices.len(), &pairs).into_iter().enumerate() {
        vertices[v].x = x;
        vertices[v].y = y;
    }
    normalise(&mut vertices);
    Topology {
        kind: Kind::Communication,
        shape: Shape::Graph,
        vertices,
        edges,
    }
}

/// The load of a topology over time: each vertex's busy fraction and each edge's, per
/// direction, as step functions built once, so that any window or instant costs a binary
/// search per vertex and edge.
#[derive(Debug, Clone)]
pub struct Load {
    vertices: Vec<StepFn>,
    edges: Vec<[StepFn; 2]>,
}

/// The load over one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadFrame {
    /// The window.
    pub start: Time,
    /// The window's end (exclusive); equal to `start` for an instant.
    pub end: Time,
    /// Each vertex's busy fraction, 0 to 1.
    pub vertices: Vec<f32>,
    /// Each edge's busy fraction from a to b and from b to a.
    pub edges: Vec<[f32; 2]>,
}

impl Load {
    /// The load functions of `topology`, a topology of `cx`'s trace: nodes busy as the
    /// analyses count them (samples, else computing spans), processes busy while computing,
    /// links busy as their samples say or while a message is in transit.
    pub fn new(cx: &Context<'_>, topology: &Topology) -> Load {
        let trace = cx.trace;
        let of = topology.vertex_of_process(trace.processes.len());
        let binary = |deltas: Vec<(u64, f64)>| {
            StepFn::from_deltas(deltas).map(|m| if m > 0.0 { 1.0 } else { 0.0 })
        };
        // One pass over the spans, one over the messages, one over the samples.
        let mut computing: Vec<Vec<(u64, f64)>> = vec![Vec::new(); topology.vertices.len()];
        for s in cx.spans.iter().filter(|s| s.state == State::Computing) {
            if let Some(v) = of.get(s.process.index()).copied().flatten() {
                computing[v as usize].extend([(s.start.0, 1.0), (s.end.0, -1.0)]);
            }
        }
        let vertices = topology
            .vertices
            .iter()
            .zip(computing)
            .map(|(v, deltas)| match v.process {
                Some(_) => binary(deltas),
                None => cx.timeline.node_busy(v.node).cloned().unwrap_or_default(),
            })
            .collect();
        let process = trace.events.process();
        let times = trace.events.time();
        let mut in_transit: HashMap<(u32, u32), Vec<(u64, f64)>> = HashMap::new();
        for m in &cx.pairing.messages {
            let (send, arrival) = (m.send.index(), m.arrival.index());
            let from = of.get(process[send].index()).copied().flatten();
            let to = of.get(process[arrival].index()).copied().flatten();
            if let (Some(from), Some(to)) = (from, to)
                && from != to
                && times[arrival] > times[send]
            {
                in_transit
                    .entry((from, to))
                    .or_default()
                    .extend([(times[send].0, 1.0), (times[arrival].0, -1.0)]);
            }
        }
        let mut sampled: HashMap<(u32, Direction), Vec<(u64, f64)>> = HashMap::new();
        for s in &trace.link_samples {
            let u = f64::from(s.sample.utilization);
            sampled
                .entry((s.link.0, s.direction))
                .or_default()
                .extend([(s.sample.start.0, u), (s.sample.end.0, -u)]);
        }
        let mut busy = |link: Option<LinkId>, direction: Direction, from: u32, to: u32| {
            let samples = link.and_then(|l| sampled.remove(&(l.0, direction)));
            match samples {
                Some(deltas) => StepFn::from_deltas(deltas),
                None => binary(in_transit.get(&(from, to)).cloned().unwrap_or_default()),
            }
        };
        let edges = topology
            .edges
            .iter()
            .map(|e| {
                [
                    busy(e.link, Direction::AToB, e.a, e.b),
                    busy(e.link, Direction::BToA, e.b, e.a),
                ]
            })
            .collect();
        Load { vertices, edges }
    }

    /// The mean load over [start, end), or at the instant `start` when `end` ≤ `start`.
    pub fn frame(&self, start: Time, end: Time) -> LoadFrame {
        let over = |f: &StepFn| -> f32 {
            if end.0 > start.0 {
                mean(f, start.0, end.0)
            } else {
                // The instant is the tick [start, start + 1); at the clock's last tick, the
                // tick before it.
                let at = start.0.min(u64::MAX - 1);
                f.pieces(at, at + 1)
                    .next()
                    .map_or(0.0, |(_, _, v)| v.clamp(0.0, 1.0) as f32)
            }
        };
        LoadFrame {
            start,
            end,
            vertices: self.vertices.iter().map(over).collect(),
            edges: self
                .edges
                .iter()
                .map(|[ab, ba]| [over(ab), over(ba)])
                .collect(),
        }
    }

    /// One vertex's mean load over [start, end) (0 for an empty window or no such vertex).
    pub fn vertex(&self, v: usize, start: Time, end: Time) -> f32 {
        match self.vertices.get(v) {
            Some(f) => mean(f, start.0, end.0),
            None => 0.0,
        }
    }

    /// An edge's load over [start, end) in `buckets` equal slices (Tmon's link view), each
    /// direction.
    pub fn strip(&self, edge: usize, start: Time, end: Time, buckets: usize) -> Vec<[f32; 2]> {
        let Some([ab, ba]) = self.edges.get(edge) else {
            return Vec::new();
        };
        let len = end.0.saturating_sub(start.0);
        let buckets = buckets.max(1);
        (0..buckets)
            .map(|k| {
                // In 128 bits: a window near 2^64 ticks times a bucket number overflows 64.
                let at = |k: u64| {
                    let offset = u128::from(len) * u128::from(k) / buckets as u128;
                    start
                        .0
                        .saturating_add(u64::try_from(offset).unwrap_or(u64::MAX))
                };
                let (a, b) = (at(k as u64), at(k as u64 + 1));
                [mean(ab, a, b), mean(ba, a, b)]
            })
            .collect()
    }
}

/// A load function's mean over [a, b), from 0 to 1 (0 for an empty window).
fn mean(f: &StepFn, a: u64, b: u64) -> f32 {
    if b > a {
        (f.integral(a, b) / (b - a) as f64).clamp(0.0, 1.0) as f32
    } else {
        0.0
    }
}
