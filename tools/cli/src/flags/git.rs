//! The commands over a repository's git history: `backtest`, `bootstrap`, `init`, and the
//! hidden `mine-pack` that hosts without a git reader run.

use super::output::{Json, emit};
use anyhow::Result;
use clap::Args;
use docsuggest_history::{backtest, init, miner};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

#[derive(Args)]
pub struct HistoryOptions {
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
pub struct BacktestArgs {
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
    /// Also score the change-boundary check (`check-change`): false alarms on the real
    /// commits, and simulated misses (each commit with one companion file left out) caught.
    #[arg(long)]
    boundary: bool,
    /// The pack whose companions are the simulated misses [default: the pack in use].
    #[arg(long, value_name = "FILE", requires = "boundary")]
    reference_pack: Option<PathBuf>,
    /// With --boundary: the learning engine learns from a reminder at each commit cut short,
    /// as from a real Stop reminder (the simulated agent adds each named file its commit has
    /// and declines the rest).
    #[arg(long, requires = "boundary")]
    boundary_learns: bool,
    /// Mine the pack from the training commits even when the repository has one, as `init`'s
    /// and `report`'s backtests do (`--pack` still wins).
    #[arg(long)]
    mine: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct BootstrapArgs {
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

#[derive(Args)]
pub struct InitArgs {
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
    #[arg(long, value_name = "N", default_value_t = init::MAX_MINED_COMMITS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_commits: u64,
    /// Also write the HTML report of the backtest to .dsh/report.html (`docsuggest report`
    /// writes it too); the backtest then runs the static engine and the change boundary as well.
    #[arg(long, conflicts_with_all = ["print", "no_backtest"])]
    report: bool,
    /// Print the report as JSON.
    #[arg(long, conflicts_with = "print")]
    json: bool,
}

#[derive(Args)]
pub struct MinePackArgs {
    /// Print the repository's identity (a JSON string, or null) instead of mining.
    #[arg(long)]
    identity: bool,
    /// Measure the Stop reminder for the record on stdin (the pack's `boundary`, as `init`
    /// writes it) and print the measured record instead of mining.
    #[arg(long, conflicts_with = "identity")]
    measure: bool,
    /// The root of the git work tree.
    root: PathBuf,
}

/// `docsuggest backtest`.
pub fn backtest(args: &BacktestArgs) -> Result<()> {
    let mut options = args.history.options(&args.repo);
    options.since = args.since.clone();
    options.train_fraction = args.train_fraction;
    options.store = args.store.clone();
    options.boundary = args.boundary;
    options.reference_pack = args.reference_pack.clone();
    options.boundary_learns = args.boundary_learns;
    options.mine_always = args.mine;
    let report = backtest::backtest(&options)?;
    emit(args.json.then_some(Json::Line), &report, &report)
}

/// `docsuggest bootstrap`.
pub fn bootstrap(args: &BootstrapArgs) -> Result<()> {
    let options = args.history.options(&args.repo);
    let report = backtest::bootstrap(&options, &args.store, args.force)?;
    let mut text = format!(
        "replayed {} commits of {} (up to {}) into {} as {} ({} notes)\n",
        report.commits,
        report.workspace,
        &report.tip[..report.tip.len().min(12)],
        report.store,
        report.workspace_key,
        report.notes
    );
    if let Some(r) = &report.replaced {
        let _ = writeln!(
            text,
            "replaced what it held for the workspace: {} rate rows, {} base rows, {} history entries, {} pending",
            r.rates, r.base, r.history, r.pending
        );
    }
    emit(args.json.then_some(Json::Line), &report, &text)
}

/// `docsuggest init`: with `--print`, the pack alone.
pub fn init(args: &InitArgs) -> Result<()> {
    let mut report = init::init(&init::InitOptions {
        repo: args.repo.clone(),
        rev: args.rev.clone(),
        print: args.print,
        force: args.force,
        no_backtest: args.no_backtest,
        max_commits: usize::try_from(args.max_commits).unwrap_or(usize::MAX),
        full_backtest: args.report,
    })?;
    if args.print {
        return emit(None, &(), &report.pack_json);
    }
    if args.report {
        // The pack is written: a report that cannot be made is said, as a backtest that
        // cannot run is.
        let root = std::path::Path::new(&report.repo);
        match &report.backtest {
            Some(run) => match docsuggest_cli::report::write_report(root, run, None, None) {
                Ok(written) => report.report_file = Some(written.file),
                Err(e) => report.report_error = Some(e.to_string()),
            },
            None => report.report_error = Some("the backtest could not run".into()),
        }
    }
    emit(args.json.then_some(Json::Line), &report, &report)
}

/// `docsuggest mine-pack ROOT`: the stored record (JSON, or null) on stdin; the new record, or
/// null when the stored one is current, on stdout.
pub fn mine_pack(args: &MinePackArgs) -> Result<()> {
    use docsuggest_host::mining::HistoryMiner;
    use std::io::Read;
    if args.identity {
        let identity = miner::GitMiner
            .identify(&args.root)
            .map_err(anyhow::Error::msg)?;
        writeln!(
            std::io::stdout().lock(),
            "{}",
            serde_json::to_string(&identity)?
        )?;
        return Ok(());
    }
    let mut stored = Vec::new();
    std::io::stdin()
        .lock()
        .take(miner::MAX_RECORD_BYTES)
        .read_to_end(&mut stored)?;
    let stored: Option<docsuggest_schema::MinedPack> = serde_json::from_slice(&stored)?;
    let mined = if args.measure {
        let record = anyhow::Context::context(
            stored,
            "mine-pack --measure needs the record to measure on stdin",
        )?;
        miner::GitMiner.measure(&args.root, &record)
    } else {
        miner::GitMiner.mine(&args.root, stored.as_ref())
    }
    .map_err(anyhow::Error::msg)?;
    writeln!(
        std::io::stdout().lock(),
        "{}",
        serde_json::to_string(&mined)?
    )?;
    Ok(())
}
