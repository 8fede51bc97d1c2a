//! The recording half of a decision: what it is about, the companions it names and watches,
//! its window, its `decided` line, and the record of a note or a gated silence.

use crate::agent::{AgentState, Window};
use crate::call_ledger::Ledger;
use crate::compiled::{CompanionForm, CompiledFamily};
use crate::judge::lines;
use crate::line_format::Abstain;
use crate::matcher::CompanionMatcher;
use crate::pipeline::{Effects, Located, Record, Settings};
use crate::scene::Filtered;
use docsuggest_schema::{CompanionRow, Decision, Outcome, RateModel, SilenceReason};
use std::path::PathBuf;
use std::sync::Arc;

/// The companions of one decision: those the note names (or would name) and, under the
/// evidence model, those its window watches without naming them.
pub(crate) struct DecisionCompanions {
    pub(crate) rows: Vec<CompanionRow>,
    pub(crate) watched: Vec<CompanionRow>,
    /// The confidence over `rows`.
    pub(crate) kappa: f64,
}

/// What a decision is about: the call, its family, and the bases its companions live under.
pub(crate) struct JudgedCall<'a> {
    pub(crate) located: &'a Located<'a>,
    pub(crate) family: &'a CompiledFamily,
    pub(crate) bases: &'a Arc<[PathBuf]>,
    /// What the filter kept, and each template's substitution for this call.
    pub(crate) filtered: &'a Filtered,
}

impl<'a> JudgedCall<'a> {
    /// What the call shows of the companion the pack writes as `path` (a template: its
    /// substitution).
    pub(crate) fn shown<'p>(&self, path: &'p str) -> &'p str
    where
        'a: 'p,
    {
        self.filtered.shown(self.family, path)
    }

    /// A window over the companions `chosen` names and watches; under the evidence model it
    /// counts only what no open window of the agent counts already.
    pub(crate) fn window(
        &self,
        state: &AgentState,
        chosen: &DecisionCompanions,
        observe_only: bool,
        evidence: bool,
    ) -> Window {
        let matchers = |rows: &[CompanionRow]| -> Vec<Arc<CompanionMatcher>> {
            rows.iter()
                .filter_map(|r| {
                    let c = self.family.companions.iter().find(|c| c.path == r.path)?;
                    if c.form != CompanionForm::Template {
                        return Some(c.names.clone());
                    }
                    // A template is followed by its substitution for this call.
                    let shown = self.shown(&r.path).to_string();
                    let glob = c.matcher.clone();
                    Some(Arc::new(CompanionMatcher::substituted(
                        shown, &c.path, glob,
                    )))
                })
                .collect()
        };
        let companions = matchers(&chosen.rows);
        let watched = matchers(&chosen.watched);
        let (touched, counted) = if evidence {
            let key = &self.located.workspace.key;
            let counted = companions
                .iter()
                .chain(&watched)
                .map(|c| !state.counts_open(key, &self.family.name, self.bases, c.path()))
                .collect();
            (vec![false; companions.len() + watched.len()], counted)
        } else {
            (Vec::new(), Vec::new())
        };
        Window {
            decision_seq: 0,
            workspace: self.located.workspace.key.clone(),
            family: self.family.name.clone(),
            companions,
            watched,
            touched,
            counted,
            accepted: None,
            evidence,
            bases: self.bases.clone(),
            age: 0,
            observe_only,
            at_boundary: state.boundary,
        }
    }
}

pub(crate) fn push_decided(
    settings: &Settings<'_>,
    call: &JudgedCall<'_>,
    kappa: f64,
    rows: &[CompanionRow],
    ledger: &mut Ledger,
) {
    if let Some(head) = rows.first() {
        lines::decided(
            ledger,
            &call.family.name,
            kappa,
            call.shown(&head.path),
            &head.values,
            settings.weights_text,
            settings.store.kind(),
        );
    }
}

/// A gated silence: its `abstained` and `decided` lines, and (when learning) a shadow window
/// that observes whether the would-be companions are touched anyway.
pub(crate) fn silence(
    settings: &Settings<'_>,
    state: &AgentState,
    call: &JudgedCall<'_>,
    chosen: DecisionCompanions,
    reason: SilenceReason,
    ledger: &mut Ledger,
    effects: &mut Effects,
) {
    let abstain = match reason {
        SilenceReason::LowConfidence => Abstain::LowConfidence,
        SilenceReason::AlreadyTouched => Abstain::AlreadyTouched,
    };
    let family = call.family.name.as_str();
    let kappa = chosen.kappa;
    lines::abstained(ledger, abstain, Some(family), kappa);
    push_decided(settings, call, kappa, &chosen.rows, ledger);
    let view = settings.views.record;
    if view.learn {
        // Companions touched already say nothing about whether the agent would follow them.
        let evidence =
            view.rate_model == RateModel::Evidence && reason == SilenceReason::LowConfidence;
        let window = call.window(state, &chosen, true, evidence);
        let decision = decision(settings, call, chosen.rows, kappa, Some(reason));
        effects.record = Some(Record { decision, window });
    }
}

/// A pending decision record (a note, or a silence whose shadow window is open).
pub(crate) fn decision(
    settings: &Settings<'_>,
    call: &JudgedCall<'_>,
    companions: Vec<CompanionRow>,
    kappa: f64,
    silence: Option<SilenceReason>,
) -> Decision {
    Decision {
        seq: 0,
        workspace: call.located.workspace.key.clone(),
        agent: settings.agent.into(),
        family: call.family.name.clone(),
        kappa,
        companions,
        weights: settings.weights,
        enabled: settings.heuristics.to_vec(),
        outcome: Outcome::Pending,
        silence,
        accepted: None,
        store: settings.store.kind(),
    }
}
