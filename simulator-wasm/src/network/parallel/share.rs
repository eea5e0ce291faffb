//! A parallel run among workers that each hold their own copy of the network — the page's Web
//! Workers, one WebAssembly instance each, meeting in a `SharedArrayBuffer` — instead of
//! threads sharing one. Worker `k` of `n` runs part `k` (the parts [`Network::run_parallel`]
//! cuts) with the same loop, meeting the others through a [`Transport`] that moves one
//! round's bytes; worker 0 keeps the host. At the end every other worker hands its nodes'
//! record ([`Network::export_part`]) to worker 0 ([`Network::import_part`]), whose network
//! then holds the run [`Network::run`] would have made, byte for byte.
//!
//! A round's bytes, little-endian. What a worker sends: its block — seven words of what it
//! publishes (as [`Published::to_words`]: the sixth holds the windows of a stretch in its
//! high half), then a word holding the number of its packets
//! (low half) and the length of its error text (high half) — its packets, 16 bytes each
//! (receiving node `u32`, link `u8`, kind `u8` (0 data, 1 acknowledge), data byte `u8`,
//! receiving worker `u8`, start time in picoseconds `u64`), then its error text (the node's
//! number is in the `runner` word; UTF-8). What it gets back: every worker's block and error
//! text in worker order, without packets, then the packets for its part.

use super::{
    Delivery, Doze, Fabric, Network, Outcome, PacketKind, Part, Published, SimError, UseSample,
    first_of, work,
};
use crate::cpu::{Event, EventKind};

/// Bytes of a worker's block.
pub const BLOCK_BYTES: usize = 64;
/// Bytes of a packet.
pub const PACKET_BYTES: usize = 16;

/// Moves one round's bytes among the workers (see the module's documentation for the layout).
pub trait Transport {
    /// Sends this worker's `out`, waits until every worker has sent its own, and fills `into`
    /// with every worker's block and error text and the packets for this worker; an error
    /// when the workers can no longer meet (one of them has stopped).
    fn exchange(&mut self, out: &[u8], into: &mut Vec<u8>) -> Result<(), String>;
}

/// A [`Fabric`] over a [`Transport`]: one part a worker.
pub struct BytesFabric<T: Transport> {
    transport: T,
    me: usize,
    bounds: Vec<usize>,
    /// This round's packets, then the block is written in front at the exchange.
    packets: Vec<u8>,
    out: Vec<u8>,
    into: Vec<u8>,
}

impl<T: Transport> BytesFabric<T> {
    /// Worker `me` of `workers` running a network of `nodes` nodes through `transport`.
    /// The number of workers is at most the number of nodes (as [`Network::run_parallel`]
    /// clamps it), and every worker must be made with the same numbers.
    pub fn new(transport: T, me: usize, workers: usize, nodes: usize) -> BytesFabric<T> {
        let parts = workers.clamp(1, nodes.max(1));
        BytesFabric {
            transport,
            me: me.min(parts - 1),
            bounds: (0..=parts).map(|p| p * nodes / parts).collect(),
            packets: Vec::new(),
            out: Vec::new(),
            into: Vec::new(),
        }
    }

    /// The number of workers (parts).
    pub fn workers(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The nodes this worker runs: `first..end`.
    pub fn own_nodes(&self) -> std::ops::Range<usize> {
        self.bounds[self.me]..self.bounds[self.me + 1]
    }
}

/// The nodes worker `me` of `workers` runs in a network of `nodes` nodes (as
/// [`BytesFabric::own_nodes`]): what it exports at the end.
pub fn part_nodes(me: usize, workers: usize, nodes: usize) -> std::ops::Range<usize> {
    let parts = workers.clamp(1, nodes.max(1));
    (me.min(parts) * nodes / parts)..((me + 1).min(parts) * nodes / parts)
}

fn word(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

fn relayed(message: &str) -> SimError {
    SimError::Network {
        message: format!("workers: {message}"),
    }
}

impl<T: Transport> Fabric for BytesFabric<T> {
    fn bounds(&self) -> &[usize] {
        &self.bounds
    }

    fn thread_of(&self, part: usize) -> usize {
        part
    }

    fn post(&mut self, _round: usize, part: usize, d: Delivery) {
        let (kind, data) = match d.kind {
            PacketKind::Data(byte) => (0, byte),
            PacketKind::Ack => (1, 0),
        };
        self.packets.extend_from_slice(&d.node.to_le_bytes());
        self.packets
            .extend_from_slice(&[d.link, kind, data, part as u8]);
        self.packets.extend_from_slice(&d.at_ps.to_le_bytes());
    }

    fn exchange(
        &mut self,
        _round: usize,
        mine: Published,
        all: &mut Vec<Published>,
        inbox: &mut Vec<Delivery>,
    ) -> Result<(), SimError> {
        let mut words = mine.to_words();
        let own_error = mine.error;
        let text = own_error.as_ref().map(|(_, e)| e.to_string());
        let text = text.as_deref().unwrap_or("");
        if let Some((node, _)) = &own_error {
            words[1] = *node as u64;
        }
        let count = (self.packets.len() / PACKET_BYTES) as u64;
        self.out.clear();
        for w in words {
            self.out.extend_from_slice(&w.to_le_bytes());
        }
        self.out
            .extend_from_slice(&(count | ((text.len() as u64) << 32)).to_le_bytes());
        self.out.append(&mut self.packets);
        self.out.extend_from_slice(text.as_bytes());
        self.transport
            .exchange(&self.out, &mut self.into)
            .map_err(|e| relayed(&e))?;

        let bytes = &self.into;
        let broken = || relayed("a round's bytes are cut short");
        all.clear();
        let mut errors = Vec::new();
        let mut at = 0;
        for worker in 0..self.workers() {
            let w: [u64; 7] = std::array::from_fn(|k| word(bytes, at + 8 * k).unwrap_or(0));
            let sizes = word(bytes, at + 56).ok_or_else(broken)?;
            let len = (sizes >> 32) as usize;
            let published = Published::from_words(w);
            if w[3] & super::FAILED != 0 {
                let node = w[1] as usize;
                match &own_error {
                    // This worker's own error keeps its kind.
                    Some(own) if worker == self.me => errors.push(own.clone()),
                    _ => {
                        let text = bytes
                            .get(at + BLOCK_BYTES..at + BLOCK_BYTES + len)
                            .ok_or_else(broken)?;
                        let text = String::from_utf8_lossy(text).into_owned();
                        errors.push((node, SimError::Relayed(text)));
                    }
                }
            }
            all.push(published);
            at += BLOCK_BYTES + len;
        }
        let packets = bytes.get(at..).ok_or_else(broken)?;
        if packets.len() % PACKET_BYTES != 0 {
            return Err(broken());
        }
        for p in packets.chunks_exact(PACKET_BYTES) {
            let node = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
            let kind = if p[5] == 0 {
                PacketKind::Data(p[6])
            } else {
                PacketKind::Ack
            };
            let at_ps = u64::from_le_bytes(p[8..16].try_into().map_err(|_| broken())?);
            inbox.push(Delivery {
                node,
                link: p[4],
                kind,
                at_ps,
            });
        }
        if errors.is_empty() {
            Ok(())
        } else {
            first_of(errors.into_iter(), self.node_count())
        }
    }
}

impl Network {
    /// Runs this worker's part of the network until `until_ps` (as [`Network::run`]: the host's
    /// exit, or nothing left to happen, end it sooner), in step with the other workers through
    /// `fabric`. Every worker gets the same outcome; the nodes of the other parts do not move
    /// here (their record comes with [`Network::import_part`]).
    pub fn run_share<T: Transport>(
        &mut self,
        until_ps: u64,
        fabric: &mut BytesFabric<T>,
    ) -> Result<Outcome, SimError> {
        let n = self.nodes.len();
        let made_for = fabric.node_count();
        if fabric.workers() == 1 || made_for != n {
            return if made_for == n {
                self.run(until_ps)
            } else {
                Err(relayed(&format!(
                    "the workers were made for {made_for} nodes, this network has {n}"
                )))
            };
        }
        let start = self.start(until_ps);
        let range = fabric.own_nodes();
        let n_own = range.len();
        let mut part = Part {
            index: fabric.me,
            first: range.start,
            nodes: &mut self.nodes[range.clone()],
            last_busy: &mut self.last_busy[range],
            host: if fabric.me == 0 {
                self.host.as_mut()
            } else {
                None
            },
            host_busy: self.host_busy,
            samples: Vec::new(),
            doze: vec![Doze::default(); n_own],
        };
        let ended = work(std::slice::from_mut(&mut part), &self.peers, fabric, start);
        let (samples, host_busy) = (part.samples, part.host_busy);
        self.host_busy = host_busy;
        self.samples.extend(samples);
        self.time_ps = ended.time_ps;
        self.next_sample_ps = ended.next_sample_ps;
        self.busy = ended.busy;
        self.pace = ended.pace;
        self.stretches.add(ended.stretches);
        ended.result
    }

    /// The record of nodes `first..end` — what each executed and recorded, and their
    /// utilization samples — for [`Network::import_part`] in another copy of the network.
    pub fn export_part(&self, nodes: std::ops::Range<usize>) -> Vec<u8> {
        let nodes = nodes.start.min(self.nodes.len())..nodes.end.min(self.nodes.len());
        let mut out = Vec::new();
        let put = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes());
        put(&mut out, nodes.start as u64);
        put(&mut out, nodes.end as u64);
        for node in &self.nodes[nodes.clone()] {
            put(&mut out, node.instructions);
            put(&mut out, node.cycles);
            put(&mut out, node.idle_cycles);
            put(&mut out, node.probe_texts.len() as u64);
            for text in &node.probe_texts {
                put(&mut out, text.len() as u64);
                out.extend_from_slice(text.as_bytes());
            }
            put(&mut out, node.events.len() as u64);
            for e in &node.events {
                put(&mut out, e.cycle);
                out.push(e.kind as u8);
                for v in [e.process, e.channel, e.bytes, e.other] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        let samples: Vec<&UseSample> = self
            .samples
            .iter()
            .filter(|s| nodes.contains(&(s.node as usize)))
            .collect();
        put(&mut out, samples.len() as u64);
        for s in samples {
            out.extend_from_slice(&s.node.to_le_bytes());
            out.push(s.link.unwrap_or(u8::MAX));
            put(&mut out, s.start_ps);
            put(&mut out, s.end_ps);
            out.extend_from_slice(&s.utilization.to_le_bytes());
        }
        out
    }

    /// Takes in another worker's record of its nodes ([`Network::export_part`]): their
    /// counts, events and probe texts replace this copy's, their samples join this copy's in
    /// the order one thread writes them (by period, node by node, the host last).
    pub fn import_part(&mut self, bytes: &[u8]) -> Result<(), SimError> {
        let mut r = Reader { bytes, at: 0 };
        let first = r.count(self.nodes.len() as u64)?;
        let end = r.count(self.nodes.len() as u64)?;
        if first > end {
            return Err(r.error("the nodes' range"));
        }
        let mut nodes = Vec::with_capacity(end - first);
        for _ in first..end {
            let instructions = r.u64()?;
            let cycles = r.u64()?;
            let idle_cycles = r.u64()?;
            let texts = r.count(r.left() as u64 / 8)?;
            let mut probe_texts = Vec::with_capacity(texts);
            for _ in 0..texts {
                let len = r.count(r.left() as u64)?;
                probe_texts.push(String::from_utf8_lossy(r.take(len)?).into_owned());
            }
            let count = r.count(r.left() as u64 / 25)?;
            let mut events = crate::cpu::EventLog::default();
            for _ in 0..count {
                let cycle = r.u64()?;
                let kind = EventKind::from_index(r.take(1)?[0])
                    .ok_or_else(|| r.error("an event's kind"))?;
                let [process, channel, bytes, other] = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
                events.push(Event {
                    cycle,
                    kind,
                    process,
                    channel,
                    bytes,
                    other,
                });
            }
            nodes.push((instructions, cycles, idle_cycles, probe_texts, events));
        }
        let count = r.count(r.left() as u64 / 25)?;
        let mut samples = Vec::with_capacity(count);
        for _ in 0..count {
            let node = r.u32()?;
            let link = r.take(1)?[0];
            let (start_ps, end_ps) = (r.u64()?, r.u64()?);
            let utilization = f32::from_bits(r.u32()?);
            samples.push(UseSample {
                node,
                link: (link != u8::MAX).then_some(link),
                start_ps,
                end_ps,
                utilization,
            });
        }
        if r.left() != 0 {
            return Err(r.error("the end of the record"));
        }
        for (node, (instructions, cycles, idle_cycles, probe_texts, events)) in
            self.nodes[first..end].iter_mut().zip(nodes)
        {
            node.instructions = instructions;
            node.cycles = cycles;
            node.idle_cycles = idle_cycles;
            node.probe_texts = probe_texts;
            node.events = events;
        }
        self.samples
            .retain(|s| !(first..end).contains(&(s.node as usize)));
        self.samples.extend(samples);
        self.samples.sort_by_key(|s| (s.start_ps, s.node));
        Ok(())
    }
}

/// Reads a worker's record, every length checked against what is left.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> SimError {
        relayed(&format!(
            "a part's record, byte {}: expected {what}",
            self.at
        ))
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn take(&mut self, len: usize) -> Result<&[u8], SimError> {
        if self.left() < len {
            return Err(self.error(&format!("{len} more bytes")));
        }
        self.at += len;
        Ok(&self.bytes[self.at - len..self.at])
    }

    fn u64(&mut self) -> Result<u64, SimError> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
    }

    fn u32(&mut self) -> Result<u32, SimError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes(b.try_into().unwrap_or([0; 4])))
    }

    /// A count or index of at most `max`.
    fn count(&mut self, max: u64) -> Result<usize, SimError> {
        let v = self.u64()?;
        if v > max {
            return Err(self.error(&format!("a count of at most {max}, not {v}")));
        }
        Ok(v as usize)
    }
}
