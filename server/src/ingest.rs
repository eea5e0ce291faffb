//! Turning uploaded bytes into a stored run: the one path shared by `POST /api/runs` and
//! `tracescope import`.

use crate::db::Pool;
use base64::Engine as _;
use flate2::Compression;
use flate2::write::GzEncoder;
use sha2::{Digest as _, Sha256};
use shared::view::api::RunInfo;

use crate::db::{self, NewRun};

/// Why an upload could not become a stored run.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The bytes are not a trace Tracescope can read.
    #[error("the trace could not be read: {0}")]
    InvalidTrace(#[from] shared::TraceError),
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The server cannot write where it keeps files now (a read-only or full temporary or blob
    /// directory): the sentence says where and what fixes it.
    #[error("{0}")]
    Unavailable(String),
    /// Anything else (no randomness, a stored model that no longer reads, compression).
    #[error("{0}")]
    Internal(#[from] anyhow::Error),
}

/// What parsing an upload produces, ready to store.
pub struct Prepared {
    /// The trace's counts and span.
    pub summary: shared::analyses::summary::TraceSummary,
    /// The uploaded size in bytes.
    pub source_bytes: u64,
    /// The upload, gzip-compressed, in a temporary file.
    pub source_gz: crate::spool::Spooled,
    /// The model in the native binary format, gzip-compressed, in a temporary file.
    pub model_bin_gz: crate::spool::Spooled,
    /// What the importer said about the trace.
    pub notes: Vec<String>,
    /// The viewport index, cut into chunks to be read lazily.
    pub index: db::StoredIndex,
}

/// A run just stored, with the secret that deletes it.
pub struct Stored {
    /// The run's metadata.
    pub run: RunInfo,
    /// The delete token (only its hash is stored).
    pub delete_token: String,
}

fn random_id(n_bytes: usize) -> Result<String, IngestError> {
    let mut bytes = [0u8; 32];
    let bytes = &mut bytes[..n_bytes.min(32)];
    getrandom::fill(bytes).map_err(|e| anyhow::anyhow!("no randomness for an id: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// A new random run id: 128 bits as 22 base64url characters.
pub fn new_run_id() -> Result<String, IngestError> {
    random_id(16)
}

/// A new random view id: 96 bits as 16 base64url characters.
pub fn new_view_id() -> Result<String, IngestError> {
    random_id(12)
}

/// A new delete token: 256 bits as 43 base64url characters.
fn new_delete_token() -> Result<String, IngestError> {
    random_id(32)
}

/// The SHA-256 of a delete token, as stored.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Whether `id` has the shape of an id of `len` base64url characters.
pub fn is_id(id: &str, len: usize) -> bool {
    id.len() == len
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Imports, summarises and compresses an upload spooled to a file (or a trace file given on
/// the command line): the importer reads the file as a stream, so the upload is never held
/// in memory whole; only its compressed copy is, to be stored. CPU-bound and blocking: call it
/// on a blocking thread. `phase` hears when it moves from parsing to analysing.
pub fn prepare_file(
    file: &mut std::fs::File,
    name: &str,
    format: Option<shared::formats::Format>,
    options: &shared::formats::ImportOptions,
    phase: &dyn Fn(shared::view::api::UploadPhase),
) -> Result<Prepared, IngestError> {
    use std::io::{Read as _, Seek as _};
    let rewind = |file: &mut std::fs::File| {
        file.rewind()
            .map_err(|e| anyhow::anyhow!("the input could not be reread: {e}"))
    };
    phase(shared::view::api::UploadPhase::Parsing);
    rewind(file)?;
    let imported = shared::formats::import_reader(
        std::io::BufReader::with_capacity(1 << 16, &*file),
        format,
        name,
        options,
    )?;
    let source_bytes = file
        .metadata()
        .map_err(|e| anyhow::anyhow!("the input has no size: {e}"))?
        .len();
    rewind(file)?;
    let mut magic = [0u8; 2];
    let is_gzip = file.read_exact(&mut magic).is_ok() && shared::formats::is_gzip(&magic);
    rewind(file)?;
    let source_gz = crate::spool::Spooled::write_with(|spool| {
        let spool = std::io::BufWriter::with_capacity(1 << 16, spool);
        if is_gzip {
            // An upload that is gzip already is kept as it came: compressing it again only
            // grows it.
            let mut spool = spool;
            std::io::copy(file, &mut spool)?;
            spool.into_inner().map_err(|e| e.into_error())?;
        } else {
            let mut encoder = GzEncoder::new(spool, Compression::fast());
            std::io::copy(file, &mut encoder)?;
            encoder.finish()?.into_inner().map_err(|e| e.into_error())?;
        }
        Ok(())
    })
    .map_err(|e| IngestError::Unavailable(crate::spool::unwritable_temporary(&e)))?;
    finish(imported, source_bytes, source_gz, phase)
}

/// What importing the spooled upload `file` may take in memory within `budget`, in bytes
/// ([`shared::formats::Budget::memory_estimate`] of its size after decompression). A gzip
/// upload is inflated once into nothing to measure it, stopping past the budget's input limit
/// (a bomb is charged the limit, where its import will stop), so a small compressed upload is
/// not charged as a large one. Blocking: call it on a blocking thread.
pub fn import_cost(
    file: &mut std::fs::File,
    budget: &shared::formats::Budget,
) -> Result<u64, IngestError> {
    use std::io::{Read as _, Seek as _};
    let io = |e: std::io::Error| anyhow::anyhow!("the upload could not be reread: {e}");
    file.rewind().map_err(io)?;
    let mut magic = [0u8; 2];
    let is_gzip = file.read_exact(&mut magic).is_ok() && shared::formats::is_gzip(&magic);
    file.rewind().map_err(io)?;
    let size = if is_gzip {
        let inflated = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(&*file))
            .take(budget.max_input_bytes.saturating_add(1));
        // A damaged stream is charged what inflated before the damage: its import fails there.
        let mut counted = CountingSink(0);
        let _ = std::io::copy(&mut { inflated }, &mut counted);
        counted.0
    } else {
        file.metadata().map_err(io)?.len()
    };
    file.rewind().map_err(io)?;
    Ok(budget.memory_estimate(size))
}

/// A writer that keeps nothing and counts the bytes written to it.
struct CountingSink(u64);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len() as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The most characters of a run's name kept: the runs list carries every name of its page, so
/// a name as long as a file (a trace may title itself with megabytes) would make every list
/// that long.
pub const MAX_NAME_CHARS: usize = 256;

/// Cuts a run's name to [`MAX_NAME_CHARS`] characters, saying so in the notes.
fn cut_name(imported: &mut shared::formats::Imported) {
    let name = &mut imported.trace.name;
    if let Some((at, _)) = name.char_indices().nth(MAX_NAME_CHARS) {
        let chars = name.chars().count();
        name.truncate(at);
        imported.notes.push(format!(
            "The run's name was {chars} characters long; its first {MAX_NAME_CHARS} are kept."
        ));
    }
}

/// Summarises an imported trace and encodes its model.
fn finish(
    mut imported: shared::formats::Imported,
    source_bytes: u64,
    source_gz: crate::spool::Spooled,
    phase: &dyn Fn(shared::view::api::UploadPhase),
) -> Result<Prepared, IngestError> {
    phase(shared::view::api::UploadPhase::Analysing);
    cut_name(&mut imported);
    let pairing = shared::graph::pairing::pair_messages(&imported.trace);
    let summary = shared::analyses::summary::summarize(&imported.trace, imported.format, &pairing);
    let index = stored_index(&imported.trace, &pairing);
    drop(pairing);
    // The encoder writes a few bytes at a time; flate2 clears its output buffer's spare room on
    // every write, so unbuffered it spent 20 of 26 s of a 10^7-event import in memset.
    let model_bin_gz = crate::spool::Spooled::write_with(|spool| {
        let encoder = std::io::BufWriter::with_capacity(
            1 << 16,
            GzEncoder::new(
                std::io::BufWriter::with_capacity(1 << 16, spool),
                Compression::fast(),
            ),
        );
        let buffered = shared::formats::binary::write_to(&imported.trace, encoder)?;
        let encoder = buffered.into_inner().map_err(|e| e.into_error())?;
        encoder.finish()?.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    })
    .map_err(|e| IngestError::Unavailable(crate::spool::unwritable_temporary(&e)))?;
    Ok(Prepared {
        index,
        model_bin_gz,
        notes: imported.notes,
        summary,
        source_bytes,
        source_gz,
    })
}

/// The trace's viewport index as stored: its outline, the directory and the chunks.
fn stored_index(
    trace: &shared::Trace,
    pairing: &shared::graph::pairing::Pairing,
) -> db::StoredIndex {
    let mut stored = db::StoredIndex::default();
    let directory = shared::view::lod::build(
        trace,
        pairing,
        shared::view::lod::Shape::default(),
        &mut |key, bytes| stored.chunks.push((key, bytes)),
    );
    stored.directory = directory.encode();
    stored.outline_bin = shared::formats::binary::write(&trace.outline());
    stored
}

/// Stores a prepared run in one transaction under a new id, its upload and model in `blobs`.
pub async fn store(
    pool: &Pool,
    blobs: &crate::blobs::BlobStore,
    prepared: Prepared,
) -> Result<Stored, IngestError> {
    store_in_parts(pool, blobs, prepared, db::BLOB_PART_BYTES).await
}

/// [`store`] with the blobs cut into parts of at most `part_bytes` (tests cut small ones).
pub async fn store_in_parts(
    pool: &Pool,
    blobs: &crate::blobs::BlobStore,
    prepared: Prepared,
    part_bytes: usize,
) -> Result<Stored, IngestError> {
    // Into the blob directory first: a run is stored only once its blobs are. A failed
    // transaction leaves files no run names (removed when a run naming them goes, or kept).
    let (source_gz, model_bin_gz) = (prepared.source_gz.clone(), prepared.model_bin_gz.clone());
    let put = {
        let blobs = blobs.clone();
        tokio::task::spawn_blocking(move || {
            let names = (blobs.put(&source_gz)?, blobs.put(&model_bin_gz)?);
            Ok::<_, std::io::Error>((names, source_gz, model_bin_gz))
        })
    };
    let ((source_name, model_name), source_gz, model_bin_gz) = put
        .await
        .map_err(|e| anyhow::anyhow!("the blob task failed: {e}"))?
        .map_err(|e| IngestError::Unavailable(unwritable_blobs(blobs, &e)))?;
    let id = new_run_id()?;
    let delete_token = new_delete_token()?;
    let created_ms = now_ms();
    let new_run = NewRun {
        id: &id,
        created_ms,
        source_bytes: prepared.source_bytes,
        summary: &prepared.summary,
        source_gz: (source_name.is_none()).then_some(&source_gz),
        model_bin_gz: (model_name.is_none()).then_some(&model_bin_gz),
        delete_token_sha256: &token_hash(&delete_token),
        notes: &prepared.notes,
        index: &prepared.index,
        blob_names: (source_name.as_deref(), model_name.as_deref()),
    };
    db::insert_run_in_parts(pool, &new_run, part_bytes).await?;
    // A run deleted meanwhile may have taken an identical blob along: put it back.
    if let (Some(source_name), Some(model_name)) = (source_name, model_name) {
        let directory = blobs.clone();
        tokio::task::spawn_blocking(move || {
            directory.restore(&source_name, &source_gz)?;
            directory.restore(&model_name, &model_bin_gz)
        })
        .await
        .map_err(|e| anyhow::anyhow!("the blob task failed: {e}"))?
        .map_err(|e| IngestError::Unavailable(unwritable_blobs(blobs, &e)))?;
    }
    Ok(Stored {
        run: RunInfo {
            id,
            created_ms,
            source_bytes: prepared.source_bytes,
            summary: prepared.summary,
            notes: prepared.notes,
        },
        delete_token,
    })
}

/// What the server says when it cannot write the blob directory.
fn unwritable_blobs(blobs: &crate::blobs::BlobStore, e: &std::io::Error) -> String {
    match blobs {
        crate::blobs::BlobStore::Directory(dir) => format!(
            "the server cannot write the run's files in its blob directory {} ({e}): make it \
             writable, with room for the uploads",
            dir.display()
        ),
        crate::blobs::BlobStore::Database => format!("the run's files could not be written: {e}"),
    }
}

/// Reads a stored model back into a trace. CPU-bound: call it on a blocking thread.
pub fn decode_model(
    model: &crate::db::StoredModel,
    id: &str,
) -> Result<shared::Trace, IngestError> {
    use std::io::Read as _;
    match model {
        crate::db::StoredModel::InDirectory(name) => Err(IngestError::Internal(anyhow::anyhow!(
            "stored model of run {id} is blob {name}: read it from the blob directory first"
        ))),
        crate::db::StoredModel::BinaryGz(gz) => {
            let mut bytes = Vec::new();
            flate2::read::GzDecoder::new(gz.as_slice())
                .read_to_end(&mut bytes)
                .map_err(|e| anyhow::anyhow!("stored model of run {id} is unreadable: {e}"))?;
            Ok(shared::formats::binary::parse(&bytes)
                .map_err(|e| anyhow::anyhow!("stored model of run {id} does not decode: {e}"))?)
        }
        crate::db::StoredModel::GzipJson(gz) => {
            let mut json = Vec::new();
            flate2::read::GzDecoder::new(gz.as_slice())
                .read_to_end(&mut json)
                .map_err(|e| anyhow::anyhow!("stored model of run {id} is unreadable: {e}"))?;
            Ok(serde_json::from_slice(&json)
                .map_err(|e| anyhow::anyhow!("stored model of run {id} does not parse: {e}"))?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_random_url_safe_and_of_their_length() {
        let a = new_run_id().expect("randomness");
        let b = new_run_id().expect("randomness");
        assert!(is_id(&a, 22) && is_id(&b, 22), "{a} {b}");
        assert_ne!(a, b);
        assert!(is_id(&new_view_id().expect("randomness"), 16));
        assert_eq!(new_delete_token().expect("randomness").len(), 43);
        assert!(!is_id("../../etc/passwd/xxxxxx", 22));
    }

    #[test]
    fn token_hashes_are_sha256() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(token_hash("abc")[..4], [0xba, 0x78, 0x16, 0xbf],);
        assert_eq!(token_hash("abc").len(), 32);
    }
}
