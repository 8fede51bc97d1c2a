//! Measure, rank and gate: six values per companion, a weighted score, and kappa.

use crate::compiled::CompiledCompanion;
use docsuggest_schema::rate::{FORGET, NEUTRAL};
use docsuggest_schema::{CompanionRow, Heuristic, RateRow, Table};

/// The learned rates a measurement reads: the family's and each companion's.
pub trait Rates {
    /// The family row's rate (`accept`).
    fn family(&self) -> f64;
    /// A companion row's rate (`history`).
    fn companion(&self, path: &str) -> f64;
}

/// The six values of one companion: scope, graph, prior, literal, history, accept.
pub fn values(companion: &CompiledCompanion, rates: &dyn Rates) -> Table {
    let mut t = Table([0.0; 6]);
    t.set(Heuristic::Scope, 1.0);
    t.set(Heuristic::Graph, 0.5);
    t.set(Heuristic::Prior, companion.prior);
    t.set(Heuristic::Literal, 0.5);
    t.set(Heuristic::History, rates.companion(&companion.path));
    t.set(Heuristic::Accept, rates.family());
    t
}

/// Measures companions and ranks them by score, highest first; ties keep pack order.
pub fn rank<'a>(
    companions: impl IntoIterator<Item = &'a CompiledCompanion>,
    rates: &dyn Rates,
    weights: &Table,
) -> Vec<CompanionRow> {
    let mut rows: Vec<CompanionRow> = companions
        .into_iter()
        .map(|c| {
            let values = values(c, rates);
            CompanionRow {
                path: c.path.clone(),
                score: weights.dot(&values),
                values,
            }
        })
        .collect();
    // A stable sort keeps pack order among equal scores.
    rows.sort_by(|a, b| b.score.total_cmp(&a.score));
    rows
}

/// The evidence model's weighing: each companion's score is scaled by
/// `(rate / (1/3))^exponent`, its learned rate being its `history` value, then the rows are
/// ranked again (ties keep their order). With no evidence every rate is 1/3 and nothing
/// changes, so a fresh store ranks and gates exactly as the PoC.
pub fn weigh_evidence(rows: &mut [CompanionRow], exponent: f64) {
    for row in rows.iter_mut() {
        let rate = row.values.get(Heuristic::History);
        row.score *= (rate / NEUTRAL).powf(exponent);
    }
    rows.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// Splits ranked rows into those the note may name and those left out for being followed
/// less often than `below` (their `history` rate).
pub fn prune(rows: Vec<CompanionRow>, below: f64) -> (Vec<CompanionRow>, Vec<CompanionRow>) {
    rows.into_iter()
        .partition(|r| r.values.get(Heuristic::History) >= below)
}

/// `sigmoid(Σ score − 0.6)` over the companions a note names.
pub fn kappa(rows: &[CompanionRow]) -> f64 {
    let sum: f64 = rows.iter().map(|r| r.score).sum();
    1.0 / (1.0 + (-(sum - 0.6)).exp())
}

/// How many observations the pack's own confidence in a note (the PoC's kappa) is worth in
/// the family's estimate, before the family's own evidence ages it.
pub const PACK_PRIOR: f64 = 3.0;

/// How often the family's notes are followed: the family's rate (Beta(1, 2) over its recent
/// hits and misses) with the pack's confidence `pack_kappa` added as [`PACK_PRIOR`]
/// observations that age as the oldest of the row's (`FORGET` per observation since). One
/// followed note after the PoC's then does not make the family look doubtful (the rate alone
/// is 0.5 after one hit); thirty observations on, the pack's word weighs about one, and the
/// estimate is the family's rate.
pub fn family_follow(row: &RateRow, pack_kappa: f64) -> f64 {
    let aged = i32::try_from(row.observations()).unwrap_or(i32::MAX);
    let prior = PACK_PRIOR * FORGET.powi(aged);
    (1.0 + prior * pack_kappa + row.recent_hits)
        / (3.0 + prior + row.recent_hits + row.recent_misses)
}

/// How often a family must have spoken, as a share of the windows that watched its most
/// watched companion (notes and silences alike), before its notes are held to the full
/// `followThreshold`: one that spoke on fewer is going silent.
pub const GOING_SILENT: f64 = 0.5;

/// The bar on the follow probability of a note the pack's own gate would make:
/// `follow_threshold`, or the family's own follow rate where that is lower while the family is
/// going silent — its notes (`spoken`, its row's observations) fewer than [`GOING_SILENT`] of
/// the windows that watched its most watched companion (`watched`). A family whose notes are
/// followed 40–55 % of the time then speaks whenever a note is no less likely followed than
/// its notes usually are, until it speaks on half its calls again, instead of falling silent
/// for good; one that speaks on most calls keeps the full bar, so its nag does not grow; and
/// one followed less often than a companion is kept in a note (`prune_below`) is not woken.
pub fn prompted_bar(
    follow_threshold: f64,
    family_followed: f64,
    spoken: u64,
    watched: u64,
    prune_below: f64,
) -> f64 {
    // Counts to f64: exact far beyond any store's row.
    let going_silent = watched > 0 && (spoken as f64) < GOING_SILENT * watched as f64;
    if going_silent && family_followed >= prune_below {
        follow_threshold.min(family_followed)
    } else {
        follow_threshold
    }
}

/// The pack's own confidence in a note over `rows`: the PoC's kappa with every rate neutral
/// (what the engine would show on a fresh store), over the `max` companions the PoC would
/// rank first.
pub fn pack_kappa(rows: &[CompanionRow], weights: &Table, max: usize) -> f64 {
    let mut scores: Vec<f64> = rows
        .iter()
        .map(|r| {
            let mut values = r.values;
            values.set(Heuristic::History, NEUTRAL);
            values.set(Heuristic::Accept, NEUTRAL);
            weights.dot(&values)
        })
        .collect();
    scores.sort_by(|a, b| b.total_cmp(a));
    let sum: f64 = scores.iter().take(max).sum();
    1.0 / (1.0 + (-(sum - 0.6)).exp())
}

/// The probability that a note naming `rows` is followed (at least one of them touched in its
/// window), from each companion's learned rate (its `history` value) and `family`, how often
/// the family's notes were followed ([`family_follow`]; the family row counts notes only).
///
/// Companions of one task are touched together more often than not, so the chance that any
/// is followed lies between the best one's rate (all touched together) and the chance that
/// not all are missed were they independent. The family's own note outcomes bound the
/// independent chance from above: its notes were followed that often, whatever they named.
/// Hence `max(best, min(independent, family))`; no companion, no chance.
pub fn follow_probability(rows: &[CompanionRow], family: f64) -> f64 {
    let mut best: f64 = 0.0;
    let mut all_missed = 1.0;
    for row in rows {
        let rate = row.values.get(Heuristic::History);
        best = best.max(rate);
        all_missed *= 1.0 - rate;
    }
    best.max((1.0 - all_missed).min(family))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Neutral;
    impl Rates for Neutral {
        fn family(&self) -> f64 {
            NEUTRAL
        }
        fn companion(&self, _: &str) -> f64 {
            NEUTRAL
        }
    }

    fn companion(path: &str, prior: f64) -> CompiledCompanion {
        CompiledCompanion::new(path, prior, &globset::Glob::new(path).expect("glob"))
    }

    #[test]
    fn poc_golden_score_and_table() {
        let rows = rank([&companion("a", 1.0)], &Neutral, &Table::DEFAULT_WEIGHTS);
        assert!((rows[0].score - 0.775).abs() < 1e-12, "{}", rows[0].score);
        assert_eq!(
            rows[0].values.to_string(),
            "scope=1.00,graph=0.50,prior=1.00,literal=0.50,history=0.33,accept=0.33"
        );
        assert!((kappa(&rows) - 1.0 / (1.0 + (-0.175f64).exp())).abs() < 1e-15);
    }

    #[test]
    fn ranks_by_score_then_pack_order() {
        let cs = [
            companion("low", 0.2),
            companion("tie1", 0.8),
            companion("tie2", 0.8),
        ];
        let rows = rank(&cs, &Neutral, &Table::DEFAULT_WEIGHTS);
        let order: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(order, ["tie1", "tie2", "low"]);
    }

    struct Learned;
    impl Rates for Learned {
        fn family(&self) -> f64 {
            NEUTRAL
        }
        fn companion(&self, path: &str) -> f64 {
            match path {
                "followed" => 0.8,
                "ignored" => 0.05,
                _ => NEUTRAL,
            }
        }
    }

    #[test]
    fn evidence_reranks_scales_and_prunes() {
        let cs = [
            companion("ignored", 1.0),
            companion("neutral", 1.0),
            companion("followed", 0.5),
        ];
        let mut rows = rank(&cs, &Learned, &Table::DEFAULT_WEIGHTS);
        let score_of = |rows: &[CompanionRow], path: &str| {
            rows.iter().find(|r| r.path == path).map(|r| r.score)
        };
        let neutral_score = score_of(&rows, "neutral");
        weigh_evidence(&mut rows, 1.5);
        let order: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(order, ["followed", "neutral", "ignored"]);
        // A neutral rate leaves the PoC score as it was.
        assert_eq!(score_of(&rows, "neutral"), neutral_score);
        let (kept, left) = prune(rows, 0.25);
        assert_eq!(kept.len(), 2);
        assert_eq!(left[0].path, "ignored");
        // One followed companion alone can carry the gate that three neutral ones need.
        assert!(kappa(&kept[..1]) > 0.75, "{}", kappa(&kept[..1]));
    }

    #[test]
    fn no_evidence_changes_nothing() {
        let cs = [companion("a", 1.0), companion("b", 0.5)];
        let plain = rank(&cs, &Neutral, &Table::DEFAULT_WEIGHTS);
        let mut weighed = plain.clone();
        weigh_evidence(&mut weighed, 1.5);
        assert_eq!(plain, weighed);
        assert_eq!(kappa(&plain).to_bits(), kappa(&weighed).to_bits());
    }

    #[test]
    fn disabled_heuristics_weigh_nothing() {
        let weights = Table::DEFAULT_WEIGHTS.effective(&[Heuristic::Scope, Heuristic::Prior]);
        let rows = rank([&companion("a", 0.5)], &Neutral, &weights);
        assert!((rows[0].score - (0.35 + 0.125)).abs() < 1e-12);
    }

    #[test]
    fn a_family_going_silent_is_held_to_its_own_follow_rate() {
        // Spoke on 10 of the 30 windows its companion was watched in: going silent.
        assert_eq!(prompted_bar(0.55, 0.42, 10, 30, 0.15), 0.42);
        // Its own rate above the bar: the bar.
        assert_eq!(prompted_bar(0.55, 0.7, 10, 30, 0.15), 0.55);
        // Spoke on half or more: the full bar, whatever its rate.
        assert_eq!(prompted_bar(0.55, 0.42, 15, 30, 0.15), 0.55);
        // Nothing watched yet: the full bar.
        assert_eq!(prompted_bar(0.55, 0.42, 0, 0, 0.15), 0.55);
        // Followed less often than a companion is kept: never woken.
        assert_eq!(prompted_bar(0.55, 0.1, 10, 30, 0.15), 0.55);
    }
}
