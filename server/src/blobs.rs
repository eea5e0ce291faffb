//! Where a run's large blobs (its compressed upload and model) live: in the database (the
//! default), or in a directory (`--blobs DIR`), each file named by the SHA-256 of its bytes, so
//! that instances sharing a volume serve the same runs and identical blobs are kept once.

use std::path::PathBuf;

use sha2::{Digest as _, Sha256};

/// The SHA-256 of bytes given in pieces, in lower-case hex.
fn sha256_hex<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = Sha256::new();
    for piece in pieces {
        hasher.update(piece);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

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

    /// Keeps `bytes` in the directory (once: a blob already there is left as it is) and answers
    /// its name; `None` for the database store. Blocking: call it on a blocking thread.
    pub fn put(&self, bytes: &[u8]) -> std::io::Result<Option<String>> {
        let BlobStore::Directory(dir) = self else {
            return Ok(None);
        };
        let hash = sha256_hex([bytes]);
        BlobStore::write(dir, &hash, std::iter::once(Ok(bytes.to_vec())))?;
        Ok(Some(hash))
    }

    /// [`BlobStore::put`] for a spooled blob, read a piece at a time.
    pub fn put_spooled(&self, blob: &crate::spool::Spooled) -> std::io::Result<Option<String>> {
        let BlobStore::Directory(dir) = self else {
            return Ok(None);
        };
        let mut hasher = Sha256::new();
        for piece in blob.pieces(1 << 20) {
            hasher.update(piece?);
        }
        let hash: String = hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        BlobStore::write(dir, &hash, blob.pieces(1 << 20))?;
        Ok(Some(hash))
    }

    /// Writes a blob named `hash` from its pieces, unless it is there already: beside, then
    /// renamed into place, so a reader never sees half a blob.
    fn write(
        dir: &std::path::Path,
        hash: &str,
        pieces: impl Iterator<Item = std::io::Result<Vec<u8>>>,
    ) -> std::io::Result<()> {
        let path = BlobStore::path(dir, hash)?;
        if path.is_file() {
            return Ok(());
        }
        let folder = path.parent().unwrap_or(dir);
        std::fs::create_dir_all(folder)?;
        let mut file = tempfile::NamedTempFile::new_in(folder)?;
        for piece in pieces {
            std::io::Write::write_all(&mut file, &piece?)?;
        }
        file.as_file().sync_all()?;
        file.persist(&path).map_err(|e| e.error)?;
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
    pub async fn release(&self, pool: &sqlx::SqlitePool, names: &[String]) {
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
