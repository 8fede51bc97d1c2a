//! Step 11, suppress: a note that passed the gate but is due no emission now (its
//! family's cooldown, a repeat, the turn's cap).

use crate::agent::AgentState;
use crate::line_format::Suppress;
use docsuggest_schema::Config;

/// Step 11, suppress: a note that passed the gate but is due no emission now.
pub(super) fn suppression(
    state: &AgentState,
    config: &Config,
    name: &str,
    named: &[&str],
    cooling: bool,
) -> Option<Suppress> {
    if cooling {
        Some(Suppress::Cooldown)
    } else if state.emitted.contains(name, named) {
        Some(Suppress::Dedupe)
    } else if state.notes >= config.max_notes_per_turn && !state.boundary {
        Some(Suppress::Cap)
    } else {
        None
    }
}

/// Whether the family was noted within `cooldownCalls` (a boundary has no cooldown).
pub(super) fn is_cooling(state: &AgentState, config: &Config, name: &str) -> bool {
    !state.boundary
        && state
            .last_noted
            .get(name)
            .is_some_and(|&at| state.calls - at <= u64::from(config.cooldown_calls))
}
