//! The native trace format, `tracescope-json`: a JSON document with a version field.
//!
//! The format is specified in `docs/native-format.md`.
//! Errors name the line, column and byte offset of the offending value and what was expected.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::error::TraceError;
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
struct Header {
    format: String,
    version: u32,
}

#[derive(Deserialize)]
struct Document<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    ticks_per_second: Option<u64>,
    #[serde(borrow)]
    nodes: Vec<&'a RawValue>,
    #[serde(borrow)]
    processes: Vec<&'a RawValue>,
    #[serde(borrow)]
    events: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    regions: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    links: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    cpu_samples: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    link_samples: Vec<&'a RawValue>,
}

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

/// Reads a native trace. `fallback_name` names the trace when the document has no `name`.
pub fn parse(
    input: &[u8],
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<Trace, TraceError> {
    let header: Header = serde_json::from_slice(input).map_err(|e| json_error(input, &e))?;
    if header.format != FORMAT_TAG {
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            input,
            0,
            format!(
                "expected \"format\": \"{FORMAT_TAG}\", found {:?}",
                header.format
            ),
        ));
    }
    if header.version == 0 || header.version > VERSION {
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            input,
            0,
            format!(
                "unsupported version {} (this build reads versions 1 to {VERSION})",
                header.version
            ),
        ));
    }
    let doc: Document = serde_json::from_slice(input).map_err(|e| json_error(input, &e))?;
    let at = |raw: Option<&&RawValue>| raw.map_or(0, |r| item_offset(input, r));
    let limit = budget.max_processes as usize;
    budget.check(
        super::budget::Limit::Processes,
        doc.processes.len() as u64,
        FORMAT_NAME,
        input,
        at(doc.processes.get(limit)),
    )?;
    let limit = budget.max_events as usize;
    budget.check(
        super::budget::Limit::Events,
        doc.events.len() as u64,
        FORMAT_NAME,
        input,
        at(doc.events.get(limit)),
    )?;
    if doc.ticks_per_second == Some(0) {
        let at = input
            .windows(18)
            .position(|w| w == b"\"ticks_per_second\"")
            .unwrap_or(0);
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            input,
            at,
            "expected ticks_per_second of 1 or more (leave it out for a trace without a time unit), found 0",
        ));
    }
    let name = doc.name.unwrap_or_else(|| fallback_name.to_owned());
    let mut builder = TraceBuilder::new(
        name,
        Clock {
            ticks_per_second: doc.ticks_per_second,
        },
    );

    for raw in &doc.nodes {
        let node: NodeDoc = item(input, raw, "a node object {\"name\": …}")?;
        builder.add_node(node.name);
    }
    for raw in &doc.processes {
        let process: ProcessDoc = item(input, raw, "a process object {\"name\": …, \"node\": …}")?;
        builder
            .add_process(process.name, NodeId(process.node))
            .map_err(|e| at_item(input, raw, e.to_string()))?;
    }
    for raw in &doc.regions {
        let region: RegionDoc = item(
            input,
            raw,
            "a region object {\"name\": …, \"role\": \"activity\" or \"phase\"}",
        )?;
        builder.add_region(region.name, region.role);
    }
    for raw in &doc.links {
        let link: LinkDoc = item(
            input,
            raw,
            "a link object {\"a\": {\"node\": …, \"link\": …}, \"b\": …}",
        )?;
        builder
            .add_link(Link {
                a: link.a,
                b: link.b,
                bits_per_second: link.bits_per_second,
            })
            .map_err(|e| at_item(input, raw, e.to_string()))?;
    }
    for raw in &doc.cpu_samples {
        let s: CpuSampleDoc = item(
            input,
            raw,
            "a CPU sample {\"node\", \"start\", \"end\", \"utilization\"}",
        )?;
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
            .map_err(|e| at_item(input, raw, e.to_string()))?;
    }
    for raw in &doc.link_samples {
        let s: LinkSampleDoc = item(
            input,
            raw,
            "a link sample {\"link\", \"direction\", \"start\", \"end\", \"utilization\"}",
        )?;
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
            .map_err(|e| at_item(input, raw, e.to_string()))?;
    }
    builder.reserve_events(doc.events.len());
    for (idx, raw) in doc.events.iter().enumerate() {
        let event: EventDoc = item(input, raw, "an event object")?;
        let record = event_record(&mut builder, event)
            .map_err(|msg| at_item(input, raw, format!("event {idx}: {msg}")))?;
        builder
            .push(record)
            .map_err(|e| at_item(input, raw, format!("event {idx}: {e}")))?;
    }
    Ok(builder.build())
}

/// Checks one event's fields against its kind and turns it into a record.
fn event_record(builder: &mut TraceBuilder, event: EventDoc<'_>) -> Result<EventRecord, String> {
    let kind = event.kind;
    let peer = match (kind, event.to, event.from) {
        (EventKind::MsgSend, Some(to), None) => Some(ProcessId(to)),
        (EventKind::MsgArr, None, Some(from)) => Some(ProcessId(from)),
        (EventKind::Enter, None, None) => event.root.map(ProcessId),
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
        (EventKind::Probe, Some(text)) => Some(builder.intern(&text)),
        (EventKind::Probe, None) => None,
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

/// Deserializes one array item, reporting errors at its position in the whole input.
fn item<'a, T: Deserialize<'a>>(
    input: &[u8],
    raw: &'a RawValue,
    expected: &str,
) -> Result<T, TraceError> {
    serde_json::from_str(raw.get()).map_err(|e| {
        let base = item_offset(input, raw);
        let inner =
            TraceError::at_line_column(FORMAT_NAME, raw.get().as_bytes(), e.line(), e.column(), "");
        TraceError::at_offset(
            FORMAT_NAME,
            input,
            base + inner.offset,
            format!("expected {expected}: {}", strip_position(&e)),
        )
    })
}

fn at_item(input: &[u8], raw: &RawValue, message: String) -> TraceError {
    TraceError::at_offset(FORMAT_NAME, input, item_offset(input, raw), message)
}

/// The byte offset of a borrowed raw value inside the input it was parsed from.
fn item_offset(input: &[u8], raw: &RawValue) -> usize {
    let start = input.as_ptr() as usize;
    let at = raw.get().as_ptr() as usize;
    at.checked_sub(start)
        .filter(|&o| o <= input.len())
        .unwrap_or(0)
}

fn json_error(input: &[u8], e: &serde_json::Error) -> TraceError {
    TraceError::at_line_column(FORMAT_NAME, input, e.line(), e.column(), strip_position(e))
}

/// serde_json's message without its trailing "at line L column C", which the error carries.
fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
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
    if !trace.regions.is_empty() {
        let regions = trace
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
        match (kind, e.peer()[i]) {
            (EventKind::MsgSend, Some(p)) => {
                let _ = write!(out, ", \"to\": {}", p.0);
            }
            (EventKind::MsgArr, Some(p)) => {
                let _ = write!(out, ", \"from\": {}", p.0);
            }
            (EventKind::Enter, Some(p)) => {
                let _ = write!(out, ", \"root\": {}", p.0);
            }
            _ => {}
        }
        if e.tag()[i] != 0 {
            let _ = write!(out, ", \"tag\": {}", e.tag()[i]);
        }
        if e.size()[i] != 0 {
            let _ = write!(out, ", \"size\": {}", e.size()[i]);
        }
        if let Some(text) = e.text()[i].and_then(|id| trace.string(id)) {
            let _ = write!(out, ", \"text\": {}", json(text));
        }
        if let Some(region) = e.region()[i] {
            let _ = write!(out, ", \"region\": {}", region.0);
        }
        if let Some(request) = e.request()[i] {
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
