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

/// Confidence bins of a calibration table: bin `i` holds confidences in `[i/10, (i+1)/10)`,
/// and 1.0 goes in the last.
pub const CALIBRATION_BINS: usize = 10;

/// One bin of a calibration table: notes whose confidence fell in it and how many were
/// followed.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CalibrationBin {
    /// The mean confidence of the bin's notes.
    pub confidence: f64,
    /// The bin's notes.
    pub notes: u64,
    /// The share of them that were followed (a hit, an accept).
    pub note_precision: f64,
}

/// Notes' confidences against their outcomes, gathered into [`CALIBRATION_BINS`] bins over
/// 0..1: a confident note should be followed as often as it says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Calibration {
    /// Per bin: notes, sum of their confidences, notes followed.
    bins: [(u64, f64, u64); CALIBRATION_BINS],
}

impl Calibration {
    /// Counts a note of `confidence` (clamped to 0..1; one that is not a number is left
    /// out), followed or not.
    pub fn add(&mut self, confidence: f64, followed: bool) {
        if confidence.is_nan() {
            return;
        }
        let c = confidence.clamp(0.0, 1.0);
        let i = ((c * CALIBRATION_BINS as f64) as usize).min(CALIBRATION_BINS - 1);
        let bin = &mut self.bins[i];
        bin.0 += 1;
        bin.1 += c;
        bin.2 += u64::from(followed);
    }

    /// The bins that hold a note, in ascending confidence.
    pub fn bins(&self) -> Vec<CalibrationBin> {
        self.bins
            .iter()
            .filter(|b| b.0 > 0)
            .map(|&(notes, sum, followed)| CalibrationBin {
                confidence: sum / notes as f64,
                notes,
                note_precision: followed as f64 / notes as f64,
            })
            .collect()
    }
}

/// The expected calibration error of a table: Σ notes × |confidence − note precision| ÷ Σ
/// notes; `None` for a table of no notes.
pub fn calibration_error(bins: &[CalibrationBin]) -> Option<f64> {
    let notes: u64 = bins.iter().map(|b| b.notes).sum();
    (notes > 0).then(|| {
        bins.iter()
            .map(|b| b.notes as f64 * (b.confidence - b.note_precision).abs())
            .sum::<f64>()
            / notes as f64
    })
}

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
    /// Under the evidence model, once the family has evidence: the gate on the probability
    /// that a note the PoC's gate would make is followed.
    pub follow_threshold: f64,
    /// The same for a note the PoC's gate would not make.
    pub unprompted_threshold: f64,
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
            follow_threshold: config.follow_threshold,
            unprompted_threshold: config.unprompted_threshold,
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
    /// The emitted notes whose outcome is known, binned by their confidence (what the gate
    /// compared — kappa, or once the family has evidence the probability that the note is
    /// followed: recorded, or of the replayed companions) against the share accepted.
    pub calibration: Vec<CalibrationBin>,
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

struct Tally(Evaluation, Calibration);

impl Tally {
    fn new(setting: &str) -> Tally {
        Tally(
            Evaluation {
                setting: setting.into(),
                ..Evaluation::default()
            },
            Calibration::default(),
        )
    }

    /// Counts a decision; an emitted note is binned by `confidence`.
    fn count(&mut self, emitted: bool, verdict: Verdict, confidence: f64) {
        if emitted && verdict != Verdict::Unknown {
            self.1.add(confidence, verdict == Verdict::Useful);
        }
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
        e.calibration = self.1.bins();
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
        let d = &entry.decision;
        tally.count(d.silence.is_none(), verdict(entry), d.kappa);
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
        // As the engine gates: the PoC's kappa until the family has evidence, then the
        // probability that the note is followed, against the bar of a note the PoC's gate
        // would make or would not.
        let family_row = rows.get(&RateKey::family(&d.workspace, &d.family));
        let observations = |companion: &str| {
            rows.get(&RateKey::companion(&d.workspace, &d.family, companion))
                .map_or(0, RateRow::observations)
        };
        // The most any companion of the call was watched (the family's calls, spoken or not).
        let watched = || {
            d.companions
                .iter()
                .map(|c| observations(&c.path))
                .max()
                .unwrap_or(0)
        };
        let learned =
            setting.rate_model == RateModel::Evidence && (observations("") > 0 || watched() > 0);
        let pack_kappa = measure::pack_kappa(&rescored, &setting.weights, setting.max_companions);
        let prompted = pack_kappa >= setting.threshold;
        let family_followed =
            family_row.map_or(pack_kappa, |r| measure::family_follow(r, pack_kappa));
        if setting.rate_model == RateModel::Evidence {
            measure::weigh_evidence(&mut rescored, setting.evidence_exponent);
            rescored = measure::prune(rescored, setting.prune_below).0;
        }
        rescored.truncate(setting.max_companions);
        let (kappa, gate) = match (learned, prompted) {
            (false, _) => (measure::kappa(&rescored), setting.threshold),
            (true, true) => (
                measure::follow_probability(&rescored, family_followed),
                measure::prompted_bar(
                    setting.follow_threshold,
                    family_followed,
                    family_row.map_or(0, RateRow::observations),
                    watched(),
                    setting.prune_below,
                ),
            ),
            (true, false) => (
                measure::follow_probability(&rescored, family_followed),
                setting.unprompted_threshold,
            ),
        };
        // Every companion was already touched: no gate would have spoken.
        let emitted = d.silence != Some(SilenceReason::AlreadyTouched)
            && !rescored.is_empty()
            && kappa >= gate;
        tally.count(emitted, verdict(entry), kappa);
        for mv in &entry.moves {
            let row = rows.entry(mv.key.clone()).or_default();
            *row = row.apply(mv);
        }
    }
    tally.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (confidence, followed) notes → (bin index, notes, followed) of each non-empty bin.
    fn check(notes: &[(f64, bool)], expect: &[(usize, u64, u64)]) {
        let mut c = Calibration::default();
        for &(confidence, followed) in notes {
            c.add(confidence, followed);
        }
        let bins = c.bins();
        let got: Vec<(usize, u64, u64)> = bins
            .iter()
            .map(|b| {
                let i = ((b.confidence * 10.0) as usize).min(CALIBRATION_BINS - 1);
                (
                    i,
                    b.notes,
                    (b.note_precision * b.notes as f64).round() as u64,
                )
            })
            .collect();
        assert_eq!(got, expect, "{notes:?}");
    }

    #[test]
    fn notes_fall_in_tenths_and_empty_bins_are_left_out() {
        check(&[], &[]);
        // Bin i holds [i/10, (i+1)/10); 1.0 goes in the last bin, out-of-range values are
        // clamped, a NaN is left out.
        check(
            &[
                (0.0, false),
                (0.0999, true),
                (0.1, true),
                (0.55, true),
                (0.59, false),
                (0.9, true),
                (1.0, true),
                (1.7, false),
                (-0.3, false),
                (f64::NAN, true),
            ],
            &[(0, 3, 1), (1, 1, 1), (5, 2, 1), (9, 3, 2)],
        );
    }

    #[test]
    fn a_bin_holds_the_mean_confidence_and_the_share_followed() {
        let mut c = Calibration::default();
        for (confidence, followed) in [(0.71, true), (0.73, false), (0.75, false), (0.79, true)] {
            c.add(confidence, followed);
        }
        let bins = c.bins();
        assert_eq!(bins.len(), 1);
        assert!((bins[0].confidence - 0.745).abs() < 1e-12, "{bins:?}");
        assert_eq!((bins[0].notes, bins[0].note_precision), (4, 0.5));
    }

    #[test]
    fn the_calibration_error_weighs_each_bin_by_its_notes() {
        let bin = |confidence, notes, note_precision| CalibrationBin {
            confidence,
            notes,
            note_precision,
        };
        assert_eq!(calibration_error(&[]), None);
        // 3 × |0.55 − 0.25| + 1 × |0.95 − 0.95| over 4 notes.
        let e = calibration_error(&[bin(0.55, 3, 0.25), bin(0.95, 1, 0.95)]).expect("notes");
        assert!((e - 0.225).abs() < 1e-12, "{e}");
        // A perfectly calibrated table has no error.
        assert_eq!(calibration_error(&[bin(0.5, 10, 0.5)]), Some(0.0));
    }
}
