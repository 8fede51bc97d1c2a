//! The ledger lines of one call, held so that the calls most of a session makes allocate
//! nothing: a fixed line (`abstained no-signal 0.00`) is borrowed, and the two lines a call
//! produces at most, in the common cases, are held inline.

use serde::{Serialize, Serializer};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

/// One ledger line: borrowed when the line is fixed, owned when it names or measures.
pub type Line = Cow<'static, str>;

/// The ledger lines of one call, in order. Reads as a slice of lines; serializes as a list of
/// strings.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Ledger(SmallVec<[Line; 2]>);

impl Ledger {
    /// No lines.
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Appends one line.
    pub fn push(&mut self, line: impl Into<Line>) {
        self.0.push(line.into());
    }

    /// The first line, if any: the one that says what the call decided.
    pub fn first_line(&self) -> Option<&str> {
        self.0.first().map(|line| line.as_ref())
    }

    /// The lines as owned strings, copied.
    pub fn to_strings(&self) -> Vec<String> {
        self.0.iter().map(|line| line.to_string()).collect()
    }

    /// The lines as owned strings, for a host that keeps them.
    pub fn into_strings(self) -> Vec<String> {
        self.0.into_iter().map(Cow::into_owned).collect()
    }
}

impl Deref for Ledger {
    type Target = [Line];

    fn deref(&self) -> &[Line] {
        &self.0
    }
}

impl<L: Into<Line>> Extend<L> for Ledger {
    fn extend<I: IntoIterator<Item = L>>(&mut self, lines: I) {
        self.0.extend(lines.into_iter().map(Into::into));
    }
}

impl IntoIterator for Ledger {
    type Item = Line;
    type IntoIter = smallvec::IntoIter<[Line; 2]>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Ledger {
    type Item = &'a Line;
    type IntoIter = std::slice::Iter<'a, Line>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Debug for Ledger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl Serialize for Ledger {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|line| line.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_order_past_the_inline_ones() {
        let mut ledger = Ledger::new();
        ledger.push("doc-suggester: a");
        ledger.push(String::from("doc-suggester: b"));
        ledger.extend(["doc-suggester: c"]);
        assert_eq!(ledger.first_line(), Some("doc-suggester: a"));
        assert_eq!(ledger.len(), 3);
        assert_eq!(
            ledger.clone().into_strings(),
            ["doc-suggester: a", "doc-suggester: b", "doc-suggester: c"]
        );
        assert_eq!(
            serde_json::to_string(&ledger).expect("a list of strings"),
            r#"["doc-suggester: a","doc-suggester: b","doc-suggester: c"]"#
        );
        assert_eq!(
            format!("{ledger:?}"),
            format!("{:?}", ledger.into_strings())
        );
    }

    #[test]
    fn a_fixed_line_stays_borrowed() {
        let mut ledger = Ledger::new();
        ledger.push("doc-suggester: abstained no-signal 0.00");
        assert!(matches!(ledger[0], Cow::Borrowed(_)));
        assert!(Ledger::new().first_line().is_none());
    }
}
