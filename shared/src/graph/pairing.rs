//! Message pairing (decision D-e): the k-th send on a channel matches the k-th arrival on it.
//!
//! A channel is (sender, receiver, tag); non-blocking receives count in posting order.
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

/// (sender, receiver, tag).
type Channel = (u32, u32, u32);
/// A channel's sends, and its arrivals with their posting positions.
type ChannelEvents = (Vec<EventIdx>, Vec<(usize, EventIdx)>);

/// Pairs every send with an arrival, FIFO per (sender, receiver, tag). Arrivals count in
/// posting order: a non-blocking receive's arrival takes the place of its `recv_post` (the MPI
/// non-overtaking rule), a blocking one its own place.
pub fn pair_messages(trace: &Trace) -> Pairing {
    let e = &trace.events;
    let mut channels: HashMap<Channel, ChannelEvents> = HashMap::new();
    let mut posts: HashMap<(u32, std::num::NonZeroU32), usize> = HashMap::new();
    for (i, request) in e.request().entries() {
        if e.kind()[i] == EventKind::RecvPost {
            posts.insert((e.process()[i].0, request), i);
        }
    }
    // Events are grouped by process in recorded order, so each channel's lists come out in
    // program order on both ends.
    for i in 0..e.len() {
        let (process, peer, tag) = (e.process()[i], e.peer().at(i), e.tag().at(i));
        let Some(peer) = peer else { continue };
        match e.kind()[i] {
            EventKind::MsgSend => channels
                .entry((process.0, peer.0, tag))
                .or_default()
                .0
                .push(EventIdx(i as u32)),
            EventKind::MsgArr => {
                let posted = e
                    .request()
                    .at(i)
                    .and_then(|r| posts.get(&(process.0, r)).copied())
                    .unwrap_or(i);
                channels
                    .entry((peer.0, process.0, tag))
                    .or_default()
                    .1
                    .push((posted, EventIdx(i as u32)));
            }
            _ => {}
        }
    }
    let mut pairing = Pairing::default();
    for (sends, mut arrivals) in channels.into_values() {
        arrivals.sort_by_key(|&(posted, _)| posted);
        let arrivals: Vec<EventIdx> = arrivals.into_iter().map(|(_, a)| a).collect();
        let n = sends.len().min(arrivals.len());
        pairing.messages.extend(
            sends
                .iter()
                .zip(&arrivals)
                .map(|(&send, &arrival)| Message { send, arrival }),
        );
        pairing.unmatched_sends.extend_from_slice(&sends[n..]);
        pairing.unmatched_arrivals.extend_from_slice(&arrivals[n..]);
    }
    pairing.messages.sort_unstable_by_key(|m| m.send);
    pairing.unmatched_sends.sort_unstable();
    pairing.unmatched_arrivals.sort_unstable();
    pairing
}
