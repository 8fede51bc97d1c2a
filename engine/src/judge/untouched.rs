//! Step 7, untouched: the existing companions the agent has not touched yet this turn.

use super::{Candidates, Detected};
use crate::agent::AgentState;

/// The companions still to name; when every one was touched, all of them, marked so (the
/// call then ends as an `already-touched` silence).
#[inline]
pub(super) fn untouched(detected: &Detected<'_>, state: &AgentState) -> Candidates {
    let call = &detected.call;
    let touched = state.touched_under(call.bases);
    let untouched: Vec<usize> = call
        .filtered
        .existing
        .iter()
        .copied()
        .filter(|&i| {
            !touched
                .iter()
                .any(|rel| call.filtered.names(call.family, i, rel))
        })
        .collect();
    Candidates {
        all_touched: untouched.is_empty(),
        untouched,
    }
}
