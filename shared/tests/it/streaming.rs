//! Streaming import: what the importers read from a stream (a gzip upload inflated as it is
//! read, a file read in chunks) is what they read from the same bytes in memory, errors at the
//! same positions; and the Pajé utilization samples find their capacity.

use std::io::{Read, Write as _};

use shared::formats::{Format, ImportOptions, import_reader, import_with};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).expect("gz");
    gz.finish().expect("gz")
}

/// A reader that hands out at most 7 bytes a read, so that every chunk boundary of the
/// streaming readers falls somewhere awkward.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(7).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fn sample(path: &str) -> Vec<u8> {
    let bytes = std::fs::read(super::data_path(path)).expect("sample");
    if shared::formats::is_gzip(&bytes) {
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut plain)
            .expect("gunzip");
        plain
    } else {
        bytes
    }
}

#[test]
fn a_stream_reads_as_the_same_bytes_in_memory() {
    let options = ImportOptions::default();
    for path in [
        "traces/chrome-trace/catapult-flow_simple.json",
        "traces/chrome-trace/catapult-webview.json.gz",
        "traces/paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv",
        "traces/paje/pajeng-starpu-native_sample.trace",
        "traces/paje/pajeng-simgrid-ms.trace",
        "traces/shiviz/simple-reliable-broadcast.log",
        "master-workers-probes.json",
    ] {
        let plain = sample(path);
        let in_memory = import_with(&plain, None, path, &options).expect("reads in memory");
        let trickled = import_reader(Trickle(&plain), None, path, &options).expect("streams");
        assert_eq!(trickled, in_memory, "{path}: plain stream");
        let gz = gzip(&plain);
        let inflated = import_reader(Trickle(&gz), None, path, &options).expect("streams gzip");
        assert_eq!(inflated, in_memory, "{path}: gzip stream");
        assert_eq!(
            import_with(&gz, None, path, &options).expect("gzip in memory"),
            in_memory,
            "{path}: gzip in memory"
        );
    }
}

#[test]
fn errors_in_a_stream_are_where_they_are_in_memory() {
    let options = ImportOptions::default();
    let chrome = "[\n{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},\n{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":-5,\"dur\":2}\n]";
    let paraver = "#Paraver (01/01/01 at 00:00):1000_ns:1(1):1:1(1:1),0\n1:1:1:1:1:0:10:5\n1:1:1:1:1:20:x:5\n";
    let paje = "%EventDef PajeDefineContainerType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n1 CT 0 Thread\n9 1 2 3\n";
    for (format, text) in [
        (Format::ChromeJson, chrome),
        (Format::Paraver, paraver),
        (Format::Paje, paje),
    ] {
        let in_memory =
            import_with(text.as_bytes(), Some(format), "t", &options).expect_err("broken");
        let streamed = import_reader(Trickle(&gzip(text.as_bytes())), Some(format), "t", &options)
            .expect_err("broken");
        assert_eq!(streamed, in_memory, "{format:?}");
        assert!(in_memory.line > 1, "{format:?}: {in_memory}");
        let line_start: usize = text
            .lines()
            .take(in_memory.line - 1)
            .map(|l| l.len() + 1)
            .sum();
        assert_eq!(
            in_memory.offset,
            line_start + in_memory.column - 1,
            "{format:?}: {in_memory}"
        );
    }
}

#[test]
fn pajé_utilization_finds_the_capacity_held_over_each_sample() {
    let text = "%EventDef PajeDefineContainerType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineVariableType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeCreateContainer 3\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajeSetVariable 4\n% Time date\n% Container string\n% Type string\n% Value double\n%EndEventDef\n\
1 H 0 Host\n2 U H CPU_used\n2 C H CPU\n3 0 h H 0 host\n\
4 0 h C 100\n4 0 h U 50\n4 1 h U 25\n4 2 h C 50\n4 2 h U 50\n4 3 h U 0\n";
    let imported =
        import_with(text.as_bytes(), None, "t", &ImportOptions::default()).expect("reads");
    let samples: Vec<(u64, u64, f32)> = imported
        .trace
        .cpu_samples
        .iter()
        .map(|s| (s.sample.start.0, s.sample.end.0, s.sample.utilization))
        .collect();
    // 50 of 100, 25 of 100, then 50 of 50 once the capacity halves (times in ns).
    assert_eq!(
        samples,
        vec![
            (0, 1_000_000_000, 0.5),
            (1_000_000_000, 2_000_000_000, 0.25),
            (2_000_000_000, 3_000_000_000, 1.0),
        ]
    );
}

#[test]
fn a_native_document_in_any_member_order_reads_the_same() {
    let trace = shared::model::synthetic::ring(3, 4);
    let written = shared::formats::native::write(&trace);
    let value: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    let object = value.as_object().expect("an object");
    // The events first, then the rest in reverse: every event waits for the arrays it needs.
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort_by_key(|k| (k.as_str() != "events", std::cmp::Reverse(k.as_str())));
    assert_eq!(keys[0], "events");
    let members: Vec<String> = keys
        .iter()
        .map(|k| {
            format!(
                "{}: {}",
                serde_json::to_string(k).expect("key"),
                object[k.as_str()]
            )
        })
        .collect();
    let shuffled = format!("{{{}}}", members.join(",\n"));
    let options = ImportOptions::default();
    let in_order = import_with(written.as_bytes(), None, "t", &options).expect("reads");
    let out_of_order = import_with(shuffled.as_bytes(), None, "t", &options).expect("reads");
    assert_eq!(out_of_order.trace, in_order.trace);
    assert_eq!(in_order.trace, trace);
}
