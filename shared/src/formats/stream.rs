//! Reading an input as a stream: the decompressor feeds the parser directly, the input limit is
//! counted as bytes arrive, and text is read a line at a time, so an import holds the model it
//! builds and not the (decompressed) input.

use std::io::{BufRead, Read};

use super::budget::{Budget, Limit};
use crate::model::error::{Position, TraceError};

/// The marker error a [`Limited`] reader returns once the input passes its limit.
#[derive(Debug)]
struct OverLimit;

impl std::fmt::Display for OverLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the input is over its limit")
    }
}

impl std::error::Error for OverLimit {}

/// The marker error of a damaged gzip stream (so that it is not reported as a trace error).
#[derive(Debug)]
struct Damaged(String);

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Damaged {}

/// A reader that refuses to read more than `limit` bytes: the first byte past it is an error
/// that [`io_error`] turns into the budget's input limit.
pub struct Limited<R> {
    inner: R,
    read: u64,
    limit: u64,
}

impl<R: Read> Limited<R> {
    /// Reads `inner` up to `limit` bytes.
    pub fn new(inner: R, limit: u64) -> Limited<R> {
        Limited {
            inner,
            read: 0,
            limit,
        }
    }
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(std::io::Error::other(OverLimit));
        }
        Ok(n)
    }
}

/// A gzip stream (one or more members), its errors marked as damage to the compression.
pub struct Gunzip<R: Read>(flate2::read::MultiGzDecoder<R>);

impl<R: Read> Gunzip<R> {
    /// Decompresses `inner`.
    pub fn new(inner: R) -> Gunzip<R> {
        Gunzip(flate2::read::MultiGzDecoder::new(inner))
    }
}

impl<R: Read> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|e| std::io::Error::other(Damaged(format!("the gzip stream is damaged: {e}"))))
    }
}

/// The error for a failed read at `at`: the input limit (from a [`Limited`] reader), a
/// damaged gzip stream, or the reader's own failure.
pub fn io_error(format: &str, e: &std::io::Error, at: Position, budget: &Budget) -> TraceError {
    let inner = e.get_ref();
    if inner.is_some_and(|i| i.is::<OverLimit>()) {
        return match budget.check_at(Limit::InputBytes, u64::MAX, format, at) {
            Err(e) => e,
            // Only a limited reader says so, and only past a limit; name it all the same.
            Ok(()) => {
                let mut e = TraceError::at(format, at, "the input is over its limit");
                e.exceeded = Some(Limit::InputBytes);
                e
            }
        };
    }
    if let Some(damaged) = inner.and_then(|i| i.downcast_ref::<Damaged>()) {
        return TraceError::at("gzip", at, damaged.0.clone());
    }
    TraceError::at(format, at, format!("the input could not be read: {e}"))
}

/// A reader whose first bytes were read ahead and are given back first.
pub type Peeked<R> = std::io::Chain<std::io::Cursor<Vec<u8>>, R>;

/// Reads up to `n` bytes from the start of `reader` (fewer only at its end), and gives them
/// back with a reader of the whole input, those bytes included.
pub fn peek<R: Read>(mut reader: R, n: usize) -> std::io::Result<(Vec<u8>, Peeked<R>)> {
    let mut head = Vec::with_capacity(n);
    (&mut reader).take(n as u64).read_to_end(&mut head)?;
    let copy = head.clone();
    Ok((copy, std::io::Cursor::new(head).chain(reader)))
}

/// A line of text being read: its text without the line end, and where it starts.
pub struct Line<'a> {
    /// The text, without `\n` or `\r\n`.
    pub text: &'a str,
    /// Where the line starts.
    pub at: Position,
}

/// A text input read a line at a time, knowing each line's position.
pub struct Lines<'r> {
    reader: &'r mut dyn BufRead,
    format: &'static str,
    budget: &'r Budget,
    buf: Vec<u8>,
    /// Where the next line starts.
    next: Position,
}

impl<'r> Lines<'r> {
    /// Lines of `reader`, read as `format` within `budget`.
    pub fn new(reader: &'r mut dyn BufRead, format: &'static str, budget: &'r Budget) -> Self {
        Lines {
            reader,
            format,
            budget,
            buf: Vec::new(),
            next: Position::START,
        }
    }

    /// Where the next line starts (after the last one: the end of the input).
    pub fn position(&self) -> Position {
        self.next
    }

    /// The next line, or `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, TraceError> {
        self.buf.clear();
        let at = self.next;
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| io_error(self.format, &e, at, self.budget))?;
        if n == 0 {
            return Ok(None);
        }
        self.next = Position {
            offset: at.offset + n,
            line: at.line + 1,
            column: 1,
        };
        let mut end = self.buf.len();
        if self.buf[..end].ends_with(b"\n") {
            end -= 1;
        }
        if self.buf[..end].ends_with(b"\r") {
            end -= 1;
        }
        let text = std::str::from_utf8(&self.buf[..end]).map_err(|e| {
            TraceError::at(self.format, at.plus(e.valid_up_to()), "expected UTF-8 text")
        })?;
        Ok(Some(Line { text, at }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_know_where_they_start_and_drop_their_ends() {
        let mut input: &[u8] = b"ab\r\ncde\n\nf";
        let budget = Budget::UNLIMITED;
        let mut lines = Lines::new(&mut input, "x", &budget);
        let mut seen = Vec::new();
        while let Some(line) = lines.next_line().expect("reads") {
            seen.push((line.text.to_owned(), line.at.offset, line.at.line));
        }
        let expected = [("ab", 0, 1), ("cde", 4, 2), ("", 8, 3), ("f", 9, 4)];
        let expected: Vec<_> = expected
            .iter()
            .map(|&(t, o, l)| (t.to_owned(), o, l))
            .collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn bad_utf8_is_an_error_at_its_byte() {
        let mut input: &[u8] = b"ok\nab\xffc\n";
        let budget = Budget::UNLIMITED;
        let mut lines = Lines::new(&mut input, "x", &budget);
        assert!(lines.next_line().expect("first line").is_some());
        let e = lines.next_line().err().expect("bad UTF-8");
        assert_eq!((e.offset, e.line, e.column), (5, 2, 3), "{e}");
    }

    #[test]
    fn a_limited_stream_is_refused_at_the_input_limit() {
        let text = "line\n".repeat(100);
        let budget = Budget {
            max_input_bytes: 50,
            ..Budget::UNLIMITED
        };
        let mut reader = std::io::BufReader::with_capacity(16, Limited::new(text.as_bytes(), 50));
        let mut lines = Lines::new(&mut reader, "x", &budget);
        let mut n = 0;
        let e = loop {
            match lines.next_line() {
                Ok(Some(_)) => n += 1,
                Ok(None) => panic!("read past the limit"),
                Err(e) => break e,
            }
        };
        assert_eq!(e.exceeded, Some(Limit::InputBytes), "{e}");
        assert!(n <= 10, "{n} lines read");
    }

    #[test]
    fn a_damaged_gzip_stream_says_so() {
        let mut gz = Vec::new();
        {
            use std::io::Write as _;
            let mut enc = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::fast());
            enc.write_all(&b"hello\n".repeat(1000)).expect("compresses");
            enc.finish().expect("finishes");
        }
        let cut = gz.len() / 2;
        gz[cut] ^= 0xff;
        gz[cut + 1] ^= 0xff;
        let mut reader = std::io::BufReader::new(Gunzip::new(&gz[..]));
        let budget = Budget::UNLIMITED;
        let mut lines = Lines::new(&mut reader, "x", &budget);
        let e = loop {
            match lines.next_line() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("a damaged stream read to its end"),
                Err(e) => break e,
            }
        };
        assert_eq!(e.format, "gzip");
        assert!(e.message.contains("damaged"), "{e}");
    }

    #[test]
    fn peeking_keeps_every_byte() {
        let (head, mut all) = peek(&b"abcdef"[..], 4).expect("reads");
        assert_eq!(head, b"abcd");
        let mut out = Vec::new();
        all.read_to_end(&mut out).expect("reads");
        assert_eq!(out, b"abcdef");
    }
}
