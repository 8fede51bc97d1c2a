//! Step 12, emit: the note, and what the agent remembers of it (its cooldown, dedupe and
//! cap; the older window closed as a soft reject). The only step that changes the agent's
//! state.

use super::Deciding;
use super::suppress::suppression;
use super::wording::Wording;
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::decision::{DecisionCompanions, push_decided};
use crate::follow::soft_reject;
use crate::line_format;
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
    ) -> Option<Note> {
        let config = self.settings.config;
        let name = self.call.family.name.as_str();
        let confidence = chosen.kappa;
        let named: Vec<&str> = chosen
            .rows
            .iter()
            .map(|r| self.call.shown(&r.path))
            .collect();
        if let Some(kind) = suppression(state, config, name, &named, cooling) {
            ledger.push(line_format::suppressed(kind, name, confidence));
            return None;
        }
        // Step 12, emit: the agent remembers the note for its cooldown, dedupe and cap.
        state.last_noted.insert(name.to_string(), state.calls);
        state.emitted.insert(name, &named);
        state.notes += 1;
        if config.learn
            && let Some(older) = state.window.take()
        {
            // The older window closes as a soft reject before the newer one opens. (Under the
            // evidence model note windows live beside each other and none is closed early.)
            effects.resolutions.push(soft_reject(older, config, ledger));
        }
        ledger.push(line_format::suggest(name, confidence, &named));
        push_decided(self.settings, self.call, confidence, &chosen.rows, ledger);
        let gauge = self.gate.gauge;
        Some(match wording {
            Some(wording) => {
                let lines = wording.lines(&chosen.rows);
                plain_note::compose(name, &wording.what, gauge, confidence, &named, &lines)
            }
            None => note::compose(name, gauge, confidence, &named),
        })
    }
}
