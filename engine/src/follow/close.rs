//! Closing a window: what each way a window ends moves (its `Resolution`), from the window
//! itself, taken by value once it has left the agent's state.

use crate::agent::Window;
use crate::call_ledger::Ledger;
use crate::judge::lines;
use docsuggest_schema::{Outcome, RateEvent, RateKey, RateMove, Resolution};

use super::FollowView;

/// Closes a note's window on its accept: the companion at `named` was touched.
pub fn accept(window: Window, named: usize, accept_bonus: f64, ledger: &mut Ledger) -> Resolution {
    let Some(companion) = window.companions.get(named) else {
        return abandon(window);
    };
    // The line shows what was touched; the rate and the record use the pack's text.
    lines::accepted(ledger, &window.family, companion.path());
    let companion = companion.key().to_string();
    let mut moves = vec![rate_move(
        &window,
        &companion,
        RateEvent::Accept,
        accept_bonus,
    )];
    if window.moves_family_row() {
        moves.push(rate_move(&window, "", RateEvent::Accept, accept_bonus));
    }
    Resolution {
        decision_seq: window.decision_seq,
        outcome: Outcome::Accepted,
        accepted: Some(companion),
        moves,
    }
}

/// Closes a window untouched: every named companion and the family move down.
pub fn soft_reject(window: Window, reject_penalty: f64, ledger: &mut Ledger) -> Resolution {
    let names: Vec<&str> = window.companions.iter().map(|c| c.path()).collect();
    lines::rejected(ledger, &window.family, &names);
    let step = -reject_penalty;
    let mut moves: Vec<RateMove> = window
        .companions
        .iter()
        .map(|c| rate_move(&window, c.key(), RateEvent::Reject, step))
        .collect();
    if window.moves_family_row() {
        moves.push(rate_move(&window, "", RateEvent::Reject, step));
    }
    Resolution {
        decision_seq: window.decision_seq,
        outcome: Outcome::Rejected,
        accepted: None,
        moves,
    }
}

/// Closes an evidence window: every companion it watched gets its hit or miss, and a note's
/// family row counts whether the note was followed (one of its named companions touched).
/// A silence leaves the family row alone: the row is the family's own note outcomes, what the
/// chance that a note is followed is bounded by ([`crate::measure::follow_probability`]).
/// So does a change boundary's note, whose outcomes are each companion's, kept in its
/// boundary row: a declined reminder says which files that change did without, not that the
/// family's notes on edits go unread.
pub fn close_with_evidence(window: Window, config: FollowView, ledger: &mut Ledger) -> Resolution {
    let named = window.companions.len();
    let touched = |i: usize| window.touched.get(i).copied().unwrap_or(false);
    let mut moves = Vec::with_capacity(window.touched.len() + 1);
    if window.evidence {
        for (i, companion) in window.keys().enumerate() {
            if window.counted.get(i) == Some(&true) {
                let noted = i < named && !window.observe_only;
                moves.push(observation(&window, companion, noted, touched(i), config));
            }
        }
        if window.moves_family_row() {
            let followed = (0..named).any(touched);
            moves.push(observation(&window, "", true, followed, config));
        }
    }
    if window.observe_only {
        let first = (0..window.touched.len()).find(|&i| touched(i));
        let accepted = first.and_then(|i| window.keys().nth(i).map(str::to_string));
        return Resolution {
            decision_seq: window.decision_seq,
            outcome: Outcome::Silent,
            accepted,
            moves,
        };
    }
    let outcome = match &window.accepted {
        Some(companion) => (
            Outcome::Accepted,
            Some(window.key_of(companion).to_string()),
        ),
        None => {
            let names: Vec<&str> = window.companions.iter().map(|c| c.path()).collect();
            lines::rejected(ledger, &window.family, &names);
            (Outcome::Rejected, None)
        }
    };
    Resolution {
        decision_seq: window.decision_seq,
        outcome: outcome.0,
        accepted: outcome.1,
        moves,
    }
}

/// Closes a window that a turn reset, a close or an eviction cuts short. What it saw is
/// kept: under the evidence model a window whose note was accepted closes as accepted, and a
/// silence's window that saw a companion touched closes as silent, each counting the hits it
/// saw (a companion not yet touched is no miss: its window had not run out). Anything else is
/// abandoned, with no rate move, as the PoC has it.
pub fn cut_short(window: Window, config: FollowView) -> Resolution {
    let touched = |i: usize| window.touched.get(i).copied().unwrap_or(false);
    let seen = (0..window.touched.len()).any(touched);
    let kept = window.evidence && (window.accepted.is_some() || window.observe_only && seen);
    if !kept {
        return abandon(window);
    }
    let mut moves = Vec::new();
    let named = window.companions.len();
    for (i, companion) in window.keys().enumerate() {
        if touched(i) && window.counted.get(i) == Some(&true) {
            let noted = i < named && !window.observe_only;
            moves.push(observation(&window, companion, noted, true, config));
        }
    }
    if window.moves_family_row() {
        moves.push(observation(&window, "", true, true, config));
    }
    let (outcome, accepted) = if window.observe_only {
        let first = (0..window.touched.len()).find(|&i| touched(i));
        let accepted = first.and_then(|i| window.keys().nth(i).map(str::to_string));
        (Outcome::Silent, accepted)
    } else {
        let accepted = window
            .accepted
            .as_deref()
            .map(|a| window.key_of(a).to_string());
        (Outcome::Accepted, accepted)
    };
    Resolution {
        decision_seq: window.decision_seq,
        outcome,
        accepted,
        moves,
    }
}

/// One observation of one row: a named companion (or a note's family row) moves as an accept
/// or a reject of the step rule too; anything unnamed counts as a shadow hit or miss.
fn observation(
    window: &Window,
    companion: &str,
    noted: bool,
    hit: bool,
    config: FollowView,
) -> RateMove {
    let (event, step) = match (noted, hit) {
        (true, true) => (RateEvent::Accept, config.accept_bonus),
        (true, false) => (RateEvent::Reject, -config.reject_penalty),
        (false, true) => (RateEvent::ShadowHit, 0.0),
        (false, false) => (RateEvent::ShadowMiss, 0.0),
    };
    rate_move(window, companion, event, step)
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

/// One move of the row of `companion` (empty: the family's); a boundary's companions move
/// their boundary rows.
fn rate_move(window: &Window, companion: &str, event: RateEvent, step: f64) -> RateMove {
    let key = if window.at_boundary && !companion.is_empty() {
        RateKey::at_boundary(&window.workspace, &window.family, companion)
    } else {
        RateKey::companion(&window.workspace, &window.family, companion)
    };
    RateMove { key, event, step }
}
