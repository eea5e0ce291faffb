//! Wire types of the JSON API: the single source of truth for server and frontend.

use serde::{Deserialize, Serialize};

use crate::analyses::summary::TraceSummary;
use crate::model::error::TraceError;

/// A stored run, as the runs list and the run page show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The run's id: random, URL-safe, at least 96 bits.
    pub id: String,
    /// When the run was stored, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// The uploaded file's size in bytes.
    pub source_bytes: u64,
    /// The trace's counts and span.
    pub summary: TraceSummary,
    /// What the importer said about the trace: records it skipped, values it read other than
    /// written, files it left unread.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The answer to an upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreatedRun {
    /// The new run's id.
    pub id: String,
    /// The run's metadata.
    pub run: RunInfo,
    /// The secret that deletes the run (`DELETE /api/runs/{id}` with header
    /// `x-delete-token`). Shown once: the server keeps only its hash.
    pub delete_token: String,
}

/// The runs list: one page of the runs that match the query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunList {
    /// Runs, newest first.
    pub runs: Vec<RunInfo>,
    /// How many runs match the query, over all pages.
    pub total: u64,
}

/// Where an upload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UploadPhase {
    /// Bytes are arriving.
    Receiving,
    /// The trace is being read.
    Parsing,
    /// The run is being summarised and compressed.
    Analysing,
    /// The run is being written to the database.
    Storing,
    /// The run is stored.
    Done,
    /// The upload failed (the upload's own answer says why).
    Failed,
}

/// An upload's progress, for the page to show while it waits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadProgress {
    /// Where the upload is.
    pub phase: UploadPhase,
    /// Bytes received so far.
    pub bytes_read: u64,
    /// The body's size, when the client announced it.
    pub bytes_total: Option<u64>,
}

/// The answer to storing a view state: the permalink.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedView {
    /// The view's short random id.
    pub id: String,
    /// The path that opens the app at this view, `/v/{id}`.
    pub path: String,
}

/// One run with its whole model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDetail {
    /// The run's metadata.
    pub run: RunInfo,
    /// The trace.
    pub trace: crate::model::Trace,
}

/// The one shape of every API error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiError {
    /// A stable machine-readable code, e.g. `not_found`, `invalid_trace`.
    pub code: String,
    /// A sentence for people.
    pub message: String,
    /// Where a trace could not be read, for `invalid_trace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_error: Option<TraceError>,
}

/// The health check's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// `ok` when the server and its database answer.
    pub status: String,
    /// The server's version.
    pub version: String,
    /// The store the server keeps its runs in (`sqlite`).
    #[serde(default)]
    pub store: String,
    /// How many runs it holds (the store answered the count).
    #[serde(default)]
    pub runs: u64,
}
