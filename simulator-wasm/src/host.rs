//! The iserver host on the root's link 0: a link endpoint like a node. It streams a boot file,
//! then answers SP requests (the protocol itself is [`crate::iserver`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::error::SimError;
use crate::iserver::Server;
use crate::link::{Action, LinkTiming, PacketKind};

/// The iserver on the root's link 0.
#[derive(Debug, Clone)]
pub struct Host {
    pub(crate) timing: LinkTiming,
    pub(crate) pending: VecDeque<u8>,
    pub(crate) request: Vec<u8>,
    pub(crate) awaiting_ack: bool,
    pub(crate) arriving: bool,
    pub(crate) wire_free_ps: u64,
    pub(crate) actions: BinaryHeap<Reverse<(u64, Action)>>,
    pub(crate) outbox: Vec<(u64, PacketKind)>,
    /// The SP protocol's state: files, streams, keys, the screen, the exit status.
    pub server: Server,
    /// When each byte from the root arrived (its stop bit), picoseconds.
    pub received_at: Vec<u64>,
    /// When each byte to the root was sent (its start bit), picoseconds.
    pub sent_at: Vec<u64>,
    /// Picoseconds the host's wire carried packets.
    pub busy_out_ps: u64,
}

impl Host {
    /// A host that first streams `boot` (may be empty) and answers SP requests, giving
    /// `command_line` and the keys `keys` when asked.
    pub fn new(timing: LinkTiming, boot: &[u8], command_line: &str, keys: &[u8]) -> Host {
        Host {
            timing,
            pending: boot.iter().copied().collect(),
            request: Vec::new(),
            awaiting_ack: false,
            arriving: false,
            wire_free_ps: 0,
            actions: BinaryHeap::new(),
            outbox: Vec::new(),
            server: Server::new(command_line, keys),
            received_at: Vec::new(),
            sent_at: Vec::new(),
            busy_out_ps: 0,
        }
    }

    fn schedule(&mut self, at: u64, action: Action) {
        self.actions.push(Reverse((at, action)));
    }

    pub(crate) fn receive(&mut self, kind: PacketKind, at: u64) {
        match kind {
            PacketKind::Data(byte) => {
                self.schedule(at, Action::DataStart);
                self.schedule(at + self.timing.ack_delay_ps, Action::AckDue);
                self.schedule(at + self.timing.data_ps(), Action::ByteEnd(byte));
            }
            PacketKind::Ack => self.schedule(at + self.timing.resume_delay_ps, Action::AckSeen),
        }
    }

    /// Whether the host has a byte to send and may send it now.
    pub(crate) fn pumping(&self) -> bool {
        !self.awaiting_ack && !self.pending.is_empty()
    }

    /// Whether the host has nothing to do until a packet reaches it (or has exited).
    pub(crate) fn waits(&self) -> bool {
        self.server.exit.is_some() || (self.actions.is_empty() && !self.pumping())
    }

    pub(crate) fn next_action(&self) -> Option<u64> {
        self.actions.peek().map(|Reverse((at, ..))| *at)
    }

    fn pump(&mut self, at: u64) {
        if self.awaiting_ack || self.server.exit.is_some() {
            return;
        }
        if let Some(byte) = self.pending.pop_front() {
            let start = at.max(self.wire_free_ps);
            self.wire_free_ps = start + self.timing.data_ps();
            self.busy_out_ps += self.timing.data_ps();
            self.awaiting_ack = true;
            self.sent_at.push(start);
            self.outbox.push((start, PacketKind::Data(byte)));
        }
    }

    pub(crate) fn run_until(&mut self, start: u64, end: u64) -> Result<(), SimError> {
        self.pump(start);
        while let Some(&Reverse((at, action))) = self.actions.peek() {
            if at > end {
                break;
            }
            self.actions.pop();
            match action {
                Action::DataStart => self.arriving = true,
                Action::AckDue => {
                    let s = at.max(self.wire_free_ps);
                    self.wire_free_ps = s + self.timing.ack_ps();
                    self.busy_out_ps += self.timing.ack_ps();
                    self.outbox.push((s, PacketKind::Ack));
                }
                Action::ByteEnd(byte) => {
                    self.arriving = false;
                    self.received_at.push(at);
                    self.request.push(byte);
                    self.server.seconds = (at / 1_000_000_000_000) as u32;
                    self.serve()?;
                    self.pump(at);
                }
                Action::AckSeen => {
                    self.awaiting_ack = false;
                    self.pump(at);
                }
            }
        }
        Ok(())
    }

    /// Answers the request in the buffer once it is whole.
    fn serve(&mut self) -> Result<(), SimError> {
        if self.request.len() < 2 {
            return Ok(());
        }
        let length = usize::from(u16::from_le_bytes([self.request[0], self.request[1]]));
        if !(6..=510).contains(&length) || length % 2 == 1 {
            return Err(SimError::Network {
                message: format!(
                    "host: an SP request of {length} bytes (expected an even length from 6 to \
                     510, after the 2-byte length)"
                ),
            });
        }
        if self.request.len() < length + 2 {
            return Ok(());
        }
        let frame: Vec<u8> = self.request.drain(..length + 2).collect();
        let mut reply = self.server.answer(&frame[2..]);
        while reply.len() < 6 || reply.len() % 2 == 1 {
            reply.push(0);
        }
        self.pending
            .extend((reply.len() as u16).to_le_bytes().iter().chain(&reply));
        Ok(())
    }
}
