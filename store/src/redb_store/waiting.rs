//! The `group` durability path of the redb store: resolutions that wait in memory with the
//! pending records (see [`crate::deferred`]), and what this handle reads while they wait.

use super::RedbStore;
use crate::deferred::Deferred;
use crate::reader::StoreView;
use crate::record;
use docsuggest_schema::{
    Decision, HistoryEntry, RateKey, RateRow, RateSnapshot, Resolution, StoreContents, StoreError,
};
use std::collections::{BTreeMap, HashMap};

/// Moves in a resolution up to which its moved keys are found by a scan.
const SCANNED_MOVES: usize = 16;

impl RedbStore {
    /// Checks and numbers `resolution`, folds its moves into the waiting rows and queues it
    /// for the next commit. Refused whole, with nothing queued, exactly as the commit would
    /// refuse it: a malformed resolution, or a decision that is not pending (never recorded,
    /// or already closed).
    pub(super) fn defer_resolution(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        record::check_resolution(&resolution)?;
        let seq = resolution.decision_seq;
        // One read transaction, begun only when the committed file must be asked.
        let mut view: Option<StoreView> = None;
        let committed = if self.deferred.closed(seq) {
            return Err(StoreError::UnknownDecision(seq));
        } else if self.deferred.is_open_record(seq) {
            None
        } else {
            let found = self.begun(&mut view)?.pending_decision(seq)?;
            Some(found.ok_or(StoreError::UnknownDecision(seq))?)
        };
        let resolution_seq = self
            .deferred
            .next_resolution(&self.label, self.committed.resolution_seq)?;
        // The row each moved key is left with, by the index of the move that last moved it.
        // A learning resolution moves a handful of keys, found by a scan; one that moves many
        // (a bulk import) finds them by hash, or it would be quadratic.
        let many = resolution.moves.len() > SCANNED_MOVES;
        let mut rows: Vec<(usize, RateRow)> = Vec::with_capacity(resolution.moves.len());
        let mut row_of: HashMap<&RateKey, usize> = HashMap::new();
        for (i, mv) in resolution.moves.iter().enumerate() {
            let earlier = if many {
                row_of.get(&mv.key).copied()
            } else {
                rows.iter()
                    .position(|&(j, _)| resolution.moves[j].key == mv.key)
            };
            if let Some(at) = earlier {
                let (last, row) = &mut rows[at];
                *last = i;
                *row = row.apply(mv);
                continue;
            }
            let current = match self.deferred.row(&mv.key) {
                Some(row) => Some(row),
                None => self.begun(&mut view)?.row(&mv.key)?,
            };
            if many {
                row_of.insert(&mv.key, rows.len());
            }
            rows.push((i, current.unwrap_or_default().apply(mv)));
        }
        drop(row_of);
        // Nothing fails past this point: the record's decision moves into the entry.
        let committed_pending = committed.is_some();
        let decision = match committed {
            Some(decision) => decision,
            None => self
                .deferred
                .take_record(seq)
                .ok_or(StoreError::UnknownDecision(seq))?,
        };
        let entry = record::close(decision, resolution, resolution_seq);
        self.deferred
            .push_resolution(entry, committed_pending, rows);
        Ok(())
    }

    fn begun<'v>(&self, view: &'v mut Option<StoreView>) -> Result<&'v StoreView, StoreError> {
        if view.is_none() {
            *view = Some(self.view()?);
        }
        view.as_ref()
            .ok_or_else(|| StoreError::Backend(format!("{}: no snapshot", self.label)))
    }

    /// The pending decisions this handle handed out and nobody closed: the committed ones no
    /// waiting resolution closed, then the waiting records.
    pub(super) fn open_pending(&self) -> Result<Vec<Decision>, StoreError> {
        let deferred = &self.deferred;
        let mut pending: Vec<Decision> = self
            .view()?
            .pending()?
            .into_iter()
            .filter(|d| !deferred.closed(d.seq))
            .collect();
        pending.extend(deferred.decisions().cloned());
        Ok(pending)
    }

    /// The live rows with the waiting resolutions' rows over them, in key order.
    pub(super) fn live_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        let committed = self.view()?.rate_rows()?;
        if !self.deferred.has_rows() {
            return Ok(committed);
        }
        let mut rows: BTreeMap<RateKey, RateRow> = committed.into_iter().collect();
        rows.extend(self.deferred.rows().map(|(k, r)| (k.clone(), *r)));
        Ok(rows.into_iter().collect())
    }

    /// The base rows as the commit that writes the waiting entries will leave them: the
    /// committed ones unless that commit evicts, which only then needs the history read.
    pub(super) fn base_rows_after_waiting(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        let view = self.view()?;
        let waiting = self.deferred.entries().len() as u64;
        if waiting == 0 || view.ring_len()?.saturating_add(waiting) <= self.ring_capacity {
            return view.base_rows();
        }
        Ok(self.ring()?.base)
    }

    /// The base rows and the history ring as the commit that writes the waiting entries will
    /// leave them: the committed ring, then the waiting entries, the oldest past the ring's
    /// capacity folded into base (exactly what that commit's eviction does).
    pub(super) fn ring(&self) -> Result<Ring, StoreError> {
        let view = self.view()?;
        let mut base = view.base_rows()?;
        let mut history = view.history()?;
        let waiting = self.deferred.entries();
        if waiting.len() == 0 {
            return Ok(Ring { base, history });
        }
        history.extend(waiting.cloned());
        let capacity = usize::try_from(self.ring_capacity).unwrap_or(usize::MAX);
        let evicted = history.len().saturating_sub(capacity);
        if evicted > 0 {
            let mut rows: BTreeMap<RateKey, RateRow> = base.into_iter().collect();
            for entry in history.drain(..evicted) {
                for mv in &entry.moves {
                    let row = rows.entry(mv.key.clone()).or_default();
                    *row = row.apply(mv);
                }
            }
            base = rows.into_iter().collect();
        }
        Ok(Ring { base, history })
    }
}

/// Base rows and history, in key and resolution order.
pub(super) struct Ring {
    pub(super) base: Vec<(RateKey, RateRow)>,
    pub(super) history: Vec<HistoryEntry>,
}

/// A judge call's snapshot while resolutions wait: their rows first, the commit's otherwise.
pub(super) struct WaitingSnapshot<'s> {
    pub(super) view: StoreView,
    pub(super) deferred: &'s Deferred,
}

impl RateSnapshot for WaitingSnapshot<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        match self.deferred.row(key) {
            Some(row) => Ok(Some(row)),
            None => self.view.row(key),
        }
    }
}
