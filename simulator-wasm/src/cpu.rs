//! One transputer: registers, memory, the two-priority scheduler, timers, internal channels and
//! ALT, executing one instruction at a time in virtual time counted in cycles.
//!
//! Decode ([`Node::fetch`]: prefixes into an operand) and execute ([`Node::execute`]) are
//! separate; costs come from the chip's [`CycleTable`]. Nothing here reads the host clock.
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
use crate::link::{Action, LINK_IN, Link, LinkTiming, Packet, PacketKind, link_channel};
use crate::words::*;

/// The timeslice period in processor cycles at 20 MHz: 5120 periods of the 5 MHz input clock.
pub const TIMESLICE_CYCLES_AT_20MHZ: u64 = 5120 * 4;

/// Workspace slots below `Wptr`, in words.
const W_IPTR: i32 = -1;
const W_LINK: i32 = -2;
const W_POINTER: i32 = -3;
const W_TLINK: i32 = -4;
const W_TIME: i32 = -5;

/// What the processor does, recorded for the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `startp` or `runp` started a process (`process`), from `by`.
    Start,
    /// `endp` or `stopp` ended (or stopped) a process.
    End,
    /// `out`, `outbyte` or `outword` offered a message on `channel`.
    Send,
    /// `in` asked for a message on `channel`.
    ReceiveCall,
    /// A message on `channel` arrived: the input completed.
    Arrival,
    /// A probe: its tag in `other`, its text in `Node::probe_texts[channel]` (`bytes` long).
    Probe,
}

/// One recorded event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// When, in cycles since the node started.
    pub cycle: u64,
    /// What.
    pub kind: EventKind,
    /// The process (its workspace descriptor: `Wptr | priority`).
    pub process: u32,
    /// The channel word's address (for a probe, the text's address).
    pub channel: u32,
    /// Bytes moved (for a probe, the text's length).
    pub bytes: u32,
    /// A start's parent, a probe's tag, a message partner's descriptor (0 when none).
    pub other: u32,
}

/// A node's recorded events, in order. Stored packed (24 bytes an event, the kind in the low
/// byte of the cycle count) in chunks that double in size up to 24 MiB: recording never
/// moves what is stored and asks the allocator for more memory only a few times. In
/// WebAssembly, whose allocator cannot remap, a growing `Vec` would copy everything at each
/// doubling, and every memory growth costs the engine a collection's worth of bookkeeping:
/// with an event every few instructions that cost as much as the emulation itself.
#[derive(Debug, Default, Clone)]
pub struct EventLog {
    chunks: Vec<Vec<Packed>>,
    len: usize,
}

/// An event as stored: `stamp` is the cycle shifted left by 8 with the kind's index below.
#[derive(Debug, Clone, Copy)]
struct Packed {
    stamp: u64,
    process: u32,
    channel: u32,
    bytes: u32,
    other: u32,
}

const KINDS: [EventKind; 6] = [
    EventKind::Start,
    EventKind::End,
    EventKind::Send,
    EventKind::ReceiveCall,
    EventKind::Arrival,
    EventKind::Probe,
];

impl Packed {
    /// Cycles up to 2^56 (over 100 years at 20 MHz) are kept exactly; later ones saturate.
    fn pack(e: Event) -> Packed {
        Packed {
            stamp: (e.cycle.min(u64::MAX >> 8) << 8) | e.kind as u64,
            process: e.process,
            channel: e.channel,
            bytes: e.bytes,
            other: e.other,
        }
    }

    fn unpack(&self) -> Event {
        Event {
            cycle: self.stamp >> 8,
            kind: KINDS[(self.stamp & 0xFF) as usize % KINDS.len()],
            process: self.process,
            channel: self.channel,
            bytes: self.bytes,
            other: self.other,
        }
    }
}

/// The events of an [`EventLog`], in order.
#[derive(Debug, Clone)]
pub struct EventIter<'a>(std::iter::Flatten<std::slice::Iter<'a, Vec<Packed>>>);

impl Iterator for EventIter<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.0.next().map(Packed::unpack)
    }
}

impl EventLog {
    /// Events in the first chunk.
    const FIRST: usize = 1 << 12;
    /// Events in the largest chunk (24 MiB).
    const LARGEST: usize = 1 << 20;

    /// Appends `event`.
    #[inline]
    pub fn push(&mut self, event: Event) {
        let packed = Packed::pack(event);
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < chunk.capacity() => chunk.push(packed),
            last => {
                let size = last.map_or(Self::FIRST, |c| (c.capacity() * 2).min(Self::LARGEST));
                let mut chunk = Vec::with_capacity(size);
                chunk.push(packed);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    /// How many events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The events in order.
    pub fn iter(&self) -> EventIter<'_> {
        EventIter(self.chunks.iter().flatten())
    }
}

impl<'a> IntoIterator for &'a EventLog {
    type Item = Event;
    type IntoIter = EventIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Interrupted {
    wptr: u32,
    iptr: u32,
    a: u32,
    b: u32,
    c: u32,
    slices_at: u64,
}

/// One transputer node.
#[derive(Debug, Clone)]
pub struct Node {
    /// The chip's costs.
    pub table: CycleTable,
    memory: Vec<u8>,
    /// The instruction pointer.
    pub iptr: u32,
    /// The workspace pointer of the running process.
    pub wptr: u32,
    /// The running process's priority: 0 high, 1 low.
    pub pri: u32,
    /// The evaluation stack.
    pub a: u32,
    /// The evaluation stack.
    pub b: u32,
    /// The evaluation stack.
    pub c: u32,
    /// The operand register.
    pub oreg: u32,
    /// The error flag.
    pub error: bool,
    /// Whether setting the error flag halts the node.
    pub halt_on_error: bool,
    /// Front of the run queue of each priority.
    pub fptr: [u32; 2],
    /// Back of the run queue of each priority.
    pub bptr: [u32; 2],
    /// Processes waiting on a timer, per priority: (time, workspace descriptor), by time.
    timers: [Vec<(u32, u32)>; 2],
    /// Whether a process is running (else the node idles).
    running: bool,
    interrupted: Option<Interrupted>,
    /// A high-priority process became ready while a low-priority one ran.
    preempt: bool,
    /// The timeslice count when the running low-priority process was scheduled.
    slices_at: u64,
    /// Cycles since the node started: its virtual time.
    pub cycles: u64,
    /// Processor cycles a second (fixed at construction: time conversions are cached from it).
    pub(crate) clock_hz: u64,
    timer_base: [u32; 2],
    /// Instructions executed (prefixes included).
    pub instructions: u64,
    /// Whether events are recorded.
    pub tracing: bool,
    /// The recorded events, in order.
    pub events: EventLog,
    /// The four links' engines.
    pub links: [Link; 4],
    /// The links' speed and delays.
    pub link_timing: LinkTiming,
    /// Link engine reactions to come: (picoseconds, link, action).
    actions: BinaryHeap<Reverse<(u64, u8, Action)>>,
    /// The cycle of the earliest pending action (`u64::MAX` when none).
    next_action_cycle: u64,
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
    /// Stop [`Node::run_until`] as soon as a packet is put on a wire.
    pub stop_on_emit: bool,
    /// Instructions run back to back, with no bookkeeping between them, while the node's
    /// time is below this cycle: its next link action or timer, or the caller's limit. Set to
    /// 0 by whatever needs the bookkeeping sooner (a process descheduled, a high-priority
    /// process ready, a timer waiter added, a link action or packet made).
    horizon: u64,
    /// `move2dinit`'s rows, destination stride and source stride.
    move2d: (u32, u32, u32),
}

/// `a / b` when `b` divides `a`, else 0.
fn whole_division(a: u64, b: u64) -> u64 {
    if a.is_multiple_of(b) { a / b } else { 0 }
}

fn words(bytes: u32) -> u32 {
    bytes.div_ceil(4)
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
        }
    }

    /// Waits for boot code on a link, as a transputer with BootFromROM low does: the first
    /// byte to arrive on any link is the code's length (2 to 255), the bytes after it are
    /// loaded at `MemStart`, and then a low-priority process runs it with `Wptr` at the first
    /// word after the code and C the link input channel it came on.
    pub fn await_boot(&mut self) -> Result<(), SimError> {
        for k in 0..10u32 {
            self.write_word(NOT_PROCESS + 4 * k, NOT_PROCESS)?;
        }
        self.running = false;
        self.booting = Some((None, 0));
        Ok(())
    }

    /// Records the running process's start (the first process of a loaded node).
    pub fn record_start(&mut self) {
        let me = self.wdesc();
        self.record(EventKind::Start, me, 0, 0, 0);
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
            return self.cycles.saturating_mul(self.ps_per_cycle);
        }
        let ps = u128::from(self.cycles) * 1_000_000_000_000 / u128::from(self.clock_hz);
        u64::try_from(ps).unwrap_or(u64::MAX)
    }

    /// Cycle `cycle` in picoseconds, rounded down.
    pub fn picoseconds_at(&self, cycle: u64) -> u64 {
        if self.ps_per_cycle != 0 {
            return cycle.saturating_mul(self.ps_per_cycle);
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

    /// A packet from the wire on link `link`, whose start bit arrives at `at_ps`.
    pub fn receive(&mut self, link: u8, kind: PacketKind, at_ps: u64) {
        let k = usize::from(link & 3);
        match kind {
            PacketKind::Data(byte) => {
                let t = self.link_timing;
                self.schedule_action(at_ps, k, Action::DataStart);
                self.schedule_action(at_ps + t.ack_delay_ps, k, Action::AckDue);
                self.schedule_action(at_ps + t.data_ps(), k, Action::ByteEnd(byte));
            }
            PacketKind::Ack => {
                let t = self.link_timing;
                self.schedule_action(at_ps + t.resume_delay_ps, k, Action::AckSeen);
            }
        }
    }

    fn schedule_action(&mut self, at_ps: u64, link: usize, action: Action) {
        self.actions.push(Reverse((at_ps, link as u8, action)));
        self.horizon = 0;
        self.next_action_cycle = self.next_action_cycle.min(self.cycle_at(at_ps));
    }

    /// Carries out the link actions whose time has come.
    fn apply_actions(&mut self) -> Result<(), SimError> {
        let now = self.picoseconds();
        while let Some(&Reverse((at, link, action))) = self.actions.peek() {
            if at > now {
                break;
            }
            self.actions.pop();
            self.link_action(usize::from(link), action, at)?;
        }
        self.next_action_cycle = match self.actions.peek() {
            Some(Reverse((at, ..))) => self.cycle_at(*at),
            None => u64::MAX,
        };
        Ok(())
    }

    fn link_action(&mut self, k: usize, action: Action, at: u64) -> Result<(), SimError> {
        match action {
            Action::DataStart => {
                let l = &mut self.links[k];
                l.arriving = true;
                l.ack_sent = false;
                l.ack_owed = false;
            }
            Action::AckDue => {
                let l = &mut self.links[k];
                if l.arriving && !l.ack_sent {
                    if l.has_room() || self.booting.is_some() {
                        self.send_ack(k, at);
                    } else {
                        l.ack_owed = true;
                    }
                }
            }
            Action::ByteEnd(byte) => {
                let l = &mut self.links[k];
                l.arriving = false;
                l.bytes_in += 1;
                if l.has_room() {
                    self.take_byte(k, byte, at)?;
                } else if self.booting.is_some() {
                    self.boot_byte(k, byte)?;
                } else {
                    l.buffered = Some(byte);
                    let alt = l.alt_wdesc;
                    if alt != NOT_PROCESS {
                        self.alt_ready(alt)?;
                    }
                }
            }
            Action::AckSeen => {
                let l = &mut self.links[k];
                l.awaiting_ack = false;
                if l.out_wdesc != NOT_PROCESS && l.out_remaining == 0 {
                    let w = l.out_wdesc;
                    l.out_wdesc = NOT_PROCESS;
                    self.enqueue(w)?;
                } else {
                    self.pump(k, at)?;
                }
            }
        }
        Ok(())
    }

    fn send_ack(&mut self, k: usize, at: u64) {
        let t = self.link_timing;
        let l = &mut self.links[k];
        let start = at.max(l.wire_free_ps);
        l.wire_free_ps = start + t.ack_ps();
        l.busy_out_ps += t.ack_ps();
        l.ack_sent = true;
        l.ack_owed = false;
        self.horizon = 0;
        self.outbox.push(Packet {
            link: k as u8,
            at_ps: start,
            kind: PacketKind::Ack,
        });
    }

    /// Sends the next byte of the output on link `k` when its engine may.
    fn pump(&mut self, k: usize, at: u64) -> Result<(), SimError> {
        let l = &self.links[k];
        if l.out_wdesc == NOT_PROCESS || l.out_remaining == 0 || l.awaiting_ack {
            return Ok(());
        }
        let byte = self.read_byte(l.out_pointer)?;
        let t = self.link_timing;
        let l = &mut self.links[k];
        let start = at.max(l.wire_free_ps);
        l.wire_free_ps = start + t.data_ps();
        l.busy_out_ps += t.data_ps();
        l.awaiting_ack = true;
        l.out_pointer = l.out_pointer.wrapping_add(1);
        l.out_remaining -= 1;
        l.bytes_out += 1;
        self.horizon = 0;
        self.outbox.push(Packet {
            link: k as u8,
            at_ps: start,
            kind: PacketKind::Data(byte),
        });
        Ok(())
    }

    /// Stores a received byte for the input on link `k`; the input completes with its last
    /// byte. Returns whether it completed.
    fn take_byte(&mut self, k: usize, byte: u8, at: u64) -> Result<bool, SimError> {
        let pointer = self.links[k].in_pointer;
        self.write_byte(pointer, byte)?;
        let l = &mut self.links[k];
        l.in_pointer = pointer.wrapping_add(1);
        l.in_remaining -= 1;
        if !l.ack_sent {
            self.send_ack(k, at);
        }
        let l = &mut self.links[k];
        if l.in_remaining > 0 {
            return Ok(false);
        }
        let w = l.in_wdesc;
        let len = l.in_len;
        l.in_wdesc = NOT_PROCESS;
        self.record(EventKind::Arrival, w, LINK_IN + 4 * k as u32, len, 0);
        if !(self.running && w == self.wdesc()) {
            self.enqueue(w)?;
        }
        Ok(true)
    }

    fn boot_byte(&mut self, k: usize, byte: u8) -> Result<(), SimError> {
        let Some((length, loaded)) = self.booting else {
            return Ok(());
        };
        let start = self.table.chip.mem_start();
        let Some(length) = length else {
            if byte < 2 {
                return Err(SimError::Boot {
                    message: format!(
                        "the first byte on link {k} is {byte}: peek and poke (0 and 1) are not \
                         supported, a boot needs the code's length (2 to 255)"
                    ),
                });
            }
            self.booting = Some((Some(u32::from(byte)), 0));
            return Ok(());
        };
        self.write_byte(start.wrapping_add(loaded), byte)?;
        let loaded = loaded + 1;
        if loaded < length {
            self.booting = Some((Some(length), loaded));
            return Ok(());
        }
        self.booting = None;
        self.a = self.iptr;
        self.b = self.wdesc();
        self.c = LINK_IN + 4 * k as u32;
        self.iptr = start;
        self.wptr = (start + length + 3) & !3;
        self.pri = 1;
        self.running = true;
        self.slices_at = self.slices();
        let me = self.wdesc();
        self.record(EventKind::Start, me, 0, 0, 0);
        // The boot code arrived as a message: its length byte and the code.
        self.record(
            EventKind::Arrival,
            me,
            LINK_IN + 4 * k as u32,
            length + 1,
            0,
        );
        Ok(())
    }

    /// An ALT waiting on a channel that became ready.
    fn alt_ready(&mut self, wdesc: u32) -> Result<(), SimError> {
        let at = self.ws(wdesc & !3, W_POINTER);
        match self.read_word(at)? {
            WAITING => {
                self.remove_timer(wdesc);
                self.write_word(at, READY)?;
                self.enqueue(wdesc)
            }
            ENABLING => self.write_word(at, READY),
            _ => Ok(()),
        }
    }

    /// `in` or `out` (or `outbyte`, `outword`) on link `k`: the engine moves the message while
    /// the process waits.
    fn link_communicate(
        &mut self,
        k: usize,
        input: bool,
        len: u32,
        pointer: u32,
    ) -> Result<(), SimError> {
        let me = self.wdesc();
        let now = self.picoseconds();
        if len == 0 {
            if input {
                self.record(EventKind::Arrival, me, LINK_IN + 4 * k as u32, 0, 0);
            }
            return Ok(());
        }
        if input {
            let l = &mut self.links[k];
            l.in_wdesc = me;
            l.in_pointer = pointer;
            l.in_remaining = len;
            l.in_len = len;
            if let Some(byte) = l.buffered.take() {
                if self.take_byte(k, byte, now)? {
                    return Ok(());
                }
            } else if l.arriving && l.ack_owed {
                self.send_ack(k, now);
            }
        } else {
            let l = &mut self.links[k];
            l.out_wdesc = me;
            l.out_pointer = pointer;
            l.out_remaining = len;
            self.pump(k, now)?;
        }
        self.deschedule(false)
    }

    /// Loads `code` at `address` and starts a low-priority process there with workspace
    /// `wptr`, the first process of the node.
    pub fn boot(&mut self, address: u32, code: &[u8], wptr: u32) -> Result<(), SimError> {
        for (k, &byte) in code.iter().enumerate() {
            self.write_byte(address.wrapping_add(k as u32), byte)?;
        }
        // The link channel words, the event channel and the timer queue heads start empty.
        for k in 0..10u32 {
            self.write_word(NOT_PROCESS + 4 * k, NOT_PROCESS)?;
        }
        self.iptr = address;
        self.wptr = wptr;
        self.pri = 1;
        self.running = true;
        self.slices_at = self.slices();
        Ok(())
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
            return self.cycles.saturating_mul(self.ns_per_cycle);
        }
        let ns = u128::from(self.cycles) * 1_000_000_000 / u128::from(self.clock_hz);
        u64::try_from(ns).unwrap_or(u64::MAX)
    }

    /// The timer of priority `pri`: 1 µs ticks (high), 64 µs ticks (low).
    pub fn timer(&self, pri: u32) -> u32 {
        let us = self.nanoseconds() / 1_000;
        let ticks = if pri == 0 { us } else { us / 64 };
        (ticks as u32).wrapping_add(self.timer_base[(pri & 1) as usize])
    }

    fn slices(&self) -> u64 {
        // 5120 periods of the 5 MHz input clock, whatever the processor clock.
        self.nanoseconds() / 1_024_000
    }

    #[inline(always)]
    fn index(&self, address: u32) -> Result<usize, SimError> {
        let offset = address.wrapping_sub(NOT_PROCESS) as usize;
        if offset < self.memory.len() {
            Ok(offset)
        } else {
            Err(self.memory_error(address))
        }
    }

    #[cold]
    #[inline(never)]
    fn memory_error(&self, address: u32) -> SimError {
        SimError::Memory {
            address,
            size: self.memory_size(),
            iptr: self.iptr,
        }
    }

    /// The byte at `address`.
    pub fn read_byte(&self, address: u32) -> Result<u8, SimError> {
        Ok(self.memory[self.index(address)?])
    }

    /// Writes the byte at `address`.
    pub fn write_byte(&mut self, address: u32, value: u8) -> Result<(), SimError> {
        let k = self.index(address)?;
        self.memory[k] = value;
        Ok(())
    }

    /// The word at `address` (rounded down to a word boundary), little-endian.
    #[inline(always)]
    pub fn read_word(&self, address: u32) -> Result<u32, SimError> {
        let k = (address.wrapping_sub(NOT_PROCESS) & !3) as usize;
        // `k + 4` cannot overflow once `k` is inside the memory.
        match self
            .memory
            .get(k.min(self.memory.len())..)
            .and_then(|m| m.get(..4))
        {
            Some(&[b0, b1, b2, b3]) => Ok(u32::from_le_bytes([b0, b1, b2, b3])),
            _ => Err(self.memory_error(address)),
        }
    }

    /// Writes the word at `address` (rounded down to a word boundary).
    #[inline(always)]
    pub fn write_word(&mut self, address: u32, value: u32) -> Result<(), SimError> {
        let k = (address.wrapping_sub(NOT_PROCESS) & !3) as usize;
        let len = self.memory.len();
        match self
            .memory
            .get_mut(k.min(len)..)
            .and_then(|m| m.get_mut(..4))
        {
            Some(word) => {
                word.copy_from_slice(&value.to_le_bytes());
                Ok(())
            }
            None => Err(self.memory_error(address)),
        }
    }

    fn ws(&self, wptr: u32, slot: i32) -> u32 {
        wptr.wrapping_add((slot * 4) as u32)
    }

    fn wdesc(&self) -> u32 {
        self.wptr | self.pri
    }

    fn push(&mut self, value: u32) {
        self.c = self.b;
        self.b = self.a;
        self.a = value;
    }

    fn pop(&mut self) -> u32 {
        let a = self.a;
        self.a = self.b;
        self.b = self.c;
        a
    }

    fn set_error(&mut self) -> Result<(), SimError> {
        self.error = true;
        if self.halt_on_error {
            return Err(SimError::HaltedOnError { iptr: self.iptr });
        }
        Ok(())
    }

    fn record(&mut self, kind: EventKind, process: u32, channel: u32, bytes: u32, other: u32) {
        if self.tracing {
            self.events.push(Event {
                cycle: self.cycles,
                kind,
                process,
                channel,
                bytes,
                other,
            });
        }
    }

    /// Puts a process on the back of its priority's run queue.
    fn enqueue(&mut self, wdesc: u32) -> Result<(), SimError> {
        let pri = (wdesc & 1) as usize;
        let w = wdesc & !3;
        if self.fptr[pri] == NOT_PROCESS {
            self.fptr[pri] = w;
        } else {
            let back = self.bptr[pri];
            self.write_word(self.ws(back, W_LINK), w)?;
        }
        self.bptr[pri] = w;
        if pri == 0 && self.running && self.pri == 1 {
            self.preempt = true;
            self.horizon = 0;
        }
        Ok(())
    }

    fn dequeue(&mut self, pri: usize) -> Result<Option<u32>, SimError> {
        let front = self.fptr[pri];
        if front == NOT_PROCESS {
            return Ok(None);
        }
        if front == self.bptr[pri] {
            self.fptr[pri] = NOT_PROCESS;
            self.bptr[pri] = NOT_PROCESS;
        } else {
            self.fptr[pri] = self.read_word(self.ws(front, W_LINK))?;
        }
        Ok(Some(front))
    }

    /// Saves the running process's `Iptr`, optionally puts it back on its run queue, and runs
    /// the next process.
    fn deschedule(&mut self, requeue: bool) -> Result<(), SimError> {
        self.write_word(self.ws(self.wptr, W_IPTR), self.iptr)?;
        if requeue {
            let wdesc = self.wdesc();
            self.enqueue(wdesc)?;
        }
        self.running = false;
        self.schedule()
    }

    /// Runs the next process: high priority first, then an interrupted low-priority process,
    /// then the low-priority queue.
    fn schedule(&mut self) -> Result<(), SimError> {
        self.preempt = false;
        self.horizon = 0;
        if let Some(w) = self.dequeue(0)? {
            self.start_running(w, 0)?;
        } else if let Some(saved) = self.interrupted.take() {
            self.wptr = saved.wptr;
            self.iptr = saved.iptr;
            self.a = saved.a;
            self.b = saved.b;
            self.c = saved.c;
            self.pri = 1;
            self.slices_at = saved.slices_at;
            self.running = true;
        } else if let Some(w) = self.dequeue(1)? {
            self.start_running(w, 1)?;
            self.slices_at = self.slices();
        }
        Ok(())
    }

    fn start_running(&mut self, w: u32, pri: u32) -> Result<(), SimError> {
        self.wptr = w;
        self.pri = pri;
        self.iptr = self.read_word(self.ws(w, W_IPTR))?;
        self.running = true;
        Ok(())
    }

    /// Wakes the timer waiters whose time has come, in time order.
    fn wake_timers(&mut self) -> Result<(), SimError> {
        for pri in 0..2u32 {
            if self.timers[pri as usize].is_empty() {
                continue;
            }
            let now = self.timer(pri);
            while let Some(&(time, wdesc)) = self.timers[pri as usize].first() {
                if (now.wrapping_sub(time) as i32) < 0 {
                    break;
                }
                self.timers[pri as usize].remove(0);
                let w = wdesc & !3;
                // A timer ALT becomes ready; a plain `tin` just continues.
                let state = self.read_word(self.ws(w, W_POINTER))?;
                if state == WAITING || state == ENABLING {
                    self.write_word(self.ws(w, W_POINTER), READY)?;
                }
                self.enqueue(wdesc)?;
            }
        }
        Ok(())
    }

    fn add_timer(&mut self, time: u32, wdesc: u32) {
        let pri = (wdesc & 1) as usize;
        let now = self.timer(wdesc & 1);
        self.horizon = 0;
        let list = &mut self.timers[pri];
        let key = |t: u32| t.wrapping_sub(now) as i32;
        let at = list.partition_point(|&(t, _)| key(t) <= key(time));
        list.insert(at, (time, wdesc));
    }

    fn remove_timer(&mut self, wdesc: u32) {
        for list in &mut self.timers {
            list.retain(|&(_, w)| w != wdesc);
        }
    }

    /// The cycle at which the earliest timer waiter wakes, if any.
    fn next_timer_cycle(&self) -> Option<u64> {
        (0..2u32)
            .filter_map(|pri| {
                let &(time, _) = self.timers[pri as usize].first()?;
                let now = self.timer(pri);
                let ahead = u64::from(time.wrapping_sub(now).max(1));
                let tick_ns = if pri == 0 { 1_000 } else { 64_000 };
                // The first cycle whose time reaches the waiter's tick.
                let target_ns = (self.nanoseconds() / tick_ns + ahead) * tick_ns;
                let cycles =
                    (u128::from(target_ns) * u128::from(self.clock_hz)).div_ceil(1_000_000_000);
                Some(u64::try_from(cycles).unwrap_or(u64::MAX))
            })
            .min()
    }

    /// Decodes the instruction at `Iptr`: its function code and full operand (prefixes folded
    /// in) and how many bytes it took.
    pub fn fetch(&self) -> Result<(u8, u32, u32), SimError> {
        let mut oreg = self.oreg;
        let mut at = self.iptr;
        loop {
            let byte = self.read_byte(at)?;
            at = at.wrapping_add(1);
            let (function, data) = (byte >> 4, u32::from(byte & 0xF));
            match function {
                0x2 => oreg = (oreg | data) << 4,
                0x6 => oreg = (!(oreg | data)) << 4,
                _ => return Ok((function, oreg | data, at.wrapping_sub(self.iptr))),
            }
        }
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
    /// timers in time order, idling forward when no process can run.
    pub fn run_until(&mut self, limit: u64) -> Result<(), SimError> {
        while self.cycles < limit {
            if self.stop_on_emit && !self.outbox.is_empty() {
                return Ok(());
            }
            if !self.prepare()? {
                if self.idle_until(limit) == Status::Idle {
                    self.idle_cycles += limit - self.cycles;
                    self.cycles = limit;
                }
                continue;
            }
            self.burst(limit, u64::MAX)?;
        }
        if self.next_action_cycle <= self.cycles {
            self.apply_actions()?;
        }
        Ok(())
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
        if self.preempt && self.running && self.pri == 1 {
            self.preempt = false;
            self.interrupted = Some(Interrupted {
                wptr: self.wptr,
                iptr: self.iptr,
                a: self.a,
                b: self.b,
                c: self.c,
                slices_at: self.slices_at,
            });
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

    /// Executes direct function `function` with the data nibble `data` (and `Oreg`, built by
    /// earlier prefixes); `Iptr` already points past the byte.
    #[inline(always)]
    pub fn execute(&mut self, function: u8, data: u32) -> Result<(), SimError> {
        let function = function & 0xF;
        let operand = self.oreg | data;
        let cost = self.table.direct[usize::from(function)];
        match function {
            0x2 => {
                self.oreg = operand << 4;
                self.cycles += u64::from(cost);
                return Ok(());
            }
            0x6 => {
                self.oreg = (!operand) << 4;
                self.cycles += u64::from(cost);
                return Ok(());
            }
            _ => self.oreg = 0,
        }
        match function {
            0x0 => {
                // j: a deschedule point.
                self.iptr = self.iptr.wrapping_add(operand);
                self.cycles += u64::from(cost);
                self.timeslice()?;
                return Ok(());
            }
            0x1 => self.push(self.wptr.wrapping_add(operand.wrapping_mul(4))),
            0x3 => {
                let at = self.a.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                self.a = self.read_word(at)?;
            }
            0x4 => self.push(operand),
            0x5 => self.a = self.a.wrapping_add(operand.wrapping_mul(4)),
            0x7 => {
                let at = self.wptr.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                let v = self.read_word(at)?;
                self.push(v);
            }
            0x8 => {
                let (sum, overflow) = (self.a as i32).overflowing_add(operand as i32);
                self.a = sum as u32;
                if overflow {
                    self.set_error()?;
                }
            }
            0x9 => {
                // call: push the return address and A, B, C into a new four-word frame.
                self.wptr = self.wptr.wrapping_sub(16);
                self.write_word(self.wptr, self.iptr)?;
                self.write_word(self.wptr.wrapping_add(4), self.a)?;
                self.write_word(self.wptr.wrapping_add(8), self.b)?;
                self.write_word(self.wptr.wrapping_add(12), self.c)?;
                self.a = self.iptr;
                self.iptr = self.iptr.wrapping_add(operand);
            }
            0xA => {
                if self.a == 0 {
                    self.iptr = self.iptr.wrapping_add(operand);
                } else {
                    self.pop();
                    self.cycles += u64::from(self.table.cj_not_taken);
                    return Ok(());
                }
            }
            0xB => self.wptr = self.wptr.wrapping_add(operand.wrapping_mul(4)),
            0xC => self.a = u32::from(self.a == operand),
            0xD => {
                let at = self.wptr.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                self.write_word(at, self.a)?;
                self.pop();
            }
            0xE => {
                let at = self.a.wrapping_add(operand.wrapping_mul(4));
                self.wait(at);
                self.write_word(at, self.b)?;
                self.pop();
                self.pop();
            }
            0xF => return self.operate(operand),
            _ => {}
        }
        self.cycles += u64::from(cost);
        Ok(())
    }

    /// At `j` and `lend`: a low-priority process that has run for two timeslice periods goes
    /// to the back of its queue when another low-priority process is waiting.
    fn timeslice(&mut self) -> Result<(), SimError> {
        if self.pri == 1 && self.slices() >= self.slices_at + 2 && self.fptr[1] != NOT_PROCESS {
            self.deschedule(true)?;
        }
        Ok(())
    }

    /// Charges the memory wait states of an access to `address` when it is off the chip.
    /// Modelled: instruction fetches (a word per four bytes) and the load/store direct
    /// functions (`ldl`, `stl`, `ldnl`, `stnl`); operations' other accesses are in their counts.
    #[inline]
    fn wait(&mut self, address: u32) {
        let wait_states = self.table.wait_states;
        if wait_states != 0 && address.wrapping_sub(NOT_PROCESS) >= self.table.chip.on_chip_bytes()
        {
            self.cycles += u64::from(wait_states);
        }
    }

    fn charge(&mut self, cost: Cost, n: u32, condition: bool) {
        let cycles = match cost {
            Cost::Fixed(c) => c,
            Cost::PerWord { base, per } => base + per * n,
            Cost::PerBit { base } => base + n,
            Cost::Either { yes, no } => {
                if condition {
                    yes
                } else {
                    no
                }
            }
        };
        self.cycles += u64::from(cycles);
    }

    fn copy(&mut self, from: u32, to: u32, len: u32) -> Result<(), SimError> {
        let (f, t, n) = (
            from.wrapping_sub(NOT_PROCESS) as usize,
            to.wrapping_sub(NOT_PROCESS) as usize,
            len as usize,
        );
        let size = self.memory.len();
        let inside = |at: usize| at <= size && n <= size - at;
        if inside(f) && inside(t) && (f + n <= t || t + n <= f) {
            // Both blocks in memory and apart: one move.
            self.memory.copy_within(f..f + n, t);
            return Ok(());
        }
        // Overlapping blocks are copied a byte at a time, lowest address first; a block that
        // leaves memory fails at its first byte outside.
        for k in 0..len {
            let byte = self.read_byte(from.wrapping_add(k))?;
            self.write_byte(to.wrapping_add(k), byte)?;
        }
        Ok(())
    }

    /// Executes operation `code`.
    #[inline(never)]
    fn operate(&mut self, code: u32) -> Result<(), SimError> {
        let Some(&info) = self.table.op(code) else {
            return Err(self.unimplemented(code, "?"));
        };
        let (mut n, mut condition) = (0u32, true);
        let (a, b, c) = (self.a, self.b, self.c);
        match info.op {
            Op::Rev => {
                self.a = b;
                self.b = a;
            }
            Op::Dup => self.push(a),
            Op::Move2dinit => {
                // A: rows, B: destination stride, C: source stride.
                self.move2d = (a, b, c);
                self.pop();
                self.pop();
                self.pop();
            }
            Op::Move2dall | Op::Move2dnonzero | Op::Move2dzero => {
                // A: the row's width in bytes, B: destination, C: source.
                let (rows, dst_stride, src_stride) = self.move2d;
                self.pop();
                self.pop();
                self.pop();
                for r in 0..rows {
                    let from = c.wrapping_add(r.wrapping_mul(src_stride));
                    let to = b.wrapping_add(r.wrapping_mul(dst_stride));
                    for k in 0..a {
                        let byte = self.read_byte(from.wrapping_add(k))?;
                        let copy = match info.op {
                            Op::Move2dnonzero => byte != 0,
                            Op::Move2dzero => byte == 0,
                            _ => true,
                        };
                        if copy {
                            self.write_byte(to.wrapping_add(k), byte)?;
                        }
                    }
                    self.charge(info.cost, words(a), true);
                }
                return Ok(());
            }
            Op::Add | Op::Sub | Op::Mul => {
                let (x, y) = (b as i32, a as i32);
                let (v, overflow) = match info.op {
                    Op::Add => x.overflowing_add(y),
                    Op::Sub => x.overflowing_sub(y),
                    _ => x.overflowing_mul(y),
                };
                self.pop();
                self.a = v as u32;
                if overflow {
                    self.set_error()?;
                }
            }
            Op::Sum | Op::Diff | Op::Prod => {
                self.pop();
                self.a = match info.op {
                    Op::Sum => b.wrapping_add(a),
                    Op::Diff => b.wrapping_sub(a),
                    _ => b.wrapping_mul(a),
                };
                n = 32 - a.leading_zeros();
            }
            Op::Div | Op::Rem => {
                self.pop();
                let (x, y) = (b as i32, a as i32);
                if y == 0 || (x == i32::MIN && y == -1) {
                    self.set_error()?;
                } else {
                    self.a = if info.op == Op::Div { x / y } else { x % y } as u32;
                }
            }
            Op::Gt => {
                self.pop();
                self.a = u32::from((b as i32) > (a as i32));
            }
            Op::And | Op::Or | Op::Xor => {
                self.pop();
                self.a = match info.op {
                    Op::And => b & a,
                    Op::Or => b | a,
                    _ => b ^ a,
                };
            }
            Op::Not => self.a = !a,
            Op::Shl | Op::Shr => {
                self.pop();
                n = a.min(32);
                self.a = match (info.op, a) {
                    (_, 32..) => 0,
                    (Op::Shl, _) => b << a,
                    _ => b >> a,
                };
            }
            Op::Mint => self.push(NOT_PROCESS),
            Op::Bsub => {
                self.pop();
                self.a = a.wrapping_add(b);
            }
            Op::Wsub => {
                self.pop();
                self.a = a.wrapping_add(b.wrapping_mul(4));
            }
            Op::Wsubdb => {
                self.pop();
                self.a = a.wrapping_add(b.wrapping_mul(8));
            }
            Op::Bcnt => self.a = a.wrapping_mul(4),
            Op::Wcnt => {
                self.a = ((a as i32) >> 2) as u32;
                self.c = self.b;
                self.b = a & 3;
            }
            Op::Lb => self.a = u32::from(self.read_byte(a)?),
            Op::Sb => {
                self.write_byte(a, b as u8)?;
                self.pop();
                self.pop();
            }
            Op::Move => {
                self.copy(c, b, a)?;
                n = words(a);
                self.pop();
                self.pop();
                self.pop();
            }
            Op::Ldpi => self.a = self.iptr.wrapping_add(a),
            Op::Ldpri => self.push(self.pri),
            Op::Gcall => {
                self.a = self.iptr;
                self.iptr = a;
            }
            Op::Gajw => {
                self.a = self.wptr;
                self.wptr = a & !3;
            }
            Op::Ret => {
                self.iptr = self.read_word(self.wptr)?;
                self.wptr = self.wptr.wrapping_add(16);
            }
            Op::Seterr => self.set_error()?,
            Op::Testerr => {
                condition = !self.error;
                self.push(u32::from(!self.error));
                self.error = false;
            }
            Op::Stoperr => {
                if self.error {
                    self.charge(info.cost, n, condition);
                    self.deschedule(false)?;
                    return Ok(());
                }
            }
            Op::Clrhalterr => self.halt_on_error = false,
            Op::Sethalterr => self.halt_on_error = true,
            Op::Testhalterr => self.push(u32::from(self.halt_on_error)),
            Op::Testpranal => self.push(0),
            Op::Csub0 => {
                self.pop();
                if b >= a {
                    self.set_error()?;
                }
            }
            Op::Ccnt1 => {
                self.pop();
                if b == 0 || b > a {
                    self.set_error()?;
                }
            }
            Op::Cword => {
                self.pop();
                let (v, bits) = (i64::from(b as i32), i64::from(a));
                if v < -bits || v >= bits {
                    self.set_error()?;
                }
            }
            Op::Csngl => {
                self.pop();
                let fits = (b == 0 && (a as i32) >= 0) || (b == u32::MAX && (a as i32) < 0);
                if !fits {
                    self.set_error()?;
                }
            }
            Op::Xword => {
                self.pop();
                self.a = if a != 0 && b & a != 0 {
                    b.wrapping_sub(a.wrapping_mul(2))
                } else {
                    b
                };
            }
            Op::Xdble => {
                let hi = if (a as i32) < 0 { u32::MAX } else { 0 };
                self.c = self.b;
                self.b = hi;
            }
            Op::Ladd | Op::Lsub => {
                self.pop();
                self.pop();
                let carry = i64::from(c & 1);
                let v = if info.op == Op::Ladd {
                    i64::from(b as i32) + i64::from(a as i32) + carry
                } else {
                    i64::from(b as i32) - i64::from(a as i32) - carry
                };
                self.a = v as u32;
                if v != i64::from(v as i32) {
                    self.set_error()?;
                }
            }
            Op::Lsum => {
                let v = u64::from(b) + u64::from(a) + u64::from(c & 1);
                self.a = v as u32;
                self.b = (v >> 32) as u32;
            }
            Op::Ldiff => {
                let v = i64::from(b) - i64::from(a) - i64::from(c & 1);
                self.a = v as u32;
                self.b = u32::from(v < 0);
            }
            Op::Lmul => {
                let v = u64::from(b) * u64::from(a) + u64::from(c);
                self.a = v as u32;
                self.b = (v >> 32) as u32;
            }
            Op::Ldiv => {
                // (C:B) / A, with C < A.
                if c >= a {
                    self.set_error()?;
                } else {
                    let x = (u64::from(c) << 32) | u64::from(b);
                    self.a = (x / u64::from(a)) as u32;
                    self.b = (x % u64::from(a)) as u32;
                }
            }
            Op::Lshl | Op::Lshr => {
                let x = (u64::from(c) << 32) | u64::from(b);
                n = a.min(64);
                let v = match (info.op, a) {
                    (_, 64..) => 0,
                    (Op::Lshl, _) => x << a,
                    _ => x >> a,
                };
                self.a = v as u32;
                self.b = (v >> 32) as u32;
            }
            Op::Norm => {
                let x = (u64::from(b) << 32) | u64::from(a);
                let shift = if x == 0 { 64 } else { x.leading_zeros() };
                let v = if shift >= 64 { 0 } else { x << shift };
                n = shift;
                self.a = v as u32;
                self.b = (v >> 32) as u32;
                self.c = shift;
            }
            Op::Bitcnt => {
                self.pop();
                n = 32 - a.leading_zeros();
                self.a = a.count_ones().wrapping_add(b);
            }
            Op::Bitrevword => self.a = a.reverse_bits(),
            Op::Bitrevnbits => {
                self.pop();
                n = a.min(32);
                self.a = if a == 0 {
                    0
                } else if a >= 32 {
                    b.reverse_bits()
                } else {
                    b.reverse_bits() >> (32 - a)
                };
            }
            Op::Crcword | Op::Crcbyte => {
                // A = generator, B = CRC, C = data (its top byte for crcbyte).
                let (bits, mut data) = if info.op == Op::Crcword {
                    (32, c)
                } else {
                    (8, c)
                };
                let mut crc = b;
                for _ in 0..bits {
                    let top = crc >> 31;
                    crc = (crc << 1) | (data >> 31);
                    data <<= 1;
                    if top == 1 {
                        crc ^= a;
                    }
                }
                self.pop();
                self.pop();
                self.a = crc;
            }
            Op::Ldtimer => self.push(self.timer(self.pri)),
            Op::Sttimer => {
                self.pop();
                for pri in 0..2u32 {
                    let now = self.timer(pri).wrapping_sub(self.timer_base[pri as usize]);
                    self.timer_base[pri as usize] = a.wrapping_sub(now);
                }
            }
            Op::Tin => {
                self.pop();
                let future = (self.timer(self.pri).wrapping_sub(a) as i32) < 0;
                self.charge(info.cost, 0, future);
                if future {
                    let wdesc = self.wdesc();
                    self.write_word(self.ws(self.wptr, W_POINTER), 0)?;
                    self.add_timer(a, wdesc);
                    self.deschedule(false)?;
                }
                return Ok(());
            }
            Op::Saveh | Op::Savel => {
                let pri = usize::from(info.op == Op::Savel);
                self.write_word(a, self.fptr[pri])?;
                self.write_word(a.wrapping_add(4), self.bptr[pri])?;
                self.pop();
            }
            Op::Sthf | Op::Sthb | Op::Stlf | Op::Stlb => {
                let pri = usize::from(matches!(info.op, Op::Stlf | Op::Stlb));
                if matches!(info.op, Op::Sthf | Op::Stlf) {
                    self.fptr[pri] = a;
                } else {
                    self.bptr[pri] = a;
                }
                self.pop();
            }
            Op::Startp => {
                // A: the new process's workspace, B: its code's offset from the next
                // instruction. Same priority as the parent.
                let w = a & !3;
                let start = self.iptr.wrapping_add(b);
                self.write_word(self.ws(w, W_IPTR), start)?;
                self.pop();
                self.pop();
                let (child, parent) = (w | self.pri, self.wdesc());
                self.record(EventKind::Start, child, 0, 0, parent);
                self.enqueue(child)?;
            }
            Op::Runp => {
                self.pop();
                let parent = self.wdesc();
                self.record(EventKind::Start, a, 0, 0, parent);
                self.enqueue(a)?;
            }
            Op::Endp => {
                // A: the join block (W[0] the successor's Iptr, W[1] the count of processes
                // still running).
                let count = self.read_word(a.wrapping_add(4))?;
                let me = self.wdesc();
                self.record(EventKind::End, me, 0, 0, 0);
                self.charge(info.cost, 0, true);
                if count <= 1 {
                    self.wptr = a;
                    self.iptr = self.read_word(a)?;
                    self.write_word(a.wrapping_add(4), 0)?;
                } else {
                    self.write_word(a.wrapping_add(4), count - 1)?;
                    self.running = false;
                    self.schedule()?;
                }
                return Ok(());
            }
            Op::Stopp => {
                let me = self.wdesc();
                self.record(EventKind::End, me, 0, 0, 0);
                self.charge(info.cost, 0, true);
                self.deschedule(false)?;
                return Ok(());
            }
            Op::Resetch => {
                if let Some((k, input)) = link_channel(a) {
                    let l = &mut self.links[k];
                    if input {
                        self.a = l.in_wdesc;
                        l.in_wdesc = NOT_PROCESS;
                        l.buffered = None;
                        l.alt_wdesc = NOT_PROCESS;
                    } else {
                        self.a = l.out_wdesc;
                        l.out_wdesc = NOT_PROCESS;
                        l.out_remaining = 0;
                    }
                } else {
                    self.a = self.read_word(a)?;
                    self.write_word(a, NOT_PROCESS)?;
                }
            }
            Op::Lend => {
                // A: the jump back, B: the loop block (W[0] the index, W[1] the count).
                let count = self.read_word(b.wrapping_add(4))?.wrapping_sub(1);
                self.write_word(b.wrapping_add(4), count)?;
                condition = (count as i32) > 0;
                self.pop();
                self.pop();
                self.charge(info.cost, 0, condition);
                if condition {
                    let index = self.read_word(b)?.wrapping_add(1);
                    self.write_word(b, index)?;
                    self.iptr = self.iptr.wrapping_sub(a);
                }
                self.timeslice()?;
                return Ok(());
            }
            Op::In | Op::Out | Op::Outbyte | Op::Outword => {
                return self.communicate(info.op, info.cost);
            }
            Op::Alt | Op::Talt => {
                self.write_word(self.ws(self.wptr, W_POINTER), ENABLING)?;
                if info.op == Op::Talt {
                    self.write_word(self.ws(self.wptr, W_TLINK), TIME_NOT_SET)?;
                }
            }
            Op::Enbs => {
                if a != 0 {
                    self.write_word(self.ws(self.wptr, W_POINTER), READY)?;
                }
            }
            Op::Enbc => {
                // A: the guard, B: the channel.
                self.b = c;
                condition = false;
                if let (true, Some((k, true))) = (a != 0, link_channel(b)) {
                    if self.links[k].buffered.is_some() {
                        condition = true;
                        self.write_word(self.ws(self.wptr, W_POINTER), READY)?;
                    } else {
                        self.links[k].alt_wdesc = self.wdesc();
                    }
                } else if a != 0 {
                    let word = self.read_word(b)?;
                    let me = self.wdesc();
                    if word == NOT_PROCESS {
                        self.write_word(b, me)?;
                    } else if word != me {
                        condition = true;
                        self.write_word(self.ws(self.wptr, W_POINTER), READY)?;
                    }
                }
            }
            Op::Enbt => {
                // A: the guard, B: the time.
                self.b = c;
                if a != 0 {
                    let state = self.read_word(self.ws(self.wptr, W_TLINK))?;
                    let earliest = self.read_word(self.ws(self.wptr, W_TIME))?;
                    if state == TIME_NOT_SET || (b.wrapping_sub(earliest) as i32) < 0 {
                        self.write_word(self.ws(self.wptr, W_TLINK), TIME_SET)?;
                        self.write_word(self.ws(self.wptr, W_TIME), b)?;
                    }
                }
            }
            Op::Altwt | Op::Taltwt => {
                self.write_word(self.wptr, NONE_SELECTED)?;
                let state_at = self.ws(self.wptr, W_POINTER);
                let mut ready = self.read_word(state_at)? == READY;
                let mut time = None;
                if !ready
                    && info.op == Op::Taltwt
                    && self.read_word(self.ws(self.wptr, W_TLINK))? == TIME_SET
                {
                    let t = self.read_word(self.ws(self.wptr, W_TIME))?;
                    if (self.timer(self.pri).wrapping_sub(t) as i32) >= 0 {
                        ready = true;
                    } else {
                        time = Some(t);
                    }
                }
                self.charge(info.cost, 0, ready);
                if !ready {
                    self.write_word(state_at, WAITING)?;
                    if let Some(t) = time {
                        let wdesc = self.wdesc();
                        self.add_timer(t, wdesc);
                    }
                    self.deschedule(false)?;
                }
                return Ok(());
            }
            Op::Disc => {
                // A: the branch offset, B: the guard, C: the channel.
                let me = self.wdesc();
                if let Some((k, true)) = link_channel(c) {
                    let l = &mut self.links[k];
                    let ready = b != 0 && l.buffered.is_some();
                    if l.alt_wdesc == me {
                        l.alt_wdesc = NOT_PROCESS;
                    }
                    self.select(a, ready)?;
                } else {
                    let word = self.read_word(c)?;
                    let ready = b != 0 && word != NOT_PROCESS && word != me;
                    if b != 0 && word == me {
                        self.write_word(c, NOT_PROCESS)?;
                    }
                    self.select(a, ready)?;
                }
            }
            Op::Diss => {
                self.select(a, b != 0)?;
                self.b = c;
            }
            Op::Dist => {
                // A: the branch offset, B: the guard, C: the time.
                let me = self.wdesc();
                self.remove_timer(me);
                let timed = self.read_word(self.ws(self.wptr, W_TLINK))? == TIME_SET;
                let ready = b != 0 && timed && (self.timer(self.pri).wrapping_sub(c) as i32) >= 0;
                self.select(a, ready)?;
            }
            Op::Altend => {
                let offset = self.read_word(self.wptr)?;
                self.iptr = self.iptr.wrapping_add(offset);
            }
            Op::Probe => {
                // A: the tag, B: the text's address, C: its length.
                self.pop();
                self.pop();
                self.pop();
                let me = self.wdesc();
                if self.tracing {
                    let mut text = Vec::with_capacity(c.min(256) as usize);
                    for k in 0..c.min(256) {
                        text.push(self.read_byte(b.wrapping_add(k))?);
                    }
                    self.probe_texts
                        .push(String::from_utf8_lossy(&text).into_owned());
                }
                let index = self.probe_texts.len().saturating_sub(1) as u32;
                self.record(EventKind::Probe, me, index, c, a);
            }
            // The T414's floating-point support operations are not implemented yet.
            Op::Unpacksn | Op::Postnormsn | Op::Roundsn | Op::Ldinf | Op::Cflerr => {
                return Err(self.unimplemented(code, info.name));
            }
        }
        self.charge(info.cost, n, condition);
        Ok(())
    }

    /// The end of a guard's disabling: the first ready guard's branch is chosen (PRI ALT order:
    /// the order the guards are disabled in). Leaves A = whether this guard fired.
    fn select(&mut self, offset: u32, ready: bool) -> Result<(), SimError> {
        let chosen = ready && self.read_word(self.wptr)? == NONE_SELECTED;
        if chosen {
            self.write_word(self.wptr, offset)?;
        }
        self.pop();
        self.pop();
        self.a = u32::from(chosen);
        Ok(())
    }

    fn unimplemented(&self, code: u32, name: &'static str) -> SimError {
        SimError::Unimplemented {
            code,
            name,
            iptr: self.iptr.wrapping_sub(1),
            chip: self.table.chip.name(),
        }
    }

    /// `in`, `out`, `outbyte` and `outword` on an internal channel.
    fn communicate(&mut self, op: Op, cost: Cost) -> Result<(), SimError> {
        let me = self.wdesc();
        let (len, channel, pointer) = match op {
            Op::Outbyte | Op::Outword => {
                // The value goes through W[0].
                let len = if op == Op::Outbyte { 1 } else { 4 };
                self.write_word(self.wptr, self.a)?;
                (len, self.b, self.wptr)
            }
            _ => (self.a, self.b, self.c),
        };
        self.pop();
        self.pop();
        if matches!(op, Op::In | Op::Out) {
            self.pop();
        }
        // On a link the engine moves the message while the process waits: the instruction
        // costs its base; on an internal channel the copy is charged per word.
        let copied = if link_channel(channel).is_some() {
            0
        } else {
            words(len)
        };
        self.charge(cost, copied, true);
        let input = op == Op::In;
        let kind = if input {
            EventKind::ReceiveCall
        } else {
            EventKind::Send
        };
        self.record(kind, me, channel, len, 0);
        if let Some((k, link_input)) = link_channel(channel)
            && link_input == input
        {
            return self.link_communicate(k, input, len, pointer);
        }
        let word = self.read_word(channel)?;
        if word == NOT_PROCESS {
            // First to arrive: wait in the channel.
            self.write_word(channel, me)?;
            self.write_word(self.ws(self.wptr, W_POINTER), pointer)?;
            return self.deschedule(false);
        }
        let other = word & !3;
        let other_state = self.read_word(self.ws(other, W_POINTER))?;
        if !input && matches!(other_state, ENABLING | WAITING | READY) {
            // An ALT is enabling or waiting on this channel: make it ready and wait for it to
            // take the message.
            if other_state == WAITING {
                self.remove_timer(word);
                self.write_word(self.ws(other, W_POINTER), READY)?;
                self.enqueue(word)?;
            } else {
                self.write_word(self.ws(other, W_POINTER), READY)?;
            }
            self.write_word(channel, me)?;
            self.write_word(self.ws(self.wptr, W_POINTER), pointer)?;
            return self.deschedule(false);
        }
        // The partner waits: move the message and let it go on.
        if input {
            self.copy(other_state, pointer, len)?;
            self.record(EventKind::Arrival, me, channel, len, word);
        } else {
            self.copy(pointer, other_state, len)?;
            self.record(EventKind::Arrival, word, channel, len, me);
        }
        self.write_word(channel, NOT_PROCESS)?;
        self.enqueue(word)
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
    use super::{Event, EventKind, EventLog, KINDS};

    #[test]
    fn the_event_log_gives_back_every_event_in_order_across_its_chunks() {
        let mut log = EventLog::default();
        let n = 3 * EventLog::FIRST + 17;
        let event = |k: usize| Event {
            cycle: (k as u64) << 40 | k as u64,
            kind: KINDS[k % KINDS.len()],
            process: k as u32,
            channel: !(k as u32),
            bytes: 7 * k as u32,
            other: u32::MAX - k as u32,
        };
        for k in 0..n {
            log.push(event(k));
        }
        assert_eq!(log.len(), n);
        assert_eq!(log.chunks.len(), 3, "chunks of 4096, 8192 and 16384 events");
        assert!(log.iter().eq((0..n).map(event)));
        assert_eq!((&log).into_iter().nth(n - 1), Some(event(n - 1)));
        // The last cycle kept exactly, and the kind of a saturated one.
        let mut late = EventLog::default();
        late.push(Event {
            cycle: u64::MAX,
            kind: EventKind::Probe,
            ..event(0)
        });
        let back = late.iter().next().map(|e| (e.cycle, e.kind));
        assert_eq!(back, Some((u64::MAX >> 8, EventKind::Probe)));
    }
}
