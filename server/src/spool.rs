//! [`Spooled`]: a blob waiting to be stored, kept on disk rather than in memory.

/// A blob waiting to be stored, in an unnamed temporary file (gone when dropped, even if the
/// process dies): a large trace's compressed upload is hundreds of MB that an import need not
/// hold in memory while it builds the model. Read by position, so clones share one file.
#[derive(Debug, Clone)]
pub struct Spooled {
    file: std::sync::Arc<std::fs::File>,
    len: u64,
}

/// What the server says when it cannot write a temporary file: the directory, the system's
/// reason, and what fixes it (a read-only or full temporary directory is the machine's state,
/// not the request's fault, and not a bug).
pub fn unwritable_temporary(e: &std::io::Error) -> String {
    format!(
        "the server cannot write its temporary files in {} ({e}): give it a writable temporary \
         directory with room for the uploads (the TMPDIR environment variable names it)",
        std::env::temp_dir().display()
    )
}

impl Spooled {
    /// Spools what `write` writes into a new temporary file.
    pub fn write_with(
        write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> std::io::Result<Spooled> {
        let mut file = tempfile::tempfile()?;
        write(&mut file)?;
        let len = file.metadata()?.len();
        Ok(Spooled {
            file: std::sync::Arc::new(file),
            len,
        })
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `len` bytes from `offset` (fewer at the end).
    pub fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        use std::os::unix::fs::FileExt as _;
        let len = len.min(usize::try_from(self.len.saturating_sub(offset)).unwrap_or(usize::MAX));
        let mut bytes = vec![0u8; len];
        self.file.read_exact_at(&mut bytes, offset)?;
        Ok(bytes)
    }

    /// All of it (for tests and small blobs).
    pub fn to_vec(&self) -> std::io::Result<Vec<u8>> {
        self.read_at(0, usize::try_from(self.len).unwrap_or(usize::MAX))
    }

    /// Its pieces of at most `piece` bytes, in order.
    pub fn pieces(&self, piece: usize) -> impl Iterator<Item = std::io::Result<Vec<u8>>> + '_ {
        let piece = piece.max(1) as u64;
        (0..self.len.div_ceil(piece)).map(move |k| self.read_at(k * piece, piece as usize))
    }
}
