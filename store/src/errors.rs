//! Maps every redb error into a [`StoreError`] that names the file and what the store was doing.
//!
//! redb has one error enum per operation; this module is the only place that looks inside them,
//! so the rest of the crate writes `.at(&path, "reading rates")?` and never matches on redb types.

use docsuggest_schema::StoreError;
use docsuggest_schema::codec::CodecError;
use redb::{
    CommitError, DatabaseError, SetDurabilityError, StorageError, TableError, TransactionError,
};
use std::cell::Cell;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A redb failure that can become a [`StoreError`].
pub(crate) trait RedbFailure {
    /// The store error for this failure, on the file `path`, while `doing` something.
    fn into_store(self, path: &str, doing: &str) -> StoreError;
}

/// Adds the file and the action to a redb result.
pub(crate) trait ResultExt<T> {
    /// Converts the error, naming the file `path` and the action `doing`.
    fn at(self, path: &str, doing: &str) -> Result<T, StoreError>;
}

impl<T, E: RedbFailure> ResultExt<T> for Result<T, E> {
    fn at(self, path: &str, doing: &str) -> Result<T, StoreError> {
        self.map_err(|e| e.into_store(path, doing))
    }
}

/// A value that could not be decoded, named by table and key.
pub(crate) fn codec(table: &str, key: impl std::fmt::Display, source: CodecError) -> StoreError {
    StoreError::Codec {
        what: format!("{table}[{key}]"),
        source,
    }
}

/// A value that could not be encoded (only a bug can cause it, but it must not panic).
pub(crate) fn encode_failed(what: &str, source: CodecError) -> StoreError {
    StoreError::Codec {
        what: format!("{what} (encoding)"),
        source,
    }
}

/// What to do about a damaged file, said with every error that finds one.
pub(crate) const DAMAGED_ADVICE: &str = "the file is damaged: restore it from a backup, or move \
     it aside (the next `docsuggest serve` then starts an empty store)";

thread_local! {
    /// How many [`catch_damage`] calls the current thread is inside.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f`, which reads the store file `path`; a panic inside it becomes
/// [`StoreError::Corrupt`] naming the file, what was being done and the panic's message.
///
/// redb trusts a file it closed cleanly and may panic reading one damaged outside it (an index
/// out of range, say). Every open and read of a store for inspection, export, import and
/// `check` runs inside this boundary, so such a file is reported as corrupt, never as a crash.
/// Nothing `f` touched outlives it except through its result, so unwinding out of it leaves no
/// broken state behind (hence `AssertUnwindSafe`).
pub fn catch_damage<T>(
    path: &str,
    doing: &str,
    f: impl FnOnce() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    CATCHING.with(|c| c.set(c.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(c.get() - 1));
    result.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Err(corrupt(
            path,
            format!("{doing}: redb failed reading it ({message}); {DAMAGED_ADVICE}"),
        ))
    })
}

/// Installs (once per process) a panic hook that stays silent for a panic [`catch_damage`]
/// catches, and hands every other panic to the hook it replaces. A command-line tool calls it
/// first, so a damaged store is one clear error line, not a panic message followed by one.
pub fn quiet_caught_panics() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CATCHING.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

fn corrupt(path: &str, detail: String) -> StoreError {
    StoreError::Corrupt {
        path: path.to_string(),
        detail,
    }
}

fn backend(
    path: &str,
    doing: &str,
    source: impl std::error::Error + Send + Sync + 'static,
) -> StoreError {
    StoreError::Database {
        path: path.to_string(),
        doing: doing.to_string(),
        source: Box::new(source),
    }
}

pub(crate) fn io_error(path: &str, doing: &str, e: &io::Error) -> StoreError {
    match e.kind() {
        // redb reports a foreign file's magic number and a short read of the header this way.
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => {
            corrupt(path, format!("{doing}: {e}"))
        }
        _ => StoreError::Io {
            path: path.to_string(),
            doing: doing.to_string(),
            source: io::Error::new(e.kind(), e.to_string()),
        },
    }
}

impl RedbFailure for StorageError {
    fn into_store(self, path: &str, doing: &str) -> StoreError {
        match self {
            StorageError::Corrupted(detail) => corrupt(path, format!("{doing}: {detail}")),
            StorageError::Io(e) => io_error(path, doing, &e),
            StorageError::ValueTooLarge(n) => StoreError::Backend(format!(
                "{path}: {doing}: a value of {n} bytes is too large"
            )),
            StorageError::PreviousIo => StoreError::Io {
                path: path.to_string(),
                doing: doing.to_string(),
                source: io::Error::other(
                    "an earlier write failed; the store must be reopened before it is used again",
                ),
            },
            other => backend(path, doing, other),
        }
    }
}

impl RedbFailure for DatabaseError {
    fn into_store(self, path: &str, doing: &str) -> StoreError {
        match self {
            // Another handle holds the file; an older or newer redb in another process may also
            // refuse us with a protocol mismatch, which for the user is the same situation.
            DatabaseError::DatabaseAlreadyOpen | DatabaseError::LockProtocolMismatch => {
                StoreError::Locked {
                    path: path.to_string(),
                }
            }
            DatabaseError::RepairAborted => corrupt(
                path,
                format!("{doing}: the file needs a repair and the repair did not complete"),
            ),
            DatabaseError::UpgradeRequired(v) => corrupt(
                path,
                format!(
                    "{doing}: the file uses redb file format {v}, which this build cannot read \
                     (upgrade it with the redb version that wrote it)"
                ),
            ),
            DatabaseError::Storage(e) => e.into_store(path, doing),
            other => backend(path, doing, other),
        }
    }
}

impl RedbFailure for TableError {
    fn into_store(self, path: &str, doing: &str) -> StoreError {
        match self {
            TableError::Storage(e) => e.into_store(path, doing),
            // A table of ours with other types, or missing, means the file is not our store.
            e @ (TableError::TableTypeMismatch { .. }
            | TableError::TableIsMultimap(_)
            | TableError::TableIsNotMultimap(_)
            | TableError::TypeDefinitionChanged { .. }
            | TableError::TableDoesNotExist(_)) => corrupt(path, format!("{doing}: {e}")),
            other => backend(path, doing, other),
        }
    }
}

impl RedbFailure for TransactionError {
    fn into_store(self, path: &str, doing: &str) -> StoreError {
        match self {
            TransactionError::Storage(e) => e.into_store(path, doing),
            other => backend(path, doing, other),
        }
    }
}

impl RedbFailure for CommitError {
    fn into_store(self, path: &str, doing: &str) -> StoreError {
        match self {
            CommitError::Storage(e) => e.into_store(path, doing),
            other => backend(path, doing, other),
        }
    }
}

impl RedbFailure for SetDurabilityError {
    fn into_store(self, path: &str, doing: &str) -> StoreError {
        backend(path, doing, self)
    }
}

impl RedbFailure for io::Error {
    fn into_store(self, path: &str, doing: &str) -> StoreError {
        io_error(path, doing, &self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(err: impl RedbFailure, expect: &str) {
        assert_eq!(err.into_store("/s.redb", "opening").to_string(), expect);
    }

    #[test]
    fn a_database_error_keeps_the_library_error_as_its_source() {
        let e = redb::SetDurabilityError::NonDurableCommitUnsupported
            .into_store("s.redb", "committing");
        let text = e.to_string();
        assert!(
            text.starts_with("store backend failed: s.redb: committing: "),
            "{text}"
        );
        let source = std::error::Error::source(&e).expect("the redb error is kept");
        assert!(source.downcast_ref::<redb::SetDurabilityError>().is_some());
        assert!(text.ends_with(&source.to_string()), "{text}");
    }

    #[test]
    fn errors_name_the_file_and_the_action() {
        check(
            DatabaseError::DatabaseAlreadyOpen,
            "store /s.redb is locked by another process (redb allows one process per file; see docs/STORE.md)",
        );
        check(
            StorageError::Corrupted("bad checksum".into()),
            "store /s.redb is corrupt or not a docsuggest store: opening: bad checksum",
        );
        check(
            io::Error::new(io::ErrorKind::InvalidData, "magic number mismatch"),
            "store /s.redb is corrupt or not a docsuggest store: opening: magic number mismatch",
        );
        check(
            io::Error::new(io::ErrorKind::PermissionDenied, "denied"),
            "store I/O failed on /s.redb: opening: denied",
        );
        check(
            TableError::TableDoesNotExist("rates".into()),
            "store /s.redb is corrupt or not a docsuggest store: opening: Table 'rates' does not exist",
        );
        check(
            DatabaseError::UpgradeRequired(2),
            "store /s.redb is corrupt or not a docsuggest store: opening: the file uses redb file \
             format 2, which this build cannot read (upgrade it with the redb version that wrote it)",
        );
    }
}
