//! Step 4, the follow-through: every judged in-workspace call either accepts the agent's open
//! window (it names a companion), ages it, or closes it as a soft reject; shadow windows of
//! gated silences are followed the same way but only observe.
//!
//! Under the evidence model a window — a note's or a silence's — stays open for its whole
//! length (or until every companion it watches is touched), so each named and watched
//! companion gets a hit or a miss: named ones as accepts and rejects, unnamed ones as shadow
//! hits and misses. The `accepted` line is still written at the first touch of a named
//! companion.

use crate::agent::{AgentState, CallUnder, Window};
use crate::call_ledger::Ledger;
use crate::judge::lines;
use crate::pipeline::Located;
use docsuggest_schema::{Config, Outcome, RateEvent, RateKey, RateMove, Resolution};

/// What the follow-through reads of the config (a `Copy` view, so a boundary's settling
/// widens its window without copying the config).
#[derive(Clone, Copy, Debug)]
pub struct FollowView {
    /// The calls a window stays open.
    pub learn_window: u32,
    /// What an accept moves a rate by.
    pub accept_bonus: f64,
    /// What a reject moves a rate by.
    pub reject_penalty: f64,
}

impl FollowView {
    /// The view of `config`.
    pub fn of(config: &Config) -> FollowView {
        FollowView {
            learn_window: config.learn_window,
            accept_bonus: config.accept_bonus,
            reject_penalty: config.reject_penalty,
        }
    }
}

/// Step 4: follows the agent's open window and shadow windows with an in-workspace call.
pub fn follow(
    state: &mut AgentState,
    located: &Located<'_>,
    config: FollowView,
    ledger: &mut Ledger,
) -> Vec<Resolution> {
    // The call path under each window's bases, taken once for the windows that share them.
    let mut under = CallUnder::new(located.path);
    let mut out: Vec<Resolution> = follow_note(state, located, &mut under, config, ledger)
        .into_iter()
        .collect();
    // In place: a window that stays open is neither moved nor copied, and no list is built
    // (most calls close at most one).
    let mut i = 0;
    while let Some(shadow) = state.shadows.get_mut(i) {
        if shadow.workspace != located.workspace.key {
            i += 1;
            continue;
        }
        if shadow.evidence {
            if shadow.observe(under.under(&shadow.bases))
                && let Some(companion) = &shadow.accepted
            {
                lines::accepted(ledger, &shadow.family, companion);
            }
            shadow.age += 1;
            if shadow.age >= config.learn_window || shadow.all_touched() {
                let shadow = state.shadows.remove(i);
                out.push(close_with_evidence(shadow, config, ledger));
            } else {
                i += 1;
            }
            continue;
        }
        // The record names the companion as the pack writes it, as its rows do.
        let touched = shadow
            .named_by(under.under(&shadow.bases))
            .map(|m| m.key().to_string());
        shadow.age += 1;
        if touched.is_some() || shadow.age >= config.learn_window {
            let shadow = state.shadows.remove(i);
            out.push(Resolution {
                decision_seq: shadow.decision_seq,
                outcome: Outcome::Silent,
                accepted: touched,
                moves: Vec::new(),
            });
        } else {
            i += 1;
        }
    }
    out
}

fn follow_note(
    state: &mut AgentState,
    located: &Located<'_>,
    under: &mut CallUnder<'_>,
    config: FollowView,
    ledger: &mut Ledger,
) -> Option<Resolution> {
    let window = state.window.as_mut()?;
    if window.workspace != located.workspace.key {
        return None;
    }
    if let Some(named) = window.named_by(under.under(&window.bases)) {
        // The line shows what was touched; the rate and the record use the pack's text.
        lines::accepted(ledger, &window.family, named.path());
        let companion = named.key().to_string();
        let window = state.window.take()?;
        let step = config.accept_bonus;
        let mut moves = vec![rate_move(&window, &companion, RateEvent::Accept, step)];
        if window.moves_family_row() {
            moves.push(rate_move(&window, "", RateEvent::Accept, step));
        }
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
    Some(soft_reject(window, config.reject_penalty, ledger))
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
