//! The central invariant, checked: for every key, the live row equals
//! `rate::fold(base row, that key's moves in history order)`, bit for bit.

use crate::per_key_moves::fold_all;
use docsuggest_schema::{RateKey, RateRow, StoreContents, StoreError};
use std::collections::{BTreeMap, BTreeSet};

/// One key whose live row is not the fold of its base and history.
#[derive(Clone, Debug, PartialEq)]
pub struct FoldMismatch {
    /// The key.
    pub key: RateKey,
    /// The live row (`None` when the key has no live row).
    pub live: Option<RateRow>,
    /// What `fold(base, history)` gives.
    pub folded: RateRow,
}

/// The result of [`check_fold`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FoldReport {
    /// How many keys were checked (every key with a live row, a base row or a move in history).
    pub keys_checked: usize,
    /// The keys that differ, in key order.
    pub mismatches: Vec<FoldMismatch>,
}

impl FoldReport {
    /// Whether every key folds to its live row.
    pub fn is_clean(&self) -> bool {
        self.mismatches.is_empty()
    }
}

pub use docsuggest_schema::rate::same_bits;

/// Every row replayed from base and history: `fold(base, moves)` for each key that has a base
/// row or a move in history, in key order.
pub fn folded_rates(
    contents: &(impl StoreContents + ?Sized),
) -> Result<BTreeMap<RateKey, RateRow>, StoreError> {
    let base: BTreeMap<RateKey, RateRow> = contents.base_rows()?.into_iter().collect();
    let history = contents.history()?;
    let done = std::sync::atomic::AtomicU64::new(0);
    Ok(fold_all(&base, &history, false, &done)?
        .into_iter()
        .collect())
}

/// Checks `live == fold(base, history)` for every key of a store (redb or memory).
pub fn check_fold(contents: &(impl StoreContents + ?Sized)) -> Result<FoldReport, StoreError> {
    let folded = folded_rates(contents)?;
    let live: BTreeMap<RateKey, RateRow> = contents.rate_rows()?.into_iter().collect();
    let keys: BTreeSet<&RateKey> = live.keys().chain(folded.keys()).collect();
    let mut report = FoldReport {
        keys_checked: keys.len(),
        mismatches: Vec::new(),
    };
    for key in keys {
        let live_row = live.get(key).copied();
        // A key with neither base nor moves folds to the neutral row, which only a live row
        // that was never moved could equal — so such a live row is a mismatch too.
        let folded_row = folded.get(key).copied();
        let ok = match (live_row, folded_row) {
            (Some(l), Some(f)) => same_bits(&l, &f),
            _ => false,
        };
        if !ok {
            report.mismatches.push(FoldMismatch {
                key: key.clone(),
                live: live_row,
                folded: folded_row.unwrap_or_default(),
            });
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{decision, mv};
    use docsuggest_schema::{Decision, HistoryEntry, RateMove};

    /// Contents given as data.
    struct Fixed {
        live: Vec<(RateKey, RateRow)>,
        base: Vec<(RateKey, RateRow)>,
        history: Vec<Vec<RateMove>>,
    }

    impl StoreContents for Fixed {
        fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
            Ok(self.live.clone())
        }
        fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
            Ok(self.base.clone())
        }
        fn history(&self) -> Result<Vec<HistoryEntry>, StoreError> {
            Ok(self
                .history
                .iter()
                .enumerate()
                .map(|(i, moves)| HistoryEntry {
                    resolution_seq: i as u64 + 1,
                    decision: decision("Plan"),
                    moves: moves.clone(),
                })
                .collect())
        }
        fn pending(&self) -> Result<Vec<Decision>, StoreError> {
            Ok(vec![])
        }
    }

    fn row(step: f64, accepts: u64, rejects: u64) -> RateRow {
        RateRow {
            step,
            accepts,
            rejects,
            ..RateRow::default()
        }
    }

    /// `row` with recent evidence.
    fn recent(row: RateRow, hits: f64, misses: f64) -> RateRow {
        RateRow {
            recent_hits: hits,
            recent_misses: misses,
            ..row
        }
    }

    fn key(c: &str) -> RateKey {
        RateKey::companion("ws", "Plan", c)
    }

    /// Answers the mismatching keys' companions.
    fn check(
        live: &[(&str, RateRow)],
        base: &[(&str, RateRow)],
        history: &[&[(&str, f64)]],
    ) -> Vec<String> {
        let contents = Fixed {
            live: live.iter().map(|(c, r)| (key(c), *r)).collect(),
            base: base.iter().map(|(c, r)| (key(c), *r)).collect(),
            history: history
                .iter()
                .map(|moves| moves.iter().map(|(c, s)| mv("Plan", c, *s)).collect())
                .collect(),
        };
        let report = check_fold(&contents).expect("check");
        report
            .mismatches
            .iter()
            .map(|m| m.key.companion.clone())
            .collect()
    }

    #[test]
    fn mismatches_are_listed_by_key() {
        use docsuggest_schema::rate::FORGET;
        // Clean: base then one move.
        assert!(
            check(
                &[("a", recent(row(0.5, 1, 0), 1.0, 0.0))],
                &[("a", row(0.4, 0, 0))],
                &[&[("a", 0.1)]]
            )
            .is_empty()
        );
        // The step rule clamps, so order matters: −0.2, −0.2 clamp at 0, then +0.1 gives 0.1;
        // the live row of the other order (+0.1 first) does not fold from this history.
        let history: &[&[(&str, f64)]] = &[&[("a", -0.2)], &[("a", -0.2)], &[("a", 0.1)]];
        let folded = recent(row(0.1, 1, 2), 1.0, (1.0 + FORGET) * FORGET);
        assert!(check(&[("a", folded)], &[], history).is_empty());
        let other_order = 1.0 / 3.0 + 0.1 - 0.2 - 0.2;
        let other = RateRow {
            step: other_order,
            ..folded
        };
        assert_eq!(check(&[("a", other)], &[], history), ["a"]);
        // The recent evidence ages, so order matters there too: the accept first leaves the
        // same step and counts but other weights.
        let aged = recent(row(0.1, 1, 2), FORGET * FORGET, 1.0 + FORGET);
        assert_eq!(check(&[("a", aged)], &[], history), ["a"]);
        // A live row with nothing behind it, and moves with no live row.
        assert_eq!(check(&[("a", row(0.5, 0, 0))], &[], &[]), ["a"]);
        assert_eq!(check(&[], &[], &[&[("b", 0.1)]]), ["b"]);
        // A base row alone is what the live row must equal.
        assert!(check(&[("c", row(0.25, 2, 2))], &[("c", row(0.25, 2, 2))], &[]).is_empty());
        // −0.0 and 0.0 differ bit for bit.
        assert_eq!(
            check(&[("d", row(-0.0, 0, 0))], &[("d", row(0.0, 0, 0))], &[]),
            ["d"]
        );
    }
}
