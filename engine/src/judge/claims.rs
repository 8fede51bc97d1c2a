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
    /// How often such a claim on this companion is right: its boundary rate once boundaries
    /// have seen it more than the prior; else what follows from how often the newer part of
    /// the history followed it (the pack's `validated`), else from its rate on edits once
    /// seen more than the prior ([`claim_precision`]). `None`: nothing is known of it yet.
    pub evidence: Option<f64>,
    /// Whether the claim may hold the agent up: with the note's stronger claims, its
    /// evidence (nothing known counts as 0) still clears `blockBar` jointly, and the
    /// repository's boundary may block (the pack's `boundary.mayBlock`). `blockBar: 0`
    /// blocks on every claim, as before claims had evidence.
    pub blocks: bool,
}

/// The share of the companions its task needs that an unfinished change lacks, as the
/// boundary's measurement cuts a change short (a seeded half of them). It turns how often a
/// companion is followed when its family changes into how often a claim that it is missing
/// is right, until the boundary's own row says that directly.
const LEFT_OUT_SHARE: f64 = 0.5;

/// How often a claim is right, for a companion followed at rate `needed`: the changes that
/// need it and lack it, among all that lack it (Bayes, with [`LEFT_OUT_SHARE`]).
fn claim_precision(needed: f64) -> f64 {
    let lacking_needed = needed * LEFT_OUT_SHARE;
    let lacking = lacking_needed + (1.0 - needed);
    if lacking > 0.0 {
        lacking_needed / lacking
    } else {
        0.0
    }
}

/// The claims of the companions `rows` (the note's, in its order) of `family`. A reminder is
/// right only when every claim it blocks on is: claims block, strongest first, while the
/// product of their evidence clears `blockBar`.
pub(super) fn claims(
    family: &CompiledFamily,
    rows: &[CompanionRow],
    rates: &SnapshotRates<'_>,
    view: ClaimView,
    may_block: bool,
) -> Vec<Claim> {
    let mut claims: Vec<Claim> = rows
        .iter()
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
            let evidence = learned(rates.boundary_row(&row.path)).or_else(|| {
                validated()
                    .or_else(|| learned(rates.row(&row.path)))
                    .map(claim_precision)
            });
            Claim {
                evidence,
                blocks: false,
            }
        })
        .collect();
    if may_block {
        let mut order: Vec<usize> = (0..claims.len()).collect();
        let strength = |c: &Claim| c.evidence.unwrap_or(0.0);
        order.sort_by(|&a, &b| strength(&claims[b]).total_cmp(&strength(&claims[a])));
        let mut joint = 1.0;
        for at in order {
            let evidence = strength(&claims[at]);
            if joint * evidence < view.block_bar {
                break;
            }
            joint *= evidence;
            claims[at].blocks = true;
        }
    }
    claims
}

#[cfg(test)]
mod tests {
    use super::claim_precision;

    #[test]
    fn a_claim_is_right_less_often_than_its_companion_is_followed() {
        assert_eq!(claim_precision(1.0), 1.0);
        assert_eq!(claim_precision(0.0), 0.0);
        // Followed 9 times in 10: of the changes lacking it, 0.45 need it and 0.1 do not.
        assert!((claim_precision(0.9) - 0.45 / 0.55).abs() < 1e-12);
        assert!(claim_precision(0.8) < 0.7 && claim_precision(0.83) > 0.7);
    }
}
