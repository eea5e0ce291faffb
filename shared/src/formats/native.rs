//! The native trace format, `tracescope-json`: a JSON document with a version field.
//!
//! The format is specified in `docs/native-format.md`.
//! Errors name the line, column and byte offset of the offending value and what was expected.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Deserialize;

use crate::model::error::{Position, TraceError};
use crate::model::time::{Clock, Time};
use crate::model::{
    CpuSample, Direction, EventKind, EventRecord, Link, LinkEnd, LinkId, LinkSample, NodeId,
    ProcessId, RegionId, RegionRole, Sample, Trace, TraceBuilder,
};

/// The format's name in errors and run metadata.
pub const FORMAT_NAME: &str = "tracescope-json";
/// The value of the document's `format` field.
pub const FORMAT_TAG: &str = "tracescope";
/// The version this code writes, and the newest it reads.
pub const VERSION: u32 = 1;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionDoc {
    name: String,
    #[serde(default = "default_role")]
    role: RegionRole,
}

fn default_role() -> RegionRole {
    RegionRole::Activity
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkDoc {
    a: LinkEnd,
    b: LinkEnd,
    #[serde(default)]
    bits_per_second: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CpuSampleDoc {
    node: u32,
    start: u64,
    end: u64,
    utilization: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkSampleDoc {
    link: u32,
    direction: Direction,
    start: u64,
    end: u64,
    utilization: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeDoc {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProcessDoc {
    name: String,
    node: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventDoc<'a> {
    process: u32,
    time: u64,
    kind: EventKind,
    #[serde(default)]
    to: Option<u32>,
    #[serde(default)]
    from: Option<u32>,
    #[serde(default)]
    tag: Option<u32>,
    #[serde(default)]
    size: Option<u64>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    region: Option<u32>,
    #[serde(default)]
    request: Option<std::num::NonZeroU32>,
    #[serde(default)]
    root: Option<u32>,
}

/// A declaration read, with where it was.
type Declared<T> = Vec<(T, Position)>;

/// What a native document declares besides its events, read as it streams in.
#[derive(Default)]
struct Parts {
    format: bool,
    version: bool,
    name: Option<String>,
    ticks_per_second: Option<u64>,
    nodes: Declared<NodeDoc>,
    processes: Declared<ProcessDoc>,
    regions: Declared<RegionDoc>,
    links: Declared<LinkDoc>,
    cpu_samples: Declared<CpuSampleDoc>,
    link_samples: Declared<LinkSampleDoc>,
    /// The arrays begun so far, by key.
    opened: Vec<String>,
    /// Whether the nodes, processes and regions are in the builder (then events go straight
    /// in).
    declared: bool,
    /// Events read before the nodes, processes and regions were all known (a document in
    /// another order than Tracescope writes): their text and position, read at the end.
    deferred: Vec<(Vec<u8>, Position)>,
    events: usize,
}

impl Parts {
    /// Whether every array an event may refer to has been read (they come before the events
    /// in what Tracescope writes, and a JSON array is read whole before the next member).
    fn ready(&self) -> bool {
        ["nodes", "processes", "regions"]
            .iter()
            .all(|k| self.opened.iter().any(|o| o == k))
    }

    /// Puts the nodes, processes and regions in the builder.
    fn declare(&mut self, builder: &mut TraceBuilder) -> Result<(), TraceError> {
        if self.declared {
            return Ok(());
        }
        self.declared = true;
        for (node, _) in self.nodes.drain(..) {
            builder.add_node(node.name);
        }
        for (process, at) in self.processes.drain(..) {
            builder
                .add_process(process.name, NodeId(process.node))
                .map_err(|e| TraceError::at(FORMAT_NAME, at, e.to_string()))?;
        }
        for (region, _) in self.regions.drain(..) {
            builder.add_region(region.name, region.role);
        }
        Ok(())
    }

    /// Reads one event into the builder.
    fn event(
        &mut self,
        builder: &mut TraceBuilder,
        bytes: &[u8],
        at: Position,
    ) -> Result<(), TraceError> {
        let idx = self.events;
        self.events += 1;
        let event: EventDoc = item(bytes, at, "an event object")?;
        let record = event_record(builder, event)
            .map_err(|msg| TraceError::at(FORMAT_NAME, at, format!("event {idx}: {msg}")))?;
        builder
            .push(record)
            .map_err(|e| TraceError::at(FORMAT_NAME, at, format!("event {idx}: {e}")))
    }

    /// Reads one part of the document.
    fn read(
        &mut self,
        builder: &mut TraceBuilder,
        budget: &super::budget::Budget,
        part: super::json_stream::Part<'_>,
    ) -> Result<(), TraceError> {
        use super::json_stream::Piece;
        let at = part.at;
        let bytes = part.bytes;
        match (part.key.unwrap_or(""), part.piece) {
            (key, Piece::Open) => {
                if self.opened.iter().any(|o| o == key) {
                    return Err(TraceError::at(
                        FORMAT_NAME,
                        at,
                        format!("expected one \"{key}\" array, found a second"),
                    ));
                }
                self.opened.push(key.to_owned());
            }
            ("format", Piece::Member) => {
                let format: String = item(bytes, at, "the format name")?;
                if format != FORMAT_TAG {
                    return Err(TraceError::at(
                        FORMAT_NAME,
                        at,
                        format!("expected \"format\": \"{FORMAT_TAG}\", found {format:?}"),
                    ));
                }
                self.format = true;
            }
            ("version", Piece::Member) => {
                let version: u32 = item(bytes, at, "a version number")?;
                if version == 0 || version > VERSION {
                    return Err(TraceError::at(
                        FORMAT_NAME,
                        at,
                        format!(
                            "unsupported version {version} (this build reads versions 1 to {VERSION})"
                        ),
                    ));
                }
                self.version = true;
            }
            ("name", Piece::Member) => self.name = item(bytes, at, "the trace's name")?,
            ("ticks_per_second", Piece::Member) => {
                self.ticks_per_second = item(bytes, at, "a number of ticks per second")?;
                if self.ticks_per_second == Some(0) {
                    return Err(TraceError::at(
                        FORMAT_NAME,
                        at,
                        "expected ticks_per_second of 1 or more (leave it out for a trace without a time unit), found 0",
                    ));
                }
            }
            ("nodes", Piece::Element) => self
                .nodes
                .push((item(bytes, at, "a node object {\"name\": …}")?, at)),
            ("processes", Piece::Element) => {
                budget.check_at(
                    super::budget::Limit::Processes,
                    self.processes.len() as u64 + 1,
                    FORMAT_NAME,
                    at,
                )?;
                self.processes.push((
                    item(bytes, at, "a process object {\"name\": …, \"node\": …}")?,
                    at,
                ));
            }
            ("regions", Piece::Element) => self.regions.push((
                item(
                    bytes,
                    at,
                    "a region object {\"name\": …, \"role\": \"activity\" or \"phase\"}",
                )?,
                at,
            )),
            ("links", Piece::Element) => self.links.push((
                item(
                    bytes,
                    at,
                    "a link object {\"a\": {\"node\": …, \"link\": …}, \"b\": …}",
                )?,
                at,
            )),
            ("cpu_samples", Piece::Element) => self.cpu_samples.push((
                item(
                    bytes,
                    at,
                    "a CPU sample {\"node\", \"start\", \"end\", \"utilization\"}",
                )?,
                at,
            )),
            ("link_samples", Piece::Element) => self.link_samples.push((
                item(
                    bytes,
                    at,
                    "a link sample {\"link\", \"direction\", \"start\", \"end\", \"utilization\"}",
                )?,
                at,
            )),
            ("events", Piece::Element) => {
                budget.check_at(
                    super::budget::Limit::Events,
                    (self.events + self.deferred.len()) as u64 + 1,
                    FORMAT_NAME,
                    at,
                )?;
                if self.declared || self.ready() {
                    self.declare(builder)?;
                    self.event(builder, bytes, at)?;
                } else {
                    self.deferred.push((bytes.to_vec(), at));
                }
            }
            (
                key @ ("nodes" | "processes" | "regions" | "links" | "cpu_samples" | "link_samples"
                | "events"),
                Piece::Member,
            ) => {
                return Err(TraceError::at(
                    FORMAT_NAME,
                    at,
                    format!("expected an array for \"{key}\""),
                ));
            }
            _ => {
                serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(|e| {
                    TraceError::at(
                        FORMAT_NAME,
                        super::json_stream::position_in(at, bytes, e.line(), e.column()),
                        super::json_stream::message_of(&e),
                    )
                })?;
            }
        }
        Ok(())
    }
}

/// Reads a native trace as it streams in. `fallback_name` names the trace when the document
/// has no `name`. A document in the order Tracescope writes it (nodes, processes and regions
/// before the events) holds one event's text at a time; in another order the events read
/// before those arrays wait, as text, until the end.
pub fn parse(
    input: &mut dyn std::io::Read,
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<Trace, TraceError> {
    let mut builder = TraceBuilder::new(fallback_name, Clock::default());
    let mut parts = Parts::default();
    let walked = super::json_stream::walk(input, FORMAT_NAME, budget, false, &mut |part| {
        parts.read(&mut builder, budget, part)
    })?;
    let end = walked.end;
    if walked.array {
        return Err(TraceError::at(
            FORMAT_NAME,
            Position::START,
            "expected an object with \"format\": \"tracescope\", found an array",
        ));
    }
    for (present, key) in [
        (parts.format, "format"),
        (parts.version, "version"),
        (walked.keys.iter().any(|k| k == "nodes"), "nodes"),
        (walked.keys.iter().any(|k| k == "processes"), "processes"),
        (walked.keys.iter().any(|k| k == "events"), "events"),
    ] {
        if !present {
            return Err(TraceError::at(
                FORMAT_NAME,
                end,
                format!("expected a member \"{key}\", found none"),
            ));
        }
    }
    parts.declare(&mut builder)?;
    for (bytes, at) in std::mem::take(&mut parts.deferred) {
        parts.event(&mut builder, &bytes, at)?;
    }
    for (link, at) in parts.links.drain(..) {
        builder
            .add_link(Link {
                a: link.a,
                b: link.b,
                bits_per_second: link.bits_per_second,
            })
            .map_err(|e| TraceError::at(FORMAT_NAME, at, e.to_string()))?;
    }
    for (s, at) in parts.cpu_samples.drain(..) {
        let sample = Sample {
            start: Time(s.start),
            end: Time(s.end),
            utilization: s.utilization,
        };
        builder
            .add_cpu_sample(CpuSample {
                node: NodeId(s.node),
                sample,
            })
            .map_err(|e| TraceError::at(FORMAT_NAME, at, e.to_string()))?;
    }
    for (s, at) in parts.link_samples.drain(..) {
        let sample = Sample {
            start: Time(s.start),
            end: Time(s.end),
            utilization: s.utilization,
        };
        builder
            .add_link_sample(LinkSample {
                link: LinkId(s.link),
                direction: s.direction,
                sample,
            })
            .map_err(|e| TraceError::at(FORMAT_NAME, at, e.to_string()))?;
    }
    let mut trace = builder.build();
    trace.name = parts.name.unwrap_or_else(|| fallback_name.to_owned());
    trace.clock = Clock {
        ticks_per_second: parts.ticks_per_second,
    };
    Ok(trace)
}

/// Checks one event's fields against its kind and turns it into a record.
fn event_record(builder: &mut TraceBuilder, event: EventDoc<'_>) -> Result<EventRecord, String> {
    let kind = event.kind;
    let peer = match (kind, event.to, event.from) {
        (EventKind::MsgSend, Some(to), None) => Some(ProcessId(to)),
        (EventKind::MsgArr, None, Some(from)) => Some(ProcessId(from)),
        (EventKind::Enter, None, None) => event.root.map(ProcessId),
        // A wait's releaser: the process whose action made it ready.
        (EventKind::Wait | EventKind::Run, None, Some(from)) => Some(ProcessId(from)),
        (EventKind::MsgSend, _, _) => {
            return Err("msg_send expects \"to\" (the destination process) and no \"from\"".into());
        }
        (EventKind::MsgArr, _, _) => {
            return Err("msg_arr expects \"from\" (the source process) and no \"to\"".into());
        }
        (_, None, None) => None,
        (_, _, _) => return Err(format!("{} takes no \"to\" or \"from\"", kind.name())),
    };
    let text = match (kind, event.text) {
        (EventKind::Probe | EventKind::Wait, Some(text)) => Some(builder.intern(&text)),
        (EventKind::Probe | EventKind::Wait, None) => None,
        (_, Some(_)) => {
            return Err(format!(
                "{} takes no \"text\" (only probe does)",
                kind.name()
            ));
        }
        (_, None) => None,
    };
    if event.root.is_some() && kind != EventKind::Enter {
        return Err(format!(
            "{} takes no \"root\" (only enter of a collective does)",
            kind.name()
        ));
    }
    let region = match (kind.has_region(), event.region) {
        (true, Some(region)) => Some(RegionId(region)),
        (true, None) => {
            return Err(format!(
                "{} expects \"region\" (a region index)",
                kind.name()
            ));
        }
        (false, Some(_)) => {
            return Err(format!(
                "{} takes no \"region\" (only enter and leave do)",
                kind.name()
            ));
        }
        (false, None) => None,
    };
    let request = match (kind, event.request) {
        (EventKind::RecvPost, None) => {
            return Err("recv_post expects \"request\" (a request number from 1)".into());
        }
        (EventKind::RecvPost | EventKind::MsgArr, request) => request,
        (_, Some(_)) => {
            return Err(format!(
                "{} takes no \"request\" (only recv_post and msg_arr do)",
                kind.name()
            ));
        }
        (_, None) => None,
    };
    Ok(EventRecord {
        process: ProcessId(event.process),
        time: Time(event.time),
        kind,
        peer,
        tag: event.tag.unwrap_or(0),
        size: event.size.unwrap_or(0),
        text,
        region,
        request,
    })
}

/// Deserializes one value, reporting errors at their position in the whole input.
fn item<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    at: Position,
    expected: &str,
) -> Result<T, TraceError> {
    serde_json::from_slice(bytes).map_err(|e| {
        TraceError::at(
            FORMAT_NAME,
            super::json_stream::position_in(at, bytes, e.line(), e.column()),
            format!(
                "expected {expected}: {}",
                super::json_stream::message_of(&e)
            ),
        )
    })
}

/// Writes a trace in the native format, one event per line, events grouped by process.
pub fn write(trace: &Trace) -> String {
    let mut out = String::with_capacity(64 + trace.events.len() * 64);
    let json = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    let _ = writeln!(out, "{{");
    let _ = writeln!(out, "  \"format\": \"{FORMAT_TAG}\",");
    let _ = writeln!(out, "  \"version\": {VERSION},");
    let _ = writeln!(out, "  \"name\": {},", json(&trace.name));
    if let Some(tps) = trace.clock.ticks_per_second {
        let _ = writeln!(out, "  \"ticks_per_second\": {tps},");
    }
    let nodes: Vec<String> = trace
        .nodes
        .iter()
        .map(|n| format!("    {{\"name\": {}}}", json(&n.name)))
        .collect();
    let _ = writeln!(out, "  \"nodes\": [\n{}\n  ],", nodes.join(",\n"));
    let processes: Vec<String> = trace
        .processes
        .iter()
        .map(|p| {
            format!(
                "    {{\"name\": {}, \"node\": {}}}",
                json(&p.name),
                p.node.0
            )
        })
        .collect();
    let _ = writeln!(out, "  \"processes\": [\n{}\n  ],", processes.join(",\n"));
    let json_items = |items: Vec<String>| format!("[\n{}\n  ]", items.join(",\n"));
    // Regions are written even when there are none, before the events, so that a reader can
    // take each event as it comes.
    let regions: Vec<String> = trace
        .regions
        .iter()
        .map(|r| {
            format!(
                "    {{\"name\": {}, \"role\": {}}}",
                json(&r.name),
                to_json(&r.role)
            )
        })
        .collect();
    if regions.is_empty() {
        let _ = writeln!(out, "  \"regions\": [],");
    } else {
        let _ = writeln!(out, "  \"regions\": {},", json_items(regions));
    }
    if !trace.links.is_empty() {
        let links = trace
            .links
            .iter()
            .map(|l| {
                let speed = l
                    .bits_per_second
                    .map(|b| format!(", \"bits_per_second\": {b}"))
                    .unwrap_or_default();
                format!(
                    "    {{\"a\": {}, \"b\": {}{speed}}}",
                    to_json(&l.a),
                    to_json(&l.b)
                )
            })
            .collect();
        let _ = writeln!(out, "  \"links\": {},", json_items(links));
    }
    if !trace.cpu_samples.is_empty() {
        let samples = trace
            .cpu_samples
            .iter()
            .map(|s| {
                let m = &s.sample;
                format!(
                    "    {{\"node\": {}, \"start\": {}, \"end\": {}, \"utilization\": {}}}",
                    s.node.0, m.start.0, m.end.0, m.utilization
                )
            })
            .collect();
        let _ = writeln!(out, "  \"cpu_samples\": {},", json_items(samples));
    }
    if !trace.link_samples.is_empty() {
        let samples = trace
            .link_samples
            .iter()
            .map(|s| {
                let m = &s.sample;
                format!(
                    "    {{\"link\": {}, \"direction\": {}, \"start\": {}, \"end\": {}, \"utilization\": {}}}",
                    s.link.0,
                    to_json(&s.direction),
                    m.start.0,
                    m.end.0,
                    m.utilization
                )
            })
            .collect();
        let _ = writeln!(out, "  \"link_samples\": {},", json_items(samples));
    }
    let _ = writeln!(out, "  \"events\": [");
    let e = &trace.events;
    for i in 0..e.len() {
        let kind = e.kind()[i];
        let _ = write!(
            out,
            "    {{\"process\": {}, \"time\": {}, \"kind\": \"{}\"",
            e.process()[i].0,
            e.time()[i].0,
            kind.name()
        );
        match (kind, e.peer().at(i)) {
            (EventKind::MsgSend, Some(p)) => {
                let _ = write!(out, ", \"to\": {}", p.0);
            }
            (EventKind::MsgArr | EventKind::Wait | EventKind::Run, Some(p)) => {
                let _ = write!(out, ", \"from\": {}", p.0);
            }
            (EventKind::Enter, Some(p)) => {
                let _ = write!(out, ", \"root\": {}", p.0);
            }
            _ => {}
        }
        if e.tag().at(i) != 0 {
            let _ = write!(out, ", \"tag\": {}", e.tag().at(i));
        }
        if e.size().at(i) != 0 {
            let _ = write!(out, ", \"size\": {}", e.size().at(i));
        }
        if let Some(text) = e.text().at(i).and_then(|id| trace.string(id)) {
            let _ = write!(out, ", \"text\": {}", json(text));
        }
        if let Some(region) = e.region().at(i) {
            let _ = write!(out, ", \"region\": {}", region.0);
        }
        if let Some(request) = e.request().at(i) {
            let _ = write!(out, ", \"request\": {request}");
        }
        out.push('}');
        if i + 1 < e.len() {
            out.push(',');
        }
        out.push('\n');
    }
    let _ = writeln!(out, "  ]");
    out.push_str("}\n");
    out
}

/// A small serializable value as JSON (enums and plain structs cannot fail to serialize).
fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
