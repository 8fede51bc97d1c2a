//! Opening a store file for inspection only: redb's read-only mode, so the file's bytes never
//! change, whoever may read it.
//!
//! redb refuses a read-only open of a file that was not closed cleanly (a process holding it
//! died), because opening it needs a repair. Inspection then reads a private copy, repaired,
//! and says so; the file itself stays as it is until its next writer repairs it. redb's page
//! check likewise needs a writable database, so [`ReadOnlyStore::check_integrity`] runs it on
//! a private copy taken while the read-only handle keeps writers out.

use crate::errors::{RedbFailure, ResultExt};
use crate::fold::check_fold;
use crate::migrate::SCHEMA_VERSION;
use crate::reader::StoreView;
use crate::redb_store::{IntegrityReport, RedbCheck};
use crate::tables::{self, META, TABLE_NAMES, meta};
use docsuggest_schema::{MinedPack, StoreError};
use redb::{Builder, DatabaseError, ReadOnlyDatabase, ReadableDatabase, TableHandle};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A store file opened read-only.
pub struct ReadOnlyStore {
    db: ReadOnlyDatabase,
    path: PathBuf,
    label: Arc<str>,
    /// The repaired private copy read instead of a file that was not closed cleanly.
    copy: Option<PrivateCopy>,
}

impl std::fmt::Debug for ReadOnlyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOnlyStore")
            .field("path", &self.path)
            .field("unclean", &self.copy.is_some())
            .finish()
    }
}

impl ReadOnlyStore {
    /// Opens an existing store file without ever writing to it.
    ///
    /// Errors: [`StoreError::Locked`] while a writer (a `docsuggest serve`) holds the file,
    /// [`StoreError::TooNew`] for a newer schema, [`StoreError::Corrupt`] for a file that is
    /// not a store, is damaged, or has an older schema (which only a writable open upgrades),
    /// [`StoreError::Io`] when the file cannot be read.
    pub fn open(path: &Path) -> Result<ReadOnlyStore, StoreError> {
        let label: Arc<str> = path.display().to_string().into();
        let doing = "opening read-only";
        let (db, copy) = match Builder::new().open_read_only(path) {
            Ok(db) => (db, None),
            Err(DatabaseError::RepairAborted) => {
                let copy = PrivateCopy::of(path, &label)?;
                // A writable open of the copy repairs it; the copy is then read like the file.
                drop(
                    Builder::new()
                        .open(&copy.path)
                        .at(&label, "repairing a private copy")?,
                );
                let db = Builder::new()
                    .open_read_only(&copy.path)
                    .at(&label, "opening a repaired private copy")?;
                (db, Some(copy))
            }
            Err(e) => return Err(e.into_store(&label, doing)),
        };
        let store = ReadOnlyStore {
            db,
            path: path.to_path_buf(),
            label,
            copy,
        };
        store.check_schema()?;
        Ok(store)
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file was not closed cleanly, so what is read comes from a repaired private
    /// copy (the file itself is repaired by its next writer).
    pub fn was_unclean(&self) -> bool {
        self.copy.is_some()
    }

    /// A snapshot of every table.
    pub fn view(&self) -> Result<StoreView, StoreError> {
        StoreView::begin_on(&self.db, &self.label)
    }

    /// The pack mined for the workspace key `workspace`, if the file keeps one.
    pub fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        self.view()?.mined_pack(workspace)
    }

    /// Every mined pack the file keeps, by workspace key.
    pub fn mined_packs(&self) -> Result<Vec<(String, MinedPack)>, StoreError> {
        self.view()?.mined_packs()
    }

    /// redb's page check, run on a private copy of the file (redb checks only a writable
    /// database), then the fold invariant on this handle's snapshot.
    pub fn check_integrity(&self) -> Result<IntegrityReport, StoreError> {
        let source = self.copy.as_ref().map_or(self.path.as_path(), |c| &c.path);
        let copy = PrivateCopy::of(source, &self.label)?;
        let passed = {
            let mut db = Builder::new()
                .open(&copy.path)
                .at(&self.label, "checking integrity on a private copy")?;
            db.check_integrity()
                .at(&self.label, "checking integrity on a private copy")?
        };
        drop(copy);
        Ok(IntegrityReport {
            redb: if passed {
                RedbCheck::Passed
            } else {
                RedbCheck::Repaired
            },
            fold: check_fold(&self.view()?)?,
        })
    }

    /// Releases the file.
    pub fn close(self) -> Result<(), StoreError> {
        self.db.close().at(&self.label, "closing")
    }

    fn check_schema(&self) -> Result<(), StoreError> {
        let label = &*self.label;
        let corrupt = |detail: String| StoreError::Corrupt {
            path: label.to_string(),
            detail,
        };
        let txn = self
            .db
            .begin_read()
            .at(label, "reading the schema version")?;
        let names: Vec<String> = txn
            .list_tables()
            .at(label, "listing tables")?
            .map(|t| t.name().to_string())
            .collect();
        if !names.iter().any(|n| n == META.name()) {
            return Err(corrupt(format!(
                "not a docsuggest store: it holds tables [{}] but no meta table (expected {})",
                names.join(", "),
                TABLE_NAMES.join(", ")
            )));
        }
        let table = txn.open_table(META).at(label, "reading meta")?;
        let version = tables::read_meta(label, &table, meta::SCHEMA_VERSION)?;
        let version = u32::try_from(version)
            .map_err(|_| corrupt(format!("meta schema_version {version} is not a number")))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                path: label.to_string(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        if version < SCHEMA_VERSION {
            return Err(corrupt(format!(
                "schema version {version} is older than {SCHEMA_VERSION}; a read-only open \
                 cannot upgrade it (run `docsuggest migrate` first)"
            )));
        }
        // Every table of the layout, with its types.
        let _ = self.view()?.marks()?;
        Ok(())
    }
}

/// A private (0600) copy of a store file in the temporary directory, removed when dropped.
struct PrivateCopy {
    path: PathBuf,
}

impl PrivateCopy {
    fn of(source: &Path, label: &str) -> Result<PrivateCopy, StoreError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "docsuggest-inspect-{}-{}.redb",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let copy = PrivateCopy {
            path: std::env::temp_dir().join(name),
        };
        let doing = "copying the file for a read-only check";
        let mut from = std::fs::File::open(source).at(label, doing)?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut to = options.open(&copy.path).at(label, doing)?;
        std::io::copy(&mut from, &mut to).at(label, doing)?;
        Ok(copy)
    }
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        // A copy left behind holds only what the store file holds, owner-only.
        let _ = std::fs::remove_file(&self.path);
    }
}
