//! A plain note's words: what the change is, and each candidate companion's action and
//! reason (read from the rates the call ranked with).

use super::rates::SnapshotRates;
use crate::action::Action;
use crate::decision::JudgedCall;
use crate::plain_note::{self, Why};
use docsuggest_schema::{CompanionRow, NoteStyle};

/// A plain note's words for one call: what the change is, and each candidate companion's
/// action and reason.
pub(super) struct Wording {
    pub(super) what: String,
    candidates: Vec<Candidate>,
}

/// One companion a plain note may name.
struct Candidate {
    /// As the pack writes it.
    path: String,
    /// What the note asks of it, read from the disk.
    action: Option<Action>,
    /// As the call shows it (a template: its substitution).
    shown: String,
    why: Why,
}

impl Wording {
    /// The words of a plain note for the ranked `rows`, or `None` in the PoC's style.
    #[inline]
    pub(super) fn of(
        call: &JudgedCall<'_>,
        rows: &[CompanionRow],
        rates: &SnapshotRates<'_>,
    ) -> Option<Self> {
        let scene = call.located.scene;
        if scene.style != NoteStyle::Plain {
            return None;
        }
        let family = call.family;
        let what = plain_note::described(family.rule_for(call.located.rel).unwrap_or(&family.name));
        let candidates = rows
            .iter()
            .map(|r| {
                let at = family.companions.iter().position(|c| c.path == r.path);
                let action = at.and_then(|i| call.filtered.actions.get(i)?.clone());
                let prior = at.map_or(0.0, |i| family.companions[i].prior);
                let why = match rates.row(&r.path).filter(|row| row.observations() > 0) {
                    Some(row) => Why::Seen {
                        hits: row.hits(),
                        seen: row.observations(),
                    },
                    None if call.located.workspace.mined => Why::Mined { rate: prior },
                    None if scene.builtin_pack => Why::Builtin,
                    None => Why::Pack,
                };
                Candidate {
                    path: r.path.clone(),
                    action,
                    shown: call.shown(&r.path).to_string(),
                    why,
                }
            })
            .collect();
        Some(Wording { what, candidates })
    }

    /// The line of each of `rows`, in order. Every companion has one: one whose action
    /// names only what an earlier line names (a note never names a file twice) is named as
    /// the pattern the pack writes, so the note, its `lines` and its gate keep every
    /// companion the PoC's note would name.
    pub(super) fn lines(&self, rows: &[CompanionRow]) -> Vec<String> {
        let mut named: Vec<String> = Vec::new();
        rows.iter()
            .map(|r| {
                let candidate = self.candidates.iter().find(|c| c.path == r.path);
                let as_written = Action::Matching {
                    glob: candidate.map_or(&r.path, |c| &c.shown).clone(),
                    example: None,
                };
                let action = candidate
                    .and_then(|c| c.action.as_ref()?.without(&named))
                    .unwrap_or(as_written);
                named.extend(action.named());
                plain_note::line(&action, candidate.map_or(Why::Pack, |c| c.why))
            })
            .collect()
    }
}
