//! `docsuggest-hook`: the hook's lean entry point. A harness starts one process per tool
//! call, so what a hook costs is mostly what starting its binary costs: this one links only
//! the hook's path (the event, the socket client, the change boundary) and keeps the system
//! allocator, whose start is free, where `docsuggest` starts mimalloc for its long-running
//! commands. It takes `docsuggest hook`'s arguments and runs the same library function; a
//! daemon it starts is the `docsuggest` installed beside it.

use clap::Parser;
use docsuggest_cli::hook::command::{self, HookArgs};
use std::path::PathBuf;
use std::process::ExitCode;

/// Answer one Claude Code or Codex CLI hook event (stdin) through the socket daemon, starting
/// it when none runs; always exits 0, silent on any problem (`docsuggest hook`, leaner).
#[derive(Parser)]
#[command(name = "docsuggest-hook", version)]
struct Cli {
    #[command(flatten)]
    args: HookArgs,
}

/// The `docsuggest` beside this executable, which serves the daemon (`None` when this
/// executable cannot be found: starting a daemon then fails, and the hook log says why).
fn docsuggest_beside() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let name = format!("docsuggest{}", std::env::consts::EXE_SUFFIX);
    Some(exe.parent()?.join(name))
}

fn main() -> ExitCode {
    match Cli::try_parse() {
        Ok(cli) => command::run(&cli.args, docsuggest_beside()),
        Err(e) => command::refused(e, "docsuggest-hook"),
    }
}
