//! Reading any supported trace: format detection and dispatch to the importers.

use serde::{Deserialize, Serialize};

use crate::error::TraceError;
use crate::model::Trace;
use crate::native;

/// A trace format Tracescope reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Tracescope's own JSON format (`docs/native-format.md`).
    TracescopeJson,
}

impl Format {
    /// The format's name in errors, the API and run metadata.
    pub fn name(self) -> &'static str {
        match self {
            Format::TracescopeJson => native::FORMAT_NAME,
        }
    }

    /// Every format, for error messages and pickers.
    pub const ALL: [Format; 1] = [Format::TracescopeJson];
}

/// How much of the input detection looks at.
const SNIFF_LEN: usize = 4096;

/// Guesses the format from the first bytes of the input.
pub fn detect(input: &[u8]) -> Option<Format> {
    let head = &input[..input.len().min(SNIFF_LEN)];
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first = head.iter().position(|b| !b.is_ascii_whitespace())?;
    if head[first] == b'{' && contains(head, b"\"format\"") && contains(head, b"\"tracescope\"") {
        return Some(Format::TracescopeJson);
    }
    None
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A trace read from bytes, with the format it was read as.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The format the input was read as.
    pub format: Format,
    /// The trace.
    pub trace: Trace,
}

/// Reads a trace, detecting its format unless one is given.
/// `name` names the trace when the file itself carries no name (usually the file name).
pub fn import(input: &[u8], format: Option<Format>, name: &str) -> Result<Imported, TraceError> {
    let format = match format.or_else(|| detect(input)) {
        Some(format) => format,
        None => {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            return Err(TraceError::at_offset(
                "unknown",
                input,
                0,
                format!(
                    "unrecognised trace format: expected one of {}",
                    names.join(", ")
                ),
            ));
        }
    };
    let trace = match format {
        Format::TracescopeJson => native::parse(input, name)?,
    };
    Ok(Imported { format, trace })
}
