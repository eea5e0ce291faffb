//! One transputer: registers, memory, the two-priority scheduler, timers, internal channels and
//! ALT, executing one instruction at a time in virtual time counted in cycles.
//!
//! Decode ([`Node::fetch`]: prefixes into an operand) and execute ([`Node::execute`]) are
//! separate; costs come from the chip's [`CycleTable`]. Nothing here reads the host clock.
//!
//! The node's state and its run loop are here; its behaviour is split by concern:
//! [`events`] (what is recorded for the trace), [`memory`] (memory, the workspace and the
//! evaluation stack), [`scheduler`] (run queues, timers, timeslicing, the error flag),
//! [`links`] (the link engines, booting from a link, channel communication), [`execute`]
//! (decode and execute, operations by group, costs) and [`checkpoint`] (putting a node back
//! to an earlier state, for a parallel run that speculates).
//!
//! Simplifications, each a documented choice rather than an accident:
//! - The timer queues are kept beside memory (sorted by time), not linked through `W[-4]`.
//! - A low-priority process interrupted by a high-priority one is saved in the node, not in the
//!   interrupt save area of memory.
//! - A timer input (`tin`, a timer guard) completes when the clock has reached the time
//!   (`clock - time >= 0` in 32-bit wrapping arithmetic).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::clock::{cycle_ps, cycles_at};
use crate::error::SimError;
use crate::isa::{Chip, Cost, CycleTable, DIRECT, Op};
use crate::link::{Action, LINK_IN, LINK_OUT, Link, LinkTiming, Packet, PacketKind, link_channel};
use crate::words::*;
use shared::model::WaitReason;

pub mod checkpoint;
pub mod events;
mod execute;
mod float;
pub mod fpu;
mod links;
mod memory;
mod scheduler;

pub use self::events::{Event, EventKind, EventLog, Mark};
use self::fpu::Fpu;

/// The timeslice period in processor cycles at 20 MHz: 5120 periods of the 5 MHz input clock.
pub const TIMESLICE_CYCLES_AT_20MHZ: u64 = 5120 * 4;

/// Workspace slots below `Wptr`, in words.
const W_IPTR: i32 = -1;
const W_LINK: i32 = -2;
const W_POINTER: i32 = -3;
const W_TLINK: i32 = -4;
const W_TIME: i32 = -5;

/// Why [`Node::step`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// An instruction ran.
    Ran,
    /// No process can run and no timer is pending: the node waits for the outside world (or
    /// is deadlocked).
    Idle,
}

/// A low-priority process interrupted by a high-priority one.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Interrupted {
    wptr: u32,
    iptr: u32,
    a: u32,
    b: u32,
    c: u32,
    slices_at: u64,
    /// The T800 saves the FP registers of an interrupted low-priority process too.
    fpu: Fpu,
}

/// One transputer node.
///
/// The fields lie in the order declared (`repr(C)`): what the interpreter loop touches on
/// every instruction first, in two cache lines (memory, the clock and counters, the registers,
/// the run queues, the flags), the cost table next, the rest after. The interpreter's speed
/// depends on that placement more than on most code changes — measured against the order
/// the compiler chose: the 64-node mesh 31.1 → 27.5 ms, COMSTIME 160 → 164 M instructions/s
/// natively and 102–106 → 112 in WebAssembly, the ray tracer on one node 17.5 → 14.6 ms —
/// and an unrelated change could move fields the compiler places. The evaluation stack's
/// registers lie apart: a push (`c = b; b = a`) of adjacent fields compiles to one 8-byte
/// load and store, and that load, overlapping the 4-byte store to `a` just before, cannot
/// take its value from the store buffer (apart, COMSTIME ran 8–10 % faster).
/// `the_hot_fields_lie_together_and_the_stack_registers_apart` checks both.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Node {
    memory: Vec<u8>,
    /// Addresses are reduced with this mask before the bounds check: the external memory
    /// interface decodes only the address bits the installed memory needs, so addresses
    /// beyond it alias into it (`usize::MAX`: strict, every address outside is an error).
    alias_mask: usize,
    /// Cycles since the node started: its virtual time.
    pub cycles: u64,
    /// Instructions executed (prefixes included).
    pub instructions: u64,
    /// Instructions run back to back, with no bookkeeping between them, while the node's
    /// time is below this cycle: its next link action or timer, or the caller's limit. Set to
    /// 0 by whatever needs the bookkeeping sooner (a process descheduled, a high-priority
    /// process ready, a timer waiter added, a link action or packet made).
    horizon: u64,
    /// The cycle of the earliest pending action (`u64::MAX` when none).
    next_action_cycle: u64,
    /// The evaluation stack.
    pub a: u32,
    /// The instruction pointer.
    pub iptr: u32,
    /// The evaluation stack.
    pub b: u32,
    /// The workspace pointer of the running process.
    pub wptr: u32,
    /// The evaluation stack.
    pub c: u32,
    /// The operand register.
    pub oreg: u32,
    /// The running process's priority: 0 high, 1 low.
    pub pri: u32,
    /// Front of the run queue of each priority.
    pub fptr: [u32; 2],
    /// Back of the run queue of each priority.
    pub bptr: [u32; 2],
    /// The error flag.
    pub error: bool,
    /// Whether setting the error flag halts the node.
    pub halt_on_error: bool,
    /// Whether a process is running (else the node idles).
    running: bool,
    /// A high-priority process became ready while a low-priority one ran.
    preempt: bool,
    /// Whether events are recorded.
    pub tracing: bool,
    /// Whether memory writes are journaled (while a parallel run speculates: see
    /// [`Node::checkpoint`]).
    journaling: bool,
    /// Stop [`Node::run_until`] as soon as a packet is put on a wire.
    pub stop_on_emit: bool,
    /// The timeslice count when the running low-priority process was scheduled.
    slices_at: u64,
    /// The chip's costs.
    pub table: CycleTable,
    /// Processes waiting on a timer, per priority: (time, workspace descriptor), by time.
    timers: [Vec<(u32, u32)>; 2],
    interrupted: Option<Interrupted>,
    /// Processor cycles a second (fixed at construction: time conversions are cached from it).
    pub(crate) clock_hz: u64,
    timer_base: [u32; 2],
    /// The recorded events, in order.
    pub events: EventLog,
    /// The four links' engines.
    pub links: [Link; 4],
    /// The links' speed and delays.
    pub link_timing: LinkTiming,
    /// Link engine reactions to come: (picoseconds, link, action).
    actions: BinaryHeap<Reverse<(u64, u8, Action)>>,
    /// Packets put on the node's outgoing wires, for the network to deliver.
    pub outbox: Vec<Packet>,
    /// Waiting to boot from a link: the boot code's length once known, and bytes loaded.
    booting: Option<(Option<u32>, u32)>,
    /// Cycles spent with no process running.
    pub idle_cycles: u64,
    /// Probe texts, read when the probe ran; a probe event's `channel` indexes them.
    pub probe_texts: Vec<String>,
    /// Picoseconds and nanoseconds a cycle when they are whole numbers (0 when not): time
    /// conversions on the hot path then need no 128-bit division, which WebAssembly does in
    /// software.
    ps_per_cycle: u64,
    ns_per_cycle: u64,
    /// `move2dinit`'s rows, destination stride and source stride.
    move2d: (u32, u32, u32),
    /// The floating-point unit (T800).
    pub fpu: Fpu,
    /// The memory as it was at the checkpoint, where it has been written since.
    journal: crate::journal::Journal,
}

/// `a / b` when `b` divides `a`, else 0.
fn whole_division(a: u64, b: u64) -> u64 {
    if a.is_multiple_of(b) { a / b } else { 0 }
}

/// `a × b`, saturating. WebAssembly has no overflow-checked 64-bit multiply: `saturating_mul`
/// calls a 128-bit multiply there (4% of COMSTIME's time), and factors of 32 bits need no
/// check. Natively the checked multiply is one instruction, and the branch made the
/// interpreter's loop compile worse (COMSTIME 115 M instructions/s against 140).
#[inline(always)]
fn product(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "wasm32")]
    if (a | b) >> 32 == 0 {
        return a * b;
    }
    a.saturating_mul(b)
}

impl Node {
    /// A node of `chip` at `clock_hz` with `memory_bytes` of memory from `MinInt`, no process
    /// running.
    pub fn new(chip: Chip, clock_hz: u64, memory_bytes: u32) -> Node {
        Node {
            table: CycleTable::new(chip, 0),
            memory: vec![0; memory_bytes.max(chip.on_chip_bytes()) as usize],
            iptr: 0,
            wptr: 0,
            pri: 1,
            a: 0,
            b: 0,
            c: 0,
            oreg: 0,
            error: false,
            halt_on_error: false,
            fptr: [NOT_PROCESS; 2],
            bptr: [NOT_PROCESS; 2],
            timers: [Vec::new(), Vec::new()],
            running: false,
            interrupted: None,
            preempt: false,
            slices_at: 0,
            cycles: 0,
            clock_hz: clock_hz.max(1),
            timer_base: [0; 2],
            instructions: 0,
            tracing: true,
            events: EventLog::default(),
            links: [Link::new(), Link::new(), Link::new(), Link::new()],
            link_timing: LinkTiming::new(chip, 20),
            actions: BinaryHeap::new(),
            next_action_cycle: u64::MAX,
            outbox: Vec::new(),
            booting: None,
            idle_cycles: 0,
            probe_texts: Vec::new(),
            ps_per_cycle: whole_division(1_000_000_000_000, clock_hz.max(1)),
            ns_per_cycle: whole_division(1_000_000_000, clock_hz.max(1)),
            stop_on_emit: false,
            horizon: 0,
            move2d: (0, 0, 0),
            fpu: Fpu::default(),
            alias_mask: usize::MAX,
            journaling: false,
            journal: crate::journal::Journal::default(),
        }
    }

    /// Makes addresses beyond the installed memory alias into it (as the external memory
    /// interface does: the next power of two of the memory size is decoded; a part of that
    /// not installed stays an error), or, `strict`, every address outside an error.
    pub fn set_aliasing(&mut self, strict: bool) {
        self.alias_mask = if strict {
            usize::MAX
        } else {
            self.memory.len().next_power_of_two() - 1
        };
    }

    /// Records the running process's start (the first process of a loaded node).
    pub fn record_start(&mut self) {
        let me = self.wdesc();
        self.record(EventKind::Start, me, self.iptr, 0, 0);
    }

    /// Whether a process is running (not only ready or waiting).
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// Whether the node still waits for its boot code.
    pub fn is_booting(&self) -> bool {
        self.booting.is_some()
    }

    /// The node's time in picoseconds.
    pub fn picoseconds(&self) -> u64 {
        if self.ps_per_cycle != 0 {
            return product(self.cycles, self.ps_per_cycle);
        }
        let ps = u128::from(self.cycles) * 1_000_000_000_000 / u128::from(self.clock_hz);
        u64::try_from(ps).unwrap_or(u64::MAX)
    }

    /// Cycle `cycle` in picoseconds, rounded down.
    pub fn picoseconds_at(&self, cycle: u64) -> u64 {
        if self.ps_per_cycle != 0 {
            return product(cycle, self.ps_per_cycle);
        }
        cycle_ps(cycle, self.clock_hz)
    }

    /// The first cycle at or after `ps` picoseconds.
    pub fn cycle_at(&self, ps: u64) -> u64 {
        if self.ps_per_cycle != 0 {
            return ps.div_ceil(self.ps_per_cycle);
        }
        cycles_at(ps, self.clock_hz)
    }

    /// Processor cycles a second.
    pub fn clock_hz(&self) -> u64 {
        self.clock_hz
    }

    /// The memory size in bytes.
    pub fn memory_size(&self) -> u32 {
        self.memory.len() as u32
    }

    /// The node's time in nanoseconds.
    pub fn nanoseconds(&self) -> u64 {
        if self.ns_per_cycle != 0 {
            return product(self.cycles, self.ns_per_cycle);
        }
        let ns = u128::from(self.cycles) * 1_000_000_000 / u128::from(self.clock_hz);
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    #[inline(always)]
    fn record(&mut self, kind: EventKind, process: u32, channel: u32, bytes: u32, other: u32) {
        if self.tracing {
            self.record_event(kind, process, channel, bytes, other);
        }
    }

    /// Out of line: the interpreter's functions stay as small when tracing is off.
    #[inline(never)]
    fn record_event(
        &mut self,
        kind: EventKind,
        process: u32,
        channel: u32,
        bytes: u32,
        other: u32,
    ) {
        self.events.push(Event {
            cycle: self.cycles,
            kind,
            process,
            channel,
            bytes,
            other,
        });
    }

    /// Runs one instruction (a prefix byte counts as one), or advances time to the next timer
    /// when no process can run.
    pub fn step(&mut self) -> Result<Status, SimError> {
        if !self.prepare()? {
            return Ok(self.idle_until(u64::MAX));
        }
        self.instruction()?;
        Ok(Status::Ran)
    }

    /// Runs until the node's time reaches `limit` cycles: instructions, link actions and
    /// timers in time order, idling forward when no process can run. With `stop_on_emit`, it
    /// stops sooner: at the first packet put on a wire, or when it waits for the outside world.
    #[inline]
    pub fn run_until(&mut self, limit: u64) -> Result<(), SimError> {
        if self.sleeps_through(limit) {
            // What the loop below would do, without its calls: most nodes of a network spend
            // most windows like this.
            self.doze_to(limit);
            return Ok(());
        }
        if self.cycles >= limit && self.next_action_cycle > self.cycles {
            // Still in an instruction that ends past the window.
            return Ok(());
        }
        self.run_until_slowly(limit)
    }

    /// [`Node::run_until`] when the node has something to do before `limit`.
    fn run_until_slowly(&mut self, limit: u64) -> Result<(), SimError> {
        while self.cycles < limit {
            if self.stop_on_emit && !self.outbox.is_empty() {
                return Ok(());
            }
            if !self.prepare()? {
                // A packet just put on a wire (an acknowledge sent by a link action) goes to
                // the network before the node idles on: the reply may come before `limit`.
                if self.stop_on_emit && !self.outbox.is_empty() {
                    return Ok(());
                }
                if self.idle_until(limit) == Status::Idle {
                    // Waiting for the outside world. A free-running node (the only one with
                    // anything to do) stops here, where it finished, whatever its limit.
                    if self.stop_on_emit {
                        return Ok(());
                    }
                    self.idle_cycles += limit - self.cycles;
                    self.cycles = limit;
                }
                continue;
            }
            // Likewise a packet a link action put on a wire as the node prepared to run on:
            // the node stops where it sent it (running on would take it past the reply), so a
            // free run ends at the same point whatever limit it was given.
            if self.stop_on_emit && !self.outbox.is_empty() {
                return Ok(());
            }
            self.burst(limit, u64::MAX)?;
        }
        if self.next_action_cycle <= self.cycles {
            self.apply_actions()?;
        }
        Ok(())
    }

    /// Whether the node idles from now to `limit` with nothing to do on the way: no process
    /// running, ready or interrupted, no timer waiter, and no link action before `limit` or at
    /// it (one at `limit` is applied as a run ends there), and not free-running (which stops
    /// where it finishes). [`Node::run_until`] then only moves the clock.
    #[inline(always)]
    fn sleeps_through(&self, limit: u64) -> bool {
        self.cycles < limit && self.next_action_cycle > limit && self.dozes()
    }

    /// No process running, ready or interrupted, no timer waiter, not running free: only a
    /// link action (or a packet) can make the node do anything.
    #[inline(always)]
    fn dozes(&self) -> bool {
        !self.stop_on_emit
            && !self.running
            && !self.preempt
            && self.fptr[0] == NOT_PROCESS
            && self.fptr[1] == NOT_PROCESS
            && self.interrupted.is_none()
            && self.timers[0].is_empty()
            && self.timers[1].is_empty()
    }

    /// When the node dozes, the cycle of its next link action (`u64::MAX`: none): up to
    /// there [`Node::run_until`] only moves its clock, unless a packet comes. 0 when it does
    /// not doze.
    pub fn dozes_until(&self) -> u64 {
        if self.dozes() {
            self.next_action_cycle
        } else {
            0
        }
    }

    /// Moves a dozing node's clock to `cycle` (before its next link action), idle: what
    /// [`Node::run_until`] does then.
    pub fn doze_to(&mut self, cycle: u64) {
        debug_assert!(
            self.sleeps_through(cycle),
            "dozes to {cycle}: {}",
            self.dump()
        );
        self.idle_cycles += cycle - self.cycles;
        self.cycles = cycle;
    }

    /// Runs at most `budget` instructions, until no process can run and no timer or link
    /// action is pending; more is a [`SimError::Budget`] error (a test's guard against a
    /// program that never ends).
    pub fn run(&mut self, budget: u64) -> Result<(), SimError> {
        let stop = self.instructions.saturating_add(budget);
        loop {
            if !self.prepare()? {
                if self.idle_until(u64::MAX) == Status::Idle {
                    return Ok(());
                }
                continue;
            }
            self.burst(u64::MAX, stop)?;
            if self.instructions >= stop {
                return Err(SimError::Budget { budget });
            }
        }
    }

    /// The earliest cycle at which the node has something to do: now when a process runs,
    /// else its next timer or link action (`None` when it waits for the outside world).
    pub fn next_activity(&self) -> Option<u64> {
        if self.running || self.fptr[0] != NOT_PROCESS || self.fptr[1] != NOT_PROCESS {
            return Some(self.cycles);
        }
        self.next_event()
    }

    /// The cycle of the next timer wake-up or link action, whichever comes first.
    fn next_event(&self) -> Option<u64> {
        let action = (self.next_action_cycle != u64::MAX).then_some(self.next_action_cycle);
        match (self.next_timer_cycle(), action) {
            (Some(t), Some(a)) => Some(t.min(a)),
            (t, a) => t.or(a),
        }
    }

    /// The bookkeeping between instructions: link actions and timers whose time has come,
    /// preemption of a low-priority process, scheduling. Whether a process runs.
    #[inline]
    fn prepare(&mut self) -> Result<bool, SimError> {
        let nothing_due = self.running
            && !self.preempt
            && self.next_action_cycle > self.cycles
            && self.timers[0].is_empty()
            && self.timers[1].is_empty();
        if nothing_due {
            return Ok(true);
        }
        self.catch_up()
    }

    /// [`Node::prepare`] when something may be due.
    fn catch_up(&mut self) -> Result<bool, SimError> {
        if self.next_action_cycle <= self.cycles {
            self.apply_actions()?;
        }
        self.wake_timers()?;
        // A transputer never interrupts between a prefix and its instruction: Oreg is not
        // saved, so the preemption waits until the instruction completes (Oreg is 0 again).
        if self.preempt && self.running && self.pri == 1 && self.oreg == 0 {
            self.preempt = false;
            self.interrupted = Some(Interrupted {
                wptr: self.wptr,
                iptr: self.iptr,
                a: self.a,
                b: self.b,
                c: self.c,
                slices_at: self.slices_at,
                fpu: self.fpu,
            });
            self.record_wait(WaitReason::Ready, 0);
            self.running = false;
            self.schedule()?;
        }
        if !self.running {
            self.schedule()?;
        }
        Ok(self.running)
    }

    /// With no process to run: time moves on to the next timer or link action (at most to
    /// `limit`), or the node waits for the outside world ([`Status::Idle`]).
    fn idle_until(&mut self, limit: u64) -> Status {
        match self.next_event() {
            Some(cycle) => {
                let to = cycle.min(limit).max(self.cycles);
                self.idle_cycles += to - self.cycles;
                self.cycles = to;
                Status::Ran
            }
            None => Status::Idle,
        }
    }

    /// Runs instructions back to back until the node's time reaches `limit`, its next link
    /// action or timer, or something needs the bookkeeping (see `horizon`), or
    /// `self.instructions` reaches `stop`. Runs at least one.
    fn burst(&mut self, limit: u64, stop: u64) -> Result<(), SimError> {
        self.horizon = limit.min(self.next_action_cycle);
        if let Some(timer) = self.next_timer_cycle() {
            self.horizon = self.horizon.min(timer);
        }
        if self.preempt {
            // A preemption waits for the prefixed instruction under way: one byte at a time.
            self.horizon = 0;
        }
        loop {
            self.instruction()?;
            if self.cycles >= self.horizon || self.instructions >= stop {
                return Ok(());
            }
        }
    }

    /// Fetches and executes the byte at `Iptr`.
    #[inline(always)]
    fn instruction(&mut self) -> Result<(), SimError> {
        let iptr = self.iptr;
        let byte = self.read_byte(iptr)?;
        if iptr & 3 == 0 {
            // Instructions are fetched a word (four bytes) at a time.
            self.wait(iptr);
        }
        self.iptr = iptr.wrapping_add(1);
        self.instructions += 1;
        self.execute(byte >> 4, u32::from(byte & 0xF))
    }

    /// The registers and queues, for a failing test's message.
    pub fn dump(&self) -> String {
        format!(
            "Iptr {:#010x} Wptr {:#010x} pri {} A {:#x} B {:#x} C {:#x} Oreg {:#x} error {} \
             Fptr {:#x}/{:#x} Bptr {:#x}/{:#x} cycles {} instructions {} running {}",
            self.iptr,
            self.wptr,
            self.pri,
            self.a,
            self.b,
            self.c,
            self.oreg,
            self.error,
            self.fptr[0],
            self.fptr[1],
            self.bptr[0],
            self.bptr[1],
            self.cycles,
            self.instructions,
            self.running
        )
    }

    /// The mnemonic of direct function `function`.
    pub fn direct_name(function: u8) -> &'static str {
        DIRECT[usize::from(function & 0xF)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::assemble;

    /// A node whose one process waits for a byte on link 0, idle.
    fn waiting_for_link_input() -> Node {
        let mut node = Node::new(Chip::T800, 20_000_000, 64 * 1024);
        let source = "ldlp 0\nldc #80000010\nldc 1\nin\nstopp";
        let program = assemble(source, &node.table, 0x8000_1000).expect("assembles");
        node.boot(0x8000_1000, &program.code, 0x8000_7F00)
            .expect("boots");
        node.run(1_000).expect("runs");
        assert!(
            !node.is_running() && node.next_activity().is_none(),
            "{}",
            node.dump()
        );
        node
    }

    #[test]
    fn the_hot_fields_lie_together_and_the_stack_registers_apart() {
        // See the note on `Node`.
        let at = [
            std::mem::offset_of!(Node, a),
            std::mem::offset_of!(Node, b),
            std::mem::offset_of!(Node, c),
        ];
        for (x, y) in [(at[0], at[1]), (at[1], at[2])] {
            assert!(x.abs_diff(y) > 4, "stack registers at offsets {at:?}");
        }
        let hot = [
            std::mem::offset_of!(Node, memory),
            std::mem::offset_of!(Node, cycles),
            std::mem::offset_of!(Node, instructions),
            std::mem::offset_of!(Node, horizon),
            std::mem::offset_of!(Node, next_action_cycle),
            std::mem::offset_of!(Node, iptr),
            std::mem::offset_of!(Node, oreg),
            std::mem::offset_of!(Node, fptr),
            std::mem::offset_of!(Node, running),
            std::mem::offset_of!(Node, journaling),
        ];
        assert!(
            hot.iter().chain(&at).all(|&k| k < 128),
            "hot fields at offsets {hot:?} {at:?}"
        );
    }

    #[test]
    fn a_sleeping_node_moves_its_clock_as_the_full_loop_would() {
        let mut node = waiting_for_link_input();
        // A byte arrives later: its link actions are due from cycle 2,000 on.
        node.receive(0, PacketKind::Data(7), node.picoseconds_at(2_000));
        for limit in [node.cycles + 1, 1_000, 1_999] {
            let (mut fast, mut full) = (node.clone(), node.clone());
            assert!(fast.sleeps_through(limit));
            fast.run_until(limit).expect("runs");
            full.run_until_slowly(limit).expect("runs");
            assert_eq!(fast.dump(), full.dump());
            assert_eq!((fast.cycles, fast.idle_cycles), (limit, full.idle_cycles));
            assert_eq!(fast.next_action_cycle, full.next_action_cycle);
        }
        // At the first action, and past it, the node has work: the full loop runs.
        let first = node.next_action_cycle;
        assert!(!node.sleeps_through(first));
        assert!(!node.sleeps_through(first + 100));
        node.run_until(first + 1_000).expect("runs");
        assert_eq!(node.read_word(0x8000_7F00), Ok(7), "{}", node.dump());
        // A running or free-running node never sleeps.
        let mut running = Node::new(Chip::T800, 20_000_000, 64 * 1024);
        running
            .boot(0x8000_1000, &[0x40, 0xF0], 0x8000_7F00)
            .expect("boots");
        assert!(running.is_running() && !running.sleeps_through(10));
        let mut free = waiting_for_link_input();
        free.stop_on_emit = true;
        assert!(!free.sleeps_through(free.cycles + 10));
    }
}
