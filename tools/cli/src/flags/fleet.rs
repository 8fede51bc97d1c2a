//! Fleet learning (docs/FLEET.md): `export --format parquet`, `fleet merge` and
//! `import --rates`, over the fleet crate.

use super::output::{Json, emit};
use anyhow::Result;
use clap::{Args, Subcommand};
use docsuggest_fleet::export::{ExportOptions, export};
use docsuggest_fleet::merge::{DEFAULT_MEMORY_LIMIT, MergeOptions, merge};
use docsuggest_fleet::seed::{SeedOptions, seed};
use docsuggest_host::host;
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum FleetCommand {
    /// Merge many machines' Parquet exports (DataFusion) into the fleet's rate rows, written
    /// as Parquet for `docsuggest import --rates`.
    Merge(MergeArgs),
}

#[derive(Args)]
pub struct MergeArgs {
    /// Directories holding exports (`docsuggest export --format parquet --out DIR`).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// The rates file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The config whose `rateModel` the `rate` column is computed under (default: evidence).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The memory the merge query may hold before its sort spills to the temporary directory.
    #[arg(long, value_name = "MIB", default_value_t = (DEFAULT_MEMORY_LIMIT >> 20) as u64,
        value_parser = clap::value_parser!(u64).range(64..=1 << 40))]
    memory_mib: u64,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// `docsuggest fleet …`.
pub fn fleet(command: &FleetCommand) -> Result<()> {
    match command {
        FleetCommand::Merge(args) => {
            let config = host::load_config(args.config.as_deref())?;
            let report = merge(&MergeOptions {
                inputs: args.dirs.clone(),
                out: args.out.clone(),
                model: config.rate_model,
                memory_limit: usize::try_from(args.memory_mib << 20).unwrap_or(usize::MAX),
            })?;
            emit(args.json.then_some(Json::Line), &report, &report)
        }
    }
}

/// `docsuggest export --format parquet --out DIR [--since SEQ]`.
pub fn export_parquet(
    store: Option<&Path>,
    out: &Path,
    since: Option<u64>,
    json: bool,
) -> Result<()> {
    let report = export(&ExportOptions {
        store: store.map(Path::to_path_buf),
        out: out.to_path_buf(),
        since,
    })?;
    emit(json.then_some(Json::Line), &report, &report)
}

/// `docsuggest import --rates FILE [--workspace DIR]...`.
pub fn import_rates(
    rates: &Path,
    store: Option<&Path>,
    workspaces: &[PathBuf],
    config: Option<&Path>,
    json: bool,
) -> Result<()> {
    let config = host::load_config(config)?;
    let report = seed(&SeedOptions {
        rates: rates.to_path_buf(),
        store: store.map(Path::to_path_buf),
        workspaces: workspaces.to_vec(),
        model: config.rate_model,
    })?;
    emit(json.then_some(Json::Line), &report, &report)
}
