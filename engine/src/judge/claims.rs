//! Step 13 at a change boundary, the claims: each companion a boundary's note names is a
//! claim that the change lacks it, and the Stop reminder holds the agent up only on a claim
//! whose evidence — what is known of this one companion — clears `blockBar`.

use super::rates::SnapshotRates;
use super::views::ClaimView;
use crate::compiled::CompiledFamily;
use docsuggest_schema::{CompanionRow, RateRow};

/// One companion's claim at a change boundary: it is missing.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Claim {
    /// How often this companion was really missing when such a claim was made: its boundary
    /// rate once boundaries have seen it more than the prior; else how often the newer part
    /// of the history followed it (the pack's `validated`); else its rate on edits once seen
    /// more than the prior. `None`: nothing is known of it yet.
    pub evidence: Option<f64>,
    /// Whether the claim may hold the agent up: its evidence (nothing known counts as 0)
    /// clears `blockBar` and the repository's boundary may block (the pack's
    /// `boundary.mayBlock`). `blockBar: 0` blocks on every claim, as before claims had
    /// evidence.
    pub blocks: bool,
}

/// The claims of the companions `rows` (the note's, in its order) of `family`.
pub(super) fn claims(
    family: &CompiledFamily,
    rows: &[CompanionRow],
    rates: &SnapshotRates<'_>,
    view: ClaimView,
    may_block: bool,
) -> Vec<Claim> {
    rows.iter()
        .map(|row| {
            let learned = |row: Option<RateRow>| {
                row.filter(RateRow::outweighs_prior)
                    .map(|r| r.rate(view.rate_model))
            };
            let validated = || {
                (family.companions.iter())
                    .find(|c| c.path == row.path)
                    .and_then(|c| c.validated_rate)
            };
            let evidence = learned(rates.boundary_row(&row.path))
                .or_else(validated)
                .or_else(|| learned(rates.row(&row.path)));
            Claim {
                evidence,
                blocks: may_block && evidence.unwrap_or(0.0) >= view.block_bar,
            }
        })
        .collect()
}
