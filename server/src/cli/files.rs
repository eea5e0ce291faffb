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

/// How the commands that read traces read them: the import budget, whose limits left out take
/// their defaults (scaled to the upload limit, 1 GiB unless `serve` is given another, and the
/// memory budget, 16 GiB), and what a format leaves unsaid.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct ReadArgs {
    /// The unit of a Pajé trace's dates: s, ms, us or ns (default: seconds, or milliseconds
    /// for a trace EZTrace 1.x wrote).
    #[arg(long, value_parser = parse_time_unit)]
    pub time_unit: Option<shared::formats::paje::TimeUnit>,
    /// The memory one import or one run's analyses may take, in bytes: imports take up to
    /// one event per 128 bytes of it, analyses one per 512. For `serve` it is also what all
    /// imports and analyses under way reserve from together (default: half of the machine's
    /// memory, between 256 MiB and 16 GiB; elsewhere 16 GiB).
    #[arg(long)]
    pub max_memory_bytes: Option<u64>,
    /// The most bytes a trace may have after decompression.
    #[arg(long)]
    pub max_input_bytes: Option<u64>,
    /// The most events a trace may have.
    #[arg(long)]
    pub max_events: Option<u64>,
    /// The most processes (locations, threads, ranks) a trace may have.
    #[arg(long)]
    pub max_processes: Option<u64>,
    /// The deepest region nesting a trace may have in one process.
    #[arg(long)]
    pub max_depth: Option<u64>,
}

/// A Pajé time unit by its short name, for `--time-unit`.
pub fn parse_time_unit(name: &str) -> Result<shared::formats::paje::TimeUnit, String> {
    shared::formats::paje::TimeUnit::from_name(name)
        .ok_or_else(|| format!("unknown time unit {name:?}; expected s, ms, us or ns"))
}

impl ReadArgs {
    /// The import options for an upload limit of `upload_bytes`.
    pub fn options(&self, upload_bytes: u64) -> shared::formats::ImportOptions {
        shared::formats::ImportOptions {
            budget: self.budget(upload_bytes),
            time_unit: self.time_unit,
        }
    }

    /// The import options of a command that analyses what it reads: the event limit is also
    /// what the memory budget pays analyses for (unless `--max-events` is given).
    pub fn analysis_options(&self, upload_bytes: u64) -> shared::formats::ImportOptions {
        let mut options = self.options(upload_bytes);
        if self.max_events.is_none() {
            options.budget.max_events = options.budget.max_events.min(self.max_analysed_events());
        }
        options
    }

    /// The most events whose analyses the memory budget pays for.
    pub fn max_analysed_events(&self) -> u64 {
        shared::formats::budget::analysed_events(
            self.max_memory_bytes
                .unwrap_or(shared::formats::budget::DEFAULT_MEMORY_BYTES),
        )
    }

    /// The budget for an upload limit of `upload_bytes`, with the limits given overriding.
    pub fn budget(&self, upload_bytes: u64) -> shared::formats::Budget {
        let memory = self
            .max_memory_bytes
            .unwrap_or(shared::formats::budget::DEFAULT_MEMORY_BYTES);
        let base = shared::formats::Budget::scaled(upload_bytes, memory);
        shared::formats::Budget {
            max_input_bytes: self.max_input_bytes.unwrap_or(base.max_input_bytes),
            max_events: self.max_events.unwrap_or(base.max_events),
            max_processes: self.max_processes.unwrap_or(base.max_processes),
            max_depth: self.max_depth.unwrap_or(base.max_depth),
        }
    }
}

/// Refuses a file larger than the budget's input before reading it.
fn check_size(path: &std::path::Path, budget: &shared::formats::Budget) -> anyhow::Result<()> {
    let len = std::fs::metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .len();
    if len > budget.max_input_bytes {
        anyhow::bail!(
            "{} has {len} bytes, more than the import budget's {} ({} raises it)",
            path.display(),
            budget.max_input_bytes,
            shared::formats::Limit::InputBytes.option()
        );
    }
    Ok(())
}

/// Reads a trace from a file, or from an OTF2 archive given as its directory or anchor file.
pub fn read_trace(
    path: &std::path::Path,
    format: Option<shared::formats::Format>,
    options: &shared::formats::ImportOptions,
) -> anyhow::Result<shared::formats::Imported> {
    let budget = &options.budget;
    let name = path
        .file_name()
        .map_or_else(|| "trace".to_owned(), |n| n.to_string_lossy().into_owned());
    if let Some((dir, stem)) = projections_run(path) {
        let files = projections_files(&dir, &stem, budget)?;
        return Ok(shared::formats::import_files(&files, &name, budget)?);
    }
    if path.is_dir() {
        return read_archive(path, None, &name, budget);
    }
    if path.extension().is_some_and(|e| e == "otf2")
        && let (Some(dir), Some(anchor)) = (path.parent(), path.file_name())
    {
        return read_archive(
            dir,
            Some(anchor.to_string_lossy().into_owned()),
            &name,
            budget,
        );
    }
    let file = open_trace(path, budget)?;
    if let Some((pcf, row)) = paraver_companions(path, format, budget)? {
        return Ok(shared::formats::import_paraver(
            std::io::BufReader::with_capacity(1 << 16, file),
            pcf.as_deref(),
            row.as_deref(),
            &name,
            options,
        )?);
    }
    Ok(shared::formats::import_reader(
        std::io::BufReader::with_capacity(1 << 16, file),
        format,
        &name,
        options,
    )?)
}

/// A Paraver trace's `.pcf` and `.row`, when present.
type Companions = (Option<Vec<u8>>, Option<Vec<u8>>);

/// The `.pcf` labels and `.row` names lying beside a Paraver trace given by its path
/// (`x.prv` or `x.prv.gz` beside `x.pcf` and `x.row`), when there is at least one of them and
/// the file is read as Paraver; `None` for any other file.
fn paraver_companions(
    path: &std::path::Path,
    format: Option<shared::formats::Format>,
    budget: &shared::formats::Budget,
) -> anyhow::Result<Option<Companions>> {
    if !matches!(format, None | Some(shared::formats::Format::Paraver)) {
        return Ok(None);
    }
    let file = path.to_string_lossy();
    let Some(stem) = file
        .strip_suffix(".gz")
        .unwrap_or(&file)
        .strip_suffix(".prv")
    else {
        return Ok(None);
    };
    let read = |ext: &str| -> anyhow::Result<Option<Vec<u8>>> {
        let side = std::path::PathBuf::from(format!("{stem}.{ext}"));
        if !side.is_file() {
            return Ok(None);
        }
        check_size(&side, budget)?;
        Ok(Some(
            std::fs::read(&side).with_context(|| format!("reading {}", side.display()))?,
        ))
    };
    let (pcf, row) = (read("pcf")?, read("row")?);
    Ok((pcf.is_some() || row.is_some()).then_some((pcf, row)))
}

/// Opens a trace file for reading as a stream, after checking that its size is within the
/// budget (a pipe or a device has no size: the importer counts what it reads instead).
pub fn open_trace(
    path: &std::path::Path,
    budget: &shared::formats::Budget,
) -> anyhow::Result<std::fs::File> {
    check_size(path, budget)?;
    std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))
}

/// The files of a Projections trace, by name.
type ArchiveFiles = std::collections::BTreeMap<String, Vec<u8>>;

/// The folder and stem of a Projections trace given as its `.sts` file, as one of its logs
/// with the `.sts` beside it, or as a folder holding one `.sts` (a folder with none, or with
/// several, is not one).
fn projections_run(path: &std::path::Path) -> Option<(std::path::PathBuf, String)> {
    let is_sts = |p: &std::path::Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(shared::formats::projections::is_sts_path)
    };
    if path.is_dir() {
        let mut found = std::fs::read_dir(path)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && is_sts(p));
        let sts = found.next()?;
        if found.next().is_some() {
            return None;
        }
        let stem = sts.file_stem()?.to_string_lossy().into_owned();
        return Some((path.to_path_buf(), stem));
    }
    // One of the logs, whose .sts lies beside it: the whole trace.
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if shared::formats::projections::is_log_path(file) {
        let stem = file
            .trim_end_matches(".gz")
            .trim_end_matches(".log")
            .rsplit_once('.')
            .map(|(stem, _)| stem)?;
        let sts = path.with_file_name(format!("{stem}.sts"));
        if sts.is_file() {
            return projections_run(&sts);
        }
        return None;
    }
    if is_sts(path) {
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        let stem = path.file_stem()?.to_string_lossy().into_owned();
        return Some((dir.to_path_buf(), stem));
    }
    None
}

/// The files of a Projections trace: `STEM.sts` and the logs `STEM.N.log` or `STEM.N.log.gz`
/// beside it, and nothing else from the folder (a folder of runs holds other runs' logs).
fn projections_files(
    dir: &std::path::Path,
    stem: &str,
    budget: &shared::formats::Budget,
) -> anyhow::Result<ArchiveFiles> {
    let mut files = ArchiveFiles::new();
    let mut total = 0u64;
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let Some(file) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let Some(rest) = file.strip_prefix(stem).and_then(|r| r.strip_prefix('.')) else {
            continue;
        };
        let number = rest
            .strip_suffix(".log.gz")
            .or_else(|| rest.strip_suffix(".log"));
        let wanted = rest == "sts"
            || number.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        // The entry's own type: a symbolic link is not followed.
        if !wanted || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let p = entry.path();
        total += entry
            .metadata()
            .with_context(|| format!("reading {}", p.display()))?
            .len();
        if total > budget.max_input_bytes {
            anyhow::bail!(
                "the Projections trace {stem} in {} holds more than the import budget's {} bytes ({} raises it)",
                dir.display(),
                budget.max_input_bytes,
                shared::formats::Limit::InputBytes.option()
            );
        }
        files.insert(
            file,
            std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?,
        );
    }
    Ok(files)
}

/// An OTF2 archive folder whose files are read as the import asks for them: the anchor, the
/// global definitions and the files of the locations they define, one location's at a time,
/// never a file lying beside them (a 300 MB log in the folder costs nothing).
struct ArchiveFolder<'a> {
    dir: std::path::PathBuf,
    /// The anchor's file name when the command line named it; otherwise the folder's `*.otf2`
    /// files are the candidates.
    anchor: Option<String>,
    budget: &'a shared::formats::Budget,
    /// The bytes read so far, held within the budget's input limit.
    read: std::cell::Cell<u64>,
    /// A note for each file asked for and left unread: a symbolic link (it may lead out of the
    /// folder, or to a device) or anything that is not a regular file (a FIFO would block the
    /// read, a device never end).
    notes: std::cell::RefCell<Vec<String>>,
}

impl ArchiveFolder<'_> {
    fn error(&self, path: &std::path::Path, e: &std::io::Error) -> shared::TraceError {
        shared::TraceError::at_offset(
            shared::formats::otf2::FORMAT_NAME,
            &[],
            0,
            format!("reading {}: {e}", path.display()),
        )
    }
}

impl shared::formats::otf2::ArchiveSource for ArchiveFolder<'_> {
    fn anchors(&self) -> Vec<String> {
        if let Some(anchor) = &self.anchor {
            return vec![anchor.clone()];
        }
        // Names only: no file is opened to list them.
        let mut found = Vec::new();
        let mut pending = vec![self.dir.clone()];
        while let Some(d) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for entry in entries.flatten() {
                let p = entry.path();
                match entry.file_type() {
                    Ok(kind) if kind.is_dir() => pending.push(p),
                    Ok(kind) if kind.is_file() && p.extension().is_some_and(|e| e == "otf2") => {
                        if let Ok(relative) = p.strip_prefix(&self.dir) {
                            found.push(relative.to_string_lossy().replace('\\', "/"));
                        }
                    }
                    _ => {}
                }
            }
        }
        found.sort();
        found
    }

    fn read(&self, path: &str) -> Result<Option<std::borrow::Cow<'_, [u8]>>, shared::TraceError> {
        let p = self.dir.join(path);
        // The entry's own type: a symbolic link is not followed.
        let meta = match std::fs::symlink_metadata(&p) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.error(&p, &e)),
        };
        if !meta.is_file() {
            let what = if meta.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "not a regular file"
            };
            self.notes
                .borrow_mut()
                .push(format!("{} was not read: it is {what}", p.display()));
            return Ok(None);
        }
        let total = self.read.get().saturating_add(meta.len());
        self.budget.check(
            shared::formats::Limit::InputBytes,
            total,
            shared::formats::otf2::FORMAT_NAME,
            &[],
            0,
        )?;
        self.read.set(total);
        let bytes = std::fs::read(&p).map_err(|e| self.error(&p, &e))?;
        Ok(Some(std::borrow::Cow::Owned(bytes)))
    }

    fn size(&self, path: &str) -> Option<u64> {
        std::fs::symlink_metadata(self.dir.join(path))
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
    }
}

/// Reads the OTF2 archive in `dir`, from its anchor `anchor` (a file name in it) or from the
/// anchor found in it, reading only the files the archive names; the notes say which of those
/// were left unread.
fn read_archive(
    dir: &std::path::Path,
    anchor: Option<String>,
    name: &str,
    budget: &shared::formats::Budget,
) -> anyhow::Result<shared::formats::Imported> {
    let folder = ArchiveFolder {
        dir: dir.to_path_buf(),
        anchor,
        budget,
        read: std::cell::Cell::new(0),
        notes: std::cell::RefCell::new(Vec::new()),
    };
    let mut imported = shared::formats::import_archive(&folder, name, budget)?;
    imported.notes.extend(folder.notes.into_inner());
    Ok(imported)
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
