-- A run's analysis report (the object `tracescope analyze --json` prints), computed on first
-- request and kept: runs never change. Rows are dropped with their run.
CREATE TABLE run_analyses (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    report_json TEXT NOT NULL,
    created_ms INTEGER NOT NULL
) STRICT;
