//! The durable store: one redb file holding live rates, the resolved history ring, the base
//! folded from evicted history, pending decisions and meta.
//!
//! Every write is one redb write transaction (see [`crate::ops`]); every judge call reads its
//! rates through one read transaction ([`DecisionStore::snapshot`]). Durability follows
//! [`crate::group`]. Opening creates, upgrades or refuses the file (see [`crate::migrate`]).

use crate::errors::ResultExt;
use crate::file;
use crate::fold::{FoldReport, check_fold};
use crate::group::CommitPolicy;
use crate::migrate::{self, FileState, Plan};
use crate::ops::Tx;
use crate::options::StoreOptions;
use crate::record::SeqMarks;
use crate::tables::{self, BASE, HISTORY, KeyTuple, META, PENDING, RATES, key_tuple};
use docsuggest_schema::{
    Config, Decision, DecisionStore, Durability, HistoryEntry, RateKey, RateRow, RateSnapshot,
    Resolution, StoreContents, StoreError, StoreKind,
};
use redb::{Database, ReadOnlyTable, ReadTransaction, ReadableDatabase, ReadableTableMetadata};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    db: Option<Database>,
    path: PathBuf,
    label: String,
    ring_capacity: u64,
    multi_process: bool,
    policy: CommitPolicy,
    committed: SeqMarks,
    durable: SeqMarks,
    report: OpenReport,
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
            .finish()
    }
}

impl RedbStore {
    /// Opens the store file, creating it when missing, upgrading an older schema (after copying
    /// the file aside), and closing pending decisions left by a previous process as abandoned.
    ///
    /// Errors: [`StoreError::Locked`] when another handle has the file,
    /// [`StoreError::TooNew`] for a newer schema, [`StoreError::Corrupt`] for a file that is not
    /// a store or is damaged, [`StoreError::Io`] when the file cannot be opened.
    pub fn open(options: StoreOptions) -> Result<RedbStore, StoreError> {
        RedbStore::open_with(options, &migrate::PLAN)
    }

    pub(crate) fn open_with(
        options: StoreOptions,
        plan: &Plan<'_>,
    ) -> Result<RedbStore, StoreError> {
        let label = options.path.display().to_string();
        let mut report = OpenReport::default();
        let mut db = file::open_database(&options, &label)?;
        match migrate::inspect(&db, &label)? {
            FileState::Fresh => {
                migrate::initialise(&db, &label, plan.current)?;
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
                let backup = migrate::backup(&options.path, v)?;
                db = file::open_database(&options, &label)?;
                match migrate::inspect(&db, &label)? {
                    FileState::Version(w) if w == v => migrate::upgrade(&db, &label, plan, v)?,
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
            db: Some(db),
            path: options.path,
            label,
            ring_capacity: options.ring_capacity,
            multi_process: options.multi_process,
            policy: CommitPolicy::new(
                options.durability,
                options.flush_interval,
                options.multi_process,
                now,
            ),
            committed: SeqMarks::default(),
            durable: SeqMarks::default(),
            report,
        };
        store.committed = store.read_marks()?;
        store.durable = store.committed;
        // Another live process may own the pending windows of a shared file.
        if !store.multi_process && store.pending_len()? > 0 {
            store.report.abandoned = store.abandon_pending_durably()?;
        }
        Ok(store)
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
        self.policy.mode()
    }

    /// The bound of the history ring.
    pub fn ring_capacity(&self) -> u64 {
        self.ring_capacity
    }

    /// How many entries the history ring holds.
    pub fn ring_len(&self) -> Result<u64, StoreError> {
        let txn = self.read("counting history")?;
        let table = txn
            .open_table(HISTORY)
            .at(&self.label, "counting history")?;
        table.len().at(&self.label, "counting history")
    }

    fn pending_len(&self) -> Result<u64, StoreError> {
        let txn = self.read("counting pending")?;
        let table = txn
            .open_table(PENDING)
            .at(&self.label, "counting pending")?;
        table.len().at(&self.label, "counting pending")
    }

    /// The sequence numbers of the last commit.
    pub fn committed(&self) -> SeqMarks {
        self.committed
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
    /// Switching to `immediate` fsyncs what is pending; a smaller ring evicts at once.
    pub fn apply_config(&mut self, config: &Config) -> Result<(), StoreError> {
        self.policy.set(
            config.durability,
            Duration::from_millis(config.flush_interval_ms),
        );
        if self.policy.mode() == Durability::Immediate && self.policy.unsynced() {
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
        if self.policy.unsynced() {
            self.sync()?;
        }
        Ok(n)
    }

    /// Replaces every live rate row in one transaction (the offline recompute's `--write`).
    pub fn replace_rates(&mut self, rows: &[(RateKey, RateRow)]) -> Result<(), StoreError> {
        self.write("replacing rates", |tx| tx.replace_rates(rows))
    }

    /// redb's page-level check (and repair), then the fold invariant.
    pub fn check_integrity(&mut self) -> Result<IntegrityReport, StoreError> {
        let label = self.label.clone();
        let db = self.db.as_mut().ok_or_else(|| closed(&label))?;
        let passed = db.check_integrity().at(&label, "checking integrity")?;
        // A passed check makes every commit durable; a repair may have rolled some back.
        let marks = self.read_marks()?;
        self.committed = marks;
        self.durable = marks;
        self.policy.committed(true, Instant::now());
        Ok(IntegrityReport {
            redb: if passed {
                RedbCheck::Passed
            } else {
                RedbCheck::Repaired
            },
            fold: check_fold(self)?,
        })
    }

    fn db(&self) -> Result<&Database, StoreError> {
        self.db.as_ref().ok_or_else(|| closed(&self.label))
    }

    fn read(&self, doing: &str) -> Result<ReadTransaction, StoreError> {
        self.db()?.begin_read().at(&self.label, doing)
    }

    fn read_marks(&self) -> Result<SeqMarks, StoreError> {
        let txn = self.read("reading meta")?;
        let table = txn.open_table(META).at(&self.label, "reading meta")?;
        tables::read_marks(&self.label, &table)
    }

    /// Runs `op` and the ring eviction in one write transaction, durable or not as the policy
    /// says; nothing of it is committed if any part fails.
    fn write<R>(
        &mut self,
        doing: &str,
        op: impl FnOnce(&mut Tx<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let now = Instant::now();
        let durable = self.policy.durable_at(now);
        let label = self.label.as_str();
        let mut txn = self.db()?.begin_write().at(label, doing)?;
        if !durable {
            txn.set_durability(redb::Durability::None)
                .at(label, doing)?;
        }
        let (out, marks) = {
            let mut tx = Tx::open(&txn, label)?;
            let out = op(&mut tx)?;
            tx.evict(self.ring_capacity)?;
            (out, tx.marks()?)
        };
        txn.commit().at(label, doing)?;
        self.committed = marks;
        if durable {
            self.durable = marks;
        }
        self.policy.committed(durable, now);
        Ok(out)
    }

    /// An empty durable commit: makes every earlier non-durable commit durable.
    fn sync(&mut self) -> Result<(), StoreError> {
        let label = self.label.as_str();
        let mut txn = self.db()?.begin_write().at(label, "flushing")?;
        txn.set_durability(redb::Durability::Immediate)
            .at(label, "flushing")?;
        txn.commit().at(label, "flushing")?;
        self.durable = self.committed;
        self.policy.committed(true, Instant::now());
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
        if self.db.is_some() && self.policy.unsynced() {
            if let Err(e) = self.sync() {
                tracing::error!(path = %self.label, error = %e, "store flush at close failed");
            }
        }
    }
}

/// One read transaction with the rates table opened once.
struct RedbSnapshot<'a> {
    label: &'a str,
    table: ReadOnlyTable<KeyTuple<'static>, &'static [u8]>,
    _txn: ReadTransaction,
}

impl RateSnapshot for RedbSnapshot<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        let key = key_tuple(key);
        match self.table.get(key).at(self.label, "reading rates")? {
            Some(bytes) => tables::decode_row("rates", key, bytes.value()).map(Some),
            None => Ok(None),
        }
    }
}

impl DecisionStore for RedbStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Redb
    }

    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        let txn = self.read("starting a snapshot")?;
        let table = txn
            .open_table(RATES)
            .at(&self.label, "starting a snapshot")?;
        Ok(Box::new(RedbSnapshot {
            label: &self.label,
            table,
            _txn: txn,
        }))
    }

    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.write("recording a pending decision", |tx| {
            tx.record_pending(decision)
        })
    }

    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.write("recording a silence", |tx| tx.record_silent(decision))
    }

    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        self.write("resolving a decision", |tx| tx.resolve(resolution))
    }

    fn flush(&mut self) -> Result<u64, StoreError> {
        if self.policy.unsynced() {
            self.sync()?;
        }
        Ok(self.durable.decision_seq)
    }

    fn close(&mut self) -> Result<u64, StoreError> {
        let seq = self.flush()?;
        if let Some(db) = self.db.take() {
            db.close().at(&self.label, "closing")?;
        }
        Ok(seq)
    }

    fn configure(&mut self, config: &Config) {
        if let Err(e) = self.apply_config(config) {
            // Eviction is retried by the next commit; durability is already switched.
            tracing::warn!(path = %self.label, error = %e, "store configure incomplete");
        }
    }
}

impl StoreContents for RedbStore {
    fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        let txn = self.read("reading rates")?;
        let table = txn.open_table(RATES).at(&self.label, "reading rates")?;
        tables::read_rows(&self.label, "rates", &table)
    }

    fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        let txn = self.read("reading base")?;
        let table = txn.open_table(BASE).at(&self.label, "reading base")?;
        tables::read_rows(&self.label, "base", &table)
    }

    fn history(&self) -> Result<Vec<HistoryEntry>, StoreError> {
        let txn = self.read("reading history")?;
        let table = txn.open_table(HISTORY).at(&self.label, "reading history")?;
        tables::read_history(&self.label, &table)
    }

    fn pending(&self) -> Result<Vec<Decision>, StoreError> {
        let txn = self.read("reading pending")?;
        let table = txn.open_table(PENDING).at(&self.label, "reading pending")?;
        tables::read_pending(&self.label, &table)
    }
}

#[cfg(test)]
mod tests;
