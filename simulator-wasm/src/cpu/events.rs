//! What a node records for the trace: events, packed into a chunked log.

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
    /// The running process stopped running: it waits for what `bytes` says (a
    /// `shared::model::WaitReason`'s code), on `channel` (a channel's or a join block's
    /// address, 0 when none); for a process made ready, `process` is it and `other` (and
    /// `channel`) the process whose action released it (0 when none).
    Wait,
    /// The scheduler gave the processor to `process`.
    Run,
}

/// A log keeps a wait as an end, a run as a start, with this bit set in `bytes` (which an end
/// or a start never uses): the log's codes stay six kinds.
const SWITCH: u32 = 1 << 31;

/// One recorded event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// When, in cycles since the node started.
    pub cycle: u64,
    /// What.
    pub kind: EventKind,
    /// The process (its workspace descriptor: `Wptr | priority`).
    pub process: u32,
    /// The channel word's address (for a probe, the text's index; for a start, the address of
    /// the code the process starts at, 0 when unknown).
    pub channel: u32,
    /// Bytes moved (for a probe, the text's length).
    pub bytes: u32,
    /// A start's parent, a probe's tag, a message partner's descriptor (0 when none).
    pub other: u32,
}

/// A node's recorded events, in order, compressed as they are recorded.
///
/// An event is staged as it happens (24 bytes written in one go: cheap for the interpreter)
/// and encoded into the log's chunks 256 at a time. The encoder predicts each event from the
/// one before: a table keeps, for the previous event's kind, process and channel (hashed to
/// one of 256 slots), the event that followed them last time, with its distance in cycles.
/// An event as predicted costs nothing but a count in a run of them (one byte for up to 32);
/// any other is a header byte (its kind, which fields differ from the event before, a one-
/// or eight-byte time step), the step, and only the fields that changed: 2 to 25 bytes. A
/// program that communicates in a steady pattern (COMSTIME, an event every 4 instructions)
/// takes 0.03 bytes an event instead of 24: the kernel's fresh pages and the memory's
/// bandwidth were most of what tracing cost natively (1.6× → 1.2×).
///
/// The table starts empty at the start of a *block*: the log's start, and the first events
/// after a [`Mark`] (a checkpoint's point to cut back to), so that a log cut back to a mark
/// goes on exactly as if what followed it had never been recorded.
///
/// Chunks double in size up to 16 MiB: recording never moves what is stored and asks the
/// allocator for more memory only a few times (in WebAssembly, whose allocator cannot remap,
/// a growing `Vec` would copy everything at each doubling, and every memory growth costs the
/// engine a collection's worth of bookkeeping). The 256 events encoded together never
/// straddle two chunks.
#[derive(Debug, Default, Clone)]
pub struct EventLog {
    /// Events not yet encoded: the first `staged` ([`EventLog::STAGE`] long once anything was
    /// recorded, empty before).
    stage: Vec<Staged>,
    staged: usize,
    len: usize,
    /// The encoded events (none before the first stage is encoded). Apart, so that the log
    /// takes as little of [`super::Node`] as before it was compressed: the interpreter's
    /// speed depends on where `Node`'s fields fall.
    coded: Option<Box<Coded>>,
}

/// An [`EventLog`]'s encoded events.
#[derive(Debug, Default, Clone)]
struct Coded {
    /// Chunks filled (up to their length).
    chunks: Vec<Vec<u8>>,
    /// The chunk being filled, zeroed to its full length (fresh pages stay untouched until
    /// written); its first `used` bytes are written.
    head: Vec<u8>,
    used: usize,
    /// The last event encoded (what the next event is coded against).
    last: Last,
    /// The block's predictions ([`SLOTS`] of them, or none before the first).
    slots: Vec<Slot>,
    /// The slots the block filled, emptied when the next starts (a block may be a single
    /// event, after each of a network's checkpoints: emptying them all costs more).
    filled: Vec<u8>,
    /// Whether the next events continue the block before, or start a new one.
    continuing: bool,
}

/// What an [`EventLog`] holds before anything was encoded.
static NOTHING: Coded = Coded {
    chunks: Vec::new(),
    head: Vec::new(),
    used: 0,
    last: Last {
        cycle: 0,
        kind: 0,
        partners: 0,
        bytes: 0,
    },
    slots: Vec::new(),
    filled: Vec::new(),
    continuing: false,
};

/// An event as staged, in three words: the cycle shifted left by 8 with the kind's index
/// below (cycles up to 2^56, over 100 years at 20 MHz, are kept exactly; later ones
/// saturate), the process with the channel above it, and the bytes with `other` above them.
type Staged = [u64; 3];

/// The last event encoded or decoded (all zero before the first): as staged, its time in
/// cycles and not shifted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Last {
    cycle: u64,
    kind: u8,
    /// The process, and the channel above it.
    partners: u64,
    bytes: u32,
}

impl Last {
    /// The prediction table's slot for the event after this one.
    fn context(&self) -> usize {
        // SplitMix64's finalizer over the process, channel and kind: a weaker mix once put
        // two of COMSTIME's 27 contexts a turn in one slot at every table size.
        let x = self
            .partners
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(u64::from(self.kind).wrapping_mul(0xD6E8_FEB8_6659_FD93));
        let x = (x ^ x >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let x = (x ^ x >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((x ^ x >> 31) >> (64 - SLOTS.trailing_zeros())) as usize
    }

    /// The event `slot` describes, following this one.
    fn next(&self, slot: &Slot) -> Last {
        Last {
            cycle: self.cycle.wrapping_add(slot[0] >> 8),
            kind: slot[0] as u8,
            partners: slot[1],
            bytes: slot[2] as u32,
        }
    }
}

/// A prediction: the event that followed a context last time, as staged but with its cycle
/// a step from the event before; [`EMPTY`] while the slot holds none.
type Slot = [u64; 3];

const SLOTS: usize = 256;
// A slot's index fits in the byte `Coded::filled` keeps it in.
const _: () = assert!(SLOTS <= 256);
/// No event: its kind is none of [`KINDS`].
const EMPTY: Slot = [0xFF, 0, 0];

/// A point in an [`EventLog`] to cut it back to ([`EventLog::truncate`]): every event before
/// it encoded, and a block starting after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    len: usize,
    size: usize,
    last: Last,
}

/// A header's low three bits: an event's kind (0–5), or one of these.
const BLOCK: u8 = 6;
/// A run of predicted events, as many as the header's upper five bits plus one.
const RUN: u8 = 7;
/// An event's header bits above the kind: which fields follow.
const NEW_PROCESS: u8 = 1 << 3;
const NEW_CHANNEL: u8 = 1 << 4;
const NEW_BYTES: u8 = 1 << 5;
/// `other` is not 0 (it is the field that repeats least; 0 is its usual value).
const HAS_OTHER: u8 = 1 << 6;
/// The time step takes eight bytes, not one.
const LONG_STEP: u8 = 1 << 7;
/// The longest run one header counts.
const LONGEST_RUN: u32 = 32;

const KINDS: [EventKind; 8] = [
    EventKind::Start,
    EventKind::End,
    EventKind::Send,
    EventKind::ReceiveCall,
    EventKind::Arrival,
    EventKind::Probe,
    EventKind::Wait,
    EventKind::Run,
];

impl EventKind {
    /// The kind numbered `index` (its declaration order, as `kind as u8` gives it).
    pub fn from_index(index: u8) -> Option<EventKind> {
        KINDS.get(usize::from(index)).copied()
    }
}

/// The events of an [`EventLog`], in order.
#[derive(Debug, Clone)]
pub struct EventIter<'a> {
    log: &'a EventLog,
    /// The chunk being read (`chunks.len()`: the head).
    chunk: usize,
    at: usize,
    last: Last,
    /// Predicted events still to give from the current run.
    run: u32,
    /// Staged events given.
    staged: usize,
    slots: Box<[Slot; SLOTS]>,
}

impl Iterator for EventIter<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        loop {
            if self.run > 0 {
                self.run -= 1;
                let slot = self.slots[self.last.context()];
                if slot == EMPTY {
                    return None;
                }
                return Some(self.take(&slot));
            }
            let coded = self.log.coded();
            let bytes = match coded.chunks.get(self.chunk) {
                Some(chunk) => &chunk[..],
                None => coded.head.get(..coded.used)?,
            };
            let Some(&header) = bytes.get(self.at) else {
                if self.chunk >= coded.chunks.len() {
                    // Then the events not yet encoded.
                    let staged = self.log.stage.get(..self.log.staged)?.get(self.staged)?;
                    self.staged += 1;
                    return Some(unstage(staged));
                }
                self.chunk += 1;
                self.at = 0;
                continue;
            };
            match header & 7 {
                BLOCK => {
                    self.slots.fill(EMPTY);
                    self.at += 1;
                }
                RUN => {
                    self.run = u32::from(header >> 3) + 1;
                    self.at += 1;
                }
                _ => {
                    let (slot, size) = decode(bytes.get(self.at..)?, &self.last)?;
                    self.at += size;
                    self.slots[self.last.context()] = slot;
                    return Some(self.take(&slot));
                }
            }
        }
    }
}

impl EventIter<'_> {
    /// The event `slot` describes, after the last one.
    fn take(&mut self, slot: &Slot) -> Event {
        self.last = self.last.next(slot);
        unpack(self.last.cycle, self.last.kind, slot[1], slot[2])
    }
}

/// The event `staged` holds.
fn unstage(staged: &Staged) -> Event {
    unpack(staged[0] >> 8, staged[0] as u8, staged[1], staged[2])
}

/// The event at `cycle` of kind `kind`, its other fields in the words they are staged in
/// (the process with the channel above it, the bytes with `other` above them).
fn unpack(cycle: u64, kind: u8, partners: u64, moved: u64) -> Event {
    let bytes = moved as u32;
    let kind = match (KINDS[usize::from(kind) % 6], bytes & SWITCH != 0) {
        (EventKind::End, true) => EventKind::Wait,
        (EventKind::Start, true) => EventKind::Run,
        (kind, _) => kind,
    };
    Event {
        cycle,
        kind,
        process: partners as u32,
        channel: (partners >> 32) as u32,
        bytes: if matches!(kind, EventKind::Wait | EventKind::Run) {
            bytes & !SWITCH
        } else {
            bytes
        },
        other: (moved >> 32) as u32,
    }
}

/// The event written out at the start of `bytes` (see [`EventLog`]), coded against `last`,
/// and its size; `None` if `bytes` ends inside it.
fn decode(bytes: &[u8], last: &Last) -> Option<(Slot, usize)> {
    let header = *bytes.first()?;
    let mut at = 1;
    let step = if header & LONG_STEP != 0 {
        at += 8;
        u64::from_le_bytes(bytes.get(1..9)?.try_into().ok()?)
    } else {
        at += 1;
        u64::from(*bytes.get(1)?)
    };
    let mut field = |present: bool, before: u32| -> Option<u64> {
        if !present {
            return Some(u64::from(before));
        }
        at += 4;
        Some(u64::from(u32::from_le_bytes(
            bytes.get(at - 4..at)?.try_into().ok()?,
        )))
    };
    let process = field(header & NEW_PROCESS != 0, last.partners as u32)?;
    let channel = field(header & NEW_CHANNEL != 0, (last.partners >> 32) as u32)?;
    let moved = field(header & NEW_BYTES != 0, last.bytes)?;
    let other = field(header & HAS_OTHER != 0, 0)?;
    let slot = [
        step << 8 | u64::from(header & 7),
        process | channel << 32,
        moved | other << 32,
    ];
    Some((slot, at))
}

impl EventLog {
    /// Bytes in the first chunk.
    const FIRST: usize = 1 << 16;
    /// Bytes in the largest chunk (16 MiB).
    const LARGEST: usize = 1 << 24;
    /// Events staged before they are encoded.
    const STAGE: usize = 256;
    /// The most a block takes: its marker, and every event the longest (25 bytes) written
    /// into 32 (every field is written, and the write position moves past only the ones
    /// kept).
    const BLOCK_ROOM: usize = 1 + Self::STAGE * 32;

    /// Appends `event`.
    #[inline]
    pub fn push(&mut self, event: Event) {
        let (kind, bytes) = match event.kind {
            EventKind::Wait => (EventKind::End, event.bytes | SWITCH),
            EventKind::Run => (EventKind::Start, event.bytes | SWITCH),
            kind => (kind, event.bytes),
        };
        self.stage_words(
            (event.cycle.min(u64::MAX >> 8) << 8) | kind as u64,
            u64::from(event.process) | u64::from(event.channel) << 32,
            u64::from(bytes) | u64::from(event.other) << 32,
        );
    }

    /// Stages an event's three words (passed apart, so that they go from registers to the
    /// stage, not through the stack).
    #[inline]
    fn stage_words(&mut self, stamp: u64, partners: u64, moved: u64) {
        let Some(slot) = self.stage.get_mut(self.staged) else {
            return self.stage_first(stamp, partners, moved);
        };
        *slot = [stamp, partners, moved];
        self.staged += 1;
        self.len += 1;
        // Encoded once the event is in: nothing of it is kept across the call.
        if self.staged == Self::STAGE {
            self.flush();
        }
    }

    /// Makes the stage and stages the first event.
    #[cold]
    #[inline(never)]
    fn stage_first(&mut self, stamp: u64, partners: u64, moved: u64) {
        self.stage.resize(Self::STAGE, [0; 3]);
        self.stage_words(stamp, partners, moved);
    }

    /// Encodes the staged events.
    #[cold]
    #[inline(never)]
    fn flush(&mut self) {
        let Some(staged) = self.stage.get(..self.staged) else {
            return;
        };
        if !staged.is_empty() {
            self.coded.get_or_insert_default().append(staged);
        }
        self.staged = 0;
    }

    /// The encoded events.
    fn coded(&self) -> &Coded {
        self.coded.as_deref().unwrap_or(&NOTHING)
    }

    /// Where the log stands now (every event recorded so far encoded, and the next to start
    /// a block), to cut it back to.
    pub fn mark(&mut self) -> Mark {
        self.flush();
        if let Some(coded) = &mut self.coded {
            coded.continuing = false;
        }
        Mark {
            len: self.len,
            size: self.size(),
            last: self.coded().last,
        }
    }

    /// Cuts the log back to `mark`, taken from it earlier; a mark from further than the log
    /// now reaches leaves it as it is.
    pub fn truncate(&mut self, mark: Mark) {
        if mark.size > self.size() || mark.len > self.len {
            return;
        }
        self.staged = 0;
        self.len = mark.len;
        if let Some(coded) = &mut self.coded {
            coded.truncate(mark);
        }
    }

    /// How many events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes the encoded events take (staged ones not counted).
    pub fn size(&self) -> usize {
        self.coded().size()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The events in order.
    pub fn iter(&self) -> EventIter<'_> {
        EventIter {
            log: self,
            chunk: 0,
            at: 0,
            last: Last::default(),
            run: 0,
            staged: 0,
            slots: Box::new([EMPTY; SLOTS]),
        }
    }
}

impl Coded {
    /// Encodes `staged` at the end of the chunks.
    fn append(&mut self, staged: &[Staged]) {
        if self.used + EventLog::BLOCK_ROOM > self.head.len() {
            let size = if self.head.is_empty() {
                EventLog::FIRST
            } else {
                (self.head.len() * 2).min(EventLog::LARGEST)
            };
            let mut full = std::mem::replace(&mut self.head, vec![0; size]);
            if !full.is_empty() {
                full.truncate(self.used);
                self.chunks.push(full);
            }
            self.used = 0;
        }
        if self.slots.is_empty() {
            self.slots.resize(SLOTS, EMPTY);
        }
        if !self.continuing {
            for k in self.filled.drain(..) {
                self.slots[usize::from(k)] = EMPTY;
            }
        }
        let slots: &mut [Slot; SLOTS] = match self.slots.as_mut_slice().try_into() {
            Ok(slots) => slots,
            Err(_) => return,
        };
        if let Some(room) = self
            .head
            .get_mut(self.used..self.used + EventLog::BLOCK_ROOM)
        {
            let start = !self.continuing;
            self.used += encode(staged, &mut self.last, slots, &mut self.filled, room, start);
            self.continuing = true;
        }
    }

    /// The bytes written.
    fn size(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum::<usize>() + self.used
    }

    /// Cuts the encoded events back to `mark`'s (no further than they reach).
    fn truncate(&mut self, mark: Mark) {
        let mut dropped = self.size().saturating_sub(mark.size);
        while dropped > self.used {
            dropped -= self.used;
            match self.chunks.pop() {
                Some(chunk) => {
                    self.used = chunk.len();
                    self.head = chunk;
                    // Its zeroed tail was cut off when it was filled: back to full length.
                    self.head.resize(self.head.capacity(), 0);
                }
                None => {
                    self.used = 0;
                    dropped = 0;
                }
            }
        }
        self.used -= dropped;
        self.last = mark.last;
        self.continuing = false;
    }
}

/// Writes `staged` into `room` (at least [`EventLog::BLOCK_ROOM`] bytes), coded against
/// `last` (left at the last of them) and predicted with `slots` (those it fills from empty
/// added to `filled`), after a block's marker if
/// `start`; returns the bytes written.
fn encode(
    staged: &[Staged],
    last: &mut Last,
    slots: &mut [Slot; SLOTS],
    filled: &mut Vec<u8>,
    room: &mut [u8],
    start: bool,
) -> usize {
    let mut previous = *last;
    let mut at = 0;
    if start {
        room[0] = BLOCK;
        at += 1;
    }
    let mut run = 0u32;
    for e in staged {
        let slot = [e[0].wrapping_sub(previous.cycle << 8), e[1], e[2]];
        let context = previous.context();
        let kept = &slots[context];
        // Word by word: compared as a block, the words just stored would be loaded as one.
        if (kept[0] ^ slot[0]) | (kept[1] ^ slot[1]) | (kept[2] ^ slot[2]) == 0 {
            run += 1;
            if run == LONGEST_RUN {
                room[at] = run_header(LONGEST_RUN);
                at += 1;
                run = 0;
            }
        } else {
            if run > 0 {
                room[at] = run_header(run);
                at += 1;
                run = 0;
            }
            if slots[context] == EMPTY {
                filled.push(context as u8);
            }
            slots[context] = slot;
            at += write(&slot, &previous, &mut room[at..at + 32]);
        }
        previous = Last {
            cycle: e[0] >> 8,
            kind: e[0] as u8,
            partners: e[1],
            bytes: e[2] as u32,
        };
    }
    if run > 0 {
        room[at] = run_header(run);
        at += 1;
    }
    *last = previous;
    at
}

/// The header of a run of `count` predicted events (1 to [`LONGEST_RUN`]).
fn run_header(count: u32) -> u8 {
    RUN | ((count - 1) << 3) as u8
}

/// Writes the event `slot` describes, coded against `last`, into `room`; returns its size.
fn write(slot: &Slot, last: &Last, room: &mut [u8]) -> usize {
    let step = slot[0] >> 8;
    let (process, channel) = (slot[1] as u32, (slot[1] >> 32) as u32);
    let (moved, other) = (slot[2] as u32, (slot[2] >> 32) as u32);
    let long = step > 0xFF;
    let header = slot[0] as u8
        | if process != last.partners as u32 {
            NEW_PROCESS
        } else {
            0
        }
        | if channel != (last.partners >> 32) as u32 {
            NEW_CHANNEL
        } else {
            0
        }
        | if moved != last.bytes { NEW_BYTES } else { 0 }
        | if other != 0 { HAS_OTHER } else { 0 }
        | if long { LONG_STEP } else { 0 };
    room[0] = header;
    room[1..9].copy_from_slice(&step.to_le_bytes());
    let mut at = if long { 9 } else { 2 };
    for (value, kept) in [
        (process, header & NEW_PROCESS),
        (channel, header & NEW_CHANNEL),
        (moved, header & NEW_BYTES),
        (other, header & HAS_OTHER),
    ] {
        room[at..at + 4].copy_from_slice(&value.to_le_bytes());
        at += if kept != 0 { 4 } else { 0 };
    }
    at
}

impl<'a> IntoIterator for &'a EventLog {
    type Item = Event;
    type IntoIter = EventIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::{Event, EventKind, EventLog, KINDS};
    use proptest::prelude::*;

    /// `n` events of a pattern that repeats every `period` events, or (`period` 0) of one
    /// that never repeats; their steps from 0 to over 2^32 cycles.
    fn events(n: usize, period: usize) -> Vec<Event> {
        let mut cycle = 0;
        (0..n)
            .map(|k| {
                let j = if period == 0 { k } else { k % period };
                cycle += [0, 3, 255, 256, 70_000, 1 << 33][j % 6];
                Event {
                    cycle,
                    kind: KINDS[j % KINDS.len()],
                    process: 0x8000_0001 + 0x100 * (j % 7) as u32,
                    channel: if j % 5 == 0 {
                        0
                    } else {
                        0x8000_0000 + 4 * j as u32
                    },
                    bytes: [4, 4, 0, 12 * j as u32][j % 4],
                    other: if j % 3 == 0 {
                        0
                    } else {
                        0x8000_1001 + j as u32
                    },
                }
            })
            .collect()
    }

    #[test]
    fn events_come_back_in_order_across_chunks_and_blocks_and_after_cuts() {
        for (period, n, size) in [
            // Every event predicted once the pattern has been seen, but for two of its 16
            // contexts, which share a slot of the table: 3.25 bytes an event. (COMSTIME, whose
            // contexts do not collide, takes 0.03: `tests/it/comstime.rs`.)
            (16, 100_000, 100_000 * 4),
            // Never predicted: written out, across the first chunks (64, 128, 256 KiB).
            (0, 40_000, 40_000 * 25),
        ] {
            let all = events(n, period);
            let mut log = EventLog::default();
            let mut mark = None;
            for (k, &e) in all.iter().enumerate() {
                if k == n / 3 {
                    mark = Some((k, log.mark()));
                }
                log.push(e);
            }
            assert_eq!(log.len(), n);
            assert!(log.iter().eq(all.iter().copied()));
            assert_eq!((&log).into_iter().nth(n - 1), all.last().copied());
            assert!(log.size() <= size, "{} bytes for {n} events", log.size());
            if period == 0 {
                let chunks = log.coded().chunks.len();
                assert!(chunks >= 3, "{chunks} chunks");
            }
            // Cut back to a third (across chunks), then grown again differently.
            let (at, mark) = mark.expect("a mark");
            let mut cut = log.clone();
            cut.truncate(mark);
            assert_eq!(cut.len(), at);
            assert!(cut.iter().eq(all[..at].iter().copied()));
            let other = events(9, 0)[8];
            cut.push(other);
            cut.push(all[at]);
            let grown = all[..at].iter().copied().chain([other, all[at]]);
            assert!(cut.iter().eq(grown));
            assert_eq!(cut.len(), at + 2);
        }
    }

    #[test]
    fn cycles_are_kept_exactly_up_to_2_to_the_56() {
        let mut log = EventLog::default();
        let cycles = [0, 1, 1 << 40, (1 << 56) - 1, 1 << 56, u64::MAX];
        for cycle in cycles {
            log.push(Event {
                cycle,
                kind: EventKind::Probe,
                ..events(1, 0)[0]
            });
        }
        let back: Vec<u64> = log.iter().map(|e| e.cycle).collect();
        let kept = (1 << 56) - 1;
        assert_eq!(back, [0, 1, 1 << 40, kept, kept, kept]);
        assert!(log.iter().all(|e| e.kind == EventKind::Probe));
    }

    /// What to do to a log: record an event (its fields from a few values, so that patterns
    /// repeat), take a mark, or cut back to a mark taken before.
    #[derive(Debug, Clone)]
    enum Step {
        Record(u8, u8, u8, u8, u8, u8),
        Mark,
        Cut(usize),
    }

    fn steps() -> impl Strategy<Value = Vec<Step>> {
        let record = (0..6u8, 0..6u8, 0..4u8, 0..4u8, 0..3u8, 0..3u8)
            .prop_map(|(s, k, p, c, b, o)| Step::Record(s, k, p, c, b, o));
        let step = prop_oneof![
            20 => record,
            1 => Just(Step::Mark),
            1 => any::<usize>().prop_map(Step::Cut),
        ];
        proptest::collection::vec(step, 0..3000)
    }

    proptest! {
        #[test]
        fn a_log_gives_back_what_was_recorded_and_not_cut(steps in steps()) {
            let mut log = EventLog::default();
            let mut recorded: Vec<Event> = Vec::new();
            let mut marks = Vec::new();
            let mut cycle = 0u64;
            for step in steps {
                match step {
                    Step::Record(s, k, p, c, b, o) => {
                        cycle += [0, 1, 29, 255, 256, 1 << 40][usize::from(s)];
                        let e = Event {
                            cycle,
                            kind: KINDS[usize::from(k)],
                            process: [0x8000_7F01, 0x8000_9001, 0x8000_A001, 0][usize::from(p)],
                            channel: [0x8000_0004, 0x8000_0008, 0, u32::MAX][usize::from(c)],
                            bytes: [4, 0, 1 << 20][usize::from(b)],
                            other: [0, 0x8000_B001, 1][usize::from(o)],
                        };
                        log.push(e);
                        recorded.push(e);
                    }
                    Step::Mark => marks.push((recorded.len(), cycle, log.mark())),
                    Step::Cut(pick) if !marks.is_empty() => {
                        let keep = pick % marks.len();
                        marks.truncate(keep + 1);
                        let (len, at, mark) = marks[keep];
                        log.truncate(mark);
                        recorded.truncate(len);
                        cycle = at;
                    }
                    Step::Cut(_) => {}
                }
                prop_assert_eq!(log.len(), recorded.len());
            }
            prop_assert!(log.iter().eq(recorded.iter().copied()));
        }
    }
}
