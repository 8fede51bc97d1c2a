//! A pack compiled once into matchers: the hot path only matches and adds.

use crate::matcher::CompanionMatcher;
use crate::paths::is_pattern;
use capture::RuleCaptures;
use docsuggest_schema::pack::{
    DIR_MARK, DOC_KIND, Pack, PackError, TEMPLATE_MARK, has_placeholder, is_template,
};
use docsuggest_schema::rate::{NEUTRAL, PRIOR_WEIGHT};
use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use std::sync::Arc;

mod capture;

pub use capture::{Captured, substitute};

/// How a companion is checked for existence (docs/PACK.md, "Companion forms and the existence filter").
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
    /// Holds `{}` or `{**}`: names the companion from the call's own path (each `{}`
    /// replaced by the capture, each `{**}` by the directories the rule's `**` matched); kept
    /// when the substituted path, or its parent directory, exists under a base.
    Template,
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
    /// The family's files this companion is for, sorted (the pack's `for`); empty: all.
    pub for_files: Arc<[String]>,
    /// How often the newer part of the history followed it when its family changed (the
    /// pack's `validated`, as a rate): its evidence at a change boundary before boundaries
    /// have seen it. `None`: the pack has no figures for it.
    pub validated_rate: Option<f64>,
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
            for_files: Arc::from([]),
            validated_rate: None,
        }
    }

    /// The same companion, with the pack's `validated` figures as its rate: shrunk towards
    /// the neutral rate as a learned row is (by [`PRIOR_WEIGHT`] observations of it), so one
    /// commit followed once says little.
    pub fn validated_by(
        mut self,
        figures: Option<docsuggest_schema::pack::origin::Validated>,
    ) -> Self {
        self.validated_rate = figures.map(|v| {
            (f64::from(v.followed) + PRIOR_WEIGHT * NEUTRAL) / (f64::from(v.named) + PRIOR_WEIGHT)
        });
        self
    }

    /// The same companion, named only on calls on `files` (workspace-relative).
    pub fn named_for(mut self, files: &[String]) -> CompiledCompanion {
        let mut files = files.to_vec();
        files.sort_unstable();
        files.dedup();
        self.for_files = files.into();
        self
    }

    /// Whether the companion is named on a call on the workspace-relative path `rel`: a
    /// per-file companion on its files only, any other on every file of its family.
    pub fn applies_to(&self, rel: &str) -> bool {
        self.for_files.is_empty()
            || self
                .for_files
                .binary_search_by(|f| f.as_str().cmp(rel))
                .is_ok()
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
    /// Its rules, compiled one by one (for pattern targets and captures).
    rule_matchers: Vec<GlobMatcher>,
    /// Whether a companion is a template.
    templates: bool,
    /// For a family with a template: each rule's captures, in rule order (each `None` where
    /// the rule has no single `*`, or no one `**` component, or no template needs it). Empty
    /// otherwise: only templates read a capture.
    captures: Vec<RuleCaptures>,
}

impl CompiledFamily {
    /// Whether the pack carries validated figures for one of the family's companions (the
    /// miner kept it on how it did on the newer part of the history).
    pub fn validated(&self) -> bool {
        self.companions.iter().any(|c| c.validated_rate.is_some())
    }

    /// Whether one of the family's companions is a template (`{}` or `{**}`).
    pub fn has_templates(&self) -> bool {
        self.templates
    }

    /// The capture of a workspace-relative path of this family: what the last single `*` of
    /// the family's first rule (in pack order) that matches `rel` matched. `None` when no rule
    /// matches, that rule has no single `*`, or the family has no template (its captures are
    /// not compiled).
    pub fn capture<'p>(&self, rel: &'p str) -> Option<&'p str> {
        self.captured(rel).stem
    }

    /// Everything the family's first rule (in pack order) that matches `rel` captures for
    /// its templates: the stem, and the directories its one `**` component matched (when a
    /// template holds `{**}`). Nothing when no rule matches or the family has no template.
    pub fn captured<'p>(&self, rel: &'p str) -> Captured<'p> {
        if !self.templates {
            return Captured::default();
        }
        let rule = self.rule_matchers.iter().position(|m| m.is_match(rel));
        rule.and_then(|r| self.captures.get(r))
            .map_or_else(Captured::default, |c| c.of(rel))
    }

    /// The first rule (in pack order) that matches the workspace-relative path `rel`.
    pub fn rule_for(&self, rel: &str) -> Option<&str> {
        let at = self.rule_matchers.iter().position(|m| m.is_match(rel))?;
        self.rules.get(at).map(String::as_str)
    }

    /// The path companion `companion` (an index into `companions`) names for the
    /// workspace-relative call path `rel`: a template's substitution, when it has one (see
    /// [`substitute`]). `None` for a companion that is not a template.
    pub fn substitute(&self, companion: usize, rel: &str) -> Option<String> {
        let c = self.companions.get(companion)?;
        if c.form != CompanionForm::Template {
            return None;
        }
        substitute(&c.path, &self.captured(rel))
    }
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
    /// What `init` measured of the Stop reminder here (the pack's `boundary`).
    pub boundary: Option<docsuggest_schema::pack::BoundaryFigures>,
}

/// A pack glob as the engine compiles every one: `*` never crosses `/`.
fn glob(text: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(text).literal_separator(true).build()
}

/// What a follow-through matches for a companion a note named (a template already
/// substituted): its path as a glob, `<Name>`s matching any name. For hosts that count a
/// change's files against a note's companions as the engine counts an agent's next calls.
pub fn companion_matcher(companion: &str) -> Result<GlobMatcher, globset::Error> {
    glob(&placeholder_glob(companion)).map(|g| g.compile_matcher())
}

/// Whether the changed `file` (relative to the repository's root) is the companion that
/// `matcher` ([`companion_matcher`]) matches (relative to its workspace, which may sit below
/// the root): the file as seen from each directory it may lie under.
pub fn change_covers(matcher: &GlobMatcher, file: &str) -> bool {
    std::iter::once(file)
        .chain(file.match_indices('/').map(|(at, _)| &file[at + 1..]))
        .any(|suffix| matcher.is_match(suffix))
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

fn form_of(path: &str) -> CompanionForm {
    // Escaping first: an illustration may not point outside the workspace either.
    if path.starts_with('/') || path.split('/').any(|c| c == "..") {
        CompanionForm::Escaping
    } else if is_template(path) {
        CompanionForm::Template
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
            let templates = fam.companions.iter().any(|c| is_template(&c.path));
            for (j, c) in fam.companions.iter().enumerate() {
                // A template's glob (its `{}` as `*`, its `{**}` as `**`) only fills the
                // slot: a template is matched by its substitution, per call.
                let text = if is_template(&c.path) {
                    c.path.replace(DIR_MARK, "**").replace(TEMPLATE_MARK, "*")
                } else {
                    placeholder_glob(&c.path)
                };
                match glob(&text) {
                    Ok(g) => companions.push(
                        CompiledCompanion::new(&c.path, c.prior, &g)
                            .named_for(&c.for_files)
                            .validated_by(c.validated),
                    ),
                    Err(e) => problems.push(format!(
                        "families[{i}].companions[{j}].path: invalid glob: {e}"
                    )),
                }
            }
            // Compiled once here, and only what a template reads; the hot path only matches.
            let captures = if templates {
                let stems = fam.companions.iter().any(|c| {
                    is_template(&c.path) && c.path.replace(DIR_MARK, "").contains(TEMPLATE_MARK)
                });
                let dirs = fam.companions.iter().any(|c| c.path.contains(DIR_MARK));
                fam.rules
                    .iter()
                    .map(|r| RuleCaptures::of_rule(r, stems, dirs))
                    .collect()
            } else {
                Vec::new()
            };
            families.push(CompiledFamily {
                name: fam.name.clone(),
                threshold: fam.threshold,
                companions,
                rules: fam.rules.clone(),
                rule_matchers,
                templates,
                captures,
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
            boundary: pack.boundary,
        })
    }

    /// Whether a change boundary's claims may block here: the pack's `boundary.mayBlock`,
    /// `true` without it.
    pub fn may_block(&self) -> bool {
        self.boundary.is_none_or(|b| b.may_block)
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
    #[test]
    fn a_change_covers_a_companion_as_the_follow_through_counts_it() {
        for (companion, file, expect) in [
            ("CHANGELOG.md", "CHANGELOG.md", true),
            ("CHANGELOG.md", "docs/CHANGELOG.md", true),
            ("CHANGELOG.md", "CHANGELOG.mdx", false),
            ("Documentation/Plans/*.md", "Documentation/Plans/X.md", true),
            (
                "Documentation/Plans/*.md",
                "Documentation/Plans/a/X.md",
                false,
            ),
            (
                "Documentation/Plans/<Plan>.md",
                "Documentation/Plans/New.md",
                true,
            ),
            ("changelog.d/<name>.<ext>", "changelog.d/12.fix.md", true),
            ("tests/test_a.py", "src/tests/test_a.py", true),
            ("tests/test_a.py", "tests/test_b.py", false),
        ] {
            let matcher = companion_matcher(companion).expect("a glob");
            assert_eq!(
                change_covers(&matcher, file),
                expect,
                "{companion} / {file}"
            );
        }
    }

    use super::*;
    use docsuggest_schema::pack::{Companion, Family, single_stars};

    fn fam(name: &str, rules: &[&str]) -> Family {
        Family {
            name: name.into(),
            kind: DOC_KIND.into(),
            rules: rules.iter().map(|r| r.to_string()).collect(),
            threshold: None,
            companions: vec![Companion {
                path: "x.md".into(),
                prior: 1.0,
                for_files: Vec::new(),
                validated: None,
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
            mined: None,
            boundary: None,
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

    fn template_family(rules: &[&str], companion: &str) -> CompiledFamily {
        let mut family = fam("T", rules);
        family.companions[0].path = companion.into();
        let pack = Pack {
            signature: vec!["S".into()],
            mined: None,
            boundary: None,
            families: vec![family],
        };
        let mut pack = CompiledPack::compile(&pack, "p").expect("valid");
        pack.families.remove(0)
    }

    #[test]
    fn the_capture_is_what_the_last_single_star_matched() {
        for (rule, path, capture) in [
            ("src/attr/*.py", "src/attr/_make.py", Some("_make")),
            ("src/attr/*.py", "src/attr/x/_make.py", None),
            (
                "clippy_lints/src/**/*.rs",
                "clippy_lints/src/methods/foo.rs",
                Some("foo"),
            ),
            (
                "clippy_lints/src/**/*.rs",
                "clippy_lints/src/foo.rs",
                Some("foo"),
            ),
            ("**/*.rs", "a/b/c.rs", Some("c")),
            ("**/*.rs", "c.rs", Some("c")),
            ("**/*.rs", ".rs", Some("")),
            ("src/*/README.md", "src/x/README.md", Some("x")),
            ("src/*/README.md", "src/x/y/README.md", None),
            ("lints/*/README.md", "lints/abc/README.md", Some("abc")),
            ("a/*_test.go", "a/foo_test.go", Some("foo")),
            ("a/*_test.go", "a/_test.go", Some("")),
            ("a/*_test.go", "a/foo_test.go.bak", None),
            ("{a,b}/*.md", "b/x.md", Some("x")),
            ("{a,b}/*.md", "c/x.md", None),
            ("[ab]/*.x", "a/y.x", Some("y")),
            ("[ab]/*.x", "c/y.x", None),
            ("[!a]/*.x", "c/y.x", Some("y")),
            // Greedy, leftmost-first: the earlier `*` takes what it can.
            ("*_*.md", "a_b_c.md", Some("c")),
            ("docs/*/**/x.md", "docs/p/q/r/x.md", Some("p")),
            ("docs/*/**", "docs/p/q", Some("p")),
            ("\\*/*.md", "*/a.md", Some("a")),
            ("[*]/*.md", "*/b.md", Some("b")),
            ("?*.md", "ab.md", Some("b")),
            // `?` matches a byte: a capture must fall on character boundaries.
            ("?*.md", "é.md", None),
            ("x/{*.md,y/*}", "x/y/foo", Some("foo")),
            ("x/{*.md,y/*}", "x/a.md", None),
            ("a/**", "a/b/c", None),
            ("a**b/c", "aXb/c", None),
            ("README.md", "README.md", None),
        ] {
            let matched = glob(rule).expect("a valid rule").compile_matcher();
            let got = capture::Capture::of_stem(rule)
                .filter(|_| matched.is_match(path))
                .and_then(|c| c.of(path).map(str::to_string));
            assert_eq!(got.as_deref(), capture, "{rule} {path}");
            if !single_stars(rule).is_empty() {
                let family = template_family(&[rule], "t/{}.md");
                assert_eq!(family.capture(path), capture, "{rule} {path}");
            }
        }
    }

    #[test]
    fn the_first_matching_rule_in_pack_order_captures() {
        let family = template_family(&["src/*.py", "src/**/*.py"], "tests/test_{}.py");
        assert_eq!(family.capture("src/a.py"), Some("a"));
        assert_eq!(family.capture("src/d/b.py"), Some("b"));
        assert_eq!(
            family.substitute(0, "src/d/b.py").as_deref(),
            Some("tests/test_b.py")
        );
        let family = template_family(&["src/special.py", "src/*.py"], "tests/{}.py");
        assert_eq!(family.capture("src/special.py"), None);
        assert_eq!(family.substitute(0, "src/special.py"), None);
        assert_eq!(family.capture("src/other.py"), Some("other"));
        // A family without a template compiles no capture, and a literal is no template.
        let plain = template_family(&["src/*.py"], "x.md");
        assert!(!plain.has_templates());
        assert_eq!(plain.capture("src/a.py"), None);
        assert_eq!(plain.substitute(0, "src/a.py"), None);
    }

    #[test]
    fn a_directory_capture_names_the_call_s_own_subdirectory() {
        let family = template_family(&["lib/**/*.rb"], "spec/{**}/{}_spec.rb");
        assert!(family.has_templates());
        assert_eq!(
            family
                .substitute(0, "lib/app/rules/safety/open_call.rb")
                .as_deref(),
            Some("spec/app/rules/safety/open_call_spec.rb")
        );
        assert_eq!(
            family.substitute(0, "lib/foo.rb").as_deref(),
            Some("spec/foo_spec.rb")
        );
        // With or without `{}`.
        let family = template_family(&["docs/**/*.md"], "site/{**}/index.html");
        assert_eq!(
            family.substitute(0, "docs/a/b/x.md").as_deref(),
            Some("site/a/b/index.html")
        );
        assert_eq!(
            family.substitute(0, "docs/x.md").as_deref(),
            Some("site/index.html")
        );
        // The first matching rule has no `**`: no directory capture, the template is dropped.
        let family = template_family(&["lib/special/*.rb", "lib/**/*.rb"], "spec/{**}/{}.rb");
        assert_eq!(family.captured("lib/special/x.rb"), Captured::stem("x"));
        assert_eq!(family.substitute(0, "lib/special/x.rb"), None);
        assert_eq!(
            family.substitute(0, "lib/other/x.rb").as_deref(),
            Some("spec/other/x.rb")
        );
        assert_eq!(form_of("spec/{**}/x.rb"), CompanionForm::Template);
        assert_eq!(form_of("../{**}/x.rb"), CompanionForm::Escaping);
    }

    #[test]
    fn substitution_drops_what_could_climb_or_forge_a_line() {
        assert_eq!(
            substitute("lints/{}/meta.yaml", &Captured::stem("abc")).as_deref(),
            Some("lints/abc/meta.yaml")
        );
        assert_eq!(
            substitute("{}/{}.txt", &Captured::stem("a")).as_deref(),
            Some("a/a.txt")
        );
        assert_eq!(
            substitute("tests/{}.rs", &Captured::stem("")).as_deref(),
            None
        );
        assert_eq!(
            substitute("lints/{}/meta.yaml", &Captured::stem("..")).as_deref(),
            None
        );
        assert_eq!(
            substitute("lints/{}/meta.yaml", &Captured::stem(".")).as_deref(),
            None
        );
        assert_eq!(substitute("{}/x", &Captured::stem("..")).as_deref(), None);
        assert_eq!(
            substitute("tests/{}.rs", &Captured::stem("a\nb")).as_deref(),
            None
        );
        // `..x` and `.x` are names, not climbs.
        assert_eq!(
            substitute("{}/x", &Captured::stem(".hidden")).as_deref(),
            Some(".hidden/x")
        );
        assert_eq!(
            substitute("t/{}", &Captured::stem("..x")).as_deref(),
            Some("t/..x")
        );
        assert_eq!(form_of("tests/{}.rs"), CompanionForm::Template);
        assert_eq!(form_of("../{}.rs"), CompanionForm::Escaping);
    }

    proptest::proptest! {
        /// A capture's regex matches exactly what globset matches for the rule.
        #[test]
        fn captures_match_what_globset_matches(
            rule in "[ab/*?\\[\\]{},!\\\\]{0,9}",
            paths in proptest::collection::vec("[ab/*.]{0,7}", 8),
        ) {
            let Ok(g) = glob(&rule) else { return Ok(()) };
            let Some(capture) = capture::Capture::of_stem(&rule) else { return Ok(()) };
            let g = g.compile_matcher();
            for path in &paths {
                proptest::prop_assert_eq!(
                    capture.regex.is_match(path.as_str()),
                    g.is_match(path),
                    "{:?} {:?}", rule, path
                );
                if let Some(c) = capture.of(path) {
                    proptest::prop_assert!(!c.contains('/'), "{:?} {:?} {:?}", rule, path, c);
                }
            }
        }
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
