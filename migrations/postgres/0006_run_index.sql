-- PostgreSQL twin of ../sqlite/0006_run_index.sql.
CREATE TABLE run_index (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    outline_bin BYTEA NOT NULL,
    directory BYTEA NOT NULL
);

CREATE TABLE run_chunks (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    kind BIGINT NOT NULL,
    part BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (run_id, kind, part, seq)
);
