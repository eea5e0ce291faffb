//! The topology view's layout of every emulator network shape, and its load against the
//! analyses' utilization on a real run.

use shared::graph::context::Context;
use shared::graph::pairing::pair_messages;
use shared::model::time::Time;
use shared::model::{Direction, LinkId, NodeId, Trace};
use shared::view::topology::{Kind, Load, Shape, Topology as View};
use simulator_wasm::network::{Config, Network};
use simulator_wasm::topology::Topology;
use simulator_wasm::trace::to_trace;

/// The trace of an emulated network that has run nothing: its nodes and links.
fn wired(description: &str) -> Trace {
    let topology = Topology::parse(description).unwrap_or_else(|e| panic!("{e}"));
    to_trace(&Network::new(topology, Config::default()), description)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn layout(description: &str) -> View {
    let trace = wired(description);
    View::new(&trace, &pair_messages(&trace))
}

#[test]
fn every_emulator_shape_is_recognised_and_named_as_the_emulator_names_it() {
    for description in [
        "pipe 4",
        "ring 8",
        "mesh 4x4",
        "torus 8x8",
        "cylinder 8x9",
        "hypercube 4",
    ] {
        let view = layout(description);
        assert_eq!(view.kind, Kind::Network, "{description}");
        assert_eq!(view.shape.name(), description);
    }
    assert_eq!(layout("tree 7").shape, Shape::Tree);
    // Wiring that follows none of the shapes' link numbering is laid out by force.
    assert_eq!(
        layout("nodes 4: 0.1-1.1, 1.2-2.3, 2.1-3.0, 3.2-0.3").shape,
        Shape::Graph
    );
}

#[test]
fn a_ring_of_8_is_a_circle() {
    let view = layout("ring 8");
    let centre = (0.5f32, 0.5f32);
    let radii: Vec<f32> = view
        .vertices
        .iter()
        .map(|v| ((v.x - centre.0).powi(2) + (v.y - centre.1).powi(2)).sqrt())
        .collect();
    for r in &radii {
        assert!((r - 0.5).abs() < 1e-4, "{radii:?}");
    }
    // Neighbours are equally far apart: the chord of 45°.
    let chord = (std::f32::consts::PI / 8.0).sin();
    for e in &view.edges {
        let (a, b) = (&view.vertices[e.a as usize], &view.vertices[e.b as usize]);
        let d = ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt();
        assert!((d - chord).abs() < 1e-4, "{d} against {chord}");
    }
}

#[test]
fn the_8_by_9_cylinder_wraps_its_rows_and_not_its_columns() {
    let view = layout("cylinder 8x9");
    assert_eq!(
        view.shape,
        Shape::Grid {
            width: 8,
            height: 9,
            wrap_x: true,
            wrap_y: false
        }
    );
    let wraps: Vec<_> = view.edges.iter().filter(|e| e.wrap).collect();
    assert_eq!(wraps.len(), 9, "one wrapping link per row");
    for e in &wraps {
        let (a, b) = (&view.vertices[e.a as usize], &view.vertices[e.b as usize]);
        assert_eq!(a.y, b.y, "a row's ends");
        assert!((a.x - b.x).abs() > 0.8, "from one side to the other");
    }
    // On its grid: node 9 is column 1 of row 1, one step right of and below node 0.
    let (n0, n9) = (&view.vertices[0], &view.vertices[9]);
    let step = 1.0 / 8.0;
    assert!((n9.x - n0.x - step).abs() < 1e-5 && (n9.y - n0.y - step).abs() < 1e-5);
}

#[test]
fn a_hypercube_of_dimension_4_has_4_links_a_node() {
    let view = layout("hypercube 4");
    assert_eq!(view.vertices.len(), 16);
    let mut degree = vec![0; 16];
    for e in &view.edges {
        degree[e.a as usize] += 1;
        degree[e.b as usize] += 1;
    }
    assert!(degree.iter().all(|&d| d == 4), "{degree:?}");
    // No two nodes on one spot.
    let mut spots: Vec<(u32, u32)> = view
        .vertices
        .iter()
        .map(|v| ((v.x * 1000.0) as u32, (v.y * 1000.0) as u32))
        .collect();
    spots.sort_unstable();
    spots.dedup();
    assert_eq!(spots.len(), 16);
}

#[test]
fn the_same_network_is_laid_out_the_same_every_time() {
    for description in [
        "mesh 4x4",
        "tree 7",
        "nodes 4: 0.1-1.1, 1.2-2.3, 2.1-3.0, 3.2-0.3",
    ] {
        assert_eq!(layout(description), layout(description), "{description}");
    }
    let graph = layout("nodes 4: 0.1-1.1, 1.2-2.3, 2.1-3.0, 3.2-0.3");
    for v in &graph.vertices {
        assert!(
            (0.0..=1.0).contains(&v.x) && (0.0..=1.0).contains(&v.y),
            "{v:?}"
        );
    }
}

#[test]
fn load_over_a_window_is_the_analyses_utilization_on_a_4_by_4_mesh_run() {
    let trace = to_trace(&super::links::mesh_run("mesh 4x4", 4, true), "mesh")
        .unwrap_or_else(|e| panic!("{e}"));
    let cx = Context::new(&trace);
    let view = View::new(&trace, &cx.pairing);
    assert_eq!(view.shape.name(), "mesh 4x4");
    let load = Load::new(&cx, &view);
    let (start, end) = trace.time_bounds().expect("events");
    let mid = Time((start.0 + end.0) / 2);
    for window in [(start, end), (start, mid), (mid, end)] {
        let frame = load.frame(window.0, window.1);
        for (v, vertex) in view.vertices.iter().enumerate() {
            let expected = shared::analyses::utilization::cpu_utilization(&cx, vertex.node, window);
            assert!(
                (f64::from(frame.vertices[v]) - expected.value).abs() < 1e-5,
                "node {v}: {} against {}",
                frame.vertices[v],
                expected.value
            );
        }
        for (i, e) in view.edges.iter().enumerate() {
            let link = e.link.expect("a network's edges are links");
            for (d, direction) in [Direction::AToB, Direction::BToA].into_iter().enumerate() {
                let expected =
                    shared::analyses::utilization::link_utilization(&cx, link, direction, window);
                assert!(
                    (f64::from(frame.edges[i][d]) - expected.value).abs() < 1e-5,
                    "link {i} {direction:?}: {} against {}",
                    frame.edges[i][d],
                    expected.value
                );
            }
        }
    }
    // Messages passed and were counted on the links they crossed.
    let total: u64 = view
        .edges
        .iter()
        .map(|e| e.messages[0] + e.messages[1])
        .sum();
    assert!(total > 0);
    assert_eq!(view.vertices[0].node, NodeId(0));
    assert_eq!(view.edges[0].link, Some(LinkId(0)));
}
