//! `docsuggest-fleet`: the fleet merge on Apache DataFusion, in a binary of its own so that
//! `docsuggest` does not carry DataFusion (`docsuggest fleet merge` runs this).

/// The allocator of every docsuggest binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The one way a docsuggest command prints its report (pretty JSON is `docsuggest`'s only).
#[allow(dead_code)]
#[path = "flags/output.rs"]
mod output;

use clap::{Parser, Subcommand};
use docsuggest_cli::fleet_merge::{MergeArgs, merge};
use output::{Json, emit};
use std::process::ExitCode;

/// Fleet learning's merge (docs/FLEET.md); `docsuggest fleet merge` runs it.
#[derive(Parser)]
#[command(name = "docsuggest-fleet", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Merge many machines' Parquet exports (DataFusion) into the fleet's rate rows, written
    /// as Parquet for `docsuggest import --rates`.
    Merge(MergeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let Command::Merge(args) = &cli.command;
    let done = merge(args)
        .map_err(anyhow::Error::from)
        .and_then(|report| emit(args.json.then_some(Json::Line), &report, &report));
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Run as `docsuggest fleet merge`: its errors read as the command's.
            eprintln!("docsuggest: error: {e}");
            ExitCode::FAILURE
        }
    }
}
