-- PostgreSQL twin of ../sqlite/0007_blob_parts.sql (bytea holds at most 1 GB a value too).
CREATE TABLE run_blob_parts (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    blob TEXT NOT NULL CHECK (blob IN ('source_gz', 'model_bin_gz')),
    seq BIGINT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (run_id, blob, seq)
);
