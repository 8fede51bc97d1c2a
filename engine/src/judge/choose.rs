//! Step 9, choose: what the note may name and what its window only watches.

use super::lines;
use super::rates::SnapshotRates;
use super::views::ChooseView;
use super::wording::Wording;
use super::{Chosen, End};
use crate::call_ledger::Ledger;
use crate::decision::JudgedCall;
use crate::line_format::Abstain;
use crate::measure;
use crate::note::{self, Gauge};
use crate::plain_note;
use docsuggest_schema::{CompanionRow, Heuristic, RateRow};

/// Step 9, choose: what the note may name and what its window only watches — under the
/// evidence model the rows weighed by their rates and the rarely followed left out — cut to
/// `maxCompanions` and to what fits the note; the abstention when not even one companion
/// line fits.
#[inline]
pub(super) fn choose(
    call: &JudgedCall<'_>,
    mut rows: Vec<CompanionRow>,
    gauge: Gauge,
    wording: Option<&Wording>,
    claims: Option<&SnapshotRates<'_>>,
    view: ChooseView,
    ledger: &mut Ledger,
) -> Result<Chosen, End> {
    let name = call.family.name.as_str();
    let mut watched = Vec::new();
    let mut left_out = 0;
    if view.evidence {
        measure::weigh_evidence(&mut rows, view.evidence_exponent);
        let (kept, left) = match claims {
            None => measure::prune(rows, view.prune_below),
            Some(rates) => boundary_claims(rows, rates, view),
        };
        if !left.is_empty() {
            let names: Vec<&str> = left.iter().map(|r| call.shown(&r.path)).collect();
            lines::left_out(ledger, name, &names);
            left_out = names.len();
        }
        rows = kept;
        watched = left;
    }
    if rows.len() > view.max_companions {
        watched.extend(rows.drain(view.max_companions..));
    }
    let fit = match wording {
        Some(wording) => plain_note::fitting(
            &wording.what,
            gauge,
            &wording.lines(&rows),
            view.max_note_chars,
        ),
        None => {
            let paths: Vec<&str> = rows.iter().map(|r| call.shown(&r.path)).collect();
            note::fitting(name, gauge, &paths, view.max_note_chars)
        }
    };
    if fit == 0 && !rows.is_empty() {
        lines::abstained(ledger, Abstain::NoCompanions, Some(name), 0.0);
        return Err(End::Abstained);
    }
    if view.evidence {
        watched.extend(rows.drain(fit..));
    } else {
        rows.truncate(fit);
    }
    Ok(Chosen {
        rows,
        watched,
        left_out,
    })
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
    view: ChooseView,
) -> (Vec<CompanionRow>, Vec<CompanionRow>) {
    rows.into_iter().partition(|r| {
        let rate = r.values.get(Heuristic::History);
        let claim = rates
            .boundary_row(&r.path)
            .filter(RateRow::outweighs_prior)
            .or_else(|| rates.row(&r.path).filter(RateRow::outweighs_prior));
        let declined = claim.is_some_and(|row| row.rate(view.rate_model) < view.follow_threshold);
        rate >= view.prune_below && !declined
    })
}
