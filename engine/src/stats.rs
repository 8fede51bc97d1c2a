//! Running counts of what the engine decided, for hosts and replay summaries.

use std::collections::BTreeMap;

/// Counts since the engine started.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Judged calls (enabled, judged tool, not excluded).
    pub judged: u64,
    /// Notes emitted.
    pub notes: u64,
    /// Windows closed by an accept.
    pub accepted: u64,
    /// Windows closed as soft rejects.
    pub rejected: u64,
    /// Windows closed without a verdict (turn reset, learn switched off, close).
    pub abandoned: u64,
    /// Abstentions by reason.
    pub abstained: BTreeMap<String, u64>,
    /// Suppressions by kind.
    pub suppressed: BTreeMap<String, u64>,
}

impl Stats {
    /// Counts one ledger line. The ledger's forms are pinned (SPEC §3), so its first words
    /// name the event exactly.
    pub(crate) fn observe(&mut self, line: &str) {
        let mut words = line
            .strip_prefix("doc-suggester: ")
            .unwrap_or("")
            .split(' ');
        match (words.next(), words.next()) {
            (Some("suggest"), _) => self.notes += 1,
            (Some("accepted"), _) => self.accepted += 1,
            (Some("rejected"), _) => self.rejected += 1,
            (Some("abstained"), Some(reason)) => count(&mut self.abstained, reason),
            (Some("suppressed"), Some(kind)) => count(&mut self.suppressed, kind),
            _ => {}
        }
    }
}

/// One more of `name`; its key is copied only the first time (every judged call counts one).
fn count(counts: &mut BTreeMap<String, u64>, name: &str) {
    match counts.get_mut(name) {
        Some(n) => *n += 1,
        None => {
            counts.insert(name.to_string(), 1);
        }
    }
}
