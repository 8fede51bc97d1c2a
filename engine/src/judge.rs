//! The judge pipeline's pure steps (docs/BEHAVIOUR.md, ARCHITECTURE.md "The judge flow"): it
//! reads rates through a snapshot and what the disk says from the call's scene, mutates only
//! the agent's state, and returns the writes it intends.
//!
//! A located call passes through typed stages, each made by one step and consumed by the
//! next: [`Detected`] (detect), [`Candidates`] (untouched), [`Measured`] (rank, which opens
//! the call's one snapshot), the chosen companions (choose), the gated ones (gate), and the
//! note (suppress, emit), each ending the call early with its ledger line when it must.

use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::decision::{DecisionCompanions, JudgedCall};
use crate::note::Note;
pub use crate::pipeline::{Effects, Located, Record, Settings};
use docsuggest_schema::{CompanionRow, RateKey, RateModel};
use gate::Gate;
use rates::{SnapshotRates, open_snapshot};
use wording::Wording;

pub use crate::follow::{abandon, close_with_evidence, cut_short, follow, soft_reject};

mod choose;
mod detect;
mod emit;
mod gate;
mod rank;
mod rates;
mod record;
mod suppress;
mod untouched;
mod wording;

/// Step 6's stage: the call's family, with companions that exist.
struct Detected<'a> {
    call: JudgedCall<'a>,
}

/// Step 7's stage: the existing companions not yet touched this turn.
struct Candidates {
    untouched: Vec<usize>,
    /// Every existing companion was touched already: the call ends as an `already-touched`
    /// silence over all of them.
    all_touched: bool,
}

impl Candidates {
    /// The companions to rank: the untouched ones, or all when every one was touched.
    fn indices<'d>(&'d self, detected: &'d Detected<'_>) -> &'d [usize] {
        if self.all_touched {
            &detected.call.filtered.existing
        } else {
            &self.untouched
        }
    }
}

/// Step 8's stage: the candidates ranked, and whether any of them has been seen.
struct Measured {
    rows: Vec<CompanionRow>,
    companion_observed: bool,
}

/// Steps 9–12's shared inputs once the call is measured: the settings, the call and its gate.
struct Deciding<'a> {
    settings: &'a Settings<'a>,
    call: &'a JudgedCall<'a>,
    gate: Gate,
    /// Whether the evidence model decides (learning, `rateModel: evidence`).
    evidence: bool,
}

/// Steps 6–12 for a located call: detect, untouched, rank, choose, gate, suppress, emit.
pub fn decide(
    settings: &Settings<'_>,
    state: &mut AgentState,
    located: &Located<'_>,
    ledger: &mut Ledger,
    effects: &mut Effects,
) -> Option<Note> {
    let config = settings.config;
    let detected = detect::detect(located, ledger)?;
    let candidates = untouched::untouched(&detected, state);
    let call = &detected.call;
    let snapshot = open_snapshot(settings);
    let key = RateKey::family(&located.workspace.key, &call.family.name);
    let rates = SnapshotRates::new(snapshot.as_deref(), config, key);
    let measured = rank::rank(settings, &detected, &candidates, &rates);
    let gate = Gate::new(
        &measured.rows,
        measured.companion_observed,
        &rates,
        settings,
        call.family,
    );
    let deciding = Deciding {
        settings,
        call,
        gate,
        evidence: config.learn && config.rate_model == RateModel::Evidence,
    };
    if candidates.all_touched {
        deciding.already_touched(measured.rows, state, ledger, effects);
        return None;
    }
    let wording = Wording::of(call, &measured.rows, &rates);
    let gauge = deciding.gate.gauge;
    let claims = state.boundary.then_some(&rates);
    let (rows, watched) = choose::choose(
        call,
        measured.rows,
        gauge,
        wording.as_ref(),
        claims,
        config,
        ledger,
    )?;
    let chosen = DecisionCompanions {
        kappa: deciding.gate.confidence(&rows),
        rows,
        watched,
    };
    let cooling = suppress::is_cooling(state, config, &call.family.name);
    let chosen = deciding.pass_gate(chosen, cooling, state, ledger, effects)?;
    let note =
        deciding.suppress_or_emit(&chosen, cooling, wording.as_ref(), state, ledger, effects)?;
    deciding.record_note(chosen, state, effects);
    Some(note)
}
