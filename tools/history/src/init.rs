//! `docsuggest init`: a pack mined from the repository's own first-parent history, written to
//! `.dsh/doc-pack.json` (or printed), with a backtest of what mining gives on the newest part
//! of the history.

use crate::backtest::{self, Report};
use crate::history::{self, HistoryError, ReadOptions};
use crate::{MineOptions, Mined, mine};
use docsuggest_schema::pack::REPO_PACK_PATH;
use std::path::{Path, PathBuf};

// Named here by the CLI (`init --max-commits`'s default) and the init benchmark.
pub use crate::mine::MAX_MINED_COMMITS;

/// The share of the history the report's backtest mines from before scoring the rest.
pub const REPORT_TRAIN_FRACTION: f64 = 0.75;

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
    };
    if options.print {
        return Ok(report);
    }
    write_pack(&root, &file, &report.pack_json)?;
    report.pack_file = Some(file.display().to_string());
    if !options.no_backtest {
        // The pack is written and valid: a backtest that cannot run is reported, not an
        // error that would make a written pack look like a failed init.
        let run = backtest::backtest(&backtest::Options {
            repo: root.clone(),
            rev: options.rev.clone(),
            train_fraction: Some(REPORT_TRAIN_FRACTION),
            max_files: backtest::DEFAULT_MAX_FILES,
            mine_always: true,
            // The report compares the mined pack's learning engine with co-change; the
            // static engine would double the time for a figure no one acts on here.
            learning_only: true,
            newest: Some(options.max_commits.max(1)),
            history: Some(history),
            ..backtest::Options::default()
        });
        match run {
            Ok(r) => report.backtest = Some(r),
            Err(e) => report.backtest_error = Some(e.to_string()),
        }
    }
    Ok(report)
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
                writeln!(
                    f,
                    "      {:<48} {:>4.0}%  {:>5} commits  {}{}",
                    c.path,
                    c.rate * 100.0,
                    c.commits,
                    c.form,
                    for_files
                )?;
            }
        }
        if let Some(report) = &self.backtest {
            writeln!(
                f,
                "\nbacktest: a pack mined from the oldest {:.0}% of the history, scored on the rest:",
                REPORT_TRAIN_FRACTION * 100.0
            )?;
            write!(f, "{report}")?;
        }
        if let Some(why) = &self.backtest_error {
            writeln!(f, "\nno backtest: {why}")?;
        }
        Ok(())
    }
}
