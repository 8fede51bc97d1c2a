//! `docsuggest`: the command line over `docsuggest_tools`. Each subcommand parses its
//! arguments and calls one library function; errors go to stderr with a non-zero exit.

use anyhow::{Result, bail};
use clap::{Args, Parser, Subcommand};
use docsuggest_tools::demo::{self, DemoOptions};
use docsuggest_tools::host::{self, HostOptions, StoreChoice};
use docsuggest_tools::inspect::{self, RatesFilter};
use docsuggest_tools::ledger_log::LedgerLog;
use docsuggest_tools::protocol::{self, Dispatcher, Reading};
use docsuggest_tools::replay::{self, ReplayOptions};
use docsuggest_tools::{maintain, transfer};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// Serve the JSON-lines protocol on stdin/stdout until `close` or end of input.
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
    Check(StoreArg),
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
    let host = host::build(&args.engine.host_options(args.multi_process))?;
    for line in &host.startup {
        tracing::info!("{line}");
    }
    let mut dispatcher = Dispatcher::new(host.engine, LedgerLog::new()).with_startup(host.startup);
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    protocol::serve(&mut dispatcher, stdin, stdout)?;
    Ok(())
}

fn replay_cmd(args: &ReplayArgs) -> Result<()> {
    let summary = replay::replay(&ReplayOptions {
        trace: args.trace.clone(),
        workspace: args.workspace.clone(),
        host: args.engine.host_options(false),
    })?;
    if args.json {
        println!("{}", summary.to_json());
    } else {
        println!("replay of {}\n{summary}", args.trace.display());
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
        println!("{}", report.to_json());
    } else {
        println!("{report}");
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
    let rows = inspect::rates(args.store.store.as_deref(), &filter)?;
    if args.json {
        println!("{}", inspect::rates_json(&rows, reading));
    } else {
        print!("{}", inspect::rates_table(&rows, reading));
    }
    Ok(())
}

fn history_cmd(args: &HistoryArgs) -> Result<()> {
    let entries = inspect::history(args.store.store.as_deref(), args.limit)?;
    if args.json {
        println!("{}", inspect::history_json(&entries));
    } else {
        print!("{}", inspect::history_table(&entries));
    }
    Ok(())
}

fn check_cmd(args: &StoreArg) -> Result<()> {
    let report = maintain::check(args.store.as_deref())?;
    println!("{report}");
    if !report.is_ok() {
        bail!("store {} failed its check", report.path);
    }
    Ok(())
}

fn recompute_cmd(args: &RecomputeArgs) -> Result<()> {
    let report = maintain::recompute(args.store.store.as_deref(), args.write, args.model.into())?;
    if args.json {
        println!("{}", report.to_json());
    } else {
        println!("{report}");
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
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
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
    println!(
        "imported {} history entries ({} silences) from {} into {}; skipped {} already there",
        counts.entries,
        counts.silences,
        args.file.display(),
        inspect::store_file(args.store.store.as_deref()).display(),
        counts.skipped
    );
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    let result = match &cli.command {
        Command::Serve(a) => serve(a),
        Command::Replay(a) => replay_cmd(a),
        Command::Demo(a) => demo_cmd(a),
        Command::Rates(a) => rates_cmd(a),
        Command::History(a) => history_cmd(a),
        Command::Check(a) => check_cmd(a),
        Command::Migrate(a) => maintain::migrate(a.store.as_deref())
            .map(|r| println!("{r}"))
            .map_err(Into::into),
        Command::Recompute(a) => recompute_cmd(a),
        Command::Evaluate(a) => evaluate_cmd(a),
        Command::Export(a) => export_cmd(a),
        Command::Import(a) => import_cmd(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            eprintln!("docsuggest: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
