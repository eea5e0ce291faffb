//! Reading any supported trace: format detection, transparent gzip, and dispatch to the
//! importers. Every importer takes bytes and returns a model or a `TraceError` naming the
//! format, the position and what was expected; problems it can live with become notes.

pub mod binary;
pub mod budget;
pub mod chrome;
mod extrae_mpi;
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

/// How far detection reads into a JSON document to find what it is, when its first
/// [`SNIFF_LEN`] bytes do not say (leading whitespace, a long metadata member before the
/// events).
const JSON_SNIFF_LEN: usize = 16 << 20;

/// What detection makes of an input's first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sniffed {
    /// A trace of this format.
    Format(Format),
    /// Nothing but whitespace (and perhaps a byte-order mark).
    Empty,
    /// A JSON document that is not a trace.
    JsonNotATrace,
    /// A JSON document whose first bytes do not say yet what it is: read further.
    JsonNeedsMore,
    /// Nothing known.
    Unknown,
}

/// Guesses the format from the first bytes of the (decompressed) input.
pub fn detect(input: &[u8]) -> Option<Format> {
    match sniff(input, true) {
        Sniffed::Format(f) => Some(f),
        _ => None,
    }
}

/// What the first bytes of the input (all of it when `complete`) say it is.
fn sniff(input: &[u8], complete: bool) -> Sniffed {
    if input.starts_with(tmon::MAGIC) {
        return Sniffed::Format(Format::Tmon);
    }
    if input.starts_with(binary::MAGIC) {
        return Sniffed::Format(Format::TracescopeBinary);
    }
    // A tar is an OTF2 archive, or a Paraver trace with its label files.
    if otf2::is_tar(input) || otf2::is_anchor(input) {
        return Sniffed::Format(Format::Otf2);
    }
    let whole = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let Some(first) = whole.iter().position(|b| !b.is_ascii_whitespace()) else {
        // Whitespace alone: an empty file, unless more of it is still to come.
        return if complete {
            Sniffed::Empty
        } else {
            Sniffed::JsonNeedsMore
        };
    };
    let json = &whole[first..whole.len().min(first + JSON_SNIFF_LEN)];
    let text = &whole[first..whole.len().min(first + SNIFF_LEN)];
    if paje::looks_like(text) {
        return Sniffed::Format(Format::Paje);
    }
    if text.starts_with(b"#Paraver") {
        return Sniffed::Format(Format::Paraver);
    }
    if projections::looks_like_sts(text) || projections::looks_like_log(text) {
        return Sniffed::Format(Format::Projections);
    }
    // The JSON window is the whole document when the input is, and reaches its end.
    let json_complete = complete && first + json.len() == whole.len();
    match sniff_json(json, json_complete) {
        JsonSniff::Chrome => return Sniffed::Format(Format::ChromeJson),
        JsonSniff::Native => return Sniffed::Format(Format::TracescopeJson),
        JsonSniff::NotATrace => return Sniffed::JsonNotATrace,
        JsonSniff::NeedsMore => return Sniffed::JsonNeedsMore,
        JsonSniff::NotJson => {}
    }
    if shiviz::looks_like(text) {
        return Sniffed::Format(Format::Shiviz);
    }
    Sniffed::Unknown
}

/// What a JSON document is, from its top level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonSniff {
    /// An array whose first element is an object, or an object with `traceEvents` (or a `ph`).
    Chrome,
    /// An object whose `format` is `"tracescope"`.
    Native,
    /// Another JSON document.
    NotATrace,
    /// The bytes end before saying.
    NeedsMore,
    /// Not JSON.
    NotJson,
}

/// Reads the top level of the JSON document that `text` begins (at its first non-blank byte)
/// far enough to say what it is: the members of an object are skipped, without being parsed,
/// until one names the format. `complete` says that `text` is the whole document.
fn sniff_json(text: &[u8], complete: bool) -> JsonSniff {
    let ran_out = if complete {
        JsonSniff::NotATrace
    } else {
        JsonSniff::NeedsMore
    };
    let blank = |i: &mut usize| {
        while text.get(*i).is_some_and(|b| b.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    let mut i = 1;
    match text.first() {
        Some(b'[') => {
            blank(&mut i);
            return match text.get(i) {
                Some(b'{' | b']') => JsonSniff::Chrome,
                // An array cut off before its first event is an empty trace.
                None if complete => JsonSniff::Chrome,
                None => JsonSniff::NeedsMore,
                // Another JSON value first is JSON, not a trace; anything else (a log line
                // such as `[INFO] …` or `[2014-10-13 …]`) is not JSON.
                Some(_) => match value_end(text, i) {
                    None => ran_out,
                    Some(end) => {
                        let mut next = end;
                        blank(&mut next);
                        let value = serde_json::from_slice::<serde::de::IgnoredAny>(&text[i..end]);
                        match (value, text.get(next)) {
                            (Ok(_), Some(b',' | b']')) => JsonSniff::NotATrace,
                            (Ok(_), None) => ran_out,
                            _ => JsonSniff::NotJson,
                        }
                    }
                },
            };
        }
        Some(b'{') => {}
        _ => return JsonSniff::NotJson,
    }
    loop {
        blank(&mut i);
        match text.get(i) {
            Some(b'}') => return JsonSniff::NotATrace,
            Some(b'"') => {}
            Some(_) => return JsonSniff::NotJson,
            None => return ran_out,
        }
        let Some(key_end) = string_end(text, i) else {
            return ran_out;
        };
        let key = &text[i + 1..key_end - 1];
        i = key_end;
        blank(&mut i);
        match text.get(i) {
            Some(b':') => i += 1,
            Some(_) => return JsonSniff::NotJson,
            None => return ran_out,
        }
        blank(&mut i);
        if key == b"traceEvents" || key == b"ph" {
            return JsonSniff::Chrome;
        }
        if key == b"format" && text[i..].starts_with(b"\"tracescope") {
            return JsonSniff::Native;
        }
        let Some(value_end) = value_end(text, i) else {
            return ran_out;
        };
        i = value_end;
        blank(&mut i);
        match text.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => return JsonSniff::NotATrace,
            Some(_) => return JsonSniff::NotJson,
            None => return ran_out,
        }
    }
}

/// The index just past the JSON string that begins at `text[start]` (a `"`), if it ends.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut escaped = false;
    for (i, &b) in text.iter().enumerate().skip(start + 1) {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// The index just past the JSON value that begins at `text[start]`, if it ends: a string, an
/// object or array (to its matching close, strings skipped), or a scalar (to a delimiter).
fn value_end(text: &[u8], start: usize) -> Option<usize> {
    match text.get(start)? {
        b'"' => string_end(text, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            while let Some(&b) = text.get(i) {
                match b {
                    b'"' => {
                        i = string_end(text, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => text[start..]
            .iter()
            .position(|&b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
            .map(|n| start + n),
    }
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
    import_tar_files(
        otf2::tar_files_from(input, input, u64::MAX, tar_member)?,
        name,
        budget,
    )
}

/// Whether a tar member is a file some importer reads from a tar (an OTF2 archive's, a
/// Paraver trace's `.prv`, `.pcf` or `.row`, a Projections `.sts` with its logs, a ShiViz log
/// with its `expression.txt`): the
/// others (a profile, a copy of the program lying in the folder) are read past, never held.
fn tar_member(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    otf2::archive_member(path)
        || [
            ".prv", ".prv.gz", ".pcf", ".row", ".sts", ".log", ".log.gz", ".shiviz", ".txt",
        ]
        .iter()
        .any(|ext| lower.ends_with(ext))
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
    let prv = files
        .iter()
        .find(|(p, _)| p.ends_with(".prv") || p.ends_with(".prv.gz"));
    if let Some((path, prv)) = prv {
        let stem = path
            .strip_suffix(".gz")
            .unwrap_or(path)
            .strip_suffix(".prv")
            .unwrap_or(path);
        // The label files of the same stem, else the archive's only one of that kind.
        let side = |ext: &str| {
            files.get(&format!("{stem}.{ext}")).or_else(|| {
                let mut of_kind = files
                    .iter()
                    .filter(|(p, _)| p.ends_with(&format!(".{ext}")));
                match (of_kind.next(), of_kind.next()) {
                    (Some((_, bytes)), None) => Some(bytes),
                    _ => None,
                }
            })
        };
        let options = ImportOptions {
            budget: *budget,
            ..ImportOptions::default()
        };
        // The error's offset is in the .prv: the message says which entry that is.
        return import_paraver(
            prv.as_slice(),
            side("pcf").map(Vec::as_slice),
            side("row").map(Vec::as_slice),
            name,
            &options,
        )
        .map_err(|mut e| {
            e.message = format!("in the tar entry {path:?}: {}", e.message);
            e
        });
    }
    import_files(&files, name, budget)
}

/// Reads a Paraver trace (`.prv`, or `.prv.gz`) as a stream with its `.pcf` labels and `.row`
/// names when given: the files lying beside it on disk or packed with it in a tar. Labels
/// only name regions, counters and processes: the events are the same without them.
pub fn import_paraver(
    prv: impl std::io::Read,
    pcf: Option<&[u8]>,
    row: Option<&[u8]>,
    name: &str,
    options: &ImportOptions,
) -> Result<Imported, TraceError> {
    let budget = &options.budget;
    let failed = |e: std::io::Error| stream::io_error("input", &e, Position::START, budget);
    let (magic, reader) = stream::peek(prv, 2).map_err(failed)?;
    let reader: Box<dyn std::io::Read + '_> = if is_gzip(&magic) {
        Box::new(stream::Gunzip::new(reader))
    } else {
        Box::new(reader)
    };
    let reader = stream::Limited::new(reader, budget.max_input_bytes);
    let mut buffered = std::io::BufReader::with_capacity(1 << 16, reader);
    let labels = pcf.map(|pcf| paraver::Labels::parse(&String::from_utf8_lossy(pcf)));
    let (mut trace, notes) = paraver::parse(&mut buffered, labels.as_ref(), name, budget)?;
    if let Some(row) = row {
        let row = String::from_utf8_lossy(row);
        for (process, row_name) in trace.processes.iter_mut().zip(paraver::row_names(&row)) {
            process.name = row_name;
        }
    }
    budget.check_model(&trace, paraver::FORMAT_NAME, &[])?;
    Ok(Imported {
        format: Format::Paraver,
        trace,
        notes,
    })
}

/// Reads a trace made of several files (an OTF2 archive directory, a Projections `.sts` with
/// its logs, or a ShiViz log with its `expression.txt`): paths and bytes.
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
    if let Some((trace, notes)) = shiviz::parse_with_sidecar(files, name, budget)? {
        budget.check_model(&trace, shiviz::FORMAT_NAME, &[])?;
        return Ok(Imported {
            format: Format::Shiviz,
            trace,
            notes,
        });
    }
    import_archive(files, name, budget)
}

/// Reads an OTF2 archive from `source`, which is asked only for the files the archive names
/// (a folder's other files are never read).
pub fn import_archive(
    source: &impl otf2::ArchiveSource,
    name: &str,
    budget: &Budget,
) -> Result<Imported, TraceError> {
    let (trace, notes) = otf2::parse_archive_from(source, name, budget)?;
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
    let format = detected(format, input, true)?;
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
        let files = otf2::tar_files_from(reader, &head, max, tar_member)?;
        return import_tar_files(files, name, budget);
    }
    if format.is_none() && sniff(&head, head.len() < SNIFF_LEN) == Sniffed::JsonNeedsMore {
        // A JSON document that does not say what it is in its first bytes: look further (the
        // bytes looked at are read again by the parser, and count towards the input limit).
        let window =
            JSON_SNIFF_LEN.min(usize::try_from(max).unwrap_or(usize::MAX).saturating_add(1));
        let (head, reader) = stream::peek(reader, window).map_err(failed)?;
        let format = detected(None, &head, head.len() < window)?;
        return import_detected(reader, format, name, options);
    }
    let format = detected(format, &head, head.len() < SNIFF_LEN)?;
    import_detected(reader, format, name, options)
}

/// [`import_plain_reader`] once the format is known.
fn import_detected(
    reader: impl std::io::Read,
    format: Format,
    name: &str,
    options: &ImportOptions,
) -> Result<Imported, TraceError> {
    let budget = &options.budget;
    let max = budget.max_input_bytes;
    let failed = |e: std::io::Error| stream::io_error("input", &e, Position::START, budget);
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

/// The format asked for, or the one detected from the input's first bytes (all of it when
/// `complete`); else an error saying what the input is, if known.
fn detected(format: Option<Format>, head: &[u8], complete: bool) -> Result<Format, TraceError> {
    if let Some(format) = format {
        return Ok(format);
    }
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    let message = match sniff(head, complete) {
        Sniffed::Format(format) => return Ok(format),
        Sniffed::Empty => "empty file: expected a trace, found no data".to_owned(),
        Sniffed::JsonNotATrace => "JSON but not a trace: expected a Chrome trace (an array of events, or an object with \"traceEvents\") or a Tracescope document (\"format\": \"tracescope\")".to_owned(),
        Sniffed::JsonNeedsMore | Sniffed::Unknown => format!(
            "unrecognised trace format: expected one of {}",
            names.join(", ")
        ),
    };
    Err(TraceError::at_offset("unknown", head, 0, message))
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
