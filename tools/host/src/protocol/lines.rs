//! Reading request lines as bytes, with a cap on their length.
//!
//! Lines are read as bytes so invalid UTF-8 becomes an error answer instead of stopping the
//! reader, and a line past the cap is skipped to its end without being held in memory.

use std::io::{self, BufRead};

/// The longest request line, in bytes (without its newline).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's bytes, without the newline (and without a `\r` before it).
    Bytes(Vec<u8>),
    /// A line longer than the cap; only its length was kept.
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
}

/// Splits a byte stream into [`Line`]s.
#[derive(Debug)]
pub struct LineReader<R> {
    input: R,
    cap: usize,
    /// Bytes consumed so far (for progress reports).
    consumed: u64,
}

impl<R: BufRead> LineReader<R> {
    /// A reader with the default cap, [`MAX_LINE_BYTES`].
    pub fn new(input: R) -> LineReader<R> {
        LineReader::with_cap(input, MAX_LINE_BYTES)
    }

    /// A reader with a chosen cap.
    pub fn with_cap(input: R, cap: usize) -> LineReader<R> {
        LineReader {
            input,
            cap,
            consumed: 0,
        }
    }

    /// Bytes consumed so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The next line, or `None` at the end of input. A last line without a newline counts.
    pub fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut bytes = Vec::new();
        let mut len = 0usize;
        let mut seen_any = false;
        let mut last = None;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            len += part.len();
            last = part.last().copied().or(last);
            // One byte of slack keeps a `\r` that a CRLF line ends with.
            if len <= self.cap + 1 {
                bytes.extend_from_slice(part);
            } else {
                bytes = Vec::new();
            }
            let used = done.unwrap_or(part.len());
            self.input.consume(used);
            self.consumed += used as u64;
            if done.is_some() {
                break;
            }
        }
        if last == Some(b'\r') {
            bytes.pop();
            len -= 1;
        }
        Ok(Some(if len > self.cap {
            Line::TooLong { len }
        } else {
            Line::Bytes(bytes)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], cap: usize) -> Vec<Line> {
        // A tiny buffer makes lines span many reads.
        let mut reader = LineReader::with_cap(io::BufReader::with_capacity(3, input), cap);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().expect("in-memory reads succeed") {
            out.push(line);
        }
        assert_eq!(reader.consumed(), input.len() as u64);
        out
    }

    fn b(s: &[u8]) -> Line {
        Line::Bytes(s.to_vec())
    }

    #[test]
    fn splits_caps_and_keeps_bad_bytes() {
        assert_eq!(lines(b"", 8), vec![]);
        assert_eq!(lines(b"ab\ncd", 8), vec![b(b"ab"), b(b"cd")]);
        assert_eq!(lines(b"ab\r\n\n", 8), vec![b(b"ab"), b(b"")]);
        assert_eq!(
            lines(b"0123456789\nok\n", 8),
            vec![Line::TooLong { len: 10 }, b(b"ok")]
        );
        assert_eq!(lines(b"12345678\n", 8), vec![b(b"12345678")]);
        assert_eq!(lines(b"12345678\r\n", 8), vec![b(b"12345678")]);
        assert_eq!(lines(b"123456789\r\n", 8), vec![Line::TooLong { len: 9 }]);
        assert_eq!(lines(b"\xff\xfe\n", 8), vec![b(b"\xff\xfe")]);
    }
}
