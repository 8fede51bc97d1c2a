//! `docsuggest fleet merge`, which runs in a binary of its own, `docsuggest-fleet`, installed
//! beside `docsuggest`: the merge links Apache DataFusion, ten times the size of everything
//! else, and most installs never merge. `docsuggest fleet merge` parses the same arguments and
//! hands them over ([`hand_over`]); `docsuggest-fleet merge` runs [`merge`].

use clap::Args;
use docsuggest_fleet::FleetError;
use docsuggest_fleet::merge::{DEFAULT_MEMORY_LIMIT, MergeOptions, Merged};
use docsuggest_host::host::{self, HostError};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The merge's binary.
pub const FLEET_BIN: &str = "docsuggest-fleet";

/// The environment variable naming the merge's binary, where it is not beside `docsuggest`.
pub const FLEET_BIN_ENV: &str = "DOCSUGGEST_FLEET_BIN";

/// Why `fleet merge` failed.
#[derive(Debug, thiserror::Error)]
pub enum MergeCommandError {
    /// The config file.
    #[error(transparent)]
    Config(#[from] HostError),
    /// The merge.
    #[error(transparent)]
    Fleet(#[from] FleetError),
    /// The merge's binary did not start.
    #[error(
        "`fleet merge` runs in {FLEET_BIN}, which did not start ({}: {source}; install it beside docsuggest with `cargo install --path tools/cli`, or name it in {FLEET_BIN_ENV})",
        bin.display()
    )]
    NotStarted {
        /// The binary tried.
        bin: PathBuf,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
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
    #[arg(long, value_name = "MIB", default_value_t = (DEFAULT_MEMORY_LIMIT >> 20) as u64,
        value_parser = clap::value_parser!(u64).range(64..=1 << 40))]
    pub memory_mib: u64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

impl MergeArgs {
    /// The arguments as `docsuggest-fleet merge` takes them.
    pub fn argv(&self) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec!["merge".into()];
        argv.extend(self.dirs.iter().map(|d| d.clone().into_os_string()));
        argv.extend(["--out".into(), self.out.clone().into_os_string()]);
        if let Some(config) = &self.config {
            argv.extend(["--config".into(), config.clone().into_os_string()]);
        }
        argv.extend(["--memory-mib".into(), self.memory_mib.to_string().into()]);
        if self.json {
            argv.push("--json".into());
        }
        argv
    }
}

/// Runs the merge (in `docsuggest-fleet`).
pub fn merge(args: &MergeArgs) -> Result<Merged, MergeCommandError> {
    let config = host::load_config(args.config.as_deref())?;
    Ok(docsuggest_fleet::merge::merge(&MergeOptions {
        inputs: args.dirs.clone(),
        out: args.out.clone(),
        model: config.rate_model,
        memory_limit: usize::try_from(args.memory_mib << 20).unwrap_or(usize::MAX),
    })?)
}

/// The merge's binary: `DOCSUGGEST_FLEET_BIN`, else the one beside this executable, else
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

/// Runs `docsuggest-fleet merge` with `args`, its output and exit status passed through.
pub fn hand_over(args: &MergeArgs) -> Result<ExitCode, MergeCommandError> {
    let bin = fleet_binary();
    let status = Command::new(&bin)
        .args(args.argv())
        .status()
        .map_err(|source| MergeCommandError::NotStarted { bin, source })?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}
