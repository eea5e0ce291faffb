//! The demo gallery: the founding papers' case studies (and a few classics) as commented occam
//! programs, each with the network it runs on, the node counts it takes, and a paragraph on
//! what to look for and which analysis shows it. The command line runs them as `tracescope
//! simulate demo:NAME [--nodes N]`; the Simulator page opens them with one click.
//!
//! A demo's variants (the ray tracer's four versions, the image reconstruction before and
//! after batching) are one program with its constants set: the source shown is the program
//! with those `VAL` lines rewritten, so what the user edits is what runs.

use crate::error::SimError;
use crate::session::{Program, Setup};

/// A demo as the Simulator page's gallery lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listing {
    pub name: &'static str,
    pub title: &'static str,
    pub origin: &'static str,
    pub about: &'static str,
    /// The program with its constants set.
    pub source: String,
    /// The node counts it runs on (the first the default) and the network for each.
    pub nodes: Vec<u32>,
    pub networks: Vec<String>,
    /// How long it may run, virtual nanoseconds.
    pub until_ns: u64,
    /// The view its run opens on.
    pub start: shared::view::state::StartView,
}

/// The gallery: every demo with its program and networks.
pub fn listing() -> Vec<Listing> {
    DEMOS
        .iter()
        .map(|d| Listing {
            name: d.name,
            title: d.title,
            origin: d.origin,
            about: d.about,
            source: d.source(),
            nodes: d.nodes.to_vec(),
            networks: d.nodes.iter().map(|&n| (d.network)(n)).collect(),
            until_ns: d.until_ns,
            start: d.start.view(),
        })
        .collect()
}

/// One demo.
#[derive(Debug, Clone, Copy)]
pub struct Demo {
    /// Its name on the command line (`demo:NAME`).
    pub name: &'static str,
    /// Its title in the gallery.
    pub title: &'static str,
    /// The case study it comes from.
    pub origin: &'static str,
    /// What to look for, and which analysis shows it.
    pub about: &'static str,
    /// The program.
    source: &'static str,
    /// Constants set in the program (`VAL INT NAME IS value:` lines rewritten).
    settings: &'static [(&'static str, &'static str)],
    /// The node counts it runs on; the first is the default.
    pub nodes: &'static [u32],
    /// The network for a node count.
    network: fn(u32) -> String,
    /// How long it may run, virtual nanoseconds.
    pub until_ns: u64,
    /// The view its run opens on: the one that shows what it teaches.
    pub start: Start,
}

/// A demo's starting view (`shared::view::state::StartView`, in static form): the rows named
/// (a name takes its instances: `servant` takes `servant @ T800 #3`), messages shown or not,
/// the critical path drawn or not, a window as fractions of the run, and what it shows.
#[derive(Debug, Clone, Copy)]
pub struct Start {
    pub rows: &'static [&'static str],
    pub hide_messages: bool,
    pub critical_path: bool,
    pub window: Option<(f64, f64)>,
    pub lesson: &'static str,
}

impl Start {
    /// As the page and the command line take it.
    pub fn view(&self) -> shared::view::state::StartView {
        shared::view::state::StartView {
            rows: self.rows.iter().map(|r| (*r).to_owned()).collect(),
            hide_messages: self.hide_messages,
            critical_path: self.critical_path,
            window: self.window,
            lesson: self.lesson.to_owned(),
        }
    }
}

/// COMSTIME: a few iterations of the ring, close enough to see each process run, wait for the
/// processor and block in its channels.
const COMSTIME_START: Start = Start {
    rows: &["prefix", "delta", "successor", "consumer"],
    hide_messages: false,
    critical_path: false,
    window: Some((0.5, 0.504)),
    lesson: "four iterations of the ring: each process blocked in its channels or ready for the \
        processor most of the time",
};

/// The farms: the servants and the farmer unfolded, the messages out of the way, so the
/// servants' idle time is what the eye meets.
const FARM_START: Start = Start {
    rows: &["farmer", "servant"],
    hide_messages: true,
    critical_path: false,
    window: None,
    lesson: "the farmer and the servants: how much of the run each servant waited for work",
};

/// The image reconstruction: its workers and their messages, batched or not.
const IMAGE_START: Start = Start {
    rows: &["read", "distribute", "gatherer"],
    hide_messages: false,
    critical_path: false,
    window: None,
    lesson: "the reader, the distributors and the gatherers with their messages",
};

/// Verify: every processor, with the critical path through its logging.
const VERIFY_START: Start = Start {
    rows: &["verify"],
    hide_messages: false,
    critical_path: true,
    window: None,
    lesson: "every processor with the critical path: where the logging holds the run up",
};

/// Every process unfolded.
const ALL_UNFOLDED: Start = Start {
    rows: &[],
    hide_messages: false,
    critical_path: false,
    window: None,
    lesson: "every process, unfolded",
};

/// The systolic array: its cells, unfolded.
const MATMUL_START: Start = Start {
    rows: &["cell"],
    hide_messages: false,
    critical_path: false,
    window: None,
    lesson: "the array's cells and the values flowing through them",
};

fn pipe(n: u32) -> String {
    if n == 1 {
        "single".to_owned()
    } else {
        format!("pipe {n}")
    }
}

fn square_mesh(n: u32) -> String {
    let side = (1..=16).rev().find(|s| s * s <= n).unwrap_or(1);
    format!("mesh {side}x{side}")
}

/// A cylinder of `n` nodes: 4 wide (as wide as fits when fewer), wrapping east–west.
fn cylinder(n: u32) -> String {
    let width = n.min(4);
    format!("cylinder {width}x{}", n.div_ceil(width))
}

fn ring(n: u32) -> String {
    format!("ring {n}")
}

fn single(_: u32) -> String {
    "single".to_owned()
}

const RAYTRACER: &str = include_str!("../programs/demos/raytracer.occ");
const IMAGE: &str = include_str!("../programs/demos/image.occ");
const RAY_ABOUT: &str = "A farmer hands out bundles of rays along a chain of processors; each \
    processor's servant shades them. Open the Gantt chart: the servants' busy time (and their \
    NPT share) shows how much of the run they computed rather than waited. Compare the versions \
    with the run comparison: mailboxes and agents keep a servant supplied while its last result \
    travels; bundles cut the number of messages fifty- or a hundredfold.";

/// Every demo, in gallery order.
pub const DEMOS: &[Demo] = &[
    Demo {
        name: "comstime",
        title: "COMSTIME: a communication's cost",
        origin: "INMOS's communication-time benchmark",
        about: "Four processes pass a number round a ring on one T800: prefix, delta (two \
            outputs in PAR), successor and consumer. The consumer brackets 1,000 iterations \
            with probes: the time between them over 1,000 is the cost of one iteration, four \
            communications and their context switches (a real T800-20 takes about 15 µs). In \
            the Gantt chart every process is blocked almost all the time: each communication \
            waits for its partner.",
        source: include_str!("../programs/comstime.occ"),
        settings: &[],
        nodes: &[1],
        network: single,
        until_ns: 100_000_000,
        start: COMSTIME_START,
    },
    Demo {
        name: "raytracer",
        title: "Ray tracer farm (SUPRENUM)",
        origin: "Siegle and Hofmann, Monitoring Program Behaviour on SUPRENUM (1992)",
        about: RAY_ABOUT,
        source: RAYTRACER,
        settings: &[],
        nodes: &[8, 1, 2, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: FARM_START,
    },
    Demo {
        name: "raytracer-mailbox",
        title: "Ray tracer: mailboxes",
        origin: "Siegle and Hofmann, Monitoring Program Behaviour on SUPRENUM (1992)",
        about: RAY_ABOUT,
        source: RAYTRACER,
        settings: &[("SLOTS", "2"), ("MAILBOX", "TRUE")],
        nodes: &[8, 1, 2, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: FARM_START,
    },
    Demo {
        name: "raytracer-agents",
        title: "Ray tracer: communication agents",
        origin: "Siegle and Hofmann, Monitoring Program Behaviour on SUPRENUM (1992)",
        about: RAY_ABOUT,
        source: RAYTRACER,
        settings: &[("SLOTS", "2"), ("MAILBOX", "TRUE"), ("AGENT", "TRUE")],
        nodes: &[8, 1, 2, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: FARM_START,
    },
    Demo {
        name: "raytracer-bundles-50",
        title: "Ray tracer: bundles of 50 rays",
        origin: "Siegle and Hofmann, Monitoring Program Behaviour on SUPRENUM (1992)",
        about: RAY_ABOUT,
        source: RAYTRACER,
        settings: &[
            ("SLOTS", "2"),
            ("MAILBOX", "TRUE"),
            ("AGENT", "TRUE"),
            ("BUNDLE", "50"),
        ],
        nodes: &[8, 1, 2, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: FARM_START,
    },
    Demo {
        name: "raytracer-bundles-100",
        title: "Ray tracer: bundles of 100 rays",
        origin: "Siegle and Hofmann, Monitoring Program Behaviour on SUPRENUM (1992)",
        about: RAY_ABOUT,
        source: RAYTRACER,
        settings: &[
            ("SLOTS", "2"),
            ("MAILBOX", "TRUE"),
            ("AGENT", "TRUE"),
            ("BUNDLE", "100"),
        ],
        nodes: &[8, 1, 2, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: FARM_START,
    },
    Demo {
        name: "image",
        title: "Image reconstruction (Tmon)",
        origin: "Jiang, Performance monitoring in transputer-based multicomputer networks \
            (1990), chapter 6",
        about: "A master reads an image, sends each processor of a cylinder its subimage, \
            gathers the results and writes the image; the messages travel hop by hop along a \
            path through the cylinder. Probes mark the phases: read, distribute, compute, \
            gather, write. The WCPA phase table (analysis panel) weights each phase on the \
            critical path: here distributing and gathering weigh most, because every column \
            is a message of its own. The batched version sends a subimage in one message: \
            compare the two runs.",
        source: IMAGE,
        settings: &[],
        nodes: &[16, 4, 8],
        network: cylinder,
        until_ns: 10_000_000_000,
        start: IMAGE_START,
    },
    Demo {
        name: "image-batched",
        title: "Image reconstruction, batched",
        origin: "Jiang, Performance monitoring in transputer-based multicomputer networks \
            (1990), chapter 6",
        about: "The same program with each subimage sent as one message (the thesis's fix: \
            messages of up to 800 bytes instead of one per 60-byte column). The thesis \
            measured the run 55 % faster and the distribution and gathering phases' weight \
            on the critical path falling from 52 % to 39 %; compare this run with the \
            unbatched one.",
        source: IMAGE,
        settings: &[("BATCHED", "TRUE")],
        nodes: &[16, 4, 8],
        network: cylinder,
        until_ns: 10_000_000_000,
        start: IMAGE_START,
    },
    Demo {
        name: "verify",
        title: "Verify (Quartz)",
        origin: "Anderson and Lazowska, Quartz: A Tool for Tuning Parallel Program Performance \
            (1989)",
        about: "Processor 0 reads two circuits and builds the cones to compare, logging every \
            structure it creates, while the others wait; then every processor compares its \
            share. The NPT ranking (analysis panel) charges each phase its processor time \
            divided by how many processors were busy: create_cone, a few per cent of the CPU \
            time, weighs some 40 % of the run on 8 processors, as the logging did in Quartz's \
            Verify. Compare with verify-no-logging.",
        source: include_str!("../programs/demos/verify.occ"),
        settings: &[],
        nodes: &[8, 1, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: VERIFY_START,
    },
    Demo {
        name: "verify-no-logging",
        title: "Verify without its logging",
        origin: "Anderson and Lazowska, Quartz: A Tool for Tuning Parallel Program Performance \
            (1989)",
        about: "The same workload with the logging turned off, Quartz's first fix (speedup 9.2 \
            to 12.2 on 18 processors): the serial start shrinks, and the NPT ranking now puts \
            the parallel comparison on top.",
        source: include_str!("../programs/demos/verify.occ"),
        settings: &[("LOGGING", "FALSE")],
        nodes: &[8, 1, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: VERIFY_START,
    },
    Demo {
        name: "hopfield",
        title: "Hopfield net on a ring (IPPM)",
        origin: "Brandis, IPPM: Interactive Parallel Program Monitor (1986)",
        about: "Each processor owns a block of the net's neurons. Every round they gather all \
            the neurons' states round the ring, a block a step, then update their own; the \
            flips (probe tags) fall to nothing as the net settles. The Hasse diagram shows \
            the lattice of each round's exchange; the wait states and the blocked-time \
            histogram show every processor waiting for its neighbour, and the WCPA phase \
            table weighs the exchange against the update.",
        source: include_str!("../programs/demos/hopfield.occ"),
        settings: &[],
        nodes: &[4, 2, 8, 16],
        network: ring,
        until_ns: 10_000_000_000,
        start: ALL_UNFOLDED,
    },
    Demo {
        name: "sieve",
        title: "Prime sieve pipeline",
        origin: "a classic of occam teaching",
        about: "Numbers flow down a pipeline of processors; each keeps the first primes it \
            sees and passes on what they do not divide. The first stages do almost all the \
            work: the Gantt chart shows them busy and the last ones waiting, and the NPT \
            ranking puts the first filter on top. A pipeline is as fast as its slowest stage.",
        source: include_str!("../programs/demos/sieve.occ"),
        settings: &[],
        nodes: &[8, 3, 4, 16],
        network: pipe,
        until_ns: 10_000_000_000,
        start: ALL_UNFOLDED,
    },
    Demo {
        name: "matmul",
        title: "Systolic matrix multiply",
        origin: "a classic of systolic arrays",
        about: "Each processor of a square mesh computes one element of C = A × B: rows of A \
            flow east, columns of B flow south, every cell multiplies what passes it and \
            passes it on. In the Gantt chart the computation ripples from the north-west \
            corner as a wavefront; the Hasse diagram shows the grid of dependences.",
        source: include_str!("../programs/demos/matmul.occ"),
        settings: &[],
        nodes: &[16, 4, 9],
        network: square_mesh,
        until_ns: 10_000_000_000,
        start: MATMUL_START,
    },
];

/// The demo named `name`.
pub fn find(name: &str) -> Option<&'static Demo> {
    DEMOS.iter().find(|d| d.name == name)
}

impl Demo {
    /// The program as it runs: the source with the demo's constants set.
    pub fn source(&self) -> String {
        let mut out = String::with_capacity(self.source.len());
        for line in self.source.lines() {
            let set = self.settings.iter().find_map(|(name, value)| {
                let rest = line
                    .strip_prefix("VAL INT ")
                    .or_else(|| line.strip_prefix("VAL BOOL "))?;
                let value_at = rest.strip_prefix(name)?.strip_prefix(" IS ")?;
                value_at.ends_with(':').then(|| {
                    let head = &line[..line.len() - value_at.len()];
                    format!("{head}{value}:")
                })
            });
            out.push_str(set.as_deref().unwrap_or(line));
            out.push('\n');
        }
        out
    }

    /// The network for `nodes` (the default count when none).
    pub fn network(&self, nodes: Option<u32>) -> Result<String, SimError> {
        let n = nodes.unwrap_or(self.nodes[0]);
        if !self.nodes.contains(&n) {
            return Err(SimError::Network {
                message: format!(
                    "demo {} runs on {} nodes, not {n}",
                    self.name,
                    self.nodes
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        Ok((self.network)(n))
    }

    /// The program and the setup it runs with on `nodes`.
    pub fn setup(&self, nodes: Option<u32>) -> Result<(Program, Setup), SimError> {
        let setup = Setup {
            topology: self.network(nodes)?,
            until_ns: self.until_ns,
            ..Setup::default()
        };
        Ok((Program::Occam(self.source()), setup))
    }
}
