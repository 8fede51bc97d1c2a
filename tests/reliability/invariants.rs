//! What must hold when a store is reopened after a crash, a failed write or a full disk.
//!
//! Each check answers a description of the first violation, so a sweep can count and show
//! them instead of stopping at the first.

use crate::faulty::Disk;
use crate::workload::{
    self, COMPANIONS, FAMILIES, Logged, PLAN_NEXT, WORKSPACES, decision, resolution,
};
use docsuggest_schema::{DecisionStore, HistoryEntry, Outcome, RateKey, RateRow, StoreContents};
use docsuggest_store::{RedbStore, SeqMarks, check_fold, same_bits};
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// The ring bound the checks reopen with (smaller than the workload's, so the first write
/// after the reopen must evict).
pub const REOPEN_RING: u64 = 4;

/// Where a reopened store landed, relative to what the session was told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Landing {
    /// Exactly the last state acknowledged as durable.
    AtDurable,
    /// Past it: commits that were not (yet) acknowledged as durable survived.
    PastDurable,
    /// The state the failing operation would have committed: it reached the disk although
    /// the store reported an error (or died before it could answer).
    Unacknowledged,
}

impl Landing {
    pub fn name(self) -> &'static str {
        match self {
            Landing::AtDurable => "at-durable",
            Landing::PastDurable => "past-durable",
            Landing::Unacknowledged => "failed-op-survived",
        }
    }
}

/// What a session left for the checks.
pub struct Expect<'a> {
    /// The model's states, oldest first; the last is the one the failing step would commit.
    pub log: &'a [Logged],
    /// Index in `log` of the state after the last step that succeeded.
    pub committed: usize,
    /// Every history entry the model made.
    pub history: &'a [HistoryEntry],
    /// The last durable marks the store reported.
    pub acked: SeqMarks,
    /// The largest ring bound the session used.
    pub ring_max: u64,
}

/// What a passing check found.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    pub landing: Landing,
    /// The reopen had to (re)do the upgrade.
    pub upgraded_at_reopen: bool,
    /// Windows the reopen abandoned.
    pub abandoned: usize,
}

fn open(disk: &Disk, dir: &Path) -> Result<RedbStore, String> {
    let options = workload::options(&dir.join("s.redb"), Some(disk.factory()), REOPEN_RING);
    match catch_unwind(AssertUnwindSafe(|| {
        RedbStore::open_with_plan(options, &PLAN_NEXT)
    })) {
        Ok(Ok(store)) => Ok(store),
        Ok(Err(e)) => Err(format!("does not reopen: {e}")),
        Err(_) => Err("panicked while reopening".into()),
    }
}

fn rows_equal(a: &[(RateKey, RateRow)], b: &BTreeMap<RateKey, RateRow>) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, ra), (kb, rb))| ka == kb && same_bits(ra, rb))
}

fn at_least(got: SeqMarks, want: SeqMarks) -> bool {
    got.decision_seq >= want.decision_seq && got.resolution_seq >= want.resolution_seq
}

/// Reopens the store a crash left on `disk` (a process restart: unsynced bytes stay
/// unsynced) and checks every invariant; then checks it accepts writes, and that what it
/// acknowledges as durable survives a power cut.
pub fn check(disk: &Disk, dir: &Path, expect: &Expect<'_>) -> Result<Found, String> {
    let disk = disk.restarted();
    let mut store = open(&disk, dir)?;
    let report = store.open_report().clone();
    // What a power cut right after the restart would keep, and what the store claims.
    let claimed = store
        .flush()
        .map(|_| store.last_durable())
        .map_err(|e| format!("flush after reopen: {e}"))?;
    let cut_after_restart = disk.durable_image();

    let view = store.view().map_err(|e| format!("view: {e}"))?;
    let marks = view.marks().map_err(|e| format!("marks: {e}"))?;
    let abandoned = report.abandoned;
    let before_open = SeqMarks {
        decision_seq: marks.decision_seq,
        resolution_seq: marks.resolution_seq - abandoned as u64,
    };
    if !at_least(before_open, expect.acked) {
        return Err(format!(
            "LOST ACKNOWLEDGED: reopened at {before_open:?}, acknowledged durable {:?}",
            expect.acked
        ));
    }
    let Some(i) = expect.log.iter().rposition(|l| l.marks == before_open) else {
        return Err(format!(
            "reopened at {before_open:?}, which no step committed"
        ));
    };
    let state = &expect.log[i];

    // Live rows: exactly the committed state's (no partial resolution, no lost move).
    let rows = view.rate_rows().map_err(|e| format!("rates: {e}"))?;
    if !rows_equal(&rows, &state.rates) {
        return Err(format!(
            "live rows differ from the committed state at {before_open:?}:\n got {rows:?}\nwant {:?}",
            state.rates
        ));
    }
    // History: contiguous, bounded, and entry for entry what was committed, resolution and
    // moves together; windows abandoned by the reopen follow, without moves.
    let history = view.history().map_err(|e| format!("history: {e}"))?;
    let bound = if abandoned > 0 {
        REOPEN_RING
    } else {
        expect.ring_max
    };
    if history.len() as u64 > bound {
        return Err(format!(
            "ring holds {} entries, bound {bound}",
            history.len()
        ));
    }
    for (n, e) in history.iter().enumerate() {
        let want_seq = marks.resolution_seq + 1 + n as u64 - history.len() as u64;
        if e.resolution_seq != want_seq {
            return Err(format!(
                "history is not contiguous up to {}: entry {n} is {}",
                marks.resolution_seq, e.resolution_seq
            ));
        }
        if e.resolution_seq <= before_open.resolution_seq {
            let want = &expect.history[(e.resolution_seq - 1) as usize];
            if e != want {
                return Err(format!(
                    "history[{}] differs from what was committed:\n got {e:?}\nwant {want:?}",
                    e.resolution_seq
                ));
            }
        } else {
            let j = (e.resolution_seq - before_open.resolution_seq - 1) as usize;
            let mut want = state.pending[j].clone();
            want.outcome = Outcome::Abandoned;
            if e.decision != want || !e.moves.is_empty() {
                return Err(format!("reopen abandoned {e:?}, expected {want:?}"));
            }
        }
    }
    let pending = view.pending().map_err(|e| format!("pending: {e}"))?;
    if !pending.is_empty() {
        return Err(format!(
            "{} windows still pending after the reopen",
            pending.len()
        ));
    }
    drop(view);

    let integrity = store
        .check_integrity()
        .map_err(|e| format!("integrity check failed to run: {e}"))?;
    if !integrity.is_ok() {
        return Err(format!("integrity: {integrity:?}"));
    }

    accepts_writes(&mut store, marks)?;
    let acked = store
        .close()
        .map(|_| store.last_durable())
        .map_err(|e| format!("close: {e}"))?;
    drop(store);

    // A power cut after the close keeps every write the close acknowledged.
    let after = open(&Disk::from_image(&disk.durable_image()), dir)?;
    let got = after.committed();
    if !at_least(got, acked) {
        return Err(format!(
            "LOST ACKNOWLEDGED after the restart: reopened at {got:?}, acknowledged {acked:?}"
        ));
    }
    drop(after);
    // A power cut right after the restart keeps what the restarted store claimed durable.
    let early = open(&Disk::from_image(&cut_after_restart), dir)?;
    let got = early.committed();
    let abandoned_early = early.open_report().abandoned as u64;
    let got = SeqMarks {
        resolution_seq: got.resolution_seq - abandoned_early,
        ..got
    };
    let claimed_before_open = SeqMarks {
        resolution_seq: claimed.resolution_seq - abandoned as u64,
        ..claimed
    };
    if !at_least(got, claimed_before_open) {
        return Err(format!(
            "LOST ACKNOWLEDGED: a power cut right after the restart reopened at {got:?}, the \
             restarted store had answered durable {claimed:?}"
        ));
    }

    let landing = if before_open == expect.acked {
        Landing::AtDurable
    } else if i <= expect.committed {
        Landing::PastDurable
    } else {
        Landing::Unacknowledged
    };
    Ok(Found {
        landing,
        upgraded_at_reopen: report.upgraded.is_some(),
        abandoned,
    })
}

/// The reopened store records, resolves and flushes, and the ring bound holds after a write.
fn accepts_writes(store: &mut RedbStore, marks: SeqMarks) -> Result<(), String> {
    let e = |what: &str, err: docsuggest_schema::StoreError| format!("after reopen, {what}: {err}");
    let mut d = decision(WORKSPACES[1], FAMILIES[2]);
    d.seq = store
        .record_pending(d.clone())
        .map_err(|x| e("record", x))?;
    if d.seq != marks.decision_seq + 1 {
        return Err(format!("new decision numbered {}, after {marks:?}", d.seq));
    }
    let key = RateKey::companion(WORKSPACES[1], FAMILIES[2], COMPANIONS[1]);
    let before = store
        .snapshot()
        .and_then(|s| s.row(&key))
        .map_err(|x| e("read", x))?
        .unwrap_or_default();
    store
        .resolve(resolution(&d, Outcome::Accepted, Some(COMPANIONS[1])))
        .map_err(|x| e("resolve", x))?;
    store
        .record_silent(decision(WORKSPACES[0], FAMILIES[0]))
        .map_err(|x| e("silence", x))?;
    let durable = store.flush().map_err(|x| e("flush", x))?;
    if durable != d.seq + 1 || store.last_durable() != store.committed() {
        return Err(format!(
            "flush answered {durable} for {:?}",
            store.committed()
        ));
    }
    let after = store
        .snapshot()
        .and_then(|s| s.row(&key))
        .map_err(|x| e("read", x))?
        .unwrap_or_default();
    if after.accepts != before.accepts + 1 {
        return Err(format!(
            "the accept did not move {key:?}: {before:?} -> {after:?}"
        ));
    }
    let ring = store.ring_len().map_err(|x| e("ring", x))?;
    if ring > REOPEN_RING {
        return Err(format!(
            "ring holds {ring} after a write, bound {REOPEN_RING}"
        ));
    }
    let fold = check_fold(&*store).map_err(|x| e("fold", x))?;
    if !fold.is_clean() {
        return Err(format!("fold after new writes: {fold:?}"));
    }
    Ok(())
}
