//! `docsuggest report` (and `init --report`): the repository's backtest, run as `init` runs
//! it, and what the store has recorded there, made into one HTML page by
//! `docsuggest_report` and written in place (docs/REPORT.md).

mod open;
mod store;
mod write;

pub use open::open;

use docsuggest_history::backtest::{self, BacktestError, Report};
use docsuggest_history::history::{self, HistoryError};
use docsuggest_history::init::{self, REPORT_FILE};
use docsuggest_report::{Input, PackShown, ReportError};
use docsuggest_schema::Pack;
use docsuggest_schema::pack::REPO_PACK_PATH;
use std::path::{Path, PathBuf};

/// What `docsuggest report` is given.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// A directory inside the repository.
    pub repo: PathBuf,
    /// Where to write the page [default: `.dsh/report.html` in the work tree].
    pub out: Option<PathBuf>,
    /// The store file [default: the configured one].
    pub store: Option<PathBuf>,
    /// The tip of the history [default: HEAD].
    pub rev: Option<String>,
    /// Read at most this many of the newest first-parent commits.
    pub max_commits: usize,
}

/// Why no page was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportCommandError {
    /// The repository could not be read.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The backtest could not run.
    #[error("cannot make the report: {0}")]
    Backtest(#[from] BacktestError),
    /// The page could not be made.
    #[error(transparent)]
    Render(#[from] ReportError),
    /// A bare repository has no work tree for the default file.
    #[error("{0} is a bare repository: name the file to write with --out")]
    Bare(String),
    /// The page could not be written.
    #[error("cannot write {file}: {reason}")]
    Write {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
}

/// A page written.
#[derive(Debug, serde::Serialize)]
pub struct Written {
    /// The file.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// `docsuggest report`: the backtest `init` reports (with the static engine and the change
/// boundary), then the page from it.
pub fn report(options: &ReportOptions) -> Result<Written, ReportCommandError> {
    let root = history::discover(&options.repo)?;
    let started = std::time::Instant::now();
    let run = backtest::backtest(&init::report_backtest(
        &root,
        options.rev.clone(),
        options.max_commits,
        None,
        true,
    ))?;
    let backtest_seconds = started.elapsed().as_secs_f64();
    let out = options.out.as_deref();
    let written = write_report(&root, &run, out, options.store.as_deref())?;
    // What the page costs beyond its backtest (bench/README.md): `RUST_LOG=info`.
    tracing::info!(
        backtest_seconds,
        page_seconds = started.elapsed().as_secs_f64() - backtest_seconds,
        bytes = written.bytes,
        "report written"
    );
    Ok(written)
}

/// The page of a backtest over the repository at `root`, written to `out` (default:
/// [`REPORT_FILE`] in the work tree), with what `store` (default: the configured store) has
/// recorded there.
pub fn write_report(
    root: &Path,
    backtest: &Report,
    out: Option<&Path>,
    store: Option<&Path>,
) -> Result<Written, ReportCommandError> {
    let file = match out {
        Some(file) => file.to_path_buf(),
        None if !root.join(".git").exists() => {
            return Err(ReportCommandError::Bare(root.display().to_string()));
        }
        None => root.join(REPORT_FILE),
    };
    let (learned, stored_pack) = store::learned(root, store);
    let input = Input {
        backtest,
        backtest_command: format!(
            "docsuggest backtest {} --mine --train-fraction {} --boundary --json",
            root.display(),
            init::REPORT_TRAIN_FRACTION
        ),
        pack: pack_shown(root, backtest, stored_pack),
        learned,
    };
    let page = docsuggest_report::render(&input)?;
    write::write(&file, out.is_none(), page.as_bytes())?;
    Ok(Written {
        file: file.display().to_string(),
        bytes: page.len() as u64,
    })
}

/// The pack whose families the page lists: the work tree's pack file, else the pack the
/// store mined for the repository (zero-config), else the one the backtest mined.
fn pack_shown(root: &Path, backtest: &Report, stored: Option<String>) -> PackShown {
    let file = root.join(REPO_PACK_PATH);
    // Read as the engine reads a repo pack: bounded, never blocking, never through a symlink.
    let work_tree = docsuggest_engine::probe::read_regular(&file)
        .ok()
        .and_then(|text| Pack::from_json_str(&text, &file.display().to_string()).ok());
    if let Some(pack) = work_tree {
        return PackShown {
            source: format!("{REPO_PACK_PATH} in the work tree, the pack in use"),
            pack,
        };
    }
    let stored = stored.and_then(|text| Pack::from_json_str(&text, "the store's mined pack").ok());
    if let Some(pack) = stored {
        return PackShown {
            source: "the pack this machine mined for the repository, the pack in use".into(),
            pack,
        };
    }
    let mined = backtest.mined_from.as_ref().and_then(|m| {
        Pack::from_json_str(&m.pack, "the backtest's mined pack")
            .ok()
            .map(|pack| (m, pack))
    });
    match mined {
        Some((m, pack)) => PackShown {
            source: format!(
                "the pack the backtest mined from the oldest {} first-parent commits (the \
                 repository has no pack file yet: `docsuggest init` writes one)",
                m.commits
            ),
            pack,
        },
        None => PackShown {
            source: backtest.pack.clone(),
            pack: Pack {
                signature: Vec::new(),
                families: Vec::new(),
                mined: None,
                boundary: None,
            },
        },
    }
}
