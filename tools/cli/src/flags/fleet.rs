//! Fleet learning (docs/FLEET.md): `export --format parquet`, `fleet merge` and
//! `import --rates`, over the fleet crate.

use super::output::{Json, emit};
use anyhow::Result;
use clap::Subcommand;
use docsuggest_cli::fleet_merge::{MergeArgs, hand_over};
use docsuggest_fleet::export::{ExportOptions, export};
use docsuggest_fleet::seed::{SeedOptions, seed};
use docsuggest_host::host;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum FleetCommand {
    /// Merge many machines' Parquet exports (DataFusion) into the fleet's rate rows, written
    /// as Parquet for `docsuggest import --rates`.
    Merge(MergeArgs),
}

/// `docsuggest fleet …`: the merge runs in `docsuggest-fleet` (DataFusion lives there only).
pub fn fleet(command: &FleetCommand) -> Result<ExitCode> {
    match command {
        FleetCommand::Merge(args) => Ok(hand_over(args)?),
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
