//! Step 11, suppress: a note that passed the gate but is due no emission now (its
//! family's cooldown, a repeat, the turn's cap).

use super::views::SuppressView;
use super::{Cleared, Deciding, End, Gated, lines};
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::line_format::Suppress;

/// Step 11, suppress: the gated note, with what it names as the call shows it, unless it is
/// due no emission now (its suppression is written instead).
#[inline]
pub(super) fn clear<'g>(
    deciding: &Deciding<'g>,
    gated: &'g Gated,
    state: &AgentState,
    ledger: &mut Ledger,
) -> Result<Cleared<'g>, End> {
    let call = deciding.call;
    let name = call.family.name.as_str();
    let chosen = &gated.chosen;
    let named: Vec<&str> = chosen.rows.iter().map(|r| call.shown(&r.path)).collect();
    let view = deciding.settings.views.suppress;
    if let Some(kind) = suppression(state, view, name, &named, gated.cooling) {
        lines::suppressed(ledger, kind, name, chosen.kappa);
        return Err(End::Suppressed);
    }
    Ok(Cleared { chosen, named })
}

/// Why a note that passed the gate is due no emission now, if it is.
#[inline]
fn suppression(
    state: &AgentState,
    view: SuppressView,
    name: &str,
    named: &[&str],
    cooling: bool,
) -> Option<Suppress> {
    if cooling {
        Some(Suppress::Cooldown)
    } else if state.emitted.contains(name, named) {
        Some(Suppress::Dedupe)
    } else if state.notes >= view.max_notes_per_turn && !state.boundary {
        Some(Suppress::Cap)
    } else {
        None
    }
}

/// Whether the family was noted within `cooldownCalls` (a boundary has no cooldown).
#[inline]
pub(super) fn is_cooling(state: &AgentState, view: SuppressView, name: &str) -> bool {
    !state.boundary
        && state
            .last_noted
            .get(name)
            .is_some_and(|&at| state.calls - at <= u64::from(view.cooldown_calls))
}
