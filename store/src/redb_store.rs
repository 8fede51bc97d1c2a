//! The durable store: one redb file holding live rates, the resolved history ring, the base
//! folded from evicted history, pending decisions and meta.
//!
//! Every write is one redb write transaction (see [`crate::ops`]); every judge call reads its
//! rates through one read transaction ([`DecisionStore::snapshot`]). When a commit is fsynced
//! follows [`crate::fsync_policy`]; under `group` durability pending records and resolutions
//! wait in memory for the next commit (see [`crate::deferred`] and `waiting.rs`). Opening
//! creates, upgrades or refuses the file (see [`crate::migrate`]).
//!
//! This file holds the handle, its accessors and the trait impls; `open.rs` opens the file,
//! `flushing.rs` commits and fsyncs, `integrity.rs` checks the file.

use crate::crash::{CrashHook, CrashPoint};
use crate::deferred::{self, Deferred};
use crate::errors::ResultExt;
use crate::fsync_policy::FsyncPolicy;
use crate::reader::{StoreReader, StoreView};
use crate::record::SeqMarks;
use docsuggest_schema::{
    Config, Decision, DecisionStore, Durability, HistoryEntry, MinedPack, RateKey, RateRow,
    RateSnapshot, Rekeyed, Resolution, StoreContents, StoreError, StoreKind,
};
use redb::Database;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use waiting::WaitingSnapshot;
// Named by `tests.rs` through `use super::*`; this file no longer uses them itself.
#[cfg(test)]
use crate::{
    fold::check_fold,
    migrate::{self, Plan},
    options::StoreOptions,
};

mod flushing;
mod integrity;
mod open;
#[cfg(test)]
mod tests;
mod waiting;

pub use integrity::{IntegrityReport, RedbCheck};
pub use open::{OpenReport, Upgrade};

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

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
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

    pub(crate) fn db(&self) -> Result<&Arc<Database>, StoreError> {
        self.db.as_ref().ok_or_else(|| closed(&self.label))
    }

    /// The file as errors name it.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }
}

fn closed(label: &str) -> StoreError {
    StoreError::Backend(format!("{label}: the store is closed"))
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
