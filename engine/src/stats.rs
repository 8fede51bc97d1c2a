//! Running counts of what the engine decided, for hosts and replay summaries.

use std::collections::BTreeMap;

/// Declares a struct with the engine's counters, counted in `$count`. The engine's own
/// [`Stats`] counts in `u64`; a binding whose numbers cannot be `u64` (JavaScript's) declares
/// its mirror with this macro, so the fields and their meaning are written once.
#[macro_export]
macro_rules! stats_struct {
    ($(#[$($attr:tt)*])* $vis:vis struct $name:ident($count:ident);) => {
        $(#[$($attr)*])*
        $vis struct $name {
            /// Judged calls (enabled, judged tool, not excluded).
            pub judged: $count,
            /// Notes emitted.
            pub notes: $count,
            /// Windows closed by an accept.
            pub accepted: $count,
            /// Windows closed as soft rejects.
            pub rejected: $count,
            /// Windows closed without a verdict (turn reset, learn switched off, close).
            pub abandoned: $count,
            /// Abstentions by reason.
            pub abstained: std::collections::BTreeMap<String, $count>,
            /// Suppressions by kind.
            pub suppressed: std::collections::BTreeMap<String, $count>,
        }
    };
}

stats_struct! {
    /// Counts since the engine started.
    #[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
    pub struct Stats(u64);
}

impl Stats {
    /// Counts one ledger line. The ledger's forms are pinned (docs/BEHAVIOUR.md, "The ledger"), so its first words
    /// name the event exactly.
    pub(crate) fn observe(&mut self, line: &str) {
        let rest = line.strip_prefix("doc-suggester: ").unwrap_or("");
        // The word after the event, up to the next space (or the end).
        let second = |event: &str| {
            let after = rest.strip_prefix(event)?.strip_prefix(' ')?;
            Some(after.split_once(' ').map_or(after, |(word, _)| word))
        };
        let first = rest.split_once(' ').map_or(rest, |(word, _)| word);
        match first {
            "suggest" => self.notes += 1,
            "accepted" => self.accepted += 1,
            "rejected" => self.rejected += 1,
            "abstained" => {
                if let Some(reason) = second("abstained") {
                    count(&mut self.abstained, reason);
                }
            }
            "suppressed" => {
                if let Some(kind) = second("suppressed") {
                    count(&mut self.suppressed, kind);
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Counting as first written: the line split into words.
    fn observed_by_splitting(lines: &[String]) -> Stats {
        let mut stats = Stats::default();
        for line in lines {
            let mut words = line
                .strip_prefix("doc-suggester: ")
                .unwrap_or("")
                .split(' ');
            match (words.next(), words.next()) {
                (Some("suggest"), _) => stats.notes += 1,
                (Some("accepted"), _) => stats.accepted += 1,
                (Some("rejected"), _) => stats.rejected += 1,
                (Some("abstained"), Some(reason)) => count(&mut stats.abstained, reason),
                (Some("suppressed"), Some(kind)) => count(&mut stats.suppressed, kind),
                _ => {}
            }
        }
        stats
    }

    proptest! {
        /// Words taken by their spaces count what the split words counted.
        #[test]
        fn counts_what_splitting_counts(
            lines in proptest::collection::vec(
                "(doc-suggester: )?(suggest|accepted|rejected|abstained|suppressed|x)?( ?[a-z-]{0,4}){0,3}",
                0..8,
            ),
        ) {
            let mut stats = Stats::default();
            for line in &lines {
                stats.observe(line);
            }
            prop_assert_eq!(stats, observed_by_splitting(&lines));
        }
    }
}
