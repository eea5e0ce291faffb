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
pub mod projections;
pub mod shiviz;
pub mod tmon;

mod json_stream;
mod reading;
pub mod stream;

use std::io::Read as _;

use serde::{Deserialize, Serialize};

use crate::model::Trace;
use crate::model::error::{Position, TraceError};
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
    /// Charm++ Projections logs: a `.sts` and one `.log` per PE (as a tar, or a directory).
    Projections,
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
            Format::Projections => projections::FORMAT_NAME,
        }
    }

    /// The format with this name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Every format, for error messages and pickers.
    pub const ALL: [Format; 9] = [
        Format::TracescopeJson,
        Format::TracescopeBinary,
        Format::Otf2,
        Format::ChromeJson,
        Format::Paraver,
        Format::Shiviz,
        Format::Paje,
        Format::Tmon,
        Format::Projections,
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
            Format::Projections => 8,
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
    if projections::looks_like_sts(text) || projections::looks_like_log(text) {
        return Some(Format::Projections);
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
    if projections::is_projections_set(files.keys()) {
        return import_files(&files, name, budget);
    }
    if let Some((path, prv)) = files.iter().find(|(p, _)| p.ends_with(".prv")) {
        let stem = &path[..path.len() - 4];
        let text = |ext: &str| {
            files
                .get(&format!("{stem}.{ext}"))
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        let labels = text("pcf").map(|pcf| paraver::Labels::parse(&pcf));
        let (mut trace, notes) =
            paraver::parse(&mut prv.as_slice(), labels.as_ref(), name, budget)?;
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

/// Reads a trace made of several files (an OTF2 archive directory, or a Projections `.sts` with
/// its logs): paths and bytes.
pub fn import_files(
    files: &std::collections::BTreeMap<String, Vec<u8>>,
    name: &str,
    budget: &Budget,
) -> Result<Imported, TraceError> {
    if projections::is_projections_set(files.keys()) {
        let files = inflated(files, budget)?;
        let (trace, notes) = projections::parse_files(&files, name, budget)?;
        budget.check_model(&trace, projections::FORMAT_NAME, &[])?;
        return Ok(Imported {
            format: Format::Projections,
            trace,
            notes,
        });
    }
    let (trace, notes) = otf2::parse_archive(files, name, budget)?;
    budget.check_model(&trace, otf2::FORMAT_NAME, &[])?;
    Ok(Imported {
        format: Format::Otf2,
        trace,
        notes,
    })
}

/// The files with each gzip one inflated (keeping its name), all within the budget's input
/// limit, the others borrowed as they are; an error names the file.
fn inflated<'a>(
    files: &'a std::collections::BTreeMap<String, Vec<u8>>,
    budget: &Budget,
) -> Result<std::collections::BTreeMap<String, std::borrow::Cow<'a, [u8]>>, TraceError> {
    let mut total = 0u64;
    let mut out = std::collections::BTreeMap::new();
    for (path, bytes) in files {
        let text = if is_gzip(bytes) {
            std::borrow::Cow::Owned(
                gunzip(bytes, budget.max_input_bytes.saturating_sub(total)).map_err(|mut e| {
                    e.format = projections::FORMAT_NAME.to_owned();
                    e.message = format!("{path}: {}", e.message);
                    e
                })?,
            )
        } else {
            std::borrow::Cow::Borrowed(bytes.as_slice())
        };
        total = total.saturating_add(text.len() as u64);
        out.insert(path.clone(), text);
    }
    Ok(out)
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
        return import_reader(input, format, name, options);
    }
    budget.check(Limit::InputBytes, input.len() as u64, "input", input, 0)?;
    let format = detected(format, input)?;
    let (trace, notes) = match format {
        Format::Otf2 if !otf2::is_anchor(input) => return import_tar(input, name, budget),
        Format::Projections if otf2::is_tar(input) => return import_tar(input, name, budget),
        f => parse_whole(f, input, name, options)?,
    };
    budget.check_model(&trace, format.name(), input)?;
    Ok(Imported {
        format,
        trace,
        notes,
    })
}

/// [`import_with`] from a stream (a file, an upload spooled to disk): gzip is inflated as it is
/// read, a tar streams into its files, and the text formats whose text is larger than the
/// model built from it are parsed as they arrive (Paraver and Pajé a line at a time, Chrome
/// and native JSON an event at a time), so the input is never held whole. The other formats
/// are read whole within the input limit: their encoding is more compact than the model
/// (Tmon, the binary model, OTF2), or their reading needs the whole text (ShiViz's multi-line
/// expressions).
pub fn import_reader(
    reader: impl std::io::Read,
    format: Option<Format>,
    name: &str,
    options: &ImportOptions,
) -> Result<Imported, TraceError> {
    let budget = &options.budget;
    let failed = |e: std::io::Error| stream::io_error("input", &e, Position::START, budget);
    let (magic, reader) = stream::peek(reader, 2).map_err(failed)?;
    if is_gzip(&magic) {
        import_plain_reader(stream::Gunzip::new(reader), format, name, options)
    } else {
        import_plain_reader(reader, format, name, options)
    }
}

/// [`import_reader`] once the stream is not gzip (any more).
fn import_plain_reader(
    reader: impl std::io::Read,
    format: Option<Format>,
    name: &str,
    options: &ImportOptions,
) -> Result<Imported, TraceError> {
    let budget = &options.budget;
    let max = budget.max_input_bytes;
    let failed = |e: std::io::Error| stream::io_error("input", &e, Position::START, budget);
    let (head, reader) = stream::peek(reader, SNIFF_LEN).map_err(failed)?;
    if otf2::is_tar(&head)
        && matches!(
            format,
            None | Some(Format::Otf2) | Some(Format::Projections)
        )
    {
        let files = otf2::tar_files_from(reader, &head, max)?;
        return import_tar_files(files, name, budget);
    }
    let format = detected(format, &head)?;
    let mut reader = stream::Limited::new(reader, max);
    let (trace, notes) = if streams(format) {
        let mut buffered = std::io::BufReader::with_capacity(1 << 16, reader);
        parse_stream(format, &mut buffered, name, options)?
    } else {
        let mut whole = Vec::new();
        reader.read_to_end(&mut whole).map_err(failed)?;
        if format == Format::Otf2 && !otf2::is_anchor(&whole) {
            return import_tar(&whole, name, budget);
        }
        parse_whole(format, &whole, name, options)?
    };
    budget.check_model(&trace, format.name(), &[])?;
    Ok(Imported {
        format,
        trace,
        notes,
    })
}

/// The format asked for, or the one detected from the input's first bytes.
fn detected(format: Option<Format>, head: &[u8]) -> Result<Format, TraceError> {
    format.or_else(|| detect(head)).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        TraceError::at_offset(
            "unknown",
            head,
            0,
            format!(
                "unrecognised trace format: expected one of {}",
                names.join(", ")
            ),
        )
    })
}

/// Whether a format is parsed as it streams in.
fn streams(format: Format) -> bool {
    matches!(
        format,
        Format::Paraver | Format::Paje | Format::ChromeJson | Format::TracescopeJson
    )
}

/// Parses a format that [`streams`].
fn parse_stream(
    format: Format,
    reader: &mut dyn std::io::BufRead,
    name: &str,
    options: &ImportOptions,
) -> Result<(Trace, Vec<String>), TraceError> {
    match format {
        Format::Paraver => paraver::parse(reader, None, name, &options.budget),
        Format::ChromeJson => chrome::parse(reader, name, &options.budget),
        Format::TracescopeJson => Ok((native::parse(reader, name, &options.budget)?, Vec::new())),
        _ => paje::parse(reader, name, &options.budget, options.time_unit),
    }
}

/// Parses a format from its whole input (an OTF2 archive is a tar: only its anchor file comes
/// here, to be refused).
fn parse_whole(
    format: Format,
    input: &[u8],
    name: &str,
    options: &ImportOptions,
) -> Result<(Trace, Vec<String>), TraceError> {
    let budget = &options.budget;
    Ok(match format {
        Format::Shiviz => shiviz::parse(input, None, name, budget)?,
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
        Format::Otf2 => {
            return Err(TraceError::at_offset(
                "otf2",
                input,
                0,
                "expected a tar archive",
            ));
        }
        Format::Projections => return Err(projections::lone_file_error(input)),
        Format::Paraver | Format::Paje | Format::ChromeJson | Format::TracescopeJson => {
            parse_stream(format, &mut &input[..], name, options)?
        }
    })
}
