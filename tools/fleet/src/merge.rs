//! `docsuggest fleet merge DIR... --out FILE`: many machines' exports, merged with DataFusion
//! into the fleet's rate rows.
//!
//! DataFusion reads the `moves-*.parquet` below the directories that the last merge's state
//! (`--state`) does not say were merged, and runs [`MERGE_SQL`]: per rate key the events and
//! steps in one order — store id, run, resolution number, move number — folded run by run
//! (continuing the state's partials, a repeated move skipped) through `RateRow::apply`, the
//! function every store applies live, and each key's runs combined in order: the counts of
//! one store that saw every run in turn, the recent evidence and the step aged and clamped as
//! a store ages and clamps them. The rows, in key order, with their rate under `--model`, are
//! written as Parquet with what the merge held per store and run (for the import, which must
//! not count a store's own exported history twice), and the state beside them.

use crate::FleetError;
use crate::columns::{self, HELD_KEY, MODEL_KEY, MOVES_PREFIX};
use crate::coverage::{Coverage, Standing};
use crate::merge_fold::KeyFold;
use datafusion::arrow::array::{
    ArrayRef, Float64Builder, Int64Builder, RecordBatch, StringBuilder,
};
use docsuggest_schema::{RateKey, RateModel, RateRow};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The merge, as DataFusion runs it over the table `moves` (every export's moves files): each
/// key's moves in one order — store id, run, resolution number, move number (event and step
/// only order two different moves under one identity, which the fold refuses) — folded run
/// by run as they stream by
/// ([`crate::merge_fold`]). The sort spills to disk past the memory limit, so a merge's memory does
/// not grow with the fleet. The same text runs on Ballista or Spark SQL (docs/FLEET.md).
pub const MERGE_SQL: &str = "\
SELECT workspace, family, companion, store_id, run, resolution_seq, move_index, event, step
FROM moves
ORDER BY workspace, family, companion, store_id, run, resolution_seq, move_index, event, step";

/// The memory the merge query may hold before its sort spills to disk, by default.
pub const DEFAULT_MEMORY_LIMIT: usize = 1 << 30;

/// How deep below an input directory exports are looked for (`DIR/<workspace>/moves-…`, or
/// a few machines' directories below one).
const MAX_DEPTH: usize = 4;

/// What to merge.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    /// The directories holding exports.
    pub inputs: Vec<PathBuf>,
    /// The rates file to write.
    pub out: PathBuf,
    /// The model the `rate` column is computed under.
    pub model: RateModel,
    /// The memory the query may hold (bytes) before its sort spills to the temporary
    /// directory ([`DEFAULT_MEMORY_LIMIT`]).
    pub memory_limit: usize,
    /// The merge's state: continued from when the file exists, written after (`--state`).
    pub state: Option<PathBuf>,
}

/// What a merge read and wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Merged {
    /// Moves files found.
    pub files: usize,
    /// Those read (the others the previous merge had folded whole).
    pub read: usize,
    /// Stores whose exports were merged.
    pub stores: usize,
    /// Their runs (a store's handles that resolved anything: a copy of a store file runs
    /// apart from its original).
    pub runs: usize,
    /// Distinct moves this merge folded (onto the previous merge's, with `--state`).
    pub moves: u64,
    /// Rate rows written.
    pub rows: usize,
    /// Workspace keys among them.
    pub workspaces: usize,
    /// What the sort wrote to the temporary directory past the memory limit.
    #[serde(flatten)]
    pub spilled: Spills,
    /// The file written.
    pub out: String,
    /// The state written, if any.
    pub state: Option<String>,
}

/// What a merge's sort spilled to disk.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Spills {
    /// Sorted runs written.
    pub spills: usize,
    /// Their bytes.
    pub spilled_bytes: usize,
}

impl std::ops::AddAssign for Spills {
    fn add_assign(&mut self, other: Spills) {
        self.spills += other.spills;
        self.spilled_bytes += other.spilled_bytes;
    }
}

impl std::fmt::Display for Merged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "merged {} moves of {} stores ({} files) into {} rate rows of {} workspaces: {}",
            self.moves, self.stores, self.files, self.rows, self.workspaces, self.out
        )?;
        if self.spilled.spills > 0 {
            writeln!(
                f,
                "the sort spilled {} runs ({:.1} MiB) past --memory-mib",
                self.spilled.spills,
                self.spilled.spilled_bytes as f64 / f64::from(1 << 20)
            )?;
        }
        Ok(())
    }
}

/// Merges the exports below `options.inputs` into `options.out`.
pub fn merge(options: &MergeOptions) -> Result<Merged, FleetError> {
    let (previous, merged) = match options.state.as_deref().filter(|f| f.exists()) {
        Some(file) => crate::state::read(file)?,
        None => (Vec::new(), Coverage::default()),
    };
    let files = export_files(&options.inputs)?;
    // What each file covers is in its metadata: a file the previous merge folded whole is
    // left unread, one that comes too late refuses the merge, and every other one is read
    // whole and checked (one at a time) before the query reads any.
    let mut coverage = merged.clone();
    let mut fresh = Vec::new();
    for file in &files {
        let (head, opened) = crate::verify::moves_head(file)?;
        let mut new = false;
        for (run, &(first, last)) in &head.runs {
            let of = (head.workspace.clone(), head.store_id.clone(), run.clone());
            match merged.standing(&of, first, last) {
                Standing::Merged => {}
                Standing::New => new = true,
                Standing::Late => {
                    return Err(FleetError::Late {
                        file: file.clone(),
                        store: head.store_id,
                        run: run.clone(),
                        first,
                        last,
                    });
                }
            }
        }
        if !new {
            continue;
        }
        head.check(opened)?;
        for (run, &(first, last)) in &head.runs {
            let of = (head.workspace.clone(), head.store_id.clone(), run.clone());
            coverage.add(of, first, last);
        }
        fresh.push(file.clone());
    }
    let mut fold = KeyFold::new(previous, merged);
    let mut spilled = Spills::default();
    if !fresh.is_empty() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .build()
            .map_err(|source| FleetError::Io {
                doing: "starting the query runtime for",
                path: options.out.clone(),
                source,
            })?;
        spilled = match runtime.block_on(query::run(&fresh, options.memory_limit, &mut fold)) {
            Ok(spilled) => spilled,
            Err(FleetError::Query(error)) => {
                return Err(runtime
                    .block_on(query::unreadable(&fresh))
                    .unwrap_or(FleetError::Query(error)));
            }
            Err(other) => return Err(other),
        };
    }
    let moves = fold.moves;
    let (rows, partials) = fold.finish_all();
    // Per store, per run, the last resolution merged (of any workspace).
    let mut held: BTreeMap<&str, BTreeMap<&str, i64>> = BTreeMap::new();
    for ((_, store, run), ranges) in coverage.iter() {
        let last = ranges.last().map_or(0, |&(_, last)| last);
        let mark = held.entry(store).or_default().entry(run).or_default();
        *mark = (*mark).max(last);
    }
    let runs = held.values().map(BTreeMap::len).sum();
    let held_json = serde_json::to_string(&held).unwrap_or_else(|_| "{}".into());
    let batch = rates_batch(&rows, options.model)?;
    crate::export::write(
        &options.out,
        &batch,
        "fleet-rates",
        &[
            (MODEL_KEY, columns::model_name(options.model)),
            (HELD_KEY, held_json),
        ],
    )?;
    if let Some(state) = &options.state {
        crate::state::write(state, &partials, &coverage)?;
    }
    let workspaces: std::collections::BTreeSet<&str> =
        rows.iter().map(|(k, _)| k.workspace.as_str()).collect();
    Ok(Merged {
        files: files.len(),
        read: fresh.len(),
        stores: held.len(),
        runs,
        moves,
        rows: rows.len(),
        workspaces: workspaces.len(),
        spilled,
        out: options.out.display().to_string(),
        state: options.state.as_ref().map(|s| s.display().to_string()),
    })
}

fn rates_batch(rows: &[(RateKey, RateRow)], model: RateModel) -> Result<RecordBatch, FleetError> {
    let (mut workspace, mut family, mut companion) = (
        StringBuilder::new(),
        StringBuilder::new(),
        StringBuilder::new(),
    );
    let floats = || Float64Builder::with_capacity(rows.len());
    let (mut step, mut recent_hits, mut recent_misses, mut rate) =
        (floats(), floats(), floats(), floats());
    let ints = || Int64Builder::with_capacity(rows.len());
    let (mut accepts, mut rejects, mut shadow_hits, mut shadow_misses) =
        (ints(), ints(), ints(), ints());
    let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    for (key, row) in rows {
        workspace.append_value(&key.workspace);
        family.append_value(&key.family);
        companion.append_value(&key.companion);
        step.append_value(row.step);
        accepts.append_value(int(row.accepts));
        rejects.append_value(int(row.rejects));
        shadow_hits.append_value(int(row.shadow_hits));
        shadow_misses.append_value(int(row.shadow_misses));
        recent_hits.append_value(row.recent_hits);
        recent_misses.append_value(row.recent_misses);
        rate.append_value(row.rate(model));
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(workspace.finish()),
        Arc::new(family.finish()),
        Arc::new(companion.finish()),
        Arc::new(step.finish()),
        Arc::new(accepts.finish()),
        Arc::new(rejects.finish()),
        Arc::new(shadow_hits.finish()),
        Arc::new(shadow_misses.finish()),
        Arc::new(recent_hits.finish()),
        Arc::new(recent_misses.finish()),
        Arc::new(rate.finish()),
    ];
    crate::export::batch(columns::rates(), columns)
}

/// Every moves file below the input directories (symlinks are not followed).
fn export_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, FleetError> {
    let mut files = Vec::new();
    for dir in inputs {
        let meta = std::fs::metadata(dir).map_err(|source| FleetError::Io {
            doing: "reading",
            path: dir.clone(),
            source,
        })?;
        if !meta.is_dir() {
            return Err(FleetError::BadFile {
                file: dir.clone(),
                problem: "not a directory of exports".into(),
            });
        }
        collect(dir, 0, &mut files)?;
    }
    if files.is_empty() {
        let shown: Vec<String> = inputs.iter().map(|d| d.display().to_string()).collect();
        return Err(FleetError::NoExports(shown.join(", ")));
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn collect(dir: &Path, depth: usize, files: &mut Vec<PathBuf>) -> Result<(), FleetError> {
    let read = |source| FleetError::Io {
        doing: "reading",
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(read)? {
        let entry = entry.map_err(read)?;
        let kind = entry.file_type().map_err(read)?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if kind.is_dir() && depth < MAX_DEPTH {
            collect(&path, depth + 1, files)?;
        } else if kind.is_file() && name.starts_with(MOVES_PREFIX) && name.ends_with(".parquet") {
            files.push(path);
        }
    }
    Ok(())
}

mod query;

#[cfg(test)]
mod tests;
