//! The compiler's one error: what is wrong, at a line and column.

/// A position in the source: line and column, both from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

/// A compile error at a line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("occam, line {line}, column {column}: {message}")]
pub struct OccamError {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl OccamError {
    pub(super) fn at(line: usize, column: usize, message: impl Into<String>) -> OccamError {
        OccamError {
            line,
            column,
            message: message.into(),
        }
    }

    pub(super) fn at_pos(pos: Pos, message: impl Into<String>) -> OccamError {
        OccamError::at(pos.line, pos.column, message)
    }
}
