-- PostgreSQL twin of ../sqlite/0004_run_notes.sql.
ALTER TABLE runs ADD COLUMN notes_json TEXT NOT NULL DEFAULT '[]';
