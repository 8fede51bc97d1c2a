//! Step 8's rates: one family's learned rates, read through one store snapshot per call.

use super::views::RatesView;
use crate::measure::Rates;
use docsuggest_schema::rate::{BOUNDARY_MARK, NEUTRAL};
use docsuggest_schema::{RateKey, RateRow, RateSnapshot};

/// The learned rates of one family, read through one snapshot (neutral when not learning).
pub(super) struct SnapshotRates<'a> {
    snapshot: Option<&'a dyn RateSnapshot>,
    view: RatesView,
    /// The family's key, reused for each companion's (one allocation per call, not per read).
    key: std::cell::RefCell<RateKey>,
    /// The family's row, read once: every companion's `accept` value is the same row.
    family: std::cell::OnceCell<Option<RateRow>>,
    /// The companion rows read so far: a plain note's wording reads them again.
    rows: std::cell::RefCell<Vec<(String, Option<RateRow>)>>,
}

impl<'a> SnapshotRates<'a> {
    /// Rates read through `snapshot` under the family's `key` (a companion's key is the
    /// family's with the companion filled in).
    pub(super) fn new(
        snapshot: Option<&'a dyn RateSnapshot>,
        view: RatesView,
        key: RateKey,
    ) -> Self {
        SnapshotRates {
            snapshot,
            view,
            key: std::cell::RefCell::new(key),
            family: std::cell::OnceCell::new(),
            rows: std::cell::RefCell::new(Vec::new()),
        }
    }

    pub(super) fn row(&self, companion: &str) -> Option<RateRow> {
        // Not learning: nothing to read, nothing to keep.
        self.snapshot.filter(|_| self.view.learn)?;
        if let Some((_, row)) = self.rows.borrow().iter().find(|(c, _)| c == companion) {
            return *row;
        }
        let row = self.read_row(companion);
        if !companion.is_empty() {
            self.rows.borrow_mut().push((companion.to_string(), row));
        }
        row
    }

    /// The boundary row of `companion` ([`RateKey::at_boundary`]): what change boundaries saw
    /// of it.
    pub(super) fn boundary_row(&self, companion: &str) -> Option<RateRow> {
        self.row(&format!("{companion}{BOUNDARY_MARK}"))
    }

    fn read_row(&self, companion: &str) -> Option<RateRow> {
        let snapshot = self.snapshot.filter(|_| self.view.learn)?;
        let mut key = self.key.borrow_mut();
        key.companion.clear();
        key.companion.push_str(companion);
        snapshot
            .row(&key)
            .map_err(|e| tracing::error!(error = %e, "rate read failed; using the neutral rate"))
            .ok()
            .flatten()
    }

    fn read(&self, companion: &str) -> f64 {
        self.row(companion)
            .map_or(NEUTRAL, |row| row.rate(self.view.rate_model))
    }

    /// Whether a companion row read so far holds an observation (one pass over the rows
    /// kept, no lookups).
    pub(super) fn any_read_observed(&self) -> bool {
        self.rows
            .borrow()
            .iter()
            .any(|(_, row)| row.is_some_and(|row| row.observations() > 0))
    }

    pub(super) fn family_row(&self) -> Option<RateRow> {
        *self.family.get_or_init(|| self.row(""))
    }
}

impl Rates for SnapshotRates<'_> {
    fn family(&self) -> f64 {
        self.family_row()
            .map_or(NEUTRAL, |row| row.rate(self.view.rate_model))
    }
    fn companion(&self, path: &str) -> f64 {
        self.read(path)
    }
}
