//! `docsuggest`: the command line over `docsuggest_cli`, `docsuggest_host` and
//! `docsuggest_history`. Each subcommand parses its arguments and calls one library function
//! (`flags/`); errors go to stderr with a non-zero exit.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod flags;

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    let cli = match flags::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return flags::refused(e),
    };
    // A log write never fails the process (the daemon's log may be on a full disk).
    docsuggest_cli::log_writer::init();
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
            // Not `eprintln!`, which panics when stderr fails (a full disk under the log).
            let _ = writeln!(std::io::stderr(), "docsuggest: error: {e}");
            ExitCode::FAILURE
        }
    }
}
