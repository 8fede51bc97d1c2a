//! The note: one labeled message naming the companions, and its 120-character summary.

/// The longest summary, in characters.
pub const SUMMARY_CHARS: usize = 120;
// `note_struct!` documents the summary's bound in words, for bindings that declare the note.
const _: () = assert!(SUMMARY_CHARS == 120);

/// Declares a struct with the note's fields. The engine's own [`Note`] is one; a binding that
/// must declare its own type for the note (JavaScript's) declares it with this macro, so the
/// fields and their meaning are written once.
#[macro_export]
macro_rules! note_struct {
    ($(#[$($attr:tt)*])* $vis:vis struct $name:ident;) => {
        $(#[$($attr)*])*
        $vis struct $name {
            /// The family (`Plan`, `Scheme`, …).
            pub family: String,
            /// The labeled text: a header line, then one `- <companion>` line each.
            pub text: String,
            /// A one-line summary of at most 120 characters.
            pub summary: String,
            /// The companions the text names, in rank order.
            pub companions: Vec<String>,
            /// In the plain style, each companion's line as the text writes it (what to do
            /// and why, without its `- `), in the order of `companions`; absent in the PoC's
            /// style, whose lines are the companions themselves (so its answer stays the
            /// PoC's).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub lines: Option<Vec<String>>,
            /// The number the header shows, in 0..1: the PoC's kappa, or the probability that
            /// the note is followed.
            pub confidence: f64,
        }
    };
}

note_struct! {
    /// The one message an emitted verdict carries.
    #[derive(Clone, Debug, PartialEq, serde::Serialize)]
    pub struct Note;
}

/// What a note's confidence measures, and the word its header shows it under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gauge {
    /// The PoC's kappa: a fresh store, `learn: false`, the step and beta models.
    Kappa,
    /// The probability that the note is followed: the evidence model, once the family has
    /// evidence.
    Followed,
}

impl Gauge {
    /// The word the header writes before the number.
    fn word(self) -> &'static str {
        match self {
            Gauge::Kappa => "kappa",
            Gauge::Followed => "confidence",
        }
    }
}

/// The header's bytes around the family and the gauge's word, the number written as four
/// characters.
const HEADER_AROUND: &str =
    "[doc-suggester]  task ( 0.00): companions this task conventionally needs:";

/// The header line, in a string with room for `more` bytes after it.
fn header(family: &str, gauge: Gauge, confidence: f64, more: usize) -> String {
    let mut text =
        String::with_capacity(HEADER_AROUND.len() + gauge.word().len() + family.len() + more);
    text.push_str("[doc-suggester] ");
    text.push_str(family);
    text.push_str(" task (");
    text.push_str(gauge.word());
    text.push(' ');
    crate::line_format::push_fixed2(&mut text, confidence);
    text.push_str("): companions this task conventionally needs:");
    text
}

/// `header(family, gauge, c, _).chars().count()` for any `c` in 0..=1, without composing it.
fn header_chars(family: &str, gauge: Gauge) -> usize {
    HEADER_AROUND.len() + gauge.word().len() + char_len(family)
}

/// `text.chars().count()`, answered by the byte length for ASCII text (companion paths
/// mostly are, and counting characters one by one costs more than checking the bytes).
pub(crate) fn char_len(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// How many of the ranked companions fit in `max_chars` with whole lines only.
/// (The header's length does not depend on the number: it always prints four characters.)
pub fn fitting(family: &str, gauge: Gauge, companions: &[&str], max_chars: usize) -> usize {
    whole_lines(
        header_chars(family, gauge),
        companions.iter().map(|c| char_len(c)),
        max_chars,
    )
}

/// How many lines, of the characters `lines` (each written after `"\n- "`), fit after a
/// header of `header` characters in `max_chars`; none when not even the header fits.
pub(crate) fn whole_lines(
    header: usize,
    lines: impl IntoIterator<Item = usize>,
    max_chars: usize,
) -> usize {
    let mut used = header;
    let mut count = 0;
    for chars in lines {
        let line = 3 + chars; // "\n- " + the line
        if used + line > max_chars {
            break;
        }
        used += line;
        count += 1;
    }
    if used > max_chars { 0 } else { count }
}

/// Composes the note for companions that [`fitting`] admitted.
pub fn compose(family: &str, gauge: Gauge, confidence: f64, companions: &[&str]) -> Note {
    let lines: usize = companions.iter().map(|c| 3 + c.len()).sum();
    let mut text = header(family, gauge, confidence, lines);
    for c in companions {
        text.push_str("\n- ");
        text.push_str(c);
    }
    Note {
        family: family.into(),
        text,
        summary: summary(family, companions),
        companions: companions.iter().map(|c| c.to_string()).collect(),
        lines: None,
        confidence,
    }
}

pub(crate) fn summary(family: &str, companions: &[&str]) -> String {
    let mut out = String::with_capacity(family.len() + 2 + SUMMARY_CHARS);
    out.push_str(family);
    out.push_str(": ");
    // `out.chars().count()`, kept as it grows.
    let mut chars = char_len(family) + 2;
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
        let c_chars = char_len(c);
        if chars + sep.len() + c_chars + more > SUMMARY_CHARS {
            break;
        }
        out.push_str(sep);
        out.push_str(c);
        chars += sep.len() + c_chars;
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
        chars = char_len(&out);
    }
    if chars > SUMMARY_CHARS {
        out = out.chars().take(SUMMARY_CHARS - 3).collect::<String>() + "...";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The summary as first written, counting characters afresh at every step.
    fn summary_by_counting(family: &str, companions: &[&str]) -> String {
        let mut out = format!("{family}: ");
        let mut named = 0;
        for (i, c) in companions.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            let left = companions.len() - i - 1;
            let more = if left > 0 {
                format!(" (+{left} more)").chars().count()
            } else {
                0
            };
            if out.chars().count() + sep.len() + c.chars().count() + more > SUMMARY_CHARS {
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

    proptest! {
        /// Counting as it goes, and by bytes for ASCII, changes no summary and no fit.
        #[test]
        fn summary_and_fit_are_the_counted_ones(
            family in "[A-Za-zé]{0,130}",
            companions in proptest::collection::vec("[a-z/.ü]{0,70}", 0..14),
            max in 0usize..400,
        ) {
            let cs: Vec<&str> = companions.iter().map(String::as_str).collect();
            prop_assert_eq!(summary(&family, &cs), summary_by_counting(&family, &cs));
            let head = header(&family, Gauge::Kappa, 0.5, 0).chars().count();
            let mut used = head;
            let mut count = 0;
            for c in &cs {
                if used + 3 + c.chars().count() > max {
                    break;
                }
                used += 3 + c.chars().count();
                count += 1;
            }
            prop_assert_eq!(fitting(&family, Gauge::Kappa, &cs, max), if used > max { 0 } else { count });
        }
    }

    #[test]
    fn header_length_is_known_without_composing() {
        for family in ["Plan", "Brief", "", "Ünïcode"] {
            for gauge in [Gauge::Kappa, Gauge::Followed] {
                for value in [0.0, 0.5, 0.775, 0.999, 1.0] {
                    assert_eq!(
                        header_chars(family, gauge),
                        header(family, gauge, value, 0).chars().count()
                    );
                }
            }
        }
    }

    #[test]
    fn text_and_summary_are_pinned() {
        let cs = ["Documentation/INDEX.md", "POC-BRIEF.md"];
        let note = compose("Plan", Gauge::Kappa, 0.8366, &cs);
        assert_eq!(
            note.text,
            "[doc-suggester] Plan task (kappa 0.84): companions this task conventionally needs:\n\
             - Documentation/INDEX.md\n\
             - POC-BRIEF.md"
        );
        assert_eq!(note.summary, "Plan: Documentation/INDEX.md, POC-BRIEF.md");
        assert_eq!(note.confidence, 0.8366);
        let learned = compose("Plan", Gauge::Followed, 0.614, &cs[..1]);
        assert_eq!(
            learned.text,
            "[doc-suggester] Plan task (confidence 0.61): companions this task conventionally needs:\n\
             - Documentation/INDEX.md"
        );
    }

    #[test]
    fn only_whole_lines_fit() {
        let cs = ["aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"];
        let head = header("F", Gauge::Kappa, 0.5, 0).chars().count();
        assert_eq!(fitting("F", Gauge::Kappa, &cs, head + 13 * 2), 2);
        assert_eq!(fitting("F", Gauge::Kappa, &cs, head + 13 * 2 - 1), 1);
        assert_eq!(fitting("F", Gauge::Kappa, &cs, head + 12), 0);
        assert_eq!(fitting(&"F".repeat(200), Gauge::Kappa, &cs, 120), 0);
        // The longer word leaves five characters less for companions.
        assert_eq!(fitting("F", Gauge::Followed, &cs, head + 13 * 2), 1);
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
