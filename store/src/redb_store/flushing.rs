//! The commit and fsync path of the redb store: every write transaction, whether it is
//! fsynced, what waits for the next commit, and what is handed over or flushed at close.

use super::RedbStore;
use crate::crash::CrashPoint;
use crate::errors::ResultExt;
use crate::record::SeqMarks;
use crate::tx::Tx;
use docsuggest_schema::{
    Decision, Durability, HistoryEntry, Resolution, StoreContents, StoreError,
};
use std::time::Instant;

impl RedbStore {
    pub(super) fn read_marks(&self) -> Result<SeqMarks, StoreError> {
        self.view()?.marks()
    }

    /// Whether a write may wait for the next commit (`group` durability, no fsync due). A
    /// closed store queues nothing; a full queue is written first, in one commit, so a
    /// failure there leaves this write undone for a fallback to retry.
    pub(super) fn defers(&mut self, doing: &str) -> Result<bool, StoreError> {
        if self.fsync_policy.mode() != Durability::Group
            || self.fsync_policy.durable_at(Instant::now())
        {
            return Ok(false);
        }
        self.db()?;
        if self.deferred.is_full() {
            self.write(doing, |_| Ok(()))?;
        }
        Ok(true)
    }

    /// Whether anything handed out or committed is not yet fsynced.
    pub(super) fn unflushed(&self) -> bool {
        self.fsync_policy.unsynced() || !self.deferred.is_empty()
    }

    /// Runs `op` and the ring eviction in one write transaction, durable or not as the fsync policy
    /// says; nothing of it is committed if any part fails.
    pub(crate) fn write<R>(
        &mut self,
        doing: &str,
        op: impl FnOnce(&mut Tx<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let durable = self.fsync_policy.durable_at(Instant::now());
        self.commit(durable, doing, op)
    }

    /// One write transaction: the waiting records, then `op`, then the ring eviction. The
    /// waiting records are forgotten only once it has committed.
    pub(crate) fn commit<R>(
        &mut self,
        durable: bool,
        doing: &str,
        op: impl FnOnce(&mut Tx<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let now = Instant::now();
        let label: &str = &self.label;
        let mut txn = self.db()?.begin_write().at(label, doing)?;
        if !durable {
            txn.set_durability(redb::Durability::None)
                .at(label, doing)?;
        }
        let (out, marks, run_started) = {
            let mut tx = Tx::open(&txn, label)?;
            // Where this handle's run starts, until it is recorded (one meta read per commit).
            let run_from = match self.run.recorded {
                true => None,
                false => Some(tx.marks()?.resolution_seq + 1),
            };
            // Handed out before `op`, so they come first: numbers stay in order.
            self.deferred.write_into(&mut tx)?;
            let out = op(&mut tx)?;
            let marks = tx.marks()?;
            let run_started = match run_from {
                Some(first) if marks.resolution_seq >= first => {
                    crate::lineage::record(&txn, label, first, self.run.id)?;
                    // The store id comes with the first entry (the first run's id), so a
                    // copy shares it.
                    tx.draw_store_id(self.run.id)?;
                    true
                }
                _ => false,
            };
            // Eviction moves no counter: the marks read above stand.
            tx.evict(self.ring_capacity)?;
            (out, marks, run_started)
        };
        txn.commit().at(label, doing)?;
        self.run.recorded |= run_started;
        self.deferred.clear();
        self.crash.reached(CrashPoint::AfterCommit);
        self.committed = marks;
        if durable {
            self.durable = marks;
        }
        self.fsync_policy.committed(durable, now);
        Ok(out)
    }

    /// One durable write transaction of `op` (after the waiting records, as every commit).
    pub(crate) fn write_durably<R>(
        &mut self,
        doing: &str,
        op: impl FnOnce(&mut Tx<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.commit(true, doing, op)
    }

    /// Everything answered since the last durable commit, for a fallback to carry and write
    /// back: the commits since (which a poisoned handle, like a process kill, may lose), read
    /// from the last commit; then what waits for the next commit, which is taken, so dropping
    /// this handle afterwards commits none of it twice.
    pub(crate) fn hand_over(&mut self) -> crate::handover::HandOver {
        let (durable, committed) = (self.durable, self.committed);
        let (unsynced, unreadable) = match self.unsynced_writes() {
            Ok(read) => read,
            Err(e) => {
                tracing::error!(error = %e, "the commits since the last fsync cannot be read");
                let since = (committed.decision_seq - durable.decision_seq)
                    + (committed.resolution_seq - durable.resolution_seq);
                (Vec::new(), since)
            }
        };
        let waiting = self.deferred.writes();
        self.deferred.clear();
        crate::handover::HandOver {
            durable,
            committed,
            unsynced,
            unreadable,
            waiting,
        }
    }

    /// The commits since the last durable one, as writes: every record (still pending or closed
    /// since), then every resolution, as the deferred queue lists its own. Answers them and how
    /// many history entries the ring no longer held.
    fn unsynced_writes(&self) -> Result<(Vec<crate::handover::Write>, u64), StoreError> {
        use crate::handover::Write;
        let (durable, committed) = (self.durable, self.committed);
        if durable == committed {
            return Ok((Vec::new(), 0));
        }
        let view = self.view()?;
        let entries: Vec<HistoryEntry> = view
            .history()?
            .into_iter()
            .filter(|e| e.resolution_seq > durable.resolution_seq)
            .collect();
        let mut records: Vec<Decision> = view
            .pending()?
            .into_iter()
            .filter(|d| d.seq > durable.decision_seq)
            .collect();
        for entry in entries
            .iter()
            .filter(|e| e.decision.seq > durable.decision_seq)
        {
            let mut decision = entry.decision.clone();
            decision.outcome = docsuggest_schema::Outcome::Pending;
            decision.accepted = None;
            records.push(decision);
        }
        records.sort_by_key(|d| d.seq);
        let missing = (committed.resolution_seq - durable.resolution_seq)
            .saturating_sub(entries.len() as u64);
        let mut writes: Vec<Write> = records.into_iter().map(Write::Pending).collect();
        writes.extend(entries.into_iter().map(|e| {
            Write::Resolve(Resolution {
                decision_seq: e.decision.seq,
                outcome: e.decision.outcome,
                accepted: e.decision.accepted,
                moves: e.moves,
            })
        }));
        Ok((writes, missing))
    }

    /// A durable commit of the waiting records, or an empty one: makes everything handed out
    /// so far durable.
    pub(super) fn sync(&mut self) -> Result<(), StoreError> {
        if !self.deferred.is_empty() {
            return self.commit(true, "flushing", |_| Ok(()));
        }
        let label: &str = &self.label;
        let mut txn = self.db()?.begin_write().at(label, "flushing")?;
        txn.set_durability(redb::Durability::Immediate)
            .at(label, "flushing")?;
        txn.commit().at(label, "flushing")?;
        self.crash.reached(CrashPoint::AfterCommit);
        self.durable = self.committed;
        self.fsync_policy.committed(true, Instant::now());
        Ok(())
    }

    /// Closes every pending decision as abandoned (no moves), in one transaction; answers how
    /// many. Opening does this for a previous process's windows (except in multi-process mode).
    pub fn abandon_pending(&mut self) -> Result<usize, StoreError> {
        self.write("abandoning pending decisions", |tx| tx.abandon_pending())
    }

    pub(super) fn abandon_pending_durably(&mut self) -> Result<usize, StoreError> {
        let n = self.abandon_pending()?;
        if self.unflushed() {
            self.sync()?;
        }
        Ok(n)
    }
}

impl Drop for RedbStore {
    fn drop(&mut self) {
        if self.db.is_some()
            && self.unflushed()
            && let Err(e) = self.sync()
        {
            tracing::error!(
                path = %self.label,
                error = %e,
                lost_pending = self.deferred.len(),
                "store flush at close failed"
            );
        }
    }
}
