//! Collective operations: regions whose role is a collective, matched into instances.
//!
//! The k-th enter of a collective region on a communicator (the enter event's `tag`) by each
//! process forms instance k; its root (for one-to-all and all-to-one) is the `peer` of the enter
//! events, or the lowest-numbered member.

use std::collections::HashMap;

use crate::model::{EventIdx, EventKind, ProcessId, RegionId, RegionRole, Trace};

/// One instance of a collective operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collective {
    /// The region (`MPI_Allreduce`, …).
    pub region: RegionId,
    /// Its role.
    pub role: RegionRole,
    /// The communicator.
    pub communicator: u32,
    /// Which occurrence on that communicator (0-based).
    pub sequence: u32,
    /// The root, for rooted collectives.
    pub root: Option<ProcessId>,
    /// Each member's enter and, when recorded, leave.
    pub members: Vec<(ProcessId, EventIdx, Option<EventIdx>)>,
}

impl Collective {
    /// Whether a member waits for the others (its leave depends on the hub).
    pub fn is_target(&self, process: ProcessId) -> bool {
        match self.role {
            RegionRole::OneToAll => Some(process) != self.root,
            RegionRole::AllToOne => Some(process) == self.root,
            _ => true,
        }
    }

    /// Whether a member's enter releases the others (it feeds the hub).
    pub fn is_source(&self, process: ProcessId) -> bool {
        match self.role {
            RegionRole::OneToAll => Some(process) == self.root,
            RegionRole::AllToOne => Some(process) != self.root,
            _ => true,
        }
    }
}

/// Every collective instance, in (region, communicator, sequence) order.
pub fn collectives(trace: &Trace) -> Vec<Collective> {
    let e = &trace.events;
    let mut instances: Vec<Collective> = Vec::new();
    let mut index: HashMap<(RegionId, u32, u32), usize> = HashMap::new();
    let mut stack: Vec<(RegionId, Option<usize>, usize)> = Vec::new();
    for process in trace.process_ids() {
        stack.clear();
        let mut counts: HashMap<(RegionId, u32), u32> = HashMap::new();
        for i in trace.process_events(process) {
            match (e.kind()[i], e.region().at(i)) {
                (EventKind::Enter, Some(r)) => {
                    let role = trace.regions.get(r.index()).map(|r| r.role);
                    let instance = role.filter(|role| role.is_collective()).map(|role| {
                        let communicator = e.tag().at(i);
                        let count = counts.entry((r, communicator)).or_insert(0);
                        let sequence = *count;
                        *count += 1;
                        let at = *index.entry((r, communicator, sequence)).or_insert_with(|| {
                            instances.push(Collective {
                                region: r,
                                role,
                                communicator,
                                sequence,
                                root: None,
                                members: Vec::new(),
                            });
                            instances.len() - 1
                        });
                        let c = &mut instances[at];
                        if c.root.is_none() {
                            c.root = e.peer().at(i);
                        }
                        c.members.push((process, EventIdx(i as u32), None));
                        at
                    });
                    stack.push((r, instance, i));
                }
                (EventKind::Leave, Some(r)) => {
                    if let Some(pos) = stack.iter().rposition(|&(open, _, _)| open == r) {
                        if let Some(at) = stack[pos].1
                            && let Some(member) =
                                instances[at].members.iter_mut().rfind(|m| m.0 == process)
                        {
                            member.2 = Some(EventIdx(i as u32));
                        }
                        stack.truncate(pos);
                    }
                }
                _ => {}
            }
        }
    }
    for c in &mut instances {
        if c.root.is_none() && matches!(c.role, RegionRole::OneToAll | RegionRole::AllToOne) {
            c.root = c.members.iter().map(|m| m.0).min();
        }
    }
    instances.sort_by_key(|c| (c.region, c.communicator, c.sequence));
    instances
}
