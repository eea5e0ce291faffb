//! The sample traces the home page opens in one click: the repository's vendored traces
//! (`shared/tests/data`, copied into the site's `samples/` by `cargo xtask build-site`), each
//! written by a real tool, with where it came from in `samples/traces/SOURCES.md`.

/// One sample: what it is and its files (paths under `samples/`; several are packed into one
/// archive before upload, the first path's folder naming it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// A stable id (for tests and links).
    pub id: &'static str,
    /// What it is, in a few words.
    pub title: &'static str,
    /// The format, as the formats list names it.
    pub format: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// Its files under `samples/`.
    pub files: &'static [&'static str],
}

/// The samples, for learners first.
pub const SAMPLES: [Sample; 8] = [
    Sample {
        id: "t4",
        title: "The thesis's worked example",
        format: "Tracescope JSON",
        about: "Two processes, three messages (Jiang 1990, Fig. 3.2): the critical path by hand",
        files: &["t4-worked-example.json"],
    },
    Sample {
        id: "master-workers",
        title: "Master and two workers",
        format: "Tracescope JSON",
        about: "Phase probes in µs: a WCPA phase table",
        files: &["master-workers-probes.json"],
    },
    Sample {
        id: "otf2-papi",
        title: "MPI ping-pong with PAPI counters",
        format: "OTF2",
        about: "Score-P 7.1, two ranks, three hardware counters",
        files: &[
            "traces/otf2/pipit-ping-pong-otf2-papi/traces.otf2",
            "traces/otf2/pipit-ping-pong-otf2-papi/traces.def",
            "traces/otf2/pipit-ping-pong-otf2-papi/traces/0.def",
            "traces/otf2/pipit-ping-pong-otf2-papi/traces/0.evt",
            "traces/otf2/pipit-ping-pong-otf2-papi/traces/1.def",
            "traces/otf2/pipit-ping-pong-otf2-papi/traces/1.evt",
        ],
    },
    Sample {
        id: "paraver",
        title: "Quicksort on four MPI tasks",
        format: "Paraver",
        about: "MPItrace 2004 with its .pcf labels; a few messages arrive before they are sent",
        files: &[
            "traces/paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv",
            "traces/paraver/paraver-kernel-qsort_beo3/qsort_beo3.pcf",
        ],
    },
    Sample {
        id: "chrome-webview",
        title: "Android WebView",
        format: "Chrome JSON",
        about: "38 threads, 17,305 events (gzip)",
        files: &["traces/chrome-trace/catapult-webview.json.gz"],
    },
    Sample {
        id: "simgrid",
        title: "SimGrid master/slave",
        format: "Pajé",
        about: "Simulated hosts and links with their utilization variables",
        files: &["traces/paje/pajeng-simgrid-ms.trace"],
    },
    Sample {
        id: "starpu",
        title: "StarPU workers",
        format: "Pajé",
        about: "Worker states of a task runtime",
        files: &["traces/paje/pajeng-starpu-native_sample.trace"],
    },
    Sample {
        id: "shiviz",
        title: "GoVector RPC",
        format: "ShiViz",
        about: "A client and a server with vector clocks",
        files: &["traces/shiviz/govector-RpcClientServer.log"],
    },
];

/// The file name a sample uploads under: its one file's, or its folder's as a tar.
pub fn upload_name(sample: &Sample) -> String {
    match sample.files {
        [one] => one.rsplit('/').next().unwrap_or(one).to_owned(),
        many => crate::upload::archive_name(&archive_paths(many)),
    }
}

/// A multi-file sample's paths inside its archive: from its folder down (the OTF2 anchor's
/// folder, or the Paraver trace's).
pub fn archive_paths(files: &[&str]) -> Vec<String> {
    let folder = files
        .first()
        .and_then(|f| f.rsplit_once('/'))
        .map_or("", |(dir, _)| dir);
    let parent = folder.rsplit_once('/').map_or("", |(p, _)| p);
    files
        .iter()
        .map(|f| {
            f.strip_prefix(parent)
                .map_or(*f, |rest| rest.trim_start_matches('/'))
                .to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vendored(path: &str) -> Vec<u8> {
        let full = crate::test_data(path);
        std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
    }

    /// Every sample's files exist where the site build copies them from, and each sample
    /// imports as the page will upload it (packed when it has several files).
    #[test]
    fn every_sample_imports_as_uploaded() {
        for sample in SAMPLES {
            let bytes = match sample.files {
                [one] => vendored(one),
                many => {
                    let files: Vec<(String, Vec<u8>)> = archive_paths(many)
                        .into_iter()
                        .zip(many.iter().map(|f| vendored(f)))
                        .collect();
                    crate::upload::pack(&files).expect("packs")
                }
            };
            let imported = shared::formats::import(&bytes, None, &upload_name(&sample))
                .unwrap_or_else(|e| panic!("{}: {e}", sample.id));
            assert!(!imported.trace.events.is_empty(), "{}", sample.id);
        }
        assert_eq!(upload_name(&SAMPLES[2]), "pipit-ping-pong-otf2-papi.tar");
        assert_eq!(
            archive_paths(SAMPLES[2].files)[2],
            "pipit-ping-pong-otf2-papi/traces/0.def"
        );
        assert_eq!(upload_name(&SAMPLES[3]), "paraver-kernel-qsort_beo3.tar");
    }
}
