//! The native binary format, `tracescope-binary`: the model, compact and versioned, for fast
//! transfer of a whole run (server to browser, cache files).
//!
//! ```text
//! "TSCB" version:u16 (little-endian) postcard(Trace)
//! ```
//! Postcard encodes integers as varints, so the struct-of-arrays model packs tightly; a model
//! that decodes is checked for the same invariants a builder guarantees. Version 2 added the
//! counters at the end of the model; a version 1 file reads as a model without counters.

use crate::model::Trace;
use crate::model::error::TraceError;

/// The format's name.
pub const FORMAT_NAME: &str = "tracescope-binary";
/// The file's first bytes.
pub const MAGIC: &[u8; 4] = b"TSCB";
/// The version this code writes (and reads, with version 1).
pub const VERSION: u16 = 2;

/// Writes a trace.
pub fn write(trace: &Trace) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + trace.events.len() * 12);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    // Serializing plain data to a growable vector cannot fail; keep the header if it ever did.
    if let Ok(body) = postcard::to_allocvec(trace) {
        out.extend_from_slice(&body);
    }
    out
}

/// Writes a trace to `out` as it is encoded, without holding the encoding in memory (for large
/// traces written to a file). The encoding is written a few bytes at a time: give it a buffered
/// writer.
pub fn write_to<W: std::io::Write>(trace: &Trace, mut out: W) -> std::io::Result<W> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    postcard::to_io(trace, out).map_err(std::io::Error::other)
}

/// Reads a trace.
pub fn parse(input: &[u8]) -> Result<Trace, TraceError> {
    if !input.starts_with(MAGIC) {
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            input,
            0,
            "expected the magic \"TSCB\"",
        ));
    }
    let version = match input.get(4..6) {
        Some(v) => u16::from_le_bytes([v[0], v[1]]),
        None => {
            return Err(TraceError::at_offset(
                FORMAT_NAME,
                input,
                4,
                "expected a version, found the end of the file",
            ));
        }
    };
    let body: std::borrow::Cow<'_, [u8]> = match version {
        VERSION => input[6..].into(),
        // Version 1 ended before the counters: an empty list (a zero length) completes it.
        1 => [&input[6..], &[0u8][..]].concat().into(),
        _ => {
            return Err(TraceError::at_offset(
                FORMAT_NAME,
                input,
                4,
                format!(
                    "unsupported version {version} (this build reads versions 1 and {VERSION})"
                ),
            ));
        }
    };
    let appended = body.len() - (input.len() - 6);
    let (trace, rest) = postcard::take_from_bytes::<Trace>(&body).map_err(|e| {
        TraceError::at_offset(
            FORMAT_NAME,
            input,
            6,
            format!("expected an encoded model: {e}"),
        )
    })?;
    if rest.len() > appended {
        let at = input.len() + appended - rest.len();
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            input,
            at,
            format!(
                "expected the end of the file, found {} more bytes",
                rest.len() - appended
            ),
        ));
    }
    Ok(trace)
}
