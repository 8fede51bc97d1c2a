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

use crate::handover::Write;
use crate::tables::{self, meta};
use crate::tx::Tx;
use docsuggest_schema::{
    Decision, HistoryEntry, Outcome, RateKey, RateRow, Resolution, StoreError,
};
use std::collections::{HashMap, HashSet};

/// How many writes may wait; one more first writes them all in one commit.
pub(crate) const BOUND: usize = 1024;

/// A numbered record; its decision moves to the waiting resolution that closes it (the
/// commit then only takes its number, it never reaches `pending`). It is encoded by the
/// commit: an encoding failure fails that commit and leaves everything waiting, as any
/// failed write does.
#[derive(Debug)]
struct Waiting {
    seq: u64,
    decision: Option<Decision>,
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
    /// The live row of every key a waiting resolution moved, after all of them (read by
    /// every snapshot while they wait: hashed with foldhash, not SipHash).
    rows: HashMap<RateKey, RateRow, foldhash::fast::RandomState>,
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
            .map_or(committed, |w| w.seq.max(committed))
    }

    /// The last resolution number handed out, given the last committed one.
    pub(crate) fn last_resolution(&self, committed: u64) -> u64 {
        self.resolutions
            .last()
            .map_or(committed, |w| w.entry.resolution_seq.max(committed))
    }

    /// Numbers `decision` after every number handed out so far (`committed`, then the waiting
    /// records) and queues it; answers its number.
    pub(crate) fn push(
        &mut self,
        path: &str,
        committed: u64,
        mut decision: Decision,
    ) -> Result<u64, StoreError> {
        let seq = next(path, self.last_seq(committed), meta::NEXT_DECISION_SEQ)?;
        decision.seq = seq;
        self.records.push(Waiting {
            seq,
            decision: Some(decision),
        });
        Ok(seq)
    }

    fn index(&self, seq: u64) -> Option<usize> {
        self.records.binary_search_by_key(&seq, |w| w.seq).ok()
    }

    /// Whether the waiting record numbered `seq` is open (no waiting resolution closed it).
    pub(crate) fn is_open_record(&self, seq: u64) -> bool {
        self.index(seq)
            .is_some_and(|i| self.records[i].decision.is_some())
    }

    /// Whether a waiting resolution closed decision `seq` (a waiting record or a committed one).
    pub(crate) fn closed(&self, seq: u64) -> bool {
        self.closed.contains(&seq)
            || self
                .index(seq)
                .is_some_and(|i| self.records[i].decision.is_none())
    }

    /// Takes the decision of the open waiting record `seq` for the resolution closing it.
    pub(crate) fn take_record(&mut self, seq: u64) -> Option<Decision> {
        let i = self.index(seq)?;
        self.records[i].decision.take()
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
    /// leave. Its decision was taken from a waiting record, or is a committed one when
    /// `committed_pending`.
    /// `rows` holds, for each key moved, the index of its last move and the row it leaves.
    pub(crate) fn push_resolution(
        &mut self,
        entry: HistoryEntry,
        committed_pending: bool,
        rows: Vec<(usize, RateRow)>,
    ) {
        if committed_pending {
            self.closed.insert(entry.decision.seq);
        }
        for (i, row) in rows {
            let Some(mv) = entry.moves.get(i) else {
                continue;
            };
            // A key already waiting keeps its allocation.
            match self.rows.get_mut(&mv.key) {
                Some(slot) => *slot = row,
                None => {
                    self.rows.insert(mv.key.clone(), row);
                }
            }
        }
        self.resolutions.push(WaitingEntry {
            entry,
            committed_pending,
        });
    }

    /// Writes everything waiting into `tx`, with the tables left exactly as committing each
    /// write on its own would leave them: the counters take the waiting numbers (which must be
    /// the next ones they hand out) once; the records no waiting resolution closed go to
    /// `pending`; the committed decisions that one closed leave it; the entries are appended
    /// in resolution order; every moved key gets its final row once (the rows were folded
    /// from the committed ones, which nothing else writes while they wait). Everything stays
    /// queued until [`Deferred::clear`] is called after the commit.
    pub(crate) fn write_into(&self, tx: &mut Tx<'_>) -> Result<(), StoreError> {
        if let Some(first) = self.records.first() {
            tx.take_numbers(
                meta::NEXT_DECISION_SEQ,
                "decision",
                first.seq,
                self.records.len(),
            )?;
        }
        if let Some(first) = self.resolutions.first() {
            tx.take_numbers(
                meta::NEXT_RESOLUTION_SEQ,
                "resolution",
                first.entry.resolution_seq,
                self.resolutions.len(),
            )?;
        }
        for decision in self.records.iter().filter_map(|w| w.decision.as_ref()) {
            tx.insert_pending(decision.seq, &tables::encode_decision(decision)?)?;
        }
        for w in &self.resolutions {
            if w.committed_pending {
                tx.remove_pending(w.entry.decision.seq)?;
            }
            tx.append(&w.entry)?;
        }
        for (key, row) in &self.rows {
            tx.set_row(key, row)?;
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
        self.records.iter().filter_map(|w| w.decision.as_ref())
    }

    /// The waiting history entries, in resolution order.
    pub(crate) fn entries(&self) -> impl ExactSizeIterator<Item = &HistoryEntry> + Clone {
        self.resolutions.iter().map(|w| &w.entry)
    }

    /// What waits, as the writes that made it, in the order that numbers them as they were
    /// (every record, then every resolution): what a fallback to memory carries, to be written
    /// back when the file returns (see [`crate::recovery`]).
    pub(crate) fn writes(&self) -> Vec<Write> {
        let closed: HashMap<u64, &HistoryEntry> = self
            .resolutions
            .iter()
            .filter(|w| !w.committed_pending)
            .map(|w| (w.entry.decision.seq, &w.entry))
            .collect();
        let mut writes = Vec::with_capacity(self.len());
        for w in &self.records {
            let decision = match (&w.decision, closed.get(&w.seq)) {
                (Some(decision), _) => decision.clone(),
                (None, Some(entry)) => {
                    // The record as it was made: its resolution closed it since.
                    let mut decision = entry.decision.clone();
                    decision.outcome = Outcome::Pending;
                    decision.accepted = None;
                    decision
                }
                (None, None) => continue,
            };
            writes.push(Write::Pending(decision));
        }
        for w in &self.resolutions {
            let entry = &w.entry;
            writes.push(Write::Resolve(Resolution {
                decision_seq: entry.decision.seq,
                outcome: entry.decision.outcome,
                accepted: entry.decision.accepted.clone(),
                moves: entry.moves.clone(),
            }));
        }
        writes
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
