-- PostgreSQL twin of ../sqlite/0003_run_analyses.sql.
CREATE TABLE run_analyses (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    report_json TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
