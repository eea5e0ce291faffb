-- Stored runs: one row per uploaded trace, written in one transaction with its blobs.
CREATE TABLE runs (
    -- Random, URL-safe, 128 bits (22 base64url characters).
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    format TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    source_bytes INTEGER NOT NULL,
    n_nodes INTEGER NOT NULL,
    n_processes INTEGER NOT NULL,
    n_events INTEGER NOT NULL,
    n_messages INTEGER NOT NULL,
    -- The shared::summary::TraceSummary as JSON, returned as is by the runs list.
    summary_json TEXT NOT NULL
) STRICT;

CREATE INDEX runs_by_created ON runs (created_ms DESC);

-- The raw upload (gzip) so a run can be re-imported after an upgrade, and the model (gzip of
-- its JSON) so the run page needs no re-import.
CREATE TABLE run_blobs (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    source_gz BLOB NOT NULL,
    model_json_gz BLOB NOT NULL
) STRICT;
