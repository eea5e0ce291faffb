//! Getting several files in as one: an OTF2 archive directory, a Paraver `.prv` with its
//! `.pcf` and `.row`, or a Charm++ Projections `.sts` with its `.log` (or `.log.gz`) files,
//! packed into one tar in the browser (the server reads a tar of any of them), and the name the
//! run gets from them.

/// Files whose names say they belong together when picked one by one.
const COMPANIONS: [&str; 3] = ["prv", "pcf", "row"];

/// Whether a picked file is part of a Projections trace: its `.sts`, or a `.log`/`.log.gz`.
fn is_projections_file(path: &str) -> bool {
    let path = path.to_ascii_lowercase();
    path.ends_with(".sts") || path.ends_with(".log") || path.ends_with(".log.gz")
}

/// The tar of `files` (path inside the archive, bytes), in the order given.
pub fn pack(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, bytes) in files {
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        builder
            .append_data(&mut header, path, bytes.as_slice())
            .map_err(|e| format!("{path} could not be packed: {e}"))?;
    }
    builder
        .into_inner()
        .map_err(|e| format!("the archive could not be finished: {e}"))
}

/// Whether the file at `path`, picked among `paths`, goes into the upload: in an OTF2 archive
/// folder (one holding an anchor `*.otf2`) only the archive's files do (definitions and
/// events), not a profile, a log or a copy of the program lying beside them, which would be
/// read here and sent for nothing.
pub fn wanted(paths: &[String], path: &str) -> bool {
    let archive = paths.iter().any(|p| p.ends_with(".otf2"));
    !archive || shared::formats::otf2::archive_member(path)
}

/// The name of a run made of these paths: the folder they share (an OTF2 directory), else the
/// stem of a Paraver trace, else the first file's stem; with `.tar`.
pub fn archive_name(paths: &[String]) -> String {
    let folder = paths
        .first()
        .and_then(|p| p.split_once('/'))
        .map(|(dir, _)| dir.to_owned())
        .filter(|dir| paths.iter().all(|p| p.starts_with(&format!("{dir}/"))));
    let stem = |p: &String| {
        let file = p.rsplit('/').next().unwrap_or(p);
        let file = file.strip_suffix(".gz").unwrap_or(file);
        file.rsplit_once('.').map_or(file, |(s, _)| s).to_owned()
    };
    let name = folder
        .or_else(|| {
            paths
                .iter()
                .find(|p| p.ends_with(".prv") || p.ends_with(".prv.gz"))
                .map(stem)
        })
        .or_else(|| paths.iter().find(|p| p.ends_with(".sts")).map(stem))
        .or_else(|| paths.first().map(stem))
        .unwrap_or_else(|| "upload".to_owned());
    format!("{name}.tar")
}

/// Why these files do not make one trace, if they do not: several unrelated traces picked
/// together (other than an archive directory or a Paraver trace and its companions).
pub fn problem(paths: &[String]) -> Option<String> {
    let in_folder = paths.iter().all(|p| p.contains('/'));
    // A compressed trace (`x.prv.gz`) is a companion of its `.pcf` and `.row` too.
    let companions = paths.iter().all(|p| {
        p.strip_suffix(".gz")
            .unwrap_or(p)
            .rsplit_once('.')
            .is_some_and(|(_, ext)| COMPANIONS.contains(&ext.to_ascii_lowercase().as_str()))
    });
    let projections = paths.iter().all(|p| is_projections_file(p))
        && paths
            .iter()
            .any(|p| p.to_ascii_lowercase().ends_with(".sts"));
    (!(in_folder || companions || projections || paths.len() <= 1)).then(|| {
        format!(
            "{} files were picked: pick one trace file, an OTF2 archive folder, a Paraver .prv with its .pcf and .row, or a Projections .sts with its .log files",
            paths.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_folder_uploads_its_archive_files_only() {
        let paths: Vec<String> = [
            "run/traces.otf2",
            "run/traces.def",
            "run/traces/0.evt",
            "run/traces/0.def",
            "run/profile.cubex",
            "run/scorep.cfg",
        ]
        .map(str::to_owned)
        .to_vec();
        let kept: Vec<&str> = paths
            .iter()
            .filter(|p| wanted(&paths, p))
            .map(String::as_str)
            .collect();
        assert_eq!(
            kept,
            [
                "run/traces.otf2",
                "run/traces.def",
                "run/traces/0.evt",
                "run/traces/0.def"
            ]
        );
        // Without an anchor, every file picked goes (a Paraver trace and its companions).
        let paraver = ["q.prv".to_owned(), "q.pcf".to_owned()];
        assert!(paraver.iter().all(|p| wanted(&paraver, p)));
    }

    #[test]
    fn a_packed_folder_reads_back_file_for_file() {
        let files = vec![
            ("run/traces.otf2".to_owned(), b"anchor".to_vec()),
            ("run/traces/0.evt".to_owned(), vec![0u8; 1000]),
        ];
        let tar = pack(&files).expect("packs");
        let back = shared::formats::otf2::tar_files(&tar).expect("reads");
        assert_eq!(back.len(), 2);
        assert_eq!(back["run/traces.otf2"], b"anchor");
        assert_eq!(back["run/traces/0.evt"].len(), 1000);
    }

    /// The named files of a test-data folder, as a picker hands them over: (name, bytes).
    fn read_test_files(dir: &str, names: &[&str]) -> Vec<(String, Vec<u8>)> {
        let dir = crate::test_data(dir);
        names
            .iter()
            .map(|f| {
                (
                    (*f).to_owned(),
                    std::fs::read(dir.join(f)).expect("vendored"),
                )
            })
            .collect()
    }

    #[test]
    fn the_vendored_paraver_trace_and_its_labels_import_as_one() {
        let files = read_test_files(
            "traces/paraver/paraver-kernel-qsort_beo3",
            &["qsort_beo3.prv", "qsort_beo3.pcf"],
        );
        let paths: Vec<String> = files.iter().map(|f| f.0.clone()).collect();
        assert_eq!(problem(&paths), None);
        assert_eq!(archive_name(&paths), "qsort_beo3.tar");
        let imported =
            shared::formats::import(&pack(&files).expect("packs"), None, "x").expect("imports");
        // The .pcf names the event types: no bare "type 50000003" regions.
        assert!(
            imported
                .trace
                .regions
                .iter()
                .all(|r| !r.name.starts_with("type ")),
            "{:?}",
            imported
                .trace
                .regions
                .iter()
                .map(|r| &r.name)
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_projections_sts_and_its_logs_picked_together_import_as_one() {
        let files = read_test_files(
            "projections/handmade",
            &["hand.sts", "hand.0.log", "hand.1.log"],
        );
        let paths: Vec<String> = files.iter().map(|f| f.0.clone()).collect();
        assert_eq!(problem(&paths), None);
        assert_eq!(archive_name(&paths), "hand.tar");
        let imported =
            shared::formats::import(&pack(&files).expect("packs"), None, "x").expect("imports");
        assert_eq!(imported.format, shared::formats::Format::Projections);
        assert_eq!(imported.trace.processes.len(), 2);
    }

    #[test]
    fn names_and_problems_of_selections() {
        let folder = vec![
            "ping-pong/traces.otf2".to_owned(),
            "ping-pong/traces/0.evt".to_owned(),
        ];
        assert_eq!(archive_name(&folder), "ping-pong.tar");
        assert_eq!(problem(&folder), None);
        let compressed = vec![
            "run.prv.gz".to_owned(),
            "run.pcf".to_owned(),
            "run.row".to_owned(),
        ];
        assert_eq!(archive_name(&compressed), "run.tar");
        assert_eq!(problem(&compressed), None);
        let projections = vec![
            "hello.sts".to_owned(),
            "hello.0.log".to_owned(),
            "hello.1.log.gz".to_owned(),
        ];
        assert_eq!(problem(&projections), None);
        assert_eq!(archive_name(&projections), "hello.tar");
        let logs_alone = vec!["a.0.log".to_owned(), "a.1.log".to_owned()];
        assert!(problem(&logs_alone).is_some(), "logs without their .sts");
        let unrelated = vec!["a.json".to_owned(), "b.otf2".to_owned()];
        assert!(problem(&unrelated).is_some_and(|p| p.contains("2 files")));
        assert_eq!(problem(&["one.json".to_owned()]), None);
    }
}
