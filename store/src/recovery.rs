//! Getting the file back after running on memory: what was written meanwhile, how the file is
//! retried, and how decision numbers stay the engine's.
//!
//! While [`FailOpenStore`](crate::FailOpenStore) runs on memory because its file could not be
//! used (locked by a process still exiting, a full disk, an I/O error), every write it makes
//! there is kept in a [`Journal`], and the file is opened again on a [`Backoff`]. When it opens,
//! [`write_back`] writes the journal into it in one durable transaction, in the order it was
//! answered: the live rows then equal the fold of the history again, exactly as if the file had
//! never gone away. If any part fails, nothing of it is committed and the store stays on memory
//! to try again later, so nothing is written twice.
//!
//! Decisions are renumbered by the file as they are written back (another process may have
//! used it meanwhile). The engine keeps the numbers it was given: [`Numbers`] maps those of the
//! windows still open onto the file's, and numbers the file hands out later after every number
//! handed out on memory, so none is ever given twice.
//!
//! What cannot be written back is counted as lost, never dropped silently: writes past the
//! journal's bound, a resolution of a decision the file no longer holds, and whatever is still
//! on memory at close.

pub(crate) use crate::handover::{HandOver, JOURNAL_BOUND, Write};
use crate::record::SeqMarks;
use crate::redb_store::RedbStore;
use crate::tables;
use crate::tx::Tx;
use docsuggest_schema::{Resolution, StoreError};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

/// The writes answered since the file was last known durable.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// The numbers of the file's last durable commit when it went away.
    durable: SeqMarks,
    /// The numbers of its last commit: those after `durable` may not survive the handle.
    committed: SeqMarks,
    /// The commits between the two, to write again if the file lost them.
    unsynced: Vec<Write>,
    unreadable: u64,
    /// The file's pending decisions carried over to memory.
    carried: BTreeSet<u64>,
    /// What waited for a commit, then what memory answered.
    writes: Vec<Write>,
    /// Writes past the bound (lost).
    overflowed: u64,
}

impl Journal {
    /// A journal continuing what `handed` says of the file, which held `carried` pending.
    pub(crate) fn new(handed: HandOver, carried: BTreeSet<u64>) -> Journal {
        let mut journal = Journal {
            durable: handed.durable,
            committed: handed.committed,
            unsynced: handed.unsynced,
            unreadable: handed.unreadable,
            carried,
            writes: Vec::new(),
            overflowed: 0,
        };
        for write in handed.waiting {
            journal.push(write);
        }
        journal
    }

    /// Keeps `write` for the write-back, or counts it lost past the bound. Once one is lost,
    /// every later one is too: a prefix of the answers is what holds together.
    pub(crate) fn push(&mut self, write: Write) {
        if self.overflowed == 0 && self.writes.len() < JOURNAL_BOUND {
            self.writes.push(write);
        } else if write.is_learning() {
            self.overflowed += 1;
        }
    }

    /// The decisions and resolutions kept, and those lost past the bound (what never reaches
    /// the file if it does not come back; the commits it already holds are not counted).
    pub(crate) fn learning(&self) -> u64 {
        self.writes.iter().filter(|w| w.is_learning()).count() as u64 + self.overflowed
    }
}

/// The decision numbers the engine holds, against the store's.
#[derive(Debug, Default)]
pub(crate) struct Numbers {
    /// Added to a store number to give the engine's.
    offset: i64,
    /// Engine numbers below it are either in `open` or no longer held by the store.
    floor: u64,
    /// The windows open at a write-back whose number changed: engine number → store number.
    open: HashMap<u64, u64>,
}

impl Numbers {
    /// The engine's number of the store's `seq`.
    pub(crate) fn outward(&self, seq: u64) -> u64 {
        seq.saturating_add_signed(self.offset)
    }

    /// The store's number of the engine's `seq`; `None` for a decision lost in a write-back.
    pub(crate) fn inward(&self, seq: u64) -> Option<u64> {
        if let Some(&inner) = self.open.get(&seq) {
            return Some(inner);
        }
        if seq < self.floor {
            return None;
        }
        seq.checked_add_signed(-self.offset)
    }

    /// The engine's `seq` was resolved: its mapping is no longer needed.
    pub(crate) fn resolved(&mut self, seq: u64) {
        self.open.remove(&seq);
    }

    /// After a write-back: `windows` are memory's open decisions (memory's numbers, which
    /// continue the store's), `renumbered` where each went in the file, `memory_last` the last
    /// number memory handed out and `file_last` the file's.
    fn renumber(
        &mut self,
        windows: &[u64],
        renumbered: &HashMap<u64, u64>,
        start: u64,
        memory_last: u64,
        file_last: u64,
    ) {
        let outward_of: HashMap<u64, u64> = self.open.iter().map(|(&o, &i)| (i, o)).collect();
        let last_outward = outward_of
            .get(&memory_last)
            .copied()
            .unwrap_or_else(|| self.outward(memory_last));
        let mut open = HashMap::new();
        let offset = i64::try_from(i128::from(last_outward) - i128::from(file_last)).unwrap_or(0);
        for &window in windows {
            let outward = outward_of
                .get(&window)
                .copied()
                .unwrap_or_else(|| self.outward(window));
            let inner = match renumbered.get(&window) {
                Some(&r) => r,
                None if window <= start => window,
                None => continue,
            };
            // Below the floor every number the engine may still resolve must be mapped.
            open.insert(outward, inner);
        }
        self.open = open;
        self.offset = offset;
        self.floor = last_outward.saturating_add(1);
    }
}

/// When the file is tried again: soon after it went away, then less and less often.
#[derive(Debug)]
pub(crate) struct Backoff {
    first: Duration,
    max: Duration,
    delay: Duration,
    due: Instant,
}

impl Backoff {
    /// The first retry `first` from now, then doubling up to `max`.
    pub(crate) fn new(first: Duration, max: Duration) -> Backoff {
        Backoff {
            first,
            max,
            delay: first,
            due: Instant::now() + first,
        }
    }

    /// Whether a retry is due.
    pub(crate) fn due(&self, now: Instant) -> bool {
        now >= self.due
    }

    /// A retry failed: the next one waits twice as long (up to the bound).
    pub(crate) fn failed(&mut self, now: Instant) {
        self.delay = (self.delay * 2).min(self.max);
        self.due = now + self.delay;
    }

    /// The file went away again: start over from the first delay.
    pub(crate) fn restart(&mut self, now: Instant) {
        self.delay = self.first;
        self.due = now + self.first;
    }
}

/// What a write-back wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct WrittenBack {
    /// Decisions and resolutions written.
    pub(crate) written: u64,
    /// Decisions and resolutions that could not be: a resolution of a decision the file no
    /// longer holds, and those past the journal's bound.
    pub(crate) lost: u64,
    /// Pending decisions of the file no open window holds, closed as abandoned.
    pub(crate) abandoned: u64,
}

/// Writes `journal` into `redb` in one durable transaction, then closes as abandoned the
/// file's pending decisions that no open window will resolve: `windows` are memory's open
/// decisions, `memory_last` the last number memory handed out. Updates `numbers` once it has
/// committed. Nothing is written if any part fails.
pub(crate) fn write_back(
    redb: &mut RedbStore,
    journal: &Journal,
    windows: &[u64],
    memory_last: u64,
    multi_process: bool,
    numbers: &mut Numbers,
) -> Result<WrittenBack, StoreError> {
    let (report, renumbered, start) =
        redb.write_durably("writing back what was answered on memory", |tx| {
            let mut replay = Replay::begin(tx, journal)?;
            replay.write_journal(tx, journal)?;
            replay.abandon_unheld(tx, journal, windows, multi_process)?;
            Ok((replay.report, replay.renumbered, replay.start))
        })?;
    let file_last = redb.handed_out().decision_seq;
    numbers.renumber(windows, &renumbered, start, memory_last, file_last);
    Ok(report)
}

/// A write-back under way, inside its transaction.
struct Replay<'j> {
    /// Numbers up to it are the file's own.
    start: u64,
    /// The commits the file lost, to write again first.
    again: &'j [Write],
    /// How many of the journal's first writes the file holds already.
    landed: usize,
    /// Memory's decision numbers → the file's, for what was written.
    renumbered: HashMap<u64, u64>,
    report: WrittenBack,
}

impl<'j> Replay<'j> {
    /// Where to start: what the file holds of the journal, by its numbers.
    fn begin(tx: &Tx<'_>, journal: &'j Journal) -> Result<Replay<'j>, StoreError> {
        let mut report = WrittenBack {
            lost: journal.overflowed,
            ..WrittenBack::default()
        };
        // The file holds the commits made after its last fsync, unless the handle lost them
        // (a kill would have too): they are written again only then. Numbers up to `start`
        // are the file's own.
        let found = tx.marks()?;
        let kept = found.decision_seq >= journal.committed.decision_seq
            && found.resolution_seq >= journal.committed.resolution_seq;
        let (start, again, landed) = if kept {
            match landed_prefix(&journal.writes, journal.committed, found) {
                // The commit that failed reached the file after all: its writes are there.
                Some(landed) => (found.decision_seq, &[][..], landed),
                None => (journal.committed.decision_seq, &[][..], 0),
            }
        } else {
            report.lost += journal.unreadable;
            (journal.durable.decision_seq, &journal.unsynced[..], 0)
        };
        Ok(Replay {
            start,
            again,
            landed,
            renumbered: HashMap::new(),
            report,
        })
    }

    /// Writes the lost commits again, then the journal's writes the file does not hold, in
    /// the order they were answered.
    fn write_journal(&mut self, tx: &mut Tx<'_>, journal: &Journal) -> Result<(), StoreError> {
        let (again, landed) = (self.again, self.landed);
        let already = |i: usize, w: &Write| i < landed && w.is_learning();
        let fresh = journal
            .writes
            .iter()
            .enumerate()
            .filter(|(i, w)| !already(*i, w))
            .map(|(_, w)| w);
        for write in again.iter().chain(fresh) {
            self.write(tx, write)?;
        }
        Ok(())
    }

    fn write(&mut self, tx: &mut Tx<'_>, write: &Write) -> Result<(), StoreError> {
        match write {
            Write::Pending(decision) => {
                let seq = tx.record_pending(decision.clone())?;
                self.renumbered.insert(decision.seq, seq);
                self.report.written += 1;
            }
            Write::Silent(decision) => {
                tx.record_silent(decision.clone())?;
                self.report.written += 1;
            }
            Write::Resolve(resolution) => self.resolve(tx, resolution)?,
            Write::Mined(workspace, mined) => {
                let bytes = tables::encode_mined(workspace, mined)?;
                tx.put_mined(workspace, &bytes)?;
            }
        }
        Ok(())
    }

    /// Writes a resolution under the file's number of its decision, or counts it lost.
    fn resolve(&mut self, tx: &mut Tx<'_>, resolution: &Resolution) -> Result<(), StoreError> {
        let memory_seq = resolution.decision_seq;
        let seq = match self.renumbered.get(&memory_seq) {
            Some(&seq) => seq,
            None if memory_seq <= self.start => memory_seq,
            // Its record was past the journal's bound.
            None => {
                self.report.lost += 1;
                return Ok(());
            }
        };
        let resolution = Resolution {
            decision_seq: seq,
            ..resolution.clone()
        };
        match tx.resolve(resolution) {
            Ok(()) => self.report.written += 1,
            // Closed by another process while the file was away.
            Err(StoreError::UnknownDecision(_) | StoreError::Invalid(_)) => {
                self.report.lost += 1;
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Closes as abandoned the file's pending decisions this process owns that no open
    /// window (`windows`, by memory's numbers) will resolve.
    fn abandon_unheld(
        &mut self,
        tx: &mut Tx<'_>,
        journal: &Journal,
        windows: &[u64],
        multi_process: bool,
    ) -> Result<(), StoreError> {
        let kept: HashSet<u64> = windows
            .iter()
            .filter_map(|w| match self.renumbered.get(w) {
                Some(&seq) => Some(seq),
                None => (*w <= self.start).then_some(*w),
            })
            .collect();
        for seq in tx.pending_seqs()? {
            // Another live process may own pending decisions of a shared file: only those
            // this process carried are its to close.
            let ours = !multi_process || journal.carried.contains(&seq);
            if ours && !kept.contains(&seq) {
                tx.resolve(crate::record::abandoned(seq))?;
                self.report.abandoned += 1;
            }
        }
        Ok(())
    }
}

/// How many of the first `writes` a commit that reported failure wrote anyway: the file's
/// numbers (`found`) are past those of the last commit known (`committed`) by exactly what
/// they take. `None` when they are not (nothing landed, or another process wrote).
fn landed_prefix(writes: &[Write], committed: SeqMarks, found: SeqMarks) -> Option<usize> {
    let extra = (
        found.decision_seq.checked_sub(committed.decision_seq)?,
        found.resolution_seq.checked_sub(committed.resolution_seq)?,
    );
    if extra == (0, 0) {
        return None;
    }
    let mut taken = (0, 0);
    for (i, write) in writes.iter().enumerate() {
        match write {
            Write::Pending(_) => taken.0 += 1,
            Write::Silent(_) => taken = (taken.0 + 1, taken.1 + 1),
            Write::Resolve(_) => taken.1 += 1,
            Write::Mined(..) => {}
        }
        if taken == extra {
            return Some(i + 1);
        }
        if taken.0 > extra.0 || taken.1 > extra.1 {
            return None;
        }
    }
    None
}

/// Whether opening the file again may succeed later: a lock released, space freed, an I/O
/// error passed. A damaged or newer file stays what it is.
pub(crate) fn retryable(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::Locked { .. }
            | StoreError::Io { .. }
            | StoreError::Database { .. }
            | StoreError::Backend(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_continue_after_memory_and_map_open_windows() {
        let mut numbers = Numbers::default();
        // Memory handed out 1..=3 (the file was locked from the start); 2 is still open. The
        // file had reached 500 meanwhile and numbered the records 501..=503.
        let renumbered = HashMap::from([(1, 501), (2, 502), (3, 503)]);
        numbers.renumber(&[2], &renumbered, 0, 3, 503);
        assert_eq!(numbers.inward(2), Some(502));
        assert_eq!(numbers.inward(1), None, "resolved before: lost");
        // The file's next number, 504, is the engine's 4.
        assert_eq!(numbers.outward(504), 4);
        assert_eq!(numbers.inward(4), Some(504));
        numbers.resolved(2);
        assert_eq!(numbers.inward(2), None);
    }

    #[test]
    fn an_unchanged_file_keeps_every_number() {
        let mut numbers = Numbers::default();
        let renumbered = HashMap::from([(11, 11), (12, 12)]);
        numbers.renumber(&[9, 12], &renumbered, 10, 12, 12);
        assert_eq!(numbers.inward(9), Some(9));
        assert_eq!(numbers.inward(12), Some(12));
        assert_eq!(numbers.outward(13), 13);
        assert_eq!(numbers.inward(13), Some(13));
    }

    #[test]
    fn the_journal_keeps_a_prefix() {
        let mut journal = Journal::default();
        for _ in 0..JOURNAL_BOUND + 3 {
            journal.push(Write::Silent(crate::testkit::decision("Plan")));
        }
        assert_eq!(journal.writes.len(), JOURNAL_BOUND);
        assert_eq!(journal.overflowed, 3);
        assert_eq!(journal.learning(), JOURNAL_BOUND as u64 + 3);
    }

    #[test]
    fn backoff_doubles_to_its_bound_and_restarts() {
        let now = Instant::now();
        let mut b = Backoff::new(Duration::from_millis(10), Duration::from_millis(35));
        assert!(!b.due(now));
        b.failed(now);
        assert!(b.due(now + Duration::from_millis(20)));
        b.failed(now);
        b.failed(now);
        assert!(!b.due(now + Duration::from_millis(34)));
        assert!(b.due(now + Duration::from_millis(35)));
        b.restart(now);
        assert!(b.due(now + Duration::from_millis(10)));
    }
}
