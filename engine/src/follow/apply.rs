//! Carrying out what a call's follow-through resolved: the one place that changes the
//! agent's open windows on a follow-through (ages them, marks their touches, closes them).
//! Its ledger lines come out in the windows' order: the note's, then each shadow's.

use super::close::{accept, close_with_evidence, soft_reject};
use super::{FollowView, Followed, NoteStep, Seen};
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::judge::lines;
use docsuggest_schema::{Outcome, Resolution};

/// Applies `followed` to the agent's state: what the call resolved, in order.
pub fn apply(
    state: &mut AgentState,
    followed: Followed<'_>,
    config: FollowView,
    ledger: &mut Ledger,
) -> Vec<Resolution> {
    let mut out = Vec::new();
    match followed.note {
        Some(NoteStep::Aged) => {
            if let Some(window) = state.window.as_mut() {
                window.age += 1;
            }
        }
        Some(NoteStep::Accepted(named)) => {
            if let Some(window) = state.window.take() {
                out.push(accept(window, named, config.accept_bonus, ledger));
            }
        }
        Some(NoteStep::Expired) => {
            if let Some(window) = state.window.take() {
                out.push(soft_reject(window, config.reject_penalty, ledger));
            }
        }
        None => {}
    }
    let mut steps = followed.shadows.into_iter().peekable();
    let mut removed = 0;
    let count = state.shadows.len();
    for at in 0..count {
        let i = at - removed;
        let Some(shadow) = state.shadows.get_mut(i) else {
            break;
        };
        if shadow.workspace != followed.workspace {
            continue;
        }
        shadow.age = shadow.age.saturating_add(1);
        let Some(step) = steps.next_if(|step| step.at == at) else {
            continue;
        };
        let touched = match &step.seen {
            Seen::Evidence(touches) => {
                if let Some(named) = shadow.mark(touches)
                    && let Some(companion) = shadow.companions.get(named)
                {
                    lines::accepted(ledger, &shadow.family, companion.path());
                }
                None
            }
            // The record names the companion as the pack writes it, as its rows do.
            Seen::Named(named) => {
                named.and_then(|n| shadow.companions.get(n).map(|m| m.key().to_string()))
            }
        };
        if !step.closes {
            continue;
        }
        let shadow = state.shadows.remove(i);
        removed += 1;
        out.push(if shadow.evidence {
            close_with_evidence(shadow, config, ledger)
        } else {
            Resolution {
                decision_seq: shadow.decision_seq,
                outcome: Outcome::Silent,
                accepted: touched,
                moves: Vec::new(),
            }
        });
    }
    out
}
