//! Fleet learning (docs/FLEET.md): `export --format parquet`, `fleet merge` and
//! `import --rates`, each handed to `docsuggest-fleet` (`docsuggest_cli::fleet_bin`).

use anyhow::Result;
use clap::Subcommand;
use docsuggest_cli::fleet_bin::{self, FleetCommand as Handed, MergeArgs, hand_over};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum FleetCommand {
    /// Merge many machines' Parquet exports (DataFusion) into the fleet's rate rows, written
    /// as Parquet for `docsuggest import --rates`.
    Merge(MergeArgs),
}

/// `docsuggest fleet …`.
pub fn fleet(command: &FleetCommand) -> Result<ExitCode> {
    match command {
        FleetCommand::Merge(args) => Ok(hand_over(&Handed::Merge(args.clone()))?),
    }
}

/// `docsuggest export --format parquet --out DIR [--since SEQ]`.
pub fn export_parquet(
    store: Option<&Path>,
    out: &Path,
    since: Option<u64>,
    json: bool,
) -> Result<ExitCode> {
    Ok(hand_over(&Handed::Export(fleet_bin::ExportArgs {
        store: store.map(Path::to_path_buf),
        out: out.to_path_buf(),
        since,
        json,
    }))?)
}

/// `docsuggest import --rates FILE [--workspace DIR]...`.
pub fn import_rates(
    rates: &Path,
    store: Option<&Path>,
    workspaces: &[PathBuf],
    config: Option<&Path>,
    json: bool,
) -> Result<ExitCode> {
    Ok(hand_over(&Handed::Import(fleet_bin::ImportArgs {
        rates: rates.to_path_buf(),
        store: store.map(Path::to_path_buf),
        workspace: workspaces.to_vec(),
        config: config.map(Path::to_path_buf),
        json,
    }))?)
}
