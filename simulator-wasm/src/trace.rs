//! A network's recorded events as a `shared` trace: nodes and their links, one process per
//! workspace, messages paired as the hardware paired them, probes, and utilization samples.
//!
//! Ticks are nanoseconds. A process is a node's workspace descriptor (`Wptr | priority`),
//! named after the code label it starts at (or its first probe's text, or its workspace);
//! a workspace used again by a later process is the same row, as its events never overlap. A
//! message on an internal channel pairs the send with the arrival that names both parties; a
//! message over a link pairs the k-th output on a wire's sending end with the k-th input
//! completed at its other end. The host is a node ("host") with one process ("iserver"),
//! whose sends and arrivals are timed by the bytes on its wire. A send that never completed
//! (a deadlock, or the run stopped) becomes a probe saying so, since a send needs a partner.

use std::collections::{HashMap, VecDeque};

use shared::model::time::{Clock, Time};
use shared::model::{
    CpuSample, Direction, EventKind as Kind, EventRecord, Link as TraceLink, LinkEnd, LinkSample,
    ModelError, NodeId, ProcessId, Sample, Trace, TraceBuilder,
};

use crate::clock::cycle_ps;
use crate::cpu::EventKind;
use crate::link::{LINK_IN, LINK_OUT, link_channel};
use crate::network::{HOST_NODE, Network};
use crate::topology::End;

/// Probe tag of the notes this conversion adds (unfinished sends).
pub const NOTE_TAG: u32 = 0xFFFF_FFFF;

struct Pending {
    record: EventRecord,
    order: u64,
}

/// The trace of everything `network` recorded so far, named `name`.
pub fn to_trace(network: &Network, name: &str) -> Result<Trace, ModelError> {
    let mut b = TraceBuilder::new(name, Clock::NANOSECONDS);
    let chip = network.config.chip.name();
    let node_ids: Vec<NodeId> = (0..network.nodes.len())
        .map(|i| b.add_node(format!("{chip} #{i}")))
        .collect();
    let host_node = network.host.as_ref().map(|_| b.add_node("host"));
    let mut links = HashMap::new();
    for &(a, e) in &network.topology.wires {
        let id = b.add_link(TraceLink {
            a: LinkEnd {
                node: node_ids[a.node as usize],
                link: a.link,
            },
            b: LinkEnd {
                node: node_ids[e.node as usize],
                link: e.link,
            },
            bits_per_second: Some(u64::from(network.config.link_mbit) * 1_000_000),
        })?;
        links.insert(a, (id, Direction::AToB));
        links.insert(e, (id, Direction::BToA));
    }
    let host_link = match host_node {
        Some(h) => Some(b.add_link(TraceLink {
            a: LinkEnd {
                node: node_ids[0],
                link: 0,
            },
            b: LinkEnd { node: h, link: 0 },
            bits_per_second: Some(u64::from(network.config.link_mbit) * 1_000_000),
        })?),
        None => None,
    };
    if let Some(id) = host_link {
        links.insert(End { node: 0, link: 0 }, (id, Direction::AToB));
    }

    // Processes, in order of first appearance on each node, named by role: the code label
    // they start at, else their first probe's text, else their workspace.
    let mut processes: HashMap<(usize, u32), ProcessId> = HashMap::new();
    for (i, node) in network.nodes.iter().enumerate() {
        let mut first_probe: HashMap<u32, &str> = HashMap::new();
        for e in node.events.iter().filter(|e| e.kind == EventKind::Probe) {
            if let Some(text) = node.probe_texts.get(e.channel as usize)
                && !text.is_empty()
            {
                first_probe.entry(e.process).or_insert(text);
            }
        }
        for e in &node.events {
            let wdesc = e.process;
            if let std::collections::hash_map::Entry::Vacant(slot) = processes.entry((i, wdesc)) {
                let high = wdesc & 1 == 0;
                let role = (e.kind == EventKind::Start && e.channel != 0)
                    .then(|| network.label_of(e.channel))
                    .flatten()
                    .or_else(|| first_probe.get(&wdesc).map(|t| (*t).to_owned()));
                let name = match role {
                    Some(role) if high => format!("{role} (high priority)"),
                    Some(role) => role,
                    None => format!("ws {:#010x} {}", wdesc & !3, if high { "hi" } else { "lo" }),
                };
                slot.insert(b.add_process(name, node_ids[i])?);
            }
        }
    }
    let iserver = match host_node {
        Some(h) => Some(b.add_process("iserver", h)?),
        None => None,
    };

    let mut out: Vec<Pending> = Vec::new();
    let mut order = 0u64;
    let mut push = |out: &mut Vec<Pending>, record: EventRecord| {
        order += 1;
        out.push(Pending { record, order });
    };
    // Sends waiting for their arrival: internal (node, channel, sender) and link (node, link).
    let mut internal_sends: HashMap<(usize, u32, u32), VecDeque<usize>> = HashMap::new();
    let mut link_sends: HashMap<End, VecDeque<usize>> = HashMap::new();
    // Completed inputs on link ends, in order: (record index).
    let mut link_arrivals: HashMap<End, VecDeque<usize>> = HashMap::new();
    for (i, node) in network.nodes.iter().enumerate() {
        let ns = |cycle: u64| Time(cycle_ps(cycle, node.clock_hz) / 1_000);
        for e in &node.events {
            let process = processes[&(i, e.process)];
            let mut record = EventRecord::plain(process, ns(e.cycle), Kind::ProcInit);
            match e.kind {
                EventKind::Start => {}
                EventKind::End => record.kind = Kind::ProcExit,
                EventKind::ReceiveCall => {
                    record.kind = Kind::RecvCall;
                    record.size = u64::from(e.bytes);
                }
                EventKind::Send => {
                    record.kind = Kind::MsgSend;
                    record.size = u64::from(e.bytes);
                    record.tag = e.channel;
                    let index = out.len();
                    match link_channel(e.channel) {
                        Some((k, false)) => link_sends
                            .entry(End {
                                node: i as u32,
                                link: k as u8,
                            })
                            .or_default()
                            .push_back(index),
                        _ => internal_sends
                            .entry((i, e.channel, e.process))
                            .or_default()
                            .push_back(index),
                    }
                }
                EventKind::Arrival => {
                    record.kind = Kind::MsgArr;
                    record.size = u64::from(e.bytes);
                    match link_channel(e.channel) {
                        Some((k, true)) => {
                            link_arrivals
                                .entry(End {
                                    node: i as u32,
                                    link: k as u8,
                                })
                                .or_default()
                                .push_back(out.len());
                        }
                        _ => {
                            record.tag = e.channel;
                            let sender = processes.get(&(i, e.other)).copied();
                            record.peer = sender;
                            if let Some(send) = internal_sends
                                .get_mut(&(i, e.channel, e.other))
                                .and_then(VecDeque::pop_front)
                            {
                                out[send].record.peer = Some(process);
                            }
                        }
                    }
                }
                EventKind::Probe => {
                    record.kind = Kind::Probe;
                    record.tag = e.other;
                    let text = node.probe_texts.get(e.channel as usize);
                    record.text = text.filter(|t| !t.is_empty()).map(|t| b.intern(t));
                }
            }
            push(&mut out, record);
        }
    }

    // Link messages: the k-th output on one end with the k-th input at the other.
    let host = network.host.as_ref();
    let mut host_received = 0usize;
    let mut sends_to_host = link_sends.remove(&End { node: 0, link: 0 });
    for (end, sends) in &mut link_sends {
        let Some(peer) = network.topology.peer(*end) else {
            continue;
        };
        let arrivals = link_arrivals.entry(peer).or_default();
        while let (Some(&s), Some(&a)) = (sends.front(), arrivals.front()) {
            sends.pop_front();
            arrivals.pop_front();
            let tag = LINK_OUT + 4 * u32::from(end.link);
            out[s].record.peer = Some(out[a].record.process);
            out[a].record.peer = Some(out[s].record.process);
            out[a].record.tag = tag;
        }
    }
    // Messages to and from the host, timed by its wire.
    if let (Some(host), Some(iserver)) = (host, iserver) {
        if let Some(sends) = &mut sends_to_host {
            while let Some(s) = sends.pop_front() {
                let len = out[s].record.size as usize;
                let Some(&last) = host.received_at.get(host_received + len.max(1) - 1) else {
                    sends.push_front(s);
                    break;
                };
                host_received += len;
                out[s].record.peer = Some(iserver);
                let mut arrival = EventRecord::plain(iserver, Time(last / 1_000), Kind::MsgArr);
                arrival.peer = Some(out[s].record.process);
                arrival.tag = LINK_OUT;
                arrival.size = len as u64;
                push(&mut out, arrival);
            }
        }
        let mut host_sent = 0usize;
        if let Some(arrivals) = link_arrivals.get_mut(&End { node: 0, link: 0 }) {
            while let Some(a) = arrivals.pop_front() {
                let len = out[a].record.size as usize;
                let Some(&first) = host.sent_at.get(host_sent) else {
                    break;
                };
                host_sent += len;
                let mut send = EventRecord::plain(iserver, Time(first / 1_000), Kind::MsgSend);
                send.peer = Some(out[a].record.process);
                send.tag = LINK_IN;
                send.size = len as u64;
                out[a].record.peer = Some(iserver);
                out[a].record.tag = LINK_IN;
                push(&mut out, send);
            }
        }
    }
    // Whatever is left found no partner: sends become notes, arrivals (of boot bytes or from
    // an unwired link) are kept only with a partner.
    for pending in &mut out {
        let r = &mut pending.record;
        if r.kind.has_peer() && r.peer.is_none() {
            if r.kind == Kind::MsgSend {
                r.kind = Kind::Probe;
                r.text = Some(b.intern(&format!(
                    "send of {} bytes on channel {:#010x} never completed",
                    r.size, r.tag
                )));
                r.tag = NOTE_TAG;
            } else {
                r.kind = Kind::Probe;
                r.text = Some(b.intern(&format!(
                    "input of {} bytes completed from outside the trace",
                    r.size
                )));
                r.tag = NOTE_TAG;
            }
        }
    }
    out.sort_by_key(|p| (p.record.process.0, p.record.time.0, p.order));
    b.reserve_events(out.len());
    for p in out {
        b.push(p.record)?;
    }

    for s in &network.samples {
        let sample = Sample {
            start: Time(s.start_ps / 1_000),
            end: Time(s.end_ps / 1_000),
            utilization: s.utilization,
        };
        match (s.link, s.node) {
            (None, node) => b.add_cpu_sample(CpuSample {
                node: node_ids[node as usize],
                sample,
            })?,
            (Some(_), HOST_NODE) => {
                if let Some(id) = host_link {
                    b.add_link_sample(LinkSample {
                        link: id,
                        direction: Direction::BToA,
                        sample,
                    })?;
                }
            }
            (Some(k), node) => {
                if let Some(&(link, direction)) = links.get(&End { node, link: k }) {
                    b.add_link_sample(LinkSample {
                        link,
                        direction,
                        sample,
                    })?;
                }
            }
        }
    }
    Ok(b.build())
}
