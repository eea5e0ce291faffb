-- A run's compressed upload or model larger than one database value (SQLite stores at most
-- 1 GB in one; a 10^8-event Chrome trace's compressed upload is more) is stored in parts: the
-- first in run_blobs as before, the rest here in order. Reading concatenates them.
CREATE TABLE run_blob_parts (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    blob TEXT NOT NULL CHECK (blob IN ('source_gz', 'model_bin_gz')),
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, blob, seq)
) STRICT;
