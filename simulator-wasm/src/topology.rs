//! Network descriptions: `pipe 4`, `ring 8`, `mesh 4x4`, `torus 8x8`, `cylinder 8x9`,
//! `hypercube 3`, `tree 7`, or explicit wiring `nodes 3: 0.1-1.2, 1.1-2.2` (node.link pairs).
//!
//! Link numbering follows one rule so programs can rely on it: link 0 of node 0 is left for the
//! host. In a pipe or ring, link 1 goes to the next node and link 2 to the previous one (`pipe N
//! inmos`, `ring N inmos`: the INMOS toolsets' convention, link 2 to the next node's link 1); in a
//! mesh, torus or cylinder (width × height, node = y·width + x) links 0, 1, 2, 3 go north,
//! east, south and west; in a hypercube, link d goes to the node differing in bit d; in a
//! (binary) tree, link 0 goes to the parent and links 1 and 2 to the children.

use std::collections::HashSet;

use crate::error::SimError;

/// The most nodes a network may have.
pub const MAX_NODES: u32 = 256;

/// One end of a wire: a node and its link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct End {
    /// The node, from 0.
    pub node: u32,
    /// The link, 0 to 3.
    pub link: u8,
}

/// A network: how many nodes and which links are wired together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// The description it was read from, normalised (e.g. `mesh 4x4`).
    pub name: String,
    /// How many nodes.
    pub nodes: u32,
    /// The wires, each joining two link ends.
    pub wires: Vec<(End, End)>,
}

fn error(message: impl Into<String>) -> SimError {
    SimError::Network {
        message: message.into(),
    }
}

fn number(text: &str, what: &str) -> Result<u32, SimError> {
    text.trim().parse::<u32>().map_err(|_| {
        error(format!(
            "expected {what} (a whole number), found `{}`",
            text.trim()
        ))
    })
}

fn dims(text: &str) -> Result<(u32, u32), SimError> {
    let (w, h) = text
        .split_once(['x', 'X', '×'])
        .ok_or_else(|| error(format!("expected WIDTHxHEIGHT, found `{}`", text.trim())))?;
    Ok((number(w, "a width")?, number(h, "a height")?))
}

fn end(text: &str) -> Result<End, SimError> {
    let (node, link) = text
        .trim()
        .split_once('.')
        .ok_or_else(|| error(format!("expected NODE.LINK, found `{}`", text.trim())))?;
    let link = number(link, "a link number")?;
    if link > 3 {
        return Err(error(format!(
            "link {link} does not exist: a transputer has links 0 to 3"
        )));
    }
    Ok(End {
        node: number(node, "a node number")?,
        link: link as u8,
    })
}

impl Topology {
    /// Reads a description; errors name what was expected.
    pub fn parse(text: &str) -> Result<Topology, SimError> {
        let text = text.trim();
        let (kind, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let rest = rest.trim();
        let mut wires = Vec::new();
        let mut wire = |a: (u32, u8), b: (u32, u8)| {
            wires.push((
                End {
                    node: a.0,
                    link: a.1,
                },
                End {
                    node: b.0,
                    link: b.1,
                },
            ));
        };
        let (nodes, name) = match kind.to_ascii_lowercase().as_str() {
            "single" | "node" => (1, "single".to_owned()),
            "pipe" | "ring" => {
                // `pipe N inmos`: the INMOS toolsets' convention, link 2 out to the next
                // node's link 1 (boards wired for iserver pipelines boot this way).
                let (count, inmos) = match rest.split_once(char::is_whitespace) {
                    Some((count, convention))
                        if convention.trim().eq_ignore_ascii_case("inmos") =>
                    {
                        (count, true)
                    }
                    _ => (rest, false),
                };
                let n = number(count, "a node count")?;
                let (out, back) = if inmos { (2, 1) } else { (1, 2) };
                for i in 0..n.saturating_sub(1) {
                    wire((i, out), (i + 1, back));
                }
                if kind.eq_ignore_ascii_case("ring") && n > 2 {
                    wire((n - 1, out), (0, back));
                }
                let suffix = if inmos { " inmos" } else { "" };
                (n, format!("{} {n}{suffix}", kind.to_ascii_lowercase()))
            }
            "mesh" | "torus" | "cylinder" => {
                let (w, h) = dims(rest)?;
                let lower = kind.to_ascii_lowercase();
                let wrap_x = lower != "mesh" && w > 2;
                let wrap_y = lower == "torus" && h > 2;
                for y in 0..h {
                    for x in 0..w {
                        let me = y * w + x;
                        if x + 1 < w {
                            wire((me, 1), (me + 1, 3));
                        } else if wrap_x {
                            wire((me, 1), (y * w, 3));
                        }
                        if y + 1 < h {
                            wire((me, 2), (me + w, 0));
                        } else if wrap_y {
                            wire((me, 2), (x, 0));
                        }
                    }
                }
                (w.saturating_mul(h), format!("{lower} {w}x{h}"))
            }
            "hypercube" => {
                let d = number(rest, "a dimension")?;
                if d > 4 {
                    return Err(error(format!(
                        "a hypercube of dimension {d} needs {d} links a node; a transputer has 4"
                    )));
                }
                let n = 1u32 << d;
                for i in 0..n {
                    for bit in 0..d {
                        let j = i ^ (1 << bit);
                        if i < j {
                            wire((i, bit as u8), (j, bit as u8));
                        }
                    }
                }
                (n, format!("hypercube {d}"))
            }
            "tree" => {
                let n = number(rest, "a node count")?;
                for i in 1..n {
                    let parent = (i - 1) / 2;
                    let link = if i % 2 == 1 { 1 } else { 2 };
                    wire((parent, link), (i, 0));
                }
                (n, format!("tree {n}"))
            }
            "nodes" => {
                let (n, list) = rest.split_once(':').unwrap_or((rest, ""));
                let n = number(n, "a node count")?;
                for pair in list
                    .split([',', ';', '\n'])
                    .filter(|p| !p.trim().is_empty())
                {
                    let (a, b) = pair.split_once('-').ok_or_else(|| {
                        error(format!(
                            "expected NODE.LINK-NODE.LINK, found `{}`",
                            pair.trim()
                        ))
                    })?;
                    let (a, b) = (end(a)?, end(b)?);
                    wire((a.node, a.link), (b.node, b.link));
                }
                (n, format!("nodes {n}: {}", list.trim()))
            }
            other => {
                return Err(error(format!(
                    "unknown topology `{other}`: expected pipe N, ring N, mesh WxH, torus WxH, \
                     cylinder WxH, hypercube D, tree N or nodes N: A.L-B.L, …"
                )));
            }
        };
        if nodes == 0 || nodes > MAX_NODES {
            return Err(error(format!(
                "{nodes} nodes: a network has 1 to {MAX_NODES}"
            )));
        }
        let topology = Topology { name, nodes, wires };
        topology.check()?;
        Ok(topology)
    }

    fn check(&self) -> Result<(), SimError> {
        let mut used = HashSet::new();
        for &(a, b) in &self.wires {
            for e in [a, b] {
                if e.node >= self.nodes {
                    return Err(error(format!(
                        "node {} does not exist: the network has nodes 0 to {}",
                        e.node,
                        self.nodes - 1
                    )));
                }
                if !used.insert(e) {
                    return Err(error(format!(
                        "link {} of node {} is wired twice",
                        e.link, e.node
                    )));
                }
            }
        }
        Ok(())
    }

    /// The other end of the wire at `end`, if it is wired.
    pub fn peer(&self, end: End) -> Option<End> {
        self.wires.iter().find_map(|&(a, b)| {
            if a == end {
                Some(b)
            } else if b == end {
                Some(a)
            } else {
                None
            }
        })
    }

    /// The same network with the wire on node 0's link 0 removed, so the host can take it
    /// (as on a real board, where the host adaptor is wired to the root's link 0).
    pub fn with_host_link_free(mut self) -> Topology {
        let root = End { node: 0, link: 0 };
        self.wires.retain(|&(a, b)| a != root && b != root);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mesh_wires_neighbours_north_east_south_west() -> Result<(), SimError> {
        let t = Topology::parse("mesh 4x4")?;
        assert_eq!(t.nodes, 16);
        assert_eq!(t.wires.len(), 24);
        assert_eq!(
            t.peer(End { node: 5, link: 1 }),
            Some(End { node: 6, link: 3 })
        );
        assert_eq!(
            t.peer(End { node: 5, link: 0 }),
            Some(End { node: 1, link: 2 })
        );
        assert_eq!(t.peer(End { node: 0, link: 0 }), None);
        Ok(())
    }

    #[test]
    fn wrapped_shapes_and_trees_have_the_wires_they_should() -> Result<(), SimError> {
        assert_eq!(Topology::parse("torus 4x4")?.wires.len(), 32);
        let cylinder = Topology::parse("cylinder 8x9")?;
        assert_eq!(cylinder.nodes, 72);
        assert_eq!(cylinder.wires.len(), 8 * 9 + 8 * 8);
        assert_eq!(
            cylinder.peer(End { node: 7, link: 1 }),
            Some(End { node: 0, link: 3 })
        );
        assert_eq!(Topology::parse("ring 5")?.wires.len(), 5);
        assert_eq!(Topology::parse("pipe 5")?.wires.len(), 4);
        // The INMOS convention: link 2 out to the next node's link 1.
        let inmos = Topology::parse("pipe 3 inmos")?;
        assert_eq!(inmos.name, "pipe 3 inmos");
        assert_eq!(
            inmos.wires[0],
            (End { node: 0, link: 2 }, End { node: 1, link: 1 })
        );
        assert!(Topology::parse("pipe 3 sideways").is_err());
        let cube = Topology::parse("hypercube 4")?;
        assert_eq!((cube.nodes, cube.wires.len()), (16, 32));
        let tree = Topology::parse("tree 7")?;
        assert_eq!(
            tree.peer(End { node: 2, link: 2 }),
            Some(End { node: 6, link: 0 })
        );
        let explicit = Topology::parse("nodes 3: 0.1-1.2, 1.1-2.2")?;
        assert_eq!(explicit.wires.len(), 2);
        assert_eq!(
            Topology::parse("torus 4x4")?
                .with_host_link_free()
                .wires
                .len(),
            31
        );
        Ok(())
    }

    #[test]
    fn bad_descriptions_say_what_was_expected() {
        let message = |text: &str| match Topology::parse(text) {
            Err(e) => e.to_string(),
            Ok(t) => format!("accepted as {}", t.name),
        };
        assert!(message("mesh 4").contains("WIDTHxHEIGHT"));
        assert!(message("star 5").contains("unknown topology `star`"));
        assert!(message("pipe 300").contains("1 to 256"));
        assert!(message("hypercube 5").contains("4"));
        assert!(message("nodes 2: 0.1-1.7").contains("links 0 to 3"));
        assert!(message("nodes 2: 0.1-1.0, 0.1-1.2").contains("wired twice"));
        assert!(message("nodes 2: 0.1-4.0").contains("does not exist"));
    }
}
