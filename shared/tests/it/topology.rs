//! The topology view's model on traces without the emulator: the communication graph of the
//! worked example, its load against the analyses, and a network with the emulator's host.

use shared::analyses::utilization::cpu_utilization;
use shared::graph::context::Context;
use shared::model::time::{Clock, Time};
use shared::model::{Link, LinkEnd, NodeId, TraceBuilder};
use shared::view::topology::{Kind, Load, Shape, Topology};

#[test]
fn the_worked_example_is_drawn_as_its_communication_graph_with_the_analyses_load() {
    let trace = super::load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let view = Topology::new(&trace, &cx.pairing);
    assert_eq!(view.kind, Kind::Communication);
    assert_eq!(view.shape, Shape::Graph);
    // Two nodes, one process each: the nodes are the vertices, joined by their messages.
    assert_eq!(view.vertices.len(), 2);
    assert_eq!(view.edges.len(), 1);
    let e = &view.edges[0];
    assert_eq!(
        e.messages[0] + e.messages[1],
        cx.pairing.messages.len() as u64
    );
    let load = Load::new(&cx, &view);
    let (start, end) = trace.time_bounds().expect("events");
    for window in [(start, end), (start, Time(start.0 + (end.0 - start.0) / 3))] {
        let frame = load.frame(window.0, window.1);
        for (v, vertex) in view.vertices.iter().enumerate() {
            let expected = cpu_utilization(&cx, vertex.node, window).value;
            assert!(
                (f64::from(frame.vertices[v]) - expected).abs() < 1e-6,
                "{v}: {} against {expected}",
                frame.vertices[v]
            );
            assert_eq!(load.vertex(v, window.0, window.1), frame.vertices[v]);
        }
        assert!(frame.edges[0].iter().all(|u| (0.0..=1.0).contains(u)));
    }
    // The strip of the one edge: its mean is the whole window's load.
    let strip = load.strip(0, start, end, 10);
    assert_eq!(strip.len(), 10);
    let whole = load.frame(start, end).edges[0];
    for d in 0..2 {
        let mean = strip.iter().map(|s| s[d]).sum::<f32>() / 10.0;
        assert!(
            (mean - whole[d]).abs() < 0.01,
            "{mean} against {}",
            whole[d]
        );
    }
    assert!(whole.iter().any(|&u| u > 0.0), "messages were in transit");
}

#[test]
fn the_emulators_host_stands_beside_a_recognised_network() {
    let mut b = TraceBuilder::new("pipe", Clock::NANOSECONDS);
    let nodes: Vec<NodeId> = (0..4).map(|i| b.add_node(format!("T800 #{i}"))).collect();
    let host = b.add_node("host");
    let link = |a: NodeId, la: u8, bn: NodeId, lb: u8| Link {
        a: LinkEnd { node: a, link: la },
        b: LinkEnd { node: bn, link: lb },
        bits_per_second: None,
    };
    for i in 0..3 {
        b.add_link(link(nodes[i], 1, nodes[i + 1], 2))
            .expect("link");
    }
    b.add_link(link(nodes[0], 0, host, 0)).expect("host link");
    let trace = b.build();
    let view = Topology::new(&trace, &shared::graph::pairing::pair_messages(&trace));
    assert_eq!(view.shape, Shape::Pipe { n: 4 });
    let (h, n0, n1) = (&view.vertices[4], &view.vertices[0], &view.vertices[1]);
    assert!(h.x < n0.x && n0.x < n1.x, "{h:?} {n0:?} {n1:?}");
    assert_eq!(h.y, n0.y);
}

#[test]
fn a_communication_graph_too_large_for_force_is_placed_on_a_grid() {
    // 3,000 threads on 3,000 nodes, each sending one message to the next: placed in index order.
    let n = 3_000usize;
    let mut b = TraceBuilder::new("many", Clock::NANOSECONDS);
    let processes: Vec<_> = (0..n)
        .map(|i| {
            let node = b.add_node(format!("n{i}"));
            b.add_process(format!("p{i}"), node).expect("process")
        })
        .collect();
    for (i, &p) in processes.iter().enumerate() {
        let next = processes[(i + 1) % n];
        let mut send =
            shared::model::EventRecord::plain(p, Time(1), shared::model::EventKind::MsgSend);
        send.peer = Some(next);
        b.push(send).expect("send");
        let mut arrival =
            shared::model::EventRecord::plain(p, Time(2), shared::model::EventKind::MsgArr);
        arrival.peer = Some(processes[(i + n - 1) % n]);
        b.push(arrival).expect("arrival");
    }
    let trace = b.build();
    let view = Topology::new(&trace, &shared::graph::pairing::pair_messages(&trace));
    assert_eq!(view.vertices.len(), n);
    assert!(n > shared::view::topology::MAX_FORCE_VERTICES);
    // 55 a row: vertex 55 starts the second row.
    let (v0, v1, v55) = (&view.vertices[0], &view.vertices[1], &view.vertices[55]);
    assert_eq!(v0.y, v1.y);
    assert!(v1.x > v0.x);
    assert_eq!(v55.x, v0.x);
    assert!(v55.y > v0.y);
    assert_eq!(view.edges.len(), n);
}
