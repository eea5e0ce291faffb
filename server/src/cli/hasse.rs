//! `tracescope hasse`: the Hasse (happened-before) diagram of a trace as the Hasse view draws
//! it — vertices with their layers, Lamport and physical times, edges with their kind — or the
//! instances of dependence queries, as one JSON object (or a short text).

use anyhow::Context as _;
use serde::Serialize;
use shared::analyses::causality::Causality;
use shared::analyses::dependence::{self, Evaluation};
use shared::graph::context::Context;
use shared::view::hasse::{Collapse, Diagram, Edge, Vertex};

/// What `tracescope hasse --json` prints of the diagram.
#[derive(Serialize)]
struct HasseReport<'a> {
    file: &'a str,
    /// How many layers the whole diagram has.
    layers: u32,
    /// The window asked for, in ticks (`None`: the whole run).
    window: Option<(u64, u64)>,
    /// The vertices inside the window.
    vertices: Vec<&'a Vertex>,
    /// The edges between them (`from` and `to` index `vertices`).
    edges: Vec<Edge>,
}

/// What `tracescope hasse --query … --json` prints.
#[derive(Serialize)]
struct QueryReport<'a> {
    file: &'a str,
    dependences: Vec<Evaluation>,
}

/// Prints a line to stdout; a reader that went away (`| head`) ends the output quietly.
fn print(line: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    match writeln!(std::io::stdout().lock(), "{line}") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// A window `a..b` in ticks.
pub fn parse_window(text: &str) -> Result<(u64, u64), String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("expected a window START..END in ticks, found {text:?}"))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("expected a tick count, found {s:?}"))
    };
    let (a, b) = (parse(a)?, parse(b)?);
    if b < a {
        return Err(format!("the window ends ({b}) before it starts ({a})"));
    }
    Ok((a, b))
}

/// The options of `tracescope hasse`.
pub struct Request<'a> {
    /// Only vertices whose time lies in `[a, b]`.
    pub window: Option<(u64, u64)>,
    /// Dependence descriptions to evaluate instead of printing the diagram.
    pub query: Option<&'a str>,
    /// Every event its own vertex (no collapsed local runs).
    pub expand: bool,
    /// JSON instead of text.
    pub json: bool,
    /// The memory the diagram may take, in bytes (`--max-memory-bytes`).
    pub max_memory_bytes: u64,
}

/// Prints the diagram of `file`, or its query's instances.
pub fn command(
    file: &std::path::Path,
    format: Option<shared::formats::Format>,
    options: &shared::formats::ImportOptions,
    request: &Request<'_>,
) -> anyhow::Result<()> {
    let imported = super::files::read_trace(file, format, options)?;
    let trace = &imported.trace;
    let cx = Context::new(trace);
    // The vector clocks cost about 4 bytes × processes²: refused before they are allocated
    // when the memory budget (or the machine) has not that much.
    let cost = if request.query.is_some() {
        Causality::estimated_bytes(trace, &cx.graph)
    } else {
        Diagram::estimated_bytes(trace, &cx.graph)
    };
    let gib = |bytes: u64| bytes as f64 / f64::from(1u32 << 30);
    let limit = match crate::http::workspace::available_memory() {
        Some(available) if available < request.max_memory_bytes => {
            (available, "this machine has available now")
        }
        _ => (
            request.max_memory_bytes,
            "the memory budget allows (--max-memory-bytes raises it)",
        ),
    };
    if cost > limit.0 {
        anyhow::bail!(
            "the Hasse diagram of {} ({} processes, {} events) would take about {:.2} GiB to \
             build (its vector clocks take 4 bytes × processes² and more), more than {} \
             ({:.2} GiB)",
            file.display(),
            trace.processes.len(),
            trace.events.len(),
            gib(cost),
            limit.1,
            gib(limit.0)
        );
    }
    let causality = Causality::new(trace, &cx.graph);
    let name = file.display().to_string();
    if let Some(query) = request.query {
        let deps = dependence::parse(query).context("the dependence query")?;
        let dependences: Vec<Evaluation> = deps
            .iter()
            .map(|d| dependence::evaluate(trace, &causality, d))
            .collect();
        if request.json {
            let report = QueryReport {
                file: &name,
                dependences,
            };
            print(&serde_json::to_string_pretty(&report)?)?;
        } else {
            for e in &dependences {
                let held = e.instances.iter().filter(|i| i.satisfied).count();
                print(&format!(
                    "{}: {} ({held} of {} instances hold)",
                    e.name,
                    if e.satisfied { "holds" } else { "violated" },
                    e.instances.len()
                ))?;
            }
        }
        return Ok(());
    }
    let collapse = if request.expand {
        Collapse::None
    } else {
        Collapse::Runs { expanded: &[] }
    };
    let diagram = Diagram::new(trace, &cx.graph, &causality, collapse);
    let inside = |v: &Vertex| {
        request
            .window
            .is_none_or(|(a, b)| v.last_time.0 >= a && v.time.0 <= b)
    };
    // Vertices in the window, renumbered; edges with both ends inside.
    let mut index = vec![u32::MAX; diagram.vertices.len()];
    let mut vertices = Vec::new();
    for (i, v) in diagram.vertices.iter().enumerate() {
        if inside(v) {
            index[i] = vertices.len() as u32;
            vertices.push(v);
        }
    }
    let edges: Vec<Edge> = diagram
        .edges
        .iter()
        .filter_map(|e| {
            let (from, to) = (index[e.from as usize], index[e.to as usize]);
            (from != u32::MAX && to != u32::MAX).then_some(Edge { from, to, ..*e })
        })
        .collect();
    if request.json {
        let report = HasseReport {
            file: &name,
            layers: diagram.layers,
            window: request.window,
            vertices,
            edges,
        };
        print(&serde_json::to_string_pretty(&report)?)?;
    } else {
        let backwards = edges.iter().filter(|e| e.backwards).count();
        print(&format!(
            "{name}: {} vertices, {} edges ({backwards} back in time), {} layers",
            vertices.len(),
            edges.len(),
            diagram.layers
        ))?;
    }
    Ok(())
}
