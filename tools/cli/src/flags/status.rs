//! `status` (what happens for a path, and why there are no notes) and `completions`.

use super::output::{Json, emit};
use anyhow::Result;
use clap::Args;
use docsuggest_cli::status::{self, StatusOptions};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct StatusArgs {
    /// The directory or file [default: the current directory].
    #[arg(default_value = ".", hide_default_value = true)]
    path: PathBuf,
    /// The redb store file [default: the config's storePath].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The config file a host is given (`serve --config`) [default: none, as the hooks'
    /// daemon runs].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The daemon's socket [default: ~/.dsh/playform/docsuggest.sock].
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `docsuggest status`.
pub fn status(args: &StatusArgs) -> Result<()> {
    let status = status::status(&StatusOptions {
        path: args.path.clone(),
        config_file: args.config.clone(),
        store: args.store.clone(),
        socket: args.socket.clone(),
    });
    emit(args.json.then_some(Json::Pretty), &status, &status)
}

/// `docsuggest completions SHELL`.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut super::Cli::command(),
        "docsuggest",
        &mut script,
    );
    std::io::stdout().lock().write_all(&script)?;
    Ok(())
}
