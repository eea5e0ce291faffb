//! Where a run's large blobs (its compressed upload and model) live: in the database (the
//! default), or in a directory (`--blobs DIR`), each file named by the SHA-256 of its bytes, so
//! that instances sharing a volume serve the same runs and identical blobs are kept once.

use std::path::PathBuf;

use sha2::{Digest as _, Sha256};

/// The blob store of a server or an import.
#[derive(Debug, Clone, Default)]
pub enum BlobStore {
    /// In the database, with the run's rows.
    #[default]
    Database,
    /// In this directory, by content hash.
    Directory(PathBuf),
}

/// Whether `hash` is a SHA-256 in lower-case hex (the only names read from the store are
/// joined to the directory, so nothing else may be).
fn is_hash(hash: &str) -> bool {
    hash.len() == 64
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl BlobStore {
    /// The file of a blob: `DIR/ab/abcdef…`.
    fn path(dir: &std::path::Path, hash: &str) -> std::io::Result<PathBuf> {
        if !is_hash(hash) {
            return Err(std::io::Error::other(format!(
                "{hash:?} is not a blob name"
            )));
        }
        Ok(dir.join(&hash[..2]).join(hash))
    }

    /// Keeps a spooled blob in the directory (once: a blob already there is left as it is) and
    /// answers its name; `None` for the database store. One pass: the blob is hashed as it is
    /// copied beside, then renamed into place, so a reader never sees half a blob. Blocking:
    /// call it on a blocking thread.
    pub fn put(&self, blob: &crate::spool::Spooled) -> std::io::Result<Option<String>> {
        let BlobStore::Directory(dir) = self else {
            return Ok(None);
        };
        std::fs::create_dir_all(dir)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        let mut hasher = Sha256::new();
        for piece in blob.pieces(1 << 20) {
            let piece = piece?;
            hasher.update(&piece);
            std::io::Write::write_all(&mut file, &piece)?;
        }
        let hash: String = hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let path = BlobStore::path(dir, &hash)?;
        if !path.is_file() {
            BlobStore::persist(file, &path)?;
        }
        Ok(Some(hash))
    }

    /// Writes the blob `name` again if its file is gone (a run deleted meanwhile took an
    /// identical blob along); nothing to hash, since the name is known.
    pub fn restore(&self, name: &str, blob: &crate::spool::Spooled) -> std::io::Result<()> {
        let BlobStore::Directory(dir) = self else {
            return Ok(());
        };
        let path = BlobStore::path(dir, name)?;
        if path.is_file() {
            return Ok(());
        }
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        for piece in blob.pieces(1 << 20) {
            std::io::Write::write_all(&mut file, &piece?)?;
        }
        BlobStore::persist(file, &path)
    }

    /// Syncs a written blob and renames it into its place.
    fn persist(file: tempfile::NamedTempFile, path: &std::path::Path) -> std::io::Result<()> {
        file.as_file().sync_all()?;
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)?;
        }
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    }

    /// The blob named `hash`.
    pub async fn get(&self, hash: &str) -> std::io::Result<Vec<u8>> {
        match self {
            BlobStore::Directory(dir) => tokio::fs::read(BlobStore::path(dir, hash)?).await,
            BlobStore::Database => Err(std::io::Error::other(format!(
                "blob {hash} is kept in a blob directory, and this server has none (--blobs)"
            ))),
        }
    }

    /// The model read from the blob directory when it is kept there.
    pub async fn read_model(
        &self,
        model: crate::db::StoredModel,
    ) -> std::io::Result<crate::db::StoredModel> {
        match model {
            crate::db::StoredModel::InDirectory(name) => {
                Ok(crate::db::StoredModel::BinaryGz(self.get(&name).await?))
            }
            other => Ok(other),
        }
    }

    /// Removes the blobs `names` no run names any more (after a run is deleted).
    pub async fn release(&self, pool: &crate::db::Pool, names: &[String]) {
        for name in names {
            match crate::db::blob_users(pool, name).await {
                Ok(0) => {
                    if let Err(e) = self.remove(name).await {
                        tracing::warn!(blob = %name, error = %e, "a released blob could not be removed");
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(blob = %name, error = %e, "a blob's users could not be counted")
                }
            }
        }
    }

    /// Removes the temporaries (`.tmp…`, a blob being copied beside its place) in the directory
    /// not written for `older_than`: what an instance killed while it stored a blob left. A
    /// temporary being written is written continuously and renamed as soon as it is whole, so
    /// one this old is nobody's, even with several instances on the directory. Answers how
    /// many were removed. Blocking: call it on a blocking thread.
    pub fn sweep_temporaries(&self, older_than: std::time::Duration) -> std::io::Result<usize> {
        let BlobStore::Directory(dir) = self else {
            return Ok(0);
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let now = std::time::SystemTime::now();
        let mut removed = 0;
        for entry in entries {
            let entry = entry?;
            if !entry.file_name().to_string_lossy().starts_with(".tmp") {
                continue;
            }
            let metadata = entry.metadata()?;
            let age = metadata
                .modified()
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .unwrap_or_default();
            if metadata.is_file() && age >= older_than {
                match std::fs::remove_file(entry.path()) {
                    Ok(()) => removed += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(removed)
    }

    /// Removes the blob named `hash` (gone already is fine).
    pub async fn remove(&self, hash: &str) -> std::io::Result<()> {
        let BlobStore::Directory(dir) = self else {
            return Ok(());
        };
        match tokio::fs::remove_file(BlobStore::path(dir, hash)?).await {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}
