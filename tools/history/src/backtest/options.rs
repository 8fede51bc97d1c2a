//! What a backtest or bootstrap is given ([`Options`]), and the engine config a run of it
//! uses ([`run_config`]).

use super::error::BacktestError;
use super::history::History;
use docsuggest_host::host;
use docsuggest_schema::Config;
use std::path::PathBuf;

/// Commits with more files than this are skipped by default (a bulk change is no task).
pub const DEFAULT_MAX_FILES: usize = 40;

/// What a backtest or bootstrap is given.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The repository (a work tree or a bare repository).
    pub repo: PathBuf,
    /// A JSON config file (a patch over the defaults).
    pub config_file: Option<PathBuf>,
    /// The tip revision (default `HEAD`).
    pub rev: Option<String>,
    /// Learn before this commit, score after it.
    pub since: Option<String>,
    /// Learn over this share of the kept commits, score the rest.
    pub train_fraction: Option<f64>,
    /// Commits with more files are skipped.
    pub max_files: usize,
    /// The pack to use instead of the repository's.
    pub pack_file: Option<PathBuf>,
    /// Where to write the trace as protocol lines.
    pub trace_out: Option<PathBuf>,
    /// Start the learning engine from a copy of this store's learned rows (backtest only;
    /// the file is only read).
    pub store: Option<PathBuf>,
    /// Mine a pack from the training commits even when the repository has one (`--pack`
    /// still wins).
    pub mine_always: bool,
    /// Run the learning engine only (and the co-change baselines), not the static one.
    pub learning_only: bool,
    /// Read only the newest this many first-parent commits.
    pub newest: Option<usize>,
    /// The history already read with these options (`init` reads it once for both).
    pub history: Option<History>,
    /// Also score the change-boundary check (`check-change`) on the scored commits.
    pub boundary: bool,
    /// The pack whose companions are the boundary's simulated misses (default: the pack in
    /// use).
    pub reference_pack: Option<PathBuf>,
    /// With `boundary`: the learning engine learns from a reminder at each scored commit cut
    /// short, as from a real Stop reminder (the simulated agent adds each named file its
    /// commit has and declines the rest).
    pub boundary_learns: bool,
}

/// The engine's config for a run: the file's fields, then what the trace needs: a window
/// as long as the largest kept commit (so a companion changed in the same commit counts as
/// followed), and no ledger file.
pub fn run_config(options: &Options, learn: bool) -> Result<Config, BacktestError> {
    let mut config = host::load_config(options.config_file.as_deref())?;
    config.learn_window = config
        .learn_window
        .max(u32::try_from(options.max_files).unwrap_or(u32::MAX));
    config.log = false;
    if !learn {
        config.learn = false;
    }
    Ok(config)
}
