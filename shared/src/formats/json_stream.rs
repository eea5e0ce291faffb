//! Walking a JSON document as it streams in: the elements of its top-level array, or of the
//! arrays that are values of its top-level object, are handed to a visitor one at a time with
//! the position where each starts; the other values of the top-level object whole. Only the
//! value being visited is held, so a trace of many events costs its model, not its text.
//!
//! The walker checks the document's outer structure; each value it hands over is checked by
//! whoever parses it (the visitor parses every one, if only as `IgnoredAny`).

use std::io::Read;

use super::budget::Budget;
use crate::model::error::{Position, TraceError};

/// What a part handed to the visitor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// The whole value of a member of the top-level object that is not an array.
    Member,
    /// The opening of an array (its bytes are `[`): its elements follow.
    Open,
    /// An element of an array.
    Element,
}

/// One value handed to the visitor.
pub struct Part<'a> {
    /// The key of the top-level object's member it is, or belongs to (`None` for the elements
    /// of a top-level array).
    pub key: Option<&'a str>,
    /// What it is.
    pub piece: Piece,
    /// The value's JSON text.
    pub bytes: &'a [u8],
    /// Where it starts.
    pub at: Position,
}

/// The position in a value's text of a `serde_json` error at its 1-based `line` and `column`,
/// given where the value starts.
pub fn position_in(at: Position, bytes: &[u8], line: usize, column: usize) -> Position {
    if line <= 1 {
        return at.plus(column.saturating_sub(1));
    }
    let line_start = bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(line - 2)
        .map_or(bytes.len(), |(i, _)| i + 1);
    Position {
        offset: at.offset + line_start + column.saturating_sub(1),
        line: at.line + line - 1,
        column,
    }
}

/// A `serde_json` error's message without its "at line L column C" (the position is given
/// apart).
pub fn message_of(e: &serde_json::Error) -> String {
    let text = e.to_string();
    text.rsplit_once(" at line ")
        .map_or(text.as_str(), |(t, _)| t)
        .to_owned()
}

struct Scanner<'r> {
    reader: &'r mut dyn Read,
    format: &'static str,
    budget: &'r Budget,
    chunk: Vec<u8>,
    pos: usize,
    len: usize,
    /// The position of `chunk[pos]`.
    at: Position,
}

impl Scanner<'_> {
    fn error(&self, message: impl Into<String>) -> TraceError {
        TraceError::at(self.format, self.at, message)
    }

    /// Makes `chunk[pos]` readable; false at the end of the input.
    fn fill(&mut self) -> Result<bool, TraceError> {
        if self.pos < self.len {
            return Ok(true);
        }
        self.pos = 0;
        self.len = loop {
            match self.reader.read(&mut self.chunk) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(super::stream::io_error(
                        self.format,
                        &e,
                        self.at,
                        self.budget,
                    ));
                }
            }
        };
        Ok(self.len > 0)
    }

    fn peek(&mut self) -> Result<Option<u8>, TraceError> {
        Ok(if self.fill()? {
            Some(self.chunk[self.pos])
        } else {
            None
        })
    }

    fn advance(&mut self, byte: u8) {
        self.pos += 1;
        self.at.offset += 1;
        if byte == b'\n' {
            self.at.line += 1;
            self.at.column = 1;
        } else {
            self.at.column += 1;
        }
    }

    /// Moves past the next `n` buffered bytes, keeping the position.
    fn consume(&mut self, n: usize) {
        let taken = &self.chunk[self.pos..self.pos + n];
        match taken.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.at.line += taken.iter().filter(|&&b| b == b'\n').count();
                self.at.column = n - last;
            }
            None => self.at.column += n,
        }
        self.at.offset += n;
        self.pos += n;
    }

    fn skip_whitespace(&mut self) -> Result<Option<u8>, TraceError> {
        while let Some(b) = self.peek()? {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Ok(Some(b));
            }
            self.advance(b);
        }
        Ok(None)
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), TraceError> {
        match self.skip_whitespace()? {
            Some(b) if b == byte => {
                self.advance(b);
                Ok(())
            }
            Some(b) => Err(self.error(format!("expected {what}, found {:?}", char::from(b)))),
            None => Err(self.error(format!("expected {what}, found the end of the input"))),
        }
    }

    /// Copies one JSON value (from its first byte) into `out`: a string, an object or array
    /// (to its matching close, strings skipped), or a scalar (to the next delimiter).
    fn value(&mut self, out: &mut Vec<u8>) -> Result<(), TraceError> {
        out.clear();
        let Some(first) = self.skip_whitespace()? else {
            return Err(self.error("expected a value, found the end of the input"));
        };
        let scalar = !matches!(first, b'"' | b'{' | b'[');
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        loop {
            if !self.fill()? {
                if scalar && !out.is_empty() {
                    return Ok(());
                }
                return Err(self.error("expected the rest of a value, found the end of the input"));
            }
            let start = self.pos;
            let mut done = false;
            let mut i = start;
            let bytes = &self.chunk[..self.len];
            while i < bytes.len() {
                let b = bytes[i];
                if in_string {
                    i += 1;
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                        if depth == 0 {
                            done = true;
                            break;
                        }
                    }
                    continue;
                }
                if scalar && matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                    done = true;
                    break;
                }
                i += 1;
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            done = true;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            self.consume(i - start);
            out.extend_from_slice(&self.chunk[start..self.pos]);
            if done {
                return Ok(());
            }
        }
    }
}

/// How a top-level array ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// With its `]`.
    Closed,
    /// With a comma before its `]`, or before the end of the input.
    TrailingComma,
    /// At the end of the input, without its `]`.
    Unclosed,
}

/// What a walk found besides the parts it handed over.
pub struct Walked {
    /// How the top-level array ended (`Closed` for an object).
    pub ending: Ending,
    /// The top-level object's member names, in order (empty for a top-level array).
    pub keys: Vec<String>,
    /// Whether the document is an array.
    pub array: bool,
    /// The end of the input.
    pub end: Position,
}

/// Walks the JSON document in `reader` (see the module's documentation), calling `visit` for
/// each part in order. With `lenient_end`, a top-level array may end with a comma before its
/// `]`, or stop after an element (or its comma) without its `]`, as a trace cut off by a crash
/// does: the Trace Event Format allows it, and Catapult reads it so.
pub fn walk(
    reader: &mut dyn Read,
    format: &'static str,
    budget: &Budget,
    lenient_end: bool,
    visit: &mut dyn FnMut(Part<'_>) -> Result<(), TraceError>,
) -> Result<Walked, TraceError> {
    let mut s = Scanner {
        reader,
        format,
        budget,
        chunk: vec![0; 1 << 16],
        pos: 0,
        len: 0,
        at: Position::START,
    };
    // A byte-order mark is allowed before the document.
    for &b in b"\xEF\xBB\xBF" {
        if s.peek()? == Some(b) {
            s.advance(b);
        }
    }
    let mut buf = Vec::new();
    let mut keys = Vec::new();
    let is_array = s.skip_whitespace()? == Some(b'[');
    let mut ending = Ending::Closed;
    match s.skip_whitespace()? {
        Some(b'[') => ending = array(&mut s, None, &mut buf, lenient_end, visit)?,
        Some(b'{') => {
            s.advance(b'{');
            let mut key_buf = Vec::new();
            if s.skip_whitespace()? == Some(b'}') {
                s.advance(b'}');
            } else {
                loop {
                    let key_at = s.at;
                    if s.skip_whitespace()? != Some(b'"') {
                        return Err(s.error("expected a member name in double quotes"));
                    }
                    s.value(&mut key_buf)?;
                    let key: String = serde_json::from_slice(&key_buf).map_err(|e| {
                        TraceError::at(
                            format,
                            key_at,
                            format!("expected a member name: {}", message_of(&e)),
                        )
                    })?;
                    s.expect(b':', "':' after a member name")?;
                    keys.push(key.clone());
                    if s.skip_whitespace()? == Some(b'[') {
                        array(&mut s, Some(&key), &mut buf, false, visit)?;
                    } else {
                        let at = s.at;
                        s.value(&mut buf)?;
                        visit(Part {
                            key: Some(&key),
                            piece: Piece::Member,
                            bytes: &buf,
                            at,
                        })?;
                    }
                    match s.skip_whitespace()? {
                        Some(b',') => s.advance(b','),
                        Some(b'}') => {
                            s.advance(b'}');
                            break;
                        }
                        _ => return Err(s.error("expected ',' or '}' after a member")),
                    }
                }
            }
        }
        Some(b) => {
            return Err(s.error(format!(
                "expected a JSON array or object, found {:?}",
                char::from(b)
            )));
        }
        None => return Err(s.error("expected a JSON array or object, found an empty input")),
    }
    match s.skip_whitespace()? {
        None => Ok(Walked {
            ending,
            keys,
            array: is_array,
            end: s.at,
        }),
        Some(_) => Err(s.error("expected the end of the input after the document")),
    }
}

/// Walks an array (at its `[`), visiting each element; `lenient_end` as in [`walk`].
fn array(
    s: &mut Scanner<'_>,
    key: Option<&str>,
    buf: &mut Vec<u8>,
    lenient_end: bool,
    visit: &mut dyn FnMut(Part<'_>) -> Result<(), TraceError>,
) -> Result<Ending, TraceError> {
    visit(Part {
        key,
        piece: Piece::Open,
        bytes: b"[",
        at: s.at,
    })?;
    s.advance(b'[');
    match s.skip_whitespace()? {
        Some(b']') => {
            s.advance(b']');
            return Ok(Ending::Closed);
        }
        None if lenient_end => return Ok(Ending::Unclosed),
        _ => {}
    }
    loop {
        s.skip_whitespace()?;
        let at = s.at;
        s.value(buf)?;
        visit(Part {
            key,
            piece: Piece::Element,
            bytes: buf,
            at,
        })?;
        match s.skip_whitespace()? {
            Some(b',') => {
                s.advance(b',');
                if lenient_end {
                    match s.skip_whitespace()? {
                        Some(b']') => {
                            s.advance(b']');
                            return Ok(Ending::TrailingComma);
                        }
                        None => return Ok(Ending::TrailingComma),
                        _ => {}
                    }
                }
            }
            Some(b']') => {
                s.advance(b']');
                return Ok(Ending::Closed);
            }
            None if lenient_end => return Ok(Ending::Unclosed),
            _ => return Err(s.error("expected ',' or ']' after an array element")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part as (key, element, text, offset, line).
    type Seen = (Option<String>, bool, String, usize, usize);

    fn parts(text: &str) -> Result<Vec<Seen>, TraceError> {
        parts_and_arrays(text).map(|(parts, _)| parts)
    }

    /// An array opened: (key, offset of the `[`).
    type Opened = (Option<String>, usize);

    /// The parts, and the arrays opened.
    fn parts_and_arrays(text: &str) -> Result<(Vec<Seen>, Vec<Opened>), TraceError> {
        let mut out = Vec::new();
        let mut opened = Vec::new();
        let mut reader = text.as_bytes();
        walk(&mut reader, "x", &Budget::UNLIMITED, false, &mut |p| {
            if p.piece == Piece::Open {
                opened.push((p.key.map(str::to_owned), p.at.offset));
                return Ok(());
            }
            out.push((
                p.key.map(str::to_owned),
                p.piece == Piece::Element,
                String::from_utf8_lossy(p.bytes).into_owned(),
                p.at.offset,
                p.at.line,
            ));
            Ok(())
        })?;
        Ok((out, opened))
    }

    #[test]
    fn elements_and_members_come_with_where_they_start() {
        let text = "{\"a\": [1, {\"b\": \"]}\\\"\"},\n [2]], \"c\": {\"d\": [3]}, \"e\": \"x,y\"}";
        let got = parts(text).expect("walks");
        let expected = vec![
            (Some("a".to_owned()), true, "1".to_owned(), 7, 1),
            (
                Some("a".to_owned()),
                true,
                "{\"b\": \"]}\\\"\"}".to_owned(),
                10,
                1,
            ),
            (Some("a".to_owned()), true, "[2]".to_owned(), 26, 2),
            (
                Some("c".to_owned()),
                false,
                "{\"d\": [3]}".to_owned(),
                37,
                2,
            ),
            (Some("e".to_owned()), false, "\"x,y\"".to_owned(), 54, 2),
        ];
        assert_eq!(got, expected);
        assert_eq!(&text[26..29], "[2]");
        let (_, opened) = parts_and_arrays(text).expect("walks");
        assert_eq!(opened, vec![(Some("a".to_owned()), 6)]);
        let bare = parts(" [ ] ").expect("an empty array");
        assert!(bare.is_empty());
        let top = parts("[true,null]").expect("walks");
        assert_eq!(top[1].2, "null");
        assert_eq!(top[1].0, None);
    }

    #[test]
    fn broken_structure_is_an_error_where_it_breaks() {
        let e = parts("[1, 2").expect_err("unclosed");
        assert_eq!(e.offset, 5, "{e}");
        let e = parts("[1 2]").expect_err("no comma");
        assert_eq!(e.offset, 3, "{e}");
        let e = parts("{\"a\" 1}").expect_err("no colon");
        assert!(e.message.contains("':'"), "{e}");
        let e = parts("[1] x").expect_err("trailing text");
        assert_eq!(e.offset, 4, "{e}");
        assert!(parts("").is_err());
        assert!(parts("\"just a string\"").is_err());
    }

    #[test]
    fn positions_inside_a_value_are_absolute() {
        let at = Position {
            offset: 100,
            line: 5,
            column: 7,
        };
        assert_eq!(position_in(at, b"{\"a\": x}", 1, 7).offset, 106);
        let p = position_in(at, b"{\n  \"a\": x}", 2, 8);
        assert_eq!((p.offset, p.line, p.column), (109, 6, 8));
    }
}
