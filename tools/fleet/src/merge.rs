//! `docsuggest fleet merge DIR... --out FILE`: many machines' exports, merged with DataFusion
//! into the fleet's rate rows.
//!
//! DataFusion reads every `moves-*.parquet` below the directories and runs [`MERGE_SQL`]: the
//! moves deduplicated (an export given twice counts once), then per rate key the events and
//! steps in one order — store id, resolution number, move number. Each key's lists are folded
//! here through `RateRow::apply`, the function every store applies live, so the fleet's row is
//! the row one store would hold had it seen every machine's history in that order: counts the
//! sums of the machines' counts, the recent evidence and the step aged and clamped as a store
//! ages and clamps them. The rows, in key order, with their rate under `--model`, are written
//! as Parquet with what the merge held per store (for the import, which must not count a
//! store's own exported history twice).

use crate::FleetError;
use crate::columns::{self, HELD_KEY, MODEL_KEY, MOVES_PREFIX};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Builder, Int64Builder, ListArray, PrimitiveArray, RecordBatch,
    StringArray, StringBuilder,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use docsuggest_schema::{RateKey, RateModel, RateMove, RateRow};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The merge, as DataFusion runs it over the table `moves` (every export's moves files); the
/// same text runs on Ballista or Spark SQL (docs/FLEET.md).
pub const MERGE_SQL: &str = "\
SELECT workspace, family, companion,
       array_agg(event ORDER BY store_id, resolution_seq, move_index) AS events,
       array_agg(step ORDER BY store_id, resolution_seq, move_index) AS steps
FROM (SELECT DISTINCT store_id, resolution_seq, move_index, workspace, family, companion, event, step
      FROM moves) AS m
GROUP BY workspace, family, companion
ORDER BY workspace, family, companion";

/// What each store's exports hold: the last resolution number, and how many distinct moves.
pub const HELD_SQL: &str = "\
SELECT store_id, max(resolution_seq) AS through, count(*) AS moves
FROM (SELECT DISTINCT store_id, resolution_seq, move_index FROM moves) AS m
GROUP BY store_id
ORDER BY store_id";

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
}

/// What a merge read and wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Merged {
    /// Moves files read.
    pub files: usize,
    /// Stores whose exports were merged.
    pub stores: usize,
    /// Distinct moves merged.
    pub moves: u64,
    /// Rate rows written.
    pub rows: usize,
    /// Workspace keys among them.
    pub workspaces: usize,
    /// The file written.
    pub out: String,
}

impl std::fmt::Display for Merged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "merged {} moves of {} stores ({} files) into {} rate rows of {} workspaces: {}",
            self.moves, self.stores, self.files, self.rows, self.workspaces, self.out
        )
    }
}

/// Merges the exports below `options.inputs` into `options.out`.
pub fn merge(options: &MergeOptions) -> Result<Merged, FleetError> {
    let files = export_files(&options.inputs)?;
    for file in &files {
        check_moves_file(file)?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .build()
        .map_err(|source| FleetError::Io {
            doing: "starting the query runtime for",
            path: options.out.clone(),
            source,
        })?;
    let (merged, held) = runtime.block_on(query(&files))?;
    let mut rows = Vec::new();
    for batch in &merged {
        fold_batch(batch, &mut rows)?;
    }
    let mut held_marks = BTreeMap::new();
    let mut moves = 0u64;
    for batch in &held {
        let ids = text(batch.column(0))?;
        let ids = strings(&ids)?;
        let through = int64(batch.column(1))?;
        let count = int64(batch.column(2))?;
        for i in 0..batch.num_rows() {
            held_marks.insert(ids.value(i).to_string(), through.value(i));
            moves += u64::try_from(count.value(i)).unwrap_or(0);
        }
    }
    let held_json = serde_json::to_string(&held_marks).unwrap_or_else(|_| "{}".into());
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
    let workspaces: std::collections::BTreeSet<&str> =
        rows.iter().map(|(k, _)| k.workspace.as_str()).collect();
    Ok(Merged {
        files: files.len(),
        stores: held_marks.len(),
        moves,
        rows: rows.len(),
        workspaces: workspaces.len(),
        out: options.out.display().to_string(),
    })
}

async fn query(files: &[PathBuf]) -> Result<(Vec<RecordBatch>, Vec<RecordBatch>), FleetError> {
    // Strings as plain Utf8 (DataFusion reads Parquet strings as views by default).
    let config = SessionConfig::new().set_bool(
        "datafusion.execution.parquet.schema_force_view_types",
        false,
    );
    let ctx = SessionContext::new_with_config(config);
    let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let moves = ctx
        .read_parquet(paths, ParquetReadOptions::default())
        .await?;
    ctx.register_table("moves", moves.into_view())?;
    let merged = ctx.sql(MERGE_SQL).await?.collect().await?;
    let held = ctx.sql(HELD_SQL).await?.collect().await?;
    Ok((merged, held))
}

/// Folds each key's ordered events and steps of one result batch.
fn fold_batch(batch: &RecordBatch, rows: &mut Vec<(RateKey, RateRow)>) -> Result<(), FleetError> {
    let (workspace, family, companion) = (
        text(batch.column(0))?,
        text(batch.column(1))?,
        text(batch.column(2))?,
    );
    let (workspace, family, companion) = (
        strings(&workspace)?,
        strings(&family)?,
        strings(&companion)?,
    );
    let events = list(batch.column(3))?;
    let steps = list(batch.column(4))?;
    for i in 0..batch.num_rows() {
        let key = RateKey::companion(workspace.value(i), family.value(i), companion.value(i));
        let names = text(&events.value(i))?;
        let names = strings(&names)?;
        let deltas = steps.value(i);
        let deltas = deltas
            .as_primitive_opt::<Float64Type>()
            .ok_or_else(|| unexpected("steps"))?;
        let mut row = RateRow::default();
        for j in 0..names.len() {
            let event = columns::event_of(names.value(j)).ok_or_else(|| FleetError::BadFile {
                file: PathBuf::from("(the merged moves)"),
                problem: format!(
                    "a move of {}/{}/{} has the unknown event {:?}",
                    key.workspace,
                    key.family,
                    key.companion,
                    names.value(j)
                ),
            })?;
            let mv = RateMove {
                key: key.clone(),
                event,
                step: deltas.value(j),
            };
            row = row.apply(&mv);
        }
        rows.push((key, row));
    }
    Ok(())
}

/// A result column the query was expected to shape otherwise (a bug, not bad input).
fn unexpected(what: &str) -> FleetError {
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

fn int64(array: &ArrayRef) -> Result<&PrimitiveArray<Int64Type>, FleetError> {
    array
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| unexpected("a count"))
}

fn list(array: &ArrayRef) -> Result<&ListArray, FleetError> {
    array
        .as_list_opt::<i32>()
        .ok_or_else(|| unexpected("a list"))
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
    RecordBatch::try_new(columns::rates(), columns)
        .map_err(|e| FleetError::Query(Box::new(e.into())))
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

/// Opens a moves file's footer: a truncated or foreign file is refused by name before the
/// query runs.
fn check_moves_file(file: &Path) -> Result<(), FleetError> {
    let builder = columns::open_parquet(file)?;
    columns::check_schema(file, builder.schema(), &columns::moves())
}
