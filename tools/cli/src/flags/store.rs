//! The commands that read or maintain a store file: `rates`, `history`, `check`, `migrate`,
//! `recompute`, `evaluate`, `export` and `import`.

use super::output::{Json, emit};
use anyhow::{Result, bail};
use clap::Args;
use docsuggest_cli::{evaluate, inspect, maintain, transfer};
use docsuggest_host::host;
use docsuggest_host::protocol::Reading;
use docsuggest_host::stores::{self, RatesFilter};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct StoreArg {
    /// The redb store file [default: ~/.dsh/playform/hook-dsh-doc-suggester.redb].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
}

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    store: StoreArg,
    /// Print the report as JSON (exit status 1 still says it failed).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct RatesArgs {
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
    /// Read `pruneBelow` from this config to say which companions are left out (default: the
    /// built-in config's).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Args)]
pub struct HistoryArgs {
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
pub struct RecomputeArgs {
    #[command(flatten)]
    store: StoreArg,
    /// The rate model the drift is measured in (the rows are the same under every model; this
    /// is only the rate their difference is read as).
    #[arg(long, value_enum, default_value_t = Model::Evidence)]
    model: Model,
    /// Replace the live rows with the recomputed ones (one write transaction).
    #[arg(long)]
    write: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Model {
    /// The step rule: +acceptBonus / -rejectPenalty, clamped.
    Step,
    /// The posterior mean of Beta(1,2).
    Beta,
    /// The evidence model (the engine's `rateModel` by default): accepts, rejects and shadow
    /// counts weighed by age, with a prior centred on the evidence already forgotten.
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
pub struct EvaluateArgs {
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
pub struct ExportArgs {
    #[command(flatten)]
    store: StoreArg,
    /// `jsonl`: one HistoryEntry per line; `parquet`: Parquet files for `fleet merge`, one
    /// directory per workspace key under --out (docs/FLEET.md).
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    format: Format,
    /// Write to FILE instead of stdout (jsonl); the directory to write into (parquet).
    #[arg(long, value_name = "PATH", required_if_eq("format", "parquet"))]
    out: Option<PathBuf>,
    /// Parquet: export the entries after this resolution number [default: after the last
    /// export this store remembers].
    #[arg(long, value_name = "SEQ")]
    since: Option<u64>,
    /// Parquet: print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// What `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// JSON lines, one HistoryEntry per line.
    Jsonl,
    /// Apache Parquet, for `fleet merge`.
    Parquet,
}

#[derive(Args)]
pub struct ImportArgs {
    /// The export file (JSON lines).
    #[arg(required_unless_present = "rates", conflicts_with = "rates")]
    file: Option<PathBuf>,
    /// Seed the store's base rows from a fleet rates file (`docsuggest fleet merge`) instead.
    #[arg(long, value_name = "FILE")]
    rates: Option<PathBuf>,
    /// With --rates: seed this directory's workspace (repeatable) [default: every workspace
    /// the store knows that the file holds].
    #[arg(long, value_name = "DIR", requires = "rates")]
    workspace: Vec<PathBuf>,
    /// With --rates: the config whose `rateModel` the file must have been merged under.
    #[arg(long, value_name = "FILE", requires = "rates")]
    config: Option<PathBuf>,
    /// With --rates: print the report as JSON.
    #[arg(long, requires = "rates")]
    json: bool,
    #[command(flatten)]
    store: StoreArg,
}

/// `docsuggest rates`.
pub fn rates(args: &RatesArgs) -> Result<()> {
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
        follow_threshold: config.follow_threshold,
    };
    let rows = stores::rates(args.store.store.as_deref(), &filter)?;
    emit(
        args.json.then_some(Json::Pretty),
        &inspect::rates_values(&rows, reading),
        &inspect::rates_table(&rows, reading),
    )
}

/// `docsuggest history`.
pub fn history(args: &HistoryArgs) -> Result<()> {
    let entries = stores::history(args.store.store.as_deref(), args.limit)?;
    emit(
        args.json.then_some(Json::Pretty),
        &entries,
        &inspect::history_table(&entries),
    )
}

/// `docsuggest check`: exits 1 when the store fails it, whatever the output.
pub fn check(args: &CheckArgs) -> Result<()> {
    let report = maintain::check(args.store.store.as_deref())?;
    emit(
        args.json.then_some(Json::Line),
        &report.to_json(),
        &format!("{report}\n"),
    )?;
    if !report.is_ok() {
        bail!("store {} failed its check", report.path);
    }
    Ok(())
}

/// `docsuggest migrate`.
pub fn migrate(args: &StoreArg) -> Result<()> {
    let report = maintain::migrate(args.store.as_deref())?;
    emit(None, &(), &format!("{report}\n"))
}

/// `docsuggest recompute`.
pub fn recompute(args: &RecomputeArgs) -> Result<()> {
    let report = maintain::recompute(args.store.store.as_deref(), args.write, args.model.into())?;
    emit(
        args.json.then_some(Json::Line),
        &report.to_json(),
        &format!("{report}\n"),
    )
}

/// `docsuggest evaluate`.
pub fn evaluate(args: &EvaluateArgs) -> Result<()> {
    let alternative = match &args.config {
        Some(file) => Some(host::load_config(Some(file))?),
        None => None,
    };
    let report = evaluate::evaluate(args.store.store.as_deref(), alternative.as_ref())?;
    emit(args.json.then_some(Json::Line), &report, &report)
}

/// `docsuggest export`; Parquet is `docsuggest-fleet`'s, whose exit status it answers.
pub fn export(args: &ExportArgs) -> Result<ExitCode> {
    let store = args.store.store.as_deref();
    if args.format == Format::Parquet {
        let out = args.out.as_deref().unwrap_or(std::path::Path::new("."));
        return super::fleet::export_parquet(store, out, args.since, args.json);
    }
    if args.since.is_some() || args.json {
        bail!("--since and --json go with --format parquet");
    }
    match &args.out {
        Some(file) => {
            let n = transfer::export_file(store, file)?;
            eprintln!("exported {n} history entries to {}", file.display());
        }
        None => {
            transfer::export(store, std::io::stdout().lock())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `docsuggest import`; `--rates` is `docsuggest-fleet`'s, whose exit status it answers.
pub fn import(args: &ImportArgs) -> Result<ExitCode> {
    if let Some(rates) = &args.rates {
        return super::fleet::import_rates(
            rates,
            args.store.store.as_deref(),
            &args.workspace,
            args.config.as_deref(),
            args.json,
        );
    }
    let Some(file) = &args.file else {
        bail!("name the export file to import (or --rates FILE)");
    };
    let counts = transfer::import(file, args.store.store.as_deref())?;
    writeln!(
        std::io::stdout().lock(),
        "imported {} history entries ({} silences) from {} into {}; skipped {} already there",
        counts.entries,
        counts.silences,
        file.display(),
        stores::store_file(args.store.store.as_deref()).display(),
        counts.skipped
    )?;
    Ok(ExitCode::SUCCESS)
}
