//! Synthetic traces of any size, for benchmarks and for exercising views at scale.

use crate::model::{EventKind, EventRecord, ProcessId, Trace, TraceBuilder};
use crate::time::{Clock, Time};

/// A ring of `n_processes` processes (one per node) with about `n_events` events: in each round
/// every process sends to its right neighbour, receives from its left one, and records a probe,
/// so one message is sent per four events. Times are nanoseconds.
pub fn ring(n_processes: u32, n_events: usize) -> Trace {
    let n_processes = n_processes.max(2);
    let rounds = (n_events / (4 * n_processes as usize)).max(1) as u64;
    let mut b = TraceBuilder::new(
        format!("ring of {n_processes}, {n_events} events"),
        Clock::NANOSECONDS,
    );
    for p in 0..n_processes {
        let node = b.add_node(format!("node {p}"));
        // Nodes were just declared, so placing a process on one cannot fail.
        let _ = b.add_process(format!("rank {p}"), node);
    }
    let phase = b.intern("iteration");
    b.reserve_events(rounds as usize * 4 * n_processes as usize + 2 * n_processes as usize);
    let push = |b: &mut TraceBuilder, p: u32, t: u64, kind, peer: Option<u32>| {
        let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
        r.peer = peer.map(ProcessId);
        r.size = if peer.is_some() { 4096 } else { 0 };
        r.text = (kind == EventKind::Probe).then_some(phase);
        let _ = b.push(r);
    };
    for p in 0..n_processes {
        push(&mut b, p, 0, EventKind::ProcInit, None);
    }
    for round in 0..rounds {
        let base = round * 100;
        for p in 0..n_processes {
            let right = (p + 1) % n_processes;
            let left = (p + n_processes - 1) % n_processes;
            // Uneven work per process, so the critical path moves around the ring.
            let work = u64::from((p * 7 + round as u32 * 3) % 11);
            push(&mut b, p, base + 10 + work, EventKind::MsgSend, Some(right));
            push(&mut b, p, base + 25, EventKind::RecvCall, None);
            push(
                &mut b,
                p,
                base + 40 + work / 2,
                EventKind::MsgArr,
                Some(left),
            );
            push(&mut b, p, base + 60, EventKind::Probe, None);
        }
    }
    for p in 0..n_processes {
        push(&mut b, p, rounds * 100 + 10, EventKind::ProcExit, None);
    }
    b.build()
}
