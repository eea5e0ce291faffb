//! Upload progress: an upload started with `?upload={key}` (a client-chosen key of 16 to 64
//! URL-safe characters) reports its bytes read and phase at `GET /api/uploads/{key}`, which the
//! page polls while the request runs. Reports are kept in the store, so any instance answers.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::db::Pool;
use axum::Json;
use axum::extract::{Path, State};
use axum::routing::get;
use shared::view::api::{UploadPhase, UploadProgress};

use super::error::AppError;
use crate::AppState;

/// How long an upload's progress is kept after its last report.
const KEPT_MS: i64 = 24 * 3600 * 1000;

/// The progress of uploads, kept in the store so any instance answers for it. This instance
/// remembers the uploads it is receiving (to report a new phase with their byte counts);
/// reports under way are written without waiting, in order by a sequence number, and the last
/// one (done or failed) is written before the upload is answered.
pub struct UploadTracker {
    pool: Pool,
    local: Mutex<HashMap<String, UploadProgress>>,
    seq: AtomicI64,
}

impl UploadTracker {
    /// A tracker writing to `pool`.
    pub fn new(pool: Pool) -> UploadTracker {
        UploadTracker {
            pool,
            local: Mutex::default(),
            // Later than any report an earlier run of this server wrote under the same key.
            seq: AtomicI64::new(crate::ingest::now_ms().saturating_mul(1 << 10)),
        }
    }

    /// Records an upload's progress.
    pub fn set(&self, key: &str, progress: UploadProgress) {
        let mut local = self.local.lock().unwrap_or_else(|e| e.into_inner());
        local.insert(key.to_owned(), progress.clone());
        drop(local);
        self.write_later(key, &progress);
    }

    /// Updates an upload's phase, keeping its byte counts.
    pub fn phase(&self, key: &str, phase: UploadPhase) {
        let mut local = self.local.lock().unwrap_or_else(|e| e.into_inner());
        let Some(progress) = local.get_mut(key) else {
            return;
        };
        progress.phase = phase;
        let progress = progress.clone();
        drop(local);
        self.write_later(key, &progress);
    }

    /// Records an upload's last phase, written before this returns, and forgets it here.
    pub async fn finish(&self, key: &str, phase: UploadPhase) {
        let progress = {
            let mut local = self.local.lock().unwrap_or_else(|e| e.into_inner());
            let Some(mut progress) = local.remove(key) else {
                return;
            };
            progress.phase = phase;
            progress
        };
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let now = crate::ingest::now_ms();
        if let Ok(json) = serde_json::to_string(&progress)
            && let Err(e) = crate::db::put_upload_progress(&self.pool, key, &json, seq, now).await
        {
            tracing::warn!(error = %e, "the upload's progress could not be kept");
        }
        let _ = crate::db::prune_upload_progress(&self.pool, now - KEPT_MS).await;
    }

    /// Writes a report on the runtime without waiting for it (callable from a blocking task).
    fn write_later(&self, key: &str, progress: &UploadProgress) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Ok(json) = serde_json::to_string(progress) else {
            return;
        };
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let (pool, key) = (self.pool.clone(), key.to_owned());
        runtime.spawn(async move {
            let now = crate::ingest::now_ms();
            if let Err(e) = crate::db::put_upload_progress(&pool, &key, &json, seq, now).await {
                tracing::warn!(error = %e, "the upload's progress could not be kept");
            }
        });
    }
}

/// Whether `key` is an acceptable upload key.
pub fn is_upload_key(key: &str) -> bool {
    (16..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The routes under `/api/uploads`.
pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/uploads/{key}", get(progress))
}

async fn progress(
    State(state): State<AppState>,
    Path(key): Path<String>,
) -> Result<Json<UploadProgress>, AppError> {
    let json = crate::db::get_upload_progress(&state.pool, &key)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("there is no upload {key:?}")))?;
    let progress = serde_json::from_str(&json)
        .map_err(|e| anyhow::anyhow!("upload {key:?}'s progress does not read: {e}"))?;
    Ok(Json(progress))
}
