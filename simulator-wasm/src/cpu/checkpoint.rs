//! Putting a node back to an earlier state: a parallel run that lets its workers run many
//! windows without meeting ([`crate::network::parallel`]) sometimes learns afterwards that
//! another worker's packet should have reached one of its nodes sooner, and takes its nodes
//! back to where they were.
//!
//! A [`Checkpoint`] keeps a copy of everything in the node but its memory, its event log and
//! its probe texts; from then on the first write to each 64-byte block of memory saves the
//! block (the journal), and the log and the texts only grow, so their lengths are enough.
//! [`Node::restore`] puts the saved blocks and the copy back; [`Node::commit`] drops the
//! journal. A field added to [`Node`] is in the copy without anyone remembering it.

use super::Node;

/// A node as it was (see [`Node::checkpoint`]).
#[derive(Debug)]
pub struct Checkpoint {
    node: Box<Node>,
    events: super::Mark,
    probes: usize,
}

impl Node {
    /// Puts the node's state aside and starts the journal: until [`Node::commit`] or
    /// [`Node::restore`], the node can be taken back to this point.
    pub fn checkpoint(&mut self) -> Checkpoint {
        self.commit();
        let memory = std::mem::take(&mut self.memory);
        let events = std::mem::take(&mut self.events);
        let probes = std::mem::take(&mut self.probe_texts);
        let journal = std::mem::take(&mut self.journal);
        let node = Box::new(self.clone());
        self.memory = memory;
        self.events = events;
        self.probe_texts = probes;
        self.journal = journal;
        self.journal.start(self.memory.len());
        self.journaling = true;
        Checkpoint {
            node,
            events: self.events.mark(),
            probes: self.probe_texts.len(),
        }
    }

    /// Keeps what the node did since its checkpoint: the journal stops.
    pub fn commit(&mut self) {
        self.journaling = false;
        self.journal.clear();
    }

    /// Takes the node back to `checkpoint`, which must be its latest.
    pub fn restore(&mut self, checkpoint: Checkpoint) {
        self.journal.undo(&mut self.memory);
        let memory = std::mem::take(&mut self.memory);
        let mut events = std::mem::take(&mut self.events);
        let mut probes = std::mem::take(&mut self.probe_texts);
        let journal = std::mem::take(&mut self.journal);
        events.truncate(checkpoint.events);
        probes.truncate(checkpoint.probes);
        *self = *checkpoint.node;
        self.memory = memory;
        self.events = events;
        self.probe_texts = probes;
        self.journal = journal;
        self.journaling = false;
    }
}

#[cfg(test)]
mod tests {
    use crate::asm::assemble;
    use crate::cpu::Node;
    use crate::isa::Chip;

    /// A loop that writes words, bytes and blocks (`move`) and records events (`probe`).
    const BUSY: &str = "
start:
    ajw -16
    ldc 0
    stl 1
loop:
    ldl 1
    adc 1
    stl 1
    ldl 1
    ldlp 4
    sb
    ldlp 1
    ldlp 8
    ldc 8
    move
    ldc 4
    ldc text
    ldc 7
    probe
    ldc 40
    ldl 1
    gt
    cj done
    j loop
done:
    stopp
text:
    .byte \"tick\"
";

    fn busy_node() -> Node {
        let mut node = Node::new(Chip::T800, 20_000_000, 64 * 1024);
        let origin = 0x8000_1000;
        let program = assemble(BUSY, &node.table, origin).expect("assembles");
        node.boot(origin, &program.code, 0x8000_7F00)
            .expect("boots");
        node
    }

    #[test]
    fn a_restored_node_runs_on_exactly_as_if_it_had_never_left_its_checkpoint() {
        for split in [1u64, 37, 200, 801] {
            // The reference: run to `split`, then on to the end.
            let mut straight = busy_node();
            straight.run_until(split).expect("runs");
            // The same, with a detour: checkpoint, run far ahead, come back.
            let mut detour = busy_node();
            detour.run_until(split).expect("runs");
            let checkpoint = detour.checkpoint();
            detour.run_until(split + 1_500).expect("runs ahead");
            assert!(detour.instructions > straight.instructions);
            detour.restore(checkpoint);
            assert_eq!(detour.instructions, straight.instructions);
            assert_eq!(detour.memory, straight.memory, "memory put back at {split}");
            straight.run(100_000).expect("finishes");
            detour.run(100_000).expect("finishes");
            assert_eq!(detour.dump(), straight.dump());
            assert_eq!(detour.memory, straight.memory);
            assert!(detour.events.iter().eq(straight.events.iter()));
            assert_eq!(detour.probe_texts, straight.probe_texts);
            assert_eq!(straight.probe_texts.len(), 40, "the loop ran to its end");
        }
    }

    #[test]
    fn a_committed_node_keeps_what_it_did_and_stops_journaling() {
        let mut node = busy_node();
        let checkpoint = node.checkpoint();
        node.run_until(300).expect("runs");
        assert!(!node.journal.saved.is_empty(), "writes were journaled");
        node.commit();
        drop(checkpoint);
        assert!(node.journal.saved.is_empty() && !node.journaling);
        assert!(node.journal.written.iter().all(|&w| w == 0));
        let mut straight = busy_node();
        straight.run_until(300).expect("runs");
        node.run_until(600).expect("runs");
        straight.run_until(600).expect("runs");
        assert!(
            node.journal.saved.is_empty(),
            "nothing journaled after the commit"
        );
        assert_eq!(node.dump(), straight.dump());
        assert_eq!(node.memory, straight.memory);
    }
}
