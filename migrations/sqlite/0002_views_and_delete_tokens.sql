-- Deleting a run needs the secret token returned at upload; only its SHA-256 is stored.
-- Runs stored before this migration have no token and cannot be deleted through the API.
ALTER TABLE runs ADD COLUMN delete_token_sha256 BLOB;

-- Searching runs by name and format.
CREATE INDEX runs_by_format ON runs (format, created_ms DESC);

-- Permalinks: a view state (versioned JSON, see shared::view) under a short random id.
CREATE TABLE views (
    -- Random, URL-safe, 96 bits (16 base64url characters).
    id TEXT PRIMARY KEY NOT NULL,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    -- The state's schema version as written; readers upgrade older versions.
    version INTEGER NOT NULL,
    state_json TEXT NOT NULL,
    created_ms INTEGER NOT NULL
) STRICT;

CREATE INDEX views_by_run ON views (run_id);
