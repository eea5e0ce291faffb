//! What the commands share: reading a trace from a file or an OTF2 folder, and writing one.

use anyhow::Context as _;

/// What `tracescope convert` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum OutputFormat {
    /// Chrome Trace Event JSON (opens in Perfetto and chrome://tracing, with message arrows).
    ChromeJson,
    /// Tracescope's JSON format.
    Native,
    /// Tracescope's compact binary format.
    Binary,
    /// Tmon records (Jiang 1990) in Tracescope's container.
    Tmon,
}

/// A trace format by its name, for `--format`.
pub fn parse_format(name: &str) -> Result<shared::formats::Format, String> {
    shared::formats::Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = shared::formats::Format::ALL
            .iter()
            .map(|f| f.name())
            .collect();
        format!(
            "unknown format {name:?}; expected one of {}",
            names.join(", ")
        )
    })
}

/// Reads a trace from a file, or from an OTF2 archive given as its directory or anchor file.
pub fn read_trace(
    path: &std::path::Path,
    format: Option<shared::formats::Format>,
) -> anyhow::Result<shared::formats::Imported> {
    let name = path
        .file_name()
        .map_or_else(|| "trace".to_owned(), |n| n.to_string_lossy().into_owned());
    let archive_dir = if path.is_dir() {
        Some(path.to_path_buf())
    } else if path.extension().is_some_and(|e| e == "otf2") {
        path.parent().map(std::path::Path::to_path_buf)
    } else {
        None
    };
    if let Some(dir) = archive_dir {
        let (files, skipped) = archive_files(&dir)?;
        let mut imported = shared::formats::import_files(&files, &name)?;
        imported.notes.extend(skipped);
        return Ok(imported);
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(shared::formats::import(&bytes, format, &name)?)
}

/// An archive's files by path inside it.
type ArchiveFiles = std::collections::BTreeMap<String, Vec<u8>>;

/// The regular files of an archive folder and its subfolders, by path inside it, and a note
/// for each entry left unread: a symbolic link (it may lead out of the folder, or to a device)
/// or anything that is not a regular file (a FIFO would block the read, a device never end).
fn archive_files(dir: &std::path::Path) -> anyhow::Result<(ArchiveFiles, Vec<String>)> {
    let mut files = std::collections::BTreeMap::new();
    let mut skipped = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let entry = entry?;
            let p = entry.path();
            // The entry's own type: a symbolic link is not followed.
            let kind = entry
                .file_type()
                .with_context(|| format!("reading {}", p.display()))?;
            if kind.is_dir() {
                pending.push(p);
            } else if kind.is_file() {
                let key = p
                    .strip_prefix(dir)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .replace('\\', "/");
                let bytes =
                    std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
                files.insert(key, bytes);
            } else {
                let what = if kind.is_symlink() {
                    "a symbolic link"
                } else {
                    "not a regular file"
                };
                skipped.push(format!("{} was not read: it is {what}", p.display()));
            }
        }
    }
    Ok((files, skipped))
}

/// `trace` in the format `to`.
pub fn encode(trace: &shared::model::Trace, to: OutputFormat) -> anyhow::Result<Vec<u8>> {
    Ok(match to {
        OutputFormat::ChromeJson => shared::formats::chrome::write(trace).into_bytes(),
        OutputFormat::Native => shared::formats::native::write(trace).into_bytes(),
        OutputFormat::Binary => shared::formats::binary::write(trace),
        OutputFormat::Tmon => {
            let (bytes, notes) = shared::formats::tmon::write(trace)?;
            for note in notes {
                eprintln!("note: {note}");
            }
            bytes
        }
    })
}
