//! Writes that wait in memory for the next commit (`group` durability only): pending records
//! and resolutions.
//!
//! In `group` mode a commit is made without fsync, and redb keeps a non-durable commit's
//! header in memory only: until the next durable commit, a process kill loses it exactly as a
//! power cut does. A write held here and made by the next commit therefore survives exactly
//! what its own non-durable commit would have, and costs no commit. The next commit is the
//! one an fsync falls due at, a flush, close, any other write, or the [`BOUND`].
//!
//! The queue numbers what it holds itself, continuing after every number handed out so far:
//! records by decision number, resolutions by resolution number. The transaction that writes
//! them checks that the file's counters hand out exactly those numbers, so a disagreement is
//! an error, never a wrongly numbered entry. Each waiting resolution carries the live rows it
//! leaves (folded with the same `RateRow::apply` the commit uses, in the same order), so a
//! snapshot reads what the commit will write. The queue is emptied only after that
//! transaction commits: a failed one leaves everything waiting, to be written once by a later
//! commit.

use crate::ops::Tx;
use crate::tables::{self, meta};
use docsuggest_schema::{Decision, HistoryEntry, RateKey, RateRow, StoreError};
use std::collections::{HashMap, HashSet};

/// How many writes may wait; one more first writes them all in one commit.
pub(crate) const BOUND: usize = 1024;

/// A numbered record and its stored bytes, encoded when it was handed out so an encoding
/// failure is reported by the call that recorded it. `resolved` once a waiting resolution
/// closed it: the commit then only takes its number, it never reaches `pending`.
#[derive(Debug)]
struct Waiting {
    decision: Decision,
    bytes: Vec<u8>,
    resolved: bool,
}

/// A numbered resolution: its history entry, and whether its decision is in the committed
/// `pending` table (otherwise it is a waiting record).
#[derive(Debug)]
pub(crate) struct WaitingEntry {
    pub(crate) entry: HistoryEntry,
    pub(crate) committed_pending: bool,
}

/// What waits for the next commit.
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    /// Records in decision order.
    records: Vec<Waiting>,
    /// Resolutions in resolution order.
    resolutions: Vec<WaitingEntry>,
    /// Committed pending decisions that a waiting resolution closed.
    closed: HashSet<u64>,
    /// The live row of every key a waiting resolution moved, after all of them.
    rows: HashMap<RateKey, RateRow>,
}

impl Deferred {
    /// How many writes wait.
    pub(crate) fn len(&self) -> usize {
        self.records.len() + self.resolutions.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.records.is_empty() && self.resolutions.is_empty()
    }

    /// Whether one more write needs a commit first.
    pub(crate) fn is_full(&self) -> bool {
        self.len() >= BOUND
    }

    /// The last decision number handed out, given the last committed one.
    pub(crate) fn last_seq(&self, committed: u64) -> u64 {
        self.records
            .last()
            .map_or(committed, |w| w.decision.seq.max(committed))
    }

    /// The last resolution number handed out, given the last committed one.
    pub(crate) fn last_resolution(&self, committed: u64) -> u64 {
        self.resolutions
            .last()
            .map_or(committed, |w| w.entry.resolution_seq.max(committed))
    }

    /// Numbers `decision` after every number handed out so far (`committed`, then the waiting
    /// records), encodes it as `Tx::record_pending` would, and queues it; answers its number.
    pub(crate) fn push(
        &mut self,
        path: &str,
        committed: u64,
        mut decision: Decision,
    ) -> Result<u64, StoreError> {
        let seq = next(path, self.last_seq(committed), meta::NEXT_DECISION_SEQ)?;
        decision.seq = seq;
        let bytes = tables::encode_decision(&decision)?;
        self.records.push(Waiting {
            decision,
            bytes,
            resolved: false,
        });
        Ok(seq)
    }

    fn record(&self, seq: u64) -> Option<&Waiting> {
        let i = self
            .records
            .binary_search_by_key(&seq, |w| w.decision.seq)
            .ok()?;
        self.records.get(i)
    }

    /// The waiting record numbered `seq`, unless a waiting resolution closed it.
    pub(crate) fn open_record(&self, seq: u64) -> Option<&Decision> {
        self.record(seq)
            .filter(|w| !w.resolved)
            .map(|w| &w.decision)
    }

    /// Whether a waiting resolution closed decision `seq` (a waiting record or a committed one).
    pub(crate) fn closed(&self, seq: u64) -> bool {
        self.closed.contains(&seq) || self.record(seq).is_some_and(|w| w.resolved)
    }

    /// The live row of `key` as the waiting resolutions leave it, if one of them moved it.
    pub(crate) fn row(&self, key: &RateKey) -> Option<RateRow> {
        self.rows.get(key).copied()
    }

    /// Whether a waiting resolution moved any row.
    pub(crate) fn has_rows(&self) -> bool {
        !self.rows.is_empty()
    }

    /// The next resolution number, given the last committed one.
    pub(crate) fn next_resolution(&self, path: &str, committed: u64) -> Result<u64, StoreError> {
        next(
            path,
            self.last_resolution(committed),
            meta::NEXT_RESOLUTION_SEQ,
        )
    }

    /// Queues a resolution numbered by [`Deferred::next_resolution`], with the rows its moves
    /// leave. Its decision is a waiting record, or a committed one when `committed_pending`.
    pub(crate) fn push_resolution(
        &mut self,
        entry: HistoryEntry,
        committed_pending: bool,
        rows: Vec<(RateKey, RateRow)>,
    ) {
        let seq = entry.decision.seq;
        if committed_pending {
            self.closed.insert(seq);
        } else if let Ok(i) = self.records.binary_search_by_key(&seq, |w| w.decision.seq) {
            self.records[i].resolved = true;
        }
        self.rows.extend(rows);
        self.resolutions.push(WaitingEntry {
            entry,
            committed_pending,
        });
    }

    /// Writes everything waiting into `tx`: the records, oldest first, then the resolutions in
    /// resolution order (a record and the resolution closing it may both wait; the rows and
    /// the history come out as if each had been committed on its own). Everything stays
    /// queued until [`Deferred::clear`] is called after the commit.
    pub(crate) fn write_into(&self, tx: &mut Tx<'_>) -> Result<(), StoreError> {
        for w in &self.records {
            let bytes = (!w.resolved).then_some(w.bytes.as_slice());
            tx.record_numbered_pending(w.decision.seq, bytes)?;
        }
        for w in &self.resolutions {
            tx.resolve_numbered(&w.entry, w.committed_pending)?;
        }
        Ok(())
    }

    /// Forgets everything: it is committed.
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.resolutions.clear();
        self.closed.clear();
        self.rows.clear();
    }

    /// The waiting records no waiting resolution closed, oldest first.
    pub(crate) fn decisions(&self) -> impl Iterator<Item = &Decision> {
        self.records
            .iter()
            .filter(|w| !w.resolved)
            .map(|w| &w.decision)
    }

    /// The waiting history entries, in resolution order.
    pub(crate) fn entries(&self) -> impl ExactSizeIterator<Item = &HistoryEntry> + Clone {
        self.resolutions.iter().map(|w| &w.entry)
    }

    /// Every row a waiting resolution moved, as it leaves it.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (&RateKey, &RateRow)> {
        self.rows.iter()
    }
}

/// The number after `last` of the counter `key`.
fn next(path: &str, last: u64, key: &str) -> Result<u64, StoreError> {
    last.checked_add(1).ok_or_else(|| StoreError::Corrupt {
        path: path.to_string(),
        detail: format!("meta {key} is at its maximum"),
    })
}

#[cfg(test)]
mod tests;
