//! The server-wide memory budget (`serve --max-memory-bytes`): every import and every analysis
//! reserves what it is estimated to take before it starts, and the sum of what is reserved
//! never exceeds the budget.
//!
//! A request that does not fit waits a few seconds for others to finish, then is answered 503
//! with `Retry-After` and a sentence; it never starts an allocation the server cannot hold.
//! A [`Reservation`] is released when it is dropped: when an import is stored or refused, or
//! when a run's workspace (which owns the reservation of its model and analyses) leaves the
//! cache and its last request is answered.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use prometheus_client::metrics::gauge::Gauge;

/// How long a request waits for room before it is answered 503.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(5);

/// The smallest and largest default budget: a small machine still serves small runs, and a
/// large one is not assumed to be the server's alone past this.
const DEFAULT_MIN: u64 = 256 << 20;
const DEFAULT_MAX: u64 = shared::formats::budget::DEFAULT_MEMORY_BYTES;

/// The default budget of `serve`: half of this machine's memory (`MemTotal` in
/// `/proc/meminfo`), between 256 MiB and 16 GiB; 16 GiB where the machine does not say.
pub fn default_budget() -> u64 {
    machine_memory().map_or(DEFAULT_MAX, |total| {
        (total / 2).clamp(DEFAULT_MIN, DEFAULT_MAX)
    })
}

/// This machine's memory in bytes (Linux: `MemTotal` in `/proc/meminfo`).
fn machine_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The budget and what is reserved of it.
pub struct MemoryBudget {
    total: u64,
    reserved: Mutex<u64>,
    /// Woken whenever a reservation is released.
    freed: tokio::sync::Notify,
    wait: Duration,
    /// What `GET /metrics` shows: the bytes reserved now, and the budget.
    reserved_gauge: Gauge,
}

/// Bytes reserved of the budget, given back when this is dropped.
pub struct Reservation {
    budget: Arc<MemoryBudget>,
    bytes: u64,
}

impl std::fmt::Debug for Reservation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reservation({} bytes)", self.bytes)
    }
}

impl Reservation {
    /// The bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut reserved = self.budget.lock();
        *reserved = reserved.saturating_sub(self.bytes);
        self.budget.show(*reserved);
        drop(reserved);
        self.budget.freed.notify_waiters();
        if self.bytes >= TRIM_FROM {
            // Off the async workers: trimming walks every arena.
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => drop(runtime.spawn_blocking(give_back)),
                Err(_) => give_back(),
            }
        }
    }
}

/// The smallest reservation whose release gives memory back to the system: below it, what
/// was freed is too little to be worth a walk over the allocator's arenas.
const TRIM_FROM: u64 = 1 << 20;

/// Gives the memory the allocator holds freed back to the system. glibc keeps what a thread
/// frees in that thread's arena, so imports run one after another on different blocking
/// threads each left their peak resident: eight decompression bombs in turn on a 48 MiB
/// budget grew the server by 65 MiB, one alone by 9 MiB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back() {
    // glibc's `malloc_trim` (malloc.h) takes the bytes to leave at the top of the heap and
    // answers whether it released any; it has no precondition.
    #[allow(unsafe_code)]
    unsafe extern "C" {
        safe fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    malloc_trim(0);
}

/// Other allocators give freed memory back themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() {}

/// The size from which an allocation is mapped on its own, and unmapped when freed.
const MAP_FROM: std::ffi::c_int = 1 << 20;

/// Makes the allocator give large blocks back to the system as soon as they are freed, so
/// that what a finished import or a dropped workspace took leaves the resident set before the
/// next one, which the budget let start, takes its own. glibc raises its mapping threshold
/// each time a mapped block is freed (up to 32 MiB), after which a trace's vectors come from
/// the freeing thread's arena, whose top `malloc_trim` does not shrink: eight bombs one after
/// another left six arenas of 8 MiB resident. A fixed threshold keeps blocks of a MiB and
/// more mapped. Called once, by `serve`, before its threads start.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn give_large_blocks_back() {
    // glibc's `mallopt` (malloc.h): M_MMAP_THRESHOLD is -3; setting it also stops the
    // threshold's dynamic adjustment. It has no precondition.
    const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
    #[allow(unsafe_code)]
    unsafe extern "C" {
        safe fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    mallopt(M_MMAP_THRESHOLD, MAP_FROM);
}

/// Other allocators give freed memory back themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_large_blocks_back() {}

/// Why a reservation was not made: the server stayed full for the whole wait.
#[derive(Debug, Clone)]
pub struct Full {
    /// The bytes asked for.
    pub asked: u64,
    /// The bytes reserved by others when the wait ended.
    pub reserved: u64,
    /// The budget.
    pub total: u64,
    /// How long the request waited.
    pub waited: Duration,
}

impl MemoryBudget {
    /// A budget of `total` bytes, where a request waits at most `wait` for room, shown in
    /// the gauges `shown` (what is reserved, and the budget: the server's metrics).
    pub fn new(total: u64, wait: Duration, shown: [&Gauge; 2]) -> Arc<MemoryBudget> {
        let [reserved, budget] = shown;
        budget.set(i64::try_from(total).unwrap_or(i64::MAX));
        Arc::new(MemoryBudget {
            total,
            reserved: Mutex::new(0),
            freed: tokio::sync::Notify::new(),
            wait,
            reserved_gauge: reserved.clone(),
        })
    }

    /// The budget in bytes.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The bytes reserved now.
    pub fn reserved(&self) -> u64 {
        *self.lock()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, u64> {
        // The counter is a plain number: a panic elsewhere cannot leave it half-written.
        self.reserved.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn show(&self, reserved: u64) {
        self.reserved_gauge
            .set(i64::try_from(reserved).unwrap_or(i64::MAX));
    }

    /// Reserves `bytes` now if they fit. A request costing more than the whole budget is
    /// charged the whole budget: it runs alone (its own limits, checked before, bound it).
    pub fn try_reserve(self: &Arc<Self>, bytes: u64) -> Option<Reservation> {
        let bytes = bytes.min(self.total);
        let mut reserved = self.lock();
        let after = reserved.checked_add(bytes).filter(|&r| r <= self.total)?;
        *reserved = after;
        self.show(after);
        Some(Reservation {
            budget: Arc::clone(self),
            bytes,
        })
    }

    /// Reserves `bytes`, waiting for room at most the budget's wait; `make_room` is called
    /// once when the bytes do not fit at first (the server drops what it keeps only to be
    /// fast, such as idle cached workspaces).
    pub async fn reserve(
        self: &Arc<Self>,
        bytes: u64,
        make_room: impl FnOnce(),
    ) -> Result<Reservation, Full> {
        if let Some(r) = self.try_reserve(bytes) {
            return Ok(r);
        }
        make_room();
        let started = tokio::time::Instant::now();
        let deadline = started + self.wait;
        loop {
            // Registered before the attempt, so a release between the attempt and the wait
            // is not missed.
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Some(r) = self.try_reserve(bytes) {
                return Ok(r);
            }
            if tokio::time::timeout_at(deadline, freed).await.is_err() {
                return Err(Full {
                    asked: bytes.min(self.total),
                    reserved: self.reserved(),
                    total: self.total,
                    waited: started.elapsed(),
                });
            }
        }
    }
}

/// `bytes` in MiB, for sentences.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(total: u64, wait_ms: u64) -> Arc<MemoryBudget> {
        MemoryBudget::new(
            total,
            Duration::from_millis(wait_ms),
            [&Gauge::default(), &Gauge::default()],
        )
    }

    #[tokio::test]
    async fn reservations_add_up_to_the_budget_and_are_released_when_dropped() {
        let b = budget(100, 50);
        let first = b.reserve(60, || {}).await.expect("fits");
        assert_eq!(b.reserved(), 60);
        let full = b.reserve(50, || {}).await.expect_err("60 + 50 > 100");
        assert_eq!((full.asked, full.reserved, full.total), (50, 60, 100));
        assert!(full.waited >= Duration::from_millis(50), "{full:?}");
        let second = b.reserve(40, || {}).await.expect("60 + 40 fits");
        assert_eq!(b.reserved(), 100);
        drop(first);
        assert_eq!(b.reserved(), 40);
        drop(second);
        assert_eq!(b.reserved(), 0);
        // More than the whole budget is charged the whole budget.
        let all = b.reserve(1000, || {}).await.expect("an empty server");
        assert_eq!(all.bytes(), 100);
    }

    #[tokio::test]
    async fn a_waiting_reservation_is_made_when_another_is_released() {
        let b = budget(100, 5_000);
        let first = b.reserve(80, || {}).await.expect("fits");
        let released = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            drop(first);
        });
        let mut asked_for_room = false;
        let second = b
            .reserve(80, || asked_for_room = true)
            .await
            .expect("made once the first is released");
        assert!(asked_for_room);
        assert_eq!(second.bytes(), 80);
        released.await.expect("task");
    }
}
