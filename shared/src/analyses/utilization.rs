//! CPU utilization per node and link utilization per link direction over any time window:
//! from the trace's samples when it carries them, otherwise from busy intervals (computing spans
//! for CPUs, message transits between the link's two nodes for links).

use serde::{Deserialize, Serialize};

use crate::graph::context::Context;
use crate::graph::timeline::StepFn;
use crate::model::time::Time;
use crate::model::{Direction, LinkId, NodeId};

/// Where a utilization figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The trace's utilization samples.
    Samples,
    /// Busy intervals derived from the events.
    Events,
}

/// A utilization over a window, from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    /// The busy fraction of the window.
    pub value: f64,
    /// Where it comes from.
    pub source: Source,
}

/// The CPU utilization of `node` over [start, end).
pub fn cpu_utilization(cx: &Context<'_>, node: NodeId, (start, end): (Time, Time)) -> Utilization {
    let len = end.0.saturating_sub(start.0);
    let sampled = cx.trace.cpu_samples.iter().any(|s| s.node == node);
    let busy = cx.timeline.node_busy_time(node, start.0, end.0);
    Utilization {
        value: if len == 0 { 0.0 } else { busy / len as f64 },
        source: if sampled {
            Source::Samples
        } else {
            Source::Events
        },
    }
}

/// The utilization of one direction of a link over [start, end).
pub fn link_utilization(
    cx: &Context<'_>,
    link: LinkId,
    direction: Direction,
    (start, end): (Time, Time),
) -> Utilization {
    let len = end.0.saturating_sub(start.0);
    let trace = cx.trace;
    let samples: Vec<(u64, f64)> = trace
        .link_samples
        .iter()
        .filter(|s| s.link == link && s.direction == direction)
        .flat_map(|s| {
            let u = f64::from(s.sample.utilization);
            [(s.sample.start.0, u), (s.sample.end.0, -u)]
        })
        .collect();
    let (busy, source) = if samples.is_empty() {
        (
            transit_busy(cx, link, direction).integral(start.0, end.0),
            Source::Events,
        )
    } else {
        (
            StepFn::from_deltas(samples).integral(start.0, end.0),
            Source::Samples,
        )
    };
    Utilization {
        value: if len == 0 {
            0.0
        } else {
            (busy / len as f64).min(1.0)
        },
        source,
    }
}

/// 1 while any message travels from the link's source node to its destination node.
fn transit_busy(cx: &Context<'_>, link: LinkId, direction: Direction) -> StepFn {
    let trace = cx.trace;
    let Some(l) = trace.links.get(link.index()) else {
        return StepFn::default();
    };
    let (from, to) = match direction {
        Direction::AToB => (l.a.node, l.b.node),
        Direction::BToA => (l.b.node, l.a.node),
    };
    let node_of = |i: usize| {
        trace
            .processes
            .get(trace.events.process()[i].index())
            .map(|p| p.node)
    };
    let times = trace.events.time();
    let deltas = cx
        .pairing
        .messages
        .iter()
        .filter(|m| node_of(m.send.index()) == Some(from) && node_of(m.arrival.index()) == Some(to))
        .filter(|m| times[m.arrival.index()] > times[m.send.index()])
        .flat_map(|m| {
            [
                (times[m.send.index()].0, 1.0),
                (times[m.arrival.index()].0, -1.0),
            ]
        })
        .collect();
    StepFn::from_deltas(deltas).map(|n| if n > 0.0 { 1.0 } else { 0.0 })
}
