//! Step 12, emit: the note, and what the agent remembers of it (its cooldown, dedupe and
//! cap; the older window closed as a soft reject). The only step that changes the agent's
//! state.

use super::lines;
use super::wording::Wording;
use super::{Cleared, Deciding, Emitted};
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::decision::push_decided;
use crate::follow::soft_reject;
use crate::note;
use crate::pipeline::Effects;
use crate::plain_note;

impl Deciding<'_> {
    /// Step 12, emit: the note naming what `cleared` names; the agent remembers it for its
    /// cooldown, dedupe and cap, and (learning) its older note's window closes.
    #[inline]
    pub(super) fn emit(
        &self,
        cleared: Cleared<'_>,
        wording: Option<&Wording>,
        state: &mut AgentState,
        ledger: &mut Ledger,
        effects: &mut Effects,
    ) -> Emitted {
        let views = self.settings.views;
        let name = self.call.family.name.as_str();
        let Cleared { chosen, named } = cleared;
        let confidence = chosen.kappa;
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
        let note = match wording {
            Some(wording) => {
                let lines = wording.lines(&chosen.rows);
                plain_note::compose(name, &wording.what, gauge, confidence, &named, &lines)
            }
            None => note::compose(name, gauge, confidence, &named),
        };
        Emitted { note }
    }
}
