//! Import throughput: Chrome JSON and the native binary format on generated files of about
//! 100 MB, and OTF2 on a large archive when `TRACESCOPE_BENCH_OTF2` names one (write it with
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
    for (name, format, bytes) in [
        ("chrome_json", Format::ChromeJson, &chrome),
        ("binary", Format::TracescopeBinary, &binary),
    ] {
        let events = import(bytes, Some(format), "bench").map_or(0, |i| i.trace.events.len());
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
