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

use docsuggest_engine::ledger::{Abstain, Suppress};
use serde::Serialize;

/// The prefix of every ledger line.
const PREFIX: &str = "doc-suggester: ";

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

/// The silence a call's ledger lines tell of, or `None` when they tell of a note.
pub fn silence(ledger: &[String]) -> Option<Silence> {
    let lines: Vec<&str> = ledger
        .iter()
        .filter_map(|l| l.strip_prefix(PREFIX))
        .collect();
    if lines.iter().any(|l| l.starts_with("suggest ")) {
        return None;
    }
    let left_out: Vec<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("left-out "))
        .filter_map(|rest| rest.rsplit_once(" companions "))
        .flat_map(|(_, names)| names.split(',').map(str::to_string))
        .collect();
    let verdict = lines.iter().find_map(|l| {
        l.strip_prefix("abstained ")
            .map(|rest| (true, rest))
            .or_else(|| l.strip_prefix("suppressed ").map(|rest| (false, rest)))
    });
    let mut silence = match verdict {
        None if lines.is_empty() => explain("excluded", None, None),
        None => Silence {
            explanation: format!("the engine's lines do not say: {}", lines.join("; ")),
            ..explain("unknown", None, None)
        },
        Some((abstained, rest)) => {
            let (kind, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            // `<family> <confidence>`, or only `<confidence>`; a family name may hold spaces.
            let (family, number) = rest.rsplit_once(' ').unwrap_or(("", rest));
            let family = Some(family.to_string()).filter(|f| !f.is_empty());
            let confidence = number.parse::<f64>().ok().filter(|_| family.is_some());
            let reason = if abstained {
                abstain_reason(kind)
            } else {
                suppress_reason(kind)
            };
            match reason {
                Some(reason) => explain(reason, family, confidence),
                None => Silence {
                    explanation: format!("the engine says `{}`", lines.join("; ")),
                    ..explain("unknown", family, confidence)
                },
            }
        }
    };
    silence.left_out = left_out;
    Some(silence)
}

fn abstain_reason(name: &str) -> Option<&'static str> {
    [
        (Abstain::ForeignWorkspace, "no-workspace"),
        (Abstain::PackMining, "pack-mining"),
        (Abstain::NoSignal, "no-family"),
        (Abstain::AmbiguousTarget, "ambiguous"),
        (Abstain::NoCompanions, "companions-missing"),
        (Abstain::LowConfidence, "gated"),
        (Abstain::AlreadyTouched, "already-touched"),
    ]
    .into_iter()
    .find(|(a, _)| a.name() == name)
    .map(|(_, reason)| reason)
}

fn suppress_reason(name: &str) -> Option<&'static str> {
    [
        (Suppress::Cooldown, "cooldown"),
        (Suppress::Dedupe, "dedupe"),
        (Suppress::Cap, "cap"),
    ]
    .into_iter()
    .find(|(s, _)| s.name() == name)
    .map(|(_, reason)| reason)
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
             probability that the note is followed",
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
}
