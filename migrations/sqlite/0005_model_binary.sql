-- Runs stored from now on keep their model in the native binary format (`TSCB`: a version
-- and the postcard-encoded model, see shared::formats::binary), gzip-compressed, in
-- model_bin_gz, and an empty model_json_gz: it is smaller than the gzip JSON and opens in half
-- the time (no JSON parse). Runs stored before keep their gzip JSON (model_bin_gz NULL), read
-- as before.
ALTER TABLE run_blobs ADD COLUMN model_bin_gz BLOB;
