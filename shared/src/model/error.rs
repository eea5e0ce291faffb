//! The one error every importer returns: which format, where in the input, and what was expected.

use serde::{Deserialize, Serialize};

/// Which limit of the budget an input exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Bytes of input after decompression.
    InputBytes,
    /// Events.
    Events,
    /// Processes (locations, threads, ranks).
    Processes,
    /// Depth of region nesting in one process.
    Depth,
}

impl Limit {
    /// The limit's name in messages (the command-line option that raises it).
    pub fn option(self) -> &'static str {
        match self {
            Limit::InputBytes => "--max-input-bytes",
            Limit::Events => "--max-events",
            Limit::Processes => "--max-processes",
            Limit::Depth => "--max-depth",
        }
    }

    /// What the limit counts, in messages.
    pub fn what(self) -> &'static str {
        match self {
            Limit::InputBytes => "bytes of input (after decompression)",
            Limit::Events => "events",
            Limit::Processes => "processes",
            Limit::Depth => "levels of region nesting",
        }
    }
}

/// A trace that could not be read.
///
/// It names the format being read, the position of the problem (byte offset from the start of
/// the input, and the 1-based line and column for text formats), and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{format}: line {line}, column {column} (byte {offset}): {message}")]
pub struct TraceError {
    /// The format being read, e.g. `tracescope-json`.
    pub format: String,
    /// Byte offset of the problem from the start of the input.
    pub offset: usize,
    /// 1-based line of the problem.
    pub line: usize,
    /// 1-based column (in bytes) of the problem.
    pub column: usize,
    /// What was found and what was expected.
    pub message: String,
    /// The budget limit the input went over, when that is why it was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exceeded: Option<Limit>,
}

/// Where in an input a reader is: byte offset, and the 1-based line and column (in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    /// Byte offset from the start of the input.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
}

impl Position {
    /// The start of the input.
    pub const START: Position = Position {
        offset: 0,
        line: 1,
        column: 1,
    };

    /// The position `bytes` further on the same line.
    pub fn plus(self, bytes: usize) -> Position {
        Position {
            offset: self.offset + bytes,
            column: self.column + bytes,
            ..self
        }
    }

    /// As people read it: "line L, column C (byte B)".
    pub fn describe(self) -> String {
        format!(
            "line {}, column {} (byte {})",
            self.line, self.column, self.offset
        )
    }
}

impl TraceError {
    /// An error at a known position (a streaming reader knows its line and column).
    pub fn at(format: &str, at: Position, message: impl Into<String>) -> Self {
        TraceError {
            format: format.to_owned(),
            offset: at.offset,
            line: at.line,
            column: at.column,
            message: message.into(),
            exceeded: None,
        }
    }

    /// An error at a byte offset of `input`, with the line and column computed from it.
    pub fn at_offset(
        format: &str,
        input: &[u8],
        offset: usize,
        message: impl Into<String>,
    ) -> Self {
        let offset = offset.min(input.len());
        let before = &input[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        TraceError {
            format: format.to_owned(),
            offset,
            line,
            column: offset - line_start + 1,
            message: message.into(),
            exceeded: None,
        }
    }

    /// An error at a 1-based line and column of `input`, with the byte offset computed from them.
    pub fn at_line_column(
        format: &str,
        input: &[u8],
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        let mut offset = 0;
        if line > 1 {
            offset = input
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .nth(line - 2)
                .map_or(input.len(), |(i, _)| i + 1);
        }
        TraceError::at_offset(format, input, offset + column.saturating_sub(1), message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_and_line_column_agree() {
        let input = b"ab\ncde\nf";
        let e = TraceError::at_offset("x", input, 5, "m");
        assert_eq!((e.line, e.column), (2, 3));
        let back = TraceError::at_line_column("x", input, 2, 3, "m");
        assert_eq!(back.offset, 5);
        assert_eq!(e.to_string(), "x: line 2, column 3 (byte 5): m");
    }

    #[test]
    fn offsets_past_the_end_are_clamped() {
        let e = TraceError::at_offset("x", b"ab", 99, "m");
        assert_eq!((e.offset, e.line, e.column), (2, 1, 3));
    }
}
