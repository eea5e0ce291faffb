use simulator_wasm::asm::assemble;
use simulator_wasm::cpu::Node;
use simulator_wasm::isa::Chip;
fn main() {
    let n: u32 = std::env::args()
        .nth(1)
        .map_or(100000, |a| a.parse().unwrap());
    let tracing = std::env::var_os("TRACE").is_some();
    let src = include_str!("../programs/comstime.s");
    let re = src
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("N =") || l.starts_with("N=") {
                format!("N = {n}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    for _ in 0..5 {
        let mut node = Node::new(Chip::T800, 20_000_000, 64 * 1024);
        node.tracing = tracing;
        let t0 = std::time::Instant::now();
        let program = assemble(&re, &node.table, 0x8000_1000).unwrap();
        node.boot(0x8000_1000, &program.code, 0x8000_7F00).unwrap();
        let t1 = std::time::Instant::now();
        node.run(u64::MAX / 4).unwrap();
        let t = t1.elapsed().as_secs_f64();
        if std::env::var_os("KINDS").is_some() {
            kinds(&node);
        }
        println!(
            "events {} setup {:.1} us, {} instructions in {:.2} ms: {:.1} M/s",
            node.events.len(),
            (t1 - t0).as_secs_f64() * 1e6,
            node.instructions,
            t * 1e3,
            node.instructions as f64 / t / 1e6
        );
    }
}
#[allow(dead_code)]
pub fn kinds(node: &Node) {
    let mut m = std::collections::BTreeMap::new();
    for e in node.events.iter() {
        *m.entry(format!("{:?}", e.kind)).or_insert(0u64) += 1;
    }
    eprintln!("{m:?}");
}
