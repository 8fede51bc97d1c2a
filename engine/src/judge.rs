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
use docsuggest_schema::{CompanionRow, RateKey};
use gate::Gate;
use rank::open_snapshot;
use rates::SnapshotRates;
use wording::Wording;

pub use crate::follow::{abandon, apply, close_with_evidence, cut_short, follow, soft_reject};

mod choose;
mod claims;
mod detect;
mod emit;
mod gate;
pub(crate) mod lines;
mod rank;
mod rates;
mod record;
mod suppress;
mod untouched;
mod views;
mod wording;

pub use claims::Claim;
pub use views::{ChooseView, ClaimView, GateView, RatesView, RecordView, SuppressView, Views};

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

/// Step 9's stage: what the note may name, what its window only watches, and how many
/// companions the evidence model left out for being rarely followed (its `left-out` line
/// names them; they are among the watched).
struct Chosen {
    rows: Vec<CompanionRow>,
    watched: Vec<CompanionRow>,
    left_out: usize,
}

/// How a judged call ended.
#[derive(Debug)]
pub enum Outcome {
    /// No note could be considered: no family, no companion there, none that fits.
    Abstained,
    /// The gate kept it silent (too little confidence, or every companion touched already).
    Silenced,
    /// It passed the gate but is due no emission now (cooldown, dedupe, cap).
    Suppressed,
    /// The note.
    Emitted(Note),
}

/// Why a call ended before its note: the step that ended it wrote its line.
#[derive(Clone, Copy, Debug)]
enum End {
    Abstained,
    Silenced,
    Suppressed,
}

impl From<End> for Outcome {
    fn from(end: End) -> Outcome {
        match end {
            End::Abstained => Outcome::Abstained,
            End::Silenced => Outcome::Silenced,
            End::Suppressed => Outcome::Suppressed,
        }
    }
}

/// A judged call's end: its outcome, and how many companions were left out for being rarely
/// followed.
#[derive(Debug)]
pub struct Decided {
    /// How many companions the evidence model left out (its `left-out` line names them).
    pub left_out: usize,
    /// At a change boundary, the claim of each companion the note names, in its order.
    pub claims: Vec<Claim>,
    /// How the call ended.
    pub outcome: Outcome,
}

impl Decided {
    /// The note, when the call ended in one.
    pub fn note(self) -> Option<Note> {
        match self.outcome {
            Outcome::Emitted(note) => Some(note),
            _ => None,
        }
    }
}

/// Step 10's stage: the companions whose note passed the gate.
struct Gated {
    chosen: DecisionCompanions,
    /// Whether the family was noted within its cooldown (step 11 suppresses it).
    cooling: bool,
}

/// Step 11's stage: the gated note, due an emission now, with what it names as the call
/// shows it.
struct Cleared<'g> {
    chosen: &'g DecisionCompanions,
    named: Vec<&'g str>,
}

/// Step 12's stage: the note (its record follows, when learning).
struct Emitted {
    note: Note,
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
) -> Decided {
    let mut aside = Aside::default();
    let outcome = match flow(settings, state, located, ledger, effects, &mut aside) {
        Ok(note) => Outcome::Emitted(note),
        Err(end) => end.into(),
    };
    Decided {
        left_out: aside.left_out,
        claims: aside.claims,
        outcome,
    }
}

/// What a call's flow tells besides its outcome.
#[derive(Default)]
struct Aside {
    left_out: usize,
    claims: Vec<Claim>,
}

/// The stages in order; each step ends the call with its outcome when it must.
#[inline]
fn flow(
    settings: &Settings<'_>,
    state: &mut AgentState,
    located: &Located<'_>,
    ledger: &mut Ledger,
    effects: &mut Effects,
    aside: &mut Aside,
) -> Result<Note, End> {
    let views = settings.views;
    let detected = detect::detect(located, ledger)?;
    let candidates = untouched::untouched(&detected, state);
    let call = &detected.call;
    let snapshot = open_snapshot(settings);
    let key = RateKey::family(&located.workspace.key, &call.family.name);
    let rates = SnapshotRates::new(snapshot.as_deref(), views.rates, key);
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
        evidence: views.record.evidence,
    };
    if candidates.all_touched {
        deciding.already_touched(measured.rows, state, ledger, effects);
        return Err(End::Silenced);
    }
    let wording = Wording::of(call, &measured.rows, &rates);
    let gauge = deciding.gate.gauge;
    let claims = state.boundary.then_some(&rates);
    let chosen = choose::choose(
        call,
        measured.rows,
        gauge,
        wording.as_ref(),
        claims,
        views.choose,
        ledger,
    )?;
    aside.left_out = chosen.left_out;
    let chosen = DecisionCompanions {
        kappa: deciding.gate.confidence(&chosen.rows),
        rows: chosen.rows,
        watched: chosen.watched,
    };
    let cooling = suppress::is_cooling(state, views.suppress, &call.family.name);
    let gated = deciding.pass_gate(chosen, cooling, state, ledger, effects)?;
    let cleared = suppress::clear(&deciding, &gated, state, ledger)?;
    let emitted = deciding.emit(cleared, wording.as_ref(), state, ledger, effects);
    if state.boundary {
        let may_block = located.workspace.pack.may_block();
        let rows = &gated.chosen.rows;
        aside.claims = claims::claims(call.family, rows, &rates, views.claim, may_block);
    }
    deciding.record_note(gated.chosen, state, effects);
    Ok(emitted.note)
}
