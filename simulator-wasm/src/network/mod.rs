//! A network of nodes on one virtual clock, run by a deterministic conservative scheme.
//!
//! Every node runs, in node order, to the end of a window no longer than the links'
//! lookahead (the least time from a packet's start bit to its first effect at the other end:
//! 5.5 bit periods, 275 ns at 20 Mbit/s); then the packets put on wires in the window are
//! delivered in node order. A packet started at `t ≥` the window's start acts at its receiver
//! no earlier than `t +` lookahead `≥` the window's end, so no node ever sees the past change,
//! and the same program on the same network gives the same trace, byte for byte. When every
//! node waits (for a timer, a packet or nothing), the clock jumps to the next thing to do.
//!
//! The host (the iserver on the root's link 0, in [`crate::host`]) is a link endpoint like a
//! node.

use crate::clock::cycle_ps;
use crate::cpu::{EventKind, Node};
use crate::error::SimError;
use crate::isa::{Chip, CycleTable};
use crate::link::{LinkTiming, PacketKind};
use crate::topology::{End, Topology};

pub use crate::host::Host;

pub mod parallel;

/// How the network is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The chip of every node.
    pub chip: Chip,
    /// Processor cycles a second.
    pub clock_hz: u64,
    /// Link speed: 5, 10 or 20 Mbit/s.
    pub link_mbit: u32,
    /// Memory of each node in bytes.
    pub memory_bytes: u32,
    /// Whether an address beyond the installed memory is an error (else it aliases into it).
    pub strict_memory: bool,
    /// External memory wait states (cycles added to each memory access off the chip).
    pub wait_states: u32,
    /// The utilization sampling interval in picoseconds.
    pub sample_ps: u64,
    /// Whether the nodes record events.
    pub tracing: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            chip: Chip::T800,
            clock_hz: 20_000_000,
            link_mbit: 20,
            memory_bytes: 2 * 1024 * 1024,
            strict_memory: false,
            wait_states: 0,
            sample_ps: 100_000_000,
            tracing: true,
        }
    }
}

/// What [`Network::free_run_or_jump`] did instead of a window.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// The run is over.
    Done(Outcome),
    /// The clock moved on.
    Moved,
}

/// How a parallel run's workers went ([`Network::stretches`], summed over runs): stretches of
/// windows run alone (see `parallel::speculate`), the windows they kept, and how many times a worker
/// went back to its checkpoint (summed over the workers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stretches {
    /// Stretches run.
    pub stretches: u64,
    /// Windows kept of them.
    pub windows: u64,
    /// Workers sent back to their checkpoint.
    pub rollbacks: u64,
}

impl Stretches {
    pub(crate) fn add(&mut self, more: Stretches) {
        self.stretches += more.stretches;
        self.windows += more.windows;
        self.rollbacks += more.rollbacks;
    }
}

/// How many windows the workers of a parallel run next run alone, replicated: every worker
/// updates it from the same agreed counts, and the network keeps it across runs, so a run in
/// slices paces itself as one in one go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pace {
    /// Windows in the next stretch.
    pub(crate) stretch: usize,
    /// Windows to run in step (meeting after each) before the next stretch.
    pub(crate) cooldown: usize,
    /// The cooldown after the next stretch that stops short.
    penalty: usize,
}

/// The longest stretch of windows a worker runs alone (about 2.3 ms of virtual time at the
/// 20 Mbit/s links' lookahead).
const STRETCH_MAX: usize = 8192;
/// The longest run of windows in step after stretches kept stopping short.
const COOLDOWN_MAX: usize = 256;

impl Pace {
    fn new() -> Pace {
        Pace {
            stretch: 8,
            cooldown: 0,
            penalty: 1,
        }
    }

    /// After a stretch that everyone ran `agreed` windows of.
    pub(crate) fn after(&mut self, agreed: usize) {
        if agreed >= self.stretch {
            self.stretch = (self.stretch * 2).min(STRETCH_MAX);
            self.penalty = 1;
        } else {
            self.stretch = agreed.max(2);
            self.cooldown = self.penalty;
            self.penalty = (self.penalty * 2).min(COOLDOWN_MAX);
        }
    }
}

/// What [`Network::survey`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Survey {
    /// Nodes that can do something now or later on their own (a process, a timer, a link
    /// action).
    active: usize,
    /// The last of them (the only one when `active` is 1).
    runner: usize,
    /// When the first of them, or the host, will act.
    next_ps: Option<u64>,
    /// Whether the host waits for the root (or has exited).
    host_waits: bool,
}

/// What is at the other end of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Peer {
    Unwired,
    Node(End),
    Host,
}

/// Why [`Network::run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The program asked the host to exit with this status.
    Exited(i32),
    /// Every node waits for something that will never come (finished or deadlocked).
    Idle,
    /// The time asked for was reached.
    Until,
}

/// The node number a sample of the host's outgoing wire carries.
pub const HOST_NODE: u32 = u32::MAX;

/// One utilization sample: a node's CPU or one direction of a link (`link` = `Some(k)`: the
/// node's outgoing wire on link `k`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UseSample {
    /// The node ([`HOST_NODE`] for the host's outgoing wire).
    pub node: u32,
    /// `None` for the CPU, else the link whose outgoing direction was measured.
    pub link: Option<u8>,
    /// Start of the period, picoseconds.
    pub start_ps: u64,
    /// End of the period.
    pub end_ps: u64,
    /// Busy fraction, 0 to 1.
    pub utilization: f32,
}

/// A network of transputers, its wiring, an optional host, and its clock.
#[derive(Debug, Clone)]
pub struct Network {
    /// How it was built.
    pub config: Config,
    /// Its wiring.
    pub topology: Topology,
    /// The nodes, in number order.
    pub nodes: Vec<Node>,
    peers: Vec<[Peer; 4]>,
    /// The host on node 0's link 0, when there is one.
    pub host: Option<Host>,
    /// How the parallel runs went (this copy's worker's rollbacks only, in a shared run).
    pub stretches: Stretches,
    /// How long the next parallel run's first stretch is.
    pace: Pace,
    /// The network's time, picoseconds: every node has run at least this far.
    pub time_ps: u64,
    /// Nodes that ended the last window running a process: with two or more, no node runs
    /// free and there is no jump, so the next window needs no survey. Kept across calls of
    /// [`Network::run`], so a run sliced differently makes the same choices.
    busy: usize,
    window_ps: u64,
    /// Utilization samples, by period.
    pub samples: Vec<UseSample>,
    next_sample_ps: u64,
    last_busy: Vec<(u64, [u64; 4])>,
    host_busy: u64,
    /// Within a call of [`Network::run`], each node's [`Doze`]; empty between calls.
    doze: Vec<Doze>,
    /// The loaded program's code labels by address, ascending (empty for a boot file): what
    /// names a process after the code it starts at.
    pub labels: Vec<(u32, String)>,
}

impl Network {
    /// The nodes of `topology`, none running yet.
    pub fn new(topology: Topology, config: Config) -> Network {
        let timing = LinkTiming::new(config.chip, config.link_mbit);
        let nodes = (0..topology.nodes)
            .map(|_| {
                let mut node = Node::new(config.chip, config.clock_hz, config.memory_bytes);
                node.set_aliasing(config.strict_memory);
                node.table = CycleTable::new(config.chip, config.wait_states);
                node.link_timing = timing;
                node.tracing = config.tracing;
                node
            })
            .collect::<Vec<_>>();
        let mut peers = vec![[Peer::Unwired; 4]; nodes.len()];
        for &(a, b) in &topology.wires {
            peers[a.node as usize][usize::from(a.link)] = Peer::Node(b);
            peers[b.node as usize][usize::from(b.link)] = Peer::Node(a);
        }
        Network {
            config,
            last_busy: vec![(0, [0; 4]); nodes.len()],
            topology,
            nodes,
            peers,
            host: None,
            stretches: Stretches::default(),
            pace: Pace::new(),
            time_ps: 0,
            busy: 0,
            window_ps: timing.lookahead_ps(),
            samples: Vec::new(),
            next_sample_ps: config.sample_ps.max(1),
            host_busy: 0,
            doze: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// Puts `host` on node 0's link 0 (a wire there is removed, as the host adaptor takes it).
    pub fn attach_host(&mut self, host: Host) {
        if let Peer::Node(other) = self.peers[0][0] {
            self.peers[other.node as usize][usize::from(other.link)] = Peer::Unwired;
        }
        self.topology = self.topology.clone().with_host_link_free();
        self.peers[0][0] = Peer::Host;
        self.host = Some(host);
    }

    /// The link timing of the network.
    pub fn link_timing(&self) -> LinkTiming {
        LinkTiming::new(self.config.chip, self.config.link_mbit)
    }

    /// The label of the code at `address`: the label there, else the nearest one before it
    /// with the distance (`child+12`); `None` before the first label or without labels.
    pub fn label_of(&self, address: u32) -> Option<String> {
        let k = self.labels.partition_point(|(a, _)| *a <= address);
        let (at, name) = self.labels.get(k.checked_sub(1)?)?;
        // A compiler's numbered labels (`router__12`) name the role before the `__`.
        let name = name
            .split_once("__")
            .map_or(name.as_str(), |(role, _)| role);
        Some(if *at == address {
            name.to_owned()
        } else {
            format!("{name}+{}", address - at)
        })
    }

    /// Loads an assembled program into every node (as [`Network::load_all`]) and keeps its code
    /// labels to name processes by.
    pub fn load_program(&mut self, program: &crate::asm::Program) -> Result<(), SimError> {
        self.load_all(&program.code)?;
        // Code labels: the symbols inside the code (constants lie elsewhere, as a rule).
        let code = program.origin..program.origin.wrapping_add(program.code.len() as u32);
        let mut labels: Vec<(u32, String)> = program
            .symbols
            .iter()
            .filter(|(_, at)| code.contains(at))
            .map(|(name, &at)| (at, name.clone()))
            .collect();
        labels.sort();
        self.labels = labels;
        Ok(())
    }

    /// Loads `code` (assembled for `MemStart`) into every node and starts it there, with the
    /// workspace at the top of memory, A = the node's number and B = the number of nodes.
    pub fn load_all(&mut self, code: &[u8]) -> Result<(), SimError> {
        let origin = self.config.chip.mem_start();
        let count = self.nodes.len() as u32;
        for (i, node) in self.nodes.iter_mut().enumerate() {
            let top = 0x8000_0000u32.wrapping_add(node.memory_size()) & !3;
            node.boot(origin, code, top.wrapping_sub(64))?;
            node.a = i as u32;
            node.b = count;
            node.record_start();
        }
        Ok(())
    }

    /// Every node waits to boot from a link; the host's boot file starts the root.
    pub fn await_boot(&mut self) -> Result<(), SimError> {
        for node in &mut self.nodes {
            node.await_boot()?;
        }
        Ok(())
    }

    /// The first point of the window grid at or after `ps`.
    pub fn grid_at_or_after(&self, ps: u64) -> u64 {
        grid_at_or_after(ps, self.window_ps)
    }

    /// The network's time in nanoseconds.
    pub fn nanoseconds(&self) -> u64 {
        self.time_ps / 1_000
    }

    /// Instructions executed by all nodes.
    pub fn instructions(&self) -> u64 {
        self.nodes.iter().map(|n| n.instructions).sum()
    }

    /// One look at every node and the host: who can do something, and when the first will.
    fn survey(&self) -> Survey {
        let mut survey = survey_nodes(&self.nodes, 0);
        if let Some(host) = &self.host {
            survey.add_host(host, self.time_ps);
        }
        survey
    }

    /// Runs until `until_ps`, the host's exit, or until nothing can happen any more.
    pub fn run(&mut self, until_ps: u64) -> Result<Outcome, SimError> {
        awake(&mut self.doze, self.nodes.len());
        let outcome = self.run_windows(until_ps);
        wake_all(&mut self.nodes, &mut self.doze);
        self.doze.clear();
        outcome
    }

    fn run_windows(&mut self, until_ps: u64) -> Result<Outcome, SimError> {
        while self.time_ps < until_ps {
            if let Some(status) = self.host.as_ref().and_then(|h| h.server.exit) {
                return Ok(Outcome::Exited(status));
            }
            if self.busy < 2 {
                match self.free_run_or_jump(until_ps)? {
                    Some(Step::Done(outcome)) => return Ok(outcome),
                    Some(Step::Moved) => continue,
                    None => {}
                }
            }
            let start = self.time_ps;
            // Windows lie on a fixed grid, so slicing a run differently gives the same run.
            let end = window_end(start, self.window_ps, until_ps);
            // Every node has the network's clock: one limit for all.
            let limit = self.nodes.first().map_or(0, |n| n.cycle_at(end));
            let mut busy = 0;
            for (i, (node, doze)) in self.nodes.iter_mut().zip(&mut self.doze).enumerate() {
                if doze.skips(limit) {
                    continue;
                }
                node.run_until(limit).map_err(|e| SimError::Network {
                    message: format!("node {i}: {e}"),
                })?;
                busy += usize::from(node.is_running());
                doze.ran(node);
            }
            self.busy = busy;
            if let Some(host) = &mut self.host {
                host.run_until(start, end)?;
            }
            self.deliver();
            self.time_ps = end;
            self.sample();
        }
        Ok(match self.host.as_ref().and_then(|h| h.server.exit) {
            Some(status) => Outcome::Exited(status),
            None => Outcome::Until,
        })
    }

    /// Before a window: when only one node can do anything it runs free (up to its first
    /// packet or the next sampling boundary); when nothing happens before the next window the
    /// clock jumps; when nothing will ever happen the run is over. `None`: run a window.
    fn free_run_or_jump(&mut self, until_ps: u64) -> Result<Option<Step>, SimError> {
        let survey = self.survey();
        if survey.host_waits && survey.active == 1 {
            let i = survey.runner;
            // Only node i can do anything: nothing can reach it before it sends, so it
            // runs on, up to its first packet or the next sampling boundary — where a window
            // would have ended, at the grid point at or after it: a sample then sees the same
            // node, however the run was sliced and whichever way it got there.
            let limit_ps = until_ps.min(self.grid_at_or_after(self.next_sample_ps));
            self.wake(i);
            let node = &mut self.nodes[i];
            node.stop_on_emit = true;
            let ran = node.run_until(node.cycle_at(limit_ps));
            node.stop_on_emit = false;
            ran.map_err(|e| SimError::Network {
                message: format!("node {i}: {e}"),
            })?;
            let now = node.picoseconds();
            let emitted = !node.outbox.is_empty();
            let finished = node.next_activity().is_none();
            self.deliver();
            self.time_ps = free_run_end(
                self.time_ps,
                self.window_ps,
                limit_ps,
                now,
                emitted,
                finished,
            );
            self.sample();
            return Ok(Some(Step::Moved));
        }
        Ok(match survey.next_ps {
            None => Some(Step::Done(Outcome::Idle)),
            Some(t) if t > self.time_ps + self.window_ps => {
                self.time_ps = jump_to(t, self.window_ps, until_ps);
                self.sample();
                Some(Step::Moved)
            }
            Some(_) => None,
        })
    }

    /// Hands the packets put on wires to the other ends, node by node.
    fn deliver(&mut self) {
        for i in 0..self.nodes.len() {
            if self.nodes[i].outbox.is_empty() {
                continue;
            }
            let packets = std::mem::take(&mut self.nodes[i].outbox);
            for p in &packets {
                match self.peers[i][usize::from(p.link & 3)] {
                    Peer::Node(to) => self.receive(to.node as usize, to.link, p.kind, p.at_ps),
                    Peer::Host => {
                        if let Some(host) = &mut self.host {
                            host.receive(p.kind, p.at_ps);
                        }
                    }
                    // A packet on an unwired link is lost; its sender waits for ever, as on
                    // real hardware.
                    Peer::Unwired => {}
                }
            }
            let mut packets = packets;
            packets.clear();
            self.nodes[i].outbox = packets;
        }
        if let Some(host) = &mut self.host {
            for (at, kind) in std::mem::take(&mut host.outbox) {
                self.receive(0, 0, kind, at);
            }
        }
    }

    /// Hands node `i` a packet on `link`, waking it first.
    fn receive(&mut self, i: usize, link: u8, kind: PacketKind, at_ps: u64) {
        self.wake(i);
        self.nodes[i].receive(link, kind, at_ps);
    }

    /// Node `i` is about to change (a packet, a free run): its clock moves to where the
    /// windows that skipped it would have left it, and the next window runs it.
    fn wake(&mut self, i: usize) {
        if let Some(doze) = self.doze.get_mut(i) {
            doze.wake(&mut self.nodes[i]);
        }
    }

    /// Closes the sampling periods the clock has passed.
    fn sample(&mut self) {
        let period = self.config.sample_ps.max(1);
        while self.time_ps >= self.next_sample_ps {
            let end = self.next_sample_ps;
            sample_nodes(
                &self.nodes,
                0,
                &self.peers,
                &mut self.last_busy,
                (end - period, end),
                &mut self.samples,
            );
            if let Some(host) = &self.host {
                sample_host(
                    host,
                    &mut self.host_busy,
                    (end - period, end),
                    &mut self.samples,
                );
            }
            self.next_sample_ps += period;
        }
    }

    /// The probes with this tag: (node, picoseconds), node by node.
    pub fn probes(&self, tag: u32) -> Vec<(u32, u64)> {
        let mut found = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            for e in &node.events {
                if e.kind == EventKind::Probe && e.other == tag {
                    found.push((i as u32, cycle_ps(e.cycle, node.clock_hz)));
                }
            }
        }
        found
    }
}

/// The first point of the window grid (of `window_ps`) at or after `ps`.
fn grid_at_or_after(ps: u64, window_ps: u64) -> u64 {
    ps.div_ceil(window_ps).saturating_mul(window_ps)
}

/// The end of the window that starts at `start_ps` (windows lie on a fixed grid, so slicing a
/// run differently gives the same run), or `until_ps` if sooner.
fn window_end(start_ps: u64, window_ps: u64, until_ps: u64) -> u64 {
    ((start_ps / window_ps + 1) * window_ps).min(until_ps)
}

/// Where the clock jumps when nothing happens before `t` (more than a window ahead): to the
/// start of the window that ends at or after `t`, staying on the grid, so an action at `t` on
/// a window's end is applied at the end of a window, as it is when the windows run there one
/// by one (a sample taken between the jump and the action would see the node without it).
fn jump_to(t: u64, window_ps: u64, until_ps: u64) -> u64 {
    (t.saturating_sub(1) / window_ps * window_ps).min(until_ps)
}

/// The network's time after a free run to `limit_ps` that ended at `now` (the node's time):
/// the window of the packet it put on a wire, where it finished (it waits for the outside
/// world: so does the network), or the limit. None of them depends on how the run is sliced.
fn free_run_end(
    time_ps: u64,
    window_ps: u64,
    limit_ps: u64,
    now: u64,
    emitted: bool,
    finished: bool,
) -> u64 {
    if emitted {
        (now / window_ps * window_ps).max(time_ps)
    } else if finished {
        now.min(limit_ps).max(time_ps)
    } else {
        limit_ps.max(time_ps)
    }
}

/// A look at `nodes` (numbered from `first`): who can do something, and when the first will.
fn survey_nodes(nodes: &[Node], first: usize) -> Survey {
    let mut survey = Survey {
        active: 0,
        runner: 0,
        next_ps: None,
        host_waits: true,
    };
    for (k, node) in nodes.iter().enumerate() {
        if let Some(cycle) = node.next_activity() {
            survey.active += 1;
            survey.runner = first + k;
            let at = node.picoseconds_at(cycle);
            survey.next_ps = Some(survey.next_ps.map_or(at, |t: u64| t.min(at)));
        }
    }
    survey
}

impl Survey {
    /// Adds the host (at the network's time `time_ps`) to a survey.
    fn add_host(&mut self, host: &Host, time_ps: u64) {
        if host.server.exit.is_some() {
            return;
        }
        self.host_waits = host.waits();
        let at = if host.pumping() {
            Some(time_ps)
        } else {
            host.next_action()
        };
        if let Some(at) = at {
            self.next_ps = Some(self.next_ps.map_or(at, |t| t.min(at)));
        }
    }

    /// Two surveys of disjoint parts as one (`later` of the nodes numbered after `self`'s).
    fn and(self, later: Survey) -> Survey {
        Survey {
            active: self.active + later.active,
            runner: if later.active > 0 {
                later.runner
            } else {
                self.runner
            },
            next_ps: match (self.next_ps, later.next_ps) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            host_waits: self.host_waits && later.host_waits,
        }
    }
}

/// A node that dozes (see [`Node::dozes_until`]): a window before its next link action only
/// moves its clock, so the window loop skips it — most nodes of a farm wait most of the time,
/// and a skipped node stays out of the cache — until a packet or its action wakes it; its
/// clock moves to where the windows would have taken it when it wakes or the run returns.
/// Idle time and busy time come out as they would have (a sample reads busy cycles, which
/// dozing does not change).
#[derive(Debug, Clone, Copy, Default)]
struct Doze {
    /// The first cycle at which it must run again (0: it is awake).
    until: u64,
    /// The limit of the last window that skipped it: where its clock should be.
    skipped_to: u64,
}

impl Doze {
    /// Whether the window ending at cycle `limit` skips the node (it would only move its
    /// clock).
    #[inline(always)]
    fn skips(&mut self, limit: u64) -> bool {
        if self.until > limit {
            self.skipped_to = limit;
            true
        } else {
            false
        }
    }

    /// After a window ran `node`: whether the next ones may skip it.
    #[inline(always)]
    fn ran(&mut self, node: &Node) {
        self.until = node.dozes_until();
    }

    /// `node` is about to change (a packet, a free run, a checkpoint) or the run returns:
    /// its clock moves to where the windows that skipped it would have left it, and the next
    /// window runs it.
    fn wake(&mut self, node: &mut Node) {
        if self.skipped_to > node.cycles {
            node.doze_to(self.skipped_to);
        }
        *self = Doze::default();
    }
}

/// Every node awake (see [`Doze`]), for a run of `n` nodes.
fn awake(doze: &mut Vec<Doze>, n: usize) {
    doze.clear();
    doze.resize(n, Doze::default());
}

/// Wakes every node: their clocks where the windows would have left them.
fn wake_all(nodes: &mut [Node], doze: &mut [Doze]) {
    for (node, doze) in nodes.iter_mut().zip(doze) {
        doze.wake(node);
    }
}

/// Closes the sampling period `(start, end)` for `nodes` (numbered from `first`): each node's
/// CPU, then each of its wired links' outgoing direction.
fn sample_nodes(
    nodes: &[Node],
    first: usize,
    peers: &[[Peer; 4]],
    last_busy: &mut [(u64, [u64; 4])],
    (start, end): (u64, u64),
    samples: &mut Vec<UseSample>,
) {
    let period = end - start;
    for (k, node) in nodes.iter().enumerate() {
        let i = first + k;
        let busy_cycles = node.cycles.saturating_sub(node.idle_cycles);
        let (last_cycles, last_links) = last_busy[k];
        let busy_ps = cycle_ps(busy_cycles.saturating_sub(last_cycles), node.clock_hz);
        samples.push(UseSample {
            node: i as u32,
            link: None,
            start_ps: start,
            end_ps: end,
            utilization: fraction(busy_ps, period),
        });
        let mut links = [0u64; 4];
        for (l, link) in node.links.iter().enumerate() {
            links[l] = link.busy_out_ps;
            if peers[i][l] != Peer::Unwired {
                samples.push(UseSample {
                    node: i as u32,
                    link: Some(l as u8),
                    start_ps: start,
                    end_ps: end,
                    utilization: fraction(link.busy_out_ps - last_links[l], period),
                });
            }
        }
        last_busy[k] = (busy_cycles, links);
    }
}

/// Closes the sampling period `(start, end)` for the host's outgoing wire (node [`HOST_NODE`]).
fn sample_host(
    host: &Host,
    host_busy: &mut u64,
    (start, end): (u64, u64),
    samples: &mut Vec<UseSample>,
) {
    samples.push(UseSample {
        node: HOST_NODE,
        link: Some(0),
        start_ps: start,
        end_ps: end,
        utilization: fraction(host.busy_out_ps - *host_busy, end - start),
    });
    *host_busy = host.busy_out_ps;
}

fn fraction(busy_ps: u64, period_ps: u64) -> f32 {
    (busy_ps as f64 / period_ps as f64).clamp(0.0, 1.0) as f32
}
