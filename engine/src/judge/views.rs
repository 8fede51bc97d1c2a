//! What each step of the judge reads of the config: a small `Copy` view per step, taken once
//! when the engine is configured, so no step sees the config whole.

use docsuggest_schema::{Config, RateModel};

/// Every step's view of one config.
#[derive(Clone, Copy, Debug)]
pub struct Views {
    /// Rank's rates.
    pub rates: RatesView,
    /// The gate.
    pub gate: GateView,
    /// Choose.
    pub choose: ChooseView,
    /// Suppress.
    pub suppress: SuppressView,
    /// A change boundary's claims.
    pub claim: ClaimView,
    /// Emit and record.
    pub record: RecordView,
}

/// How rates are read.
#[derive(Clone, Copy, Debug)]
pub struct RatesView {
    /// Whether the engine learns (else every rate is neutral and nothing is read).
    pub learn: bool,
    /// The rate each row is read under.
    pub rate_model: RateModel,
}

/// How a note is gauged and the bars it must meet.
#[derive(Clone, Copy, Debug)]
pub struct GateView {
    /// The evidence model decides (learning, `rateModel: evidence`).
    pub evidence: bool,
    /// The PoC's bar on kappa, where the family sets none.
    pub threshold: f64,
    /// The bar on the follow probability of a note the PoC's gate would make.
    pub follow_threshold: f64,
    /// The bar on the follow probability of a note the PoC's gate would not make.
    pub unprompted_threshold: f64,
    /// A family followed less often than a companion is kept keeps the full bar.
    pub prune_below: f64,
    /// The most companions a note names.
    pub max_companions: usize,
}

/// What a note may name.
#[derive(Clone, Copy, Debug)]
pub struct ChooseView {
    /// The evidence model decides.
    pub evidence: bool,
    /// How strongly a companion's rate weighs its score.
    pub evidence_exponent: f64,
    /// A companion followed less often than this is left out.
    pub prune_below: f64,
    /// At a boundary, a companion seen followed less often than this is left out.
    pub follow_threshold: f64,
    /// The rate a boundary claim is read under.
    pub rate_model: RateModel,
    /// The most companions a note names.
    pub max_companions: usize,
    /// The most characters a note holds.
    pub max_note_chars: usize,
}

/// What a change boundary's claim must clear to block.
#[derive(Clone, Copy, Debug)]
pub struct ClaimView {
    /// The rate a claim's evidence is read under.
    pub rate_model: RateModel,
    /// The evidence a claim must clear to hold the agent up.
    pub block_bar: f64,
}

/// When a note is due no emission.
#[derive(Clone, Copy, Debug)]
pub struct SuppressView {
    /// The calls after a note of a family during which it is not noted again.
    pub cooldown_calls: u32,
    /// The most notes in a turn.
    pub max_notes_per_turn: u32,
}

/// What is recorded of a decision.
#[derive(Clone, Copy, Debug)]
pub struct RecordView {
    /// Whether the engine learns (records decisions and opens windows).
    pub learn: bool,
    /// The evidence model decides.
    pub evidence: bool,
    /// A silence's evidence window opens only under the evidence model.
    pub rate_model: RateModel,
    /// The most companions an `already-touched` silence names.
    pub max_companions: usize,
    /// What an older note's window moves when a newer note closes it.
    pub reject_penalty: f64,
}

impl Views {
    /// The views of `config`.
    pub fn of(config: &Config) -> Views {
        let evidence = config.learn && config.rate_model == RateModel::Evidence;
        Views {
            rates: RatesView {
                learn: config.learn,
                rate_model: config.rate_model,
            },
            gate: GateView {
                evidence,
                threshold: config.threshold,
                follow_threshold: config.follow_threshold,
                unprompted_threshold: config.unprompted_threshold,
                prune_below: config.prune_below,
                max_companions: config.max_companions,
            },
            choose: ChooseView {
                evidence,
                evidence_exponent: config.evidence_exponent,
                prune_below: config.prune_below,
                follow_threshold: config.follow_threshold,
                rate_model: config.rate_model,
                max_companions: config.max_companions,
                max_note_chars: config.max_note_chars,
            },
            claim: ClaimView {
                rate_model: config.rate_model,
                block_bar: config.block_bar,
            },
            suppress: SuppressView {
                cooldown_calls: config.cooldown_calls,
                max_notes_per_turn: config.max_notes_per_turn,
            },
            record: RecordView {
                learn: config.learn,
                evidence,
                rate_model: config.rate_model,
                max_companions: config.max_companions,
                reject_penalty: config.reject_penalty,
            },
        }
    }
}
