//! Structure-aware OTF2: the sample archive (two MPI ranks) with both locations' event files
//! rebuilt from well-formed records the fuzzer chooses — timestamps, enters, leaves, sends,
//! receives, requests, collectives, metrics, program begin/end, records of unknown types —
//! then, optionally, a few bytes of the encoded files overwritten (a valid archive with
//! mutated records). The importer must read or refuse each, and the analyses must not panic.
#![no_main]

use std::collections::BTreeMap;
use std::sync::LazyLock;

use libfuzzer_sys::arbitrary::{self, Arbitrary};

const ARCHIVE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..", "/shared/tests/data/traces/otf2/pipit-ping-pong-otf2/");

/// The sample's definitions and anchor, read once.
static FILES: LazyLock<BTreeMap<String, Vec<u8>>> = LazyLock::new(|| {
    ["traces.otf2", "traces.def", "traces/0.def", "traces/1.def", "traces/0.evt"]
        .into_iter()
        .map(|name| (name.to_owned(), std::fs::read(format!("{ARCHIVE}{name}")).unwrap_or_default()))
        .collect()
});

#[derive(Arbitrary, Debug)]
enum Op {
    Tick(u16),
    Enter(u8),
    Leave(u8),
    Send { to: u8, comm: u8, tag: u8, len: u16, nonblocking: Option<u8> },
    Recv { from: u8, comm: u8, tag: u8, len: u16, nonblocking: Option<u8> },
    IrecvRequest(u8),
    IsendComplete(u8),
    CollectiveEnd { op: u8, comm: u8, root: u8 },
    Thread { kind: u8, contingent: u8, sequence: u8 },
    Metric { metric: u8, values: Vec<(u8, u64)> },
    ProgramBegin,
    ProgramEnd,
    Unknown { kind: u8, payload: Vec<u8> },
}

#[derive(Arbitrary, Debug)]
struct Input {
    locations: [Vec<Op>; 2],
    /// (position, byte) overwrites applied to the encoded files.
    damage: Vec<(u16, u8)>,
}

/// OTF2's compressed unsigned integer: a byte count, then that many little-endian bytes.
fn compressed(out: &mut Vec<u8>, v: u64) {
    let n = (8 - v.leading_zeros() as usize / 8).min(8);
    out.push(n as u8);
    out.extend_from_slice(&v.to_le_bytes()[..n]);
}

/// A record with a length byte.
fn record(out: &mut Vec<u8>, kind: u8, payload: &[u8]) {
    out.push(kind);
    out.push(payload.len().min(254) as u8);
    out.extend_from_slice(&payload[..payload.len().min(254)]);
}

fn encode(ops: &[Op], header: &[u8], start: u64) -> Vec<u8> {
    let mut out = header.to_vec();
    let mut time = start;
    let stamp = |out: &mut Vec<u8>, time: u64| {
        out.push(5);
        out.extend_from_slice(&time.to_le_bytes());
    };
    for op in ops {
        let mut p = Vec::new();
        match op {
            Op::Tick(dt) => {
                time += u64::from(*dt);
                stamp(&mut out, time);
            }
            Op::Enter(r) | Op::Leave(r) => {
                out.push(if matches!(op, Op::Enter(_)) { 12 } else { 13 });
                compressed(&mut out, u64::from(*r));
            }
            Op::IrecvRequest(r) | Op::IsendComplete(r) => {
                out.push(if matches!(op, Op::IrecvRequest(_)) { 17 } else { 16 });
                compressed(&mut out, u64::from(*r));
            }
            Op::Send { to: peer, comm, tag, len, nonblocking } | Op::Recv { from: peer, comm, tag, len, nonblocking } => {
                let send = matches!(op, Op::Send { .. });
                for v in [u64::from(*peer), u64::from(*comm), u64::from(*tag), u64::from(*len)] {
                    compressed(&mut p, v);
                }
                if let Some(request) = nonblocking {
                    compressed(&mut p, u64::from(*request));
                }
                let kind = match (send, nonblocking.is_some()) {
                    (true, false) => 14,
                    (true, true) => 15,
                    (false, false) => 18,
                    (false, true) => 19,
                };
                record(&mut out, kind, &p);
            }
            Op::CollectiveEnd { op, comm, root } => {
                p.push(*op);
                compressed(&mut p, u64::from(*comm));
                compressed(&mut p, u64::from(*root));
                record(&mut out, 23, &p);
            }
            Op::Thread { kind, contingent, sequence } => {
                compressed(&mut p, u64::from(*contingent));
                compressed(&mut p, u64::from(*sequence));
                record(&mut out, 62 + kind % 4, &p);
            }
            Op::Metric { metric, values } => {
                compressed(&mut p, u64::from(*metric));
                p.push(values.len().min(8) as u8);
                for (kind, value) in values.iter().take(8) {
                    let kind = [4u8, 8, 10, 3][usize::from(*kind) % 4];
                    p.push(kind);
                    if kind == 10 {
                        p.extend_from_slice(&value.to_le_bytes());
                    } else {
                        compressed(&mut p, *value);
                    }
                }
                record(&mut out, 31, &p);
            }
            Op::ProgramBegin => record(&mut out, 83, &[]),
            Op::ProgramEnd => record(&mut out, 84, &[]),
            // A type the importer does not know (or one it does, with any payload).
            Op::Unknown { kind, payload } => record(&mut out, kind.max(&3).min(&250).to_owned(), payload),
        }
    }
    out.push(1);
    out
}

libfuzzer_sys::fuzz_target!(|input: Input| {
    let sample = &FILES["traces/0.evt"];
    if sample.len() < 27 {
        return;
    }
    // The sample's chunk header, and its first timestamp as the start.
    let header = &sample[..18];
    let start = u64::from_le_bytes(sample[19..27].try_into().unwrap_or([0; 8]));
    let mut files = FILES.clone();
    for (k, ops) in input.locations.iter().enumerate() {
        let mut evt = encode(ops, header, start);
        for &(at, byte) in &input.damage {
            let at = usize::from(at) % evt.len();
            evt[at] = byte;
        }
        files.insert(format!("traces/{k}.evt"), evt);
    }
    let budget = shared::formats::Budget::scaled(1 << 20, 256 << 20);
    if let Ok(imported) = shared::formats::import_files(&files, "fuzz", &budget) {
        let _ = shared::analyses::metrics::analyze(&imported.trace, shared::analyses::metrics::AnalysisOptions::default());
    }
});
