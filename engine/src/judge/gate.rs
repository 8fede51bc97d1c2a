//! Step 10, gate: how a note is gauged, the bar it must meet, and what an open note of the
//! agent already names (not named again).

use super::lines;
use super::rates::SnapshotRates;
use super::{Deciding, End, Gated};
use crate::agent::AgentState;
use crate::call_ledger::Ledger;
use crate::compiled::CompiledFamily;
use crate::decision::{DecisionCompanions, silence};
use crate::line_format::Suppress;
use crate::measure;
use crate::note::Gauge;
use crate::pipeline::{Effects, Settings};
use docsuggest_schema::{CompanionRow, SilenceReason};

/// The gate a note must pass: how it is gauged (the PoC's kappa until the family has evidence,
/// then, under the evidence model, the probability that the note is followed) and the bar its
/// kind of note must meet.
pub(super) struct Gate {
    pub(super) gauge: Gauge,
    /// How often the family's notes are followed ([`measure::family_follow`]).
    family_followed: f64,
    /// The bar: the pack's (or config's) threshold on kappa, or the follow threshold of a note
    /// the PoC's gate would make, or would not.
    pub(super) bar: f64,
}

impl Gate {
    /// The gate of a note over the ranked `rows`; `companion_observed` says whether any of
    /// them has been seen (step 8).
    #[inline]
    pub(super) fn new(
        rows: &[CompanionRow],
        companion_observed: bool,
        rates: &SnapshotRates<'_>,
        settings: &Settings<'_>,
        family: &CompiledFamily,
    ) -> Gate {
        let view = settings.views.gate;
        // The family has evidence once its notes have an outcome or a companion ranked here
        // was seen (a silence's windows observe only companions): from then on the evidence
        // model gates on the probability that a note is followed instead of the PoC's kappa,
        // so a family the PoC's gate keeps silent can still speak once its companions are seen
        // followed.
        let family_observed =
            companion_observed || rates.family_row().is_some_and(|row| row.observations() > 0);
        let gauge = if view.evidence && family_observed {
            Gauge::Followed
        } else {
            Gauge::Kappa
        };
        let pack_kappa = measure::pack_kappa(rows, &settings.weights, view.max_companions);
        let family_followed = rates
            .family_row()
            .map_or(pack_kappa, |row| measure::family_follow(&row, pack_kappa));
        let pack_gate = family.threshold.unwrap_or(view.threshold);
        let bar = match gauge {
            Gauge::Kappa => pack_gate,
            // A family the miner kept on its validated figures earned its notes on the newer
            // history and is held to the full bar; one the pack's author wrote is never
            // silenced for good by a dip.
            Gauge::Followed if pack_kappa >= pack_gate && family.validated() => {
                view.follow_threshold
            }
            Gauge::Followed if pack_kappa >= pack_gate => {
                let watched = rows
                    .iter()
                    .filter_map(|r| rates.row(&r.path))
                    .map(|row| row.observations())
                    .max()
                    .unwrap_or(0);
                let spoken = rates.family_row().map_or(0, |row| row.observations());
                measure::prompted_bar(
                    view.follow_threshold,
                    family_followed,
                    spoken,
                    watched,
                    view.prune_below,
                )
            }
            Gauge::Followed => view.unprompted_threshold,
        };
        Gate {
            gauge,
            family_followed,
            bar,
        }
    }

    /// The confidence of a note naming `rows`.
    #[inline]
    pub(super) fn confidence(&self, rows: &[CompanionRow]) -> f64 {
        match self.gauge {
            Gauge::Kappa => measure::kappa(rows),
            Gauge::Followed => measure::follow_probability(rows, self.family_followed),
        }
    }
}

impl Deciding<'_> {
    /// Step 10, gate: the chosen companions if their confidence meets the bar, else the
    /// call's silence (or, for a repeat, its `dedupe` suppression) once it is written.
    #[inline]
    pub(super) fn pass_gate(
        &self,
        mut chosen: DecisionCompanions,
        cooling: bool,
        state: &AgentState,
        ledger: &mut Ledger,
        effects: &mut Effects,
    ) -> Result<Gated, End> {
        let passes = !chosen.rows.is_empty() && chosen.kappa >= self.gate.bar;
        // A note held back by its cooldown is suppressed as such, not as a repeat.
        if self.evidence && passes && !cooling {
            chosen = self
                .without_open_names(chosen, state, ledger)
                .ok_or(End::Suppressed)?;
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
            return Err(End::Silenced);
        }
        Ok(Gated { chosen, cooling })
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
            lines::suppressed(ledger, Suppress::Dedupe, family, chosen.kappa);
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
}
