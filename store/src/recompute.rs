//! The offline recompute: every rate row rebuilt from base + history and compared with the
//! live rows.
//!
//! The history is grouped by key in chunks of consecutive entries, in parallel — from a redb
//! snapshot, read in parallel ranges and decoded moves-only (`history_read`); from memory, by
//! slices — then every key is folded over its chunks in chunk order, keys in parallel (see
//! [`HistoryMoves`]). Each key's moves thus replay in resolution order through
//! `RateRow::apply`, the function the stores apply live, so the result is the same bit for bit
//! as `rate::fold` over the whole history, parallel or not, under every model: rows keep the
//! step value, the counts and the recent evidence, and neither the step rule nor the recent
//! evidence commutes.

use docsuggest_schema::rate::same_bits;
use docsuggest_schema::{RateKey, RateModel, RateRow, StoreContents, StoreError};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicU64;

mod source;

pub use crate::per_key_moves::{HistoryMoves, fold_all};

/// How to recompute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecomputeOptions {
    /// The model the drift is measured in (rows hold what every model needs).
    pub model: RateModel,
    /// Read, group and fold on rayon's pool (`false`: one thread, same result).
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

/// What a recompute reads, all from one snapshot of a store.
#[derive(Debug, Default)]
pub struct RecomputeInput {
    /// The base rows (state folded from evicted history).
    pub base: Vec<(RateKey, RateRow)>,
    /// The live rows.
    pub live: Vec<(RateKey, RateRow)>,
    /// The history's moves, grouped by key.
    pub history: HistoryMoves,
}

impl RecomputeInput {
    /// Reads `contents` through [`StoreContents`] (its history copied, then grouped), for
    /// contents whose reads agree with one another (held in memory, or one snapshot).
    pub fn from_contents(
        contents: &(impl StoreContents + ?Sized),
        parallel: bool,
    ) -> Result<RecomputeInput, StoreError> {
        Ok(RecomputeInput {
            base: contents.base_rows()?,
            live: contents.rate_rows()?,
            history: HistoryMoves::from_entries(&contents.history()?, parallel),
        })
    }
}

/// Store contents a recompute can read from one snapshot: the redb store, its views and
/// readers, a read-only store, the memory store, any `dyn StoreContents`.
pub trait RecomputeSource {
    /// Base rows, live rows and the grouped history, from one snapshot; `parallel` reads and
    /// groups on rayon's pool where the source can.
    fn recompute_input(&self, parallel: bool) -> Result<RecomputeInput, StoreError>;
}

/// Rebuilds every row of `source` from base + history and compares it with the live rows, all
/// read from one snapshot. Read-only: writing the rows back is the caller's choice
/// (`RedbStore::replace_rates`).
pub fn recompute(
    source: &(impl RecomputeSource + ?Sized),
    options: RecomputeOptions,
    done: &AtomicU64,
) -> Result<Recomputed, StoreError> {
    recompute_read(source.recompute_input(options.parallel)?, options, done)
}

/// [`recompute`] over input already read.
pub(crate) fn recompute_read(
    input: RecomputeInput,
    options: RecomputeOptions,
    done: &AtomicU64,
) -> Result<Recomputed, StoreError> {
    let base: BTreeMap<RateKey, RateRow> = input.base.into_iter().collect();
    let decisions = input.history.decisions();
    let rows = input.history.fold(&base, options.parallel, done)?;
    drop(input.history);
    let live: BTreeMap<RateKey, RateRow> = input.live.into_iter().collect();
    let recomputed: BTreeMap<&RateKey, &RateRow> = rows.iter().map(|(k, r)| (k, r)).collect();
    let keys: BTreeSet<&RateKey> = live.keys().chain(recomputed.keys().copied()).collect();
    let mut report = DriftReport {
        decisions,
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
mod tests;
