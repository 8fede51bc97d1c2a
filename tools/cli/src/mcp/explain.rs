//! Why a call gets no note, read from the ledger lines of its `peek` — the lines the engine
//! itself writes (docs/BEHAVIOUR.md, "The ledger"), so there is no second account of the
//! pipeline to drift from the first.
//!
//! ```
//! use docsuggest_cli::mcp::explain::silence;
//!
//! let why = silence(&["doc-suggester: abstained low-confidence Changelog 0.42".into()])
//!     .expect("a silence");
//! assert_eq!((why.reason, why.family.as_deref(), why.confidence), ("gated", Some("Changelog"), Some(0.42)));
//! assert!(silence(&["doc-suggester: suggest Plan 0.91 companions INDEX.md".into()]).is_none());
//! ```

use docsuggest_engine::line_format::{self, Abstain, Said, Suppress, Word};
use serde::Serialize;

/// Why a path gets no note.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Silence {
    /// A short code: `excluded`, `no-workspace`, `pack-mining`, `no-family`, `ambiguous`,
    /// `companions-missing`, `gated`, `already-touched`, `cooldown`, `dedupe`, `cap`, or
    /// `unknown` for a line this version does not know.
    pub reason: &'static str,
    /// The family the path belongs to, when the call got that far.
    pub family: Option<String>,
    /// The confidence the line writes (two decimals), when the call was measured.
    pub confidence: Option<f64>,
    /// Companions the evidence model left out because they are rarely followed.
    pub left_out: Vec<String>,
    /// What it means and what would change it, for a person.
    pub explanation: String,
}

/// The silence a call's ledger lines tell of, or `None` when they tell of a note. The lines
/// are read by the engine's own reader ([`Said::parse`]), the inverse of its composer.
pub fn silence(ledger: &[String]) -> Option<Silence> {
    // Each ledger line's words, for a person, and what the line says, when this version
    // reads it.
    let lines: Vec<(&str, Option<Said<'_>>)> = ledger
        .iter()
        .filter_map(|line| Some((line_format::body(line)?, Said::parse(line))))
        .collect();
    let said = || lines.iter().filter_map(|(_, said)| *said);
    if said().any(|s| matches!(s, Said::Suggest { .. })) {
        return None;
    }
    let left_out: Vec<String> = said()
        .filter_map(|s| match s {
            Said::LeftOut { companions, .. } => Some(companions),
            _ => None,
        })
        .flat_map(|companions| companions.iter().map(str::to_string))
        .collect();
    let verdict = said().find_map(|s| match s {
        Said::Abstained {
            reason,
            family,
            confidence,
        } => Some((abstain_reason(reason), family, confidence)),
        Said::Suppressed {
            kind,
            family,
            confidence,
        } => Some((suppress_reason(kind), Some(family), confidence)),
        _ => None,
    });
    let words = || {
        lines
            .iter()
            .map(|(words, _)| *words)
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut silence = match verdict {
        None if lines.is_empty() => explain("excluded", None, None),
        None => Silence {
            explanation: format!("the engine's lines do not say: {}", words()),
            ..explain("unknown", None, None)
        },
        Some((reason, family, confidence)) => {
            // A family name may hold spaces; a call measured nothing without a family.
            let family = family.filter(|f| !f.is_empty()).map(str::to_string);
            let confidence = family.as_ref().map(|_| confidence);
            match reason {
                Some(reason) => explain(reason, family, confidence),
                None => Silence {
                    explanation: format!("the engine says `{}`", words()),
                    ..explain("unknown", family, confidence)
                },
            }
        }
    };
    silence.left_out = left_out;
    Some(silence)
}

fn abstain_reason(reason: Word<'_, Abstain>) -> Option<&'static str> {
    let Word::Known(reason) = reason else {
        return None;
    };
    Some(match reason {
        Abstain::ForeignWorkspace => "no-workspace",
        Abstain::PackMining => "pack-mining",
        Abstain::NoSignal => "no-family",
        Abstain::AmbiguousTarget => "ambiguous",
        Abstain::NoCompanions => "companions-missing",
        Abstain::LowConfidence => "gated",
        Abstain::AlreadyTouched => "already-touched",
    })
}

fn suppress_reason(kind: Word<'_, Suppress>) -> Option<&'static str> {
    let Word::Known(kind) = kind else {
        return None;
    };
    Some(match kind {
        Suppress::Cooldown => "cooldown",
        Suppress::Dedupe => "dedupe",
        Suppress::Cap => "cap",
    })
}

fn explain(reason: &'static str, family: Option<String>, confidence: Option<f64>) -> Silence {
    // The daemon runs the default config (it reads no config file): its numbers, not copies.
    let config = docsuggest_schema::Config::default();
    let f = family.as_deref().unwrap_or("its family");
    let c = confidence.map_or_else(String::new, |c| format!(" {c:.2}"));
    let explanation = match reason {
        "excluded" => "the engine judged nothing: a component of the path is one the config's \
             `exclude` lists (node_modules, Target, .git and dist by default), or the engine is \
             disabled (`enabled: false`) or does not judge reads (`tools`)"
            .to_string(),
        "no-workspace" => "the path lies in no workspace: no `.dsh/doc-pack.json` and no \
             built-in pack's signature above it, and no git work tree whose history could be \
             mined for a pack; `docsuggest init` in a git repository writes one"
            .to_string(),
        "pack-mining" => "the path lies in a git work tree without a pack; its pack is being \
             mined from the history in the background, ask again in a moment (`docsuggest \
             init` mines it now and writes it to .dsh/doc-pack.json)"
            .to_string(),
        "no-family" => "no family of the workspace's pack claims this path: it is not a \
             documentation path the pack knows"
            .to_string(),
        "ambiguous" => format!(
            "the path is claimed by {f} and another family equally, or names more than one \
             file, so no single family's companions are named"
        ),
        "companions-missing" => format!(
            "the path is a {f} path, but none of the family's companions exists on disk (or \
             none fits in a note)"
        ),
        "gated" => format!(
            "the {f} note's confidence{c} is under the gate: the family's `threshold` in its \
             pack (a mined pack's families use {mined}), else the config's ({threshold} by \
             default), on the pack's kappa; or, once the family has evidence, \
             `followThreshold` ({follow}) or `unpromptedThreshold` ({unprompted}) on the \
             probability that the note is followed (a hand-written family that spoke on \
             fewer than half its calls is held to its own follow rate where that is lower, \
             if not under `pruneBelow`)",
            mined = docsuggest_history::mine::MINED_THRESHOLD,
            threshold = config.threshold,
            follow = config.follow_threshold,
            unprompted = config.unprompted_threshold,
        ),
        "already-touched" => format!("this agent already opened every {f} companion in this turn"),
        "cooldown" => format!(
            "this agent got a {f} note within the last `cooldownCalls` ({}) judged calls",
            config.cooldown_calls
        ),
        "dedupe" => format!(
            "this agent already has this {f} note (or one naming the same companions) open in \
             this turn"
        ),
        "cap" => format!(
            "this agent already got `maxNotesPerTurn` ({}) notes in this turn",
            config.max_notes_per_turn
        ),
        _ => String::new(),
    };
    Silence {
        reason,
        family,
        confidence,
        left_out: Vec::new(),
        explanation,
    }
}

#[cfg(test)]
mod tests {
    use super::silence;

    /// Each ledger (lines without the prefix) and the reason, family and confidence read.
    fn check(lines: &[&str], expect: &str) {
        let ledger: Vec<String> = lines
            .iter()
            .map(|l| format!("doc-suggester: {l}"))
            .collect();
        let got = match silence(&ledger) {
            None => "note".to_string(),
            Some(s) => format!(
                "{} {} {} [{}]",
                s.reason,
                s.family.as_deref().unwrap_or("-"),
                s.confidence.map_or("-".to_string(), |c| format!("{c:.2}")),
                s.left_out.join(",")
            ),
        };
        assert_eq!(got, expect, "{lines:?}");
    }

    #[test]
    fn every_line_the_engine_writes_for_a_silence() {
        check(
            &["suggest Plan 0.91 companions a.md", "decided Plan 0.91 …"],
            "note",
        );
        check(&[], "excluded - - []");
        check(&["abstained foreign-workspace 0.00"], "no-workspace - - []");
        check(&["abstained pack-mining 0.00"], "pack-mining - - []");
        check(&["abstained no-signal 0.00"], "no-family - - []");
        check(
            &["abstained ambiguous-target Plan 0.00"],
            "ambiguous Plan 0.00 []",
        );
        check(
            &["abstained no-companions Package scheme 0.00"],
            "companions-missing Package scheme 0.00 []",
        );
        check(
            &[
                "left-out Changelog companions docs/a.md,docs/b.md",
                "abstained low-confidence Changelog 0.42",
                "decided Changelog 0.42 silent …",
            ],
            "gated Changelog 0.42 [docs/a.md,docs/b.md]",
        );
        check(
            &["abstained already-touched Plan 0.91"],
            "already-touched Plan 0.91 []",
        );
        check(
            &["accepted Plan INDEX.md", "suppressed cooldown Plan 0.91"],
            "cooldown Plan 0.91 []",
        );
        check(&["suppressed dedupe Plan 0.88"], "dedupe Plan 0.88 []");
        check(&["suppressed cap Plan 0.88"], "cap Plan 0.88 []");
        check(&["abstained new-reason Plan 0.50"], "unknown Plan 0.50 []");
        check(&["accepted Plan INDEX.md"], "unknown - - []");
    }

    #[test]
    fn explanations_name_the_family_and_confidence() {
        let why = silence(&["doc-suggester: abstained low-confidence Changelog 0.42".into()])
            .expect("a silence");
        assert!(
            why.explanation
                .starts_with("the Changelog note's confidence 0.42 is under the gate"),
            "{}",
            why.explanation
        );
        let unknown =
            silence(&["doc-suggester: abstained new-reason 0.00".into()]).expect("a silence");
        assert_eq!(
            unknown.explanation,
            "the engine says `abstained new-reason 0.00`"
        );
    }

    /// Every abstention and suppression the engine composes is read as a known reason, with
    /// the family and confidence it was composed with.
    #[test]
    fn every_composed_silence_is_known() {
        use docsuggest_engine::line_format::{self, Abstain, Suppress};
        for family in ["Plan", "Package scheme"] {
            let mut lines: Vec<String> = Vec::new();
            for reason in Abstain::ALL {
                lines.push(line_format::abstained(reason, Some(family), 0.5436).into_owned());
                lines.push(line_format::abstained(reason, None, 0.0).into_owned());
            }
            for kind in Suppress::ALL {
                lines.push(line_format::suppressed(kind, family, 0.5436));
            }
            for line in lines {
                let why = silence(std::slice::from_ref(&line)).expect("a silence");
                assert_ne!(why.reason, "unknown", "{line}");
                let named = line.contains(family);
                assert_eq!(why.family.as_deref(), named.then_some(family), "{line}");
                assert_eq!(why.confidence, named.then_some(0.54), "{line}");
            }
        }
        // A daemon's decisions are recorded in its durable store: their lines read too.
        let values = docsuggest_schema::Table([0.5; 6]);
        let weights = docsuggest_schema::Table::DEFAULT_WEIGHTS;
        let store = docsuggest_schema::StoreKind::Redb;
        let decided: String = line_format::decided("Plan", 0.5, "a.md", &values, &weights, store);
        let said = line_format::Said::parse(&decided).expect("a decided line");
        assert!(matches!(said, line_format::Said::Decided { store: s, .. } if s == store));
        let left_out: String = line_format::left_out("Plan", &["a.md", "b/*.md"]);
        let why = silence(&[
            left_out,
            line_format::suppressed(Suppress::Cap, "Plan", 0.9),
        ])
        .expect("a silence");
        assert_eq!(
            (why.reason, why.left_out),
            ("cap", vec!["a.md".into(), "b/*.md".into()])
        );
    }
}
