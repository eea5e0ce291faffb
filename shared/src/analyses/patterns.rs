//! Pattern search and filters.
//!
//! Patterns (SIMPLE's activity finding): a regular expression over a process's sequence of event
//! kinds, written with the words `init exit send recv arr probe enter leave`, e.g.
//! `(send recv)+`; `.` stands for any event. Matches are reported as event-index ranges.
//!
//! Filters (in the spirit of IPPM's templates): event kinds, nodes, processes, messages between
//! two processes and a time range, written as `kind=send,arr node=0 process=A,B
//! message=A>B time=10..50`, and the events of pattern matches (`pattern=(send,arr)+`, the
//! words comma-separated) or of message motifs (`motif=request-response`, `motif=chain:3`,
//! `motif=broadcast:3`); every view can apply one.

use serde::{Deserialize, Serialize};

use crate::model::time::Time;
use crate::model::{EventIdx, EventKind, NodeId, ProcessId, Trace};

/// The pattern word of each event kind, and the letter it is compiled to.
const WORDS: [(EventKind, &str, char); 9] = [
    (EventKind::ProcInit, "init", 'i'),
    (EventKind::ProcExit, "exit", 'x'),
    (EventKind::MsgSend, "send", 's'),
    (EventKind::RecvCall, "recv", 'r'),
    (EventKind::MsgArr, "arr", 'a'),
    (EventKind::Probe, "probe", 'p'),
    (EventKind::Enter, "enter", 'e'),
    (EventKind::Leave, "leave", 'l'),
    (EventKind::RecvPost, "post", 'q'),
];

fn letter(kind: EventKind) -> char {
    WORDS.iter().find(|w| w.0 == kind).map_or('?', |w| w.2)
}

/// A pattern or filter that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{what}, column {column}: {message}")]
pub struct PatternError {
    /// `pattern` or `filter`.
    pub what: String,
    /// 1-based column of the problem.
    pub column: usize,
    /// What was expected.
    pub message: String,
}

/// A compiled event-kind pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: regex::Regex,
}

/// One match: events `start..start + len` of a process's recorded sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternMatch {
    /// The process.
    pub process: ProcessId,
    /// Index of the first matched event within the process's sequence.
    pub start: usize,
    /// Number of events matched.
    pub len: usize,
    /// The first matched event.
    pub first_event: EventIdx,
}

impl Pattern {
    /// Compiles a pattern written with kind words.
    pub fn new(text: &str) -> Result<Pattern, PatternError> {
        let mut compiled = String::new();
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_ascii_alphabetic() {
                let len = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic() || **c == '_')
                    .count();
                let word: String = chars[i..i + len].iter().collect();
                let Some(&(_, _, l)) = WORDS.iter().find(|w| w.1 == word) else {
                    let known: Vec<&str> = WORDS.iter().map(|w| w.1).collect();
                    return Err(PatternError {
                        what: "pattern".to_owned(),
                        column: i + 1,
                        message: format!(
                            "unknown event word {word:?}; expected one of {}",
                            known.join(", ")
                        ),
                    });
                };
                compiled.push(l);
                i += len;
            } else if c.is_whitespace() {
                i += 1;
            } else {
                compiled.push(c);
                i += 1;
            }
        }
        let regex = regex::Regex::new(&compiled).map_err(|e| PatternError {
            what: "pattern".to_owned(),
            column: 1,
            message: format!("not a regular expression: {e}"),
        })?;
        Ok(Pattern { regex })
    }

    /// Every non-overlapping match in every process's recorded sequence.
    pub fn find(&self, trace: &Trace) -> Vec<PatternMatch> {
        let mut out = Vec::new();
        let mut sequence = String::new();
        for process in trace.process_ids() {
            let range = trace.process_events(process);
            sequence.clear();
            sequence.extend(
                trace.events.kind()[range.clone()]
                    .iter()
                    .map(|&k| letter(k)),
            );
            // Every letter is one byte, so byte offsets are event offsets.
            for m in self.regex.find_iter(&sequence).filter(|m| !m.is_empty()) {
                out.push(PatternMatch {
                    process,
                    start: m.start(),
                    len: m.len(),
                    first_event: EventIdx((range.start + m.start()) as u32),
                });
            }
        }
        out
    }
}

/// Which events a view shows.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Filter {
    /// Event kinds kept (all when `None`).
    pub kinds: Option<Vec<EventKind>>,
    /// Nodes kept.
    pub nodes: Option<Vec<NodeId>>,
    /// Processes kept.
    pub processes: Option<Vec<ProcessId>>,
    /// The time range kept, [start, end].
    pub window: Option<(Time, Time)>,
    /// Messages kept, as (sender, receiver): their sends and their arrivals.
    pub messages: Option<Vec<(ProcessId, ProcessId)>>,
    /// Only the events of a pattern's matches, sorted (`pattern=`).
    #[serde(default)]
    pub pattern_events: Option<Vec<EventIdx>>,
    /// Only the events of a motif's instances, sorted (`motif=`).
    #[serde(default)]
    pub motif_events: Option<Vec<EventIdx>>,
}

impl Filter {
    /// Reads `kind=send,arr node=0 process=A,B message=A>B time=10..50` (any subset, any
    /// order).
    /// Processes are named or numbered; kinds use the pattern words or the kind names.
    pub fn parse(text: &str, trace: &Trace) -> Result<Filter, PatternError> {
        let mut filter = Filter::default();
        let mut column = 1;
        for term in text.split(' ') {
            let here = column;
            column += term.chars().count() + 1;
            if term.is_empty() {
                continue;
            }
            let err = |message: String| PatternError {
                what: "filter".to_owned(),
                column: here,
                message,
            };
            let Some((key, value)) = term.split_once('=') else {
                return Err(err(format!("expected key=value, found {term:?}")));
            };
            let items = value.split(',').filter(|s| !s.is_empty());
            // A process by name or number.
            let process = |w: &str| {
                trace
                    .processes
                    .iter()
                    .position(|p| p.name == w)
                    .map(|i| i as u32)
                    .or_else(|| {
                        w.parse::<u32>()
                            .ok()
                            .filter(|&n| (n as usize) < trace.processes.len())
                    })
                    .map(ProcessId)
                    .ok_or_else(|| err(format!("no process {w:?}")))
            };
            match key {
                "kind" => {
                    let kinds = items
                        .map(|w| {
                            WORDS
                                .iter()
                                .find(|(k, word, _)| *word == w || k.name() == w)
                                .map(|w| w.0)
                                .ok_or_else(|| err(format!("unknown event kind {w:?}")))
                        })
                        .collect::<Result<_, _>>()?;
                    filter.kinds = Some(kinds);
                }
                "node" => {
                    let nodes = items
                        .map(|w| {
                            w.parse::<u32>()
                                .ok()
                                .filter(|&n| (n as usize) < trace.nodes.len())
                                .or_else(|| {
                                    trace
                                        .nodes
                                        .iter()
                                        .position(|n| n.name == w)
                                        .map(|i| i as u32)
                                })
                                .map(NodeId)
                                .ok_or_else(|| err(format!("no node {w:?}")))
                        })
                        .collect::<Result<_, _>>()?;
                    filter.nodes = Some(nodes);
                }
                "process" => {
                    let processes = items.map(process).collect::<Result<_, _>>()?;
                    filter.processes = Some(processes);
                }
                "message" => {
                    let pairs = items
                        .map(|w| {
                            let (from, to) = w.split_once('>').ok_or_else(|| {
                                err(format!("expected message=SENDER>RECEIVER, found {w:?}"))
                            })?;
                            Ok((process(from)?, process(to)?))
                        })
                        .collect::<Result<_, PatternError>>()?;
                    filter.messages = Some(pairs);
                }
                "time" => {
                    let (a, b) = value
                        .split_once("..")
                        .ok_or_else(|| err("expected time=START..END".to_owned()))?;
                    let parse = |s: &str| {
                        s.parse::<u64>()
                            .map(Time)
                            .map_err(|_| err(format!("{s:?} is not a tick count")))
                    };
                    let (a, b) = (parse(a)?, parse(b)?);
                    if b < a {
                        return Err(err("the time range ends before it starts".to_owned()));
                    }
                    filter.window = Some((a, b));
                }
                "pattern" => {
                    // Words are comma-separated in a filter (a space separates its terms).
                    let pattern = Pattern::new(&value.replace(',', " "))
                        .map_err(|e| err(format!("pattern {value:?}: {}", e.message)))?;
                    let mut events: Vec<EventIdx> = pattern
                        .find(trace)
                        .into_iter()
                        .flat_map(|m| {
                            (m.first_event.0..m.first_event.0 + m.len as u32).map(EventIdx)
                        })
                        .collect();
                    events.sort_unstable();
                    filter.pattern_events = Some(events);
                }
                "motif" => {
                    let motif = crate::analyses::motifs::Motif::parse(&value.replace(':', " "))
                        .map_err(|e| err(format!("motif {value:?}: {e}")))?;
                    let pairing = crate::graph::pairing::pair_messages(trace);
                    let mut events: Vec<EventIdx> =
                        crate::analyses::motifs::find(trace, &pairing, motif)
                            .into_iter()
                            .flat_map(|m| m.events)
                            .collect();
                    events.sort_unstable();
                    events.dedup();
                    filter.motif_events = Some(events);
                }
                _ => {
                    return Err(err(format!(
                        "unknown key {key:?}; expected kind, node, process, message, time, pattern or motif"
                    )));
                }
            }
        }
        Ok(filter)
    }

    /// Whether event `i` passes.
    pub fn matches(&self, trace: &Trace, i: EventIdx) -> bool {
        let e = &trace.events;
        let Some(&process) = e.process().get(i.index()) else {
            return false;
        };
        let node = trace.processes.get(process.index()).map(|p| p.node);
        self.kinds
            .as_ref()
            .is_none_or(|k| k.contains(&e.kind()[i.index()]))
            && self.processes.as_ref().is_none_or(|p| p.contains(&process))
            && self
                .nodes
                .as_ref()
                .is_none_or(|n| node.is_some_and(|node| n.contains(&node)))
            && self
                .window
                .is_none_or(|(a, b)| (a..=b).contains(&e.time()[i.index()]))
            && [&self.pattern_events, &self.motif_events]
                .into_iter()
                .all(|events| events.as_ref().is_none_or(|v| v.binary_search(&i).is_ok()))
            && self.messages.as_ref().is_none_or(|pairs| {
                let peer = e.peer().at(i.index());
                match (e.kind()[i.index()], peer) {
                    (EventKind::MsgSend, Some(to)) => pairs.contains(&(process, to)),
                    (EventKind::MsgArr, Some(from)) => pairs.contains(&(from, process)),
                    _ => false,
                }
            })
    }

    /// Every event that passes, in index order.
    pub fn apply(&self, trace: &Trace) -> Vec<EventIdx> {
        (0..trace.events.len() as u32)
            .map(EventIdx)
            .filter(|&i| self.matches(trace, i))
            .collect()
    }
}
