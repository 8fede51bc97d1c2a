//! Opening a store file: created owner-only when missing, handed to redb in the chosen process
//! mode, and checked to hold our tables with our types.
//!
//! A missing file is created under a temporary name, initialised by redb, fsynced, and only
//! then linked in place (and its directory fsynced): redb writes a new file's magic number
//! last, so a crash part way through creating it in place would leave a file that every later
//! open refuses as "not a redb database".

use crate::crash::{CrashHook, CrashPoint};
use crate::errors::ResultExt;
use crate::options::StoreOptions;
use crate::tables::{BASE, HISTORY, META, MINED, MOVES, PENDING, RATES};
use docsuggest_schema::StoreError;
use redb::backends::FileBackend;
use redb::{Builder, ConcurrencyMode, Database, ReadableDatabase, StorageBackend};
use std::fs::{File, OpenOptions};
use std::io;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The redb page cache of a store: the file is small (a bounded ring plus rate rows), so the
/// default 1 GiB would only let the cache grow with the file.
const CACHE_BYTES: usize = 32 << 20;

fn builder(options: &StoreOptions) -> Builder {
    let mode = if options.multi_process {
        ConcurrencyMode::MultiWriter
    } else {
        ConcurrencyMode::ExclusiveWriter
    };
    let mut builder = Builder::new();
    builder
        .set_cache_size(CACHE_BYTES)
        .set_concurrency_mode(mode)
        // Verifies every page checksum at open, so a file damaged outside redb is reported as
        // corrupt instead of read as garbage or panicking later; on a full ring (35 MB) it
        // adds about 5 ms to an open.
        .set_check_integrity_on_open(true);
    builder
}

/// Opens (creating when missing, owner-only) the file, or the options' backend, with redb.
pub(crate) fn open_database(
    options: &StoreOptions,
    label: &str,
    hook: &CrashHook,
) -> Result<Database, StoreError> {
    let builder = builder(options);
    if let Some(factory) = &options.backend {
        let backend = factory.open().at(label, "opening")?;
        return builder
            .create_with_backend(Handle(backend))
            .at(label, "opening");
    }
    if !options.path.exists() {
        create(&options.path, &builder, label, hook)?;
    }
    let file = open_private(&options.path).at(label, "opening")?;
    let backend = FileBackend::new(file).at(label, "opening")?;
    builder.create_with_backend(backend).at(label, "opening")
}

/// Creates a new, empty redb file at `path`: built under a temporary name, then linked in
/// place, so `path` is only ever missing or a complete redb file. Another process creating
/// the same file at the same time wins or loses the link; both then open the one that won.
fn create(path: &Path, builder: &Builder, label: &str, hook: &CrashHook) -> Result<(), StoreError> {
    let io = |source: io::Error| StoreError::Io {
        path: label.to_string(),
        doing: "creating".into(),
        source,
    };
    make_private_dirs(path).map_err(io)?;
    let tmp = temporary_name(path);
    let made = (|| {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode_private()
            .open(&tmp)
            .map_err(io)?;
        let backend = FileBackend::new(file).at(label, "creating")?;
        let db = builder.create_with_backend(backend).at(label, "creating")?;
        db.close().at(label, "creating")?;
        File::open(&tmp).and_then(|f| f.sync_all()).map_err(io)?;
        hook.reached(CrashPoint::MidCreate);
        match std::fs::hard_link(&tmp, path) {
            Ok(()) => {}
            // Another process linked its new file first: open that one.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            // A file system without hard links: a rename, unless the file appeared meanwhile.
            Err(_) if !path.exists() => std::fs::rename(&tmp, path).map_err(io)?,
            Err(_) => {}
        }
        sync_parent(path).map_err(io)
    })();
    // Gone already after a rename; a leftover from a failure is useless.
    let _ = std::fs::remove_file(&tmp);
    made
}

/// `<path>.<pid>-<n>.tmp`: unique per process and per attempt.
fn temporary_name(path: &Path) -> PathBuf {
    static ATTEMPT: AtomicU64 = AtomicU64::new(0);
    docsuggest_schema::beside::beside(
        path,
        &format!(
            ".{}-{}.tmp",
            std::process::id(),
            ATTEMPT.fetch_add(1, Ordering::Relaxed)
        ),
    )
}

/// Makes a new directory entry durable: without it a power cut can lose a new file whose
/// contents were fsynced (a new store, with every commit acknowledged as durable; a backup).
pub(crate) fn sync_parent(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(parent)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Owner-only creation (0600) on Unix.
trait ModePrivate {
    fn mode_private(&mut self) -> &mut Self;
}

impl ModePrivate for OpenOptions {
    fn mode_private(&mut self) -> &mut Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            self.mode(0o600);
        }
        self
    }
}

/// Creates the missing parents of `path` with mode 0700: the store holds what agents did,
/// which is nobody else's business.
fn make_private_dirs(path: &Path) -> io::Result<()> {
    let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    if parent.exists() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(parent)
}

/// Opens `path` read-write; a file that appeared without us (an empty one, say) is created
/// 0600 too.
fn open_private(path: &Path) -> io::Result<File> {
    make_private_dirs(path)?;
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode_private()
        .open(path)
}

/// A boxed backend as redb takes it: every call passes through, locks included.
#[derive(Debug)]
struct Handle(Box<dyn StorageBackend>);

impl StorageBackend for Handle {
    fn len(&self) -> io::Result<u64> {
        self.0.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        self.0.read(offset, out)
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)
    }
    fn sync_data(&self) -> io::Result<()> {
        self.0.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.0.write(offset, data)
    }
    fn close(&self) -> io::Result<()> {
        self.0.close()
    }
    fn try_lock_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, redb::BackendError> {
        self.0.try_lock_range(start, end)
    }
    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, redb::BackendError> {
        self.0.try_lock_shared_range(start, end)
    }
    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), redb::BackendError> {
        self.0.lock_range(start, end)
    }
    fn lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<(), redb::BackendError> {
        self.0.lock_shared_range(start, end)
    }
    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), redb::BackendError> {
        self.0.unlock_range(start, end)
    }
    fn query_lock_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, redb::BackendError> {
        self.0.query_lock_range(start, end)
    }
}

/// Reads every byte of a backend's storage (the upgrade backup of a store on a backend).
pub(crate) fn read_all(backend: &dyn StorageBackend) -> io::Result<Vec<u8>> {
    let len = usize::try_from(backend.len()?).map_err(io::Error::other)?;
    let mut bytes = vec![0; len];
    backend.read(0, &mut bytes)?;
    Ok(bytes)
}

/// Opens every table with its expected types: a mismatch means the file is not ours.
pub(crate) fn verify_tables(db: &Database, label: &str) -> Result<(), StoreError> {
    let txn = db.begin_read().at(label, "checking tables")?;
    let doing = "checking tables";
    txn.open_table(RATES).at(label, doing)?;
    txn.open_table(BASE).at(label, doing)?;
    txn.open_table(HISTORY).at(label, doing)?;
    txn.open_table(MOVES).at(label, doing)?;
    txn.open_table(PENDING).at(label, doing)?;
    txn.open_table(META).at(label, doing)?;
    txn.open_table(MINED).at(label, doing)?;
    Ok(())
}
