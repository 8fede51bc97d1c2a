//! Reading a repository's first-parent history with gix: each commit's changed paths against
//! its first parent (no rename detection), the paths at the tip, and the pack file there.
//!
//! A repository is hostile input: object sizes and path counts are bounded, names that could
//! climb or are not plain UTF-8 are refused (the commit is skipped as odd), and nothing here
//! touches the work tree.

use gix::ObjectId;
use std::collections::BTreeMap;
use std::path::Path;

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

/// What an entry of a tree is, for diffing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Tree,
    /// A blob, a symlink or a submodule: a path a commit changes. The mode is kept so a mode
    /// change counts as a modification, as git reports it.
    File(u16),
}

type Entries = BTreeMap<Vec<u8>, (Kind, ObjectId)>;

/// A tree's entries borrowed from its object, by name.
type Borrowed<'a> = Vec<(&'a [u8], (Kind, ObjectId))>;

fn entries(repo: &gix::Repository, id: Option<ObjectId>) -> Result<Entries, HistoryError> {
    let mut out = Entries::new();
    let Some(id) = id else { return Ok(out) };
    let object = repo.find_object(id).map_err(|e| object_error(id, e))?;
    let tree = object.try_into_tree().map_err(|e| object_error(id, e))?;
    let decoded = tree.decode().map_err(|e| object_error(id, e))?;
    for entry in decoded.entries {
        let kind = if entry.mode.is_tree() {
            Kind::Tree
        } else {
            Kind::File(entry.mode.value())
        };
        out.insert(entry.filename.to_vec(), (kind, entry.oid.to_owned()));
    }
    Ok(out)
}

/// A tree entry name joined under `prefix`, or `None` when it is not a plain name.
fn join(prefix: &str, name: &[u8]) -> Option<String> {
    let name = std::str::from_utf8(name).ok()?;
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name
            .chars()
            .any(|c| c == '/' || c == '\\' || c == '"' || docsuggest_schema::text::is_invisible(c));
    if !plain {
        return None;
    }
    Some(if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    })
}

struct Diff {
    files: Vec<(Status, String)>,
    limit: usize,
    odd: bool,
}

impl Diff {
    fn full(&self) -> bool {
        self.files.len() > self.limit
    }

    /// Every path that differs from `old` to `new` (`None`: the empty tree) below `prefix`.
    ///
    /// The walk keeps its own stack of directories still to compare, so a tree nested
    /// thousands of levels deep (git accepts one) costs heap, not the thread's stack; past
    /// [`MAX_DEPTH`] levels the history is refused.
    fn trees(
        &mut self,
        repo: &gix::Repository,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        prefix: &str,
    ) -> Result<(), HistoryError> {
        let mut pending: Vec<(Option<ObjectId>, Option<ObjectId>, String, usize)> =
            vec![(old, new, prefix.to_string(), depth_of(prefix))];
        while let Some((old, new, prefix, depth)) = pending.pop() {
            if self.full() {
                return Ok(());
            }
            if depth > MAX_DEPTH {
                return Err(too_deep());
            }
            let (old_tree, new_tree) = (load(repo, old)?, load(repo, new)?);
            let old = sorted(old_tree.as_ref())?;
            let new = sorted(new_tree.as_ref())?;
            let mut below = |a: Option<ObjectId>,
                             b: Option<ObjectId>,
                             name: &[u8],
                             odd: &mut bool| match join(&prefix, name) {
                Some(p) => pending.push((a, b, p, depth + 1)),
                None => *odd = true,
            };
            // Both sides are sorted by name: one merge pass pairs them.
            let (mut i, mut j) = (0, 0);
            loop {
                if self.files.len() > self.limit {
                    return Ok(());
                }
                let (name, a, b) = match (old.get(i), new.get(j)) {
                    (Some(x), Some(y)) => match x.0.cmp(y.0) {
                        std::cmp::Ordering::Less => {
                            i += 1;
                            (x.0, Some(x.1), None)
                        }
                        std::cmp::Ordering::Greater => {
                            j += 1;
                            (y.0, None, Some(y.1))
                        }
                        std::cmp::Ordering::Equal => {
                            (i, j) = (i + 1, j + 1);
                            (x.0, Some(x.1), Some(y.1))
                        }
                    },
                    (Some(x), None) => {
                        i += 1;
                        (x.0, Some(x.1), None)
                    }
                    (None, Some(y)) => {
                        j += 1;
                        (y.0, None, Some(y.1))
                    }
                    (None, None) => break,
                };
                let odd = &mut self.odd;
                match (a.as_ref(), b.as_ref()) {
                    (Some(a), Some(b)) if a == b => {}
                    (Some((Kind::Tree, a)), Some((Kind::Tree, b))) => {
                        below(Some(*a), Some(*b), name, odd)
                    }
                    (Some((Kind::Tree, a)), Some((Kind::File(_), _))) => {
                        below(Some(*a), None, name, odd);
                        push(&mut self.files, &mut self.odd, Status::Added, &prefix, name);
                    }
                    (Some((Kind::File(_), _)), Some((Kind::Tree, b))) => {
                        below(None, Some(*b), name, odd);
                        push(
                            &mut self.files,
                            &mut self.odd,
                            Status::Deleted,
                            &prefix,
                            name,
                        );
                    }
                    (Some((Kind::File(_), _)), Some((Kind::File(_), _))) => {
                        push(
                            &mut self.files,
                            &mut self.odd,
                            Status::Modified,
                            &prefix,
                            name,
                        );
                    }
                    (Some((Kind::Tree, a)), None) => below(Some(*a), None, name, odd),
                    (None, Some((Kind::Tree, b))) => below(None, Some(*b), name, odd),
                    (Some((Kind::File(_), _)), None) => push(
                        &mut self.files,
                        &mut self.odd,
                        Status::Deleted,
                        &prefix,
                        name,
                    ),
                    (None, Some((Kind::File(_), _))) => {
                        push(&mut self.files, &mut self.odd, Status::Added, &prefix, name)
                    }
                    (None, None) => {}
                }
            }
        }
        Ok(())
    }
}

/// A changed file at `prefix/name`, or an odd path.
fn push(
    files: &mut Vec<(Status, String)>,
    odd: &mut bool,
    status: Status,
    prefix: &str,
    name: &[u8],
) {
    match join(prefix, name) {
        Some(path) => files.push((status, path)),
        None => *odd = true,
    }
}

/// The most directory levels a history's trees may nest: deeper, the repository is refused
/// (no real project nests this deep; a crafted one can nest thousands of levels).
pub const MAX_DEPTH: usize = 512;

/// The levels of directories a path prefix stands for.
fn depth_of(prefix: &str) -> usize {
    if prefix.is_empty() {
        0
    } else {
        prefix.matches('/').count() + 1
    }
}

fn too_deep() -> HistoryError {
    HistoryError::TooLarge(format!(
        "a tree is nested more than {MAX_DEPTH} directories deep"
    ))
}

/// The tree object `id`, when there is one.
fn load(
    repo: &gix::Repository,
    id: Option<ObjectId>,
) -> Result<Option<gix::Tree<'_>>, HistoryError> {
    let Some(id) = id else { return Ok(None) };
    let object = repo.find_object(id).map_err(|e| object_error(id, e))?;
    object
        .try_into_tree()
        .map(Some)
        .map_err(|e| object_error(id, e))
}

/// A tree's entries borrowed from it, sorted by plain name (git sorts a subtree as if its name
/// ended in `/`, a diff pairs entries by name), the last of any repeated name kept as
/// [`entries`] keeps it.
fn sorted<'a>(tree: Option<&'a gix::Tree<'_>>) -> Result<Borrowed<'a>, HistoryError> {
    let Some(tree) = tree else {
        return Ok(Vec::new());
    };
    let decoded = tree.decode().map_err(|e| object_error(tree.id, e))?;
    let mut out: Borrowed<'a> = Vec::with_capacity(decoded.entries.len());
    for entry in decoded.entries {
        let kind = if entry.mode.is_tree() {
            Kind::Tree
        } else {
            Kind::File(entry.mode.value())
        };
        out.push((entry.filename.as_ref(), (kind, entry.oid.to_owned())));
    }
    // Nearly sorted already: a stable sort of runs is linear.
    out.sort_by(|a, b| a.0.cmp(b.0));
    let mut kept: Borrowed<'a> = Vec::with_capacity(out.len());
    for e in out {
        match kept.last_mut() {
            Some(last) if last.0 == e.0 => *last = e,
            _ => kept.push(e),
        }
    }
    Ok(kept)
}

/// The paths `commit` changed against `parent` (the empty tree for a root commit), at most
/// `limit + 1` of them.
fn changes(
    repo: &gix::Repository,
    tree: ObjectId,
    parent_tree: Option<ObjectId>,
    limit: usize,
) -> Result<Diff, HistoryError> {
    let mut diff = Diff {
        files: Vec::new(),
        limit,
        odd: false,
    };
    diff.trees(repo, parent_tree, Some(tree), "")?;
    diff.files.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(diff)
}

fn tree_of(
    repo: &gix::Repository,
    id: ObjectId,
) -> Result<(ObjectId, Option<ObjectId>), HistoryError> {
    let commit = repo.find_commit(id).map_err(|e| object_error(id, e))?;
    let tree = commit.tree_id().map_err(|e| object_error(id, e))?.detach();
    let parent = commit.parent_ids().next().map(|p| p.detach());
    Ok((tree, parent))
}

fn list(
    repo: &gix::Repository,
    tree: ObjectId,
    prefix: &str,
    out: &mut Vec<String>,
) -> Result<(), HistoryError> {
    // Its own stack, as the diff keeps one: a deep tree costs heap, not the thread's stack.
    let mut pending = vec![(tree, prefix.to_string(), depth_of(prefix))];
    while let Some((tree, prefix, depth)) = pending.pop() {
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        for (name, (kind, id)) in entries(repo, Some(tree))? {
            let Some(path) = join(&prefix, &name) else {
                continue;
            };
            match kind {
                Kind::Tree => pending.push((id, path, depth + 1)),
                Kind::File(_) => out.push(path),
            }
            if out.len() > MAX_TIP_PATHS {
                return Err(HistoryError::TooLarge(format!(
                    "the tip tree holds more than {MAX_TIP_PATHS} paths"
                )));
            }
        }
    }
    Ok(())
}

/// The blob at `path` under `tree`, when it is a regular file no larger than the bound.
fn blob_at(
    repo: &gix::Repository,
    tree: ObjectId,
    path: &str,
) -> Result<Option<String>, HistoryError> {
    let mut current = tree;
    let parts: Vec<&str> = path.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let found = entries(repo, Some(current))?;
        let Some((kind, id)) = found.get(part.as_bytes()) else {
            return Ok(None);
        };
        let last = i + 1 == parts.len();
        match (kind, last) {
            (Kind::Tree, false) => current = *id,
            // A symlink (mode 0o120000) is not followed: the pack must be a file in the tree.
            (Kind::File(mode), true) if *mode & 0o170000 == 0o100000 => {
                let header = repo.find_header(*id).map_err(|e| object_error(id, e))?;
                if header.size() > MAX_PACK_BYTES {
                    return Err(HistoryError::TooLarge(format!(
                        "{path} is larger than {MAX_PACK_BYTES} bytes"
                    )));
                }
                let object = repo.find_object(*id).map_err(|e| object_error(id, e))?;
                return Ok(Some(String::from_utf8_lossy(&object.data).into_owned()));
            }
            _ => return Ok(None),
        }
    }
    Ok(None)
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
    /// order, as [`Commit::files`] lists a commit's: a file that becomes a directory is a
    /// deletion and additions below it, and a name that is not plain is left out (the history
    /// marks its commit odd). At most [`MAX_TIP_PATHS`] of them.
    pub fn changes(
        &self,
        from: Option<TreeId>,
        to: Option<TreeId>,
    ) -> Result<Vec<(Status, String)>, HistoryError> {
        if from == to {
            return Ok(Vec::new());
        }
        let mut diff = Diff {
            files: Vec::new(),
            limit: MAX_TIP_PATHS,
            odd: false,
        };
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
    /// [`MAX_PACK_BYTES`] (a pack file; a larger one is refused).
    pub fn pack_text(&self, tree: TreeId, path: &str) -> Result<Option<String>, HistoryError> {
        blob_at(&self.repo, tree.0, path)
    }
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
mod tests {
    use super::*;
    use crate::testkit;

    /// A repository of no commit holding a tree that nests a file `levels` directories deep.
    fn nested(dir: &Path, levels: usize) -> ObjectId {
        testkit::deep_tree(&gix::init(dir).expect("init"), levels)
    }

    #[test]
    fn a_tree_twenty_thousand_levels_deep_is_refused_not_a_stack_overflow() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = nested(dir.path(), 20_000);
        let repo = gix::open(dir.path()).expect("open");
        let err = changes(&repo, root, None, 40).err().expect("refused");
        assert!(err.to_string().contains("nested more than 512"), "{err}");
        let mut out = Vec::new();
        let err = list(&repo, root, "", &mut out).expect_err("refused");
        assert!(err.to_string().contains("nested more than 512"), "{err}");
        // Within the cap the file is found.
        let shallow = tempfile::tempdir().expect("temp dir");
        let root = nested(shallow.path(), 100);
        let repo = gix::open(shallow.path()).expect("open");
        let diff = changes(&repo, root, None, 40).expect("read");
        assert_eq!(diff.files.len(), 1);
        assert!(diff.files[0].1.ends_with("d/f.txt"));
    }
}
