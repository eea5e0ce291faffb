//! OTF2 archives: metrics recorded on METRIC locations and for other scopes (issue 44, point
//! 5), and an archive read without the files lying beside it (point 15).

use shared::formats::import;
use shared::model::{CounterKind, Trace};

/// The row (process) name of a counter.
fn row(trace: &Trace, process: shared::model::ProcessId) -> &str {
    &trace.processes[process.index()].name
}

/// One expected series: name, unit, kind, row, values, first and last tick.
type Series = (
    &'static str,
    &'static str,
    CounterKind,
    &'static str,
    &'static [f64],
    u64,
    u64,
);

/// `otf2-metrics.tar.gz`, written by `shared/tests/tools/make_otf2_metrics.py`, read by the
/// official OTF2 library (`otf2_counts.py --metrics`, PyPI `otf2` 3.2): processes=2 events=6
/// span=90 counters=9 samples=55, and per series (name, unit, mode, row, samples, values,
/// first and last ticks after the global offset).
/// Every series is a counter, on the row its scope names; the METRIC locations are no rows of
/// their own, except the "Monitor" group's, which has no thread to hold its fan.
#[test]
fn otf2_metric_locations_and_scopes_become_counters_of_their_rows() {
    let bytes = std::fs::read(crate::data_path("otf2-metrics.tar.gz")).expect("fixture");
    let imported = import(&bytes, None, "metrics").expect("imports");
    let trace = &imported.trace;
    let with_events: Vec<&str> = trace
        .processes
        .iter()
        .enumerate()
        .filter(|(i, _)| trace.events.process().iter().any(|p| p.index() == *i))
        .map(|(_, p)| p.name.as_str())
        .collect();
    assert_eq!(
        with_events,
        ["Rank 0 · Master thread", "GPU context · GPU stream"]
    );
    assert_eq!(trace.events.len(), 6);
    let expected: [Series; 9] = [
        (
            "fan",
            "rpm",
            CounterKind::Gauge,
            "Monitor · metrics",
            &[1200.0, 1300.0, 1400.0, 1500.0],
            0,
            90,
        ),
        (
            "temperature",
            "C",
            CounterKind::Gauge,
            "Rank 0 · Master thread",
            &[40.5, 41.75, 43.0, 44.25, 45.5, 46.75, 48.0, 49.25],
            3,
            87,
        ),
        (
            "energy",
            "J",
            CounterKind::Accumulated,
            "GPU context · GPU stream",
            &[0.0, 1.5, 3.0, 4.5, 6.0, 7.5, 9.0, 10.5],
            3,
            87,
        ),
        (
            "energy",
            "J",
            CounterKind::Accumulated,
            "Rank 0 · Master thread",
            &[0.003, 0.703, 1.403, 2.103, 2.803, 3.503, 4.203, 4.903],
            4,
            88,
        ),
        // Declared ACCUMULATED_START, but it decreases: read as a gauge, and said so.
        (
            "busy",
            "%",
            CounterKind::Gauge,
            "Rank 0 · Master thread",
            &[90.0, 40.0, 75.0, 10.0, 60.0, 55.0, 20.0, 95.0],
            5,
            89,
        ),
        (
            "queue",
            "#",
            CounterKind::Gauge,
            "GPU context · GPU stream",
            &[0.0, 2.0, 4.0, 6.0],
            6,
            78,
        ),
        (
            "PAPI_TOT_CYC",
            "#",
            CounterKind::Accumulated,
            "Rank 0 · Master thread",
            &[1000.0, 4000.0, 9000.0, 16000.0, 25000.0],
            18,
            58,
        ),
        (
            "load",
            "%",
            CounterKind::Gauge,
            "Rank 0 · Master thread",
            &[0.5, 0.75, 1.0, 1.25, 1.5],
            18,
            58,
        ),
        (
            "balance",
            "B",
            CounterKind::Gauge,
            "Rank 0 · Master thread",
            &[3.0, 1.0, -1.0, -3.0, -5.0],
            18,
            58,
        ),
    ];
    assert_eq!(trace.counters.len(), expected.len());
    assert_eq!(
        trace.counters.iter().map(|c| c.values.len()).sum::<usize>(),
        55
    );
    for (name, unit, kind, row_name, values, first, last) in expected {
        let c = trace
            .counters
            .iter()
            .find(|c| c.name == name && row(trace, c.process) == row_name)
            .unwrap_or_else(|| panic!("no series {name} on {row_name}"));
        assert_eq!((c.unit.as_str(), c.kind), (unit, kind), "{name}");
        assert_eq!(c.values.len(), values.len(), "{name}");
        for (got, want) in c.values.iter().zip(values) {
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{name}: {got} ≠ {want}"
            );
        }
        assert_eq!(c.times.first().map(|t| t.0), Some(first), "{name}");
        assert_eq!(c.times.last().map(|t| t.0), Some(last), "{name}");
    }
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("1 metric series declared accumulated")),
        "{:?}",
        imported.notes
    );
    // The Monitor's row holds its counter and no event, and a note says why it exists.
    assert_eq!(trace.processes.len(), 3);
    assert!(
        imported.notes.iter().any(
            |n| n.starts_with("location groups with metrics but no thread")
                && n.ends_with(": Monitor")
        ),
        "{:?}",
        imported.notes
    );
}

/// An archive source that records which files the import asks for.
struct Recording {
    files: std::collections::BTreeMap<String, Vec<u8>>,
    asked: std::cell::RefCell<Vec<String>>,
}

impl shared::formats::otf2::ArchiveSource for Recording {
    fn anchors(&self) -> Vec<String> {
        self.files
            .keys()
            .filter(|p| p.ends_with(".otf2"))
            .cloned()
            .collect()
    }

    fn read(&self, path: &str) -> Result<Option<std::borrow::Cow<'_, [u8]>>, shared::TraceError> {
        self.asked.borrow_mut().push(path.to_owned());
        Ok(self
            .files
            .get(path)
            .map(|b| std::borrow::Cow::Borrowed(b.as_slice())))
    }

    fn size(&self, path: &str) -> Option<u64> {
        self.files.get(path).map(|b| b.len() as u64)
    }
}

/// Point 15: the import asks for the anchor, the global definitions and the two locations'
/// files, each once, and for nothing lying beside them (a profile, an event file of a location
/// the definitions do not name); a tar's members that belong to no archive are read past, not
/// held.
#[test]
fn an_otf2_archive_is_read_from_the_files_its_anchor_names_only() {
    let mut files = crate::importers::otf2_files("pipit-ping-pong-otf2");
    files.insert("profile.cubex".to_owned(), vec![1; 1 << 20]);
    files.insert("traces/7.evt".to_owned(), vec![1; 1 << 20]);
    let source = Recording {
        files: files.clone(),
        asked: Default::default(),
    };
    let imported =
        shared::formats::import_archive(&source, "x", &shared::formats::Budget::default())
            .expect("imports");
    assert_eq!(imported.trace.events.len(), 136);
    let mut asked = source.asked.into_inner();
    asked.sort();
    assert_eq!(
        asked,
        [
            "traces.def",
            "traces.otf2",
            "traces/0.def",
            "traces/0.evt",
            "traces/1.def",
            "traces/1.evt"
        ]
    );
    // The same files in a tar: the members outside the archive are not kept.
    let mut builder = tar::Builder::new(Vec::new());
    for (path, bytes) in &files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, path, bytes.as_slice())
            .expect("appends");
    }
    let tar = builder.into_inner().expect("tar");
    let kept = shared::formats::otf2::tar_files_from(
        tar.as_slice(),
        &tar,
        u64::MAX,
        shared::formats::otf2::archive_member,
    )
    .expect("reads");
    assert_eq!(
        kept.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "traces.def",
            "traces.otf2",
            "traces/0.def",
            "traces/0.evt",
            "traces/1.def",
            "traces/1.evt",
            "traces/7.evt"
        ]
    );
    let imported = import(&tar, None, "x.tar").expect("imports");
    assert_eq!(imported.trace.events.len(), 136);
}
