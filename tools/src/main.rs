//! `docsuggest`: the command line over `docsuggest_tools`. Each subcommand parses its
//! arguments and calls one library function; errors go to stderr with a non-zero exit.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use anyhow::{Result, bail};
use clap::{Args, Parser, Subcommand};
use docsuggest_host::host::{self, HostOptions, StoreChoice};
use docsuggest_host::ledger_log::LedgerLog;
use docsuggest_host::protocol::{self, Dispatcher, Reading};
use docsuggest_host::stores::{self, RatesFilter};
use docsuggest_tools::demo::{self, DemoOptions};
use docsuggest_tools::hook::{self, install, install::Scope};
use docsuggest_tools::inspect;
use docsuggest_tools::replay::{self, ReplayOptions};
use docsuggest_tools::{backtest, maintain, transfer};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// The doc-companion suggester's host: serve the JSON-lines protocol, replay traces, run the
/// demo, and inspect the learned store.
#[derive(Parser)]
#[command(name = "docsuggest", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the JSON-lines protocol on stdin/stdout until `close`, end of input or SIGTERM;
    /// with --socket, to many clients over a Unix socket until SIGTERM or SIGINT.
    Serve(ServeArgs),
    /// Run a trace (a file of request lines) and print a summary.
    Replay(ReplayArgs),
    /// Build a sample workspace, simulate an agent session, and show what was learned.
    Demo(DemoArgs),
    /// Show learned rate rows.
    Rates(RatesArgs),
    /// Show the resolved decision history.
    History(HistoryArgs),
    /// Check redb integrity and live == fold(base, history); exits 1 on failure.
    Check(CheckArgs),
    /// Open the store, upgrading an older schema after copying the file aside.
    Migrate(StoreArg),
    /// Rebuild every rate row from base + history and report drift; --write swaps them in.
    Recompute(RecomputeArgs),
    /// Replay the history under the defaults and another config; report precision and recall.
    Evaluate(EvaluateArgs),
    /// Write the decision history as JSON lines (one HistoryEntry per line).
    Export(ExportArgs),
    /// Import a history export; every line is checked before anything is written.
    Import(ImportArgs),
    /// Answer one Claude Code or Codex CLI hook event (stdin) through the socket daemon,
    /// starting it when none runs; always exits 0, silent on any problem.
    Hook(HookArgs),
    /// Add docsuggest's hooks to a harness's hook config, keeping everything else.
    InstallHooks(InstallArgs),
    /// Remove docsuggest's hooks (only ours) from a harness's hook config.
    UninstallHooks(InstallArgs),
    /// Replay a git repository's history through the static engine (the config with
    /// `learn: false`) and the learning one, and score every note against what its commit
    /// changed, next to a co-change baseline.
    Backtest(BacktestArgs),
    /// Replay a git repository's history into a store, so learning starts from it.
    Bootstrap(BootstrapArgs),
    /// Mine a pack from the repository's own history and write it to .dsh/doc-pack.json.
    Init(InitArgs),
    /// Explain what the engine does for a directory or file, and why it may give no notes:
    /// workspace, pack, family, store, daemon, config and hooks.
    Status(StatusArgs),
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Serve the Model Context Protocol on stdin/stdout: the companions of a path and why a
    /// path gets no note, asked of the hooks' daemon (started when none runs); records nothing.
    Mcp(docsuggest_tools::mcp::McpOptions),
    /// Mine a git work tree's pack for a host that links no git reader (the Node addon): the
    /// stored record (JSON, or null) on stdin; prints the new one, or null when it is current.
    #[command(hide = true)]
    MinePack(MinePackArgs),
}

#[derive(Args)]
struct MinePackArgs {
    /// The root of the git work tree.
    root: PathBuf,
}

#[derive(Args)]
struct InitArgs {
    /// A directory inside the git repository [default: the current directory].
    #[arg(default_value = ".", hide_default_value = true)]
    repo: PathBuf,
    /// The tip of the history mined [default: HEAD].
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Print the mined pack as JSON on stdout and write nothing.
    #[arg(long)]
    print: bool,
    /// Replace an existing .dsh/doc-pack.json.
    #[arg(long)]
    force: bool,
    /// Leave out the backtest of the mined pack from the report.
    #[arg(long)]
    no_backtest: bool,
    /// Mine at most this many of the newest first-parent commits.
    #[arg(long, value_name = "N", default_value_t = docsuggest_tools::init::MAX_MINED_COMMITS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_commits: u64,
    /// Print the report as JSON.
    #[arg(long, conflicts_with = "print")]
    json: bool,
}

#[derive(Args)]
struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(Args)]
struct StatusArgs {
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
struct HistoryOptions {
    /// The engine's config (a JSON patch over the defaults).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The tip of the first-parent history [default: HEAD].
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// Commits with more changed files are skipped.
    #[arg(long, value_name = "N", default_value_t = backtest::DEFAULT_MAX_FILES)]
    max_files: usize,
    /// Use this pack instead of the repository's `.dsh/doc-pack.json` at the tip.
    #[arg(long, value_name = "FILE")]
    pack: Option<PathBuf>,
    /// Also write the trace as protocol lines (run it with `replay --workspace REPO`).
    #[arg(long, value_name = "FILE")]
    trace_out: Option<PathBuf>,
}

impl HistoryOptions {
    fn options(&self, repo: &std::path::Path) -> backtest::Options {
        backtest::Options {
            repo: repo.to_path_buf(),
            config_file: self.config.clone(),
            rev: self.rev.clone(),
            max_files: self.max_files,
            pack_file: self.pack.clone(),
            trace_out: self.trace_out.clone(),
            ..backtest::Options::default()
        }
    }
}

#[derive(Args)]
struct BacktestArgs {
    /// The git repository [default: the current directory].
    #[arg(default_value = ".", hide_default_value = true)]
    repo: PathBuf,
    #[command(flatten)]
    history: HistoryOptions,
    /// The learning engine learns before this commit; every figure is over the commits after.
    #[arg(long, value_name = "REV", conflicts_with = "train_fraction")]
    since: Option<String>,
    /// The learning engine learns over this share of the kept commits first; every figure is
    /// over the rest.
    #[arg(long, value_name = "F")]
    train_fraction: Option<f64>,
    /// Start the learning engine from a copy of this store's learned rates for the repository
    /// (as `bootstrap --rev` leaves them); the file is only read.
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct BootstrapArgs {
    /// The git repository (with a work tree: the store learns for it).
    repo: PathBuf,
    /// The redb store file to replay into.
    #[arg(long, value_name = "PATH")]
    store: PathBuf,
    #[command(flatten)]
    history: HistoryOptions,
    /// Replace what the store holds for the workspace (rates and history) with the replay.
    #[arg(long)]
    force: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum HarnessArg {
    #[value(alias = "claude")]
    ClaudeCode,
    Codex,
}

impl From<HarnessArg> for hook::Harness {
    fn from(h: HarnessArg) -> hook::Harness {
        match h {
            HarnessArg::ClaudeCode => hook::Harness::ClaudeCode,
            HarnessArg::Codex => hook::Harness::Codex,
        }
    }
}

#[derive(Args)]
struct HookArgs {
    /// The harness sending the event.
    #[arg(long, value_enum, default_value = "claude-code")]
    harness: HarnessArg,
    /// The daemon's socket [default: ~/.dsh/playform/docsuggest.sock].
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// The store of a daemon this hook starts [default: the config's storePath].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The most the hook keeps the agent waiting, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    timeout_ms: u64,
    /// A daemon this hook starts stops after this many seconds without a request.
    #[arg(long, value_name = "SECS", default_value_t = 1800,
          value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout: u64,
}

#[derive(Args)]
struct InstallArgs {
    /// The harness whose config is edited.
    #[arg(long, value_enum)]
    harness: HarnessArg,
    /// The project's config (`DIR/.claude/settings.json`, `DIR/.codex/hooks.json`)
    /// [default: the current directory].
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    project: Option<PathBuf>,
    /// The user's config (`~/.claude/settings.json`, `~/.codex/hooks.json`).
    #[arg(long)]
    user: bool,
    /// Claude Code's personal project settings, `DIR/.claude/settings.local.json` (not
    /// committed) instead of `settings.json`.
    #[arg(long, conflicts_with = "user")]
    local: bool,
    /// The program the hooks run: `docsuggest` (the one on PATH) or an absolute path to pin
    /// [default: `docsuggest` when the one on PATH is this binary, else this binary's path].
    #[arg(long, value_name = "PATH")]
    command: Option<PathBuf>,
    /// Print the diff without writing.
    #[arg(long)]
    dry_run: bool,
}

impl InstallArgs {
    fn request(&self) -> Result<install::Request> {
        let scope = if self.user {
            let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
            let Some(home) = home else {
                bail!("--user needs HOME to find the user's config");
            };
            Scope::User(PathBuf::from(home))
        } else {
            let dir = match &self.project {
                Some(dir) => dir.clone(),
                None => std::env::current_dir()?,
            };
            Scope::Project(dir)
        };
        Ok(install::Request {
            harness: self.harness.into(),
            scope,
            local: self.local,
            command: self.command.clone(),
            dry_run: self.dry_run,
        })
    }
}

#[derive(Args)]
struct EngineArgs {
    /// The redb store file [default: the config's storePath,
    /// ~/.dsh/playform/hook-dsh-doc-suggester.redb].
    #[arg(long, value_name = "PATH", conflicts_with = "memory")]
    store: Option<PathBuf>,
    /// Keep learned state in memory only (lost at exit).
    #[arg(long)]
    memory: bool,
    /// A JSON config file (camelCase fields, a patch over the defaults).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl EngineArgs {
    fn host_options(&self, multi_process: bool) -> HostOptions {
        let store = match (&self.store, self.memory) {
            (_, true) => StoreChoice::Memory,
            (Some(path), false) => StoreChoice::File(path.clone()),
            (None, false) => StoreChoice::Configured,
        };
        HostOptions {
            store,
            config_file: self.config.clone(),
            multi_process,
        }
    }
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// Share the store file with other processes (every commit fsynced).
    #[arg(long, conflicts_with = "memory")]
    multi_process: bool,
    /// Serve many clients on this Unix socket (created owner-only) instead of stdio.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// With --socket: connections served at once; one more is refused with an error answer.
    #[arg(long, value_name = "N", default_value_t = 64, requires = "socket",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_connections: u64,
    /// With --socket: stop after this many seconds without a request (0: never).
    #[arg(long, value_name = "SECS", default_value_t = 0, requires = "socket")]
    idle_timeout: u64,
}

#[derive(Args)]
struct ReplayArgs {
    /// The trace file: one request per line, as `serve` reads them.
    trace: PathBuf,
    /// The cwd of requests that carry none.
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Send the trace to the server on this socket instead of starting an engine.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["store", "memory", "config"])]
    socket: Option<PathBuf>,
}

#[derive(Args)]
struct DemoArgs {
    /// The redb store file [default: ~/.dsh/playform/hook-dsh-doc-suggester.redb].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// Where to build the sample workspace (recreated on every run).
    #[arg(long, value_name = "DIR", default_value = demo::DEFAULT_DIR)]
    dir: PathBuf,
    /// The seed of the simulated session.
    #[arg(long, value_name = "N", default_value_t = demo::DEFAULT_SEED)]
    seed: u64,
    /// Judge requests in the simulated session.
    #[arg(long, value_name = "N", default_value_t = demo::DEFAULT_CALLS)]
    calls: usize,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct StoreArg {
    /// The redb store file [default: ~/.dsh/playform/hook-dsh-doc-suggester.redb].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
}

#[derive(Args)]
struct CheckArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Print the report as JSON (exit status 1 still says it failed).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RatesArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Only the workspace this directory lies in.
    #[arg(long, value_name = "DIR", conflicts_with = "key")]
    workspace: Option<PathBuf>,
    /// Only this workspace key.
    #[arg(long, value_name = "KEY")]
    key: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Read `pruneBelow` from this config to say which companions are left out (default 0.25).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Args)]
struct HistoryArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Show at most the last N entries.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RecomputeArgs {
    #[command(flatten)]
    store: StoreArg,
    /// The rate model the drift is measured in.
    #[arg(long, value_enum, default_value_t = Model::Step)]
    model: Model,
    /// Replace the live rows with the recomputed ones (one write transaction).
    #[arg(long)]
    write: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Model {
    /// The step rule: +acceptBonus / -rejectPenalty, clamped.
    Step,
    /// The posterior mean of Beta(1,2).
    Beta,
    /// The evidence model (the default): Beta(1,2) over accepts, rejects and shadow counts.
    Evidence,
}

impl From<Model> for docsuggest_schema::RateModel {
    fn from(m: Model) -> Self {
        match m {
            Model::Step => docsuggest_schema::RateModel::Step,
            Model::Beta => docsuggest_schema::RateModel::Beta,
            Model::Evidence => docsuggest_schema::RateModel::Evidence,
        }
    }
}

#[derive(Args)]
struct EvaluateArgs {
    #[command(flatten)]
    store: StoreArg,
    /// The alternative setting: a JSON config file (weights, heuristics, threshold, rateModel,
    /// maxCompanions).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ExportArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct ImportArgs {
    /// The export file (JSON lines).
    file: PathBuf,
    #[command(flatten)]
    store: StoreArg,
}

/// Writes a line to stdout, returning the error (a closed pipe) instead of panicking as
/// `println!` does.
macro_rules! out {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout().lock(), $($arg)*)?
    };
}

/// [`out!`] without the newline.
macro_rules! out_raw {
    ($($arg:tt)*) => {
        write!(std::io::stdout().lock(), $($arg)*)?
    };
}

/// Whether `e` comes from writing to a reader that went away (`docsuggest history | head`).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<protocol::ServeError>()
                .is_some_and(protocol::ServeError::is_broken_pipe)
    })
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn serve(args: &ServeArgs) -> Result<()> {
    // A live server on the socket is refused before the store is opened, which it holds.
    let bound = match &args.socket {
        Some(path) => Some(protocol::socket::bind(path)?),
        None => None,
    };
    let host = host::build(&args.engine.host_options(args.multi_process))?;
    for line in &host.startup {
        tracing::info!("{line}");
    }
    let dispatcher = Dispatcher::new(host.engine, LedgerLog::new())
        .with_store_path(host.store_path)
        .with_startup(host.startup);
    let ending = match bound {
        Some(bound) => {
            let max = usize::try_from(args.max_connections).unwrap_or(usize::MAX);
            tracing::info!(socket = %bound.path().display(), "serving");
            let idle = (args.idle_timeout > 0).then(|| Duration::from_secs(args.idle_timeout));
            protocol::socket::serve_socket(dispatcher, bound, max, idle)?
        }
        None => {
            let mut dispatcher = dispatcher;
            protocol::serve_stdio(&mut dispatcher)?
        }
    };
    tracing::info!(?ending, "stopped");
    Ok(())
}

fn replay_cmd(args: &ReplayArgs) -> Result<()> {
    let options = ReplayOptions {
        trace: args.trace.clone(),
        workspace: args.workspace.clone(),
        host: args.engine.host_options(false),
    };
    let summary = match &args.socket {
        Some(socket) => replay::replay_socket(socket, &options)?,
        None => replay::replay(&options)?,
    };
    if args.json {
        out!("{}", summary.to_json());
    } else {
        out!("replay of {}\n{summary}", args.trace.display());
    }
    Ok(())
}

fn demo_cmd(args: &DemoArgs) -> Result<()> {
    let report = demo::run(&DemoOptions {
        store: args.store.clone(),
        dir: Some(args.dir.clone()),
        seed: args.seed,
        calls: args.calls,
    })?;
    if args.json {
        out!("{}", report.to_json());
    } else {
        out!("{report}");
    }
    Ok(())
}

fn rates_cmd(args: &RatesArgs) -> Result<()> {
    let filter = match (&args.workspace, &args.key) {
        (Some(dir), _) => RatesFilter::Workspace(dir.clone()),
        (None, Some(key)) => RatesFilter::Key(key.clone()),
        (None, None) => RatesFilter::All,
    };
    let config = host::load_config(args.config.as_deref())?;
    // The view always shows the evidence model's reading, whatever model the file holds.
    let reading = Reading {
        model: docsuggest_schema::RateModel::Evidence,
        prune_below: config.prune_below,
    };
    let rows = stores::rates(args.store.store.as_deref(), &filter)?;
    if args.json {
        out!("{}", inspect::rates_json(&rows, reading));
    } else {
        out_raw!("{}", inspect::rates_table(&rows, reading));
    }
    Ok(())
}

fn history_cmd(args: &HistoryArgs) -> Result<()> {
    let entries = stores::history(args.store.store.as_deref(), args.limit)?;
    if args.json {
        out!("{}", inspect::history_json(&entries));
    } else {
        out_raw!("{}", inspect::history_table(&entries));
    }
    Ok(())
}

fn check_cmd(args: &CheckArgs) -> Result<()> {
    let report = maintain::check(args.store.store.as_deref())?;
    if args.json {
        out!("{}", report.to_json());
    } else {
        out!("{report}");
    }
    if !report.is_ok() {
        bail!("store {} failed its check", report.path);
    }
    Ok(())
}

fn migrate_cmd(args: &StoreArg) -> Result<()> {
    let report = maintain::migrate(args.store.as_deref())?;
    out!("{report}");
    Ok(())
}

fn recompute_cmd(args: &RecomputeArgs) -> Result<()> {
    let report = maintain::recompute(args.store.store.as_deref(), args.write, args.model.into())?;
    if args.json {
        out!("{}", report.to_json());
    } else {
        out!("{report}");
    }
    Ok(())
}

fn evaluate_cmd(args: &EvaluateArgs) -> Result<()> {
    let alternative = match &args.config {
        Some(file) => Some(host::load_config(Some(file))?),
        None => None,
    };
    let report =
        docsuggest_tools::evaluate::evaluate(args.store.store.as_deref(), alternative.as_ref())?;
    if args.json {
        out!("{}", serde_json::to_string(&report)?);
    } else {
        out_raw!("{report}");
    }
    Ok(())
}

fn export_cmd(args: &ExportArgs) -> Result<()> {
    let store = args.store.store.as_deref();
    match &args.out {
        Some(file) => {
            let n = transfer::export_file(store, file)?;
            eprintln!("exported {n} history entries to {}", file.display());
        }
        None => {
            transfer::export(store, std::io::stdout().lock())?;
        }
    }
    Ok(())
}

fn import_cmd(args: &ImportArgs) -> Result<()> {
    let counts = transfer::import(&args.file, args.store.store.as_deref())?;
    out!(
        "imported {} history entries ({} silences) from {} into {}; skipped {} already there",
        counts.entries,
        counts.silences,
        args.file.display(),
        stores::store_file(args.store.store.as_deref()).display(),
        counts.skipped
    );
    Ok(())
}

/// Never fails: the agent must not be held up or shown an error by its hook.
fn hook_cmd(args: &HookArgs) -> ExitCode {
    let mut options = hook::HookOptions::new(args.harness.into());
    if let Some(socket) = &args.socket {
        options.socket = socket.clone();
    }
    options.store = args.store.clone();
    options.budget = Duration::from_millis(args.timeout_ms);
    options.idle_timeout = Duration::from_secs(args.idle_timeout);
    if let Some(answer) = hook::run_stdin(&options) {
        let _ = writeln!(std::io::stdout().lock(), "{answer}");
    }
    ExitCode::SUCCESS
}

fn install_cmd(args: &InstallArgs, install: bool) -> Result<()> {
    let request = args.request()?;
    let report = if install {
        install::install_hooks(&request)?
    } else {
        install::uninstall_hooks(&request)?
    };
    let change = &report.change;
    let verb = match (
        install,
        args.dry_run,
        change.changed(),
        change.after.is_some(),
    ) {
        (_, _, false, _) => "unchanged",
        (true, true, true, _) => "would install into",
        (false, true, true, true) => "would uninstall from",
        (false, true, true, false) => "would remove (it holds only ours)",
        (true, false, true, _) => "installed into",
        (false, false, true, true) => "uninstalled from",
        (false, false, true, false) => "removed (it held only ours)",
    };
    if args.dry_run && change.changed() {
        out_raw!("{}", change.diff());
    }
    out!("{verb} {}", change.path.display());
    for note in &report.notes {
        eprintln!("docsuggest: {note}");
    }
    Ok(())
}

fn backtest_cmd(args: &BacktestArgs) -> Result<()> {
    let mut options = args.history.options(&args.repo);
    options.since = args.since.clone();
    options.train_fraction = args.train_fraction;
    options.store = args.store.clone();
    let report = backtest::backtest(&options)?;
    if args.json {
        out!("{}", serde_json::to_string(&report)?);
    } else {
        out_raw!("{report}");
    }
    Ok(())
}

fn bootstrap_cmd(args: &BootstrapArgs) -> Result<()> {
    let options = args.history.options(&args.repo);
    let report = backtest::bootstrap(&options, &args.store, args.force)?;
    if args.json {
        out!("{}", serde_json::to_string(&report)?);
    } else {
        out!(
            "replayed {} commits of {} (up to {}) into {} as {} ({} notes)",
            report.commits,
            report.workspace,
            &report.tip[..report.tip.len().min(12)],
            report.store,
            report.workspace_key,
            report.notes
        );
        if let Some(r) = &report.replaced {
            out!(
                "replaced what it held for the workspace: {} rate rows, {} base rows, {} history entries, {} pending",
                r.rates,
                r.base,
                r.history,
                r.pending
            );
        }
    }
    Ok(())
}

fn init_cmd(args: &InitArgs) -> Result<()> {
    let report = docsuggest_tools::init::init(&docsuggest_tools::init::InitOptions {
        repo: args.repo.clone(),
        rev: args.rev.clone(),
        print: args.print,
        force: args.force,
        no_backtest: args.no_backtest,
        max_commits: usize::try_from(args.max_commits).unwrap_or(usize::MAX),
    })?;
    if args.print {
        out_raw!("{}", report.pack_json);
    } else if args.json {
        out!("{}", serde_json::to_string(&report)?);
    } else {
        out_raw!("{report}");
    }
    Ok(())
}

fn status_cmd(args: &StatusArgs) -> Result<()> {
    let status = docsuggest_tools::status::status(&docsuggest_tools::status::StatusOptions {
        path: args.path.clone(),
        config_file: args.config.clone(),
        store: args.store.clone(),
        socket: args.socket.clone(),
    });
    if args.json {
        out!("{}", serde_json::to_string_pretty(&status)?);
    } else {
        out_raw!("{status}");
    }
    Ok(())
}

fn mine_pack_cmd(args: &MinePackArgs) -> Result<()> {
    use docsuggest_host::mining::HistoryMiner;
    use std::io::Read;
    let mut stored = Vec::new();
    std::io::stdin()
        .lock()
        .take(docsuggest_tools::mining::MAX_RECORD_BYTES)
        .read_to_end(&mut stored)?;
    let stored: Option<docsuggest_schema::MinedPack> = serde_json::from_slice(&stored)?;
    let mined = docsuggest_tools::mining::GitMiner
        .mine(&args.root, stored.as_ref())
        .map_err(anyhow::Error::msg)?;
    out!("{}", serde_json::to_string(&mined)?);
    Ok(())
}

fn completions_cmd(args: &CompletionsArgs) -> Result<()> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "docsuggest", &mut script);
    std::io::stdout().lock().write_all(&script)?;
    Ok(())
}

/// A command line clap refuses: `hook` still exits 0 with nothing on stdout (a hook must
/// never break its agent), saying why in one line on stderr and in the hook log.
fn refused(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let hook = std::env::args_os().nth(1).is_some_and(|a| a == "hook");
    if !hook
        || matches!(
            error.kind(),
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
        )
    {
        error.exit()
    }
    let text = error.to_string();
    let line = text.lines().next().unwrap_or_default();
    let detail = line.strip_prefix("error: ").unwrap_or(line);
    hook::log_refused_arguments(detail);
    eprintln!("docsuggest hook: ignored the event: {detail}");
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refused(e),
    };
    init_tracing();
    // A damaged store file that makes redb panic is reported as one error line naming it
    // (`docsuggest_store::catch_damage`), without the panic message before it.
    docsuggest_store::quiet_caught_panics();
    // Hosts this process builds mine packs with its own git reader.
    docsuggest_host::mining::use_in_process(std::sync::Arc::new(
        docsuggest_tools::mining::GitMiner,
    ));
    let result = match &cli.command {
        Command::Serve(a) => serve(a),
        Command::Replay(a) => replay_cmd(a),
        Command::Demo(a) => demo_cmd(a),
        Command::Rates(a) => rates_cmd(a),
        Command::History(a) => history_cmd(a),
        Command::Check(a) => check_cmd(a),
        Command::Migrate(a) => migrate_cmd(a),
        Command::Recompute(a) => recompute_cmd(a),
        Command::Evaluate(a) => evaluate_cmd(a),
        Command::Export(a) => export_cmd(a),
        Command::Import(a) => import_cmd(a),
        Command::Hook(a) => return hook_cmd(a),
        Command::InstallHooks(a) => install_cmd(a, true),
        Command::UninstallHooks(a) => install_cmd(a, false),
        Command::Backtest(a) => backtest_cmd(a),
        Command::Bootstrap(a) => bootstrap_cmd(a),
        Command::Init(a) => init_cmd(a),
        Command::Status(a) => status_cmd(a),
        Command::Completions(a) => completions_cmd(a),
        Command::Mcp(a) => docsuggest_tools::mcp::run(a).map_err(Into::into),
        Command::MinePack(a) => mine_pack_cmd(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Nobody reads stdout any more: nothing is wrong worth saying.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            eprintln!("docsuggest: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
