//! The durable store: one redb file holding live rates, the resolved history ring, the base
//! folded from evicted history, pending decisions and meta.
//!
//! Every write is one redb write transaction (see [`crate::ops`]); every judge call reads its
//! rates through one read transaction ([`DecisionStore::snapshot`]). When a commit is fsynced
//! follows [`crate::fsync_policy`]; under `group` durability pending records and resolutions
//! wait in memory for the next commit (see [`crate::deferred`] and `waiting.rs`). Opening
//! creates, upgrades or refuses the file (see [`crate::migrate`]).

use crate::crash::{CrashHook, CrashPoint};
use crate::deferred::{self, Deferred};
use crate::errors::ResultExt;
use crate::file;
use crate::fold::{FoldReport, check_fold};
use crate::fsync_policy::FsyncPolicy;
use crate::migrate::{self, FileState, Plan};
use crate::options::StoreOptions;
use crate::reader::{StoreReader, StoreView};
use crate::record::SeqMarks;
use crate::tx::Tx;
use docsuggest_schema::{
    Config, Decision, DecisionStore, Durability, HistoryEntry, MinedPack, RateKey, RateRow,
    RateSnapshot, Rekeyed, Resolution, StoreContents, StoreError, StoreKind,
};
use redb::Database;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use waiting::WaitingSnapshot;

/// An upgrade performed when the file was opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upgrade {
    /// The file's schema version before.
    pub from: u32,
    /// The version after.
    pub to: u32,
    /// The copy of the file taken before the upgrade.
    pub backup: PathBuf,
}

/// What opening the file did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenReport {
    /// The file was new (or empty) and was initialised.
    pub created: bool,
    /// The file was upgraded from an older schema.
    pub upgraded: Option<Upgrade>,
    /// Pending decisions left by a previous process, closed as abandoned.
    pub abandoned: usize,
}

/// What redb's own check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedbCheck {
    /// Every page checksum verified.
    Passed,
    /// The file was damaged and redb repaired it (un-flushed commits may be gone).
    Repaired,
}

/// The result of [`RedbStore::check_integrity`].
#[derive(Clone, Debug, PartialEq)]
pub struct IntegrityReport {
    /// redb's page-level check.
    pub redb: RedbCheck,
    /// The fold invariant.
    pub fold: FoldReport,
}

impl IntegrityReport {
    /// Whether the file passed both checks untouched.
    pub fn is_ok(&self) -> bool {
        self.redb == RedbCheck::Passed && self.fold.is_clean()
    }
}

/// The durable redb store.
pub struct RedbStore {
    /// Shared with the [`StoreReader`]s handed out, so other threads can read while this
    /// handle writes.
    db: Option<Arc<Database>>,
    path: PathBuf,
    label: Arc<str>,
    ring_capacity: u64,
    multi_process: bool,
    fsync_policy: FsyncPolicy,
    committed: SeqMarks,
    durable: SeqMarks,
    /// Records and resolutions handed out but not yet committed (`group` durability only).
    deferred: Deferred,
    report: OpenReport,
    crash: CrashHook,
    /// The run this handle resolves under (`crate::lineage`).
    run: crate::lineage::Run,
}

impl std::fmt::Debug for RedbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbStore")
            .field("path", &self.path)
            .field("open", &self.db.is_some())
            .field("ring_capacity", &self.ring_capacity)
            .field("multi_process", &self.multi_process)
            .field("committed", &self.committed)
            .field("durable", &self.durable)
            .field("waiting", &self.deferred.len())
            .finish()
    }
}

impl RedbStore {
    /// How many records and resolutions may wait for a commit under `group` durability; one
    /// more first writes them all in one (non-durable) commit.
    pub const WAITING_BOUND: usize = deferred::BOUND;

    /// Opens the store file, creating it when missing, upgrading an older schema (after copying
    /// the file aside), and closing pending decisions left by a previous process as abandoned.
    ///
    /// Errors: [`StoreError::Locked`] when another handle has the file,
    /// [`StoreError::TooNew`] for a newer schema, [`StoreError::Corrupt`] for a file that is not
    /// a store or is damaged, [`StoreError::Io`] when the file cannot be opened.
    pub fn open(options: StoreOptions) -> Result<RedbStore, StoreError> {
        RedbStore::open_with_plan(options, &migrate::PLAN)
    }

    /// [`RedbStore::open`] with another schema plan than this build's [`PLAN`](crate::PLAN):
    /// for tests of the upgrade path before a second schema version exists. A file upgraded
    /// by such a plan is refused by [`RedbStore::open`] as too new.
    pub fn open_with_plan(options: StoreOptions, plan: &Plan<'_>) -> Result<RedbStore, StoreError> {
        RedbStore::open_as(options, plan, false)
    }

    /// Opens the file again for the process that used it before a failure: the pending
    /// decisions it holds may be that process's own open windows, so they are left for it to
    /// resolve or abandon (see `crate::recovery`).
    pub(crate) fn reopen(options: StoreOptions) -> Result<RedbStore, StoreError> {
        RedbStore::open_as(options, &migrate::PLAN, true)
    }

    fn open_as(
        options: StoreOptions,
        plan: &Plan<'_>,
        keep_pending: bool,
    ) -> Result<RedbStore, StoreError> {
        let label = options.path.display().to_string();
        let crash = CrashHook::from_env();
        let mut report = OpenReport::default();
        if options.backend.is_none()
            && let Some(found) = file::version_read_only(&options.path, &label)
            && found > plan.current
        {
            return Err(too_new(&label, found, plan));
        }
        let mut db = file::open_database(&options, &label, &crash)?;
        match migrate::inspect(&db, &label)? {
            FileState::Fresh => {
                migrate::initialise(&db, &label, plan.current, &crash)?;
                report.created = true;
            }
            FileState::Version(v) if v == plan.current => {}
            FileState::Version(v) if v > plan.current => return Err(too_new(&label, v, plan)),
            FileState::Version(v) if options.multi_process => {
                // Another process may be writing the old layout: no consistent backup, no
                // safe upgrade.
                return Err(StoreError::Invalid(format!(
                    "store {label} has schema version {v}; upgrading it to {} needs exclusive \
                     access: open it once without multi-process mode",
                    plan.current
                )));
            }
            FileState::Version(v) => {
                // Close first, so the backup is a cleanly closed file, then upgrade.
                drop(db);
                let backup = migrate::backup(&options.path, v, options.backend.as_ref())?;
                db = file::open_database(&options, &label, &crash)?;
                match migrate::inspect(&db, &label)? {
                    FileState::Version(w) if w == v => {
                        migrate::upgrade(&db, &label, plan, v, &crash)?;
                    }
                    FileState::Version(w) if w > plan.current => {
                        return Err(too_new(&label, w, plan));
                    }
                    FileState::Version(w) if w == plan.current => {}
                    other => {
                        return Err(StoreError::Corrupt {
                            path: label,
                            detail: format!("the file changed during its upgrade ({other:?})"),
                        });
                    }
                }
                report.upgraded = Some(Upgrade {
                    from: v,
                    to: plan.current,
                    backup,
                });
            }
        }
        file::verify_tables(&db, &label)?;
        let now = Instant::now();
        let mut store = RedbStore {
            db: Some(Arc::new(db)),
            path: options.path,
            label: label.into(),
            ring_capacity: options.ring_capacity,
            multi_process: options.multi_process,
            fsync_policy: FsyncPolicy::new(
                options.durability,
                options.flush_interval,
                options.multi_process,
                now,
            ),
            committed: SeqMarks::default(),
            durable: SeqMarks::default(),
            deferred: Deferred::default(),
            report,
            crash,
            run: crate::lineage::Run::new(options.run),
        };
        store.committed = store.read_marks()?;
        store.durable = store.committed;
        // Another live process may own the pending windows of a shared file.
        if !store.multi_process && !keep_pending && store.pending_len()? > 0 {
            store.report.abandoned = store.abandon_pending_durably()?;
        }
        Ok(store)
    }

    /// Where each run of this file starts: which handle resolved each history entry
    /// (`crate::lineage`).
    pub fn lineage(&self) -> Result<crate::Lineage, StoreError> {
        crate::Lineage::read(self.db()?.as_ref(), &self.label)
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What opening the file did.
    pub fn open_report(&self) -> &OpenReport {
        &self.report
    }

    /// The durability mode in force (`Immediate` in multi-process mode, whatever was asked).
    pub fn durability(&self) -> Durability {
        self.fsync_policy.mode()
    }

    /// The bound of the history ring.
    pub fn ring_capacity(&self) -> u64 {
        self.ring_capacity
    }

    /// How many entries the history ring holds.
    pub fn ring_len(&self) -> Result<u64, StoreError> {
        self.view()?.ring_len()
    }

    fn pending_len(&self) -> Result<u64, StoreError> {
        self.view()?.pending_len()
    }

    /// A read handle that other threads can hold: each of its views is a consistent snapshot
    /// of every table, unaffected by commits made after it began. Its views show commits
    /// only: a pending record waiting for the next commit is not in them. While readers are
    /// alive, [`RedbStore::check_integrity`] refuses, and `close` leaves the file open until
    /// the last reader is dropped.
    pub fn reader(&self) -> Result<StoreReader, StoreError> {
        Ok(StoreReader::new(self.db()?.clone(), self.label.clone()))
    }

    /// One consistent read view of every table (a redb read transaction): commits only, like a
    /// [`StoreReader`]'s views.
    pub fn view(&self) -> Result<StoreView, StoreError> {
        StoreView::begin(self.db()?, &self.label)
    }

    /// The sequence numbers of the last commit (without the records waiting for the next).
    pub fn committed(&self) -> SeqMarks {
        self.committed
    }

    /// The sequence numbers handed out: the last commit's, then the records and resolutions
    /// waiting for the next commit. New numbers continue after these.
    pub fn handed_out(&self) -> SeqMarks {
        SeqMarks {
            decision_seq: self.deferred.last_seq(self.committed.decision_seq),
            resolution_seq: self.deferred.last_resolution(self.committed.resolution_seq),
        }
    }

    /// How many records and resolutions wait in memory for the next commit (`group`
    /// durability).
    pub fn waiting(&self) -> usize {
        self.deferred.len()
    }

    /// The pending records waiting for the next commit that no waiting resolution closed,
    /// oldest first.
    pub(crate) fn waiting_decisions(&self) -> Vec<Decision> {
        self.deferred.decisions().cloned().collect()
    }

    /// The sequence numbers known to be fsynced: every commit up to them survives a crash.
    pub fn last_durable(&self) -> SeqMarks {
        self.durable
    }

    /// The last decision sequence number known to be fsynced (what `flush` answers).
    pub fn last_durable_seq(&self) -> u64 {
        self.durable.decision_seq
    }

    /// Applies the store fields of a config: durability, flush interval, ring capacity.
    /// Switching to `immediate` writes the waiting records and fsyncs; a smaller ring evicts
    /// at once.
    pub fn apply_config(&mut self, config: &Config) -> Result<(), StoreError> {
        self.fsync_policy.set(
            config.durability,
            Duration::from_millis(config.flush_interval_ms),
        );
        if self.fsync_policy.mode() == Durability::Immediate && self.unflushed() {
            self.sync()?;
        }
        let shrunk = config.ring_capacity < self.ring_capacity;
        self.ring_capacity = config.ring_capacity;
        if shrunk {
            // Every write evicts past the capacity; an empty one does only that.
            self.write("evicting history", |_| Ok(()))?;
        }
        Ok(())
    }

    /// Closes every pending decision as abandoned (no moves), in one transaction; answers how
    /// many. Opening does this for a previous process's windows (except in multi-process mode).
    pub fn abandon_pending(&mut self) -> Result<usize, StoreError> {
        self.write("abandoning pending decisions", |tx| tx.abandon_pending())
    }

    fn abandon_pending_durably(&mut self) -> Result<usize, StoreError> {
        let n = self.abandon_pending()?;
        if self.unflushed() {
            self.sync()?;
        }
        Ok(n)
    }

    /// Every mined pack the file keeps, by workspace key (committed: a mined pack never waits).
    pub fn mined_packs(&self) -> Result<Vec<(String, MinedPack)>, StoreError> {
        self.view()?.mined_packs()
    }

    /// Replaces every live rate row in one transaction (the offline recompute's `--write`).
    pub fn replace_rates(&mut self, rows: &[(RateKey, RateRow)]) -> Result<(), StoreError> {
        let crash = self.crash.clone();
        self.write("replacing rates", |tx| {
            tx.replace_rates(rows)?;
            crash.reached(CrashPoint::MidRecompute);
            Ok(())
        })
    }

    /// redb's page-level check (and repair), then the fold invariant. Waiting records are
    /// written (and fsynced) first, so the check sees everything handed out.
    pub fn check_integrity(&mut self) -> Result<IntegrityReport, StoreError> {
        if !self.deferred.is_empty() {
            self.sync()?;
        }
        let label = self.label.clone();
        let shared = self.db.as_mut().ok_or_else(|| closed(&label))?;
        let db = Arc::get_mut(shared).ok_or_else(|| {
            StoreError::Backend(format!(
                "{label}: checking integrity: store readers are still open"
            ))
        })?;
        let passed = db.check_integrity().at(&label, "checking integrity")?;
        // A passed check makes every commit durable; a repair may have rolled some back.
        let marks = self.read_marks()?;
        self.committed = marks;
        self.durable = marks;
        self.fsync_policy.committed(true, Instant::now());
        Ok(IntegrityReport {
            redb: if passed {
                RedbCheck::Passed
            } else {
                RedbCheck::Repaired
            },
            fold: check_fold(self)?,
        })
    }

    pub(crate) fn db(&self) -> Result<&Arc<Database>, StoreError> {
        self.db.as_ref().ok_or_else(|| closed(&self.label))
    }

    /// The file as errors name it.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    fn read_marks(&self) -> Result<SeqMarks, StoreError> {
        self.view()?.marks()
    }

    /// Whether a write may wait for the next commit (`group` durability, no fsync due). A
    /// closed store queues nothing; a full queue is written first, in one commit, so a
    /// failure there leaves this write undone for a fallback to retry.
    fn defers(&mut self, doing: &str) -> Result<bool, StoreError> {
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
    fn unflushed(&self) -> bool {
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
    fn sync(&mut self) -> Result<(), StoreError> {
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
}

fn closed(label: &str) -> StoreError {
    StoreError::Backend(format!("{label}: the store is closed"))
}

fn too_new(label: &str, found: u32, plan: &Plan<'_>) -> StoreError {
    StoreError::TooNew {
        path: label.to_string(),
        found,
        supported: plan.current,
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

impl DecisionStore for RedbStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Redb
    }

    fn contents(&self) -> Option<&dyn StoreContents> {
        Some(self)
    }

    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        let view = self.view()?;
        if !self.deferred.has_rows() {
            return Ok(Box::new(view));
        }
        Ok(Box::new(WaitingSnapshot {
            view,
            deferred: &self.deferred,
        }))
    }

    /// Under `group` durability the record waits in memory for the next commit (which a
    /// non-durable commit of its own would not have made any safer); otherwise, or when an
    /// fsync is due, it is committed now.
    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        let doing = "recording a pending decision";
        if !self.defers(doing)? {
            return self.write(doing, |tx| tx.record_pending(decision));
        }
        self.deferred
            .push(&self.label, self.committed.decision_seq, decision)
    }

    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.write("recording a silence", |tx| tx.record_silent(decision))
    }

    /// Waits for the next commit as a pending record does (`group` durability), or is
    /// committed now.
    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        let doing = "resolving a decision";
        if !self.defers(doing)? {
            return self.write(doing, |tx| tx.resolve(resolution));
        }
        self.defer_resolution(resolution)
    }

    fn flush(&mut self) -> Result<u64, StoreError> {
        if self.unflushed() {
            self.sync()?;
        }
        Ok(self.durable.decision_seq)
    }

    fn close(&mut self) -> Result<u64, StoreError> {
        let seq = self.flush()?;
        if let Some(db) = self.db.take() {
            // With readers alive, the file closes when the last of them is dropped.
            if let Ok(db) = Arc::try_unwrap(db) {
                db.close().at(&self.label, "closing")?;
            }
        }
        Ok(seq)
    }

    /// Read from the last commit: a mined pack is committed when it is put, never waiting.
    fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        self.view()?.mined_pack(workspace)
    }

    /// One durable write transaction of its own, whatever the durability mode: a mined pack
    /// is rare and costly to recompute. Records waiting for the next commit go first, as in
    /// every write, and so become durable with it.
    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        let bytes = crate::tables::encode_mined(workspace, &mined)?;
        self.commit(true, "storing a mined pack", |tx| {
            tx.put_mined(workspace, &bytes)
        })
    }

    fn rekey_workspace(&mut self, from: &str, to: &str) -> Result<Rekeyed, StoreError> {
        RedbStore::rekey_workspace(self, from, to)
    }

    fn configure(&mut self, config: &Config) {
        if let Err(e) = self.apply_config(config) {
            // Eviction is retried by the next commit; durability is already switched.
            tracing::warn!(path = %self.label, error = %e, "store configure incomplete");
        }
    }
}

/// Each call reads through its own view; use [`RedbStore::view`] for several reads of one
/// snapshot. What waits for the next commit is included, as that commit will leave the tables:
/// the live rows it moved, its history entries after the committed ones (the ring trimmed and
/// base folded as the commit's eviction will), the pending records it holds and not the
/// decisions it closed.
impl StoreContents for RedbStore {
    fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        self.live_rows()
    }

    fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        self.base_rows_after_waiting()
    }

    fn history(&self) -> Result<Vec<HistoryEntry>, StoreError> {
        Ok(self.ring()?.history)
    }

    fn pending(&self) -> Result<Vec<Decision>, StoreError> {
        self.open_pending()
    }
}

#[cfg(test)]
mod tests;
mod waiting;
