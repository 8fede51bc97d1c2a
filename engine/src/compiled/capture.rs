//! What a template names: a rule's captures of a call path (its last single `*`, its one `**`
//! component) and their substitution into the template.

use super::glob;
use docsuggest_schema::pack::{DIR_MARK, TEMPLATE_MARK, double_star_split, single_stars};
use regex_automata::meta::Regex;
use regex_automata::util::syntax;

/// What the rule of a call path captured for the family's templates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Captured<'p> {
    /// What the rule's last single `*` matched (`None`: no rule matched, or it has none).
    pub stem: Option<&'p str>,
    /// The directories the rule's one `**` component matched, `""` where it matched none
    /// (`None`: no rule matched, or it has no such `**`).
    pub dirs: Option<&'p str>,
}

impl<'p> Captured<'p> {
    /// A stem alone: what a rule without a `**` component captures.
    pub fn stem(stem: &'p str) -> Captured<'p> {
        Captured {
            stem: Some(stem),
            dirs: None,
        }
    }
}

/// `template` with every `{}` replaced by the stem and every `{**}` component by the
/// directories (a `{**}` of no directory gone with one adjacent `/`). `None` when a mark's
/// capture is missing, the stem is empty, a capture holds a control character or another code
/// point that prints nothing, a `{**}` is not a whole component, or the result is empty, has a
/// `.` or `..` component or starts with `/` (such a companion is dropped, never emitted).
pub fn substitute(template: &str, captured: &Captured<'_>) -> Option<String> {
    // A capture reaches the note and the ledger: it must not forge a line there, nor make
    // the text read other than it is (a right-to-left override, a line separator).
    let clean = |text: &str| !docsuggest_schema::text::has_invisible(text);
    let stem = captured.stem.filter(|s| !s.is_empty() && clean(s));
    // Directories of a normalised path: no empty component.
    let dirs = captured
        .dirs
        .filter(|d| clean(d) && (d.is_empty() || !d.split('/').any(str::is_empty)));
    let room = 2 * stem.map_or(0, str::len) + dirs.map_or(0, str::len);
    let mut path = String::with_capacity(template.len() + room);
    let mut first = true;
    // Component by component, so a capture's own text is never read as a mark.
    for component in template.split('/') {
        if component == DIR_MARK && dirs?.is_empty() {
            // No directory: the component goes, and with it one `/`.
            continue;
        }
        if !std::mem::take(&mut first) {
            path.push('/');
        }
        if component == DIR_MARK {
            path.push_str(dirs?);
        } else if component.contains(DIR_MARK) {
            return None;
        } else {
            for (i, piece) in component.split(TEMPLATE_MARK).enumerate() {
                if i > 0 {
                    path.push_str(stem?);
                }
                path.push_str(piece);
            }
        }
    }
    let climbs = path.starts_with('/') || path.split('/').any(|c| c == "." || c == "..");
    (!climbs && !path.is_empty()).then_some(path)
}

/// Each capture a rule is compiled with, as its family's templates need them.
#[derive(Clone, Debug, Default)]
pub(super) struct RuleCaptures {
    /// Its last single `*` (for `{}`).
    pub(super) stem: Option<Capture>,
    /// Its one `**` component (for `{**}`).
    pub(super) dirs: Option<Capture>,
}

impl RuleCaptures {
    /// `rule`'s captures: the stem when `stem`, the directories when `dirs`.
    pub(super) fn of_rule(rule: &str, stem: bool, dirs: bool) -> RuleCaptures {
        RuleCaptures {
            stem: stem.then(|| Capture::of_stem(rule)).flatten(),
            dirs: dirs.then(|| Capture::of_dirs(rule)).flatten(),
        }
    }

    /// What they capture of `rel`, which the rule matches.
    pub(super) fn of<'p>(&self, rel: &'p str) -> Captured<'p> {
        Captured {
            stem: self.stem.as_ref().and_then(|c| c.of(rel)),
            dirs: self.dirs.as_ref().and_then(|c| c.of(rel)),
        }
    }
}

/// One capture of a rule: globset's own regex for the rule with one part of it as a group,
/// so it matches exactly what the rule matches.
#[derive(Clone, Debug)]
pub(super) struct Capture {
    pub(super) regex: Regex,
    /// Whether a match in which the group took no part captures `""` (a `**` of no
    /// directory) rather than nothing (a `*` in an alternative not taken).
    unused_is_empty: bool,
}

/// The capture group's name.
const GROUP: &str = "capture";

impl Capture {
    /// The capture of `rule`'s last single `*`, when it has one.
    pub(super) fn of_stem(rule: &str) -> Option<Capture> {
        let whole = glob(rule).ok()?;
        // A character the rule does not hold stands in for one `*`: where its escape appears
        // in globset's regex is where that `*`'s `[^/]*` goes.
        let mark = ('\u{e000}'..='\u{f8ff}').find(|&c| !rule.contains(c))?;
        let mark_re = body(glob(&mark.to_string()).ok()?.regex())?.to_string();
        let star_re = body(glob("*").ok()?.regex())?.to_string();
        single_stars(rule).into_iter().rev().find_map(|at| {
            let mut marked = String::with_capacity(rule.len() + 4);
            marked.push_str(&rule[..at]);
            marked.push(mark);
            marked.push_str(&rule[at + 1..]);
            let marked = glob(&marked).ok()?;
            let re = marked.regex();
            // Exactly this `*` and nothing else differs from the rule's own regex: anything
            // else (a `*` in a class, an escape) is not a wildcard and is passed over.
            if re.matches(mark_re.as_str()).count() != 1
                || re.replacen(mark_re.as_str(), &star_re, 1) != whole.regex()
            {
                return None;
            }
            let group = format!("(?P<{GROUP}>{star_re})");
            compile(&re.replacen(mark_re.as_str(), &group, 1), false)
        })
    }

    /// The capture of the directories `rule`'s one `**` component matches (`top/**/rest`),
    /// when it has one and globset reads it as the text does: the rule's regex must be its
    /// `top` and `rest` joined by globset's own `**` between them.
    pub(super) fn of_dirs(rule: &str) -> Option<Capture> {
        let (top, rest) = double_star_split(rule)?;
        let whole = glob(rule).ok()?;
        let rest_re = body(glob(rest).ok()?.regex())?.to_string();
        let (expected, grouped) = if top.is_empty() {
            (
                format!("(?-u)^(?:/?|.*/){rest_re}$"),
                format!("(?-u)^(?:/?|(?P<{GROUP}>.*)/){rest_re}$"),
            )
        } else {
            let top_re = body(glob(top).ok()?.regex())?.to_string();
            (
                format!("(?-u)^{top_re}(?:/|/.*/){rest_re}$"),
                format!("(?-u)^{top_re}(?:/|/(?P<{GROUP}>.*)/){rest_re}$"),
            )
        };
        (whole.regex() == expected).then(|| compile(&grouped, true))?
    }

    /// What the group matched in `rel`, if the rule matches it; on character boundaries
    /// only (globset's `?` matches a byte).
    pub(super) fn of<'p>(&self, rel: &'p str) -> Option<&'p str> {
        let mut caps = self.regex.create_captures();
        self.regex.captures(rel, &mut caps);
        match caps.get_group_by_name(GROUP) {
            Some(span) => rel.get(span.start..span.end),
            None => (self.unused_is_empty && caps.is_match()).then_some(""),
        }
    }
}

/// A regex as globset compiles its own (bytes, `.` matching a newline).
fn compile(pattern: &str, unused_is_empty: bool) -> Option<Capture> {
    let regex = Regex::builder()
        .syntax(syntax::Config::new().utf8(false).dot_matches_new_line(true))
        .configure(Regex::config().utf8_empty(false))
        .build(pattern)
        .ok()?;
    Some(Capture {
        regex,
        unused_is_empty,
    })
}

/// The pattern of globset's regex for a glob, between its `^` and its `$`.
fn body(re: &str) -> Option<&str> {
    let start = re.find('^')? + 1;
    re.get(start..)?.strip_suffix('$')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs_of(rule: &str, rel: &str) -> Option<String> {
        let matched = glob(rule).expect("a valid rule").compile_matcher();
        Capture::of_dirs(rule)
            .filter(|_| matched.is_match(rel))
            .and_then(|c| c.of(rel).map(str::to_string))
    }

    #[test]
    fn the_directory_capture_is_what_the_double_star_matched() {
        for (rule, rel, dirs) in [
            (
                "lib/**/*.rb",
                "lib/app/rules/safety/open_call.rb",
                Some("app/rules/safety"),
            ),
            ("lib/**/*.rb", "lib/foo.rb", Some("")),
            ("lib/**/*.rb", "libx/foo.rb", None),
            ("**/*.rs", "a/b/c.rs", Some("a/b")),
            ("**/*.rs", "c.rs", Some("")),
            ("src/**/mod/*.rs", "src/a/b/mod/x.rs", Some("a/b")),
            ("src/**/mod/*.rs", "src/mod/x.rs", Some("")),
            ("{a,b}/**/*.md", "b/x/y.md", Some("x")),
            ("s*/**/*.md", "src/x/y.md", Some("x")),
            ("a/**/é/*.md", "a/ü/é/x.md", Some("ü")),
        ] {
            assert_eq!(dirs_of(rule, rel).as_deref(), dirs, "{rule} {rel}");
        }
        // No capture without exactly one `**` component.
        for rule in ["lib/*.rb", "lib/**", "a/**/b/**/c", "a**/b.md", "**"] {
            assert!(Capture::of_dirs(rule).is_none(), "{rule}");
        }
    }

    proptest::proptest! {
        /// A directory capture's regex matches exactly what globset matches for the rule, and
        /// captures whole directories.
        #[test]
        fn directory_captures_match_what_globset_matches(
            top in "[ab*?{},]{0,3}",
            rest in "[ab/*.?]{1,5}",
            paths in proptest::collection::vec("[ab/.]{0,9}", 8),
        ) {
            let rule = if top.is_empty() { format!("**/{rest}") } else { format!("{top}/**/{rest}") };
            let Ok(g) = glob(&rule) else { return Ok(()) };
            let Some(capture) = Capture::of_dirs(&rule) else { return Ok(()) };
            let g = g.compile_matcher();
            for path in &paths {
                proptest::prop_assert_eq!(
                    capture.regex.is_match(path.as_str()),
                    g.is_match(path),
                    "{:?} {:?}", rule, path
                );
                if let Some(d) = capture.of(path).filter(|d| !d.is_empty()) {
                    let whole = path.starts_with(&format!("{d}/"))
                        || path.contains(&format!("/{d}/"));
                    proptest::prop_assert!(whole, "{:?} {:?} {:?}", rule, path, d);
                }
            }
        }
    }

    #[test]
    fn substitution_collapses_an_empty_directory_capture() {
        let both = |stem, dirs| Captured {
            stem: Some(stem),
            dirs: Some(dirs),
        };
        for (template, captured, expect) in [
            (
                "spec/{**}/{}_spec.rb",
                both("open_call", "app/rules/safety"),
                Some("spec/app/rules/safety/open_call_spec.rb"),
            ),
            (
                "spec/{**}/{}_spec.rb",
                both("foo", ""),
                Some("spec/foo_spec.rb"),
            ),
            ("{**}/{}_test.rb", both("foo", ""), Some("foo_test.rb")),
            (
                "{**}/{}_test.rb",
                both("foo", "a/b"),
                Some("a/b/foo_test.rb"),
            ),
            ("docs/{**}", both("x", "a"), Some("docs/a")),
            ("docs/{**}", both("x", ""), Some("docs")),
            ("{**}", both("x", ""), None),
            (
                "site/{**}/index.html",
                Captured {
                    stem: None,
                    dirs: Some("a"),
                },
                Some("site/a/index.html"),
            ),
            // A capture is text, not a mark.
            ("t/{**}/{}.md", both("{**}", "{}"), Some("t/{}/{**}.md")),
            ("x/{**}/{**}/y", both("s", "a"), Some("x/a/a/y")),
        ] {
            assert_eq!(
                substitute(template, &captured).as_deref(),
                expect,
                "{template} {captured:?}"
            );
        }
    }

    #[test]
    fn a_missing_capture_or_a_climb_drops_the_template() {
        let stem_only = Captured::stem("foo");
        assert_eq!(substitute("spec/{**}/{}_spec.rb", &stem_only), None);
        let dirs_only = Captured {
            stem: None,
            dirs: Some("a"),
        };
        assert_eq!(substitute("spec/{**}/{}_spec.rb", &dirs_only), None);
        assert_eq!(
            substitute("spec/{**}/{}_spec.rb", &Captured::default()),
            None
        );
        // Only a whole component is a directory capture.
        let both = |dirs| Captured {
            stem: Some("foo"),
            dirs: Some(dirs),
        };
        assert_eq!(substitute("spec/x{**}/{}.rb", &both("a")), None);
        assert_eq!(substitute("spec/{**}.rb", &both("a")), None);
        for dirs in ["..", "a/..", ".", "a/./b", "/etc", "a\u{202e}b", "a\nb"] {
            assert_eq!(
                substitute("spec/{**}/{}_spec.rb", &both(dirs)),
                None,
                "{dirs:?}"
            );
        }
        assert_eq!(substitute("{**}/{}", &both("/x")), None);
        assert_eq!(
            substitute("{**}/{}", &both("..x")).as_deref(),
            Some("..x/foo")
        );
    }
}
