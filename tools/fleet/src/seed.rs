//! `docsuggest import --rates FILE`: a store's base rows seeded from the fleet's rates.
//!
//! Only the workspaces asked for (`--workspace DIR`, keyed as the hosts key it), or else those
//! the store already knows, are seeded; the file must hold rows for them. The store's own
//! history the fleet already holds (its exports up to the mark the merge kept for its id) is
//! dropped, since the fleet's rows count it; what it learned since folds on top of the
//! fleet's rows. One durable transaction: an error leaves the store as it was.

use crate::FleetError;
use crate::columns::{self, HELD_KEY, MODEL_KEY};
use datafusion::arrow::array::{AsArray, Float64Array, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{Float64Type, Int64Type};
use docsuggest_host::stores;
use docsuggest_schema::text::quoted;
use docsuggest_schema::{RateKey, RateModel, RateRow, StoreContents};
use docsuggest_store::{ReadOnlyStore, RedbStore, StoreOptions};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What to import.
#[derive(Clone, Debug)]
pub struct SeedOptions {
    /// The fleet's rates file.
    pub rates: PathBuf,
    /// The store (`None`: the default store).
    pub store: Option<PathBuf>,
    /// The workspaces to seed (none: every workspace the store knows that the file holds).
    pub workspaces: Vec<PathBuf>,
    /// The store's rate model (its config's): a file of another model is refused.
    pub model: RateModel,
}

/// What an import did.
#[derive(Clone, Debug, Serialize)]
pub struct SeedReport {
    /// The store.
    pub store: String,
    /// The workspace keys seeded.
    pub workspaces: Vec<String>,
    /// Base rows written from the file.
    pub base_rows: usize,
    /// Base rows they replaced.
    pub replaced_base_rows: usize,
    /// This store's history entries dropped because the fleet's rows hold them.
    pub dropped_history: usize,
    /// Live rows of the seeded workspaces afterwards.
    pub live_rows: usize,
}

impl std::fmt::Display for SeedReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "seeded {} base rows of {} into {} (replacing {}); dropped {} history entries the fleet holds; {} live rows",
            self.base_rows,
            self.workspaces.join(", "),
            self.store,
            self.replaced_base_rows,
            self.dropped_history,
            self.live_rows
        )
    }
}

/// A rates file read whole.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetRates {
    /// The rows, in key order.
    pub rows: Vec<(RateKey, RateRow)>,
    /// Per store id, per run, the last resolution number the merge held.
    pub held: BTreeMap<String, BTreeMap<String, i64>>,
    /// The model its `rate` column was computed under.
    pub model: String,
}

/// Per store id, per run, the last resolution number a merge held.
type Held = BTreeMap<String, BTreeMap<String, i64>>;

/// Reads and checks a rates file written by `fleet merge`: its metadata, every value, its
/// digest.
pub fn read_rates(file: &Path) -> Result<FleetRates, FleetError> {
    let opened = crate::verify::open(file, "fleet-rates", columns::rates())?;
    let model = opened.metadata.get(MODEL_KEY).cloned().unwrap_or_default();
    let held = held_marks(file, &opened.metadata)?;
    let mut rows = Vec::new();
    opened.read(|batch, start| rows_of(batch, start, &mut rows))?;
    Ok(FleetRates { rows, held, model })
}

/// The held marks of a rates file's metadata (none when it has none), each checked.
fn held_marks(file: &Path, metadata: &BTreeMap<String, String>) -> Result<Held, FleetError> {
    let bad = |problem: String| FleetError::BadFile {
        file: file.to_path_buf(),
        problem,
    };
    let held: Held = match metadata.get(HELD_KEY) {
        Some(json) => serde_json::from_str(json)
            .map_err(|e| bad(format!("its held marks do not read ({e})")))?,
        None => BTreeMap::new(),
    };
    let negative = held
        .iter()
        .flat_map(|(id, runs)| runs.iter().map(move |(run, n)| (id, run, n)))
        .find(|(_, _, n)| **n < 0);
    if let Some((id, run, n)) = negative {
        return Err(bad(format!(
            "the held mark of store {} run {} is negative ({n})",
            quoted(id),
            quoted(run)
        )));
    }
    Ok(held)
}

/// The rate rows of one batch of a rates file, each checked.
fn rows_of(
    batch: &RecordBatch,
    start: usize,
    rows: &mut Vec<(RateKey, RateRow)>,
) -> Result<(), String> {
    let columns = RateColumns::of(batch)?;
    for i in 0..batch.num_rows() {
        rows.push(columns.row(i, start)?);
    }
    Ok(())
}

/// The columns of a batch of a rates file, typed.
struct RateColumns<'b> {
    workspace: &'b StringArray,
    family: &'b StringArray,
    companion: &'b StringArray,
    /// Accepts, rejects, shadow hits, shadow misses.
    counts: [&'b Int64Array; 4],
    step: &'b Float64Array,
    recent_hits: &'b Float64Array,
    recent_misses: &'b Float64Array,
}

impl<'b> RateColumns<'b> {
    /// The columns of `batch`, or the first one not of its type.
    fn of(batch: &'b RecordBatch) -> Result<RateColumns<'b>, String> {
        let text = |name: &str| {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_string_opt::<i32>())
                .ok_or_else(|| format!("column `{name}` is not Utf8"))
        };
        let int = |name: &str| {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_primitive_opt::<Int64Type>())
                .ok_or_else(|| format!("column `{name}` is not Int64"))
        };
        let float = |name: &str| {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_primitive_opt::<Float64Type>())
                .ok_or_else(|| format!("column `{name}` is not Float64"))
        };
        let (workspace, family, companion) =
            (text("workspace")?, text("family")?, text("companion")?);
        let counts = [
            int("accepts")?,
            int("rejects")?,
            int("shadow_hits")?,
            int("shadow_misses")?,
        ];
        let (step, recent_hits, recent_misses) = (
            float("step")?,
            float("recent_hits")?,
            float("recent_misses")?,
        );
        Ok(RateColumns {
            workspace,
            family,
            companion,
            counts,
            step,
            recent_hits,
            recent_misses,
        })
    }

    /// Row `i` of the batch (row `start + i + 1` of the file, as errors name it), checked.
    fn row(&self, i: usize, start: usize) -> Result<(RateKey, RateRow), String> {
        let key = RateKey::companion(
            self.workspace.value(i),
            self.family.value(i),
            self.companion.value(i),
        );
        let at = |problem: &str| {
            format!(
                "row {}: the row of {}/{}/{} {problem}",
                start + i + 1,
                quoted(&key.workspace),
                quoted(&key.family),
                quoted(&key.companion)
            )
        };
        if key.workspace.is_empty() || key.family.is_empty() {
            return Err(at("has an empty workspace or family"));
        }
        let [accepts, rejects, shadow_hits, shadow_misses] =
            self.counts.map(|c| u64::try_from(c.value(i)).ok());
        let (Some(accepts), Some(rejects), Some(shadow_hits), Some(shadow_misses)) =
            (accepts, rejects, shadow_hits, shadow_misses)
        else {
            return Err(at("has a negative count"));
        };
        let row = RateRow {
            step: self.step.value(i),
            accepts,
            rejects,
            shadow_hits,
            shadow_misses,
            recent_hits: self.recent_hits.value(i),
            recent_misses: self.recent_misses.value(i),
        };
        if !in_range(&row) {
            return Err(at("is out of range"));
        }
        Ok((key, row))
    }
}

/// Whether a row's step is a fraction and its recent counts finite and not negative.
fn in_range(row: &RateRow) -> bool {
    row.step.is_finite()
        && (0.0..=1.0).contains(&row.step)
        && row.recent_hits.is_finite()
        && row.recent_misses.is_finite()
        && row.recent_hits >= 0.0
        && row.recent_misses >= 0.0
}

/// Seeds the store's base rows from the fleet's rates.
pub fn seed(options: &SeedOptions) -> Result<SeedReport, FleetError> {
    let fleet = read_rates(&options.rates)?;
    let expected = columns::model_name(options.model);
    if fleet.model != expected {
        return Err(FleetError::OtherModel {
            file: options.rates.clone(),
            found: fleet.model,
            expected,
        });
    }
    let in_file: BTreeSet<&str> = fleet
        .rows
        .iter()
        .map(|(k, _)| k.workspace.as_str())
        .collect();
    let unknown = |problem: String| FleetError::UnknownRepository {
        file: options.rates.clone(),
        problem,
    };
    let mut wanted = BTreeSet::new();
    for dir in &options.workspaces {
        let key = stores::workspace_key(dir)?;
        if !in_file.contains(key.as_str()) {
            return Err(unknown(format!(
                "it holds no rates for {} (key {key}); it holds {}",
                dir.display(),
                listed(&in_file)
            )));
        }
        wanted.insert(key);
    }
    let file = stores::store_file(options.store.as_deref());
    // Everything is checked on a read-only view (which never changes the file's bytes); the
    // file is opened for writing only to seed.
    let existing = match file.exists() {
        true => Some(ReadOnlyStore::open(&file)?),
        false => None,
    };
    if options.workspaces.is_empty() {
        let known = match &existing {
            Some(store) => known_workspaces(&store.view()?)?,
            None => BTreeSet::new(),
        };
        wanted = known
            .iter()
            .filter(|k| in_file.contains(k.as_str()))
            .cloned()
            .collect();
        if wanted.is_empty() {
            let known: BTreeSet<&str> = known.iter().map(String::as_str).collect();
            return Err(unknown(format!(
                "it names no repository {} knows (the file holds {}; the store {}); name one with --workspace DIR",
                file.display(),
                listed(&in_file),
                listed(&known)
            )));
        }
    }
    drop(existing);
    let mut store = RedbStore::open(StoreOptions::new(&file))?;
    // Only what this store exported itself, and the fleet says it merged, is dropped: an
    // entry is the fleet's when the merge held its run (the handle that resolved it) up to it.
    // A copy of this store resolved its own entries under other runs, so a held mark of a
    // copy's — or a crafted one past this store's own export mark — drops nothing it never
    // exported.
    let lineage = store.lineage()?;
    let runs = match (store.drawn_store_id()?, store.exported_through()?) {
        (Some(id), Some(exported)) => fleet
            .held
            .get(&columns::store_id_text(id))
            .map(|runs| (runs.clone(), exported)),
        _ => None,
    };
    let held = |seq: u64| {
        runs.as_ref().is_some_and(|(runs, exported)| {
            seq <= *exported
                && runs
                    .get(&columns::store_id_text(lineage.run_of(seq)))
                    .and_then(|n| u64::try_from(*n).ok())
                    .is_some_and(|through| seq <= through)
        })
    };
    let seeded = store.seed_base(&wanted, &fleet.rows, &held)?;
    Ok(SeedReport {
        store: file.display().to_string(),
        workspaces: wanted.into_iter().collect(),
        base_rows: seeded.base,
        replaced_base_rows: seeded.replaced_base,
        dropped_history: seeded.dropped_history,
        live_rows: seeded.rates,
    })
}

fn listed(keys: &BTreeSet<&str>) -> String {
    if keys.is_empty() {
        return "none".into();
    }
    keys.iter().copied().collect::<Vec<_>>().join(", ")
}

/// The workspaces a store holds anything of.
fn known_workspaces(store: &impl StoreContents) -> Result<BTreeSet<String>, FleetError> {
    let mut known = BTreeSet::new();
    for (key, _) in store.rate_rows()?.into_iter().chain(store.base_rows()?) {
        known.insert(key.workspace);
    }
    for entry in store.history()? {
        known.insert(entry.decision.workspace);
    }
    for decision in store.pending()? {
        known.insert(decision.workspace);
    }
    Ok(known)
}
