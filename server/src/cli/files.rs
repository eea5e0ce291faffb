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
        let mut files = std::collections::BTreeMap::new();
        let mut pending = vec![dir.clone()];
        while let Some(d) = pending.pop() {
            for entry in
                std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?
            {
                let p = entry?.path();
                if p.is_dir() {
                    pending.push(p);
                } else if let Ok(relative) = p.strip_prefix(&dir) {
                    let key = relative.to_string_lossy().replace('\\', "/");
                    files.insert(
                        key,
                        std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?,
                    );
                }
            }
        }
        return Ok(shared::formats::import_files(&files, &name)?);
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(shared::formats::import(&bytes, format, &name)?)
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
