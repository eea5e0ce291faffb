-- Runs stored from now on keep their Gantt chart's viewport index as chunks (see
-- shared::view::lod), written with the run and read lazily: opening a large run reads its
-- outline and directory (run_index) and then only the chunks its views need (run_chunks).
-- Runs stored before have neither and are drawn from their model, as before.
CREATE TABLE run_index (
    run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    -- The model's outline (nodes, processes, regions; no events) in the native binary format.
    outline_bin BLOB NOT NULL,
    -- The index's directory (postcard shared::view::lod::LazyIndex).
    directory BLOB NOT NULL
) STRICT;

-- One chunk of a run's index: a row's spans, a pair's messages, or a block of samples of one
-- level of detail (kind, part = row or pair, seq = level << 32 | block).
CREATE TABLE run_chunks (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    kind INTEGER NOT NULL,
    part INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, kind, part, seq)
) STRICT;
