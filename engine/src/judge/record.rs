//! The record of a decision (when learning): a note's, pending, with its window, or the
//! `already-touched` silence of a call whose companions were all touched this turn.

use super::Deciding;
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::decision::{DecisionCompanions, decision, silence};
use crate::pipeline::{Effects, Record};
use docsuggest_schema::{CompanionRow, SilenceReason};

impl Deciding<'_> {
    /// The end of a call whose companions were all touched already this turn (step 7): the
    /// would-be note, cut to `maxCompanions`, is recorded as an `already-touched` silence.
    #[inline]
    pub(super) fn already_touched(
        &self,
        mut rows: Vec<CompanionRow>,
        state: &AgentState,
        ledger: &mut Ledger,
        effects: &mut Effects,
    ) {
        rows.truncate(self.settings.views.record.max_companions);
        let kappa = self.gate.confidence(&rows);
        let chosen = DecisionCompanions {
            rows,
            watched: Vec::new(),
            kappa,
        };
        silence(
            self.settings,
            state,
            self.call,
            chosen,
            SilenceReason::AlreadyTouched,
            ledger,
            effects,
        );
    }

    /// The emitted note's record (when learning): its decision, pending, and its window.
    #[inline]
    pub(super) fn record_note(
        &self,
        chosen: DecisionCompanions,
        state: &AgentState,
        effects: &mut Effects,
    ) {
        if !self.settings.views.record.learn {
            return;
        }
        let window = self.call.window(state, &chosen, false, self.evidence);
        let decision = decision(self.settings, self.call, chosen.rows, chosen.kappa, None);
        effects.record = Some(Record { decision, window });
    }
}
