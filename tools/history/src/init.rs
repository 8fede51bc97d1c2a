//! `docsuggest init`: a pack mined from the repository's own first-parent history, written to
//! `.dsh/doc-pack.json` (or printed), with a backtest of what mining gives on the newest part
//! of the history.

use crate::backtest::boundary::BoundaryReport;
use crate::backtest::{self, Report};
use crate::history::{self, HistoryError, ReadOptions};
use crate::{MineOptions, Mined, mine};
use docsuggest_schema::pack::{BoundaryFigures, REPO_PACK_PATH};
use std::path::{Path, PathBuf};

mod estimate;
mod stop_mode;
pub use estimate::{ESTIMATE_SPLITS, Estimate, wilson};

// Named here by the CLI (`init --max-commits`'s default) and the init benchmark.
pub use crate::mine::MAX_MINED_COMMITS;

/// The share of the history the report's backtest mines from before scoring the rest.
pub const REPORT_TRAIN_FRACTION: f64 = 0.75;

/// Where `docsuggest report` (and `init --report`) writes the HTML report, in the work tree.
pub const REPORT_FILE: &str = ".dsh/report.html";

/// What `init` is given.
#[derive(Clone, Debug)]
pub struct InitOptions {
    /// A directory inside the repository [default: the current directory].
    pub repo: PathBuf,
    /// The tip of the history mined [default: HEAD].
    pub rev: Option<String>,
    /// Print the pack instead of writing it (nothing is written, no backtest runs).
    pub print: bool,
    /// Replace an existing pack file.
    pub force: bool,
    /// Skip the backtest of the report.
    pub no_backtest: bool,
    /// Mine at most this many of the newest first-parent commits.
    pub max_commits: usize,
    /// Run the backtest the HTML report shows (`init --report`): the static engine and the
    /// change boundary too ([`report_backtest`]).
    pub full_backtest: bool,
}

/// The backtest `init` reports and `docsuggest report` shows: a pack mined from the oldest
/// [`REPORT_TRAIN_FRACTION`] of the newest `newest` first-parent commits of `root` (up to
/// `rev`), scored on the rest, out-of-sample. `full` adds the static engine (the report's
/// sections); without it the learning engine and co-change run, the figures `init`'s text acts
/// on (the static engine would double the time for a figure no one acts on there). The change
/// boundary, learning from its own reminders, always runs: it decides whether the Stop
/// reminder may block. The same as `docsuggest backtest --mine --train-fraction 0.75
/// --boundary --boundary-learns` on a history of at most `newest` commits.
pub fn report_backtest(
    root: &Path,
    rev: Option<String>,
    newest: usize,
    history: Option<history::History>,
    full: bool,
) -> backtest::Options {
    backtest::Options {
        repo: root.to_path_buf(),
        rev,
        train_fraction: Some(REPORT_TRAIN_FRACTION),
        max_files: backtest::DEFAULT_MAX_FILES,
        mine_always: true,
        learning_only: !full,
        // The boundary, learning from its own reminders, is what decides whether the Stop
        // reminder may block here (the pack's `boundary`).
        boundary: true,
        boundary_learns: true,
        newest: Some(newest.max(1)),
        history,
        ..backtest::Options::default()
    }
}

/// What the Stop reminder would do in the repository at `root` whose `history` this is,
/// measured as `init` measures it (its backtests' boundaries, pooled): the pack's
/// `boundary`. `Ok(None)` when no backtest measured the boundary.
pub fn measure_stop(
    root: &Path,
    history: &history::History,
) -> Result<Option<BoundaryFigures>, backtest::BacktestError> {
    let (run, later) = backtests(root, None, MAX_MINED_COMMITS, history, false);
    Ok(stop_mode::may_block(&boundaries(&run?, &later)))
}

/// Why `init` could not mine or write.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    /// The history could not be read.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The repository has no commit yet: nothing to mine.
    #[error(
        "{0} has no commits yet, so there is no history to mine a pack from: commit some work \
         and run init again, or write .dsh/doc-pack.json by hand (docs/PACK.md)"
    )]
    NoHistory(String),
    /// A pack file is already there.
    #[error("{0} already holds a pack: pass --force to replace it")]
    Exists(String),
    /// A bare repository has no work tree to write into.
    #[error("{0} is a bare repository: there is no work tree to write the pack into (use --print)")]
    Bare(String),
    /// Mining found nothing worth a note.
    #[error(
        "no family found in the {commits} first-parent commits of {repo}: no file's changes go with \
         other changes often enough to be worth a note"
    )]
    Nothing {
        /// The repository.
        repo: String,
        /// Commits read.
        commits: usize,
    },
    /// The pack could not be written.
    #[error("cannot write {file}: {reason}")]
    Write {
        /// The pack file.
        file: String,
        /// Why.
        reason: String,
    },
}

/// What `init` did.
#[derive(Debug, serde::Serialize)]
pub struct InitReport {
    /// The repository's work tree (or git directory when bare).
    pub repo: String,
    /// The commit mined up to.
    pub tip: String,
    /// The pack file written, unless printing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack_file: Option<String>,
    /// What was mined.
    pub mined: Mined,
    /// The mined pack (JSON text, as written).
    #[serde(skip)]
    pub pack_json: String,
    /// A pack mined from the oldest 3/4 of the history, backtested on the newest 1/4.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backtest: Option<Report>,
    /// Why the report's backtest could not run (the pack is written all the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backtest_error: Option<String>,
    /// What the backtest estimates the learning engine's companion precision on new commits
    /// to be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
    /// The HTML report written from the backtest (`init --report`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_file: Option<String>,
    /// Why `init --report` wrote no report (the pack is written all the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_error: Option<String>,
}

/// Mines the repository holding `options.repo`; writes the pack unless printing.
pub fn init(options: &InitOptions) -> Result<InitReport, InitError> {
    let root = history::discover(&options.repo)?;
    let name = root.display().to_string();
    let bare = !root.join(".git").exists();
    let file = root.join(REPO_PACK_PATH);
    if !options.print {
        if bare {
            return Err(InitError::Bare(name));
        }
        if std::fs::symlink_metadata(&file).is_ok() && !options.force {
            return Err(InitError::Exists(file.display().to_string()));
        }
    }
    let mine_options = MineOptions::default();
    let bar = crate::progress::bar_for(u64::MAX, 0, "reading history {spinner} {pos} commits");
    let history = history::read_with(
        &root,
        &ReadOptions {
            rev: options.rev.as_deref(),
            since: None,
            max_files: mine_options.max_files,
            newest: Some(options.max_commits.max(1)),
        },
        |n| {
            if n % 256 == 0 {
                bar.set_position(n as u64)
            }
        },
    )
    .map_err(|e| match e {
        // Only HEAD's emptiness: a `--rev` that names nothing is its own error.
        HistoryError::Empty(_) => InitError::NoHistory(name.clone()),
        e => InitError::History(e),
    })?;
    bar.finish_and_clear();
    let mined = mine(&history.commits, &history.tip_paths, &mine_options);
    if mined.families.is_empty() {
        return Err(InitError::Nothing {
            repo: name,
            commits: history.commits.len(),
        });
    }
    let pack_json = mined.pack_json();
    let mut report = InitReport {
        repo: name,
        tip: history.tip.clone(),
        pack_file: None,
        mined,
        pack_json,
        backtest: None,
        backtest_error: None,
        estimate: None,
        report_file: None,
        report_error: None,
    };
    if options.print {
        return Ok(report);
    }
    write_pack(&root, &file, &report.pack_json)?;
    report.pack_file = Some(file.display().to_string());
    if !options.no_backtest {
        // The pack is written and valid: a backtest that cannot run is reported, not an
        // error that would make a written pack look like a failed init.
        // The later splits run beside the report backtest (a split that panicked is left
        // out, as one that cannot run is).
        let (run, later) = backtests(
            &root,
            options.rev.clone(),
            options.max_commits,
            &history,
            options.full_backtest,
        );
        match run {
            Ok(r) => {
                let pooled: Vec<(f64, &Report)> = std::iter::once((REPORT_TRAIN_FRACTION, &r))
                    .chain(later.iter().map(|(split, b)| (*split, b)))
                    .collect();
                report.estimate = Estimate::pooled(&pooled);
                if let Some(figures) = stop_mode::may_block(&boundaries(&r, &later)) {
                    report.mined.boundary = Some(figures);
                    report.pack_json = report.mined.pack_json();
                    write_pack(&root, &file, &report.pack_json)?;
                }
                report.backtest = Some(r);
            }
            Err(e) => report.backtest_error = Some(e.to_string()),
        }
    }
    Ok(report)
}

/// `init`'s backtests of `history`: the report's (`full`: the static engine's too) and,
/// beside it, the learning engine's at the later splits ([`ESTIMATE_SPLITS`]), each a pack
/// mined from the commits before its split, which the estimate and the Stop measurement pool
/// with it (a split that cannot run, or panicked, is left out).
fn backtests(
    root: &Path,
    rev: Option<String>,
    newest: usize,
    history: &history::History,
    full: bool,
) -> (Result<Report, backtest::BacktestError>, Vec<(f64, Report)>) {
    let options = |full| report_backtest(root, rev.clone(), newest, Some(history.clone()), full);
    std::thread::scope(|scope| {
        let later = scope.spawn(|| {
            (ESTIMATE_SPLITS.iter())
                .filter_map(|&split| {
                    let backtest = backtest::Options {
                        train_fraction: Some(split),
                        learning_only: true,
                        ..options(false)
                    };
                    backtest::backtest(&backtest).ok().map(|r| (split, r))
                })
                .collect()
        });
        let run = backtest::backtest(&options(full));
        (run, later.join().unwrap_or_default())
    })
}

/// The boundaries `report` and the `later` splits measured.
fn boundaries<'a>(report: &'a Report, later: &'a [(f64, Report)]) -> Vec<&'a BoundaryReport> {
    (std::iter::once(report).chain(later.iter().map(|(_, r)| r)))
        .filter_map(|r| r.boundary.as_ref())
        .collect()
}

/// Writes the pack under a temporary name, then renames it in place; the `.dsh` directory must
/// be a real directory inside the work tree (a symlink is not followed out of it).
fn write_pack(root: &Path, file: &Path, text: &str) -> Result<(), InitError> {
    let fail = |reason: String| InitError::Write {
        file: file.display().to_string(),
        reason,
    };
    let dir = file.parent().unwrap_or(root);
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => {
            return Err(fail(format!("{} is not a directory", dir.display())));
        }
        Ok(_) => {}
        Err(_) => std::fs::create_dir(dir).map_err(|e| fail(e.to_string()))?,
    }
    // The file is meant to be committed: created as any new file is under the user's umask
    // (0644 under 022), not tempfile's private 0600.
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir).map_err(|e| fail(e.to_string()))?;
    std::io::Write::write_all(&mut temp, text.as_bytes()).map_err(|e| fail(e.to_string()))?;
    temp.persist(file).map_err(|e| fail(e.to_string()))?;
    Ok(())
}

impl std::fmt::Display for InitReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.pack_file {
            Some(file) => writeln!(f, "wrote {file}")?,
            None => writeln!(f, "mined (not written)")?,
        }
        writeln!(
            f,
            "mined {} families from {} first-parent commits of {} ({} used; up to {})",
            self.mined.families.len(),
            self.mined.commits_read,
            self.repo,
            self.mined.commits_used,
            &self.tip[..self.tip.len().min(12)],
        )?;
        let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
        for c in self.mined.families.iter().flat_map(|f| &f.companions) {
            *kinds.entry(c.form).or_default() += 1;
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        writeln!(f, "companions by kind: {}", kinds.join(", "))?;
        self.write_validation(f)?;
        self.write_families(f)?;
        self.write_backtest(f)
    }
}

/// A commit id cut to its first twelve characters.
fn short(id: &str) -> String {
    id[..id.len().min(12)].to_string()
}

impl InitReport {
    /// How the history chose the pack's companions, or why it did not.
    fn write_validation(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.mined.validation, &self.mined.unvalidated) {
            (Some(v), _) => writeln!(
                f,
                "chosen by the history itself: {} candidates proposed by commits {}..{}, {} kept \
                 on commits {}..{} (each followed there, shrunk toward its earlier share, at \
                 least {:.2}: co-change's precision there{}); the percentages below are the \
                 priors, counted on every commit; \"followed\" is out-of-sample only for what \
                 the older commits proposed",
                v.candidates,
                short(&v.proposed_from),
                short(&v.validated_from),
                v.kept,
                short(&v.validated_from),
                short(&v.to),
                v.bar,
                match v.cochange_precision {
                    Some(p) if p < v.bar => format!(" was {p:.2}, below the floor"),
                    Some(_) => String::new(),
                    None => ": none named, the floor".into(),
                },
            ),
            (None, Some(why)) => writeln!(f, "{why}"),
            (None, None) => Ok(()),
        }
    }

    /// Each mined family with its companions.
    fn write_families(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for family in &self.mined.families {
            writeln!(
                f,
                "  {}  {}  ({} commits)",
                family.name, family.rule, family.commits
            )?;
            for c in &family.companions {
                let for_files = match c.for_files.as_slice() {
                    [] => String::new(),
                    [one] => format!("  for {one}"),
                    [one, rest @ ..] => format!("  for {one} and {} more", rest.len()),
                };
                let followed = match c.validated {
                    Some(v) => format!("  followed {}/{}", v.followed, v.named),
                    None => String::new(),
                };
                writeln!(
                    f,
                    "      {:<48} {:>4.0}%  {:>5} commits  {}{}{}",
                    c.path,
                    c.rate * 100.0,
                    c.commits,
                    c.form,
                    followed,
                    for_files
                )?;
            }
        }
        Ok(())
    }

    /// The out-of-sample backtest, the estimate drawn from it, or why there was none.
    fn write_backtest(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(report) = &self.backtest {
            writeln!(
                f,
                "\nbacktest, out-of-sample: a pack mined from the oldest {:.0}% of the history \
                 (up to {}), scored on the {} commits after it:",
                REPORT_TRAIN_FRACTION * 100.0,
                report
                    .mined_from
                    .as_ref()
                    .map_or(String::new(), |m| short(&m.last_commit)),
                report.scored_commits,
            )?;
            write!(f, "{report}")?;
        }
        if let Some(b) = &self.mined.boundary {
            let mode = if b.may_block {
                "may hold the agent up on a claim whose evidence clears blockBar"
            } else {
                "only informs the user: it would too often be wrong to hold the agent up"
            };
            writeln!(
                f,
                "\nthe Stop reminder {mode} ({} of {} blocks at its Stops were right, \
                 out-of-sample, on unfinished changes and finished ones; the pack's `boundary`)",
                b.right, b.reminders
            )?;
        }
        if let Some(e) = &self.estimate {
            writeln!(
                f,
                "\nexpect the learning engine's named companions to be followed about {:.0}% of \
                 the time on new commits (95% interval {:.0}-{:.0}%, from {} named on commits the \
                 scored packs had not seen, packs mined from the oldest {} of the history)",
                e.companion_precision * 100.0,
                e.low * 100.0,
                e.high * 100.0,
                e.named,
                e.splits
                    .iter()
                    .map(|s| format!("{:.0}%", s * 100.0))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
        if let Some(why) = &self.backtest_error {
            writeln!(f, "\nno backtest: {why}")?;
        }
        match (&self.report_file, &self.report_error) {
            (Some(file), _) => writeln!(
                f,
                "\nreport: {file} (charts and tables of this backtest; open it in a browser)"
            ),
            (None, Some(why)) => writeln!(f, "\nno report: {why}"),
            (None, None) if self.pack_file.is_some() => writeln!(
                f,
                "\nreport: `docsuggest report` writes charts and tables of this backtest, and of \
                 what is learned here later, to {}/{REPORT_FILE} (`init --report` writes it too)",
                self.repo
            ),
            (None, None) => Ok(()),
        }
    }
}
