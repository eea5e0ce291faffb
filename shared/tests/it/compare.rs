//! Two runs compared (issue 20): a run against itself changes nothing; two different runs line
//! up by name, with the worked example's values (analysis.md §10) on its side.

use shared::view::compare::compare;

use crate::report;

#[test]
fn a_run_against_itself_changes_nothing() {
    let a = report("t4-worked-example.json");
    let c = compare(&a, &a);
    assert_eq!(c.time_unit, "ticks");
    for d in c.metrics.iter().chain(&c.critical_path) {
        assert_eq!(d.change(), Some(0.0), "{}", d.name);
    }
    for p in &c.processes {
        assert_eq!(
            (p.computation.change(), p.waiting.change()),
            (Some(0.0), Some(0.0))
        );
    }
    assert!(c.npt.iter().all(|r| r.rank_before == r.rank_after));
}

#[test]
fn two_runs_line_up_by_name() {
    let (a, b) = (
        report("t4-worked-example.json"),
        report("master-workers-probes.json"),
    );
    let c = compare(&a, &b);
    let metric = |name: &str| c.metrics.iter().find(|d| d.name == name).expect(name);
    // T4a: the worked example runs 69 ticks, its critical path is 69, its waits 16 (T13).
    assert_eq!(metric("Execution time").before, Some(69.0));
    assert_eq!(metric("Critical path").before, Some(69.0));
    assert_eq!(metric("Waiting in wait states").before, Some(16.0));
    let after = b.analysis.execution_time as f64;
    assert_eq!(metric("Execution time").after, Some(after));
    assert_eq!(metric("Execution time").ratio(), Some(after / 69.0));
    // A and B (T6′ computation: 29 and 34 ticks of NPT on their own processors) come first,
    // the second run's processes after them, each only on its side.
    let names: Vec<&str> = c.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(&names[..2], ["A", "B"]);
    assert_eq!(names.len(), 2 + b.analysis.process_times.len());
    assert!(
        c.processes[..2]
            .iter()
            .all(|p| p.computation.after.is_none())
    );
    assert!(
        c.processes[2..]
            .iter()
            .all(|p| p.computation.before.is_none())
    );
    // The critical path's composition: computation + transit = its length on each side.
    let (comp, transit) = (&c.critical_path[0], &c.critical_path[1]);
    let sum = comp.before.zip(transit.before).map(|(c, t)| c + t);
    assert_eq!(sum, Some(69.0));
    // Every region of either run has a rank on the side it appears.
    for r in &c.npt {
        assert_eq!(
            r.rank_before.is_some(),
            r.share_before.is_some(),
            "{}",
            r.name
        );
        assert!(
            r.rank_before.is_some() || r.rank_after.is_some(),
            "{}",
            r.name
        );
    }
}
