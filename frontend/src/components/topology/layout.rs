//! The topology view's layout: from the laid-out topology, its load over the window (or at the
//! replay clock) and the canvas's size, a display list for the Gantt chart's painter and the
//! targets a pointer can hit. Pure, so it is tested natively.
//!
//! A vertex is a disc coloured by its CPU load; an edge is two lanes, one per direction (each
//! on the right of its travel), coloured and widened by that direction's load; an edge that
//! closes a ring, row or column is drawn as two stubs leaving the grid. Labels are thinned to
//! at most [`MAX_LABELS`] (the pointer names every vertex).

use shared::view::topology::{LoadFrame, Topology};

use crate::components::gantt::axis;
use crate::components::gantt::scene::draw::DrawItem;

/// A sequential colour scale from idle to fully busy (ColorBrewer YlOrRd, 9 classes).
pub const SCALE: [&str; 9] = [
    "#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#bd0026",
    "#800026",
];

/// The colour of an edge that carried nothing in the window.
pub const IDLE_EDGE: &str = "#c8ccd2";
/// Outlines and text.
const INK: &str = "#333333";
/// The selection's colour.
pub const SELECTED: &str = "#1f77b4";
/// A message in transit.
pub const DOT: &str = "#1f1f1f";

/// The most vertex labels drawn.
pub const MAX_LABELS: usize = 64;

/// Space around the drawing, in CSS pixels: left, top, right (for labels), bottom (legend).
const MARGIN: (f64, f64, f64, f64) = (36.0, 24.0, 110.0, 56.0);

/// The colour of a load from 0 to 1.
pub fn load_color(load: f32) -> &'static str {
    let k = (load.clamp(0.0, 1.0) * SCALE.len() as f32) as usize;
    SCALE[k.min(SCALE.len() - 1)]
}

/// The colour of a lane that carried something: the darker part of the scale, so that a
/// lightly used link still stands out from an idle one.
pub fn lane_color(load: f32) -> &'static str {
    const FIRST: usize = 3;
    let n = SCALE.len() - FIRST;
    let k = (load.clamp(0.0, 1.0) * n as f32) as usize;
    SCALE[FIRST + k.min(n - 1)]
}

/// What a pointer can pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// A vertex, by index.
    Vertex(u32),
    /// An edge, by index.
    Edge(u32),
}

/// A message in transit on an edge: `progress` from 0 (sent) to 1 (arrived).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dot {
    /// The edge.
    pub edge: u32,
    /// Whether it travels from the edge's `a` to its `b`.
    pub forward: bool,
    /// How far it has come, 0 to 1.
    pub progress: f64,
}

/// A message on an edge: sent and arrived (ticks), and which way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transit {
    /// When it was sent.
    pub send: u64,
    /// When it arrived.
    pub arrival: u64,
    /// The edge it travels.
    pub edge: u32,
    /// Whether it goes from the edge's `a` to its `b`.
    pub forward: bool,
}

/// The most messages drawn in flight at once.
pub const MAX_DOTS: usize = 2_000;

/// Every message that travels an edge of `topology`, by send time, and the longest transit.
pub fn transits(
    trace: &shared::Trace,
    pairing: &shared::graph::pairing::Pairing,
    topology: &Topology,
) -> (Vec<Transit>, u64) {
    let of = topology.vertex_of_process(trace.processes.len());
    let mut edge_of = std::collections::HashMap::new();
    for (i, e) in topology.edges.iter().enumerate() {
        edge_of.entry((e.a, e.b)).or_insert((i as u32, true));
        edge_of.entry((e.b, e.a)).or_insert((i as u32, false));
    }
    let process = trace.events.process();
    let time = trace.events.time();
    let mut list: Vec<Transit> = pairing
        .messages
        .iter()
        .filter_map(|m| {
            let from = of.get(process[m.send.index()].index()).copied().flatten()?;
            let to = of
                .get(process[m.arrival.index()].index())
                .copied()
                .flatten()?;
            let &(edge, forward) = edge_of.get(&(from, to))?;
            let (send, arrival) = (time[m.send.index()].0, time[m.arrival.index()].0);
            (arrival > send).then_some(Transit {
                send,
                arrival,
                edge,
                forward,
            })
        })
        .collect();
    list.sort_unstable_by_key(|t| (t.send, t.arrival));
    let longest = list.iter().map(|t| t.arrival - t.send).max().unwrap_or(0);
    (list, longest)
}

/// The messages in flight at tick `t` (sent at or before it, arriving after it), at most
/// [`MAX_DOTS`]: only those sent within the longest transit before `t` are looked at.
pub fn dots_at(transits: &[Transit], longest: u64, t: u64) -> Vec<Dot> {
    let first = transits.partition_point(|x| x.send < t.saturating_sub(longest));
    transits[first..]
        .iter()
        .take_while(|x| x.send <= t)
        .filter(|x| x.arrival > t)
        .take(MAX_DOTS)
        .map(|x| Dot {
            edge: x.edge,
            forward: x.forward,
            progress: (t - x.send) as f64 / (x.arrival - x.send) as f64,
        })
        .collect()
}

/// Where the vertices are on the canvas.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    /// Each vertex's centre.
    pub centres: Vec<(f64, f64)>,
    /// The vertices' radius.
    pub radius: f64,
    /// The canvas's size.
    pub size: (f64, f64),
}

/// Places `topology`'s unit-square positions on a `width` × `height` canvas, keeping their
/// aspect, with room for labels and the legend.
pub fn place(topology: &Topology, width: f64, height: f64) -> Placement {
    let n = topology.vertices.len().max(1) as f64;
    let (left, top, right, bottom) = MARGIN;
    let side = (width - left - right).min(height - top - bottom).max(10.0);
    let radius = (side / n.sqrt() / 5.0).clamp(4.0, 18.0);
    let x0 = left + ((width - left - right - side) / 2.0).max(0.0) + radius;
    let y0 = top + radius;
    let span = side - 2.0 * radius;
    Placement {
        centres: topology
            .vertices
            .iter()
            .map(|v| (x0 + f64::from(v.x) * span, y0 + f64::from(v.y) * span))
            .collect(),
        radius,
        size: (width, height),
    }
}

/// A vertex's short label: the whole name in a small network, else its last word (`#12`).
fn short_label(label: &str, n: usize) -> &str {
    if n <= 16 {
        label
    } else {
        label.rsplit(' ').next().unwrap_or(label)
    }
}

/// The unit normal of the line from `a` to `b` (to the right of travel, y down).
fn normal(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt();
    if len == 0.0 {
        (0.0, 0.0)
    } else {
        (-dy / len, dx / len)
    }
}

/// Where an edge is drawn: from and to, for each direction's lane (stubs for a wrapping edge).
fn lanes(topology: &Topology, p: &Placement, edge: usize) -> [((f64, f64), (f64, f64)); 2] {
    let e = &topology.edges[edge];
    let (a, b) = (p.centres[e.a as usize], p.centres[e.b as usize]);
    if e.wrap {
        // Each end leaves the grid away from the other end.
        let stub = 2.5 * p.radius + 10.0;
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt().max(1e-9);
        let (ux, uy) = (dx / len, dy / len);
        return [
            (a, (a.0 - ux * stub, a.1 - uy * stub)),
            (b, (b.0 + ux * stub, b.1 + uy * stub)),
        ];
    }
    // From the edge of one disc to the edge of the other, so that what travels is seen.
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt();
    let trim = if len > 2.0 * p.radius + 4.0 {
        p.radius / len
    } else {
        0.0
    };
    let (a, b) = (
        (a.0 + dx * trim, a.1 + dy * trim),
        (b.0 - dx * trim, b.1 - dy * trim),
    );
    let (nx, ny) = normal(a, b);
    let off = 2.5;
    [
        (
            (a.0 + nx * off, a.1 + ny * off),
            (b.0 + nx * off, b.1 + ny * off),
        ),
        (
            (b.0 - nx * off, b.1 - ny * off),
            (a.0 - nx * off, a.1 - ny * off),
        ),
    ]
}

/// The display list: edges, then vertices and their labels, then messages in transit on top,
/// then the legend. `frame` is the load to colour by (`None`: not known yet, all idle).
pub fn scene(
    topology: &Topology,
    frame: Option<&LoadFrame>,
    p: &Placement,
    selected: Option<Pick>,
    dots: &[Dot],
) -> Vec<DrawItem> {
    let mut items = Vec::new();
    let n = topology.vertices.len();
    for i in 0..topology.edges.len() {
        let load = frame
            .and_then(|f| f.edges.get(i))
            .copied()
            .unwrap_or([0.0; 2]);
        let lanes = lanes(topology, p, i);
        if selected == Some(Pick::Edge(i as u32)) {
            for (from, to) in lanes {
                items.push(DrawItem::Line {
                    x1: from.0,
                    y1: from.1,
                    x2: to.0,
                    y2: to.1,
                    color: SELECTED,
                    width: 9.0,
                });
            }
        }
        for (d, (from, to)) in lanes.into_iter().enumerate() {
            let u = load[d];
            let (color, width) = if u > 0.0 {
                (lane_color(u), 2.0 + 4.0 * f64::from(u))
            } else {
                (IDLE_EDGE, 1.5)
            };
            items.push(DrawItem::Line {
                x1: from.0,
                y1: from.1,
                x2: to.0,
                y2: to.1,
                color,
                width,
            });
        }
    }
    let every = n.div_ceil(MAX_LABELS).max(1);
    for v in 0..n {
        let (x, y) = p.centres[v];
        let load = frame
            .and_then(|f| f.vertices.get(v))
            .copied()
            .unwrap_or(0.0);
        items.push(DrawItem::Disc {
            x,
            y,
            r: p.radius,
            color: load_color(load),
        });
        let picked = selected == Some(Pick::Vertex(v as u32));
        items.push(DrawItem::Ring {
            x,
            y,
            r: p.radius,
            color: if picked { SELECTED } else { INK },
            width: if picked { 3.0 } else { 1.0 },
        });
    }
    // Labels over every disc, each on a white ground so that a neighbour never hides it.
    for (v, vertex) in topology.vertices.iter().enumerate() {
        let picked = selected == Some(Pick::Vertex(v as u32));
        if v % every == 0 || picked {
            let (x, y) = p.centres[v];
            let text = short_label(&vertex.label, n).to_owned();
            let (lx, ly) = (x + p.radius * 0.7 + 2.0, y - p.radius - 6.0);
            items.push(DrawItem::Rect {
                x: lx - 2.0,
                y: ly - 7.0,
                w: axis::label_px(&text) + 4.0,
                h: 14.0,
                color: "#ffffff",
            });
            items.push(DrawItem::Text {
                x: lx,
                y: ly,
                text,
                color: INK,
                align_right: false,
            });
        }
    }
    for dot in dots {
        let Some(lanes) = (dot.edge as usize)
            .lt(&topology.edges.len())
            .then(|| lanes(topology, p, dot.edge as usize))
        else {
            continue;
        };
        let (from, to) = if dot.forward { lanes[0] } else { lanes[1] };
        let t = dot.progress.clamp(0.0, 1.0);
        let (x, y) = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        items.push(DrawItem::Disc {
            x,
            y,
            r: 4.5,
            color: DOT,
        });
        items.push(DrawItem::Ring {
            x,
            y,
            r: 4.5,
            color: "#ffffff",
            width: 1.0,
        });
    }
    legend(&mut items, p);
    items
}

/// The colour scale, bottom left.
fn legend(items: &mut Vec<DrawItem>, p: &Placement) {
    let (x0, y) = (MARGIN.0, p.size.1 - 26.0);
    items.push(DrawItem::Text {
        x: x0,
        y: y - 14.0,
        text: "CPU and link load".to_owned(),
        color: INK,
        align_right: false,
    });
    for (k, color) in SCALE.iter().enumerate() {
        items.push(DrawItem::Rect {
            x: x0 + 22.0 * k as f64,
            y,
            w: 22.0,
            h: 10.0,
            color,
        });
    }
    let end = x0 + 22.0 * SCALE.len() as f64;
    items.push(DrawItem::Text {
        x: x0,
        y: y + 19.0,
        text: "0 %".to_owned(),
        color: INK,
        align_right: false,
    });
    items.push(DrawItem::Text {
        x: end,
        y: y + 19.0,
        text: "100 %".to_owned(),
        color: INK,
        align_right: true,
    });
}

/// The distance from `q` to the segment from `a` to `b`.
fn to_segment(q: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((q.0 - a.0) * dx + (q.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    };
    let (x, y) = (a.0 + t * dx, a.1 + t * dy);
    ((q.0 - x).powi(2) + (q.1 - y).powi(2)).sqrt()
}

/// What is under the pointer at `(x, y)`: the nearest vertex within its disc (and 3 px), else
/// the nearest edge within 6 px.
pub fn hit(topology: &Topology, p: &Placement, x: f64, y: f64) -> Option<Pick> {
    let nearest_vertex = p
        .centres
        .iter()
        .enumerate()
        .map(|(v, c)| (v, ((c.0 - x).powi(2) + (c.1 - y).powi(2)).sqrt()))
        .filter(|&(_, d)| d <= p.radius + 3.0)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((v, _)) = nearest_vertex {
        return Some(Pick::Vertex(v as u32));
    }
    (0..topology.edges.len())
        .map(|i| {
            let d = lanes(topology, p, i)
                .iter()
                .map(|&(a, b)| to_segment((x, y), a, b))
                .fold(f64::MAX, f64::min);
            (i, d)
        })
        .filter(|&(_, d)| d <= 6.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| Pick::Edge(i as u32))
}

#[cfg(test)]
mod tests {
    use shared::model::time::Time;
    use shared::model::{NodeId, ProcessId};
    use shared::view::topology::{Edge, Kind, Shape, Vertex};

    use super::*;

    /// A square of four vertices, joined around, with 0–3 wrapping.
    fn square(n_extra: usize) -> Topology {
        let corners = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let mut vertices: Vec<Vertex> = corners
            .iter()
            .enumerate()
            .map(|(i, &(x, y))| Vertex {
                label: format!("T800 #{i}"),
                node: NodeId(i as u32),
                process: None,
                processes: vec![ProcessId(i as u32)],
                x,
                y,
            })
            .collect();
        for k in 0..n_extra {
            vertices.push(Vertex {
                label: format!("T800 #{}", 4 + k),
                node: NodeId(4 + k as u32),
                process: None,
                processes: vec![],
                x: 0.5,
                y: (k as f32 + 1.0) / (n_extra as f32 + 2.0),
            });
        }
        let edge = |a: u32, b: u32, wrap: bool| Edge {
            a,
            b,
            link: None,
            wrap,
            messages: [0; 2],
            bytes: [0; 2],
        };
        Topology {
            kind: Kind::Network,
            shape: Shape::Graph,
            vertices,
            edges: vec![
                edge(0, 1, false),
                edge(1, 2, false),
                edge(2, 3, false),
                edge(3, 0, true),
            ],
        }
    }

    fn frame(vertices: Vec<f32>, edges: Vec<[f32; 2]>) -> LoadFrame {
        LoadFrame {
            start: Time(0),
            end: Time(10),
            vertices,
            edges,
        }
    }

    #[test]
    fn vertices_are_coloured_by_their_load_and_lanes_by_their_directions() {
        let t = square(0);
        let p = place(&t, 800.0, 600.0);
        let f = frame(
            vec![0.0, 0.5, 1.0, 0.2],
            vec![[1.0, 0.0], [0.0; 2], [0.0; 2], [0.0; 2]],
        );
        let items = scene(&t, Some(&f), &p, None, &[]);
        let discs: Vec<&'static str> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Disc { color, .. } => Some(*color),
                _ => None,
            })
            .collect();
        assert_eq!(discs, vec![SCALE[0], SCALE[4], SCALE[8], SCALE[1]]);
        // Edge 0's lane from a to b is busy and wide, its other lane idle.
        let lines: Vec<(&'static str, f64)> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Line { color, width, .. } => Some((*color, *width)),
                _ => None,
            })
            .collect();
        assert_eq!(lines[0], (SCALE[8], 6.0));
        assert_eq!(lines[1], (IDLE_EDGE, 1.5));
        // Everything inside the canvas.
        for &(x, y) in &p.centres {
            assert!((0.0..800.0).contains(&x) && (0.0..600.0).contains(&y));
        }
    }

    #[test]
    fn a_wrapping_edge_leaves_the_grid_at_both_ends() {
        let t = square(0);
        let p = place(&t, 800.0, 600.0);
        let [(a0, a1), (b0, b1)] = lanes(&t, &p, 3);
        // Vertex 3 is bottom left, vertex 0 top left: the stubs go down from 3 and up from 0.
        assert_eq!(a0, p.centres[3]);
        assert!(a1.1 > a0.1, "{a1:?} below {a0:?}");
        assert_eq!(b0, p.centres[0]);
        assert!(b1.1 < b0.1, "{b1:?} above {b0:?}");
    }

    #[test]
    fn the_pointer_picks_vertices_then_edges() {
        let t = square(0);
        let p = place(&t, 800.0, 600.0);
        let (c0, c1) = (p.centres[0], p.centres[1]);
        assert_eq!(hit(&t, &p, c0.0 + 1.0, c0.1), Some(Pick::Vertex(0)));
        let mid = ((c0.0 + c1.0) / 2.0, (c0.1 + c1.1) / 2.0);
        assert_eq!(hit(&t, &p, mid.0, mid.1 + 2.0), Some(Pick::Edge(0)));
        let centre = ((c0.0 + c1.0) / 2.0, (c0.1 + p.centres[3].1) / 2.0);
        assert_eq!(hit(&t, &p, centre.0, centre.1), None);
    }

    #[test]
    fn labels_are_thinned_on_a_large_network() {
        let t = square(252);
        let p = place(&t, 1200.0, 900.0);
        let items = scene(&t, None, &p, Some(Pick::Vertex(5)), &[]);
        let labels: Vec<&str> = items
            .iter()
            .filter_map(|i| match i {
                DrawItem::Text { text, .. } if text.starts_with('#') => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(labels.len() <= MAX_LABELS + 1, "{}", labels.len());
        assert!(
            labels.contains(&"#5"),
            "the selected vertex is always named"
        );
        assert!(p.radius >= 4.0);
    }

    #[test]
    fn the_messages_in_flight_are_those_sent_and_not_yet_arrived() {
        let transit = |send, arrival, edge| Transit {
            send,
            arrival,
            edge,
            forward: true,
        };
        let list = [transit(0, 100, 0), transit(10, 20, 1), transit(50, 60, 2)];
        let at = |t| -> Vec<(u32, f64)> {
            dots_at(&list, 100, t)
                .iter()
                .map(|d| (d.edge, d.progress))
                .collect()
        };
        assert_eq!(at(15), vec![(0, 0.15), (1, 0.5)]);
        assert_eq!(at(20), vec![(0, 0.2)], "arrived at 20");
        assert_eq!(at(55), vec![(0, 0.55), (2, 0.5)]);
        assert_eq!(at(100), vec![]);
    }

    #[test]
    fn a_dot_travels_along_its_lane() {
        let t = square(0);
        let p = place(&t, 800.0, 600.0);
        let dots = [Dot {
            edge: 0,
            forward: true,
            progress: 0.5,
        }];
        let items = scene(&t, None, &p, None, &dots);
        let dot = items
            .iter()
            .find_map(|i| match i {
                DrawItem::Disc { x, y, color, .. } if *color == DOT => Some((*x, *y)),
                _ => None,
            })
            .expect("a dot");
        let (c0, c1) = (p.centres[0], p.centres[1]);
        assert!((dot.0 - (c0.0 + c1.0) / 2.0).abs() < 0.01);
        assert!(
            (dot.1 - c0.1 - 2.5).abs() < 0.01,
            "on the lane right of travel"
        );
    }
}
