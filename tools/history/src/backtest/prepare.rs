//! Preparation: the history read (or the one given), the pack chosen, the kept commits made
//! turns, the scratch work tree and the keys the runs record under, the neutral file of the
//! trailing reads, and where training ends and scoring begins ([`Prepared`]).

use super::error::BacktestError;
use super::history::{self, History};
use super::options::Options;
use super::pack::{MinedFrom, mine_training, parse_pack, work_tree_pack};
use super::scratch;
use super::trace::{self, Skipped, Turn};
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_schema::Config;
use docsuggest_schema::pack::{DEFAULT_SIGNATURE, REPO_PACK_PATH};
use std::path::{Path, PathBuf};

/// A history ready to run: the turns, the pack, the workspace the engine judges in.
pub struct Prepared {
    /// The repository the trees are read from.
    pub(super) repo: PathBuf,
    /// The history read.
    pub history: History,
    /// Where the pack came from.
    pub pack_source: String,
    /// The pack.
    pub pack: CompiledPack,
    /// The kept commits as turns.
    pub turns: Vec<Turn>,
    /// What was skipped.
    pub skipped: Skipped,
    /// The workspace every call is judged in (absolute): the scratch work tree.
    pub workspace: String,
    /// The scratch work tree, following the history.
    pub(super) scratch: scratch::Scratch,
    /// When the work tree holds the pack in use: its keys, under which every run records.
    pub(super) keys: Option<scratch::Keys>,
    /// The neutral file of the trailing reads.
    pub neutral: String,
    /// Neutral reads after each turn's files.
    pub pad: usize,
    /// Turns before this index train only.
    pub split: usize,
    /// The pack was mined from the training commits (no pack was given or found).
    pub mined: Option<MinedFrom>,
    /// Scored commits the pack in use says it was mined from (its `mined` record): its
    /// figures there are in-sample.
    pub in_sample: usize,
}

impl Prepared {
    /// Whether what the engine learns is keyed to the scratch work tree rather than to the
    /// repository's work tree (a bare repository, or a work tree whose pack differs from the
    /// one in use): then no store of the work tree can be filled or started from.
    pub fn shadowed(&self) -> bool {
        self.keys.is_none()
    }

    /// The workspace the runs record for: the work tree when it holds the pack in use, else
    /// the scratch work tree.
    pub fn recorded_workspace(&self) -> String {
        match &self.keys {
            Some(keys) => keys.work_tree().display().to_string(),
            None => self.workspace.clone(),
        }
    }
}

/// Reads the history and builds the turns.
pub fn prepare(options: &Options, config: &Config) -> Result<Prepared, BacktestError> {
    check_arguments(options)?;
    let history = match &options.history {
        Some(history) => history.clone(),
        None => read_history(options)?,
    };
    let chosen = choose_pack(options, &history)?;
    let (source, pack) = parse_pack(chosen.text.as_deref(), &chosen.source)?;
    let (turns, skipped) = trace::turns(&history.commits, &pack, options.max_files);
    if turns.is_empty() {
        return Err(BacktestError::Argument(format!(
            "no commit of {} touches a family of the pack ({} first-parent commits read)",
            options.repo.display(),
            history.commits.len()
        )));
    }
    let scratch = scratch::Scratch::new(&source)?;
    let workspace = scratch.path().to_path_buf();
    let keys = work_tree_keys(&history, &workspace, &chosen.text);
    let repo = history
        .work_tree
        .clone()
        .unwrap_or_else(|| options.repo.clone());
    let neutral = neutral_file(&history.tip_paths, &pack, &config.exclude);
    let split = split_at(options, &history, &turns, chosen.mined.as_ref())?;
    let in_sample = in_sample(&source, &history, &turns[split..]);
    Ok(Prepared {
        in_sample,
        repo,
        pad: config.learn_window as usize,
        workspace: workspace.display().to_string(),
        history,
        pack_source: chosen.source,
        pack,
        turns,
        skipped,
        scratch,
        keys,
        neutral,
        split,
        mined: chosen.mined,
    })
}

/// How many of the scored `turns` lie in the commits the pack records it was mined from: from
/// its `mined.from` (or the oldest commit read, when that one is older than the history
/// read) to its `mined.to`, on the first-parent chain read. None when the pack records no
/// such commits or its tip is not on the chain.
fn in_sample(pack: &docsuggest_schema::Pack, history: &History, scored: &[Turn]) -> usize {
    let Some(mined) = &pack.mined else {
        return 0;
    };
    let at = |id: &str| history.commits.iter().position(|c| c.id == id);
    let Some(to) = at(&mined.to) else {
        return 0;
    };
    let from = at(&mined.from).unwrap_or(0);
    scored
        .iter()
        .filter(|t| (from..=to).contains(&t.position))
        .count()
}

/// Refuses `--max-files 0` and a `--train-fraction` outside [0, 1).
fn check_arguments(options: &Options) -> Result<(), BacktestError> {
    if options.max_files == 0 {
        return Err(BacktestError::Argument(
            "--max-files must be at least 1".into(),
        ));
    }
    if let Some(f) = options.train_fraction
        && !(0.0..1.0).contains(&f)
    {
        return Err(BacktestError::Argument(format!(
            "--train-fraction {f} is not in [0, 1)"
        )));
    }
    Ok(())
}

/// The pack chosen: its text (`None`: the built-in one), where it came from, and what it
/// was mined from when it was mined.
struct Chosen {
    text: Option<String>,
    source: String,
    mined: Option<MinedFrom>,
}

/// The pack the user gave, else the work tree's, the tip's or the built-in one, else one
/// mined from the training commits.
fn choose_pack(options: &Options, history: &History) -> Result<Chosen, BacktestError> {
    let mut mined = None;
    let (text, source) = match &options.pack_file {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| BacktestError::Pack {
                file: file.display().to_string(),
                reason: e.to_string(),
            })?;
            (Some(text), file.display().to_string())
        }
        None => match &history.tip_pack {
            // A pack in the work tree that the tip does not hold (not committed yet, or
            // changed since) is the one the user means.
            _ if !options.mine_always
                && let Some(text) = history.work_tree.as_deref().and_then(work_tree_pack)
                && history.tip_pack.as_deref() != Some(text.as_str()) =>
            {
                let how = if history.tip_pack.is_some() {
                    "changed since the tip"
                } else {
                    "not committed"
                };
                (
                    Some(text),
                    format!("{REPO_PACK_PATH} in the work tree ({how})"),
                )
            }
            Some(text) if !options.mine_always => {
                (Some(text.clone()), format!("{REPO_PACK_PATH} at the tip"))
            }
            _ if !options.mine_always
                && history.tip_paths.iter().any(|p| p == DEFAULT_SIGNATURE) =>
            {
                (None, "built-in".to_string())
            }
            _ => {
                let from = mine_training(options, history)?;
                let source = format!(
                    "mined from the first {} first-parent commits (up to {}); no scored commit was mined",
                    from.commits, from.last_commit
                );
                let text = from.pack.clone();
                mined = Some(from);
                (Some(text), source)
            }
        },
    };
    Ok(Chosen {
        text,
        source,
        mined,
    })
}

/// The engine judges in a scratch work tree (`workspace`) that follows the history, with the
/// pack in use at its root; when the work tree holds that same pack (`pack_text`), what it
/// records is keyed as the work tree's.
fn work_tree_keys(
    history: &History,
    workspace: &Path,
    pack_text: &Option<String>,
) -> Option<scratch::Keys> {
    history
        .work_tree
        .as_deref()
        .filter(|w| work_tree_pack(w) == *pack_text)
        .map(|w| {
            let work = docsuggest_host::home::absolute(w).unwrap_or_else(|_| w.to_path_buf());
            scratch::Keys::new(workspace, &work)
        })
}

/// How many of `turns` train only: those a mined pack has seen, else those up to `--since`,
/// else the `--train-fraction` of them; refused when no turn is left to score.
fn split_at(
    options: &Options,
    history: &History,
    turns: &[Turn],
    mined: Option<&MinedFrom>,
) -> Result<usize, BacktestError> {
    let split = match (&history.since, options.train_fraction) {
        // A mined pack has seen the first commits of the chain, whatever the pack keeps.
        _ if mined.is_some() => {
            let mined_commits = mined.map_or(0, |m| m.commits);
            turns.iter().filter(|t| t.position < mined_commits).count()
        }
        (Some(since), _) => {
            let at = history
                .commits
                .iter()
                .position(|c| &c.id == since)
                .unwrap_or(0);
            turns.iter().filter(|t| t.position <= at).count()
        }
        (None, Some(f)) => (f * turns.len() as f64).floor() as usize,
        (None, None) => 0,
    };
    if split >= turns.len() {
        return Err(BacktestError::Argument(format!(
            "no kept commit is left to score after the first {split}"
        )));
    }
    Ok(split)
}

/// Reads the history `options` name, with a progress bar on a terminal.
fn read_history(options: &Options) -> Result<History, BacktestError> {
    let bar = crate::progress::bar_for(u64::MAX, 0, "reading history {spinner} {pos} commits");
    let history = history::read_with(
        &options.repo,
        &history::ReadOptions {
            rev: options.rev.as_deref(),
            since: options.since.as_deref(),
            max_files: options.max_files,
            newest: options.newest,
        },
        |n| {
            if n % 256 == 0 {
                bar.set_position(n as u64)
            }
        },
    )?;
    bar.finish_and_clear();
    Ok(history)
}

/// A tip file in no family (a licence first, as the development set uses), for the reads
/// that age windows out. It need not exist at every commit: a read is judged by its path.
fn neutral_file(paths: &[String], pack: &CompiledPack, exclude: &[String]) -> String {
    let usable = |p: &str| {
        trace::family_of(pack, p).is_none()
            && !p.split('/').any(|c| exclude.iter().any(|e| e == c))
            && paths.binary_search_by(|q| q.as_str().cmp(p)).is_ok()
    };
    let preferred = [
        "LICENSE",
        "LICENSE-MIT",
        "LICENSE.md",
        "LICENSE.txt",
        "COPYING",
    ];
    preferred
        .iter()
        .map(|s| s.to_string())
        .chain(paths.iter().cloned())
        .find(|p| usable(p))
        .unwrap_or_else(|| REPO_PACK_PATH.to_string())
}
