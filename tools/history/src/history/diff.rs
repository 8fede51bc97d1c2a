//! Two trees compared: every plain path that differs between them, with how it changed (no
//! rename detection), walked on a stack of its own and bounded in depth and in paths.

use super::tree_read::{Kind, MAX_DEPTH, depth_of, join, too_deep};
use super::{HistoryError, Status, object_error};
use gix::ObjectId;
use std::cmp::Ordering;

/// A tree entry's kind and object.
type Entry = (Kind, ObjectId);

/// A tree's entries borrowed from its object, by name.
type Borrowed<'a> = Vec<(&'a [u8], Entry)>;

/// A directory still to compare: its old and new tree (`None`: absent), its path, its depth.
type Pending = (Option<ObjectId>, Option<ObjectId>, String, usize);

/// The paths found to differ so far.
pub(super) struct Diff {
    pub(super) files: Vec<(Status, String)>,
    limit: usize,
    pub(super) odd: bool,
}

impl Diff {
    /// An empty diff that stops past `limit` paths.
    pub(super) fn new(limit: usize) -> Diff {
        Diff {
            files: Vec::new(),
            limit,
            odd: false,
        }
    }

    /// More paths than the limit were found: the diff stopped.
    pub(super) fn full(&self) -> bool {
        self.files.len() > self.limit
    }

    /// Every path that differs from `old` to `new` (`None`: the empty tree) below `prefix`.
    ///
    /// The walk keeps its own stack of directories still to compare, so a tree nested
    /// thousands of levels deep (git accepts one) costs heap, not the thread's stack; past
    /// [`MAX_DEPTH`] levels the history is refused.
    pub(super) fn trees(
        &mut self,
        repo: &gix::Repository,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        prefix: &str,
    ) -> Result<(), HistoryError> {
        let mut pending: Vec<Pending> = vec![(old, new, prefix.to_string(), depth_of(prefix))];
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
            let mut directory = Directory {
                prefix: &prefix,
                depth,
                pending: &mut pending,
            };
            // A full diff stops here; the next turn of the loop sees it and returns.
            self.directory(&old, &new, &mut directory);
        }
        Ok(())
    }

    /// One directory compared, its entries paired by name: the files that differ recorded,
    /// the subdirectories that differ queued on `directory`'s stack.
    fn directory(&mut self, old: &Borrowed<'_>, new: &Borrowed<'_>, directory: &mut Directory<'_>) {
        for (name, old, new) in (Paired {
            old,
            new,
            i: 0,
            j: 0,
        }) {
            if self.full() {
                return;
            }
            self.entry(directory, name, old, new);
        }
    }

    /// One name of a directory, its entry before and after (`None`: absent on that side). A
    /// file that becomes a directory is a deletion and additions below it, and the reverse.
    fn entry(
        &mut self,
        directory: &mut Directory<'_>,
        name: &[u8],
        old: Option<Entry>,
        new: Option<Entry>,
    ) {
        let prefix = directory.prefix;
        let odd = &mut self.odd;
        match (old, new) {
            (Some(a), Some(b)) if a == b => {}
            (Some((Kind::Tree, a)), Some((Kind::Tree, b))) => {
                directory.below(Some(a), Some(b), name, odd)
            }
            (Some((Kind::Tree, a)), Some((Kind::File(_), _))) => {
                directory.below(Some(a), None, name, odd);
                self.record(Status::Added, prefix, name);
            }
            (Some((Kind::File(_), _)), Some((Kind::Tree, b))) => {
                directory.below(None, Some(b), name, odd);
                self.record(Status::Deleted, prefix, name);
            }
            (Some((Kind::File(_), _)), Some((Kind::File(_), _))) => {
                self.record(Status::Modified, prefix, name)
            }
            (Some((Kind::Tree, a)), None) => directory.below(Some(a), None, name, odd),
            (None, Some((Kind::Tree, b))) => directory.below(None, Some(b), name, odd),
            (Some((Kind::File(_), _)), None) => self.record(Status::Deleted, prefix, name),
            (None, Some((Kind::File(_), _))) => self.record(Status::Added, prefix, name),
            (None, None) => {}
        }
    }

    /// A changed file at `prefix/name`, or an odd path.
    fn record(&mut self, status: Status, prefix: &str, name: &[u8]) {
        match join(prefix, name) {
            Some(path) => self.files.push((status, path)),
            None => self.odd = true,
        }
    }
}

/// The directory being compared, and the stack its differing subdirectories go on.
struct Directory<'a> {
    prefix: &'a str,
    depth: usize,
    pending: &'a mut Vec<Pending>,
}

impl Directory<'_> {
    /// The subdirectory `name` queued to compare, or an odd path.
    fn below(&mut self, old: Option<ObjectId>, new: Option<ObjectId>, name: &[u8], odd: &mut bool) {
        match join(self.prefix, name) {
            Some(path) => self.pending.push((old, new, path, self.depth + 1)),
            None => *odd = true,
        }
    }
}

/// One merge pass over two directories sorted by name: each name with its entry on each side.
struct Paired<'s, 'a> {
    old: &'s [(&'a [u8], Entry)],
    new: &'s [(&'a [u8], Entry)],
    i: usize,
    j: usize,
}

impl<'a> Iterator for Paired<'_, 'a> {
    type Item = (&'a [u8], Option<Entry>, Option<Entry>);

    fn next(&mut self) -> Option<Self::Item> {
        Some(match (self.old.get(self.i), self.new.get(self.j)) {
            (Some(x), Some(y)) => match x.0.cmp(y.0) {
                Ordering::Less => {
                    self.i += 1;
                    (x.0, Some(x.1), None)
                }
                Ordering::Greater => {
                    self.j += 1;
                    (y.0, None, Some(y.1))
                }
                Ordering::Equal => {
                    (self.i, self.j) = (self.i + 1, self.j + 1);
                    (x.0, Some(x.1), Some(y.1))
                }
            },
            (Some(x), None) => {
                self.i += 1;
                (x.0, Some(x.1), None)
            }
            (None, Some(y)) => {
                self.j += 1;
                (y.0, None, Some(y.1))
            }
            (None, None) => return None,
        })
    }
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
/// ended in `/`, a diff pairs entries by name), the last of any repeated name kept as the
/// entries by name that a path lookup reads keep it.
fn sorted<'a>(tree: Option<&'a gix::Tree<'_>>) -> Result<Borrowed<'a>, HistoryError> {
    let Some(tree) = tree else {
        return Ok(Vec::new());
    };
    let decoded = tree.decode().map_err(|e| object_error(tree.id, e))?;
    let mut out: Borrowed<'a> = Vec::with_capacity(decoded.entries.len());
    for entry in decoded.entries {
        out.push((
            entry.filename.as_ref(),
            (Kind::of(entry.mode), entry.oid.to_owned()),
        ));
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
pub(super) fn changes(
    repo: &gix::Repository,
    tree: ObjectId,
    parent_tree: Option<ObjectId>,
    limit: usize,
) -> Result<Diff, HistoryError> {
    let mut diff = Diff::new(limit);
    diff.trees(repo, parent_tree, Some(tree), "")?;
    diff.files.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(diff)
}
