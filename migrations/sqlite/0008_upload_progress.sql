-- Upload progress (`GET /api/uploads/{key}`), kept in the store so that any instance behind a
-- load balancer answers for an upload another instance is receiving. `seq` orders one
-- upload's reports (a later one never overwrites a newer); rows are dropped a day after
-- their last report.
CREATE TABLE upload_progress (
    key TEXT PRIMARY KEY NOT NULL,
    -- The shared::view::api::UploadProgress as JSON.
    progress_json TEXT NOT NULL,
    seq INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
) STRICT;
