//! The thin wasm-bindgen wrapper around the pure core: it converts types and nothing else.
//! The page's Web Worker (`static/sim-worker.js`) drives a [`Simulation`] in slices.

use wasm_bindgen::prelude::{JsError, JsValue, wasm_bindgen};

use crate::network::Outcome;
use crate::network::parallel::share::{BytesFabric, Transport};
use crate::session::{Program, Session, Setup, chip};

#[wasm_bindgen]
extern "C" {
    /// The page's meeting place for the workers of a shared run (`static/sim-share.js`'s
    /// `Share`): moves one round's bytes through a `SharedArrayBuffer`.
    pub type Share;

    /// Sends this worker's round (see [`crate::network::parallel::share::Transport`]), waits
    /// for the others, and answers how many bytes came back (read with [`Share::receive`]).
    #[wasm_bindgen(method, catch)]
    fn exchange(this: &Share, out: &[u8]) -> Result<u32, JsValue>;

    /// Copies the bytes that came back in the last exchange into `into`.
    #[wasm_bindgen(method)]
    fn receive(this: &Share, into: &mut [u8]);
}

/// A [`Share`] as the core's [`Transport`].
struct ShareTransport(Share);

impl Transport for ShareTransport {
    fn exchange(&mut self, out: &[u8], into: &mut Vec<u8>) -> Result<(), String> {
        let len = self.0.exchange(out).map_err(|e| {
            e.as_string()
                .unwrap_or_else(|| "a worker stopped".to_owned())
        })? as usize;
        into.resize(len, 0);
        self.0.receive(into);
        Ok(())
    }
}

/// An assembly program running on a network, for JavaScript.
#[wasm_bindgen]
pub struct Simulation {
    session: Session,
    /// Set when this copy runs one part of a run shared among workers.
    share: Option<BytesFabric<ShareTransport>>,
}

#[wasm_bindgen]
impl Simulation {
    /// Assembles `source` (or compiles it, when `language` is `occam`) and loads it into
    /// every node of `topology`; `tracing` says whether events are recorded; `keys` (with
    /// `\r`, `\n`, `\t`, `\\`, `\xNN` escapes) are what the program reads from the keyboard.
    #[wasm_bindgen(constructor)]
    pub fn new(
        language: &str,
        source: &str,
        topology: &str,
        chip_name: &str,
        mhz: u32,
        link_mbit: u32,
        until_ns: f64,
        tracing: bool,
        keys: &str,
    ) -> Result<Simulation, JsError> {
        let setup = Setup {
            topology: topology.to_owned(),
            chip: chip(chip_name)?,
            mhz,
            link_mbit,
            until_ns: until_ns.max(0.0) as u64,
            tracing,
            keys: crate::session::parse_keys(keys)?,
            ..Setup::default()
        };
        let program = if language == "occam" {
            Program::Occam(source.to_owned())
        } else {
            Program::Assembly(source.to_owned())
        };
        Ok(Simulation {
            session: Session::new(&program, &setup)?,
            share: None,
        })
    }

    /// Runs at most `slice_ns` more virtual time; true once the run has ended. (A worker of
    /// a shared run uses [`Simulation::slice_end`] and [`Simulation::advance_to`].)
    pub fn advance(&mut self, slice_ns: f64) -> Result<bool, JsError> {
        let to = self.session.slice_end(slice_ns.max(1.0) as u64);
        self.advance_to(to)
    }

    /// Makes this copy worker `me` of `workers` (at most one a node) of a run shared through
    /// `share`: it runs its part of the nodes from now on, worker 0 with the host. Every
    /// worker must load the same program with the same settings. Answers the number of
    /// workers the run has.
    pub fn join(&mut self, share: Share, me: u32, workers: u32) -> u32 {
        let nodes = self.session.network.nodes.len();
        let fabric = BytesFabric::new(ShareTransport(share), me as usize, workers as usize, nodes);
        let count = fabric.workers() as u32;
        self.share = Some(fabric);
        count
    }

    /// The workers the run is shared among (1 when it is not).
    pub fn workers(&self) -> u32 {
        self.share.as_ref().map_or(1, |f| f.workers() as u32)
    }

    /// Where a slice of at most `slice_ns` more virtual time ends, picoseconds: what worker
    /// 0 of a shared run tells the others to run to.
    pub fn slice_end(&self, slice_ns: f64) -> u64 {
        self.session.slice_end(slice_ns.max(1.0) as u64)
    }

    /// Runs to `to_ps` (a [`Simulation::slice_end`]); true once the run has ended.
    pub fn advance_to(&mut self, to_ps: u64) -> Result<bool, JsError> {
        let ended = match &mut self.share {
            Some(fabric) => self
                .session
                .advance_to(to_ps, |network, to| network.run_share(to, fabric))?,
            None => {
                let workers = self.session.workers;
                self.session
                    .advance_to(to_ps, |network, to| network.run_parallel(to, workers))?
            }
        };
        Ok(ended.is_some())
    }

    /// Instructions executed by this worker's nodes (all nodes when the run is not shared).
    pub fn own_instructions(&self) -> f64 {
        self.session.network.nodes[self.own_nodes()]
            .iter()
            .map(|n| n.instructions as f64)
            .sum()
    }

    /// This worker's record of its nodes, for worker 0's [`Simulation::import_part`].
    pub fn export_part(&self) -> Vec<u8> {
        self.session.network.export_part(self.own_nodes())
    }

    /// Takes in another worker's record ([`Simulation::export_part`]).
    pub fn import_part(&mut self, record: &[u8]) -> Result<(), JsError> {
        Ok(self.session.network.import_part(record)?)
    }

    /// The fraction of the time asked for that has run.
    pub fn progress(&self) -> f64 {
        self.session.progress()
    }

    /// Virtual time, nanoseconds.
    pub fn nanoseconds(&self) -> f64 {
        self.session.network.nanoseconds() as f64
    }

    /// Instructions executed by all nodes.
    pub fn instructions(&self) -> f64 {
        self.session.network.instructions() as f64
    }

    /// Nodes in the network.
    pub fn nodes(&self) -> u32 {
        self.session.network.nodes.len() as u32
    }

    /// What the program wrote through the host.
    pub fn output(&self) -> String {
        self.session.output()
    }

    /// `exited N`, `idle`, `until`, or `running`.
    pub fn outcome(&self) -> String {
        match self.session.outcome {
            Some(Outcome::Exited(status)) => format!("exited {status}"),
            Some(Outcome::Idle) => "idle".to_owned(),
            Some(Outcome::Until) => "until".to_owned(),
            None => "running".to_owned(),
        }
    }

    /// The names of the files the program wrote (its in-memory sandbox), in order.
    pub fn written_files(&self) -> Vec<String> {
        self.session
            .files()
            .map(|(files, written)| {
                written
                    .iter()
                    .filter(|n| files.contains_key(*n))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The contents of file `name` (empty when there is none).
    pub fn file_bytes(&self, name: &str) -> Vec<u8> {
        self.session
            .files()
            .and_then(|(files, _)| files.get(name).cloned())
            .unwrap_or_default()
    }

    /// The trace so far in Tracescope's binary format, named `name`: a tenth of the JSON's
    /// size, handed to the page without copying, and with no limit but memory (a JSON text
    /// of a long traced run passed what a JavaScript string may hold).
    pub fn trace_binary(&self, name: &str) -> Result<Vec<u8>, JsError> {
        let trace = crate::trace::to_trace(&self.session.network, name)?;
        Ok(shared::formats::binary::write(&trace))
    }
}

impl Simulation {
    /// The nodes this worker runs: all of them when the run is not shared.
    fn own_nodes(&self) -> std::ops::Range<usize> {
        let all = 0..self.session.network.nodes.len();
        self.share.as_ref().map_or(all, |f| f.own_nodes())
    }
}

/// The demo gallery as JSON: every demo's name, title, origin, paragraph, program, node counts
/// and networks.
#[wasm_bindgen]
pub fn demos_json() -> Result<String, JsError> {
    Ok(serde_json::to_string(&crate::demos::listing())?)
}

/// Compiles occam `source` for `topology` without running it: the error (`occam, line L,
/// column C: …`), or an empty string when it compiles.
#[wasm_bindgen]
pub fn check_occam(source: &str, topology: &str) -> String {
    let topology = match crate::topology::Topology::parse(topology) {
        Ok(t) => t,
        Err(e) => return e.to_string(),
    };
    match crate::occam::compile_for(source, &topology) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

/// A program for warming the emulator up: a `width`×`width` mesh (2 to 8 wide) computing and
/// passing words over its links (`programs/meshwork.s`), long enough to run for as long as the
/// caller likes. The worker runs it for a few hundred milliseconds as it loads, and again
/// shared among its helpers when the user picks several workers, so the browser has compiled
/// the emulator's hot code with its optimising compiler before the user's first run.
#[wasm_bindgen]
pub fn warm_up_source(width: u32) -> String {
    format!(
        "WIDTH = {}\n{}",
        width.clamp(2, 8),
        include_str!("../programs/meshwork.s").replace("ROUNDS = 20", "ROUNDS = 100000")
    )
}
