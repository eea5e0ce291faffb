-- Runs stored on a server given a blob directory (`serve --blobs DIR`) keep their compressed
-- upload and model there, named by their SHA-256 (content-addressed: several instances on
-- one shared volume serve the same runs, and identical blobs are stored once); run_blobs then
-- holds the hashes and empty blobs. A file is removed when the last run naming it is deleted.
ALTER TABLE run_blobs ADD COLUMN source_sha256 TEXT;
ALTER TABLE run_blobs ADD COLUMN model_sha256 TEXT;
CREATE INDEX run_blobs_by_source ON run_blobs (source_sha256);
CREATE INDEX run_blobs_by_model ON run_blobs (model_sha256);
