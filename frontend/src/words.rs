//! The page's words for what the engine names with identifiers: `late_sender` is "Late Sender",
//! `critical_path` "critical path", `msg_arr` "message arrival"; and counts with their nouns
//! ("1 node", "2 nodes"). Everything shown to people goes through here, so one concept has one
//! name.

/// `n` and its noun, singular or plural: `1 node`, `3 nodes`, `1 process`, `2 processes`.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// An identifier (`late_sender`, `clock_violation`) as words with a capital: `Late sender`.
pub fn sentence(id: &str) -> String {
    let words = id.replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A wait state's pattern as the analysis literature names it: `late_sender` → `Late Sender`.
pub fn wait_kind(id: &str) -> String {
    id.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An analysis a diagnostic can affect, as the page names it.
pub fn analysis(id: &str) -> String {
    match id {
        "critical_path" => "critical path".to_owned(),
        "wcpa" => "weighted critical path (WCPA)".to_owned(),
        "pop" => "POP efficiencies".to_owned(),
        "npt" => "normalized processor time (NPT)".to_owned(),
        "parallelism_profile" => "parallelism profile".to_owned(),
        "total_computation" => "total computation".to_owned(),
        "execution_time" => "execution time".to_owned(),
        "wait_states" => "wait states".to_owned(),
        other => other.replace('_', " "),
    }
}

/// An event kind's API name (`msg_arr`) in people's words (`message arrival`); other names as
/// they are.
pub fn event_kind(name: &str) -> String {
    shared::model::EventKind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .map_or_else(|| name.to_owned(), |k| k.words().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_read_as_words_and_counts_agree_with_their_nouns() {
        assert_eq!(count(1, "node", "nodes"), "1 node");
        assert_eq!(count(2, "pair", "pairs"), "2 pairs");
        assert_eq!(count(0, "process", "processes"), "0 processes");
        assert_eq!(wait_kind("late_sender"), "Late Sender");
        assert_eq!(sentence("clock_violation"), "Clock violation");
        assert_eq!(analysis("critical_path"), "critical path");
        assert_eq!(analysis("wcpa"), "weighted critical path (WCPA)");
        assert_eq!(event_kind("msg_arr"), "message arrival");
        assert_eq!(event_kind("computing"), "computing");
    }
}
