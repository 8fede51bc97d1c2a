//! The schema v4 → v5 upgrade: rate rows gain the recent evidence of forgetting.
//!
//! Schema v5 rows carry `recent_hits` and `recent_misses`: hits and misses weighed by age, each
//! newer observation of the row multiplying the earlier weights by `rate::FORGET` (a half-life
//! of `rate::HALF_LIFE` observations). Rows of schemas v2 to v4 have the same first five fields
//! under the same value tag (`codec::decode_v4_row`); the step re-encodes every `base` and
//! `rates` row with the two new fields, then rebuilds every live row from base + history, so the
//! upgraded file satisfies `live == fold(base, history)` by construction. History, pending
//! decisions and mined packs keep their bytes.
//!
//! **Seeding a base row.** A history entry's moves are replayed, so their recent evidence is
//! what a v5 build would have folded. A base row is what evicted history left: counts with no
//! ages. Its `n = hits + misses` observations are taken as the row's last `n`, evenly mixed:
//! they weigh `W(n) = 1 + FORGET + … + FORGET^(n−1) = (1 − FORGET^n) / (1 − FORGET)` together
//! — `n` itself for a few observations, at most a full window's `1 / (1 − FORGET)` (about 29)
//! for many — shared in the counts' proportion:
//! `recent_hits = hits · W(n) / n`, `recent_misses = misses · W(n) / n` (both 0 when `n = 0`).
//! The row thus keeps its rate's ratio of hits to misses, and a row with thousands of stale
//! observations comes back after tens of new ones, as every row of a v5 build does.

use crate::errors::{self, ResultExt};
use crate::tables::{self, BASE, HISTORY, KeyTuple, MOVES, RATES, ShowKey, key_tuple};
use docsuggest_schema::codec;
use docsuggest_schema::rate::FORGET;
use docsuggest_schema::{RateKey, RateRow, StoreError};
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use std::collections::BTreeMap;

/// Runs the upgrade inside the migration's write transaction.
pub(crate) fn apply(txn: &WriteTransaction, path: &str) -> Result<(), StoreError> {
    // Every live row must be a v4 row, though each is rebuilt below: a damaged one fails the
    // upgrade rather than vanish.
    read_v4_rows(txn, path, RATES, "rates")?;
    let base: BTreeMap<RateKey, RateRow> = read_v4_rows(txn, path, BASE, "base")?
        .into_iter()
        .map(|(key, row)| (key, seeded(row)))
        .collect();
    write_rows(txn, path, BASE, "base", &base, false)?;
    let history = {
        let doing = "upgrading rates";
        let entries = txn.open_table(HISTORY).at(path, doing)?;
        let moves = txn.open_table(MOVES).at(path, doing)?;
        tables::read_history(path, &entries, &moves)?
    };
    let done = std::sync::atomic::AtomicU64::new(0);
    let live = crate::per_key_moves::fold_all(&base, &history, true, &done)?;
    write_rows(
        txn,
        path,
        RATES,
        "rates",
        live.iter().map(|(k, r)| (k, r)),
        true,
    )
}

/// A base row of schema v4 with its recent evidence seeded from its counts (see the module's
/// documentation).
pub(crate) fn seeded(row: RateRow) -> RateRow {
    let n = row.observations();
    if n == 0 {
        return RateRow {
            recent_hits: 0.0,
            recent_misses: 0.0,
            ..row
        };
    }
    // Past a few thousand observations `FORGET^n` is below an f64's precision next to 1 (and
    // 0 past ~22 000): capping `n` keeps `powi`'s exponent an `i32` without changing `W`.
    let window = (1.0 - FORGET.powi(i32::try_from(n).unwrap_or(i32::MAX))) / (1.0 - FORGET);
    let n = n as f64;
    RateRow {
        recent_hits: row.hits() as f64 * window / n,
        recent_misses: row.misses() as f64 * window / n,
        ..row
    }
}

/// Every row of a rates-shaped table, decoded in the v4 layout.
fn read_v4_rows(
    txn: &WriteTransaction,
    path: &str,
    definition: TableDefinition<KeyTuple<'static>, &[u8]>,
    name: &str,
) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
    let doing = format!("upgrading {name}");
    let table = txn.open_table(definition).at(path, &doing)?;
    let mut rows = Vec::new();
    for item in table.iter().at(path, &doing)? {
        let (k, v) = item.at(path, &doing)?;
        let (w, f, c) = k.value();
        let row = codec::decode_v4_row(v.value())
            .map_err(|e| errors::codec(name, ShowKey((w, f, c)), e))?;
        rows.push((RateKey::companion(w, f, c), row));
    }
    Ok(rows)
}

/// Writes `rows` into a rates-shaped table in today's layout, replacing every row it held
/// when `replace`.
fn write_rows<'a>(
    txn: &WriteTransaction,
    path: &str,
    definition: TableDefinition<KeyTuple<'static>, &[u8]>,
    name: &str,
    rows: impl IntoIterator<Item = (&'a RateKey, &'a RateRow)>,
    replace: bool,
) -> Result<(), StoreError> {
    let doing = format!("upgrading {name}");
    let mut table = txn.open_table(definition).at(path, &doing)?;
    if replace {
        table.retain(|_, _| false).at(path, &doing)?;
    }
    for (key, row) in rows {
        let bytes = codec::encode(row)
            .map_err(|e| errors::encode_failed(&format!("{name}{}", ShowKey(key_tuple(key))), e))?;
        table
            .insert(key_tuple(key), bytes.as_slice())
            .at(path, &doing)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(accepts: u64, rejects: u64, shadow_hits: u64, shadow_misses: u64) -> RateRow {
        RateRow {
            step: 0.25,
            accepts,
            rejects,
            shadow_hits,
            shadow_misses,
            ..RateRow::default()
        }
    }

    /// Accepts, rejects, shadow hits, shadow misses.
    type Counts = (u64, u64, u64, u64);

    /// The seeded (recent hits, recent misses) of rows with these counts.
    fn check(rows: &[(Counts, (f64, f64))]) {
        for &((a, r, h, m), (hits, misses)) in rows {
            let row = counts(a, r, h, m);
            let seeded = seeded(row);
            assert!(
                (seeded.recent_hits - hits).abs() < 1e-9
                    && (seeded.recent_misses - misses).abs() < 1e-9,
                "{:?}: {:?}",
                (a, r, h, m),
                (seeded.recent_hits, seeded.recent_misses)
            );
            // Everything else is kept, and the ratio of hits to misses too.
            assert_eq!(
                (seeded.step, seeded.accepts, seeded.rejects),
                (row.step, row.accepts, row.rejects)
            );
            assert_eq!((seeded.shadow_hits, seeded.shadow_misses), (h, m));
            if a + h > 0 && r + m > 0 {
                let ratio = seeded.recent_hits / seeded.recent_misses;
                assert!((ratio - (a + h) as f64 / (r + m) as f64).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn base_rows_keep_their_ratio_with_at_most_a_window_of_weight() {
        let full = 1.0 / (1.0 - FORGET);
        let w = |n: i32| (1.0 - FORGET.powi(n)) / (1.0 - FORGET);
        check(&[
            // Nothing observed: nothing recent.
            ((0, 0, 0, 0), (0.0, 0.0)),
            // One observation weighs one, as a move would.
            ((1, 0, 0, 0), (1.0, 0.0)),
            ((0, 0, 0, 1), (0.0, 1.0)),
            // A few weigh about their number, shared in proportion.
            ((1, 1, 1, 1), (w(4) / 2.0, w(4) / 2.0)),
            ((2, 0, 0, 8), (w(10) * 0.2, w(10) * 0.8)),
            // Twenty (one half-life) weigh (1 − 1/2) of a full window.
            ((5, 5, 5, 5), (full / 4.0, full / 4.0)),
            // Many weigh a full window, however many.
            ((0, 0, 0, 921), (0.0, full)),
            ((100, 0, 0, 999_900), (full * 1e-4, full * (1.0 - 1e-4))),
            ((u64::MAX / 2, 0, 0, u64::MAX / 2), (full / 2.0, full / 2.0)),
        ]);
    }

    #[test]
    fn a_seeded_row_is_finite_and_keeps_its_rate_s_side_of_neutral() {
        use docsuggest_schema::RateModel;
        for (a, m) in [(0, 1), (1, 0), (3, 9), (9, 3), (u64::MAX, 0), (0, u64::MAX)] {
            let row = counts(a, 0, 0, m);
            let s = seeded(row);
            assert!(s.recent_hits.is_finite() && s.recent_misses.is_finite());
            assert!(s.recent_hits + s.recent_misses <= 1.0 / (1.0 - FORGET) + 1e-9);
            let neutral = RateRow::default().rate(RateModel::Evidence);
            // Before v5 the evidence rate was the Beta(1, 2) mean of the counts.
            let counted = (1.0 + a as f64) / (3.0 + a as f64 + m as f64);
            assert_eq!(
                s.rate(RateModel::Evidence) > neutral,
                counted > neutral,
                "{a} hits, {m} misses"
            );
        }
    }
}
