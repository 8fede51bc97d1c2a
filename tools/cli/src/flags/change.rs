//! `docsuggest check-change`: what a whole change lacks (`docsuggest_cli::check_change`).

use super::output::{Json, emit};
use anyhow::Result;
use clap::Args;
use docsuggest_cli::check_change::{ANSWER_LIMIT, ChangeSet, check};
use docsuggest_cli::mcp::reach::Reach;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct CheckChangeArgs {
    /// Check these files instead of the work tree's changes.
    #[arg(value_name = "PATH", conflicts_with_all = ["staged", "since"])]
    paths: Vec<PathBuf>,
    /// Check the staged changes (what `git commit` would commit).
    #[arg(long, conflicts_with = "since")]
    staged: bool,
    /// Check the changes since REV (committed or not).
    #[arg(long, value_name = "REV")]
    since: Option<String>,
    /// Exit 1 when the change lacks a companion (a check in a hook or CI); a change that
    /// could not be checked exits 2 with or without it.
    #[arg(long)]
    strict: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Print nothing when the change lacks nothing (a hook on every commit).
    #[arg(long, conflicts_with = "json")]
    quiet: bool,
    /// The daemon's socket [default: ~/.dsh/playform/docsuggest.sock, the hooks' daemon].
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// The store a daemon started here opens [default: the config's storePath].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
}

/// The exit code of a change that could not be checked (git failed, the pack cannot be used
/// or is still being mined): apart from 1, a change that lacks companions under `--strict`.
const CANNOT_CHECK: u8 = 2;

/// `docsuggest check-change`.
pub fn check_change(args: &CheckChangeArgs) -> Result<ExitCode> {
    let set = match (&args.since, args.staged, args.paths.is_empty()) {
        (Some(rev), _, _) => ChangeSet::Since(rev.clone()),
        (None, true, _) => ChangeSet::Staged,
        (None, false, false) => ChangeSet::Paths(args.paths.clone()),
        (None, false, true) => ChangeSet::WorkTree,
    };
    let reach = Reach::new(
        args.socket
            .clone()
            .unwrap_or_else(docsuggest_cli::hook::default_socket),
        args.store.clone(),
        Duration::from_secs(5),
        Duration::from_secs(1800),
    );
    let report = match check(&std::env::current_dir()?, &set, &reach) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("docsuggest check-change: {e}");
            return Ok(ExitCode::from(CANNOT_CHECK));
        }
    };
    let lacking = !report.missing.is_empty();
    let failed = !report.errors.is_empty();
    if lacking || failed || !args.quiet {
        // An agent runs this command too: its text is bounded as a hook's answer is; the
        // JSON, for scripts, is whole.
        let text = report.clone().bounded(ANSWER_LIMIT);
        emit(args.json.then_some(Json::Pretty), &report, &text)?;
    }
    Ok(if failed {
        ExitCode::from(CANNOT_CHECK)
    } else if args.strict && lacking {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
