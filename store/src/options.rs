//! How a redb store is opened: file, durability, ring bound and process model.

use docsuggest_schema::{Config, Durability};
use redb::StorageBackend;
use std::fmt;
use std::panic::RefUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Everything [`RedbStore::open`](crate::RedbStore::open) needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreOptions {
    /// The store file; created (mode 0600, parent directories 0700) when missing.
    pub path: PathBuf,
    /// `Immediate` fsyncs every commit; `Group` fsyncs at least once per `flush_interval`.
    pub durability: Durability,
    /// In `Group` durability, the longest time between fsynced commits while commits flow.
    pub flush_interval: Duration,
    /// The bound of the resolved history; older entries are folded into the base table.
    pub ring_capacity: u64,
    /// Share the file between processes (redb's multi-writer mode). Every commit is then
    /// fsynced, and pending decisions are not abandoned at open (they may be another live
    /// process's open windows). Off by default: one process per file.
    pub multi_process: bool,
    /// Where the bytes live when they are not the file at `path`; `None` (the default, and
    /// what hosts use) means the file. `path` still names the store in messages and places
    /// the upgrade backup.
    pub backend: Option<BackendFactory>,
    /// The run id this handle's resolutions are recorded under (the `lineage` table, which
    /// tells a copied store file from its original); `None` (the default, and what every host
    /// must use) draws one at random. Fixed only where a file must come out the same byte for
    /// byte (tests).
    pub run: Option<u64>,
}

/// `RefUnwindSafe`, so options stay unwind-safe and opening can sit in `catch_unwind`.
type MakeBackend =
    dyn Fn() -> std::io::Result<Box<dyn StorageBackend>> + Send + Sync + RefUnwindSafe;

/// Makes redb storage backends that are all handles on the same bytes.
///
/// A store opens its database more than once (an upgrade closes the file, copies it aside and
/// reopens it), and redb closes a backend when it drops the database, so options carry a
/// factory rather than one backend. The crash tests put a fault-injecting backend under a real
/// store this way; nothing else needs it.
#[derive(Clone)]
pub struct BackendFactory(Arc<MakeBackend>);

impl BackendFactory {
    /// A factory calling `make` for each handle.
    pub fn new(
        make: impl Fn() -> std::io::Result<Box<dyn StorageBackend>>
        + Send
        + Sync
        + RefUnwindSafe
        + 'static,
    ) -> BackendFactory {
        BackendFactory(Arc::new(make))
    }

    /// A new handle on the storage.
    pub fn open(&self) -> std::io::Result<Box<dyn StorageBackend>> {
        (self.0)()
    }
}

impl fmt::Debug for BackendFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BackendFactory(..)")
    }
}

/// Two factories are equal when they are the same factory.
impl PartialEq for BackendFactory {
    fn eq(&self, other: &BackendFactory) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for BackendFactory {}

impl StoreOptions {
    /// Options for `path` with the defaults of [`Config`].
    pub fn new(path: impl Into<PathBuf>) -> StoreOptions {
        StoreOptions::from_config(path, &Config::default())
    }

    /// Options for `path` (already `~`-expanded by the host) with the store fields of `config`.
    pub fn from_config(path: impl Into<PathBuf>, config: &Config) -> StoreOptions {
        StoreOptions {
            path: path.into(),
            durability: config.durability,
            flush_interval: Duration::from_millis(config.flush_interval_ms),
            ring_capacity: config.ring_capacity,
            multi_process: false,
            backend: None,
            run: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_come_from_the_config() {
        let o = StoreOptions::new("/tmp/s.redb");
        assert_eq!(o.durability, Durability::Group);
        assert_eq!(o.flush_interval, Duration::from_millis(1000));
        assert_eq!(o.ring_capacity, 65_536);
        assert!(!o.multi_process);
        assert_eq!(o.backend, None);
    }
}
