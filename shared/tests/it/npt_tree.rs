//! Quartz's NPT as a tree, process → region → phase, inclusive and exclusive (issue 20): the
//! values hand-computed on a small trace, and the tree agreeing with the flat rankings.

use shared::analyses::metrics::{Npt, NptBranch, npt_in};
use shared::graph::context::Context;
use shared::model::{EventKind, EventRecord, ProcessId, RegionRole, TraceBuilder};
use shared::{Clock, Time, Trace};

/// One process alone on its node, so NPT = elapsed computation:
///
/// ```text
/// 0  enter outer      probe "read" at 0
/// 2  enter inner
/// 5  probe "solve"
/// 9  leave inner
/// 12 leave outer
/// 15 exit
/// ```
/// outer: inclusive 12 (read 5, solve 7), exclusive 2 + 3 = 5 (read 2, solve 3);
/// inner: inclusive = exclusive 7 (read 3, solve 4); outside regions 3 (solve).
fn nested_phases() -> Trace {
    let mut b = TraceBuilder::new("nested phases", Clock::default());
    let node = b.add_node("n0");
    b.add_process("P", node).expect("node");
    let outer = b.add_region("outer", RegionRole::Activity);
    let inner = b.add_region("inner", RegionRole::Activity);
    let read = b.intern("read");
    let solve = b.intern("solve");
    let mut push = |t: u64, kind: EventKind, f: &dyn Fn(&mut EventRecord)| {
        let mut r = EventRecord::plain(ProcessId(0), Time(t), kind);
        f(&mut r);
        b.push(r).expect("valid event");
    };
    push(0, EventKind::ProcInit, &|_| {});
    push(0, EventKind::Probe, &|r| r.text = Some(read));
    push(0, EventKind::Enter, &|r| r.region = Some(outer));
    push(2, EventKind::Enter, &|r| r.region = Some(inner));
    push(5, EventKind::Probe, &|r| r.text = Some(solve));
    push(9, EventKind::Leave, &|r| r.region = Some(inner));
    push(12, EventKind::Leave, &|r| r.region = Some(outer));
    push(15, EventKind::ProcExit, &|_| {});
    b.build()
}

/// (name, inclusive, exclusive) of a branch's children.
fn level(branch: &NptBranch) -> Vec<(&str, f64, f64)> {
    branch
        .children
        .iter()
        .map(|c| (c.name.as_str(), c.inclusive, c.exclusive))
        .collect()
}

fn whole(trace: &Trace) -> Npt {
    npt_in(&Context::new(trace), (0, u64::MAX), &|_| true)
}

#[test]
fn the_tree_splits_each_region_by_phase_inclusive_and_exclusive() {
    let trace = nested_phases();
    let npt = whole(&trace);
    let [p] = npt.tree.as_slice() else {
        panic!("one process, got {:?}", npt.tree);
    };
    assert_eq!(
        (p.name.as_str(), p.inclusive, p.exclusive),
        ("P", 15.0, 3.0)
    );
    // The time outside every region is a row of its own, split by phase like a region.
    assert_eq!(
        level(p),
        [
            ("outer", 12.0, 5.0),
            ("inner", 7.0, 7.0),
            ("(outside regions)", 3.0, 3.0)
        ]
    );
    assert_eq!(
        level(&p.children[0]),
        [("solve", 7.0, 3.0), ("read", 5.0, 2.0)]
    );
    assert_eq!(
        level(&p.children[1]),
        [("solve", 4.0, 4.0), ("read", 3.0, 3.0)]
    );
    assert_eq!(level(&p.children[2]), [("solve", 3.0, 3.0)]);
}

#[test]
fn a_window_clips_the_tree() {
    let trace = nested_phases();
    let npt = npt_in(&Context::new(&trace), (4, 10), &|_| true);
    let p = &npt.tree[0];
    // 4..10: outer 4..10 (inner 4..9, solve from 5), outside none.
    assert_eq!((p.inclusive, p.exclusive), (6.0, 0.0));
    assert_eq!(level(p), [("outer", 6.0, 1.0), ("inner", 5.0, 5.0)]);
    assert_eq!(
        level(&p.children[1]),
        [("solve", 4.0, 4.0), ("read", 1.0, 1.0)]
    );
}

/// Every level adds up, and the tree's sums are the flat rankings.
fn check_consistent(npt: &Npt) {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(1.0);
    let mut inclusive = std::collections::HashMap::<u32, f64>::new();
    let mut exclusive = std::collections::HashMap::<u32, f64>::new();
    for p in &npt.tree {
        let flat = npt.processes.iter().find(|s| s.id == p.id).expect("ranked");
        assert!(close(flat.weight, p.inclusive), "{} {flat:?}", p.name);
        let (regions, outside): (Vec<&NptBranch>, Vec<&NptBranch>) =
            p.children.iter().partition(|r| r.id.is_some());
        let inside: f64 = regions.iter().map(|r| r.exclusive).sum();
        let outside: f64 = outside.iter().map(|r| r.exclusive).sum();
        assert!(close(outside, p.exclusive), "process {}", p.name);
        assert!(
            close(p.exclusive + inside, p.inclusive),
            "process {}",
            p.name
        );
        for r in &p.children {
            assert!(r.exclusive <= r.inclusive + 1e-9, "region {}", r.name);
            let (i, e): (f64, f64) = r
                .children
                .iter()
                .fold((0.0, 0.0), |(i, e), c| (i + c.inclusive, e + c.exclusive));
            assert!(
                close(i, r.inclusive) && close(e, r.exclusive),
                "region {}",
                r.name
            );
            if let Some(id) = r.id {
                *inclusive.entry(id).or_default() += r.inclusive;
                *exclusive.entry(id).or_default() += r.exclusive;
            }
        }
    }
    for s in &npt.regions_inclusive {
        assert!(close(inclusive[&s.id.expect("id")], s.weight), "{}", s.name);
    }
    for s in &npt.regions_exclusive {
        assert!(close(exclusive[&s.id.expect("id")], s.weight), "{}", s.name);
    }
}

#[test]
fn the_tree_adds_up_to_the_flat_rankings_on_real_traces() {
    for name in ["t4-worked-example.json", "master-workers-probes.json"] {
        let trace = crate::load(name);
        let npt = whole(&trace);
        assert!(!npt.tree.is_empty(), "{name}");
        check_consistent(&npt);
    }
    // The worked example's NPT (analysis.md §10): A 29, B 34.
    let trace = crate::load("t4-worked-example.json");
    let npt = whole(&trace);
    let totals: Vec<(&str, f64)> = npt
        .tree
        .iter()
        .map(|p| (p.name.as_str(), p.inclusive))
        .collect();
    assert_eq!(totals, [("B", 34.0), ("A", 29.0)]);
}
