//! Walking a glob companion on disk, component by component, through the probe's listings:
//! bounded in entries and files, never through a symlink, names that print other than they
//! are skipped.

use super::names::{file_stem, parts, shows_as_written};
use crate::paths::is_pattern;
use crate::probe::{EntryKind, FileProbe};
use std::path::Path;

/// The most directory entries one glob's resolution looks at (a glob over a large tree is
/// named by what this finds, or left out).
const MAX_VISITED: usize = 20_000;

/// The most files of one glob a resolution weighs.
const MAX_FOUND: usize = 2_000;

/// One component of a glob companion, for walking only the directories it can match.
pub(super) enum Component {
    /// A name as written.
    Literal(String),
    /// A name matched by a pattern (`*Spec.kt`, `detekt-*`).
    Pattern(globset::GlobMatcher),
    /// `**`: any number of directories (last, every file below).
    Deep,
}

impl Component {
    /// The components of `pattern`; `None` when one does not compile on its own (a brace
    /// holding a `/`).
    pub(super) fn parse(pattern: &str) -> Option<Vec<Component>> {
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
/// through a symlink), the directories on the way to the call's own, or named after it, first.
pub(super) struct Walk<'a> {
    probe: &'a dyn FileProbe,
    /// The call's workspace-relative path.
    toward: &'a str,
    /// The parts of the call's file name (`arrow` of `src/print/arrow.js`).
    named: Vec<String>,
    visited: usize,
    files: Vec<String>,
}

impl<'a> Walk<'a> {
    /// A walk toward the call at workspace-relative `toward`, nothing visited yet.
    pub(super) fn new(probe: &'a dyn FileProbe, toward: &'a str) -> Self {
        Walk {
            probe,
            toward,
            named: parts(file_stem(toward)),
            visited: 0,
            files: Vec::new(),
        }
    }

    /// The files under `base` that `components` match, relative to it; what this walk has
    /// visited before counts toward its bounds.
    pub(super) fn files_under(&mut self, base: &Path, components: &[Component]) -> Vec<String> {
        self.descend(base, String::new(), components);
        std::mem::take(&mut self.files)
    }

    fn done(&self) -> bool {
        self.visited >= MAX_VISITED || self.files.len() >= MAX_FOUND
    }

    /// The plain entries of `base/dir`, those whose names are directories of the call's path
    /// (its ancestors, or a mirrored tree's: `src/test/kotlin/io/…` for
    /// `src/main/kotlin/io/…`) or share a part with its file name (`tests/arrow/` for
    /// `src/print/arrow.js`) first.
    fn entries(&mut self, base: &Path, dir: &str) -> Vec<(String, EntryKind)> {
        let mut entries = self.probe.plain_entries(&base.join(dir));
        self.visited += entries.len();
        entries.retain(|(name, _)| shows_as_written(name));
        let on_the_way = |name: &str| {
            self.toward.split('/').any(|c| c == name)
                || parts(name).iter().any(|p| self.named.contains(p))
        };
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
            // No directory, then each subdirectory again under the same `**`; a last `**`
            // matches every file below.
            self.descend(base, dir.clone(), rest);
            for (name, kind) in self.entries(base, &dir) {
                if name.starts_with('.') || self.done() {
                    continue;
                }
                match kind {
                    EntryKind::Dir => self.descend(base, join(&name), components),
                    EntryKind::File if rest.is_empty() => self.files.push(join(&name)),
                    _ => {}
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
