-- PostgreSQL twin of ../sqlite/0008_upload_progress.sql.
CREATE TABLE upload_progress (
    key TEXT PRIMARY KEY NOT NULL,
    progress_json TEXT NOT NULL,
    seq BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);
