//! The plain note: written for a model in the middle of a task. The header says what kind of
//! change this is in words a reader knows (the rule's directory and kind of file) and how
//! often such notes are followed; each companion line says what to do (update, create, add a
//! file named like those already there, or which specific files) and why, briefly.
//!
//! ```text
//! [doc-suggester] Changes to .py files under src/attr/ usually come with these files (such notes are followed 67% of the time):
//! - update tests/test_validators.py (changed alongside in 8 of 10 such changes seen here)
//! - add a new file to changelog.d/, named like changelog.d/1547.change.md (changed alongside in 51% of such commits)
//! ```

use crate::action::Action;
use crate::note::{Gauge, Note, char_len, summary, whole_lines};

/// Why a companion is named, as its line says it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Why {
    /// Learned here: followed in `hits` of the `seen` times it was watched.
    Seen {
        /// Times it was changed with the family's files.
        hits: u64,
        /// Times it was watched.
        seen: u64,
    },
    /// A mined pack's rate: the share of the family's recent commits that changed it.
    Mined {
        /// The pack's prior, in 0..1.
        rate: f64,
    },
    /// The repository's doc pack names it.
    Pack,
    /// The built-in pack names it.
    Builtin,
}

impl Why {
    fn text(self) -> String {
        match self {
            Why::Seen { hits, seen } => {
                format!("changed alongside in {hits} of {seen} such changes seen here")
            }
            Why::Mined { rate } => {
                format!("changed alongside in {}% of such commits", percent(rate))
            }
            Why::Pack => "the repository's doc pack lists it".into(),
            Why::Builtin => "a common convention".into(),
        }
    }
}

fn percent(share: f64) -> u32 {
    // A share in 0..=1 as a whole percent; the cast cannot overflow.
    (share.clamp(0.0, 1.0) * 100.0).round() as u32
}

/// One companion's line (without its `- `): the action, then why.
pub fn line(action: &Action, why: Why) -> String {
    format!("{} ({})", action.text(), why.text())
}

/// The kind of change a family's rule describes, in words: `.py files under src/attr/`,
/// `files like test_*.py under tests/`, `CHANGELOG.md`.
pub fn described(rule: &str) -> String {
    let (dir, file) = rule.rsplit_once('/').unwrap_or(("", rule));
    let prefix: Vec<&str> = dir
        .split('/')
        .filter(|c| !c.is_empty())
        .take_while(|c| !crate::paths::is_pattern(c))
        .collect();
    let under = prefix.join("/");
    let what = if file == "*" || file == "**" {
        "files".to_string()
    } else if let Some(ext) = file
        .strip_prefix('*')
        .filter(|e| e.starts_with('.') && !crate::paths::is_pattern(e))
    {
        format!("{ext} files")
    } else if crate::paths::is_pattern(file) {
        format!("files like {file}")
    } else if prefix.len() == dir.split('/').filter(|c| !c.is_empty()).count() {
        // A literal file in a literal directory: the path itself.
        return rule.to_string();
    } else {
        // A literal name under a pattern of directories (`src/*/validators.py`).
        file.to_string()
    };
    if under.is_empty() {
        what
    } else {
        format!("{what} under {under}/")
    }
}

/// The header line for a change described as `what`.
fn header(what: &str, gauge: Gauge, confidence: f64) -> String {
    let mut text = format!("[doc-suggester] Changes to {what} usually come with these files");
    if gauge == Gauge::Followed {
        text.push_str(&format!(
            " (such notes are followed {}% of the time)",
            percent(confidence)
        ));
    }
    text.push(':');
    text
}

/// How many of the ranked lines fit in `max_chars` with whole lines only (the header counted
/// at its longest, a percentage of three digits).
pub fn fitting(what: &str, gauge: Gauge, lines: &[String], max_chars: usize) -> usize {
    let header = char_len(&header(what, gauge, 1.0));
    whole_lines(header, lines.iter().map(|l| char_len(l)), max_chars)
}

/// Composes a plain note naming `companions` (as the PoC's note names them: the answer's
/// `companions` field), each written as its line in `lines`.
pub fn compose(
    family: &str,
    what: &str,
    gauge: Gauge,
    confidence: f64,
    companions: &[&str],
    lines: &[String],
) -> Note {
    let mut text = header(what, gauge, confidence);
    for line in lines {
        text.push_str("\n- ");
        text.push_str(line);
    }
    Note {
        family: family.into(),
        text,
        summary: summary(family, companions),
        companions: companions.iter().map(|c| c.to_string()).collect(),
        lines: Some(lines.to_vec()),
        confidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_described_in_words() {
        assert_eq!(described("src/attr/*.py"), ".py files under src/attr/");
        assert_eq!(
            described("tests/test_*.py"),
            "files like test_*.py under tests/"
        );
        assert_eq!(described("docs/**/*.md"), ".md files under docs/");
        assert_eq!(described("*.md"), ".md files");
        assert_eq!(described("CHANGELOG.md"), "CHANGELOG.md");
        assert_eq!(described("lints/*/README.md"), "README.md under lints/");
        assert_eq!(
            described("Documentation/Plans/*"),
            "files under Documentation/Plans/"
        );
        assert_eq!(described("src/lib.rs"), "src/lib.rs");
    }

    #[test]
    fn a_note_fits_whole_lines_within_its_bound() {
        let lines = vec!["update a.md (x)".to_string(), "update b.md (y)".to_string()];
        let head = char_len(&header("files", Gauge::Followed, 1.0));
        assert_eq!(fitting("files", Gauge::Followed, &lines, head + 36), 2);
        assert_eq!(fitting("files", Gauge::Followed, &lines, head + 35), 1);
        assert_eq!(fitting("files", Gauge::Followed, &lines, head), 0);
        let note = compose(
            "F",
            "files",
            Gauge::Followed,
            0.5,
            &["a.md", "b.md"],
            &lines,
        );
        assert!(char_len(&note.text) <= head + 36);
    }
}
