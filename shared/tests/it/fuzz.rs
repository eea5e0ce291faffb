//! A short fuzz run for CI: random bytes and mutations of valid inputs of every format must
//! give a model or an error, never a panic. The long runs use cargo-fuzz (`fuzz/`).

use proptest::prelude::*;
use shared::formats::{Format, import};

use crate::load;

/// A valid input of each format, to mutate.
fn seeds() -> Vec<(Format, Vec<u8>)> {
    let t4 = load("t4-worked-example.json");
    let mw = load("master-workers-probes.json");
    vec![
        (Format::TracescopeJson, shared::formats::native::write(&mw).into_bytes()),
        (Format::TracescopeBinary, shared::formats::binary::write(&mw)),
        (Format::ChromeJson, shared::formats::chrome::write(&t4).into_bytes()),
        (Format::Tmon, shared::formats::tmon::write(&mw).expect("writes").0),
        (
            Format::Paraver,
            b"#Paraver (01/01/01 at 00:00):100_ns:2:1:2(1:1,1:2),0\n1:1:1:1:1:0:50:1\n2:1:1:1:1:5:50000001:1\n3:1:1:1:1:10:12:2:1:2:1:8:20:64:3\n2:1:1:1:1:30:50000001:0\n"
                .to_vec(),
        ),
        (Format::Shiviz, b"a {\"a\":1}\nsend\nb {\"a\":1, \"b\":1}\nrecv\n".to_vec()),
        (Format::Projections, projections_tar()),
        (
            Format::Paje,
            b"%EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n%EventDef PajeNewEvent 2\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n1 0 a T 0 \"x y\"\n2 1.5 E a hello\n"
                .to_vec(),
        ),
    ]
}

/// The hand-made Projections trace as a tar: its `.sts` and two logs.
fn projections_tar() -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for name in ["hand.sts", "hand.0.log", "hand.1.log"] {
        let bytes = std::fs::read(crate::data_path(&format!("projections/handmade/{name}")))
            .expect("the hand-made trace");
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, name, bytes.as_slice())
            .expect("packs");
    }
    builder.into_inner().expect("packs")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_any_importer(bytes in prop::collection::vec(any::<u8>(), 0..512), format in 0usize..Format::ALL.len()) {
        let _ = import(&bytes, None, "fuzz");
        let _ = import(&bytes, Some(Format::ALL[format]), "fuzz");
    }

    #[test]
    fn mutated_inputs_never_panic_any_importer(
        seed in 0usize..8,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let (format, mut bytes) = seeds().swap_remove(seed);
        for (at, byte, op) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => { bytes.truncate(i); }
            }
        }
        let _ = import(&bytes, Some(format), "fuzz");
        let _ = import(&bytes, None, "fuzz");
        if let Ok(imported) = import(&bytes, Some(format), "fuzz") {
            // Whatever imports, the analyses must digest.
            let _ = shared::analyses::metrics::analyze(&imported.trace, shared::analyses::metrics::AnalysisOptions::default());
        }
    }
}

#[test]
fn every_seed_imports_as_its_format() {
    for (format, bytes) in seeds() {
        let imported = import(&bytes, None, "seed").unwrap_or_else(|e| panic!("{format:?}: {e}"));
        assert_eq!(imported.format, format);
    }
}

/// Inputs cargo-fuzz found crashing (integer overflows on absurd timestamps and clock
/// offsets): they must import or fail cleanly, and whatever imports must analyse.
#[test]
fn fuzz_regressions_import_and_analyse_without_panicking() {
    let bytes = std::fs::read(crate::data_path("fuzz/otf2-tar-clock-offset-overflow.bin"))
        .expect("fixture");
    if let Ok(imported) = import(&bytes, Some(Format::Otf2), "fuzz") {
        let _ = shared::analyses::metrics::analyze(
            &imported.trace,
            shared::analyses::metrics::AnalysisOptions::default(),
        );
    }
    let events =
        std::fs::read(crate::data_path("fuzz/otf2-events-tick-sum-overflow.bin")).expect("fixture");
    let archive = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/traces/otf2/pipit-ping-pong-otf2");
    let mut files = std::collections::BTreeMap::new();
    for name in [
        "traces.otf2",
        "traces.def",
        "traces/0.def",
        "traces/1.def",
        "traces/1.evt",
    ] {
        files.insert(
            name.to_owned(),
            std::fs::read(archive.join(name)).expect("sample"),
        );
    }
    // The mutated file is damaged after byte 580 (a stray end-of-chunk marker), which the
    // importer now refuses; what the old importer read of it, ended properly, keeps the
    // overflowing ticks this regression is about.
    files.insert("traces/0.evt".to_owned(), events.clone());
    let err = shared::formats::import_files(&files, "fuzz", &shared::formats::Budget::default())
        .expect_err("damaged");
    assert_eq!(err.offset, 580, "{err}");
    let mut read = events[..580].to_vec();
    read.extend_from_slice(&[0x02, 0x01]);
    files.insert("traces/0.evt".to_owned(), read);
    let imported =
        shared::formats::import_files(&files, "fuzz", &shared::formats::Budget::default())
            .expect("the mutated archive still reads");
    let a = shared::analyses::metrics::analyze(
        &imported.trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    assert!(a.execution_time > 0);
}
