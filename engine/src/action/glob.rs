//! A glob companion as the files it stands for (docs/BEHAVIOUR.md, "The note"): those tied
//! to the call's file, one to create beside it, a directory to update or add to, or, failing
//! all of them, the glob itself with an example of its files. A glob is never left unnamed.

use super::names::{file_stem, parts, tokens, typical};
use super::walk::{Component, Walk};
use super::{Action, MAX_NAMED, from_root};
use crate::compiled::{CompanionForm, CompiledCompanion};
use crate::filter::Bases;
use crate::paths::is_pattern;
use crate::probe::FileProbe;

/// A glob companion as the specific files it stands for: all of them when there are at most
/// [`MAX_NAMED`], else those tied to the call's file — sharing a part of its name in their
/// names or in their directories below the glob's literal prefix, or lying in its directory or
/// one above it — the closest first; when none is, a glob over one directory is named by that
/// directory and an example of its files (`update or add a file in …`); else the glob itself,
/// with the example nearest the call's file.
pub(super) fn resolve(
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
        return matching(companion, &[], rel);
    };
    // The directories every file of the glob has under a base (its literal prefix) tie none
    // to the call's.
    let literal = components
        .iter()
        .take_while(|c| matches!(c, Component::Literal(_)))
        .count();
    // One walk for every base: the entries it may visit are counted for the glob, not per base.
    let mut walk = Walk::new(probe, rel);
    // Each file shown from the root, with how many of its leading directories tie nothing.
    let mut found: Vec<(String, usize)> = Vec::new();
    for base in bases.all() {
        let shown_base = from_root(bases, base, "");
        let fixed = literal + shown_base.split('/').filter(|d| !d.is_empty()).count();
        found.extend(
            walk.files_under(base, &components)
                .into_iter()
                .filter(|f| companion.names.is_match(f))
                .map(|f| (from_root(bases, base, &f), fixed)),
        );
    }
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    let files: Vec<String> = found.iter().map(|(f, _)| f.clone()).collect();
    if files.is_empty() {
        return named_after_call(companion, bases, rel)
            .unwrap_or_else(|| matching(companion, &files, rel));
    }
    let call = Call::new(rel);
    let mut tied: Vec<Tie<'_>> = found
        .iter()
        .map(|(f, fixed)| call.tie(f, *fixed))
        .filter(|t| t.score > 0)
        .collect();
    // A file named like the call's, or in a directory named after it, comes first (of those,
    // the ones whose directories share the most with the call's); then the one the glob names
    // after the call beside it; then the files only near it; then a directory to add to.
    if tied.iter().any(|t| t.score >= 2) {
        tied.retain(|t| t.score >= 2);
        let kin = tied.iter().map(|t| t.kin).max().unwrap_or(0);
        tied.retain(|t| t.kin == kin);
    } else if let Some(create) = named_after_call(companion, bases, rel) {
        return create;
    } else if tied.is_empty() {
        return nearest_directory(&files, call.dir)
            .or_else(|| (files.len() <= MAX_NAMED).then(|| Action::OneOf(files.clone())))
            .unwrap_or_else(|| matching(companion, &files, rel));
    }
    tied.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(b.kin.cmp(&a.kin))
            .then(a.extra.cmp(&b.extra))
            .then(b.closeness.cmp(&a.closeness))
            .then(a.file.len().cmp(&b.file.len()))
            .then(a.file.cmp(b.file))
    });
    Action::OneOf(
        tied.into_iter()
            .take(MAX_NAMED)
            .map(|t| t.file.clone())
            .collect(),
    )
}

/// What ties the files found to the call's.
struct Call<'a> {
    /// The parts of the call's file name.
    wanted: Vec<String>,
    /// Its directory.
    dir: &'a str,
    /// The words of its directories (`lang`, `js`, `print` of `src/lang-js/print/`).
    dir_words: Vec<String>,
}

/// How one file of a glob is tied to the call's.
struct Tie<'f> {
    /// Two for each part of the call's name the file's name or directories share, one more
    /// when it lies beside the call's file or above it.
    score: usize,
    /// The words of the file's directories that the call's directories share.
    kin: usize,
    /// The parts of the file's name that are not the call's.
    extra: usize,
    /// How many leading directories it shares with the call's file.
    closeness: usize,
    file: &'f String,
}

impl<'a> Call<'a> {
    fn new(rel: &'a str) -> Self {
        let dir = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
        Call {
            wanted: parts(file_stem(rel)),
            dir,
            dir_words: dir.split('/').flat_map(tokens).collect(),
        }
    }

    /// How many leading directories `dir` shares with the call's.
    fn closeness(&self, dir: &str) -> usize {
        dir.split('/')
            .zip(self.dir.split('/'))
            .take_while(|(a, b)| a == b)
            .count()
    }

    /// How `file` is tied to the call's; its first `fixed` directories (the glob's literal
    /// prefix, common to all its files) tie nothing.
    fn tie<'f>(&self, file: &'f String, fixed: usize) -> Tie<'f> {
        let stem = parts(file_stem(file));
        let dir = file.rsplit_once('/').map_or("", |(dir, _)| dir);
        let below: Vec<&str> = dir
            .split('/')
            .filter(|d| !d.is_empty())
            .skip(fixed)
            .collect();
        let dir_parts: Vec<String> = below.iter().flat_map(|d| parts(d)).collect();
        let shared = self
            .wanted
            .iter()
            .filter(|w| stem.contains(w) || dir_parts.contains(w))
            .count();
        // Beside the call's file, or above it when its name says nothing of its own (a
        // package's `mod.rs`, `README.md`, `__init__.py`).
        let near = !dir.is_empty()
            && (self.dir == dir || (stem.is_empty() && self.dir.starts_with(&format!("{dir}/"))));
        let mut words: Vec<String> = dir.split('/').flat_map(tokens).collect();
        words.sort();
        words.dedup();
        Tie {
            score: 2 * shared + usize::from(near),
            kin: words.iter().filter(|w| self.dir_words.contains(w)).count(),
            extra: stem.iter().filter(|p| !self.wanted.contains(p)).count(),
            closeness: self.closeness(dir),
            file,
        }
    }
}

/// The glob itself, as the pack writes it, with the file of `files` nearest the call's as its
/// example (the most words shared with the call's directories, then the most leading
/// directories, then the shortest path).
fn matching(companion: &CompiledCompanion, files: &[String], rel: &str) -> Action {
    let call = Call::new(rel);
    let example = files
        .iter()
        .map(|f| (call.tie(f, 0), f))
        .max_by(|(a, fa), (b, fb)| {
            a.kin
                .cmp(&b.kin)
                .then(a.closeness.cmp(&b.closeness))
                .then(fb.len().cmp(&fa.len()))
                .then(fb.cmp(fa))
        })
        .map(|(_, f)| f.clone());
    Action::Matching {
        glob: companion.path.clone(),
        example,
    }
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
