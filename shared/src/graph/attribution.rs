//! What code a vertex's outgoing program edge runs in: the innermost region, and the phase.
//!
//! A phase is the innermost open region whose role is `phase`, or else the latest user probe of
//! the process (the founding thesis marks phases with `probe(READ_IMAGE, "reading image")`).

use std::collections::HashMap;

use crate::graph::execution::ExecutionGraph;
use crate::model::{EventIdx, EventKind, OptIds, RegionId, RegionRole, Trace};

/// Per-vertex region and phase, after the vertex's own event took effect.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    /// The innermost open region after each vertex.
    pub region: OptIds<RegionId>,
    /// The phase after each vertex, as an index into `phases`.
    pub phase: OptIds<u32>,
    /// Phase names.
    pub phases: Vec<String>,
}

impl Attribution {
    /// Walks every process in program order, keeping its region stack and latest probe.
    pub fn new(trace: &Trace, graph: &ExecutionGraph) -> Attribution {
        let n = trace.events.len();
        let e = &trace.events;
        let mut attribution = Attribution {
            region: OptIds::none(n),
            phase: OptIds::none(n),
            phases: Vec::new(),
        };
        let mut phase_ids: HashMap<String, u32> = HashMap::new();
        let mut phase_id = |name: String, phases: &mut Vec<String>| -> u32 {
            *phase_ids.entry(name).or_insert_with_key(|name| {
                phases.push(name.clone());
                phases.len() as u32 - 1
            })
        };
        // Each phase region's phase id, found once (not per event).
        let mut region_phase: Vec<Option<Option<u32>>> = vec![None; trace.regions.len()];
        // The open regions, each with the innermost phase open at or below it: the phase of an
        // event is then the top's, whatever the depth (no walk down the stack per event).
        let mut stack: Vec<(RegionId, Option<u32>)> = Vec::new();
        for process in trace.process_ids() {
            stack.clear();
            let mut probe_phase = None;
            for v in graph.program(process) {
                let i = v.index();
                match (e.kind()[i], e.region().at(i)) {
                    (EventKind::Enter, Some(r)) => {
                        let own = match region_phase.get_mut(r.index()) {
                            Some(Some(known)) => *known,
                            Some(slot) => {
                                let id = trace
                                    .regions
                                    .get(r.index())
                                    .filter(|region| region.role == RegionRole::Phase)
                                    .map(|region| {
                                        phase_id(region.name.clone(), &mut attribution.phases)
                                    });
                                *slot = Some(id);
                                id
                            }
                            None => None,
                        };
                        let below = stack.last().and_then(|top| top.1);
                        stack.push((r, own.or(below)));
                    }
                    // A leave closes the innermost open instance of its region; a leave
                    // without an enter changes nothing (validation reports it).
                    (EventKind::Leave, Some(r)) => {
                        if let Some(pos) = stack.iter().rposition(|&(open, _)| open == r) {
                            stack.truncate(pos);
                        }
                    }
                    (EventKind::Probe, _) => {
                        let name = match e.text().at(i).and_then(|s| trace.string(s)) {
                            Some(text) => text.to_owned(),
                            None => format!("probe {}", e.tag().at(i)),
                        };
                        probe_phase = Some(phase_id(name, &mut attribution.phases));
                    }
                    _ => {}
                }
                let top = stack.last();
                attribution.region.set(i, top.map(|t| t.0));
                attribution
                    .phase
                    .set(i, top.and_then(|t| t.1).or(probe_phase));
            }
        }
        attribution
    }

    /// The phase name of a vertex's outgoing edges.
    pub fn phase_name(&self, v: EventIdx) -> Option<&str> {
        let id = self.phase.get(v.index())??;
        self.phases.get(id as usize).map(String::as_str)
    }
}
