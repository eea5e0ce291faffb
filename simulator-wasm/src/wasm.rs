//! The thin wasm-bindgen wrapper around the pure core: it converts types and nothing else.
//! The page's Web Worker (`static/sim-worker.js`) drives a [`Simulation`] in slices.

use wasm_bindgen::prelude::{JsError, wasm_bindgen};

use crate::network::Outcome;
use crate::session::{Program, Session, Setup, chip};

/// An assembly program running on a network, for JavaScript.
#[wasm_bindgen]
pub struct Simulation(Session);

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
        Ok(Simulation(Session::new(&program, &setup)?))
    }

    /// Runs at most `slice_ns` more virtual time; true once the run has ended.
    pub fn advance(&mut self, slice_ns: f64) -> Result<bool, JsError> {
        Ok(self.0.advance(slice_ns.max(1.0) as u64)?.is_some())
    }

    /// The fraction of the time asked for that has run.
    pub fn progress(&self) -> f64 {
        self.0.progress()
    }

    /// Virtual time, nanoseconds.
    pub fn nanoseconds(&self) -> f64 {
        self.0.network.nanoseconds() as f64
    }

    /// Instructions executed by all nodes.
    pub fn instructions(&self) -> f64 {
        self.0.network.instructions() as f64
    }

    /// Nodes in the network.
    pub fn nodes(&self) -> u32 {
        self.0.network.nodes.len() as u32
    }

    /// What the program wrote through the host.
    pub fn output(&self) -> String {
        self.0.output()
    }

    /// `exited N`, `idle`, `until`, or `running`.
    pub fn outcome(&self) -> String {
        match self.0.outcome {
            Some(Outcome::Exited(status)) => format!("exited {status}"),
            Some(Outcome::Idle) => "idle".to_owned(),
            Some(Outcome::Until) => "until".to_owned(),
            None => "running".to_owned(),
        }
    }

    /// The names of the files the program wrote (its in-memory sandbox), in order.
    pub fn written_files(&self) -> Vec<String> {
        self.0
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
        self.0
            .files()
            .and_then(|(files, _)| files.get(name).cloned())
            .unwrap_or_default()
    }

    /// The trace so far in Tracescope's JSON format, named `name`.
    pub fn trace_json(&self, name: &str) -> Result<String, JsError> {
        let trace = crate::trace::to_trace(&self.0.network, name)?;
        Ok(shared::formats::native::write(&trace))
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

/// A program for warming the emulator up: a 2×2 mesh computing and passing words over its
/// links (`programs/meshwork.s`), long enough to run for as long as the caller likes. The
/// worker runs it for a few tens of milliseconds as it loads, so the browser has compiled the
/// emulator's hot code with its optimising compiler before the user's first run.
#[wasm_bindgen]
pub fn warm_up_source() -> String {
    format!(
        "WIDTH = 2\n{}",
        include_str!("../programs/meshwork.s").replace("ROUNDS = 20", "ROUNDS = 100000")
    )
}
