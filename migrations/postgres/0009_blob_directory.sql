-- PostgreSQL twin of ../sqlite/0009_blob_directory.sql.
ALTER TABLE run_blobs ADD COLUMN source_sha256 TEXT;
ALTER TABLE run_blobs ADD COLUMN model_sha256 TEXT;
CREATE INDEX run_blobs_by_source ON run_blobs (source_sha256);
CREATE INDEX run_blobs_by_model ON run_blobs (model_sha256);
