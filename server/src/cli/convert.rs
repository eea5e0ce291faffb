//! `tracescope convert`: a trace in another format.

use std::path::Path;

use anyhow::Context as _;

use super::files::{OutputFormat, encode, read_trace};

/// Reads `input` and writes it to `output` in the format `to`, printing the importer's notes.
pub fn command(
    input: &Path,
    to: OutputFormat,
    output: &Path,
    format: Option<shared::formats::Format>,
    options: &shared::formats::ImportOptions,
) -> anyhow::Result<()> {
    let imported = read_trace(input, format, options)?;
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    let trace = &imported.trace;
    let out = encode(trace, to)?;
    std::fs::write(output, &out).with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "converted {} ({}, {} events) to {} ({} bytes)",
        input.display(),
        imported.format.name(),
        trace.events.len(),
        output.display(),
        out.len()
    );
    Ok(())
}
