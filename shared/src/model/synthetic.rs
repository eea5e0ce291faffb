//! Synthetic traces of any size, for benchmarks and for exercising views at scale.

use crate::model::time::{Clock, Time};
use crate::model::{EventKind, EventRecord, ProcessId, RegionRole, Trace, TraceBuilder};

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

/// A ring like [`ring`] with `per_node` processes on each node and nested regions: each round is
/// a `step` phase holding a `compute` region up to the send, an `MPI_Recv` region around the
/// receive and a probe: ten events a round, about `n_events` in all.
pub fn ring_on_nodes(n_processes: u32, per_node: u32, n_events: usize) -> Trace {
    let n_processes = n_processes.max(2);
    let per_node = per_node.max(1);
    let per_round = 10 * n_processes as usize;
    let rounds = (n_events / per_round).max(1) as u64;
    let mut b = TraceBuilder::new(
        format!("ring of {n_processes} on nodes of {per_node}, {n_events} events"),
        Clock::NANOSECONDS,
    );
    let mut node = b.add_node("node 0");
    for p in 0..n_processes {
        if p > 0 && p % per_node == 0 {
            node = b.add_node(format!("node {}", p / per_node));
        }
        let _ = b.add_process(format!("rank {p}"), node);
    }
    let step = b.add_region("step", RegionRole::Phase);
    let compute = b.add_region("compute", RegionRole::Activity);
    let recv = b.add_region("MPI_Recv", RegionRole::Communication);
    b.reserve_events(rounds as usize * per_round + 2 * n_processes as usize);
    let push = |b: &mut TraceBuilder, p: u32, t: u64, kind, peer: Option<u32>, region| {
        let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
        r.peer = peer.map(ProcessId);
        r.size = if peer.is_some() { 4096 } else { 0 };
        r.region = region;
        let _ = b.push(r);
    };
    for p in 0..n_processes {
        push(&mut b, p, 0, EventKind::ProcInit, None, None);
    }
    for round in 0..rounds {
        let base = round * 100;
        for p in 0..n_processes {
            let right = (p + 1) % n_processes;
            let left = (p + n_processes - 1) % n_processes;
            let work = u64::from((p * 7 + round as u32 * 3) % 11);
            let events = [
                (base + 1, EventKind::Enter, None, Some(step)),
                (base + 2, EventKind::Enter, None, Some(compute)),
                (base + 10 + work, EventKind::Leave, None, Some(compute)),
                (base + 10 + work, EventKind::MsgSend, Some(right), None),
                (base + 25, EventKind::Enter, None, Some(recv)),
                (base + 25, EventKind::RecvCall, None, None),
                (base + 40 + work / 2, EventKind::MsgArr, Some(left), None),
                (base + 40 + work / 2, EventKind::Leave, None, Some(recv)),
                (base + 50, EventKind::Probe, None, None),
                (base + 60, EventKind::Leave, None, Some(step)),
            ];
            for (t, kind, peer, region) in events {
                push(&mut b, p, t, kind, peer, region);
            }
        }
    }
    for p in 0..n_processes {
        push(
            &mut b,
            p,
            rounds * 100 + 10,
            EventKind::ProcExit,
            None,
            None,
        );
    }
    b.build()
}

/// A GoVector (ShiViz) log of `hosts` hosts passing a token round a ring `rounds` times: each
/// event merges the clock of the previous host's last event and ticks its own, so after one
/// round every clock holds every host (dense clocks: `rounds · hosts` events, up to
/// `rounds · hosts²` clock entries). The event after the first has one parent each: the
/// previous host's last event.
pub fn govector_token_ring(hosts: usize, rounds: usize) -> String {
    let mut clocks: Vec<Vec<u64>> = vec![vec![0; hosts]; hosts];
    let mut out = String::new();
    for _ in 0..rounds {
        for i in 0..hosts {
            let from = clocks[(i + hosts - 1) % hosts].clone();
            let mine = &mut clocks[i];
            for (m, f) in mine.iter_mut().zip(&from) {
                *m = (*m).max(*f);
            }
            mine[i] += 1;
            let entries: Vec<String> = mine
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(h, c)| format!("\"h{h}\":{c}"))
                .collect();
            out.push_str(&format!("h{i} {{{}}}\nstep\n", entries.join(",")));
        }
    }
    out
}
