//! The fold of the merge: the moves arrive sorted by key, then store id, run, resolution
//! number and move number (`MERGE_SQL`), and each key's moves of each run are folded into a
//! [`Partial`] as the batches stream by, continuing the previous merge's partial of that
//! key and run when there is one ([`crate::state`]); a key's partials, in order, combine into
//! its row. Nothing but the partials is held.
//!
//! A move seen again (the same export given twice, an export written again after a cut, an
//! entry a copy of a store shares with its original) arrives right after itself and is
//! skipped, as is a move the previous merge already folded (its resolution is in the
//! [`Coverage`] of its workspace's run); a different move under the same identity is refused
//! ([`FleetError::Diverged`]), since keeping one would drop the other.

use crate::FleetError;
use crate::columns;
use crate::coverage::Coverage;
use crate::partial::{Combined, Partial};
use crate::state::RunPartial;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, PrimitiveArray, RecordBatch, StringArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int32Type, Int64Type};
use docsuggest_schema::{RateEvent, RateKey, RateMove, RateRow};
use std::path::PathBuf;

/// A move's identity and what it does: (resolution, move number) within its partial, and
/// (event, step bits).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LastMove {
    resolution: i64,
    index: i32,
    event: RateEvent,
    step: u64,
}

/// The partial being folded, its last move, and what the previous merge folded of its
/// workspace's run.
struct Open {
    partial: RunPartial,
    last: Option<LastMove>,
    merged: Vec<(i64, i64)>,
}

/// The partials folded so far, the one being folded, and the previous merge's still to come.
pub(crate) struct KeyFold {
    /// Every partial finished, in order (the next state).
    partials: Vec<RunPartial>,
    /// The key's row so far, over its finished partials.
    combined: Option<(RateKey, Combined)>,
    rows: Vec<(RateKey, RateRow)>,
    /// The partial being folded.
    open: Option<Open>,
    /// The previous merge's partials not reached yet, in order.
    previous: std::iter::Peekable<std::vec::IntoIter<RunPartial>>,
    /// What the previous merge folded.
    merged: Coverage,
    /// Moves folded by this merge.
    pub(crate) moves: u64,
}

impl KeyFold {
    /// A fold continuing `previous` (a state's partials, in order), which folded `merged`.
    pub(crate) fn new(previous: Vec<RunPartial>, merged: Coverage) -> KeyFold {
        KeyFold {
            partials: Vec::new(),
            combined: None,
            rows: Vec::new(),
            open: None,
            previous: previous.into_iter().peekable(),
            merged,
            moves: 0,
        }
    }

    /// Folds one batch of the sorted moves (the columns of `MERGE_SQL`).
    pub(crate) fn batch(&mut self, batch: &RecordBatch) -> Result<(), FleetError> {
        let texts: Vec<ArrayRef> = [0, 1, 2, 3, 4, 7]
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
        let resolution: &PrimitiveArray<Int64Type> = primitive(batch.column(5))?;
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
            let (s, r, seq, idx) = (
                store.value(i),
                run.value(i),
                resolution.value(i),
                index.value(i),
            );
            let name = event.value(i);
            mv.event = columns::event_of(name).ok_or_else(|| FleetError::BadFile {
                file: PathBuf::from("(the merged moves)"),
                problem: format!("a move of {w}/{f}/{c} has the unknown event {name:?}"),
            })?;
            mv.step = step.value(i);
            let same = self.open.as_ref().map(|o| &o.partial).is_some_and(|p| {
                (
                    p.key.workspace.as_str(),
                    p.key.family.as_str(),
                    p.key.companion.as_str(),
                ) == (w, f, c)
                    && (p.store.as_str(), p.run.as_str()) == (s, r)
            });
            if !same {
                self.close_open();
                let key = RateKey::companion(w, f, c);
                self.reach(&key, s, r);
                let base = self
                    .previous
                    .next_if(|p| p.order() == (&key, s, r))
                    .unwrap_or_else(|| RunPartial {
                        key,
                        store: s.to_string(),
                        run: r.to_string(),
                        partial: Partial::default(),
                    });
                let run = (w.to_string(), s.to_string(), r.to_string());
                let merged = self.merged.ranges(&run).to_vec();
                self.open = Some(Open {
                    partial: base,
                    last: None,
                    merged,
                });
            }
            let Some(Open {
                partial: open,
                last,
                merged,
            }) = self.open.as_mut()
            else {
                continue;
            };
            let this = LastMove {
                resolution: seq,
                index: idx,
                event: mv.event,
                step: mv.step.to_bits(),
            };
            if let Some(last) = last.filter(|l| (l.resolution, l.index) == (seq, idx)) {
                if (last.event, last.step) != (this.event, this.step) {
                    return Err(FleetError::Diverged {
                        store: s.to_string(),
                        run: r.to_string(),
                        resolution: seq,
                    });
                }
                continue;
            }
            *last = Some(this);
            if crate::coverage::within(merged, seq) {
                continue;
            }
            open.partial.apply(&mv, seq);
            self.moves += 1;
        }
        Ok(())
    }

    /// Finishes the previous merge's partials that come before (key, store, run).
    fn reach(&mut self, key: &RateKey, store: &str, run: &str) {
        while let Some(p) = self.previous.next_if(|p| p.order() < (key, store, run)) {
            self.finish(p);
        }
    }

    fn close_open(&mut self) {
        if let Some(Open { partial: open, .. }) = self.open.take() {
            // A partial of moves all folded before (or all repeated) is the previous one.
            if open.partial.through > 0 {
                self.finish(open);
            }
        }
    }

    /// Adds a finished partial to its key's row (closing the key before, if another).
    fn finish(&mut self, p: RunPartial) {
        match self.combined.as_mut() {
            Some((key, combined)) if *key == p.key => combined.add(&p.partial),
            _ => {
                self.close_key();
                let mut combined = Combined::default();
                combined.add(&p.partial);
                self.combined = Some((p.key.clone(), combined));
            }
        }
        self.partials.push(p);
    }

    fn close_key(&mut self) {
        if let Some((key, combined)) = self.combined.take() {
            self.rows.push((key, combined.row()));
        }
    }

    /// The rows in key order, and every partial (the next state).
    pub(crate) fn finish_all(mut self) -> (Vec<(RateKey, RateRow)>, Vec<RunPartial>) {
        self.close_open();
        while let Some(p) = self.previous.next() {
            self.finish(p);
        }
        self.close_key();
        (self.rows, self.partials)
    }
}

/// A text column as plain Utf8, whatever string type the query answered.
fn text(array: &ArrayRef) -> Result<ArrayRef, FleetError> {
    cast(array, &DataType::Utf8).map_err(|e| FleetError::Query(Box::new(e.into())))
}

fn strings(array: &ArrayRef) -> Result<&StringArray, FleetError> {
    array
        .as_string_opt::<i32>()
        .ok_or_else(|| FleetError::unexpected("text"))
}

fn primitive<T: datafusion::arrow::datatypes::ArrowPrimitiveType>(
    array: &ArrayRef,
) -> Result<&PrimitiveArray<T>, FleetError> {
    array
        .as_primitive_opt::<T>()
        .filter(|a| a.null_count() == 0)
        .ok_or_else(|| FleetError::unexpected("a number column"))
}
