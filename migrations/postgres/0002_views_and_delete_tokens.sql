-- PostgreSQL twin of ../sqlite/0002_views_and_delete_tokens.sql.
ALTER TABLE runs ADD COLUMN delete_token_sha256 BYTEA;

CREATE INDEX runs_by_format ON runs (format, created_ms DESC);

CREATE TABLE views (
    id TEXT PRIMARY KEY NOT NULL,
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    version BIGINT NOT NULL,
    state_json TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE INDEX views_by_run ON views (run_id);
