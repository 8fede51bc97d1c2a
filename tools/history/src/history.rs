//! Reading a repository's first-parent history with gix: each commit's changed paths against
//! its first parent (no rename detection), the paths at the tip, and the pack file there.
//!
//! A repository is hostile input: object sizes and path counts are bounded, names that could
//! climb or are not plain UTF-8 are refused (the commit is skipped as odd), and nothing here
//! touches the work tree.
//!
//! Here, the history read; in `diff`, two trees compared; in `tree_read`, tree and blob
//! objects read under the bounds; in `trees`, a repository's trees read commit by commit.

mod diff;
mod tree_read;
mod trees;

pub use tree_read::MAX_DEPTH;
pub use trees::{TreeId, Trees, paths_at};

use diff::changes;
use gix::ObjectId;
use std::path::Path;
use tree_read::{blob_at, list, tree_of};

/// At most this many paths are listed at the tip (a larger tree is refused).
pub const MAX_TIP_PATHS: usize = 2_000_000;
/// A pack file larger than this is refused.
pub const MAX_PACK_BYTES: u64 = 4 << 20;
/// At most this many commits are read from the first-parent chain.
pub const MAX_COMMITS: usize = 5_000_000;
/// The memory gix may keep for recently read objects while the history is read.
const OBJECT_CACHE_BYTES: usize = 64 << 20;

/// How a path changed in a commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Added.
    Added,
    /// Modified (content, mode or type).
    Modified,
    /// Deleted.
    Deleted,
}

/// One first-parent commit and the paths it changed, in path order.
#[derive(Clone, Debug)]
pub struct Commit {
    /// The commit id (hex).
    pub id: String,
    /// The changed plain paths; empty for an empty commit, and for one that changed only
    /// paths that are not plain (`odd` then says so: check it before calling a commit empty).
    pub files: Vec<(Status, String)>,
    /// More files changed than the bound: `files` holds only the first ones.
    pub bulk: bool,
    /// A path is not plain UTF-8 or could climb (`..`, control characters, quotes).
    pub odd: bool,
}

/// The history of a repository as the backtest reads it.
#[derive(Clone, Debug)]
pub struct History {
    /// The tip commit (hex).
    pub tip: String,
    /// The first-parent commits, oldest first.
    pub commits: Vec<Commit>,
    /// The paths at the tip, in path order.
    pub tip_paths: Vec<String>,
    /// The text of `.dsh/doc-pack.json` at the tip, when there is one.
    pub tip_pack: Option<String>,
    /// The work tree, when the repository has one.
    pub work_tree: Option<std::path::PathBuf>,
    /// The id of `--since`'s commit, resolved.
    pub since: Option<String>,
}

/// Why the history could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The directory is not a git repository.
    #[error("{path} is not a git repository: {reason}")]
    NotARepository {
        /// The directory given.
        path: String,
        /// What gix said.
        reason: String,
    },
    /// The history is shallow: the first-parent chain is cut.
    #[error("{0} is a shallow clone: its history is cut, fetch it whole (git fetch --unshallow)")]
    Shallow(String),
    /// HEAD points at no commit.
    #[error("{0} has no commits")]
    Empty(String),
    /// A revision does not resolve to a commit.
    #[error("revision {rev:?} does not exist in {path}: {reason}")]
    Revision {
        /// The revision.
        rev: String,
        /// The repository.
        path: String,
        /// What gix said.
        reason: String,
    },
    /// `--since` names a commit off the first-parent chain.
    #[error("--since {0} is not on the first-parent history of the tip")]
    SinceOffChain(String),
    /// An object could not be read or decoded.
    #[error("cannot read object {id}: {reason}")]
    Object {
        /// The object id.
        id: String,
        /// Why.
        reason: String,
    },
    /// A bound was passed.
    #[error("{0}")]
    TooLarge(String),
}

fn object_error(id: impl std::fmt::Display, e: impl std::fmt::Display) -> HistoryError {
    HistoryError::Object {
        id: id.to_string(),
        reason: e.to_string(),
    }
}

/// Reads the first-parent history of the repository at `dir` from `rev` (default `HEAD`).
/// Each commit's changes are listed up to `max_files + 1` paths (a larger commit is marked
/// bulk). `since`, when given, must be a commit on that chain.
pub fn read(
    dir: &Path,
    rev: Option<&str>,
    since: Option<&str>,
    max_files: usize,
    progress: impl FnMut(usize),
) -> Result<History, HistoryError> {
    read_with(
        dir,
        &ReadOptions {
            rev,
            since,
            max_files,
            newest: None,
        },
        progress,
    )
}

/// What [`read_with`] reads.
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions<'a> {
    /// The tip revision (default `HEAD`).
    pub rev: Option<&'a str>,
    /// A commit on the chain to split at (checked, not used here).
    pub since: Option<&'a str>,
    /// Each commit's changes are listed up to `max_files + 1` paths.
    pub max_files: usize,
    /// Read only the newest this many first-parent commits (the rest of the chain is not
    /// walked): bounds the time spent on a very long history.
    pub newest: Option<usize>,
}

/// Reads the first-parent history as [`read`] does, with the chain bounded by
/// `options.newest`.
pub fn read_with(
    dir: &Path,
    options: &ReadOptions<'_>,
    progress: impl FnMut(usize),
) -> Result<History, HistoryError> {
    let ReadOptions {
        rev,
        since,
        max_files,
        newest,
    } = *options;
    let name = dir.display().to_string();
    let repo = open_full(dir, &name)?;
    let tip = match rev {
        Some(rev) => resolve(&repo, &name, rev)?,
        None => match repo.head_id() {
            Ok(id) => id.detach(),
            Err(_) => return Err(HistoryError::Empty(name)),
        },
    };
    let since = since.map(|s| resolve(&repo, &name, s)).transpose()?;
    let chain = first_parent_chain(&repo, tip, newest)?;
    if let Some(since) = since
        && !chain.iter().any(|(id, _, _)| *id == since)
    {
        return Err(HistoryError::SinceOffChain(since.to_string()));
    }
    let commits = read_commits(&repo, &chain, max_files, progress)?;
    let (tip_paths, tip_pack) = match chain.last() {
        Some((_, tree, _)) => tip_contents(&repo, *tree)?,
        None => (Vec::new(), None),
    };
    Ok(History {
        tip: tip.to_string(),
        commits,
        tip_paths,
        tip_pack,
        work_tree: repo.workdir().map(Path::to_path_buf),
        since: since.map(|s| s.to_string()),
    })
}

/// A commit of the chain: its id, its tree, its first parent.
type Link = (ObjectId, ObjectId, Option<ObjectId>);

/// Opens the repository at `dir` (named `name` in errors), refusing a shallow one.
fn open_full(dir: &Path, name: &str) -> Result<gix::Repository, HistoryError> {
    let mut repo = gix::open(dir).map_err(|e| HistoryError::NotARepository {
        path: name.to_string(),
        reason: e.to_string(),
    })?;
    // Each commit's trees are read again as the next commit's parent side: a cache of
    // decoded objects saves inflating them twice.
    repo.object_cache_size_if_unset(OBJECT_CACHE_BYTES);
    if repo.is_shallow() {
        return Err(HistoryError::Shallow(name.to_string()));
    }
    Ok(repo)
}

/// The commit `spec` names in the repository (named `name` in errors).
fn resolve(repo: &gix::Repository, name: &str, spec: &str) -> Result<ObjectId, HistoryError> {
    let failed = |reason: String| HistoryError::Revision {
        rev: spec.to_string(),
        path: name.to_string(),
        reason,
    };
    let id = repo
        .rev_parse_single(spec)
        .map_err(|e| failed(e.to_string()))?;
    let object = id.object().map_err(|e| failed(e.to_string()))?;
    let commit = object.peel_to_commit().map_err(|e| failed(e.to_string()))?;
    Ok(commit.id)
}

/// The first-parent chain from `tip`, oldest first: its newest `newest` commits when given.
fn first_parent_chain(
    repo: &gix::Repository,
    tip: ObjectId,
    newest: Option<usize>,
) -> Result<Vec<Link>, HistoryError> {
    let mut chain = Vec::new();
    let mut next = Some(tip);
    while let Some(id) = next {
        if newest.is_some_and(|n| chain.len() >= n) {
            break;
        }
        if chain.len() >= MAX_COMMITS {
            return Err(HistoryError::TooLarge(format!(
                "the first-parent history is longer than {MAX_COMMITS} commits"
            )));
        }
        let (tree, parent) = tree_of(repo, id)?;
        chain.push((id, tree, parent));
        next = parent;
    }
    chain.reverse();
    Ok(chain)
}

/// Each commit of `chain` with its changes, `progress` told the count read after each.
fn read_commits(
    repo: &gix::Repository,
    chain: &[Link],
    max_files: usize,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Commit>, HistoryError> {
    let mut commits = Vec::with_capacity(chain.len());
    let mut previous: Option<ObjectId> = None;
    for (i, (id, tree, parent)) in chain.iter().enumerate() {
        // The parent's tree is the previous commit's on the chain, already known.
        let parent_tree = match (parent, previous) {
            (None, _) => None,
            (Some(_), Some(t)) => Some(t),
            (Some(p), None) => Some(tree_of(repo, *p)?.0),
        };
        let diff = changes(repo, *tree, parent_tree, max_files)?;
        commits.push(Commit {
            id: id.to_string(),
            bulk: diff.files.len() > max_files,
            odd: diff.odd,
            files: diff.files,
        });
        previous = Some(*tree);
        progress(i + 1);
    }
    Ok(commits)
}

/// The tip tree's paths, in order, and its pack file's text when it holds one.
fn tip_contents(
    repo: &gix::Repository,
    tree: ObjectId,
) -> Result<(Vec<String>, Option<String>), HistoryError> {
    let mut tip_paths = Vec::new();
    list(repo, tree, "", &mut tip_paths)?;
    tip_paths.sort();
    let tip_pack = blob_at(repo, tree, docsuggest_schema::pack::REPO_PACK_PATH)?;
    Ok((tip_paths, tip_pack))
}

/// Whether the repository at `root` opens and its HEAD names no commit: one just made by
/// `git init`, with no history to mine or replay.
pub fn has_no_commits(root: &Path) -> bool {
    gix::open(root).is_ok_and(|repo| repo.head_id().is_err())
}

/// The root of the git work tree holding `dir` (or the repository itself when it is bare).
pub fn discover(dir: &Path) -> Result<std::path::PathBuf, HistoryError> {
    let repo = gix::discover(dir).map_err(|e| HistoryError::NotARepository {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok(match repo.workdir() {
        Some(w) => w.to_path_buf(),
        None => repo.git_dir().to_path_buf(),
    })
}

#[cfg(test)]
mod tests;
