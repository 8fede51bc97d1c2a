//! Offline evaluation: replays a recorded history under other settings and reports what they
//! would have emitted, accepted and rejected. Pure: it reads records, it writes nothing.
//!
//! Two approximations, both standard for off-policy replay and documented in docs/OFFLINE.md:
//! outcomes are the recorded ones (an alternative that speaks where the engine was silent is
//! judged by the silence's shadow outcome), and the rates a decision is rescored with are the
//! rates just before its resolution, replayed under the alternative rate model.

use crate::measure;
use docsuggest_schema::rate::NEUTRAL;
use docsuggest_schema::{
    CompanionRow, Config, Heuristic, HistoryEntry, Outcome, RateKey, RateModel, RateRow,
    SilenceReason, Table,
};
use std::collections::HashMap;

/// The settings a history is replayed under.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// A name for reports.
    pub name: String,
    /// The effective weights.
    pub weights: Table,
    /// The gate (one for every family: pack thresholds are not part of the record).
    pub threshold: f64,
    /// How rates are read.
    pub rate_model: RateModel,
    /// At most this many companions in a note.
    pub max_companions: usize,
    /// Under the evidence model: companions rated below this are left out.
    pub prune_below: f64,
    /// Under the evidence model: how strongly a rate scales its companion's score.
    pub evidence_exponent: f64,
}

impl Setting {
    /// The setting a config describes.
    pub fn from_config(name: &str, config: &Config) -> Setting {
        Setting {
            name: name.into(),
            weights: config.effective_weights(),
            threshold: config.threshold,
            rate_model: config.rate_model,
            max_companions: config.max_companions,
            prune_below: config.prune_below,
            evidence_exponent: config.evidence_exponent,
        }
    }
}

/// What a setting would have done with a history.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Evaluation {
    /// The setting's name.
    pub setting: String,
    /// Decisions replayed (notes and gated silences).
    pub decisions: u64,
    /// Notes it would have emitted.
    pub emitted: u64,
    /// Emitted notes whose companion the agent opened (a note accepted, or a silence whose
    /// would-be companion was touched).
    pub accepted: u64,
    /// Emitted notes the agent ignored.
    pub rejected: u64,
    /// Emitted notes whose outcome is unknown (abandoned or still pending).
    pub unresolved: u64,
    /// accepted / (accepted + rejected), when anything was resolved.
    pub precision: Option<f64>,
    /// Decisions where the agent opened a companion, whatever was emitted.
    pub useful: u64,
    /// accepted / useful: the share of companions the agent needed that a note named.
    pub shadow_recall: Option<f64>,
    /// emitted per 100 replayed decisions.
    pub notes_per_100_decisions: f64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Useful,
    Useless,
    Unknown,
}

fn verdict(entry: &HistoryEntry) -> Verdict {
    match entry.decision.outcome {
        Outcome::Accepted => Verdict::Useful,
        Outcome::Rejected => Verdict::Useless,
        Outcome::Silent if entry.decision.accepted.is_some() => Verdict::Useful,
        Outcome::Silent => Verdict::Useless,
        Outcome::Abandoned | Outcome::Pending => Verdict::Unknown,
    }
}

struct Tally(Evaluation);

impl Tally {
    fn new(setting: &str) -> Tally {
        Tally(Evaluation {
            setting: setting.into(),
            ..Evaluation::default()
        })
    }

    fn count(&mut self, emitted: bool, verdict: Verdict) {
        let e = &mut self.0;
        e.decisions += 1;
        if verdict == Verdict::Useful {
            e.useful += 1;
        }
        if emitted {
            e.emitted += 1;
            match verdict {
                Verdict::Useful => e.accepted += 1,
                Verdict::Useless => e.rejected += 1,
                Verdict::Unknown => e.unresolved += 1,
            }
        }
    }

    fn finish(mut self) -> Evaluation {
        let e = &mut self.0;
        let resolved = e.accepted + e.rejected;
        e.precision = (resolved > 0).then(|| e.accepted as f64 / resolved as f64);
        e.shadow_recall = (e.useful > 0).then(|| e.accepted as f64 / e.useful as f64);
        e.notes_per_100_decisions = if e.decisions == 0 {
            0.0
        } else {
            e.emitted as f64 * 100.0 / e.decisions as f64
        };
        self.0
    }
}

/// What actually happened: the recorded notes and their outcomes.
pub fn recorded(history: &[HistoryEntry]) -> Evaluation {
    let mut tally = Tally::new("recorded");
    for entry in history {
        tally.count(entry.decision.silence.is_none(), verdict(entry));
    }
    tally.finish()
}

/// What `setting` would have done with `history` (resolution order), starting from `base`.
pub fn evaluate(
    history: &[HistoryEntry],
    base: &[(RateKey, RateRow)],
    setting: &Setting,
) -> Evaluation {
    let mut rows: HashMap<RateKey, RateRow> = base.iter().cloned().collect();
    let mut tally = Tally::new(&setting.name);
    for entry in history {
        let d = &entry.decision;
        let rate = |companion: &str| {
            rows.get(&RateKey::companion(&d.workspace, &d.family, companion))
                .map_or(NEUTRAL, |r| r.rate(setting.rate_model))
        };
        let family_rate = rate("");
        let mut rescored: Vec<CompanionRow> = d
            .companions
            .iter()
            .map(|c| {
                let mut values = c.values;
                values.set(Heuristic::History, rate(&c.path));
                values.set(Heuristic::Accept, family_rate);
                CompanionRow {
                    path: c.path.clone(),
                    score: setting.weights.dot(&values),
                    values,
                }
            })
            .collect();
        rescored.sort_by(|a, b| b.score.total_cmp(&a.score));
        if setting.rate_model == RateModel::Evidence {
            measure::weigh_evidence(&mut rescored, setting.evidence_exponent);
            rescored = measure::prune(rescored, setting.prune_below).0;
        }
        rescored.truncate(setting.max_companions);
        // Every companion was already touched: no gate would have spoken.
        let emitted = d.silence != Some(SilenceReason::AlreadyTouched)
            && !rescored.is_empty()
            && measure::kappa(&rescored) >= setting.threshold;
        tally.count(emitted, verdict(entry));
        for mv in &entry.moves {
            let row = rows.entry(mv.key.clone()).or_default();
            *row = row.apply(mv);
        }
    }
    tally.finish()
}
