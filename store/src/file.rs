//! Opening a store file: created owner-only when missing, handed to redb in the chosen process
//! mode, and checked to hold our tables with our types.

use crate::errors::ResultExt;
use crate::options::StoreOptions;
use crate::tables::{BASE, HISTORY, META, PENDING, RATES};
use docsuggest_schema::StoreError;
use redb::backends::FileBackend;
use redb::{Builder, ConcurrencyMode, Database, ReadableDatabase};
use std::fs::{File, OpenOptions};
use std::path::Path;

/// The redb page cache of a store: the file is small (a bounded ring plus rate rows), so the
/// default 1 GiB would only let the cache grow with the file.
const CACHE_BYTES: usize = 32 << 20;

/// Opens (creating when missing, owner-only) the file and hands it to redb.
pub(crate) fn open_database(options: &StoreOptions, label: &str) -> Result<Database, StoreError> {
    let file = create_private(&options.path).at(label, "opening")?;
    let backend = FileBackend::new(file).at(label, "opening")?;
    let mode = if options.multi_process {
        ConcurrencyMode::MultiWriter
    } else {
        ConcurrencyMode::ExclusiveWriter
    };
    Builder::new()
        .set_cache_size(CACHE_BYTES)
        .set_concurrency_mode(mode)
        // Verifies every page checksum at open, so a file damaged outside redb is reported as
        // corrupt instead of read as garbage or panicking later; on a full ring (35 MB) it
        // adds about 5 ms to an open.
        .set_check_integrity_on_open(true)
        .create_with_backend(backend)
        .at(label, "opening")
}

/// Opens `path` read-write, creating it with mode 0600 (and missing parents with 0700): the
/// store holds what agents did, which is nobody else's business.
fn create_private(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        options.mode(0o600);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.exists() {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)?;
            }
        }
    }
    #[cfg(not(unix))]
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    options.open(path)
}

/// Opens every table with its expected types: a mismatch means the file is not ours.
pub(crate) fn verify_tables(db: &Database, label: &str) -> Result<(), StoreError> {
    let txn = db.begin_read().at(label, "checking tables")?;
    let doing = "checking tables";
    txn.open_table(RATES).at(label, doing)?;
    txn.open_table(BASE).at(label, doing)?;
    txn.open_table(HISTORY).at(label, doing)?;
    txn.open_table(PENDING).at(label, doing)?;
    txn.open_table(META).at(label, doing)?;
    Ok(())
}
