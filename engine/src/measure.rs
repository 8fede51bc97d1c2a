//! Measure, rank and gate: six values per companion, a weighted score, and kappa.

use crate::compiled::CompiledCompanion;
use docsuggest_schema::{CompanionRow, Heuristic, Table};

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

/// `sigmoid(Σ score − 0.6)` over the companions a note names.
pub fn kappa(rows: &[CompanionRow]) -> f64 {
    let sum: f64 = rows.iter().map(|r| r.score).sum();
    1.0 / (1.0 + (-(sum - 0.6)).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::rate::NEUTRAL;

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
        CompiledCompanion {
            path: path.into(),
            prior,
            form: crate::compiled::CompanionForm::Literal,
            matcher: globset::Glob::new(path).expect("glob").compile_matcher(),
        }
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

    #[test]
    fn disabled_heuristics_weigh_nothing() {
        let weights = Table::DEFAULT_WEIGHTS.effective(&[Heuristic::Scope, Heuristic::Prior]);
        let rows = rank([&companion("a", 0.5)], &Neutral, &weights);
        assert!((rows[0].score - (0.35 + 0.125)).abs() < 1e-12);
    }
}
