//! One edit of a hook config: the file read, changed as text, and written back through
//! [`stage`] — only inside the directory of the scope the command was asked about.

use super::{Change, InstallError, Scope, stage};
use std::path::{Path, PathBuf};

/// What a linked settings file holding only ours is rewritten to when ours go: an empty
/// object, which the harness reads as it reads no file.
const EMPTIED: &str = "{}\n";

/// Edits the config at `path` in `scope` with `change` (written unless `dry_run`).
pub fn edit(
    path: &Path,
    scope: &Scope,
    dry_run: bool,
    change: impl FnOnce(Option<&str>) -> Result<Option<String>, String>,
) -> Result<Change, InstallError> {
    let name = path.display().to_string();
    let io = |source| InstallError::Io {
        path: name.clone(),
        source,
    };
    let (target, linked) = resolve(path, scope)?;
    let before = match stage::read(&target)? {
        Some(bytes) => Some(String::from_utf8(bytes).map_err(|e| InstallError::Shape {
            path: name.clone(),
            why: format!(
                "it is not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            ),
        })?),
        None => None,
    };
    let mut after = change(before.as_deref()).map_err(|why| InstallError::Shape {
        path: name.clone(),
        why,
    })?;
    // A linked file is never deleted: its target may be shared (dotfiles, a file the
    // repository keeps elsewhere), and deleting through a link is what let a committed link
    // remove a file outside the project. Removing the link instead would keep ours in the
    // target for whatever else reads it, so the target is emptied and the link stays.
    if linked && before.is_some() && after.is_none() {
        after = Some(EMPTIED.into());
    }
    let change = Change {
        path: path.to_path_buf(),
        before,
        after,
    };
    if !change.changed() || dry_run {
        return Ok(change);
    }
    match &change.after {
        Some(text) => {
            if let Some(dir) = target.parent() {
                std::fs::create_dir_all(dir).map_err(io)?;
            }
            // Staged and renamed, so the harness never reads half a file.
            stage::replace(&target, text.as_bytes(), 0o666)?;
        }
        None => {
            stage::remove(&target)?;
            // Only an empty directory goes (`remove_dir` refuses any other, and a link).
            if let Some(dir) = path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
    Ok(change)
}

/// The file an edit of `path` writes, and whether a link led to it: `path` itself, or the
/// file a link there (or a linked directory on the way) leads to. A settings file kept
/// elsewhere and linked in stays linked, but only while it stays inside the scope's
/// directory: a repository can commit a link to anywhere.
fn resolve(path: &Path, scope: &Scope) -> Result<(PathBuf, bool), InstallError> {
    let root = scope.root();
    let io = |at: &Path, source| InstallError::Io {
        path: at.display().to_string(),
        source,
    };
    let real_root = std::fs::canonicalize(root).map_err(|e| io(root, e))?;
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        // Dangling, or a loop: the read refuses it, naming the link.
        Err(_) if is_link => return Ok((path.to_path_buf(), true)),
        Err(_) => real_path(path).map_err(|e| io(path, e))?,
    };
    if !real.starts_with(&real_root) {
        return Err(InstallError::Outside {
            path: path.display().to_string(),
            target: real.display().to_string(),
            scope: scope.to_string(),
        });
    }
    // Links above the scope's directory (a temporary directory reached through one) lead
    // nowhere else: the path as named is then the file.
    let linked = path.strip_prefix(root).ok() != real.strip_prefix(&real_root).ok();
    Ok(if linked {
        (real, true)
    } else {
        (path.to_path_buf(), false)
    })
}

/// `path` with every link in its existing part resolved; the part that does not exist yet is
/// appended as it is (the edit creates it, as directories, inside what exists).
fn real_path(path: &Path) -> std::io::Result<PathBuf> {
    let mut missing = Vec::new();
    let mut at = path;
    loop {
        match std::fs::canonicalize(at) {
            Ok(real) => {
                return Ok(missing.iter().rev().fold(real, |p, part| p.join(part)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (at.parent(), at.file_name()) else {
                    return Err(e);
                };
                missing.push(name);
                at = parent;
            }
            Err(e) => return Err(e),
        }
    }
}
