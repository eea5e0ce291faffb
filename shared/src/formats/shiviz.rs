//! ShiViz / GoVector logs: events with vector clocks, parsed with a user-supplied regular
//! expression whose named groups are `host`, `clock` (a JSON object of counters) and `event`.
//!
//! The expression is applied as ShiViz's `LogParser` applies it: not anchored, every match in
//! turn (a clock line may end in spaces, as Voldemort's do). It is the one given (an import
//! option, or an `expression.txt` beside the log in a multi-file import), else the log's own
//! first line when that line is an expression with a `host` group, as in the files ShiViz
//! uploads (the second line, the execution delimiter, is skipped). Otherwise three layouts are
//! tried, and the one under which every host's own counters run 1, 2, 3, … (then the one with
//! the most events) is kept: Akka's `[INFO] [date] [dispatcher] [akka://…/user/HOST] {clock}
//! event`, GoVector's two-line `HOST {clock}` / `event`, and the same two lines the other way
//! round (`event` / `HOST {clock}`, as Voldemort and SimpleDB log). Lines the expression does
//! not match (no clock) are skipped and counted.
//!
//! A leading byte-order mark is dropped and line ends are read as `\n` (`\r\n` and `\r` alike),
//! as the browser's text area gives ShiViz a log; errors still name the byte of the file.
//!
//! Messages come from the clocks as ShiViz derives them: for each event, every other host whose
//! entry increased since the host's previous event names a parent, the event on that host with
//! that counter; parents implied by another parent's clock are dropped (found in decreasing
//! clock sum against the entrywise maximum of the kept ones: linear in the clock entries, not
//! quadratic in the hosts). Clocks are sorted (host id, counter) arrays. Each parent → child is a
//! message. An event becomes its arrivals, a probe with its text, then its sends; times are
//! Lamport clocks (the logs have no common physical time).

use std::collections::{BTreeMap, HashMap};

use crate::model::error::TraceError;
use crate::model::time::{Clock, Time};
use crate::model::{EventKind, EventRecord, ProcessId, Trace, TraceBuilder};

/// The format's name.
pub const FORMAT_NAME: &str = "shiviz";

/// Akka's log layout (ShiViz's example).
pub const AKKA_REGEX: &str = r"\[\w+\] \[(?<date>([^ ]+ [^ ]+))\] [^ ]+ \[akka://Broadcast/user/(?<host>\w+)\] (?<clock>.*\}) (?<event>.*)";
/// GoVector's two-line layout.
pub const GOVECTOR_REGEX: &str = r"(?<host>\S*) (?<clock>{.*})\n(?<event>.*)";
/// The two-line layout with the event first (ShiViz's SimpleDB and Voldemort examples).
pub const EVENT_FIRST_REGEX: &str = r"(?<event>.*)\n(?<host>\S*) (?<clock>{.*})";

/// The name of the file that gives a log its expression in a multi-file import.
pub const EXPRESSION_FILE: &str = "expression.txt";

/// A log as ShiViz reads it: without a byte-order mark, every line end a `\n`; and the way
/// back from an offset in that text to the byte of the file.
struct Source<'a> {
    input: &'a [u8],
    text: std::borrow::Cow<'a, str>,
    /// The length of the byte-order mark dropped.
    start: usize,
    /// Where a `\r` was dropped before a `\n`: the offset of that `\n` in `text`.
    removed: Vec<usize>,
}

impl<'a> Source<'a> {
    fn new(input: &'a [u8]) -> Result<Source<'a>, TraceError> {
        let start = if input.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let text = std::str::from_utf8(&input[start..]).map_err(|e| {
            TraceError::at_offset(
                FORMAT_NAME,
                input,
                start + e.valid_up_to(),
                "expected UTF-8 text",
            )
        })?;
        if !text.contains('\r') {
            return Ok(Source {
                input,
                text: std::borrow::Cow::Borrowed(text),
                start,
                removed: Vec::new(),
            });
        }
        let mut out = String::with_capacity(text.len());
        let mut removed = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\r' {
                if chars.peek() == Some(&'\n') {
                    removed.push(out.len());
                } else {
                    out.push('\n');
                }
            } else {
                out.push(c);
            }
        }
        Ok(Source {
            input,
            text: std::borrow::Cow::Owned(out),
            start,
            removed,
        })
    }

    /// The byte of the file at `offset` of the text.
    fn offset(&self, offset: usize) -> usize {
        self.start + offset + self.removed.partition_point(|&p| p <= offset)
    }

    fn error(&self, offset: usize, message: impl Into<String>) -> TraceError {
        TraceError::at_offset(FORMAT_NAME, self.input, self.offset(offset), message)
    }
}

/// Whether a line is a ShiViz expression: it names the groups `host`, `clock` and `event`.
fn is_expression(line: &str) -> bool {
    ["host", "clock", "event"]
        .iter()
        .all(|g| line.contains(&format!("(?<{g}>")) || line.contains(&format!("(?P<{g}>")))
}

/// Whether the text looks like a ShiViz log: a leading expression with `host`, `clock` and
/// `event` groups, or a JSON vector clock in one of the first lines.
pub fn looks_like(text: &[u8]) -> bool {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let head = String::from_utf8_lossy(&text[..text.len().min(2048)]);
    head.lines().next().is_some_and(is_expression)
        || head.lines().take(4).any(|l| {
            let clock = l
                .find("{\"")
                .and_then(|s| l[s..].find('}').map(|e| &l[s..s + e + 1]));
            clock.is_some_and(|c| serde_json::from_str::<BTreeMap<String, u64>>(c).is_ok())
        })
}

struct Parsed {
    /// The host, as a name id.
    host: u32,
    /// The vector clock: (name id, counter), sorted by name id.
    clock: Vec<(u32, u64)>,
    text: String,
    offset: usize,
}

/// Every name a log mentions (its hosts and the keys of its clocks), each with an id.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }
}

/// A counter in a sorted clock (0 when the clock has no entry for `host`).
fn entry(clock: &[(u32, u64)], host: u32) -> u64 {
    clock
        .binary_search_by_key(&host, |e| e.0)
        .map_or(0, |k| clock[k].1)
}

/// What the expression found: events, names, the hosts in order of their first event, how
/// many non-empty lines the matches cover, and where the first text no match covers is.
type Matches = (Vec<Parsed>, Names, Vec<u32>, usize, Option<usize>);

/// A ShiViz expression (JavaScript syntax) as ShiViz compiles it: multi-line (`^` and `$` at
/// line ends), and not anchored (a match may end before its line does).
fn compile(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::Regex::new(&format!("(?m){}", from_javascript(pattern)))
}

/// Reads a ShiViz log with `pattern`, or the file's own or a default layout when `None`.
pub fn parse(
    input: &[u8],
    pattern: Option<&str>,
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<(Trace, Vec<String>), TraceError> {
    let source = Source::new(input)?;
    let text: &str = &source.text;
    let first_end = text.find('\n').unwrap_or(text.len());
    let first = &text[..first_end];
    let (body_start, own) = if is_expression(first) {
        // The second line is the execution delimiter.
        let second_end = text[first_end..]
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == '\n')
            .map_or(text.len(), |(i, _)| first_end + i + 1);
        (second_end.min(text.len()), Some(first.trim()))
    } else {
        (0, None)
    };
    // ShiViz reads the log trimmed: a clock line at the very end has no event line after it.
    let body = text[body_start..].trim_end();
    let body_start = body_start + (body.len() - body.trim_start().len());
    let body = body.trim_start();
    // The known layouts are compiled once per process; a log's own expression per log.
    static KNOWN: std::sync::LazyLock<Vec<Result<regex::Regex, regex::Error>>> =
        std::sync::LazyLock::new(|| {
            [AKKA_REGEX, GOVECTOR_REGEX, EVENT_FIRST_REGEX]
                .map(compile)
                .to_vec()
        });
    let own_regex;
    let candidates: Vec<&Result<regex::Regex, regex::Error>> = match pattern.or(own) {
        Some(p) => {
            own_regex = compile(p.trim());
            vec![&own_regex]
        }
        None => KNOWN.iter().collect(),
    };
    // The layout kept: consistent clocks first, then the most events (the first on a tie).
    let mut best: Option<(bool, Matches)> = None;
    for candidate in candidates {
        let regex = candidate.as_ref().map_err(|e| {
            source.error(
                0,
                format!("expected a regular expression with groups host, clock and event: {e}"),
            )
        })?;
        for group in ["host", "clock", "event"] {
            if !regex.capture_names().flatten().any(|n| n == group) {
                return Err(source.error(0, format!("the expression has no named group {group:?}")));
            }
        }
        let found = matches(&source, body, body_start, regex, budget)?;
        let consistent = !found.0.is_empty() && by_own_counter(&found.0, &found.1).is_ok();
        if best
            .as_ref()
            .is_none_or(|(c, b)| (consistent, found.0.len()) > (*c, b.0.len()))
        {
            best = Some((consistent, found));
        }
    }
    let Some((_, found)) = best.filter(|b| !b.1.0.is_empty()) else {
        return Err(source.error(
            body_start,
            "expected log lines with a host, a JSON vector clock and an event",
        ));
    };
    let unmatched = body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
        .saturating_sub(found.3);
    build(&source, found, unmatched, fallback_name)
}

/// Reads a log given with its expression: two files, one named [`EXPRESSION_FILE`] whose first
/// line is the expression (a log that does not carry its own, such as ShiViz's examples), and
/// the log. `None` when the files are not that.
pub fn parse_with_sidecar(
    files: &std::collections::BTreeMap<String, Vec<u8>>,
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<Option<(Trace, Vec<String>)>, TraceError> {
    let is_sidecar = |path: &str| path.rsplit('/').next() == Some(EXPRESSION_FILE);
    let (Some((_, expression)), 2) = (files.iter().find(|(p, _)| is_sidecar(p)), files.len())
    else {
        return Ok(None);
    };
    let Some((_, log)) = files.iter().find(|(p, _)| !is_sidecar(p)) else {
        return Ok(None);
    };
    let expression = String::from_utf8_lossy(expression);
    let expression = expression.trim_start_matches('\u{feff}');
    let line = expression.lines().next().unwrap_or("").trim();
    parse(log, Some(line), fallback_name, budget).map(Some)
}

/// Each host's events in the order of its own counter, which must run 1, 2, 3, …; or the
/// first event out of that order: (event, host, the counter expected).
fn by_own_counter(events: &[Parsed], names: &Names) -> Result<Vec<Vec<usize>>, (usize, u32, u64)> {
    let mut by_host: Vec<Vec<usize>> = vec![Vec::new(); names.names.len()];
    for (i, e) in events.iter().enumerate() {
        by_host[e.host as usize].push(i);
    }
    let own = |i: usize| entry(&events[i].clock, events[i].host);
    for (h, list) in by_host.iter_mut().enumerate() {
        list.sort_by_key(|&i| own(i));
        for (k, &i) in list.iter().enumerate() {
            if own(i) != k as u64 + 1 {
                return Err((i, h as u32, k as u64 + 1));
            }
        }
    }
    Ok(by_host)
}

/// A JavaScript expression in Rust's syntax: braces that are not a quantifier `{n}`, `{n,}` or
/// `{n,m}` are literals in JavaScript and must be escaped for Rust.
pub fn from_javascript(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut quantifier_open = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                out.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '{' if !in_class => {
                let rest: String = chars[i + 1..].iter().take_while(|&&c| c != '}').collect();
                let closes = chars.len() > i + 1 + rest.len();
                let is_quantifier = closes && {
                    let (a, b) = rest.split_once(',').unwrap_or((rest.as_str(), ""));
                    !a.is_empty()
                        && a.chars().all(|c| c.is_ascii_digit())
                        && b.chars().all(|c| c.is_ascii_digit())
                };
                if is_quantifier {
                    quantifier_open = true;
                } else {
                    out.push_str("\\{");
                    i += 1;
                    continue;
                }
            }
            '}' if !in_class => {
                if quantifier_open {
                    quantifier_open = false;
                } else {
                    out.push_str("\\}");
                    i += 1;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Every match of the expression.
fn matches(
    source: &Source<'_>,
    body: &str,
    base: usize,
    regex: &regex::Regex,
    budget: &super::budget::Budget,
) -> Result<Matches, TraceError> {
    let mut names = Names::default();
    let mut hosts: Vec<u32> = Vec::new();
    let mut is_host: Vec<bool> = Vec::new();
    let mut events = Vec::new();
    let mut covered = 0;
    // The first non-blank text between matches (a line the expression did not read).
    let mut first_gap = None;
    let mut gap_check = |from: usize, to: usize| {
        let gap = &body[from..to];
        if first_gap.is_none()
            && let Some(at) = gap.find(|c: char| !c.is_whitespace())
        {
            first_gap = Some(base + from + at);
        }
    };
    let mut last_end = 0;
    for caps in regex.captures_iter(body) {
        let whole = caps.get(0).map_or(0..0, |m| m.range());
        let offset = base + whole.start;
        budget.check(
            super::budget::Limit::Events,
            events.len() as u64 + 1,
            FORMAT_NAME,
            source.input,
            source.offset(offset),
        )?;
        let host = caps.name("host").map_or("", |m| m.as_str());
        let clock_text = caps.name("clock").map_or("", |m| m.as_str());
        let raw: BTreeMap<std::borrow::Cow<'_, str>, u64> = serde_json::from_str(clock_text)
            .map_err(|e| {
                source.error(
                    base + caps.name("clock").map_or(whole.start, |m| m.start()),
                    format!("expected a JSON vector clock {{\"host\": counter, …}}: {e}"),
                )
            })?;
        let mut clock: Vec<(u32, u64)> = raw.iter().map(|(k, &c)| (names.id(k), c)).collect();
        clock.sort_unstable_by_key(|e| e.0);
        let id = names.id(host);
        is_host.resize(names.names.len(), false);
        if !is_host[id as usize] {
            budget.check(
                super::budget::Limit::Processes,
                hosts.len() as u64 + 1,
                FORMAT_NAME,
                source.input,
                source.offset(offset),
            )?;
            is_host[id as usize] = true;
            hosts.push(id);
        }
        gap_check(last_end, whole.start);
        last_end = whole.end;
        covered += body[whole].lines().count().max(1);
        events.push(Parsed {
            host: id,
            clock,
            text: caps.name("event").map_or("", |m| m.as_str()).to_owned(),
            offset,
        });
    }
    gap_check(last_end, body.len());
    Ok((events, names, hosts, covered, first_gap))
}

/// The parents of each event, as ShiViz derives them: the events on other hosts whose
/// counters this event's clock raised since its host's previous event, less those another
/// parent's clock implies. Candidates are taken in decreasing clock sum (whoever implies a
/// candidate comes before it), each against the entrywise maximum of the parents kept so far;
/// the work is the clock entries read, not their square.
fn parents_of(events: &[Parsed], by_host: &[Vec<usize>], n_names: usize) -> Vec<Vec<usize>> {
    let at = |host: u32, counter: u64| -> Option<usize> {
        by_host
            .get(host as usize)?
            .get(counter.checked_sub(1)? as usize)
            .copied()
    };
    let sums: Vec<u128> = events
        .iter()
        .map(|e| e.clock.iter().map(|c| u128::from(c.1)).sum())
        .collect();
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
    let mut reach = vec![0u64; n_names];
    let mut touched: Vec<u32> = Vec::new();
    let mut candidates: Vec<(usize, u32, u64)> = Vec::new();
    for (h, list) in by_host.iter().enumerate() {
        let mut previous: &[(u32, u64)] = &[];
        for &i in list {
            let clock = &events[i].clock;
            candidates.clear();
            let mut k = 0;
            for &(g, c) in clock {
                while k < previous.len() && previous[k].0 < g {
                    k += 1;
                }
                let before = previous.get(k).filter(|p| p.0 == g).map_or(0, |p| p.1);
                if g as usize != h
                    && c > before
                    && let Some(event) = at(g, c)
                {
                    candidates.push((event, g, c));
                }
            }
            candidates.sort_unstable_by_key(|&(event, _, _)| std::cmp::Reverse(sums[event]));
            for &(event, g, c) in &candidates {
                if reach[g as usize] >= c {
                    continue;
                }
                parents[i].push(event);
                for &(gg, cc) in &events[event].clock {
                    let r = &mut reach[gg as usize];
                    if *r < cc {
                        if *r == 0 {
                            touched.push(gg);
                        }
                        *r = cc;
                    }
                }
            }
            for g in touched.drain(..) {
                reach[g as usize] = 0;
            }
            parents[i].sort_unstable_by_key(|&p| events[p].host);
            previous = clock;
        }
    }
    parents
}

fn build(
    source: &Source<'_>,
    (events, names, hosts, _, first_gap): Matches,
    unmatched: usize,
    name: &str,
) -> Result<(Trace, Vec<String>), TraceError> {
    let n_names = names.names.len();
    // Each host's events by own counter, which must run 1, 2, 3, …
    let mut by_host = by_own_counter(&events, &names).map_err(|(i, h, expected)| {
        source.error(
            events[i].offset,
            format!(
                "expected {}'s own counter {expected} here, found {}",
                names.names[h as usize],
                entry(&events[i].clock, h)
            ),
        )
    })?;
    let parents = parents_of(&events, &by_host, n_names);
    // The processes: the hosts, in order of their first event.
    let mut process_of = vec![usize::MAX; n_names];
    for (p, &h) in hosts.iter().enumerate() {
        process_of[h as usize] = p;
    }
    let by_host: Vec<Vec<usize>> = hosts
        .iter()
        .map(|&h| std::mem::take(&mut by_host[h as usize]))
        .collect();
    // Lamport clocks in an order where parents and predecessors come first.
    let mut lamport = vec![0u64; events.len()];
    let mut done = vec![false; events.len()];
    let mut position = vec![0usize; hosts.len()];
    let mut progress = true;
    while progress {
        progress = false;
        for h in 0..hosts.len() {
            while let Some(&i) = by_host[h].get(position[h]) {
                if !parents[i].iter().all(|&p| done[p]) {
                    break;
                }
                let local = if position[h] > 0 {
                    lamport[by_host[h][position[h] - 1]]
                } else {
                    0
                };
                lamport[i] = parents[i]
                    .iter()
                    .map(|&p| lamport[p])
                    .chain([local])
                    .max()
                    .unwrap_or(0)
                    + 1;
                done[i] = true;
                position[h] += 1;
                progress = true;
            }
        }
    }
    if let Some(i) = done.iter().position(|d| !d) {
        return Err(source.error(
            events[i].offset,
            "expected vector clocks without a causality cycle",
        ));
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
    for (i, ps) in parents.iter().enumerate() {
        for &p in ps {
            children[p].push(i);
        }
    }
    let mut builder = TraceBuilder::new(name, Clock::default());
    for &host in &hosts {
        let host = &names.names[host as usize];
        let node = builder.add_node(host.clone());
        // The node was just declared.
        let _ = builder.add_process(host.clone(), node);
    }
    for (h, list) in by_host.iter().enumerate() {
        let p = ProcessId(h as u32);
        for &i in list {
            let t = Time(lamport[i]);
            for &parent in &parents[i] {
                let mut arrival = EventRecord::plain(p, t, EventKind::MsgArr);
                arrival.peer = Some(ProcessId(process_of[events[parent].host as usize] as u32));
                arrival.tag = parent as u32;
                builder
                    .push(arrival)
                    .map_err(|e| source.error(events[i].offset, e.to_string()))?;
            }
            let mut probe = EventRecord::plain(p, t, EventKind::Probe);
            probe.text = Some(builder.intern(&events[i].text));
            builder
                .push(probe)
                .map_err(|e| source.error(events[i].offset, e.to_string()))?;
            for &child in &children[i] {
                let mut send = EventRecord::plain(p, t, EventKind::MsgSend);
                send.peer = Some(ProcessId(process_of[events[child].host as usize] as u32));
                send.tag = i as u32;
                builder
                    .push(send)
                    .map_err(|e| source.error(events[i].offset, e.to_string()))?;
            }
        }
    }
    let notes = if unmatched > 0 {
        let at = first_gap.map_or_else(String::new, |at| {
            format!(
                " (the first at {})",
                super::reading::position(source.input, source.offset(at))
            )
        });
        vec![format!(
            "skipped {unmatched} lines without a vector clock{at}"
        )]
    } else {
        Vec::new()
    };
    Ok((builder.build(), notes))
}

#[cfg(test)]
mod tests {
    use super::{EventKind, from_javascript, parse};

    #[test]
    fn javascript_braces_become_literals_unless_they_quantify() {
        assert_eq!(from_javascript(r"(?<clock>{.*})"), r"(?<clock>\{.*\})");
        assert_eq!(from_javascript(r"a{2,3}b{4}[{}]\{"), r"a{2,3}b{4}[{}]\{");
        assert_eq!(from_javascript(r"(?<clock>.*\})"), r"(?<clock>.*\})");
    }

    /// A token passed round a ring of five hosts four times: every event after the first has
    /// one parent, the previous host's last event, though its clock raises every host's entry
    /// (the sender's clock implies all the others).
    #[test]
    fn dense_clocks_give_one_parent_per_hop() {
        let hosts = 5;
        let log = crate::model::synthetic::govector_token_ring(hosts, 4);
        let (trace, _) = parse(
            log.as_bytes(),
            None,
            "ring",
            &crate::formats::Budget::default(),
        )
        .expect("parses");
        let sends = trace
            .events
            .kind()
            .iter()
            .filter(|k| **k == EventKind::MsgSend)
            .count();
        assert_eq!(sends, 4 * hosts - 1);
        // Each send goes to the next host round the ring.
        for i in 0..trace.events.len() {
            if trace.events.kind()[i] == EventKind::MsgSend {
                let from = trace.events.process()[i].0 as usize;
                let to = trace.events.peer().at(i).map(|p| p.0 as usize);
                assert_eq!(to, Some((from + 1) % hosts));
            }
        }
    }
}
