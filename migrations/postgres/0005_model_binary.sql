-- PostgreSQL twin of ../sqlite/0005_model_binary.sql.
ALTER TABLE run_blobs ADD COLUMN model_bin_gz BYTEA;
