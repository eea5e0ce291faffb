#![allow(unsafe_code)]
use simulator_wasm::asm::assemble;
use simulator_wasm::isa::CycleTable;
use simulator_wasm::network::{Config, Network};
use simulator_wasm::topology::Topology;
fn main() {
    MODE.store(
        std::env::var("COLOR")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        std::sync::atomic::Ordering::Relaxed,
    );
    if std::env::var_os("INTER").is_some() {
        inter();
        return;
    }
    if std::env::var_os("SZ").is_some() {
        println!(
            "opinfo {}",
            std::mem::size_of::<Option<simulator_wasm::isa::OpInfo>>()
        );
        return;
    }
    if std::env::var_os("CK").is_some() {
        ck();
        return;
    }
    eprintln!(
        "Node {} CycleTable {}",
        std::mem::size_of::<simulator_wasm::cpu::Node>(),
        std::mem::size_of::<simulator_wasm::isa::CycleTable>()
    );
    if std::env::var_os("SIZES").is_some() {
        sizes();
        return;
    }
    if std::env::var_os("PAIR").is_some() {
        pair();
        return;
    }
    let width: u32 = std::env::args().nth(1).map_or(8, |a| a.parse().unwrap());
    let workers: usize = std::env::args().nth(2).map_or(1, |a| a.parse().unwrap());
    let reps: usize = std::env::args().nth(3).map_or(20, |a| a.parse().unwrap());
    let source = format!(
        "WIDTH = {width}\n{}",
        include_str!("../programs/meshwork.s").replace(
            "ROUNDS = 20",
            &format!(
                "ROUNDS = {}",
                std::env::var("ROUNDS").unwrap_or("20".into())
            )
        )
    );
    let config = Config {
        tracing: true,
        ..Config::default()
    };
    let program = assemble(
        &source,
        &CycleTable::new(config.chip, 0),
        config.chip.mem_start(),
    )
    .unwrap();
    let mut best = f64::MAX;
    let mut total = 0.0;
    let mut ins = 0;
    let mut ns = 0;
    let mut st = Default::default();
    for _ in 0..reps {
        let topology = Topology::parse(&format!("mesh {width}x{width}")).unwrap();
        let mut net = Network::new(topology, config.clone());
        net.load_all(&program.code).unwrap();
        let f0 = minflt();
        let c0: Vec<usize> = CNT
            .iter()
            .map(|c| c.load(std::sync::atomic::Ordering::Relaxed))
            .collect();
        let t = std::time::Instant::now();
        if std::env::var_os("ONE").is_some() {
            net.run_parts(u64::MAX, workers, 1).unwrap();
        } else {
            net.run_parallel(u64::MAX, workers).unwrap();
        }
        best = best.min(t.elapsed().as_secs_f64());
        if MODE.load(std::sync::atomic::Ordering::Relaxed) == 3 {
            let c: Vec<usize> = CNT
                .iter()
                .zip(&c0)
                .map(|(c, b)| c.load(std::sync::atomic::Ordering::Relaxed) - b)
                .collect();
            eprintln!(
                "alloc {} dealloc {} realloc {} bytes {}",
                c[0], c[1], c[2], c[3]
            );
        }
        if std::env::var_os("FLT").is_some() {
            eprint!("flt {} ", minflt() - f0);
        }
        if std::env::var_os("EACH").is_some() {
            eprint!("{:.2} ", t.elapsed().as_secs_f64() * 1e3);
        }
        total += t.elapsed().as_secs_f64();
        ins = net.instructions();
        ns = net.nanoseconds();
        st = net.stretches;
    }
    println!("{st:?}");
    println!(
        "width {width} workers {workers}: {ins} instructions, {ns} ns virtual, windows {}, best {:.2} ms avg {:.2} ms, {:.1} M/s, {:.2} us/window",
        ns * 1000 / 275,
        best * 1e3,
        total * 1e3 / reps as f64,
        ins as f64 / best / 1e6,
        best * 1e6 / (ns as f64 * 1000.0 / 275.0)
    );
}
#[allow(dead_code)]
fn dbg() {}
pub fn pair() {
    let source = format!("WIDTH = 8\n{}", include_str!("../programs/meshwork.s"));
    let config = Config {
        tracing: true,
        ..Config::default()
    };
    let program = assemble(
        &source,
        &CycleTable::new(config.chip, 0),
        config.chip.mem_start(),
    )
    .unwrap();
    let mut times = vec![];
    for _ in 0..20 {
        let mk = || {
            let mut n = Network::new(Topology::parse("mesh 8x8").unwrap(), config.clone());
            n.load_all(&program.code).unwrap();
            n
        };
        let (mut a, mut b) = (mk(), mk());
        let t = std::time::Instant::now();
        if std::env::var_os("OWN").is_some() {
            drop((a, b));
            let bar = std::sync::Barrier::new(2);
            let res: Vec<f64> = std::thread::scope(|s| {
                let h: Vec<_> = (0..2)
                    .map(|_| {
                        s.spawn(|| {
                            let mut n = mk();
                            bar.wait();
                            let t = std::time::Instant::now();
                            n.run(u64::MAX).unwrap();
                            let e = t.elapsed().as_secs_f64() * 1e3;
                            bar.wait();
                            e
                        })
                    })
                    .collect();
                h.into_iter().map(|h| h.join().unwrap()).collect()
            });
            times.push(res[0].max(res[1]));
            continue;
        }
        if std::env::var_os("SPEC").is_some() {
            std::thread::scope(|s| {
                s.spawn(|| {
                    a.run_parts(u64::MAX, 2, 1).unwrap();
                });
                b.run_parts(u64::MAX, 2, 1).unwrap();
            });
        } else {
            let bar = std::sync::Barrier::new(2);
            let mv = std::env::var_os("MOVEA").is_some();
            let res: Vec<f64> = std::thread::scope(|s| {
                let ha = s.spawn(|| {
                    if std::env::var_os("CLONEA").is_some() {
                        let c = a.clone();
                        a = c;
                    }
                    if mv {
                        let mut v = Vec::with_capacity(a.nodes.len());
                        v.extend(a.nodes.drain(..));
                        a.nodes = v;
                    }
                    if let Some(m) = std::env::var("REF")
                        .ok()
                        .and_then(|v| v.parse::<u32>().ok())
                    {
                        let _ = m;
                    }
                    bar.wait();
                    let t = std::time::Instant::now();
                    a.run(u64::MAX).unwrap();
                    let e = t.elapsed().as_secs_f64() * 1e3;
                    e
                });
                bar.wait();
                let t = std::time::Instant::now();
                b.run(u64::MAX).unwrap();
                let eb = t.elapsed().as_secs_f64() * 1e3;
                vec![ha.join().unwrap(), eb]
            });
            if std::env::var_os("SHOWAB").is_some() {
                eprintln!("a {:.2} b {:.2}", res[0], res[1]);
            }
            times.push(res[0].max(res[1]));
            continue;
        }
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("pair: best {:.2} median {:.2} ms", times[0], times[10]);
}
pub fn sizes() {
    println!(
        "Node {} bytes, Link {}",
        std::mem::size_of::<simulator_wasm::cpu::Node>(),
        std::mem::size_of::<simulator_wasm::link::Link>()
    );
}

struct PadAlloc;
static MODE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
const BIG: usize = 1 << 20;
pub static CNT: [std::sync::atomic::AtomicUsize; 4] =
    [const { std::sync::atomic::AtomicUsize::new(0) }; 4];
unsafe impl std::alloc::GlobalAlloc for PadAlloc {
    unsafe fn realloc(&self, p: *mut u8, l: std::alloc::Layout, n: usize) -> *mut u8 {
        let mode = MODE.load(std::sync::atomic::Ordering::Relaxed);
        if mode == 3 {
            CNT[2].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            CNT[3].fetch_add(
                n.saturating_sub(l.size()),
                std::sync::atomic::Ordering::Relaxed,
            );
        }
        if mode == 0 || mode == 3 {
            return unsafe { std::alloc::System.realloc(p, l, n) };
        }
        let q = unsafe { self.alloc(std::alloc::Layout::from_size_align_unchecked(n, l.align())) };
        if !q.is_null() {
            unsafe { std::ptr::copy_nonoverlapping(p, q, l.size().min(n)) };
            unsafe { self.dealloc(p, l) };
        }
        q
    }
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        let mode = MODE.load(std::sync::atomic::Ordering::Relaxed);
        if mode == 3 {
            CNT[0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            CNT[3].fetch_add(l.size(), std::sync::atomic::Ordering::Relaxed);
        }
        if mode == 0 || mode == 3 || l.size() < BIG {
            return unsafe { std::alloc::System.alloc(l) };
        }
        let color = if mode == 2 {
            (COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 64) * 64
        } else {
            0
        };
        let base = unsafe {
            std::alloc::System
                .alloc(std::alloc::Layout::from_size_align(l.size() + 4096, 4096).unwrap())
        };
        if base.is_null() {
            return base;
        }
        unsafe { base.add(color) }
    }
    unsafe fn alloc_zeroed(&self, l: std::alloc::Layout) -> *mut u8 {
        let mode = MODE.load(std::sync::atomic::Ordering::Relaxed);
        if mode == 3 {
            CNT[0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        if mode == 0 || mode == 3 || l.size() < BIG {
            return unsafe { std::alloc::System.alloc_zeroed(l) };
        }
        let p = unsafe { self.alloc(l) };
        if !p.is_null() {
            unsafe { std::ptr::write_bytes(p, 0, l.size()) };
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: std::alloc::Layout) {
        let mode = MODE.load(std::sync::atomic::Ordering::Relaxed);
        if mode == 3 {
            CNT[1].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        if mode == 0 || mode == 3 || l.size() < BIG {
            return unsafe { std::alloc::System.dealloc(p, l) };
        }
        let base = ((p as usize) & !4095) as *mut u8;
        unsafe {
            std::alloc::System.dealloc(
                base,
                std::alloc::Layout::from_size_align(l.size() + 4096, 4096).unwrap(),
            )
        }
    }
}
#[global_allocator]
static GLOBAL: PadAlloc = PadAlloc;

fn ck() {
    let source = format!("WIDTH = 8\n{}", include_str!("../programs/meshwork.s"));
    let config = Config {
        tracing: true,
        ..Config::default()
    };
    let program = assemble(
        &source,
        &CycleTable::new(config.chip, 0),
        config.chip.mem_start(),
    )
    .unwrap();
    let topology = Topology::parse("mesh 8x8").unwrap();
    let mut net = Network::new(topology, config.clone());
    net.load_all(&program.code).unwrap();
    net.run(2_000_000).unwrap();
    for round in 0..5 {
        let t = std::time::Instant::now();
        let mut n = 0;
        for _ in 0..100 {
            let cks: Vec<_> = net.nodes.iter_mut().map(|node| node.checkpoint()).collect();
            for node in net.nodes.iter_mut() {
                node.commit();
            }
            n += cks.len();
            drop(cks);
        }
        println!(
            "round {round}: {:.0} ns per checkpoint+commit",
            t.elapsed().as_nanos() as f64 / n as f64
        );
    }
    let t = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..100 {
        for node in net.nodes.iter_mut() {
            let _ = node.events.mark();
            n += 1;
        }
    }
    println!("mark: {:.0} ns", t.elapsed().as_nanos() as f64 / n as f64);
}

fn minflt() -> u64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap();
    let rest = &s[s.rfind(')').unwrap() + 2..];
    rest.split(' ').nth(7).unwrap().parse().unwrap()
}

fn inter() {
    let source = format!("WIDTH = 8\n{}", include_str!("../programs/meshwork.s"));
    let config = Config {
        tracing: true,
        ..Config::default()
    };
    let program = assemble(
        &source,
        &CycleTable::new(config.chip, 0),
        config.chip.mem_start(),
    )
    .unwrap();
    let mut r = Vec::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..30 {
        let mut t = [0.0; 2];
        for (k, w) in [1usize, 2].into_iter().enumerate() {
            let mut net = Network::new(Topology::parse("mesh 8x8").unwrap(), config.clone());
            net.load_all(&program.code).unwrap();
            let s = std::time::Instant::now();
            net.run_parallel(u64::MAX, w).unwrap();
            t[k] = s.elapsed().as_secs_f64() * 1e3;
        }
        a.push(t[0]);
        b.push(t[1]);
        r.push(t[0] / t[1]);
    }
    for v in [&mut a, &mut b, &mut r] {
        v.sort_by(f64::total_cmp);
    }
    eprintln!(
        "INTER 1: median {:.2} | 2: median {:.2} | ratio median {:.3} quartiles {:.3} {:.3}",
        a[15], b[15], r[15], r[7], r[22]
    );
}
