//! ShiViz / GoVector logs: events with vector clocks, parsed with a user-supplied regular
//! expression whose named groups are `host`, `clock` (a JSON object of counters) and `event`.
//!
//! A file whose first line is such an expression uses it (and skips its second line, the
//! execution delimiter); otherwise the two common layouts are tried: Akka's
//! `[INFO] [date] [dispatcher] [akka://…/user/HOST] {clock} event` and GoVector's two-line
//! `HOST {clock}` / `event`. Lines the expression does not match (no clock) are skipped and
//! counted.
//!
//! Messages come from the clocks as ShiViz derives them: for each event, every other host whose
//! entry increased since the host's previous event names a parent, the event on that host with
//! that counter; parents implied by another parent's clock are dropped. Each parent → child is a
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

fn error(input: &[u8], offset: usize, message: impl Into<String>) -> TraceError {
    TraceError::at_offset(FORMAT_NAME, input, offset, message)
}

/// Whether the text looks like a ShiViz log: a leading expression with a `host` group, or a
/// JSON vector clock in one of the first lines.
pub fn looks_like(text: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&text[..text.len().min(2048)]);
    head.starts_with("(?<host>")
        || head.starts_with("(?P<host>")
        || head.lines().take(4).any(|l| {
            let clock = l
                .find("{\"")
                .and_then(|s| l[s..].find('}').map(|e| &l[s..s + e + 1]));
            clock.is_some_and(|c| serde_json::from_str::<BTreeMap<String, u64>>(c).is_ok())
        })
}

struct Parsed {
    host: usize,
    clock: BTreeMap<String, u64>,
    text: String,
    offset: usize,
}

/// Reads a ShiViz log with `pattern`, or the file's own or a default layout when `None`.
pub fn parse(
    input: &[u8],
    pattern: Option<&str>,
    fallback_name: &str,
) -> Result<(Trace, Vec<String>), TraceError> {
    let text = std::str::from_utf8(input)
        .map_err(|e| error(input, e.valid_up_to(), "expected UTF-8 text"))?;
    let (body_start, own) = if text.starts_with("(?<") || text.starts_with("(?P<") {
        let first_end = text.find('\n').unwrap_or(text.len());
        let second_end = text[first_end + 1.min(text.len() - first_end)..]
            .find('\n')
            .map_or(text.len(), |i| first_end + 1 + i + 1);
        (
            second_end.min(text.len()),
            Some(text[..first_end].trim_end_matches('\r')),
        )
    } else {
        (0, None)
    };
    let body = &text[body_start..];
    let candidates: Vec<&str> = match pattern.or(own) {
        Some(p) => vec![p],
        None => vec![AKKA_REGEX, GOVECTOR_REGEX],
    };
    let mut best: Option<(Vec<Parsed>, Vec<String>, usize)> = None;
    for candidate in &candidates {
        let regex = regex::Regex::new(&format!("(?m)^(?:{})$", from_javascript(candidate)))
            .map_err(|e| {
                error(
                    input,
                    0,
                    format!("expected a regular expression with groups host, clock and event: {e}"),
                )
            })?;
        for group in ["host", "clock", "event"] {
            if !regex.capture_names().flatten().any(|n| n == group) {
                return Err(error(
                    input,
                    0,
                    format!("the expression has no named group {group:?}"),
                ));
            }
        }
        let (events, hosts, covered) = matches(input, body, body_start, &regex)?;
        if best.as_ref().is_none_or(|b| events.len() > b.0.len()) {
            best = Some((events, hosts, covered));
        }
    }
    let Some((events, hosts, covered)) = best.filter(|b| !b.0.is_empty()) else {
        return Err(error(
            input,
            body_start,
            "expected log lines with a host, a JSON vector clock and an event",
        ));
    };
    let unmatched = body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
        .saturating_sub(covered);
    build(input, events, hosts, unmatched, fallback_name)
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

/// Every match of the expression: parsed events, host names, and how many non-empty lines the
/// matches cover.
fn matches(
    input: &[u8],
    body: &str,
    base: usize,
    regex: &regex::Regex,
) -> Result<(Vec<Parsed>, Vec<String>, usize), TraceError> {
    let mut hosts: Vec<String> = Vec::new();
    let mut host_ids: HashMap<String, usize> = HashMap::new();
    let mut events = Vec::new();
    let mut covered = 0;
    for caps in regex.captures_iter(body) {
        let whole = caps.get(0).map_or(0..0, |m| m.range());
        let offset = base + whole.start;
        let host = caps.name("host").map_or("", |m| m.as_str()).to_owned();
        let clock_text = caps.name("clock").map_or("", |m| m.as_str());
        let clock: BTreeMap<String, u64> = serde_json::from_str(clock_text).map_err(|e| {
            error(
                input,
                base + caps.name("clock").map_or(whole.start, |m| m.start()),
                format!("expected a JSON vector clock {{\"host\": counter, …}}: {e}"),
            )
        })?;
        let id = *host_ids.entry(host.clone()).or_insert_with(|| {
            hosts.push(host.clone());
            hosts.len() - 1
        });
        covered += body[whole].lines().count().max(1);
        events.push(Parsed {
            host: id,
            clock,
            text: caps.name("event").map_or("", |m| m.as_str()).to_owned(),
            offset,
        });
    }
    Ok((events, hosts, covered))
}

fn build(
    input: &[u8],
    events: Vec<Parsed>,
    hosts: Vec<String>,
    unmatched: usize,
    name: &str,
) -> Result<(Trace, Vec<String>), TraceError> {
    // Each host's events by own counter, which must run 1, 2, 3, …
    let mut by_host: Vec<Vec<usize>> = vec![Vec::new(); hosts.len()];
    for (i, e) in events.iter().enumerate() {
        by_host[e.host].push(i);
    }
    for (h, list) in by_host.iter_mut().enumerate() {
        let own = |i: &usize| events[*i].clock.get(&hosts[h]).copied().unwrap_or(0);
        list.sort_by_key(own);
        for (k, i) in list.iter().enumerate() {
            if own(i) != k as u64 + 1 {
                return Err(error(
                    input,
                    events[*i].offset,
                    format!(
                        "expected {}'s own counter {} here, found {}",
                        hosts[h],
                        k + 1,
                        own(i)
                    ),
                ));
            }
        }
    }
    let host_index: HashMap<&str, usize> = hosts
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), i))
        .collect();
    let at = |host: usize, counter: u64| -> Option<usize> {
        by_host
            .get(host)?
            .get(counter.checked_sub(1)? as usize)
            .copied()
    };
    // Parents of each event (ShiViz's derivation).
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
    for (h, list) in by_host.iter().enumerate() {
        let mut previous: BTreeMap<String, u64> = BTreeMap::new();
        for &i in list {
            let clock = &events[i].clock;
            let mut candidates: Vec<usize> = clock
                .iter()
                .filter(|(g, c)| **g != hosts[h] && **c > previous.get(*g).copied().unwrap_or(0))
                .filter_map(|(g, c)| host_index.get(g.as_str()).and_then(|&gh| at(gh, *c)))
                .collect();
            let implied = |c: usize, by: usize| {
                let host = &hosts[events[c].host];
                c != by
                    && events[by].clock.get(host).copied().unwrap_or(0)
                        >= events[c].clock.get(host).copied().unwrap_or(0)
            };
            let all = candidates.clone();
            candidates.retain(|&c| !all.iter().any(|&other| implied(c, other)));
            parents[i] = candidates;
            previous = clock.clone();
        }
    }
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
        return Err(error(
            input,
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
    for host in &hosts {
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
                arrival.peer = Some(ProcessId(events[parent].host as u32));
                arrival.tag = parent as u32;
                builder
                    .push(arrival)
                    .map_err(|e| error(input, events[i].offset, e.to_string()))?;
            }
            let mut probe = EventRecord::plain(p, t, EventKind::Probe);
            probe.text = Some(builder.intern(&events[i].text));
            builder
                .push(probe)
                .map_err(|e| error(input, events[i].offset, e.to_string()))?;
            for &child in &children[i] {
                let mut send = EventRecord::plain(p, t, EventKind::MsgSend);
                send.peer = Some(ProcessId(events[child].host as u32));
                send.tag = i as u32;
                builder
                    .push(send)
                    .map_err(|e| error(input, events[i].offset, e.to_string()))?;
            }
        }
    }
    let notes = if unmatched > 0 {
        vec![format!("skipped {unmatched} lines without a vector clock")]
    } else {
        Vec::new()
    };
    Ok((builder.build(), notes))
}

#[cfg(test)]
mod tests {
    use super::from_javascript;

    #[test]
    fn javascript_braces_become_literals_unless_they_quantify() {
        assert_eq!(from_javascript(r"(?<clock>{.*})"), r"(?<clock>\{.*\})");
        assert_eq!(from_javascript(r"a{2,3}b{4}[{}]\{"), r"a{2,3}b{4}[{}]\{");
        assert_eq!(from_javascript(r"(?<clock>.*\})"), r"(?<clock>.*\})");
    }
}
