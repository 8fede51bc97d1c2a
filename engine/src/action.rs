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
const MAX_VISITED: usize = 20_000;

/// The most files of one glob a resolution weighs.
const MAX_FOUND: usize = 2_000;

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

/// Whether a name found on disk may be shown in a note: a file name is the repository's, not
/// the pack's, so one holding a control character or another code point that prints nothing
/// (a right-to-left override, a line separator) could forge a line or make the note read other
/// than it is; such a file is never named.
fn shows_as_written(name: &str) -> bool {
    !docsuggest_schema::text::has_invisible(name)
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
    let mut walk = Walk {
        probe,
        toward: rel,
        visited: 0,
        files: Vec::new(),
    };
    let mut files: Vec<String> = Vec::new();
    for base in bases.all() {
        walk.descend(base, String::new(), &components);
        let found = std::mem::take(&mut walk.files);
        files.extend(
            found
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

/// One component of a glob companion, for walking only the directories it can match.
enum Component {
    /// A name as written.
    Literal(String),
    /// A name matched by a pattern (`*Spec.kt`, `detekt-*`).
    Pattern(globset::GlobMatcher),
    /// `**`: any number of directories.
    Deep,
}

impl Component {
    /// The components of `pattern`; `None` when one does not compile on its own (a brace
    /// holding a `/`).
    fn parse(pattern: &str) -> Option<Vec<Component>> {
        pattern
            .split('/')
            .filter(|c| !c.is_empty())
            .map(|c| {
                if c == "**" {
                    Some(Component::Deep)
                } else if is_pattern(c) {
                    let glob = globset::GlobBuilder::new(c)
                        .literal_separator(true)
                        .build()
                        .ok()?;
                    Some(Component::Pattern(glob.compile_matcher()))
                } else {
                    Some(Component::Literal(c.to_string()))
                }
            })
            .collect()
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Component::Literal(literal) => name == literal,
            Component::Pattern(matcher) => !name.starts_with('.') && matcher.is_match(name),
            Component::Deep => false,
        }
    }
}

/// A bounded walk of the directories a glob can match, through the probe's listings (never
/// through a symlink), the directories on the way to the call's own first.
struct Walk<'a> {
    probe: &'a dyn FileProbe,
    /// The call's workspace-relative path.
    toward: &'a str,
    visited: usize,
    files: Vec<String>,
}

impl Walk<'_> {
    fn done(&self) -> bool {
        self.visited >= MAX_VISITED || self.files.len() >= MAX_FOUND
    }

    /// The plain entries of `base/dir`, those whose names are directories of the call's path
    /// first (its ancestors, or a mirrored tree's: `src/test/kotlin/io/…` for
    /// `src/main/kotlin/io/…`).
    fn entries(&mut self, base: &Path, dir: &str) -> Vec<(String, EntryKind)> {
        let mut entries = self.probe.plain_entries(&base.join(dir));
        self.visited += entries.len();
        entries.retain(|(name, _)| shows_as_written(name));
        let on_the_way = |name: &str| self.toward.split('/').any(|c| c == name);
        entries.sort_by_key(|(name, _)| !on_the_way(name));
        entries
    }

    fn descend(&mut self, base: &Path, dir: String, components: &[Component]) {
        let Some((first, rest)) = components.split_first() else {
            return;
        };
        if self.done() {
            return;
        }
        let join = |name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        if let Component::Deep = first {
            if rest.is_empty() {
                return;
            }
            // No directory, then each subdirectory again under the same `**`.
            self.descend(base, dir.clone(), rest);
            for (name, kind) in self.entries(base, &dir) {
                if kind == EntryKind::Dir && !name.starts_with('.') && !self.done() {
                    self.descend(base, join(&name), components);
                }
            }
            return;
        }
        for (name, kind) in self.entries(base, &dir) {
            if !first.matches(&name) {
                continue;
            }
            match (kind, rest.is_empty()) {
                (EntryKind::File, true) => self.files.push(join(&name)),
                (EntryKind::Dir, false) => self.descend(base, join(&name), rest),
                _ => {}
            }
            if self.done() {
                return;
            }
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
    }

    /// Resolves `companion` for a call on `call` in a workspace holding `files`.
    fn resolved(files: &[&str], companion: &str, call: &str) -> Action {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for f in files.iter().chain([&call]) {
            let path = dir.path().join(f);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, "").expect("write");
        }
        let probe = crate::probe::OsProbe;
        let bases = Bases::find(dir.path(), &dir.path().join(call), &probe);
        let glob = globset::GlobBuilder::new(companion)
            .literal_separator(true)
            .build()
            .expect("a glob");
        let c = CompiledCompanion::new(companion, 1.0, &glob);
        of(&c, None, &bases, call, &probe)
    }

    #[test]
    fn a_glob_is_named_by_the_files_tied_to_the_call() {
        let specs = [
            "rules-style/src/test/kotlin/io/style/FooRuleSpec.kt",
            "rules-style/src/test/kotlin/io/style/BarSpec.kt",
            "rules-style/src/test/kotlin/io/style/BazSpec.kt",
            "rules-other/src/test/kotlin/io/other/QuxSpec.kt",
        ];
        assert_eq!(
            resolved(
                &specs,
                "rules-*/src/test/kotlin/**/*Spec.kt",
                "rules-style/src/main/kotlin/io/style/FooRule.kt"
            ),
            Action::OneOf(vec![specs[0].to_string()])
        );
        // Nothing tied, one directory: update or add a file there.
        assert_eq!(
            resolved(
                &specs[..2],
                "rules-*/src/test/kotlin/**/*Spec.kt",
                "a/Other.kt"
            ),
            Action::UpdateOrAddIn {
                dir: "rules-style/src/test/kotlin/io/style".into(),
                example: Some(specs[0].to_string())
            }
        );
        // Nothing tied, several directories: the one nearest the call's.
        assert_eq!(
            resolved(
                &specs,
                "rules-*/src/test/kotlin/**/*Spec.kt",
                "rules-other/src/Other.kt"
            ),
            Action::UpdateOrAddIn {
                dir: "rules-other/src/test/kotlin/io/other".into(),
                example: Some(specs[3].to_string())
            }
        );
        // Three files or fewer, far from the call's: all of them.
        assert_eq!(
            resolved(
                &specs[2..],
                "rules-*/src/test/kotlin/**/*Spec.kt",
                "a/Other.kt"
            ),
            Action::OneOf(vec![specs[3].to_string(), specs[2].to_string()])
        );
        // The README above the call's file.
        let readmes = [
            "README.md",
            "sdk/README.md",
            "sdk/trace/README.md",
            "api/README.md",
            "x/README.md",
        ];
        assert_eq!(
            resolved(&readmes, "**/README.md", "sdk/trace/span.go"),
            Action::OneOf(vec![
                "sdk/trace/README.md".to_string(),
                "sdk/README.md".to_string()
            ])
        );
        // Nothing tied: one directory is named with an example; several are not named.
        let cases = [
            "tests/cases/a.py",
            "tests/cases/b.py",
            "tests/cases/c.py",
            "tests/cases/d.py",
        ];
        assert_eq!(
            resolved(&cases, "tests/cases/*.py", "src/linegen.py"),
            Action::UpdateOrAddIn {
                dir: "tests/cases".into(),
                example: Some("tests/cases/d.py".into())
            }
        );
        assert_eq!(
            resolved(&readmes, "**/README.md", "src/linegen.py"),
            Action::Unresolved
        );
        assert_eq!(resolved(&[], "docs/*.rst", "src/a.py"), Action::Unresolved);
    }

    #[test]
    fn a_package_s_files_are_shown_from_the_root() {
        let files = [
            "packages/cli/package.json",
            "packages/cli/src/add.test.ts",
            "packages/cli/src/other.test.ts",
            "packages/cli/src/more.test.ts",
            "packages/cli/src/last.test.ts",
        ];
        assert_eq!(
            resolved(&files, "src/**/*.test.*", "packages/cli/src/add.ts"),
            Action::OneOf(vec!["packages/cli/src/add.test.ts".into()])
        );
    }

    #[test]
    fn a_glob_with_no_file_for_the_call_names_the_one_to_create() {
        let files = [
            "packages/cli/package.json",
            "packages/cli/src/other/x.test.ts",
        ];
        assert_eq!(
            resolved(&files, "src/**/*.test.*", "packages/cli/src/add/index.ts"),
            Action::Create("packages/cli/src/add/index.test.ts".into())
        );
        assert_eq!(
            resolved(&["pkg/a_test.go"], "**/*_test.go", "pkg/sub/span.go"),
            Action::Create("pkg/sub/span_test.go".into())
        );
        // The call's own directory is not one the glob matches: nothing to create there.
        assert_eq!(
            resolved(&[], "tests/*.py", "src/linegen.py"),
            Action::Unresolved
        );
    }

    #[test]
    fn a_file_whose_name_prints_other_than_it_is_is_never_named() {
        let files = ["docs/a\u{202e}dm.txt.md", "docs/b\nline.md", "docs/c.md"];
        assert_eq!(
            resolved(&files, "docs/*.md", "src/x.py"),
            Action::UpdateOrAddIn {
                dir: "docs".into(),
                example: Some("docs/c.md".into())
            }
        );
        assert_eq!(
            resolved(
                &["log.d/1\u{2028}.md", "log.d/2.md"],
                "log.d/<name>.md",
                "src/x.py"
            ),
            Action::AddTo {
                dir: "log.d".into(),
                example: Some("log.d/2.md".into())
            }
        );
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
