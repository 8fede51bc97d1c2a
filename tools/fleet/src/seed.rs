//! `docsuggest import --rates FILE`: a store's base rows seeded from the fleet's rates.
//!
//! Only the workspaces asked for (`--workspace DIR`, keyed as the hosts key it), or else those
//! the store already knows, are seeded; the file must hold rows for them. The store's own
//! history the fleet already holds (its exports up to the mark the merge kept for its id) is
//! dropped, since the fleet's rows count it; what it learned since folds on top of the
//! fleet's rows. One durable transaction: an error leaves the store as it was.

use crate::FleetError;
use crate::columns::{self, FORMAT_KEY, FORMAT_VERSION, HELD_KEY, MODEL_KEY, VERSION_KEY};
use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::{Float64Type, Int64Type};
use docsuggest_host::stores;
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
    /// Per store id, the last resolution number the merge held.
    pub held: BTreeMap<String, i64>,
    /// The model its `rate` column was computed under.
    pub model: String,
}

/// Reads and checks a rates file written by `fleet merge`.
pub fn read_rates(file: &Path) -> Result<FleetRates, FleetError> {
    let bad = |problem: String| FleetError::BadFile {
        file: file.to_path_buf(),
        problem,
    };
    let builder = columns::open_parquet(file)?;
    let metadata: BTreeMap<String, String> = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter_map(|kv| Some((kv.key.clone(), kv.value.clone()?)))
        .collect();
    match metadata.get(FORMAT_KEY).map(String::as_str) {
        Some("fleet-rates") => {}
        Some(other) => {
            return Err(bad(format!(
                "a docsuggest `{other}` file, not fleet rates (`docsuggest fleet merge` writes those)"
            )));
        }
        None => {
            return Err(bad(
                "not a docsuggest fleet rates file (no docsuggest.format)".into(),
            ));
        }
    }
    if metadata.get(VERSION_KEY).map(String::as_str) != Some(FORMAT_VERSION) {
        return Err(bad(format!(
            "fleet rates of version {}, this build reads version {FORMAT_VERSION}",
            metadata.get(VERSION_KEY).map_or("(none)", String::as_str)
        )));
    }
    columns::check_schema(file, builder.schema(), &columns::rates())?;
    let model = metadata.get(MODEL_KEY).cloned().unwrap_or_default();
    let held = match metadata.get(HELD_KEY) {
        Some(json) => serde_json::from_str(json)
            .map_err(|e| bad(format!("its held marks do not read ({e})")))?,
        None => BTreeMap::new(),
    };
    let reader = builder
        .build()
        .map_err(|e| bad(format!("cannot be read ({e})")))?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| bad(format!("cannot be read ({e})")))?;
        let column = |name: &str| batch.column_by_name(name).cloned();
        let (Some(ws), Some(fam), Some(comp)) =
            (column("workspace"), column("family"), column("companion"))
        else {
            return Err(bad("a batch lacks its key columns".into()));
        };
        let int = |name: &str| -> Result<Vec<u64>, FleetError> {
            let array = column(name).ok_or_else(|| bad(format!("no column `{name}`")))?;
            let array = array
                .as_primitive_opt::<Int64Type>()
                .ok_or_else(|| bad(format!("column `{name}` is not Int64")))?;
            (0..array.len())
                .map(|i| {
                    u64::try_from(array.value(i)).map_err(|_| bad(format!("a negative `{name}`")))
                })
                .collect()
        };
        let float = |name: &str| -> Result<Vec<f64>, FleetError> {
            let array = column(name).ok_or_else(|| bad(format!("no column `{name}`")))?;
            let array = array
                .as_primitive_opt::<Float64Type>()
                .ok_or_else(|| bad(format!("column `{name}` is not Float64")))?;
            Ok((0..array.len()).map(|i| array.value(i)).collect())
        };
        let (accepts, rejects, hits, misses) = (
            int("accepts")?,
            int("rejects")?,
            int("shadow_hits")?,
            int("shadow_misses")?,
        );
        let (step, recent_hits, recent_misses) = (
            float("step")?,
            float("recent_hits")?,
            float("recent_misses")?,
        );
        let text = |array: &datafusion::arrow::array::ArrayRef, name: &str| {
            array
                .as_string_opt::<i32>()
                .cloned()
                .ok_or_else(|| bad(format!("column `{name}` is not Utf8")))
        };
        let (ws, fam, comp) = (
            text(&ws, "workspace")?,
            text(&fam, "family")?,
            text(&comp, "companion")?,
        );
        for i in 0..batch.num_rows() {
            let row = RateRow {
                step: step[i],
                accepts: accepts[i],
                rejects: rejects[i],
                shadow_hits: hits[i],
                shadow_misses: misses[i],
                recent_hits: recent_hits[i],
                recent_misses: recent_misses[i],
            };
            if !row.step.is_finite()
                || !(0.0..=1.0).contains(&row.step)
                || !row.recent_hits.is_finite()
                || !row.recent_misses.is_finite()
                || row.recent_hits < 0.0
                || row.recent_misses < 0.0
            {
                return Err(bad(format!(
                    "the row of {}/{}/{} is out of range",
                    ws.value(i),
                    fam.value(i),
                    comp.value(i)
                )));
            }
            rows.push((
                RateKey::companion(ws.value(i), fam.value(i), comp.value(i)),
                row,
            ));
        }
    }
    Ok(FleetRates { rows, held, model })
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
    let held_through = match store.drawn_store_id()? {
        Some(id) => fleet
            .held
            .get(&columns::store_id_text(id))
            .and_then(|n| u64::try_from(*n).ok()),
        None => None,
    };
    let seeded = store.seed_base(&wanted, &fleet.rows, held_through)?;
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
