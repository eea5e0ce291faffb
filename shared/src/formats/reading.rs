//! What every reader shares: the bound on declared counts, and the notes on skipped records and
//! on values read other than written.

/// The most nodes or processes a header may declare before any event names them (a damaged
/// count must not make the importer allocate without bound).
pub(crate) const MAX_DECLARED: u64 = 1 << 20;

/// Notes for values an importer read other than written: "N what", sorted.
pub(crate) fn adjusted_notes<S: AsRef<str>>(
    adjusted: impl IntoIterator<Item = (S, usize)>,
) -> Vec<String> {
    let mut notes: Vec<String> = adjusted
        .into_iter()
        .map(|(what, n)| format!("{n} {}", what.as_ref()))
        .collect();
    notes.sort();
    notes
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
