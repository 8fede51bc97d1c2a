//! Running counts of what the engine decided, for hosts and replay summaries.

use crate::call_ledger::Ledger;
use crate::line_format::Event;
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
    /// Counts one ledger line by the event its composer recorded ([`Ledger::events`]).
    pub(crate) fn observe(&mut self, event: Event) {
        match event {
            Event::Suggest => self.notes += 1,
            Event::Accepted => self.accepted += 1,
            Event::Rejected => self.rejected += 1,
            Event::Abstained(reason) => count(&mut self.abstained, reason.name()),
            Event::Suppressed(kind) => count(&mut self.suppressed, kind.name()),
            Event::Disabled
            | Event::Activated
            | Event::Decided
            | Event::LeftOut
            | Event::StoreUnavailable => {}
        }
    }

    /// Counts every line of `ledger`.
    pub(crate) fn observe_all(&mut self, ledger: &Ledger) {
        for &event in ledger.events() {
            self.observe(event);
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
    use crate::call_ledger::Entry;
    use crate::line_format::{self, Abstain, Suppress};
    use docsuggest_schema::{StoreKind, Table};
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

    /// The entry of composer `which`, over a family (which may hold spaces) and a kappa.
    fn composed(which: usize, family: &str, kappa: f64, at: usize) -> Entry {
        let values = Table([1.0, 0.5, 0.875, 0.5, 1.0 / 3.0, kappa]);
        match which {
            0 => line_format::disabled(),
            1 => line_format::activated("0.2.1", at, kappa),
            2 => line_format::suggest(family, kappa, &["a.md", "b c.md"]),
            3 => line_format::decided(
                family,
                kappa,
                "a.md",
                &values,
                &Table::DEFAULT_WEIGHTS,
                StoreKind::Memory,
            ),
            4 => line_format::accepted(family, "a.md"),
            5 => line_format::rejected(family, &["a.md"]),
            6 => line_format::left_out(family, &["a.md", "b.md"]),
            7 => line_format::abstained(
                Abstain::ALL[at % Abstain::ALL.len()],
                at.is_multiple_of(2).then_some(family),
                kappa,
            ),
            8 => line_format::suppressed(Suppress::ALL[at % Suppress::ALL.len()], family, kappa),
            _ => line_format::store_unavailable("locked"),
        }
    }

    proptest! {
        /// Counting the events the composers record counts what splitting their lines into
        /// words counted.
        #[test]
        fn counts_what_splitting_counts(
            calls in proptest::collection::vec(
                (0usize..10, "[A-Z][a-z]{0,4}( [a-z]{1,4}){0,2}", 0.0..1.0f64, 0usize..100),
                0..12,
            ),
        ) {
            let mut ledger = Ledger::new();
            let mut stats = Stats::default();
            for (which, family, kappa, at) in &calls {
                let entry = composed(*which, family, *kappa, *at);
                stats.observe(entry.event());
                ledger.push(entry);
            }
            let mut all = Stats::default();
            all.observe_all(&ledger);
            prop_assert_eq!(&all, &stats);
            prop_assert_eq!(stats, observed_by_splitting(&ledger.to_strings()));
        }
    }
}
