//! Reading any supported trace: format detection, transparent gzip, and dispatch to the
//! importers. Every importer takes bytes and returns a model or a `TraceError` naming the
//! format, the position and what was expected; problems it can live with become notes.

pub mod binary;
pub mod budget;
pub mod chrome;
pub mod native;
pub mod otf2;
pub mod paje;
pub mod paraver;
pub mod shiviz;
pub mod tmon;

mod reading;

use std::io::Read as _;

use serde::{Deserialize, Serialize};

use crate::model::Trace;
use crate::model::error::TraceError;
pub use budget::{Budget, Limit};

/// A trace format Tracescope reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Tracescope's own JSON format (`docs/native-format.md`).
    TracescopeJson,
    /// Chrome's Trace Event Format (JSON object or array).
    ChromeJson,
    /// Paraver `.prv` (BSC).
    Paraver,
    /// ShiViz / GoVector vector-clock logs.
    Shiviz,
    /// Pajé text traces.
    Paje,
    /// Tmon records (Jiang 1990) in Tracescope's container.
    Tmon,
    /// Tracescope's compact binary model.
    TracescopeBinary,
    /// An OTF2 archive (as a tar or tar.gz upload, or a directory).
    Otf2,
}

impl Format {
    /// The format's name in errors, the API and run metadata.
    pub fn name(self) -> &'static str {
        match self {
            Format::TracescopeJson => native::FORMAT_NAME,
            Format::ChromeJson => chrome::FORMAT_NAME,
            Format::Paraver => paraver::FORMAT_NAME,
            Format::Shiviz => shiviz::FORMAT_NAME,
            Format::Paje => paje::FORMAT_NAME,
            Format::Tmon => tmon::FORMAT_NAME,
            Format::TracescopeBinary => binary::FORMAT_NAME,
            Format::Otf2 => otf2::FORMAT_NAME,
        }
    }

    /// The format with this name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Every format, for error messages and pickers.
    pub const ALL: [Format; 8] = [
        Format::TracescopeJson,
        Format::TracescopeBinary,
        Format::Otf2,
        Format::ChromeJson,
        Format::Paraver,
        Format::Shiviz,
        Format::Paje,
        Format::Tmon,
    ];

    /// The format's position in [`Format::ALL`] (exhaustive, so a new format must be placed).
    pub fn index(self) -> usize {
        match self {
            Format::TracescopeJson => 0,
            Format::TracescopeBinary => 1,
            Format::Otf2 => 2,
            Format::ChromeJson => 3,
            Format::Paraver => 4,
            Format::Shiviz => 5,
            Format::Paje => 6,
            Format::Tmon => 7,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn every_format_is_listed_once_and_named_uniquely() {
        for (i, f) in Format::ALL.iter().enumerate() {
            assert_eq!(f.index(), i, "{f:?}");
            assert_eq!(Format::from_name(f.name()), Some(*f));
        }
    }
}

/// How much of the input detection looks at.
const SNIFF_LEN: usize = 4096;

/// Guesses the format from the first bytes of the (decompressed) input.
pub fn detect(input: &[u8]) -> Option<Format> {
    if input.starts_with(tmon::MAGIC) {
        return Some(Format::Tmon);
    }
    if input.starts_with(binary::MAGIC) {
        return Some(Format::TracescopeBinary);
    }
    // A tar is an OTF2 archive, or a Paraver trace with its label files.
    if otf2::is_tar(input) || otf2::is_anchor(input) {
        return Some(Format::Otf2);
    }
    let head = &input[..input.len().min(SNIFF_LEN)];
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let first = head.iter().position(|b| !b.is_ascii_whitespace())?;
    let text = &head[first..];
    if text[0] == b'{' && contains(text, b"\"format\"") && contains(text, b"\"tracescope\"") {
        return Some(Format::TracescopeJson);
    }
    if paje::looks_like(text) {
        return Some(Format::Paje);
    }
    if text.starts_with(b"#Paraver") {
        return Some(Format::Paraver);
    }
    let after_bracket = text[1..].iter().find(|b| !b.is_ascii_whitespace());
    if (text[0] == b'[' && matches!(after_bracket, Some(b'{') | Some(b']')))
        || (text[0] == b'{' && (contains(text, b"\"traceEvents\"") || contains(text, b"\"ph\"")))
    {
        return Some(Format::ChromeJson);
    }
    if shiviz::looks_like(text) {
        return Some(Format::Shiviz);
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
    /// Problems the importer tolerated (skipped records, dangling flows), for people.
    pub notes: Vec<String>,
}

/// Whether the input is gzip-compressed.
pub fn is_gzip(input: &[u8]) -> bool {
    input.starts_with(&[0x1f, 0x8b])
}

/// Decompresses gzip input, refusing it once it passes `max_bytes`: the stream is inflated
/// into a buffer that grows with what was inflated, so a bomb costs at most the budget.
pub fn gunzip(input: &[u8], max_bytes: u64) -> Result<Vec<u8>, TraceError> {
    let mut out = Vec::with_capacity(input.len().saturating_mul(4).min(max_bytes as usize));
    flate2::read::MultiGzDecoder::new(input)
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| {
            TraceError::at_offset("gzip", input, 0, format!("the gzip stream is damaged: {e}"))
        })?;
    Budget {
        max_input_bytes: max_bytes,
        ..Budget::UNLIMITED
    }
    .check(Limit::InputBytes, out.len() as u64, "gzip", input, 0)?;
    Ok(out)
}

/// Reads a tar archive: an OTF2 archive, or a Paraver `.prv` with its `.pcf` and `.row`.
fn import_tar(input: &[u8], name: &str, budget: &Budget) -> Result<Imported, TraceError> {
    import_tar_files(otf2::tar_files(input)?, name, budget)
}

/// Reads the files of a tar archive: an OTF2 archive, or a Paraver `.prv` with its labels.
fn import_tar_files(
    files: std::collections::BTreeMap<String, Vec<u8>>,
    name: &str,
    budget: &Budget,
) -> Result<Imported, TraceError> {
    if let Some((path, prv)) = files.iter().find(|(p, _)| p.ends_with(".prv")) {
        let stem = &path[..path.len() - 4];
        let text = |ext: &str| {
            files
                .get(&format!("{stem}.{ext}"))
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        let labels = text("pcf").map(|pcf| paraver::Labels::parse(&pcf));
        let (mut trace, notes) = paraver::parse(prv, labels.as_ref(), name, budget)?;
        if let Some(row) = text("row") {
            for (process, row_name) in trace.processes.iter_mut().zip(paraver::row_names(&row)) {
                process.name = row_name;
            }
        }
        return Ok(Imported {
            format: Format::Paraver,
            trace,
            notes,
        });
    }
    import_files(&files, name, budget)
}

/// Reads a trace made of several files (an OTF2 archive directory): paths and bytes.
pub fn import_files(
    files: &std::collections::BTreeMap<String, Vec<u8>>,
    name: &str,
    budget: &Budget,
) -> Result<Imported, TraceError> {
    let (trace, notes) = otf2::parse_archive(files, name, budget)?;
    budget.check_model(&trace, otf2::FORMAT_NAME, &[])?;
    Ok(Imported {
        format: Format::Otf2,
        trace,
        notes,
    })
}

/// Reads a trace within the default [`Budget`], decompressing gzip and detecting its format
/// unless one is given. `name` names the trace when the file itself carries no name (usually
/// the file name).
pub fn import(input: &[u8], format: Option<Format>, name: &str) -> Result<Imported, TraceError> {
    import_within(input, format, name, &Budget::default())
}

/// [`import`] within `budget`: an input that needs more is refused with an error naming the
/// limit ([`TraceError::exceeded`]).
pub fn import_within(
    input: &[u8],
    format: Option<Format>,
    name: &str,
    budget: &Budget,
) -> Result<Imported, TraceError> {
    let options = ImportOptions {
        budget: *budget,
        ..ImportOptions::default()
    };
    import_with(input, format, name, &options)
}

/// How to read a trace: its budget, and what its format leaves unsaid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The limits of the import.
    pub budget: Budget,
    /// The unit of a Pajé trace's dates (`None`: seconds, or milliseconds for EZTrace's).
    pub time_unit: Option<paje::TimeUnit>,
}

/// [`import`] with `options`.
pub fn import_with(
    input: &[u8],
    format: Option<Format>,
    name: &str,
    options: &ImportOptions,
) -> Result<Imported, TraceError> {
    let budget = &options.budget;
    if is_gzip(input) {
        // A tar (an OTF2 archive, a Paraver trace with its labels) streams from the
        // decompressor into its files: no inflated copy of the whole archive is held.
        let mut head = Vec::with_capacity(512);
        let _ = flate2::read::MultiGzDecoder::new(input)
            .take(512)
            .read_to_end(&mut head);
        if otf2::is_tar(&head) && matches!(format, None | Some(Format::Otf2)) {
            let reader = flate2::read::MultiGzDecoder::new(input);
            let files = otf2::tar_files_from(reader, input, budget.max_input_bytes)?;
            return import_tar_files(files, name, budget);
        }
        let plain = gunzip(input, budget.max_input_bytes)?;
        return import_with(&plain, format, name, options);
    }
    budget.check(Limit::InputBytes, input.len() as u64, "input", input, 0)?;
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
    let (trace, notes) = match format {
        Format::TracescopeJson => (native::parse(input, name, budget)?, Vec::new()),
        Format::ChromeJson => chrome::parse(input, name, budget)?,
        Format::Paraver => paraver::parse(input, None, name, budget)?,
        Format::Shiviz => shiviz::parse(input, None, name, budget)?,
        Format::Paje => paje::parse(input, name, budget, options.time_unit)?,
        Format::Tmon => tmon::parse(input, name, budget)?,
        Format::TracescopeBinary => (binary::parse(input)?, Vec::new()),
        Format::Otf2 if otf2::is_anchor(input) => {
            return Err(TraceError::at_offset(
                "otf2",
                input,
                0,
                "this is only the anchor file of an OTF2 archive: upload the whole archive as a .tar or .tar.gz",
            ));
        }
        Format::Otf2 => return import_tar(input, name, budget),
    };
    budget.check_model(&trace, format.name(), input)?;
    Ok(Imported {
        format,
        trace,
        notes,
    })
}
