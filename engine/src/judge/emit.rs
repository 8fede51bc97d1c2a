//! Step 12, emit: the note, and what the agent remembers of it (its cooldown, dedupe and
//! cap; the older window closed as a soft reject). The only step that changes the agent's
//! state.

use super::lines;
use super::suppress::suppression;
use super::wording::Wording;
use super::{Deciding, End};
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::decision::{DecisionCompanions, push_decided};
use crate::follow::soft_reject;
use crate::note::{self, Note};
use crate::pipeline::Effects;
use crate::plain_note;

impl Deciding<'_> {
    /// Steps 11 and 12, suppress or emit: the note naming `chosen`, unless it is due no
    /// emission now (its suppression is written instead).
    pub(super) fn suppress_or_emit(
        &self,
        chosen: &DecisionCompanions,
        cooling: bool,
        wording: Option<&Wording>,
        state: &mut AgentState,
        ledger: &mut Ledger,
        effects: &mut Effects,
    ) -> Result<Note, End> {
        let views = self.settings.views;
        let name = self.call.family.name.as_str();
        let confidence = chosen.kappa;
        let named: Vec<&str> = chosen
            .rows
            .iter()
            .map(|r| self.call.shown(&r.path))
            .collect();
        if let Some(kind) = suppression(state, views.suppress, name, &named, cooling) {
            lines::suppressed(ledger, kind, name, confidence);
            return Err(End::Suppressed);
        }
        // Step 12, emit: the agent remembers the note for its cooldown, dedupe and cap.
        state.last_noted.insert(name.to_string(), state.calls);
        state.emitted.insert(name, &named);
        state.notes += 1;
        if views.record.learn
            && let Some(older) = state.window.take()
        {
            // The older window closes as a soft reject before the newer one opens. (Under the
            // evidence model note windows live beside each other and none is closed early.)
            effects
                .resolutions
                .push(soft_reject(older, views.record.reject_penalty, ledger));
        }
        lines::suggest(ledger, name, confidence, &named);
        push_decided(self.settings, self.call, confidence, &chosen.rows, ledger);
        let gauge = self.gate.gauge;
        Ok(match wording {
            Some(wording) => {
                let lines = wording.lines(&chosen.rows);
                plain_note::compose(name, &wording.what, gauge, confidence, &named, &lines)
            }
            None => note::compose(name, gauge, confidence, &named),
        })
    }
}
