//! The command line: one module per group of subcommands, each holding its arguments and the
//! function that runs them over the library (the model is ripgrep's `crates/core/flags/`).

use anyhow::Result;
use clap::{Parser, Subcommand};

mod change;
mod engine;
mod fleet;
mod git;
mod hooks;
mod output;
mod report;
mod status;
mod store;

pub use hooks::refused;
pub use output::is_broken_pipe;

/// The doc-companion suggester's host: serve the JSON-lines protocol, replay traces, run the
/// demo, and inspect the learned store.
#[derive(Parser)]
#[command(name = "docsuggest", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Serve the JSON-lines protocol on stdin/stdout until `close`, end of input or SIGTERM;
    /// with --socket, to many clients over a Unix socket until SIGTERM or SIGINT.
    Serve(engine::ServeArgs),
    /// Run a trace (a file of request lines) and print a summary.
    Replay(engine::ReplayArgs),
    /// Build a sample workspace, simulate an agent session, and show what was learned.
    Demo(engine::DemoArgs),
    /// Show learned rate rows.
    Rates(store::RatesArgs),
    /// Show the resolved decision history.
    History(store::HistoryArgs),
    /// Check redb integrity and live == fold(base, history); exits 1 on failure.
    Check(store::CheckArgs),
    /// Open the store, upgrading an older schema after copying the file aside.
    Migrate(store::StoreArg),
    /// Rebuild every rate row from base + history and report drift; --write swaps them in.
    Recompute(store::RecomputeArgs),
    /// Replay the history under the defaults and another config; report precision and recall.
    Evaluate(store::EvaluateArgs),
    /// Write the decision history as JSON lines (one HistoryEntry per line), or as Parquet for
    /// fleet learning (--format parquet).
    Export(store::ExportArgs),
    /// Import a history export, every line checked before anything is written; or seed base
    /// rows from a fleet's rates (--rates).
    Import(store::ImportArgs),
    /// Fleet learning: merge many machines' exports into the fleet's rates (docs/FLEET.md).
    #[command(subcommand)]
    Fleet(fleet::FleetCommand),
    /// Answer one Claude Code or Codex CLI hook event (stdin) through the socket daemon,
    /// starting it when none runs; always exits 0, silent on any problem.
    Hook(docsuggest_cli::hook::command::HookArgs),
    /// Add docsuggest's hooks to a harness's hook config, keeping everything else.
    InstallHooks(hooks::InstallArgs),
    /// Remove docsuggest's hooks (only ours) from a harness's hook config.
    UninstallHooks(hooks::ConfigArgs),
    /// Replay a git repository's history through the static engine (the config with
    /// `learn: false`) and the learning one, and score every note against what its commit
    /// changed, next to a co-change baseline.
    Backtest(git::BacktestArgs),
    /// Replay a git repository's history into a store, so learning starts from it.
    Bootstrap(git::BootstrapArgs),
    /// Mine a pack from the repository's own history and write it to .dsh/doc-pack.json.
    Init(git::InitArgs),
    /// Write one HTML page (charts and tables, nothing loaded from elsewhere) of the
    /// conventions found in a repository, how well notes did on its history out-of-sample, and
    /// what the store has learned there.
    Report(report::ReportArgs),
    /// Explain what the engine does for a directory or file, and why it may give no notes:
    /// workspace, pack, family, store, daemon, config and hooks.
    #[command(visible_alias = "explain")]
    Status(status::StatusArgs),
    /// List the companions the engine names for a change's files that the change lacks: the
    /// work tree's changes, --staged, --since REV, or paths; --strict exits 1 when any.
    CheckChange(change::CheckChangeArgs),
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
    Completions(status::CompletionsArgs),
    /// Serve the Model Context Protocol on stdin/stdout with three tools — `companions` (what
    /// the engine names for a path), `why_silent` (why a path gets no note) and `check_change`
    /// (what a whole change lacks) — asked of the hooks' daemon (started when none runs);
    /// records nothing.
    Mcp(docsuggest_cli::mcp::McpOptions),
    /// Mine a git work tree's pack for a host that links no git reader (the Node addon): the
    /// stored record (JSON, or null) on stdin; prints the new one, or null when it is current.
    #[command(hide = true)]
    MinePack(git::MinePackArgs),
}

/// Runs `command`; `hook` answers its exit status itself (it never fails the agent).
pub fn run(command: &Command) -> Result<std::process::ExitCode> {
    match command {
        Command::Serve(a) => engine::serve(a),
        Command::Replay(a) => engine::replay(a),
        Command::Demo(a) => engine::demo(a),
        Command::Rates(a) => store::rates(a),
        Command::History(a) => store::history(a),
        Command::Check(a) => store::check(a),
        Command::Migrate(a) => store::migrate(a),
        Command::Recompute(a) => store::recompute(a),
        Command::Evaluate(a) => store::evaluate(a),
        Command::Export(a) => return store::export(a),
        Command::Import(a) => return store::import(a),
        Command::Fleet(a) => return fleet::fleet(a),
        Command::Hook(a) => return Ok(hooks::hook(a)),
        Command::InstallHooks(a) => hooks::install(a),
        Command::UninstallHooks(a) => hooks::uninstall(a),
        Command::Backtest(a) => git::backtest(a),
        Command::Bootstrap(a) => git::bootstrap(a),
        Command::Init(a) => git::init(a),
        Command::Report(a) => report::report(a),
        Command::Status(a) => status::status(a),
        Command::CheckChange(a) => return change::check_change(a),
        Command::Completions(a) => status::completions(a),
        Command::Mcp(a) => docsuggest_cli::mcp::run(a).map_err(Into::into),
        Command::MinePack(a) => git::mine_pack(a),
    }?;
    Ok(std::process::ExitCode::SUCCESS)
}
