//! Fleet learning's commands run in a binary of their own, `docsuggest-fleet`, built with the
//! CLI's `fleet` feature and installed beside `docsuggest`: Parquet export and import link
//! Apache Arrow and Parquet, the merge Apache DataFusion — ten times the size of everything
//! else, and most installs never use them. `docsuggest export --format parquet`, `import
//! --rates` and `fleet merge` parse their arguments as always and hand them over
//! ([`hand_over`]); `docsuggest-fleet` runs them ([`run`], with the feature). Without the
//! binary, the command says in one line how to get it.

use clap::{Args, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The fleet commands' binary.
pub const FLEET_BIN: &str = "docsuggest-fleet";

/// The environment variable naming the fleet binary, where it is not beside `docsuggest`.
pub const FLEET_BIN_ENV: &str = "DOCSUGGEST_FLEET_BIN";

/// The default memory limit of the merge's sort (`docsuggest_fleet::merge`'s), in MiB.
pub const DEFAULT_MEMORY_MIB: u64 = 1024;

/// Why a fleet command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FleetCommandError {
    /// The config file.
    #[error(transparent)]
    Config(#[from] docsuggest_host::host::HostError),
    /// The fleet crate.
    #[cfg(feature = "fleet")]
    #[error(transparent)]
    Fleet(#[from] docsuggest_fleet::FleetError),
    /// The fleet binary did not start.
    #[error(
        "`{command}` runs in {FLEET_BIN}, which did not start ({}: {source}); install it \
         beside docsuggest with `cargo install --locked --path tools/cli --features fleet`, or \
         name it in {FLEET_BIN_ENV}",
        bin.display()
    )]
    NotStarted {
        /// The command, as the user typed it.
        command: &'static str,
        /// The binary tried.
        bin: PathBuf,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
}

/// A fleet command, as `docsuggest-fleet` takes it.
#[derive(Subcommand, Clone, Debug)]
pub enum FleetCommand {
    /// Merge many machines' Parquet exports (DataFusion) into the fleet's rate rows, written
    /// as Parquet for `docsuggest import --rates`.
    Merge(MergeArgs),
    /// `docsuggest export --format parquet`: the history as Parquet, for `fleet merge`.
    Export(ExportArgs),
    /// `docsuggest import --rates`: seed the store's base rows from a fleet rates file.
    Import(ImportArgs),
}

/// `fleet merge`'s arguments.
#[derive(Args, Clone, Debug)]
pub struct MergeArgs {
    /// Directories holding exports (`docsuggest export --format parquet --out DIR`).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The rates file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The config whose `rateModel` the `rate` column is computed under (default: evidence).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The memory the merge query may hold before its sort spills to the temporary directory.
    #[arg(long, value_name = "MIB", default_value_t = DEFAULT_MEMORY_MIB,
        value_parser = clap::value_parser!(u64).range(64..=1 << 40))]
    pub memory_mib: u64,
    /// Merge by the day: continue the merge whose state this file holds (when it exists) with
    /// the exports in DIR..., and write the new state to it. The rows are those of a merge of
    /// every export at once.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `export --format parquet`'s arguments.
#[derive(Args, Clone, Debug)]
pub struct ExportArgs {
    /// The store file [default: the config's storePath].
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// The directory to write into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Export the entries after this resolution number [default: after the last export].
    #[arg(long, value_name = "SEQ")]
    pub since: Option<u64>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `import --rates`'s arguments.
#[derive(Args, Clone, Debug)]
pub struct ImportArgs {
    /// The fleet rates file (`fleet merge --out`).
    #[arg(long, value_name = "FILE")]
    pub rates: PathBuf,
    /// The store file [default: the config's storePath].
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Seed this directory's workspace (repeatable).
    #[arg(long, value_name = "DIR")]
    pub workspace: Vec<PathBuf>,
    /// The config whose `rateModel` the file must have been merged under.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

fn flag(argv: &mut Vec<OsString>, name: &str, value: Option<impl Into<OsString>>) {
    if let Some(value) = value {
        argv.extend([name.into(), value.into()]);
    }
}

impl FleetCommand {
    /// The command as the user types it to `docsuggest`.
    pub fn typed(&self) -> &'static str {
        match self {
            FleetCommand::Merge(_) => "fleet merge",
            FleetCommand::Export(_) => "export --format parquet",
            FleetCommand::Import(_) => "import --rates",
        }
    }

    /// Whether the report is asked for as JSON.
    pub fn json(&self) -> bool {
        match self {
            FleetCommand::Merge(a) => a.json,
            FleetCommand::Export(a) => a.json,
            FleetCommand::Import(a) => a.json,
        }
    }

    /// The arguments as `docsuggest-fleet` takes them.
    pub fn argv(&self) -> Vec<OsString> {
        let mut argv: Vec<OsString> = Vec::new();
        match self {
            FleetCommand::Merge(a) => {
                argv.push("merge".into());
                argv.extend(a.dirs.iter().map(|d| d.clone().into_os_string()));
                flag(&mut argv, "--out", Some(a.out.clone()));
                flag(&mut argv, "--config", a.config.clone());
                flag(&mut argv, "--memory-mib", Some(a.memory_mib.to_string()));
                flag(&mut argv, "--state", a.state.clone());
            }
            FleetCommand::Export(a) => {
                argv.push("export".into());
                flag(&mut argv, "--store", a.store.clone());
                flag(&mut argv, "--out", Some(a.out.clone()));
                flag(&mut argv, "--since", a.since.map(|s| s.to_string()));
            }
            FleetCommand::Import(a) => {
                argv.push("import".into());
                flag(&mut argv, "--rates", Some(a.rates.clone()));
                flag(&mut argv, "--store", a.store.clone());
                for dir in &a.workspace {
                    flag(&mut argv, "--workspace", Some(dir.clone()));
                }
                flag(&mut argv, "--config", a.config.clone());
            }
        }
        if self.json() {
            argv.push("--json".into());
        }
        argv
    }
}

/// The fleet binary: `DOCSUGGEST_FLEET_BIN`, else the one beside this executable, else
/// `docsuggest-fleet` on `PATH`.
pub fn fleet_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os(FLEET_BIN_ENV).filter(|b| !b.is_empty()) {
        return PathBuf::from(bin);
    }
    let name = format!("{FLEET_BIN}{}", std::env::consts::EXE_SUFFIX);
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(&name)))
        .filter(|beside| beside.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Runs `command` in `docsuggest-fleet`, its output and exit status passed through.
pub fn hand_over(command: &FleetCommand) -> Result<ExitCode, FleetCommandError> {
    let bin = fleet_binary();
    let status = Command::new(&bin)
        .args(command.argv())
        .status()
        .map_err(|source| FleetCommandError::NotStarted {
            command: command.typed(),
            bin,
            source,
        })?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

/// What a fleet command reports.
#[cfg(feature = "fleet")]
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum FleetReport {
    /// `merge`.
    Merged(docsuggest_fleet::merge::Merged),
    /// `export`.
    Exported(docsuggest_fleet::export::Exported),
    /// `import`.
    Seeded(docsuggest_fleet::seed::SeedReport),
}

#[cfg(feature = "fleet")]
impl std::fmt::Display for FleetReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FleetReport::Merged(r) => r.fmt(f),
            FleetReport::Exported(r) => r.fmt(f),
            FleetReport::Seeded(r) => r.fmt(f),
        }
    }
}

/// Runs `command` here (in `docsuggest-fleet`).
#[cfg(feature = "fleet")]
pub fn run(command: &FleetCommand) -> Result<FleetReport, FleetCommandError> {
    use docsuggest_host::host;
    Ok(match command {
        FleetCommand::Merge(a) => {
            let config = host::load_config(a.config.as_deref())?;
            FleetReport::Merged(docsuggest_fleet::merge::merge(
                &docsuggest_fleet::merge::MergeOptions {
                    inputs: a.dirs.clone(),
                    out: a.out.clone(),
                    model: config.rate_model,
                    memory_limit: usize::try_from(a.memory_mib << 20).unwrap_or(usize::MAX),
                    state: a.state.clone(),
                },
            )?)
        }
        FleetCommand::Export(a) => FleetReport::Exported(docsuggest_fleet::export::export(
            &docsuggest_fleet::export::ExportOptions {
                store: a.store.clone(),
                out: a.out.clone(),
                since: a.since,
            },
        )?),
        FleetCommand::Import(a) => {
            let config = host::load_config(a.config.as_deref())?;
            FleetReport::Seeded(docsuggest_fleet::seed::seed(
                &docsuggest_fleet::seed::SeedOptions {
                    rates: a.rates.clone(),
                    store: a.store.clone(),
                    workspaces: a.workspace.clone(),
                    model: config.rate_model,
                },
            )?)
        }
    })
}

#[cfg(all(test, feature = "fleet"))]
mod tests {
    use super::*;

    #[test]
    fn the_default_memory_limit_is_the_merges() {
        assert_eq!(
            DEFAULT_MEMORY_MIB << 20,
            docsuggest_fleet::merge::DEFAULT_MEMORY_LIMIT as u64
        );
    }
}
