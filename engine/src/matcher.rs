//! How a call path names a companion: by byte comparison when the companion's glob is its
//! literal text, through globset otherwise. Most companions are literal paths, and every
//! judged call matches its path against the companions of every open window: a globset match
//! builds a candidate (file name, extension) and runs a regex, hundreds of instructions for
//! what a literal answers with one comparison.

use globset::GlobMatcher;
use std::sync::Arc;

/// Characters that give a glob a meaning beyond its literal text (globset's syntax, its `\`
/// escape included). A glob without any of them matches exactly its own bytes.
const GLOB_SYNTAX: [char; 7] = ['*', '?', '[', ']', '{', '}', '\\'];

/// One companion as a window watches it: its name as the pack writes it (a template: its
/// substitution), and whether a base-relative call path names it.
#[derive(Debug)]
pub struct CompanionMatcher {
    /// The companion as the pack writes it; a template's substitution for one call.
    path: String,
    /// Whether `glob` is `path` itself with no glob syntax: a match is byte equality.
    literal: bool,
    /// The compiled glob (placeholders match any name).
    glob: Arc<GlobMatcher>,
    /// A template's text as the pack writes it: its rates are keyed by it, so what is
    /// learned holds for every file of the family.
    template: Option<Box<str>>,
}

impl CompanionMatcher {
    /// The matcher of the companion `path`, whose glob compiles to `glob`.
    pub fn new(path: &str, glob: Arc<GlobMatcher>) -> CompanionMatcher {
        let text = glob.glob().glob();
        CompanionMatcher {
            path: path.to_string(),
            literal: text == path && !text.contains(GLOB_SYNTAX),
            glob,
            template: None,
        }
    }

    /// The matcher of the template `template` for one call: it names exactly `substituted`
    /// (`glob` is the template's, kept only to fill the slot).
    pub fn substituted(
        substituted: String,
        template: &str,
        glob: Arc<GlobMatcher>,
    ) -> CompanionMatcher {
        CompanionMatcher {
            path: substituted,
            literal: true,
            glob,
            template: Some(template.into()),
        }
    }

    /// The companion as the pack writes it; a template's substitution. What lines show and
    /// what a later call must name.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What the companion's rate row is keyed by: the pack's text (a template as written).
    pub fn key(&self) -> &str {
        self.template.as_deref().unwrap_or(&self.path)
    }

    /// Whether the base-relative path `rel` names this companion.
    pub fn is_match(&self, rel: &str) -> bool {
        if self.literal {
            rel == self.path
        } else {
            self.glob.is_match(rel)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use globset::GlobBuilder;
    use proptest::prelude::*;

    /// The companion's glob as the compiled pack builds it.
    fn glob(text: &str) -> Option<Arc<GlobMatcher>> {
        let glob = GlobBuilder::new(text)
            .literal_separator(true)
            .build()
            .ok()?;
        Some(Arc::new(glob.compile_matcher()))
    }

    proptest! {
        /// The fast path answers what globset answers, over literal and glob patterns alike:
        /// texts drawn from path characters and every piece of glob syntax, and paths drawn
        /// from the same characters (so they hit literal patterns often).
        #[test]
        fn agrees_with_globset(
            pattern in "[a./\\-é*?\\[\\]{},!\\\\<>]{0,8}",
            path in "[a./\\-é*?\\[\\]{},!\\\\<>]{0,8}",
        ) {
            if let Some(g) = glob(&pattern) {
                let m = CompanionMatcher::new(&pattern, g.clone());
                for rel in [path.as_str(), pattern.as_str()] {
                    prop_assert_eq!(m.is_match(rel), g.is_match(rel), "{:?} {:?}", pattern, rel);
                }
            }
        }

        /// Literal companions made of path parts, against paths that differ from them by one
        /// edit or not at all.
        #[test]
        fn literal_paths_agree_with_globset(
            parts in proptest::collection::vec("[A-Za-z0-9_.-]{1,6}", 1..4),
            cut in 0usize..40,
            extra in "[A-Za-z/.]{0,2}",
        ) {
            let pattern = parts.join("/");
            let g = glob(&pattern).expect("a literal path is a valid glob");
            let m = CompanionMatcher::new(&pattern, g.clone());
            prop_assert!(m.literal, "{:?}", pattern);
            let mut edited = pattern.clone();
            edited.truncate(cut.min(edited.len()));
            edited.push_str(&extra);
            for rel in [pattern.as_str(), edited.as_str()] {
                prop_assert_eq!(m.is_match(rel), g.is_match(rel), "{:?} {:?}", pattern, rel);
            }
        }
    }

    #[test]
    fn literal_only_without_glob_syntax() {
        let literal = |text: &str| CompanionMatcher::new(text, glob(text).expect("glob")).literal;
        assert!(literal("Documentation/INDEX.md"));
        assert!(literal("POC-BRIEF.md"));
        assert!(literal(""));
        for text in [
            "*/SCHEME.md",
            "a/?.md",
            "a/[bc].md",
            "a/{b,c}.md",
            "a\\*.md",
            "**",
        ] {
            assert!(!literal(text), "{text}");
        }
        // A placeholder's glob is not its path: matched by globset.
        let placeholder = CompanionMatcher::new("Plans/<Plan>.md", glob("Plans/*.md").expect("g"));
        assert!(!placeholder.literal);
        assert!(placeholder.is_match("Plans/SEARCH.md"));
        assert!(!placeholder.is_match("Plans/<Plan>.md/x"));
    }
}
