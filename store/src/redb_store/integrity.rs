//! The integrity check of a redb store file: redb's page-level check (and repair), then the
//! fold invariant.

use super::{RedbStore, closed};
use crate::errors::ResultExt;
use crate::fold::{FoldReport, check_fold};
use docsuggest_schema::StoreError;
use std::sync::Arc;
use std::time::Instant;

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

impl RedbStore {
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
}
