//! The fold of the merge: the moves arrive sorted by key, then store id, resolution number,
//! run and move number (`MERGE_SQL`), and each key's run of moves is folded through
//! `RateRow::apply`, the function every store applies live, as the batches stream by —
//! nothing but the finished rows is held. A move seen again (the same export given twice, an
//! export written again after a cut, an entry a copy of a store shares with its original)
//! arrives right after itself and is skipped; a different move under the same identity is
//! refused ([`FleetError::Diverged`]), since keeping one would drop the other.

use crate::FleetError;
use crate::columns;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, PrimitiveArray, RecordBatch, StringArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int32Type, Int64Type};
use docsuggest_schema::{RateEvent, RateKey, RateMove, RateRow};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What one run of a store's exports held: its last resolution number and its distinct moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Held {
    pub through: i64,
    pub moves: u64,
}

/// Per store id, per run, what the merge held.
pub(crate) type HeldRuns = BTreeMap<String, BTreeMap<String, Held>>;

/// A move's identity and what it does: (store id, resolution, run, move number) and (event,
/// step bits).
#[derive(Clone, Debug, PartialEq)]
struct LastMove {
    store: String,
    resolution: i64,
    run: String,
    index: i32,
    event: RateEvent,
    step: u64,
}

/// The rows folded so far, the key being folded, and what each store's runs held.
#[derive(Default)]
pub(crate) struct KeyFold {
    rows: Vec<(RateKey, RateRow)>,
    current: Option<(RateKey, RateRow)>,
    /// The last move folded into the current key.
    last: Option<LastMove>,
    held: HeldRuns,
}

impl KeyFold {
    /// Folds one batch of the sorted moves (the columns of `MERGE_SQL`).
    pub(crate) fn batch(&mut self, batch: &RecordBatch) -> Result<(), FleetError> {
        let texts: Vec<ArrayRef> = [0, 1, 2, 3, 5, 7]
            .iter()
            .map(|&i| text(batch.column(i)))
            .collect::<Result<_, _>>()?;
        let [workspace, family, companion, store, run, event] =
            [0, 1, 2, 3, 4, 5].map(|i| &texts[i]);
        let (workspace, family, companion, store, run, event) = (
            strings(workspace)?,
            strings(family)?,
            strings(companion)?,
            strings(store)?,
            strings(run)?,
            strings(event)?,
        );
        let resolution: &PrimitiveArray<Int64Type> = primitive(batch.column(4))?;
        let index: &PrimitiveArray<Int32Type> = primitive(batch.column(6))?;
        let step: &PrimitiveArray<Float64Type> = primitive(batch.column(8))?;
        // `apply` reads a move's event and step only.
        let mut mv = RateMove {
            key: RateKey::family("", ""),
            event: RateEvent::Accept,
            step: 0.0,
        };
        for i in 0..batch.num_rows() {
            let (w, f, c) = (workspace.value(i), family.value(i), companion.value(i));
            let same_key = self
                .current
                .as_ref()
                .is_some_and(|(k, _)| k.workspace == w && k.family == f && k.companion == c);
            if !same_key {
                self.rows.extend(self.current.take());
                self.current = Some((RateKey::companion(w, f, c), RateRow::default()));
                self.last = None;
            }
            let (s, seq, r, idx) = (
                store.value(i),
                resolution.value(i),
                run.value(i),
                index.value(i),
            );
            let name = event.value(i);
            mv.event = columns::event_of(name).ok_or_else(|| FleetError::BadFile {
                file: PathBuf::from("(the merged moves)"),
                problem: format!("a move of {w}/{f}/{c} has the unknown event {name:?}"),
            })?;
            mv.step = step.value(i);
            if let Some(last) = self.last.as_ref().filter(|l| {
                (l.store.as_str(), l.resolution, l.run.as_str(), l.index) == (s, seq, r, idx)
            }) {
                if (last.event, last.step) != (mv.event, mv.step.to_bits()) {
                    return Err(FleetError::Diverged {
                        store: s.to_string(),
                        run: r.to_string(),
                        resolution: seq,
                    });
                }
                continue;
            }
            let Some((_, row)) = self.current.as_mut() else {
                continue;
            };
            *row = row.apply(&mv);
            let last = self.last.get_or_insert_with(|| LastMove {
                store: String::new(),
                resolution: 0,
                run: String::new(),
                index: 0,
                event: RateEvent::Accept,
                step: 0,
            });
            if last.store != s {
                s.clone_into(&mut last.store);
            }
            if last.run != r {
                r.clone_into(&mut last.run);
            }
            (last.resolution, last.index, last.event, last.step) =
                (seq, idx, mv.event, mv.step.to_bits());
            let runs = match self.held.get_mut(s) {
                Some(runs) => runs,
                None => self.held.entry(s.to_string()).or_default(),
            };
            let held = match runs.get_mut(r) {
                Some(held) => held,
                None => runs.entry(r.to_string()).or_default(),
            };
            held.through = held.through.max(seq);
            held.moves += 1;
        }
        Ok(())
    }

    /// The rows, in key order, and what each store held.
    pub(crate) fn finish(mut self) -> (Vec<(RateKey, RateRow)>, HeldRuns) {
        self.rows.extend(self.current.take());
        (self.rows, self.held)
    }
}

/// A result column the query was expected to shape otherwise (a bug, not bad input).
pub(crate) fn unexpected(what: &str) -> FleetError {
    FleetError::Query(Box::new(datafusion::error::DataFusionError::Internal(
        format!("the merge query answered {what} of an unexpected type"),
    )))
}

/// A text column as plain Utf8, whatever string type the query answered.
fn text(array: &ArrayRef) -> Result<ArrayRef, FleetError> {
    cast(array, &DataType::Utf8).map_err(|e| FleetError::Query(Box::new(e.into())))
}

fn strings(array: &ArrayRef) -> Result<&StringArray, FleetError> {
    array
        .as_string_opt::<i32>()
        .ok_or_else(|| unexpected("text"))
}

fn primitive<T: datafusion::arrow::datatypes::ArrowPrimitiveType>(
    array: &ArrayRef,
) -> Result<&PrimitiveArray<T>, FleetError> {
    array
        .as_primitive_opt::<T>()
        .filter(|a| a.null_count() == 0)
        .ok_or_else(|| unexpected("a number column"))
}
