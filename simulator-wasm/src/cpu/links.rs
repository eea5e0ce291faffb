//! The link engines (packets, acknowledges, DMA into memory), booting from a link, and
//! channel communication, internal and external.

use super::memory::words;
use super::*;

impl Node {
    /// Waits for boot code on a link, as a transputer with BootFromROM low does: the first
    /// byte to arrive on any link is the code's length (2 to 255), the bytes after it are
    /// loaded at `MemStart`, and then a low-priority process runs it with `Wptr` at the first
    /// word after the code and C the link input channel it came on.
    pub fn await_boot(&mut self) -> Result<(), SimError> {
        for k in 0..10u32 {
            self.write_word(NOT_PROCESS + 4 * k, NOT_PROCESS)?;
        }
        self.running = false;
        self.booting = Some((None, 0));
        Ok(())
    }

    /// A packet from the wire on link `link`, whose start bit arrives at `at_ps`.
    pub fn receive(&mut self, link: u8, kind: PacketKind, at_ps: u64) {
        let k = usize::from(link & 3);
        match kind {
            PacketKind::Data(byte) => {
                let t = self.link_timing;
                self.schedule_action(at_ps, k, Action::DataStart);
                self.schedule_action(at_ps + t.ack_delay_ps, k, Action::AckDue);
                self.schedule_action(at_ps + t.data_ps(), k, Action::ByteEnd(byte));
            }
            PacketKind::Ack => {
                let t = self.link_timing;
                self.schedule_action(at_ps + t.resume_delay_ps, k, Action::AckSeen);
            }
        }
    }

    #[inline]
    pub(super) fn schedule_action(&mut self, at_ps: u64, link: usize, action: Action) {
        self.actions.push(Reverse((at_ps, link as u8, action)));
        self.horizon = 0;
        self.next_action_cycle = self.next_action_cycle.min(self.cycle_at(at_ps));
    }

    /// Carries out the link actions whose time has come.
    pub(super) fn apply_actions(&mut self) -> Result<(), SimError> {
        let now = self.picoseconds();
        while let Some(&Reverse((at, link, action))) = self.actions.peek() {
            if at > now {
                break;
            }
            self.actions.pop();
            self.link_action(usize::from(link), action, at)?;
        }
        self.next_action_cycle = match self.actions.peek() {
            Some(Reverse((at, ..))) => self.cycle_at(*at),
            None => u64::MAX,
        };
        Ok(())
    }

    pub(super) fn link_action(
        &mut self,
        k: usize,
        action: Action,
        at: u64,
    ) -> Result<(), SimError> {
        match action {
            Action::DataStart => {
                let l = &mut self.links[k];
                l.arriving = true;
                l.ack_sent = false;
                l.ack_owed = false;
            }
            Action::AckDue => {
                let l = &mut self.links[k];
                if l.arriving && !l.ack_sent {
                    if l.has_room() || self.booting.is_some() {
                        self.send_ack(k, at);
                    } else {
                        l.ack_owed = true;
                    }
                }
            }
            Action::ByteEnd(byte) => {
                let l = &mut self.links[k];
                l.arriving = false;
                l.bytes_in += 1;
                if l.has_room() {
                    self.take_byte(k, byte, at)?;
                } else if self.booting.is_some() {
                    self.boot_byte(k, byte)?;
                } else {
                    l.buffered = Some(byte);
                    let alt = l.alt_wdesc;
                    if alt != NOT_PROCESS {
                        self.alt_ready(alt, 0)?;
                    }
                }
            }
            Action::AckSeen => {
                let l = &mut self.links[k];
                l.awaiting_ack = false;
                if l.out_wdesc != NOT_PROCESS && l.out_remaining == 0 {
                    let w = l.out_wdesc;
                    l.out_wdesc = NOT_PROCESS;
                    self.release(w, 0)?;
                } else {
                    self.pump(k, at)?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn send_ack(&mut self, k: usize, at: u64) {
        let t = self.link_timing;
        let l = &mut self.links[k];
        let start = at.max(l.wire_free_ps);
        l.wire_free_ps = start + t.ack_ps();
        l.busy_out_ps += t.ack_ps();
        l.ack_sent = true;
        l.ack_owed = false;
        self.horizon = 0;
        self.outbox.push(Packet {
            link: k as u8,
            at_ps: start,
            kind: PacketKind::Ack,
        });
    }

    /// Sends the next byte of the output on link `k` when its engine may.
    pub(super) fn pump(&mut self, k: usize, at: u64) -> Result<(), SimError> {
        let l = &self.links[k];
        if l.out_wdesc == NOT_PROCESS || l.out_remaining == 0 || l.awaiting_ack {
            return Ok(());
        }
        let byte = self.read_byte(l.out_pointer)?;
        let t = self.link_timing;
        let l = &mut self.links[k];
        let start = at.max(l.wire_free_ps);
        l.wire_free_ps = start + t.data_ps();
        l.busy_out_ps += t.data_ps();
        l.awaiting_ack = true;
        l.out_pointer = l.out_pointer.wrapping_add(1);
        l.out_remaining -= 1;
        l.bytes_out += 1;
        self.horizon = 0;
        self.outbox.push(Packet {
            link: k as u8,
            at_ps: start,
            kind: PacketKind::Data(byte),
        });
        Ok(())
    }

    /// Stores a received byte for the input on link `k`; the input completes with its last
    /// byte. Returns whether it completed.
    pub(super) fn take_byte(&mut self, k: usize, byte: u8, at: u64) -> Result<bool, SimError> {
        let pointer = self.links[k].in_pointer;
        self.write_byte(pointer, byte)?;
        let l = &mut self.links[k];
        l.in_pointer = pointer.wrapping_add(1);
        l.in_remaining -= 1;
        if !l.ack_sent {
            self.send_ack(k, at);
        }
        let l = &mut self.links[k];
        if l.in_remaining > 0 {
            return Ok(false);
        }
        let w = l.in_wdesc;
        let len = l.in_len;
        l.in_wdesc = NOT_PROCESS;
        self.record(EventKind::Arrival, w, LINK_IN + 4 * k as u32, len, 0);
        if !(self.running && w == self.wdesc()) {
            self.release(w, 0)?;
        }
        Ok(true)
    }

    pub(super) fn boot_byte(&mut self, k: usize, byte: u8) -> Result<(), SimError> {
        let Some((length, loaded)) = self.booting else {
            return Ok(());
        };
        let start = self.table.chip.mem_start();
        let Some(length) = length else {
            if byte < 2 {
                return Err(SimError::Boot {
                    message: format!(
                        "the first byte on link {k} is {byte}: peek and poke (0 and 1) are not \
                         supported, a boot needs the code's length (2 to 255)"
                    ),
                });
            }
            self.booting = Some((Some(u32::from(byte)), 0));
            return Ok(());
        };
        self.write_byte(start.wrapping_add(loaded), byte)?;
        let loaded = loaded + 1;
        if loaded < length {
            self.booting = Some((Some(length), loaded));
            return Ok(());
        }
        self.booting = None;
        self.a = self.iptr;
        self.b = self.wdesc();
        self.c = LINK_IN + 4 * k as u32;
        self.iptr = start;
        self.wptr = (start + length + 3) & !3;
        self.pri = 1;
        self.running = true;
        self.slices_at = self.slices();
        let me = self.wdesc();
        self.record(EventKind::Start, me, start, 0, 0);
        // The boot code arrived as a message: its length byte and the code.
        self.record(
            EventKind::Arrival,
            me,
            LINK_IN + 4 * k as u32,
            length + 1,
            0,
        );
        Ok(())
    }

    /// An ALT waiting on a channel that became ready.
    pub(super) fn alt_ready(&mut self, wdesc: u32, by: u32) -> Result<(), SimError> {
        let at = self.ws(wdesc & !3, W_POINTER);
        match self.read_word(at)? {
            WAITING => {
                self.remove_timer(wdesc);
                self.write_word(at, READY)?;
                self.release(wdesc, by)
            }
            ENABLING => self.write_word(at, READY),
            _ => Ok(()),
        }
    }

    /// `in` or `out` (or `outbyte`, `outword`) on link `k`: the engine moves the message while
    /// the process waits.
    pub(super) fn link_communicate(
        &mut self,
        k: usize,
        input: bool,
        len: u32,
        pointer: u32,
    ) -> Result<(), SimError> {
        let me = self.wdesc();
        let now = self.picoseconds();
        if len == 0 {
            if input {
                self.record(EventKind::Arrival, me, LINK_IN + 4 * k as u32, 0, 0);
            }
            return Ok(());
        }
        if input {
            let l = &mut self.links[k];
            l.in_wdesc = me;
            l.in_pointer = pointer;
            l.in_remaining = len;
            l.in_len = len;
            if let Some(byte) = l.buffered.take() {
                if self.take_byte(k, byte, now)? {
                    return Ok(());
                }
            } else if l.arriving && l.ack_owed {
                self.send_ack(k, now);
            }
        } else {
            let l = &mut self.links[k];
            l.out_wdesc = me;
            l.out_pointer = pointer;
            l.out_remaining = len;
            self.pump(k, now)?;
        }
        let reason = if input {
            WaitReason::Input
        } else {
            WaitReason::Output
        };
        let channel = if input { LINK_IN } else { LINK_OUT } + 4 * k as u32;
        self.record_wait(reason, channel);
        self.deschedule(false)
    }

    /// Loads `code` at `address` and starts a low-priority process there with workspace
    /// `wptr`, the first process of the node.
    pub fn boot(&mut self, address: u32, code: &[u8], wptr: u32) -> Result<(), SimError> {
        for (k, &byte) in code.iter().enumerate() {
            self.write_byte(address.wrapping_add(k as u32), byte)?;
        }
        // The link channel words, the event channel and the timer queue heads start empty.
        for k in 0..10u32 {
            self.write_word(NOT_PROCESS + 4 * k, NOT_PROCESS)?;
        }
        self.iptr = address;
        self.wptr = wptr;
        self.pri = 1;
        self.running = true;
        self.slices_at = self.slices();
        Ok(())
    }

    /// `in`, `out`, `outbyte` and `outword` on an internal channel.
    pub(super) fn communicate(&mut self, op: Op, cost: Cost) -> Result<(), SimError> {
        let me = self.wdesc();
        let (len, channel, pointer) = match op {
            Op::Outbyte | Op::Outword => {
                // The value goes through W[0].
                let len = if op == Op::Outbyte { 1 } else { 4 };
                self.write_word(self.wptr, self.a)?;
                (len, self.b, self.wptr)
            }
            _ => (self.a, self.b, self.c),
        };
        self.pop();
        self.pop();
        if matches!(op, Op::In | Op::Out) {
            self.pop();
        }
        // On a link the engine moves the message while the process waits: the instruction
        // costs its base; on an internal channel the copy is charged per word.
        let copied = if link_channel(channel).is_some() {
            0
        } else {
            words(len)
        };
        self.charge(cost, copied, true);
        let input = op == Op::In;
        let kind = if input {
            EventKind::ReceiveCall
        } else {
            EventKind::Send
        };
        self.record(kind, me, channel, len, 0);
        if let Some((k, link_input)) = link_channel(channel)
            && link_input == input
        {
            return self.link_communicate(k, input, len, pointer);
        }
        let word = self.read_word(channel)?;
        let reason = if input {
            WaitReason::Input
        } else {
            WaitReason::Output
        };
        if word == NOT_PROCESS {
            // First to arrive: wait in the channel. The trace knows the wait without an event
            // of its own: the send or receive call just recorded, then another process runs
            // (COMSTIME switches every few instructions: each event saved is speed).
            self.write_word(channel, me)?;
            self.write_word(self.ws(self.wptr, W_POINTER), pointer)?;
            return self.deschedule(false);
        }
        let other = word & !3;
        let other_state = self.read_word(self.ws(other, W_POINTER))?;
        if !input && matches!(other_state, ENABLING | WAITING | READY) {
            // An ALT is enabling or waiting on this channel: make it ready and wait for it to
            // take the message.
            if other_state == WAITING {
                self.remove_timer(word);
                self.write_word(self.ws(other, W_POINTER), READY)?;
                self.release(word, me)?;
            } else {
                self.write_word(self.ws(other, W_POINTER), READY)?;
            }
            self.write_word(channel, me)?;
            self.write_word(self.ws(self.wptr, W_POINTER), pointer)?;
            self.record_wait(reason, channel);
            return self.deschedule(false);
        }
        // The partner waits: move the message and let it go on.
        if input {
            self.copy(other_state, pointer, len)?;
            self.record(EventKind::Arrival, me, channel, len, word);
        } else {
            self.copy(pointer, other_state, len)?;
            self.record(EventKind::Arrival, word, channel, len, me);
        }
        self.write_word(channel, NOT_PROCESS)?;
        // The arrival just recorded names the partner it releases.
        self.enqueue(word)
    }
}
