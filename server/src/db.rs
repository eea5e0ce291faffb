//! The store: opening and migrating the database — an embedded SQLite file (the default) or
//! a PostgreSQL server shared by several instances — and the queries on runs.
//!
//! Every query is written once, for both engines (`migrations/sqlite` and `migrations/postgres`
//! make the same tables): `$N` placeholders (sqlx binds SQLite's `$N` to the N-th argument),
//! `ON CONFLICT`, no blob literals, `lower()` for case-insensitive matching, and 64-bit integers
//! bound as `i64`. [`Pool`] holds either engine's own sqlx pool and [`on_engine!`](crate::on_engine) compiles a
//! query's code once per engine, so neither pays for a type-erased driver.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use shared::analyses::summary::TraceSummary;
use shared::view::api::RunInfo;
use sqlx::FromRow;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

/// Where the store is: what `--db` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// An SQLite file, created if missing.
    File(PathBuf),
    /// A PostgreSQL database, by its `postgres://` (or `postgresql://`) URL.
    Postgres(String),
}

impl Target {
    /// A `postgres://` or `postgresql://` URL names a PostgreSQL database; anything else is the
    /// path of an SQLite file.
    pub fn parse(text: &str) -> Target {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Target::Postgres(text.to_owned())
        } else {
            Target::File(PathBuf::from(text))
        }
    }
}

impl FromStr for Target {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<Target, Self::Err> {
        Ok(Target::parse(text))
    }
}

impl From<&Path> for Target {
    fn from(path: &Path) -> Target {
        Target::File(path.to_owned())
    }
}

impl From<&PathBuf> for Target {
    fn from(path: &PathBuf) -> Target {
        Target::File(path.clone())
    }
}

impl From<PathBuf> for Target {
    fn from(path: PathBuf) -> Target {
        Target::File(path)
    }
}

impl std::fmt::Display for Target {
    /// The path, or the URL without its password (this goes into logs and reports).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::File(path) => write!(f, "{}", path.display()),
            Target::Postgres(url) => match url.split_once("://") {
                Some((scheme, rest)) => {
                    let (authority, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                    match authority.rsplit_once('@') {
                        Some((user, host)) => {
                            let user = user.split_once(':').map_or(user, |(name, _)| name);
                            write!(f, "{scheme}://{user}@{host}{tail}")
                        }
                        None => write!(f, "{url}"),
                    }
                }
                None => write!(f, "{url}"),
            },
        }
    }
}

/// A connection pool on one engine.
#[derive(Debug, Clone)]
pub enum Pool {
    /// An embedded SQLite file.
    Sqlite(SqlitePool),
    /// A PostgreSQL server.
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to the engine's own pool (`&SqlitePool` or `&PgPool`): the
/// code is compiled once per engine, against that engine's driver.
#[macro_export]
macro_rules! on_engine {
    ($store:expr, |$pool:ident| $body:expr) => {
        match $store {
            $crate::db::Pool::Sqlite($pool) => $body,
            $crate::db::Pool::Postgres($pool) => $body,
        }
    };
}

impl Pool {
    /// The engine's name, as `/api/health` reports it.
    pub fn engine(&self) -> &'static str {
        match self {
            Pool::Sqlite(_) => "sqlite",
            Pool::Postgres(_) => "postgres",
        }
    }

    /// Closes every connection (waiting for those in use to come back).
    pub async fn close(&self) {
        on_engine!(self, |pool| pool.close().await)
    }
}

/// Beginning a transaction that writes: on SQLite it takes the write lock up front (`BEGIN
/// IMMEDIATE`), waiting for it under the busy timeout. A deferred transaction that reads first
/// and writes later cannot wait: when another writer committed meanwhile its snapshot is stale
/// and SQLite fails it at once with "database is locked" (`SQLITE_BUSY_SNAPSHOT`), whatever the
/// busy timeout. PostgreSQL's transactions wait for row locks by themselves.
trait BeginWrite {
    /// The engine.
    type Db: sqlx::Database;
    /// A transaction holding (or waiting for) the right to write.
    fn begin_write(
        &self,
    ) -> impl Future<Output = Result<sqlx::Transaction<'static, Self::Db>, sqlx::Error>> + Send;
}

impl BeginWrite for SqlitePool {
    type Db = sqlx::Sqlite;
    fn begin_write(
        &self,
    ) -> impl Future<Output = Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error>> + Send
    {
        self.begin_with("BEGIN IMMEDIATE")
    }
}

impl BeginWrite for PgPool {
    type Db = sqlx::Postgres;
    fn begin_write(
        &self,
    ) -> impl Future<Output = Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error>> + Send
    {
        self.begin()
    }
}

/// How long an SQLite writer waits for another's transaction to end before it fails: longer
/// than the largest transaction takes (a run's blob parts of [`BLOB_PART_BYTES`] each), and
/// shorter than an API request's deadline.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether `e` says a row's parent is gone (a run deleted while something of it was stored).
pub fn is_foreign_key_violation(e: &sqlx::Error) -> bool {
    e.as_database_error()
        .is_some_and(|d| d.is_foreign_key_violation())
}

/// The most connections one instance holds to a PostgreSQL server.
pub const POSTGRES_CONNECTIONS: u32 = 16;

/// The longest a PostgreSQL statement may run before the server cancels it (a run's largest
/// statement writes one blob part, [`BLOB_PART_BYTES`]).
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a request waits for a free connection before it fails.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

/// Opens and migrates the store at `target`: an SQLite file (created if missing, in WAL mode
/// with foreign keys on) or a PostgreSQL database (pooled, with a statement timeout; several
/// instances may migrate it at once: sqlx holds an advisory lock while it does).
pub async fn open(target: impl Into<Target>) -> anyhow::Result<Pool> {
    use anyhow::Context as _;
    match target.into() {
        Target::File(path) => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            let options = SqliteConnectOptions::from_str("sqlite:")?
                .filename(&path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .foreign_keys(true)
                .busy_timeout(SQLITE_BUSY_TIMEOUT);
            let pool = SqlitePoolOptions::new()
                .max_connections(8)
                .connect_with(options)
                .await
                .with_context(|| format!("opening database {}", path.display()))?;
            sqlx::migrate!("../migrations/sqlite")
                .run(&pool)
                .await
                .context("migrating the database")?;
            Ok(Pool::Sqlite(pool))
        }
        target @ Target::Postgres(_) => {
            let Target::Postgres(url) = &target else {
                unreachable!("matched above")
            };
            let mut options = PgConnectOptions::from_str(url)
                .with_context(|| format!("reading the database URL {target}"))?;
            if !url.contains("statement_timeout") {
                let ms = STATEMENT_TIMEOUT.as_millis().to_string();
                options = options.options([("statement_timeout", ms.as_str())]);
            }
            let pool = PgPoolOptions::new()
                .max_connections(POSTGRES_CONNECTIONS)
                .acquire_timeout(ACQUIRE_TIMEOUT)
                .connect_with(options)
                .await
                .with_context(|| format!("connecting to {target}"))?;
            sqlx::migrate!("../migrations/postgres")
                .run(&pool)
                .await
                .with_context(|| format!("migrating {target}"))?;
            Ok(Pool::Postgres(pool))
        }
    }
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
    /// The upload, gzip-compressed (`None` when it is kept in the blob directory).
    pub source_gz: Option<&'a crate::spool::Spooled>,
    /// The model in the native binary format, gzip-compressed (`None` when it is kept in the
    /// blob directory).
    pub model_bin_gz: Option<&'a crate::spool::Spooled>,
    /// The SHA-256 of the run's delete token.
    pub delete_token_sha256: &'a [u8],
    /// What the importer said about the trace.
    pub notes: &'a [String],
    /// The viewport index: the model's outline, the directory and the chunks.
    pub index: &'a StoredIndex,
    /// The names of the upload and the model in the blob directory, when they are kept there
    /// (then `source_gz` and `model_bin_gz` are empty).
    pub blob_names: (Option<&'a str>, Option<&'a str>),
}

/// A run's viewport index as stored (see `shared::view::lod`).
#[derive(Debug, Default)]
pub struct StoredIndex {
    /// The model's outline in the native binary format.
    pub outline_bin: Vec<u8>,
    /// The directory's encoding.
    pub directory: Vec<u8>,
    /// Each chunk's key and encoding.
    pub chunks: Vec<(shared::view::lod::ChunkKey, Vec<u8>)>,
}

/// The most bytes of a blob stored in one database value; a larger blob is stored in parts.
pub const BLOB_PART_BYTES: usize = 256 << 20;

/// Stores a run and its blobs in one transaction: either all of it is stored or none.
pub async fn insert_run(pool: &Pool, run: &NewRun<'_>) -> Result<(), sqlx::Error> {
    insert_run_in_parts(pool, run, BLOB_PART_BYTES).await
}

/// [`insert_run`] with blobs cut into parts of at most `part_bytes` (tests cut small ones).
pub async fn insert_run_in_parts(
    pool: &Pool,
    run: &NewRun<'_>,
    part_bytes: usize,
) -> Result<(), sqlx::Error> {
    on_engine!(pool, |pool| {
        let part_bytes = part_bytes.max(1);
        // Blobs are read a part at a time from their spools (they can be hundreds of MB).
        let part = |blob: Option<&crate::spool::Spooled>, k: u64| {
            let blob = blob.cloned();
            async move {
                match blob {
                    Some(blob) => tokio::task::spawn_blocking(move || {
                        blob.read_at(k * part_bytes as u64, part_bytes)
                    })
                    .await
                    .map_err(|e| sqlx::Error::Io(std::io::Error::other(e)))?
                    .map_err(sqlx::Error::Io),
                    None => Ok(Vec::new()),
                }
            }
        };
        let parts_of = |blob: Option<&crate::spool::Spooled>| {
            blob.map_or(0, |s| s.len().div_ceil(part_bytes as u64))
        };
        let source = part(run.source_gz, 0).await?;
        let model = part(run.model_bin_gz, 0).await?;
        let summary_json =
            serde_json::to_string(run.summary).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        let notes_json =
            serde_json::to_string(run.notes).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let mut tx = pool.begin_write().await?;
        sqlx::query(
            "INSERT INTO runs (id, name, format, created_ms, source_bytes, n_nodes, n_processes, n_events, n_messages, summary_json, delete_token_sha256, notes_json)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
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
        .bind(run.delete_token_sha256)
        .bind(notes_json)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO run_blobs (run_id, source_gz, model_json_gz, model_bin_gz, source_sha256, model_sha256) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(run.id)
        .bind(source)
        .bind(Vec::<u8>::new())
        .bind(model)
        .bind(run.blob_names.0)
        .bind(run.blob_names.1)
            .execute(&mut *tx)
            .await?;
        for (name, blob) in [
            ("source_gz", run.source_gz),
            ("model_bin_gz", run.model_bin_gz),
        ] {
            for k in 1..parts_of(blob) {
                let data = part(blob, k).await?;
                sqlx::query(
                    "INSERT INTO run_blob_parts (run_id, blob, seq, data) VALUES ($1, $2, $3, $4)",
                )
                .bind(run.id)
                .bind(name)
                .bind(k as i64 - 1)
                .bind(data)
                .execute(&mut *tx)
                .await?;
            }
        }
        sqlx::query("INSERT INTO run_index (run_id, outline_bin, directory) VALUES ($1, $2, $3)")
            .bind(run.id)
            .bind(&run.index.outline_bin)
            .bind(&run.index.directory)
            .execute(&mut *tx)
            .await?;
        // Many chunks a statement: a run of many processes has a chunk or more a row, and one
        // statement each made its upload wait on a round trip to the database per chunk (10^5
        // processes: 1.96 s to import where `analyze` takes 0.34 s).
        for batch in run.index.chunks.chunks(CHUNKS_A_STATEMENT) {
            let mut insert =
                sqlx::QueryBuilder::new("INSERT INTO run_chunks (run_id, kind, part, seq, data) ");
            insert.push_values(batch, |mut row, (key, data)| {
                row.push_bind(run.id)
                    .push_bind(i64::from(key.kind.code()))
                    .push_bind(i64::from(key.part))
                    .push_bind(key.seq())
                    .push_bind(data.as_slice());
            });
            insert.build().execute(&mut *tx).await?;
        }
        tx.commit().await
    })
}

/// How many index chunks one INSERT stores: 5 values each, far below either engine's limit
/// of bound values (SQLite 32,766, PostgreSQL 65,535).
const CHUNKS_A_STATEMENT: usize = 256;

/// A run's stored outline and index directory, if it has them (runs stored since migration
/// 0006).
pub async fn get_index_head(
    pool: &Pool,
    id: &str,
) -> Result<Option<(Vec<u8>, Vec<u8>)>, sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query_as("SELECT outline_bin, directory FROM run_index WHERE run_id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await
    })
}

/// One chunk of a run's index.
pub async fn get_chunk(
    pool: &Pool,
    id: &str,
    key: shared::view::lod::ChunkKey,
) -> Result<Option<Vec<u8>>, sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query_scalar(
            "SELECT data FROM run_chunks WHERE run_id = $1 AND kind = $2 AND part = $3 AND seq = $4",
        )
        .bind(id)
        .bind(i64::from(key.kind.code()))
        .bind(i64::from(key.part))
        .bind(key.seq())
        .fetch_optional(pool)
        .await
    })
}

#[derive(FromRow)]
struct RunRow {
    id: String,
    created_ms: i64,
    source_bytes: i64,
    summary_json: String,
    notes_json: String,
}

impl RunRow {
    fn into_info(self) -> Result<RunInfo, sqlx::Error> {
        let summary = serde_json::from_str(&self.summary_json)
            .map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        let notes =
            serde_json::from_str(&self.notes_json).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        Ok(RunInfo {
            id: self.id,
            created_ms: self.created_ms,
            source_bytes: u64::try_from(self.source_bytes).unwrap_or(0),
            summary,
            notes,
        })
    }
}

/// Which runs to list: a page of those whose name contains `name` and whose format is `format`.
#[derive(Debug, Clone, Default)]
pub struct RunQuery {
    /// A substring of the name (case-insensitive for ASCII), if any.
    pub name: Option<String>,
    /// The format's name, if any.
    pub format: Option<String>,
    /// The page size.
    pub limit: u32,
    /// How many matching runs to skip.
    pub offset: u64,
}

/// Escapes `%`, `_` and `\` for a `LIKE … ESCAPE '\'` pattern.
fn like_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// One page of the runs matching `query`, newest first, and how many match in all.
pub async fn list_runs(pool: &Pool, query: &RunQuery) -> Result<(Vec<RunInfo>, u64), sqlx::Error> {
    on_engine!(pool, |pool| {
        // One filter for the page and the count; `concat!` keeps both statements static text.
        macro_rules! matching {
            () => {
                "FROM runs WHERE (CAST($1 AS TEXT) IS NULL OR lower(name) LIKE lower($1) ESCAPE '\\') \
                 AND (CAST($2 AS TEXT) IS NULL OR format = $2)"
            };
        }
        let pattern = query.name.as_deref().map(like_pattern);
        let rows: Vec<RunRow> = sqlx::query_as(concat!(
            "SELECT id, created_ms, source_bytes, summary_json, notes_json ",
            matching!(),
            " ORDER BY created_ms DESC, id LIMIT $3 OFFSET $4"
        ))
        .bind(&pattern)
        .bind(&query.format)
        .bind(i64::from(query.limit))
        .bind(i64::try_from(query.offset).unwrap_or(i64::MAX))
        .fetch_all(pool)
        .await?;
        let total: i64 = sqlx::query_scalar(concat!("SELECT COUNT(*) ", matching!()))
            .bind(&pattern)
            .bind(&query.format)
            .fetch_one(pool)
            .await?;
        let runs = rows
            .into_iter()
            .map(RunRow::into_info)
            .collect::<Result<_, _>>()?;
        Ok((runs, u64::try_from(total).unwrap_or(0)))
    })
}

/// What a delete did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// The run and everything of it is gone.
    Yes,
    /// There is no such run.
    NoSuchRun,
    /// The token is not the run's (or the run has none).
    WrongToken,
}

/// Deletes a run, its blobs and its views, if `token_sha256` is its delete token's hash.
///
/// The delete is one statement that checks the token itself, so of two concurrent deletes of
/// one run exactly one deletes it (the other finds no run), and it takes SQLite's write lock
/// at its start, waiting for it, instead of upgrading a read.
pub async fn delete_run(
    pool: &Pool,
    id: &str,
    token_sha256: &[u8],
) -> Result<Deleted, sqlx::Error> {
    on_engine!(pool, |pool| {
        let done = sqlx::query("DELETE FROM runs WHERE id = $1 AND delete_token_sha256 = $2")
            .bind(id)
            .bind(token_sha256)
            .execute(pool)
            .await?;
        if done.rows_affected() > 0 {
            return Ok(Deleted::Yes);
        }
        let found: Option<i64> =
            sqlx::query_scalar("SELECT CAST(1 AS BIGINT) FROM runs WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?;
        Ok(if found.is_some() {
            Deleted::WrongToken
        } else {
            Deleted::NoSuchRun
        })
    })
}

/// Stores a view state (already validated) under `id`; `false` when its run does not exist
/// (it may have been deleted a moment before).
pub async fn insert_view(
    pool: &Pool,
    id: &str,
    state: &shared::view::state::ViewState,
    created_ms: i64,
) -> Result<bool, sqlx::Error> {
    on_engine!(pool, |pool| {
        let json = serde_json::to_string(state).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        let stored = sqlx::query(
            "INSERT INTO views (id, run_id, version, state_json, created_ms) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(&state.run)
        .bind(i64::from(state.version))
        .bind(json)
        .bind(created_ms)
        .execute(pool)
        .await;
        match stored {
            Ok(_) => Ok(true),
            Err(e) if is_foreign_key_violation(&e) => Ok(false),
            Err(e) => Err(e),
        }
    })
}

/// A stored view state's JSON, as written (any version).
pub async fn get_view_json(pool: &Pool, id: &str) -> Result<Option<String>, sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query_scalar("SELECT state_json FROM views WHERE id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await
    })
}

/// The number of stored runs.
pub async fn count_runs(pool: &Pool) -> Result<i64, sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query_scalar("SELECT COUNT(*) FROM runs")
            .fetch_one(pool)
            .await
    })
}

/// One run's metadata, if it exists.
pub async fn get_run(pool: &Pool, id: &str) -> Result<Option<RunInfo>, sqlx::Error> {
    on_engine!(pool, |pool| {
        let row: Option<RunRow> = sqlx::query_as(
            "SELECT id, created_ms, source_bytes, summary_json, notes_json FROM runs WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(pool)
        .await?;
        row.map(RunRow::into_info).transpose()
    })
}

/// A run's stored model, as it was stored.
pub enum StoredModel {
    /// The native binary format, gzip-compressed, in the blob directory under this name.
    InDirectory(String),
    /// The native binary format, gzip-compressed (runs stored since migration 0005).
    BinaryGz(Vec<u8>),
    /// Gzip-compressed JSON (runs stored before).
    GzipJson(Vec<u8>),
}

/// One run's model.
pub async fn get_model(pool: &Pool, id: &str) -> Result<Option<StoredModel>, sqlx::Error> {
    /// The binary model, the JSON model (runs stored before 0005), the blob directory name.
    type ModelRow = (Option<Vec<u8>>, Option<Vec<u8>>, Option<String>);
    let row: Option<ModelRow> = on_engine!(pool, |pool| {
        sqlx::query_as(
            "SELECT model_bin_gz, CASE WHEN model_bin_gz IS NULL THEN model_json_gz END,
                 model_sha256
             FROM run_blobs WHERE run_id = $1",
        )
        .bind(id)
        .fetch_optional(pool)
        .await?
    });
    Ok(match row {
        Some((_, _, Some(name))) => Some(StoredModel::InDirectory(name)),
        Some((Some(mut bin), _, None)) => {
            append_parts(pool, id, "model_bin_gz", &mut bin).await?;
            Some(StoredModel::BinaryGz(bin))
        }
        Some((None, gz, None)) => Some(StoredModel::GzipJson(gz.unwrap_or_default())),
        None => None,
    })
}

/// One run's upload as stored (gzip), if the run exists: its bytes, or its name in the blob
/// directory.
pub async fn get_source_gz(
    pool: &Pool,
    id: &str,
) -> Result<Option<Result<Vec<u8>, String>>, sqlx::Error> {
    let first: Option<(Vec<u8>, Option<String>)> = on_engine!(pool, |pool| {
        sqlx::query_as("SELECT source_gz, source_sha256 FROM run_blobs WHERE run_id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?
    });
    match first {
        None => Ok(None),
        Some((_, Some(name))) => Ok(Some(Err(name))),
        Some((mut source, None)) => {
            append_parts(pool, id, "source_gz", &mut source).await?;
            Ok(Some(Ok(source)))
        }
    }
}

/// The blob directory names a run's blobs have (to release them once it is deleted).
pub async fn blob_names(pool: &Pool, id: &str) -> Result<Vec<String>, sqlx::Error> {
    on_engine!(pool, |pool| {
        let row: Option<(Option<String>, Option<String>)> =
            sqlx::query_as("SELECT source_sha256, model_sha256 FROM run_blobs WHERE run_id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?;
        Ok(row
            .map(|(a, b)| a.into_iter().chain(b).collect())
            .unwrap_or_default())
    })
}

/// How many runs name the blob `name`.
pub async fn blob_users(pool: &Pool, name: &str) -> Result<i64, sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM run_blobs WHERE source_sha256 = $1 OR model_sha256 = $2",
        )
        .bind(name)
        .bind(name)
        .fetch_one(pool)
        .await
    })
}

/// Appends a blob's further parts, in order.
async fn append_parts(
    pool: &Pool,
    id: &str,
    blob: &str,
    out: &mut Vec<u8>,
) -> Result<(), sqlx::Error> {
    on_engine!(pool, |pool| {
        // One part at a time, so a blob of many parts is never held twice.
        for seq in 0i64.. {
            let part: Option<Vec<u8>> = sqlx::query_scalar(
                "SELECT data FROM run_blob_parts WHERE run_id = $1 AND blob = $2 AND seq = $3",
            )
            .bind(id)
            .bind(blob)
            .bind(seq)
            .fetch_optional(pool)
            .await?;
            match part {
                Some(part) => out.extend_from_slice(&part),
                None => break,
            }
        }
        Ok(())
    })
}

/// A run's stored analysis report, if it was computed.
pub async fn get_analysis_json(pool: &Pool, id: &str) -> Result<Option<String>, sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query_scalar("SELECT report_json FROM run_analyses WHERE run_id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await
    })
}

/// Keeps a run's analysis report (a concurrent first request may have stored it already).
pub async fn put_analysis_json(
    pool: &Pool,
    id: &str,
    report_json: &str,
    created_ms: i64,
) -> Result<(), sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query(
            "INSERT INTO run_analyses (run_id, report_json, created_ms) VALUES ($1, $2, $3)
             ON CONFLICT (run_id) DO NOTHING",
        )
        .bind(id)
        .bind(report_json)
        .bind(created_ms)
        .execute(pool)
        .await?;
        Ok(())
    })
}

/// Keeps an upload's progress report unless a newer one (a larger `seq`) is kept already.
pub async fn put_upload_progress(
    pool: &Pool,
    key: &str,
    progress_json: &str,
    seq: i64,
    now_ms: i64,
) -> Result<(), sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query(
            "INSERT INTO upload_progress (key, progress_json, seq, updated_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (key) DO UPDATE SET progress_json = excluded.progress_json,
                 seq = excluded.seq, updated_ms = excluded.updated_ms
             WHERE excluded.seq > upload_progress.seq",
        )
        .bind(key)
        .bind(progress_json)
        .bind(seq)
        .bind(now_ms)
        .execute(pool)
        .await?;
        Ok(())
    })
}

/// An upload's last progress report, as JSON.
pub async fn get_upload_progress(pool: &Pool, key: &str) -> Result<Option<String>, sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query_scalar("SELECT progress_json FROM upload_progress WHERE key = $1")
            .bind(key)
            .fetch_optional(pool)
            .await
    })
}

/// Drops the progress of uploads last reported before `before_ms`.
pub async fn prune_upload_progress(pool: &Pool, before_ms: i64) -> Result<(), sqlx::Error> {
    on_engine!(pool, |pool| {
        sqlx::query("DELETE FROM upload_progress WHERE updated_ms < $1")
            .bind(before_ms)
            .execute(pool)
            .await?;
        Ok(())
    })
}

/// Whether a run is stored (a cache checks before it answers: another instance may have
/// deleted the run).
pub async fn run_exists(pool: &Pool, id: &str) -> Result<bool, sqlx::Error> {
    on_engine!(pool, |pool| {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT CAST(1 AS BIGINT) FROM runs WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?;
        Ok(found.is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::Target;

    #[test]
    fn a_target_is_a_postgres_url_or_a_file_and_shows_no_password() {
        assert_eq!(
            Target::parse("data/runs.db"),
            Target::File("data/runs.db".into())
        );
        assert_eq!(
            Target::parse("postgresql://u@h/db"),
            Target::Postgres("postgresql://u@h/db".into())
        );
        let target = Target::parse("postgres://team:s3cret@db.example:5432/traces?sslmode=require");
        assert_eq!(
            target.to_string(),
            "postgres://team@db.example:5432/traces?sslmode=require"
        );
        assert_eq!(
            Target::parse("postgres://db.example/traces").to_string(),
            "postgres://db.example/traces"
        );
        assert_eq!(Target::parse("runs.db").to_string(), "runs.db");
    }
}
