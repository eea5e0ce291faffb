//! Links as packets: each of a node's four links is two wires, one each way; a byte travels as
//! an 11-bit data packet (two start bits, eight data bits, a stop bit) and is acknowledged by a
//! 2-bit packet on the other wire. Throughput is what this protocol and its delays give, never
//! a constant.
//!
//! The timing (transputer.md §2.6, the CERN measurements): the receiver acknowledges a byte
//! `ack_delay` after its start bit when it has room for it (an input waiting; the T800's
//! overlapped acknowledge), the sender starts its next byte `resume_delay` after the
//! acknowledge's start bit, and a wire carries one packet at a time (an acknowledge waits for
//! a data packet on its wire to end). With the T800's 5.5 bit periods for both delays this
//! gives 11 bit periods a byte one way (1.82 MB/s at 20 Mbit/s) and 16.5 a byte each way when
//! both directions are busy (2.42 MB/s in total); the T414 acknowledges only after the whole
//! packet.

use crate::isa::Chip;
use crate::words::NOT_PROCESS;

/// Bit periods of a data packet.
pub const DATA_BITS: u64 = 11;
/// Bit periods of an acknowledge packet.
pub const ACK_BITS: u64 = 2;

/// The first link output channel word; outputs are `LINK_OUT + 4k`, inputs `LINK_IN + 4k`.
pub const LINK_OUT: u32 = 0x8000_0000;
/// The first link input channel word.
pub const LINK_IN: u32 = 0x8000_0010;

/// The link channel at `address`: `(link, is_input)`, or `None` for any other address.
pub fn link_channel(address: u32) -> Option<(usize, bool)> {
    let offset = address.wrapping_sub(LINK_OUT);
    if offset < 0x20 && offset & 3 == 0 {
        Some(((offset as usize / 4) & 3, offset >= 0x10))
    } else {
        None
    }
}

/// A link's speed and protocol delays, in picoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkTiming {
    /// One bit period.
    pub bit_ps: u64,
    /// From a data packet's start bit to the earliest acknowledge.
    pub ack_delay_ps: u64,
    /// From an acknowledge's start bit to the earliest next data packet (and to the end of an
    /// output whose last byte it acknowledges).
    pub resume_delay_ps: u64,
}

impl LinkTiming {
    /// The timing of `chip`'s links at `mbit` Mbit/s (5, 10 or 20).
    pub fn new(chip: Chip, mbit: u32) -> LinkTiming {
        let bit_ps = 1_000_000 / u64::from(mbit.max(1));
        // 5.5 bit periods, from the CERN measurements ("5–6 bit periods").
        let turnaround = bit_ps * 11 / 2;
        let ack_delay_ps = match chip {
            Chip::T800 => turnaround,
            // No overlapped acknowledge: after the stop bit.
            Chip::T414 => bit_ps * DATA_BITS,
        };
        LinkTiming {
            bit_ps,
            ack_delay_ps,
            resume_delay_ps: turnaround,
        }
    }

    /// A data packet's length.
    pub fn data_ps(&self) -> u64 {
        self.bit_ps * DATA_BITS
    }

    /// An acknowledge packet's length.
    pub fn ack_ps(&self) -> u64 {
        self.bit_ps * ACK_BITS
    }

    /// The least time between a node's action on a wire and its first effect on the node at
    /// the other end: how far apart nodes may run (the conservative scheme's lookahead).
    pub fn lookahead_ps(&self) -> u64 {
        self.ack_delay_ps.min(self.resume_delay_ps).max(1)
    }
}

/// What a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// A data byte.
    Data(u8),
    /// An acknowledge.
    Ack,
}

/// A packet put on a wire: its start bit leaves at `at_ps` on link `link` of its sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    /// The sender's link number.
    pub link: u8,
    /// When its first bit is on the wire.
    pub at_ps: u64,
    /// Data or acknowledge.
    pub kind: PacketKind,
}

/// What a link engine does at a time: the delayed reactions to packets. Actions at the same
/// time on the same link run in this order, whatever order their packets were delivered in,
/// so a run does not depend on how the network's clock was sliced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// The acknowledge of the byte sent has been seen: the next may go.
    AckSeen,
    /// The acknowledge of the byte arriving may go now (when there is room for it).
    AckDue,
    /// The byte's stop bit has arrived (before the next byte's start bit at the same time).
    ByteEnd(u8),
    /// A data packet's start bit arrives.
    DataStart,
}

/// One link's two engines, as the node sees them.
#[derive(Debug, Clone, Default)]
pub struct Link {
    /// The process outputting on the link (`NOT_PROCESS` when none).
    pub out_wdesc: u32,
    pub(crate) out_pointer: u32,
    pub(crate) out_remaining: u32,
    /// A data packet sent and not yet acknowledged.
    pub(crate) awaiting_ack: bool,
    /// The outgoing wire is busy until then.
    pub(crate) wire_free_ps: u64,
    /// The process inputting from the link (`NOT_PROCESS` when none).
    pub in_wdesc: u32,
    pub(crate) in_pointer: u32,
    pub(crate) in_remaining: u32,
    pub(crate) in_len: u32,
    /// An ALT waiting for the link (`NOT_PROCESS` when none).
    pub(crate) alt_wdesc: u32,
    /// A data packet is arriving.
    pub(crate) arriving: bool,
    /// Its acknowledge became due while there was no room.
    pub(crate) ack_owed: bool,
    /// The arriving (or buffered) byte has been acknowledged.
    pub(crate) ack_sent: bool,
    /// A byte received that no input has taken yet.
    pub(crate) buffered: Option<u8>,
    /// Picoseconds the outgoing wire has carried packets (data and acknowledges).
    pub busy_out_ps: u64,
    /// Data bytes sent.
    pub bytes_out: u64,
    /// Data bytes received.
    pub bytes_in: u64,
}

impl Link {
    /// An idle link.
    pub fn new() -> Link {
        Link {
            out_wdesc: NOT_PROCESS,
            in_wdesc: NOT_PROCESS,
            alt_wdesc: NOT_PROCESS,
            ..Link::default()
        }
    }

    /// Whether an input waits for bytes (there is room for one).
    pub(crate) fn has_room(&self) -> bool {
        self.in_wdesc != NOT_PROCESS && self.in_remaining > 0
    }

    /// Whether anything is under way on the link: an output or input pending, a byte in flight.
    pub fn is_active(&self) -> bool {
        self.out_wdesc != NOT_PROCESS
            || self.in_wdesc != NOT_PROCESS
            || self.awaiting_ack
            || self.arriving
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_channel_addresses_name_the_link_and_direction() {
        assert_eq!(link_channel(0x8000_0000), Some((0, false)));
        assert_eq!(link_channel(0x8000_000C), Some((3, false)));
        assert_eq!(link_channel(0x8000_0010), Some((0, true)));
        assert_eq!(link_channel(0x8000_001C), Some((3, true)));
        assert_eq!(link_channel(0x8000_0020), None);
        assert_eq!(link_channel(0x8000_0002), None);
        assert_eq!(link_channel(0x8000_1000), None);
    }

    #[test]
    fn twenty_megabit_links_have_fifty_nanosecond_bits() {
        let t = LinkTiming::new(Chip::T800, 20);
        assert_eq!(t.bit_ps, 50_000);
        assert_eq!(t.data_ps(), 550_000);
        assert_eq!(t.ack_delay_ps, 275_000);
        assert_eq!(t.lookahead_ps(), 275_000);
        assert_eq!(LinkTiming::new(Chip::T414, 10).ack_delay_ps, 1_100_000);
    }
}
