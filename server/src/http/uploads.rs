//! Upload progress: an upload started with `?upload={key}` (a client-chosen key of 16 to 64
//! URL-safe characters) reports its bytes read and phase at `GET /api/uploads/{key}`, which the
//! page polls while the request runs.

use std::collections::VecDeque;
use std::sync::Mutex;

use axum::Json;
use axum::extract::{Path, State};
use axum::routing::get;
use shared::view::api::{UploadPhase, UploadProgress};

use super::error::AppError;
use crate::AppState;

/// How many uploads' progress is remembered (the oldest finished ones are forgotten first).
const REMEMBERED: usize = 256;

/// The progress of recent uploads, by key.
#[derive(Default)]
pub struct UploadTracker {
    entries: Mutex<VecDeque<(String, UploadProgress)>>,
}

impl UploadTracker {
    /// Records an upload's progress.
    pub fn set(&self, key: &str, progress: UploadProgress) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = entries.iter_mut().find(|(k, _)| k == key) {
            entry.1 = progress;
            return;
        }
        if entries.len() >= REMEMBERED {
            let finished = entries
                .iter()
                .position(|(_, p)| matches!(p.phase, UploadPhase::Done | UploadPhase::Failed));
            entries.remove(finished.unwrap_or(0));
        }
        entries.push_back((key.to_owned(), progress));
    }

    /// Updates an upload's phase, keeping its byte counts.
    pub fn phase(&self, key: &str, phase: UploadPhase) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = entries.iter_mut().find(|(k, _)| k == key) {
            entry.1.phase = phase;
        }
    }

    fn get(&self, key: &str) -> Option<UploadProgress> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, p)| p.clone())
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
    state
        .uploads
        .get(&key)
        .map(Json)
        .ok_or_else(|| AppError::NotFound(format!("there is no upload {key:?}")))
}
