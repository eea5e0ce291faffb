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
    let written = |e| anyhow::anyhow!("writing {}: {e}", output.display());
    let bytes = if matches!(to, OutputFormat::Binary) {
        // Streamed to the file: a large model's encoding is never held whole.
        let file = std::fs::File::create(output).map_err(written)?;
        let mut file = shared::formats::binary::write_to(trace, std::io::BufWriter::new(file))
            .map_err(written)?;
        std::io::Write::flush(&mut file).map_err(written)?;
        std::fs::metadata(output).map_err(written)?.len()
    } else {
        let out = encode(trace, to)?;
        std::fs::write(output, &out).with_context(|| format!("writing {}", output.display()))?;
        out.len() as u64
    };
    eprintln!(
        "converted {} ({}, {} events) to {} ({} bytes)",
        input.display(),
        imported.format.name(),
        trace.events.len(),
        output.display(),
        bytes
    );
    Ok(())
}
