//! Where a run's pack comes from: the work tree's pack file, a pack mined from the training
//! commits when none is given or found ([`MinedFrom`]), and a pack's text parsed and
//! compiled.

use super::error::BacktestError;
use super::history::{self, History};
use super::options::Options;
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_schema::pack::{Pack, REPO_PACK_PATH};
use std::path::Path;

/// The pack file in the work tree, when it is a regular file (a symlink is not followed).
pub(super) fn work_tree_pack(dir: &Path) -> Option<String> {
    let file = dir.join(REPO_PACK_PATH);
    let meta = std::fs::symlink_metadata(&file).ok()?;
    if !meta.is_file() || meta.len() > history::MAX_PACK_BYTES {
        return None;
    }
    std::fs::read_to_string(file).ok()
}

/// The commits a pack is mined from when a backtest has no pack: those up to `--since`, or
/// the first `--train-fraction` of the first-parent commits (half when neither is given),
/// mined against the paths of the last of them. The commits after them are scored.
pub(super) fn mine_training(
    options: &Options,
    history: &History,
) -> Result<MinedFrom, BacktestError> {
    let n = history.commits.len();
    let (commits, default_fraction) = match (&history.since, options.train_fraction) {
        (Some(since), _) => (
            history
                .commits
                .iter()
                .position(|c| &c.id == since)
                .map_or(0, |at| at + 1),
            false,
        ),
        (None, Some(f)) => ((f * n as f64).floor() as usize, false),
        (None, None) => (n / 2, true),
    };
    if commits == 0 || commits >= n {
        return Err(BacktestError::Argument(format!(
            "the repository has no pack to backtest and none can be mined without scoring the \
             commits it was mined from: {commits} of {n} first-parent commits would train \
             (pass --pack FILE, or --since REV / --train-fraction F leaving commits on both sides)"
        )));
    }
    let last = &history.commits[commits - 1];
    let work_tree = history.work_tree.as_deref().unwrap_or(&options.repo);
    let tip_paths = history::paths_at(work_tree, &last.id)?;
    let mine_options = crate::MineOptions {
        max_files: options.max_files,
        ..Default::default()
    };
    let mined = crate::mine(&history.commits[..commits], &tip_paths, &mine_options);
    Ok(MinedFrom {
        commits,
        last_commit: last.id.clone(),
        default_fraction,
        families: mined.families.len(),
        pack: mined.pack_json(),
    })
}

/// The pack a backtest mined because it was given none.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MinedFrom {
    /// First-parent commits mined (the oldest ones).
    pub commits: usize,
    /// The last commit mined.
    pub last_commit: String,
    /// Whether the split is the default half (neither `--since` nor `--train-fraction`).
    pub default_fraction: bool,
    /// Families mined.
    pub families: usize,
    /// The mined pack (JSON).
    #[serde(skip)]
    pub pack: String,
}

/// The pack in `file`, compiled.
pub(super) fn compile_pack_file(file: &Path) -> Result<CompiledPack, BacktestError> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|e| BacktestError::Pack {
        file: name.clone(),
        reason: e.to_string(),
    })?;
    parse_pack(Some(&text), &name).map(|(_, pack)| pack)
}

/// The pack `text` (the built-in one for `None`) from `source`, parsed and compiled.
pub(super) fn parse_pack(
    text: Option<&str>,
    source: &str,
) -> Result<(Pack, CompiledPack), BacktestError> {
    let unusable = |reason: String| BacktestError::Pack {
        file: source.to_string(),
        reason,
    };
    let pack = match text {
        Some(text) => Pack::from_json_str(text, source).map_err(|e| unusable(e.to_string()))?,
        None => Pack::builtin(),
    };
    let compiled = CompiledPack::compile(&pack, source).map_err(|e| unusable(e.to_string()))?;
    Ok((pack, compiled))
}
