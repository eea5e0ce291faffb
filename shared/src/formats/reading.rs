//! What every reader shares: the bound on declared counts, and the notes on skipped records and
//! on values read other than written.

/// The most nodes or processes a header may declare before any event names them (a damaged
/// count must not make the importer allocate without bound).
pub(crate) const MAX_DECLARED: u64 = 1 << 20;

/// Values an importer read other than written, by what was done: how many, and where the
/// first one is (so a reader can find it in the file).
#[derive(Debug, Default)]
pub(crate) struct Adjusted {
    by_what: std::collections::BTreeMap<&'static str, (usize, String)>,
}

impl Adjusted {
    /// Counts one value adjusted as `what`; `position` says where, for the first.
    pub(crate) fn add(&mut self, what: &'static str, position: impl FnOnce() -> String) {
        self.by_what
            .entry(what)
            .and_modify(|(n, _)| *n += 1)
            .or_insert_with(|| (1, position()));
    }

    /// One note per kind: "N what (the first at POSITION)", sorted by kind.
    pub(crate) fn notes(&self) -> Vec<String> {
        self.by_what
            .iter()
            .map(|(what, (n, first))| format!("{n} {what} (the first at {first})"))
            .collect()
    }
}

/// Where byte `offset` of `input` is, as "line L, column C (byte B)".
pub(crate) fn position(input: &[u8], offset: usize) -> String {
    let e = crate::model::error::TraceError::at_offset("", input, offset, "");
    format!("line {}, column {} (byte {})", e.line, e.column, e.offset)
}

/// Notes for records skipped, by what they were: `skipped N what`, sorted.
pub(crate) fn skipped_notes<S: AsRef<str>>(
    skipped: impl IntoIterator<Item = (S, usize)>,
) -> Vec<String> {
    let mut notes: Vec<String> = skipped
        .into_iter()
        .map(|(what, n)| format!("skipped {n} {}", what.as_ref()))
        .collect();
    notes.sort();
    notes
}
