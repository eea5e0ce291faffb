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
    ModelError, NodeId, ProcessId, Sample, Trace, TraceBuilder, WaitReason,
};

use crate::clock::cycle_ps;
use crate::cpu::{Event, EventKind, Node};
use crate::link::{LINK_IN, LINK_OUT, link_channel};
use crate::network::{HOST_NODE, Network};
use crate::topology::End;

/// Probe tag of the notes this conversion adds (unfinished sends).
pub const NOTE_TAG: u32 = 0xFFFF_FFFF;

struct Pending {
    record: EventRecord,
    order: u64,
    /// Among records of one process, time and order: 1 for recorded ones; 0 and 2 for those
    /// added just before and after one (a late receiver's rendezvous, below).
    rank: u8,
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

    // Processes: who ran each event, followed through the scheduler (see [`identify`]), in
    // order of first appearance on each node.
    let multi = network.nodes.len() > 1;
    let mut idents: Vec<Identified> = Vec::with_capacity(network.nodes.len());
    let mut process_of: Vec<Vec<ProcessId>> = Vec::with_capacity(network.nodes.len());
    for (i, node) in network.nodes.iter().enumerate() {
        let ident = identify(node);
        let names = ident.names(network, node);
        let ids = names
            .into_iter()
            .map(|name| {
                let name = if multi {
                    format!("{name} @ {chip} #{i}")
                } else {
                    name
                };
                b.add_process(name, node_ids[i])
            })
            .collect::<Result<Vec<_>, _>>()?;
        process_of.push(ids);
        idents.push(ident);
    }
    let iserver = match host_node {
        Some(h) => Some(b.add_process("iserver", h)?),
        None => None,
    };

    let mut out: Vec<Pending> = Vec::new();
    let mut order = 0u64;
    let mut push = |out: &mut Vec<Pending>, record: EventRecord| {
        order += 1;
        out.push(Pending {
            record,
            order,
            rank: 1,
        });
    };
    // Sends waiting for their arrival: internal (node, channel, sender) and link (node, link).
    let mut internal_sends: HashMap<(usize, u32, u32), VecDeque<usize>> = HashMap::new();
    let mut link_sends: HashMap<End, VecDeque<usize>> = HashMap::new();
    // Completed inputs on link ends, in order: (record index).
    let mut link_arrivals: HashMap<End, VecDeque<usize>> = HashMap::new();
    // A link output's sender is released by the link once the receiver took the message:
    // each (send, release) record pair, whose release names the receiver once paired.
    let mut link_releases: Vec<(usize, usize)> = Vec::new();
    // Each link arrival's receive call (record indices), for the rendezvous below.
    let mut call_of: HashMap<usize, usize> = HashMap::new();
    for (i, node) in network.nodes.iter().enumerate() {
        // Each process's link output still waiting for its release, and its last receive call.
        let mut on_link: HashMap<ProcessId, usize> = HashMap::new();
        let mut last_call: HashMap<ProcessId, usize> = HashMap::new();
        let ns = |cycle: u64| Time(cycle_ps(cycle, node.clock_hz) / 1_000);
        let ident = &idents[i];
        let of = |k: u32| process_of[i][k as usize];
        let mut implied = 0usize;
        for (n, e) in node.events.iter().enumerate() {
            let process = of(ident.process[n]);
            let partner = ident.partner.get(n).copied().filter(|&k| k != NONE).map(of);
            let mut record = EventRecord::plain(process, ns(e.cycle), Kind::ProcInit);
            match e.kind {
                // A process instance started again (a PAR in a loop) is ready to run; one
                // that ends and starts again later has ended until then.
                EventKind::Start if !ident.first_start(n) => {
                    record.kind = Kind::Wait;
                    record.tag = WaitReason::Ready.code();
                    record.peer = partner;
                }
                EventKind::Start => {}
                EventKind::End if !ident.last_end(n) => {
                    record.kind = Kind::Wait;
                    record.tag = WaitReason::Ended.code();
                }
                EventKind::End => record.kind = Kind::ProcExit,
                // Its peer: the process that gave the processor up to it.
                EventKind::Run => {
                    record.kind = Kind::Run;
                    record.peer = partner;
                }
                EventKind::Wait => {
                    record.kind = Kind::Wait;
                    record.tag = e.bytes;
                    record.peer = partner;
                    if let Some(what) = waited_on(&e) {
                        record.text = Some(b.intern(&what));
                    }
                    if e.bytes == WaitReason::Ready.code()
                        && partner.is_none()
                        && let Some(send) = on_link.remove(&process)
                    {
                        link_releases.push((send, out.len()));
                    }
                }
                EventKind::ReceiveCall => {
                    record.kind = Kind::RecvCall;
                    record.size = u64::from(e.bytes);
                    last_call.insert(process, out.len());
                }
                EventKind::Send => {
                    record.kind = Kind::MsgSend;
                    record.size = u64::from(e.bytes);
                    record.tag = e.channel;
                    let index = out.len();
                    match link_channel(e.channel) {
                        Some((k, false)) => {
                            on_link.insert(process, index);
                            link_sends
                                .entry(End {
                                    node: i as u32,
                                    link: k as u8,
                                })
                                .or_default()
                                .push_back(index)
                        }
                        _ => internal_sends
                            .entry((i, e.channel, ident.process[n]))
                            .or_default()
                            .push_back(index),
                    }
                }
                EventKind::Arrival => {
                    record.kind = Kind::MsgArr;
                    record.size = u64::from(e.bytes);
                    match link_channel(e.channel) {
                        Some((k, true)) => {
                            if let Some(&call) = last_call.get(&process) {
                                call_of.insert(out.len(), call);
                            }
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
                            record.peer = partner;
                            if let Some(send) = internal_sends
                                .get_mut(&(i, e.channel, ident.partner[n]))
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
            let time = record.time;
            push(&mut out, record);
            // The waits the log left implicit after this event.
            while let Some(&(at, who, reason, by)) = ident.implied.get(implied) {
                if at as usize != n {
                    break;
                }
                implied += 1;
                let mut wait = EventRecord::plain(of(who), time, Kind::Wait);
                wait.tag = reason.code();
                if by != NONE {
                    wait.peer = Some(of(by));
                }
                if reason != WaitReason::Ready {
                    wait.text = Some(b.intern(&format!("channel {:#010x}", e.channel)));
                }
                push(&mut out, wait);
            }
        }
    }

    // Link messages: the k-th output on one end with the k-th input at the other.
    let host = network.host.as_ref();
    let mut host_received = 0usize;
    let mut sends_to_host = link_sends.remove(&End { node: 0, link: 0 });
    // Each link send's arrival (record indices).
    let mut arrival_of: HashMap<usize, usize> = HashMap::new();
    for (end, sends) in &mut link_sends {
        let Some(peer) = network.topology.peer(*end) else {
            continue;
        };
        let arrivals = link_arrivals.entry(peer).or_default();
        while let (Some(&s), Some(&a)) = (sends.front(), arrivals.front()) {
            sends.pop_front();
            arrivals.pop_front();
            arrival_of.insert(s, a);
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
    // A link output's release names its receiver: the path comes through the receiver being
    // ready for the message.
    for &(send, release) in &link_releases {
        out[release].record.peer = out[send].record.peer;
    }
    // A channel is a rendezvous: a message offered on a link before its receiver asked for it
    // moves when the receiver's input starts. The send is put there, after a release by the
    // receiver and before the sender waits again for the transfer to end; so the transit is
    // the transfer's, and a path comes through the late receiver instead of crediting its
    // lateness to the message.
    let mut rendezvous: Vec<Pending> = Vec::new();
    for &(send, _) in &link_releases {
        let Some(&arrival) = arrival_of.get(&send) else {
            continue;
        };
        let Some(&call) = call_of.get(&arrival) else {
            continue;
        };
        let (offered, asked, arrived) = (
            out[send].record.time,
            out[call].record.time,
            out[arrival].record.time,
        );
        if asked <= offered || asked > arrived {
            continue;
        }
        let (sender, receiver, order) = (
            out[send].record.process,
            out[arrival].record.process,
            out[send].order,
        );
        out[send].record.time = asked;
        let mut released = EventRecord::plain(sender, asked, Kind::Wait);
        released.tag = WaitReason::Ready.code();
        released.peer = Some(receiver);
        let mut waits = EventRecord::plain(sender, asked, Kind::Wait);
        waits.tag = WaitReason::Output.code();
        let link = link_channel(out[send].record.tag).map_or(0, |(k, _)| k);
        waits.text = Some(b.intern(&format!("link {link} output")));
        rendezvous.push(Pending {
            record: released,
            order,
            rank: 0,
        });
        rendezvous.push(Pending {
            record: waits,
            order,
            rank: 2,
        });
    }
    out.extend(rendezvous);
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
    // The iserver waits on its link for the next request between the messages it handles:
    // each arrival follows a receive call made when it had handled the message before.
    if let Some(iserver) = iserver {
        let mut seen: Vec<(Time, u64, bool)> = out
            .iter()
            .filter(|p| p.record.process == iserver)
            .map(|p| (p.record.time, p.order, p.record.kind == Kind::MsgArr))
            .collect();
        seen.sort_unstable();
        // A call takes the order of the event before it: the sort below is stable and the
        // call comes later in `out`, so it lands just after that event.
        let mut since = (Time(0), 0);
        for (t, at, arrival) in seen {
            if arrival {
                let mut call = EventRecord::plain(iserver, since.0, Kind::RecvCall);
                call.tag = LINK_OUT;
                out.push(Pending {
                    record: call,
                    order: since.1,
                    rank: 1,
                });
            }
            since = (t, at);
        }
    }
    out.sort_by_key(|p| (p.record.process.0, p.record.time.0, p.order, p.rank));
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

/// No process (in [`Identified`]'s columns).
const NONE: u32 = u32::MAX;

/// A node's processes followed through the scheduler: which process each event belongs to.
///
/// The hardware knows a process only by its workspace pointer, which moves with every call
/// and is reused by later processes, so an event's recorded descriptor does not say whose it
/// is. The scheduler's own events do: between a [`EventKind::Run`] and the next wait or end,
/// every event is the running process's; a process that waits is parked under the descriptor
/// it waited with, which is what the event that releases it, or its next run, names. A
/// process is an occam process instance: the first process, or one started by a parent at a
/// code address (a PAR's branch, a PROC instance); the same parent starting the same code
/// again after the last one ended (a PAR inside a loop) is the same process again.
struct Identified {
    /// Each event's process (an index into `starts`).
    process: Vec<u32>,
    /// Each event's partner: a message's other party, a release's releaser, a start's
    /// parent, a run's process that had the processor before it (`NONE` when none).
    partner: Vec<u32>,
    /// Each process: the code it starts at (0 when unknown), its parent, and its first
    /// workspace descriptor.
    starts: Vec<(u32, u32, u32)>,
    /// Waits the log leaves implicit, to add after the event they follow: a process that
    /// blocked in a send or receive call on an internal channel (the next run is another
    /// process's), and a partner an internal channel's arrival releases: (event, process,
    /// what: a reason's code, and the releaser for a release).
    implied: Vec<(u32, u32, WaitReason, u32)>,
    /// Each process's first start and last end (event indices, `NONE` when none).
    first: Vec<u32>,
    last_start: Vec<u32>,
    last_end: Vec<u32>,
}

/// Follows `node`'s processes through its events.
fn identify(node: &Node) -> Identified {
    let mut out = Identified {
        process: Vec::with_capacity(node.events.len()),
        partner: Vec::with_capacity(node.events.len()),
        starts: Vec::new(),
        implied: Vec::new(),
        first: Vec::new(),
        last_start: Vec::new(),
        last_end: Vec::new(),
    };
    // Processes not running, by the descriptor they wait (or were queued) under.
    let mut parked: HashMap<u32, u32> = HashMap::new();
    // Each (parent, code) instance's process, and whether it is alive.
    let mut instances: HashMap<(u32, u32), u32> = HashMap::new();
    let mut alive: Vec<bool> = Vec::new();
    let mut running: Option<u32> = None;
    // The process that last gave the processor up (waited or ended), to hand it on.
    let mut last_off: Option<u32> = None;
    // The running process's last event when it was a send or receive call on an internal
    // channel (event, descriptor, reason): where it blocked if another process runs next.
    let mut offered: Option<(u32, u32, WaitReason)> = None;
    let new_process = |out: &mut Identified, alive: &mut Vec<bool>, code, parent, wdesc| {
        out.starts.push((code, parent, wdesc));
        out.first.push(NONE);
        out.last_start.push(NONE);
        out.last_end.push(NONE);
        alive.push(true);
        (out.starts.len() - 1) as u32
    };
    for (n, e) in node.events.iter().enumerate() {
        let n = n as u32;
        // A descriptor named by an event: a parked process, else the running one (whose
        // workspace pointer may have moved since it ran), else one never seen start.
        let resolve = |w: u32,
                       parked: &HashMap<u32, u32>,
                       running: Option<u32>,
                       out: &mut Identified,
                       alive: &mut Vec<bool>| {
            match parked.get(&w).copied().or(running) {
                Some(p) => p,
                None => new_process(out, alive, 0, NONE, w),
            }
        };
        let (process, partner) = match e.kind {
            EventKind::Start => {
                let parent = (e.other != 0)
                    .then(|| resolve(e.other, &parked, running, &mut out, &mut alive));
                let key = (parent.unwrap_or(NONE), e.channel);
                let p = match instances.get(&key) {
                    Some(&p) if !alive[p as usize] => {
                        alive[p as usize] = true;
                        p
                    }
                    _ => {
                        let p = new_process(&mut out, &mut alive, e.channel, key.0, e.process);
                        instances.insert(key, p);
                        p
                    }
                };
                if parent.is_some() {
                    parked.insert(e.process, p);
                } else {
                    running = Some(p);
                }
                if out.first[p as usize] == NONE {
                    out.first[p as usize] = n;
                }
                out.last_start[p as usize] = n;
                offered = None;
                (p, parent.unwrap_or(NONE))
            }
            EventKind::Run => {
                // A process still running blocked in its last call: it waits there.
                if let (Some(q), Some((at, w, reason))) = (running, offered.take())
                    && parked.get(&e.process) != Some(&q)
                {
                    parked.insert(w, q);
                    out.implied.push((at, q, reason, NONE));
                    last_off = Some(q);
                }
                let p = match parked.remove(&e.process) {
                    Some(p) => p,
                    None => new_process(&mut out, &mut alive, 0, NONE, e.process),
                };
                running = Some(p);
                offered = None;
                (p, last_off.filter(|&q| q != p).unwrap_or(NONE))
            }
            EventKind::Wait => {
                let released = e.bytes == WaitReason::Ready.code()
                    && parked.contains_key(&e.process)
                    && running.is_none_or(|r| parked.get(&e.process) != Some(&r));
                let partner = (e.other != 0)
                    .then(|| resolve(e.other, &parked, running, &mut out, &mut alive))
                    .unwrap_or(NONE);
                if released {
                    (parked[&e.process], partner)
                } else {
                    let p = resolve(e.process, &parked, running, &mut out, &mut alive);
                    parked.insert(e.process, p);
                    if running == Some(p) {
                        running = None;
                        last_off = Some(p);
                        offered = None;
                    }
                    (p, partner)
                }
            }
            EventKind::End => {
                let p = running
                    .unwrap_or_else(|| resolve(e.process, &parked, running, &mut out, &mut alive));
                alive[p as usize] = false;
                out.last_end[p as usize] = n;
                running = None;
                last_off = Some(p);
                offered = None;
                (p, NONE)
            }
            EventKind::Arrival => {
                let p = resolve(e.process, &parked, running, &mut out, &mut alive);
                let partner = (e.other != 0)
                    .then(|| resolve(e.other, &parked, running, &mut out, &mut alive))
                    .unwrap_or(NONE);
                // On an internal channel the party that waited is released by the other.
                if link_channel(e.channel).is_none() && partner != NONE {
                    if parked.contains_key(&e.process) {
                        out.implied.push((n, p, WaitReason::Ready, partner));
                    } else if parked.contains_key(&e.other) {
                        out.implied.push((n, partner, WaitReason::Ready, p));
                    }
                }
                // The running process's call completed: it did not block in it.
                if Some(p) == running || (partner != NONE && Some(partner) == running) {
                    offered = None;
                }
                (p, partner)
            }
            EventKind::Send | EventKind::ReceiveCall => {
                let p = resolve(e.process, &parked, running, &mut out, &mut alive);
                offered = (Some(p) == running && link_channel(e.channel).is_none()).then(|| {
                    let reason = if e.kind == EventKind::Send {
                        WaitReason::Output
                    } else {
                        WaitReason::Input
                    };
                    (n, e.process, reason)
                });
                (p, NONE)
            }
            EventKind::Probe => {
                offered = None;
                (
                    resolve(e.process, &parked, running, &mut out, &mut alive),
                    NONE,
                )
            }
        };
        out.process.push(process);
        out.partner.push(partner);
    }
    out.implied.sort_by_key(|&(at, ..)| at);
    out
}

impl Identified {
    /// Whether event `n` is its process's first start.
    fn first_start(&self, n: usize) -> bool {
        self.first.get(self.process[n] as usize) == Some(&(n as u32))
    }

    /// Whether event `n` is its process's last end, with no start after it.
    fn last_end(&self, n: usize) -> bool {
        let p = self.process[n] as usize;
        self.last_end.get(p) == Some(&(n as u32))
            && self.last_start.get(p).is_none_or(|&s| s < n as u32)
    }

    /// Each process's name: the program's name for the code it starts at (its PROC, or its
    /// first probe's text), else its first probe's text, else its first workspace; a PAR's
    /// branch with no name of its own is its parent's `.par`; names several processes of the
    /// node share get their index in order of start (`worker[0]`, `worker[1]`, …), and a
    /// branch the program runs at high priority says so.
    fn names(&self, network: &Network, node: &Node) -> Vec<String> {
        let mut probe: Vec<Option<&str>> = vec![None; self.starts.len()];
        for (n, e) in node.events.iter().enumerate() {
            if e.kind == EventKind::Probe
                && let Some(text) = node.probe_texts.get(e.channel as usize)
                && !text.is_empty()
            {
                let slot = &mut probe[self.process[n] as usize];
                if slot.is_none() {
                    *slot = Some(text);
                }
            }
        }
        let mut base: Vec<String> = Vec::with_capacity(self.starts.len());
        for (k, &(code, parent, wdesc)) in self.starts.iter().enumerate() {
            let label = (code != 0).then(|| network.label_of(code)).flatten();
            let name = match (label, probe[k]) {
                (Some(label), _) if label != "par" => label,
                (_, Some(text)) => text.to_owned(),
                (Some(_), None) if (parent as usize) < base.len() => {
                    format!("{}.par", base[parent as usize])
                }
                (Some(label), None) => label,
                (None, None) if parent == NONE && !base.iter().any(|b| b == "main") => {
                    "main".to_owned()
                }
                (None, None) => format!("ws {:#010x}", wdesc & !3),
            };
            base.push(name);
        }
        let mut count: HashMap<&str, usize> = HashMap::new();
        for name in &base {
            *count.entry(name.as_str()).or_default() += 1;
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        base.iter()
            .zip(&self.starts)
            .map(|(name, &(_, parent, wdesc))| {
                let mut out = name.clone();
                if count[name.as_str()] > 1 {
                    let k = seen.entry(name.as_str()).or_default();
                    out = format!("{out}[{k}]");
                    *k += 1;
                }
                // High priority where a PRI PAR put it (its parent ran at low priority).
                let parent_low = self
                    .starts
                    .get(parent as usize)
                    .is_some_and(|&(_, _, w)| w & 1 == 1);
                if wdesc & 1 == 0 && parent_low {
                    out.push_str(" (high priority)");
                }
                out
            })
            .collect()
    }
}

/// What a wait waits on, in words: a link, a channel, a PAR's branches.
fn waited_on(e: &Event) -> Option<String> {
    let reason = WaitReason::from_code(e.bytes)?;
    if reason == WaitReason::Ready {
        return None;
    }
    if reason == WaitReason::Children {
        return Some("its PAR's branches".to_owned());
    }
    if e.channel == 0 {
        return None;
    }
    Some(match link_channel(e.channel) {
        Some((k, true)) => format!("link {k} input"),
        Some((k, false)) => format!("link {k} output"),
        None => format!("channel {:#010x}", e.channel),
    })
}
