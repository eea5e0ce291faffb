//! Message pairing (decision D-e): the k-th send on a channel matches the k-th arrival on it.
//!
//! A channel is (sender, receiver, tag).
//! Sends and arrivals left over on a channel are reported as unmatched.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::{EventIdx, EventKind, Trace};

/// Matched messages and the events that found no partner.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Pairing {
    /// Matched messages, ordered by send event.
    pub messages: Vec<Message>,
    /// Sends with no arrival on their channel.
    pub unmatched_sends: Vec<EventIdx>,
    /// Arrivals with no send on their channel.
    pub unmatched_arrivals: Vec<EventIdx>,
}

/// One message: its send and its arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// The `msg_send` event.
    pub send: EventIdx,
    /// The `msg_arr` event.
    pub arrival: EventIdx,
}

/// Pairs every send with an arrival, FIFO per (sender, receiver, tag).
pub fn pair_messages(trace: &Trace) -> Pairing {
    let e = &trace.events;
    let mut channels: HashMap<(u32, u32, u32), (Vec<EventIdx>, Vec<EventIdx>)> = HashMap::new();
    // Events are grouped by process in recorded order, so each channel's lists come out in
    // program order on both ends.
    for i in 0..e.len() {
        let (process, peer, tag) = (e.process()[i], e.peer()[i], e.tag()[i]);
        let Some(peer) = peer else { continue };
        match e.kind()[i] {
            EventKind::MsgSend => channels.entry((process.0, peer.0, tag)).or_default().0.push(EventIdx(i as u32)),
            EventKind::MsgArr => channels.entry((peer.0, process.0, tag)).or_default().1.push(EventIdx(i as u32)),
            _ => {}
        }
    }
    let mut pairing = Pairing::default();
    for (sends, arrivals) in channels.into_values() {
        let n = sends.len().min(arrivals.len());
        pairing.messages.extend(sends.iter().zip(&arrivals).map(|(&send, &arrival)| Message { send, arrival }));
        pairing.unmatched_sends.extend_from_slice(&sends[n..]);
        pairing.unmatched_arrivals.extend_from_slice(&arrivals[n..]);
    }
    pairing.messages.sort_unstable_by_key(|m| m.send);
    pairing.unmatched_sends.sort_unstable();
    pairing.unmatched_arrivals.sort_unstable();
    pairing
}
