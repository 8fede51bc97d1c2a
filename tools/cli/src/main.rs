//! `docsuggest`: the command line over `docsuggest_cli`, `docsuggest_host` and
//! `docsuggest_history`. Each subcommand parses its arguments and calls one library function
//! (`flags/`); errors go to stderr with a non-zero exit.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod flags;

use clap::Parser;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn main() -> ExitCode {
    let cli = match flags::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return flags::refused(e),
    };
    init_tracing();
    // A damaged store file that makes redb panic is reported as one error line naming it
    // (`docsuggest_store::catch_damage`), without the panic message before it.
    docsuggest_store::quiet_caught_panics();
    // Hosts this process builds mine packs with its own git reader.
    docsuggest_host::mining::use_in_process(Arc::new(docsuggest_history::miner::GitMiner));
    match flags::run(&cli.command) {
        Ok(code) => code,
        // Nobody reads stdout any more: nothing is wrong worth saying.
        Err(e) if flags::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            // Each error's text already ends with its cause's (`…: No such file or directory`),
            // so the chain is not printed again.
            eprintln!("docsuggest: error: {e}");
            ExitCode::FAILURE
        }
    }
}
