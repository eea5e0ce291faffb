//! Communication motifs across processes (ShiViz's motif search, on matched messages):
//! request–response pairs, broadcasts and chains of messages. Each is found in one pass over
//! the messages with per-process lists, O(M log M).
//!
//! - **Request–response**: a message A → B, and the first message B sends back to A after the
//!   request arrived.
//! - **Broadcast**: a run of sends on one process, not interrupted by an arrival, to at least
//!   `k` distinct processes.
//! - **Chain**: messages m1 … mn where each m(i+1) is the first send of m(i)'s receiver after
//!   m(i) arrived; reported from chain starts (messages no other message continues), whole.

use serde::{Deserialize, Serialize};

use crate::graph::pairing::{Message, Pairing};
use crate::model::{EventIdx, EventKind, ProcessId, Trace};

/// A motif to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Motif {
    /// A request and its response.
    RequestResponse,
    /// Sends to at least this many processes in a row.
    Broadcast(u32),
    /// At least this many messages, each sent on by its receiver.
    Chain(u32),
}

impl Motif {
    /// Reads `request-response`, `broadcast K` or `chain N` (K, N ≥ 2).
    pub fn parse(text: &str) -> Result<Motif, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let count = |w: Option<&&str>, what: &str| -> Result<u32, String> {
            let n = w
                .ok_or_else(|| format!("expected the {what} after the motif's name"))?
                .parse::<u32>()
                .map_err(|_| format!("expected the {what} as a whole number"))?;
            if n < 2 {
                return Err(format!("expected a {what} of 2 or more, found {n}"));
            }
            Ok(n)
        };
        match words.first().copied() {
            Some("request-response") if words.len() == 1 => Ok(Motif::RequestResponse),
            Some("broadcast") => Ok(Motif::Broadcast(count(
                words.get(1),
                "number of receivers",
            )?)),
            Some("chain") => Ok(Motif::Chain(count(words.get(1), "number of messages")?)),
            _ => Err(format!(
                "expected request-response, broadcast K or chain N, found {text:?}"
            )),
        }
    }
}

/// One occurrence: its events in causal order (sends and arrivals).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MotifMatch {
    /// The events.
    pub events: Vec<EventIdx>,
}

/// Every occurrence of `motif` in `trace` (its messages `pairing`).
pub fn find(trace: &Trace, pairing: &Pairing, motif: Motif) -> Vec<MotifMatch> {
    match motif {
        Motif::RequestResponse => request_response(trace, pairing),
        Motif::Broadcast(k) => broadcasts(trace, pairing, k as usize),
        Motif::Chain(n) => chains(trace, pairing, n as usize),
    }
}

/// The messages by send event, and each process's sends in program order.
struct Index {
    by_send: Vec<Option<u32>>,
    sends_of: Vec<Vec<EventIdx>>,
}

impl Index {
    fn new(trace: &Trace, pairing: &Pairing) -> Index {
        let mut by_send = vec![None; trace.events.len()];
        for (k, m) in pairing.messages.iter().enumerate() {
            by_send[m.send.index()] = Some(k as u32);
        }
        let mut sends_of = vec![Vec::new(); trace.processes.len()];
        for m in &pairing.messages {
            sends_of[trace.events.process()[m.send.index()].index()].push(m.send);
        }
        for list in &mut sends_of {
            list.sort_unstable();
        }
        Index { by_send, sends_of }
    }

    /// The first matched send of `p` after event `after` (events of a process are in program
    /// order by index), optionally to `to` only.
    fn next_send(
        &self,
        trace: &Trace,
        p: ProcessId,
        after: EventIdx,
        to: Option<ProcessId>,
    ) -> Option<EventIdx> {
        let list = &self.sends_of[p.index()];
        let from = list.partition_point(|&s| s <= after);
        list[from..]
            .iter()
            .copied()
            .find(|&s| to.is_none_or(|to| trace.events.peer().at(s.index()) == Some(to)))
    }

    fn message(&self, pairing: &Pairing, send: EventIdx) -> Option<Message> {
        self.by_send[send.index()].map(|k| pairing.messages[k as usize])
    }
}

fn process_of(trace: &Trace, e: EventIdx) -> ProcessId {
    trace.events.process()[e.index()]
}

fn request_response(trace: &Trace, pairing: &Pairing) -> Vec<MotifMatch> {
    let index = Index::new(trace, pairing);
    pairing
        .messages
        .iter()
        .filter_map(|m| {
            let (a, b) = (process_of(trace, m.send), process_of(trace, m.arrival));
            let reply = index.next_send(trace, b, m.arrival, Some(a))?;
            let r = index.message(pairing, reply)?;
            Some(MotifMatch {
                events: vec![m.send, m.arrival, r.send, r.arrival],
            })
        })
        .collect()
}

fn broadcasts(trace: &Trace, pairing: &Pairing, k: usize) -> Vec<MotifMatch> {
    let index = Index::new(trace, pairing);
    let kinds = trace.events.kind();
    let mut out = Vec::new();
    for p in trace.process_ids() {
        let mut run: Vec<EventIdx> = Vec::new();
        let mut peers: Vec<ProcessId> = Vec::new();
        let mut flush = |run: &mut Vec<EventIdx>, peers: &mut Vec<ProcessId>| {
            peers.sort_unstable();
            peers.dedup();
            if peers.len() >= k {
                out.push(MotifMatch {
                    events: std::mem::take(run),
                });
            }
            run.clear();
            peers.clear();
        };
        for i in trace.process_events(p) {
            match kinds[i] {
                EventKind::MsgSend if index.by_send[i].is_some() => {
                    run.push(EventIdx(i as u32));
                    peers.extend(trace.events.peer().at(i));
                }
                EventKind::MsgArr | EventKind::ProcExit => flush(&mut run, &mut peers),
                _ => {}
            }
        }
        flush(&mut run, &mut peers);
    }
    out
}

fn chains(trace: &Trace, pairing: &Pairing, n: usize) -> Vec<MotifMatch> {
    let index = Index::new(trace, pairing);
    // Each message's continuation: its receiver's first send after the arrival.
    let next: Vec<Option<u32>> = pairing
        .messages
        .iter()
        .map(|m| {
            let send = index.next_send(trace, process_of(trace, m.arrival), m.arrival, None)?;
            index.by_send[send.index()]
        })
        .collect();
    let mut continued = vec![false; next.len()];
    for &k in next.iter().flatten() {
        continued[k as usize] = true;
    }
    let mut out = Vec::new();
    for start in (0..next.len()).filter(|&k| !continued[k]) {
        let mut events = Vec::new();
        let mut k = Some(start as u32);
        // A chain visits each message once (sends strictly later in causal order).
        while let Some(m) = k.map(|k| pairing.messages[k as usize]) {
            events.push(m.send);
            events.push(m.arrival);
            k = next[k.unwrap_or(0) as usize];
            if events.len() > 2 * pairing.messages.len() {
                break;
            }
        }
        if events.len() / 2 >= n {
            out.push(MotifMatch { events });
        }
    }
    out
}
