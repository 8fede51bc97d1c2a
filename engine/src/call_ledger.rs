//! The ledger lines of one call, held so that the calls most of a session makes allocate
//! nothing: a fixed line (`abstained no-signal 0.00`) is borrowed, and the two lines a call
//! produces at most, in the common cases, are held inline. Beside each line the ledger keeps
//! the [`Event`] it records, as its composer ([`crate::line_format`]) said it: what reads a
//! ledger for its events reads them there, not from the words.

use crate::line_format::Event;
use serde::{Serialize, Serializer};
use smallvec::SmallVec;
use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

/// One ledger line: borrowed when the line is fixed, owned when it names or measures.
pub type Line = Cow<'static, str>;

/// One composed ledger line and the event it records, as the composers of [`crate::line_format`]
/// answer it. Only they make one, so every entry's event is what its line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    line: Line,
    event: Event,
}

impl Entry {
    /// `line`, which records `event`.
    pub(crate) fn new(line: Line, event: Event) -> Entry {
        Entry { line, event }
    }

    /// The line.
    pub fn as_str(&self) -> &str {
        &self.line
    }

    /// The line, borrowed or owned as it was composed.
    pub fn line(&self) -> &Line {
        &self.line
    }

    /// The event the line records.
    pub fn event(&self) -> Event {
        self.event
    }

    /// The line as an owned string.
    pub fn into_owned(self) -> String {
        self.line.into_owned()
    }
}

impl From<Entry> for Line {
    fn from(entry: Entry) -> Line {
        entry.line
    }
}

impl From<Entry> for String {
    fn from(entry: Entry) -> String {
        entry.into_owned()
    }
}

impl PartialEq<str> for Entry {
    fn eq(&self, other: &str) -> bool {
        self.line == other
    }
}

impl PartialEq<&str> for Entry {
    fn eq(&self, other: &&str) -> bool {
        self.line == *other
    }
}

impl PartialEq<String> for Entry {
    fn eq(&self, other: &String) -> bool {
        self.line == other.as_str()
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line)
    }
}

/// The ledger lines of one call, in order, each with the event it records. Reads as a slice
/// of lines; serializes as a list of strings.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    lines: SmallVec<[Line; 2]>,
    /// `events[i]` is what `lines[i]` records.
    events: SmallVec<[Event; 2]>,
}

impl Ledger {
    /// No lines.
    pub fn new() -> Ledger {
        Ledger::default()
    }

    /// Appends one line.
    pub fn push(&mut self, entry: Entry) {
        self.lines.push(entry.line);
        self.events.push(entry.event);
    }

    /// Appends the lines of `other`, in order.
    pub fn append(&mut self, other: Ledger) {
        self.lines.extend(other.lines);
        self.events.extend(other.events);
    }

    /// The event of each line, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The first line, if any: the one that says what the call decided.
    pub fn first_line(&self) -> Option<&str> {
        self.lines.first().map(|line| line.as_ref())
    }

    /// The lines as owned strings, copied.
    pub fn to_strings(&self) -> Vec<String> {
        self.lines.iter().map(|line| line.to_string()).collect()
    }

    /// The lines as owned strings, for a host that keeps them.
    pub fn into_strings(self) -> Vec<String> {
        self.lines.into_iter().map(Cow::into_owned).collect()
    }
}

impl Deref for Ledger {
    type Target = [Line];

    fn deref(&self) -> &[Line] {
        &self.lines
    }
}

impl Extend<Entry> for Ledger {
    fn extend<I: IntoIterator<Item = Entry>>(&mut self, entries: I) {
        for entry in entries {
            self.push(entry);
        }
    }
}

impl IntoIterator for Ledger {
    type Item = Line;
    type IntoIter = smallvec::IntoIter<[Line; 2]>;

    fn into_iter(self) -> Self::IntoIter {
        self.lines.into_iter()
    }
}

impl<'a> IntoIterator for &'a Ledger {
    type Item = &'a Line;
    type IntoIter = std::slice::Iter<'a, Line>;

    fn into_iter(self) -> Self::IntoIter {
        self.lines.iter()
    }
}

impl fmt::Debug for Ledger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.lines.iter()).finish()
    }
}

impl Serialize for Ledger {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.lines.iter().map(|line| line.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line_format::{self, Abstain};

    #[test]
    fn lines_keep_their_order_past_the_inline_ones() {
        let mut ledger = Ledger::new();
        ledger.push(line_format::accepted("Plan", "a.md"));
        ledger.push(line_format::rejected("Plan", &["b.md"]));
        ledger.extend([line_format::suggest("Plan", 0.5, &["c.md"])]);
        assert_eq!(
            ledger.first_line(),
            Some("doc-suggester: accepted Plan a.md")
        );
        assert_eq!(ledger.len(), 3);
        assert_eq!(
            ledger.events(),
            [Event::Accepted, Event::Rejected, Event::Suggest]
        );
        let mut more = Ledger::new();
        more.push(line_format::abstained(Abstain::NoSignal, None, 0.0));
        ledger.append(more);
        assert_eq!(ledger.events()[3], Event::Abstained(Abstain::NoSignal));
        assert_eq!(
            ledger.clone().into_strings(),
            [
                "doc-suggester: accepted Plan a.md",
                "doc-suggester: rejected Plan companions b.md",
                "doc-suggester: suggest Plan 0.50 companions c.md",
                "doc-suggester: abstained no-signal 0.00",
            ]
        );
        assert_eq!(ledger.to_strings(), ledger.clone().into_strings());
        assert_eq!(
            serde_json::to_string(&ledger).expect("a list of strings"),
            r#"["doc-suggester: accepted Plan a.md","doc-suggester: rejected Plan companions b.md","doc-suggester: suggest Plan 0.50 companions c.md","doc-suggester: abstained no-signal 0.00"]"#
        );
        assert_eq!(
            format!("{ledger:?}"),
            format!("{:?}", ledger.into_strings())
        );
    }

    #[test]
    fn a_fixed_line_stays_borrowed() {
        let mut ledger = Ledger::new();
        ledger.push(line_format::abstained(Abstain::NoSignal, None, 0.0));
        assert!(matches!(ledger[0], Cow::Borrowed(_)));
        assert_eq!(ledger[0], "doc-suggester: abstained no-signal 0.00");
        assert!(Ledger::new().first_line().is_none());
        assert!(Ledger::new().events().is_empty());
    }
}
