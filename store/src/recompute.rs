//! The offline recompute: every rate row rebuilt from base + history, in parallel across keys
//! (each key's moves stay in resolution order), compared with the live rows.
//!
//! Under the `step` model this reproduces the live rows exactly: rows keep both the step value
//! and the accept/reject counts, and the fold is the same function the stores apply live.

use crate::fold::same_bits;
use docsuggest_schema::rate::fold;
use docsuggest_schema::{
    HistoryEntry, RateKey, RateModel, RateMove, RateRow, StoreContents, StoreError,
};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};

/// How to recompute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecomputeOptions {
    /// The model the drift is measured in (rows hold what every model needs).
    pub model: RateModel,
    /// Fold keys on rayon's pool (`false`: one thread, same result).
    pub parallel: bool,
}

/// One row whose live value differs from its recomputed value.
#[derive(Clone, Debug, PartialEq)]
pub struct Drift {
    /// The key.
    pub key: RateKey,
    /// The live row, if any.
    pub live: Option<RateRow>,
    /// The recomputed row.
    pub recomputed: RateRow,
}

/// What a recompute found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DriftReport {
    /// History entries replayed.
    pub decisions: usize,
    /// Rows compared (every key with a live row, a base row or a move).
    pub rows_compared: usize,
    /// Rows that differ, bit for bit, from their recomputed value.
    pub rows_differing: usize,
    /// The largest difference of a rate under the chosen model.
    pub max_difference: f64,
    /// The first differing rows (at most [`MAX_LISTED`]), in key order.
    pub differing: Vec<Drift>,
}

/// How many differing rows a report lists.
pub const MAX_LISTED: usize = 50;

/// The recomputed rows and how they compare with the live ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recomputed {
    /// Every recomputed row, in key order.
    pub rows: Vec<(RateKey, RateRow)>,
    /// The comparison with the live rows.
    pub report: DriftReport,
}

/// History entries one core groups at a time in a parallel recompute.
const CHUNK: usize = 4096;

type Groups<'h> = HashMap<&'h RateKey, Vec<&'h RateMove>>;

fn group(entries: &[HistoryEntry]) -> Groups<'_> {
    let mut groups: Groups<'_> = HashMap::new();
    for mv in entries.iter().flat_map(|e| &e.moves) {
        groups.entry(&mv.key).or_default().push(mv);
    }
    groups
}

/// `fold(base, moves)` for every key with a base row or a move in `history` (resolution
/// order), in key order. `done` counts folded keys as they finish (for a progress bar).
pub fn fold_all(
    base: &BTreeMap<RateKey, RateRow>,
    history: &[HistoryEntry],
    parallel: bool,
    done: &AtomicU64,
) -> Vec<(RateKey, RateRow)> {
    let by_key: Groups<'_> = if parallel {
        // Chunks are grouped on every core, then joined in history order, so each key's moves
        // keep resolution order.
        let chunks: Vec<Groups<'_>> = history.par_chunks(CHUNK).map(group).collect();
        let mut joined: Groups<'_> = HashMap::new();
        for chunk in chunks {
            for (key, mut moves) in chunk {
                joined.entry(key).or_default().append(&mut moves);
            }
        }
        joined
    } else {
        group(history)
    };
    let mut keys: Vec<&RateKey> = base.keys().chain(by_key.keys().copied()).collect();
    keys.sort_unstable();
    keys.dedup();
    let one = |key: &&RateKey| {
        let moves = by_key.get(*key).into_iter().flatten().copied();
        let row = fold(base.get(*key).copied(), moves);
        done.fetch_add(1, Ordering::Relaxed);
        ((*key).clone(), row)
    };
    if parallel {
        keys.par_iter().map(one).collect()
    } else {
        keys.iter().map(one).collect()
    }
}

/// Rebuilds every row of `contents` from base + history and compares it with the live rows.
/// Read-only: writing the rows back is the caller's choice (`RedbStore::replace_rates`).
pub fn recompute(
    contents: &(impl StoreContents + ?Sized),
    options: RecomputeOptions,
    done: &AtomicU64,
) -> Result<Recomputed, StoreError> {
    let base: BTreeMap<RateKey, RateRow> = contents.base_rows()?.into_iter().collect();
    let history = contents.history()?;
    let rows = fold_all(&base, &history, options.parallel, done);
    let live: BTreeMap<RateKey, RateRow> = contents.rate_rows()?.into_iter().collect();
    let recomputed: BTreeMap<&RateKey, &RateRow> = rows.iter().map(|(k, r)| (k, r)).collect();
    let keys: BTreeSet<&RateKey> = live.keys().chain(recomputed.keys().copied()).collect();
    let mut report = DriftReport {
        decisions: history.len(),
        rows_compared: keys.len(),
        ..DriftReport::default()
    };
    for key in keys {
        let live_row = live.get(key).copied();
        // A live row with neither base nor moves was never earned: it recomputes to nothing.
        let fresh = recomputed.get(key).map(|r| **r);
        if let (Some(l), Some(r)) = (live_row, fresh)
            && same_bits(&l, &r)
        {
            continue;
        }
        let target = fresh.unwrap_or_default();
        let difference = match live_row {
            Some(l) => (l.rate(options.model) - target.rate(options.model)).abs(),
            None => (RateRow::default().rate(options.model) - target.rate(options.model)).abs(),
        };
        report.rows_differing += 1;
        report.max_difference = report.max_difference.max(difference);
        if report.differing.len() < MAX_LISTED {
            report.differing.push(Drift {
                key: key.clone(),
                live: live_row,
                recomputed: target,
            });
        }
    }
    Ok(Recomputed { rows, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use docsuggest_schema::{
        Decision, DecisionStore, Outcome, RateEvent, Resolution, StoreKind, Table,
    };

    fn decision() -> Decision {
        Decision {
            seq: 0,
            workspace: "ws".into(),
            agent: "a".into(),
            family: "Plan".into(),
            kappa: 0.9,
            companions: vec![],
            weights: Table::DEFAULT_WEIGHTS,
            enabled: vec![],
            outcome: Outcome::Pending,
            silence: None,
            accepted: None,
            store: StoreKind::Memory,
        }
    }

    fn workload(store: &mut MemoryStore, n: u64) {
        for i in 0..n {
            let seq = store.record_pending(decision()).expect("record");
            let accept = i % 3 == 0;
            let companion = format!("c{}", i % 7);
            let (event, step) = if accept {
                (RateEvent::Accept, 0.1)
            } else {
                (RateEvent::Reject, -0.2)
            };
            let keys = [
                RateKey::companion("ws", "Plan", &companion),
                RateKey::family("ws", "Plan"),
            ];
            store
                .resolve(Resolution {
                    decision_seq: seq,
                    outcome: if accept {
                        Outcome::Accepted
                    } else {
                        Outcome::Rejected
                    },
                    accepted: accept.then_some(companion.clone()),
                    moves: keys
                        .into_iter()
                        .map(|key| RateMove { key, event, step })
                        .collect(),
                })
                .expect("resolve");
        }
    }

    #[test]
    fn reproduces_live_rows_and_parallel_equals_sequential() {
        let mut store = MemoryStore::new(64);
        workload(&mut store, 500);
        let done = AtomicU64::new(0);
        let options = RecomputeOptions {
            model: RateModel::Step,
            parallel: true,
        };
        let par = recompute(&store, options, &done).expect("recompute");
        let seq = recompute(
            &store,
            RecomputeOptions {
                parallel: false,
                ..options
            },
            &done,
        )
        .expect("recompute");
        assert_eq!(par, seq);
        assert_eq!(par.report.rows_differing, 0);
        assert_eq!(par.report.rows_compared, 8);
        assert_eq!(par.report.decisions, 64);
        assert_eq!(done.load(Ordering::Relaxed), 16);
        let live = store.rate_rows().expect("rows");
        assert_eq!(par.rows.len(), live.len());
        assert!(
            par.rows
                .iter()
                .zip(&live)
                .all(|(a, b)| a.0 == b.0 && same_bits(&a.1, &b.1))
        );
    }

    #[test]
    fn chunks_join_in_resolution_order() {
        // Order-sensitive moves (the step rule clamps) over a few keys, across many chunks.
        let history: Vec<HistoryEntry> = (0..3 * CHUNK as u64 + 17)
            .map(|i| {
                let accept = (i * 7919) % 5 < 2;
                let (event, step) = if accept {
                    (RateEvent::Accept, 0.1)
                } else {
                    (RateEvent::Reject, -0.2)
                };
                HistoryEntry {
                    resolution_seq: i + 1,
                    decision: decision(),
                    moves: vec![RateMove {
                        key: RateKey::companion("ws", "Plan", &format!("c{}", i % 3)),
                        event,
                        step,
                    }],
                }
            })
            .collect();
        let base = BTreeMap::new();
        let done = AtomicU64::new(0);
        let sequential = fold_all(&base, &history, false, &done);
        let parallel = fold_all(&base, &history, true, &done);
        assert_eq!(sequential.len(), 3);
        assert!(
            sequential
                .iter()
                .zip(&parallel)
                .all(|(a, b)| a.0 == b.0 && same_bits(&a.1, &b.1))
        );
        let by_hand = history
            .iter()
            .filter(|e| e.moves[0].key.companion == "c0")
            .fold(RateRow::default(), |row, e| row.apply(&e.moves[0]));
        assert!(same_bits(&sequential[0].1, &by_hand));
    }
}
