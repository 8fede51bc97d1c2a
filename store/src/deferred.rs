//! Pending records that wait in memory for the next commit (`group` durability only).
//!
//! In `group` mode a commit is made without fsync, and redb keeps a non-durable commit's
//! header in memory only: until the next durable commit, a process kill loses it exactly as a
//! power cut does. A pending record held here and written with the next write transaction
//! therefore survives exactly what its own non-durable commit would have, and costs no commit.
//!
//! The queue numbers its records itself, continuing after every number handed out so far.
//! The transaction that writes them checks that the file's counter hands out exactly those
//! numbers, so a disagreement is an error, never a wrongly numbered record. The queue is
//! emptied only after that transaction commits: a failed one leaves every record waiting, to
//! be written once by a later commit.

use crate::ops::Tx;
use crate::tables::{self, meta};
use docsuggest_schema::{Decision, StoreError};

/// How many records may wait; one more first writes them all in one commit.
pub(crate) const BOUND: usize = 1024;

/// A numbered record and its stored bytes, encoded when it was handed out so an encoding
/// failure is reported by the call that recorded it.
#[derive(Debug)]
struct Waiting {
    decision: Decision,
    bytes: Vec<u8>,
}

/// The records handed out since the last commit, in sequence order.
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    waiting: Vec<Waiting>,
}

impl Deferred {
    /// How many records wait.
    pub(crate) fn len(&self) -> usize {
        self.waiting.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Whether one more record needs a commit first.
    pub(crate) fn is_full(&self) -> bool {
        self.waiting.len() >= BOUND
    }

    /// The last decision number handed out, given the last committed one.
    pub(crate) fn last_seq(&self, committed: u64) -> u64 {
        self.waiting
            .last()
            .map_or(committed, |w| w.decision.seq.max(committed))
    }

    /// Numbers `decision` after every number handed out so far (`committed`, then the waiting
    /// records), encodes it as `Tx::record_pending` would, and queues it; answers its number.
    pub(crate) fn push(
        &mut self,
        path: &str,
        committed: u64,
        mut decision: Decision,
    ) -> Result<u64, StoreError> {
        let seq = self
            .last_seq(committed)
            .checked_add(1)
            .ok_or_else(|| StoreError::Corrupt {
                path: path.to_string(),
                detail: format!("meta {} is at its maximum", meta::NEXT_DECISION_SEQ),
            })?;
        decision.seq = seq;
        let bytes = tables::encode_decision(&decision)?;
        self.waiting.push(Waiting { decision, bytes });
        Ok(seq)
    }

    /// Writes every waiting record into `tx`, oldest first. The records stay queued until
    /// [`Deferred::clear`] is called after the commit.
    pub(crate) fn write_into(&self, tx: &mut Tx<'_>) -> Result<(), StoreError> {
        for w in &self.waiting {
            tx.record_numbered_pending(w.decision.seq, &w.bytes)?;
        }
        Ok(())
    }

    /// Forgets the records: they are committed.
    pub(crate) fn clear(&mut self) {
        self.waiting.clear();
    }

    /// The waiting decisions, oldest first.
    pub(crate) fn decisions(&self) -> impl Iterator<Item = &Decision> {
        self.waiting.iter().map(|w| &w.decision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crash::CrashHook;
    use crate::migrate;
    use crate::tables::PENDING;
    use crate::testkit::decision;
    use redb::{Database, ReadableDatabase};

    /// A new store database in `dir`.
    fn database(dir: &tempfile::TempDir) -> Database {
        let db = Database::create(dir.path().join("s.redb")).expect("create");
        migrate::initialise(&db, "s", 1, &CrashHook::default()).expect("initialise");
        db
    }

    #[test]
    fn records_are_numbered_after_everything_handed_out() {
        let mut q = Deferred::default();
        assert_eq!(q.last_seq(7), 7);
        assert_eq!(q.push("s", 7, decision("Plan")).expect("push"), 8);
        assert_eq!(q.push("s", 7, decision("Plan")).expect("push"), 9);
        assert_eq!(q.last_seq(7), 9);
        let seqs: Vec<u64> = q.decisions().map(|d| d.seq).collect();
        assert_eq!(seqs, [8, 9]);
        let err = Deferred::default()
            .push("s", u64::MAX, decision("Plan"))
            .expect_err("no number left");
        assert_eq!(
            err.to_string(),
            "store s is corrupt or not a docsuggest store: meta next_decision_seq is at its maximum"
        );
        q.clear();
        assert!(q.is_empty());
    }

    #[test]
    fn waiting_records_are_written_as_record_pending_writes_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = database(&dir);
        let mut q = Deferred::default();
        q.push("s", 0, decision("Plan")).expect("push");
        q.push("s", 0, decision("Scheme")).expect("push");
        let txn = db.begin_write().expect("txn");
        {
            let mut tx = Tx::open(&txn, "s").expect("tables");
            q.write_into(&mut tx).expect("write");
            // A record made the ordinary way after them takes the next number.
            assert_eq!(tx.record_pending(decision("Plan")).expect("record"), 3);
        }
        txn.commit().expect("commit");
        let read = db.begin_read().expect("read");
        let pending =
            tables::read_pending("s", &read.open_table(PENDING).expect("pending")).expect("decode");
        let got: Vec<(u64, &str)> = pending.iter().map(|d| (d.seq, d.family.as_str())).collect();
        assert_eq!(got, [(1, "Plan"), (2, "Scheme"), (3, "Plan")]);
        let mut want = decision("Scheme");
        want.seq = 2;
        assert_eq!(pending[1], want);
    }

    #[test]
    fn numbers_the_counter_would_not_hand_out_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = database(&dir);
        let mut q = Deferred::default();
        // Numbered as if five decisions had been committed; the file has none.
        q.push("s", 5, decision("Plan")).expect("push");
        let txn = db.begin_write().expect("txn");
        let mut tx = Tx::open(&txn, "s").expect("tables");
        let err = q.write_into(&mut tx).expect_err("mismatch");
        assert_eq!(
            err.to_string(),
            "store s is corrupt or not a docsuggest store: decision 6 was handed out ahead of \
             its commit, but meta next_decision_seq would number it 1"
        );
        assert_eq!(q.len(), 1, "a failed write leaves the record waiting");
    }
}
