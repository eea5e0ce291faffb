//! The SQLite store: opening and migrating the database, and the queries on runs.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use shared::api::RunInfo;
use shared::summary::TraceSummary;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{FromRow, SqlitePool};

/// Opens (creating if missing) and migrates the database file at `path`, in WAL mode with
/// foreign keys on.
pub async fn open(path: &Path) -> anyhow::Result<SqlitePool> {
    use anyhow::Context as _;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let options = SqliteConnectOptions::from_str("sqlite:")?
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10));
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .connect_with(options)
        .await
        .with_context(|| format!("opening database {}", path.display()))?;
    sqlx::migrate!("../migrations")
        .run(&pool)
        .await
        .context("migrating the database")?;
    Ok(pool)
}

/// A run to store, with its blobs.
pub struct NewRun<'a> {
    /// The run's id.
    pub id: &'a str,
    /// When it was stored, in ms since the Unix epoch.
    pub created_ms: i64,
    /// The uploaded size in bytes.
    pub source_bytes: u64,
    /// The summary of the trace.
    pub summary: &'a TraceSummary,
    /// The upload, gzip-compressed.
    pub source_gz: &'a [u8],
    /// The model as JSON, gzip-compressed.
    pub model_json_gz: &'a [u8],
}

/// Stores a run and its blobs in one transaction: either all of it is stored or none.
pub async fn insert_run(pool: &SqlitePool, run: &NewRun<'_>) -> Result<(), sqlx::Error> {
    let summary_json =
        serde_json::to_string(run.summary).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO runs (id, name, format, created_ms, source_bytes, n_nodes, n_processes, n_events, n_messages, summary_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(run.id)
    .bind(&run.summary.name)
    .bind(run.summary.format.name())
    .bind(run.created_ms)
    .bind(as_i64(run.source_bytes))
    .bind(as_i64(run.summary.nodes))
    .bind(as_i64(run.summary.processes))
    .bind(as_i64(run.summary.events))
    .bind(as_i64(run.summary.messages))
    .bind(summary_json)
    .execute(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO run_blobs (run_id, source_gz, model_json_gz) VALUES (?, ?, ?)")
        .bind(run.id)
        .bind(run.source_gz)
        .bind(run.model_json_gz)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

#[derive(FromRow)]
struct RunRow {
    id: String,
    created_ms: i64,
    source_bytes: i64,
    summary_json: String,
}

impl RunRow {
    fn into_info(self) -> Result<RunInfo, sqlx::Error> {
        let summary = serde_json::from_str(&self.summary_json)
            .map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        Ok(RunInfo {
            id: self.id,
            created_ms: self.created_ms,
            source_bytes: u64::try_from(self.source_bytes).unwrap_or(0),
            summary,
        })
    }
}

/// The newest runs, newest first.
pub async fn list_runs(pool: &SqlitePool, limit: u32) -> Result<Vec<RunInfo>, sqlx::Error> {
    let rows: Vec<RunRow> = sqlx::query_as(
        "SELECT id, created_ms, source_bytes, summary_json FROM runs ORDER BY created_ms DESC, id LIMIT ?",
    )
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.into_iter().map(RunRow::into_info).collect()
}

/// The number of stored runs.
pub async fn count_runs(pool: &SqlitePool) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COUNT(*) FROM runs")
        .fetch_one(pool)
        .await
}

/// One run's metadata, if it exists.
pub async fn get_run(pool: &SqlitePool, id: &str) -> Result<Option<RunInfo>, sqlx::Error> {
    let row: Option<RunRow> =
        sqlx::query_as("SELECT id, created_ms, source_bytes, summary_json FROM runs WHERE id = ?")
            .bind(id)
            .fetch_optional(pool)
            .await?;
    row.map(RunRow::into_info).transpose()
}

/// One run's model, as gzip-compressed JSON.
pub async fn get_model_json_gz(
    pool: &SqlitePool,
    id: &str,
) -> Result<Option<Vec<u8>>, sqlx::Error> {
    sqlx::query_scalar("SELECT model_json_gz FROM run_blobs WHERE run_id = ?")
        .bind(id)
        .fetch_optional(pool)
        .await
}
