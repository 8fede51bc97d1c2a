//! A repository's trees read one commit at a time, the repository kept open between reads:
//! the paths at a commit, and the trees a scratch work tree follows the history with.

use super::diff::Diff;
use super::tree_read::{blob_at, list, tree_of};
use super::{HistoryError, MAX_TIP_PATHS, OBJECT_CACHE_BYTES, Status, object_error};
use gix::ObjectId;
use std::path::Path;

/// The paths of the tree of commit `id` (hex) in the repository at `dir`, in path order: what
/// a mined pack may name when it is mined from the history up to that commit.
pub fn paths_at(dir: &Path, id: &str) -> Result<Vec<String>, HistoryError> {
    let name = dir.display().to_string();
    let repo = gix::open(dir).map_err(|e| HistoryError::NotARepository {
        path: name.clone(),
        reason: e.to_string(),
    })?;
    let oid = ObjectId::from_hex(id.as_bytes()).map_err(|e| HistoryError::Revision {
        rev: id.to_string(),
        path: name,
        reason: e.to_string(),
    })?;
    let (tree, _) = tree_of(&repo, oid)?;
    let mut paths = Vec::new();
    list(&repo, tree, "", &mut paths)?;
    paths.sort();
    Ok(paths)
}

/// A commit's tree, for [`Trees`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeId(ObjectId);

/// A repository's trees read one commit at a time: what a copy of the work tree needs to
/// follow the history from one commit to the next (`docsuggest backtest` judges each commit
/// against the tree as it was). Only the trees that differ are read.
pub struct Trees {
    repo: gix::Repository,
}

impl Trees {
    /// The trees of the repository at `dir`.
    pub fn open(dir: &Path) -> Result<Trees, HistoryError> {
        let mut repo = gix::open(dir).map_err(|e| HistoryError::NotARepository {
            path: dir.display().to_string(),
            reason: e.to_string(),
        })?;
        repo.object_cache_size_if_unset(OBJECT_CACHE_BYTES);
        Ok(Trees { repo })
    }

    /// The tree of the commit `id` (hex) and its first parent's (none for a root commit).
    pub fn of_commit(&self, id: &str) -> Result<(TreeId, Option<TreeId>), HistoryError> {
        let oid = ObjectId::from_hex(id.as_bytes()).map_err(|e| object_error(id, e))?;
        let (tree, parent) = tree_of(&self.repo, oid)?;
        let parent_tree = match parent {
            Some(p) => Some(TreeId(tree_of(&self.repo, p)?.0)),
            None => None,
        };
        Ok((TreeId(tree), parent_tree))
    }

    /// Every plain path that differs from `from` to `to` (`None`: the empty tree), in path
    /// order, as [`Commit::files`](super::Commit::files) lists a commit's: a file that becomes
    /// a directory is a deletion and additions below it, and a name that is not plain is left
    /// out (the history marks its commit odd). At most [`MAX_TIP_PATHS`] of them.
    pub fn changes(
        &self,
        from: Option<TreeId>,
        to: Option<TreeId>,
    ) -> Result<Vec<(Status, String)>, HistoryError> {
        if from == to {
            return Ok(Vec::new());
        }
        let mut diff = Diff::new(MAX_TIP_PATHS);
        diff.trees(&self.repo, from.map(|t| t.0), to.map(|t| t.0), "")?;
        if diff.full() {
            return Err(HistoryError::TooLarge(format!(
                "more than {MAX_TIP_PATHS} paths differ between two trees"
            )));
        }
        diff.files.sort_by(|a, b| a.1.cmp(&b.1));
        Ok(diff.files)
    }

    /// The text of the regular file `path` in `tree`, when there is one of at most
    /// [`MAX_PACK_BYTES`](super::MAX_PACK_BYTES) (a pack file; a larger one is refused).
    pub fn pack_text(&self, tree: TreeId, path: &str) -> Result<Option<String>, HistoryError> {
        blob_at(&self.repo, tree.0, path)
    }
}
