//! Tmon records (Jiang 1990, Fig. 4.4 and Appendix B) in a small container that holds a whole
//! network's trace. Everything is little-endian.
//!
//! ```text
//! file   = "TMON" version:u16(=1) flags:u16(=0) ticks_per_second:u64 (0 = unitless)
//!          name_len:u32 name:utf8 n_nodes:u32 node*
//! node   = node_id:u32 name_len:u16 name:utf8 base:u64 n_links:u8 link* n_entries:u32 entry*
//! link   = link:u8 peer_node:u32 peer_link:u8 bits_per_second:u64 (0 = unknown)
//! entry  = tag:u8 timestamp:u32 data:[u8; 16]          (21 bytes, Fig. 4.4)
//! ```
//! Timestamps are ticks after the node's `base`, wrapping at 2^32 (a node's entries are in time
//! order, so a decrease means a wrap). Entry data by tag:
//! - 0 NODE_USAGE: cpu:u32 (0–10000, hundredths of a percent), link use:[u8; 8] (out 0–3 then
//!   in 0–3, 0–200 half-percents), period:u32 ticks (the sample covers [t − period, t]);
//! - 1 MSG_SEND: pid:u32 event_type:u32 dest_node:u32 length:u32;
//! - 2 MSG_RECV (arrival): pid:u32 event_type:u32 source_node:u32 length:u32;
//! - 3 RECV_CALL: pid:u32 event_type:u32 buffer_size:u32 unused:u32;
//! - 4 PROC_INIT: pid:u32 name:[u8; 12] (NUL-padded);
//! - 5 PROC_EXIT: pid:u32 unused:[u8; 12];
//! - 6 OVERFLOW: dropped_samples:u32 unused:[u8; 12];
//! - 7 and up, user probes: aux:[u8; 16] (NUL-padded text).
//!
//! A process is (node, pid). Messages name nodes, not processes: a send's destination is the
//! process on that node whose arrival from the sender's node with the same event type comes in
//! the same first-in first-out position.

use std::collections::{HashMap, VecDeque};

use crate::model::error::TraceError;
use crate::model::time::{Clock, Time};
use crate::model::{
    CpuSample, Direction, EventKind, EventRecord, Link, LinkEnd, LinkSample, NodeId, ProcessId,
    Sample, Trace, TraceBuilder,
};

/// The format's name.
pub const FORMAT_NAME: &str = "tmon";
/// The file's first bytes.
pub const MAGIC: &[u8; 4] = b"TMON";
/// The version this code writes and reads.
pub const VERSION: u16 = 1;
/// One entry's size (Fig. 4.4).
pub const ENTRY_LEN: usize = 21;

/// Tags of Fig. 4.4 / Appendix B.
pub mod tag {
    /// A CPU and link utilization sample.
    pub const NODE_USAGE: u8 = 0;
    /// A message sent.
    pub const MSG_SEND: u8 = 1;
    /// A message arrived.
    pub const MSG_RECV: u8 = 2;
    /// A receive called.
    pub const RECV_CALL: u8 = 3;
    /// A process started.
    pub const PROC_INIT: u8 = 4;
    /// A process ended.
    pub const PROC_EXIT: u8 = 5;
    /// Samples dropped by a full buffer.
    pub const OVERFLOW: u8 = 6;
    /// The first user probe tag.
    pub const FIRST_PROBE: u8 = 7;
}

struct Cursor<'a> {
    input: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], TraceError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.input.len())
            .ok_or_else(|| {
                TraceError::at_offset(
                    FORMAT_NAME,
                    self.input,
                    self.at,
                    format!("expected {what} ({n} bytes), found the end of the file"),
                )
            })?;
        let bytes = &self.input[self.at..end];
        self.at = end;
        Ok(bytes)
    }
    fn u8(&mut self, what: &str) -> Result<u8, TraceError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, TraceError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, TraceError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &str) -> Result<u64, TraceError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn text(&mut self, len: usize, what: &str) -> Result<String, TraceError> {
        let at = self.at;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| {
            TraceError::at_offset(
                FORMAT_NAME,
                self.input,
                at,
                format!("expected UTF-8 text for {what}"),
            )
        })
    }
    fn error(&self, at: usize, message: impl Into<String>) -> TraceError {
        TraceError::at_offset(FORMAT_NAME, self.input, at, message)
    }
}

fn le32(data: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]])
}

fn padded_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// One decoded entry.
struct Entry {
    node: u32,
    time: u64,
    tag: u8,
    data: [u8; 16],
    offset: usize,
}

/// Reads a Tmon container.
pub fn parse(
    input: &[u8],
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<(Trace, Vec<String>), TraceError> {
    let mut c = Cursor { input, at: 0 };
    if c.take(4, "the magic \"TMON\"")? != MAGIC {
        return Err(c.error(0, "expected the magic \"TMON\""));
    }
    let version = c.u16("the version")?;
    if version != VERSION {
        return Err(c.error(
            4,
            format!("unsupported version {version} (this build reads version {VERSION})"),
        ));
    }
    let _flags = c.u16("the flags")?;
    let tps = c.u64("ticks per second")?;
    let name_len = c.u32("the name length")? as usize;
    let name = c.text(name_len, "the trace name")?;
    let n_nodes = c.u32("the node count")?;
    budget.check(
        super::budget::Limit::Processes,
        n_nodes.into(),
        FORMAT_NAME,
        input,
        c.at - 4,
    )?;
    let mut builder = TraceBuilder::new(
        if name.is_empty() {
            fallback_name.to_owned()
        } else {
            name
        },
        Clock {
            ticks_per_second: (tps > 0).then_some(tps),
        },
    );
    let mut node_index: HashMap<u32, NodeId> = HashMap::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut link_specs: Vec<(u32, u8, u32, u8, u64)> = Vec::new();
    for _ in 0..n_nodes {
        let at = c.at;
        let node_id = c.u32("a node id")?;
        let name_len = c.u16("a node name length")? as usize;
        let node_name = c.text(name_len, "a node name")?;
        if node_index.contains_key(&node_id) {
            return Err(c.error(at, format!("node {node_id} appears twice")));
        }
        node_index.insert(node_id, builder.add_node(node_name));
        let base = c.u64("the node's time base")?;
        let n_links = c.u8("the link count")?;
        for _ in 0..n_links {
            let link = c.u8("a link number")?;
            let peer = c.u32("a peer node")?;
            let peer_link = c.u8("a peer link number")?;
            let speed = c.u64("a link speed")?;
            link_specs.push((node_id, link, peer, peer_link, speed));
        }
        let n_entries = c.u32("the entry count")? as usize;
        if n_entries > (input.len() - c.at) / ENTRY_LEN {
            return Err(c.error(
                c.at,
                format!("expected {n_entries} entries of {ENTRY_LEN} bytes, the file is too short"),
            ));
        }
        budget.check(
            super::budget::Limit::Events,
            (entries.len() + n_entries) as u64,
            FORMAT_NAME,
            input,
            c.at - 4,
        )?;
        let mut last = 0u32;
        let mut wraps = 0u64;
        for k in 0..n_entries {
            let offset = c.at;
            let tag = c.u8("an entry tag")?;
            let stamp = c.u32("a timestamp")?;
            if k > 0 && stamp < last {
                wraps += 1;
            }
            last = stamp;
            let mut data = [0u8; 16];
            data.copy_from_slice(c.take(16, "an entry's data")?);
            // Past the clock's last tick a time cannot be kept: capping it would draw the
            // entry where it did not happen, so the file is refused where it goes over.
            let after_base = (wraps << 32) | u64::from(stamp);
            let Some(time) = base.checked_add(after_base) else {
                let wrapped = if wraps > 0 {
                    format!(" after {wraps} wraps of the 32-bit timestamp")
                } else {
                    String::new()
                };
                return Err(c.error(
                    offset + 1,
                    format!(
                        "node {node_id}'s entry {k} is at tick {base} (the node's time base) + \
                         {after_base}{wrapped}, past the clock's last tick {}",
                        u64::MAX
                    ),
                ));
            };
            entries.push(Entry {
                node: node_id,
                time,
                tag,
                data,
                offset,
            });
        }
    }
    if c.at != input.len() {
        return Err(c.error(
            c.at,
            format!(
                "expected the end of the file after {n_nodes} nodes, found {} more bytes",
                input.len() - c.at
            ),
        ));
    }
    // Links between declared nodes, each once.
    // Each link end: the link and whether this end is the link's `a`.
    let mut links: HashMap<(u32, u8), (crate::model::LinkId, bool)> = HashMap::new();
    for &(node, link, peer, peer_link, speed) in &link_specs {
        if links.contains_key(&(node, link)) || links.contains_key(&(peer, peer_link)) {
            continue;
        }
        let (Some(&a), Some(&b)) = (node_index.get(&node), node_index.get(&peer)) else {
            return Err(c.error(
                0,
                format!("link {node}.{link} names an undeclared node {peer}"),
            ));
        };
        let id = builder
            .add_link(Link {
                a: LinkEnd { node: a, link },
                b: LinkEnd {
                    node: b,
                    link: peer_link,
                },
                bits_per_second: (speed > 0).then_some(speed),
            })
            .map_err(|e| c.error(0, e.to_string()))?;
        links.insert((node, link), (id, true));
        links.insert((peer, peer_link), (id, false));
    }
    // Processes: (node, pid), named by their PROC_INIT.
    let mut processes = Processes {
        by_id: HashMap::new(),
        node_index: &node_index,
        input,
    };
    for e in entries.iter().filter(|e| e.tag == tag::PROC_INIT) {
        processes.get(
            &mut builder,
            e.node,
            le32(&e.data, 0),
            Some(padded_text(&e.data[4..16])),
        )?;
    }
    // Destinations: FIFO per (source node, destination node, event type).
    let mut arrivals: HashMap<(u32, u32, u32), VecDeque<ProcessId>> = HashMap::new();
    for e in entries.iter().filter(|e| e.tag == tag::MSG_RECV) {
        let p = processes.get(&mut builder, e.node, le32(&e.data, 0), None)?;
        arrivals
            .entry((le32(&e.data, 8), e.node, le32(&e.data, 4)))
            .or_default()
            .push_back(p);
    }
    let mut notes = Vec::new();
    let mut dropped = 0u64;
    // Utilization samples whose period reaches back before tick 0, kept from tick 0.
    let mut cut_samples = 0u64;
    let mut arrival_sources: Vec<(usize, u32)> = Vec::new();
    let mut records: Vec<EventRecord> = Vec::with_capacity(entries.len());
    for e in &entries {
        let d = &e.data;
        let time = Time(e.time);
        let at_node = |n: u32| -> Result<(), TraceError> {
            if node_index.contains_key(&n) {
                Ok(())
            } else {
                Err(TraceError::at_offset(
                    FORMAT_NAME,
                    input,
                    e.offset + 5,
                    format!("expected a declared node, found {n}"),
                ))
            }
        };
        match e.tag {
            tag::NODE_USAGE => {
                let period = u64::from(le32(d, 12));
                if period > e.time {
                    cut_samples += 1;
                }
                let sample = |u: f32| Sample {
                    start: Time(e.time.saturating_sub(period)),
                    end: time,
                    utilization: u.clamp(0.0, 1.0),
                };
                let cpu = le32(d, 0) as f32 / 10_000.0;
                builder
                    .add_cpu_sample(CpuSample {
                        node: node_index[&e.node],
                        sample: sample(cpu),
                    })
                    .map_err(|err| c.error(e.offset, err.to_string()))?;
                for l in 0..4u8 {
                    if let Some(&(link, is_a)) = links.get(&(e.node, l)) {
                        let (out_dir, in_dir) = if is_a {
                            (Direction::AToB, Direction::BToA)
                        } else {
                            (Direction::BToA, Direction::AToB)
                        };
                        for (direction, byte) in
                            [(out_dir, d[4 + l as usize]), (in_dir, d[8 + l as usize])]
                        {
                            let s = LinkSample {
                                link,
                                direction,
                                sample: sample(f32::from(byte) / 200.0),
                            };
                            builder
                                .add_link_sample(s)
                                .map_err(|err| c.error(e.offset, err.to_string()))?;
                        }
                    }
                }
            }
            tag::OVERFLOW => dropped += u64::from(le32(d, 0)),
            tag::PROC_INIT | tag::PROC_EXIT => {
                let p = processes.get(&mut builder, e.node, le32(d, 0), None)?;
                let kind = if e.tag == tag::PROC_INIT {
                    EventKind::ProcInit
                } else {
                    EventKind::ProcExit
                };
                records.push(EventRecord::plain(p, time, kind));
            }
            tag::MSG_SEND => {
                let p = processes.get(&mut builder, e.node, le32(d, 0), None)?;
                let (event_type, dest) = (le32(d, 4), le32(d, 8));
                at_node(dest)?;
                let peer = match arrivals
                    .get_mut(&(e.node, dest, event_type))
                    .and_then(VecDeque::pop_front)
                {
                    Some(receiver) => receiver,
                    None => processes.get(
                        &mut builder,
                        dest,
                        u32::MAX,
                        Some("unknown receiver".to_owned()),
                    )?,
                };
                let mut r = EventRecord::plain(p, time, EventKind::MsgSend);
                r.peer = Some(peer);
                r.tag = event_type;
                r.size = u64::from(le32(d, 12));
                records.push(r);
            }
            tag::MSG_RECV => {
                let p = processes.get(&mut builder, e.node, le32(d, 0), None)?;
                let (event_type, source) = (le32(d, 4), le32(d, 8));
                at_node(source)?;
                let mut r = EventRecord::plain(p, time, EventKind::MsgArr);
                r.tag = event_type;
                r.size = u64::from(le32(d, 12));
                // The sending process is resolved below, once every send has its receiver.
                arrival_sources.push((records.len(), source));
                records.push(r);
            }
            tag::RECV_CALL => {
                let p = processes.get(&mut builder, e.node, le32(d, 0), None)?;
                let mut r = EventRecord::plain(p, time, EventKind::RecvCall);
                r.tag = le32(d, 4);
                r.size = u64::from(le32(d, 8));
                records.push(r);
            }
            probe => {
                // User probes carry no process id: they belong to the node's first process.
                let p = match processes
                    .by_id
                    .iter()
                    .filter(|((n, _), _)| *n == e.node)
                    .map(|(_, &p)| p)
                    .min()
                {
                    Some(p) => p,
                    None => processes.get(&mut builder, e.node, 0, None)?,
                };
                let mut r = EventRecord::plain(p, time, EventKind::Probe);
                r.tag = u32::from(probe);
                r.text = Some(builder.intern(&padded_text(d)));
                records.push(r);
            }
        }
    }
    // Arrivals: the sender is the process whose send to this process comes in the same FIFO
    // position on (source node, this node, event type).
    let mut sends_to: HashMap<(u32, ProcessId, u32), VecDeque<ProcessId>> = HashMap::new();
    let node_of_process: HashMap<ProcessId, u32> =
        processes.by_id.iter().map(|(&(n, _), &p)| (p, n)).collect();
    for r in records.iter().filter(|r| r.kind == EventKind::MsgSend) {
        if let (Some(to), Some(&from_node)) = (r.peer, node_of_process.get(&r.process)) {
            sends_to
                .entry((from_node, to, r.tag))
                .or_default()
                .push_back(r.process);
        }
    }
    for (index, source) in arrival_sources {
        let r = &mut records[index];
        r.peer = match sends_to
            .get_mut(&(source, r.process, r.tag))
            .and_then(VecDeque::pop_front)
        {
            Some(sender) => Some(sender),
            None => Some(processes.get(
                &mut builder,
                source,
                u32::MAX,
                Some("unknown sender".to_owned()),
            )?),
        };
    }
    builder.reserve_events(records.len());
    for r in records {
        builder.push(r).map_err(|e| c.error(0, e.to_string()))?;
    }
    if cut_samples > 0 {
        notes.push(format!(
            "{cut_samples} utilization samples (NODE_USAGE) have a period reaching back before \
             tick 0; they are kept from tick 0"
        ));
    }
    if dropped > 0 {
        notes.push(format!(
            "{dropped} utilization samples were dropped by full buffers (OVERFLOW entries)"
        ));
    }
    Ok((builder.build(), notes))
}

/// Processes by (node, pid), created on first sight.
struct Processes<'a> {
    by_id: HashMap<(u32, u32), ProcessId>,
    node_index: &'a HashMap<u32, NodeId>,
    input: &'a [u8],
}

impl Processes<'_> {
    fn get(
        &mut self,
        builder: &mut TraceBuilder,
        node: u32,
        pid: u32,
        name: Option<String>,
    ) -> Result<ProcessId, TraceError> {
        if let Some(&p) = self.by_id.get(&(node, pid)) {
            return Ok(p);
        }
        let n = *self.node_index.get(&node).ok_or_else(|| {
            TraceError::at_offset(
                FORMAT_NAME,
                self.input,
                0,
                format!("expected a declared node, found {node}"),
            )
        })?;
        let p = builder
            .add_process(
                name.filter(|n| !n.is_empty())
                    .unwrap_or_else(|| format!("pid {pid}")),
                n,
            )
            .map_err(|e| TraceError::at_offset(FORMAT_NAME, self.input, 0, e.to_string()))?;
        self.by_id.insert((node, pid), p);
        Ok(p)
    }
}

/// A trace Tmon records cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tmon: {0}")]
pub struct WriteError(pub String);

fn put_text(out: &mut [u8], text: &str) {
    let mut end = text.len().min(out.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    out[..end].copy_from_slice(&text.as_bytes()[..end]);
}

/// Writes a trace as Tmon records. What the records cannot hold (regions, non-blocking posts,
/// link samples) is left out and named in the returned notes.
pub fn write(trace: &Trace) -> Result<(Vec<u8>, Vec<String>), WriteError> {
    let mut out = Vec::with_capacity(64 + trace.events.len() * ENTRY_LEN);
    let mut notes = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&trace.clock.ticks_per_second.unwrap_or(0).to_le_bytes());
    out.extend_from_slice(&(trace.name.len() as u32).to_le_bytes());
    out.extend_from_slice(trace.name.as_bytes());
    out.extend_from_slice(&(trace.nodes.len() as u32).to_le_bytes());
    let e = &trace.events;
    let node_of = |p: ProcessId| trace.processes.get(p.index()).map_or(0, |p| p.node.0);
    let (mut dropped_regions, mut dropped_posts, mut remapped_probes) = (0, 0, 0);
    let mut dropped_switches = 0;
    for (n, node) in trace.nodes.iter().enumerate() {
        let n = n as u32;
        // (time, entry) of everything on this node, in time order.
        let mut entries: Vec<(u64, u8, [u8; 16])> = Vec::new();
        for p in trace.process_ids().filter(|&p| node_of(p) == n) {
            for i in trace.process_events(p) {
                let mut data = [0u8; 16];
                data[0..4].copy_from_slice(&p.0.to_le_bytes());
                let size = u32::try_from(e.size().at(i)).map_err(|_| {
                    WriteError(format!(
                        "event {i}'s size {} exceeds 32 bits",
                        e.size().at(i)
                    ))
                })?;
                let peer_node = e.peer().at(i).map_or(0, node_of);
                let tag = match e.kind()[i] {
                    EventKind::ProcInit => {
                        put_text(&mut data[4..16], &trace.processes[p.index()].name);
                        tag::PROC_INIT
                    }
                    EventKind::ProcExit => tag::PROC_EXIT,
                    EventKind::MsgSend | EventKind::MsgArr => {
                        data[4..8].copy_from_slice(&e.tag().at(i).to_le_bytes());
                        data[8..12].copy_from_slice(&peer_node.to_le_bytes());
                        data[12..16].copy_from_slice(&size.to_le_bytes());
                        if e.kind()[i] == EventKind::MsgSend {
                            tag::MSG_SEND
                        } else {
                            tag::MSG_RECV
                        }
                    }
                    EventKind::RecvCall => {
                        data[4..8].copy_from_slice(&e.tag().at(i).to_le_bytes());
                        data[8..12].copy_from_slice(&size.to_le_bytes());
                        tag::RECV_CALL
                    }
                    EventKind::Probe => {
                        data = [0u8; 16];
                        put_text(
                            &mut data,
                            e.text().at(i).and_then(|s| trace.string(s)).unwrap_or(""),
                        );
                        match u8::try_from(e.tag().at(i)) {
                            Ok(t) if t >= tag::FIRST_PROBE => t,
                            _ => {
                                remapped_probes += 1;
                                tag::FIRST_PROBE + (e.tag().at(i) % 249) as u8
                            }
                        }
                    }
                    EventKind::Enter | EventKind::Leave => {
                        dropped_regions += 1;
                        continue;
                    }
                    EventKind::RecvPost => {
                        dropped_posts += 1;
                        continue;
                    }
                    EventKind::Wait | EventKind::Run => {
                        dropped_switches += 1;
                        continue;
                    }
                };
                entries.push((e.time()[i].0, tag, data));
            }
        }
        for s in trace.cpu_samples.iter().filter(|s| s.node.0 == n) {
            let mut data = [0u8; 16];
            let cpu = (f64::from(s.sample.utilization) * 10_000.0).round() as u32;
            data[0..4].copy_from_slice(&cpu.to_le_bytes());
            let period = u32::try_from(s.sample.end.0 - s.sample.start.0)
                .map_err(|_| WriteError("a sample period exceeds 32 bits".to_owned()))?;
            data[12..16].copy_from_slice(&period.to_le_bytes());
            entries.push((s.sample.end.0, tag::NODE_USAGE, data));
        }
        entries.sort_by_key(|e| e.0);
        let base = entries.first().map_or(0, |e| e.0);
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(node.name.len().min(u16::MAX as usize) as u16).to_le_bytes());
        out.extend_from_slice(&node.name.as_bytes()[..node.name.len().min(u16::MAX as usize)]);
        out.extend_from_slice(&base.to_le_bytes());
        let ends: Vec<(u8, u32, u8, u64)> = trace
            .links
            .iter()
            .filter_map(|l| {
                let speed = l.bits_per_second.unwrap_or(0);
                if l.a.node.0 == n {
                    Some((l.a.link, l.b.node.0, l.b.link, speed))
                } else if l.b.node.0 == n {
                    Some((l.b.link, l.a.node.0, l.a.link, speed))
                } else {
                    None
                }
            })
            .collect();
        out.push(
            u8::try_from(ends.len())
                .map_err(|_| WriteError(format!("node {n} has more than 255 links")))?,
        );
        for (link, peer, peer_link, speed) in ends {
            out.push(link);
            out.extend_from_slice(&peer.to_le_bytes());
            out.push(peer_link);
            out.extend_from_slice(&speed.to_le_bytes());
        }
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        let mut previous = base;
        for (time, tag, data) in entries {
            if time - previous >= 1 << 32 {
                return Err(WriteError(format!(
                    "node {n} has a gap of {} ticks, more than a 32-bit timestamp spans",
                    time - previous
                )));
            }
            previous = time;
            out.push(tag);
            out.extend_from_slice(&((time - base) as u32).to_le_bytes());
            out.extend_from_slice(&data);
        }
    }
    if dropped_regions > 0 {
        notes.push(format!(
            "left out {dropped_regions} region enter/leave events (Tmon has none)"
        ));
    }
    if dropped_posts > 0 {
        notes.push(format!(
            "left out {dropped_posts} non-blocking receive posts (Tmon has none)"
        ));
    }
    if dropped_switches > 0 {
        notes.push(format!(
            "left out {dropped_switches} scheduler waits and resumptions (Tmon records none)"
        ));
    }
    if remapped_probes > 0 {
        notes.push(format!(
            "{remapped_probes} probes had tags below 7 or above 255 and were renumbered from 7"
        ));
    }
    if !trace.link_samples.is_empty() {
        notes.push(format!(
            "left out {} link samples",
            trace.link_samples.len()
        ));
    }
    Ok((out, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A container of one node `n` with time base `base` whose process 1 has an entry of
    /// `tag` (data `data`) at each of `stamps`.
    fn one_node(base: u64, entries: &[(u8, u32, [u8; 16])]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&7u32.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.push(b'n');
        out.extend_from_slice(&base.to_le_bytes());
        out.push(0);
        out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        for (tag, stamp, data) in entries {
            out.push(*tag);
            out.extend_from_slice(&stamp.to_le_bytes());
            out.extend_from_slice(data);
        }
        out
    }

    fn pid(p: u32) -> [u8; 16] {
        let mut data = [0u8; 16];
        data[..4].copy_from_slice(&p.to_le_bytes());
        data
    }

    /// Where the `k`-th entry's timestamp is in [`one_node`]'s output.
    fn stamp_offset(k: usize) -> usize {
        4 + 2 + 2 + 8 + 4 + 4 + 4 + 2 + 1 + 8 + 1 + 4 + k * ENTRY_LEN + 1
    }

    #[test]
    fn times_past_the_end_of_the_clock_are_refused_where_they_go_over() {
        let budget = crate::formats::Budget::default();
        // The last tick itself is a time like any other.
        let near = one_node(
            u64::MAX - 10,
            &[(tag::PROC_INIT, 0, pid(1)), (tag::PROC_EXIT, 10, pid(1))],
        );
        let (trace, _) = parse(&near, "t", &budget).expect("ends at the last tick");
        assert_eq!(trace.events.time()[1], Time(u64::MAX));

        // One tick more: refused at that entry's timestamp, not capped at u64::MAX.
        let over = one_node(
            u64::MAX - 10,
            &[(tag::PROC_INIT, 0, pid(1)), (tag::PROC_EXIT, 11, pid(1))],
        );
        let e = parse(&over, "t", &budget).expect_err("past the clock");
        assert_eq!(e.offset, stamp_offset(1), "{e}");
        assert!(
            e.message.contains("time base") && e.message.contains("past the clock's last tick"),
            "{e}"
        );

        // A wrap of the 32-bit timestamp that carries past the end.
        let wrapped = one_node(
            u64::MAX - (1 << 32),
            &[
                (tag::PROC_INIT, 0xFFFF_FFF0, pid(1)),
                (tag::PROC_EXIT, 5, pid(1)),
            ],
        );
        let e = parse(&wrapped, "t", &budget).expect_err("past the clock after a wrap");
        assert_eq!(e.offset, stamp_offset(1), "{e}");
        assert!(e.message.contains("after 1 wraps"), "{e}");
    }

    #[test]
    fn a_sample_reaching_back_before_tick_0_is_noted() {
        let mut usage = [0u8; 16];
        usage[..4].copy_from_slice(&5000u32.to_le_bytes());
        usage[12..].copy_from_slice(&500u32.to_le_bytes());
        let file = one_node(
            0,
            &[
                (tag::PROC_INIT, 0, pid(1)),
                (tag::NODE_USAGE, 100, usage),
                (tag::NODE_USAGE, 600, usage),
            ],
        );
        let (trace, notes) = parse(&file, "t", &crate::formats::Budget::default()).expect("reads");
        assert_eq!(trace.cpu_samples[0].sample.start, Time(0));
        assert_eq!(trace.cpu_samples[1].sample.start, Time(100));
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("1 utilization samples") && n.contains("before tick 0")),
            "{notes:?}"
        );
    }
}
