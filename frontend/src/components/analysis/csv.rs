//! The analysis tables as CSV for spreadsheets: one number per cell in base units (seconds,
//! bytes, percent as a number, ticks on a trace without a clock), the unit in the column
//! heading, and packed cells split into columns ("Q1 / median / Q3 (max …)", "start – end",
//! "count (bytes)"). The page keeps its readable units; this reads them back, cell by cell, so
//! every table (and every table to come) downloads the same way.
//!
//! A column whose rows hold different units (a Metric / Value table) keeps one row per value and
//! carries the unit in the row's first cell instead ("Execution time (s)").
//! Values keep the precision the page shows (three decimals in the displayed unit).

/// A unit a number can carry, as the CSV heading names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// A plain number (a count, a ratio).
    None,
    Seconds,
    Ticks,
    Percent,
    Bytes,
}

impl Unit {
    /// The heading's suffix.
    fn suffix(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Seconds => " (s)",
            Unit::Ticks => " (ticks)",
            Unit::Percent => " (%)",
            Unit::Bytes => " (bytes)",
        }
    }
}

/// A cell read back: text, nothing, or one or more named quantities.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Empty,
    Text(String),
    /// (part name, value, unit); one part with an empty name for a plain quantity.
    Parts(Vec<(&'static str, f64, Unit)>),
}

/// A quantity as the page writes one: `12.5 ms`, `69 ticks`, `3.3 %`, `1.8 kB`, `4096 bytes`,
/// `−1.2 ms`, `+4.0 %`, `29`.
fn quantity(text: &str) -> Option<(f64, Unit)> {
    let text = text.trim();
    let (sign, rest) = match text.chars().next()? {
        '−' | '-' => (-1.0, &text[text.char_indices().nth(1)?.0..]),
        '+' => (1.0, &text[1..]),
        _ => (1.0, text),
    };
    let split = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e'))
        .unwrap_or(rest.len());
    let (number, unit) = rest.split_at(split);
    let value: f64 = number.parse().ok().filter(|v: &f64| v.is_finite())?;
    let (scale, unit) = match unit.trim() {
        "" => (1.0, Unit::None),
        "s" => (1.0, Unit::Seconds),
        "ms" => (1e-3, Unit::Seconds),
        "µs" | "us" => (1e-6, Unit::Seconds),
        "ns" => (1e-9, Unit::Seconds),
        "ticks" | "tick" => (1.0, Unit::Ticks),
        "%" => (1.0, Unit::Percent),
        "B" | "bytes" | "byte" => (1.0, Unit::Bytes),
        "kB" => (1e3, Unit::Bytes),
        "MB" => (1e6, Unit::Bytes),
        "GB" => (1e9, Unit::Bytes),
        _ => return None,
    };
    Some((sign * value * scale, unit))
}

/// Reads one cell of the page.
fn read(text: &str) -> Cell {
    let t = text.trim();
    if t.is_empty() || t == "—" {
        return Cell::Empty;
    }
    if let Some((v, u)) = quantity(t) {
        return Cell::Parts(vec![("", v, u)]);
    }
    // Quartiles: `Q1 / median / Q3 (max MAX)`.
    if let Some((quartiles, max)) = t.strip_suffix(')').and_then(|t| t.split_once(" (max "))
        && let [a, b, c] = quartiles.split(" / ").collect::<Vec<_>>().as_slice()
        && let (Some(a), Some(b), Some(c), Some(m)) =
            (quantity(a), quantity(b), quantity(c), quantity(max))
    {
        return Cell::Parts(vec![
            ("Q1", a.0, a.1),
            ("median", b.0, b.1),
            ("Q3", c.0, c.1),
            ("max", m.0, m.1),
        ]);
    }
    // A window: `START – END`.
    if let Some((a, b)) = t.split_once(" – ")
        && let (Some(a), Some(b)) = (quantity(a), quantity(b))
    {
        return Cell::Parts(vec![("start", a.0, a.1), ("end", b.0, b.1)]);
    }
    // A value and another in brackets: `5 (4096 bytes)`, `53 (−23.2 %)`.
    if let Some((a, b)) = t.strip_suffix(')').and_then(|t| t.split_once(" ("))
        && let (Some(a), Some(b)) = (quantity(a), quantity(b))
    {
        let second = if b.1 == Unit::Percent {
            "change"
        } else {
            "and"
        };
        return Cell::Parts(vec![("", a.0, a.1), (second, b.0, b.1)]);
    }
    Cell::Text(t.to_owned())
}

/// A number as a spreadsheet reads it: at most 12 significant digits, no exponent noise from
/// the unit conversion (`0.260199`, not `0.26019899999999997`).
fn number(v: f64) -> String {
    let v: f64 = format!("{v:.11e}").parse().unwrap_or(v);
    if v == 0.0 {
        "0".to_owned()
    } else {
        format!("{v}")
    }
}

/// A heading: the column's (and the part's) name and the unit.
fn heading(column: &str, part: &str, unit: Unit) -> String {
    let name = match (column.is_empty(), part) {
        (_, "") => column.to_owned(),
        (true, p) => p.to_owned(),
        (false, "and") => column.to_owned(),
        (false, p) => format!("{column} {p}"),
    };
    format!("{name}{}", unit.suffix())
}

/// The table `columns` × `rows` (cells as the page shows them) as CSV rows of plain fields.
pub fn spreadsheet(columns: &[&str], rows: &[Vec<String>]) -> Vec<Vec<String>> {
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|r| r.iter().map(|c| read(c)).collect())
        .collect();
    // Each column's shape: the parts (name and unit) every quantity in it has, if they agree.
    enum Shape {
        Text,
        Parts(Vec<(&'static str, Unit)>),
        Mixed,
    }
    let shapes: Vec<Shape> = (0..columns.len())
        .map(|k| {
            let mut shape: Option<Vec<(&'static str, Unit)>> = None;
            let mut text = false;
            for row in &cells {
                match row.get(k) {
                    Some(Cell::Text(_)) => text = true,
                    Some(Cell::Parts(parts)) => {
                        let this: Vec<_> = parts.iter().map(|p| (p.0, p.2)).collect();
                        match &shape {
                            None => shape = Some(this),
                            Some(s) if *s == this => {}
                            Some(_) => return Shape::Mixed,
                        }
                    }
                    Some(Cell::Empty) | None => {}
                }
            }
            match (shape, text) {
                (Some(_), true) => Shape::Mixed,
                (Some(s), false) => Shape::Parts(s),
                (None, _) => Shape::Text,
            }
        })
        .collect();
    let mixed = shapes.iter().any(|s| matches!(s, Shape::Mixed));
    let mut out = Vec::new();
    if mixed && columns.len() == 2 {
        // A name / value table: one row per value, the unit beside the name.
        out.push(columns.iter().map(|c| (*c).to_owned()).collect());
        for (row, shown) in cells.iter().zip(rows) {
            let name = shown.first().cloned().unwrap_or_default();
            match row.get(1) {
                Some(Cell::Parts(parts)) => {
                    for &(part, v, unit) in parts {
                        out.push(vec![heading(&name, part, unit), number(v)]);
                    }
                }
                Some(Cell::Text(t)) => out.push(vec![name, t.clone()]),
                _ => out.push(vec![name, String::new()]),
            }
        }
        return out;
    }
    let mut header = Vec::new();
    for (k, shape) in shapes.iter().enumerate() {
        let column = columns.get(k).copied().unwrap_or("");
        match shape {
            Shape::Parts(parts) => {
                header.extend(parts.iter().map(|&(p, u)| heading(column, p, u)));
            }
            // Text, or a column mixing units beside other columns: text with the unit kept.
            Shape::Text | Shape::Mixed => header.push(column.to_owned()),
        }
    }
    out.push(header);
    for (row, shown) in cells.iter().zip(rows) {
        let mut line = Vec::new();
        for (k, shape) in shapes.iter().enumerate() {
            match (shape, row.get(k)) {
                (Shape::Parts(_), Some(Cell::Parts(values))) => {
                    line.extend(values.iter().map(|p| number(p.1)));
                }
                (Shape::Parts(parts), _) => line.extend(parts.iter().map(|_| String::new())),
                (_, Some(Cell::Empty)) => line.push(String::new()),
                _ => line.push(shown.get(k).cloned().unwrap_or_default()),
            }
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: &[&str], rows: &[&[&str]]) -> Vec<Vec<String>> {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|c| (*c).to_owned()).collect())
            .collect();
        spreadsheet(columns, &rows)
    }

    #[test]
    fn times_shares_and_bytes_become_numbers_in_base_units_with_the_unit_in_the_heading() {
        let out = table(
            &["Process", "NPT", "Share"],
            &[
                &["task 1", "260.199 ms", "3.3 %"],
                &["task 2", "62 µs", "96.7 %"],
            ],
        );
        assert_eq!(out[0], ["Process", "NPT (s)", "Share (%)"]);
        assert_eq!(out[1], ["task 1", "0.260199", "3.3"]);
        assert_eq!(out[2], ["task 2", "0.000062", "96.7"]);
    }

    #[test]
    fn packed_quartiles_split_into_four_columns() {
        let out = table(
            &["Subject", "Count", "Duration"],
            &[
                &["state", "3", "62 µs / 1.467 ms / 39.944 ms (max 81.883 ms)"],
                &["event", "4", "—"],
            ],
        );
        assert_eq!(
            out[0],
            [
                "Subject",
                "Count",
                "Duration Q1 (s)",
                "Duration median (s)",
                "Duration Q3 (s)",
                "Duration max (s)"
            ]
        );
        assert_eq!(
            out[1],
            ["state", "3", "0.000062", "0.001467", "0.039944", "0.081883"]
        );
        assert_eq!(out[2], ["event", "4", "", "", "", ""]);
    }

    #[test]
    fn a_name_value_table_carries_each_rows_unit_beside_its_name() {
        let out = table(
            &["Metric", "Value"],
            &[
                &["Execution time", "1.9 s"],
                &["Computation (CPU time)", "2.15 s"],
                &["Processors", "2 nodes"],
                &["Selection: window", "0 s – 1.9 s"],
                &["Selection: messages sent", "2 (5120 bytes)"],
                &["Efficiency", "56.6 %"],
            ],
        );
        assert_eq!(out[1], ["Execution time (s)", "1.9"]);
        assert_eq!(out[2], ["Computation (CPU time) (s)", "2.15"]);
        assert_eq!(out[3], ["Processors", "2 nodes"]);
        assert_eq!(out[4], ["Selection: window start (s)", "0"]);
        assert_eq!(out[5], ["Selection: window end (s)", "1.9"]);
        assert_eq!(out[6], ["Selection: messages sent", "2"]);
        assert_eq!(out[7], ["Selection: messages sent (bytes)", "5120"]);
        assert_eq!(out[8], ["Efficiency (%)", "56.6"]);
    }

    #[test]
    fn signed_changes_and_plain_ticks_read_as_numbers() {
        let out = table(
            &["Process", "Change", "End"],
            &[&["A", "−16", "53"], &["B", "+1.5 ms", "69"]],
        );
        // One column mixes a unitless and a timed value: it stays as shown.
        assert_eq!(out[0], ["Process", "Change", "End"]);
        assert_eq!(out[1][2], "53");
        let out = table(&["P", "Change"], &[&["A", "−1.5 ms"], &["B", "+2 ms"]]);
        assert_eq!(out[1], ["A", "-0.0015"]);
        assert_eq!(out[2], ["B", "0.002"]);
    }
}
