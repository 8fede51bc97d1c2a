//! `docsuggest report`: the HTML report of a repository.

use super::output::{Json, emit};
use anyhow::Result;
use clap::Args;
use docsuggest_cli::report::{self, ReportOptions};
use docsuggest_history::init;
use std::path::PathBuf;

#[derive(Args)]
pub struct ReportArgs {
    /// A directory inside the git repository [default: the current directory].
    #[arg(default_value = ".", hide_default_value = true)]
    repo: PathBuf,
    /// Write the page here [default: .dsh/report.html in the work tree].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Open the page in the default browser once written.
    #[arg(long)]
    open: bool,
    /// The store whose learning the page shows [default: the configured store].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The tip of the history [default: HEAD].
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Read at most this many of the newest first-parent commits.
    #[arg(long, value_name = "N", default_value_t = init::MAX_MINED_COMMITS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_commits: u64,
    /// Print what was written as JSON.
    #[arg(long)]
    json: bool,
}

/// `docsuggest report`.
pub fn report(args: &ReportArgs) -> Result<()> {
    let written = report::report(&ReportOptions {
        repo: args.repo.clone(),
        out: args.out.clone(),
        store: args.store.clone(),
        rev: args.rev.clone(),
        max_commits: usize::try_from(args.max_commits).unwrap_or(usize::MAX),
    })?;
    let mut text = format!(
        "wrote {} ({} KiB): open it in a browser\n",
        written.file,
        written.bytes.div_ceil(1024)
    );
    if args.open
        && let Err(why) = report::open(std::path::Path::new(&written.file))
    {
        text.push_str(&format!("could not open it: {why}\n"));
    }
    emit(args.json.then_some(Json::Line), &written, &text)
}
