//! The judge pipeline's pure steps (docs/BEHAVIOUR.md): it reads rates through a snapshot and
//! what the disk says from the call's scene, mutates only the agent's state, and returns the
//! writes it intends.

use crate::action::Action;
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::compiled::{CompiledFamily, Detection};
use crate::decision::{DecisionCompanions, JudgedCall, decision, push_decided, silence};
use crate::line_format::{self, Abstain, Suppress};
use crate::measure;
use crate::note::{self, Gauge, Note};
pub use crate::pipeline::{Effects, Located, Record, Settings};
use crate::plain_note::{self, Why};

pub use crate::follow::{abandon, close_with_evidence, cut_short, follow, soft_reject};
use docsuggest_schema::{
    CompanionRow, Config, Heuristic, NoteStyle, RateKey, RateModel, RateRow, SilenceReason,
};
use rates::{SnapshotRates, open_snapshot};

mod rates;

/// The gate a note must pass: how it is gauged (the PoC's kappa until the family has evidence,
/// then, under the evidence model, the probability that the note is followed) and the bar its
/// kind of note must meet.
struct Gate {
    gauge: Gauge,
    /// How often the family's notes are followed ([`measure::family_follow`]).
    family_followed: f64,
    /// The bar: the pack's (or config's) threshold on kappa, or the follow threshold of a note
    /// the PoC's gate would make, or would not.
    bar: f64,
}

impl Gate {
    fn new(
        rows: &[CompanionRow],
        rates: &SnapshotRates<'_>,
        settings: &Settings<'_>,
        family: &CompiledFamily,
    ) -> Gate {
        let config = settings.config;
        let evidence = config.learn && config.rate_model == RateModel::Evidence;
        let gauge = if evidence && rates.family_observed() {
            Gauge::Followed
        } else {
            Gauge::Kappa
        };
        let pack_kappa = measure::pack_kappa(rows, &settings.weights, config.max_companions);
        let family_followed = rates
            .family_row()
            .map_or(pack_kappa, |row| measure::family_follow(&row, pack_kappa));
        let pack_gate = family.threshold.unwrap_or(config.threshold);
        let bar = match gauge {
            Gauge::Kappa => pack_gate,
            Gauge::Followed if pack_kappa >= pack_gate => config.follow_threshold,
            Gauge::Followed => config.unprompted_threshold,
        };
        Gate {
            gauge,
            family_followed,
            bar,
        }
    }

    /// The confidence of a note naming `rows`.
    fn confidence(&self, rows: &[CompanionRow]) -> f64 {
        match self.gauge {
            Gauge::Kappa => measure::kappa(rows),
            Gauge::Followed => measure::follow_probability(rows, self.family_followed),
        }
    }
}

/// A plain note's words for one call: what the change is, and each candidate companion's
/// action and reason.
struct Wording {
    what: String,
    candidates: Vec<Candidate>,
}

/// One companion a plain note may name.
struct Candidate {
    /// As the pack writes it.
    path: String,
    /// What the note asks of it, read from the disk.
    action: Option<Action>,
    /// As the call shows it (a template: its substitution).
    shown: String,
    why: Why,
}

impl Wording {
    /// The words of a plain note for the ranked `rows`, or `None` in the PoC's style.
    fn of(call: &JudgedCall<'_>, rows: &[CompanionRow], rates: &SnapshotRates<'_>) -> Option<Self> {
        let scene = call.located.scene;
        if scene.style != NoteStyle::Plain {
            return None;
        }
        let family = call.family;
        let what = plain_note::described(family.rule_for(call.located.rel).unwrap_or(&family.name));
        let candidates = rows
            .iter()
            .map(|r| {
                let at = family.companions.iter().position(|c| c.path == r.path);
                let action = at.and_then(|i| call.filtered.actions.get(i)?.clone());
                let prior = at.map_or(0.0, |i| family.companions[i].prior);
                let why = match rates.row(&r.path).filter(|row| row.observations() > 0) {
                    Some(row) => Why::Seen {
                        hits: row.hits(),
                        seen: row.observations(),
                    },
                    None if call.located.workspace.mined => Why::Mined { rate: prior },
                    None if scene.builtin_pack => Why::Builtin,
                    None => Why::Pack,
                };
                Candidate {
                    path: r.path.clone(),
                    action,
                    shown: call.shown(&r.path).to_string(),
                    why,
                }
            })
            .collect();
        Some(Wording { what, candidates })
    }

    /// The line of each of `rows`, in order. Every companion has one: one whose action
    /// names only what an earlier line names (a note never names a file twice) is named as
    /// the pattern the pack writes, so the note, its `lines` and its gate keep every
    /// companion the PoC's note would name.
    fn lines(&self, rows: &[CompanionRow]) -> Vec<String> {
        let mut named: Vec<String> = Vec::new();
        rows.iter()
            .map(|r| {
                let candidate = self.candidates.iter().find(|c| c.path == r.path);
                let as_written = Action::Matching {
                    glob: candidate.map_or(&r.path, |c| &c.shown).clone(),
                    example: None,
                };
                let action = candidate
                    .and_then(|c| c.action.as_ref()?.without(&named))
                    .unwrap_or(as_written);
                named.extend(action.named());
                plain_note::line(&action, candidate.map_or(Why::Pack, |c| c.why))
            })
            .collect()
    }
}

/// Step 6, detect: the call's family, or the abstention that ends it.
fn detect<'p>(located: &'p Located<'_>, ledger: &mut Ledger) -> Option<&'p CompiledFamily> {
    let pack = &located.workspace.pack;
    match located.scene.detection {
        Detection::NoSignal => {
            ledger.push(line_format::abstained(Abstain::NoSignal, None, 0.0));
            None
        }
        Detection::Ambiguous(f) => {
            let name = &pack.families[f].name;
            ledger.push(line_format::abstained(
                Abstain::AmbiguousTarget,
                Some(name),
                0.0,
            ));
            None
        }
        Detection::Family(f) => Some(&pack.families[f]),
    }
}

/// Step 7, filter: the existing companions the agent has not touched yet this turn (all of
/// them when every one was touched: the caller records that as an `already-touched` silence).
fn untouched(call: &JudgedCall<'_>, state: &AgentState) -> Vec<usize> {
    let touched = state.touched_under(call.bases);
    call.filtered
        .existing
        .iter()
        .copied()
        .filter(|&i| {
            !touched
                .iter()
                .any(|rel| call.filtered.names(call.family, i, rel))
        })
        .collect()
}

/// Step 9, choose: what the note may name and what its window only watches — under the
/// evidence model the rows weighed by their rates and the rarely followed left out — cut to
/// `maxCompanions` and to what fits the note. `None` when not even one companion line fits.
fn choose(
    call: &JudgedCall<'_>,
    mut rows: Vec<CompanionRow>,
    gauge: Gauge,
    wording: Option<&Wording>,
    claims: Option<&SnapshotRates<'_>>,
    config: &Config,
    ledger: &mut Ledger,
) -> Option<(Vec<CompanionRow>, Vec<CompanionRow>)> {
    let name = call.family.name.as_str();
    let evidence = config.learn && config.rate_model == RateModel::Evidence;
    let mut watched = Vec::new();
    if evidence {
        measure::weigh_evidence(&mut rows, config.evidence_exponent);
        let (kept, left) = match claims {
            None => measure::prune(rows, config.prune_below),
            Some(rates) => boundary_claims(rows, rates, config),
        };
        if !left.is_empty() {
            let names: Vec<&str> = left.iter().map(|r| call.shown(&r.path)).collect();
            ledger.push(line_format::left_out(name, &names));
        }
        rows = kept;
        watched = left;
    }
    if rows.len() > config.max_companions {
        watched.extend(rows.drain(config.max_companions..));
    }
    let fit = match wording {
        Some(wording) => plain_note::fitting(
            &wording.what,
            gauge,
            &wording.lines(&rows),
            config.max_note_chars,
        ),
        None => {
            let paths: Vec<&str> = rows.iter().map(|r| call.shown(&r.path)).collect();
            note::fitting(name, gauge, &paths, config.max_note_chars)
        }
    };
    if fit == 0 && !rows.is_empty() {
        ledger.push(line_format::abstained(
            Abstain::NoCompanions,
            Some(name),
            0.0,
        ));
        return None;
    }
    if evidence {
        watched.extend(rows.drain(fit..));
    } else {
        rows.truncate(fit);
    }
    Some((rows, watched))
}

/// At a change boundary each companion named is a claim of its own — this file is missing —
/// so one seen followed less often than `followThreshold` is left out (and watched), besides
/// those under `pruneBelow`. Seen means recent evidence that outweighs the rate's prior
/// ([`RateRow::outweighs_prior`]): the companion's boundary row once boundaries have seen it
/// that often, else its own row (its notes on edits). Before either, the rate is mostly the
/// prior's 1/3, and the companion is vouched for by its note's gate: one declined reminder
/// does not outweigh that.
fn boundary_claims(
    rows: Vec<CompanionRow>,
    rates: &SnapshotRates<'_>,
    config: &Config,
) -> (Vec<CompanionRow>, Vec<CompanionRow>) {
    rows.into_iter().partition(|r| {
        let rate = r.values.get(Heuristic::History);
        let claim = rates
            .boundary_row(&r.path)
            .filter(RateRow::outweighs_prior)
            .or_else(|| rates.row(&r.path).filter(RateRow::outweighs_prior));
        let declined =
            claim.is_some_and(|row| row.rate(config.rate_model) < config.follow_threshold);
        rate >= config.prune_below && !declined
    })
}

/// Step 11, suppress: a note that passed the gate but is due no emission now.
fn suppression(
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

/// Steps 8–12's shared inputs once the call is measured: the settings, the call and its gate.
struct Deciding<'a> {
    settings: &'a Settings<'a>,
    call: &'a JudgedCall<'a>,
    gate: Gate,
    /// Whether the evidence model decides (learning, `rateModel: evidence`).
    evidence: bool,
}

impl Deciding<'_> {
    /// The end of a call whose companions were all touched already this turn (step 7): the
    /// would-be note, cut to `maxCompanions`, is recorded as an `already-touched` silence.
    fn already_touched(
        &self,
        mut rows: Vec<CompanionRow>,
        state: &AgentState,
        ledger: &mut Ledger,
        effects: &mut Effects,
    ) {
        rows.truncate(self.settings.config.max_companions);
        let kappa = self.gate.confidence(&rows);
        let chosen = DecisionCompanions {
            rows,
            watched: Vec::new(),
            kappa,
        };
        silence(
            self.settings,
            state,
            self.call,
            chosen,
            SilenceReason::AlreadyTouched,
            ledger,
            effects,
        );
    }

    /// Step 10, gate: the chosen companions if their confidence meets the bar, else `None`
    /// once the call's silence (or, for a repeat, its `dedupe` suppression) is written.
    fn pass_gate(
        &self,
        mut chosen: DecisionCompanions,
        cooling: bool,
        state: &AgentState,
        ledger: &mut Ledger,
        effects: &mut Effects,
    ) -> Option<DecisionCompanions> {
        let passes = !chosen.rows.is_empty() && chosen.kappa >= self.gate.bar;
        // A note held back by its cooldown is suppressed as such, not as a repeat.
        if self.evidence && passes && !cooling {
            chosen = self.without_open_names(chosen, state, ledger)?;
        }
        if chosen.rows.is_empty() || chosen.kappa < self.gate.bar {
            silence(
                self.settings,
                state,
                self.call,
                chosen,
                SilenceReason::LowConfidence,
                ledger,
                effects,
            );
            return None;
        }
        Some(chosen)
    }

    /// What an open note of this agent already names is not named again: a note left with
    /// nothing new is a repeat (`None`, suppressed as `dedupe`), one left with less is gated
    /// on what it still names while its window watches the rest.
    fn without_open_names(
        &self,
        chosen: DecisionCompanions,
        state: &AgentState,
        ledger: &mut Ledger,
    ) -> Option<DecisionCompanions> {
        let call = self.call;
        let (repeated, fresh): (Vec<CompanionRow>, Vec<CompanionRow>) =
            chosen.rows.into_iter().partition(|r| {
                let shown = call.shown(&r.path);
                state.names_open(&call.located.workspace.key, call.bases, shown)
            });
        if fresh.is_empty() {
            let family = call.family.name.as_str();
            ledger.push(line_format::suppressed(
                Suppress::Dedupe,
                family,
                chosen.kappa,
            ));
            return None;
        }
        let mut watched = chosen.watched;
        watched.extend(repeated);
        Some(DecisionCompanions {
            kappa: self.gate.confidence(&fresh),
            rows: fresh,
            watched,
        })
    }

    /// Steps 11 and 12, suppress or emit: the note naming `chosen`, unless it is due no
    /// emission now (its suppression is written instead).
    fn suppress_or_emit(
        &self,
        chosen: &DecisionCompanions,
        cooling: bool,
        wording: Option<&Wording>,
        state: &mut AgentState,
        ledger: &mut Ledger,
        effects: &mut Effects,
    ) -> Option<Note> {
        let config = self.settings.config;
        let name = self.call.family.name.as_str();
        let confidence = chosen.kappa;
        let named: Vec<&str> = chosen
            .rows
            .iter()
            .map(|r| self.call.shown(&r.path))
            .collect();
        if let Some(kind) = suppression(state, config, name, &named, cooling) {
            ledger.push(line_format::suppressed(kind, name, confidence));
            return None;
        }
        // Step 12, emit: the agent remembers the note for its cooldown, dedupe and cap.
        state.last_noted.insert(name.to_string(), state.calls);
        state.emitted.insert(name, &named);
        state.notes += 1;
        if config.learn
            && let Some(older) = state.window.take()
        {
            // The older window closes as a soft reject before the newer one opens. (Under the
            // evidence model note windows live beside each other and none is closed early.)
            effects.resolutions.push(soft_reject(older, config, ledger));
        }
        ledger.push(line_format::suggest(name, confidence, &named));
        push_decided(self.settings, self.call, confidence, &chosen.rows, ledger);
        let gauge = self.gate.gauge;
        Some(match wording {
            Some(wording) => {
                let lines = wording.lines(&chosen.rows);
                plain_note::compose(name, &wording.what, gauge, confidence, &named, &lines)
            }
            None => note::compose(name, gauge, confidence, &named),
        })
    }

    /// The emitted note's record (when learning): its decision, pending, and its window.
    fn record_note(&self, chosen: DecisionCompanions, state: &AgentState, effects: &mut Effects) {
        if !self.settings.config.learn {
            return;
        }
        let window = self.call.window(state, &chosen, false, self.evidence);
        let decision = decision(self.settings, self.call, chosen.rows, chosen.kappa, None);
        effects.record = Some(Record { decision, window });
    }
}

/// Whether the family was noted within `cooldownCalls` (a boundary has no cooldown).
fn is_cooling(state: &AgentState, config: &Config, name: &str) -> bool {
    !state.boundary
        && state
            .last_noted
            .get(name)
            .is_some_and(|&at| state.calls - at <= u64::from(config.cooldown_calls))
}

/// Steps 6–12 for a located call: detect, filter, measure, choose, gate, suppress, emit.
pub fn decide(
    settings: &Settings<'_>,
    state: &mut AgentState,
    located: &Located<'_>,
    ledger: &mut Ledger,
    effects: &mut Effects,
) -> Option<Note> {
    let config = settings.config;
    let family = detect(located, ledger)?;
    let name = family.name.as_str();
    let filtered = located.scene.filtered.as_ref()?;
    let call = JudgedCall {
        located,
        family,
        bases: &filtered.bases,
        filtered,
    };
    if filtered.existing.is_empty() {
        ledger.push(line_format::abstained(
            Abstain::NoCompanions,
            Some(name),
            0.0,
        ));
        return None;
    }
    let untouched = untouched(&call, state);
    // Step 8, measure: rates through one snapshot, then ranked scores.
    let snapshot = open_snapshot(settings);
    let key = RateKey::family(&located.workspace.key, name);
    let rates = SnapshotRates::new(snapshot.as_deref(), config, key);
    let candidates = if untouched.is_empty() {
        &filtered.existing
    } else {
        &untouched
    };
    let companions = candidates.iter().map(|&i| &family.companions[i]);
    let rows = measure::rank(companions, &rates, &settings.weights);
    let deciding = Deciding {
        settings,
        call: &call,
        gate: Gate::new(&rows, &rates, settings, family),
        evidence: config.learn && config.rate_model == RateModel::Evidence,
    };
    if untouched.is_empty() {
        deciding.already_touched(rows, state, ledger, effects);
        return None;
    }
    let wording = Wording::of(&call, &rows, &rates);
    let gauge = deciding.gate.gauge;
    let claims = state.boundary.then_some(&rates);
    let (rows, watched) = choose(&call, rows, gauge, wording.as_ref(), claims, config, ledger)?;
    let chosen = DecisionCompanions {
        kappa: deciding.gate.confidence(&rows),
        rows,
        watched,
    };
    let cooling = is_cooling(state, config, name);
    let chosen = deciding.pass_gate(chosen, cooling, state, ledger, effects)?;
    let note =
        deciding.suppress_or_emit(&chosen, cooling, wording.as_ref(), state, ledger, effects)?;
    deciding.record_note(chosen, state, effects);
    Some(note)
}
