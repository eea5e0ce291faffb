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
use crate::model::{EventIdx, EventKind, NodeId, ProcessId, RegionId, Trace};

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
    /// Only the events inside a region's instances, its entry and exit included, sorted
    /// (`region=`).
    #[serde(default)]
    pub region_events: Option<Vec<EventIdx>>,
}

impl Filter {
    /// Reads `kind=send,arr node=0 process=A,B message=A>B time=10..50 region=MPI_Send`
    /// (any subset, any order).
    /// Processes, nodes and regions are named as the page shows them (quoted when the name
    /// holds a space or a comma, `process="task 1"`, or written as shown, `process=task 1`) or
    /// numbered; kinds use the pattern words or the kind names; times are ticks (`10..50`) or
    /// times with a unit (`80ms..120ms`, `1.5s..2s`, `250us`, `500ns`) on a clocked trace.
    /// An error says what would have worked: the names nearest to a misspelt one, the units.
    pub fn parse(text: &str, trace: &Trace) -> Result<Filter, PatternError> {
        let mut filter = Filter::default();
        let terms = split_terms(text)?;
        let mut k = 0;
        while k < terms.len() {
            let (here, term) = (terms[k].0, terms[k].1.clone());
            k += 1;
            let err = |message: String| PatternError {
                what: "filter".to_owned(),
                column: here,
                message,
            };
            let Some((key, value)) = term.split_once('=') else {
                return Err(err(format!(
                    "expected key=value, found {term:?} (quote names with spaces: process=\"task 1\")"
                )));
            };
            let mut value = value.to_owned();
            // A name written as shown, spaces and all (`process=task 1`): the following words
            // that are not terms of their own join the name while they spell one.
            if let Some(names) = names_of(key, trace) {
                while let Some((_, next)) = terms.get(k) {
                    if next.contains('=') || value.ends_with('"') {
                        break;
                    }
                    let candidate = format!("{value} {next}");
                    // The name being written: after the last comma (and `>` of a message).
                    let last = candidate
                        .rsplit([',', '>'])
                        .next()
                        .map(unquote)
                        .unwrap_or_default();
                    let spells = names.iter().any(|n| {
                        *n == last || n.starts_with(&format!("{last} ")) || n.starts_with(&last)
                    });
                    if !spells {
                        break;
                    }
                    value = candidate;
                    k += 1;
                }
            }
            let items: Vec<String> = split_outside_quotes(&value, ',')
                .into_iter()
                .filter(|s| !s.is_empty())
                .map(|s| unquote(&s))
                .collect();
            match key {
                "kind" => {
                    let kinds = items
                        .iter()
                        .map(|w| {
                            WORDS
                                .iter()
                                .find(|(k, word, _)| word == w || k.name() == w)
                                .map(|w| w.0)
                                .ok_or_else(|| {
                                    err(format!(
                                        "unknown event kind {w:?}; the kinds are {}",
                                        WORDS.map(|w| w.1).join(", ")
                                    ))
                                })
                        })
                        .collect::<Result<_, _>>()?;
                    filter.kinds = Some(kinds);
                }
                "node" => {
                    let names: Vec<&str> = trace.nodes.iter().map(|n| n.name.as_str()).collect();
                    let nodes = items
                        .iter()
                        .map(|w| find_named("node", &names, w).map(NodeId).map_err(&err))
                        .collect::<Result<_, _>>()?;
                    filter.nodes = Some(nodes);
                }
                "process" => {
                    let names: Vec<&str> =
                        trace.processes.iter().map(|p| p.name.as_str()).collect();
                    let processes = items
                        .iter()
                        .map(|w| {
                            find_named("process", &names, w)
                                .map(ProcessId)
                                .map_err(&err)
                        })
                        .collect::<Result<_, _>>()?;
                    filter.processes = Some(processes);
                }
                "region" => {
                    let names: Vec<&str> = trace.regions.iter().map(|r| r.name.as_str()).collect();
                    let regions = items
                        .iter()
                        .map(|w| find_named("region", &names, w).map(RegionId).map_err(&err))
                        .collect::<Result<Vec<_>, _>>()?;
                    filter.region_events = Some(events_in_regions(trace, &regions));
                }
                "message" => {
                    let names: Vec<&str> =
                        trace.processes.iter().map(|p| p.name.as_str()).collect();
                    let pairs = split_outside_quotes(&value, ',')
                        .into_iter()
                        .filter(|s| !s.is_empty())
                        .map(|w| {
                            let parts = split_outside_quotes(&w, '>');
                            let [from, to] = parts.as_slice() else {
                                return Err(err(format!(
                                    "expected message=SENDER>RECEIVER, found {w:?}"
                                )));
                            };
                            let one = |s: &str| {
                                find_named("process", &names, &unquote(s))
                                    .map(ProcessId)
                                    .map_err(&err)
                            };
                            Ok((one(from)?, one(to)?))
                        })
                        .collect::<Result<_, PatternError>>()?;
                    filter.messages = Some(pairs);
                }
                "time" => {
                    let (a, b) = value.split_once("..").ok_or_else(|| {
                        err("expected time=START..END, e.g. time=80ms..120ms or time=10..50 (ticks)"
                            .to_owned())
                    })?;
                    let a = if a.trim().is_empty() {
                        Time(0)
                    } else {
                        parse_time(a, trace).map_err(&err)?
                    };
                    let b = if b.trim().is_empty() {
                        Time(u64::MAX)
                    } else {
                        parse_time(b, trace).map_err(&err)?
                    };
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
                        "unknown key {key:?}; expected kind, process, node, region, message, time, pattern or motif"
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
            && [
                &self.pattern_events,
                &self.motif_events,
                &self.region_events,
            ]
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

/// The names a key's values are matched against (`None` for keys that take no names).
fn names_of<'t>(key: &str, trace: &'t Trace) -> Option<Vec<&'t str>> {
    match key {
        "process" | "message" => Some(trace.processes.iter().map(|p| p.name.as_str()).collect()),
        "node" => Some(trace.nodes.iter().map(|n| n.name.as_str()).collect()),
        "region" => Some(trace.regions.iter().map(|r| r.name.as_str()).collect()),
        _ => None,
    }
}

/// The filter's terms with their 1-based columns: split at spaces outside double quotes.
fn split_terms(text: &str) -> Result<Vec<(usize, String)>, PatternError> {
    let mut terms = Vec::new();
    let mut current = String::new();
    let (mut start, mut quote_at) = (1, None);
    for (i, c) in text.chars().enumerate() {
        let column = i + 1;
        match c {
            '"' => {
                quote_at = if quote_at.is_some() {
                    None
                } else {
                    Some(column)
                };
                current.push(c);
            }
            c if c.is_whitespace() && quote_at.is_none() => {
                if !current.is_empty() {
                    terms.push((start, std::mem::take(&mut current)));
                }
                start = column + 1;
            }
            c => current.push(c),
        }
    }
    if let Some(column) = quote_at {
        return Err(PatternError {
            what: "filter".to_owned(),
            column,
            message: "this quote is not closed: write process=\"task 1\"".to_owned(),
        });
    }
    if !current.is_empty() {
        terms.push((start, current));
    }
    Ok(terms)
}

/// `text` split at `separator` outside double quotes (the quotes kept).
fn split_outside_quotes(text: &str, separator: char) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in text.chars() {
        if c == '"' {
            quoted = !quoted;
        }
        if c == separator && !quoted {
            out.push(String::new());
        } else if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

/// A value without its double quotes.
fn unquote(text: &str) -> String {
    text.replace('"', "")
}

/// The index of the thing of `kind` named `w` among `names`: by its exact name, by its number,
/// or by its name in any case; otherwise an error that names the nearest names.
fn find_named(kind: &str, names: &[&str], w: &str) -> Result<u32, String> {
    if let Some(i) = names.iter().position(|n| *n == w) {
        return Ok(i as u32);
    }
    if let Some(n) = w
        .parse::<u32>()
        .ok()
        .filter(|&n| (n as usize) < names.len())
    {
        return Ok(n);
    }
    let lower = w.to_lowercase();
    let same_case: Vec<usize> = (0..names.len())
        .filter(|&i| names[i].to_lowercase() == lower)
        .collect();
    if let [i] = same_case.as_slice() {
        return Ok(*i as u32);
    }
    Err(no_such(kind, names, w))
}

/// The error for a name that is not there: the names that contain it or start like it, or
/// else the first few names and the numbers that work.
fn no_such(kind: &str, names: &[&str], w: &str) -> String {
    let lower = w.to_lowercase();
    let mut near: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| {
            let n = n.to_lowercase();
            !lower.is_empty() && (n.contains(&lower) || lower.contains(&n) && n.len() > 1)
        })
        .collect();
    near.sort_by_key(|n| (!n.to_lowercase().starts_with(&lower), n.len()));
    near.dedup();
    let quoted = |list: &[&str], and: &str| {
        let q: Vec<String> = list.iter().map(|n| format!("{n:?}")).collect();
        match q.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} {and} {last}", init.join(", ")),
        }
    };
    let spaces = |list: &[&str]| {
        if list.iter().any(|n| n.contains(' ') || n.contains(',')) {
            format!(" Quote names with spaces: {kind}=\"{}\".", list[0])
        } else {
            String::new()
        }
    };
    let plural = if kind == "process" { "processes" } else { "s" };
    let plural = if kind == "process" {
        plural.to_owned()
    } else {
        format!("{kind}{plural}")
    };
    if names.is_empty() {
        return format!("no {kind} {w:?}: this trace has no {plural}");
    }
    if !near.is_empty() {
        let shown = &near[..near.len().min(3)];
        return format!(
            "no {kind} {w:?} — did you mean {}?{}",
            quoted(shown, "or"),
            spaces(shown)
        );
    }
    let shown = &names[..names.len().min(3)];
    let more = if names.len() > 3 { ", …" } else { "" };
    format!(
        "no {kind} {w:?}: the {plural} are {}{more} ({} in all, or their numbers 0 to {}).{}",
        quoted(shown, "and"),
        names.len(),
        names.len() - 1,
        spaces(shown)
    )
}

/// A time of a filter: a tick count (`80`), or a time with a unit (`80ms`, `1.5s`, `250us`,
/// `250µs`, `500ns`) converted with the trace's clock.
fn parse_time(text: &str, trace: &Trace) -> Result<Time, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let per_second = match unit.trim() {
        "" => {
            return number.parse::<u64>().map(Time).map_err(|_| {
                format!(
                    "{text:?} is not a time: write ticks (80) or a time with a unit (80ms, 1.5s, 250us, 500ns)"
                )
            });
        }
        "s" => 1.0,
        "ms" => 1e3,
        "us" | "µs" | "μs" => 1e6,
        "ns" => 1e9,
        other => {
            return Err(format!(
                "{text:?}: unknown unit {other:?}; write s, ms, us (or µs) or ns, or plain ticks"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| format!("{text:?} is not a time: write it as 80ms or 1.5s"))?;
    let Some(tps) = trace.clock.ticks_per_second.filter(|&t| t > 0) else {
        return Err(format!(
            "{text:?}: this trace's times are plain ticks (it declares no clock), write time=80..120"
        ));
    };
    let ticks = (value / per_second * tps as f64).round();
    // Beyond the clock's range, the time is the clock's last tick.
    Ok(Time(if ticks >= u64::MAX as f64 {
        u64::MAX
    } else {
        ticks as u64
    }))
}

/// The events inside any instance of `regions` (their entries and exits included), sorted: per
/// process, the events from an entry of one of them to its matching exit (or the process's end).
fn events_in_regions(trace: &Trace, regions: &[RegionId]) -> Vec<EventIdx> {
    let e = &trace.events;
    let mut out = Vec::new();
    let mut stack: Vec<RegionId> = Vec::new();
    for p in trace.process_ids() {
        stack.clear();
        // How many of the open regions are wanted ones.
        let mut inside = 0usize;
        for i in trace.process_events(p) {
            let kind = e.kind()[i];
            let region = e.region().at(i);
            let mut keep = inside > 0;
            match (kind, region) {
                (EventKind::Enter, Some(r)) => {
                    stack.push(r);
                    if regions.contains(&r) {
                        inside += 1;
                        keep = true;
                    }
                }
                (EventKind::Leave, Some(r)) => {
                    if let Some(at) = stack.iter().rposition(|&o| o == r) {
                        let closed = stack
                            .get(at..)
                            .map_or(0, |s| s.iter().filter(|o| regions.contains(o)).count());
                        keep = keep || closed > 0;
                        inside = inside.saturating_sub(closed);
                        stack.truncate(at);
                    }
                }
                _ => {}
            }
            if keep {
                out.push(EventIdx(i as u32));
            }
        }
    }
    out.sort_unstable();
    out
}

/// The keys of the filter language, as completion offers them.
const KEYS: [&str; 8] = [
    "kind=", "process=", "node=", "region=", "message=", "time=", "pattern=", "motif=",
];

/// What the filter box offers while `text` is typed: `text` completed, at most `limit` of them.
/// A last word with no `=` completes to a key (`pro` → `process=`); after `process=`, `node=`,
/// `region=` or `kind=` (or after a comma in their lists) it completes to the names that start
/// like it, in any case, quoted when they hold a space or a comma (`process=ta` →
/// `process="task 1"`).
pub fn completions(text: &str, trace: &Trace, limit: usize) -> Vec<String> {
    // The last term starts after the last space outside quotes.
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => start = i + 1,
            _ => {}
        }
    }
    let (before, last) = text.split_at(start);
    let Some((key, value)) = last.split_once('=') else {
        let lower = last.to_lowercase();
        return KEYS
            .iter()
            .filter(|k| k.starts_with(&lower) && **k != last)
            .take(limit)
            .map(|k| format!("{before}{k}"))
            .collect();
    };
    let names: Vec<&str> = match key {
        "kind" => WORDS.iter().map(|w| w.1).collect(),
        _ => match names_of(key, trace) {
            Some(names) if key != "message" => names,
            _ => return Vec::new(),
        },
    };
    // The item being written: after the value's last comma.
    let (done, partial) = value.rsplit_once(',').map_or(("", value), |(a, b)| (a, b));
    let done = if done.is_empty() {
        String::new()
    } else {
        format!("{done},")
    };
    let partial = unquote(partial).to_lowercase();
    names
        .into_iter()
        .filter(|n| n.to_lowercase().starts_with(&partial))
        .take(limit)
        .map(|n| {
            let n = if n.contains([' ', ',', '"']) {
                format!("\"{}\"", n.replace('"', ""))
            } else {
                n.to_owned()
            };
            format!("{before}{key}={done}{n}")
        })
        .collect()
}
