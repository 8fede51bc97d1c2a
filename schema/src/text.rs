//! Text that reaches a model's context or a log line: what may appear in it, and how outside
//! input is shown there.
//!
//! A note is read by a model in the middle of a task, a ledger line by a person or a parser.
//! Neither may carry text that prints nothing: a control character forges a line, a
//! right-to-left override (U+202E) or a line separator (U+2028) makes the text read other than
//! it is.

use unicode_general_category::{GeneralCategory, get_general_category};

/// Whether `c` prints nothing visible: a control character (Cc), a format character (Cf: the
/// bidirectional controls, zero-width characters, the byte-order mark, tags), a line or
/// paragraph separator (Zl, Zp), a surrogate or an unassigned code point.
pub fn is_invisible(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
            | GeneralCategory::Surrogate
            | GeneralCategory::Unassigned
    )
}

/// Whether `text` holds a code point that prints nothing (see [`is_invisible`]).
pub fn has_invisible(text: &str) -> bool {
    text.chars().any(is_invisible)
}

/// The most bytes of outside input an error message quotes.
pub const QUOTE_LIMIT: usize = 160;

/// `text` as an error message quotes it: in double quotes, every invisible code point, quote
/// and backslash escaped, and cut to about [`QUOTE_LIMIT`] bytes with the number of bytes left
/// out, so a 1 MiB path gives a short, printable error.
///
/// ```
/// use docsuggest_schema::text::quoted;
///
/// assert_eq!(quoted("a\u{202e}b"), r#""a\u{202e}b""#);
/// assert_eq!(quoted(&"x".repeat(1000)).len() < 200, true);
/// ```
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(QUOTE_LIMIT) + 24);
    out.push('"');
    let left_out = escape_into(&mut out, text, QUOTE_LIMIT, true);
    out.push('"');
    if left_out > 0 {
        out.insert(out.len() - 1, '…');
        out.push_str(&format!(" ({left_out} more bytes)"));
    }
    out
}

/// A message built from outside text (an error another program wrote, say) as it may be
/// shown: invisible code points escaped, cut to `limit` bytes with the number left out.
pub fn bounded(text: &str, limit: usize) -> String {
    let mut out = String::with_capacity(text.len().min(limit) + 24);
    let left_out = escape_into(&mut out, text, limit, false);
    if left_out > 0 {
        out.push_str(&format!("… ({left_out} more bytes)"));
    }
    out
}

/// Appends `text` to `out` escaped (quotes and backslashes too when `quoting`), up to about
/// `limit` bytes; answers how many bytes of `text` were left out.
fn escape_into(out: &mut String, text: &str, limit: usize, quoting: bool) -> usize {
    let start = out.len();
    for (at, c) in text.char_indices() {
        if out.len() - start >= limit {
            return text.len() - at;
        }
        match c {
            '"' if quoting => out.push_str("\\\""),
            '\\' if quoting => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_code_points_are_named() {
        for c in [
            '\u{0}',
            '\n',
            '\u{7f}',
            '\u{85}',
            '\u{ad}',
            '\u{200b}',
            '\u{200e}',
            '\u{202a}',
            '\u{202e}',
            '\u{2028}',
            '\u{2029}',
            '\u{2066}',
            '\u{2069}',
            '\u{feff}',
            '\u{e0041}',
        ] {
            assert!(is_invisible(c), "{:x}", c as u32);
        }
        for c in ['a', ' ', 'é', '中', '_', '-', '.', '/', '\u{a0}', '😀'] {
            assert!(!is_invisible(c), "{:x}", c as u32);
        }
    }

    #[test]
    fn quoted_escapes_and_elides() {
        assert_eq!(quoted("plain/path.md"), "\"plain/path.md\"");
        assert_eq!(quoted("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
        assert_eq!(quoted("\u{2028}"), r#""\u{2028}""#);
        let long = "é".repeat(100_000);
        let shown = quoted(&long);
        assert!(shown.len() <= QUOTE_LIMIT + 40, "{}", shown.len());
        assert!(shown.ends_with("(199840 more bytes)"), "{shown}");
        assert!(!has_invisible(&shown));
        assert_eq!(bounded("a\u{2029}\"b", 100), "a\\u{2029}\"b");
        assert_eq!(bounded("abcdef", 3), "abc… (3 more bytes)");
    }
}
