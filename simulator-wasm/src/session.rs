//! One simulation from start to end, as the command line and the page run it: a program
//! (assembly, loaded into every node, or a boot file streamed by the host into the root), a
//! network, and a run in slices so a caller can report progress.

use crate::asm::assemble;
use crate::error::SimError;
use crate::isa::{Chip, CycleTable};
use crate::network::{Config, Host, Network, Outcome};
use crate::topology::Topology;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Program {
    /// Assembly source: assembled for `MemStart` and loaded into every node, which starts it
    /// with A = its number and B = the number of nodes.
    Assembly(String),
    /// A boot file: the host streams it into the root's link 0; every node boots from a link.
    BootFile(Vec<u8>),
    /// occam source: compiled (see [`crate::occam`]), then loaded as assembly is.
    Occam(String),
}

/// A run's files, by name.
pub type Files = std::collections::BTreeMap<String, Vec<u8>>;

/// How to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// The network, e.g. `mesh 4x4` (see [`Topology::parse`]).
    pub topology: String,
    /// The chip of every node.
    pub chip: Chip,
    /// The processor clock in MHz.
    pub mhz: u32,
    /// Link speed in Mbit/s: 5, 10 or 20.
    pub link_mbit: u32,
    /// Memory of each node in KB (2 MB, a B004/B011 board's, by default).
    pub memory_kb: u32,
    /// Whether an address beyond the installed memory stops the run (else it aliases into
    /// the memory, as the external memory interface does).
    pub strict_memory: bool,
    /// External memory wait states.
    pub wait_states: u32,
    /// Stop at this virtual time, nanoseconds.
    pub until_ns: u64,
    /// The utilization sampling interval, nanoseconds.
    pub sample_ns: u64,
    /// What the host answers to a command-line request.
    pub command_line: String,
    /// Keys the host hands out, in order.
    pub keys: Vec<u8>,
    /// Whether events are recorded.
    pub tracing: bool,
    /// The files the program finds (the iserver's sandbox), by name.
    pub files: std::collections::BTreeMap<String, Vec<u8>>,
    /// Threads the network runs on (native only; the same run whatever the number: see
    /// [`Network::run_parallel`]); 0 chooses ([`auto_workers`]).
    pub workers: usize,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            topology: "single".to_owned(),
            chip: Chip::T800,
            mhz: 20,
            link_mbit: 20,
            memory_kb: 2048,
            strict_memory: false,
            wait_states: 0,
            until_ns: 1_000_000_000,
            sample_ns: 100_000,
            command_line: String::new(),
            keys: Vec::new(),
            tracing: true,
            files: std::collections::BTreeMap::new(),
            workers: 1,
        }
    }
}

/// A simulation under way.
#[derive(Debug, Clone)]
pub struct Session {
    /// The network.
    pub network: Network,
    until_ps: u64,
    /// How the run ended, once it has.
    pub outcome: Option<Outcome>,
    /// Threads the network runs on.
    pub workers: usize,
}

/// Nodes a worker thread needs to pay for meeting the others at every window: with fewer, one
/// thread is faster (measured: a 16-node mesh runs at 0.8× on two threads, a 64-node one at
/// 1.5×; `cargo bench -p simulator-wasm --bench emulator -- workers`).
pub const NODES_PER_WORKER: usize = 32;

/// The threads a network of `nodes` runs on when the caller does not say: one per
/// [`NODES_PER_WORKER`] nodes, at most one per core.
pub fn auto_workers(nodes: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (nodes / NODES_PER_WORKER).clamp(1, cores)
}

/// Reads a virtual duration: `250us`, `10ms`, `1s`, `500ns` (a bare number is nanoseconds).
pub fn parse_duration_ns(text: &str) -> Result<u64, SimError> {
    shared::model::time::parse_duration_ns(text).map_err(|message| SimError::Network { message })
}

impl Session {
    /// Builds the network and loads the program.
    pub fn new(program: &Program, setup: &Setup) -> Result<Session, SimError> {
        if !matches!(setup.link_mbit, 5 | 10 | 20) {
            return Err(SimError::Network {
                message: format!("links run at 5, 10 or 20 Mbit/s, not {}", setup.link_mbit),
            });
        }
        if setup.mhz == 0 || setup.mhz > 100 {
            return Err(SimError::Network {
                message: format!("a clock of {} MHz: expected 1 to 100", setup.mhz),
            });
        }
        let topology = Topology::parse(&setup.topology)?;
        let memory_bytes = setup.memory_kb.clamp(4, 16 * 1024) * 1024;
        let config = Config {
            chip: setup.chip,
            clock_hz: u64::from(setup.mhz) * 1_000_000,
            link_mbit: setup.link_mbit,
            memory_bytes,
            strict_memory: setup.strict_memory,
            wait_states: setup.wait_states,
            sample_ps: setup.sample_ns.max(1).saturating_mul(1_000),
            tracing: setup.tracing,
        };
        let mut network = Network::new(topology.clone(), config);
        let boot: &[u8] = match program {
            Program::Assembly(source) => {
                let table = CycleTable::new(setup.chip, setup.wait_states);
                let program = assemble(source, &table, setup.chip.mem_start())?;
                network.load_program(&program)?;
                &[]
            }
            Program::Occam(source) => {
                let assembly = crate::occam::compile_for(source, &topology).map_err(|e| {
                    SimError::Network {
                        message: e.to_string(),
                    }
                })?;
                let table = CycleTable::new(setup.chip, setup.wait_states);
                let program = assemble(&assembly, &table, setup.chip.mem_start())?;
                network.load_program(&program)?;
                &[]
            }
            Program::BootFile(bytes) => {
                if bytes.first().is_none_or(|&n| n < 2) {
                    return Err(SimError::Boot {
                        message: "a boot file starts with its first code block's length (2 to \
                                  255)"
                            .to_owned(),
                    });
                }
                network.await_boot()?;
                bytes
            }
        };
        let mut host = Host::new(
            network.link_timing(),
            boot,
            &setup.command_line,
            &setup.keys,
        );
        host.server.board_size = memory_bytes;
        host.server.files = setup.files.clone();
        network.attach_host(host);
        let network_nodes = network.nodes.len();
        Ok(Session {
            network,
            until_ps: setup.until_ns.saturating_mul(1_000),
            outcome: None,
            workers: match setup.workers {
                0 => auto_workers(network_nodes),
                n => n,
            },
        })
    }

    /// Runs at most `slice_ns` more virtual time; returns how the run ended once it has.
    pub fn advance(&mut self, slice_ns: u64) -> Result<Option<Outcome>, SimError> {
        let to = self.slice_end(slice_ns);
        let workers = self.workers;
        self.advance_to(to, |network, to| network.run_parallel(to, workers))
    }

    /// Where a slice of at most `slice_ns` more virtual time ends, picoseconds: a point of
    /// the window grid, or the end of the run.
    pub fn slice_end(&self, slice_ns: u64) -> u64 {
        self.network
            .grid_at_or_after(
                self.network
                    .time_ps
                    .saturating_add(slice_ns.saturating_mul(1_000)),
            )
            .min(self.until_ps)
    }

    /// Runs to `to_ps` (a [`Session::slice_end`]) by `run` — [`Network::run_parallel`], or
    /// [`Network::run_share`] on a worker of a run shared among copies of the network —
    /// and returns how the run ended once it has.
    pub fn advance_to(
        &mut self,
        to_ps: u64,
        run: impl FnOnce(&mut Network, u64) -> Result<Outcome, SimError>,
    ) -> Result<Option<Outcome>, SimError> {
        if self.outcome.is_some() {
            return Ok(self.outcome);
        }
        let outcome = run(&mut self.network, to_ps.min(self.until_ps))?;
        if outcome != Outcome::Until || self.network.time_ps >= self.until_ps {
            self.outcome = Some(outcome);
        }
        Ok(self.outcome)
    }

    /// Runs to the end.
    pub fn finish(&mut self) -> Result<Outcome, SimError> {
        loop {
            if let Some(outcome) = self.advance(u64::MAX)? {
                return Ok(outcome);
            }
        }
    }

    /// The fraction of the time asked for that has run.
    pub fn progress(&self) -> f64 {
        if self.until_ps == 0 {
            return 1.0;
        }
        (self.network.time_ps as f64 / self.until_ps as f64).min(1.0)
    }

    /// What the program wrote to the host's screen.
    pub fn output(&self) -> String {
        let bytes = self
            .network
            .host
            .as_ref()
            .map_or(&[][..], |h| &h.server.output);
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// The sandbox's files after the run, and the names the program created, changed or
    /// removed (in order of first change).
    pub fn files(&self) -> Option<(&Files, &[String])> {
        let server = &self.network.host.as_ref()?.server;
        Some((&server.files, &server.written))
    }

    /// The status the program exited with, if it asked the host to exit.
    pub fn exit_status(&self) -> Option<i32> {
        self.network.host.as_ref().and_then(|h| h.server.exit)
    }
}

/// The chip named `name` (`T414`, `T800`, `T805`), as an error the user can read otherwise.
pub fn chip(name: &str) -> Result<Chip, SimError> {
    Chip::from_name(name).ok_or_else(|| SimError::Network {
        message: format!("unknown chip `{name}`: expected T414 or T800"),
    })
}

/// The bytes of a keys text (`--keys`, the Simulator page's keys box): text with the escapes `\r`, `\n`, `\t`, `\\` and `\xNN`.
pub fn parse_keys(text: &str) -> Result<Vec<u8>, SimError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        if bytes[k] != b'\\' {
            out.push(bytes[k]);
            k += 1;
            continue;
        }
        let escape = bytes.get(k + 1).copied();
        let (byte, len) = match escape {
            Some(b'r') => (b'\r', 2),
            Some(b'n') => (b'\n', 2),
            Some(b't') => (b'\t', 2),
            Some(b'\\') => (b'\\', 2),
            Some(b'x') => {
                let hex = text.get(k + 2..k + 4).unwrap_or("");
                let byte = u8::from_str_radix(hex, 16).map_err(|_| SimError::Network {
                    message: format!("keys, column {}: expected two hex digits after \\x", k + 3),
                })?;
                (byte, 4)
            }
            _ => {
                return Err(SimError::Network {
                    message: format!(
                        "keys, column {}: unknown escape; expected \\r, \\n, \\t, \\\\ or \\xNN",
                        k + 1
                    ),
                });
            }
        };
        out.push(byte);
        k += len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_their_units() -> Result<(), SimError> {
        assert_eq!(parse_duration_ns("10ms")?, 10_000_000);
        assert_eq!(parse_duration_ns("250us")?, 250_000);
        assert_eq!(parse_duration_ns("1.5s")?, 1_500_000_000);
        assert_eq!(parse_duration_ns("700")?, 700);
        assert!(parse_duration_ns("3 parsecs").is_err());
        Ok(())
    }
}

#[cfg(test)]
mod key_tests {
    use super::parse_keys;

    #[test]
    fn keys_read_their_escapes() {
        assert_eq!(
            parse_keys("42\\r\\x41\\\\n").ok(),
            Some(b"42\rA\\n".to_vec())
        );
        let e = parse_keys("a\\q").expect_err("unknown escape").to_string();
        assert!(e.contains("column 2"), "{e}");
        assert!(parse_keys("\\x4").is_err());
    }
}
