//! `init`'s estimate of the learning engine's companion precision on new commits: pooled
//! over several out-of-sample splits of the history, each a pack mined from the commits
//! before its split and scored on those after it.

use crate::backtest::Report;

/// The splits pooled with the report backtest's own ([`super::REPORT_TRAIN_FRACTION`]): later
/// ones, whose packs are mined from more of the history, as the written pack is. One split
/// alone is noisy — which commits fall after it moves the figure by more than 0.1 on a
/// third of the development set — and pooling several steadies it.
pub const ESTIMATE_SPLITS: [f64; 2] = [0.85, 0.9];

/// The learning engine's companion precision, out-of-sample (each pack it scores was mined
/// from the commits before the ones scored), pooled over the splits, with a 95 % Wilson
/// interval over the companions named.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// Companions named that the commit then changed, over companions named.
    pub companion_precision: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// Companions named, over the splits.
    pub named: u64,
    /// The last commit the report backtest's pack was mined from.
    pub mined_to: String,
    /// Commits the report backtest scored.
    pub scored_commits: usize,
    /// The share of the history each pooled split mined its pack from.
    pub splits: Vec<f64>,
}

impl Estimate {
    /// The estimate pooled over `backtests`, each with the share of the history its pack was
    /// mined from, the report backtest first; `None` when none named a companion.
    pub fn pooled(backtests: &[(f64, &Report)]) -> Option<Estimate> {
        let (_, report) = backtests.first()?;
        let mut hits = 0.0;
        let mut named = 0u64;
        let mut splits = Vec::new();
        for (split, r) in backtests {
            let Some(run) = r.runs.iter().find(|run| run.name == "learning") else {
                continue;
            };
            if let Some(p) = run.figures.companion_precision {
                hits += p * run.figures.companions_named as f64;
                named += run.figures.companions_named;
                splits.push(*split);
            }
        }
        if named == 0 {
            return None;
        }
        let p = hits / named as f64;
        let (low, high) = wilson(p, named as f64);
        Some(Estimate {
            companion_precision: p,
            low,
            high,
            named,
            mined_to: report.mined_from.as_ref()?.last_commit.clone(),
            scored_commits: report.scored_commits,
            splits,
        })
    }
}

/// The 95 % Wilson score interval of a share `p` of `n` trials (the whole range when `n` is
/// not positive).
pub fn wilson(p: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    // Rounding may leave `p` a hair outside its own interval at 0 or 1.
    ((centre - half).clamp(0.0, p), (centre + half).clamp(p, 1.0))
}
