//! `docsuggest-fleet`: fleet learning's commands — Parquet export and import, the merge on
//! Apache DataFusion — in a binary of their own, so that `docsuggest` links none of Arrow,
//! Parquet or DataFusion (`docsuggest export --format parquet`, `import --rates` and `fleet
//! merge` run this).

/// The allocator of every docsuggest binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The one way a docsuggest command prints its report (pretty JSON is `docsuggest`'s only).
#[cfg(feature = "fleet")]
#[allow(dead_code)]
#[path = "flags/output.rs"]
mod output;

use clap::Parser;
use docsuggest_cli::fleet_bin::FleetCommand;
use std::process::ExitCode;

/// Fleet learning (docs/FLEET.md); `docsuggest` hands these commands to it.
#[derive(Parser)]
#[command(name = "docsuggest-fleet", version)]
struct Cli {
    #[command(subcommand)]
    command: FleetCommand,
}

/// Built without the `fleet` feature: the commands are not here; say how to get them.
#[cfg(not(feature = "fleet"))]
fn main() -> ExitCode {
    let cli = Cli::parse();
    eprintln!(
        "docsuggest: error: `{}` needs fleet learning, which this build leaves out; install it \
         with `cargo install --locked --path tools/cli --features fleet`",
        cli.command.typed()
    );
    ExitCode::FAILURE
}

#[cfg(feature = "fleet")]
fn main() -> ExitCode {
    use docsuggest_cli::fleet_bin::run;
    use output::{Json, emit};
    let cli = Cli::parse();
    // Workspace keys are the repository's identity, read as `docsuggest` reads it.
    docsuggest_host::mining::use_in_process(std::sync::Arc::new(
        docsuggest_history::miner::GitMiner,
    ));
    docsuggest_cli::log_writer::init();
    let json = cli.command.json();
    let done = run(&cli.command)
        .map_err(anyhow::Error::from)
        .and_then(|report| emit(json.then_some(Json::Line), &report, &report));
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Run for `docsuggest`: its errors read as the command's.
            eprintln!("docsuggest: error: {e}");
            ExitCode::FAILURE
        }
    }
}
