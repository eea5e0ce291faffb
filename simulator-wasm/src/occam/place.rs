//! A configuration's channels on the network: every channel declared outside a PLACED PAR and
//! used by its processors becomes a hardware link between the two processors using it (or a
//! word of memory when both ends are on one processor). The compiler names each end's address
//! with an assembler constant; this module defines them once every processor's code is known.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use super::error::{OccamError, Pos};
use crate::topology::{End, Topology};

/// Which end of a channel a process uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

/// One use of a placed channel (or of an element of a placed channel array) on a processor.
#[derive(Debug, Clone, Copy)]
pub struct Use {
    /// The placed channel (or array), by number.
    pub chan: usize,
    /// The element (0 for a single channel).
    pub index: u32,
    pub processor: u32,
    pub dir: Dir,
    pub pos: Pos,
}

/// A placed channel: its name and, for an array, its length.
#[derive(Debug, Clone)]
pub struct Placed {
    pub name: String,
    pub len: Option<i64>,
}

/// The assembler constant holding the address processor `processor` uses for element
/// `index` of placed channel `chan`.
pub fn constant_name(chan: usize, index: u32, processor: u32) -> String {
    format!("PC{chan}_{index}_N{processor}")
}

/// The processors using one end of a channel, each with where it first does.
type Ends = Vec<(u32, Pos)>;

/// The first output link's channel word (links 1, 2, 3 follow a word apart); the input links'
/// words follow the output links'.
const LINK_OUT: u32 = 0x8000_0000;
const LINK_IN: u32 = 0x8000_0010;

/// Where each placed channel's ends are: assembler constant definitions, and the data words
/// (each initialised empty) of channels whose two ends share a processor. Errors name the
/// channel and the processors: a channel with two writers or two readers, one with an end on
/// no processor, two processors no free link joins.
pub fn map(
    uses: &[Use],
    chans: &[Placed],
    topology: &Topology,
) -> Result<(String, String), OccamError> {
    // Each (channel, element): the processors writing it and reading it, with where.
    let mut ends: BTreeMap<(usize, u32), [Ends; 2]> = BTreeMap::new();
    for u in uses {
        let side = &mut ends.entry((u.chan, u.index)).or_default()[u.dir as usize];
        if !side.iter().any(|(p, _)| *p == u.processor) {
            side.push((u.processor, u.pos));
        }
    }
    let mut constants = String::new();
    let mut data = String::new();
    let mut taken: HashSet<End> = HashSet::new();
    for ((chan, index), [inputs, outputs]) in &ends {
        let name = match chans.get(*chan) {
            Some(Placed { name, len: Some(_) }) => format!("{name}[{index}]"),
            Some(Placed { name, len: None }) => name.clone(),
            None => format!("channel {chan}"),
        };
        for (side, what) in [(inputs, "input"), (outputs, "output")] {
            if let [(a, _), (b, pos), ..] = side.as_slice() {
                return Err(OccamError::at_pos(
                    *pos,
                    format!(
                        "channel {name} is used for {what} on processors {a} and {b}: a \
                         channel joins one writer and one reader"
                    ),
                ));
            }
        }
        let (writer, reader) = match (outputs.first(), inputs.first()) {
            (Some(w), Some(r)) => (*w, *r),
            (Some((p, pos)), None) | (None, Some((p, pos))) => {
                let (has, lacks) = if outputs.is_empty() {
                    ("input", "output")
                } else {
                    ("output", "input")
                };
                return Err(OccamError::at_pos(
                    *pos,
                    format!(
                        "channel {name} is used for {has} on processor {p} but for {lacks} on \
                         none"
                    ),
                ));
            }
            (None, None) => continue,
        };
        let (w, r) = (writer.0, reader.0);
        if w == r {
            let label = format!("PCD{chan}_{index}");
            let _ = writeln!(data, "{label}: .word #80000000");
            let _ = writeln!(constants, "{} = {label}", constant_name(*chan, *index, w));
            continue;
        }
        let wires: Vec<(End, End)> = topology
            .wires
            .iter()
            .filter_map(|&(a, b)| {
                if a.node == w && b.node == r {
                    Some((a, b))
                } else if b.node == w && a.node == r {
                    Some((b, a))
                } else {
                    None
                }
            })
            .collect();
        let Some(&(out_end, in_end)) = wires.iter().find(|(o, _)| !taken.contains(o)) else {
            let why = if wires.is_empty() {
                format!("no link of `{}` joins them", topology.name)
            } else {
                format!("every link from {w} to {r} already carries a channel")
            };
            return Err(OccamError::at_pos(
                writer.1,
                format!("channel {name} joins processors {w} and {r}, but {why}"),
            ));
        };
        taken.insert(out_end);
        let _ = writeln!(
            constants,
            "{} = #{:08X}",
            constant_name(*chan, *index, w),
            LINK_OUT + 4 * u32::from(out_end.link)
        );
        let _ = writeln!(
            constants,
            "{} = #{:08X}",
            constant_name(*chan, *index, r),
            LINK_IN + 4 * u32::from(in_end.link)
        );
    }
    Ok((constants, data))
}
