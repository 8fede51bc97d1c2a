//! The merge's state file (`fleet merge --state FILE`): every key's [`Partial`] of every run,
//! and what each workspace's runs had merged ([`Coverage`]) — what the next merge continues
//! from, so a day's merge reads a day's exports (docs/FLEET.md, "Merging by the day").
//!
//! Written in the merge's order (key, store id, run) and read back whole, checked as every
//! fleet file is: its digest, every value, and that order.

use crate::FleetError;
use crate::columns;
use crate::coverage::Coverage;
use crate::partial::{Partial, Walk};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Float64Builder, Int64Array, Int64Builder, ListArray,
    ListBuilder, RecordBatch, StringArray, StringBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, Schema, SchemaRef};
use docsuggest_schema::{RateKey, RateRow};
use std::path::Path;
use std::sync::Arc;

/// One key's partial of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPartial {
    /// The rate key.
    pub key: RateKey,
    /// The store id.
    pub store: String,
    /// The run.
    pub run: String,
    /// Its fold.
    pub partial: Partial,
}

impl RunPartial {
    /// Its place in the merge's order.
    pub fn order(&self) -> (&RateKey, &str, &str) {
        (&self.key, &self.store, &self.run)
    }
}

/// The columns of a state file.
pub fn schema() -> SchemaRef {
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    let int = |name: &str| Field::new(name, DataType::Int64, false);
    let float = |name: &str| Field::new(name, DataType::Float64, false);
    Arc::new(Schema::new(vec![
        text("workspace"),
        text("family"),
        text("companion"),
        text("store_id"),
        text("run"),
        int("through"),
        int("accepts"),
        int("rejects"),
        int("shadow_hits"),
        int("shadow_misses"),
        float("recent_hits"),
        float("recent_misses"),
        float("shift"),
        float("low"),
        float("high"),
        // The ranges of the row's workspace's run merged so far: first, last, first, last…
        Field::new(
            "covered",
            DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
            false,
        ),
    ]))
}

/// Writes the partials (in the merge's order) and the coverage to `file`, whole.
pub fn write(file: &Path, partials: &[RunPartial], coverage: &Coverage) -> Result<(), FleetError> {
    let text = StringBuilder::new;
    let (mut w, mut f, mut c, mut s, mut r) = (text(), text(), text(), text(), text());
    let int = || Int64Builder::with_capacity(partials.len());
    let (mut through, mut accepts, mut rejects, mut hits, mut misses) =
        (int(), int(), int(), int(), int());
    let float = || Float64Builder::with_capacity(partials.len());
    let (mut recent_hits, mut recent_misses, mut shift, mut low, mut high) =
        (float(), float(), float(), float(), float());
    let mut covered = ListBuilder::new(Int64Builder::new());
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    for p in partials {
        w.append_value(&p.key.workspace);
        f.append_value(&p.key.family);
        c.append_value(&p.key.companion);
        s.append_value(&p.store);
        r.append_value(&p.run);
        let (row, walk) = (&p.partial.row, &p.partial.walk);
        through.append_value(p.partial.through);
        accepts.append_value(n(row.accepts));
        rejects.append_value(n(row.rejects));
        hits.append_value(n(row.shadow_hits));
        misses.append_value(n(row.shadow_misses));
        recent_hits.append_value(row.recent_hits);
        recent_misses.append_value(row.recent_misses);
        shift.append_value(walk.shift);
        low.append_value(walk.low);
        high.append_value(walk.high);
        let run = (p.key.workspace.clone(), p.store.clone(), p.run.clone());
        for &(a, b) in coverage.ranges(&run) {
            covered.values().append_value(a);
            covered.values().append_value(b);
        }
        covered.append(true);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(w.finish()),
        Arc::new(f.finish()),
        Arc::new(c.finish()),
        Arc::new(s.finish()),
        Arc::new(r.finish()),
        Arc::new(through.finish()),
        Arc::new(accepts.finish()),
        Arc::new(rejects.finish()),
        Arc::new(hits.finish()),
        Arc::new(misses.finish()),
        Arc::new(recent_hits.finish()),
        Arc::new(recent_misses.finish()),
        Arc::new(shift.finish()),
        Arc::new(low.finish()),
        Arc::new(high.finish()),
        Arc::new(covered.finish()),
    ];
    let batch = crate::export::batch(schema(), columns)?;
    crate::export::write(file, &batch, "fleet-state", &[])
}

/// Reads and checks a state file: the partials in the merge's order, and the coverage.
pub fn read(file: &Path) -> Result<(Vec<RunPartial>, Coverage), FleetError> {
    let opened = crate::verify::open(file, "fleet-state", schema())?;
    let mut partials: Vec<RunPartial> = Vec::new();
    let mut coverage = Coverage::default();
    opened.read(|batch, start| rows_of(batch, start, &mut partials, &mut coverage))?;
    Ok((partials, coverage))
}

/// One batch's rows checked and added, in order, after the `start` rows read before it.
fn rows_of(
    batch: &RecordBatch,
    start: usize,
    partials: &mut Vec<RunPartial>,
    coverage: &mut Coverage,
) -> Result<(), String> {
    let columns = StateColumns::of(batch)?;
    for i in 0..batch.num_rows() {
        let at = |problem: &str| format!("row {}: {problem}", start + i + 1);
        let p = columns.partial(i, at)?;
        if partials
            .last()
            .is_some_and(|last| last.order() >= p.order())
        {
            return Err(at("out of the merge's order"));
        }
        columns.add_covered(i, &p, coverage, at)?;
        partials.push(p);
    }
    Ok(())
}

/// A state file's columns in one batch, typed.
struct StateColumns<'a> {
    workspace: &'a StringArray,
    family: &'a StringArray,
    companion: &'a StringArray,
    store: &'a StringArray,
    run: &'a StringArray,
    through: &'a Int64Array,
    accepts: &'a Int64Array,
    rejects: &'a Int64Array,
    hits: &'a Int64Array,
    misses: &'a Int64Array,
    recent_hits: &'a Float64Array,
    recent_misses: &'a Float64Array,
    shift: &'a Float64Array,
    low: &'a Float64Array,
    high: &'a Float64Array,
    covered: &'a ListArray,
}

impl<'a> StateColumns<'a> {
    /// The columns of `batch`, each of its type.
    fn of(batch: &'a RecordBatch) -> Result<StateColumns<'a>, String> {
        let column = |name: &str| batch.column_by_name(name).ok_or("a column is missing");
        let text = |name: &str| {
            column(name)?
                .as_string_opt::<i32>()
                .ok_or("a column is not text")
        };
        let int = |name: &str| {
            column(name)?
                .as_primitive_opt::<Int64Type>()
                .ok_or("a column is not a number")
        };
        let float = |name: &str| {
            column(name)?
                .as_primitive_opt::<Float64Type>()
                .ok_or("a column is not a number")
        };
        Ok(StateColumns {
            workspace: text("workspace")?,
            family: text("family")?,
            companion: text("companion")?,
            store: text("store_id")?,
            run: text("run")?,
            through: int("through")?,
            accepts: int("accepts")?,
            rejects: int("rejects")?,
            hits: int("shadow_hits")?,
            misses: int("shadow_misses")?,
            recent_hits: float("recent_hits")?,
            recent_misses: float("recent_misses")?,
            shift: float("shift")?,
            low: float("low")?,
            high: float("high")?,
            covered: column("covered")?
                .as_list_opt::<i32>()
                .ok_or("`covered` is not a list")?,
        })
    }

    /// Row `i`'s partial, its counts and values checked (`at` words a problem of the row).
    fn partial(&self, i: usize, at: impl Fn(&str) -> String) -> Result<RunPartial, String> {
        let count = |a: &Int64Array| u64::try_from(a.value(i)).ok();
        let (Some(accepts), Some(rejects), Some(shadow_hits), Some(shadow_misses)) = (
            count(self.accepts),
            count(self.rejects),
            count(self.hits),
            count(self.misses),
        ) else {
            return Err(at("a negative count"));
        };
        let walk = Walk {
            shift: self.shift.value(i),
            low: self.low.value(i),
            high: self.high.value(i),
        };
        let (recent_hits, recent_misses) = (self.recent_hits.value(i), self.recent_misses.value(i));
        let finite = [recent_hits, recent_misses, walk.shift]
            .iter()
            .all(|v| v.is_finite() && v.abs() <= 1e12);
        let (workspace, family, store, run) = (
            self.workspace.value(i),
            self.family.value(i),
            self.store.value(i),
            self.run.value(i),
        );
        if !finite
            || recent_hits < 0.0
            || recent_misses < 0.0
            || !(0.0..=1.0).contains(&walk.low)
            || !(walk.low..=1.0).contains(&walk.high)
            || self.through.value(i) < 1
            || !columns::is_id_text(store)
            || !columns::is_id_text(run)
            || workspace.is_empty()
            || family.is_empty()
        {
            return Err(at("a value out of range"));
        }
        Ok(RunPartial {
            key: RateKey::companion(workspace, family, self.companion.value(i)),
            store: store.to_string(),
            run: run.to_string(),
            partial: Partial {
                row: RateRow {
                    accepts,
                    rejects,
                    shadow_hits,
                    shadow_misses,
                    recent_hits,
                    recent_misses,
                    ..RateRow::default()
                },
                walk,
                through: self.through.value(i),
            },
        })
    }

    /// Row `i`'s covered ranges, checked (pairs, each in order), added to `coverage` for the
    /// run of `p`.
    fn add_covered(
        &self,
        i: usize,
        p: &RunPartial,
        coverage: &mut Coverage,
        at: impl Fn(&str) -> String,
    ) -> Result<(), String> {
        let ranges = self.covered.value(i);
        let ranges = ranges
            .as_primitive_opt::<Int64Type>()
            .filter(|a| a.null_count() == 0 && a.len() % 2 == 0)
            .ok_or_else(|| at("its covered ranges are not pairs"))?;
        let run = (p.key.workspace.clone(), p.store.clone(), p.run.clone());
        for pair in ranges.values().chunks_exact(2) {
            let (a, b) = (pair[0], pair[1]);
            if a < 1 || a > b {
                return Err(at("a covered range out of order"));
            }
            coverage.add(run.clone(), a, b);
        }
        Ok(())
    }
}
