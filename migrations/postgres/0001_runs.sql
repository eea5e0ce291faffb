-- PostgreSQL twin of ../sqlite/0001_runs.sql (same tables and columns; a test compares them).
CREATE TABLE runs (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    format TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    source_bytes BIGINT NOT NULL,
    n_nodes BIGINT NOT NULL,
    n_processes BIGINT NOT NULL,
    n_events BIGINT NOT NULL,
    n_messages BIGINT NOT NULL,
    summary_json TEXT NOT NULL
);

CREATE INDEX runs_by_created ON runs (created_ms DESC);

CREATE TABLE run_blobs (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    source_gz BYTEA NOT NULL,
    model_json_gz BYTEA NOT NULL
);
