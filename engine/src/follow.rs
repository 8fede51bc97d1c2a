//! Step 4, the follow-through: every judged in-workspace call either accepts the agent's open
//! window (it names a companion), ages it, or closes it as a soft reject; shadow windows of
//! gated silences are followed the same way but only observe.

use crate::agent::{AgentState, Window};
use crate::judge::Located;
use crate::ledger;
use docsuggest_schema::{Config, Outcome, RateEvent, RateKey, RateMove, Resolution};

/// Step 4: follows the agent's open window and shadow windows with an in-workspace call.
pub fn follow(
    state: &mut AgentState,
    located: &Located,
    config: &Config,
    ledger: &mut Vec<String>,
) -> Vec<Resolution> {
    let mut out: Vec<Resolution> = follow_note(state, located, config, ledger)
        .into_iter()
        .collect();
    let mut open = Vec::with_capacity(state.shadows.len());
    for mut shadow in std::mem::take(&mut state.shadows) {
        if shadow.workspace != located.workspace.key {
            open.push(shadow);
            continue;
        }
        let touched = shadow.named_by(&located.path).map(str::to_string);
        shadow.age += 1;
        if touched.is_some() || shadow.age >= config.learn_window {
            out.push(Resolution {
                decision_seq: shadow.decision_seq,
                outcome: Outcome::Silent,
                accepted: touched,
                moves: Vec::new(),
            });
        } else {
            open.push(shadow);
        }
    }
    state.shadows = open;
    out
}

fn follow_note(
    state: &mut AgentState,
    located: &Located,
    config: &Config,
    ledger: &mut Vec<String>,
) -> Option<Resolution> {
    let window = state.window.as_mut()?;
    if window.workspace != located.workspace.key {
        return None;
    }
    if let Some(companion) = window.named_by(&located.path).map(str::to_string) {
        let window = state.window.take()?;
        ledger.push(ledger::accepted(&window.family, &companion));
        let step = config.accept_bonus;
        let moves = vec![
            rate_move(&window, &companion, RateEvent::Accept, step),
            rate_move(&window, "", RateEvent::Accept, step),
        ];
        return Some(Resolution {
            decision_seq: window.decision_seq,
            outcome: Outcome::Accepted,
            accepted: Some(companion),
            moves,
        });
    }
    window.age += 1;
    if window.age < config.learn_window {
        return None;
    }
    let window = state.window.take()?;
    Some(soft_reject(window, config, ledger))
}

/// Closes a window untouched: every named companion and the family move down.
pub fn soft_reject(window: Window, config: &Config, ledger: &mut Vec<String>) -> Resolution {
    let names: Vec<&str> = window.companions.iter().map(|(c, _)| c.as_str()).collect();
    ledger.push(ledger::rejected(&window.family, &names));
    let step = -config.reject_penalty;
    let mut moves: Vec<RateMove> = names
        .iter()
        .map(|c| rate_move(&window, c, RateEvent::Reject, step))
        .collect();
    moves.push(rate_move(&window, "", RateEvent::Reject, step));
    Resolution {
        decision_seq: window.decision_seq,
        outcome: Outcome::Rejected,
        accepted: None,
        moves,
    }
}

/// Closes a window without a verdict (turn reset, restart): no rate move.
pub fn abandon(window: Window) -> Resolution {
    Resolution {
        decision_seq: window.decision_seq,
        outcome: Outcome::Abandoned,
        accepted: None,
        moves: Vec::new(),
    }
}

fn rate_move(window: &Window, companion: &str, event: RateEvent, step: f64) -> RateMove {
    RateMove {
        key: RateKey::companion(&window.workspace, &window.family, companion),
        event,
        step,
    }
}
