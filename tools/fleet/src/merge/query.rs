//! Running [`MERGE_SQL`] over any number of export files within a fixed number of open
//! descriptors and the memory limit.
//!
//! A DataFusion query holds every input file open at once (and some 50 KB of each outside its
//! memory pool), so a fleet's years of hourly exports would fail on the descriptor limit. Past
//! [`FILES_PER_QUERY`] files the merge goes in levels: each group of files is sorted by the
//! query into one file of the scratch directory, and the sorted files are merged again (as
//! sorted inputs, which DataFusion merges without sorting them again) until one query can read
//! them all; the last one streams into the fold. The rows are those of one query over every
//! file: the order is total, and duplicates stay adjacent through every level.

use super::{MERGE_SQL, Spills};
use crate::FleetError;
use crate::merge_fold::KeyFold;
use datafusion::execution::memory_pool::FairSpillPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::logical_expr::SortExpr;
use datafusion::physical_plan::{ExecutionPlan, execute_stream};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext, col};
use futures::StreamExt;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most files one query reads: with its spill files and the process's own, a merge stays
/// well within 256 descriptors.
pub(crate) const FILES_PER_QUERY: usize = 64;

/// The columns of [`MERGE_SQL`]'s `ORDER BY`, in order.
const ORDER: [&str; 9] = [
    "workspace",
    "family",
    "companion",
    "store_id",
    "run",
    "resolution_seq",
    "move_index",
    "event",
    "step",
];

/// The merge query over `files`, streamed into `merge_fold`; answers what the sorts spilled.
pub(super) async fn run(
    files: &[PathBuf],
    memory_limit: usize,
    fold: &mut KeyFold,
) -> Result<Spills, FleetError> {
    let scratch = tempfile::tempdir().map_err(|source| FleetError::Io {
        doing: "creating a scratch directory for the merge in",
        path: std::env::temp_dir(),
        source,
    })?;
    let mut spilled = Spills::default();
    let mut inputs = files.to_vec();
    let mut sorted = false;
    let mut level = 0;
    while inputs.len() > FILES_PER_QUERY {
        let mut next = Vec::with_capacity(inputs.len().div_ceil(FILES_PER_QUERY));
        for (i, group) in inputs.chunks(FILES_PER_QUERY).enumerate() {
            let out = scratch.path().join(format!("sorted-{level}-{i}.parquet"));
            spilled += sort_into(group, sorted, memory_limit, &out).await?;
            next.push(out);
        }
        if sorted {
            // The previous level's own files, merged now.
            for file in &inputs {
                let _ = std::fs::remove_file(file);
            }
        }
        (inputs, sorted, level) = (next, true, level + 1);
    }
    let ctx = session(memory_limit, &inputs, sorted).await?;
    let frame = ctx.sql(MERGE_SQL).await?;
    let task = Arc::new(frame.task_ctx());
    let plan = frame.create_physical_plan().await?;
    let mut stream = execute_stream(Arc::clone(&plan), task)?;
    while let Some(batch) = stream.next().await {
        fold.batch(&batch?)?;
    }
    spilled += spills(plan.as_ref());
    Ok(spilled)
}

/// A session over `files` registered as the table `moves`, its sorts spilling past
/// `memory_limit`; files of a previous level are declared sorted, each its own partition, so
/// they are merged as they stream rather than sorted again.
async fn session(
    memory_limit: usize,
    files: &[PathBuf],
    sorted: bool,
) -> Result<SessionContext, FleetError> {
    // What each sort keeps back for merging its spilled runs (a batch of each): a quarter of
    // the limit, so the runs a limit makes can be merged within it.
    let merge_reserve = memory_limit / 4;
    let mut config = SessionConfig::new()
        // Strings as plain Utf8 (DataFusion reads Parquet strings as views by default).
        .set_bool(
            "datafusion.execution.parquet.schema_force_view_types",
            false,
        )
        .set_usize(
            "datafusion.execution.sort_spill_reservation_bytes",
            merge_reserve,
        )
        // The pages are read as the check read them, in order, not located through the page
        // index (which the merge, filtering nothing, has no use for and the check never read).
        .set_bool("datafusion.execution.parquet.enable_page_index", false);
    if sorted {
        config = config
            .with_target_partitions(files.len().max(1))
            .with_repartition_file_scans(false);
    }
    // Fair shares: what cannot spill (merging sorted runs) is served first, the sorts share
    // the rest and spill to the temporary directory when their share is full.
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(FairSpillPool::new(memory_limit)))
        .build_arc()?;
    let ctx = SessionContext::new_with_config_rt(config, runtime);
    let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut options = ParquetReadOptions::default();
    if sorted {
        let order: Vec<SortExpr> = ORDER.iter().map(|c| col(*c).sort(true, false)).collect();
        options = options.file_sort_order(vec![order]);
    }
    let moves = ctx.read_parquet(paths, options).await?;
    ctx.register_table("moves", moves.into_view())?;
    Ok(ctx)
}

/// Runs the merge query over `files` into `out`, sorted, unfolded (one level).
async fn sort_into(
    files: &[PathBuf],
    sorted: bool,
    memory_limit: usize,
    out: &Path,
) -> Result<Spills, FleetError> {
    let ctx = session(memory_limit, files, sorted).await?;
    let frame = ctx.sql(MERGE_SQL).await?;
    let task = Arc::new(frame.task_ctx());
    let plan = frame.create_physical_plan().await?;
    let mut stream = execute_stream(Arc::clone(&plan), task)?;
    let failed = |source| FleetError::Io {
        doing: "writing",
        path: out.to_path_buf(),
        source,
    };
    let wrote = |source| FleetError::Write {
        file: out.to_path_buf(),
        source,
    };
    let handle = std::fs::File::create(out).map_err(failed)?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut writer =
        ArrowWriter::try_new(handle, plan.schema(), Some(properties)).map_err(wrote)?;
    while let Some(batch) = stream.next().await {
        writer.write(&batch?).map_err(wrote)?;
    }
    writer.close().map_err(wrote)?;
    Ok(spills(plan.as_ref()))
}

/// The file the query could not read, when the query failed: each is read alone as the query
/// reads it (the check reads pages its own way, and a damaged page locator can pass it).
pub(super) async fn unreadable(files: &[PathBuf]) -> Option<FleetError> {
    let ctx = SessionContext::new();
    for file in files {
        let read = async {
            let frame = ctx
                .read_parquet(file.display().to_string(), ParquetReadOptions::default())
                .await?;
            let mut stream = frame.execute_stream().await?;
            while let Some(batch) = stream.next().await {
                batch?;
            }
            Ok::<(), datafusion::error::DataFusionError>(())
        };
        if let Err(e) = read.await {
            return Some(FleetError::BadFile {
                file: file.clone(),
                problem: format!("damaged: cannot be read ({e})"),
            });
        }
    }
    None
}

/// The spills of every operator of a finished plan: how many, and their bytes.
fn spills(plan: &dyn ExecutionPlan) -> Spills {
    let own = plan.metrics().map_or(Spills::default(), |m| Spills {
        spills: m.spill_count().unwrap_or(0),
        spilled_bytes: m.spilled_bytes().unwrap_or(0),
    });
    plan.children().into_iter().fold(own, |mut sum, child| {
        sum += spills(child.as_ref());
        sum
    })
}
