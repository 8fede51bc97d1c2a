//! The note: one labeled message naming the companions, and its 120-character summary.

/// The longest summary, in characters.
pub const SUMMARY_CHARS: usize = 120;

/// The one message an emitted verdict carries.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Note {
    /// The family.
    pub family: String,
    /// The labeled text: a header line, then one `- <companion>` line each.
    pub text: String,
    /// A one-line summary of at most [`SUMMARY_CHARS`] characters.
    pub summary: String,
    /// The companions the text names, in rank order.
    pub companions: Vec<String>,
}

fn header(family: &str, kappa: f64) -> String {
    let mut text = String::with_capacity(128);
    text.push_str("[doc-suggester] ");
    text.push_str(family);
    text.push_str(" task (kappa ");
    crate::ledger::push_fixed2(&mut text, kappa);
    text.push_str("): companions this task conventionally needs:");
    text
}

/// `header(family, kappa).chars().count()` for any kappa in 0..=1, without composing it.
fn header_chars(family: &str) -> usize {
    const AROUND: usize =
        "[doc-suggester]  task (kappa 0.00): companions this task conventionally needs:".len();
    AROUND + family.chars().count()
}

/// How many of the ranked companions fit in `max_chars` with whole lines only.
/// (The header's length does not depend on kappa: it always prints four characters.)
pub fn fitting(family: &str, companions: &[&str], max_chars: usize) -> usize {
    let mut used = header_chars(family);
    let mut count = 0;
    for c in companions {
        let line = 3 + c.chars().count(); // "\n- " + path
        if used + line > max_chars {
            break;
        }
        used += line;
        count += 1;
    }
    if used > max_chars { 0 } else { count }
}

/// Composes the note for companions that [`fitting`] admitted.
pub fn compose(family: &str, kappa: f64, companions: &[&str]) -> Note {
    let mut text = header(family, kappa);
    for c in companions {
        text.push_str("\n- ");
        text.push_str(c);
    }
    Note {
        family: family.into(),
        text,
        summary: summary(family, companions),
        companions: companions.iter().map(|c| c.to_string()).collect(),
    }
}

fn summary(family: &str, companions: &[&str]) -> String {
    let mut out = format!("{family}: ");
    let mut named = 0;
    for (i, c) in companions.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let left = companions.len() - i - 1;
        // The characters of ` (+<left> more)`, counted without composing it.
        let more = if left > 0 {
            " (+ more)".len() + left.ilog10() as usize + 1
        } else {
            0
        };
        let len = out.chars().count() + sep.len() + c.chars().count() + more;
        if len > SUMMARY_CHARS {
            break;
        }
        out.push_str(sep);
        out.push_str(c);
        named += 1;
    }
    let left = companions.len() - named;
    if left > 0 {
        out = if named == 0 {
            let noun = if left == 1 { "companion" } else { "companions" };
            format!("{family}: {left} {noun}")
        } else {
            format!("{out} (+{left} more)")
        };
    }
    if out.chars().count() > SUMMARY_CHARS {
        out = out.chars().take(SUMMARY_CHARS - 3).collect::<String>() + "...";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_length_is_known_without_composing() {
        for family in ["Plan", "Brief", "", "Ünïcode"] {
            for kappa in [0.0, 0.5, 0.775, 0.999, 1.0] {
                assert_eq!(header_chars(family), header(family, kappa).chars().count());
            }
        }
    }

    #[test]
    fn text_and_summary_are_pinned() {
        let note = compose("Plan", 0.8366, &["Documentation/INDEX.md", "POC-BRIEF.md"]);
        assert_eq!(
            note.text,
            "[doc-suggester] Plan task (kappa 0.84): companions this task conventionally needs:\n\
             - Documentation/INDEX.md\n\
             - POC-BRIEF.md"
        );
        assert_eq!(note.summary, "Plan: Documentation/INDEX.md, POC-BRIEF.md");
    }

    #[test]
    fn only_whole_lines_fit() {
        let cs = ["aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"];
        let head = header("F", 0.5).chars().count();
        assert_eq!(fitting("F", &cs, head + 13 * 2), 2);
        assert_eq!(fitting("F", &cs, head + 13 * 2 - 1), 1);
        assert_eq!(fitting("F", &cs, head + 12), 0);
        assert_eq!(fitting(&"F".repeat(200), &cs, 120), 0);
    }

    #[test]
    fn long_summaries_count_what_they_leave_out() {
        let long = "x".repeat(70);
        let cs = [long.as_str(), long.as_str(), "short.md"];
        assert_eq!(summary("Plan", &cs), format!("Plan: {long} (+2 more)"));
        let huge = "y".repeat(130);
        assert_eq!(summary("Plan", &[huge.as_str()]), "Plan: 1 companion");
        assert!(summary(&"Z".repeat(200), &cs).chars().count() <= SUMMARY_CHARS);
    }
}
