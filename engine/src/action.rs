//! What a plain note asks the agent to do with each companion: update a file that exists,
//! create one the convention calls for, add a new file named like those already there, or
//! update the specific files a glob stands for. Read from the disk with the call's scene, so a
//! note never names a pattern its reader cannot open.
//!
//! This file holds the actions and the choosing among them; `glob.rs` names a glob's files,
//! `walk.rs` walks a glob's directories on disk and `names.rs` judges names (a directory's
//! example, a name's parts).

mod glob;
mod names;
#[cfg(test)]
mod tests;
mod walk;

use crate::compiled::{CompanionForm, CompiledCompanion};
use crate::filter::Bases;
use crate::probe::{EntryKind, FileProbe};
use names::{shaped, shows_as_written, typical};
use std::path::Path;

/// The most specific files a glob companion is named as.
pub const MAX_NAMED: usize = 3;

/// What a plain note asks of one companion. Paths are relative to the base the companion was
/// found under, as the pack writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Update this existing file.
    Update(String),
    /// Create this file (its directory exists).
    Create(String),
    /// Add a new file to `dir`, named like `example` (a file already there), if one is.
    AddTo {
        /// The directory, without a trailing `/`.
        dir: String,
        /// An existing file of the directory shaped like the companion.
        example: Option<String>,
    },
    /// Update one of these existing files, likeliest first (a glob, resolved).
    OneOf(Vec<String>),
    /// Update or add a file in `dir` (a glob over one directory that no file of which is
    /// tied to the call's), shown by `example`.
    UpdateOrAddIn {
        /// The directory, without a trailing `/`.
        dir: String,
        /// An existing file of it, named as most of them are.
        example: Option<String>,
    },
    /// Update or add a file the glob `glob` matches, shown by `example`: a glob no file of
    /// which is tied to the call's, its files spread over many directories (the example the
    /// one nearest the call's), or a companion whose files an earlier line names already.
    Matching {
        /// The glob as the pack writes it.
        glob: String,
        /// An existing file it matches, shown from the root.
        example: Option<String>,
    },
}

impl Action {
    /// What the action names, for telling whether a note already names it: each file, or a
    /// directory to add to (written with its `/`).
    pub fn named(&self) -> Vec<String> {
        match self {
            Action::Update(path) | Action::Create(path) => vec![path.clone()],
            Action::AddTo { dir, .. } => vec![format!("{dir}/")],
            // Globs over one directory are told apart by the kind of file they show.
            Action::UpdateOrAddIn { dir, example } => {
                let kind = format!("{dir}/ like {}", example.as_deref().unwrap_or_default());
                // Its example is named too: a later line naming only it says no more.
                std::iter::once(kind).chain(example.clone()).collect()
            }
            Action::OneOf(files) => files.clone(),
            Action::Matching { glob, example } => std::iter::once(glob.clone())
                .chain(example.clone())
                .collect(),
        }
    }

    /// The action less what `already` names (a note never names a file twice): `None` when
    /// nothing is left.
    pub fn without(&self, already: &[String]) -> Option<Action> {
        let fresh = |name: &String| !already.contains(name);
        match self {
            Action::OneOf(files) => {
                let left: Vec<String> = files.iter().filter(|f| fresh(f)).cloned().collect();
                (!left.is_empty()).then_some(Action::OneOf(left))
            }
            // The glob says something new even when its example was named already.
            Action::Matching { glob, example } => fresh(glob).then(|| Action::Matching {
                glob: glob.clone(),
                example: example.clone().filter(fresh),
            }),
            other => other.named().iter().all(fresh).then(|| other.clone()),
        }
    }

    /// What a plain note's line says to do, before its reason.
    pub fn text(&self) -> String {
        match self {
            Action::Update(path) => format!("update {path}"),
            Action::Create(path) => format!("create {path}"),
            Action::AddTo {
                dir,
                example: Some(example),
            } => format!("add a new file to {dir}/, named like {example}"),
            Action::AddTo { dir, example: None } if dir.is_empty() => "add a new file".into(),
            Action::AddTo { dir, example: None } => format!("add a new file to {dir}/"),
            Action::OneOf(files) => match files.as_slice() {
                [] => String::new(),
                [one] => format!("update {one}"),
                [first @ .., last] => format!("update {} or {last}", first.join(", ")),
            },
            Action::UpdateOrAddIn {
                dir,
                example: Some(example),
            } => format!("update or add a file in {dir}/, like {example}"),
            Action::UpdateOrAddIn { dir, example: None } => {
                format!("update or add a file in {dir}/")
            }
            Action::Matching {
                glob,
                example: Some(example),
            } => format!("update or add a file matching {glob}, like {example}"),
            Action::Matching {
                glob,
                example: None,
            } => format!("update or add a file matching {glob}"),
        }
    }
}

/// What the call at workspace-relative `rel` asks of companion `companion`, which the
/// existence filter kept (`substituted`: a template's substitution for this call).
pub fn of(
    companion: &CompiledCompanion,
    substituted: Option<&str>,
    bases: &Bases,
    rel: &str,
    probe: &dyn FileProbe,
) -> Action {
    // Shown from the workspace root, under the first base that has it: a reader in a
    // monorepo is told which package's file.
    let under = |path: &str, wanted: EntryKind| {
        bases
            .all()
            .iter()
            .find(|base| probe.kind(&base.join(path)) == Some(wanted))
            .map(|base| from_root(bases, base, path))
    };
    match &companion.form {
        CompanionForm::Template => match substituted {
            Some(path) => match under(path, EntryKind::File) {
                Some(shown) => Action::Update(shown),
                None => {
                    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
                    let shown = if dir.is_empty() {
                        None
                    } else {
                        under(dir, EntryKind::Dir).map(|d| format!("{d}{}", &path[dir.len()..]))
                    };
                    Action::Create(shown.unwrap_or_else(|| path.to_string()))
                }
            },
            // Never kept by the existence filter: the template as written.
            None => as_written(companion),
        },
        CompanionForm::Literal => Action::Update(
            under(&companion.path, EntryKind::File).unwrap_or_else(|| companion.path.clone()),
        ),
        CompanionForm::Placeholder => add_to(&companion.path, bases, probe),
        CompanionForm::Glob { .. } | CompanionForm::AnySubdir { .. } => {
            glob::resolve(companion, bases, rel, probe)
        }
        // Never kept by the existence filter (it could leave the workspace).
        CompanionForm::Escaping => as_written(companion),
    }
}

/// The companion as the pack writes it, with no example.
fn as_written(companion: &CompiledCompanion) -> Action {
    Action::Matching {
        glob: companion.path.clone(),
        example: None,
    }
}

/// `path` (relative to `base`, one of the call's bases) as seen from the workspace root.
fn from_root(bases: &Bases, base: &Path, path: &str) -> String {
    match base.strip_prefix(&bases.root).ok().and_then(Path::to_str) {
        Some(prefix) if !prefix.is_empty() && path.is_empty() => prefix.to_string(),
        Some(prefix) if !prefix.is_empty() => format!("{prefix}/{path}"),
        _ => path.to_string(),
    }
}

/// A placeholder companion (`changelog.d/<name>.<ext>`): a new file in the directory before
/// the first placeholder, named like the last (in natural order) of the files there whose
/// name has the placeholder's shape.
fn add_to(path: &str, bases: &Bases, probe: &dyn FileProbe) -> Action {
    let parts: Vec<&str> = path.split('/').collect();
    let at = parts.iter().position(|p| p.contains('<')).unwrap_or(0);
    let dir = parts[..at].join("/");
    let shape = parts.get(at).copied().unwrap_or_default();
    // Only a placeholder in the last component names a file of the directory; the directory
    // is shown from the root, under the first base that has such a file.
    let found = (at + 1 == parts.len())
        .then(|| {
            bases.all().iter().find_map(|base| {
                let names: Vec<String> = probe
                    .plain_entries(&base.join(&dir))
                    .into_iter()
                    .filter(|(name, kind)| {
                        *kind == EntryKind::File
                            && !name.starts_with('.')
                            && shows_as_written(name)
                            && shaped(name, shape)
                    })
                    .map(|(name, _)| name)
                    .collect();
                Some((from_root(bases, base, &dir), typical(&names)?))
            })
        })
        .flatten();
    match found {
        Some((dir, name)) => Action::AddTo {
            example: Some(if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            }),
            dir,
        },
        None => Action::AddTo { dir, example: None },
    }
}
