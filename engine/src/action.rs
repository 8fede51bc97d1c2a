//! What a plain note asks the agent to do with each companion: update a file that exists,
//! create one the convention calls for, add a new file named like those already there, or
//! update the specific files a glob stands for. Read from the disk with the call's scene, so a
//! note never names a pattern its reader cannot open.

use crate::compiled::{CompanionForm, CompiledCompanion};
use crate::filter::Bases;
use crate::paths::is_pattern;
use crate::probe::{EntryKind, FileProbe};
use std::path::Path;

/// The most specific files a glob companion is named as.
pub const MAX_NAMED: usize = 3;

/// The most directory entries one glob's resolution looks at (a glob over a large tree is
/// named by what this finds, or left out).
const MAX_VISITED: usize = 2048;

/// How deep below its literal prefix a glob's resolution looks.
const MAX_DEPTH: usize = 8;

/// Name parts too common to tie a file to another (`test_app.py` is not about "test").
const GENERIC: [&str; 14] = [
    "test", "tests", "spec", "specs", "index", "init", "main", "mod", "lib", "src", "the",
    "readme", "doc", "docs",
];

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
    let is_file = |path: &str| {
        bases
            .all()
            .iter()
            .any(|base| probe.kind(&base.join(path)) == Some(EntryKind::File))
    };
    match &companion.form {
        CompanionForm::Template => match substituted {
            Some(path) if is_file(path) => Action::Update(path.to_string()),
            Some(path) => Action::Create(path.to_string()),
            None => Action::Unresolved,
        },
        CompanionForm::Literal => Action::Update(companion.path.clone()),
        CompanionForm::Placeholder => add_to(&companion.path, bases, probe),
        CompanionForm::Glob { .. } | CompanionForm::AnySubdir { .. } => {
            resolve_glob(companion, bases, rel, probe)
        }
        CompanionForm::Escaping => Action::Unresolved,
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
    // Only a placeholder in the last component names a file of the directory.
    let example = if at + 1 == parts.len() {
        bases.all().iter().find_map(|base| {
            let names: Vec<String> = probe
                .plain_entries(&base.join(&dir))
                .into_iter()
                .filter(|(name, kind)| {
                    *kind == EntryKind::File && !name.starts_with('.') && shaped(name, shape)
                })
                .map(|(name, _)| name)
                .collect();
            typical(&names)
        })
    } else {
        None
    };
    let example = example.map(|name| {
        if dir.is_empty() {
            name
        } else {
            format!("{dir}/{name}")
        }
    });
    Action::AddTo { dir, example }
}

/// The name that best shows how a directory's files are named: of the largest group of names
/// ending alike (after their first `.`: `.change.md`), the last in natural order (the newest
/// of numbered fragments); a template or README beside them is not the example.
fn typical(names: &[String]) -> Option<String> {
    let ending = |name: &str| name.split_once('.').map_or("", |(_, e)| e).to_string();
    let mut groups: std::collections::BTreeMap<String, usize> = Default::default();
    for name in names {
        *groups.entry(ending(name)).or_default() += 1;
    }
    // The largest group; of equal ones, the first ending in order.
    let (common, _) = groups
        .into_iter()
        .max_by(|(ea, a), (eb, b)| a.cmp(b).then(eb.cmp(ea)))?;
    names
        .iter()
        .filter(|n| ending(n) == common)
        .max_by(|a, b| natural_cmp(a, b))
        .cloned()
}

/// Whether `name` has the shape of a placeholder component (`<name>.<ext>`): each `<…>` any
/// one or more characters, the rest as written.
fn shaped(name: &str, shape: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = shape;
    while let Some(open) = rest.find('<') {
        literals.push(&rest[..open]);
        match rest[open..].find('>') {
            Some(close) => rest = &rest[open + close + 1..],
            None => return false,
        }
    }
    literals.push(rest);
    // `literals` alternate with placeholders: first, (placeholder, literal)*.
    let Some((first, others)) = literals.split_first() else {
        return false;
    };
    let Some(mut left) = name.strip_prefix(first) else {
        return false;
    };
    for (i, literal) in others.iter().enumerate() {
        let last = i + 1 == others.len();
        let found = if last {
            left.strip_suffix(literal)
                .filter(|holder| !holder.is_empty())
                .map(|_| "")
        } else if literal.is_empty() {
            // Two placeholders side by side: each takes at least one character.
            left.get(1..)
        } else {
            left.get(1..)
                .and_then(|after| after.find(literal).map(|at| &after[at + literal.len()..]))
        };
        match found {
            Some(next) => left = next,
            None => return false,
        }
    }
    true
}

/// Compares names with their digit runs as numbers (`999.md` before `1547.md`).
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |s: &str| -> Vec<(String, u128)> {
        let mut out = Vec::new();
        let mut text = String::new();
        let mut digits = String::new();
        for ch in s.chars() {
            if ch.is_ascii_digit() {
                digits.push(ch);
            } else {
                if !digits.is_empty() {
                    out.push((
                        std::mem::take(&mut text),
                        digits.parse().unwrap_or(u128::MAX),
                    ));
                    digits.clear();
                }
                text.push(ch);
            }
        }
        out.push((text, digits.parse().unwrap_or(0)));
        out
    };
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

/// A glob companion as the specific files it stands for: all of them when there are at most
/// [`MAX_NAMED`], else those whose names share a part with the call's file, most parts shared
/// first; `Unresolved` when none does (a reader cannot open a pattern, and a guess among many
/// files is no help).
fn resolve_glob(
    companion: &CompiledCompanion,
    bases: &Bases,
    rel: &str,
    probe: &dyn FileProbe,
) -> Action {
    let mut files = Vec::new();
    let mut visited = 0;
    for base in bases.all() {
        let prefix = match &companion.form {
            CompanionForm::Glob { prefix } => prefix.clone(),
            _ => String::new(),
        };
        walk(base, &prefix, 0, probe, &mut visited, &mut |file| {
            if companion.names.is_match(file) && !files.iter().any(|f| f == file) {
                files.push(file.to_string());
            }
        });
    }
    if files.is_empty() {
        return Action::Unresolved;
    }
    let wanted = parts(file_stem(rel));
    let mut scored: Vec<(usize, String)> = files
        .into_iter()
        .map(|f| (shared(&wanted, &f), f))
        .collect();
    let few = scored.len() <= MAX_NAMED;
    if !few {
        scored.retain(|(score, _)| *score > 0);
    }
    if scored.is_empty() {
        return Action::Unresolved;
    }
    scored.sort_by(|(sa, a), (sb, b)| sb.cmp(sa).then(a.len().cmp(&b.len())).then(a.cmp(b)));
    scored.truncate(MAX_NAMED);
    Action::OneOf(scored.into_iter().map(|(_, f)| f).collect())
}

/// Visits the regular files below `base/dir` (relative to `base`), at most [`MAX_VISITED`]
/// entries and [`MAX_DEPTH`] levels, never through a symlink.
fn walk(
    base: &Path,
    dir: &str,
    depth: usize,
    probe: &dyn FileProbe,
    visited: &mut usize,
    found: &mut dyn FnMut(&str),
) {
    if depth > MAX_DEPTH || *visited >= MAX_VISITED || is_pattern(dir) {
        return;
    }
    for (name, kind) in probe.plain_entries(&base.join(dir)) {
        *visited += 1;
        if *visited > MAX_VISITED {
            return;
        }
        let path = if dir.is_empty() {
            name
        } else {
            format!("{dir}/{name}")
        };
        match kind {
            EntryKind::File => found(&path),
            EntryKind::Dir if !path.split('/').any(|c| c.starts_with('.')) => {
                walk(base, &path, depth + 1, probe, visited, found)
            }
            _ => {}
        }
    }
}

/// The file name of `path` without its extensions.
fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or(name)
}

/// The lowercase parts of a name, split at anything not a letter or digit and where a lower
/// case letter meets an upper case one; short and generic parts left out.
fn parts(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for ch in name.chars() {
        let boundary = !ch.is_alphanumeric() || (ch.is_uppercase() && previous_lower);
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if ch.is_alphanumeric() {
            current.extend(ch.to_lowercase());
        }
        previous_lower = ch.is_lowercase();
    }
    if !current.is_empty() {
        out.push(current);
    }
    out.retain(|p| p.chars().count() >= 3 && !GENERIC.contains(&p.as_str()));
    out.dedup();
    out
}

/// How many of `wanted` are parts of `path`'s file name (counted twice) or of its
/// directories.
fn shared(wanted: &[String], path: &str) -> usize {
    if wanted.is_empty() {
        return 0;
    }
    let stem = parts(file_stem(path));
    let dirs: Vec<String> = path
        .rsplit_once('/')
        .map(|(dir, _)| dir.split('/').flat_map(parts).collect())
        .unwrap_or_default();
    wanted
        .iter()
        .map(|w| {
            if stem.contains(w) {
                2
            } else {
                usize::from(dirs.contains(w))
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_shapes_match_names_like_them() {
        assert!(shaped("1547.change.md", "<name>.<ext>"));
        assert!(shaped("fix-thing.md", "<name>.md"));
        assert!(!shaped("README", "<name>.<ext>"));
        assert!(!shaped(".md", "<name>.md"));
        assert!(shaped("ab.b", "<x><y>.b"));
        assert!(!shaped("a.b", "<x><y>.b"));
        assert!(!shaped("anything", "<broken"));
    }

    #[test]
    fn the_example_is_named_like_most_of_the_directory() {
        let names: Vec<String> = [
            "240.change.md",
            "1606.change.md",
            "towncrier_template.md.jinja",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(typical(&names).as_deref(), Some("1606.change.md"));
        assert_eq!(typical(&[]), None);
    }

    #[test]
    fn an_action_less_what_a_note_already_names() {
        let named = vec!["a.py".to_string()];
        assert_eq!(Action::Update("a.py".into()).without(&named), None);
        assert_eq!(
            Action::OneOf(vec!["a.py".into(), "b.py".into()]).without(&named),
            Some(Action::OneOf(vec!["b.py".into()]))
        );
        assert_eq!(
            Action::Create("c.py".into()).without(&named),
            Some(Action::Create("c.py".into()))
        );
    }

    #[test]
    fn natural_order_reads_numbers_as_numbers() {
        let mut names = vec!["1547.change.md", "999.change.md", "10.change.md"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(names, ["10.change.md", "999.change.md", "1547.change.md"]);
    }

    #[test]
    fn name_parts_split_case_and_separators() {
        assert_eq!(parts("test_validators"), ["validators"]);
        assert_eq!(parts("CompletionHandlerTest"), ["completion", "handler"]);
        assert_eq!(parts("app"), ["app"]);
        assert!(parts("mod").is_empty());
        assert_eq!(
            shared(&parts("test_validators"), "src/attr/validators.py"),
            2
        );
        assert_eq!(shared(&parts("serve"), "docs/serve/options.md"), 1);
        assert_eq!(shared(&parts("serve"), "docs/usage.md"), 0);
    }

    #[test]
    fn actions_read_as_instructions() {
        assert_eq!(Action::Update("a.md".into()).text(), "update a.md");
        assert_eq!(
            Action::OneOf(vec!["a".into(), "b".into(), "c".into()]).text(),
            "update a, b or c"
        );
        assert_eq!(
            Action::AddTo {
                dir: "changelog.d".into(),
                example: Some("changelog.d/1.md".into())
            }
            .text(),
            "add a new file to changelog.d/, named like changelog.d/1.md"
        );
    }
}
