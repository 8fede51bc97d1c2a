//! A pack compiled once into matchers: the hot path only matches and adds.

use crate::matcher::CompanionMatcher;
use crate::paths::is_pattern;
use docsuggest_schema::pack::{DOC_KIND, Pack, PackError};
use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use std::sync::Arc;

/// How a companion is checked for existence (SPEC §5, Filter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompanionForm {
    /// Carries a `<placeholder>`: illustrative, always kept.
    Placeholder,
    /// Absolute or climbing with `..`: it could leave the workspace, always dropped.
    Escaping,
    /// `*/<rest>`: an immediate subdirectory of the package parent or the root holding `rest`.
    AnySubdir {
        /// The literal part after `*/`.
        rest: String,
    },
    /// Another glob: its literal prefix directory must exist under a base.
    Glob {
        /// The directory before the first glob component (may be empty).
        prefix: String,
    },
    /// A literal path that must exist under a base.
    Literal,
}

/// One companion of a compiled family.
#[derive(Clone, Debug)]
pub struct CompiledCompanion {
    /// The companion as the pack writes it.
    pub path: String,
    /// The pack's prior.
    pub prior: f64,
    /// How its existence is checked.
    pub form: CompanionForm,
    /// Matches a base-relative call path that names this companion (placeholders match any name),
    /// as globset compiles it.
    pub matcher: Arc<GlobMatcher>,
    /// The same match with a literal's fast path, and the companion's name. Shared: every
    /// window a note or silence opens holds its companions'.
    pub names: Arc<CompanionMatcher>,
}

impl CompiledCompanion {
    /// The companion `path` with its pack `prior`, matched by `glob`.
    pub fn new(path: &str, prior: f64, glob: &Glob) -> CompiledCompanion {
        let matcher = Arc::new(glob.compile_matcher());
        CompiledCompanion {
            path: path.to_string(),
            prior,
            form: form_of(path),
            names: Arc::new(CompanionMatcher::new(path, matcher.clone())),
            matcher,
        }
    }
}

/// One family, ready to detect and measure.
#[derive(Clone, Debug)]
pub struct CompiledFamily {
    /// The family's name.
    pub name: String,
    /// Its own gate, if the pack sets one.
    pub threshold: Option<f64>,
    /// Its companions in pack order.
    pub companions: Vec<CompiledCompanion>,
    /// Its rules, as written (for pattern targets).
    rules: Vec<String>,
    /// Its rules, compiled one by one (for pattern targets).
    rule_matchers: Vec<GlobMatcher>,
}

/// What detection made of a workspace-relative target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detection {
    /// No doc family claims the target.
    NoSignal,
    /// Exactly one family claims it (index into [`CompiledPack::families`]).
    Family(usize),
    /// Several families claim it equally; the first by pack order is named.
    Ambiguous(usize),
}

/// A validated pack with its globs compiled.
#[derive(Clone, Debug)]
pub struct CompiledPack {
    /// The signature files of a workspace root.
    pub signature: Vec<String>,
    /// The `doc` families, in pack order.
    pub families: Vec<CompiledFamily>,
    /// Every rule of every doc family.
    rules: GlobSet,
    /// For each rule in `rules`: its family and how specific it is.
    rule_owner: Vec<(usize, usize)>,
}

fn glob(text: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(text).literal_separator(true).build()
}

/// `<Name>` becomes `*`, so an illustrative companion still matches the file an agent opens.
fn placeholder_glob(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('<') {
        match rest[open..].find('>') {
            Some(close) => {
                out.push_str(&rest[..open]);
                out.push('*');
                rest = &rest[open + close + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

fn has_placeholder(path: &str) -> bool {
    path.find('<')
        .is_some_and(|open| path[open + 1..].find('>').is_some_and(|close| close > 0))
}

fn form_of(path: &str) -> CompanionForm {
    // Escaping first: an illustration may not point outside the workspace either.
    if path.starts_with('/') || path.split('/').any(|c| c == "..") {
        CompanionForm::Escaping
    } else if has_placeholder(path) {
        CompanionForm::Placeholder
    } else if let Some(rest) = path.strip_prefix("*/").filter(|r| !is_pattern(r)) {
        CompanionForm::AnySubdir { rest: rest.into() }
    } else if is_pattern(path) {
        let prefix: Vec<&str> = path.split('/').take_while(|c| !is_pattern(c)).collect();
        CompanionForm::Glob {
            prefix: prefix.join("/"),
        }
    } else {
        CompanionForm::Literal
    }
}

/// How specific a rule is: its literal characters, not counting `**/` spans.
fn specificity(rule: &str) -> usize {
    rule.replace("**/", "")
        .replace("/**", "")
        .chars()
        .filter(|c| !matches!(c, '*' | '?' | '[' | ']' | '{' | '}'))
        .count()
}

impl CompiledPack {
    /// Compiles a validated pack; glob syntax errors name the field, in `file`.
    pub fn compile(pack: &Pack, file: &str) -> Result<CompiledPack, PackError> {
        let mut problems = pack.problems();
        let mut builder = GlobSetBuilder::new();
        let mut rule_owner = Vec::new();
        let mut families = Vec::new();
        for (i, fam) in pack.families.iter().enumerate() {
            if fam.kind != DOC_KIND {
                continue;
            }
            let index = families.len();
            let mut rule_matchers = Vec::new();
            for (j, rule) in fam.rules.iter().enumerate() {
                match glob(rule) {
                    Ok(g) => {
                        rule_matchers.push(g.compile_matcher());
                        builder.add(g);
                        rule_owner.push((index, specificity(rule)));
                    }
                    Err(e) => problems.push(format!("families[{i}].rules[{j}]: invalid glob: {e}")),
                }
            }
            let mut companions = Vec::new();
            for (j, c) in fam.companions.iter().enumerate() {
                match glob(&placeholder_glob(&c.path)) {
                    Ok(g) => companions.push(CompiledCompanion::new(&c.path, c.prior, &g)),
                    Err(e) => problems.push(format!(
                        "families[{i}].companions[{j}].path: invalid glob: {e}"
                    )),
                }
            }
            families.push(CompiledFamily {
                name: fam.name.clone(),
                threshold: fam.threshold,
                companions,
                rules: fam.rules.clone(),
                rule_matchers,
            });
        }
        let rules = builder.build().map_err(|e| PackError {
            file: file.into(),
            problems: vec![format!("rules: {e}")],
        });
        if !problems.is_empty() {
            return Err(PackError {
                file: file.into(),
                problems,
            });
        }
        Ok(CompiledPack {
            signature: pack.signature.clone(),
            families,
            rules: rules?,
            rule_owner,
        })
    }

    /// The built-in pack, compiled.
    pub fn builtin() -> CompiledPack {
        match CompiledPack::compile(&Pack::builtin(), "(built-in pack)") {
            Ok(pack) => pack,
            // The built-in pack is a constant checked by the test suite.
            Err(e) => unreachable!("the built-in pack is valid: {e}"),
        }
    }

    /// Classifies a workspace-relative target: one path, or a glob/grep pattern.
    pub fn detect(&self, target: &str) -> Detection {
        if is_pattern(target) {
            return self.detect_pattern(target);
        }
        let mut best: Option<(usize, usize)> = None; // (specificity, family)
        let mut tied = false;
        for rule in self.rules.matches(target) {
            let (family, spec) = self.rule_owner[rule];
            match best {
                Some((s, f)) if spec < s || (spec == s && family == f) => {}
                Some((s, f)) if spec == s => {
                    tied = true;
                    best = Some((s, f.min(family)));
                }
                _ => {
                    best = Some((spec, family));
                    tied = false;
                }
            }
        }
        match best {
            None => Detection::NoSignal,
            Some((_, f)) if tied => Detection::Ambiguous(f),
            Some((_, f)) => Detection::Family(f),
        }
    }

    /// A pattern names the families whose rules it could match; more than one is ambiguous.
    fn detect_pattern(&self, pattern: &str) -> Detection {
        let pattern_matcher = glob(pattern).ok().map(|g| g.compile_matcher());
        let claims = |fam: &CompiledFamily| {
            fam.rule_matchers.iter().any(|m| m.is_match(pattern))
                || pattern_matcher
                    .as_ref()
                    .is_some_and(|p| fam.rules.iter().any(|r| p.is_match(r)))
        };
        let mut hits = self.families.iter().enumerate().filter(|(_, f)| claims(f));
        match (hits.next(), hits.next()) {
            (None, _) => Detection::NoSignal,
            (Some((i, _)), None) => Detection::Family(i),
            (Some((i, _)), Some(_)) => Detection::Ambiguous(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::pack::{Companion, Family};

    fn fam(name: &str, rules: &[&str]) -> Family {
        Family {
            name: name.into(),
            kind: DOC_KIND.into(),
            rules: rules.iter().map(|r| r.to_string()).collect(),
            threshold: None,
            companions: vec![Companion {
                path: "x.md".into(),
                prior: 1.0,
            }],
        }
    }

    fn names(pack: &CompiledPack, d: Detection) -> String {
        match d {
            Detection::NoSignal => "no-signal".into(),
            Detection::Family(i) => pack.families[i].name.clone(),
            Detection::Ambiguous(i) => format!("ambiguous {}", pack.families[i].name),
        }
    }

    #[test]
    fn detects_the_builtin_families() {
        let pack = CompiledPack::builtin();
        for (target, expect) in [
            ("Documentation/Plans/SEARCH.md", "Plan"),
            ("Documentation/Plans/deep/SEARCH.md", "no-signal"),
            ("packages/core/SCHEME.md", "Scheme"),
            ("SCHEME.md", "Scheme"),
            ("POC-BRIEF.md", "Brief"),
            ("README.md", "Readme"),
            ("packages/core/README.md", "Readme"),
            ("packages/core/CHANGELOG.md", "Changelog"),
            ("Documentation/ARCHIVE-STYLE.md", "Archive"),
            ("Documentation/INDEX.md", "Index"),
            ("src/main.rs", "no-signal"),
            ("Documentation/Plans/*.md", "Plan"),
            ("**/*.md", "ambiguous Plan"),
            ("Documentation/*.md", "ambiguous Archive"),
        ] {
            assert_eq!(names(&pack, pack.detect(target)), expect, "{target}");
        }
    }

    #[test]
    fn the_more_specific_rule_wins_and_ties_are_ambiguous() {
        let pack = Pack {
            signature: vec!["S".into()],
            families: vec![
                fam("Any", &["docs/*.md"]),
                fam("Exact", &["docs/A.md"]),
                fam("Twin", &["docs/?.md"]),
                fam("Other", &["**/B.md"]),
                fam("Same", &["docs/B.md"]),
                fam("Peer", &["docs/B.md"]),
            ],
        };
        let pack = CompiledPack::compile(&pack, "p").expect("valid");
        assert_eq!(names(&pack, pack.detect("docs/A.md")), "Exact");
        assert_eq!(names(&pack, pack.detect("docs/B.md")), "ambiguous Same");
        assert_eq!(names(&pack, pack.detect("docs/CC.md")), "Any");
        assert_eq!(names(&pack, pack.detect("docs/C.md")), "ambiguous Any");
    }

    #[test]
    fn companion_forms() {
        for (path, form) in [
            ("Documentation/INDEX.md", CompanionForm::Literal),
            ("Documentation/Plans/<Plan>.md", CompanionForm::Placeholder),
            (
                "*/SCHEME.md",
                CompanionForm::AnySubdir {
                    rest: "SCHEME.md".into(),
                },
            ),
            (
                "Documentation/Plans/*.md",
                CompanionForm::Glob {
                    prefix: "Documentation/Plans".into(),
                },
            ),
            (
                "**/x.md",
                CompanionForm::Glob {
                    prefix: String::new(),
                },
            ),
            ("../x.md", CompanionForm::Escaping),
            ("/etc/passwd", CompanionForm::Escaping),
            ("../<Name>.md", CompanionForm::Escaping),
            ("docs/../../<Name>.md", CompanionForm::Escaping),
            ("/<Name>.md", CompanionForm::Escaping),
        ] {
            assert_eq!(form_of(path), form, "{path}");
        }
        assert_eq!(placeholder_glob("a/<B>/c<D>.md"), "a/*/c*.md");
    }

    #[test]
    fn bad_globs_name_the_field() {
        let mut pack = Pack::builtin();
        pack.families[1].rules[0] = "a/[b.md".into();
        let err = CompiledPack::compile(&pack, "ws/.dsh/doc-pack.json").expect_err("bad glob");
        assert_eq!(err.problems.len(), 1);
        assert!(
            err.problems[0].starts_with("families[1].rules[0]: invalid glob:"),
            "{err}"
        );
    }
}
