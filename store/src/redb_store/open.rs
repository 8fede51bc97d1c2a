//! Opening a redb store file: creating, upgrading or refusing it (see [`crate::migrate`]),
//! closing a previous process's pending decisions, and what opening did.

use super::RedbStore;
use crate::crash::CrashHook;
use crate::deferred::Deferred;
use crate::file;
use crate::fsync_policy::FsyncPolicy;
use crate::migrate::{self, FileState, Plan};
use crate::options::StoreOptions;
use crate::record::SeqMarks;
use docsuggest_schema::StoreError;
use redb::Builder;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

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

impl RedbStore {
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
            && let Some(found) = version_read_only(&options.path, &label)
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

    /// What opening the file did.
    pub fn open_report(&self) -> &OpenReport {
        &self.report
    }
}

fn too_new(label: &str, found: u32, plan: &Plan<'_>) -> StoreError {
    StoreError::TooNew {
        path: label.to_string(),
        found,
        supported: plan.current,
    }
}

/// The schema version an existing file declares, read through a read-only handle, so a file
/// this build must refuse (a newer schema) is refused before a writable open has written a
/// byte of it (redb marks the header on a writable open). A file left unclean is read through
/// a private repaired copy, as `ReadOnlyStore` reads one (only after a crash). `None` when it
/// cannot be read so — no file, an empty one, a writer holding it, not a store: the writable
/// open then decides, as before.
fn version_read_only(path: &Path, label: &str) -> Option<u32> {
    if std::fs::metadata(path).ok()?.len() == 0 {
        return None;
    }
    // Unverified reads of a damaged file may panic inside redb: such a file is left to the
    // writable open, which verifies every page first and calls it corrupt.
    crate::errors::catch_damage(label, "reading the schema version", || {
        Ok(peek_version(path, label))
    })
    .ok()
    .flatten()
}

fn peek_version(path: &Path, label: &str) -> Option<u32> {
    let db = match Builder::new().open_read_only(path) {
        Ok(db) => db,
        Err(redb::DatabaseError::RepairAborted) => {
            return match crate::ReadOnlyStore::open(path) {
                Err(StoreError::TooNew { found, .. }) => Some(found),
                _ => None,
            };
        }
        Err(_) => return None,
    };
    match migrate::inspect(&db, label) {
        Ok(FileState::Version(v)) => Some(v),
        _ => None,
    }
}
