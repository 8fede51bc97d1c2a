//! The path rules a family can be mined as, and what each captures for a template.
//!
//! Every changed path proposes a few rules of fixed shapes — its directory and extension
//! (`src/attr/*.py`), a subtree and extension (`clippy_lints/src/**/*.rs`), one item
//! directory among its siblings (`packages/*/package.json`) — so a family generalises over the
//! files of a convention, not one file. Each shape has exactly one single `*`, and a template
//! companion's `{}` is what that `*` matched (the engine's capture rule: the last single `*`);
//! a subtree rule's `**` captures the directories below its top (a template's `{**}`).

/// Characters that would make a path mean more than itself inside a glob or a template: a
/// path holding one proposes no rule and no companion.
const SPECIAL: [char; 10] = ['*', '?', '[', ']', '{', '}', '<', '>', '\\', '!'];

/// A subtree rule reaches at most this many directories below the repository root.
const MAX_TOP_DEPTH: usize = 3;

/// Whether `path` is plain enough to appear in a rule or a companion.
pub fn plain(path: &str) -> bool {
    !path.is_empty() && !path.contains(SPECIAL) && !path.split('/').any(|c| c.is_empty())
}

/// A path's directory (`""` at the root) and file name.
pub fn split(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("", path),
    }
}

/// A file name's last extension, when it has a non-empty stem before it (`a.test.ts` → `ts`;
/// `.gitignore`, `Makefile` → none).
pub fn extension(name: &str) -> Option<&str> {
    let dot = name.rfind('.')?;
    (dot > 0 && dot + 1 < name.len()).then(|| &name[dot + 1..])
}

/// Whether a file of this extension is a manifest (configuration a lock file is generated
/// from, not code): `.toml`, `.json`, `.mod`, `.yaml`, `.cfg`, `.gemspec`, or none (`Gemfile`).
pub fn manifest_extension(ext: Option<&str>) -> bool {
    ext.is_none_or(|e| {
        matches!(
            e,
            "toml" | "json" | "mod" | "yaml" | "yml" | "cfg" | "gemspec"
        )
    })
}

/// One mined rule's shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    /// `dir/*.ext`: the files of one directory with one extension; captures the stem.
    DirExt {
        /// The directory (`""` at the root).
        dir: String,
        /// The extension, without its dot.
        ext: String,
    },
    /// `top/**/*.ext`: the files of a subtree with one extension; captures the stem.
    Deep {
        /// The subtree's root directory (never the repository root).
        top: String,
        /// The extension, without its dot.
        ext: String,
    },
    /// `dir/<prefix>*<suffix>.ext`: the files of a directory named by a naming convention
    /// (`test_*.py`, `*_test.go`, `*.spec.ts`, `_*.py`); captures the name between.
    Affix {
        /// The directory (`""` at the root).
        dir: String,
        /// The literal start of the stem (`test_`, `_`), or empty.
        prefix: String,
        /// The literal end of the stem (`_test`, `.spec`), or empty.
        suffix: String,
        /// The extension, without its dot.
        ext: String,
    },
    /// `parent/*/name`: one file name in each item directory of `parent`; captures the item.
    Item {
        /// The directory holding the items (`""` at the root).
        parent: String,
        /// The file name inside each item.
        name: String,
    },
}

fn under(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_string()
    } else {
        format!("{dir}/{rest}")
    }
}

impl Shape {
    /// The rule as a pack glob.
    pub fn glob(&self) -> String {
        match self {
            Shape::DirExt { dir, ext } => under(dir, &format!("*.{ext}")),
            Shape::Deep { top, ext } => format!("{top}/**/*.{ext}"),
            Shape::Affix {
                dir,
                prefix,
                suffix,
                ext,
            } => under(dir, &format!("{prefix}*{suffix}.{ext}")),
            Shape::Item { parent, name } => under(parent, &format!("*/{name}")),
        }
    }

    /// How specific the rule is, as the engine ranks overlapping rules: its literal
    /// characters, not counting `**/`.
    pub fn specificity(&self) -> usize {
        self.glob()
            .replace("**/", "")
            .chars()
            .filter(|c| !matches!(c, '*' | '?' | '[' | ']' | '{' | '}'))
            .count()
    }

    /// What the rule captures of `path`, when the rule matches it: what its `*` matches,
    /// and for a subtree rule the directories its `**` matches.
    pub fn capture<'p>(&self, path: &'p str) -> Option<Capture<'p>> {
        let (dir, name) = split(path);
        let stem = match self {
            Shape::DirExt { dir: d, ext } => {
                (dir == d).then_some(())?;
                stem_of(name, ext)?
            }
            Shape::Deep { top, ext } => {
                let dirs = if dir == top {
                    ""
                } else {
                    dir.strip_prefix(top.as_str())?.strip_prefix('/')?
                };
                return Some(Capture {
                    stem: stem_of(name, ext)?,
                    dirs: Some(dirs),
                });
            }
            Shape::Affix {
                dir: d,
                prefix,
                suffix,
                ext,
            } => {
                (dir == d).then_some(())?;
                let inner = stem_of(name, ext)?
                    .strip_prefix(prefix.as_str())?
                    .strip_suffix(suffix.as_str())?;
                (!inner.is_empty()).then_some(inner)?
            }
            Shape::Item { parent, name: n } => {
                (name == n).then_some(())?;
                let (grand, item) = split(dir);
                (grand == parent && !item.is_empty()).then_some(item)?
            }
        };
        Some(Capture { stem, dirs: None })
    }

    /// Whether the rule matches `path`.
    pub fn matches(&self, path: &str) -> bool {
        self.capture(path).is_some()
    }
}

/// What a rule captures of one of its files, as a template names companions from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capture<'p> {
    /// What its `*` matched (`{}`).
    pub stem: &'p str,
    /// For a subtree rule (`top/**/*.ext`): the directories between `top` and the file,
    /// `""` directly in `top` (`{**}`). `None` for the other rules.
    pub dirs: Option<&'p str>,
}

/// A naming convention's literal part is short and ends (or starts) at a separator.
const MAX_AFFIX: usize = 6;

/// The ways a stem splits into a conventional prefix or suffix and a name: `test_make` →
/// (`test_`, `make`, ``); `foo_test` → (``, `foo`, `_test`); `_make` → (`_`, `make`, ``);
/// and where the words of a name are told apart by case, not by a separator: `FooTests` →
/// (``, `Foo`, `Tests`); `TestFoo` → (`Test`, `Foo`, ``).
fn affixes(stem: &str) -> Vec<(&str, &str, &str)> {
    let separator = |c: char| matches!(c, '_' | '-' | '.');
    let mut out = Vec::new();
    if let Some(at) = stem.find(separator)
        && at < MAX_AFFIX
        && at + 1 < stem.len()
    {
        out.push((&stem[..=at], &stem[at + 1..], ""));
    } else if let Some(at) = camel_words(stem).first().copied()
        && at <= MAX_AFFIX
    {
        out.push((&stem[..at], &stem[at..], ""));
    }
    if let Some(at) = stem.rfind(separator)
        && at > 0
        && stem.len() - at <= MAX_AFFIX
        && stem[..at].chars().last().is_some_and(|c| !separator(c))
    {
        out.push(("", &stem[..at], &stem[at..]));
    } else if let Some(at) = camel_words(stem).last().copied()
        && stem.len() - at <= MAX_AFFIX
    {
        out.push(("", &stem[..at], &stem[at..]));
    }
    out
}

/// The byte offsets where a new capitalised word starts inside a separator-free stem: an
/// upper-case letter after a lower-case letter or a digit (`FooBarTests` → 3, 6). None for a
/// stem with a separator (its words are split there) or without two words.
pub fn camel_words(stem: &str) -> Vec<usize> {
    if stem.contains(['_', '-', '.']) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut previous: Option<char> = None;
    for (at, c) in stem.char_indices() {
        if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
            out.push(at);
        }
        previous = Some(c);
    }
    out
}

fn stem_of<'p>(name: &'p str, ext: &str) -> Option<&'p str> {
    let stem = name.strip_suffix(ext)?.strip_suffix('.')?;
    (!stem.is_empty()).then_some(stem)
}

/// The rules a changed path proposes, each with what it captures there.
pub fn proposals(path: &str) -> Vec<(Shape, &str)> {
    let mut out = Vec::new();
    if !plain(path) {
        return out;
    }
    let (dir, name) = split(path);
    if let Some(ext) = extension(name) {
        let stem = &name[..name.len() - ext.len() - 1];
        out.push((
            Shape::DirExt {
                dir: dir.into(),
                ext: ext.into(),
            },
            stem,
        ));
        for (prefix, inner, suffix) in affixes(stem) {
            out.push((
                Shape::Affix {
                    dir: dir.into(),
                    prefix: prefix.into(),
                    suffix: suffix.into(),
                    ext: ext.into(),
                },
                inner,
            ));
        }
        let parts: Vec<&str> = if dir.is_empty() {
            Vec::new()
        } else {
            dir.split('/').collect()
        };
        // Proper ancestors only: the directory itself is the DirExt rule.
        for depth in 1..parts.len().min(MAX_TOP_DEPTH + 1) {
            out.push((
                Shape::Deep {
                    top: parts[..depth].join("/"),
                    ext: ext.into(),
                },
                stem,
            ));
        }
    }
    if !dir.is_empty() {
        let (parent, item) = split(dir);
        out.push((
            Shape::Item {
                parent: parent.into(),
                name: name.into(),
            },
            item,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposals_and_their_captures() {
        let globs = |p: &str| -> Vec<(String, String)> {
            proposals(p)
                .into_iter()
                .map(|(s, c)| (s.glob(), c.to_string()))
                .collect()
        };
        let pair = |g: &str, c: &str| (g.to_string(), c.to_string());
        assert_eq!(
            globs("clippy_lints/src/methods/foo.rs"),
            vec![
                pair("clippy_lints/src/methods/*.rs", "foo"),
                pair("clippy_lints/**/*.rs", "foo"),
                pair("clippy_lints/src/**/*.rs", "foo"),
                pair("clippy_lints/src/*/foo.rs", "methods"),
            ]
        );
        assert_eq!(
            globs("packages/cli/package.json"),
            vec![
                pair("packages/cli/*.json", "package"),
                pair("packages/**/*.json", "package"),
                pair("packages/*/package.json", "cli"),
            ]
        );
        assert_eq!(globs("README.md"), vec![pair("*.md", "README")]);
        assert_eq!(
            globs("src/a.test.ts"),
            vec![
                pair("src/*.ts", "a.test"),
                pair("src/a.*.ts", "test"),
                pair("src/*.test.ts", "a"),
                pair("*/a.test.ts", "src"),
            ]
        );
        assert_eq!(
            globs("tests/test_make.py")[..3],
            [
                pair("tests/*.py", "test_make"),
                pair("tests/test_*.py", "make"),
                pair("tests/*_make.py", "test"),
            ]
        );
        assert_eq!(
            globs("src/attr/_make.py")[1],
            pair("src/attr/_*.py", "make")
        );
        assert_eq!(globs("Makefile"), Vec::<(String, String)>::new());
        assert_eq!(
            globs(".github/x/.gitignore"),
            vec![pair(".github/*/.gitignore", "x")]
        );
        assert!(globs("a/[b].md").is_empty());
    }

    #[test]
    fn captures_agree_with_the_proposals() {
        for path in [
            "clippy_lints/src/methods/foo.rs",
            "packages/cli/package.json",
            "a.md",
        ] {
            for (shape, capture) in proposals(path) {
                let got = shape.capture(path).map(|c| c.stem);
                assert_eq!(got, Some(capture), "{}", shape.glob());
            }
        }
        let deep = Shape::Deep {
            top: "src".into(),
            ext: "rs".into(),
        };
        let both = |stem, dirs| Capture {
            stem,
            dirs: Some(dirs),
        };
        assert_eq!(deep.capture("src/lib.rs"), Some(both("lib", "")));
        assert_eq!(deep.capture("src/a/b/c.rs"), Some(both("c", "a/b")));
        assert_eq!(deep.capture("srcx/lib.rs"), None);
        assert_eq!(deep.capture("srcx/a/lib.rs"), None);
        assert_eq!(deep.capture("src/lib.rsx"), None);
        let item = Shape::Item {
            parent: String::new(),
            name: "README.md".into(),
        };
        let stem = |stem| Capture { stem, dirs: None };
        assert_eq!(item.capture("x/README.md"), Some(stem("x")));
        assert_eq!(item.capture("x/y/README.md"), None);
        assert_eq!(item.capture("README.md"), None);
    }
}
