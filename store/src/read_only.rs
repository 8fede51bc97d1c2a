//! Opening a store file for inspection only: redb's read-only mode, so the file's bytes never
//! change, whoever may read it.
//!
//! redb trusts a file it closed cleanly: a read-only open verifies nothing, and a byte damaged
//! outside redb is then read as if it were data (a sequence number, a score) or makes redb
//! panic. [`ReadOnlyStore::open`] therefore verifies before anything is read: once the
//! read-only handle keeps writers out, the file's bytes are read into memory and redb's page
//! check (every checksum of the committed trees, the allocator state, the table counts) runs
//! on that image, which the check may repair without touching the file. A file that does not
//! pass is refused as [`StoreError::Corrupt`]; a panic inside redb while opening, verifying or
//! reading is caught and refused the same way ([`crate::catch_damage`]).
//!
//! redb refuses a read-only open of a file that was not closed cleanly (a process holding it
//! died), because opening it needs a repair. Inspection then reads a private copy, repaired
//! and verified, and says so; the file itself stays as it is until its next writer repairs it.
//!
//! redb also refuses a read-only open while a writer holds the file (a `docsuggest serve` or
//! the socket daemon, which keeps it for up to 30 idle minutes).
//! [`ReadOnlyStore::open_beside_writer`] then reads a private copy taken while the file stood
//! still ([`held`]), which is the file a kill of the writer at that moment would have left:
//! repaired and verified the same way, it holds the writer's last durable commit.

use crate::errors::{DAMAGED_ADVICE, RedbFailure, ResultExt, catch_damage};
use crate::fold::check_fold;
use crate::migrate::SCHEMA_VERSION;
use crate::reader::StoreView;
use crate::redb_store::{IntegrityReport, RedbCheck};
use crate::tables::{self, META, TABLE_NAMES, meta};
use docsuggest_schema::{MinedPack, StoreError};
use redb::{
    Builder, Database, DatabaseError, ReadOnlyDatabase, ReadableDatabase, StorageBackend,
    TableHandle,
};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

mod held;

/// What the verification says it is doing, in errors.
const VERIFYING: &str = "verifying before reading";

/// A store file opened read-only.
pub struct ReadOnlyStore {
    db: ReadOnlyDatabase,
    path: PathBuf,
    label: Arc<str>,
    /// The repaired private copy read instead of the file, and why.
    copy: Option<(PrivateCopy, Copied)>,
}

/// Why a [`ReadOnlyStore`] reads a private copy instead of its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Copied {
    /// The file was not closed cleanly and no process holds it.
    Unclean,
    /// A writer holds the file.
    Held,
}

impl std::fmt::Debug for ReadOnlyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadOnlyStore")
            .field("path", &self.path)
            .field("copy", &self.copy.as_ref().map(|(_, why)| why))
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
        catch_damage(&label, "opening read-only", || {
            ReadOnlyStore::open_verified(path, label.clone())
        })
    }

    fn open_verified(path: &Path, label: Arc<str>) -> Result<ReadOnlyStore, StoreError> {
        let doing = "opening read-only";
        let (db, copy) = match Builder::new().open_read_only(path) {
            Ok(db) => {
                // The read-only handle keeps writers out, so the image is what it reads.
                verify_image(path, &label)?;
                (db, None)
            }
            Err(DatabaseError::RepairAborted) => {
                let copy = PrivateCopy::of(path, &label)?;
                let db = open_copy(&copy, &label)?;
                (db, Some((copy, Copied::Unclean)))
            }
            Err(e) => return Err(refused(e, &label, doing)),
        };
        ReadOnlyStore::checked(db, path, label, copy)
    }

    /// Opens like [`Self::open`], and reads a file that another process holds for writing
    /// (redb's lock refuses [`Self::open`] then) through a private copy instead: one taken
    /// while the file stood still, repaired and verified as a file left by a killed writer
    /// is, so it holds the writer's last durable commit ([`Self::was_held`]). A copy that
    /// fails verification is taken again (the writer may have committed twice while it was
    /// read) before the file is called damaged. The file is never written.
    pub fn open_beside_writer(path: &Path) -> Result<ReadOnlyStore, StoreError> {
        match ReadOnlyStore::open(path) {
            Err(StoreError::Locked { .. }) => {}
            other => return other,
        }
        let label: Arc<str> = path.display().to_string().into();
        let mut attempt = 1;
        loop {
            let opened = catch_damage(&label, "reading a copy of a held file", || {
                let copy = held::steady_copy(path, &label)?;
                let db = open_copy(&copy, &label)?;
                ReadOnlyStore::checked(db, path, label.clone(), Some((copy, Copied::Held)))
            });
            match opened {
                Err(StoreError::Corrupt { .. }) if attempt < held::ATTEMPTS => attempt += 1,
                other => return other,
            }
        }
    }

    fn checked(
        db: ReadOnlyDatabase,
        path: &Path,
        label: Arc<str>,
        copy: Option<(PrivateCopy, Copied)>,
    ) -> Result<ReadOnlyStore, StoreError> {
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
        matches!(self.copy, Some((_, Copied::Unclean)))
    }

    /// Whether another process held the file for writing, so what is read comes from a copy
    /// holding that writer's last durable commit ([`Self::open_beside_writer`]).
    pub fn was_held(&self) -> bool {
        matches!(self.copy, Some((_, Copied::Held)))
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

    /// redb's page check and the fold invariant. The page check is the one [`Self::open`]
    /// ran before anything was read (a file that failed it was never opened), so only the
    /// fold invariant is checked here, on this handle's snapshot.
    pub fn check_integrity(&self) -> Result<IntegrityReport, StoreError> {
        Ok(IntegrityReport {
            redb: RedbCheck::Passed,
            fold: catch_damage(&self.label, "checking the fold invariant", || {
                check_fold(&self.view()?)
            })?,
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

/// Verifies the store file `path` as redb's page check sees it, without writing to it: the
/// check runs on an [`Image`] of the file, which reads the file and keeps what the check
/// writes (it repairs what it can) in memory.
fn verify_image(path: &Path, label: &str) -> Result<(), StoreError> {
    let image = Image::of(path).at(label, VERIFYING)?;
    let mut db = Builder::new()
        // The check reads every page once; a cache would only hold what is never read again.
        .set_cache_size(0)
        .create_with_backend(image)
        .map_err(|e| refused(e, label, VERIFYING))?;
    verify(&mut db, label)
}

/// Repairs the private copy `copy` with a writable open (as the file's next writer would),
/// verifies it, and opens it read-only.
fn open_copy(copy: &PrivateCopy, label: &str) -> Result<ReadOnlyDatabase, StoreError> {
    let mut repaired = Builder::new()
        .open(&copy.path)
        .map_err(|e| refused(e, label, "repairing a private copy"))?;
    verify(&mut repaired, label)?;
    drop(repaired);
    Builder::new()
        .open_read_only(&copy.path)
        .at(label, "opening a repaired private copy")
}

/// redb's page check on an open database holding a copy of the store: a check that fails, or
/// that had to repair anything, means the file is damaged.
fn verify(db: &mut Database, label: &str) -> Result<(), StoreError> {
    match db.check_integrity() {
        Ok(true) => Ok(()),
        Ok(false) => Err(StoreError::Corrupt {
            path: label.to_string(),
            detail: format!(
                "{VERIFYING}: redb's page check failed (a page checksum, the allocator state or \
                 a table count does not match); {DAMAGED_ADVICE}"
            ),
        }),
        Err(e) => Err(damaged(label, &e.into_store(label, VERIFYING))),
    }
}

/// An open redb refused: a file it finds damaged is corrupt, with what to do about it; any
/// other refusal (locked, not a redb file, unreadable) is said as it is.
fn refused(e: DatabaseError, label: &str, doing: &str) -> StoreError {
    let damage = matches!(&e, DatabaseError::Storage(redb::StorageError::Corrupted(_)));
    let error = e.into_store(label, doing);
    if damage {
        damaged(label, &error)
    } else {
        error
    }
}

/// A verification failure as corruption, with what to do about it.
fn damaged(label: &str, error: &StoreError) -> StoreError {
    let detail = match error {
        StoreError::Corrupt { detail, .. } => detail.clone(),
        other => format!("{VERIFYING}: {other}"),
    };
    StoreError::Corrupt {
        path: label.to_string(),
        detail: format!("{detail}; {DAMAGED_ADVICE}"),
    }
}

/// A store file as a redb backend that never writes to it: reads come from the file, writes
/// (a repair's) go to pages kept in memory, which later reads see instead.
#[derive(Debug)]
struct Image {
    file: Mutex<File>,
    state: Mutex<Overlay>,
}

/// What was written to an [`Image`]: its length, how much of the file still shows through,
/// and the pages written.
#[derive(Debug)]
struct Overlay {
    len: u64,
    /// File bytes past this were cut off by a `set_len` (a growth after it reads zeros).
    base: u64,
    pages: HashMap<u64, Box<[u8]>>,
}

/// The granularity of the pages an [`Image`] keeps.
const IMAGE_PAGE: u64 = 4096;

impl Image {
    fn of(path: &Path) -> io::Result<Image> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Image {
            file: Mutex::new(file),
            state: Mutex::new(Overlay {
                len,
                base: len,
                pages: HashMap::new(),
            }),
        })
    }

    /// The file's own bytes at `offset` (zeros past `base`), ignoring written pages.
    fn read_base(&self, base: u64, offset: u64, out: &mut [u8]) -> io::Result<()> {
        out.fill(0);
        if offset < base {
            let n = usize::try_from((base - offset).min(out.len() as u64)).unwrap_or(out.len());
            let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(&mut out[..n])?;
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Overlay> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The pages `offset..offset + n` touches, each with the part of the range inside it.
fn pages(offset: u64, n: usize) -> impl Iterator<Item = (u64, u64, u64)> {
    let end = offset + n as u64;
    let first = offset / IMAGE_PAGE;
    let last = end.div_ceil(IMAGE_PAGE);
    (first..last).map(move |p| {
        let start = (p * IMAGE_PAGE).max(offset);
        (p, start, ((p + 1) * IMAGE_PAGE).min(end))
    })
}

impl StorageBackend for Image {
    fn len(&self) -> io::Result<u64> {
        Ok(self.lock().len)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let state = self.lock();
        if offset
            .checked_add(out.len() as u64)
            .is_none_or(|end| end > state.len)
        {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "a read past the end of the file",
            ));
        }
        self.read_base(state.base, offset, out)?;
        if !state.pages.is_empty() {
            for (p, start, end) in pages(offset, out.len()) {
                if let Some(page) = state.pages.get(&p) {
                    let from = (start - p * IMAGE_PAGE) as usize;
                    let to = (start - offset) as usize;
                    let n = (end - start) as usize;
                    out[to..to + n].copy_from_slice(&page[from..from + n]);
                }
            }
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = self.lock();
        if len < state.len {
            state.base = state.base.min(len);
            state.pages.retain(|&p, _| p * IMAGE_PAGE < len);
            let cut = len % IMAGE_PAGE;
            if let Some(page) = state.pages.get_mut(&(len / IMAGE_PAGE)) {
                page[cut as usize..].fill(0);
            }
        }
        state.len = len;
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut state = self.lock();
        if offset
            .checked_add(data.len() as u64)
            .is_none_or(|end| end > state.len)
        {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "a write past the end of the file",
            ));
        }
        let base = state.base;
        for (p, start, end) in pages(offset, data.len()) {
            let page = match state.pages.entry(p) {
                Entry::Occupied(page) => page.into_mut(),
                Entry::Vacant(slot) => {
                    let mut page = vec![0; IMAGE_PAGE as usize].into_boxed_slice();
                    self.read_base(base, p * IMAGE_PAGE, &mut page)?;
                    slot.insert(page)
                }
            };
            let from = (start - offset) as usize;
            let to = (start - p * IMAGE_PAGE) as usize;
            let n = (end - start) as usize;
            page[to..to + n].copy_from_slice(&data[from..from + n]);
        }
        Ok(())
    }
}

/// A private (0600) copy of a store file in the temporary directory, removed when dropped.
/// Its name is tempfile's, random and created exclusively: a name made of the process id
/// met a copy a killed process with the same id had left behind. (A copy left behind holds
/// only what the store file holds, owner-only.)
struct PrivateCopy {
    path: tempfile::TempPath,
}

impl PrivateCopy {
    fn of(source: &Path, label: &str) -> Result<PrivateCopy, StoreError> {
        let doing = "copying the file to repair it privately";
        let mut from = std::fs::File::open(source).at(label, doing)?;
        let mut to = tempfile::Builder::new()
            .prefix("docsuggest-inspect-")
            .suffix(".redb")
            .tempfile()
            .at(label, doing)?;
        std::io::copy(&mut from, to.as_file_mut()).at(label, doing)?;
        Ok(PrivateCopy {
            path: to.into_temp_path(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{decision, mv, reject};
    use crate::{RedbStore, StoreOptions};
    use docsuggest_schema::{DecisionStore, Durability, Outcome, SilenceReason, StoreContents};

    fn history_len(store: &ReadOnlyStore) -> usize {
        store
            .view()
            .and_then(|v| v.history())
            .expect("history")
            .len()
    }

    #[test]
    fn a_held_file_is_read_as_its_writer_last_made_it_durable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.redb");
        let mut options = StoreOptions::new(path.clone());
        options.durability = Durability::Group;
        options.flush_interval = std::time::Duration::from_secs(3600);
        let mut writer = RedbStore::open(options).expect("open");
        let seq = writer.record_pending(decision("Plan")).expect("pending");
        writer
            .resolve(reject(seq, vec![mv("Plan", "A.md", -0.2)]))
            .expect("resolve");
        writer.flush().expect("flush");
        // Written by a non-durable commit (a silence), so not yet durable.
        let seq = writer.record_pending(decision("Plan")).expect("pending");
        writer
            .resolve(reject(seq, vec![mv("Plan", "B.md", -0.2)]))
            .expect("resolve");
        let mut silence = decision("Plan");
        silence.outcome = Outcome::Silent;
        silence.silence = Some(SilenceReason::LowConfidence);
        writer.record_silent(silence).expect("silent");
        assert_eq!(writer.history().expect("history").len(), 3);

        assert!(matches!(
            ReadOnlyStore::open(&path),
            Err(StoreError::Locked { .. })
        ));
        let bytes = std::fs::read(&path).expect("read");
        let store = ReadOnlyStore::open_beside_writer(&path).expect("a copy of the held file");
        assert!(store.was_held() && !store.was_unclean());
        assert_eq!(history_len(&store), 1, "the last durable commit");
        assert!(store.check_integrity().expect("check").is_ok());
        store.close().expect("close");
        assert!(
            std::fs::read(&path).expect("read") == bytes,
            "bytes changed"
        );

        writer.flush().expect("flush");
        let store = ReadOnlyStore::open_beside_writer(&path).expect("a copy of the held file");
        assert_eq!(history_len(&store), 3, "every commit, once flushed");
        store.close().expect("close");
        writer.close().expect("close");
        // Nobody holds it now: the file itself is read.
        let store = ReadOnlyStore::open_beside_writer(&path).expect("the file");
        assert!(!store.was_held() && !store.was_unclean());
        assert_eq!(history_len(&store), 3);
    }

    #[test]
    fn an_image_keeps_writes_in_memory_and_never_touches_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).expect("write");
        let image = Image::of(&path).expect("image");
        let read = |offset: u64, n: usize| {
            let mut out = vec![0xaa; n];
            image.read(offset, &mut out).map(|()| out)
        };
        assert_eq!(image.len().expect("len"), 10_000);
        assert_eq!(read(0, 10_000).expect("read"), bytes);
        // A write across a page boundary is read back, and the bytes around it are the file's.
        image.write(4090, &[1; 12]).expect("write");
        let mut expect = bytes.clone();
        expect[4090..4102].fill(1);
        assert_eq!(read(0, 10_000).expect("read"), expect);
        assert_eq!(read(4095, 2).expect("read"), vec![1, 1]);
        // Past the end is an error, never the file's bytes or zeros.
        assert_eq!(
            read(9_999, 2).expect_err("past the end").kind(),
            io::ErrorKind::UnexpectedEof
        );
        assert!(image.write(10_000, &[1]).is_err());
        // Cut, then grown again: what was cut off reads as zeros.
        image.set_len(4096).expect("shrink");
        image.set_len(8192).expect("grow");
        let grown = read(0, 8192).expect("read");
        assert_eq!(grown[..4096], expect[..4096]);
        assert!(grown[4096..].iter().all(|&b| b == 0));
        image.set_len(4093).expect("shrink into a written page");
        image.set_len(4100).expect("grow");
        assert_eq!(
            read(4090, 10).expect("read"),
            [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            std::fs::read(&path).expect("read"),
            bytes,
            "the file is untouched"
        );
    }
}
