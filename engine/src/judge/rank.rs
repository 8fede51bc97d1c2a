//! Step 8, rank: the candidates' rates, read through the one snapshot of the call, and their
//! ranked scores. The only step that opens the snapshot ([`open_snapshot`]).

use super::rates::SnapshotRates;
use super::{Candidates, Detected, Measured};
use crate::measure;
use crate::pipeline::Settings;
use docsuggest_schema::RateSnapshot;

/// The candidates ranked by score, and whether any of them has been seen (an outcome of a
/// note naming it): with the family's own evidence, what decides how the note is gauged.
#[inline]
pub(super) fn rank(
    settings: &Settings<'_>,
    detected: &Detected<'_>,
    candidates: &Candidates,
    rates: &SnapshotRates<'_>,
) -> Measured {
    let family = detected.call.family;
    let indices = candidates.indices(detected);
    let companions = indices.iter().map(|&i| &family.companions[i]);
    let rows = measure::rank(companions, rates, &settings.weights);
    // The rows read so far are exactly the candidates' (the ranking read each once).
    let companion_observed = rates.any_read_observed();
    Measured {
        rows,
        companion_observed,
    }
}

/// Step 8's snapshot: every rate the call reads comes through one (none when not learning).
#[inline]
pub(super) fn open_snapshot<'s>(settings: &Settings<'s>) -> Option<Box<dyn RateSnapshot + 's>> {
    if !settings.views.rates.learn {
        return None;
    }
    settings
        .store
        .snapshot()
        .map_err(|e| tracing::error!(error = %e, "snapshot failed; using neutral rates"))
        .ok()
}
