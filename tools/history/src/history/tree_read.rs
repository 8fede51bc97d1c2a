//! Tree and blob objects read under the bounds: a tree's entries, plain names joined into
//! paths, the nesting depth, every path below a tree, and the pack blob at a path.

use super::{HistoryError, MAX_PACK_BYTES, MAX_TIP_PATHS, object_error};
use gix::ObjectId;
use std::collections::BTreeMap;

/// What an entry of a tree is, for diffing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Tree,
    /// A blob, a symlink or a submodule: a path a commit changes. The mode is kept so a mode
    /// change counts as a modification, as git reports it.
    File(u16),
}

impl Kind {
    /// The kind of a tree entry of `mode`.
    // Called for every entry of every tree read: inlined across the modules.
    #[inline]
    pub(super) fn of(mode: gix::objs::tree::EntryMode) -> Kind {
        if mode.is_tree() {
            Kind::Tree
        } else {
            Kind::File(mode.value())
        }
    }
}

type Entries = BTreeMap<Vec<u8>, (Kind, ObjectId)>;

fn entries(repo: &gix::Repository, id: Option<ObjectId>) -> Result<Entries, HistoryError> {
    let mut out = Entries::new();
    let Some(id) = id else { return Ok(out) };
    let object = repo.find_object(id).map_err(|e| object_error(id, e))?;
    let tree = object.try_into_tree().map_err(|e| object_error(id, e))?;
    let decoded = tree.decode().map_err(|e| object_error(id, e))?;
    for entry in decoded.entries {
        out.insert(
            entry.filename.to_vec(),
            (Kind::of(entry.mode), entry.oid.to_owned()),
        );
    }
    Ok(out)
}

/// A tree entry name joined under `prefix`, or `None` when it is not a plain name.
pub(super) fn join(prefix: &str, name: &[u8]) -> Option<String> {
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

/// The most directory levels a history's trees may nest: deeper, the repository is refused
/// (no real project nests this deep; a crafted one can nest thousands of levels).
pub const MAX_DEPTH: usize = 512;

/// The levels of directories a path prefix stands for.
pub(super) fn depth_of(prefix: &str) -> usize {
    if prefix.is_empty() {
        0
    } else {
        prefix.matches('/').count() + 1
    }
}

pub(super) fn too_deep() -> HistoryError {
    HistoryError::TooLarge(format!(
        "a tree is nested more than {MAX_DEPTH} directories deep"
    ))
}

/// The tree of commit `id` and its first parent.
pub(super) fn tree_of(
    repo: &gix::Repository,
    id: ObjectId,
) -> Result<(ObjectId, Option<ObjectId>), HistoryError> {
    let commit = repo.find_commit(id).map_err(|e| object_error(id, e))?;
    let tree = commit.tree_id().map_err(|e| object_error(id, e))?.detach();
    let parent = commit.parent_ids().next().map(|p| p.detach());
    Ok((tree, parent))
}

/// Every plain path below `tree`, joined under `prefix`, added to `out` (unordered).
pub(super) fn list(
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
pub(super) fn blob_at(
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
