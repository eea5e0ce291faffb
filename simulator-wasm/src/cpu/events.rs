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
    /// The channel word's address (for a probe, the text's index; for a start, the address of
    /// the code the process starts at, 0 when unknown).
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
/// with an event every few instructions that cost as much as the emulation itself. Events
/// are packed into a stage of 256 first and copied into the chunks a stage at a time: one
/// block copy writes the log's fresh memory faster than an event's stores spread among the
/// interpreter's (in WebAssembly, COMSTIME with an event every 4 instructions: 86–88 → 96 M
/// instructions/s, tracing 1.17× instead of 1.3×).
#[derive(Debug, Default, Clone)]
pub struct EventLog {
    chunks: Vec<Vec<Packed>>,
    stage: Vec<Packed>,
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

impl EventKind {
    /// The kind numbered `index` (its declaration order, as `kind as u8` gives it).
    pub fn from_index(index: u8) -> Option<EventKind> {
        KINDS.get(usize::from(index)).copied()
    }
}

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
pub struct EventIter<'a>(
    std::iter::Chain<
        std::iter::Flatten<std::slice::Iter<'a, Vec<Packed>>>,
        std::slice::Iter<'a, Packed>,
    >,
);

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

    /// Events staged before they go to the chunks.
    const STAGE: usize = 256;

    /// Appends `event`.
    #[inline]
    pub fn push(&mut self, event: Event) {
        if self.stage.len() == self.stage.capacity() {
            self.flush();
        }
        self.stage.push(Packed::pack(event));
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn flush(&mut self) {
        let mut staged = &self.stage[..];
        while !staged.is_empty() {
            let room = self.chunks.last().map_or(0, |c| c.capacity() - c.len());
            if room == 0 {
                let size = self
                    .chunks
                    .last()
                    .map_or(Self::FIRST, |c| (c.capacity() * 2).min(Self::LARGEST));
                self.chunks.push(Vec::with_capacity(size));
                continue;
            }
            let n = room.min(staged.len());
            self.chunks
                .last_mut()
                .expect("a chunk")
                .extend_from_slice(&staged[..n]);
            staged = &staged[n..];
        }
        self.stage.clear();
        self.stage.reserve_exact(Self::STAGE);
    }

    /// Keeps the first `len` events.
    pub fn truncate(&mut self, len: usize) {
        let mut dropped = self.len.saturating_sub(len);
        self.len -= dropped;
        let staged = dropped.min(self.stage.len());
        self.stage.truncate(self.stage.len() - staged);
        dropped -= staged;
        while dropped > 0 {
            let Some(chunk) = self.chunks.last_mut() else {
                break;
            };
            let cut = dropped.min(chunk.len());
            chunk.truncate(chunk.len() - cut);
            dropped -= cut;
            if chunk.is_empty() {
                self.chunks.pop();
            }
        }
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
        EventIter(self.chunks.iter().flatten().chain(self.stage.iter()))
    }
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
        // 12,288 went to chunks of 4,096 and 8,192 a stage at a time; 17 are still staged.
        let sizes: Vec<usize> = log.chunks.iter().map(Vec::len).collect();
        assert_eq!((sizes, log.stage.len()), (vec![4096, 8192], 17));
        assert!(log.iter().eq((0..n).map(event)));
        assert_eq!((&log).into_iter().nth(n - 1), Some(event(n - 1)));
        // The last cycle kept exactly, and the kind of a saturated one.
        let mut late = EventLog::default();
        late.push(Event {
            cycle: u64::MAX,
            kind: EventKind::Probe,
            ..event(0)
        });
        // Cut back across chunks, then grown again.
        let mut cut = log.clone();
        cut.truncate(EventLog::FIRST + 5);
        assert_eq!(cut.len(), EventLog::FIRST + 5);
        assert!(cut.iter().eq((0..EventLog::FIRST + 5).map(event)));
        cut.push(event(1));
        assert_eq!(cut.iter().last(), Some(event(1)));
        assert_eq!(cut.len(), EventLog::FIRST + 6);
        cut.truncate(0);
        assert!(cut.is_empty() && cut.iter().next().is_none());
        let back = late.iter().next().map(|e| (e.cycle, e.kind));
        assert_eq!(back, Some((u64::MAX >> 8, EventKind::Probe)));
    }
}
