//! What a plain note asks the agent to do with each companion: update a file that exists,
//! create one the convention calls for, add a new file named like those already there, or
//! update the specific files a glob stands for. Read from the disk with the call's scene, so a
//! note never names a pattern its reader cannot open.
//!
//! This file holds the actions and the choosing among them; `walk.rs` walks a glob's
//! directories on disk and `names.rs` judges names (a directory's example, a name's parts).

mod names;
#[cfg(test)]
mod tests;
mod walk;

use crate::compiled::{CompanionForm, CompiledCompanion};
use crate::filter::Bases;
use crate::paths::is_pattern;
use crate::probe::{EntryKind, FileProbe};
use names::{file_stem, parts, shaped, shows_as_written, typical};
use std::path::Path;
use walk::{Component, Walk};

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
    /// A glob that stands for nothing specific enough: a plain note leaves it out.
    Unresolved,
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
            Action::Unresolved => Vec::new(),
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
            Action::Unresolved => None,
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
            Action::Unresolved => String::new(),
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
            None => Action::Unresolved,
        },
        CompanionForm::Literal => Action::Update(
            under(&companion.path, EntryKind::File).unwrap_or_else(|| companion.path.clone()),
        ),
        CompanionForm::Placeholder => add_to(&companion.path, bases, probe),
        CompanionForm::Glob { .. } | CompanionForm::AnySubdir { .. } => {
            resolve_glob(companion, bases, rel, probe)
        }
        CompanionForm::Escaping => Action::Unresolved,
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

/// A glob companion as the specific files it stands for: all of them when there are at most
/// [`MAX_NAMED`], else those tied to the call's file — sharing a part of its name, or lying in
/// its directory or one above it — the closest first; when none is, a glob over one directory
/// is named by that directory and an example of its files (`update or add a file in …`);
/// else `Unresolved` (a reader cannot open a pattern, and a guess among many files is no help).
fn resolve_glob(
    companion: &CompiledCompanion,
    bases: &Bases,
    rel: &str,
    probe: &dyn FileProbe,
) -> Action {
    let pattern = match &companion.form {
        CompanionForm::AnySubdir { rest } => format!("*/{rest}"),
        _ => companion.path.clone(),
    };
    let Some(components) = Component::parse(&pattern) else {
        return Action::Unresolved;
    };
    // One walk for every base: the entries it may visit are counted for the glob, not per base.
    let mut walk = Walk::new(probe, rel);
    let mut files: Vec<String> = Vec::new();
    for base in bases.all() {
        files.extend(
            walk.files_under(base, &components)
                .into_iter()
                .filter(|f| companion.names.is_match(f))
                .map(|f| from_root(bases, base, &f)),
        );
    }
    files.sort();
    files.dedup();
    if files.is_empty() {
        return named_after_call(companion, bases, rel).unwrap_or(Action::Unresolved);
    }
    let wanted = parts(file_stem(rel));
    let call_dir = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
    // How many leading directories `f` shares with the call's file: the closer, the likelier.
    let closeness = |f: &str| {
        f.split('/')
            .zip(call_dir.split('/'))
            .take_while(|(a, b)| a == b)
            .count()
    };
    let mut tied: Vec<(usize, usize, &String)> = files
        .iter()
        .map(|f| {
            let stem = parts(file_stem(f));
            let shared = wanted.iter().filter(|w| stem.contains(w)).count();
            let dir = f.rsplit_once('/').map_or("", |(dir, _)| dir);
            // Beside the call's file, or above it when its name says nothing of its own (a
            // package's `mod.rs`, `README.md`, `__init__.py`).
            let near = !dir.is_empty()
                && (call_dir == dir
                    || (stem.is_empty() && call_dir.starts_with(&format!("{dir}/"))));
            let extra = stem.iter().filter(|p| !wanted.contains(p)).count();
            (2 * shared + usize::from(near), extra, f)
        })
        .filter(|(score, _, _)| *score > 0)
        .collect();
    // A file named like the call's comes first; then the one the glob names after the call
    // beside it; then the files only near it; then a directory to add to.
    if tied.iter().any(|(score, _, _)| *score >= 2) {
        tied.retain(|(score, _, _)| *score >= 2);
    } else if let Some(create) = named_after_call(companion, bases, rel) {
        return create;
    } else if tied.is_empty() {
        return nearest_directory(&files, call_dir)
            .or_else(|| (files.len() <= MAX_NAMED).then(|| Action::OneOf(files.clone())))
            .unwrap_or(Action::Unresolved);
    }
    tied.sort_by(|(sa, ea, a), (sb, eb, b)| {
        sb.cmp(sa)
            .then(ea.cmp(eb))
            .then(closeness(b).cmp(&closeness(a)))
            .then(a.len().cmp(&b.len()))
            .then(a.cmp(b))
    });
    Action::OneOf(
        tied.into_iter()
            .take(MAX_NAMED)
            .map(|(_, _, f)| f.clone())
            .collect(),
    )
}

/// The file the glob's last component names after the call's file, beside it, when the glob
/// matches it: `src/**/*.test.*` on `src/cli/add.ts` is `src/cli/add.test.ts` (the first `*`
/// the call's name, a final `.*` its extension). `None` when the glob's name has other
/// wildcards or the file would not match it. (A file that exists is found as tied first.)
fn named_after_call(companion: &CompiledCompanion, bases: &Bases, rel: &str) -> Option<Action> {
    let last = companion
        .path
        .rsplit('/')
        .next()
        .filter(|l| l.contains('*'))?;
    let name = rel.rsplit('/').next()?;
    let (stem, extension) = name.split_once('.').unwrap_or((name, ""));
    let mut candidate = last.replacen('*', stem, 1);
    if let Some(front) = candidate.strip_suffix(".*") {
        if extension.is_empty() {
            return None;
        }
        candidate = format!("{front}.{extension}");
    }
    if is_pattern(&candidate) || candidate == name {
        return None;
    }
    let call = bases.root.join(rel);
    bases.all().iter().find_map(|base| {
        let in_base = call.strip_prefix(base).ok()?.to_str()?;
        let dir = in_base.rsplit_once('/').map_or("", |(dir, _)| dir);
        let path = if dir.is_empty() {
            candidate.clone()
        } else {
            format!("{dir}/{candidate}")
        };
        companion
            .names
            .is_match(&path)
            .then(|| Action::Create(from_root(bases, base, &path)))
    })
}

/// Where to update or add a file for a glob none of whose files is tied to the call's: its
/// only directory, or the one nearest the call's (sharing at least its first directory), shown
/// by an example of its files. `None` when its files are spread far from the call's.
fn nearest_directory(files: &[String], call_dir: &str) -> Option<Action> {
    let dir_of = |f: &str| {
        f.rsplit_once('/')
            .map_or(String::new(), |(d, _)| d.to_string())
    };
    let closeness = |dir: &str| {
        dir.split('/')
            .zip(call_dir.split('/'))
            .take_while(|(a, b)| a == b)
            .count()
    };
    let mut dirs: Vec<String> = files.iter().map(|f| dir_of(f)).collect();
    dirs.sort();
    dirs.dedup();
    let dir = if dirs.len() == 1 {
        dirs.pop()?
    } else {
        let best = dirs
            .iter()
            .max_by(|a, b| closeness(a).cmp(&closeness(b)).then(b.cmp(a)))?;
        if best.is_empty() || closeness(best) == 0 {
            return None;
        }
        best.clone()
    };
    if dir.is_empty() {
        return None;
    }
    let names: Vec<String> = files
        .iter()
        .filter(|f| dir_of(f) == dir)
        .filter_map(|f| f.rsplit_once('/').map(|(_, n)| n.to_string()))
        .collect();
    Some(Action::UpdateOrAddIn {
        example: typical(&names).map(|n| format!("{dir}/{n}")),
        dir,
    })
}
