//! Import throughput: Chrome JSON and the native binary format on generated files of about
//! 100 MB, Paraver and Pajé on generated text of about 20 MB (in the shapes Extrae and SimGrid
//! write: states, nested event types and messages; pushed states and links), and OTF2 on a
//! large archive when `TRACESCOPE_BENCH_OTF2` names one (write it with
//! `shared/tests/tools/make_otf2.py`).
//!
//! Run with `cargo bench -p shared --bench import`.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shared::formats::{Format, import, import_files};
use shared::model::synthetic::ring;

fn read_dir(root: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let (Ok(rel), Ok(bytes)) = (path.strip_prefix(root), std::fs::read(&path)) {
                files.insert(rel.to_string_lossy().replace('\\', "/"), bytes);
            }
        }
    }
    files
}

/// A Paraver trace as Extrae writes an MPI ring: per task and step a Running state, a user
/// function (type 60000019) around an MPI_Send (type 50000001) with its message to the next
/// task, then a Waiting state; about 500 bytes a step.
fn paraver_ring(tasks: u32, steps: u64) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut s = String::with_capacity((tasks as usize) * (steps as usize) * 520);
    let threads: Vec<String> = (1..=tasks).map(|t| format!("1:{t}")).collect();
    let _ = writeln!(
        s,
        "#Paraver (01/01/26 at 00:00):{}_ns:{tasks}({}):1:{tasks}({})",
        steps * 100 + 100,
        vec!["1"; tasks as usize].join(","),
        threads.join(",")
    );
    for step in 0..steps {
        let t = step * 100;
        for task in 1..=tasks {
            let next = task % tasks + 1;
            let _ = writeln!(s, "1:{task}:1:{task}:1:{t}:{}:1", t + 40);
            let _ = writeln!(s, "2:{task}:1:{task}:1:{}:60000019:5", t + 1);
            let _ = writeln!(s, "2:{task}:1:{task}:1:{}:50000001:1", t + 40);
            let _ = writeln!(s, "1:{task}:1:{task}:1:{}:{}:4", t + 40, t + 60);
            let _ = writeln!(
                s,
                "3:{task}:1:{task}:1:{}:{}:{next}:1:{next}:1:{}:{}:1024:7",
                t + 41,
                t + 42,
                t + 50,
                t + 55
            );
            let _ = writeln!(s, "2:{task}:1:{task}:1:{}:50000001:0", t + 60);
            let _ = writeln!(s, "2:{task}:1:{task}:1:{}:60000019:0", t + 90);
        }
    }
    s.into_bytes()
}

/// A Pajé trace as SimGrid writes one: a container per process, a pushed and popped state per
/// step and a link to the next process; about 250 bytes a step.
fn paje_ring(processes: u32, steps: u64) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut s = String::with_capacity((processes as usize) * (steps as usize) * 260);
    s.push_str(concat!(
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n",
        "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n",
        "%EventDef PajeDefineLinkType 2\n% Alias string\n% Type string\n% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n",
        "%EventDef PajeCreateContainer 3\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n",
        "%EventDef PajePushState 4\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n",
        "%EventDef PajePopState 5\n% Time date\n% Type string\n% Container string\n%EndEventDef\n",
        "%EventDef PajeStartLink 6\n% Time date\n% Type string\n% Container string\n% Value string\n% StartContainer string\n% Key string\n%EndEventDef\n",
        "%EventDef PajeEndLink 7\n% Time date\n% Type string\n% Container string\n% Value string\n% EndContainer string\n% Key string\n%EndEventDef\n",
        "0 P 0 PROCESS\n1 S P STATE\n2 L 0 P P LINK\n",
    ));
    for p in 0..processes {
        let _ = writeln!(s, "3 0 p{p} P 0 \"process {p}\"");
    }
    let mut key = 0u64;
    for step in 0..steps {
        let t = step as f64 * 0.001;
        for p in 0..processes {
            let next = (p + 1) % processes;
            let _ = writeln!(s, "4 {t:.6} S p{p} compute");
            let _ = writeln!(s, "5 {:.6} S p{p}", t + 0.0004);
            let _ = writeln!(s, "6 {:.6} L 0 m p{p} k{key}", t + 0.0005);
            let _ = writeln!(s, "7 {:.6} L 0 m p{next} k{key}", t + 0.0007);
            key += 1;
        }
    }
    s.into_bytes()
}

fn imports(c: &mut Criterion) {
    let mut group = c.benchmark_group("import");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    // About 100 MB of Chrome JSON: ~ 170 bytes per exported event.
    let chrome = shared::formats::chrome::write(&ring(64, 600_000)).into_bytes();
    // About 100 MB of native binary: ~ 10 bytes per event.
    let binary = shared::formats::binary::write(&ring(64, 10_000_000));
    // About 20 MB of Paraver and of Pajé text.
    let paraver = paraver_ring(64, 1_600);
    let paje = paje_ring(64, 3_200);
    for (name, format, bytes) in [
        ("chrome_json", Format::ChromeJson, &chrome),
        ("binary", Format::TracescopeBinary, &binary),
        ("paraver", Format::Paraver, &paraver),
        ("paje", Format::Paje, &paje),
    ] {
        let events = match import(bytes, Some(format), "bench") {
            Ok(i) => i.trace.events.len(),
            Err(e) => panic!("the generated {name} trace does not import: {e}"),
        };
        eprintln!("{name}: {} bytes, {events} events", bytes.len());
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(import(bytes, Some(format), "bench").map(|i| i.trace.events.len())))
        });
    }
    if let Ok(dir) = std::env::var("TRACESCOPE_BENCH_OTF2") {
        let files = read_dir(std::path::Path::new(&dir));
        let size: usize = files.values().map(Vec::len).sum();
        let events = import_files(&files, "bench", &shared::formats::Budget::default())
            .map_or(0, |i| i.trace.events.len());
        eprintln!(
            "otf2: {size} bytes in {} files, {events} events",
            files.len()
        );
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function("otf2", |b| {
            b.iter(|| {
                black_box(
                    import_files(&files, "bench", &shared::formats::Budget::default())
                        .map(|i| i.trace.events.len()),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, imports);
criterion_main!(benches);
