//! The resource budget of one import: how many bytes (after decompression), events, processes
//! and levels of region nesting a trace may have before the importer refuses it. The limits
//! scale with the upload limit and a memory budget, so a small compressed upload cannot make
//! the server allocate more than a plain upload of the largest accepted size would.
//!
//! Importers check the budget while they read, before they build the structures that would
//! grow past it; the error names the limit ([`TraceError::exceeded`]).

pub use crate::model::error::Limit;
use crate::model::error::{Position, TraceError};

/// The most an import into the store is taken to cost per event, in bytes: the peak resident
/// memory of `tracescope import` per event at 10^8 events (69 B from the native binary format;
/// `convert` from Chrome JSON 79 B), rounded up with room for the compressed copies.
pub const BYTES_PER_EVENT: u64 = 128;

/// The most a run's model and its analyses are taken to cost per event, in bytes: the peak
/// resident memory of `tracescope analyze` per event at 1.1 × 10^7 OTF2 events (247 B),
/// doubled. A run past it is stored and drawn (its Gantt chart reads its stored index), but
/// not analysed.
pub const ANALYSIS_BYTES_PER_EVENT: u64 = 512;

/// The most events whose analyses a memory budget of `memory_bytes` pays for.
pub fn analysed_events(memory_bytes: u64) -> u64 {
    memory_bytes / ANALYSIS_BYTES_PER_EVENT
}

/// The default memory budget of one import and its analyses.
pub const DEFAULT_MEMORY_BYTES: u64 = 16 << 30;

/// The default upload limit, which the default budget scales with.
pub const DEFAULT_UPLOAD_BYTES: u64 = 1 << 30;

/// The deepest region nesting accepted by default: deeper than any real program's call stack,
/// and the analyses are linear in depth, so it guards memory only.
pub const DEFAULT_MAX_DEPTH: u64 = 1 << 20;

/// The limits of one import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Bytes of input after decompression (the compressed upload counts for nothing).
    pub max_input_bytes: u64,
    /// Events.
    pub max_events: u64,
    /// Processes.
    pub max_processes: u64,
    /// Depth of region nesting in one process.
    pub max_depth: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::scaled(DEFAULT_UPLOAD_BYTES, DEFAULT_MEMORY_BYTES)
    }
}

impl Budget {
    /// The budget for an upload limit and a memory budget, both in bytes:
    /// - input: the upload limit (a gzip upload may hold no more than a plain one);
    /// - events: one per 8 bytes of input allowed (an OTF2 event record can be that small),
    ///   and no more than the memory budget pays for at [`BYTES_PER_EVENT`];
    /// - processes: one per KiB of input allowed, from 1,024 up to 2^20;
    /// - depth: [`DEFAULT_MAX_DEPTH`].
    pub fn scaled(upload_bytes: u64, memory_bytes: u64) -> Budget {
        Budget {
            max_input_bytes: upload_bytes,
            max_events: (upload_bytes / 8).min(memory_bytes / BYTES_PER_EVENT),
            max_processes: (upload_bytes / 1024).clamp(1 << 10, 1 << 20),
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    /// The most memory an import of `input_bytes` (after decompression) may take within this
    /// budget, in bytes: one event per 8 bytes of input (the smallest an event record can
    /// be), no more than the event limit, at [`BYTES_PER_EVENT`] each. A server reserves it
    /// before the import starts.
    pub fn memory_estimate(&self, input_bytes: u64) -> u64 {
        let input = input_bytes.min(self.max_input_bytes);
        (input / 8)
            .saturating_add(1)
            .min(self.max_events)
            .saturating_mul(BYTES_PER_EVENT)
    }

    /// No limits (for tests and trusted local tools).
    pub const UNLIMITED: Budget = Budget {
        max_input_bytes: u64::MAX,
        max_events: u64::MAX,
        max_processes: u64::MAX,
        max_depth: u64::MAX,
    };

    fn max(&self, limit: Limit) -> u64 {
        match limit {
            Limit::InputBytes => self.max_input_bytes,
            Limit::Events => self.max_events,
            Limit::Processes => self.max_processes,
            Limit::Depth => self.max_depth,
        }
    }

    /// Checks that `count` of `limit` is within the budget; the error points at `offset` in
    /// `input`, where the reader was when the count went over.
    pub fn check(
        &self,
        limit: Limit,
        count: u64,
        format: &str,
        input: &[u8],
        offset: usize,
    ) -> Result<(), TraceError> {
        if count <= self.max(limit) {
            return Ok(());
        }
        let e = TraceError::at_offset(format, input, offset, "");
        self.check_at(
            limit,
            count,
            format,
            Position {
                offset: e.offset,
                line: e.line,
                column: e.column,
            },
        )
    }

    /// [`Budget::check`] for a reader that knows its position (a streaming one).
    pub fn check_at(
        &self,
        limit: Limit,
        count: u64,
        format: &str,
        at: Position,
    ) -> Result<(), TraceError> {
        let max = self.max(limit);
        if count <= max {
            return Ok(());
        }
        let mut error = TraceError::at(
            format,
            at,
            format!(
                "the trace has more than {max} {} (the import budget; {} raises it)",
                limit.what(),
                limit.option()
            ),
        );
        error.exceeded = Some(limit);
        Err(error)
    }

    /// Checks a finished model's process count and deepest nesting, for the importers whose
    /// reading does not count them as it goes.
    pub fn check_model(
        &self,
        trace: &crate::model::Trace,
        format: &str,
        input: &[u8],
    ) -> Result<(), TraceError> {
        self.check(
            Limit::Processes,
            trace.processes.len() as u64,
            format,
            input,
            0,
        )?;
        self.check(Limit::Events, trace.events.len() as u64, format, input, 0)?;
        let mut depth = vec![0u64; trace.processes.len()];
        let events = &trace.events;
        for (i, kind) in events.kind().iter().enumerate() {
            let process = events.process()[i];
            let Some(d) = depth.get_mut(process.index()) else {
                continue;
            };
            match kind {
                crate::model::EventKind::Enter => {
                    *d += 1;
                    // The model keeps no byte offsets: the error names the event instead.
                    let level = *d;
                    self.check(Limit::Depth, level, format, input, 0)
                        .map_err(|mut e| {
                            let name = trace
                                .processes
                                .get(process.index())
                                .map_or("?", |p| p.name.as_str());
                            e.message = format!(
                                "{} (process {name:?}: the region entered at tick {} opens \
                                 level {level})",
                                e.message,
                                events.time().get(i).map_or(0, |t| t.0)
                            );
                            e
                        })?;
                }
                crate::model::EventKind::Leave => *d = d.saturating_sub(1),
                _ => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_budget_scales_with_the_upload_limit_and_memory() {
        let b = Budget::default();
        assert_eq!(b.max_input_bytes, 1 << 30);
        // 2^30 / 8 = 128 Mi events from the input, 16 GiB / 128 B = 128 Mi from memory; their
        // analyses: 16 GiB / 512 B = 32 Mi.
        assert_eq!(b.max_events, 128 << 20);
        assert_eq!(analysed_events(DEFAULT_MEMORY_BYTES), 32 << 20);
        assert_eq!(Budget::scaled(1 << 30, 1 << 30).max_events, 8 << 20);
        assert_eq!(b.max_processes, 1 << 20);
        let small = Budget::scaled(1 << 20, DEFAULT_MEMORY_BYTES);
        assert_eq!(small.max_events, (1 << 20) / 8);
        assert_eq!(small.max_processes, 1024);
    }

    #[test]
    fn the_memory_estimate_follows_the_input_within_the_limits() {
        let b = Budget::scaled(1 << 20, 1 << 30);
        assert_eq!(b.memory_estimate(800), 101 * BYTES_PER_EVENT);
        // Input past the budget's is charged as the budget's: the import stops there.
        assert_eq!(b.memory_estimate(u64::MAX), b.memory_estimate(1 << 20));
        let few = Budget {
            max_events: 10,
            ..b
        };
        assert_eq!(few.memory_estimate(1 << 20), 10 * BYTES_PER_EVENT);
    }

    #[test]
    fn an_exceeded_limit_is_named_in_the_error() {
        let b = Budget {
            max_events: 3,
            ..Budget::default()
        };
        assert!(b.check(Limit::Events, 3, "x", b"abc", 1).is_ok());
        let e = b
            .check(Limit::Events, 4, "x", b"abc", 1)
            .expect_err("past the budget");
        assert_eq!(e.exceeded, Some(Limit::Events));
        assert_eq!(e.offset, 1);
        assert!(e.message.contains("more than 3 events"), "{e}");
        assert!(e.message.contains("--max-events"), "{e}");
    }
}
