//! Runs drawn from their stored viewport index (see `shared::view::lod`): opening one reads its
//! outline and the index's directory, and each view then reads only the chunks it needs, kept
//! in a bounded cache. Nothing here builds the run's model or analysis context, so the Gantt
//! chart of a run too large to analyse in memory still opens in the time of a few reads.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::db::Pool;
use rustc_hash::FxHashMap;
use shared::Trace;
use shared::view::lod::{Chunk, ChunkKey, ChunkSource, LazyIndex};

/// The most chunks one run keeps decoded (a span chunk is about 200 KB decoded).
const CACHED_CHUNKS: usize = 2048;

/// Decoded chunks by key, and the keys in the order they were read.
type Cached = (FxHashMap<ChunkKey, Arc<Chunk>>, VecDeque<ChunkKey>);

/// A run opened from its stored index.
pub struct LazyRun {
    /// The model's outline: nodes, processes, regions, no events.
    pub outline: Trace,
    /// The index's directory.
    pub index: LazyIndex,
    /// Where its chunks are read.
    pub chunks: StoreChunks,
}

/// A run's chunks, read from the store on first use and kept (least recently read dropped
/// first).
pub struct StoreChunks {
    pool: Pool,
    run: String,
    runtime: tokio::runtime::Handle,
    cached: Mutex<Cached>,
    reads: AtomicU64,
    hits: prometheus_client::metrics::counter::Counter,
    misses: prometheus_client::metrics::counter::Counter,
}

impl StoreChunks {
    /// How many chunks were read from the store so far (for tests and logs).
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

impl ChunkSource for StoreChunks {
    /// Reads through the store on a miss: call it on a blocking thread, never on the async
    /// runtime's own.
    fn chunk(&self, key: ChunkKey) -> Result<Arc<Chunk>, String> {
        {
            let cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(chunk) = cached.0.get(&key) {
                self.hits.inc();
                return Ok(Arc::clone(chunk));
            }
        }
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.misses.inc();
        let bytes = self
            .runtime
            .block_on(crate::db::get_chunk(&self.pool, &self.run, key))
            .map_err(|e| format!("reading chunk {key:?}: {e}"))?
            .ok_or_else(|| format!("the run has no chunk {key:?}"))?;
        let chunk = Arc::new(Chunk::decode(key.kind, &bytes)?);
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        let (map, order) = &mut *cached;
        if map.insert(key, Arc::clone(&chunk)).is_none() {
            order.push_back(key);
        }
        while order.len() > CACHED_CHUNKS {
            if let Some(old) = order.pop_front() {
                map.remove(&old);
            }
        }
        Ok(chunk)
    }
}

/// The run opened from its stored index, from the cache or read now; `None` inside for a run
/// stored before runs had one (it is drawn from its model).
pub async fn lazy_run(
    state: &crate::AppState,
    id: &str,
) -> Result<Arc<Option<LazyRun>>, crate::http::error::AppError> {
    use crate::http::error::AppError;
    // The cache may hold a run another instance has deleted since.
    if !crate::db::run_exists(&state.pool, id).await? {
        state.lazy_runs.remove(id);
        state.answers.remove_run(id);
        return Err(AppError::no_run(id));
    }
    state
        .lazy_runs
        .get_or_build(id, || async {
            let Some((outline, directory)) = crate::db::get_index_head(&state.pool, id).await?
            else {
                return match crate::db::get_run(&state.pool, id).await? {
                    Some(_) => Ok(None),
                    None => Err(AppError::no_run(id)),
                };
            };
            let outline = shared::formats::binary::parse(&outline)
                .map_err(|e| anyhow::anyhow!("the outline of run {id} does not decode: {e}"))?;
            let index =
                LazyIndex::decode(&directory).map_err(|e| anyhow::anyhow!("run {id}: {e}"))?;
            Ok::<_, AppError>(Some(LazyRun {
                outline,
                index,
                chunks: StoreChunks {
                    pool: state.pool.clone(),
                    run: id.to_owned(),
                    runtime: tokio::runtime::Handle::current(),
                    cached: Mutex::default(),
                    reads: AtomicU64::new(0),
                    hits: state.metrics.cache_counter("index_chunk", "hit"),
                    misses: state.metrics.cache_counter("index_chunk", "miss"),
                },
            }))
        })
        .await
}
